//! `auth.no-token-in-query`, judged on every HTTP request a client makes
//! (the harness serves the client under test over Streamable HTTP or legacy
//! HTTP+SSE), whether or not the case scripts an authorization flow.

use mcpspec_engine::{ids, Requirement, Version};
use mcpspec_wire::event::HttpRecord;

/// The query parameter RFC 6750 §2.3 defines for a token in the URI.
const QUERY_TOKEN: &str = "access_token";

/// `auth.no-token-in-query`: the request's target has no `access_token`
/// query parameter.
pub(crate) fn query_token(
    version: Version,
    record: &HttpRecord,
) -> Option<(&'static Requirement, String)> {
    let id = &ids::AUTH_NO_TOKEN_IN_QUERY;
    if !id.applies_to(version) {
        return None;
    }
    let (path, query) = record.target.split_once('?')?;
    url::form_urlencoded::parse(query.as_bytes())
        .any(|(k, _)| k == QUERY_TOKEN)
        .then(|| {
            (
                id,
                format!(
                    "{} {path} carried an access token in its query string ({QUERY_TOKEN}=…)",
                    record.method
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(target: &str) -> HttpRecord {
        HttpRecord {
            method: "POST".into(),
            target: target.into(),
            ..HttpRecord::default()
        }
    }

    #[test]
    fn only_a_token_parameter_in_the_query_is_reported() {
        let v = Version::V2025_06_18;
        let (id, detail) = query_token(v, &record("/mcp?x=1&access_token=t")).expect("reported");
        assert_eq!(id.id, "auth.no-token-in-query");
        assert!(detail.contains("POST /mcp"), "{detail}");
        assert!(query_token(v, &record("/mcp")).is_none());
        assert!(query_token(v, &record("/mcp?token_type=access_token")).is_none());
        // Before authorization was specified there is no rule to break.
        assert!(query_token(Version::V2024_11_05, &record("/mcp?access_token=t")).is_none());
    }
}
