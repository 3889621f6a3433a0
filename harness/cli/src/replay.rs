//! `mcpspec replay FILE [-- CMD ...]`: re-runs a fuzzing reproducer in a
//! fresh target process and says whether its oracle trips again on the same
//! kind of message. Exit 1 when it reproduces, 0 when it does not, 2 when the
//! file is not a reproducer, 3 when the target could not be run.

use std::path::PathBuf;

use clap::Args;
use mcpspec_fuzz::{replay, Reproducer, RunError};

use crate::EXIT_USAGE;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The reproducer file (written by `mcpspec fuzz server`)
    pub file: PathBuf,
    /// Longest stdout line accepted from the target, in bytes
    #[arg(long, default_value_t = mcpspec_wire::DEFAULT_MAX_LINE)]
    pub max_line: usize,
    /// The server command (after `--`; default: the command the reproducer names)
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub async fn run(args: ReplayArgs) -> u8 {
    let repro = match Reproducer::load(&args.file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let command = if args.command.is_empty() {
        None
    } else {
        match crate::server::target(&args.command) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_USAGE;
            }
        }
    };
    println!(
        "replaying {} ({} input(s)): {} on {} ({} {})",
        args.file.display(),
        repro.inputs.len(),
        repro.oracle,
        repro.kind,
        repro.level,
        repro.requirement
    );
    match replay(&repro, command, args.max_line).await {
        Ok(outcome) => {
            for (v, kind) in &outcome.tripped {
                println!("  tripped: {} on {kind}: {}", v.oracle, v.detail);
            }
            if outcome.reproduced {
                println!("REPRODUCED: {}", repro.seen);
                1
            } else {
                println!("not reproduced");
                0
            }
        }
        Err(RunError::Target(e)) => {
            eprintln!("error: the target could not be run: {e}");
            3
        }
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}
