//! The normalised form of a transcript: what snapshots store and what
//! `mcpspec diff` and `mcpspec replay` compare.
//!
//! ```text
//! >> sent
//! {
//!   "id": 1,
//!   "jsonrpc": "2.0",
//!   "method": "initialize",
//!   …
//! }
//! << received
//! { … "serverInfo": { "name": "x", "version": "[server-version]" } … }
//! -- note: harness killed the target's process group
//! ```
//!
//! Per transcript record ([`crate::transcript`]), in order:
//!
//! - a frame is its parsed message, redacted ([`Redactions`]), keys sorted
//!   and pretty-printed, so that a diff points at the one value that
//!   changed and key order (not significant in JSON) never shows; a frame
//!   that is not JSON is shown as its exact text (`raw: "…"`, a JSON
//!   string) or bytes (`raw (base64): …`);
//! - a harness note keeps its text with durations redacted;
//! - times (`at_ms`) are dropped, and so are the target's stderr lines:
//!   stderr is a separate pipe, so how its lines interleave with frames,
//!   and whether the last ones are read before the target is stopped,
//!   varies from run to run.

use serde_json::{Map, Value};

use crate::redact::Redactions;

/// Parses a `.jsonl` transcript: one JSON object per non-empty line, each
/// with a `dir` or `kind`. Errors name the line.
pub fn parse_jsonl(text: &str) -> Result<Vec<Value>, String> {
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", i + 1))?;
        if !(v.get("kind").is_some_and(Value::is_string)
            || v.get("dir").is_some_and(Value::is_string))
        {
            return Err(format!(
                "line {}: not a transcript record (no `kind` or `dir`)",
                i + 1
            ));
        }
        records.push(v);
    }
    Ok(records)
}

/// Whether `text` looks like a transcript (its first record parses).
pub fn looks_like_jsonl(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|v| v.get("dir").is_some() && v.get("kind").is_some())
}

/// `sent`, `received`, `stderr` or `note`, from `kind` or else `dir`.
pub fn kind_of(record: &Value) -> &str {
    match record.get("kind").and_then(Value::as_str) {
        Some(k) => k,
        None => match record.get("dir").and_then(Value::as_str) {
            Some(">>") => "sent",
            Some("<<") => "received",
            Some("!!") => "stderr",
            _ => "note",
        },
    }
}

/// `value` with the keys of every object sorted.
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        v => v.clone(),
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The body of a frame record: message, else raw text, else bytes, else the shown text.
fn frame_body(record: &Value, rules: &Redactions) -> String {
    if let Some(m) = record.get("message") {
        let v = sorted(&rules.message(m));
        return serde_json::to_string_pretty(&v).unwrap_or_default();
    }
    if let Some(raw) = record.get("raw").and_then(Value::as_str) {
        return format!("raw: {}", quoted(&rules.text(raw)));
    }
    if let Some(b64) = record.get("raw_base64").and_then(Value::as_str) {
        return format!("raw (base64): {b64}");
    }
    let text = record.get("text").and_then(Value::as_str).unwrap_or("");
    format!("text: {}", quoted(&rules.text(text)))
}

/// One record's normalised lines; `None` for what the normal form leaves out.
pub fn record(record: &Value, rules: &Redactions) -> Option<String> {
    let kind = kind_of(record);
    match kind {
        "stderr" => None,
        "sent" | "received" => {
            let head = if kind == "sent" {
                ">> sent"
            } else {
                "<< received"
            };
            Some(format!("{head}\n{}\n", frame_body(record, rules)))
        }
        _ => {
            let text = record.get("text").and_then(Value::as_str).unwrap_or("");
            Some(format!("-- note: {}\n", rules.note(text)))
        }
    }
}

/// The normalised transcript of `records`.
pub fn normalize(records: &[Value], rules: &Redactions) -> String {
    records.iter().filter_map(|r| record(r, rules)).collect()
}

/// The normalised transcript of only the records of `kind` (e.g. what the
/// target sent, for replay).
pub fn normalize_kind(records: &[Value], rules: &Redactions, kind: &str) -> String {
    records
        .iter()
        .filter(|r| kind_of(r) == kind)
        .filter_map(|r| record(r, rules))
        .collect()
}

/// The normalised form of a case's transcript lines as the runner reports them.
pub fn normalize_lines(lines: &[mcpspec_model::TranscriptLine], rules: &Redactions) -> String {
    let records: Vec<Value> = lines.iter().map(crate::transcript::record).collect();
    normalize(&records, rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_are_sorted_redacted_and_stderr_and_times_dropped() {
        let records = vec![
            json!({"at_ms": 0, "dir": ">>", "kind": "sent", "text": "…",
                   "message": {"method": "initialize", "jsonrpc": "2.0", "id": 1}}),
            json!({"at_ms": 5, "dir": "!!", "kind": "stderr", "text": "started"}),
            json!({"at_ms": 6, "dir": "<<", "kind": "received", "text": "…",
                   "message": {"result": {"serverInfo": {"version": "9"}}, "id": 1}}),
            json!({"at_ms": 7, "dir": "<<", "kind": "received", "text": "{oops", "raw": "{oops"}),
            json!({"at_ms": 8, "dir": "<<", "kind": "received", "text": "?", "raw_base64": "/2E="}),
            json!({"at_ms": 9, "dir": "--", "kind": "note", "text": "no answer within 300ms"}),
        ];
        let text = normalize(&records, &Redactions::builtin());
        assert_eq!(
            text,
            ">> sent\n{\n  \"id\": 1,\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"initialize\"\n}\n\
             << received\n{\n  \"id\": 1,\n  \"result\": {\n    \"serverInfo\": {\n      \
             \"version\": \"[server-version]\"\n    }\n  }\n}\n\
             << received\nraw: \"{oops\"\n\
             << received\nraw (base64): /2E=\n\
             -- note: no answer within [duration]\n"
        );
        let later: Vec<Value> = records
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r["at_ms"] = json!(999);
                r
            })
            .collect();
        assert_eq!(normalize(&later, &Redactions::builtin()), text);
        assert!(
            normalize_kind(&records, &Redactions::builtin(), "received").starts_with("<< received")
        );
    }

    #[test]
    fn jsonl_errors_name_the_line() {
        assert_eq!(parse_jsonl("\n{\"dir\":\">>\"}\n").unwrap().len(), 1);
        assert!(parse_jsonl("{\"dir\":\">>\"}\nnope")
            .unwrap_err()
            .starts_with("line 2"));
        assert!(parse_jsonl("{\"x\":1}")
            .unwrap_err()
            .contains("not a transcript record"));
        assert!(looks_like_jsonl("{\"dir\":\">>\",\"kind\":\"sent\"}\n"));
        assert!(!looks_like_jsonl(
            "{\"format\":\"mcpspec-fuzz-reproducer/1\"}"
        ));
    }
}
