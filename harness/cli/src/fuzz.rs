//! `mcpspec fuzz server`: black-box fuzzing of an MCP server over stdio,
//! Streamable HTTP (`--url`) or legacy HTTP+SSE (`--sse-url`); `mcpspec
//! fuzz client`: black-box fuzzing of an MCP client over stdio, the harness
//! playing its server (`-- CMD ARGS... {server}`).
//!
//! Parses the options, runs `mcpspec_fuzz::fuzz` (or
//! `mcpspec_fuzz::client::fuzz_client`) against the command after `--`
//! (none: the built-in reference server or client) or the URL, prints
//! progress (execs/s) on stderr and the findings on stdout, writes
//! `--json`, and maps the outcome to the exit code: 0 no findings, 1
//! findings, 2 usage error, 3 the target could not be run (a client: could
//! not be started, or never completed a handshake).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use mcpspec_engine::Version;
use mcpspec_fuzz::client::{fuzz_client, ClientFuzzConfig};
use mcpspec_fuzz::{fuzz, Config, Level, RunError, Summary, Target};
use mcpspec_model::Exit;
use mcpspec_transport::{ClientCommand, CommandSpec};
use serde_json::json;

use crate::cli::parse_duration;

#[derive(Debug, Subcommand)]
pub enum FuzzCommand {
    /// Fuzz an MCP server: a command over stdio (none: the built-in reference server), or
    /// --url / --sse-url for a live HTTP server
    #[command(after_help = Exit::help())]
    Server(FuzzServerArgs),
    /// Fuzz an MCP client over stdio: its {server} argument starts the harness's server, which
    /// sends the inputs (none given: the built-in reference client)
    #[command(after_help = crate::cli::with_exit_codes(FUZZ_CLIENT_HELP))]
    Client(FuzzClientArgs),
}

const FUZZ_CLIENT_HELP: &str = "\
Stdio only: the client must start its server from the {server} argument (mcpspec shim); {url} and
{sse_url} are not supported. The harness answers initialize (at the version the client asks for),
then holds the client's first ordinary request unanswered, so that the client stays connected, and
answers its other requests with the reference server. Each input is a server-to-client message
followed by a ping the client must answer.

Example:
  mcpspec fuzz client --seed 7 --duration 30s -- node build/client.js {server}";

/// What every fuzzing run takes: seed, budget, levels, waits and outputs.
#[derive(Debug, Args)]
pub struct FuzzBudgetArgs {
    /// Seed of the generators (default: from the clock, printed)
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop after this many inputs
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// Stop after this long (default 30s when --runs is not given); minimisation comes on top
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Generator level: bytes, json, jsonrpc or mcp (repeatable; default: all)
    #[arg(long = "level", value_name = "LEVEL", value_parser = parse_level)]
    pub levels: Vec<Level>,
    /// How long to wait for the sync ping; a pending request's target may stay silent this long
    /// before a ping checks it is alive
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// The longest wait for an owed answer while the target is alive (answering pings, sending
    /// progress); a request still unanswered then is cancelled and reported as a timeout note,
    /// not a finding (MCP sets no deadline for answers)
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub max_wait: Duration,
    /// Time allowed to minimise one finding
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub minimize_time: Duration,
    /// Write {"execs", "execs_per_sec", "findings": [{"oracle", "level", "reproducer", ...}],
    /// "timeouts": [{"method", "count", ...}]} to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the findings as SARIF 2.1.0 to FILE (each with its reproducer file as location)
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Where reproducers go (default: reports/fuzz/<run>/)
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
}

impl FuzzBudgetArgs {
    /// `--report-dir`, or `reports/fuzz/<run>/` for `seed`.
    fn report_dir(&self, seed: u64) -> PathBuf {
        self.report_dir
            .clone()
            .unwrap_or_else(|| mcpspec_fuzz::run::default_report_dir(seed))
    }
}

#[derive(Debug, Args)]
pub struct FuzzClientArgs {
    #[command(flatten)]
    pub budget: FuzzBudgetArgs,
    /// Protocol version to answer initialize with (default: the one the client asks for, when it
    /// has the initialize handshake)
    #[arg(long = "spec-version", value_name = "VERSION", value_parser = parse_version)]
    pub spec_version: Option<Version>,
    /// Start a fresh client after this long; keep it under the client's own request timeout
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub session_time: Duration,
    /// Longest line accepted from the client, in bytes
    #[arg(long, default_value_t = mcpspec_wire::DEFAULT_MAX_LINE)]
    pub max_line: usize,
    /// The client command and its arguments (after `--`); {server} expands to the argv that
    /// starts the harness's server (appended when absent)
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct FuzzServerArgs {
    #[command(flatten)]
    pub budget: FuzzBudgetArgs,
    /// Protocol version to ask for in initialize (default: the newest with a handshake)
    #[arg(long = "spec-version", value_name = "VERSION", value_parser = parse_version)]
    pub spec_version: Option<Version>,
    /// Fuzz a Streamable HTTP server at this URL (http://…/mcp): each input is one POST body
    #[arg(long, value_name = "URL", conflicts_with_all = ["sse_url", "command"])]
    pub url: Option<String>,
    /// Fuzz a legacy HTTP+SSE (2024-11-05) server whose SSE stream is at this URL: each input is
    /// one POST to the announced endpoint
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub sse_url: Option<String>,
    /// An extra header for every HTTP request, `Name: value` (repeatable; not written to reproducers)
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = crate::cli::parse_header)]
    pub headers: Vec<(String, String)>,
    /// Resident memory growth of the target, in MiB, that counts as a finding (stdio only)
    #[arg(long, default_value_t = 512, value_name = "MIB")]
    pub max_rss_growth: u64,
    /// Inputs in flight at once over stdio: requests whose answers are told by id are
    /// pipelined, anything else is sent alone (1: every input waits for its sync ping)
    #[arg(long, default_value_t = mcpspec_fuzz::driver::DEFAULT_WINDOW, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub window: usize,
    /// Longest stdout line accepted from the target, in bytes
    #[arg(long, default_value_t = mcpspec_wire::DEFAULT_MAX_LINE)]
    pub max_line: usize,
    /// The server command and its arguments (after `--`)
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

fn parse_level(s: &str) -> Result<Level, String> {
    s.parse()
}

fn parse_version(s: &str) -> Result<Version, String> {
    let v: Version = s
        .parse()
        .map_err(|e: mcpspec_engine::UnknownVersion| e.to_string())?;
    if v == Version::V2026_07_28 {
        return Err("fuzzing the stateless 2026-07-28 is not supported yet (it has no ping to synchronise on)".into());
    }
    Ok(v)
}

pub async fn run(command: FuzzCommand) -> Exit {
    match command {
        FuzzCommand::Server(args) => run_server(args).await,
        FuzzCommand::Client(args) => run_client(args).await,
    }
}

/// The seed given, or one from the clock.
fn seed_or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    })
}

async fn run_server(args: FuzzServerArgs) -> Exit {
    let target = match fuzz_target(
        args.url.as_deref(),
        args.sse_url.as_deref(),
        &args.headers,
        &args.command,
    ) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let seed = seed_or_clock(args.budget.seed);
    let duration = budget(args.budget.runs, args.budget.duration);
    // The legacy transport is 2024-11-05's.
    let default_version = match target {
        Target::Sse { .. } => Version::V2024_11_05,
        _ => Version::LATEST_HANDSHAKE,
    };
    let cfg = Config {
        target,
        seed,
        runs: args.budget.runs,
        duration,
        levels: args.budget.levels.clone(),
        version: args.spec_version.unwrap_or(default_version),
        timeout: args.budget.timeout,
        max_wait: args.budget.max_wait,
        report_dir: args.budget.report_dir(seed),
        max_line: args.max_line,
        minimize_budget: args.budget.minimize_time,
        rss_growth_kib: args.max_rss_growth.saturating_mul(1024),
        window: args.window,
    };
    eprintln!(
        "fuzzing `{}` with seed {seed} (levels: {})",
        cfg.target.display(),
        levels_text(&cfg.levels)
    );
    let kind = if matches!(cfg.target, Target::Stdio(_)) {
        Kind::Stdio
    } else {
        Kind::Http
    };
    let outcome = fuzz(&cfg, &mut report).await;
    finish(outcome, seed, kind, &args.budget)
}

/// `mcpspec fuzz client`.
async fn run_client(args: FuzzClientArgs) -> Exit {
    let target = match client_target(&args.command) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let seed = seed_or_clock(args.budget.seed);
    let cfg = ClientFuzzConfig {
        target,
        seed,
        runs: args.budget.runs,
        duration: budget(args.budget.runs, args.budget.duration),
        levels: args.budget.levels.clone(),
        version: args.spec_version,
        timeout: args.budget.timeout,
        max_wait: args.budget.max_wait,
        report_dir: args.budget.report_dir(seed),
        max_line: args.max_line,
        minimize_budget: args.budget.minimize_time,
        session_time: args.session_time,
    };
    eprintln!(
        "fuzzing the client `{}` with seed {seed} (levels: {})",
        cfg.target.display(),
        levels_text(&cfg.levels)
    );
    let outcome = fuzz_client(&cfg, &mut report).await;
    finish(outcome, seed, Kind::Client, &args.budget)
}

/// The fuzzing budget: `--duration`, 30 s when neither it nor `--runs` is given.
fn budget(runs: Option<u64>, duration: Option<Duration>) -> Option<Duration> {
    match (runs, duration) {
        (None, None) => Some(Duration::from_secs(30)),
        (_, d) => d,
    }
}

fn report(p: mcpspec_fuzz::run::Progress) {
    eprintln!(
        "fuzz: {} execs, {:.0} execs/s, {} finding(s), {} session(s)",
        p.execs, p.execs_per_sec, p.findings, p.sessions
    );
}

/// What was fuzzed, for the summary's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Http,
    Client,
}

/// Prints the summary, writes `--json` and `--sarif`, returns the exit code.
fn finish(
    outcome: Result<Summary, RunError>,
    seed: u64,
    kind: Kind,
    budget: &FuzzBudgetArgs,
) -> Exit {
    let summary = match outcome {
        Ok(s) => s,
        Err(RunError::Target(e)) => {
            let what = if kind == Kind::Client {
                "client"
            } else {
                "target"
            };
            eprintln!("error: the {what} could not be run: {e}");
            return Exit::TargetUnavailable;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    print_summary(&summary, seed, kind);
    if let Some(path) = &budget.json {
        if let Err(e) = write_json(path, &summary, seed) {
            eprintln!("error: failed to write {}: {e}", path.display());
            return Exit::Usage;
        }
    }
    if let Some(path) = &budget.sarif {
        if let Err(e) = mcpspec_report::sarif::write(path, &sarif(&summary, seed)) {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    }
    if summary.findings.is_empty() {
        Exit::Success
    } else {
        Exit::Failures
    }
}

fn levels_text(levels: &[Level]) -> String {
    if levels.is_empty() {
        return "all".to_owned();
    }
    levels
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The target of `fuzz server`: `--url`, `--sse-url`, or a command (the
/// reference server when none is given). Shared with `replay`.
pub(crate) fn fuzz_target(
    url: Option<&str>,
    sse_url: Option<&str>,
    headers: &[(String, String)],
    command: &[String],
) -> Result<Target, String> {
    Target::choose(url, sse_url, headers, || crate::server::target(command))
}

/// The client of `fuzz client` (and of `replay` of a client reproducer):
/// the command after `--` (the built-in reference client when none is
/// given), reaching the harness through `{server}` (this binary's `shim`).
pub(crate) fn client_target(command: &[String]) -> Result<Target, String> {
    let shim = shim()?;
    let command = match command.split_first() {
        Some((program, rest)) => CommandSpec::new(program.clone(), rest.iter().cloned()),
        None => CommandSpec::new(
            shim.program.clone(),
            ["reference", "client", "--", ClientCommand::SERVER],
        ),
    };
    let client = ClientCommand { command, shim };
    if client.kind() != mcpspec_transport::Transport::Stdio {
        return Err(
            "mcpspec fuzz client speaks stdio only: give the client {server}, not {url} or {sse_url}"
                .to_owned(),
        );
    }
    Ok(Target::Client(client))
}

/// The shim a client reproducer's client starts: this binary's `shim`.
pub(crate) fn shim() -> Result<CommandSpec, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate the mcpspec binary for the shim: {e}"))?;
    Ok(CommandSpec::new(
        exe.to_string_lossy().into_owned(),
        ["shim"],
    ))
}

fn print_summary(s: &Summary, seed: u64, kind: Kind) {
    let mut out = std::io::stdout().lock();
    for (i, f) in s.findings.iter().enumerate() {
        let _ = writeln!(
            out,
            "FINDING {}: {} on {} ({})\n  {} {}: {}{}\n  reproducer: {} ({} input(s){}); replay with `mcpspec replay {}`",
            i + 1,
            f.oracle,
            f.kind,
            match (f.level, kind) {
                (Some(l), _) => format!("{l} level"),
                (None, Kind::Client) => "no input needed".to_owned(),
                (None, _) => "during the handshake".to_owned(),
            },
            f.requirement_level,
            f.requirement,
            f.detail,
            seen_with(f),
            f.reproducer.display(),
            f.inputs,
            if f.confirmed { "" } else { ", did not reproduce in a fresh process" },
            f.reproducer.display()
        );
    }
    for t in &s.timeouts {
        let _ = writeln!(
            out,
            "TIMEOUT (a note, not a finding): {} request(s) {} unanswered after {:.1} s{}{}; MCP sets no deadline for an answer, so each was cancelled and the run went on",
            t.count,
            t.method,
            t.waited_ms as f64 / 1000.0,
            match t.first_exec {
                Some(e) => format!(", first sent by exec {e}"),
                None => ", the driver's own".to_owned(),
            },
            if t.progressed > 0 {
                format!(", {} with progress", t.progressed)
            } else {
                String::new()
            },
        );
    }
    if let Some(why) = &s.stopped {
        let _ = writeln!(out, "STOPPED: {why}");
    }
    let _ = writeln!(
        out,
        "{} execs in {:.1} s ({:.0} execs/s{}, {} session(s), {:.1} s minimising, {:.1} s replaying windows, {:.1} s waiting for owed answers at the end), seed {seed}: {} finding(s)",
        s.execs,
        s.seconds,
        s.execs_per_sec,
        match kind {
            Kind::Http => "; HTTP: two POSTs per input, slower than stdio",
            Kind::Client => "; through the stdio shim",
            Kind::Stdio => "",
        },
        s.sessions,
        s.minimize_seconds,
        s.attribute_seconds,
        s.drain_seconds,
        s.findings.len()
    );
}

/// `\n  seen N times, with K inputs: a, b, …` when a finding was seen more
/// than once (one cause, many inputs: one finding).
fn seen_with(f: &mcpspec_fuzz::Finding) -> String {
    if f.count <= 1 {
        return String::new();
    }
    let more = f.seen_with_total.saturating_sub(f.seen_with.len());
    format!(
        "\n  seen {} times, with {} kind(s) of input: {}{}",
        f.count,
        f.seen_with_total,
        f.seen_with.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// The run's findings as a SARIF log: one result per finding (its
/// deduplication key as the fingerprint), the reproducer as its location.
fn sarif(s: &Summary, seed: u64) -> serde_json::Value {
    use mcpspec_report::sarif::{artifact, document, Item};
    let items: Vec<Item> = s
        .findings
        .iter()
        .map(|f| {
            let req = mcpspec_engine::lookup(f.requirement);
            let level = f.requirement_level.parse().unwrap_or(mcpspec_engine::Level::Must);
            let reproducer = f.reproducer.display().to_string();
            let confirmed = if f.confirmed { "confirmed" } else { "not confirmed" };
            Item {
                requirement: f.requirement.to_owned(),
                level,
                summary: req.map_or_else(|| f.kind.clone(), |r| r.summary.to_owned()),
                spec_url: req
                    .and_then(|r| r.versions().last().map(|v| r.url(v)))
                    .unwrap_or_default(),
                message: format!(
                    "{}: {} (oracle {}; {} input(s) in the reproducer, {confirmed} in a fresh process; seen {} time(s)). Replay: mcpspec replay {reproducer}",
                    f.requirement, f.detail, f.oracle, f.inputs, f.count
                ),
                location: serde_json::json!({
                    "physicalLocation": artifact(&reproducer),
                    "logicalLocations": [{ "name": f.kind, "kind": "function" }],
                }),
                fingerprint: format!("fuzz:{}:{}", f.requirement, f.kind),
                properties: serde_json::json!({
                    "oracle": f.oracle.as_str(),
                    "input_level": f.level.map(|l| l.as_str()),
                    "confirmed": f.confirmed,
                    "count": f.count,
                }),
                suppressed: None,
            }
        })
        .collect();
    let mut invocation = serde_json::Map::new();
    invocation.insert("executionSuccessful".into(), json!(true));
    let code = if s.findings.is_empty() {
        Exit::Success
    } else {
        Exit::Failures
    };
    invocation.insert("exitCode".into(), json!(i32::from(code)));
    document(
        &items,
        invocation,
        json!({ "seed": seed, "execs": s.execs, "seconds": s.seconds }),
    )
}

fn write_json(path: &std::path::Path, s: &Summary, seed: u64) -> std::io::Result<()> {
    let findings: Vec<_> = s
        .findings
        .iter()
        .map(|f| {
            json!({
                "oracle": f.oracle,
                "level": f.level,
                "reproducer": f.reproducer,
                "requirement": f.requirement,
                "requirement_level": f.requirement_level,
                "kind": f.kind,
                "detail": f.detail,
                "inputs": f.inputs,
                "confirmed": f.confirmed,
                "count": f.count,
                "seen_with": f.seen_with,
                "seen_with_total": f.seen_with_total,
            })
        })
        .collect();
    let doc = json!({
        "execs": s.execs,
        "execs_per_sec": s.execs_per_sec,
        "seconds": s.seconds,
        "minimize_seconds": s.minimize_seconds,
        "attribute_seconds": s.attribute_seconds,
        "drain_seconds": s.drain_seconds,
        "sessions": s.sessions,
        "stopped": s.stopped,
        "seed": seed,
        "findings": findings,
        "timeouts": s.timeouts,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzz_client_speaks_stdio_and_defaults_to_the_reference_client() {
        let Ok(Target::Client(c)) = client_target(&[]) else {
            panic!("the reference client by default");
        };
        assert_eq!(c.command.args, ["reference", "client", "--", "{server}"]);
        assert_eq!(c.shim.args, ["shim"]);
        let given = client_target(&["node".into(), "c.js".into(), "{server}".into()]);
        assert!(matches!(given, Ok(Target::Client(c)) if c.command.program == "node"));
        let http = client_target(&["c".into(), "--url".into(), "{url}".into()]);
        assert!(http.is_err_and(|e| e.contains("stdio only")));
        assert_eq!(budget(None, None), Some(Duration::from_secs(30)));
        assert_eq!(budget(Some(5), None), None);
    }
}
