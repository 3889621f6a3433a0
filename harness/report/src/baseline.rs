//! Expected failures (`--expected-failures FILE`): what a listed case comes
//! to, and the run's exit code once the baseline is applied.
//!
//! An entry names a case id (`server/x@2025-06-18`), a scenario id (all its
//! versions) or a glob over case ids (`server/tools/**@2024-11-05`), with a
//! reason. A case takes the first entry naming it exactly, else the first
//! glob (in file order).
//!
//! | case outcome                                  | listed             | not listed     |
//! |-----------------------------------------------|--------------------|----------------|
//! | fail, warn, error blamed on the target        | expected failure   | as usual       |
//! | pass                                          | stale expectation  | pass           |
//! | not applicable, scenario or harness error     | as usual           | as usual       |
//!
//! An expected failure does not fail the run; a stale expectation does
//! (exit 1, [`Exit::Failures`]): the entry must go. Scenario and harness
//! errors are never expected (they are mcpspec's own problems, exit 2). Loading the file
//! (with `file:line:col` errors) is the CLI's job; this module only judges.

use std::collections::HashMap;
use std::sync::Arc;

use globset::{Glob, GlobMatcher};
use mcpspec_model::{Blame, CaseResult, Event, Exit, Outcome, Reporter, Summary};

/// One entry of the file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The case id, scenario id or glob, as written.
    pub pattern: String,
    pub reason: String,
    /// `file:line:col` of the entry, for messages.
    pub origin: String,
    glob: Option<GlobMatcher>,
}

impl Entry {
    /// An entry; `pattern` is a glob when it holds `*`, `?`, `[` or `{`.
    pub fn new(pattern: String, reason: String, origin: String) -> Result<Self, String> {
        let glob = if pattern.contains(['*', '?', '[', '{']) {
            let g = Glob::new(&pattern).map_err(|e| format!("invalid glob {pattern:?}: {e}"))?;
            Some(g.compile_matcher())
        } else {
            None
        };
        Ok(Entry {
            pattern,
            reason,
            origin,
            glob,
        })
    }

    fn names_exactly(&self, case_id: &str, scenario_id: &str) -> bool {
        self.glob.is_none() && (self.pattern == case_id || self.pattern == scenario_id)
    }

    /// Whether the entry names the case (exactly or by glob).
    pub fn matches(&self, case_id: &str, scenario_id: &str) -> bool {
        match &self.glob {
            Some(g) => g.is_match(case_id),
            None => self.names_exactly(case_id, scenario_id),
        }
    }
}

/// The loaded file.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// The file, as given on the command line.
    pub file: String,
    pub entries: Vec<Entry>,
}

/// How the baseline judges one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expectation {
    /// The case failed, and the entry (index into `entries`) said it would.
    ExpectedFailure(usize),
    /// The case passed although entry `.0` says it fails: the entry is stale.
    Stale(usize),
    /// Listed, but the case was not judged (not applicable, or an error the
    /// baseline cannot cover): the entry neither holds nor is stale.
    Listed(usize),
}

impl Expectation {
    pub fn entry(self) -> usize {
        match self {
            Expectation::ExpectedFailure(i) | Expectation::Stale(i) | Expectation::Listed(i) => i,
        }
    }

    /// `expected_failure`, `stale_expectation`, `listed` (report files).
    pub fn as_str(self) -> &'static str {
        match self {
            Expectation::ExpectedFailure(_) => "expected_failure",
            Expectation::Stale(_) => "stale_expectation",
            Expectation::Listed(_) => "listed",
        }
    }

    /// `expected failure`, `stale expectation`, `listed` (for people).
    pub fn label(self) -> &'static str {
        match self {
            Expectation::ExpectedFailure(_) => "expected failure",
            Expectation::Stale(_) => "stale expectation",
            Expectation::Listed(_) => "listed",
        }
    }
}

/// Whether an outcome is one a baseline may expect.
fn expectable(outcome: &Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Fail
            | Outcome::Warn
            | Outcome::Blocked { .. }
            | Outcome::Error {
                blame: Blame::Target,
                ..
            }
    )
}

impl Baseline {
    /// The entry that names the case: an exact one first, else the first glob.
    pub fn entry_for(&self, case_id: &str, scenario_id: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.names_exactly(case_id, scenario_id))
            .or_else(|| {
                self.entries
                    .iter()
                    .position(|e| e.matches(case_id, scenario_id))
            })
    }

    /// How the baseline judges `r` (`None`: not listed).
    pub fn judge(&self, r: &CaseResult) -> Option<Expectation> {
        let i = self.entry_for(&r.id, &r.scenario)?;
        Some(match &r.outcome {
            o if expectable(o) => Expectation::ExpectedFailure(i),
            Outcome::Pass => Expectation::Stale(i),
            _ => Expectation::Listed(i),
        })
    }
}

/// The baseline's effect on a run, tallied as cases finish.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Expected failures by the outcome they had (`fail`, `warn`, `error`).
    pub expected: HashMap<&'static str, usize>,
    /// Cases whose entry is stale.
    pub stale: usize,
    /// Expected failures that were target errors (they do not make exit 3).
    pub expected_target_errors: usize,
    /// Expected blocked cases, by the level of what blocked them.
    pub expected_blocked_by_must: usize,
    pub expected_blocked_by_should: usize,
}

impl Tally {
    pub fn add(&mut self, r: &CaseResult, judged: Option<Expectation>) {
        match judged {
            Some(Expectation::ExpectedFailure(_)) => {
                *self.expected.entry(r.outcome.as_str()).or_default() += 1;
                match &r.outcome {
                    Outcome::Error { .. } => self.expected_target_errors += 1,
                    Outcome::Blocked { level, .. } if *level == mcpspec_engine::Level::Must => {
                        self.expected_blocked_by_must += 1;
                    }
                    Outcome::Blocked { level, .. } if *level == mcpspec_engine::Level::Should => {
                        self.expected_blocked_by_should += 1;
                    }
                    _ => {}
                }
            }
            Some(Expectation::Stale(_)) => self.stale += 1,
            Some(Expectation::Listed(_)) | None => {}
        }
    }

    pub fn expected_total(&self) -> usize {
        self.expected.values().sum()
    }

    fn expected_of(&self, outcome: &str) -> usize {
        self.expected.get(outcome).copied().unwrap_or(0)
    }

    /// The exit code: expected failures do not count, a stale expectation
    /// is a conformance failure ([`Exit::Failures`]); scenario errors and
    /// unexpected target errors win as without a baseline.
    pub fn exit_code(&self, summary: &Summary, strict: bool) -> Exit {
        // An expected failure was judged as the baseline says: it counts as
        // a pass would (a run of only expected failures did judge something).
        let mut s = summary.clone();
        let accept = |count: &mut usize, expected: usize| {
            let n = expected.min(*count);
            *count -= n;
            n
        };
        let accepted = accept(&mut s.failed, self.expected_of("fail"))
            + accept(&mut s.warned, self.expected_of("warn"))
            + accept(&mut s.blocked_by_must, self.expected_blocked_by_must)
            + accept(&mut s.blocked_by_should, self.expected_blocked_by_should);
        s.blocked -=
            (self.expected_blocked_by_must + self.expected_blocked_by_should).min(s.blocked);
        s.passed += accepted;
        s.target_errors -= self.expected_target_errors.min(s.target_errors);
        match s.exit_code(strict) {
            // A stale entry is a failure, and failures win over exit 3.
            Exit::Success | Exit::TargetUnavailable if self.stale > 0 => Exit::Failures,
            exit => exit,
        }
    }
}

/// Tallies what the baseline does to a run (for the exit code) as a
/// reporter, so the CLI needs nothing but the event stream either.
#[derive(Debug)]
pub struct Verdict {
    baseline: Arc<Baseline>,
    pub tally: Tally,
}

impl Verdict {
    pub fn new(baseline: Arc<Baseline>) -> Self {
        Verdict {
            baseline,
            tally: Tally::default(),
        }
    }
}

impl Reporter for Verdict {
    fn event(&mut self, event: &Event) {
        if let Event::CaseFinished(r) = event {
            let judged = self.baseline.judge(r);
            self.tally.add(r, judged);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::{Level, Version};
    use std::time::Duration;

    fn case(id: &str, outcome: Outcome) -> CaseResult {
        CaseResult {
            id: format!("{id}@2025-06-18"),
            scenario: id.into(),
            title: String::new(),
            version: Version::V2025_06_18,
            level: Level::Must,
            requirements: Vec::new(),
            outcome,
            findings: Vec::new(),
            duration: Duration::ZERO,
            transcript: Vec::new(),
        }
    }

    fn baseline(patterns: &[&str]) -> Baseline {
        Baseline {
            file: "b.yaml".into(),
            entries: patterns
                .iter()
                .map(|p| Entry::new((*p).into(), "why".into(), "b.yaml:1:1".into()).unwrap())
                .collect(),
        }
    }

    #[test]
    fn exact_entries_win_over_globs_and_scenario_ids_cover_every_version() {
        let b = baseline(&["server/**", "server/a@2025-06-18", "server/b"]);
        assert_eq!(b.entry_for("server/a@2025-06-18", "server/a"), Some(1));
        assert_eq!(b.entry_for("server/b@2024-11-05", "server/b"), Some(2));
        assert_eq!(b.entry_for("server/c@2024-11-05", "server/c"), Some(0));
        assert_eq!(
            baseline(&["server/a"]).entry_for("server/ab@1", "server/ab"),
            None
        );
    }

    #[test]
    fn listed_failures_pass_unlisted_fail_and_stale_entries_fail() {
        let b = baseline(&["server/a", "server/stale"]);
        let summarize = |cases: &[CaseResult]| {
            let (mut s, mut t) = (Summary::default(), Tally::default());
            for c in cases {
                s.add(&c.outcome);
                t.add(c, b.judge(c));
            }
            t.exit_code(&s, false)
        };
        let listed = case("server/a", Outcome::Fail);
        assert_eq!(b.judge(&listed), Some(Expectation::ExpectedFailure(0)));
        assert_eq!(summarize(std::slice::from_ref(&listed)), Exit::Success);
        assert_eq!(
            summarize(&[listed.clone(), case("server/b", Outcome::Fail)]),
            Exit::Failures
        );
        let stale = case("server/stale", Outcome::Pass);
        assert_eq!(b.judge(&stale), Some(Expectation::Stale(1)));
        assert_eq!(summarize(&[listed, stale]), Exit::Failures);
        let na = case(
            "server/a",
            Outcome::NotApplicable {
                reason: String::new(),
            },
        );
        assert_eq!(b.judge(&na), Some(Expectation::Listed(0)));
        let harness = case(
            "server/a",
            Outcome::Error {
                blame: Blame::Scenario,
                message: String::new(),
            },
        );
        assert_eq!(summarize(&[harness]), Exit::Usage);
    }

    #[test]
    fn strict_warnings_can_be_expected() {
        let b = baseline(&["server/w"]);
        let w = case("server/w", Outcome::Warn);
        let mut s = Summary::default();
        s.add(&w.outcome);
        let mut t = Tally::default();
        t.add(&w, b.judge(&w));
        assert_eq!(t.exit_code(&s, true), Exit::Success);
        assert_eq!(Tally::default().exit_code(&s, true), Exit::Failures);
    }
}
