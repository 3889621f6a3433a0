//! A small base64 codec (RFC 4648): the standard alphabet with padding for
//! blob resources, and the URL-safe alphabet without padding for pagination
//! cursors. Hand-rolled to keep this crate's dependencies to the workspace's own.

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn encode_with(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let symbols = chunk.len() + 1;
        for i in 0..4 {
            if i < symbols {
                out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// Standard alphabet, padded (what `BlobResourceContents.blob` carries).
pub(crate) fn encode(bytes: &[u8]) -> String {
    encode_with(bytes, STANDARD, true)
}

/// URL-safe alphabet, unpadded.
pub(crate) fn encode_url(bytes: &[u8]) -> String {
    encode_with(bytes, URL_SAFE, false)
}

/// Decodes URL-safe, unpadded base64. Rejects anything else, including
/// non-canonical trailing bits, so that one byte string has one encoding.
pub(crate) fn decode_url(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u32> = text
        .bytes()
        .map(|c| {
            URL_SAFE
                .iter()
                .position(|&a| a == c)
                .and_then(|p| u32::try_from(p).ok())
        })
        .collect::<Option<_>>()?;
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for group in digits.chunks(4) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, d)| acc | (d << (18 - 6 * i)));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        let keep = group.len() - 1;
        // Bits beyond the kept bytes must be zero in a canonical encoding.
        if keep < 3 && n & (0x00ff_ffff >> (8 * keep)) != 0 {
            return None;
        }
        out.extend_from_slice(&bytes[..keep]);
    }
    Some(out)
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
