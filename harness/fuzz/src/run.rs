//! The fuzzing loop: sessions, restarts, deduplication, minimisation,
//! reproducer files and the summary; and [`replay`].
//!
//! ```text
//!  session 0: connect, handshake (fails ⇒ RunError::Target, exit 3), then execs
//!  session k: connect, 0–8 execs before initialize (none over Streamable HTTP,
//!             which has no session before initialize), handshake, then execs;
//!             an HTTP server that can no longer be reached ends the run
//!             (Summary::stopped)
//!  each exec: generate(seed, exec) ─► derive expectations ─► Session::exec ─► verdicts
//!  a verdict ⇒ key (oracle, message kind); a new key is minimised and saved;
//!               the session ends and a fresh one starts (also after a crash)
//!  every SESSION_EXECS execs a fresh session (lifecycle coverage, bounded reproducers)
//!  the budget (--runs / --duration) is spent ⇒ wait for owed answers, stop
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpspec_engine::Version;
use serde::Serialize;
use tokio::time::Instant;

use crate::driver::{memory_verdict, Session, SessionConfig, PING_BEFORE_INIT};
use crate::expect::derive;
use crate::gen::{generate, Ctx as GenCtx, Knowledge, Phase};
use crate::input::{Framing, Input, Level};
use crate::minimize::{kind_of, minimize, reproduces, run_sequence, Sequence, Tripped};
use crate::oracle::{Oracle, Verdict};
use crate::repro::{ReproError, Reproducer, FORMAT};
use crate::rng::Rng;
use crate::target::Target;

/// Execs per session before a fresh one starts.
pub const SESSION_EXECS: u64 = 1000;
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
    pub timeout: Duration,
    pub report_dir: PathBuf,
    pub max_line: usize,
    /// Time allowed to minimise one finding.
    pub minimize_budget: Duration,
    /// Resident memory growth over the first reading that counts as a
    /// finding (stdio only).
    pub rss_growth_kib: u64,
}

impl Config {
    fn session(&self) -> SessionConfig {
        SessionConfig {
            target: self.target.clone(),
            version: self.version,
            timeout: self.timeout,
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
    /// The message kind it was deduplicated by.
    pub kind: String,
    pub detail: String,
    /// The reproducer file.
    pub reproducer: PathBuf,
    /// Inputs in the minimised reproducer.
    pub inputs: usize,
    /// The reproducer tripped the oracle again in a fresh process (false:
    /// the finding depends on timing, or on more than the inputs).
    pub confirmed: bool,
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub execs: u64,
    /// Execs per second of fuzzing (minimisation excluded).
    pub execs_per_sec: f64,
    /// Wall time of the whole run.
    pub seconds: f64,
    /// Time spent minimising findings.
    pub minimize_seconds: f64,
    pub sessions: u64,
    pub findings: Vec<Finding>,
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
    seen: HashSet<(Oracle, String)>,
    findings: Vec<Finding>,
    know: Knowledge,
    /// The negotiated version (what reproducers replay at).
    version: Version,
    exec: u64,
    sessions: u64,
    /// Time spent minimising: not fuzzing, so not part of the budget or the rate.
    minimizing: Duration,
}

/// Runs the fuzzer. `progress` is called about once a second.
pub async fn fuzz(cfg: &Config, progress: &mut dyn FnMut(Progress)) -> Result<Summary, RunError> {
    let mut l = Loop {
        cfg,
        scfg: cfg.session(),
        seen: HashSet::new(),
        findings: Vec::new(),
        know: Knowledge::default(),
        version: cfg.version,
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
    let mut no_session = false;
    let mut stopped = None;
    let framing = crate::target::framing(&cfg.target);
    while !no_session && budget_left(l.exec, l.minimizing) {
        let first = l.sessions == 0;
        let mut s = match Session::connect(&l.scfg).await {
            Ok(s) => s,
            Err(e) if first => return Err(RunError::Target(e)),
            Err(e) => {
                stopped = Some(gone_message(cfg, l.exec, &e));
                break;
            }
        };
        l.sessions += 1;
        // A target that does not answer pings before initialize (a SHOULD)
        // would stall every session's start: once found, start initialized.
        let early_ping_known = l
            .seen
            .contains(&(Oracle::Ping, PING_BEFORE_INIT.to_owned()));
        let pre_init =
            if first || early_ping_known || framing == (Framing::HttpBody { streamable: true }) {
                0
            } else {
                Rng::new(cfg.seed ^ l.sessions.wrapping_mul(0x9E37_79B9)).below(9)
            };
        let mut history: Vec<Input> = Vec::new();
        let mut kinds: Vec<String> = Vec::new();
        // Where the handshake falls (also when the session ends before it).
        let mut handshake_at = pre_init;
        let mut tripped: Vec<Verdict> = Vec::new();
        let session_start = l.exec;
        let mut rss_base = None;
        loop {
            let spent = !budget_left(l.exec, l.minimizing);
            if spent || l.exec - session_start >= SESSION_EXECS {
                // Waiting for answers only matters when it can find something new.
                let known = s.judge.owed_methods().all(|m| {
                    l.seen
                        .contains(&(Oracle::Unanswered, format!("request {m}")))
                });
                if spent || !known {
                    tripped.extend(s.drain().await);
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
                        stopped = Some(gone_message(cfg, l.exec, why));
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
                        let kind = v.subject.clone().unwrap_or_else(|| "handshake".to_owned());
                        !l.seen.contains(&(v.oracle, kind))
                    })
                    .collect();
                if !carried.is_empty() {
                    tripped = carried;
                    break;
                }
                l.know = s.know.clone();
                l.version = s.version();
                rss_base = s.rss_kib();
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
                exec: l.exec,
                framing,
            };
            let input = generate(cfg.seed, &cfg.levels, gctx);
            let expects = derive(&input, s.expect_ctx());
            kinds.push(kind_of(&expects));
            history.push(input.clone());
            let v = s.exec(l.exec, &input, &expects).await;
            l.exec += 1;
            if last_report.elapsed() >= Duration::from_secs(1) {
                last_report = Instant::now();
                progress(l.progress(started));
            }
            if !v.is_empty() {
                tripped = v;
                break;
            }
            if s.initialized && l.exec % RSS_EVERY == 0 {
                if let (Some(base), Some(now)) = (rss_base, s.rss_kib()) {
                    let last = Some(l.exec - 1);
                    if let Some(v) = memory_verdict(base, now, cfg.rss_growth_kib, last) {
                        tripped.push(v);
                        break;
                    }
                }
            }
        }
        let stderr = s.stderr_tail().to_vec();
        s.end().await;
        drop(s);
        let seq = Sequence {
            inputs: history,
            handshake_at,
        };
        for v in tripped {
            let idx = v
                .exec
                .and_then(|e| usize::try_from(e.checked_sub(session_start)?).ok());
            let kind = v.subject.clone().unwrap_or_else(|| {
                idx.and_then(|i| kinds.get(i))
                    .cloned()
                    .unwrap_or_else(|| "handshake".to_owned())
            });
            l.record(&seq, idx, v, kind, &stderr).await?;
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

/// Why the run stopped early: the HTTP server can no longer be reached.
fn gone_message(cfg: &Config, exec: u64, why: &str) -> String {
    format!(
        "stopped after {exec} execs: no new session with {} ({why})",
        cfg.target.display()
    )
}

fn rate(execs: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        execs as f64 / secs
    } else {
        0.0
    }
}

impl Loop<'_> {
    fn progress(&self, started: Instant) -> Progress {
        Progress {
            execs: self.exec,
            execs_per_sec: rate(
                self.exec,
                (started.elapsed().saturating_sub(self.minimizing)).as_secs_f64(),
            ),
            findings: self.findings.len(),
            sessions: self.sessions,
        }
    }

    /// A new (oracle, kind) is minimised and saved; a known one is dropped.
    async fn record(
        &mut self,
        seq: &Sequence,
        idx: Option<usize>,
        v: Verdict,
        kind: String,
        stderr: &[String],
    ) -> Result<(), RunError> {
        let key = (v.oracle, kind.clone());
        if self.seen.contains(&key) {
            return Ok(());
        }
        self.seen.insert(key);
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
        self.minimizing += t.elapsed();
        let level = min.inputs.last().map(|i| i.level);
        let n = self.findings.len() + 1;
        let path = self
            .cfg
            .report_dir
            .join(format!("{n:03}-{}-{}.json", v.oracle, slug(&kind)));
        let mut seen = v.detail.clone();
        if v.oracle == Oracle::Alive && !stderr.is_empty() {
            seen = format!("{seen}; stderr: {}", stderr.join(" | "));
        }
        let repro = Reproducer {
            format: FORMAT.to_owned(),
            oracle: v.oracle,
            requirement: v.requirement.id.to_owned(),
            level: v.level().to_string(),
            kind: kind.clone(),
            seen,
            version: self.version.as_str().to_owned(),
            timeout_ms: u64::try_from(self.cfg.timeout.as_millis()).unwrap_or(u64::MAX),
            handshake_at: min.handshake_at.min(min.inputs.len()),
            confirmed,
            transport: self.cfg.target.transport().to_owned(),
            url: self.cfg.target.url().map(str::to_owned),
            command: match &self.cfg.target {
                Target::Stdio(c) => std::iter::once(c.program.clone())
                    .chain(c.args.clone())
                    .collect(),
                _ => Vec::new(),
            },
            inputs: min.inputs.clone(),
        };
        repro.save(&path)?;
        self.findings.push(Finding {
            oracle: v.oracle,
            level,
            requirement: v.requirement.id,
            requirement_level: v.level().to_string(),
            kind,
            detail: v.detail,
            reproducer: path,
            inputs: min.inputs.len(),
            confirmed,
        });
        Ok(())
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
    let version: Version = repro
        .version
        .parse()
        .map_err(|e: mcpspec_engine::UnknownVersion| {
            RunError::Report(ReproError::Format {
                path: "reproducer".into(),
                reason: e.to_string(),
            })
        })?;
    let target = match target {
        Some(t) => t,
        None => repro.target().map_err(RunError::Target)?,
    };
    let cfg = SessionConfig {
        target,
        version,
        timeout: Duration::from_millis(repro.timeout_ms),
        max_line,
        rss_growth_kib: crate::driver::DEFAULT_RSS_GROWTH_KIB,
    };
    let seq = Sequence {
        inputs: repro.inputs.clone(),
        handshake_at: repro.handshake_at,
    };
    let tripped = run_sequence(&cfg, &seq).await.map_err(RunError::Target)?;
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
    fn slugs_are_file_names() {
        assert_eq!(slug("request tools/call"), "request-tools-call");
        assert_eq!(rate(10, 0.0), 0.0);
        assert!(default_report_dir(7).starts_with("reports/fuzz"));
    }
}
