//! Cases that share a server target: a pool of started targets (stdio
//! processes, or HTTP sessions), each with an initialised session of one
//! version, that cases take, play their steps on, and give back when they
//! leave it in order (issue #18: over stdio the target's start-up dominates
//! a run; over HTTP a session's handshake and end are three of a case's
//! requests, and the target's throughput bounds the run).
//!
//! ```text
//!  a case that may share (Scenario::may_share) or take (Scenario::may_take)
//!  a session, admitted on a live slot
//!    ├─ its scenario came out unclean at another version ──► `fresh`:
//!    │    first on a target started for it, as alone
//!    ├─ Pool::acquire: an idle target of its version, still clean
//!    │    (what arrived while it was idle taken first), whose session
//!    │    none of its chosen ids were used on; else whichever comes first,
//!    │    a target freed by another case or a start slot to start one
//!    │    (over HTTP, with no start slots: at once), the handshake /
//!    │    discover then opened for this case, as alone
//!    ├─ live target: bind the opening's result, check the case's gates
//!    ├─ the case's steps
//!    │    ├─ clean, a case that took the session ──► end the target as
//!    │    │     a case alone ends, then judge (`taken`)
//!    │    ├─ clean (a pass, or not applicable) ──► take what already
//!    │    │     arrived; still clean? back to the pool; else end it
//!    │    ├─ not clean, the session in order ──► settle the verdict,
//!    │    │     back to the pool (`keep`)
//!    │    └─ otherwise ──► end the target as a case alone ends
//!    └─ unclean, on a target it did not start ──► `fresh` again: that
//!                                                  result counts
//! ```
//!
//! Which scenarios share is the scenario's to say ([`Scenario::may_share`],
//! [`Scenario::may_take`]: a case that changes the session's state, say its
//! logging level, may still play on a session others used, which is then
//! ended; `isolate: true`); which runs share is the caller's (`--isolate`,
//! server targets only: see [`shareable`]). Over HTTP no case waits for
//! another to finish: a run opens about as many sessions of a version as
//! it plays cases of that version at once. Over stdio at most `--jobs`
//! processes of a version (two at least) are up for sharing, and a case
//! that finds them all busy waits for one, for a while (`pool::PATIENCE`: a
//! version's targets all held by cases that wait out long windows would
//! otherwise idle the machine). Either way the pool hands each case the
//! target freed last, and keeps at most that many of a version idle.
//!
//! Two shareable cases get a target of their own: one whose chosen ids
//! ([`Scenario::fixed_ids`]) were used on every idle target (an id must not
//! repeat on a session: it starts a fresh target, which then joins the
//! pool), and one whose scenario already came out unclean at another
//! version in this run ([`Learned`]): it would most likely be unclean
//! again, and then cost a shared target and a fresh one besides. Either
//! plays first on a target started for it, which then joins the pool.
//!
//! Per case, nothing of another case leaks in: a case starts on a live
//! session only when the previous one left it *in order* (`in_order`),
//! and it still is, with no violation since, when the case takes it
//! (`idle_clean`): the target alive, every request answered both ways,
//! no answer or request that no step took, every line it wrote JSON-RPC —
//! also after taking what had already arrived. Its oracle findings,
//! transcript and step findings then start empty; request ids keep counting
//! up on the session, so none repeats. Sharing can never cause a false
//! verdict:
//!
//! - a case that did not come out clean (a failure, a warning, an error,
//!   a violation, a target gone) on a target started for an earlier case
//!   is played again first on a target started for it, a fresh process or
//!   a fresh HTTP session (`fresh`), and that result is the one reported
//!   (its transcript says so first);
//! - a case on a target started for it is played exactly as `run_case`
//!   plays it (the same handshake, the same client capabilities — none —,
//!   nothing read after its steps before its verdict but what had already
//!   arrived), and ended as it ends it unless the session is in order, so
//!   its verdict is the one it gets alone and stands;
//! - a clean pass, or a clean not-applicable (a `discover` that found
//!   nothing to test, an `assume` not met), is what the case comes to alone
//!   as well, unless an earlier case changed what the target serves, which
//!   the requests a shared scenario may send do not, whatever the target
//!   answered them (`isolate: true` marks a scenario whose tool calls
//!   might), and a case that only takes a session changes it for nobody
//!   after it; a case alone reads nothing after its steps, and what arrives
//!   after them only decides whether the target goes on (a second answer to
//!   the case's request ends it); a taking case looks at nothing an earlier
//!   case could have caused (no notification, no request from the target:
//!   see `Scenario::may_take`), and is ended as alone before its verdict
//!   (`taken`);
//! - a case that broke a rule but left the session in order hands on a
//!   session whose every request was answered and nothing else pending:
//!   what it found was in the answers, and the next case there is judged
//!   as any case on a used target is (above);
//! - over HTTP a case alone also reads what lands while its session's
//!   DELETE makes its round trip; a shared case's session goes on instead,
//!   and a stray answer that late ends it when the next case would take it
//!   (`idle_clean`), unattributed. Whether an answer that late is read is a
//!   race alone as well, so this moves no verdict a run can rely on;
//! - a `requires` gate is checked against the shared handshake's
//!   capabilities, which every handshake of the target declares alike.

mod pool;

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use mcpspec_engine::Version;
use mcpspec_scenario::Scenario;
use mcpspec_wire::Message;
use serde_json::Value;
use tokio::time::Instant;

pub use pool::Pool;
use pool::{end_all, Held, Seat};

use crate::case::{bind_opening, finish, open_session, play_steps, run_case, settle};
use crate::case::{CaseConfig, Ctx, Stop};
use crate::conn::Conn;
use crate::outcome::{Blame, CaseResult, Outcome, TranscriptLine};
use crate::plan::Case;
use crate::target::Target;

/// A started target with an open session, and what the opening taught.
struct Live {
    conn: Conn,
    /// The session's protocol version.
    version: Version,
    /// The result of the opening request (`init`), bound for every case.
    opening: Arc<Value>,
    tenure: Tenure,
}

/// What a shared target carries from case to case beside its session.
struct Tenure {
    /// The case the process was started for.
    opened_by: String,
    /// Cases played on it so far.
    served: usize,
    /// The ids those cases chose ([`Scenario::fixed_ids`]).
    used: HashSet<String>,
    /// Its place among its version's targets, given up as it ends.
    #[expect(dead_code, reason = "held for its drop, which gives the place up")]
    held: Held,
}

/// What a run has learned about its scenarios: those with a case that
/// did not come out clean (a failure, a warning, an error, blocked). Their
/// other cases play first on a target started for them rather than on one
/// other cases used.
#[derive(Debug, Default)]
pub struct Learned(Mutex<HashSet<String>>);

impl Learned {
    fn unclean(&self, scenario: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(scenario)
    }

    fn note(&self, result: &CaseResult, scenario: &str) {
        if !matches!(
            result.outcome,
            Outcome::Pass | Outcome::NotApplicable { .. }
        ) {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(scenario.to_owned());
        }
    }
}

/// How one case on a shared target came out.
struct Played {
    result: CaseResult,
    /// The target, when the case left it in order for the next.
    live: Option<Live>,
    /// The result stands as it is: the case left the session clean (a pass,
    /// or not applicable), or it ran first on a target started for it,
    /// played as it is alone.
    stands: bool,
}

/// Splits `cases` into those that play on the pool's targets and those
/// that run alone. The pool applies only when `share` (no `--isolate`), to
/// a server target (stdio, Streamable HTTP or legacy SSE; a client under
/// test starts anew for each case), and to cases whose scenario [may share](Scenario::may_share)
/// or [take](Scenario::may_take) a session and that `alone` does not claim
/// (flaky cases under `--retries`, which keep their own retry loop).
pub fn shareable(
    cases: Vec<Case>,
    target: &Target,
    share: bool,
    alone: impl Fn(&Case) -> bool,
) -> (Vec<Case>, Vec<Case>) {
    let server = !matches!(target, Target::Client(_));
    cases.into_iter().partition(|c| {
        share && server && (c.scenario.may_share() || c.scenario.may_take()) && !alone(c)
    })
}

/// How transcripts name a pooled target and a fresh one: a process over
/// stdio, a session over HTTP.
fn nouns(target: &Target) -> (&'static str, &'static str) {
    match target {
        Target::Stdio(_) | Target::Client(_) => ("shared target process", "in a fresh process"),
        Target::Http { .. } | Target::Sse { .. } => ("shared session", "on a fresh session"),
    }
}

/// Plays one case of [`shareable`] on an idle target of `pool`, or on one
/// it starts; the targets its case leaves in order go back to the pool
/// (only after a case that [may share](Scenario::may_share): one that only
/// [takes](Scenario::may_take) a target ends it). A case whose scenario
/// already came out unclean at another version plays in a fresh process
/// ([`Learned`]).
pub async fn run_shared(
    case: &Case,
    cfg: &CaseConfig,
    learned: &Learned,
    pool: &Pool,
) -> CaseResult {
    let result = if learned.unclean(&case.scenario.id) {
        fresh(
            case,
            cfg,
            pool,
            "its scenario came out unclean at another version",
        )
        .await
    } else {
        let seat = pool.acquire(case).await;
        if matches!(seat, Seat::Idle(_)) {
            // An idle target: nothing to start, so no start slot to hold.
            crate::schedule::past_startup();
        }
        one(case, cfg, pool, seat).await
    };
    learned.note(&result, &case.scenario.id);
    end_all(pool.done(case)).await;
    result
}

/// One case on its seat: a verdict that stands is reported; any other is
/// replaced by the case's verdict in a fresh process ([`fresh`]). What
/// the case leaves in order goes back to the pool at once, before that
/// second run, so that other cases can play on it meanwhile.
async fn one(case: &Case, cfg: &CaseConfig, pool: &Pool, seat: Seat) -> CaseResult {
    let Some(Played {
        result,
        live,
        stands,
    }) = timed(case, cfg, seat).await
    else {
        // The target (moved into the dropped future) is killed; the case's
        // verdict is the one it comes to alone.
        return again_alone(case, cfg, "did not finish within its limit").await;
    };
    end_all(pool.put(live.into_iter().collect())).await;
    if stands {
        return result;
    }
    let why = format!(
        "on a {} this case came to: {}",
        nouns(&cfg.target).0,
        result.outcome.as_str()
    );
    fresh(case, cfg, pool, &why).await
}

/// Plays `case` on its seat within the case's limit (its timeout and the
/// start-up allowance): `None` when it did not finish within it.
async fn timed(case: &Case, cfg: &CaseConfig, seat: Seat) -> Option<Played> {
    let started = Instant::now();
    let limit = case.scenario.timeout.unwrap_or(cfg.case_timeout) + cfg.startup_timeout;
    let mut played = tokio::time::timeout(limit, play(case, cfg, seat))
        .await
        .ok()?;
    played.result.duration = started.elapsed();
    Some(played)
}

/// Plays `case` first on a target started for it, a fresh process (or a
/// fresh HTTP session), where it is played exactly as alone, so its
/// verdict stands; the target then joins the pool when the case left it in
/// order. Its transcript opens with why. A case that does not finish
/// within its limit there is run alone ([`run_case`]), which reports that.
async fn fresh(case: &Case, cfg: &CaseConfig, pool: &Pool, why: &str) -> CaseResult {
    let held = pool.place(case.version);
    let Some(Played {
        mut result, live, ..
    }) = timed(case, cfg, Seat::Start(held)).await
    else {
        // Its target is killed with the dropped future; alone, the case
        // reports its own timeout, with its transcript.
        return alone(case, cfg, why).await;
    };
    end_all(pool.put(live.into_iter().collect())).await;
    result.transcript.insert(0, why_line(cfg, why));
    result
}

/// Runs `case` alone in a fresh process, or on a fresh HTTP session
/// (beside the pool's targets); its transcript opens with why.
async fn alone(case: &Case, cfg: &CaseConfig, why: &str) -> CaseResult {
    crate::schedule::restart().await;
    let mut result = run_case(case, cfg).await;
    result.transcript.insert(0, why_line(cfg, why));
    result
}

/// The transcript line that says why a case ran in a fresh process.
fn why_line(cfg: &CaseConfig, why: &str) -> TranscriptLine {
    TranscriptLine {
        at_ms: 0,
        dir: "--",
        text: format!("run alone {}: {why}", nouns(&cfg.target).1),
        transport: cfg.target.transport(),
        raw: None,
    }
}

/// Runs `case` alone again after it came to `shared` on a shared target.
async fn again_alone(case: &Case, cfg: &CaseConfig, shared: &str) -> CaseResult {
    let why = format!("on a {} this case came to: {shared}", nouns(&cfg.target).0);
    alone(case, cfg, &why).await
}

/// Starts a target process for a shared case, on a start slot of the run's
/// scheduler ([`crate::schedule::restart`]).
async fn start(cfg: &CaseConfig) -> Result<mcpspec_transport::Connection, String> {
    crate::schedule::restart().await;
    cfg.target.connect(cfg.max_line, cfg.startup_timeout).await
}

/// Plays one case: on an idle target, or on one started and opened for it.
async fn play(case: &Case, cfg: &CaseConfig, seat: Seat) -> Played {
    let scenario: &Scenario = &case.scenario;
    let mut result = crate::run::skipped(case, Outcome::Pass);
    let fresh = matches!(seat, Seat::Start(_));
    let (conn, opening, tenure) = match seat {
        Seat::Idle(l) => {
            let l = *l;
            (l.conn, Some(l.opening), l.tenure)
        }
        Seat::Start(held) => match start(cfg).await {
            Ok(proc) => {
                let mut conn = Conn::new(proc, case.version, cfg.startup_timeout);
                conn.declare_client_capabilities(scenario.client_capabilities.clone());
                let tenure = Tenure {
                    opened_by: case.id.clone(),
                    served: 0,
                    used: HashSet::new(),
                    held,
                };
                (conn, None, tenure)
            }
            Err(message) => {
                result.outcome = Outcome::Error {
                    blame: Blame::Target,
                    message,
                };
                return Played {
                    result,
                    live: None,
                    stands: true,
                };
            }
        },
    };
    let mut ctx = Ctx::new(conn, case, cfg, None);
    let opened = match &opening {
        None => open_session(&mut ctx).await,
        Some(init) => {
            ctx.conn.note(format!(
                "{}, started for {}: case {} on it",
                nouns(&cfg.target).0,
                tenure.opened_by,
                tenure.served + 1
            ));
            bind_opening(&mut ctx, Arc::clone(init))
        }
    };
    let opening = opening.or_else(|| ctx.vars.get_shared("init"));
    // Only a session whose opening held may go on after a finding: one
    // whose handshake broke a rule is no session to hand on.
    let opened_whole = opened.is_ok();
    let stop = match opened {
        Ok(()) => play_steps(&mut ctx).await,
        Err(Stop::NotApplicable(reason)) if opening.is_some() && clean(&mut ctx) => {
            // A `requires` gate, on capabilities every handshake declares
            // alike: not applicable, as alone.
            result.outcome = Outcome::NotApplicable { reason };
            return hand_on(result, ctx, opening, tenure, fresh).await;
        }
        Err(stop) => Some(stop),
    };
    let settled = match &stop {
        None => Some(Outcome::Pass),
        Some(Stop::NotApplicable(reason)) => Some(Outcome::NotApplicable {
            reason: reason.clone(),
        }),
        Some(_) => None,
    };
    if let Some(outcome) = settled.filter(|_| clean(&mut ctx)) {
        if !scenario.may_share() {
            // A case that took the session: it is ended as the case alone
            // ends it, before the verdict (over HTTP the session's DELETE
            // takes a round trip, in which an answer still owed to a
            // cancelled call may land and is judged, as alone).
            return taken(result, ctx, stop, fresh).await;
        }
        // A pass, or not applicable (nothing found, the session in order):
        // as alone, where nothing more is looked at either.
        result.outcome = outcome;
        return hand_on(result, ctx, opening, tenure, fresh).await;
    }
    let goes_on = opened_whole && scenario.may_share() && goes_on_after(stop.as_ref());
    if let Some(opening) = opening.filter(|_| goes_on) {
        // Not clean, but perhaps in order: the target may still serve
        // the next case ([`keep`]).
        return keep(result, ctx, stop, opening, tenure, fresh).await;
    }
    // Ended exactly as a case alone ends (nothing more read): on a process
    // started for this case, the verdict is the one it gets alone.
    end(result, ctx, stop, fresh).await
}

/// Whether a case whose steps stopped so may leave its target to the next
/// case: when every step ran, or a check failed (a MUST, or what blocked
/// the case's own); never after an error, whoever's.
fn goes_on_after(stop: Option<&Stop>) -> bool {
    matches!(
        stop,
        None | Some(Stop::Failed | Stop::Blocked { .. } | Stop::NotApplicable(_))
    )
}

/// Whether the case left the session clean: no finding of its steps, and
/// the session clean ([`session_clean`]).
fn clean(ctx: &mut Ctx<'_>) -> bool {
    ctx.findings.is_empty() && session_clean(&mut ctx.conn)
}

/// The session in order ([`in_order`]) and no violation on it: as a case
/// that passed leaves it, and as an idle target must still be.
fn session_clean(conn: &mut Conn) -> bool {
    in_order(conn) && conn.violation_count() == 0
}

/// Whether the session is as the next case needs it, whatever the last
/// case's verdict: the target alive, every request answered (both ways),
/// no answer or request received that no step took, every line it wrote
/// a JSON-RPC message, and the transcript whole. The target's
/// notifications no step took are let go: a shared case expects none
/// (`Scenario::may_share`), and the oracle has judged them.
fn in_order(conn: &mut Conn) -> bool {
    while conn
        .take(|m| matches!(m, Message::Notification(_)))
        .is_some()
    {}
    conn.exit().is_none()
        && !conn.flooded()
        && conn.unconsumed() == 0
        && conn.dropped_lines() == 0
        && conn.unreadable().is_none()
        && conn.session().pending().next().is_none()
        && conn.session().peer_requests_pending().next().is_none()
}

/// Whether an idle target is still as its last case left it, after taking
/// what arrived while it waited in the pool (a late answer, noise, an
/// exit). One that is not is ended: what it sent belongs to no case that
/// is still running, as it belongs to none when a case alone has ended.
async fn idle_clean(live: &mut Live) -> bool {
    live.conn.drain_ready().await;
    session_clean(&mut live.conn)
}

/// The case ended clean, as `result` says: the target goes on to the next
/// case, unless what had already arrived since (which the case's steps did
/// not wait for: a second answer, a line of noise after the handshake)
/// leaves it unclean. Then the case is ended as it is alone, where that
/// late traffic is judged too ([`end`]): its violations are the case's
/// findings, never dropped with the process.
async fn hand_on(
    mut result: CaseResult,
    mut ctx: Ctx<'_>,
    opening: Option<Arc<Value>>,
    tenure: Tenure,
    fresh: bool,
) -> Played {
    ctx.conn.drain_ready().await;
    match opening {
        Some(opening) if clean(&mut ctx) => {
            result.transcript = ctx.conn.take_transcript();
            Played {
                result,
                live: Some(go_on(ctx, opening, tenure)),
                stands: true,
            }
        }
        _ => {
            ctx.conn.note(
                "after the case's steps the target sent more than the session expects: \
                 the case is ended as alone, and the next case starts a fresh target",
            );
            let stop = match &result.outcome {
                Outcome::NotApplicable { reason } => Some(Stop::NotApplicable(reason.clone())),
                _ => None,
            };
            end(result, ctx, stop, fresh).await
        }
    }
}

/// The case broke a rule (or was blocked), but left the session in order
/// ([`in_order`], after taking what had already arrived): its verdict is
/// settled as [`end`] settles it, from its steps' findings and the
/// oracle's, without ending the target, which goes on to the next case.
/// What it found was about the answers it got, which do not change what
/// the target serves next, as a pass's requests do not; and the next case
/// there is judged as any case on a target another used (a verdict other
/// than a clean pass is replaced by its verdict in a fresh process). A
/// session not in order is ended as a case alone ends it.
async fn keep(
    mut result: CaseResult,
    mut ctx: Ctx<'_>,
    stop: Option<Stop>,
    opening: Arc<Value>,
    tenure: Tenure,
    fresh: bool,
) -> Played {
    ctx.conn.drain_ready().await;
    if !in_order(&mut ctx.conn) {
        return end(result, ctx, stop, fresh).await;
    }
    let (outcome, findings) = settle(&mut ctx, stop);
    result.outcome = outcome;
    result.findings = findings;
    ctx.conn.note(format!(
        "the session is in order after this case: the {} goes on to the next case",
        nouns(&ctx.cfg.target).0
    ));
    result.transcript = ctx.conn.take_transcript();
    Played {
        result,
        live: Some(go_on(ctx, opening, tenure)),
        stands: fresh,
    }
}

/// The target of a case that is over, for the next case: what the oracle
/// found and left undecided was the case's (its findings hold the
/// violations, so the next case starts with none), and the ids it chose
/// are not to repeat on the session.
fn go_on(mut ctx: Ctx<'_>, opening: Arc<Value>, mut tenure: Tenure) -> Live {
    ctx.conn.case_over();
    tenure.used.extend(ctx.scenario.fixed_ids());
    tenure.served += 1;
    Live {
        version: ctx.version,
        conn: ctx.conn,
        opening,
        tenure,
    }
}

/// A case that [took](Scenario::may_take) the session ended clean: the
/// target is ended as an isolated case's is, and what the ending read
/// decides with the rest. A clean verdict stands (the session was as fresh
/// for the case); anything else stands only on a target started for it.
async fn taken(result: CaseResult, ctx: Ctx<'_>, stop: Option<Stop>, fresh: bool) -> Played {
    let mut played = end(result, ctx, stop, fresh).await;
    let clean = played.result.findings.is_empty()
        && matches!(
            played.result.outcome,
            Outcome::Pass | Outcome::NotApplicable { .. }
        );
    played.stands |= clean;
    played
}

/// The case ended unclean: the target is ended as an isolated case's is,
/// and the findings decide the outcome.
async fn end(mut result: CaseResult, mut ctx: Ctx<'_>, stop: Option<Stop>, stands: bool) -> Played {
    let (outcome, findings) = finish(&mut ctx, stop).await;
    result.outcome = outcome;
    result.findings = findings;
    result.transcript = ctx.conn.take_transcript();
    Played {
        result,
        live: None,
        stands,
    }
}

#[cfg(test)]
mod tests;
