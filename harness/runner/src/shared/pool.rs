//! The pool of a run's shared targets ([`Pool`]): which idle target a case
//! takes, when it waits for a busy one and when it starts one, how many of
//! a version are up and idle, and what is ended when nothing more needs it.
//! What a case does on its target is the parent module's.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use mcpspec_engine::Version;
use tokio::sync::Notify;

use super::{idle_clean, Live};
use crate::plan::Case;

/// How long a case waits for one of its version's busy targets (all up
/// to the bound) before it starts one beyond the bound: about as long as
/// an interpreter's start-up takes. Most shared cases are short requests
/// and free their target within milliseconds; a target held longer serves
/// a case that waits out a window (an answer that never comes: each
/// `jsonrpc/invalid-request` case against a server that ignores invalid
/// requests waits 3 s), and against such a server the cases queued behind
/// two targets left the CPU idle for seconds (seen by hand, sampling
/// `/proc/stat` each second during `mcpspec server -- mcp-server-everything
/// stdio`; bench/speed.sh prints only the run's wall).
pub(super) const PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// Where a shared case plays: on an idle target, or on one it starts,
/// holding the place that target takes among its version's.
pub(super) enum Seat {
    Idle(Box<Live>),
    Start(Held),
}

/// A shared target's place in its version's count ([`Pool::new`]'s
/// `per_version`), from the moment a case may start it until it ends:
/// dropping it gives the place back and wakes the cases waiting for one.
pub(super) struct Held {
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
/// one to be freed, for [`PATIENCE`] at most, and then starts one beyond
/// the bound. Over stdio that is `--jobs`, at least two: a target's
/// start-up is the CPU a run spends and sharing exists to save it, while a
/// version's shared cases are mostly short requests, which a few targets
/// serve one after another. (Unbounded, a case that found none idle raced
/// a start slot against a freed target, and against a target that starts
/// fast the slot often came first: a start-up for a case an open target
/// could have served.) Over HTTP, where a session costs a request, there
/// is no such bound, and no case waits on another's turn. A case with
/// chosen ids ([`mcpspec_scenario::Scenario::fixed_ids`]) one of which was
/// used on a session of its version starts one beyond the bound at once:
/// every target up may have used it, and it would wait for ever. A target
/// freed when no case of its version is left to come is ended at once; at
/// most `per_version` of a version and `cap` in all wait idle (the oldest
/// goes first), and [`Pool::close`] ends the rest.
pub struct Pool(Arc<Inner>);

struct Inner {
    state: Mutex<PoolState>,
    freed: Notify,
}

impl Inner {
    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub(super) struct PoolState {
    /// Oldest first.
    pub(super) idle: Vec<Live>,
    /// Cases of each version not yet finished that may play on an idle
    /// target: those that hand it on ([`Scenario::may_share`]) and those
    /// that take it and end it ([`Scenario::may_take`]).
    pub(super) to_come: HashMap<Version, usize>,
    cap: usize,
    /// Targets of each version up or starting ([`Held`]).
    up: HashMap<Version, usize>,
    /// The chosen ids used on the sessions of each version's targets given
    /// back so far ([`Tenure::used`]).
    ids_used: HashMap<Version, HashSet<String>>,
    per_version: usize,
}

impl Pool {
    /// A pool for `cases` (those [`super::shareable`] gave), keeping at most `cap`
    /// idle (0: every target freed is ended, and each case opens its own),
    /// and up to `per_version` targets of a version up at once.
    pub fn new(cases: &[Case], cap: usize, per_version: usize) -> Self {
        let mut to_come = HashMap::new();
        for c in cases {
            *to_come.entry(c.version).or_insert(0) += 1;
        }
        Pool(Arc::new(Inner {
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                to_come,
                cap,
                up: HashMap::new(),
                ids_used: HashMap::new(),
                per_version: per_version.max(1),
            }),
            freed: Notify::new(),
        }))
    }

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.0.state()
    }

    /// A place for a target of `version`: below the bound, or beyond it
    /// when not `bounded`.
    pub(super) fn reserve(&self, version: Version, bounded: bool) -> Option<Held> {
        let mut st = self.state();
        let per_version = st.per_version;
        let up = st.up.entry(version).or_insert(0);
        if bounded && *up >= per_version {
            return None;
        }
        *up += 1;
        Some(self.held(version))
    }

    /// A place for a target of `version` whatever the bound: for a case
    /// that plays first on a target started for it, which does not wait for
    /// a place, as a case run alone does not.
    pub(super) fn place(&self, version: Version) -> Held {
        *self.state().up.entry(version).or_insert(0) += 1;
        self.held(version)
    }

    /// The place just counted for a target of `version`.
    fn held(&self, version: Version) -> Held {
        Held {
            pool: Arc::clone(&self.0),
            version,
        }
    }

    pub(super) fn full(&self, version: Version) -> bool {
        let st = self.state();
        st.up.get(&version).is_some_and(|n| *n >= st.per_version)
    }

    /// Whether a case with these chosen ids may wait for a target of
    /// `version` to be freed: when none of them was used on a session of
    /// that version yet, every target up will do (an id is seen here once
    /// the case that used it gave its target back). One whose id was used
    /// might wait for ever, every target up having used it: it starts one
    /// beyond the bound instead.
    pub(super) fn may_wait(&self, version: Version, ids: &[String]) -> bool {
        let st = self.state();
        let used = st.ids_used.get(&version);
        ids.iter().all(|id| used.is_none_or(|u| !u.contains(id)))
    }

    /// The idle target of `case`'s version freed last whose session none of
    /// the case's chosen ids were used on.
    pub(super) fn take(&self, case: &Case) -> Option<Live> {
        let ids = case.scenario.fixed_ids();
        let mut st = self.state();
        let at = st.idle.iter().rposition(|l| {
            l.version == case.version && !ids.iter().any(|id| l.tenure.used.contains(id))
        })?;
        Some(st.idle.remove(at))
    }

    /// Where to play `case`: an idle target, or a place to start one once
    /// the case holds a start slot.
    pub(super) async fn acquire(&self, case: &Case) -> Seat {
        let ids = case.scenario.fixed_ids();
        let mut patient = true;
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
            let bounded = patient && self.may_wait(case.version, &ids);
            if bounded && self.full(case.version) {
                if tokio::time::timeout(PATIENCE, freed).await.is_err() {
                    patient = false;
                }
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

    /// Targets that cases left in order, for the next cases of their
    /// version: kept idle, or, of a version with no case left to come,
    /// handed back to be ended. At most `per_version` of a version wait
    /// idle, and at most `cap` in all: beyond either the oldest goes (cases
    /// that run in a fresh process hand theirs on too, and more idle
    /// targets than a version's cases can keep busy are only memory held).
    pub(super) fn put(&self, lives: Vec<Live>) -> Vec<Live> {
        let mut st = self.state();
        let mut ended = Vec::new();
        for l in lives {
            st.ids_used
                .entry(l.version)
                .or_default()
                .extend(l.tenure.used.iter().cloned());
            if st.to_come.get(&l.version).is_none_or(|n| *n == 0) {
                ended.push(l);
                continue;
            }
            // `put` keeps at most `per_version` of a version, so one goes at most.
            let of_version = st.idle.iter().filter(|i| i.version == l.version).count();
            if of_version >= st.per_version {
                if let Some(at) = st.idle.iter().position(|i| i.version == l.version) {
                    ended.push(st.idle.remove(at));
                }
            }
            st.idle.push(l);
        }
        let over = st.idle.len().saturating_sub(st.cap);
        ended.extend(st.idle.drain(..over));
        drop(st);
        self.0.freed.notify_waiters();
        ended
    }

    /// `case` is done with the pool: when it was the last of its version
    /// to come, what waits idle of that version is handed back to be ended.
    pub(super) fn done(&self, case: &Case) -> Vec<Live> {
        let mut st = self.state();
        let left = st.to_come.entry(case.version).or_insert(0);
        *left = left.saturating_sub(1);
        let (ended, keep): (Vec<Live>, Vec<Live>) = std::mem::take(&mut st.idle)
            .into_iter()
            .partition(|l| st.to_come.get(&l.version).is_none_or(|n| *n == 0));
        st.idle = keep;
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

/// Ends each target as a case alone ends its own.
pub(super) async fn end_all(targets: Vec<Live>) {
    for mut l in targets {
        l.conn.end().await;
    }
}
