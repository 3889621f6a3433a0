//! Cases sharing a stdio target (the default) come to the same verdicts as
//! cases that each start their own (`--isolate`): over the whole reference
//! suite, and against reference faults of several areas — a tool result, a
//! pagination cursor, the ids of responses, a target that exits mid-case,
//! one that answers twice (stray traffic on a shared session), and the
//! raw lines and notifications shared cases send (a parse error's id, a
//! notification answered, a process that exits on malformed input), and
//! what the cases that take a shared session and end it do (an in-flight
//! cancellation, the logging level). Each run
//! starts the target through a script that counts its start-ups, so the
//! test also shows that sharing happened, and that a target went on to the
//! next cases after a case that broke a rule in what it answered. Over Streamable HTTP, where a
//! case's session is what is shared, the same holds for the reference's
//! HTTP server (a fresh one per run), counting the sessions cases opened.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod support;

use support::{temp_dir, HttpReference, BIN};

/// How a run reaches the reference.
#[derive(Clone, Copy)]
enum Via {
    /// A process per target, started through a counting script.
    Stdio,
    /// `reference server --http` on 127.0.0.1, one per run.
    Http,
}

/// A script that notes each start in `count`, then becomes the reference
/// server with `faults`.
fn counting_target(dir: &Path, faults: &[&str]) -> (PathBuf, PathBuf) {
    let count = dir.join("starts");
    let script = dir.join("target.sh");
    let mut args = String::new();
    for f in faults {
        args.push_str(&format!(" --fault {f}"));
    }
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho start >> '{}'\nexec '{BIN}' reference server{args}\n",
            count.display()
        ),
    )
    .expect("script written");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
            .expect("script made executable");
    }
    (script, count)
}

/// One run: each case's outcome (with an error's blame), the number of
/// target start-ups (over HTTP: of sessions cases opened), and the report
/// dir.
struct Run {
    outcomes: BTreeMap<String, String>,
    starts: usize,
    dir: PathBuf,
}

fn run(via: Via, name: &str, faults: &[&str], filters: &[&str], isolate: bool) -> Run {
    let dir = temp_dir(&format!(
        "{name}-{}",
        if isolate { "isolate" } else { "shared" }
    ));
    let reports = dir.join("reports");
    let mut cmd = Command::new(BIN);
    cmd.args(["server", "--no-progress", "-j", "4", "--report-dir"])
        .arg(&reports);
    for f in filters {
        cmd.args(["--filter", f]);
    }
    if isolate {
        cmd.arg("--isolate");
    }
    let (mut count, mut server) = (None, None);
    match via {
        Via::Stdio => {
            let (script, file) = counting_target(&dir, faults);
            cmd.arg("--").arg(&script);
            count = Some(file);
        }
        Via::Http => {
            let reference = HttpReference::start(faults);
            cmd.arg("--url").arg(reference.mcp());
            server = Some(reference);
        }
    }
    let out = cmd.output().expect("mcpspec runs");
    drop(server);
    let report: Value = serde_json::from_slice(
        &std::fs::read(reports.join("report.json")).unwrap_or_else(|e| {
            panic!(
                "no report.json ({e}); stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        }),
    )
    .expect("report.json is JSON");
    let mut outcomes = BTreeMap::new();
    for r in report["results"].as_array().expect("results") {
        let id = r["id"].as_str().expect("id").to_owned();
        let mut outcome = r["outcome"].as_str().expect("outcome").to_owned();
        if let Some(blame) = r["blame"].as_str() {
            outcome = format!("{outcome} ({blame})");
        }
        outcomes.insert(id, outcome);
    }
    let starts = match count {
        Some(file) => std::fs::read_to_string(file)
            .map(|s| s.lines().count())
            .unwrap_or(0),
        None => transcripts(&dir)
            .iter()
            .filter(|t| !t.contains("shared session, started for"))
            .count(),
    };
    Run {
        outcomes,
        starts,
        dir,
    }
}

/// Runs shared and isolated; asserts equal outcomes per case, and no more
/// start-ups when shared. Returns the shared run and the isolated
/// start-ups.
fn same_verdicts(via: Via, name: &str, faults: &[&str], filters: &[&str]) -> (Run, usize) {
    let shared = run(via, name, faults, filters, false);
    let isolated = run(via, name, faults, filters, true);
    assert!(!shared.outcomes.is_empty(), "{name}: no case ran");
    let differ: Vec<String> = isolated
        .outcomes
        .iter()
        .filter(|(id, o)| shared.outcomes.get(*id) != Some(*o))
        .map(|(id, o)| format!("{id}: isolated {o}, shared {:?}", shared.outcomes.get(id)))
        .collect();
    assert_eq!(
        shared.outcomes.len(),
        isolated.outcomes.len(),
        "{name}: not the same cases"
    );
    assert!(
        differ.is_empty(),
        "{name}: verdicts differ ({} of {}):\n{}",
        differ.len(),
        isolated.outcomes.len(),
        differ.join("\n")
    );
    // A fault that breaks every case (every answer's id) leaves nothing to
    // share: each case then starts its own target, as isolated.
    assert!(
        shared.starts <= isolated.starts,
        "{name}: sharing started the target {} times, --isolate {}",
        shared.starts,
        isolated.starts
    );
    eprintln!(
        "{name}: {} cases, target started {} times shared, {} isolated",
        isolated.outcomes.len(),
        shared.starts,
        isolated.starts
    );
    let _ = std::fs::remove_dir_all(&isolated.dir);
    (shared, isolated.starts)
}

/// The text of every transcript of the run in `dir`.
fn transcripts(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.join("reports/transcripts")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                found.push(text);
            }
        }
    }
    found
}

/// The transcripts that say their case was run again alone (in a fresh
/// process, or on a fresh session).
fn run_again_alone(dir: &Path) -> Vec<String> {
    transcripts(dir)
        .into_iter()
        .filter(|t| {
            t.contains("run alone in a fresh process") || t.contains("run alone on a fresh session")
        })
        .collect()
}

/// The transcripts of cases that broke a rule and still handed their
/// target on to the next case (the session in order after them).
fn handed_on_after_a_finding(dir: &Path) -> usize {
    transcripts(dir)
        .iter()
        .filter(|t| t.contains("the session is in order after this case"))
        .count()
}

/// One fault, shared and isolated: equal verdicts (`same_verdicts`), and
/// the fault caught. Returns how many cases were run again alone, and how
/// many handed their target on after a finding.
fn caught_alike(via: Via, name: &str, fault: &str, filters: &[&str]) -> (usize, usize) {
    let (shared, _) = same_verdicts(via, name, &[fault], filters);
    assert!(
        shared.outcomes.values().any(|o| o != "pass"),
        "{fault}: the fault was not caught"
    );
    let reran = run_again_alone(&shared.dir).len();
    let kept = handed_on_after_a_finding(&shared.dir);
    let _ = std::fs::remove_dir_all(&shared.dir);
    (reran, kept)
}

#[test]
fn the_reference_suite_comes_to_the_same_verdicts_shared_and_isolated() {
    let (shared, isolated_starts) = same_verdicts(Via::Stdio, "reference", &[], &[]);
    assert!(
        shared.starts * 3 < isolated_starts * 2,
        "sharing saved too few start-ups: {} against {isolated_starts}",
        shared.starts
    );
    // Nothing fails against the clean reference: nothing is run again.
    assert!(
        run_again_alone(&shared.dir).is_empty(),
        "a case of the clean reference was run again alone"
    );
    let _ = std::fs::remove_dir_all(&shared.dir);
}

#[test]
fn reference_faults_come_to_the_same_verdicts_shared_and_isolated() {
    // The areas most cases share in, and the ones the faults break.
    let filters = [
        "server/tools/",
        "server/pagination/",
        "server/jsonrpc/",
        "server/prompts/",
        "server/lifecycle/ping/",
        "server/cancellation/",
        "server/stdio/framing/",
        // cases that take a session and end it (Scenario::may_take)
        "server/logging/set-level/",
    ];
    let faults = [
        "text-content-key",      // a tool result
        "pagination-duplicates", // a cursor
        "stringify-ids",         // the ids of responses
        "exit-on-call",          // the process dies mid-case
        "duplicate-response",    // stray traffic after a case's answer
        "parse-error-id",        // raw lines: a parse error's id
        "exit-on-malformed",     // raw lines: the process dies on one
        "ignore-cancellation",   // taken sessions: an in-flight cancellation
        "log-below-level",       // taken sessions: the logging level set
    ];
    let (mut reran, mut kept) = (0, 0);
    for fault in faults {
        let (r, k) = caught_alike(Via::Stdio, fault, fault, &filters);
        reran += r;
        kept += k;
    }
    // Notifications answered where silence is owed. (Not over
    // `server/lifecycle/ping/`: under this fault the fresh-session ping
    // cases come to a verdict that depends on timing, alone either way.)
    let fault = "answer-notification";
    caught_alike(
        Via::Stdio,
        fault,
        fault,
        &["server/jsonrpc/notification/", "server/cancellation/"],
    );
    // Failures met on a shared session were run again alone before they
    // counted (and came to the verdict an isolated run gives, above).
    assert!(reran > 0, "no failing case was run again alone");
    // Cases that broke a rule in what the target answered (a tool result,
    // a cursor) left their session in order: the next cases played on it,
    // and still came to the verdicts they get alone.
    assert!(kept > 0, "no target went on after a case with a finding");
}

/// Over Streamable HTTP the cases share sessions as they share processes
/// over stdio, and come to the verdicts they come to on sessions of their
/// own: the whole reference suite, and faults of the areas that share (a
/// tool result, a cursor, the ids of responses, stray answers, a parse
/// error's id) and of the cases that take a session (a cancellation, the
/// logging level).
#[test]
fn http_sessions_are_shared_with_the_verdicts_of_sessions_of_their_own() {
    let (shared, isolated_sessions) = same_verdicts(Via::Http, "http-reference", &[], &[]);
    // How many cases find a session idle depends on how many run at once
    // (up to 128 by default), so on the machine's load: a tenth saved shows sharing.
    assert!(
        shared.starts * 10 < isolated_sessions * 9,
        "sharing saved too few sessions: {} against {isolated_sessions}",
        shared.starts
    );
    assert!(
        run_again_alone(&shared.dir).is_empty(),
        "a case of the clean reference was run again alone"
    );
    let _ = std::fs::remove_dir_all(&shared.dir);
    let filters = [
        "server/tools/",
        "server/pagination/",
        "server/jsonrpc/",
        "server/prompts/",
        "server/cancellation/",
        "server/logging/set-level/",
    ];
    let faults = [
        "text-content-key",
        "pagination-duplicates",
        "stringify-ids",
        "duplicate-response",
        "parse-error-id",
        "ignore-cancellation",
        "log-below-level",
    ];
    let mut reran = 0;
    for fault in faults {
        reran += caught_alike(Via::Http, &format!("http-{fault}"), fault, &filters).0;
    }
    assert!(reran > 0, "no failing case was run again alone");
}

/// A case's stored snapshot is its whole transcript, handshake and request
/// ids included: `--snapshots` plays every case alone, so snapshots stored
/// by an isolated run (or an older mcpspec) still match.
#[test]
fn snapshots_keep_one_process_per_case() {
    let dir = temp_dir("snapshots");
    let snaps = dir.join("snaps");
    let snaps = snaps.to_str().expect("UTF-8 temp path");
    let server = |extra: &[&str]| {
        let out = Command::new(BIN)
            .args([
                "server",
                "--no-progress",
                "--spec-version",
                "2025-06-18",
                "--filter",
                "server/lifecycle/ping/operating",
                "--filter",
                "server/tools/list/",
                "--snapshots",
                snaps,
            ])
            .args(extra)
            .env_remove("CI")
            .output()
            .expect("mcpspec runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stored = server(&["--isolate"]);
    let new = stored
        .split(&format!("snapshots in {snaps}: 0 matched, "))
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no new snapshots counted:\n{stored}"));
    assert!(new > 1, "{stored}");
    let accepted = Command::new(BIN)
        .args(["review", snaps, "--accept"])
        .output()
        .expect("mcpspec review runs");
    assert!(accepted.status.success());
    let again = server(&[]);
    assert!(
        again.contains(&format!("snapshots in {snaps}: {new} matched")),
        "{again}"
    );
    assert!(!again.contains("changed (failed)"), "{again}");
    let _ = std::fs::remove_dir_all(&dir);
}
