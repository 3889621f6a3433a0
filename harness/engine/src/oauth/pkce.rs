//! PKCE (RFC 7636), which every MCP client uses in the authorization code
//! flow (`basic/authorization#authorization-code-protection`): the S256 code
//! challenge of a verifier (BASE64URL without padding of its SHA-256, §4.2),
//! checking a verifier against a challenge (§4.6), and the verifier's shape:
//! 43 to 128 characters of `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"`
//! (§4.1). A server's check of a token request and a client's check of its
//! own authorization request both go through here.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The only method the spec lets a capable client use (2025-11-25 on says
/// so in words; OAuth 2.1 §4.1.1 before).
pub const S256: &str = "S256";

/// Why a PKCE value breaks RFC 7636.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PkceError {
    #[error("code verifier is {0} characters long, outside 43..=128")]
    VerifierLength(usize),
    #[error("code verifier holds {0:?}, outside the unreserved characters")]
    VerifierCharset(char),
    #[error("code challenge method is {0:?}, not S256")]
    Method(Option<String>),
    #[error("S256 code challenge {0:?} is not 43 base64url characters")]
    ChallengeShape(String),
    #[error("code verifier does not match the code challenge")]
    Mismatch,
}

/// The S256 challenge of `verifier`.
pub fn s256_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Checks a verifier's length and characters (RFC 7636 §4.1).
pub fn check_verifier(verifier: &str) -> Result<(), PkceError> {
    if let Some(bad) = verifier
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')))
    {
        return Err(PkceError::VerifierCharset(bad));
    }
    match verifier.len() {
        43..=128 => Ok(()),
        n => Err(PkceError::VerifierLength(n)),
    }
}

/// Checks the `code_challenge` / `code_challenge_method` of an authorization
/// request: the method must be S256 (absent means `plain`, RFC 7636 §4.3)
/// and the challenge a SHA-256 in base64url without padding.
pub fn check_challenge(method: Option<&str>, challenge: &str) -> Result<(), PkceError> {
    if method != Some(S256) {
        return Err(PkceError::Method(method.map(str::to_owned)));
    }
    let decodes = URL_SAFE_NO_PAD
        .decode(challenge)
        .is_ok_and(|d| d.len() == 32);
    if challenge.len() != 43 || !decodes {
        return Err(PkceError::ChallengeShape(challenge.to_owned()));
    }
    Ok(())
}

/// Checks the verifier of a token request against the S256 challenge of the
/// authorization request it redeems (RFC 7636 §4.6).
pub fn verify_s256(verifier: &str, challenge: &str) -> Result<(), PkceError> {
    check_verifier(verifier)?;
    if s256_challenge(verifier) == challenge {
        Ok(())
    } else {
        Err(PkceError::Mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 7636 Appendix B.
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    #[test]
    fn the_rfc_example_round_trips() {
        assert_eq!(s256_challenge(VERIFIER), CHALLENGE);
        assert_eq!(verify_s256(VERIFIER, CHALLENGE), Ok(()));
        assert_eq!(check_challenge(Some("S256"), CHALLENGE), Ok(()));
    }

    #[test]
    fn a_wrong_verifier_or_a_plain_challenge_fails() {
        let other = "eBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(verify_s256(other, CHALLENGE), Err(PkceError::Mismatch));
        // A client using `plain` sends the verifier itself as the challenge.
        assert_eq!(verify_s256(VERIFIER, VERIFIER), Err(PkceError::Mismatch));
        assert_eq!(
            check_challenge(None, CHALLENGE),
            Err(PkceError::Method(None))
        );
        assert_eq!(
            check_challenge(Some("plain"), VERIFIER),
            Err(PkceError::Method(Some("plain".into())))
        );
        assert_eq!(
            check_challenge(Some("S256"), &format!("{CHALLENGE}=")),
            Err(PkceError::ChallengeShape(format!("{CHALLENGE}=")))
        );
    }

    #[test]
    fn verifier_shape() {
        assert_eq!(
            check_verifier(&"a".repeat(42)),
            Err(PkceError::VerifierLength(42))
        );
        assert_eq!(check_verifier(&"a".repeat(43)), Ok(()));
        assert_eq!(check_verifier(&"~".repeat(128)), Ok(()));
        assert_eq!(
            check_verifier(&"a".repeat(129)),
            Err(PkceError::VerifierLength(129))
        );
        assert_eq!(
            check_verifier(&format!("{}+", "a".repeat(50))),
            Err(PkceError::VerifierCharset('+'))
        );
        assert_eq!(
            verify_s256("short", &s256_challenge("short")),
            Err(PkceError::VerifierLength(5))
        );
    }
}
