//! The fuzzing loop: sessions, restarts, deduplication, minimisation,
//! reproducer files and the summary; and [`replay`].
//!
//! ```text
//!  session 0: connect, handshake (fails ⇒ RunError::Target, exit 3), then execs
//!  session k: connect (over stdio, from k = 2 on, the process was started
//!             when session k-1 began, and booted meanwhile), 0–8 execs
//!             before initialize (none over Streamable HTTP, which has no
//!             session before initialize), handshake, then execs;
//!             an HTTP server that can no longer be reached ends the run
//!             (Summary::stopped)
//!  each exec: generate(seed, exec) ─► derive expectations ─► Session::send ─► verdicts
//!             (stdio: up to --window inputs in flight, those whose answers are
//!             told by id; verdicts come back when judged, with their exec)
//!  a verdict ⇒ key (oracle, cause or message kind: minimize::key_of); a new
//!               key is minimised and saved, a known one counted on its finding
//!               with what it was seen with; the session goes on while the
//!               target still answers, and ends (a fresh one starts) when the
//!               verdict is alive, ping or memory (Oracle::ends_session)
//!  every SESSION_EXECS execs, or SESSION_BYTES of input, a fresh session
//!               (lifecycle coverage, bounded memory and reproducers)
//!  the budget (--runs / --duration) is spent ⇒ wait for owed answers (after
//!               --duration: a --timeout more at most, then noted), stop
//! ```
//!
//! The books of a run (budget, progress, dedup, saving a finding, the
//! summary) are shared with the client loop (`run/common.rs`); the session
//! loop below is the server's own.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpspec_engine::Version;
use serde::Serialize;
use tokio::time::Instant;

use crate::driver::{memory_verdict, Session, SessionConfig, PING_BEFORE_INIT};
use crate::expect::derive;
use crate::gen::{generate, Ctx as GenCtx, Knowledge, Phase};
use crate::history::History;
use crate::input::{Framing, Level};
use crate::minimize::{
    index_in, key_of, kind_at, kind_of, minimize, reproduces, run_sequence, run_to_end, Sequence,
};
use crate::oracle::{Oracle, Verdict};
use crate::repro::{ReproError, Reproducer};
use crate::rng::Rng;
use crate::target::Target;
use common::{outcome, replay_version, Books, Minimized, ReproTarget};

pub(crate) mod common;

/// Execs per session before a fresh one starts.
///
/// Many, because a fresh session costs the target a process start and a
/// cold start: server-everything (Node) takes about 0.45 s of CPU to boot,
/// which the next process spends while the current session runs (on a
/// 2-core machine, beside the target and mcpspec), and a fresh Node answers
/// its first thousand requests at about half the speed it reaches later.
/// `bench/speed.sh`'s fuzz line (60 s against it) on such a machine: 948
/// execs/s at 1000 execs a session, 1,785 at 50 000; the same command run
/// by hand gave 964 at 1000, about 1,400 at 10 000 and 1,560 to 1,800 at
/// 50 000 (issue #18). Bounded, with [`SESSION_BYTES`], so that a session
/// that must be replayed whole (a finding that needs its history) stays
/// replayable; replaying one to find the input it ended on
/// (`Loop::one_at_a_time`) is bounded by time as well.
pub const SESSION_EXECS: u64 = 50_000;
/// The memory a session's inputs may take before a fresh one starts: they
/// are kept to minimise a finding from ([`History`], which stores a long
/// run of one byte as its count), and the count alone would not bound them.
pub const SESSION_BYTES: usize = 16 << 20;
/// Execs between two RSS readings.
const RSS_EVERY: u64 = 128;

/// A fuzzing run.
#[derive(Debug, Clone)]
pub struct Config {
    pub target: Target,
    pub seed: u64,
    /// Stop after this many execs.
    pub runs: Option<u64>,
    /// Stop after this long (the fuzzing loop; minimisation comes on top).
    pub duration: Option<Duration>,
    /// Levels to generate (empty: all).
    pub levels: Vec<Level>,
    pub version: Version,
    /// How long the sync ping is waited for, and how long an owed answer
    /// may go without a sign of life ([`crate::oracle::wait`]).
    pub timeout: Duration,
    /// The most an owed answer is waited for: then a [`TimeoutNote`], not a finding.
    pub max_wait: Duration,
    pub report_dir: PathBuf,
    pub max_line: usize,
    /// Time allowed to minimise one finding.
    pub minimize_budget: Duration,
    /// Resident memory growth over the first reading that counts as a
    /// finding (stdio only).
    pub rss_growth_kib: u64,
    /// Inputs in flight at once over stdio (1: each waits for its sync
    /// ping; see `Session::send` for which inputs are pipelined).
    pub window: usize,
}

impl Config {
    fn session(&self) -> SessionConfig {
        SessionConfig {
            target: self.target.clone(),
            version: self.version,
            timeout: self.timeout,
            max_wait: self.max_wait,
            max_line: self.max_line,
            rss_growth_kib: self.rss_growth_kib,
        }
    }
}

/// One deduplicated, minimised finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub oracle: Oracle,
    /// The generator level of the input that tripped it (`None`: the
    /// handshake did, with no input).
    pub level: Option<Level>,
    pub requirement: &'static str,
    /// `MUST` or `SHOULD`.
    pub requirement_level: String,
    /// The key it was deduplicated by: the cause when the oracle names one
    /// (`invalid params answered with error -32603`), else the message kind
    /// (`request tools/call`).
    pub kind: String,
    pub detail: String,
    /// The reproducer file.
    pub reproducer: PathBuf,
    /// Inputs in the minimised reproducer.
    pub inputs: usize,
    /// The reproducer tripped the oracle again in a fresh process (false:
    /// the finding depends on timing, or on more than the inputs).
    pub confirmed: bool,
    /// How often it tripped in the run.
    pub count: u64,
    /// The message kinds it was seen with (`malformed tools/call`,
    /// `malformed prompts/get`, …), the first few.
    pub seen_with: Vec<String>,
    /// How many distinct message kinds it was seen with.
    pub seen_with_total: usize,
}

/// Requests of one method still unanswered when their wait ended
/// (`--max-wait`): a note of the run, not a finding — MCP sets no deadline
/// for an answer (see [`crate::oracle::wait`]).
#[derive(Debug, Clone, Serialize)]
pub struct TimeoutNote {
    pub method: String,
    /// How many requests of the method.
    pub count: u64,
    /// The exec that sent the first (`None`: a request of the driver's own).
    pub first_exec: Option<u64>,
    /// The longest wait, in ms.
    pub waited_ms: u64,
    /// How many of them had progress under their token meanwhile.
    pub progressed: u64,
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub execs: u64,
    /// Execs per second of fuzzing (minimisation, attribution and the final drain excluded).
    pub execs_per_sec: f64,
    /// Wall time of the whole run.
    pub seconds: f64,
    /// Time spent minimising findings.
    pub minimize_seconds: f64,
    /// Time spent replaying sessions one input at a time, to find which
    /// input of a pipelined window ended the session.
    pub attribute_seconds: f64,
    /// Time spent at the end, the budget spent, waiting for answers still owed.
    pub drain_seconds: f64,
    pub sessions: u64,
    pub findings: Vec<Finding>,
    /// Requests waited for to the end without an answer, per method.
    pub timeouts: Vec<TimeoutNote>,
    /// Why the run ended before its budget was spent (an HTTP server that
    /// could no longer be reached).
    pub stopped: Option<String>,
}

/// Progress, reported about once a second.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub execs: u64,
    pub execs_per_sec: f64,
    pub findings: usize,
    pub sessions: u64,
}

/// Why a run could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The target did not start or completed no handshake (exit code 3).
    #[error("the target could not be run: {0}")]
    Target(String),
    #[error(transparent)]
    Report(#[from] ReproError),
}

struct Loop<'a> {
    cfg: &'a Config,
    scfg: SessionConfig,
    books: Books,
    know: Knowledge,
    /// The negotiated version (what reproducers replay at).
    version: Version,
}

/// Runs the fuzzer. `progress` is called about once a second.
pub async fn fuzz(cfg: &Config, progress: &mut dyn FnMut(Progress)) -> Result<Summary, RunError> {
    let command = match &cfg.target {
        Target::Stdio(c) => std::iter::once(c.program.clone())
            .chain(c.args.clone())
            .collect(),
        _ => Vec::new(),
    };
    let books = Books::new(
        cfg.runs,
        cfg.duration,
        ReproTarget {
            report_dir: cfg.report_dir.clone(),
            transport: cfg.target.transport().to_owned(),
            url: cfg.target.url().map(str::to_owned),
            command,
            timeout: cfg.timeout,
            max_wait: cfg.max_wait,
        },
    );
    let mut l = Loop {
        cfg,
        scfg: cfg.session(),
        books,
        know: Knowledge::default(),
        version: cfg.version,
    };
    let mut no_session = false;
    let mut stopped = None;
    let framing = crate::target::framing(&cfg.target);
    // Over stdio the next session's process is started as soon as one is
    // in use: it boots (an interpreter takes a few hundred ms) while this
    // one is fuzzed, so a fresh session costs no wait for start-up.
    let mut next: Option<Session> = None;
    while !no_session && l.books.budget_left() {
        let first = l.books.sessions == 0;
        let started = match next.take() {
            Some(s) => Ok(s),
            None => Session::connect(&l.scfg).await,
        };
        let mut s = match started {
            Ok(s) => s,
            Err(e) if first => return Err(RunError::Target(e)),
            Err(e) => {
                stopped = Some(gone_message(cfg, l.books.exec, &e));
                break;
            }
        };
        if framing == Framing::Ndjson && !first {
            // (Not before the first session has shown that the target runs.)
            // A start that fails now is tried again, and reported, when due.
            next = Session::connect(&l.scfg).await.ok();
        }
        l.books.sessions += 1;
        // A target that does not answer pings before initialize (a SHOULD)
        // would stall every session's start: once found, start initialized.
        let early_ping_known = l.books.known(Oracle::Ping, PING_BEFORE_INIT);
        let pre_init =
            if first || early_ping_known || framing == (Framing::HttpBody { streamable: true }) {
                0
            } else {
                Rng::new(cfg.seed ^ l.books.sessions.wrapping_mul(0x9E37_79B9)).below(9)
            };
        let mut history = History::new();
        let mut kinds: Vec<String> = Vec::new();
        // Where the handshake falls (also when the session ends before it).
        let mut handshake_at = pre_init;
        let mut tripped: Vec<Verdict> = Vec::new();
        let session_start = l.books.exec;
        let mut rss_base = None;
        loop {
            let spent = !l.books.budget_left();
            if spent
                || l.books.exec - session_start >= SESSION_EXECS
                || history.held_bytes() >= SESSION_BYTES
            {
                // At the end of the run, what is still owed is waited for (a
                // late answer is judged too); a fresh session need not wait,
                // but the inputs in flight are judged.
                if spent {
                    let t = Instant::now();
                    let cutoff = l.books.drain_cutoff(cfg.timeout);
                    tripped.extend(s.drain_until(cutoff).await);
                    l.books.draining += t.elapsed();
                } else {
                    tripped.extend(s.settle().await);
                }
                break;
            }
            if !s.initialized && history.len() >= pre_init {
                handshake_at = history.len();
                if let Err(e) = s.handshake().await {
                    match e.verdict {
                        // The target answers, but with broken output: that is
                        // a finding, and the end of the run (no session is possible).
                        Some(v) if first && matches!(v.oracle, Oracle::Stdout | Oracle::Output) => {
                            no_session = true;
                            tripped.push(v);
                            break;
                        }
                        _ if first => {
                            s.end().await;
                            return Err(RunError::Target(format!(
                                "no handshake with {}: {}",
                                cfg.target.display(),
                                e.message
                            )));
                        }
                        _ => {}
                    }
                    if let Some(why) = s.unreachable() {
                        stopped = Some(gone_message(cfg, l.books.exec, why));
                        no_session = true;
                    }
                    tripped.extend(e.verdict.map(|mut v| {
                        v.exec = history
                            .len()
                            .checked_sub(1)
                            .map(|p| session_start + p as u64);
                        v
                    }));
                    break;
                }
                // What the handshake tripped ends the session when it is new;
                // a known one (the same fault, every session) does not, or
                // sessions without inputs would follow one another forever.
                let carried: Vec<Verdict> = s
                    .take_carry()
                    .into_iter()
                    .filter(|v| {
                        let kind = v.subject.as_deref().unwrap_or("handshake");
                        !l.books.known(v.oracle, &key_of(v, kind))
                    })
                    .collect();
                if !carried.is_empty() {
                    tripped = carried;
                    break;
                }
                l.know = s.know.clone();
                l.version = s.version();
                rss_base = s.rss_kib();
                s.set_window(cfg.window);
            }
            let phase = if s.initialized {
                Phase::Operating
            } else {
                Phase::BeforeInit
            };
            let gctx = GenCtx {
                version: s.version(),
                phase,
                know: &l.know,
                exec: l.books.exec,
                framing,
            };
            let input = crate::gen::bytes::tame(
                generate(cfg.seed, &cfg.levels, gctx),
                &mut l.books.huge_sent,
            );
            let expects = derive(&input, s.expect_ctx());
            kinds.push(kind_of(&expects));
            let v = s.send(l.books.exec, &input, &expects).await;
            history.push(input);
            l.books.timed_out(s.take_timeouts());
            l.books.exec += 1;
            l.books.tick(progress);
            if v.iter().any(|v| v.oracle.ends_session()) || s.exited() {
                tripped = v;
                break;
            }
            // A known finding seen again is counted; the session's inputs
            // are copied (to minimise from) only for a new one.
            let v: Vec<Verdict> = v
                .into_iter()
                .filter(|v| {
                    let seen = kind_at(v, session_start, &kinds);
                    let known = l.books.known(v.oracle, &key_of(v, &seen));
                    if known {
                        l.books.sighted(v.oracle, &key_of(v, &seen), &seen);
                    }
                    !known
                })
                .collect();
            if !v.is_empty() {
                // The target still answers: what it did is recorded now,
                // and the session goes on (no restart per finding).
                let seq = Sequence {
                    inputs: history.to_vec(),
                    handshake_at,
                };
                let stderr = s.stderr_tail().to_vec();
                for v in v {
                    let idx = index_in(&v, session_start);
                    let seen = kind_at(&v, session_start, &kinds);
                    l.record(&seq, idx, v, seen, &stderr).await?;
                }
            }
            if s.initialized && l.books.exec % RSS_EVERY == 0 {
                if let (Some(base), Some(now)) = (rss_base, s.rss_kib()) {
                    let last = Some(l.books.exec - 1);
                    if let Some(v) = memory_verdict(base, now, cfg.rss_growth_kib, last) {
                        tripped.push(v);
                        break;
                    }
                }
            }
        }
        let stderr = s.stderr_tail().to_vec();
        l.books.timed_out(s.take_timeouts());
        let ambiguous = s.ended_in_window();
        s.end().await;
        drop(s);
        if tripped.is_empty() {
            continue; // nothing to minimise: the history is not unpacked
        }
        let seq = Sequence {
            inputs: history.to_vec(),
            handshake_at,
        };
        if ambiguous && tripped.iter().any(|v| v.oracle.ends_session()) {
            let t = Instant::now();
            tripped = l.one_at_a_time(&seq, session_start, tripped).await;
            l.books.attributing += t.elapsed();
        }
        for v in tripped {
            let idx = index_in(&v, session_start);
            let seen = kind_at(&v, session_start, &kinds);
            l.record(&seq, idx, v, seen, &stderr).await?;
        }
    }
    if let Some(mut n) = next {
        n.end().await;
    }
    Ok(l.books.summary(progress, stopped))
}

/// Why the run stopped early: the HTTP server can no longer be reached.
fn gone_message(cfg: &Config, exec: u64, why: &str) -> String {
    format!(
        "stopped after {exec} execs: no new session with {} ({why})",
        cfg.target.display()
    )
}

impl Loop<'_> {
    /// The session ended with inputs in flight: which one it ended on is
    /// found by sending the session's inputs again one at a time in a
    /// fresh process, and what ends that run replaces what ended the
    /// window (non-ending verdicts were recorded already). When nothing
    /// ends it, the window's verdicts stand (the end needed the timing);
    /// so they do when the replay takes longer than minimising a finding
    /// may (`--minimize-time`: a long session replayed one input at a time
    /// could take minutes).
    async fn one_at_a_time(
        &self,
        seq: &Sequence,
        session_start: u64,
        tripped: Vec<Verdict>,
    ) -> Vec<Verdict> {
        let replay = run_to_end(&self.scfg, seq);
        let Ok(Ok(again)) = tokio::time::timeout(self.cfg.minimize_budget, replay).await else {
            return tripped;
        };
        let ending: Vec<Verdict> = again
            .into_iter()
            .map(|t| t.verdict)
            .filter(|v| v.oracle.ends_session())
            .map(|mut v| {
                v.exec = v.exec.map(|e| e + session_start);
                v
            })
            .collect();
        if ending.is_empty() {
            tripped
        } else {
            ending
        }
    }

    /// A new (oracle, key) is minimised and saved; a known one is counted
    /// on its finding, with `seen`, the message kind it was seen with.
    async fn record(
        &mut self,
        seq: &Sequence,
        idx: Option<usize>,
        v: Verdict,
        seen: String,
        stderr: &[String],
    ) -> Result<(), RunError> {
        let kind = key_of(&v, &seen);
        if !self.books.claim(v.oracle, &kind) {
            self.books.sighted(v.oracle, &kind, &seen);
            return Ok(());
        }
        let t = Instant::now();
        let (min, confirmed) = match idx {
            Some(trigger) if trigger < seq.inputs.len() => {
                minimize(
                    &self.scfg,
                    seq,
                    trigger,
                    v.oracle,
                    &kind,
                    self.cfg.minimize_budget,
                )
                .await
            }
            // Tripped by the handshake: what came before it is the reproducer.
            _ => {
                let before = Sequence {
                    inputs: seq.inputs[..seq.handshake_at.min(seq.inputs.len())].to_vec(),
                    handshake_at: seq.handshake_at,
                };
                let ok = reproduces(&self.scfg, &before, v.oracle, &kind).await;
                (before, ok)
            }
        };
        self.books.minimizing += t.elapsed();
        let min = Minimized {
            handshake_at: min.handshake_at.min(min.inputs.len()),
            inputs: min.inputs,
            confirmed,
            version: self.version,
        };
        self.books.save(v, kind, seen, stderr, min)
    }
}

/// What replaying a reproducer showed.
#[derive(Debug, Clone)]
pub struct ReplayOutcome {
    /// The reproducer's oracle tripped again on the same kind of message.
    pub reproduced: bool,
    /// Everything that tripped.
    pub tripped: Vec<(Verdict, String)>,
}

/// Runs a reproducer against `target` (when `None`: the command or URL the
/// reproducer names, over its transport).
pub async fn replay(
    repro: &Reproducer,
    target: Option<Target>,
    max_line: usize,
) -> Result<ReplayOutcome, RunError> {
    let version = replay_version(repro)?;
    let target = match target {
        Some(t) => t,
        None => repro.target().map_err(RunError::Target)?,
    };
    let cfg = SessionConfig {
        target,
        version,
        timeout: Duration::from_millis(repro.timeout_ms),
        max_wait: repro.max_wait(),
        max_line,
        rss_growth_kib: crate::driver::DEFAULT_RSS_GROWTH_KIB,
    };
    let seq = Sequence {
        inputs: repro.inputs.clone(),
        handshake_at: repro.handshake_at,
    };
    let tripped = run_sequence(&cfg, &seq).await.map_err(RunError::Target)?;
    Ok(outcome(repro, tripped))
}

/// The default report directory: `reports/fuzz/<run>/`, `<run>` from the seed and the clock.
pub fn default_report_dir(seed: u64) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Path::new("reports")
        .join("fuzz")
        .join(format!("{secs}-seed{seed}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_dirs_are_under_reports_fuzz() {
        assert!(default_report_dir(7).starts_with("reports/fuzz"));
    }
}
