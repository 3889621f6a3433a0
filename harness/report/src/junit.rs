//! `junit.xml` (via `quick-junit`): one test suite per protocol version, one
//! test case per case, named by its id (class name: the scenario id).
//!
//! | case | JUnit |
//! |---|---|
//! | pass | success |
//! | fail; warn under `--strict` | `<failure>`: message, requirement(s), level, spec link, Expected / Actual |
//! | warn (not strict) | success; the findings in `<system-out>` |
//! | error | `<error>`, saying who is at fault |
//! | not applicable | `<skipped>` with the reason |
//! | blocked by a MUST (a SHOULD under `--strict`) | `<failure>` type `blocked`: "blocked by LEVEL requirement: …" |
//! | blocked by a SHOULD (not strict) | `<skipped>` type `blocked`, with the same message |
//! | expected failure (baseline) | `<skipped>` "expected failure: reason" |
//! | stale expectation (baseline) | `<failure>` "stale expectation" |
//!
//! A blocked case is never a failure of its own requirement: its message
//! and its property `blocked_by` name the requirement that blocked it.
//!
//! A run in which no case could run (the target could not be started or
//! reached, or negotiated no version) is one test case, class name
//! `mcpspec`, name `target`, as an `<error>` with the reason and what the
//! version probe learnt, so that CI shows it rather than an empty suite.
//!
//! Failures and errors carry the last transcript lines in `<system-out>`.
//! An interrupted run has the cases that finished, and each suite a
//! property `interrupted` saying why (e.g. `SIGINT`).
//! All text goes through quick-junit's XML escaping (control characters
//! dropped), so target-supplied text cannot break the document.

use std::collections::BTreeMap;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use mcpspec_model::{CaseResult, Outcome};

use crate::baseline::Expectation;
use crate::log::{Judged, RunLog};

/// Transcript lines a failure shows.
pub(crate) const EXCERPT_LINES: usize = 40;

/// Whether a case's test case may show a transcript excerpt, whatever
/// `--strict` says: one that did not pass, or one the baseline lists
/// (`RunLog` keeps the excerpt of these only).
pub(crate) fn may_show_excerpt(outcome: &Outcome, expectation: Option<Expectation>) -> bool {
    expectation.is_some() || !matches!(outcome, Outcome::Pass | Outcome::NotApplicable { .. })
}

/// The findings in the human report's form: level, requirement, spec link,
/// Expected (a list), Actual.
pub fn findings_text(r: &CaseResult) -> String {
    crate::human::findings_block(r, "")
}

fn excerpt(r: &CaseResult) -> String {
    let skip = r.transcript.len().saturating_sub(EXCERPT_LINES);
    r.transcript[skip..]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect()
}

fn case(log: &RunLog, j: &Judged) -> TestCase {
    let r = &j.result;
    let reason = j
        .expectation
        .and_then(|e| log.entry(e))
        .map(|e| e.reason.clone())
        .unwrap_or_default();
    let failure = |kind, ty: &str, message: String| {
        let mut s = TestCaseStatus::non_success(kind);
        s.set_type(ty)
            .set_message(message)
            .set_description(findings_text(r));
        s
    };
    let strict = log.strict;
    let mut status = match (&r.outcome, j.expectation) {
        // A flaky case that failed (its last attempt): tolerated, said so.
        (o, Some(Expectation::Flaky(_))) if *o != Outcome::Pass => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("flaky")
                .set_message(format!("flaky ({reason}): {}", r.message()))
                .set_description(findings_text(r));
            s
        }
        (_, Some(Expectation::ExpectedFailure(_))) => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("expected failure")
                .set_message(format!("expected failure ({reason}): {}", r.message()))
                .set_description(findings_text(r));
            s
        }
        (_, Some(Expectation::Stale(_))) => failure(
            NonSuccessKind::Failure,
            "stale expectation",
            format!("stale expectation: the case passed, but the baseline lists it ({reason})"),
        ),
        (Outcome::Pass, _) => TestCaseStatus::success(),
        (Outcome::Warn, _) if !strict => TestCaseStatus::success(),
        (Outcome::Fail | Outcome::Warn, _) => {
            let ty = if matches!(r.outcome, Outcome::Fail) {
                "MUST"
            } else {
                "SHOULD"
            };
            failure(NonSuccessKind::Failure, ty, r.message())
        }
        // A block weighs what blocked it: a failure when that was a MUST
        // (or a SHOULD under --strict), otherwise skipped with the reason.
        (Outcome::Blocked { level, .. }, _)
            if *level == mcpspec_engine::Level::Must
                || (strict && *level == mcpspec_engine::Level::Should) =>
        {
            failure(NonSuccessKind::Failure, "blocked", r.message())
        }
        (Outcome::Blocked { .. }, _) => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("blocked")
                .set_message(r.message())
                .set_description(findings_text(r));
            s
        }
        (Outcome::Error { blame, .. }, _) => failure(
            NonSuccessKind::Error,
            &format!("{} error", blame.as_str()),
            r.message(),
        ),
        (Outcome::NotApplicable { reason }, _) => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("not applicable").set_message(reason.clone());
            s
        }
    };
    // Earlier attempts that failed: flaky runs of a case that then passed.
    for earlier in j.attempts.iter().rev().skip(1) {
        if *earlier != Outcome::Pass {
            let mut rerun = quick_junit::TestRerun::new(NonSuccessKind::Failure);
            rerun.ty = Some(format!("attempt: {}", earlier.as_str()).into());
            status.add_rerun(rerun);
        }
    }
    let shows_transcript = !matches!(
        status,
        TestCaseStatus::Success { .. } | TestCaseStatus::Skipped { .. }
    ) || j.expectation.is_some_and(Expectation::tolerated);
    debug_assert!(!shows_transcript || may_show_excerpt(&r.outcome, j.expectation));
    let mut tc = TestCase::new(r.id.clone(), status);
    tc.set_classname(r.scenario.clone()).set_time(r.duration);
    tc.add_property(Property::new("outcome", r.outcome.as_str()));
    tc.add_property(Property::new("level", r.level.as_str()));
    for req in &r.requirements {
        tc.add_property(Property::new("requirement", req.clone()));
    }
    for f in &r.findings {
        if !f.spec_url.is_empty() {
            tc.add_property(Property::new("spec", f.spec_url.clone()));
        }
    }
    if let Outcome::Blocked { by, .. } = &r.outcome {
        tc.add_property(Property::new("blocked_by", by.clone()));
    }
    if let Some(e) = j.expectation {
        tc.add_property(Property::new("baseline", e.label()));
    }
    if matches!(r.outcome, Outcome::Warn) && !strict && j.expectation.is_none() {
        tc.set_system_out(findings_text(r));
    } else if shows_transcript && !r.transcript.is_empty() {
        tc.set_system_out(excerpt(r));
    }
    tc
}

/// The suite of a run in which no case could run: one errored test case.
fn unavailable(log: &RunLog, reason: &str) -> TestSuite {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
    let probes: String = log
        .probes
        .iter()
        .map(|p| {
            let state = if p.supported {
                "offered"
            } else {
                "not offered"
            };
            format!("version {}: {state} ({})\n", p.version, p.detail)
        })
        .collect();
    status
        .set_type("target unavailable")
        .set_message(format!("no case could run: {reason}"))
        .set_description(probes);
    let mut tc = TestCase::new("target", status);
    tc.set_classname("mcpspec").set_time(log.wall());
    let mut suite = TestSuite::new("mcpspec target");
    suite.add_property(Property::new("target", log.target.clone()));
    suite.add_property(Property::new("unavailable", reason.to_owned()));
    suite.add_test_case(tc);
    suite.set_time(log.wall());
    suite
}

/// The JUnit document.
pub fn render(log: &RunLog) -> Result<String, String> {
    let mut by_version: BTreeMap<&str, Vec<&Judged>> = BTreeMap::new();
    for j in log.sorted() {
        by_version
            .entry(j.result.version.as_str())
            .or_default()
            .push(j);
    }
    let mut report = Report::new("mcpspec");
    report.set_time(log.wall());
    if let Some(reason) = &log.summary.unavailable {
        report.add_test_suite(unavailable(log, reason));
    }
    for (version, cases) in by_version {
        let mut suite = TestSuite::new(format!("mcpspec server @{version}"));
        suite.add_property(Property::new("target", log.target.clone()));
        suite.add_property(Property::new("strict", log.strict.to_string()));
        if let Some((reason, _)) = &log.interrupted {
            suite.add_property(Property::new("interrupted", reason.clone()));
        }
        let mut time = std::time::Duration::ZERO;
        for j in cases {
            time += j.result.duration;
            suite.add_test_case(case(log, j));
        }
        suite.set_time(time);
        report.add_test_suite(suite);
    }
    report
        .to_string()
        .map_err(|e| format!("failed to serialize junit.xml: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::{Level, Version};
    use mcpspec_model::{Event, Finding, FindingSource, Summary};
    use std::time::Duration;

    fn log_of(cases: Vec<CaseResult>, unavailable: Option<&str>) -> RunLog {
        let mut log = RunLog::new(false, None);
        log.observe(&Event::RunStarted {
            target: "srv".into(),
            cases: 5,
            jobs: 1,
        });
        log.observe(&Event::Probe {
            version: Version::V2025_06_18,
            supported: false,
            detail: "connection refused".into(),
        });
        let mut summary = Summary::default();
        for c in cases {
            summary.add(&c.outcome);
            log.observe(&Event::CaseFinished(Box::new(c)));
        }
        summary.unavailable = unavailable.map(str::to_owned);
        log.observe(&Event::RunFinished {
            summary,
            wall: Duration::from_millis(1),
            strict: false,
        });
        log
    }

    #[test]
    fn a_run_in_which_nothing_could_run_is_one_errored_test_case() {
        let xml = render(&log_of(
            Vec::new(),
            Some("connection refused at every version"),
        ))
        .unwrap();
        let report = quick_junit::Report::deserialize_from_str(&xml).expect("parses");
        assert_eq!((report.tests, report.errors), (1, 1), "{xml}");
        let case = &report.test_suites[0].test_cases[0];
        assert_eq!(case.name.as_str(), "target");
        assert_eq!(case.classname.as_ref().map(|c| c.as_str()), Some("mcpspec"));
        match &case.status {
            TestCaseStatus::NonSuccess {
                kind: NonSuccessKind::Error,
                message: Some(m),
                description: Some(d),
                ..
            } => {
                assert_eq!(
                    m.as_str(),
                    "no case could run: connection refused at every version"
                );
                assert!(d
                    .as_str()
                    .contains("version 2025-06-18: not offered (connection refused)"));
            }
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn a_blocked_case_names_what_blocked_it() {
        let blocked = CaseResult {
            id: "server/t@2025-06-18".into(),
            scenario: "server/t".into(),
            title: String::new(),
            version: Version::V2025_06_18,
            level: Level::Must,
            requirements: vec!["tools.title".into()],
            outcome: Outcome::Blocked {
                by: "pagination.cursor.terminates".into(),
                level: Level::Must,
            },
            findings: vec![Finding {
                requirement: "pagination.cursor.terminates".into(),
                level: Level::Must,
                spec_url: String::new(),
                summary: "Paging ends.".into(),
                expected: Vec::new(),
                actual: "50 pages".into(),
                location: None,
                source: FindingSource::Step,
            }],
            duration: Duration::ZERO,
            transcript: Vec::new(),
        };
        let xml = render(&log_of(vec![blocked], None)).unwrap();
        assert!(xml.contains(r#"<failure message="blocked by MUST pagination.cursor.terminates: 50 pages" type="blocked">"#), "{xml}");
        assert!(
            xml.contains(r#"name="blocked_by" value="pagination.cursor.terminates""#),
            "{xml}"
        );
    }
}
