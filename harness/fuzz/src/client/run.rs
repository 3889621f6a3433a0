//! The client fuzzing loop: sessions, restarts, deduplication,
//! minimisation, reproducer files and the summary; and [`replay_client`].
//!
//! ```text
//!  session 0: start the client, serve its handshake (fails ⇒ RunError::Target, exit 3)
//!  session k: the same; a client that leaves during the handshake FAILED_SESSIONS
//!             times in a row ends the run (Summary::stopped)
//!  each exec: generate(seed, exec, version) ─► derive what the client owes ─► exec ─► verdicts
//!  a verdict ⇒ key (oracle, message kind); a new key is minimised and saved;
//!               the session ends and a fresh client starts (also after a crash;
//!               known keys of a client still alive and answering do not end it)
//!  a client that ends its session cleanly, or gives up the held request ⇒ a fresh client
//!  every SESSION_EXECS execs, or after --session-time, a fresh client
//!  the client answers no ping even without input (a confirmed finding with
//!               no input) ⇒ nothing can be synchronised on: the run stops
//!  the budget (--runs / --duration) is spent ⇒ wait for owed answers, stop
//! ```
//!
//! Findings use the server fuzzer's types ([`Finding`], [`Summary`]) and
//! reproducer format ([`Reproducer`]), with transport [`TRANSPORT`]: the
//! `command` is the client's, `{server}` included, and `version` the one
//! `initialize` was answered with.

use std::collections::HashSet;
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
use crate::minimize::Tripped;
use crate::oracle::{Oracle, Verdict};
use crate::repro::{ReproError, Reproducer, FORMAT};
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
    pub timeout: Duration,
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
            max_line: self.max_line,
        }
    }
}

struct Loop<'a> {
    cfg: &'a ClientFuzzConfig,
    seen: HashSet<(Oracle, String)>,
    findings: Vec<Finding>,
    exec: u64,
    sessions: u64,
    minimizing: Duration,
}

/// Fuzzes a client. `progress` is called about once a second.
pub async fn fuzz_client(
    cfg: &ClientFuzzConfig,
    progress: &mut dyn FnMut(Progress),
) -> Result<Summary, RunError> {
    let mut l = Loop {
        cfg,
        seen: HashSet::new(),
        findings: Vec::new(),
        exec: 0,
        sessions: 0,
        minimizing: Duration::ZERO,
    };
    let started = Instant::now();
    let mut last_report = Instant::now();
    let budget_left = |exec: u64, paused: Duration| {
        cfg.runs.is_none_or(|r| exec < r)
            && cfg.duration.is_none_or(|d| started.elapsed() < d + paused)
    };
    let scfg = cfg.session(cfg.version);
    let mut stopped = None;
    let mut failed_in_row = 0;
    while budget_left(l.exec, l.minimizing) {
        let first = l.sessions == 0;
        let mut s = match ClientSession::connect(&scfg).await {
            Ok(s) => s,
            Err(e) if first => return Err(RunError::Target(e)),
            Err(e) => {
                stopped = Some(format!(
                    "stopped after {} execs: the client could not be started again ({e})",
                    l.exec
                ));
                break;
            }
        };
        l.sessions += 1;
        let mut history: Vec<Input> = Vec::new();
        let mut kinds: Vec<String> = Vec::new();
        let mut tripped: Vec<Verdict> = Vec::new();
        let session_start = l.exec;
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
                        l.exec, failed_in_row, e.message
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
                    .filter(|v| !l.seen.contains(&(v.oracle, kind_at(v, 0, &[]))))
                    .collect();
                while tripped.is_empty() {
                    let spent = !budget_left(l.exec, l.minimizing);
                    let rotate =
                        l.exec - session_start >= SESSION_EXECS || t0.elapsed() >= cfg.session_time;
                    if spent || rotate {
                        tripped.extend(s.drain().await);
                        break;
                    }
                    let input = generate(cfg.seed, &cfg.levels, s.version(), l.exec);
                    let expects = derive(&input, s.version(), s.capabilities());
                    kinds.push(kind(&expects));
                    history.push(input.clone());
                    let v = s.exec(l.exec, &input, &expects).await;
                    l.exec += 1;
                    // A finding ends the session; a known one that leaves the
                    // client alive and answering does not.
                    let news = v.iter().any(|v| {
                        matches!(v.oracle, Oracle::Alive | Oracle::Ping)
                            || !l
                                .seen
                                .contains(&(v.oracle, kind_at(v, session_start, &kinds)))
                    });
                    if news {
                        tripped = v;
                    }
                    if last_report.elapsed() >= Duration::from_secs(1) {
                        last_report = Instant::now();
                        progress(l.progress(started));
                    }
                    if s.exited() || s.wound_down() {
                        break;
                    }
                }
            }
        }
        let stderr = s.stderr_tail().to_vec();
        let version = s.version();
        s.end().await;
        drop(s);
        for v in tripped {
            let idx = index(&v, session_start);
            let kind = kind_at(&v, session_start, &kinds);
            l.record(&history, idx, v, kind, version, &stderr).await?;
        }
        if let Some(f) = l.findings.iter().find(|f| mute(f)) {
            stopped = Some(format!(
                "stopped after {} execs: the client answers no ping, even without input, so no input can be synchronised on ({})",
                l.exec,
                f.reproducer.display()
            ));
            break;
        }
        if stop {
            break;
        }
    }
    progress(l.progress(started));
    let secs = started.elapsed().as_secs_f64();
    Ok(Summary {
        execs: l.exec,
        execs_per_sec: rate(l.exec, secs - l.minimizing.as_secs_f64()),
        seconds: secs,
        minimize_seconds: l.minimizing.as_secs_f64(),
        sessions: l.sessions,
        findings: l.findings,
        stopped,
    })
}

/// The index in its session of the input a verdict is attributed to.
fn index(v: &Verdict, session_start: u64) -> Option<usize> {
    v.exec
        .and_then(|e| usize::try_from(e.checked_sub(session_start)?).ok())
}

/// The message kind of a verdict: the oracle's subject, else the kind of
/// its input, else "handshake".
fn kind_at(v: &Verdict, session_start: u64, kinds: &[String]) -> String {
    v.subject.clone().unwrap_or_else(|| {
        index(v, session_start)
            .and_then(|i| kinds.get(i))
            .cloned()
            .unwrap_or_else(|| "handshake".to_owned())
    })
}

/// A finding that the client answers no ping at all: every exec would
/// wait out the timeout, so the run stops.
fn mute(f: &Finding) -> bool {
    f.oracle == Oracle::Ping && f.inputs == 0 && f.confirmed
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

impl Loop<'_> {
    fn progress(&self, started: Instant) -> Progress {
        Progress {
            execs: self.exec,
            execs_per_sec: rate(
                self.exec,
                started
                    .elapsed()
                    .saturating_sub(self.minimizing)
                    .as_secs_f64(),
            ),
            findings: self.findings.len(),
            sessions: self.sessions,
        }
    }

    /// A new (oracle, kind) is minimised and saved; a known one is dropped.
    async fn record(
        &mut self,
        history: &[Input],
        idx: Option<usize>,
        v: Verdict,
        kind: String,
        version: Version,
        stderr: &[String],
    ) -> Result<(), RunError> {
        if !self.seen.insert((v.oracle, kind.clone())) {
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
        self.minimizing += t.elapsed();
        let n = self.findings.len() + 1;
        let path = self
            .cfg
            .report_dir
            .join(format!("{n:03}-{}-{}.json", v.oracle, slug(&kind)));
        let mut seen = v.detail.clone();
        if v.oracle == Oracle::Alive && !stderr.is_empty() {
            seen = format!("{seen}; stderr: {}", stderr.join(" | "));
        }
        let command = match &self.cfg.target {
            Target::Client(c) => std::iter::once(c.command.program.clone())
                .chain(c.command.args.clone())
                .collect(),
            _ => Vec::new(),
        };
        let repro = Reproducer {
            format: FORMAT.to_owned(),
            oracle: v.oracle,
            requirement: v.requirement.id.to_owned(),
            level: v.level().to_string(),
            kind: kind.clone(),
            seen,
            version: version.as_str().to_owned(),
            timeout_ms: u64::try_from(self.cfg.timeout.as_millis()).unwrap_or(u64::MAX),
            handshake_at: 0,
            confirmed,
            transport: TRANSPORT.to_owned(),
            url: None,
            command,
            inputs: inputs.clone(),
        };
        repro.save(&path)?;
        self.findings.push(Finding {
            oracle: v.oracle,
            level: inputs.last().map(|i| i.level),
            requirement: v.requirement.id,
            requirement_level: v.level().to_string(),
            kind,
            detail: v.detail,
            reproducer: path,
            inputs: inputs.len(),
            confirmed,
        });
        Ok(())
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
    let version: Version = repro
        .version
        .parse()
        .map_err(|e: mcpspec_engine::UnknownVersion| {
            RunError::Report(ReproError::Format {
                path: "reproducer".into(),
                reason: e.to_string(),
            })
        })?;
    let cfg = SessionConfig {
        target,
        version: Some(version),
        timeout: Duration::from_millis(repro.timeout_ms),
        max_line,
    };
    let tripped = run_sequence(&cfg, &repro.inputs)
        .await
        .map_err(RunError::Target)?;
    let reproduced = tripped
        .iter()
        .any(|t| t.verdict.oracle == repro.oracle && t.kind == repro.kind);
    Ok(ReplayOutcome {
        reproduced,
        tripped: tripped
            .into_iter()
            .map(|Tripped { verdict, kind }| (verdict, kind))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(slug("sync ping"), "sync-ping");
        assert_eq!(rate(3, 0.0), 0.0);
    }
}
