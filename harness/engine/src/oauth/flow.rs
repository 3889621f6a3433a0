//! Client-side decisions the spec prescribes, as pure functions, so the
//! reference client makes them and the harness judges a client by them:
//!
//! - scope selection for the first authorization (2025-11-25 on,
//!   `basic/authorization#scope-selection-strategy`): the challenge's
//!   `scope` if present, else every `scopes_supported` of the Protected
//!   Resource Metadata, else no `scope` parameter at all;
//! - step-up after `insufficient_scope` (`#step-up-authorization-flow`):
//!   the union of the scopes asked for before and the challenged ones;
//! - the `iss` check of an authorization response (2026-07-28, RFC 9207
//!   §2.4, `#authorization-response-validation`): a present `iss` is compared
//!   with the recorded issuer by simple string comparison (no normalisation
//!   of case, port, slash or percent-encoding); an absent one is rejected
//!   only when the metadata advertised
//!   `authorization_response_iss_parameter_supported: true`.

/// The `scope` to request first, or `None` to omit the parameter.
pub fn initial_scope(
    challenge_scope: Option<&str>,
    scopes_supported: Option<&[String]>,
) -> Option<String> {
    if let Some(scope) = challenge_scope.filter(|s| !s.trim().is_empty()) {
        return Some(scope.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    scopes_supported
        .filter(|s| !s.is_empty())
        .map(|s| s.join(" "))
}

/// The scopes of a step-up request: those asked for before, then any
/// challenged scope not among them, space-separated.
pub fn step_up_scope(previous: &str, challenged: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for s in previous
        .split_whitespace()
        .chain(challenged.split_whitespace())
    {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out.join(" ")
}

/// Why a client must reject an authorization response under RFC 9207.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssError {
    #[error("iss {found:?} differs from the recorded issuer {expected:?}")]
    Mismatch { found: String, expected: String },
    #[error("iss is absent although the metadata advertises authorization_response_iss_parameter_supported")]
    Missing,
}

/// Whether a client may redeem the code of an authorization response with
/// `iss` (decoded from the query), the issuer recorded before redirecting,
/// and the metadata's `authorization_response_iss_parameter_supported`.
pub fn check_iss(
    iss: Option<&str>,
    recorded_issuer: &str,
    iss_supported: bool,
) -> Result<(), IssError> {
    match iss {
        Some(found) if found == recorded_issuer => Ok(()),
        Some(found) => Err(IssError::Mismatch {
            found: found.to_owned(),
            expected: recorded_issuer.to_owned(),
        }),
        None if iss_supported => Err(IssError::Missing),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_scope_follows_the_priority_order() {
        let supported = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(
            initial_scope(Some("x  y"), Some(&supported)).as_deref(),
            Some("x y")
        );
        assert_eq!(
            initial_scope(None, Some(&supported)).as_deref(),
            Some("a b")
        );
        assert_eq!(
            initial_scope(Some(" "), Some(&supported)).as_deref(),
            Some("a b")
        );
        assert_eq!(initial_scope(None, None), None);
        assert_eq!(initial_scope(None, Some(&[])), None);
    }

    #[test]
    fn step_up_keeps_what_was_asked_before() {
        assert_eq!(
            step_up_scope("files:read", "files:write"),
            "files:read files:write"
        );
        assert_eq!(step_up_scope("a b", "b c"), "a b c");
        assert_eq!(step_up_scope("", "c"), "c");
    }

    #[test]
    fn iss_follows_the_rfc_9207_table() {
        let rec = "https://auth.example.com";
        assert_eq!(check_iss(Some(rec), rec, true), Ok(()));
        assert_eq!(check_iss(Some(rec), rec, false), Ok(()));
        assert_eq!(check_iss(None, rec, false), Ok(()));
        assert_eq!(check_iss(None, rec, true), Err(IssError::Missing));
        for near in [
            "https://auth.example.com/",
            "HTTPS://auth.example.com",
            "https://auth.example.com:443",
        ] {
            assert!(
                matches!(
                    check_iss(Some(near), rec, false),
                    Err(IssError::Mismatch { .. })
                ),
                "{near}"
            );
        }
    }
}
