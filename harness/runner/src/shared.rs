//! Cases that share a server target: a pool of started targets (stdio
//! processes, or HTTP sessions), each with an initialised session of one
//! version, that cases take, play their steps on, and give back when they
//! leave it clean (issue #18: over stdio the target's start-up dominates a
//! run; over HTTP a session's handshake and end are three of a case's
//! requests, and the target's throughput bounds the run).
//!
//! ```text
//!  a case that may share (Scenario::may_share) or take (Scenario::may_take)
//!  a session, admitted on a live slot
//!    ├─ its scenario came out unclean at another version ──► run alone
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
//!    │    └─ not clean ──► end the target as a case alone ends
//!    └─ unclean, on a target it did not start ──► run again alone
//!                                        (run_case): that result counts
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
//! that finds them all busy waits for one ([`Pool`]). Either way the pool
//! hands each case the target freed last.
//!
//! Two shareable cases get a target of their own: one whose chosen ids
//! ([`Scenario::fixed_ids`]) were used on every idle target (an id must not
//! repeat on a session: it starts a fresh target, which then joins the
//! pool), and one whose scenario already came out unclean at another
//! version in this run ([`Learned`]): it would most likely be unclean
//! again, and then cost a shared target and a run alone besides (it runs
//! alone).
//!
//! Per case, nothing of another case leaks in: a case starts on a live
//! session only when the previous one left it *clean* (`clean`), and it
//! still is when the case takes it (`idle_clean`): no
//! finding of its steps, no violation, every request answered both ways,
//! no answer or request that no step took, the target alive — also after
//! taking what had already arrived. Its oracle findings, transcript and
//! step findings then start empty; request ids keep counting up on the
//! session, so none repeats. Sharing can never cause a false verdict:
//!
//! - a case that did not leave the session clean (a failure, a warning, an
//!   error, a violation, a target gone) on a target started for an earlier
//!   case is run again alone in a fresh process, or on a fresh HTTP session
//!   (`run_case`), and that result is the one reported (its transcript says
//!   so first);
//! - a case on a target started for it is played, and ended, exactly as
//!   `run_case` plays and ends it (the same handshake, the same client
//!   capabilities — none —, nothing read after its steps before its
//!   verdict), so its verdict is the one it gets alone and stands;
//! - a clean pass, or a clean not-applicable (a `discover` that found
//!   nothing to test, an `assume` not met), is what the case comes to alone
//!   as well, unless an earlier case changed what the target serves, which
//!   the requests a shared scenario may send do not (`isolate: true` marks
//!   a scenario whose tool calls might), and a case that only takes a
//!   session changes it for nobody after it; a case alone reads nothing
//!   after its steps, and what arrives after them only decides whether the
//!   target goes on (a second answer to the case's request ends it); a
//!   taking case looks at nothing an earlier case could have caused (no
//!   notification, no request from the target: see `Scenario::may_take`),
//!   and is ended as alone before its verdict (`taken`);
//! - over HTTP a case alone also reads what lands while its session's
//!   DELETE makes its round trip; a shared case's session goes on instead,
//!   and a stray answer that late ends it when the next case would take it
//!   (`idle_clean`), unattributed. Whether an answer that late is read is a
//!   race alone as well, so this moves no verdict a run can rely on;
//! - a `requires` gate is checked against the shared handshake's
//!   capabilities, which every handshake of the target declares alike.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use mcpspec_engine::Version;
use mcpspec_scenario::Scenario;
use mcpspec_wire::Message;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::case::{bind_opening, finish, open_session, play_steps, run_case};
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
/// other cases run alone rather than on a shared target.
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

/// Where a shared case plays: on an idle target, or on one it starts,
/// holding the place that target takes among its version's.
enum Seat {
    Idle(Box<Live>),
    Start(Held),
}

/// A shared target's place in its version's count ([`Pool::new`]'s
/// `per_version`), from the moment a case may start it until it ends:
/// dropping it gives the place back and wakes the cases waiting for one.
struct Held {
    pool: Arc<Inner>,
    version: Version,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(n) = self.pool.state().up.get_mut(&self.version) {
            *n = n.saturating_sub(1);
        }
        self.pool.freed.notify_waiters();
    }
}

/// How one case on a shared target came out.
struct Played {
    result: CaseResult,
    /// The target, when the case left it clean for the next.
    live: Option<Live>,
    /// The result stands as it is: the case left the session clean (a pass,
    /// or not applicable), or it ran on a process started for it and was
    /// ended as it is alone.
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

/// The idle shared targets of a run, each with an open session of its
/// version, and what is still to come of each version.
///
/// A shared case takes an idle target of its version whose session its
/// chosen ids do not repeat on, the one freed last (warm) first; when there
/// is none it waits for whichever comes first, a target freed by another
/// case or a start slot to start its own ([`crate::schedule::start_or`]).
///
/// At most `per_version` targets of a version are up at once (idle, in a
/// case's hands, or starting); a case that finds them all busy waits for
/// one to be freed. Over stdio that is `--jobs`, at least two: a target's
/// start-up is the CPU a run spends and sharing exists to save it, while a
/// version's shared cases are mostly short requests, which a few targets
/// serve one after another. (Unbounded, a case that found none idle raced
/// a start slot against a freed target, and against a target that starts
/// fast the slot often came first: a start-up for a case an open target
/// could have served.) Over HTTP, where a session costs a request, there
/// is no such bound, and no case waits on another's turn. A case with
/// chosen ids ([`Scenario::fixed_ids`]) may start one beyond the bound:
/// every target up may have used its ids, and it would wait for ever. A
/// target freed when no case of its version is left to come is ended at
/// once; at most `cap` wait idle (the oldest goes first), and
/// [`Pool::close`] ends the rest.
pub struct Pool(Arc<Inner>);

struct Inner {
    state: Mutex<PoolState>,
    freed: Notify,
}

impl Inner {
    fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

struct PoolState {
    /// Oldest first.
    idle: Vec<Live>,
    /// Cases of each version not yet finished that hand targets on
    /// ([`Scenario::may_share`]).
    to_come: HashMap<Version, usize>,
    cap: usize,
    /// Targets of each version up or starting ([`Held`]).
    up: HashMap<Version, usize>,
    per_version: usize,
}

impl Pool {
    /// A pool for `cases` (those [`shareable`] gave), keeping at most `cap`
    /// idle (0: every target freed is ended, and each case opens its own),
    /// and up to `per_version` targets of a version up at once.
    pub fn new(cases: &[Case], cap: usize, per_version: usize) -> Self {
        let mut to_come = HashMap::new();
        for c in cases.iter().filter(|c| c.scenario.may_share()) {
            *to_come.entry(c.version).or_insert(0) += 1;
        }
        Pool(Arc::new(Inner {
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                to_come,
                cap,
                up: HashMap::new(),
                per_version: per_version.max(1),
            }),
            freed: Notify::new(),
        }))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.0.state()
    }

    /// A place for a target of `version`: below the bound, or beyond it
    /// when not `bounded`.
    fn reserve(&self, version: Version, bounded: bool) -> Option<Held> {
        let mut st = self.state();
        let per_version = st.per_version;
        let up = st.up.entry(version).or_insert(0);
        if bounded && *up >= per_version {
            return None;
        }
        *up += 1;
        Some(Held {
            pool: Arc::clone(&self.0),
            version,
        })
    }

    fn full(&self, version: Version) -> bool {
        let st = self.state();
        st.up.get(&version).is_some_and(|n| *n >= st.per_version)
    }

    /// The idle target of `case`'s version freed last whose session none of
    /// the case's chosen ids were used on.
    fn take(&self, case: &Case) -> Option<Live> {
        let ids = case.scenario.fixed_ids();
        let mut st = self.state();
        let at = st.idle.iter().rposition(|l| {
            l.version == case.version && !ids.iter().any(|id| l.tenure.used.contains(id))
        })?;
        Some(st.idle.remove(at))
    }

    /// Where to play `case`: an idle target, or a place to start one once
    /// the case holds a start slot.
    async fn acquire(&self, case: &Case) -> Seat {
        let bounded = case.scenario.fixed_ids().is_empty();
        loop {
            // Registered before looking, so a target freed in between wakes it.
            let freed = self.0.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Some(mut live) = self.take(case) {
                if idle_clean(&mut live).await {
                    return Seat::Idle(Box::new(live));
                }
                live.conn.end().await;
                continue;
            }
            if bounded && self.full(case.version) {
                freed.await;
                continue;
            }
            if crate::schedule::start_or(freed).await.is_some() {
                continue;
            }
            if let Some(held) = self.reserve(case.version, bounded) {
                return Seat::Start(held);
            }
            // The places filled while it waited for the slot: give it back.
            crate::schedule::past_startup();
        }
    }

    /// `case` (one that [may share](Scenario::may_share)) is done with the
    /// pool, leaving `live` (when clean): kept for the next case of its
    /// version, or handed back to be ended.
    fn release(&self, case: &Case, live: Option<Live>) -> Vec<Live> {
        let mut st = self.state();
        let left = st.to_come.entry(case.version).or_insert(0);
        *left = left.saturating_sub(1);
        let none_to_come = *left == 0;
        let mut ended = Vec::new();
        match live {
            Some(l) if none_to_come => ended.push(l),
            Some(l) => st.idle.push(l),
            None => {}
        }
        // Every idle target of a version with nothing more to come.
        let (done, keep): (Vec<Live>, Vec<Live>) = std::mem::take(&mut st.idle)
            .into_iter()
            .partition(|l| st.to_come.get(&l.version).is_none_or(|n| *n == 0));
        st.idle = keep;
        ended.extend(done);
        let over = st.idle.len().saturating_sub(st.cap);
        ended.extend(st.idle.drain(..over));
        drop(st);
        self.0.freed.notify_waiters();
        ended
    }

    /// Ends every idle target (the run is over).
    pub async fn close(&self) {
        let idle = std::mem::take(&mut self.state().idle);
        end_all(idle).await;
    }
}

async fn end_all(targets: Vec<Live>) {
    for mut l in targets {
        l.conn.end().await;
    }
}

/// Plays one case of [`shareable`] on an idle target of `pool`, or on one
/// it starts; the target goes back to the pool when the case left it clean
/// and [may share](Scenario::may_share), and is ended after a case that
/// only [takes](Scenario::may_take) it. A case whose scenario already came
/// out unclean at another version runs alone ([`Learned`]).
pub async fn run_shared(
    case: &Case,
    cfg: &CaseConfig,
    learned: &Learned,
    pool: &Pool,
) -> CaseResult {
    let (result, live) = if learned.unclean(&case.scenario.id) {
        let r = alone(
            case,
            cfg,
            "its scenario came out unclean at another version",
        )
        .await;
        (r, None)
    } else {
        let seat = pool.acquire(case).await;
        if matches!(seat, Seat::Idle(_)) {
            // An idle target: nothing to start, so no start slot to hold.
            crate::schedule::past_startup();
        }
        one(case, cfg, seat).await
    };
    learned.note(&result, &case.scenario.id);
    if case.scenario.may_share() {
        end_all(pool.release(case, live)).await;
    } else {
        end_all(live.into_iter().collect()).await;
    }
    result
}

/// One case on its seat, and the target it leaves clean for the next.
async fn one(case: &Case, cfg: &CaseConfig, seat: Seat) -> (CaseResult, Option<Live>) {
    let started = Instant::now();
    let limit = case.scenario.timeout.unwrap_or(cfg.case_timeout) + cfg.startup_timeout;
    let played = tokio::time::timeout(limit, play(case, cfg, seat)).await;
    let Ok(Played {
        mut result,
        live,
        stands,
    }) = played
    else {
        // The target (moved into the dropped future) is killed; the case's
        // verdict is the one it comes to alone.
        let r = again_alone(case, cfg, "did not finish within its limit").await;
        return (r, None);
    };
    result.duration = started.elapsed();
    if stands {
        return (result, live);
    }
    (again_alone(case, cfg, result.outcome.as_str()).await, live)
}

/// Runs `case` alone in a fresh process, or on a fresh HTTP session
/// (beside the pool's targets); its transcript opens with why.
async fn alone(case: &Case, cfg: &CaseConfig, why: &str) -> CaseResult {
    crate::schedule::restart().await;
    let mut result = run_case(case, cfg).await;
    result.transcript.insert(
        0,
        TranscriptLine {
            at_ms: 0,
            dir: "--",
            text: format!("run alone {}: {why}", nouns(&cfg.target).1),
            transport: cfg.target.transport(),
            raw: None,
        },
    );
    result
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
    // Ended exactly as a case alone ends (nothing more read): on a process
    // started for this case, the verdict is the one it gets alone.
    end(result, ctx, stop, fresh).await
}

/// Whether the case left the session as the next case needs it: no finding
/// of its steps, no violation, the target alive, every request answered
/// (both ways), no answer or request received that no step took. The
/// target's notifications no step took are let go: a shared case expects
/// none (`Scenario::may_share`), and the oracle has judged them.
fn clean(ctx: &mut Ctx<'_>) -> bool {
    ctx.findings.is_empty() && session_clean(&mut ctx.conn)
}

/// [`clean`] on the session alone (the notifications no step took let go).
fn session_clean(conn: &mut Conn) -> bool {
    while conn
        .take(|m| matches!(m, Message::Notification(_)))
        .is_some()
    {}
    conn.violation_count() == 0
        && conn.exit().is_none()
        && conn.unconsumed() == 0
        && conn.dropped_lines() == 0
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
    mut tenure: Tenure,
    fresh: bool,
) -> Played {
    ctx.conn.drain_ready().await;
    match opening {
        Some(opening) if clean(&mut ctx) => {
            result.transcript = ctx.conn.take_transcript();
            ctx.conn.case_over();
            tenure.used.extend(ctx.scenario.fixed_ids());
            tenure.served += 1;
            Played {
                result,
                live: Some(Live {
                    version: ctx.version,
                    conn: ctx.conn,
                    opening,
                    tenure,
                }),
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
