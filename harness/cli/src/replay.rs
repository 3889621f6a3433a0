//! `mcpspec replay FILE [-- CMD ...]`, for two kinds of file:
//!
//! - a fuzzing reproducer (JSON): re-runs it in a fresh target process (or
//!   a fresh HTTP session, over the transport it records; `--url` /
//!   `--sse-url` point it elsewhere; a client reproducer of `mcpspec fuzz
//!   client` starts its client anew, or the client command after `--`) and
//!   says whether its oracle trips again on the same kind of message. Exit
//!   1 when it reproduces, 0 when it does not, 2 when the file is not a
//!   reproducer, 3 when the target could not be run.
//! - a transcript (`.jsonl`, from `--report-dir`): re-sends the harness
//!   side and diffs the target's answers ([`transcript`]). Exit 1 when they
//!   differ, 0 when not, 2 when the file is not a transcript, 3 when the
//!   target could not be run.

mod transcript;

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use mcpspec_fuzz::client::{replay_client, reproducer_target, TRANSPORT as CLIENT};
use mcpspec_fuzz::{replay, ReplayOutcome, Reproducer, RunError};
use mcpspec_model::Exit;
use mcpspec_report::textdiff::ColorChoice;

use crate::cli::parse_duration;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A reproducer (written by `mcpspec fuzz server` or `fuzz client`) or a transcript (.jsonl,
    /// from --report-dir)
    pub file: PathBuf,
    /// Transcripts: how long to wait for each recorded answer
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Transcripts: how long a fresh target may take to answer first
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    pub startup_timeout: Duration,
    /// Transcripts: extra redaction rules (YAML `paths:` / `patterns:` → placeholder)
    #[arg(long, value_name = "FILE")]
    pub redactions: Option<PathBuf>,
    /// Transcripts: colour the diff: auto, always, never
    #[arg(long, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
    /// Longest stdout line accepted from the target, in bytes
    #[arg(long, default_value_t = mcpspec_wire::DEFAULT_MAX_LINE)]
    pub max_line: usize,
    /// Reproducers: replay over Streamable HTTP against this URL (default: the reproducer's)
    #[arg(long, value_name = "URL", conflicts_with_all = ["sse_url", "command"])]
    pub url: Option<String>,
    /// Reproducers: replay over legacy HTTP+SSE against this SSE stream URL
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub sse_url: Option<String>,
    /// Reproducers: an extra header for every HTTP request, `Name: value` (repeatable)
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = crate::cli::parse_header)]
    pub headers: Vec<(String, String)>,
    /// The server command (after `--`; default: the command or URL the
    /// reproducer names, or for a transcript the built-in reference server);
    /// for a client reproducer, the client command ({server} included)
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// A `.jsonl` file, or one whose first line is a transcript record.
fn is_transcript(file: &std::path::Path) -> bool {
    file.extension().is_some_and(|e| e == "jsonl")
        || std::fs::read_to_string(file)
            .is_ok_and(|t| mcpspec_report::normalize::looks_like_jsonl(&t))
}

pub async fn run(args: ReplayArgs) -> Exit {
    if is_transcript(&args.file) {
        if args.url.is_some() || args.sse_url.is_some() {
            eprintln!("error: --url and --sse-url replay fuzzing reproducers; a transcript is replayed over stdio");
            return Exit::Usage;
        }
        let rules = match crate::diff::load_redactions(args.redactions.as_deref()) {
            Ok(r) => r,
            Err(code) => return code,
        };
        let target = if args.command.is_empty() {
            None
        } else {
            match crate::server::target(&args.command) {
                Ok(c) => Some(c),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Exit::Usage;
                }
            }
        };
        let opts = (args.timeout, args.startup_timeout, args.max_line);
        let color = args.color.for_stdout();
        return transcript::run(&args.file, target, opts, &rules, color).await;
    }
    let repro = match Reproducer::load(&args.file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    if repro.transport == CLIENT {
        return run_client(&args, &repro).await;
    }
    let given = !args.command.is_empty() || args.url.is_some() || args.sse_url.is_some();
    let target = if !given && (args.headers.is_empty() || repro.transport == "stdio") {
        None
    } else {
        let url = args.url.as_deref();
        let sse_url = args.sse_url.as_deref();
        // Headers alone: the reproducer's own URL, with them.
        let (url, sse_url) = match (given, repro.transport.as_str()) {
            (false, "http") => (repro.url.as_deref(), None),
            (false, "sse") => (None, repro.url.as_deref()),
            _ => (url, sse_url),
        };
        match crate::fuzz::fuzz_target(url, sse_url, &args.headers, &args.command) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        }
    };
    announce(&args, &repro);
    report(replay(&repro, target, args.max_line).await, &repro)
}

fn announce(args: &ReplayArgs, repro: &Reproducer) {
    println!(
        "replaying {} ({} input(s)): {} on {} ({} {})",
        args.file.display(),
        repro.inputs.len(),
        repro.oracle,
        repro.kind,
        repro.level,
        repro.requirement
    );
}

/// A reproducer of `mcpspec fuzz client`: a fresh client (the one given
/// after `--`, else the reproducer's), served through the shim.
async fn run_client(args: &ReplayArgs, repro: &Reproducer) -> Exit {
    if args.url.is_some() || args.sse_url.is_some() || !args.headers.is_empty() {
        eprintln!("error: --url, --sse-url and -H choose a server; a client reproducer is replayed over stdio");
        return Exit::Usage;
    }
    let target = if args.command.is_empty() {
        crate::fuzz::shim().and_then(|shim| reproducer_target(repro, shim))
    } else {
        crate::fuzz::client_target(&args.command)
    };
    let target = match target {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    announce(args, repro);
    report(replay_client(repro, target, args.max_line).await, repro)
}

/// Prints what tripped; exit 1 when the finding reproduced, 0 when not.
fn report(outcome: Result<ReplayOutcome, RunError>, repro: &Reproducer) -> Exit {
    match outcome {
        Ok(outcome) => {
            for (v, kind) in &outcome.tripped {
                println!("  tripped: {} on {kind}: {}", v.oracle, v.detail);
            }
            if outcome.reproduced {
                println!("REPRODUCED: {}", repro.seen);
                Exit::Failures
            } else {
                println!("not reproduced");
                Exit::Success
            }
        }
        Err(RunError::Target(e)) => {
            eprintln!("error: the target could not be run: {e}");
            Exit::TargetUnavailable
        }
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Usage
        }
    }
}
