//! Base64 (RFC 4648) as the reference uses it: the standard alphabet with
//! padding for blob resources, and the URL-safe alphabet without padding for
//! pagination cursors.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;

/// Standard alphabet, padded (what `BlobResourceContents.blob` carries).
pub(crate) fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// URL-safe alphabet, unpadded.
pub(crate) fn encode_url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes URL-safe, unpadded base64. Rejects anything else, including
/// padding and non-canonical trailing bits, so that one byte string has one
/// encoding.
pub(crate) fn decode_url(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in cases {
            assert_eq!(encode(plain.as_bytes()), coded);
            let url = encode_url(plain.as_bytes());
            assert_eq!(url, coded.trim_end_matches('='));
            assert_eq!(decode_url(&url).as_deref(), Some(plain.as_bytes()));
        }
    }

    #[test]
    fn url_safe_round_trip_and_rejects_garbage() {
        let all: Vec<u8> = (0..=255).collect();
        for len in 0..all.len() {
            let text = encode_url(&all[..len]);
            assert_eq!(decode_url(&text).as_deref(), Some(&all[..len]));
        }
        assert_eq!(decode_url("Zm9v="), None);
        assert_eq!(decode_url("Z"), None);
        assert_eq!(decode_url("Zh"), None, "non-canonical trailing bits");
        assert_eq!(
            decode_url("a+b/"),
            None,
            "standard alphabet is not URL-safe"
        );
    }
}
