//! The scheduler's parts: which unit of work starts next, and what it holds
//! while it runs (issue #18, "a scheduler for waiting work").
//!
//! ```text
//!  units, slowest expected first ──► Slots::admit ──► live slot ─┬─ start slot (CPU)
//!                                     (in order)                  │   released by past_startup():
//!                                                                 │   the target's first line
//!                                                                 └─ held until the unit ends
//! ```
//!
//! - A **start slot** (`--jobs` of them) bounds what costs CPU: starting a
//!   process target (a stdio server, a client under test) until it writes
//!   its first line. A unit then calls [`past_startup`] (the runner's
//!   connection does, on the first frame it reads) and only waits from then
//!   on: a silence window or a timer holds no CPU slot. HTTP targets start
//!   no process, so their units take no start slot.
//! - A **live slot** bounds what every running unit holds, waiting or not:
//!   a process, its pipes, its memory ([`default_live`]); over HTTP the
//!   target's connection limit ([`ConnLimit`]: `--max-connections`, lowered
//!   while the target refuses or answers 429/503, then recovered).
//! - **Order**: units start slowest expected first ([`estimate`]: the waits
//!   a scenario declares, or a previous run's measured duration,
//!   [`History`]), alike estimates by version and id ([`slowest_first`]),
//!   so that the longest case is not the one left to start last and a
//!   run's order is reproducible.
//!
//! A unit is one case here: admit it once ([`Slots::admit`], or
//! [`Slots::admit_waiting`] for a case that may find its target started),
//! run it inside [`Admission::scope`], and call [`restart`] (or
//! [`start_or`]) before each further target process it starts.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_scenario::{Scenario, Selector, StepKind};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use mcpspec_transport::limit::{ConnLimit, ConnPermit};

/// The live bound for process targets when nothing else is said: eight
/// waiting units per start slot (the reference suite's cases that wait are
/// about a ninth of its cases, and each of them waits about ten times as
/// long as a start-up takes), at least 32, at most 128. The floor is for a
/// target that leaves many answers unsent: against `server-everything`,
/// which ignores invalid requests, a sixth of the cases each wait out a 3 s
/// window, and with 16 live slots on two cores they held every slot while
/// the CPU idled for seconds (issue #18; measured by hand, release build,
/// one run each: 42 s with 16, 34 s with 32, and at most 25 of its
/// processes, 1.8 GB, up at once; bench/speed.sh prints the wall). The
/// cap keeps a heavy target's footprint in check (128 Node processes are
/// ~6 GB) and the descriptors within the usual soft limit of 1024: a live
/// stdio case holds about four (three pipes and a pidfd), an HTTP session
/// one or two.
pub fn default_live(jobs: usize) -> usize {
    (jobs.max(1) * 8).clamp(32, 128)
}

/// What bounds a run's units.
#[derive(Debug, Clone)]
pub struct Slots {
    /// `None`: the units start no process (an HTTP target).
    start: Option<Arc<Semaphore>>,
    live: Live,
    /// How many live slots a process target has (0 over HTTP).
    live_bound: usize,
    /// How many `--jobs` a process target was given (0 over HTTP).
    jobs: usize,
}

#[derive(Debug, Clone)]
enum Live {
    Fixed(Arc<Semaphore>),
    Http(Arc<ConnLimit>),
}

/// What an admitted unit holds: its live slot, and its start slot until
/// it is past start-up.
pub struct Admission {
    start: Option<OwnedSemaphorePermit>,
    restart: Option<Arc<Semaphore>>,
    _live: LivePermit,
}

/// Held, never read: dropping it gives the slot back.
enum LivePermit {
    Fixed { _held: OwnedSemaphorePermit },
    Http { _held: ConnPermit },
}

impl Slots {
    /// Process targets: `jobs` start-ups at once, `live` units at once.
    pub fn processes(jobs: usize, live: usize) -> Self {
        let live = live.max(jobs).max(1);
        Slots {
            start: Some(Arc::new(Semaphore::new(jobs.max(1)))),
            live: Live::Fixed(Arc::new(Semaphore::new(live))),
            live_bound: live,
            jobs: jobs.max(1),
        }
    }

    /// How many units of a process target may be live at once (0 for an
    /// HTTP target, whose bound is its connection limit).
    pub fn live_bound(&self) -> usize {
        self.live_bound
    }

    /// How many shared targets may wait idle between cases
    /// ([`crate::shared::Pool`]). A process target: as many as units may be
    /// live. An HTTP target: a quarter of `--max-connections` (none below
    /// 4), beside the live sessions it bounds: an idle session keeps a
    /// connection alive and holds the target's state for it, and a target
    /// given a small limit asked for few of either.
    pub fn idle_bound(&self) -> usize {
        match &self.live {
            Live::Fixed(_) => self.live_bound,
            Live::Http(limit) => limit.max() / 4,
        }
    }

    /// How many shared targets of a version may be up at once
    /// ([`crate::shared::Pool`]). A process target: `--jobs`, at least two
    /// (a start-up is the CPU that sharing saves; a version's shared cases
    /// are short, and two targets keep up with them where one would make
    /// them a queue). An HTTP target: no bound (a session costs a request).
    pub fn targets_per_version(&self) -> usize {
        match &self.live {
            Live::Fixed(_) => self.jobs.max(2),
            Live::Http(_) => usize::MAX,
        }
    }

    /// An HTTP target: no start slot; live units bounded by `limit`.
    pub fn http(limit: Arc<ConnLimit>) -> Self {
        Slots {
            start: None,
            live: Live::Http(limit),
            live_bound: 0,
            jobs: 0,
        }
    }

    /// Waits for a live slot, then a start slot. Call it for the units in
    /// their order, one at a time: that is what makes the order hold.
    pub async fn admit(&self) -> Admission {
        let live = self.live().await;
        let start = match &self.start {
            Some(s) => Some(
                s.clone()
                    .acquire_owned()
                    .await
                    .expect("the start semaphore is never closed"),
            ),
            None => None,
        };
        Admission {
            start,
            restart: self.start.clone(),
            _live: live,
        }
    }

    async fn live(&self) -> LivePermit {
        match &self.live {
            // The semaphores are never closed, so acquiring only waits.
            Live::Fixed(s) => LivePermit::Fixed {
                _held: s
                    .clone()
                    .acquire_owned()
                    .await
                    .expect("the live semaphore is never closed"),
            },
            Live::Http(l) => LivePermit::Http {
                _held: l.acquire().await,
            },
        }
    }

    /// Waits for a live slot only: the unit may not start a target at all
    /// (a case that takes an idle shared target, [`crate::shared::Pool`]);
    /// it waits for a start slot when it does ([`restart`], [`start_or`]).
    pub async fn admit_waiting(&self) -> Admission {
        let live = self.live().await;
        Admission {
            start: None,
            restart: self.start.clone(),
            _live: live,
        }
    }
}

/// What bounds the cases of a run against `target`: an HTTP target's
/// connection limit (the one its options carry, else a fresh one at the
/// default), else `jobs` start-ups and `live` units of a process target
/// (`None`: [`default_live`]).
pub fn for_target(target: &mcpspec_transport::Target, jobs: usize, live: Option<usize>) -> Slots {
    use mcpspec_transport::Target;
    match target {
        Target::Http { options, .. } | Target::Sse { options, .. } => Slots::http(
            options
                .limit
                .clone()
                .unwrap_or_else(|| ConnLimit::new(mcpspec_transport::limit::DEFAULT_MAX)),
        ),
        Target::Stdio(_) | Target::Client(_) => {
            Slots::processes(jobs, live.unwrap_or_else(|| default_live(jobs)))
        }
    }
}

tokio::task_local! {
    static UNIT: RefCell<UnitSlots>;
}

struct UnitSlots {
    start: Option<OwnedSemaphorePermit>,
    restart: Option<Arc<Semaphore>>,
}

impl Admission {
    /// Runs `unit` holding this admission: the live slot until it ends,
    /// the start slot until [`past_startup`] (or its end).
    pub async fn scope<F: Future>(self, unit: F) -> F::Output {
        let Admission {
            start,
            restart,
            _live,
        } = self;
        let out = UNIT
            .scope(RefCell::new(UnitSlots { start, restart }), unit)
            .await;
        drop(_live);
        out
    }
}

/// The running unit's target is up (it wrote its first line): the unit
/// gives its start slot back and only waits from now on. Outside a unit
/// (a probe, the fuzzer) or when already given back: nothing.
pub fn past_startup() {
    let _ = UNIT.try_with(|u| u.borrow_mut().start.take());
}

/// The running unit starts another target process (a retry, a run alone
/// after a shared one): it waits for a start slot again. A unit that still
/// holds its start slot (its first target has not written yet) starts on
/// that one: waiting for a second could never end with `--jobs 1`.
pub async fn restart() {
    let _ = start_or(std::future::pending::<()>()).await;
}

/// Like [`restart`], racing `other`: whichever comes first, a start slot
/// for the running unit (`None`; the unit then holds it as after
/// [`restart`]) or `other`'s output (`Some`; no slot taken). A unit that
/// still holds its start slot, or runs outside a unit, starts at once.
pub async fn start_or<F: Future>(other: F) -> Option<F::Output> {
    let slots = UNIT.try_with(|u| {
        let u = u.borrow();
        if u.start.is_some() {
            None
        } else {
            u.restart.clone()
        }
    });
    let Ok(Some(slots)) = slots else {
        return None;
    };
    tokio::select! {
        // Never closed, so acquiring only waits.
        permit = slots.acquire_owned() => {
            let _ = UNIT.try_with(|u| u.borrow_mut().start = permit.ok());
            None
        }
        out = other => Some(out),
    }
}

/// Measured durations of a previous run (`report.json` in the same
/// `--report-dir`), by case id: they refine [`estimate`].
#[derive(Debug, Clone, Default)]
pub struct History(HashMap<String, Duration>);

impl History {
    /// The `results[].{id, duration_ms}` of a `report.json`; empty when the
    /// file is missing or unreadable (a first run estimates from the
    /// scenarios alone).
    pub fn load(report_json: &std::path::Path) -> Self {
        let Ok(bytes) = std::fs::read(report_json) else {
            return History::default();
        };
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            return History::default();
        };
        let mut out = HashMap::new();
        for r in v
            .get("results")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten()
        {
            let id = r.get("id").and_then(|i| i.as_str());
            let ms = r.get("duration_ms").and_then(|d| d.as_u64());
            if let (Some(id), Some(ms)) = (id, ms) {
                out.insert(id.to_owned(), Duration::from_millis(ms));
            }
        }
        History(out)
    }

    pub fn get(&self, id: &str) -> Option<Duration> {
        self.0.get(id).copied()
    }
}

/// How long a scenario at `version` can be expected to take: the waits its
/// steps declare (silence windows, sleeps, `expect_no_fetch`, a cut
/// stream's `retry`), and the windows that usually run to their end: a
/// GET's `read_for` (a server keeps a GET stream open) and an unprompted
/// notification's `within` (what a target emits on its own may never come,
/// and an optional feature often does not). An `expect` of a response or
/// request ends when its message comes, so its `within` counts for nothing.
/// This only orders units: an overestimate starts a case early, no harm.
pub fn declared_wait(scenario: &Scenario, version: Version) -> Duration {
    scenario
        .steps
        .iter()
        .filter(|s| s.applies_to(version))
        .map(|s| match &s.kind {
            StepKind::ExpectSilence { duration, .. } => *duration,
            StepKind::Sleep(d) | StepKind::ExpectNoFetch(d) => *d,
            StepKind::Reply(r) => r.cut_stream.and_then(|c| c.retry).unwrap_or_default(),
            StepKind::Expect(e) if matches!(e.selector, Selector::Notification(_)) => {
                e.within.unwrap_or_default()
            }
            StepKind::Http(h) if h.method.eq_ignore_ascii_case("GET") && !h.keep_open => {
                h.read_for.unwrap_or(crate::http::DEFAULT_READ_FOR)
            }
            _ => Duration::ZERO,
        })
        .sum()
}

/// A case's expected duration: what the previous run measured, else what
/// its scenario declares.
pub fn estimate(id: &str, scenario: &Scenario, version: Version, history: &History) -> Duration {
    history
        .get(id)
        .unwrap_or_else(|| declared_wait(scenario, version))
}

/// Estimates closer than this are alike for ordering: what decides the
/// critical path is which long units start first, not the order of
/// units a few milliseconds apart.
pub const ORDER_STEP: Duration = Duration::from_millis(250);

/// Sorts units slowest expected first (in steps of [`ORDER_STEP`]), alike
/// estimates by version, then id: cases of one version come together, so
/// that a shared target ([`crate::shared::Pool`]) finds the next case of
/// its version soon after it is free, and a scenario's case at one version
/// is judged before its others start ([`crate::shared::Learned`]).
pub fn slowest_first<T>(units: &mut [T], key: impl Fn(&T) -> (Duration, Version, &str)) {
    let step = |d: Duration| d.as_millis() / ORDER_STEP.as_millis();
    units.sort_by(|a, b| {
        let (da, va, ia) = key(a);
        let (db, vb, ib) = key(b);
        step(db)
            .cmp(&step(da))
            .then_with(|| va.cmp(&vb))
            .then_with(|| ia.cmp(ib))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowest_first_then_by_id() {
        let ms = Duration::from_millis;
        let [old, new] = [Version::ALL[0], Version::ALL[1]];
        let mut units = vec![
            ("b", ms(0), old),
            ("a", ms(0), new),
            ("z", ms(1500), old),
            ("c", ms(300), old),
            ("y", ms(1500), old),
            ("x", ms(1400), old),
            // Alike to within a step: by version, then id.
            ("d", ms(10), old),
        ];
        slowest_first(&mut units, |u| (u.1, u.2, u.0));
        let ids: Vec<&str> = units.iter().map(|u| u.0).collect();
        assert_eq!(ids, ["y", "z", "x", "c", "b", "d", "a"]);
    }

    #[test]
    fn history_reads_a_report_and_tolerates_its_absence() {
        let dir = std::env::temp_dir().join(format!("mcpspec-history-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("report.json");
        assert!(History::load(&path).get("x@1").is_none());
        std::fs::write(
            &path,
            r#"{"results":[{"id":"x@1","duration_ms":1200},{"id":"y@1"}]}"#,
        )
        .unwrap();
        let h = History::load(&path);
        assert_eq!(h.get("x@1"), Some(Duration::from_millis(1200)));
        assert_eq!(h.get("y@1"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_live_bound_has_room_for_waiting_units() {
        assert_eq!(default_live(1), 32);
        assert_eq!(default_live(4), 32);
        assert_eq!(default_live(8), 64);
        assert_eq!(default_live(64), 128);
    }

    #[tokio::test]
    async fn the_start_slot_is_given_back_at_start_up_not_at_the_end() {
        let slots = Slots::processes(1, 4);
        let first = slots.admit().await;
        let (up_tx, up_rx) = tokio::sync::oneshot::channel::<()>();
        let (end_tx, end_rx) = tokio::sync::oneshot::channel::<()>();
        let unit = tokio::spawn(first.scope(async move {
            past_startup();
            let _ = up_tx.send(());
            // Still running (waiting), with its live slot.
            let _ = end_rx.await;
        }));
        up_rx.await.unwrap();
        // One start slot only: a second unit is admitted while the first waits.
        let second = tokio::time::timeout(Duration::from_secs(5), slots.admit()).await;
        assert!(
            second.is_ok(),
            "the waiting unit still holds the start slot"
        );
        end_tx.send(()).unwrap();
        unit.await.unwrap();
    }

    #[tokio::test]
    async fn a_case_gives_its_start_slot_back_when_its_target_first_writes() {
        use crate::conn::Conn;
        use mcpspec_transport::{CommandSpec, Target};
        let slots = Slots::processes(1, 4);
        let first = slots.admit().await;
        // A target that is up at once, then says nothing more for long.
        let target = Target::Stdio(CommandSpec::new(
            "sh",
            [
                "-c",
                r#"echo '{"jsonrpc":"2.0","method":"x"}'; exec sleep 30"#,
            ],
        ));
        let (up_tx, up_rx) = tokio::sync::oneshot::channel::<()>();
        let (end_tx, end_rx) = tokio::sync::oneshot::channel::<()>();
        let unit = tokio::spawn(first.scope(async move {
            let limit = Duration::from_secs(10);
            let proc = target.connect(1 << 20, limit).await.unwrap();
            let mut conn = Conn::new(proc, Version::V2025_06_18, limit);
            let deadline = tokio::time::Instant::now() + limit;
            while conn.frames_received() == 0 && conn.pump(deadline).await {}
            assert_eq!(conn.frames_received(), 1, "the target's line never came");
            let _ = up_tx.send(());
            let _ = end_rx.await;
            conn.end().await;
        }));
        up_rx.await.unwrap();
        let second = tokio::time::timeout(Duration::from_secs(5), slots.admit()).await;
        assert!(
            second.is_ok(),
            "a case whose target is up (and now only waits) still holds its start slot"
        );
        end_tx.send(()).unwrap();
        unit.await.unwrap();
    }

    #[tokio::test]
    async fn a_unit_that_never_starts_keeps_its_start_slot() {
        let slots = Slots::processes(1, 4);
        let first = slots.admit().await;
        let (end_tx, end_rx) = tokio::sync::oneshot::channel::<()>();
        let unit = tokio::spawn(first.scope(async move {
            let _ = end_rx.await;
        }));
        let second = tokio::time::timeout(Duration::from_millis(200), slots.admit()).await;
        assert!(second.is_err(), "a second start-up began beside the first");
        end_tx.send(()).unwrap();
        unit.await.unwrap();
        assert!(
            tokio::time::timeout(Duration::from_secs(5), slots.admit())
                .await
                .is_ok(),
            "the ended unit did not give its slots back"
        );
    }
}
