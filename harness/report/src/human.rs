//! The terminal reporter.
//!
//! ```text
//!    PASS [ 0.031s] server/ping/after-init@2025-06-18
//!    FAIL [ 0.402s] server/notifications/initialized/no-answer@2025-06-18
//! …
//! ── failures ──
//! FAIL server/notifications/initialized/no-answer@2025-06-18
//!   MUST jsonrpc.notification.no-response: A notification is never answered.
//!   spec: https://modelcontextprotocol.io/specification/2025-06-18/basic#notifications
//!   Expected:
//!     - no response or request for 300ms
//!   Actual: result for id null at 12ms
//! …
//! 57 passed, 1 failed, 0 warned, 4 not applicable, 0 errored in 1.93s
//! ```
//!
//! An interrupted run (Ctrl-C) says so when it happens, and again before
//! the closing line: `interrupted (SIGINT): 12 of 62 cases finished; …`.
//!
//! With a baseline, a listed failure's line says `(expected failure: reason)`
//! and it is listed apart from the problems; a listed case that passed says
//! `(stale expectation: …)` and is listed under "stale expectations".

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use mcpspec_model::{CaseResult, Event, Outcome, Reporter};

use crate::baseline::{Baseline, Expectation, Tally};

/// How much of the transcript a failure shows: lines, and characters a line.
const EXCERPT_LINES: usize = 12;
const EXCERPT_WIDTH: usize = 400;

/// `text` cut to at most `max` characters, marked when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{} … ({} more bytes)", &text[..i], text.len() - i),
        None => text.to_owned(),
    }
}

pub struct HumanReporter {
    out: Box<dyn Write + Send>,
    color: bool,
    verbose: bool,
    problems: Vec<CaseResult>,
    baseline: Option<Arc<Baseline>>,
    tally: Tally,
    /// `id — reason` of expected failures, and of stale expectations.
    expected: Vec<String>,
    stale: Vec<String>,
    /// Cases planned (`RunStarted`).
    planned: usize,
    /// Why the run was stopped early.
    interrupted: Option<String>,
}

impl HumanReporter {
    /// A reporter on stdout; colours when stdout is a terminal, `NO_COLOR`
    /// is unset and `TERM` is not `dumb`.
    pub fn stdout(verbose: bool) -> Self {
        let color = std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none()
            && std::env::var_os("TERM").is_none_or(|t| t != "dumb");
        Self::new(Box::new(std::io::stdout()), color, verbose)
    }

    pub fn new(out: Box<dyn Write + Send>, color: bool, verbose: bool) -> Self {
        HumanReporter {
            out,
            color,
            verbose,
            problems: Vec::new(),
            baseline: None,
            tally: Tally::default(),
            expected: Vec::new(),
            stale: Vec::new(),
            planned: 0,
            interrupted: None,
        }
    }

    /// Judges cases against `baseline` (`--expected-failures`).
    pub fn with_baseline(mut self, baseline: Option<Arc<Baseline>>) -> Self {
        self.baseline = baseline;
        self
    }

    /// The baseline's judgement of `r`, with its line suffix.
    fn expectation(&mut self, r: &CaseResult) -> (Option<Expectation>, String) {
        let Some(b) = self.baseline.clone() else {
            return (None, String::new());
        };
        let judged = b.judge(r);
        self.tally.add(r, judged);
        let Some((e, entry)) = judged.and_then(|e| b.entries.get(e.entry()).map(|x| (e, x))) else {
            return (judged, String::new());
        };
        let line = format!("{} — {} ({})", r.id, entry.reason, entry.origin);
        match e {
            Expectation::ExpectedFailure(_) => self.expected.push(line),
            Expectation::Stale(_) => self.stale.push(line),
            Expectation::Listed(_) => {}
        }
        let suffix = match e {
            Expectation::Listed(_) => String::new(),
            _ => format!(" ({}: {})", e.label(), entry.reason),
        };
        (judged, suffix)
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn label(&self, outcome: &Outcome) -> String {
        match outcome {
            Outcome::Pass => self.paint("32", "  PASS"),
            Outcome::Fail => self.paint("1;31", "  FAIL"),
            Outcome::Warn => self.paint("33", "  WARN"),
            Outcome::NotApplicable { .. } => self.paint("2", "   N/A"),
            Outcome::Blocked { .. } => self.paint("35", " BLOCK"),
            Outcome::Error { .. } => self.paint("1;35", " ERROR"),
        }
    }

    /// One problem in detail. `versions` lists every version at which the
    /// scenario failed the same way (see [`group`]); `r` is the first.
    fn detail(&mut self, r: &CaseResult, versions: &[String]) {
        let mut text = String::new();
        let head = if versions.len() > 1 {
            format!(
                "{} {} @ {}",
                r.outcome.as_str().to_uppercase(),
                r.scenario,
                versions.join(", ")
            )
        } else {
            format!("{} {}", r.outcome.as_str().to_uppercase(), r.id)
        };
        text.push_str(&self.paint("1", &head));
        text.push('\n');
        text.push_str(&format!("  {}\n", r.title));
        text.push_str(&findings_block(r, "  "));
        if !r.transcript.is_empty() {
            let skip = r.transcript.len().saturating_sub(EXCERPT_LINES);
            let at = if versions.len() > 1 {
                format!(" at {}", r.version)
            } else {
                String::new()
            };
            let last = if skip > 0 { ", last lines" } else { "" };
            text.push_str(&format!("  Transcript{at}{last}:\n"));
            for line in &r.transcript[skip..] {
                text.push_str(&format!("    {}\n", cut(&line.to_string(), EXCERPT_WIDTH)));
            }
        }
        let _ = writeln!(self.out, "{text}");
    }
}

/// What makes two cases of one scenario "the same problem": the outcome and
/// the rules broken, with what was expected (the actual text may differ in
/// timings).
fn signature(r: &CaseResult) -> String {
    let mut key = format!("{}|{}", r.scenario, r.outcome.as_str());
    for f in &r.findings {
        key.push_str(&format!("|{}|{}|{:?}", f.requirement, f.level, f.expected));
    }
    key
}

/// Groups problems of one scenario that failed the same way at several
/// versions, so a report lists each once with its versions. Sorted by id.
pub fn group(mut problems: Vec<CaseResult>) -> Vec<(CaseResult, Vec<String>)> {
    problems.sort_by(|a, b| a.id.cmp(&b.id));
    let mut out: Vec<(CaseResult, Vec<String>)> = Vec::new();
    for p in problems {
        let version = p.version.to_string();
        match out
            .iter_mut()
            .find(|(first, _)| signature(first) == signature(&p))
        {
            Some((_, versions)) => versions.push(version),
            None => out.push((p, vec![version])),
        }
    }
    out
}

impl Reporter for HumanReporter {
    fn event(&mut self, event: &Event) {
        match event {
            Event::RunStarted {
                target,
                cases,
                jobs,
            } => {
                self.planned = *cases;
                let _ = writeln!(
                    self.out,
                    "mcpspec {}: {cases} case{} against `{target}` ({jobs} job{})",
                    env!("CARGO_PKG_VERSION"),
                    if *cases == 1 { "" } else { "s" },
                    if *jobs == 1 { "" } else { "s" },
                );
            }
            Event::Probe {
                version,
                supported,
                detail,
            } => {
                let state = if *supported { "offered" } else { "not offered" };
                let _ = writeln!(self.out, "  version {version}: {state} ({detail})");
            }
            Event::CaseStarted { .. } => {}
            Event::Interrupted { reason, .. } => {
                self.interrupted = Some(reason.clone());
                let head = self.paint("1;33", &format!("interrupted ({reason})"));
                let _ = writeln!(
                    self.out,
                    "{head}: no case starts any more, running cases are cancelled; \
                     the finished ones are reported (interrupt again to exit at once)"
                );
                let _ = self.out.flush();
            }
            Event::CaseFinished(r) => {
                let (judged, expectation) = self.expectation(r);
                let suffix = match &r.outcome {
                    Outcome::NotApplicable { reason } => format!(" ({reason})"),
                    // A pass can carry MAY-level notes: say so, so that a
                    // check that saw nothing is not mistaken for one that held.
                    Outcome::Pass if !r.findings.is_empty() => {
                        format!(" ({} MAY note(s); -v shows them)", r.findings.len())
                    }
                    _ => String::new(),
                };
                let label = self.label(&r.outcome);
                let _ = writeln!(
                    self.out,
                    "{label} [{:>7.3}s] {}{suffix}{expectation}",
                    r.duration.as_secs_f64(),
                    r.id
                );
                let noted =
                    self.verbose && matches!(r.outcome, Outcome::Pass) && !r.findings.is_empty();
                let problem = matches!(
                    r.outcome,
                    Outcome::Fail | Outcome::Warn | Outcome::Error { .. }
                ) && !matches!(judged, Some(Expectation::ExpectedFailure(_)));
                if noted || problem {
                    self.problems.push((**r).clone());
                }
            }
            Event::RunFinished {
                summary,
                wall,
                strict,
            } => {
                if !self.problems.is_empty() {
                    let _ = writeln!(self.out, "\n{}", self.paint("1", "── problems ──"));
                    let problems = std::mem::take(&mut self.problems);
                    for (first, versions) in group(problems) {
                        self.detail(&first, &versions);
                    }
                }
                for (title, lines) in [
                    (
                        "expected failures (baseline)",
                        std::mem::take(&mut self.expected),
                    ),
                    (
                        "stale expectations (they passed: remove them from the baseline)",
                        std::mem::take(&mut self.stale),
                    ),
                ] {
                    if !lines.is_empty() {
                        let _ =
                            writeln!(self.out, "\n{}", self.paint("1", &format!("── {title} ──")));
                        for line in lines {
                            let _ = writeln!(self.out, "  {line}");
                        }
                    }
                }
                if *strict {
                    let _ = writeln!(self.out, "--strict: warnings (SHOULD) fail the run");
                }
                if self.baseline.is_some() {
                    let _ = writeln!(
                        self.out,
                        "baseline: {} expected failure(s), {} stale expectation(s)",
                        self.tally.expected_total(),
                        self.tally.stale
                    );
                }
                if let Some(reason) = &self.interrupted {
                    let _ = writeln!(
                        self.out,
                        "{}: {} of {} case{} finished; the others did not run",
                        self.paint("1;33", &format!("interrupted ({reason})")),
                        summary.total(),
                        self.planned,
                        if self.planned == 1 { "" } else { "s" },
                    );
                }
                let _ = writeln!(
                    self.out,
                    "{} passed, {} failed, {} warned, {} not applicable, {} errored in {:.2}s",
                    summary.passed,
                    summary.failed,
                    summary.warned,
                    summary.not_applicable,
                    summary.errored,
                    wall.as_secs_f64()
                );
                let _ = self.out.flush();
            }
        }
    }
}

/// Why a case did not pass, as the human report prints it and JUnit quotes
/// it: who is at fault for an error, then each finding with its level,
/// requirement, spec link, location, Expected and Actual. `lead` indents
/// the first line of each entry.
pub(crate) fn findings_block(r: &CaseResult, lead: &str) -> String {
    let mut text = String::new();
    if let Outcome::Error { blame, message } = &r.outcome {
        text.push_str(&format!("{lead}{} at fault: {message}\n", blame.as_str()));
    }
    for f in &r.findings {
        text.push_str(&format!(
            "{lead}{} {}: {}\n",
            f.level, f.requirement, f.summary
        ));
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
        // A multi-line Actual (a snapshot diff) stays indented under its heading.
        text.push_str(&format!("  Actual: {}\n", f.actual.replace('\n', "\n    ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::{Level, Version};
    use mcpspec_model::{Finding, FindingSource};
    use std::time::Duration;

    fn case(version: Version, actual: &str, requirement: &str) -> CaseResult {
        CaseResult {
            id: format!("server/x@{version}"),
            scenario: "server/x".into(),
            title: "x".into(),
            version,
            level: Level::Should,
            requirements: vec![requirement.into()],
            outcome: Outcome::Warn,
            findings: vec![Finding {
                requirement: requirement.into(),
                level: Level::Should,
                spec_url: String::new(),
                summary: String::new(),
                expected: vec!["e".into()],
                actual: actual.into(),
                location: None,
                source: FindingSource::Step,
            }],
            duration: Duration::ZERO,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn long_lines_are_cut_on_a_char_boundary() {
        assert_eq!(cut("abc", 5), "abc");
        assert_eq!(cut("aé€xyz", 3), "aé€ … (3 more bytes)");
    }

    #[test]
    fn same_problem_at_several_versions_is_grouped() {
        let groups = group(vec![
            case(Version::V2025_06_18, "at 5ms: x", "a.b"),
            case(Version::V2024_11_05, "at 9ms: x", "a.b"),
            case(Version::V2025_11_25, "x", "c.d"),
        ]);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].1, ["2024-11-05", "2025-06-18"]);
        assert_eq!(groups[1].1, ["2025-11-25"]);
    }
}
