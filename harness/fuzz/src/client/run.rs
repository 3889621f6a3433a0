//! The client fuzzing loop: sessions, restarts, deduplication,
//! minimisation, reproducer files and the summary; and [`replay_client`].
//!
//! ```text
//!  session 0: start the client, serve its handshake (fails ⇒ RunError::Target, exit 3)
//!  session k: the same; a client that leaves during the handshake FAILED_SESSIONS
//!             times in a row ends the run (Summary::stopped)
//!  each exec: generate(seed, exec, version) ─► derive what the client owes ─► exec ─► verdicts
//!  a verdict ⇒ key (oracle, cause or message kind); a new key is minimised and
//!               saved, a known one counted; the session ends and a fresh client
//!               starts only after alive or ping (a client still answering goes on)
//!  a client that ends its session cleanly, or gives up the held request ⇒ a fresh client
//!  every SESSION_EXECS execs, or after --session-time, a fresh client
//!  the client answers no ping even without input (a confirmed finding with
//!               no input) ⇒ nothing can be synchronised on: the run stops
//!  the budget (--runs / --duration) is spent ⇒ wait for owed answers, stop
//! ```
//!
//! The books of the run (budget, progress, dedup, saving a finding, the
//! summary) are the server loop's (`run/common.rs`); so are the
//! types ([`Finding`], [`Summary`]) and the reproducer format
//! ([`Reproducer`]), with transport [`TRANSPORT`]: the
//! `command` is the client's, `{server}` included, and `version` the one
//! `initialize` was answered with.

use std::path::PathBuf;
use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_transport::{ClientCommand, CommandSpec};
use tokio::time::Instant;

use super::driver::{ClientSession, SessionConfig};
use super::expect::{derive, kind};
use super::gen::generate;
use super::minimize::{minimize, reproduces, run_sequence};
use crate::input::{Input, Level};
use crate::minimize::{index_in, key_of, kind_at};
use crate::oracle::{Oracle, Verdict};
use crate::repro::Reproducer;
use crate::run::common::{outcome, replay_version, Books, Minimized, ReproTarget};
use crate::run::{Finding, Progress, ReplayOutcome, RunError, Summary};
use crate::target::Target;

/// The `transport` of a client reproducer: a client reaching the harness
/// through `{server}` (stdio).
pub const TRANSPORT: &str = "client";

/// Execs per session before a fresh client starts.
pub const SESSION_EXECS: u64 = 250;

/// Failed handshakes in a row (the client leaves at once) that end the run.
const FAILED_SESSIONS: u32 = 3;

/// A client fuzzing run.
#[derive(Debug, Clone)]
pub struct ClientFuzzConfig {
    /// A [`Target::Client`] whose command uses `{server}` (or none: appended).
    pub target: Target,
    pub seed: u64,
    /// Stop after this many execs.
    pub runs: Option<u64>,
    /// Stop after this long (the fuzzing loop; minimisation comes on top).
    pub duration: Option<Duration>,
    /// Levels to generate (empty: all).
    pub levels: Vec<Level>,
    /// The version to answer `initialize` with (`None`: the client's own).
    pub version: Option<Version>,
    /// How long the sync ping is waited for, and how long an owed answer
    /// may go without a sign of life ([`crate::oracle::wait`]).
    pub timeout: Duration,
    /// The most an owed answer is waited for: then a note, not a finding.
    pub max_wait: Duration,
    pub report_dir: PathBuf,
    pub max_line: usize,
    /// Time allowed to minimise one finding.
    pub minimize_budget: Duration,
    /// A fresh client after this long (under the client's own request
    /// timeout, after which it may give up the held request and leave).
    pub session_time: Duration,
}

impl ClientFuzzConfig {
    fn session(&self, version: Option<Version>) -> SessionConfig {
        SessionConfig {
            target: self.target.clone(),
            version,
            timeout: self.timeout,
            max_wait: self.max_wait,
            max_line: self.max_line,
        }
    }
}

struct Loop<'a> {
    cfg: &'a ClientFuzzConfig,
    books: Books,
}

/// Fuzzes a client. `progress` is called about once a second.
pub async fn fuzz_client(
    cfg: &ClientFuzzConfig,
    progress: &mut dyn FnMut(Progress),
) -> Result<Summary, RunError> {
    let command = match &cfg.target {
        Target::Client(c) => std::iter::once(c.command.program.clone())
            .chain(c.command.args.clone())
            .collect(),
        _ => Vec::new(),
    };
    let books = Books::new(
        cfg.runs,
        cfg.duration,
        ReproTarget {
            report_dir: cfg.report_dir.clone(),
            transport: TRANSPORT.to_owned(),
            url: None,
            command,
            timeout: cfg.timeout,
            max_wait: cfg.max_wait,
        },
    );
    let mut l = Loop { cfg, books };
    let scfg = cfg.session(cfg.version);
    let mut stopped = None;
    let mut failed_in_row = 0;
    while l.books.budget_left() {
        let first = l.books.sessions == 0;
        let mut s = match ClientSession::connect(&scfg).await {
            Ok(s) => s,
            Err(e) if first => return Err(RunError::Target(e)),
            Err(e) => {
                stopped = Some(format!(
                    "stopped after {} execs: the client could not be started again ({e})",
                    l.books.exec
                ));
                break;
            }
        };
        l.books.sessions += 1;
        let mut history: Vec<Input> = Vec::new();
        let mut kinds: Vec<String> = Vec::new();
        let mut tripped: Vec<Verdict> = Vec::new();
        let session_start = l.books.exec;
        let t0 = Instant::now();
        let mut stop = false;
        match s.handshake().await {
            Err(e) => {
                s.end().await;
                let broken = e
                    .verdict
                    .as_ref()
                    .is_some_and(|v| v.oracle == Oracle::Stdout);
                if first && !broken {
                    let stderr = match s.stderr_tail() {
                        [] => String::new(),
                        lines => format!("; its last output: {}", lines.join(" | ")),
                    };
                    return Err(RunError::Target(format!(
                        "no session with {}: {}{stderr}",
                        cfg.target.display(),
                        e.message
                    )));
                }
                failed_in_row += 1;
                if first || failed_in_row >= FAILED_SESSIONS {
                    stopped = Some(format!(
                        "stopped after {} execs: {} sessions in a row ended during the handshake ({})",
                        l.books.exec, failed_in_row, e.message
                    ));
                    stop = true;
                }
                tripped.extend(e.verdict);
            }
            Ok(()) => {
                failed_in_row = 0;
                // What the handshake tripped ends the session when it is new;
                // a known one (every session's) does not.
                tripped = s
                    .take_carry()
                    .into_iter()
                    .filter(|v| !l.books.known(v.oracle, &key_of(v, &kind_at(v, 0, &[]))))
                    .collect();
                while tripped.is_empty() {
                    let spent = !l.books.budget_left();
                    // Clients also restart by time: a client may give up the
                    // held request after its own timeout (server sessions
                    // rotate by execs only).
                    let rotate = l.books.exec - session_start >= SESSION_EXECS
                        || t0.elapsed() >= cfg.session_time;
                    if spent || rotate {
                        // At the end of the run, what is still owed is
                        // waited for; a fresh client need not wait.
                        if spent {
                            let t = tokio::time::Instant::now();
                            let cutoff = l.books.drain_cutoff(cfg.timeout);
                            tripped.extend(s.drain_until(cutoff).await);
                            l.books.draining += t.elapsed();
                        }
                        break;
                    }
                    let input = crate::gen::bytes::tame(
                        generate(cfg.seed, &cfg.levels, s.version(), l.books.exec),
                        &mut l.books.huge_sent,
                    );
                    let expects = derive(&input, s.version(), s.capabilities());
                    kinds.push(kind(&expects));
                    history.push(input.clone());
                    let v = s.exec(l.books.exec, &input, &expects).await;
                    l.books.timed_out(s.take_timeouts());
                    l.books.exec += 1;
                    // A client gone or not answering ends the session; any
                    // other finding is recorded now and the session goes on.
                    if v.iter().any(|v| v.oracle.ends_session()) {
                        tripped = v;
                    } else {
                        for v in v {
                            let idx = index_in(&v, session_start);
                            let seen = kind_at(&v, session_start, &kinds);
                            let stderr = s.stderr_tail().to_vec();
                            l.record(&history, idx, v, seen, s.version(), &stderr)
                                .await?;
                        }
                    }
                    l.books.tick(progress);
                    if s.exited() || s.wound_down() {
                        break;
                    }
                }
            }
        }
        let stderr = s.stderr_tail().to_vec();
        l.books.timed_out(s.take_timeouts());
        let version = s.version();
        s.end().await;
        drop(s);
        for v in tripped {
            let idx = index_in(&v, session_start);
            let seen = kind_at(&v, session_start, &kinds);
            l.record(&history, idx, v, seen, version, &stderr).await?;
        }
        if let Some(f) = l.books.findings().iter().find(|f| mute(f)) {
            stopped = Some(format!(
                "stopped after {} execs: the client answers no ping, even without input, so no input can be synchronised on ({})",
                l.books.exec,
                f.reproducer.display()
            ));
            break;
        }
        if stop {
            break;
        }
    }
    Ok(l.books.summary(progress, stopped))
}

/// A finding that the client answers no ping at all: every exec would
/// wait out the timeout, so the run stops.
fn mute(f: &Finding) -> bool {
    f.oracle == Oracle::Ping && f.inputs == 0 && f.confirmed
}

impl Loop<'_> {
    /// A new (oracle, key) is minimised and saved; a known one is counted
    /// on its finding, with `seen`, the message kind it was seen with.
    async fn record(
        &mut self,
        history: &[Input],
        idx: Option<usize>,
        v: Verdict,
        seen: String,
        version: Version,
        stderr: &[String],
    ) -> Result<(), RunError> {
        let kind = key_of(&v, &seen);
        if !self.books.claim(v.oracle, &kind) {
            self.books.sighted(v.oracle, &kind, &seen);
            return Ok(());
        }
        // Trials answer initialize as the session did.
        let scfg = self.cfg.session(Some(version));
        let t = Instant::now();
        let budget = self.cfg.minimize_budget;
        let (inputs, confirmed) = match idx {
            Some(trigger) if trigger < history.len() => {
                minimize(&scfg, history, trigger, v.oracle, &kind, budget).await
            }
            // Tripped by the handshake: no input is needed.
            _ => (Vec::new(), reproduces(&scfg, &[], v.oracle, &kind).await),
        };
        self.books.minimizing += t.elapsed();
        // No input goes before the handshake of a client.
        let min = Minimized {
            inputs,
            handshake_at: 0,
            confirmed,
            version,
        };
        self.books.save(v, kind, seen, stderr, min)
    }
}

/// The client a reproducer names (its `command`, `{server}` included),
/// reaching the harness through `shim`.
pub fn reproducer_target(repro: &Reproducer, shim: CommandSpec) -> Result<Target, String> {
    let Some((program, args)) = repro.command.split_first() else {
        return Err("the reproducer names no client command; give one after --".into());
    };
    Ok(Target::Client(ClientCommand {
        command: CommandSpec::new(program.clone(), args.iter().cloned()),
        shim,
    }))
}

/// Runs a client reproducer against `target` (a fresh client).
pub async fn replay_client(
    repro: &Reproducer,
    target: Target,
    max_line: usize,
) -> Result<ReplayOutcome, RunError> {
    let version = replay_version(repro)?;
    let cfg = SessionConfig {
        target,
        version: Some(version),
        timeout: Duration::from_millis(repro.timeout_ms),
        max_wait: repro.max_wait(),
        max_line,
    };
    let tripped = run_sequence(&cfg, &repro.inputs)
        .await
        .map_err(RunError::Target)?;
    Ok(outcome(repro, tripped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::FORMAT;

    #[test]
    fn client_reproducers_name_their_client() {
        let repro = Reproducer {
            format: FORMAT.into(),
            oracle: Oracle::Ping,
            requirement: "ping.respond".into(),
            level: "MUST".into(),
            kind: "sync ping".into(),
            seen: "x".into(),
            version: "2025-11-25".into(),
            timeout_ms: 500,
            max_wait_ms: None,
            handshake_at: 0,
            confirmed: true,
            transport: TRANSPORT.into(),
            url: None,
            command: vec!["client".into(), "{server}".into()],
            inputs: Vec::new(),
        };
        let shim = CommandSpec::new("mcpspec", ["shim"]);
        let Ok(Target::Client(c)) = reproducer_target(&repro, shim.clone()) else {
            panic!("a client target");
        };
        assert_eq!(c.command.args, ["{server}"]);
        assert_eq!(c.transport(), "stdio");
        let empty = Reproducer {
            command: Vec::new(),
            ..repro
        };
        assert!(reproducer_target(&empty, shim).is_err());
    }
}
