//! `--retries N`: which cases run again, and how often. A retry starts a
//! new target process, so it waits for a start slot again
//! ([`crate::schedule::restart`]).

use std::sync::Arc;

use crate::case::{run_case, CaseConfig};
use crate::outcome::{Blame, CaseResult, Outcome};
use crate::plan::Case;

/// Which cases run again, and how often (`--retries N`): a case of these
/// that fails is run again until it passes, at most `times` more; one that
/// passes is run again until it fails, as often (N + 1 passes in a row say
/// the flakiness is gone). Other cases run once.
#[derive(Clone)]
pub struct Retries {
    pub times: u32,
    pub applies: IsFlaky,
}

/// `(case id, scenario id)` → whether the case is flaky.
pub type IsFlaky = Arc<dyn Fn(&str, &str) -> bool + Send + Sync>;

impl std::fmt::Debug for Retries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Retries({})", self.times)
    }
}

/// Whether an outcome is a failure a retry may turn (not a not-applicable
/// case, nor an error of the scenario or the harness: those repeat).
fn failed(o: &Outcome) -> bool {
    matches!(
        o,
        Outcome::Fail
            | Outcome::Warn
            | Outcome::Blocked { .. }
            | Outcome::Error {
                blame: Blame::Target,
                ..
            }
    )
}

/// Runs `case`, again while `retries` say so: the last attempt's result and
/// every attempt's outcome.
pub(super) async fn run_attempts(
    case: &Case,
    cfg: &CaseConfig,
    retries: Option<&Retries>,
) -> (CaseResult, Vec<Outcome>) {
    let first = run_case(case, cfg).await;
    let mut attempts = vec![first.outcome.clone()];
    let Some(r) = retries.filter(|r| (r.applies)(&case.id, &case.scenario.id)) else {
        return (first, attempts);
    };
    let judged = |o: &Outcome| failed(o) || *o == Outcome::Pass;
    if !judged(&first.outcome) {
        return (first, attempts);
    }
    let class = failed(&first.outcome);
    let mut last = first;
    while attempts.len() <= r.times as usize
        && failed(&last.outcome) == class
        && judged(&last.outcome)
    {
        // A new target process: it costs a start-up like the first.
        crate::schedule::restart().await;
        last = run_case(case, cfg).await;
        attempts.push(last.outcome.clone());
    }
    (last, attempts)
}
