//! `mcpspec judge`, the real binary: its verdicts on the transcripts of a
//! live run equal the live run's, and it reads the plain JSON-lines log and
//! HAR files (fixtures in `tests/judge/`), clean ones passing and broken
//! ones naming the rule and the side.
//!
//! What a transcript cannot carry, and so is not compared: the findings of
//! a scenario's own steps (an answer a step waited for in vain, a value it
//! expected): they are the scenario's expectations, not verdicts on
//! traffic. Only the oracle's findings (`"source": "oracle"`) are verdicts
//! on what crossed the connection, and those must be the same. The harness
//! side of a server case (the client, which is the harness) is not
//! compared either: the harness breaks rules on purpose to see how the
//! server copes, so judging it finds what the live run never judged.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-judge-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/judge")
        .join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run mcpspec")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

/// Every transcript file under `dir`.
fn transcripts(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p.display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// (case id, requirement) of every oracle finding of a live report.
fn live_verdicts(report: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for r in report["results"].as_array().expect("results") {
        for f in r["findings"].as_array().expect("findings") {
            if f["source"] == "oracle" {
                let id = r["id"].as_str().expect("id").to_owned();
                out.insert((id, f["requirement"].as_str().expect("req").to_owned()));
            }
        }
    }
    out
}

/// (case id, requirement) of every finding the judge blamed on `side`,
/// under the live case's id.
fn judged_verdicts(report: &Value, side: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let suffix = format!("/{side}");
    for r in report["results"].as_array().expect("results") {
        let id = r["id"].as_str().expect("id");
        let Some(case) = id
            .strip_prefix("judge/")
            .and_then(|c| c.strip_suffix(&suffix))
        else {
            continue;
        };
        for f in r["findings"].as_array().expect("findings") {
            out.insert((
                case.to_owned(),
                f["requirement"].as_str().expect("req").to_owned(),
            ));
        }
    }
    out
}

/// Runs `mcpspec <role>` against the reference with `fault`, then judges
/// its transcripts: the same oracle verdicts on the target's side, and at
/// least one (the fault is caught by the oracle).
fn same_verdicts(role: &str, fault: &str, filters: &[&str]) {
    let dir = scratch(&format!("{role}-{fault}"));
    let live_dir = dir.join("live");
    let live_dir_s = live_dir.display().to_string();
    let mut args = vec![
        role,
        "--report-dir",
        &live_dir_s,
        "--no-progress",
        "-j",
        "2",
    ];
    args.extend(["--spec-version", "2025-06-18"]);
    for f in filters {
        args.extend(["--filter", f]);
    }
    args.extend([
        "--",
        BIN,
        "reference",
        role_of_reference(role),
        "--fault",
        fault,
    ]);
    if role == "client" {
        args.extend(["--", "{server}"]);
    }
    let live = run(&args);
    assert_eq!(live.status.code(), Some(1), "the live run catches {fault}");
    let live = live_verdicts(&read_json(&live_dir.join("report.json")));
    assert!(
        !live.is_empty(),
        "the oracle caught {fault} in the live run"
    );

    let files = transcripts(&live_dir.join("transcripts"));
    assert!(!files.is_empty());
    let json = dir.join("judged.json");
    let json_s = json.display().to_string();
    let mut args = vec!["judge", "--json", &json_s];
    args.extend(files.iter().map(String::as_str));
    let judged = run(&args);
    let stderr = String::from_utf8_lossy(&judged.stderr);
    assert_eq!(judged.status.code(), Some(1), "{stderr}");
    let judged = judged_verdicts(&read_json(&json), role);
    assert_eq!(judged, live, "judge vs live run, against {fault}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn role_of_reference(role: &str) -> &'static str {
    if role == "server" {
        "server"
    } else {
        "client"
    }
}

const SERVER_CASES: &[&str] = &["server/tools/call/**", "server/lifecycle/initialize/**"];

#[test]
fn verdicts_on_server_transcripts_equal_the_live_runs() {
    for fault in [
        "stringify-ids",
        "stdout-noise",
        "embedded-newlines",
        "exit-on-call",
        "duplicate-response",
    ] {
        same_verdicts("server", fault, SERVER_CASES);
    }
}

#[test]
fn verdicts_on_client_transcripts_equal_the_live_runs() {
    for fault in ["reuse-ids", "stdin-noise"] {
        same_verdicts(
            "client",
            fault,
            &["client/lifecycle/**", "client/ping/answered"],
        );
    }
}

/// Judges one fixture: exit code, and (side, requirement) of its findings.
fn judge_fixture(name: &str) -> (Option<i32>, BTreeSet<(String, String)>) {
    let dir = scratch(name);
    let json = dir.join("out.json");
    let out = run(&[
        "judge",
        "--json",
        &json.display().to_string(),
        &fixture(name).display().to_string(),
    ]);
    let report = read_json(&json);
    let mut found = BTreeSet::new();
    for side in ["server", "client"] {
        for (_, req) in judged_verdicts(&report, side) {
            found.insert((side.to_owned(), req));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.code(), found)
}

fn pairs(items: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn a_plain_json_lines_log_is_judged_both_ways() {
    assert_eq!(judge_fixture("clean.jsonl"), (Some(0), BTreeSet::new()));
    let (code, found) = judge_fixture("broken.jsonl");
    assert_eq!(code, Some(1));
    assert_eq!(
        found,
        pairs(&[
            ("client", "lifecycle.initialize.first"),
            ("server", "tools.list.result-shape"),
        ])
    );
}

#[test]
fn a_har_of_streamable_http_is_judged_both_ways() {
    assert_eq!(judge_fixture("clean.har"), (Some(0), BTreeSet::new()));
    let (code, found) = judge_fixture("broken.har");
    assert_eq!(code, Some(1));
    assert_eq!(
        found,
        pairs(&[
            ("client", "http.header.protocol-version"),
            ("server", "jsonrpc.response.id-matches"),
        ])
    );
}

#[test]
fn each_session_of_a_har_is_its_own_connection() {
    // Two sessions, their requests interleaved in time: judged as one
    // connection, the second's ids would clash with the first's.
    let dir = scratch("sessions");
    let json = dir.join("out.json");
    let file = fixture("two-sessions.har");
    let out = run(&[
        "judge",
        "--json",
        &json.display().to_string(),
        &file.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report = read_json(&json);
    let outcomes: BTreeSet<(String, String)> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default().to_owned(),
                r["outcome"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let want = [
        ("judge/two-sessions.har/session-first/server", "pass"),
        ("judge/two-sessions.har/session-first/client", "pass"),
        ("judge/two-sessions.har/session-second/server", "fail"),
        ("judge/two-sessions.har/session-second/client", "fail"),
    ];
    assert_eq!(outcomes, pairs(&want));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_har_of_legacy_http_sse_is_judged_with_its_stream() {
    // The stream's answers are placed after the POSTs of their requests.
    assert_eq!(
        judge_fixture("clean-legacy.har"),
        (Some(0), BTreeSet::new())
    );
    let (code, found) = judge_fixture("broken-legacy.har");
    assert_eq!(code, Some(1));
    assert_eq!(found, pairs(&[("server", "sse.message-event")]));
}

#[test]
fn bad_input_names_the_file_and_the_line_or_entry() {
    let dir = scratch("bad");
    let jsonl = dir.join("log.jsonl");
    std::fs::write(
        &jsonl,
        "{\"direction\": \"client->server\", \"message\": {}}\n\n{\"direction\": \"sideways\", \"message\": {}}\n",
    )
    .expect("write");
    let out = run(&["judge", &jsonl.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("log.jsonl: line 3"), "{stderr}");

    let har = dir.join("cap.har");
    std::fs::write(
        &har,
        r#"{"log": {"entries": [{"startedDateTime": "2026-01-01T00:00:00Z", "request": {"method": "POST", "url": "http://h/mcp"}}, {"request": {}}]}}"#,
    )
    .expect("write");
    let out = run(&["judge", &har.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cap.har: entry 1"), "{stderr}");

    let missing = dir.join("nothing.jsonl");
    let out = run(&["judge", &missing.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_recording_with_no_message_judges_nothing_and_is_no_pass() {
    let dir = scratch("empty");
    let log = dir.join("quiet.jsonl");
    std::fs::write(&log, "\n").expect("write");
    let out = run(&["judge", &log.display().to_string()]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
