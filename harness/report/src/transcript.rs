//! Transcript files: `transcripts/<case id>.jsonl` in the report directory.
//!
//! **File names.** The path mirrors the case id: each `/`-separated segment
//! becomes a directory, the last one the file, plus `.jsonl`:
//! `server/tools/call/result-shape@2025-06-18` →
//! `transcripts/server/tools/call/result-shape@2025-06-18.jsonl`. Scenario
//! ids are `[a-z0-9-]` segments and versions dates, so real ids map
//! verbatim; any other byte of a segment (and `%`, and a leading `.`) is
//! written `%XX` (an empty segment `%`), so the mapping stays reversible ([`case_id_of`]) and no
//! segment can climb out (`..`) or hide.
//!
//! **Records.** One JSON object per transcript line, in order:
//!
//! | field | |
//! |---|---|
//! | `at_ms` | time since the target started |
//! | `dir` | `>>` sent, `<<` received, `!!` stderr, `--` harness note |
//! | `kind` | the same in words: `sent`, `received`, `stderr`, `note` |
//! | `transport` | `stdio` |
//! | `text` | the line as shown (long lines cut) |
//! | `raw` | a frame's exact bytes, when they are UTF-8 (absent for stderr and notes) |
//! | `raw_base64` | the same, base64, when they are not |
//! | `message` | the frame parsed as JSON, when it parses |

use serde_json::{json, Map, Value};

use mcpspec_model::TranscriptLine;

/// `server/x@2025-06-18` → `server/x@2025-06-18.jsonl` (relative to
/// `transcripts/`), `/`-separated.
pub fn file_name(case_id: &str) -> String {
    let segments: Vec<String> = case_id.split('/').map(encode_segment).collect();
    format!("{}.jsonl", segments.join("/"))
}

/// The inverse of [`file_name`]; `None` for a name it does not produce.
pub fn case_id_of(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".jsonl")?;
    let segments: Option<Vec<String>> = stem.split('/').map(decode_segment).collect();
    Some(segments?.join("/"))
}

fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'@' | b'.')
}

fn encode_segment(s: &str) -> String {
    if s.is_empty() {
        // A lone `%` is never produced otherwise (it is always followed by hex).
        return "%".to_owned();
    }
    let mut out = String::new();
    for (i, b) in s.bytes().enumerate() {
        if plain(b) && !(i == 0 && b == b'.') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode_segment(s: &str) -> Option<String> {
    if s == "%" {
        return Some(String::new());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else if plain(bytes[i]) {
            out.push(bytes[i]);
            i += 1;
        } else {
            return None;
        }
    }
    String::from_utf8(out).ok()
}

fn kind(dir: &str) -> &'static str {
    match dir {
        ">>" => "sent",
        "<<" => "received",
        "!!" => "stderr",
        _ => "note",
    }
}

/// One transcript line as a JSONL record.
pub fn record(line: &TranscriptLine) -> Value {
    let mut obj = Map::new();
    obj.insert("at_ms".into(), json!(line.at_ms));
    obj.insert("dir".into(), json!(line.dir));
    obj.insert("kind".into(), json!(kind(line.dir)));
    obj.insert("transport".into(), json!(line.transport));
    obj.insert("text".into(), json!(line.text));
    if let Some(raw) = &line.raw {
        match std::str::from_utf8(raw) {
            Ok(text) => obj.insert("raw".into(), json!(text)),
            Err(_) => obj.insert("raw_base64".into(), json!(base64(raw))),
        };
        if let Ok(message) = serde_json::from_slice::<Value>(raw) {
            obj.insert("message".into(), message);
        }
    }
    Value::Object(obj)
}

/// The whole transcript as JSON Lines.
pub fn jsonl(lines: &[TranscriptLine]) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(&record(line).to_string());
        out.push('\n');
    }
    out
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The inverse of [`base64`].
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_case_ids_map_verbatim_and_back() {
        let id = "server/tools/call/result-shape@2025-06-18";
        assert_eq!(
            file_name(id),
            "server/tools/call/result-shape@2025-06-18.jsonl"
        );
        assert_eq!(case_id_of(&file_name(id)).as_deref(), Some(id));
    }

    #[test]
    fn odd_ids_cannot_escape_and_stay_reversible() {
        for id in [
            "../../etc/passwd",
            "a//b",
            "x/.hidden",
            "sp ace/%41",
            "é/\\",
            "nul\0/%",
        ] {
            let name = file_name(id);
            assert!(
                name.split('/')
                    .all(|s| !s.starts_with('.') && !s.is_empty()),
                "{name}"
            );
            assert!(!name.contains(['\\', ' ']), "{name}");
            assert_eq!(case_id_of(&name).as_deref(), Some(id), "{name}");
        }
        assert_eq!(case_id_of("a b.jsonl"), None);
    }

    #[test]
    fn records_carry_raw_bytes_and_the_parsed_message() {
        let line = TranscriptLine {
            at_ms: 3,
            dir: "<<",
            text: "{\"id\":1}".into(),
            transport: "stdio",
            raw: Some(b"{\"id\":1}".to_vec()),
        };
        let r = record(&line);
        assert_eq!(r["kind"], "received");
        assert_eq!(r["raw"], "{\"id\":1}");
        assert_eq!(r["message"]["id"], 1);
        let bin = TranscriptLine {
            raw: Some(vec![0xff, b'a']),
            ..line.clone()
        };
        assert_eq!(record(&bin)["raw_base64"], "/2E=");
        let note = TranscriptLine {
            dir: "--",
            raw: None,
            ..line
        };
        assert!(record(&note).get("raw").is_none());
        assert_eq!(record(&note)["kind"], "note");
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in vectors {
            assert_eq!(base64(plain.as_bytes()), encoded);
            assert_eq!(base64_decode(encoded).unwrap(), plain.as_bytes());
        }
    }
}
