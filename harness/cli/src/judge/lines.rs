//! The two JSON-lines formats `mcpspec judge` reads.
//!
//! **Plain traffic logs**, one JSON object per line (blank lines skipped):
//!
//! ```json
//! {"direction": "client->server", "message": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}
//! {"direction": "server->client", "message": {"jsonrpc": "2.0", "id": 1, "result": {}}, "at_ms": 12}
//! ```
//!
//! | field | |
//! |---|---|
//! | `direction` | `client->server` or `server->client` (required) |
//! | `message` | the JSON-RPC message (any JSON value: a broken one is judged as sent) |
//! | `raw` | instead of `message`: the exact text sent (e.g. a line that is not JSON) |
//! | `at_ms` | optional: milliseconds since the connection started (default: the previous line's) |
//! | `transport` | optional: `stdio` (default), `http` or `sse`; the first line's holds for the file |
//!
//! The messages are judged by every message rule: JSON-RPC, ids and
//! answers, the lifecycle, the schema of each message's version, what
//! messages say. Over `http` / `sse` a log carries no HTTP exchange, so the
//! transport's own rules (headers, status codes, streams) are not judged:
//! record those as a HAR file.
//!
//! **mcpspec's transcripts** (`--report-dir DIR/transcripts/<case id>.jsonl`,
//! see `mcpspec_report::transcript`): `>>` what the harness sent, `<<` what
//! the target sent (`[framing]` lines: what broke the framing), notes of how
//! the target exited. The target's role is the case id's first segment
//! (`server/…` or `client/…`) or `--role`; the case's version is the id's
//! `@version`. Only stdio transcripts are read: an HTTP case's transcript
//! keeps its exchanges as text, not as records.

use mcpspec_engine::{Role, Version};
use mcpspec_oracle::pair::{Side, Traffic};
use mcpspec_wire::event::{Event, Transport, Via};
use mcpspec_wire::{FrameError, FrameErrorKind};
use serde_json::Value;

use super::Recording;

/// One JSON object per non-blank line, each with its 1-based line number.
pub fn objects(text: &str) -> Result<Vec<(usize, Value)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", i + 1))?;
        if !v.is_object() {
            return Err(format!("line {}: not a JSON object", i + 1));
        }
        out.push((i + 1, v));
    }
    Ok(out)
}

/// Whether the records look like a transcript (rather than a plain log).
pub fn is_transcript(records: &[(usize, Value)]) -> bool {
    records
        .first()
        .is_some_and(|(_, r)| r.get("direction").is_none() && r.get("dir").is_some())
}

/// A plain traffic log.
pub fn plain(records: &[(usize, Value)]) -> Result<Recording, String> {
    let transport = match records.first().and_then(|(_, r)| r.get("transport")) {
        None => Transport::Stdio,
        Some(t) => match t.as_str() {
            Some("stdio") => Transport::Stdio,
            Some("http") => Transport::Http,
            Some("sse") => Transport::Sse,
            _ => {
                return Err(format!(
                    "line {}: `transport` is not stdio, http or sse",
                    records[0].0
                ))
            }
        },
    };
    let mut traffic = Vec::new();
    let mut at = 0;
    for (n, (line, r)) in records.iter().enumerate() {
        let from = match r.get("direction").and_then(Value::as_str) {
            Some("client->server") => Side::Client,
            Some("server->client") => Side::Server,
            Some(other) => {
                return Err(format!(
                    "line {line}: `direction` is {other:?}, not \"client->server\" or \"server->client\""
                ))
            }
            None => return Err(format!("line {line}: no `direction`")),
        };
        let bytes = match (r.get("raw"), r.get("message")) {
            (Some(Value::String(raw)), _) => raw.clone().into_bytes(),
            (Some(_), _) => return Err(format!("line {line}: `raw` is not a string")),
            (None, Some(m)) => m.to_string().into_bytes(),
            (None, None) => return Err(format!("line {line}: neither `message` nor `raw`")),
        };
        if let Some(t) = r.get("at_ms") {
            at = t
                .as_u64()
                .ok_or_else(|| format!("line {line}: `at_ms` is not a whole number"))?;
        }
        // No exchange carries them: each message is its own (see the module doc).
        let via = match transport {
            Transport::Stdio => Via::Stdio,
            _ => Via::Raw(n as u64 + 1),
        };
        traffic.push((at, Traffic::Message { from, via, bytes }));
    }
    Ok(Recording {
        transport,
        version: None,
        traffic,
    })
}

/// An mcpspec transcript of case `case` (its id, when known), the target
/// playing `role` (else read from the id).
pub fn transcript(
    records: &[(usize, Value)],
    case: Option<&str>,
    role: Option<Role>,
) -> Result<Recording, String> {
    let role = match (role, case.and_then(|c| c.split('/').next())) {
        (Some(r), _) => r,
        (None, Some("server")) => Role::Server,
        (None, Some("client")) => Role::Client,
        _ => {
            return Err(
                "cannot tell whether the recorded target was a server or a client: \
                 give --role (the case id is not known from the file's path)"
                    .to_owned(),
            )
        }
    };
    let version = case
        .and_then(|c| c.rsplit_once('@'))
        .and_then(|(_, v)| v.parse::<Version>().ok());
    let target = if role == Role::Client {
        Side::Client
    } else {
        Side::Server
    };
    let harness = if target == Side::Client {
        Side::Server
    } else {
        Side::Client
    };
    let mut traffic = Vec::new();
    for (line, r) in records {
        let at = r.get("at_ms").and_then(Value::as_u64).unwrap_or(0);
        match r.get("transport").and_then(Value::as_str) {
            Some("stdio") | None => {}
            Some(other) => {
                return Err(format!(
                    "line {line}: a {other} transcript: only stdio transcripts keep what the \
                     transport judges (record HTTP traffic as a HAR file)"
                ))
            }
        }
        let dir = r.get("dir").and_then(Value::as_str).unwrap_or_default();
        let text = r.get("text").and_then(Value::as_str).unwrap_or_default();
        match dir {
            ">>" | "<<" => {
                let from = if dir == ">>" { harness } else { target };
                let bytes = bytes_of(r).map_err(|e| format!("line {line}: {e}"))?;
                let item = match text.strip_prefix("[framing] ") {
                    Some(what) => Traffic::Unframed {
                        from,
                        via: Via::Stdio,
                        error: FrameError {
                            kind: framing_kind(what),
                            line: 0,
                            bytes,
                        },
                    },
                    None => Traffic::Message {
                        from,
                        via: Via::Stdio,
                        bytes,
                    },
                };
                traffic.push((at, item));
            }
            "--" => {
                if let Some(event) = exit_of(text) {
                    traffic.push((
                        at,
                        Traffic::Gone {
                            side: target,
                            via: Via::Stdio,
                            event,
                        },
                    ));
                }
            }
            "!!" => {}
            other => {
                return Err(format!(
                    "line {line}: `dir` is {other:?}, not >>, <<, !! or --"
                ))
            }
        }
    }
    Ok(Recording {
        transport: Transport::Stdio,
        version,
        traffic,
    })
}

/// A frame's exact bytes: `raw`, `raw_base64`, else the parsed `message`.
fn bytes_of(r: &Value) -> Result<Vec<u8>, String> {
    if let Some(raw) = r.get("raw").and_then(Value::as_str) {
        return Ok(raw.as_bytes().to_vec());
    }
    if let Some(b) = r.get("raw_base64").and_then(Value::as_str) {
        return mcpspec_report::transcript::base64_decode(b)
            .map_err(|e| format!("bad raw_base64: {e}"));
    }
    match r.get("message") {
        Some(m) => Ok(m.to_string().into_bytes()),
        None => Err(
            "a frame without `raw`, `raw_base64` or `message` (its bytes were not kept)".to_owned(),
        ),
    }
}

/// The kind of a framing error, from its text (`FrameError`'s display).
fn framing_kind(text: &str) -> FrameErrorKind {
    if text.contains("not valid UTF-8") {
        FrameErrorKind::InvalidUtf8 { valid_up_to: 0 }
    } else if text.contains("-byte limit") {
        FrameErrorKind::Oversize { len: 0, limit: 0 }
    } else {
        FrameErrorKind::Truncated
    }
}

/// How the target exited, from the runner's note.
fn exit_of(note: &str) -> Option<Event> {
    let note = note.split(';').next().unwrap_or_default();
    if let Some(code) = note.strip_prefix("the target exited with code ") {
        return Some(Event::Exited {
            code: code.trim().parse().ok(),
            signal: None,
        });
    }
    if let Some(sig) = note.strip_prefix("the target was killed by signal ") {
        return Some(Event::Exited {
            code: None,
            signal: sig.trim().parse().ok(),
        });
    }
    (note == "the target exited").then_some(Event::Exited {
        code: None,
        signal: None,
    })
}
