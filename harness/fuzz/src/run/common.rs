//! What the server loop ([`crate::run`]) and the client loop
//! ([`crate::client::run`]) share: the books of a run, and how a finding
//! becomes a reproducer file.
//!
//! ```text
//!  Books::new(runs, duration, ReproTarget)      one per run
//!    budget_left()            --runs / --duration, minimisation not counted
//!    drain_cutoff(grace)      how long owed answers are waited for once it is spent
//!    tick(progress)           about once a second
//!    known(oracle, key)       dedup: is the key a finding already?
//!    claim(oracle, key)       a new key: it is minimised, then
//!    save(verdict, key, …)    written as NNN-oracle-key.json and listed
//!    sighted(oracle, key, …)  a known key again: counted, with what it was seen with
//!    summary(progress, why)   the last progress report and the Summary
//!  replay: replay_version(repro) ─► run the inputs ─► outcome(repro, tripped)
//! ```
//!
//! What is not here differs for a reason and stays in each loop: where the
//! handshake falls (a server may get inputs before `initialize`, a client
//! never), when a session ends (a client also winds down on its own, and is
//! restarted by time), what a known finding does to the session (a server's
//! session ends on any verdict, a client's only on a new one or on
//! liveness), and how a finding is minimised (a [`crate::minimize::Sequence`]
//! in a fresh process or HTTP session, or inputs to a fresh client).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use mcpspec_engine::Version;
use tokio::time::Instant;

use super::{Finding, Progress, ReplayOutcome, RunError, Summary, TimeoutNote};
use crate::input::Input;
use crate::minimize::{trips, Tripped};
use crate::oracle::{Oracle, TimedOut, Verdict};
use crate::repro::{ReproError, Reproducer, FORMAT};

/// How many of the message kinds a finding was seen with are listed.
pub(crate) const SEEN_WITH_SHOWN: usize = 8;

/// What every reproducer of a run says about its target.
#[derive(Debug, Clone)]
pub(crate) struct ReproTarget {
    pub report_dir: PathBuf,
    /// The reproducer's `transport`.
    pub transport: String,
    pub url: Option<String>,
    /// The command that was fuzzed (stdio; empty over HTTP).
    pub command: Vec<String>,
    pub timeout: Duration,
    pub max_wait: Duration,
}

/// One minimised finding, ready to be saved.
pub(crate) struct Minimized {
    pub inputs: Vec<Input>,
    /// Inputs before `initialize` (always 0 for a client).
    pub handshake_at: usize,
    /// The inputs tripped the oracle again in a fresh process.
    pub confirmed: bool,
    /// The version the reproducer replays at (the negotiated one).
    pub version: Version,
}

/// The books of a run: what was spent, what was found, what is known.
pub(crate) struct Books {
    runs: Option<u64>,
    duration: Option<Duration>,
    target: ReproTarget,
    started: Instant,
    last_report: Instant,
    seen: HashSet<(Oracle, String)>,
    findings: Vec<Finding>,
    /// Per finding (its index): the distinct message kinds it was seen with.
    seen_with: HashMap<usize, HashSet<String>>,
    timeouts: Vec<TimeoutNote>,
    pub exec: u64,
    pub sessions: u64,
    /// Time spent minimising: not fuzzing, so not part of the budget or the rate.
    pub minimizing: Duration,
    /// Time spent replaying a session's inputs one at a time to find which
    /// one ended it (a pipelined window that ended the session): like
    /// minimising, work on a finding, reported apart from fuzzing.
    pub attributing: Duration,
    /// Time spent, once the budget was spent, waiting for answers still
    /// owed (at most `--timeout` after `--duration`): the end of the run,
    /// not fuzzing, so reported apart and not in execs per second.
    pub draining: Duration,
    /// A line over 16 MiB was sent this run: the generator's later ones are
    /// cut to 1 MiB ([`crate::gen::bytes::tame`]).
    pub huge_sent: bool,
}

impl Books {
    /// The books of a run starting now.
    pub fn new(runs: Option<u64>, duration: Option<Duration>, target: ReproTarget) -> Self {
        Books {
            runs,
            duration,
            target,
            started: Instant::now(),
            last_report: Instant::now(),
            seen: HashSet::new(),
            findings: Vec::new(),
            seen_with: HashMap::new(),
            timeouts: Vec::new(),
            exec: 0,
            sessions: 0,
            minimizing: Duration::ZERO,
            attributing: Duration::ZERO,
            draining: Duration::ZERO,
            huge_sent: false,
        }
    }

    /// Whether the budget (`--runs`, `--duration`) is not spent yet.
    pub fn budget_left(&self) -> bool {
        self.runs.is_none_or(|r| self.exec < r)
            && self
                .duration
                .is_none_or(|d| self.started.elapsed() < d + self.on_findings())
    }

    /// Time spent on findings rather than fuzzing: minimising them, and
    /// finding which input of a window ended a session. It does not count
    /// against `--duration`, nor in execs per second.
    pub fn on_findings(&self) -> Duration {
        self.minimizing + self.attributing
    }

    /// How long owed answers are waited for once the budget is spent:
    /// after `--duration`, `grace` more (an unanswered request must not
    /// stretch the run by `--max-wait`); after `--runs` alone, to the
    /// bound of each wait.
    pub fn drain_cutoff(&self, grace: Duration) -> Option<Instant> {
        self.duration.map(|_| Instant::now() + grace)
    }

    /// Reports progress when the last report is a second old.
    pub fn tick(&mut self, progress: &mut dyn FnMut(Progress)) {
        if self.last_report.elapsed() >= Duration::from_secs(1) {
            self.last_report = Instant::now();
            progress(self.progress());
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            execs: self.exec,
            execs_per_sec: rate(
                self.exec,
                self.started
                    .elapsed()
                    .saturating_sub(self.on_findings())
                    .as_secs_f64(),
            ),
            findings: self.findings.len(),
            sessions: self.sessions,
        }
    }

    /// Whether `(oracle, kind)` is a finding already.
    pub fn known(&self, oracle: Oracle, kind: &str) -> bool {
        self.seen.contains(&(oracle, kind.to_owned()))
    }

    /// Marks `(oracle, kind)` found; false when it already was.
    pub fn claim(&mut self, oracle: Oracle, kind: &str) -> bool {
        self.seen.insert((oracle, kind.to_owned()))
    }

    /// The findings so far.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// A verdict whose key (`kind`) is a finding already, seen again with a
    /// message of kind `seen`: counted on the finding, `seen` listed among
    /// its examples when new. (No finding yet: nothing to count.)
    pub fn sighted(&mut self, oracle: Oracle, kind: &str, seen: &str) {
        let Some(i) = self
            .findings
            .iter()
            .position(|f| f.oracle == oracle && f.kind == kind)
        else {
            return;
        };
        let f = &mut self.findings[i];
        f.count += 1;
        let distinct = self.seen_with.entry(i).or_default();
        if distinct.insert(seen.to_owned()) {
            f.seen_with_total = distinct.len();
            if f.seen_with.len() < SEEN_WITH_SHOWN {
                f.seen_with.push(seen.to_owned());
            }
        }
    }

    /// Writes the reproducer of a claimed finding and lists it. `kind`:
    /// its key, `seen`: the message kind it was first seen with; `stderr`:
    /// the target's last lines, added to what an `alive` finding saw.
    pub fn save(
        &mut self,
        v: Verdict,
        kind: String,
        seen: String,
        stderr: &[String],
        min: Minimized,
    ) -> Result<(), RunError> {
        let n = self.findings.len() + 1;
        let path = self
            .target
            .report_dir
            .join(format!("{n:03}-{}-{}.json", v.oracle, slug(&kind)));
        let mut saw = v.detail.clone();
        if v.oracle == Oracle::Alive && !stderr.is_empty() {
            saw = format!("{saw}; stderr: {}", stderr.join(" | "));
        }
        let repro = Reproducer {
            format: FORMAT.to_owned(),
            oracle: v.oracle,
            requirement: v.requirement.id.to_owned(),
            level: v.level().to_string(),
            kind: kind.clone(),
            seen: saw,
            version: min.version.as_str().to_owned(),
            timeout_ms: u64::try_from(self.target.timeout.as_millis()).unwrap_or(u64::MAX),
            max_wait_ms: Some(u64::try_from(self.target.max_wait.as_millis()).unwrap_or(u64::MAX)),
            handshake_at: min.handshake_at,
            confirmed: min.confirmed,
            transport: self.target.transport.clone(),
            url: self.target.url.clone(),
            command: self.target.command.clone(),
            inputs: min.inputs.clone(),
        };
        repro.save(&path)?;
        self.seen_with
            .insert(self.findings.len(), HashSet::from([seen.clone()]));
        self.findings.push(Finding {
            oracle: v.oracle,
            level: min.inputs.last().map(|i| i.level),
            requirement: v.requirement.id,
            requirement_level: v.level().to_string(),
            kind,
            detail: v.detail,
            reproducer: path,
            inputs: min.inputs.len(),
            confirmed: min.confirmed,
            count: 1,
            seen_with: vec![seen],
            seen_with_total: 1,
        });
        Ok(())
    }

    /// Notes requests waited for to the end without an answer (one note
    /// per method: how often, the first exec, the longest wait).
    pub fn timed_out(&mut self, late: Vec<TimedOut>) {
        for t in late {
            let note = match self.timeouts.iter_mut().find(|n| n.method == t.method) {
                Some(n) => n,
                None => {
                    self.timeouts.push(TimeoutNote {
                        method: t.method.clone(),
                        count: 0,
                        first_exec: t.exec,
                        waited_ms: 0,
                        progressed: 0,
                    });
                    let last = self.timeouts.len() - 1;
                    &mut self.timeouts[last]
                }
            };
            note.count += 1;
            note.waited_ms = note.waited_ms.max(t.waited_ms);
            note.progressed += u64::from(t.progressed);
        }
    }

    /// The last progress report, and what the run did (`stopped`: why it
    /// ended before its budget was spent).
    pub fn summary(self, progress: &mut dyn FnMut(Progress), stopped: Option<String>) -> Summary {
        progress(self.progress());
        let secs = self.started.elapsed().as_secs_f64();
        Summary {
            execs: self.exec,
            execs_per_sec: rate(
                self.exec,
                secs - (self.on_findings() + self.draining).as_secs_f64(),
            ),
            seconds: secs,
            minimize_seconds: self.minimizing.as_secs_f64(),
            attribute_seconds: self.attributing.as_secs_f64(),
            drain_seconds: self.draining.as_secs_f64(),
            sessions: self.sessions,
            findings: self.findings,
            timeouts: self.timeouts,
            stopped,
        }
    }
}

/// The version a reproducer replays at.
pub(crate) fn replay_version(repro: &Reproducer) -> Result<Version, RunError> {
    repro
        .version
        .parse()
        .map_err(|e: mcpspec_engine::UnknownVersion| {
            RunError::Report(ReproError::Format {
                path: "reproducer".into(),
                reason: e.to_string(),
            })
        })
}

/// What replaying `repro` showed, from what tripped.
pub(crate) fn outcome(repro: &Reproducer, tripped: Vec<Tripped>) -> ReplayOutcome {
    let reproduced = trips(&tripped, repro.oracle, &repro.kind);
    ReplayOutcome {
        reproduced,
        tripped: tripped
            .into_iter()
            .map(|Tripped { verdict, kind, .. }| (verdict, kind))
            .collect(),
    }
}

fn rate(execs: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        execs as f64 / secs
    } else {
        0.0
    }
}

/// A file-name-friendly form of a message kind.
fn slug(kind: &str) -> String {
    kind.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::ids;

    fn target(dir: &std::path::Path) -> ReproTarget {
        ReproTarget {
            report_dir: dir.to_owned(),
            transport: "stdio".into(),
            url: None,
            command: vec!["server".into()],
            timeout: Duration::from_millis(500),
            max_wait: Duration::from_secs(3),
        }
    }

    #[test]
    fn slugs_are_file_names_and_an_idle_rate_is_zero() {
        assert_eq!(slug("request tools/call"), "request-tools-call");
        assert_eq!(slug("sync ping"), "sync-ping");
        assert_eq!(rate(10, 0.0), 0.0);
    }

    #[test]
    fn budgets_count_execs() {
        let mut b = Books::new(Some(2), None, target(std::path::Path::new(".")));
        assert!(b.budget_left());
        b.exec = 2;
        assert!(!b.budget_left());
        let no_time = Books::new(
            None,
            Some(Duration::ZERO),
            target(std::path::Path::new(".")),
        );
        assert!(!no_time.budget_left());
    }

    #[test]
    fn a_claimed_finding_is_saved_once_numbered_with_its_stderr() {
        let dir = std::env::temp_dir().join(format!("mcpspec-books-{}", std::process::id()));
        let mut b = Books::new(None, None, target(&dir));
        assert!(!b.known(Oracle::Alive, "unparsable"));
        assert!(b.claim(Oracle::Alive, "unparsable"));
        assert!(!b.claim(Oracle::Alive, "unparsable"));
        assert!(b.known(Oracle::Alive, "unparsable"));
        let v = Verdict::new(
            Oracle::Alive,
            &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
            "the target exited with code 1".to_owned(),
            Some(0),
        );
        let min = Minimized {
            inputs: Vec::new(),
            handshake_at: 0,
            confirmed: true,
            version: Version::LATEST_HANDSHAKE,
        };
        b.save(
            v,
            "unparsable".to_owned(),
            "unparsable".to_owned(),
            &["boom".to_owned()],
            min,
        )
        .unwrap();
        // Seen again, with another input: counted, listed once.
        for seen in ["unparsable", "invalid json-rpc", "unparsable"] {
            b.sighted(Oracle::Alive, "unparsable", seen);
        }
        b.sighted(Oracle::Ping, "unparsable", "x");
        let f = &b.findings()[0];
        assert_eq!((f.count, f.seen_with_total), (4, 2));
        assert_eq!(f.seen_with, ["unparsable", "invalid json-rpc"]);
        assert_eq!(
            f.reproducer.file_name().and_then(|n| n.to_str()),
            Some("001-alive-unparsable.json")
        );
        let repro = Reproducer::load(&f.reproducer).unwrap();
        assert_eq!(repro.seen, "the target exited with code 1; stderr: boom");
        assert_eq!((repro.timeout_ms, repro.command.len()), (500, 1));
        let out = outcome(
            &repro,
            vec![Tripped {
                verdict: Verdict::new(
                    Oracle::Alive,
                    &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
                    String::new(),
                    None,
                ),
                kind: "unparsable".to_owned(),
                seen: "unparsable".to_owned(),
            }],
        );
        assert!(out.reproduced);
        assert_eq!(replay_version(&repro).unwrap(), Version::LATEST_HANDSHAKE);
        let summary = b.summary(&mut |_| {}, None);
        assert_eq!(summary.findings.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
