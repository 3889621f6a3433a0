//! The runner's schedule (issue #18) seen from the command line: a busy
//! HTTP server (the reference with `--shed-above`, answering 503 while it
//! serves more than N POSTs) is not turned into failures — the run backs
//! off (`--max-connections`, lowered while refused) and sends what was
//! refused again; `--max-connections` goes with HTTP targets only; a
//! `--report-dir` reused by a second run orders it by the first run's
//! durations without changing any verdict; and an `http` step's read window
//! ends once what it read fails the step for good, and only then, as does a
//! silence whose failure ends the case.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::{mcpspec, path, temp_dir, HttpReference, BIN};

const LIMIT: Duration = Duration::from_secs(180);

/// The reference over HTTP on 127.0.0.1, shedding load above `above`
/// POSTs at once; its stderr goes to `log`. Killed when dropped.
struct Busy {
    child: Child,
    mcp: String,
}

impl Busy {
    fn start(above: usize, log: &Path) -> Busy {
        let mut child = Command::new(BIN)
            .args(["reference", "server", "--http", "127.0.0.1:0"])
            .args(["--shed-above", &above.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).expect("log file"))
            .spawn()
            .expect("reference server starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("first line");
        let base = line
            .strip_prefix("listening on ")
            .and_then(|rest| rest.split_whitespace().next())
            .filter(|b| b.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Busy {
            child,
            mcp: format!("{base}/mcp"),
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `(case id, outcome)` of every case of a report directory, by id.
fn outcomes(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    let report: Value = serde_json::from_str(&text).expect("report.json is JSON");
    let mut out: Vec<(String, String)> = report["results"]
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
    out.sort();
    out
}

/// Cases that send many POSTs at once (fixtures) and raw exchanges
/// (`http` steps), at every version.
const SLICE: [&str; 4] = ["--filter", "server/fixture/", "--filter", "server/http/"];

#[test]
fn a_server_that_sheds_load_with_503_is_not_failed_by_the_harness() {
    let dir = temp_dir("shed");
    let log = dir.join("server.log");
    let server = Busy::start(2, &log);
    let reports = dir.join("reports");
    let mut args = vec!["server", "--url", &server.mcp, "--no-progress"];
    args.extend(SLICE);
    args.extend(["--max-connections", "64", "--report-dir", path(&reports)]);
    let run = mcpspec(&args, LIMIT);
    drop(server);
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        said.contains("with 503"),
        "the server never shed load, so nothing was shown: {said}"
    );
    let bad: Vec<(String, String)> = outcomes(&reports)
        .into_iter()
        .filter(|(_, o)| !matches!(o.as_str(), "pass" | "not_applicable"))
        .collect();
    assert!(
        bad.is_empty(),
        "a busy server's 503s became verdicts: {bad:?}\n{}",
        run.stdout
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn max_connections_goes_with_http_targets_only() {
    for role in ["server", "client"] {
        let run = mcpspec(&[role, "--max-connections", "8"], LIMIT);
        assert_eq!(run.code, Some(2), "{role}: {}", run.stderr);
        assert!(
            run.stderr.contains("--max-connections"),
            "{role}: {}",
            run.stderr
        );
    }
    let run = mcpspec(&["server", "--help"], LIMIT);
    assert!(
        run.stdout.contains("--max-connections <N>")
            && run.stdout.contains(&format!(
                "[default: {}]",
                mcpspec_transport::limit::DEFAULT_MAX
            )),
        "{}",
        run.stdout
    );
}

#[test]
fn a_second_run_in_the_same_report_dir_keeps_every_verdict() {
    let dir = temp_dir("history");
    let reports = dir.join("reports");
    let args = [
        "server",
        "--no-progress",
        "--filter",
        "server/lifecycle/",
        "--report-dir",
        path(&reports),
    ];
    let first = mcpspec(&args, LIMIT);
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    let before = outcomes(&reports);
    assert!(!before.is_empty());
    let second = mcpspec(&args, LIMIT);
    assert_eq!(second.code, Some(0), "{}\n{}", second.stdout, second.stderr);
    assert_eq!(outcomes(&reports), before);
}

/// The transcript of the one case `dir`'s report holds, and its outcome.
fn only_case(dir: &Path) -> (String, String) {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    let report: Value = serde_json::from_str(&text).expect("report.json is JSON");
    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{text}");
    let file = results[0]["transcript"].as_str().expect("a transcript");
    let transcript = std::fs::read_to_string(dir.join(file)).expect("transcript file");
    let outcome = results[0]["outcome"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (outcome, transcript)
}

/// `resume-no-cross-replay` reads a resumed stream for 1.5 s, so that a
/// wrong replay has time to show. A server that replays another stream's
/// answer (the reference's `http-resume-cross-replay`) has shown it with
/// its first events: the reading ends there, and the case fails as it
/// would after the whole window. Against the conformant reference the
/// window is read out, and the case passes.
#[test]
fn a_read_window_ends_early_only_once_its_step_has_failed_for_good() {
    const NOTE: &str = "reading the stream ended before its 1500ms";
    let dir = temp_dir("early-end");
    for (faults, outcome, ends_early) in [
        (&["http-resume-cross-replay"][..], "fail", true),
        (&[][..], "pass", false),
    ] {
        let server = HttpReference::start(faults);
        let reports = dir.join(if ends_early { "faulty" } else { "conformant" });
        let mcp = server.mcp();
        let args = [
            "server",
            "--url",
            &mcp,
            "--no-progress",
            "--spec-version",
            "2025-06-18",
            "--filter",
            "server/http/sse/resume-no-cross-replay",
            "--report-dir",
            path(&reports),
        ];
        let run = mcpspec(&args, LIMIT);
        drop(server);
        let (got, transcript) = only_case(&reports);
        assert_eq!(got, outcome, "{faults:?}: {}\n{transcript}", run.stdout);
        assert_eq!(
            transcript.contains(NOTE),
            ends_early,
            "{faults:?}: {transcript}"
        );
    }
}

/// An `expect_silence` ends with the first message it forbids only when
/// its failure ends the case. `progress-stops` ends on its silence: against
/// the reference's `progress-after-cancel` (progress goes on after the
/// cancellation) the window ends with the first such progress, and the
/// case warns as it would after the whole window; against the conformant
/// reference the window is waited out. A SHOULD silence with a `ping`
/// behind it (no scenario of the corpus has one: [`SHOULD_SILENCE`])
/// fails against `ignore-cancellation` (the cancelled call is answered),
/// once, and is still waited out, so that the ping goes when the scenario
/// says.
#[test]
fn a_silence_ends_early_only_once_its_failure_ends_the_case() {
    const NOTE: &str = "the silence ended before its";
    let dir = temp_dir("silence-early-end");
    let extra = dir.join("scenarios");
    let file = extra.join("server/schedule/should-silence.yaml");
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("scenario dir");
    std::fs::write(&file, SHOULD_SILENCE).expect("scenario file");
    for (scenario, fault, outcome, ends_early) in [
        (
            "server/cancellation/in-flight/progress-stops",
            Some("progress-after-cancel"),
            "warn",
            true,
        ),
        (
            "server/cancellation/in-flight/progress-stops",
            None,
            "pass",
            false,
        ),
        (
            "server/schedule/should-silence",
            Some("ignore-cancellation"),
            "warn",
            false,
        ),
    ] {
        let name = scenario.rsplit('/').next().unwrap_or(scenario);
        let reports = dir.join(format!("{name}-{}", fault.unwrap_or("none")));
        let mut args = vec![
            "server",
            "--no-progress",
            "--spec-version",
            "2025-06-18",
            "--scenarios",
            path(&extra),
            "--filter",
            scenario,
            "--report-dir",
            path(&reports),
            "--",
            BIN,
            "reference",
            "server",
        ];
        if let Some(f) = fault {
            args.extend(["--fault", f]);
        }
        let run = mcpspec(&args, LIMIT);
        let (got, transcript) = only_case(&reports);
        assert_eq!(got, outcome, "{fault:?}: {}\n{transcript}", run.stdout);
        assert_eq!(
            transcript.contains(NOTE),
            ends_early,
            "{scenario} {fault:?}: {transcript}"
        );
        // The answer that breaks the silence breaks `cancellation.no-response`,
        // which the oracle judges: one cause, one finding (the oracle's),
        // not a second one from the silence.
        if fault == Some("ignore-cancellation") {
            let text = std::fs::read_to_string(reports.join("report.json")).expect("report.json");
            let report: Value = serde_json::from_str(&text).expect("report.json is JSON");
            let findings: Vec<(&str, &str)> = report["results"][0]["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .map(|f| {
                    let field = |k: &str| f[k].as_str().unwrap_or_default();
                    (field("source"), field("requirement"))
                })
                .collect();
            assert_eq!(
                findings,
                [("oracle", "cancellation.no-response")],
                "{transcript}"
            );
        }
    }
}

/// A SHOULD silence after a cancellation, with a `ping` behind it.
const SHOULD_SILENCE: &str = r#"id: server/schedule/should-silence
title: A SHOULD silence with a step behind it
requirements: [cancellation.no-response]
level: should
requires: { capabilities: [tools] }
timeout: 20s
steps:
  - send:
      method: tools/call
      params: { name: slow, arguments: { duration: 1 } }
    as: call
  - sleep: 300ms
    why: the call is in flight when it is cancelled
  - notify:
      method: notifications/cancelled
      params: { requestId: "${call.id}" }
  - expect_silence: 1200ms
    why: outlasts the moment the call would have ended
  - send: { method: ping }
    expect:
      result: {}
    level: must
    requirement: ping.respond
"#;
