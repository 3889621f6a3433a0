//! Running a plan: probe which versions the target offers, then play every
//! case in parallel, streaming [`Event`]s to the reporters.
//!
//! Cases start slowest expected first and hold what [`crate::schedule`]
//! hands out: a start slot (`jobs`) only while a process target starts, a
//! live slot (`live`, or over HTTP the target's connection limit) while
//! they run. Cases are admitted one at a time, in that order, by this
//! loop, so the order holds whatever the tasks' timing.
//!
//! Cases that may share a stdio target (unless `--isolate`) take started
//! targets from a pool ([`crate::shared`]): they are admitted on a live
//! slot alone and wait for a start slot only when no idle target of their
//! version is free. Every unit sends its result as it finishes.
//!
//! The probe is one short handshake per version. A version the target answers
//! with another version is not offered, and its cases are not applicable
//! without starting the target again. A target that negotiates no version at
//! all — it cannot be started or reached, dies, writes no JSON-RPC, or
//! offers none of the selected versions — is [`Summary::unavailable`]: the
//! run says so once, with what the target said (its stderr tail, its first
//! unreadable line), runs no case, and exits [`Exit::TargetUnavailable`] —
//! within the start-up timeout, never a hang, never a false "conforming".
//!
//! [`run_until`] also takes a stop signal (the CLI's Ctrl-C): when it fires,
//! no case starts any more, every running case task (and probe) is aborted
//! and awaited, so its future — and with it the target process group or
//! HTTP session — is dropped before the run returns; the reporters get
//! [`Event::Interrupted`], then `RunFinished` over the finished cases.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_model::Exit;
use mcpspec_wire::Message;
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::case::{is_response_to, CaseConfig};
use crate::conn::Conn;
use crate::event::{Event, Reporter};
use crate::outcome::{Blame, CaseResult, Outcome, Summary};
use crate::plan::Case;

#[derive(Debug, Clone)]
pub struct RunConfig {
    pub case: CaseConfig,
    pub jobs: usize,
    pub strict: bool,
    /// What the caller already learnt of the target's versions (a client,
    /// started once by `client::probe_client`): no probe runs, and cases at
    /// a version the map does not call supported are not applicable. `None`:
    /// probe a server; run every case of a client (a counter-offer).
    pub offers: Option<BTreeMap<Version, Offer>>,
    /// `--fail-fast`: the first finished case this calls a failure stops
    /// the run (no case starts any more, the running ones are cancelled).
    pub fail_fast: Option<FailFast>,
    /// The opt-in extensions asked for (`--extension`): a case of any other
    /// extension is not applicable, and is not even probed for.
    pub extensions: Vec<&'static str>,
    /// `--retries N` for the cases the caller calls flaky.
    pub retries: Option<Retries>,
    /// `--isolate`: every case starts its own target process; otherwise
    /// the cases that may share a stdio target do ([`crate::shared`]).
    pub isolate: bool,
    /// How many cases of a process target may be live at once, waiting
    /// or starting (`None`: [`crate::schedule::default_live`]). An HTTP
    /// target's bound is its connection limit (`HttpOptions::limit`).
    pub live: Option<usize>,
    /// A previous run's measured durations, which order the cases
    /// (slowest first) where the scenarios' declared waits would.
    pub history: crate::schedule::History,
}

mod retries;
use retries::run_attempts;
pub use retries::{IsFlaky, Retries};

/// Which finished case stops a `--fail-fast` run (the caller's rule: the
/// CLI's asks its baseline, so an expected failure does not stop it).
#[derive(Clone)]
pub struct FailFast(pub Arc<dyn Fn(&CaseResult) -> bool + Send + Sync>);

impl std::fmt::Debug for FailFast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FailFast(..)")
    }
}

/// The reason a `--fail-fast` run gives for stopping.
pub const FAIL_FAST: &str = "--fail-fast: a case failed";

/// What the probe learnt about one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    Supported,
    /// The target answered with another version.
    Other(String),
    /// The target wrote something, but no valid answer to initialize: the
    /// cases run, and judge what it says.
    Unclear(String),
    /// The target could not be started or said nothing at all; the text says why.
    Broken(String),
}

/// Why a run stopped before its end, and the exit code that comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// E.g. `SIGINT`.
    pub reason: String,
    pub exit: Exit,
}

/// Runs `cases` against the target and returns the totals.
pub async fn run(cases: Vec<Case>, cfg: RunConfig, reporters: &mut [&mut dyn Reporter]) -> Summary {
    run_until(cases, cfg, reporters, std::future::pending())
        .await
        .0
}

/// [`run`], stopped early when `stop` completes: the totals of the cases
/// that finished, and the stop, if it came.
pub async fn run_until(
    cases: Vec<Case>,
    cfg: RunConfig,
    reporters: &mut [&mut dyn Reporter],
    stop: impl Future<Output = Stop>,
) -> (Summary, Option<Stop>) {
    let mut stop = std::pin::pin!(stop);
    let mut stopped: Option<Stop> = None;
    let started = Instant::now();
    let emit = |reporters: &mut [&mut dyn Reporter], e: Event| {
        for r in reporters.iter_mut() {
            r.event(&e);
        }
    };
    emit(
        reporters,
        Event::RunStarted {
            target: cfg.case.target.display(),
            cases: cases.len(),
            jobs: cfg.jobs,
        },
    );

    // A client is probed by the caller (`client::probe_client`), once.
    let mut versions: Vec<Version> = if cfg.case.target.is_client() || cfg.offers.is_some() {
        Vec::new()
    } else {
        cases
            .iter()
            .filter(|c| extension_off(c, &cfg.extensions).is_none())
            .map(|c| c.version)
            .collect()
    };
    versions.sort();
    versions.dedup();
    let mut probes = JoinSet::new();
    let offers = tokio::select! {
        offers = probe_all(&mut probes, &versions, &cfg.case, cfg.jobs) => {
            cfg.offers.clone().unwrap_or(offers)
        }
        s = &mut stop => {
            stopped = Some(s);
            BTreeMap::new()
        }
    };
    shut_down(&mut probes).await;
    if let Some(s) = &stopped {
        emit(
            reporters,
            Event::Interrupted {
                reason: s.reason.clone(),
                exit: s.exit,
            },
        );
    }
    for (v, offer) in &offers {
        let (supported, detail) = match offer {
            Offer::Supported => (true, format!("answered {v}")),
            Offer::Other(o) => (false, format!("answered {o:?}")),
            Offer::Unclear(why) => (true, format!("unclear, running its cases: {why}")),
            Offer::Broken(why) => (false, why.clone()),
        };
        emit(
            reporters,
            Event::Probe {
                version: *v,
                supported,
                detail,
            },
        );
    }
    let mut summary = Summary {
        unavailable: unavailable(&offers),
        ..Summary::default()
    };
    let slots = crate::schedule::for_target(&cfg.case.target, cfg.jobs, cfg.live);
    let case_cfg = Arc::new(cfg.case.clone());
    let mut tasks: JoinSet<()> = JoinSet::new();
    let mut runnable = Vec::new();
    let retries = cfg.retries.clone();
    // What the shared cases learn: a scenario unclean at one version runs alone at the others.
    let learned = Arc::new(crate::shared::Learned::default());
    // Stopped during the probe, or nothing to run against: no case is
    // started (an unavailable target is said once, not once per case).
    let cases = if stopped.is_some() || summary.unavailable.is_some() {
        Vec::new()
    } else {
        cases
    };
    for case in cases {
        let before = extension_off(&case, &cfg.extensions)
            .or_else(|| outcome_before_run(case.version, &offers));
        if let Some(outcome) = before {
            let result = skipped(&case, outcome);
            emit(
                reporters,
                Event::CaseStarted {
                    id: case.id.clone(),
                },
            );
            summary.add(&result.outcome);
            emit(reporters, Event::CaseFinished(Box::new(result)));
            continue;
        }
        runnable.push(case);
    }
    let (mut queue, pool) = units(
        runnable,
        &cfg,
        slots.idle_bound(),
        slots.targets_per_version(),
    );
    let pool = Arc::new(pool);
    // Every unit sends its case's result as it finishes;
    // the loop's sender goes once no unit is left to admit.
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
    let mut done = (!queue.is_empty()).then_some(done);
    loop {
        let received = tokio::select! {
            biased;
            s = &mut stop, if stopped.is_none() => {
                // No case starts any more; the running ones are dropped
                // (their targets killed) as the aborted tasks are joined.
                queue.clear();
                done = None;
                tasks.abort_all();
                emit(
                    reporters,
                    Event::Interrupted {
                        reason: s.reason.clone(),
                        exit: s.exit,
                    },
                );
                stopped = Some(s);
                continue;
            }
            // A finished case frees slots: report it before admitting more.
            received = finished.recv() => received,
            admission = admit(&slots, queue.front()), if !queue.is_empty() => {
                if let (Some(unit), Some(tx)) = (queue.pop_front(), done.as_ref()) {
                    let (case_cfg, retries, tx) = (case_cfg.clone(), retries.clone(), tx.clone());
                    let (learned, pool) = (Arc::clone(&learned), Arc::clone(&pool));
                    tasks.spawn(admission.scope(async move {
                        // The receiver is dropped only after every task has ended.
                        match unit {
                            Unit::Shared(case) => {
                                // Boxed: its future is some 9 KB, and inline it
                                // would size every case's task (19 KB, where
                                // a case run alone needs under 1 KB).
                                let r = Box::pin(crate::shared::run_shared(
                                    &case, &case_cfg, &learned, &pool,
                                ))
                                .await;
                                let attempts = vec![r.outcome.clone()];
                                let _ = tx.send((r, attempts));
                            }
                            Unit::Alone(case) => {
                                let _ = tx.send(
                                    run_attempts(&case, &case_cfg, retries.as_ref()).await,
                                );
                            }
                        }
                    }));
                }
                if queue.is_empty() {
                    done = None;
                }
                continue;
            }
        };
        // None: every task has ended (finished, aborted by the stop, or
        // panicked), and what they finished has been taken.
        let Some((result, attempts)) = received else {
            break;
        };
        emit(
            reporters,
            Event::CaseStarted {
                id: result.id.clone(),
            },
        );
        if attempts.len() > 1 {
            emit(
                reporters,
                Event::Retried {
                    id: result.id.clone(),
                    attempts,
                },
            );
        }
        summary.add(&result.outcome);
        // Tasks that have ended are let go as the run goes, not all at its
        // end: a finished task's memory is held until it is joined.
        while tasks.try_join_next().is_some() {}
        let stops = stopped.is_none() && cfg.fail_fast.as_ref().is_some_and(|f| (f.0)(&result));
        emit(reporters, Event::CaseFinished(Box::new(result)));
        if stops {
            queue.clear();
            done = None;
            tasks.abort_all();
            let s = Stop {
                reason: FAIL_FAST.to_owned(),
                exit: Exit::Failures,
            };
            emit(
                reporters,
                Event::Interrupted {
                    reason: s.reason.clone(),
                    exit: s.exit,
                },
            );
            stopped = Some(s);
        }
    }
    // Every task has ended; joining them makes sure each future (and with
    // it its target) is dropped before the run returns. What the pool still
    // holds idle is ended as a case's target is.
    shut_down(&mut tasks).await;
    pool.close().await;
    emit(
        reporters,
        Event::RunFinished {
            summary: summary.clone(),
            wall: started.elapsed(),
            strict: cfg.strict,
        },
    );
    (summary, stopped)
}

/// What the loop admits: a case that may share a stdio target
/// ([`crate::shared`]), or one case on its own target (or HTTP session).
enum Unit {
    Shared(Case),
    Alone(Case),
}

impl Unit {
    fn case(&self) -> &Case {
        match self {
            Unit::Shared(c) | Unit::Alone(c) => c,
        }
    }
}

/// Admits the next unit: a shared case on a live slot alone (it may take
/// an idle target, and waits for a start slot only when it starts one);
/// any other on a live slot and a start slot.
async fn admit(slots: &crate::schedule::Slots, next: Option<&Unit>) -> crate::schedule::Admission {
    match next {
        Some(Unit::Shared(_)) => slots.admit_waiting().await,
        _ => slots.admit().await,
    }
}

/// The runnable cases as units in admission order, slowest expected first
/// ([`crate::schedule::slowest_first`], [`crate::schedule::estimate`]),
/// and the pool their shared cases take targets from (keeping at most
/// `idle_cap` idle, and up to `per_version` of a version up).
fn units(
    runnable: Vec<Case>,
    cfg: &RunConfig,
    idle_cap: usize,
    per_version: usize,
) -> (std::collections::VecDeque<Unit>, crate::shared::Pool) {
    let retries = cfg.retries.as_ref();
    let (shared, alone) = crate::shared::shareable(runnable, &cfg.case.target, !cfg.isolate, |c| {
        retries.is_some_and(|r| (r.applies)(&c.id, &c.scenario.id))
    });
    let pool = crate::shared::Pool::new(&shared, idle_cap, per_version);
    let mut units: Vec<(Duration, Unit)> = shared
        .into_iter()
        .map(Unit::Shared)
        .chain(alone.into_iter().map(Unit::Alone))
        .map(|u| {
            let c = u.case();
            let est = crate::schedule::estimate(&c.id, &c.scenario, c.version, &cfg.history);
            (est, u)
        })
        .collect();
    crate::schedule::slowest_first(&mut units, |(d, u)| {
        (*d, u.case().version, u.case().id.as_str())
    });
    (units.into_iter().map(|(_, u)| u).collect(), pool)
}

/// Aborts what is left in `set` and waits until every task has ended, so
/// that what their futures own (target processes, HTTP sessions) is dropped.
async fn shut_down<T: 'static>(set: &mut JoinSet<T>) {
    set.abort_all();
    while set.join_next().await.is_some() {}
}

/// Why no case can run, when the probe found no version the target
/// negotiates (`None` when one runs, or when nothing was probed): the one
/// reason when every version says the same, else each version's.
pub fn unavailable(offers: &BTreeMap<Version, Offer>) -> Option<String> {
    let negotiated = offers
        .values()
        .any(|o| matches!(o, Offer::Supported | Offer::Unclear(_)));
    if offers.is_empty() || negotiated {
        return None;
    }
    let why = |o: &Offer| match o {
        Offer::Broken(why) => why.clone(),
        // A handshake's answer is a version; a discover's, a sentence.
        Offer::Other(o) if o.contains(' ') => o.clone(),
        Offer::Other(o) => format!("answered {o:?}"),
        Offer::Supported | Offer::Unclear(_) => String::new(),
    };
    // Versions that failed alike are said together, in version order.
    let mut alike: Vec<(String, Vec<&str>)> = Vec::new();
    for (v, o) in offers {
        let reason = why(o);
        match alike.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, vs)) => vs.push(v.as_str()),
            None => alike.push((reason, vec![v.as_str()])),
        }
    }
    let all_broken = offers.values().all(|o| matches!(o, Offer::Broken(_)));
    let head = if all_broken {
        "the target completed no handshake at any version"
    } else {
        "the target negotiated none of the selected versions"
    };
    Some(match alike.as_slice() {
        [(one, _)] => format!("{head}: {one}"),
        _ => {
            let each: Vec<String> = alike
                .iter()
                .map(|(r, vs)| format!("{}: {r}", vs.join(", ")))
                .collect();
            format!("{head} ({})", each.join("; "))
        }
    })
}

/// What the probe already decided for a case at `version`: not applicable
/// (the version is not offered, or only it failed to start), an error blamed
/// on the target (it negotiated no version at all: [`unavailable`]), or
/// nothing (the case runs).
pub fn outcome_before_run(version: Version, offers: &BTreeMap<Version, Offer>) -> Option<Outcome> {
    if let Some(why) = unavailable(offers) {
        return Some(Outcome::Error {
            blame: Blame::Target,
            message: why,
        });
    }
    match offers.get(&version) {
        Some(Offer::Supported | Offer::Unclear(_)) | None => None,
        Some(Offer::Other(o)) => Some(Outcome::NotApplicable {
            reason: format!("the target does not offer {version} (it answered {o:?})"),
        }),
        Some(Offer::Broken(why)) => Some(Outcome::NotApplicable {
            reason: format!("the target completed no {version} handshake: {why}"),
        }),
    }
}

/// Not applicable, when `case` belongs to an opt-in extension that is not
/// among `enabled`: its rules are judged only when the user asks for them.
pub fn extension_off(case: &Case, enabled: &[&str]) -> Option<Outcome> {
    let name = case.scenario.extension?;
    (!enabled.contains(&name)).then(|| Outcome::NotApplicable {
        reason: format!(
            "a case of the opt-in extension {name:?}, which is not enabled (run with --extension {name})"
        ),
    })
}

/// The result of a case that did not run, with `outcome`.
pub fn skipped(case: &Case, outcome: Outcome) -> CaseResult {
    CaseResult {
        id: case.id.clone(),
        scenario: case.scenario.id.clone(),
        title: case.scenario.title.clone(),
        version: case.version,
        level: case.scenario.level,
        requirements: case.scenario.requirement_ids(),
        outcome,
        findings: Vec::new(),
        duration: Duration::ZERO,
        transcript: Vec::new(),
    }
}

/// Probes every version in `versions`, at most `jobs` at once: what each
/// offer is (for [`outcome_before_run`]).
pub async fn probe_versions(
    versions: &[Version],
    cfg: &CaseConfig,
    jobs: usize,
) -> BTreeMap<Version, Offer> {
    probe_all(&mut JoinSet::new(), versions, cfg, jobs).await
}

/// Probes every version, at most `jobs` targets at once (a slow-starting
/// target run four times over on a small machine starts slower still).
async fn probe_all(
    set: &mut JoinSet<(Version, Offer)>,
    versions: &[Version],
    cfg: &CaseConfig,
    jobs: usize,
) -> BTreeMap<Version, Offer> {
    let slots = Arc::new(Semaphore::new(jobs.max(1)));
    for &v in versions {
        let cfg = cfg.clone();
        let slots = Arc::clone(&slots);
        set.spawn(async move {
            // The semaphore is never closed, so acquiring only waits.
            let _slot = slots.acquire_owned().await.ok();
            // Every wait inside is bounded; this bounds their sum, so that
            // no target can hold the run before its first case.
            let limit = cfg.startup_timeout + cfg.step_timeout * 2;
            let offer = tokio::time::timeout(limit, probe(v, &cfg))
                .await
                .unwrap_or_else(|_| {
                    Offer::Broken(format!(
                        "the probe did not end within {}ms",
                        limit.as_millis()
                    ))
                });
            (v, offer)
        });
    }
    let mut out = BTreeMap::new();
    while let Some(joined) = set.join_next().await {
        if let Ok((v, offer)) = joined {
            out.insert(v, offer);
        }
    }
    out
}

/// One handshake at `version`; what did the target answer?
pub async fn probe(version: Version, cfg: &CaseConfig) -> Offer {
    let proc = match cfg.target.connect(cfg.max_line, cfg.startup_timeout).await {
        Ok(p) => p,
        Err(e) => return Offer::Broken(e),
    };
    let mut conn = Conn::new(proc, version, cfg.startup_timeout);
    if version.lifecycle() == mcpspec_engine::Lifecycle::Stateless {
        let within = cfg.step_timeout.max(cfg.startup_timeout);
        let offer = crate::stateless::probe(&mut conn, version.as_str(), within).await;
        conn.end().await;
        return offer;
    }
    let id = conn.next_id();
    let init = Message::request(
        id.clone(),
        "initialize",
        Some(json!({
            "protocolVersion": version.as_str(),
            "capabilities": {},
            "clientInfo": { "name": "mcpspec-probe", "version": env!("CARGO_PKG_VERSION") },
        })),
    );
    if let Err(e) = conn.send(&init).await {
        return Offer::Broken(unwritable(&mut conn, "initialize", e).await);
    }
    let answer = conn
        .wait_for_prompt(cfg.step_timeout, |m| is_response_to(m, &id))
        .await;
    conn.end().await;
    if answer.is_err() {
        if let Some(offer) = unclear_or_unreadable(&conn, "initialize") {
            return offer;
        }
    }
    match answer {
        Ok(r) => match r.msg {
            Message::Response(r) => match r.outcome {
                Ok(result) => match result.get("protocolVersion").and_then(Value::as_str) {
                    Some(v) if v == version.as_str() => Offer::Supported,
                    Some(v) => Offer::Other(v.to_owned()),
                    None => Offer::Broken("initialize result has no protocolVersion".to_owned()),
                },
                Err(e) => Offer::Other(format!("error {} {}", e.code, e.message)),
            },
            other => Offer::Broken(format!("unexpected {}", other.describe())),
        },
        Err(crate::conn::WaitError::Timeout | crate::conn::WaitError::Invalid) => {
            Offer::Broken(with_last_words(
                format!(
                    "no answer to initialize within {}ms of starting (--startup-timeout); \
                     a slow target may need more",
                    cfg.startup_timeout.max(cfg.step_timeout).as_millis()
                ),
                &conn,
            ))
        }
        Err(crate::conn::WaitError::Refused(how)) => {
            Offer::Broken(format!("no answer to initialize: {how}"))
        }
        Err(crate::conn::WaitError::Exited(how)) => {
            Offer::Broken(format!("no answer to initialize: {how}"))
        }
    }
}

/// After a probe got no valid answer: a target that tried to answer (a
/// response that breaks the rules, or JSON broken over lines) is
/// [`Offer::Unclear`] — its cases run and judge what it says; one that
/// wrote other messages only (a flood of notifications) or lines that are
/// no JSON at all (a log on stdout, an HTML page) completed no handshake:
/// [`Offer::Broken`], quoting the first unreadable line. `None` when it
/// wrote nothing.
pub(crate) fn unclear_or_unreadable(conn: &Conn, method: &str) -> Option<Offer> {
    if conn.answers_received() > 0 {
        return Some(Offer::Unclear(format!(
            "{} response(s) received, none a valid answer to {method}",
            conn.answers_received()
        )));
    }
    if conn.messages_received() > 0 {
        return Some(Offer::Broken(with_last_words(
            format!(
                "no answer to {method}: the target sent {} other message(s) instead",
                conn.messages_received()
            ),
            conn,
        )));
    }
    // JSON broken over lines (a pretty-printer on stdout) is MCP spoken
    // wrongly, not something else spoken: its cases run and judge the
    // framing.
    if conn.json_like_received() > 0 {
        return Some(Offer::Unclear(format!(
            "{} line(s) that start as JSON, none a JSON-RPC answer to {method}",
            conn.json_like_received()
        )));
    }
    let unreadable = conn.unreadable()?;
    Some(Offer::Broken(with_last_words(
        format!("no answer to {method}: the target wrote {unreadable}"),
        conn,
    )))
}

/// `why`, followed by the target's last stderr lines when it wrote some
/// (an exit already carries them: see [`Conn`]).
pub(crate) fn with_last_words(why: String, conn: &Conn) -> String {
    match conn.stderr_tail() {
        Some(tail) if conn.exit().is_none() => format!("{why}; its stderr ended: {tail}"),
        _ => why,
    }
}

/// Why a probe's request could not be written: how the target went away
/// (with its last words) when it did, else the write error.
pub(crate) async fn unwritable(conn: &mut Conn, method: &str, error: String) -> String {
    let exit = conn.wait_exit(Duration::from_millis(500)).await;
    conn.end().await;
    match exit {
        Some(how) => format!("no answer to {method}: {how}"),
        None => with_last_words(error, conn),
    }
}
