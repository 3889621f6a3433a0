//! What a case comes to: its [`Outcome`], the [`Finding`]s behind it, and the
//! run's [`Summary`].
//!
//! A finding is one broken rule, always with its requirement, level and spec
//! link, what was expected (a list) and what was seen. The outcome follows
//! from the findings: any MUST finding fails the case, otherwise any SHOULD
//! finding warns; MAY findings are informational.
//!
//! One cause is one finding. A case that could not reach what it checks
//! because the target broke *another* rule on the way (a pagination loop
//! while listing tools to check their titles) is [`Outcome::Blocked`]: it
//! carries that finding at its own requirement and level, and judges
//! nothing of its own — it is neither a pass nor a second violation.
//!
//! A run in which nothing could be judged is never a success
//! ([`Summary::exit_code`]): the target negotiated no version
//! ([`Summary::unavailable`]), or every case was not applicable.

use std::fmt;
use std::time::Duration;

use mcpspec_engine::{Level, Version};

use crate::exit::Exit;

/// Who is responsible when a case could not be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blame {
    /// The implementation under test (would not start, died before the handshake).
    Target,
    /// The scenario file (e.g. an unbound variable).
    Scenario,
    /// mcpspec itself.
    Harness,
}

impl Blame {
    pub fn as_str(self) -> &'static str {
        match self {
            Blame::Target => "target",
            Blame::Scenario => "scenario",
            Blame::Harness => "harness",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// A MUST was broken.
    Fail,
    /// Only SHOULDs were broken.
    Warn,
    NotApplicable {
        reason: String,
    },
    /// The case could not reach what it checks: the target broke another
    /// rule first. The finding that blocked it is among the case's
    /// findings; it counts at its own level, once per run in the rollup.
    Blocked {
        /// The requirement the target broke first.
        by: String,
        /// That requirement's level (what the block weighs in the exit code).
        level: Level,
    },
    Error {
        blame: Blame,
        message: String,
    },
}

impl Outcome {
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Warn => "warn",
            Outcome::NotApplicable { .. } => "not_applicable",
            Outcome::Blocked { .. } => "blocked",
            Outcome::Error { .. } => "error",
        }
    }
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub requirement: String,
    pub level: Level,
    /// Specification link (empty when the requirement is not catalogued).
    pub spec_url: String,
    /// The requirement's paraphrase, or the check's own description.
    pub summary: String,
    /// What would have satisfied the check, one line each.
    pub expected: Vec<String>,
    pub actual: String,
    /// Where in the scenario: `file:line:col (step N: send tools/list)`.
    pub location: Option<String>,
    /// Where it came from: a scenario step, or the engine's oracle.
    pub source: FindingSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingSource {
    Step,
    Oracle,
}

/// One line of the case's transcript: failure excerpts, and the
/// transcript files of `--report-dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptLine {
    pub at_ms: u64,
    /// `>>` harness to target, `<<` target to harness, `!!` stderr, `--` note.
    pub dir: &'static str,
    /// What the line shows (a long line is cut).
    pub text: String,
    /// How the line travelled: `stdio` (the child's stdin, stdout or stderr).
    pub transport: &'static str,
    /// The exact bytes of a frame sent or received (without its line
    /// terminator; what was written verbatim for raw sends). `None` for
    /// stderr lines and notes, and once the case's raw budget is spent.
    pub raw: Option<Vec<u8>>,
}

impl fmt::Display for TranscriptLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>6}ms {} {}", self.at_ms, self.dir, self.text)
    }
}

/// The result of one case (a scenario at one version).
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// `<scenario id>@<version>`.
    pub id: String,
    pub scenario: String,
    pub title: String,
    pub version: Version,
    pub level: Level,
    pub requirements: Vec<String>,
    pub outcome: Outcome,
    pub findings: Vec<Finding>,
    pub duration: Duration,
    pub transcript: Vec<TranscriptLine>,
}

impl CaseResult {
    /// One-line explanation: the first finding, or the reason for n/a or error.
    pub fn message(&self) -> String {
        match &self.outcome {
            Outcome::NotApplicable { reason } => reason.clone(),
            Outcome::Error { blame, message } => format!("{} at fault: {message}", blame.as_str()),
            Outcome::Blocked { by, level } => {
                let why = self
                    .findings
                    .iter()
                    .find(|f| &f.requirement == by)
                    .map(|f| f.actual.as_str())
                    .unwrap_or_default();
                format!("blocked by {level} {by}: {why}")
            }
            _ => self
                .findings
                .iter()
                .max_by_key(|f| f.level)
                .map(|f| format!("{} {}: {}", f.level, f.requirement, f.actual))
                .unwrap_or_default(),
        }
    }
}

/// Decides the outcome from the findings.
pub fn outcome_of(findings: &[Finding]) -> Outcome {
    match findings.iter().map(|f| f.level).max() {
        Some(Level::Must) => Outcome::Fail,
        Some(Level::Should) => Outcome::Warn,
        _ => Outcome::Pass,
    }
}

/// Totals for a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub warned: usize,
    pub not_applicable: usize,
    /// Cases blocked by another rule's violation ([`Outcome::Blocked`]).
    pub blocked: usize,
    /// Of those, blocked by a MUST (these fail the run as failures do).
    pub blocked_by_must: usize,
    /// Of those, blocked by a SHOULD (these fail the run under `strict`).
    pub blocked_by_should: usize,
    pub errored: usize,
    /// Errors blamed on the scenario files or the harness ([`Exit::Usage`]).
    pub scenario_errors: usize,
    /// Errors blamed on the target ([`Exit::TargetUnavailable`]).
    pub target_errors: usize,
    /// Why no case could run at all: the target could not be started or
    /// reached, or negotiated none of the selected versions. The run's
    /// cases are not reported one by one then; this says it once.
    pub unavailable: Option<String>,
}

impl Summary {
    pub fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail => self.failed += 1,
            Outcome::Warn => self.warned += 1,
            Outcome::NotApplicable { .. } => self.not_applicable += 1,
            Outcome::Blocked { level, .. } => {
                self.blocked += 1;
                match level {
                    Level::Must => self.blocked_by_must += 1,
                    Level::Should => self.blocked_by_should += 1,
                    Level::May => {}
                }
            }
            Outcome::Error { blame, .. } => {
                self.errored += 1;
                match blame {
                    Blame::Target => self.target_errors += 1,
                    Blame::Scenario | Blame::Harness => self.scenario_errors += 1,
                }
            }
        }
    }

    pub fn total(&self) -> usize {
        self.passed + self.failed + self.warned + self.not_applicable + self.blocked + self.errored
    }

    /// Cases that ran to a verdict on the target: passed, warned, failed or
    /// blocked by a finding.
    pub fn judged(&self) -> usize {
        self.passed + self.failed + self.warned + self.blocked
    }

    /// Whether anything broke a MUST (or, under `strict`, a SHOULD).
    pub fn has_failures(&self, strict: bool) -> bool {
        self.failed > 0
            || self.blocked_by_must > 0
            || (strict && (self.warned > 0 || self.blocked_by_should > 0))
    }

    /// The exit code the totals come to, the most serious first: a scenario
    /// or harness error; else failures (warnings too under `strict`), even
    /// when some cases could not be run; else a target that could not be
    /// run, a case that errored on it, or a run that judged nothing (every
    /// case not applicable — never a false "conforming"); else success.
    pub fn exit_code(&self, strict: bool) -> Exit {
        if self.scenario_errors > 0 {
            Exit::Usage
        } else if self.has_failures(strict) {
            Exit::Failures
        } else if self.target_errors > 0 || self.unavailable.is_some() || self.judged() == 0 {
            Exit::TargetUnavailable
        } else {
            Exit::Success
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_worst_outcome() {
        let mut s = Summary::default();
        s.add(&Outcome::Pass);
        assert_eq!(s.exit_code(false), Exit::Success);
        s.add(&Outcome::Warn);
        assert_eq!(s.exit_code(false), Exit::Success);
        assert_eq!(s.exit_code(true), Exit::Failures);
        s.add(&Outcome::Fail);
        assert_eq!(s.exit_code(false), Exit::Failures);
        // Failures beside a case that could not run: still failures.
        s.add(&Outcome::Error {
            blame: Blame::Target,
            message: String::new(),
        });
        assert_eq!(s.exit_code(false), Exit::Failures);
        s.add(&Outcome::Error {
            blame: Blame::Scenario,
            message: String::new(),
        });
        assert_eq!(s.exit_code(false), Exit::Usage);
        assert_eq!(s.total(), 5);
    }

    #[test]
    fn a_target_error_without_failures_is_unavailable() {
        let mut s = Summary::default();
        s.add(&Outcome::Pass);
        s.add(&Outcome::Error {
            blame: Blame::Target,
            message: String::new(),
        });
        assert_eq!(s.exit_code(false), Exit::TargetUnavailable);
    }

    #[test]
    fn a_run_that_judged_nothing_is_never_a_success() {
        let mut s = Summary::default();
        assert_eq!(s.exit_code(false), Exit::TargetUnavailable);
        s.add(&Outcome::NotApplicable {
            reason: String::new(),
        });
        assert_eq!(s.exit_code(false), Exit::TargetUnavailable);
        let unavailable = Summary {
            unavailable: Some("connection refused".to_owned()),
            ..Summary::default()
        };
        assert_eq!(unavailable.exit_code(false), Exit::TargetUnavailable);
        s.add(&Outcome::Pass);
        assert_eq!(s.exit_code(false), Exit::Success);
    }

    #[test]
    fn a_block_weighs_as_much_as_what_blocked_it() {
        let blocked = |level| Outcome::Blocked {
            by: "pagination.cursor-progress".to_owned(),
            level,
        };
        let mut s = Summary::default();
        s.add(&blocked(Level::Should));
        assert_eq!(s.exit_code(false), Exit::Success);
        assert_eq!(s.exit_code(true), Exit::Failures);
        s.add(&blocked(Level::Must));
        assert_eq!(s.exit_code(false), Exit::Failures);
        assert_eq!((s.blocked, s.total(), s.judged()), (2, 2, 2));
    }
}
