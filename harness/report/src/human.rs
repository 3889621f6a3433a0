//! The terminal reporter.
//!
//! ```text
//! mcpspec 0.1.0: 62 cases against `my-server` (2 jobs)
//!   version 2025-06-18: offered (answered 2025-06-18)
//!   FAIL [ 0.402s] server/notifications/initialized/no-answer@2025-06-18
//!  BLOCK [ 0.020s] server/tools/list/title@2025-06-18 (blocked by SHOULD pagination.cursor.terminates)
//! ── problems (at most 3 per requirement; …) ──        see `problems`
//! ── 2 requirements broken (1 MUST, 1 SHOULD) ──       the rollup
//! 57 passed, 1 failed, 0 warned, 1 blocked, 4 not applicable, 0 errored in 1.93s
//! ```
//!
//! Which per-case lines print is nextest's choice of words: the
//! [`StatusLevel`] during the run (`--status-level`) and in the final list
//! (`--final-status-level`). By default only problems print, so a clean
//! run is short and a failing one leads with its problems; the rollup and
//! the closing totals always print. The probe lines print once the cases
//! start.
//!
//! A run in which no case could run (the summary's `unavailable`: the
//! target could not be started or reached, or negotiated no version) is
//! one error block: the reason, then what the probe learnt per version.
//!
//! An interrupted run (Ctrl-C) says so when it happens, and again before
//! the closing line: `interrupted (SIGINT): 12 of 62 cases finished; …`.
//!
//! With a baseline, a listed failure's line says `(expected failure: reason)`
//! and it is listed apart from the problems; a listed case that passed says
//! `(stale expectation: …)` and is listed under "stale expectations".

mod problems;

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use mcpspec_engine::Level;
use mcpspec_model::{CaseResult, Event, Outcome, Reporter, Summary};

use crate::baseline::{Baseline, Expectation, Tally};
use crate::rollup::{self, EXAMPLES};
pub(crate) use problems::findings_block;
use problems::{Paint, EXCERPT_LINES};

/// Which per-case lines print, in nextest's words: each level shows its
/// own and those before it (`warn` shows failures too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StatusLevel {
    /// No per-case line.
    None,
    /// Failures, errors, stale expectations, cases blocked by a MUST.
    Fail,
    /// Also warnings and cases blocked by a SHOULD.
    Warn,
    /// Also passes, expected failures and flaky cases (baseline).
    Pass,
    /// Also not applicable cases (nextest's "skip").
    Skip,
    /// Every case.
    All,
}

impl StatusLevel {
    /// The least level at which a case shows.
    pub fn of(outcome: &Outcome, expectation: Option<Expectation>, strict: bool) -> StatusLevel {
        match (expectation, outcome) {
            (Some(Expectation::Stale(_)), _) => StatusLevel::Fail,
            (Some(Expectation::ExpectedFailure(_) | Expectation::Flaky(_)), _) => StatusLevel::Pass,
            (_, Outcome::Fail | Outcome::Error { .. }) => StatusLevel::Fail,
            (_, Outcome::Warn) if strict => StatusLevel::Fail,
            (_, Outcome::Warn) => StatusLevel::Warn,
            (_, Outcome::Blocked { level, .. }) => match level {
                Level::Must => StatusLevel::Fail,
                Level::Should if strict => StatusLevel::Fail,
                Level::Should => StatusLevel::Warn,
                Level::May => StatusLevel::Pass,
            },
            (_, Outcome::Pass) => StatusLevel::Pass,
            (_, Outcome::NotApplicable { .. }) => StatusLevel::Skip,
        }
    }

    /// Whether a case needing `needed` shows at this level.
    pub fn shows(self, needed: StatusLevel) -> bool {
        self != StatusLevel::None && needed <= self
    }
}

pub struct HumanReporter {
    out: Box<dyn Write + Send>,
    color: bool,
    verbose: bool,
    status: StatusLevel,
    final_status: StatusLevel,
    /// Problem cases (fail, warn, blocked, error; not expected failures),
    /// with their findings deduplicated and their transcript's last lines.
    problems: Vec<CaseResult>,
    /// Passing cases with MAY notes (`verbose`).
    noted: Vec<CaseResult>,
    /// Lines of the final list for cases that are not problems.
    final_lines: Vec<(String, StatusLevel, String)>,
    baseline: Option<Arc<Baseline>>,
    tally: Tally,
    /// `id — reason` of expected failures, of stale expectations, of flaky
    /// cases, and of flaky entries that held every attempt.
    expected: Vec<String>,
    stale: Vec<String>,
    flaky: Vec<String>,
    steady: Vec<String>,
    /// Attempts announced by `Retried`, until their case finishes.
    retried: std::collections::HashMap<String, Vec<Outcome>>,
    /// Cases planned (`RunStarted`).
    planned: usize,
    /// The probe's lines, until the cases start.
    probes: Vec<String>,
    probes_printed: bool,
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

    /// Shows problems only, during the run and in the final list.
    pub fn new(out: Box<dyn Write + Send>, color: bool, verbose: bool) -> Self {
        HumanReporter {
            out,
            color,
            verbose,
            status: StatusLevel::Warn,
            final_status: StatusLevel::Warn,
            problems: Vec::new(),
            noted: Vec::new(),
            final_lines: Vec::new(),
            baseline: None,
            tally: Tally::default(),
            expected: Vec::new(),
            stale: Vec::new(),
            flaky: Vec::new(),
            steady: Vec::new(),
            retried: Default::default(),
            planned: 0,
            probes: Vec::new(),
            probes_printed: false,
            interrupted: None,
        }
    }

    /// The per-case lines printed during the run (`status`) and in the
    /// final list (`final_status`).
    pub fn with_status_levels(mut self, status: StatusLevel, final_status: StatusLevel) -> Self {
        self.status = status;
        self.final_status = final_status;
        self
    }

    /// Judges cases against `baseline` (`--expected-failures`).
    pub fn with_baseline(mut self, baseline: Option<Arc<Baseline>>) -> Self {
        self.baseline = baseline;
        self
    }

    fn paint(&self) -> Paint {
        Paint(self.color)
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
        let attempts: Vec<&str> = self
            .retried
            .remove(&r.id)
            .unwrap_or_default()
            .iter()
            .map(Outcome::as_str)
            .collect();
        let tried = if attempts.len() > 1 {
            format!("; attempts: {}", attempts.join(", "))
        } else {
            String::new()
        };
        let line = format!("{} — {} ({}){tried}", r.id, entry.reason, entry.origin);
        match e {
            Expectation::ExpectedFailure(_) => self.expected.push(line),
            Expectation::Stale(_) => self.stale.push(line),
            Expectation::Flaky(_)
                if attempts.len() > 1 && attempts.iter().all(|a| *a == "pass") =>
            {
                self.steady.push(line)
            }
            Expectation::Flaky(_) => self.flaky.push(line),
            Expectation::Listed(_) => {}
        }
        let suffix = match e {
            Expectation::Listed(_) => String::new(),
            _ => format!(" ({}: {}{tried})", e.label(), entry.reason),
        };
        (judged, suffix)
    }

    fn label(&self, outcome: &Outcome) -> String {
        let p = self.paint();
        match outcome {
            Outcome::Pass => p.with("32", "  PASS"),
            Outcome::Fail => p.with("1;31", "  FAIL"),
            Outcome::Warn => p.with("33", "  WARN"),
            Outcome::NotApplicable { .. } => p.with("2", "   N/A"),
            Outcome::Blocked { .. } => p.with("35", " BLOCK"),
            Outcome::Error { .. } => p.with("1;35", " ERROR"),
        }
    }

    /// The probe's lines, once.
    fn print_probes(&mut self) {
        if !self.probes_printed {
            self.probes_printed = true;
            for line in std::mem::take(&mut self.probes) {
                let _ = writeln!(self.out, "{line}");
            }
        }
    }

    /// The error block of a run in which no case could run.
    fn unavailable(&mut self, reason: &str, summary: &Summary, wall: std::time::Duration) {
        let p = self.paint();
        let _ = writeln!(
            self.out,
            "{} {reason}",
            p.with("1;31", "error: no case could run:")
        );
        if !self.probes.is_empty() {
            let _ = writeln!(self.out, "  what the version probe learnt:");
        }
        for line in std::mem::take(&mut self.probes) {
            let _ = writeln!(self.out, "  {line}");
        }
        self.probes_printed = true;
        let _ = writeln!(
            self.out,
            "{} of {} case{} ran; nothing was judged (exit 3) in {:.2}s",
            summary.total(),
            self.planned,
            if self.planned == 1 { "" } else { "s" },
            wall.as_secs_f64()
        );
    }

    fn case_finished(&mut self, r: &CaseResult) {
        self.print_probes();
        let (judged, expectation) = self.expectation(r);
        let needed = StatusLevel::of(&r.outcome, judged, false);
        let suffix = match &r.outcome {
            Outcome::NotApplicable { reason } => format!(" ({reason})"),
            Outcome::Blocked { by, level } => format!(" (blocked by {level} {by})"),
            // A pass can carry MAY-level notes: say so, so that a
            // check that saw nothing is not mistaken for one that held.
            Outcome::Pass if !r.findings.is_empty() => {
                format!(" ({} MAY note(s); -v shows them)", r.findings.len())
            }
            _ => String::new(),
        };
        let line = format!("{}{suffix}{expectation}", r.id);
        if self.status.shows(needed) {
            let _ = writeln!(
                self.out,
                "{} [{:>7.3}s] {line}",
                self.label(&r.outcome),
                r.duration.as_secs_f64(),
            );
        }
        let problem = matches!(
            r.outcome,
            Outcome::Fail | Outcome::Warn | Outcome::Error { .. } | Outcome::Blocked { .. }
        ) && !judged.is_some_and(Expectation::tolerated);
        let noted = self.verbose && matches!(r.outcome, Outcome::Pass) && !r.findings.is_empty();
        if problem || noted {
            let mut kept = r.clone();
            rollup::dedup_case(&mut kept);
            // One line more than an excerpt shows: it then says it is cut.
            let skip = kept.transcript.len().saturating_sub(EXCERPT_LINES + 1);
            kept.transcript.drain(..skip);
            for l in &mut kept.transcript {
                l.raw = None;
            }
            if problem {
                self.problems.push(kept);
            } else {
                self.noted.push(kept);
            }
        } else {
            let labelled = format!("{} {line}", self.label(&r.outcome));
            self.final_lines.push((r.id.clone(), needed, labelled));
        }
    }

    /// Everything after the last case: the final list, the rollup, totals.
    fn finish(&mut self, summary: &Summary, wall: std::time::Duration, strict: bool) {
        if let Some(reason) = &summary.unavailable {
            if summary.total() == 0 {
                self.unavailable(&reason.clone(), summary, wall);
                return;
            }
        }
        self.print_probes();
        let p = self.paint();
        let problems = std::mem::take(&mut self.problems);
        let broken = rollup::rollup(&problems);
        // The final list: cases that are not problems, one line each.
        let final_status = self.final_status;
        let mut lines = std::mem::take(&mut self.final_lines);
        lines.retain(|(_, needed, _)| final_status.shows(*needed));
        lines.sort();
        if !lines.is_empty() {
            let _ = writeln!(self.out, "\n{}", p.with("1", "── cases ──"));
        }
        for (_, _, line) in lines {
            let _ = writeln!(self.out, "{line}");
        }
        let listed: Vec<CaseResult> = problems
            .into_iter()
            // Expected failures are not among the problems; stale ones pass.
            .filter(|r| final_status.shows(StatusLevel::of(&r.outcome, None, strict)))
            .chain(std::mem::take(&mut self.noted))
            .collect();
        let groups = rollup::group(listed, itself, |r| rollup::signature(r, ""));
        let sections = rollup::sections(groups, itself, &broken, EXAMPLES);
        let text = problems::problems(p, &broken, &sections);
        let _ = write!(self.out, "{text}");
        let (flaky, steady) = (self.flaky.len() + self.steady.len(), self.steady.len());
        for (title, lines) in [
            (
                "expected failures (baseline)",
                std::mem::take(&mut self.expected),
            ),
            (
                "stale expectations (they passed: remove them from the baseline)",
                std::mem::take(&mut self.stale),
            ),
            ("flaky (baseline)", std::mem::take(&mut self.flaky)),
            (
                "flaky entries that passed every attempt (candidates to remove)",
                std::mem::take(&mut self.steady),
            ),
        ] {
            if !lines.is_empty() {
                let _ = writeln!(self.out, "\n{}", p.with("1", &format!("── {title} ──")));
                for line in lines {
                    let _ = writeln!(self.out, "  {line}");
                }
            }
        }
        let _ = write!(self.out, "{}", problems::rollup(p, &broken));
        if strict {
            let _ = writeln!(self.out, "--strict: warnings (SHOULD) fail the run");
        }
        if self.baseline.is_some() {
            let _ = writeln!(
                self.out,
                "baseline: {} expected failure(s), {} stale expectation(s), {} flaky case(s) \
                 ({} failed and tolerated, {} candidate(s) to remove)",
                self.tally.expected_total(),
                self.tally.stale,
                flaky,
                self.tally.flaky,
                steady,
            );
        }
        if let Some(reason) = &self.interrupted {
            let _ = writeln!(
                self.out,
                "{}: {} of {} case{} finished; the others did not run",
                p.with("1;33", &format!("interrupted ({reason})")),
                summary.total(),
                self.planned,
                if self.planned == 1 { "" } else { "s" },
            );
        }
        let blocked = if summary.blocked > 0 {
            format!("{} blocked, ", summary.blocked)
        } else {
            String::new()
        };
        let _ = writeln!(
            self.out,
            "{} passed, {} failed, {} warned, {blocked}{} not applicable, {} errored in {:.2}s",
            summary.passed,
            summary.failed,
            summary.warned,
            summary.not_applicable,
            summary.errored,
            wall.as_secs_f64()
        );
    }
}

fn itself(r: &CaseResult) -> &CaseResult {
    r
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
                self.probes
                    .push(format!("  version {version}: {state} ({detail})"));
            }
            Event::CaseStarted { .. } => self.print_probes(),
            Event::Retried { id, attempts } => {
                self.retried.insert(id.clone(), attempts.clone());
            }
            Event::Interrupted { reason, .. } => {
                self.print_probes();
                self.interrupted = Some(reason.clone());
                let head = self
                    .paint()
                    .with("1;33", &format!("interrupted ({reason})"));
                let _ = writeln!(
                    self.out,
                    "{head}: no case starts any more, running cases are cancelled; \
                     the finished ones are reported (interrupt again to exit at once)"
                );
                let _ = self.out.flush();
            }
            Event::CaseFinished(r) => self.case_finished(r),
            Event::RunFinished {
                summary,
                wall,
                strict,
            } => {
                self.finish(summary, *wall, *strict);
                let _ = self.out.flush();
            }
        }
    }
}

#[cfg(test)]
mod tests;
