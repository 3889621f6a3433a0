//! `mcpspec scenario from-transcript FILE.jsonl [--out DIR/server/…/NAME.yaml]`: a regression
//! scenario from a recorded case, so that a finding (a failed case, a fuzz
//! finding replayed through a case) becomes a permanent test.
//!
//! The input is a transcript of a server case over stdio, as `--report-dir`
//! writes it (`DIR/transcripts/<case id>.jsonl`). The scenario written:
//!
//! - replays the harness side byte for byte (`raw` steps, `session: fresh`:
//!   the recorded handshake is part of the replay), with the recorded pauses
//!   between inputs kept where they were long enough to matter;
//! - expects an answer with its id to each request the harness sent (but
//!   those it cancelled): a result where a result came and an error where
//!   an error came (the codes are not pinned: the recording cannot say
//!   whether a code was right), any answer where none came under that id;
//! - names the requirements the oracle found broken in the recorded case
//!   (read from `DIR/report.json`): the replayed traffic is judged by the
//!   same oracle, so the scenario fails while the target still breaks them
//!   and passes once it is fixed. A case with no oracle finding keeps the
//!   requirements of the scenario it came from.
//!
//! Findings of a scenario's own steps (a wrong error code, say) are not
//! carried over: a replay cannot tell which answer they were about, and a
//! scenario must not name a rule it cannot fail on. Client cases and HTTP
//! transcripts are refused (exit 2) with that reason.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use mcpspec_engine::Version;
use mcpspec_model::Exit;
use mcpspec_report::normalize::{kind_of, parse_jsonl};
use mcpspec_scenario::Corpus;
use serde_json::{json, Value};

/// A recorded pause shorter than this is not kept (ordering is: each input
/// waits for the answers recorded before it, by `expect`).
const KEEP_PAUSE_MS: u64 = 100;
/// The longest pause kept.
const MAX_PAUSE_MS: u64 = 2000;

#[derive(Debug, Subcommand)]
pub enum ScenarioCommand {
    /// Write a regression scenario that replays a recorded server case (a --report-dir
    /// transcript) and fails while the target breaks the rules the oracle found broken in it
    FromTranscript(FromTranscriptArgs),
}

#[derive(Debug, Args)]
pub struct FromTranscriptArgs {
    /// The transcript: DIR/transcripts/<case id>.jsonl of a server case over stdio
    pub file: PathBuf,
    /// Where to write the scenario (default: standard output)
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The new scenario's id (default: from --out's path below its last `server/` directory,
    /// else server/regress/<the case's scenario id without `server/`>)
    #[arg(long)]
    pub id: Option<String>,
}

pub fn run(command: ScenarioCommand) -> Exit {
    let ScenarioCommand::FromTranscript(args) = command;
    match build(&args) {
        Ok(yaml) => match &args.out {
            Some(path) => match write(path, &yaml) {
                Ok(()) => {
                    eprintln!("wrote {}", path.display());
                    Exit::Success
                }
                Err(e) => {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    Exit::Usage
                }
            },
            None => {
                print!("{yaml}");
                Exit::Success
            }
        },
        Err(e) => {
            eprintln!("error: {}: {e}", args.file.display());
            Exit::Usage
        }
    }
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

/// The case a transcript records, from its path: `<id>@<version>` after
/// its `transcripts/` directory; and the report directory holding it.
fn case_of(file: &Path) -> Result<(String, Version, Option<PathBuf>), String> {
    let parts: Vec<_> = file.components().collect();
    let at = parts
        .iter()
        .rposition(|c| c.as_os_str() == "transcripts")
        .ok_or("not under a `transcripts/` directory of a --report-dir: its case is unknown")?;
    let rel: PathBuf = parts[at + 1..].iter().collect();
    let rel = rel.to_string_lossy().replace('\\', "/");
    let case = rel
        .strip_suffix(".jsonl")
        .ok_or("a transcript's name ends in .jsonl")?;
    let (id, version) = case
        .rsplit_once('@')
        .ok_or("the file name has no @<version>")?;
    let version: Version = version
        .parse()
        .map_err(|_| format!("unknown version {version:?}"))?;
    let dir: PathBuf = parts[..at].iter().collect();
    Ok((id.to_owned(), version, Some(dir)))
}

/// The id a scenario file at `path` must have: its path from the last
/// `server` directory on, without `.yaml` (as the loader reads a scenario
/// directory).
fn id_of_path(path: &Path) -> Option<String> {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let at = parts.iter().rposition(|c| c == "server")?;
    let rel = parts[at..].join("/");
    rel.strip_suffix(".yaml").map(str::to_owned)
}

/// The requirements the oracle found broken in `case` (`report.json`).
fn oracle_findings(report_dir: &Path, case: &str) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(report_dir.join("report.json")) else {
        return Vec::new();
    };
    let Ok(doc) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = doc["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["id"] == case)
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["source"] == "oracle")
        .filter_map(|f| f["requirement"].as_str().map(str::to_owned))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The scenario, as YAML.
fn build(args: &FromTranscriptArgs) -> Result<String, String> {
    let (case_id, version, report_dir) = case_of(&args.file)?;
    if !case_id.starts_with("server/") {
        return Err(format!(
            "{case_id} is a client case: only server cases (the harness played the client) \
             can be replayed as a scenario"
        ));
    }
    let text = std::fs::read_to_string(&args.file).map_err(|e| e.to_string())?;
    let records = parse_jsonl(&text)?;
    if let Some(t) = records
        .iter()
        .filter_map(|r| r["transport"].as_str())
        .find(|t| *t != "stdio")
    {
        return Err(format!(
            "a transcript over {t}: only stdio transcripts keep every byte sent"
        ));
    }
    let case = format!("{case_id}@{version}");
    let mut requirements = report_dir
        .map(|d| oracle_findings(&d, &case))
        .unwrap_or_default();
    let from_oracle = !requirements.is_empty();
    if requirements.is_empty() {
        let corpus = Corpus::load(&[]).map_err(|_| "the built-in scenarios do not load")?;
        requirements = corpus
            .get(&case_id)
            .map(|s| s.requirements.clone())
            .ok_or(format!(
                "no oracle finding in the report beside it, and no built-in scenario {case_id} \
                 to take requirements from"
            ))?;
    }
    let steps = steps(&records)?;
    if steps.is_empty() {
        return Err("the harness sent nothing in this transcript".to_owned());
    }
    let id = args
        .id
        .clone()
        .or_else(|| args.out.as_deref().and_then(id_of_path))
        .unwrap_or_else(|| format!("server/regress/{}", case_id.trim_start_matches("server/")));
    let scenario = json!({
        "id": id,
        "title": format!("Regression: {case} replayed as recorded"),
        "requirements": requirements,
        "level": "must",
        "versions": [version.as_str()],
        "transports": ["stdio"],
        "session": "fresh",
        "notes": notes(&case, &args.file, from_oracle),
        "steps": steps,
    });
    let body = serde_saphyr::to_string(&scenario).map_err(|e| e.to_string())?;
    Ok(format!(
        "# Written by `mcpspec scenario from-transcript {}`.\n{body}",
        args.file.display()
    ))
}

fn notes(case: &str, file: &Path, from_oracle: bool) -> String {
    let why = if from_oracle {
        "The requirements are those the oracle found broken in the recording: the replay is \
         judged by the same oracle, so this case fails while the target still breaks them."
    } else {
        "The recording broke no rule the oracle judges: the requirements are those of the \
         scenario it came from, and the case fails when an answer goes missing or changes kind, \
         or when the oracle finds a new violation."
    };
    format!(
        "Replays the harness side of {case} ({}) byte for byte, with its recorded pauses, and \
         expects each request to be answered with its id, with the kind of answer recorded where \
         it was answered (result or error; codes not pinned). {why}",
        file.display()
    )
}

/// Whether the harness cancelled request `id` (no answer is then owed).
fn cancelled(records: &[Value], id: &Value) -> bool {
    records.iter().any(|r| {
        kind_of(r) == "sent"
            && r["message"]["method"] == "notifications/cancelled"
            && &r["message"]["params"]["requestId"] == id
    })
}

/// The replay: a `raw` step per frame the harness sent; each request
/// expects an answer with its id (of the kind recorded, where it was
/// answered under that id), unless the harness cancelled it.
fn steps(records: &[Value]) -> Result<Vec<Value>, String> {
    let answered = |id: &Value| {
        records.iter().find_map(|r| {
            let m = r.get("message")?;
            (kind_of(r) == "received" && m.get("method").is_none() && m.get("id") == Some(id)).then(
                || {
                    if m.get("error").is_some() {
                        "error"
                    } else {
                        "result"
                    }
                },
            )
        })
    };
    let mut out = Vec::new();
    let mut last_ms: Option<u64> = None;
    for (i, r) in records.iter().enumerate() {
        if kind_of(r) != "sent" {
            continue;
        }
        let at = r["at_ms"].as_u64().unwrap_or(0);
        if let Some(prev) = last_ms {
            let gap = at.saturating_sub(prev);
            if gap >= KEEP_PAUSE_MS {
                out.push(json!({ "sleep": format!("{}ms", gap.min(MAX_PAUSE_MS)) }));
            }
        }
        last_ms = Some(at);
        let mut step = serde_json::Map::new();
        match (r["raw"].as_str(), r["raw_base64"].as_str()) {
            (Some(raw), _) => {
                // A frame is recorded without its line end; the step appends it.
                step.insert("raw".into(), json!(raw.strip_suffix('\n').unwrap_or(raw)));
            }
            (None, Some(b64)) => {
                let bytes = mcpspec_report::transcript::base64_decode(b64)
                    .map_err(|e| format!("record {}: bad raw_base64: {e}", i + 1))?;
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                step.insert("raw_hex".into(), json!(hex.join(" ")));
            }
            (None, None) => {
                return Err(format!(
                    "record {}: a sent frame whose bytes were not kept",
                    i + 1
                ))
            }
        }
        let request_id = r
            .get("message")
            .filter(|m| m.get("method").is_some())
            .and_then(|m| m.get("id"));
        if let Some(id) = request_id.filter(|id| !cancelled(records, id)) {
            let expect = match answered(id) {
                Some(kind) => json!({ "id": id, kind: { "$type": "object" } }),
                // Unanswered in the recording (or answered under another
                // id): an answer is owed all the same.
                None => json!({ "id": id }),
            };
            step.insert("expect".into(), expect);
        }
        out.push(Value::Object(step));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_case_comes_from_the_path() {
        let (id, v, dir) = case_of(Path::new(
            "r/transcripts/server/tools/list/x@2025-06-18.jsonl",
        ))
        .unwrap();
        assert_eq!(id, "server/tools/list/x");
        assert_eq!(v, Version::V2025_06_18);
        assert_eq!(dir, Some(PathBuf::from("r")));
        assert!(case_of(Path::new("elsewhere/x@2025-06-18.jsonl")).is_err());
        assert!(case_of(Path::new("transcripts/x@1999-01-01.jsonl")).is_err());
    }

    #[test]
    fn the_id_follows_the_file_it_goes_to() {
        assert_eq!(
            id_of_path(Path::new("mine/server/regress/ids.yaml")).as_deref(),
            Some("server/regress/ids")
        );
        assert_eq!(id_of_path(Path::new("mine/regress/ids.yaml")), None);
    }

    #[test]
    fn requests_expect_the_kind_of_answer_recorded() {
        let records = vec![
            json!({"kind": "sent", "at_ms": 0, "raw": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                   "message": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}),
            json!({"kind": "received", "at_ms": 1, "message": {"jsonrpc": "2.0", "id": 1, "result": {}}}),
            json!({"kind": "sent", "at_ms": 500, "raw": "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\"}",
                   "message": {"jsonrpc": "2.0", "id": 2, "method": "x"}}),
            json!({"kind": "received", "at_ms": 501, "message": {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601}}}),
            json!({"kind": "sent", "at_ms": 502, "raw_base64": "/w=="}),
            json!({"kind": "sent", "at_ms": 503, "raw": "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"y\"}",
                   "message": {"jsonrpc": "2.0", "id": 3, "method": "y"}}),
            json!({"kind": "sent", "at_ms": 504, "raw": "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"z\"}",
                   "message": {"jsonrpc": "2.0", "id": 4, "method": "z"}}),
            json!({"kind": "sent", "at_ms": 505, "raw": "{}",
                   "message": {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}}),
        ];
        let s = steps(&records).unwrap();
        assert_eq!(
            s[0]["expect"],
            json!({"id": 1, "result": {"$type": "object"}})
        );
        assert_eq!(s[1], json!({"sleep": "500ms"}));
        assert_eq!(
            s[2]["expect"],
            json!({"id": 2, "error": {"$type": "object"}})
        );
        assert_eq!(s[3], json!({"raw_hex": "ff"}));
        // Unanswered: an answer is owed all the same; cancelled: none is.
        assert_eq!(s[4]["expect"], json!({"id": 3}));
        assert!(s[5].get("expect").is_none(), "{}", s[5]);
    }
}
