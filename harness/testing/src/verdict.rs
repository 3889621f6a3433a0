//! From a case's result to its trial's: `ok`, `ignored` with the reason, or
//! `FAILED` with the text the CLI's human report prints for the case.
//!
//! | case outcome          | trial                                   |
//! |-----------------------|-----------------------------------------|
//! | pass                  | ok                                      |
//! | warn (SHOULD broken)  | ok; FAILED under `strict`               |
//! | fail (MUST broken)    | FAILED: findings, Expected / Actual     |
//! | error                 | FAILED: who is at fault, and why        |
//! | not applicable        | ignored (reason)                        |
//!
//! Before a case runs, the version probe may decide it, as the runner's
//! scheduler does: a version the target does not offer is not applicable;
//! a target that completed no handshake at any version is at fault.

use std::collections::BTreeMap;

use libtest_mimic::{Completion, Failed};
use mcpspec_engine::Version;
use mcpspec_runner::run::{extension_off, outcome_before_run, skipped, Offer};
use mcpspec_runner::{Case, CaseResult, Outcome};

/// How much of the transcript a failure shows (as the human report does):
/// lines, and characters a line.
const EXCERPT_LINES: usize = 12;
const EXCERPT_WIDTH: usize = 400;

/// The result of a case the probe already decided, if it did (the runner's
/// own rule, so the CLI and a trial agree); a case of an opt-in extension
/// not among `extensions` is not applicable.
pub(crate) fn before_run(
    case: &Case,
    offers: &BTreeMap<Version, Offer>,
    extensions: &[&str],
) -> Option<CaseResult> {
    extension_off(case, extensions)
        .or_else(|| outcome_before_run(case.version, offers))
        .map(|o| skipped(case, o))
}

/// The trial's outcome for a case's result.
pub(crate) fn judge(r: &CaseResult, strict: bool) -> Result<Completion, Failed> {
    match &r.outcome {
        Outcome::Pass => Ok(Completion::Completed),
        Outcome::Warn if !strict => Ok(Completion::Completed),
        Outcome::NotApplicable { reason } => Ok(Completion::ignored_with(reason)),
        // A block weighs what blocked it (as in the exit code and JUnit).
        Outcome::Blocked { level, .. }
            if *level == mcpspec_engine::Level::May
                || (!strict && *level == mcpspec_engine::Level::Should) =>
        {
            Ok(Completion::ignored_with(r.message()))
        }
        Outcome::Blocked { .. } | Outcome::Warn | Outcome::Fail | Outcome::Error { .. } => {
            Err(Failed::from(explain(r)))
        }
    }
}

/// `text` cut to at most `max` characters, marked when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{} … ({} more bytes)", &text[..i], text.len() - i),
        None => text.to_owned(),
    }
}

/// Why a case did not pass, laid out as the CLI's problem list: the case
/// and its title, who is at fault for an error, each finding with level,
/// requirement, spec link, location, Expected and Actual, then the last
/// lines of the transcript.
pub(crate) fn explain(r: &CaseResult) -> String {
    let mut text = format!(
        "{} {}\n  {}\n",
        r.outcome.as_str().to_uppercase(),
        r.id,
        r.title
    );
    if let Outcome::Error { blame, message } = &r.outcome {
        text.push_str(&format!("  {} at fault: {message}\n", blame.as_str()));
    }
    for f in &r.findings {
        text.push_str(&format!("  {} {}: {}\n", f.level, f.requirement, f.summary));
        if !f.spec_url.is_empty() {
            text.push_str(&format!("  spec: {}\n", f.spec_url));
        }
        if let Some(loc) = &f.location {
            text.push_str(&format!("  at: {loc}\n"));
        }
        if !f.expected.is_empty() {
            text.push_str("  Expected:\n");
            for e in &f.expected {
                text.push_str(&format!("    - {e}\n"));
            }
        }
        text.push_str(&format!("  Actual: {}\n", f.actual.replace('\n', "\n    ")));
    }
    if matches!(r.outcome, Outcome::Warn) {
        text.push_str("  (strict: warnings (SHOULD) fail their trial)\n");
    }
    if !r.transcript.is_empty() {
        let skip = r.transcript.len().saturating_sub(EXCERPT_LINES);
        let last = if skip > 0 { ", last lines" } else { "" };
        text.push_str(&format!("  Transcript{last}:\n"));
        for line in &r.transcript[skip..] {
            text.push_str(&format!("    {}\n", cut(&line.to_string(), EXCERPT_WIDTH)));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use mcpspec_engine::Level;
    use mcpspec_runner::{Blame, Finding, FindingSource, TranscriptLine};
    use mcpspec_scenario::Corpus;

    use super::*;

    fn case(version: Version) -> Case {
        let corpus = Corpus::load(&[]).unwrap();
        let scenario = corpus.get("server/lifecycle/ping/operating").unwrap();
        Case {
            id: format!("{}@{version}", scenario.id),
            scenario: Arc::new(scenario.clone()),
            version,
        }
    }

    fn result(outcome: Outcome, findings: Vec<Finding>) -> CaseResult {
        let mut r = before_run(
            &case(Version::V2025_06_18),
            &[(Version::V2025_06_18, Offer::Other("x".into()))].into(),
            &[],
        )
        .unwrap();
        r.outcome = outcome;
        r.findings = findings;
        r
    }

    fn finding(level: Level) -> Finding {
        Finding {
            requirement: "ping.respond".into(),
            level,
            spec_url:
                "https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping"
                    .into(),
            summary: "ping is answered with an empty result".into(),
            expected: vec!["result: {}".into()],
            actual: "result {\"ok\":true}".into(),
            location: Some(
                "<embedded>/server/lifecycle/ping/operating.yaml:9:5 (step 1: send ping)".into(),
            ),
            source: FindingSource::Step,
        }
    }

    #[test]
    fn a_version_not_offered_is_ignored_with_the_answer() {
        let offers = [
            (Version::V2025_06_18, Offer::Other("2025-11-25".into())),
            (Version::V2025_11_25, Offer::Supported),
        ]
        .into();
        let r = before_run(&case(Version::V2025_06_18), &offers, &[]).unwrap();
        match judge(&r, false) {
            Ok(Completion::Ignored {
                reason: Some(reason),
            }) => {
                assert!(reason.contains("does not offer 2025-06-18"), "{reason}");
                assert!(reason.contains("2025-11-25"), "{reason}");
            }
            _ => panic!("expected an ignored trial"),
        }
        assert!(before_run(&case(Version::V2025_11_25), &offers, &[]).is_none());
    }

    #[test]
    fn a_target_broken_at_every_version_fails_not_ignores() {
        let offers = [
            (
                Version::V2025_06_18,
                Offer::Broken("connection refused".into()),
            ),
            (
                Version::V2025_11_25,
                Offer::Broken("connection refused".into()),
            ),
        ]
        .into();
        let r = before_run(&case(Version::V2025_06_18), &offers, &[]).unwrap();
        let failed = judge(&r, false).err().unwrap();
        let msg = failed.message().unwrap();
        assert!(
            msg.contains("target at fault: the target completed no handshake at any version: connection refused"),
            "{msg}"
        );
    }

    #[test]
    fn a_target_broken_at_one_version_only_is_ignored_there() {
        let offers = [
            (Version::V2025_06_18, Offer::Broken("closed".into())),
            (Version::V2025_11_25, Offer::Supported),
        ]
        .into();
        let r = before_run(&case(Version::V2025_06_18), &offers, &[]).unwrap();
        assert!(matches!(judge(&r, false), Ok(Completion::Ignored { .. })));
    }

    #[test]
    fn a_failure_reads_like_the_cli_report() {
        let mut r = result(Outcome::Fail, vec![finding(Level::Must)]);
        r.transcript = (0..20)
            .map(|i| TranscriptLine {
                at_ms: i,
                dir: "<<",
                text: format!("line {i}"),
                transport: "http",
                raw: None,
            })
            .collect();
        let msg = judge(&r, false)
            .err()
            .unwrap()
            .message()
            .unwrap()
            .to_owned();
        for part in [
            "FAIL server/lifecycle/ping/operating@2025-06-18",
            "MUST ping.respond: ping is answered",
            "spec: https://modelcontextprotocol.io/",
            "at: <embedded>/server/lifecycle/ping/operating.yaml:9:5",
            "Expected:\n    - result: {}",
            "Actual: result {\"ok\":true}",
            "Transcript, last lines:",
            "line 19",
        ] {
            assert!(msg.contains(part), "{part:?} missing from:\n{msg}");
        }
        assert!(!msg.contains("line 7\n"), "only the last lines:\n{msg}");
    }

    #[test]
    fn a_should_warning_passes_unless_strict() {
        let r = result(Outcome::Warn, vec![finding(Level::Should)]);
        assert!(matches!(judge(&r, false), Ok(Completion::Completed)));
        let msg = judge(&r, true).err().unwrap().message().unwrap().to_owned();
        assert!(msg.starts_with("WARN "), "{msg}");
        assert!(msg.contains("SHOULD ping.respond"), "{msg}");
    }

    #[test]
    fn an_error_says_who_is_at_fault() {
        let r = result(
            Outcome::Error {
                blame: Blame::Scenario,
                message: "unbound variable".into(),
            },
            Vec::new(),
        );
        let msg = judge(&r, false)
            .err()
            .unwrap()
            .message()
            .unwrap()
            .to_owned();
        assert!(msg.contains("scenario at fault: unbound variable"), "{msg}");
    }
}
