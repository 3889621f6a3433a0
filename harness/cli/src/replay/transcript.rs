//! `mcpspec replay FILE.jsonl [-- CMD ...]`: re-sends the harness side of a
//! transcript (`--report-dir DIR/transcripts/<case id>.jsonl`) to a fresh
//! target and diffs the target's answers with the recorded ones.
//!
//! The recorded frames the harness sent go out in order, byte for byte
//! (`raw`, or `raw_base64`); before each, the replay waits until the
//! target has sent as many frames as it had at that point of the
//! recording (at most `--timeout`, `--startup-timeout` for the first), so
//! a request follows the answers it followed then. A recorded "harness
//! closed stdin" note closes stdin at the same point. After the last
//! input it waits for the remaining answers, then briefly for extras.
//!
//! Only what the target sent is compared, normalised
//! (`mcpspec_report::normalize`), so timing and stderr do not count.
//! Exit 0 when the answers are the same, 1 when they differ, 2 when the
//! file is not a transcript, 3 when the target could not be started.

use std::path::Path;
use std::time::Duration;

use mcpspec_model::Exit;
use mcpspec_report::normalize::{kind_of, normalize_kind, parse_jsonl};
use mcpspec_report::{textdiff, Redactions};
use mcpspec_transport::{CommandSpec, Event, StdioProcess};
use serde_json::{json, Map, Value};

/// How long to keep reading after the last expected answer.
const SETTLE: Duration = Duration::from_millis(300);

/// What to replay: the transcript's records and how to reach the target.
pub struct Replay<'a> {
    pub records: &'a [Value],
    pub target: &'a CommandSpec,
    pub timeout: Duration,
    pub startup_timeout: Duration,
    pub max_line: usize,
}

/// One step of the harness side.
enum Input {
    Send(Vec<u8>),
    CloseStdin,
}

/// The inputs, each with the number of target frames recorded before it.
fn inputs(records: &[Value]) -> Result<(Vec<(usize, Input)>, usize), String> {
    let mut received = 0;
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        match kind_of(r) {
            "received" => received += 1,
            "sent" => {
                let bytes = if let Some(raw) = r.get("raw").and_then(Value::as_str) {
                    raw.as_bytes().to_vec()
                } else if let Some(b) = r.get("raw_base64").and_then(Value::as_str) {
                    mcpspec_report::transcript::base64_decode(b)
                        .map_err(|e| format!("record {}: bad raw_base64: {e}", i + 1))?
                } else if let Some(m) = r.get("message") {
                    m.to_string().into_bytes()
                } else {
                    return Err(format!(
                        "record {}: a sent frame without `raw`, `raw_base64` or `message` \
                         (its bytes were not kept)",
                        i + 1
                    ));
                };
                out.push((received, Input::Send(bytes)));
            }
            "note" if r.get("text").and_then(Value::as_str) == Some("harness closed stdin") => {
                out.push((received, Input::CloseStdin));
            }
            _ => {}
        }
    }
    Ok((out, received))
}

/// A received frame as a transcript record (the fields normalisation reads).
fn received(bytes: &[u8]) -> Value {
    let mut obj = Map::new();
    obj.insert("kind".into(), json!("received"));
    obj.insert("dir".into(), json!("<<"));
    match std::str::from_utf8(bytes) {
        Ok(t) => obj.insert("raw".into(), json!(t)),
        Err(_) => obj.insert(
            "raw_base64".into(),
            json!(mcpspec_report::transcript::base64(bytes)),
        ),
    };
    if let Ok(m) = serde_json::from_slice::<Value>(bytes) {
        obj.insert("message".into(), m);
    }
    Value::Object(obj)
}

/// Reads events until `want` frames were received in all, or `wait` passes.
async fn read_until(proc: &mut StdioProcess, got: &mut Vec<Value>, want: usize, wait: Duration) {
    let deadline = tokio::time::Instant::now() + wait;
    while got.len() < want && !proc.has_exited() {
        match tokio::time::timeout_at(deadline, proc.recv()).await {
            Ok(Some(e)) => match e.event {
                Event::Frame(f) => got.push(received(&f.bytes)),
                Event::FrameError(f) => got.push(received(&f.bytes)),
                _ => {}
            },
            Ok(None) | Err(_) => return,
        }
    }
}

/// Replays and returns the target's frames as records.
pub async fn play(r: &Replay<'_>) -> Result<Vec<Value>, mcpspec_transport::SpawnError> {
    let (steps, total) = inputs(r.records).unwrap_or_default();
    let mut proc = StdioProcess::spawn(r.target, r.max_line)?;
    let mut got = Vec::new();
    let mut first = true;
    for (before, input) in steps {
        let wait = if first { r.startup_timeout } else { r.timeout };
        read_until(&mut proc, &mut got, before, wait).await;
        match input {
            Input::Send(mut bytes) => {
                bytes.push(b'\n');
                first = false;
                if proc.send(&bytes).await.is_err() {
                    break;
                }
            }
            Input::CloseStdin => proc.close_input(),
        }
    }
    let wait = if first { r.startup_timeout } else { r.timeout };
    read_until(&mut proc, &mut got, total, wait).await;
    read_until(&mut proc, &mut got, usize::MAX, SETTLE).await;
    proc.kill();
    Ok(got)
}

/// `mcpspec replay FILE.jsonl`: prints the diff, returns the exit code.
pub async fn run(
    file: &Path,
    replay_target: Option<CommandSpec>,
    opts: (Duration, Duration, usize),
    rules: &Redactions,
    color: bool,
) -> Exit {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: failed to read {}: {e}", file.display());
            return Exit::Usage;
        }
    };
    let records = match parse_jsonl(&text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}: {e}", file.display());
            return Exit::Usage;
        }
    };
    if let Err(e) = inputs(&records) {
        eprintln!("error: {}: {e}", file.display());
        return Exit::Usage;
    }
    let target = match replay_target.map_or_else(|| crate::server::target(&[]), Ok) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let (timeout, startup_timeout, max_line) = opts;
    let sent = records.iter().filter(|r| kind_of(r) == "sent").count();
    println!(
        "replaying {} ({sent} frame(s) sent) against `{}`",
        file.display(),
        target.display()
    );
    let replay = Replay {
        records: &records,
        target: &target,
        timeout,
        startup_timeout,
        max_line,
    };
    let got = match play(&replay).await {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: the target could not be run: {e}");
            return Exit::TargetUnavailable;
        }
    };
    let recorded = normalize_kind(&records, rules, "received");
    let now = normalize_kind(&got, rules, "received");
    let diff = textdiff::unified(
        &recorded,
        &now,
        &format!("recorded ({})", file.display()),
        &format!("replayed ({})", target.display()),
        3,
        color,
    );
    let expected = records.iter().filter(|r| kind_of(r) == "received").count();
    if diff.is_empty() {
        println!("same: the target's {expected} answer(s) match the transcript");
        Exit::Success
    } else {
        print!("{diff}");
        println!(
            "DIFFERENT: the target's answers differ from the transcript's \
             ({} frame(s) now, {expected} recorded)",
            got.len()
        );
        Exit::Failures
    }
}
