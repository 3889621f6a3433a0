//! The terminal report, from events to text.

use super::*;
use mcpspec_engine::Version;
use mcpspec_model::{Blame, Finding, FindingSource, TranscriptLine};
use std::sync::Mutex;
use std::time::Duration;

/// A writer the test can read back.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

const LOOP: &str = "pagination.cursor.terminates";

fn finding(req: &str, level: Level, actual: &str) -> Finding {
    Finding {
        requirement: req.into(),
        level,
        spec_url: format!("https://spec.example/{req}"),
        summary: format!("The rule {req} holds."),
        // The first line only repeats the summary.
        expected: vec![format!("The rule {req} holds"), "the listing ends".into()],
        actual: actual.into(),
        location: Some("x.yaml:1:1 (step 1)".into()),
        source: FindingSource::Step,
    }
}

fn case(scenario: &str, version: Version, outcome: Outcome, findings: Vec<Finding>) -> CaseResult {
    CaseResult {
        id: format!("{scenario}@{version}"),
        scenario: scenario.into(),
        title: format!("title of {scenario}"),
        version,
        level: Level::Must,
        requirements: vec![format!("{scenario}.own-requirement")],
        outcome,
        findings,
        duration: Duration::from_millis(3),
        transcript: vec![TranscriptLine {
            at_ms: 1,
            dir: "<<",
            text: "{\"jsonrpc\":\"2.0\"}".into(),
            transport: "stdio",
            raw: None,
        }],
    }
}

fn blocked_case(scenario: &str, version: Version) -> CaseResult {
    case(
        scenario,
        version,
        Outcome::Blocked {
            by: LOOP.into(),
            level: Level::Should,
        },
        vec![finding(
            LOOP,
            Level::Should,
            "still a cursor after 50 pages",
        )],
    )
}

/// The text a reporter prints for `cases`.
fn run(
    reporter: HumanReporter,
    sink: &Sink,
    cases: Vec<CaseResult>,
    unavailable: Option<&str>,
) -> String {
    let mut reporter = reporter;
    reporter.event(&Event::RunStarted {
        target: "srv".into(),
        cases: cases.len().max(3),
        jobs: 1,
    });
    reporter.event(&Event::Probe {
        version: Version::V2025_06_18,
        supported: unavailable.is_none(),
        detail: "connection refused".into(),
    });
    let mut summary = Summary::default();
    for c in cases {
        summary.add(&c.outcome);
        reporter.event(&Event::CaseFinished(Box::new(c)));
    }
    summary.unavailable = unavailable.map(str::to_owned);
    reporter.event(&Event::RunFinished {
        summary,
        wall: Duration::from_millis(10),
        strict: false,
    });
    sink.text()
}

fn reporter(sink: &Sink) -> HumanReporter {
    HumanReporter::new(Box::new(sink.clone()), false, false)
}

/// A pagination loop: one warning at its own requirement, many cases blocked.
fn pagination_loop() -> Vec<CaseResult> {
    let mut cases = vec![case(
        "server/pagination/tools/follow-to-end",
        Version::V2025_06_18,
        Outcome::Warn,
        vec![
            finding(LOOP, Level::Should, "at 3ms: still a cursor after 50 pages"),
            // The same finding again, later: shown once.
            finding(LOOP, Level::Should, "at 9ms: still a cursor after 50 pages"),
        ],
    )];
    for n in 0..6 {
        for v in [Version::V2025_06_18, Version::V2025_11_25] {
            cases.push(blocked_case(&format!("server/tools/list/check-{n}"), v));
        }
    }
    cases.push(case(
        "server/lifecycle/ping",
        Version::V2025_06_18,
        Outcome::Pass,
        Vec::new(),
    ));
    cases
}

#[test]
fn blocked_cases_point_at_what_blocked_them_and_the_rollup_counts_it_once() {
    let sink = Sink::default();
    let problems_only = reporter(&sink).with_status_levels(StatusLevel::Warn, StatusLevel::Warn);
    let text = run(problems_only, &sink, pagination_loop(), None);
    // During the run: the warning and each blocked case, not the pass.
    assert!(
        text.contains("  WARN [  0.003s] server/pagination/tools/follow-to-end@2025-06-18\n"),
        "{text}"
    );
    assert!(text.contains(
        " BLOCK [  0.003s] server/tools/list/check-0@2025-06-18 (blocked by SHOULD pagination.cursor.terminates)\n"
    ), "{text}");
    assert!(
        !text.contains("PASS"),
        "passes are not listed by default:\n{text}"
    );
    // Blocked groups are one line, pointing at rollup entry [1]; never a
    // failure of their own requirement.
    assert!(text.contains(
        "BLOCKED server/tools/list/check-0 @ 2025-06-18, 2025-11-25 — blocked by SHOULD pagination.cursor.terminates [1]\n"
    ), "{text}");
    assert!(!text.contains("own-requirement"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    // At most three groups under the requirement, then the rest counted.
    assert!(
        text.contains("  … and 8 more cases (8 blocked) under pagination.cursor.terminates"),
        "{text}"
    );
    assert!(!text.contains("check-2 @"), "{text}");
    // The finding once, and its Expected without the summary's repeat.
    assert_eq!(text.matches("at 9ms").count(), 0, "{text}");
    assert_eq!(
        text.matches("SHOULD pagination.cursor.terminates: The rule")
            .count(),
        1,
        "{text}"
    );
    assert!(!text.contains("- The rule"), "{text}");
    // The rollup: the requirement once, with its counts and an example.
    let rollup = &text[text
        .find("── 1 requirement broken (1 SHOULD) ──")
        .expect("rollup")..];
    assert!(
        rollup.starts_with(
            "── 1 requirement broken (1 SHOULD) ──\n\
         [1] SHOULD pagination.cursor.terminates: 1 warned, 12 blocked\n    \
         The rule pagination.cursor.terminates holds.\n    \
         spec: https://spec.example/pagination.cursor.terminates\n    \
         e.g. server/pagination/tools/follow-to-end@2025-06-18 (at x.yaml:1:1 (step 1))\n      \
         Expected:\n        - the listing ends\n      \
         Actual: at 3ms: still a cursor after 50 pages\n"
        ),
        "{rollup}"
    );
    assert!(
        text.ends_with(
            "1 passed, 0 failed, 1 warned, 12 blocked, 0 not applicable, 0 errored in 0.01s\n"
        ),
        "{text}"
    );
}

#[test]
fn a_root_cause_prints_a_bounded_report() {
    // 200 scenarios failing the same MUST at five versions each.
    let mut cases = Vec::new();
    for n in 0..200 {
        for v in Version::ALL {
            cases.push(case(
                &format!("server/s{n:03}"),
                v,
                Outcome::Fail,
                vec![finding(
                    "lifecycle.initialize.result-shape",
                    Level::Must,
                    "no serverInfo",
                )],
            ));
        }
    }
    let sink = Sink::default();
    let text = run(
        reporter(&sink).with_status_levels(StatusLevel::None, StatusLevel::Fail),
        &sink,
        cases,
        None,
    );
    assert!(
        text.lines().count() < 60,
        "{} lines:\n{text}",
        text.lines().count()
    );
    assert!(
        text.contains("… and 985 more cases under lifecycle.initialize.result-shape"),
        "{text}"
    );
    assert!(
        text.contains("[1] MUST lifecycle.initialize.result-shape: 1000 failed"),
        "{text}"
    );
}

#[test]
fn status_levels_choose_the_lines_during_the_run_and_at_the_end() {
    let cases = || {
        vec![
            case("server/a", Version::V2025_06_18, Outcome::Pass, Vec::new()),
            case(
                "server/b",
                Version::V2025_06_18,
                Outcome::NotApplicable {
                    reason: "no tools".into(),
                },
                Vec::new(),
            ),
            case(
                "server/c",
                Version::V2025_06_18,
                Outcome::Warn,
                vec![finding("r.s", Level::Should, "x")],
            ),
        ]
    };
    let sink = Sink::default();
    let all = run(
        reporter(&sink).with_status_levels(StatusLevel::All, StatusLevel::None),
        &sink,
        cases(),
        None,
    );
    assert!(
        all.contains("  PASS [") && all.contains("   N/A [") && all.contains("  WARN ["),
        "{all}"
    );
    assert!(
        !all.contains("── problems"),
        "--final-status-level none lists nothing: {all}"
    );
    assert!(
        all.contains("[1] SHOULD r.s: 1 warned"),
        "the rollup always prints: {all}"
    );

    let sink = Sink::default();
    let fail = run(
        reporter(&sink).with_status_levels(StatusLevel::Fail, StatusLevel::Pass),
        &sink,
        cases(),
        None,
    );
    assert!(
        !fail.contains(" [  0.003s]"),
        "no warning line at `fail`: {fail}"
    );
    assert!(
        fail.contains("── cases ──\n  PASS server/a@2025-06-18\n"),
        "{fail}"
    );
    assert!(!fail.contains("server/b@"), "N/A needs `skip`: {fail}");
    assert!(fail.contains("WARN server/c@2025-06-18"), "{fail}");
}

#[test]
fn a_run_where_nothing_could_run_is_one_error_block() {
    let sink = Sink::default();
    let text = run(
        reporter(&sink),
        &sink,
        Vec::new(),
        Some("the target negotiated no version"),
    );
    assert_eq!(
        text,
        "mcpspec 0.1.0: 3 cases against `srv` (1 job)\n\
         error: no case could run: the target negotiated no version\n  \
         what the version probe learnt:\n    \
         version 2025-06-18: not offered (connection refused)\n\
         0 of 3 cases ran; nothing was judged (exit 3) in 0.01s\n"
            .replace("0.1.0", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn errors_are_listed_apart_with_who_is_at_fault() {
    let sink = Sink::default();
    let err = case(
        "server/x",
        Version::V2025_06_18,
        Outcome::Error {
            blame: Blame::Target,
            message: "exited with code 1: boom".into(),
        },
        Vec::new(),
    );
    let text = run(reporter(&sink), &sink, vec![err], None);
    assert!(text.contains("could not run\nERROR server/x@2025-06-18\n  title of server/x\n  target at fault: exited with code 1: boom\n"), "{text}");
    assert!(!text.contains("requirement broken"), "{text}");
}
