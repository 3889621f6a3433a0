//! Expected failures (`--expected-failures FILE`): what a listed case comes
//! to, and the run's exit code once the baseline is applied.
//!
//! An entry names a case id (`server/x@2025-06-18`), a scenario id (all its
//! versions) or a glob over case ids (`server/tools/**@2024-11-05`), with a
//! reason. A case takes the first entry naming it exactly, else the first
//! glob (in file order). One baseline per protocol revision is one file whose
//! case ids end in that revision (`…@2025-06-18`), or a glob over them.
//!
//! **Per check.** `<case pattern>:<requirement id>`
//! (`server/tools/call/result-shape@2025-06-18:tools.call.structured-content`)
//! expects that one rule to break in those cases, nothing else: a case is an
//! expected failure when every rule it broke (MUST or SHOULD) is listed for
//! it; a further broken rule fails it as usual; a rule listed for the case
//! by its id or scenario id that did not break in a judged case is a stale
//! expectation (a glob's rule may hold in some of the cases it covers, so it
//! is not). Entries for the whole case win over per-check ones.
//!
//! | case outcome                                  | listed             | not listed     |
//! |-----------------------------------------------|--------------------|----------------|
//! | fail, warn, error blamed on the target        | expected failure   | as usual       |
//! | pass                                          | stale expectation  | pass           |
//! | not applicable, scenario or harness error     | as usual           | as usual       |
//!
//! **Flaky.** Entries under `flaky:` name cases that may fail or pass: their
//! outcome never fails the run (an error of the scenario or the harness
//! still does), they run again with `--retries N` (a failure until it
//! passes, a pass until it fails, at most N more times), and every report
//! shows them as *flaky*. One that passes N + 1 runs in a row is a
//! candidate to remove ([`Judged::steady`](crate::log::Judged::steady)).
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
    /// The case id, scenario id or glob, as written (with `:requirement`
    /// for a per-check entry).
    pub pattern: String,
    pub reason: String,
    /// `file:line:col` of the entry, for messages.
    pub origin: String,
    /// The pattern's case part.
    cases: String,
    /// The requirement a per-check entry expects to break.
    pub check: Option<String>,
    /// Listed under `flaky:`.
    pub flaky: bool,
    glob: Option<GlobMatcher>,
}

impl Entry {
    /// An entry; `pattern` is a glob when it holds `*`, `?`, `[` or `{`,
    /// and names one check when it ends in `:<requirement id>` (case ids
    /// never hold a colon).
    pub fn new(pattern: String, reason: String, origin: String) -> Result<Self, String> {
        let (cases, check) = match pattern.split_once(':') {
            Some((cases, check)) => {
                if check.is_empty() || check.contains(':') || cases.is_empty() {
                    return Err(format!(
                        "invalid entry {pattern:?}: use <case id, scenario id or glob>:<requirement id>"
                    ));
                }
                (cases.to_owned(), Some(check.to_owned()))
            }
            None => (pattern.clone(), None),
        };
        let glob = if cases.contains(['*', '?', '[', '{']) {
            let g = Glob::new(&cases).map_err(|e| format!("invalid glob {cases:?}: {e}"))?;
            Some(g.compile_matcher())
        } else {
            None
        };
        Ok(Entry {
            pattern,
            reason,
            origin,
            cases,
            check,
            flaky: false,
            glob,
        })
    }

    /// The same entry, listed under `flaky:` (a whole-case entry only).
    pub fn into_flaky(mut self) -> Result<Self, String> {
        if self.check.is_some() {
            return Err(format!(
                "flaky entry {:?}: a flaky case is named whole (no `:requirement`)",
                self.pattern
            ));
        }
        self.flaky = true;
        Ok(self)
    }

    fn names_exactly(&self, case_id: &str, scenario_id: &str) -> bool {
        self.glob.is_none() && (self.cases == case_id || self.cases == scenario_id)
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
    /// Listed as flaky, and judged: whatever it came to does not fail the run.
    Flaky(usize),
}

impl Expectation {
    pub fn entry(self) -> usize {
        match self {
            Expectation::ExpectedFailure(i)
            | Expectation::Stale(i)
            | Expectation::Listed(i)
            | Expectation::Flaky(i) => i,
        }
    }

    /// Whether a failure so judged leaves the run passing: an expected
    /// failure, or a flaky case's.
    pub fn tolerated(self) -> bool {
        matches!(
            self,
            Expectation::ExpectedFailure(_) | Expectation::Flaky(_)
        )
    }

    /// `expected_failure`, `stale_expectation`, `listed`, `flaky` (report files).
    pub fn as_str(self) -> &'static str {
        match self {
            Expectation::ExpectedFailure(_) => "expected_failure",
            Expectation::Stale(_) => "stale_expectation",
            Expectation::Listed(_) => "listed",
            Expectation::Flaky(_) => "flaky",
        }
    }

    /// `expected failure`, `stale expectation`, `listed` (for people).
    pub fn label(self) -> &'static str {
        match self {
            Expectation::ExpectedFailure(_) => "expected failure",
            Expectation::Stale(_) => "stale expectation",
            Expectation::Listed(_) => "listed",
            Expectation::Flaky(_) => "flaky",
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
    /// The whole-case entry that names the case: an exact one first, else
    /// the first glob.
    pub fn entry_for(&self, case_id: &str, scenario_id: &str) -> Option<usize> {
        let whole = |e: &&Entry| e.check.is_none() && !e.flaky;
        let at =
            |pred: &dyn Fn(&Entry) -> bool| self.entries.iter().position(|e| whole(&e) && pred(e));
        at(&|e| e.names_exactly(case_id, scenario_id))
            .or_else(|| at(&|e| e.matches(case_id, scenario_id)))
    }

    /// The flaky entry that names the case: an exact one first, else the
    /// first glob.
    pub fn flaky_for(&self, case_id: &str, scenario_id: &str) -> Option<usize> {
        let at =
            |pred: &dyn Fn(&Entry) -> bool| self.entries.iter().position(|e| e.flaky && pred(e));
        at(&|e| e.names_exactly(case_id, scenario_id))
            .or_else(|| at(&|e| e.matches(case_id, scenario_id)))
    }

    /// How the baseline judges `r` (`None`: not listed).
    pub fn judge(&self, r: &CaseResult) -> Option<Expectation> {
        if let Some(i) = self.flaky_for(&r.id, &r.scenario) {
            return Some(if expectable(&r.outcome) || r.outcome == Outcome::Pass {
                Expectation::Flaky(i)
            } else {
                Expectation::Listed(i)
            });
        }
        if let Some(i) = self.entry_for(&r.id, &r.scenario) {
            return Some(match &r.outcome {
                o if expectable(o) => Expectation::ExpectedFailure(i),
                Outcome::Pass => Expectation::Stale(i),
                _ => Expectation::Listed(i),
            });
        }
        self.judge_checks(r)
    }

    /// The per-check entries' verdict (see the module doc).
    fn judge_checks(&self, r: &CaseResult) -> Option<Expectation> {
        // (entry, rule, whether it names the case exactly)
        let listed: Vec<(usize, &str, bool)> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.matches(&r.id, &r.scenario))
            .filter_map(|(i, e)| Some((i, e.check.as_deref()?, e.glob.is_none())))
            .collect();
        let first = listed.first()?.0;
        let broken: std::collections::BTreeSet<&str> = r
            .findings
            .iter()
            .filter(|f| f.level > mcpspec_engine::Level::May)
            .map(|f| f.requirement.as_str())
            .collect();
        // An exact entry whose rule held is stale; a glob's rule may hold
        // in some of the cases it covers.
        let stale = listed
            .iter()
            .find(|(_, c, exact)| *exact && !broken.contains(c))
            .map(|(i, ..)| Expectation::Stale(*i));
        match &r.outcome {
            Outcome::Pass => Some(stale.unwrap_or(Expectation::Listed(first))),
            o if expectable(o) => {
                let expected = |req: &&str| listed.iter().any(|(_, c, _)| c == req);
                if broken.is_empty() || !broken.iter().all(expected) {
                    return None;
                }
                let held = listed.iter().find(|(_, c, _)| broken.contains(c));
                Some(stale.unwrap_or(Expectation::ExpectedFailure(held.map_or(first, |h| h.0))))
            }
            _ => Some(Expectation::Listed(first)),
        }
    }
}

/// The baseline's effect on a run, tallied as cases finish.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Failures the baseline accepts (expected, or of a flaky case) by the
    /// outcome they had (`fail`, `warn`, `error`, `blocked`).
    pub expected: HashMap<&'static str, usize>,
    /// Among them, those of flaky cases.
    pub flaky: usize,
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
            Some(Expectation::ExpectedFailure(_)) | Some(Expectation::Flaky(_))
                if expectable(&r.outcome) =>
            {
                if matches!(judged, Some(Expectation::Flaky(_))) {
                    self.flaky += 1;
                }
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
            Some(Expectation::ExpectedFailure(_) | Expectation::Flaky(_))
            | Some(Expectation::Listed(_))
            | None => {}
        }
    }

    /// Expected failures (not counting flaky cases').
    pub fn expected_total(&self) -> usize {
        self.expected.values().sum::<usize>() - self.flaky
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

    fn broken(id: &str, outcome: Outcome, reqs: &[(&str, Level)]) -> CaseResult {
        let mut c = case(id, outcome);
        c.findings = reqs
            .iter()
            .map(|(r, level)| mcpspec_model::Finding {
                requirement: (*r).into(),
                level: *level,
                spec_url: String::new(),
                summary: String::new(),
                expected: Vec::new(),
                actual: String::new(),
                location: None,
                source: mcpspec_model::FindingSource::Oracle,
            })
            .collect();
        c
    }

    #[test]
    fn a_per_check_entry_expects_only_its_rule() {
        let b = baseline(&[
            "server/a:ping.respond",
            "server/a:jsonrpc.x",
            "server/**:tools.y",
        ]);
        assert_eq!(b.entries[0].check.as_deref(), Some("ping.respond"));
        let (must, should, may) = (Level::Must, Level::Should, Level::May);
        // Every broken rule listed (a MAY note does not count): expected.
        let both = broken(
            "server/a",
            Outcome::Fail,
            &[
                ("ping.respond", must),
                ("jsonrpc.x", should),
                ("note.z", may),
            ],
        );
        assert_eq!(b.judge(&both), Some(Expectation::ExpectedFailure(0)));
        // Another rule broke too: a failure as usual.
        let more = broken(
            "server/a",
            Outcome::Fail,
            &[("ping.respond", must), ("other", must)],
        );
        assert_eq!(b.judge(&more), None);
        // A listed rule held while the case was judged: that entry is stale.
        let one = broken("server/a", Outcome::Fail, &[("ping.respond", must)]);
        assert_eq!(b.judge(&one), Some(Expectation::Stale(1)));
        assert_eq!(
            b.judge(&case("server/a", Outcome::Pass)),
            Some(Expectation::Stale(0))
        );
        // Globs work per check as per case, and are never stale.
        let glob = broken("server/q", Outcome::Warn, &[("tools.y", should)]);
        assert_eq!(b.judge(&glob), Some(Expectation::ExpectedFailure(2)));
        let held = case("server/q", Outcome::Pass);
        assert_eq!(b.judge(&held), Some(Expectation::Listed(2)));
        // A target error breaks no listed rule: not covered by per-check entries.
        let died = case(
            "server/q",
            Outcome::Error {
                blame: Blame::Target,
                message: String::new(),
            },
        );
        assert_eq!(b.judge(&died), None);
        // A whole-case entry wins.
        let b = baseline(&["server/a:ping.respond", "server/a"]);
        assert_eq!(b.judge(&more), Some(Expectation::ExpectedFailure(1)));
        for bad in ["server/a:", ":ping.respond", "server/a:b:c"] {
            assert!(
                Entry::new(bad.into(), "r".into(), "f:1:1".into()).is_err(),
                "{bad}"
            );
        }
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
