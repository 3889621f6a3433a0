//! The transport's side of [`mcpspec_wire::event`]: which headers a record
//! keeps, and how credentials are redacted before a record leaves the
//! transport. The event types themselves live in the wire layer (re-exported
//! here) so that the oracle can read them without tokio.

pub use mcpspec_wire::event::{
    Event, HttpRecord, Stamped, Transport, Via, RECORD_BODY_MAX, REDACTED,
};

const REQUEST_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
    "origin",
    "host",
    "authorization",
    "cookie",
];

const RESPONSE_HEADERS: &[&str] = &[
    "content-type",
    "content-length",
    "mcp-session-id",
    "mcp-protocol-version",
    "allow",
    "www-authenticate",
    "retry-after",
    "location",
    "set-cookie",
];

/// Whether a header is worth recording for a request (`all` for raw
/// exchanges, whose every header was chosen by a scenario).
pub(crate) fn keep_request_header(name: &str, all: bool) -> bool {
    // `Mcp-Param-{Name}`: a tool's parameters mirrored into headers (SEP-2243).
    all || REQUEST_HEADERS.contains(&name) || name.starts_with("mcp-param-")
}

pub(crate) fn keep_response_header(name: &str) -> bool {
    RESPONSE_HEADERS.contains(&name)
}

/// The value a record keeps: credentials and cookies redacted.
pub(crate) fn recorded_value(name: &str, value: &[u8]) -> String {
    match name {
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie" => {
            // Keep the scheme ("Bearer"), which is not a secret.
            let text = String::from_utf8_lossy(value);
            match (name, text.split_once(' ')) {
                ("authorization" | "proxy-authorization", Some((scheme, _))) => {
                    format!("{scheme} {REDACTED}")
                }
                _ => REDACTED.to_owned(),
            }
        }
        _ => String::from_utf8_lossy(value).into_owned(),
    }
}

/// Text of a body for a record, cut at a char boundary.
pub(crate) fn body_text(bytes: &[u8]) -> String {
    let cut = bytes.len().min(RECORD_BODY_MAX);
    let mut text = String::from_utf8_lossy(&bytes[..cut]).into_owned();
    if bytes.len() > cut {
        text.push_str(" …");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_redacted_but_the_scheme_kept() {
        assert_eq!(
            recorded_value("authorization", b"Bearer s3cret"),
            "Bearer [redacted]"
        );
        assert_eq!(recorded_value("authorization", b"s3cret"), "[redacted]");
        assert_eq!(recorded_value("cookie", b"a=b; c=d"), "[redacted]");
        assert_eq!(recorded_value("set-cookie", b"a=b"), "[redacted]");
        assert_eq!(recorded_value("accept", b"*/*"), "*/*");
    }
}
