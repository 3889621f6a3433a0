//! Cases that share a stdio target: one process and one initialised
//! session per group of cases of one version, played one after another
//! (issue #18: over stdio the target's start-up dominates a run).
//!
//! ```text
//!  group (one version, every case Scenario::may_share)
//!    ├─ no live target: start it, open the session (handshake / discover)
//!    │    for the case at hand, as the case alone does
//!    ├─ live target: bind the opening's result, check the case's gates
//!    ├─ the case's steps
//!    │    ├─ clean (a pass, or not applicable) ──► take what already
//!    │    │     arrived; still clean? yes: the next case reuses the
//!    │    │     target; no: end it
//!    │    └─ not clean ──► end the target as a case alone ends
//!    └─ unclean, on a target it did not start ──► run again alone
//!                                        (run_case): that result counts
//! ```
//!
//! Which scenarios share is the scenario's to say ([`Scenario::may_share`],
//! `isolate: true`); which runs share is the caller's (`--isolate`, stdio
//! server targets only: see [`partition`]).
//!
//! Two cases of a group run alone instead, beside the live target (which
//! goes on): one whose chosen ids ([`Scenario::fixed_ids`]) an earlier case
//! on the target used (an id must not repeat on a session), and one whose
//! scenario already came out unclean at another version in this run
//! ([`Learned`]): it would most likely be unclean again, and then cost the
//! shared target and a run alone besides.
//!
//! Per case, nothing of another case leaks in: a case starts on a live
//! session only when the previous one left it *clean* (`clean`): no
//! finding of its steps, no violation, every request answered both ways,
//! no answer or request that no step took, the target alive — also after
//! taking what had already arrived. Its oracle findings, transcript and
//! step findings then start empty; request ids keep counting up on the
//! session, so none repeats. Sharing can never cause a false verdict:
//!
//! - a case that did not leave the session clean (a failure, a warning, an
//!   error, a violation, a target gone) on a target started for an earlier
//!   case is run again alone in a fresh process (`run_case`), and that
//!   result is the one reported (its transcript says so first);
//! - a case on a target started for it is played, and ended, exactly as
//!   `run_case` plays and ends it (the same handshake, the same client
//!   capabilities — none —, nothing read after its steps before its
//!   verdict), so its verdict is the one it gets alone and stands;
//! - a clean pass, or a clean not-applicable (a `discover` that found
//!   nothing to test, an `assume` not met), is what the case comes to alone
//!   as well, unless an earlier case changed what the target serves, which
//!   the requests a shared scenario may send do not (`isolate: true` marks
//!   a scenario whose tool calls might); a case alone reads nothing after
//!   its steps, and what arrives after them only decides whether the
//!   target goes on (a second answer to the case's request ends it);
//! - a `requires` gate is checked against the shared handshake's
//!   capabilities, which every handshake of the target declares alike.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcpspec_scenario::Scenario;
use mcpspec_wire::Message;
use serde_json::Value;
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
    /// The result of the opening request (`init`), bound for every case.
    opening: Value,
    /// The case the process was started for.
    opened_by: String,
    /// Cases played on it so far.
    served: usize,
    /// The ids those cases chose ([`Scenario::fixed_ids`]).
    used: HashSet<String>,
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

/// What a shared case is reckoned to hold its group for beyond its declared
/// waits: its own requests, and now and then a run alone (a group plays its
/// cases one after another, runs alone included).
const PER_CASE: Duration = Duration::from_millis(100);

/// A group is cut to about this much expected work (or the longest case's,
/// when that is longer): a shared target saves start-ups, but a group is
/// serial, and one long group would become the run's critical path.
const GROUP_SPAN: Duration = Duration::from_secs(4);

/// Splits `cases` into groups that share a target (each of one version, in
/// the given order) and cases that run alone. Sharing applies only when
/// `share` (no `--isolate`), to a stdio server target, and to cases whose
/// scenario [may share](Scenario::may_share) and that `alone` does not claim
/// (flaky cases under `--retries`). Each version's cases are dealt into at
/// least `per_version` groups (so that `--jobs` stays busy), and into more
/// when their expected work (`estimate`, plus [`PER_CASE`]) exceeds
/// [`GROUP_SPAN`] per group; each case goes to the group with the least
/// work so far.
pub fn partition(
    cases: Vec<Case>,
    target: &Target,
    share: bool,
    per_version: usize,
    alone: impl Fn(&Case) -> bool,
    estimate: impl Fn(&Case) -> Duration,
) -> (Vec<Vec<Case>>, Vec<Case>) {
    let stdio_server = matches!(target, Target::Stdio(_));
    let (shared, single): (Vec<Case>, Vec<Case>) = cases
        .into_iter()
        .partition(|c| share && stdio_server && c.scenario.may_share() && !alone(c));
    let mut versions: Vec<_> = shared.iter().map(|c| c.version).collect();
    versions.sort();
    versions.dedup();
    let mut groups = Vec::new();
    let n_versions = versions.len();
    for (k, v) in versions.into_iter().enumerate() {
        let mut of_v: Vec<Case> = shared.iter().filter(|c| c.version == v).cloned().collect();
        // Each version starts its round at another point of the corpus, so
        // that when a scenario comes out unclean at one version the others
        // mostly reach it later, and run it alone ([`Learned`]) rather than
        // lose their shared target to it too.
        let len = of_v.len();
        of_v.rotate_left(len * k / n_versions);
        let work: Vec<Duration> = of_v.iter().map(|c| estimate(c) + PER_CASE).collect();
        let span = work
            .iter()
            .copied()
            .max()
            .unwrap_or_default()
            .max(GROUP_SPAN);
        let total: Duration = work.iter().sum();
        let needed = total.as_millis().div_ceil(span.as_millis().max(1));
        let n = per_version
            .max(usize::try_from(needed).unwrap_or(usize::MAX))
            .clamp(1, len.max(1));
        let mut dealt: Vec<(Duration, Vec<Case>)> = vec![(Duration::ZERO, Vec::new()); n];
        for (c, w) in of_v.into_iter().zip(work) {
            // The lightest group so far; `n >= 1`, so there is one.
            if let Some(g) = dealt.iter_mut().min_by_key(|(load, _)| *load) {
                g.0 += w;
                g.1.push(c);
            }
        }
        groups.extend(dealt.into_iter().map(|(_, g)| g).filter(|g| !g.is_empty()));
    }
    (groups, single)
}

/// Plays `cases` (one version, every one [shareable](Scenario::may_share))
/// on as few target processes as their outcomes allow, handing each
/// case's result to `done` as it finishes, in order.
pub async fn run_group(
    cases: &[Case],
    cfg: &Arc<CaseConfig>,
    learned: &Learned,
    mut done: impl FnMut(CaseResult),
) {
    let mut live: Option<Live> = None;
    for case in cases {
        let result = match &live {
            Some(l)
                if case
                    .scenario
                    .fixed_ids()
                    .iter()
                    .any(|id| l.used.contains(id)) =>
            {
                alone(
                    case,
                    cfg,
                    "an earlier case on the shared target used its ids",
                )
                .await
            }
            Some(_) if learned.unclean(&case.scenario.id) => {
                alone(
                    case,
                    cfg,
                    "its scenario came out unclean at another version",
                )
                .await
            }
            _ => one(case, cfg, &mut live).await,
        };
        learned.note(&result, &case.scenario.id);
        done(result);
    }
    if let Some(mut l) = live {
        l.conn.end().await;
    }
}

/// One case on the group's target (starting one when there is none).
async fn one(case: &Case, cfg: &CaseConfig, live: &mut Option<Live>) -> CaseResult {
    let started = Instant::now();
    let limit = case.scenario.timeout.unwrap_or(cfg.case_timeout) + cfg.startup_timeout;
    let played = tokio::time::timeout(limit, play(case, cfg, live.take())).await;
    let Ok(Played {
        mut result,
        live: next,
        stands,
    }) = played
    else {
        // The target (moved into the dropped future) is killed; the case's
        // verdict is the one it comes to alone.
        return again_alone(case, cfg, "did not finish within its limit").await;
    };
    *live = next;
    result.duration = started.elapsed();
    if stands {
        return result;
    }
    again_alone(case, cfg, result.outcome.as_str()).await
}

/// Runs `case` alone in a fresh process (beside the group's live target,
/// if there is one); its transcript opens with why.
async fn alone(case: &Case, cfg: &CaseConfig, why: &str) -> CaseResult {
    crate::schedule::restart().await;
    let mut result = run_case(case, cfg).await;
    result.transcript.insert(
        0,
        TranscriptLine {
            at_ms: 0,
            dir: "--",
            text: format!("run alone in a fresh process: {why}"),
            transport: "stdio",
            raw: None,
        },
    );
    result
}

/// Runs `case` alone again after it came to `shared` on a shared target.
async fn again_alone(case: &Case, cfg: &CaseConfig, shared: &str) -> CaseResult {
    let why = format!("on a shared target process this case came to: {shared}");
    alone(case, cfg, &why).await
}

/// Starts a target process for the group, on a start slot of the run's
/// scheduler ([`crate::schedule::restart`]).
async fn start(cfg: &CaseConfig) -> Result<mcpspec_transport::Connection, String> {
    crate::schedule::restart().await;
    cfg.target.connect(cfg.max_line, cfg.startup_timeout).await
}

/// Plays one case: on `live`, or on a target started and opened for it.
async fn play(case: &Case, cfg: &CaseConfig, live: Option<Live>) -> Played {
    let scenario: &Scenario = &case.scenario;
    let mut result = crate::run::skipped(case, Outcome::Pass);
    let fresh = live.is_none();
    let (conn, opening, opened_by, served, used) = match live {
        Some(l) => (l.conn, Some(l.opening), l.opened_by, l.served, l.used),
        None => match start(cfg).await {
            Ok(proc) => {
                let mut conn = Conn::new(proc, case.version, cfg.startup_timeout);
                conn.declare_client_capabilities(scenario.client_capabilities.clone());
                (conn, None, case.id.clone(), 0, HashSet::new())
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
                "shared target process, started for {opened_by}: case {} on it",
                served + 1
            ));
            bind_opening(&mut ctx, init.clone())
        }
    };
    let opening = opening.or_else(|| ctx.vars.get("init").cloned());
    let stop = match opened {
        Ok(()) => play_steps(&mut ctx).await,
        Err(Stop::NotApplicable(reason)) if opening.is_some() && clean(&mut ctx) => {
            // A `requires` gate, on capabilities every handshake declares
            // alike: not applicable, as alone.
            result.outcome = Outcome::NotApplicable { reason };
            return hand_on(result, ctx, opening, (opened_by, served, used), fresh).await;
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
        // A pass, or not applicable (nothing found, the session in order):
        // as alone, where nothing more is looked at either.
        result.outcome = outcome;
        return hand_on(result, ctx, opening, (opened_by, served, used), fresh).await;
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
    while ctx
        .conn
        .take(|m| matches!(m, Message::Notification(_)))
        .is_some()
    {}
    ctx.findings.is_empty()
        && ctx.conn.violation_count() == 0
        && ctx.conn.exit().is_none()
        && ctx.conn.unconsumed() == 0
        && ctx.conn.dropped_lines() == 0
        && ctx.conn.session().pending().next().is_none()
        && ctx.conn.session().peer_requests_pending().next().is_none()
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
    opening: Option<Value>,
    (opened_by, served, mut used): (String, usize, HashSet<String>),
    fresh: bool,
) -> Played {
    ctx.conn.drain_ready().await;
    match opening {
        Some(opening) if clean(&mut ctx) => {
            result.transcript = ctx.conn.take_transcript();
            used.extend(ctx.scenario.fixed_ids());
            Played {
                result,
                live: Some(Live {
                    conn: ctx.conn,
                    opening,
                    opened_by,
                    served: served + 1,
                    used,
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
mod tests {
    use super::*;
    use mcpspec_engine::Version;
    use mcpspec_transport::{CommandSpec, HttpOptions};

    fn scenario(id: &str, steps: &str) -> Arc<Scenario> {
        let text = format!(
            "id: {id}\ntitle: t\nrequirements: [ping.respond]\nlevel: must\nsteps:\n{steps}"
        );
        Arc::new(mcpspec_scenario::parse("x.yaml", &text).unwrap_or_else(|e| panic!("{e}")))
    }

    fn cases() -> Vec<Case> {
        let plain = scenario("server/a", "  - send: { method: ping }\n");
        let silent = scenario(
            "server/b",
            "  - sleep: 10ms\n    why: a timed step shares nothing\n",
        );
        let other = scenario("server/c", "  - send: { method: tools/list }\n");
        let mut out = Vec::new();
        for v in [Version::ALL[0], Version::ALL[1]] {
            for s in [&plain, &silent, &other] {
                out.push(Case {
                    id: s.case_id(v),
                    scenario: Arc::clone(s),
                    version: v,
                });
            }
        }
        out
    }

    fn stdio() -> Target {
        Target::Stdio(CommandSpec::new("true", Vec::<String>::new()))
    }

    fn ids(cases: &[Case]) -> Vec<&str> {
        cases.iter().map(|c| c.id.as_str()).collect()
    }

    #[test]
    fn shareable_cases_group_by_version_and_the_rest_run_alone() {
        let (groups, alone) = partition(cases(), &stdio(), true, 1, |_| false, |_| Duration::ZERO);
        assert_eq!(groups.len(), 2);
        for g in &groups {
            assert_eq!(g.len(), 2);
            assert!(g.iter().all(|c| c.version == g[0].version));
            assert!(g.iter().all(|c| c.scenario.may_share()));
        }
        assert_eq!(alone.len(), 2);
        assert!(ids(&alone).iter().all(|id| id.starts_with("server/b@")));
        // Each version starts its round elsewhere in the corpus.
        assert_ne!(groups[0][0].scenario.id, groups[1][0].scenario.id);
        // Dealt into at most `per_version` groups each.
        let (groups, _) = partition(cases(), &stdio(), true, 2, |_| false, |_| Duration::ZERO);
        assert_eq!(groups.len(), 4);
        assert!(groups.iter().all(|g| g.len() == 1));
        // Long expected work is cut into more groups, not one serial one.
        let (groups, _) = partition(
            cases(),
            &stdio(),
            true,
            1,
            |_| false,
            |_| Duration::from_secs(3),
        );
        assert_eq!(groups.len(), 4);
    }

    #[test]
    fn isolate_http_targets_and_claimed_cases_share_nothing() {
        let (groups, alone) = partition(cases(), &stdio(), false, 1, |_| false, |_| Duration::ZERO);
        assert!(groups.is_empty());
        assert_eq!(alone.len(), 6);
        let http = Target::Http {
            url: "http://127.0.0.1:1/mcp".to_owned(),
            options: HttpOptions::default(),
        };
        let (groups, alone) = partition(cases(), &http, true, 1, |_| false, |_| Duration::ZERO);
        assert!(groups.is_empty());
        assert_eq!(alone.len(), 6);
        // Flaky cases under --retries keep their own retry loop.
        let (groups, alone) = partition(
            cases(),
            &stdio(),
            true,
            1,
            |c| c.scenario.id == "server/a",
            |_| Duration::ZERO,
        );
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 2);
        assert_eq!(alone.len(), 4);
    }
}
