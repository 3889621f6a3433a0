//! How a case comes to its outcome: its end ([`finish`]: a dying target's
//! last moment, what the peer still owes, the connection ended), or the
//! settling of a shared case whose target goes on ([`settle`]); both decide
//! in one place (`verdict`), from the steps' findings and the oracle's
//! violations ([`oracle_findings`]).

use std::time::Duration;

use mcpspec_engine::{Level, Version};

use super::{Boxed, Ctx, Stop};
use crate::outcome::{outcome_of, Blame, Finding, FindingSource, Outcome};

/// Ends a case however its steps stopped: a dying target gets a moment to
/// exit, what the peer still owes is judged, the connection is ended, and
/// the case's findings (its steps', then the oracle's) decide its outcome.
pub(crate) fn finish<'a>(
    ctx: &'a mut Ctx<'_>,
    stop: Option<Stop>,
) -> Boxed<'a, (Outcome, Vec<Finding>)> {
    Box::pin(finish_inner(ctx, stop))
}

async fn finish_inner(ctx: &mut Ctx<'_>, stop: Option<Stop>) -> (Outcome, Vec<Finding>) {
    if let Some(Stop::Error(Blame::Target, _)) = &stop {
        // A failed write (broken pipe) can come before the exit is read:
        // give a dying target a moment, so that what it left unanswered counts.
        ctx.conn.wait_exit(Duration::from_millis(500)).await;
    }
    // A target that went away on its own owes every answer it had not sent,
    // however the steps ended (their own waits may only have been MAY checks).
    crate::auth::feed(ctx);
    owed_answers(ctx);
    ctx.conn.end().await;
    ctx.canary = None; // stops the canary endpoint

    let mut findings = std::mem::take(&mut ctx.findings);
    // Authorization is optional: a client that answered the 401 with no
    // authorization request at all does not implement it, and the case's
    // own checks (all about that flow) have nothing to judge.
    let stop = match ctx.auth.as_ref().and_then(|a| a.untried()) {
        Some(why) => {
            findings.retain(|f| f.source != FindingSource::Step);
            Some(Stop::NotApplicable(why))
        }
        None => stop,
    };
    let (outcome, findings) = verdict(ctx, findings, stop);
    if ctx.conn.dropped_lines() > 0 {
        let n = ctx.conn.dropped_lines();
        ctx.conn.note(format!("{n} more transcript lines not kept"));
    }
    (outcome, findings)
}

/// The verdict of a case whose target goes on to serve another (a shared
/// session left in order): decided as [`finish`] decides it, from the
/// steps' findings and the oracle's, without ending the connection.
pub(crate) fn settle(ctx: &mut Ctx<'_>, stop: Option<Stop>) -> (Outcome, Vec<Finding>) {
    let findings = std::mem::take(&mut ctx.findings);
    verdict(ctx, findings, stop)
}

/// The outcome of `findings` (the steps') and the oracle's violations,
/// however the steps stopped: the one place both a case's end and a shared
/// case's settling decide it.
fn verdict(
    ctx: &Ctx<'_>,
    mut findings: Vec<Finding>,
    stop: Option<Stop>,
) -> (Outcome, Vec<Finding>) {
    findings.extend(oracle_findings(ctx.conn.violations(), ctx.version));
    let stop = stop.or_else(|| undecided(ctx, &findings));
    (decide(stop, &findings), findings)
}

/// A case that played every step, but whose own requirement the oracle
/// left undecided (an answer that may have crossed its cancellation) with
/// no finding to decide it, judged nothing on it: not applicable, never a
/// pass. Asked when the steps end (a case on a shared session is settled
/// there) and again when the case ends.
pub(super) fn undecided(ctx: &Ctx<'_>, findings: &[Finding]) -> Option<Stop> {
    let own = |id: &str| ctx.scenario.requirements.iter().any(|r| r == id);
    let u = ctx.conn.undecided().iter().find(|u| {
        own(u.requirement.id) && !findings.iter().any(|f| f.requirement == u.requirement.id)
    })?;
    Some(Stop::NotApplicable(format!(
        "{} could not be judged: {}",
        u.requirement.id, u.detail
    )))
}

/// The case's outcome: a broken MUST or SHOULD decides, whatever stopped
/// the steps (a violation seen before a `discover` came up empty still
/// counts); otherwise the stop decides (MAY notes do not turn an error into
/// a pass).
pub(super) fn decide(stop: Option<Stop>, findings: &[Finding]) -> Outcome {
    if let Some(Stop::Blocked { by, level }) = stop {
        // Blocked, unless the case broke a rule of its own beside the cause
        // (a MAY note is none): then judged on every finding, the cause's
        // among them (a blocking MUST beside a SHOULD of its own is still a
        // broken MUST).
        let own = findings
            .iter()
            .any(|f| f.requirement != by && f.level != Level::May);
        return match own.then(|| outcome_of(findings)) {
            None | Some(Outcome::Pass) => Outcome::Blocked { by, level },
            Some(judged) => judged,
        };
    }
    let judged = outcome_of(findings);
    if judged != Outcome::Pass {
        return judged;
    }
    match stop {
        Some(Stop::NotApplicable(reason)) => Outcome::NotApplicable { reason },
        Some(Stop::Error(blame, message)) => Outcome::Error { blame, message },
        Some(Stop::Failed | Stop::Blocked { .. }) | None => judged,
    }
}

/// If the peer went away mid-case: a client that walked away from a request
/// of its own that the harness held fails the scenario's own requirement
/// (it did not stay for the answer the scenario was about to give). What a
/// peer that went away still owes (every request it had not answered) is
/// the oracle's to judge, at the end of the case.
fn owed_answers(ctx: &mut Ctx<'_>) {
    if let Some(gone) = ctx.conn.gone_while_holding().map(str::to_owned) {
        if ctx.findings.is_empty() {
            let req = ctx
                .scenario
                .requirements
                .first()
                .cloned()
                .unwrap_or_default();
            ctx.fail_as(
                None,
                &req,
                ctx.scenario.level,
                vec![
                    "the client stays connected while it waits for the answer to its own request"
                        .to_owned(),
                ],
                gone,
            );
        }
    }
    ctx.conn.judge_end();
}

/// The oracle's violations as findings (at most 5 per requirement, then a
/// count). Also how a judged connection's violations are reported
/// ([`crate::judged`]).
pub fn oracle_findings<'a>(
    violations: impl IntoIterator<Item = &'a mcpspec_engine::Violation>,
    version: Version,
) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut per_req: std::collections::HashMap<&str, usize> = Default::default();
    for v in violations {
        let n = per_req.entry(v.requirement.id).or_default();
        *n += 1;
        if *n > 5 {
            continue;
        }
        out.push(Finding {
            requirement: v.requirement.id.to_owned(),
            level: v.requirement.level,
            spec_url: v.requirement.url(version),
            summary: v.requirement.summary.to_owned(),
            expected: vec![v.requirement.summary.to_owned()],
            actual: format!("at {}ms: {}", v.at_ms, v.detail),
            location: None,
            source: FindingSource::Oracle,
        });
    }
    for (id, n) in per_req {
        if n > 5 {
            let r = mcpspec_engine::lookup(id);
            out.push(Finding {
                requirement: id.to_owned(),
                level: r.map_or(Level::Must, |r| r.level),
                spec_url: r.map(|r| r.url(version)).unwrap_or_default(),
                summary: r.map(|r| r.summary.to_owned()).unwrap_or_default(),
                expected: vec![],
                actual: format!("{} more violations of {id}", n - 5),
                location: None,
                source: FindingSource::Oracle,
            });
        }
    }
    out
}
