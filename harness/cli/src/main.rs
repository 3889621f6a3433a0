//! # mcpspec — the command line
//!
//! ```text
//! mcpspec server [OPTIONS] [-- CMD ARGS...]   test a server over stdio (no CMD: the built-in reference server)
//! mcpspec client [OPTIONS] -- CMD {server}    test a client: the harness plays a scripted server
//! mcpspec list [OPTIONS]                      the cases that would run
//! mcpspec list --requirements [OPTIONS]       the requirement catalogue and what covers it
//! mcpspec coverage [--json]                   requirements covered per version
//! mcpspec reference server [--fault NAME]     the reference server on stdio, standalone
//! mcpspec reference server --http ADDR        … over Streamable HTTP (/mcp) and legacy SSE (/sse)
//! mcpspec reference client -- CMD             the reference client against a server (or --url / --sse-url)
//! mcpspec fuzz server [OPTIONS] [-- CMD ...]  black-box fuzzing over stdio (exit 1: findings)
//! mcpspec fuzz client [OPTIONS] [-- CMD {server}]  … of a client, playing its server
//! mcpspec replay FILE [-- CMD ...]            re-run a fuzzing reproducer (exit 1: reproduced)
//!                                             or a transcript .jsonl (exit 1: answers differ)
//! mcpspec judge FILE... [--json F] [--report-dir D]  recorded traffic (transcripts, JSON lines, HAR),
//!                                             both sides judged offline (exit 1: a MUST broken)
//! mcpspec diff A B                            two transcripts or report directories (exit 1: differ)
//! mcpspec review DIR [--filter P] [--accept|--reject]  pending snapshots of `server --snapshots DIR`
//! mcpspec report merge DIR... --out DIR       compatibility matrix (matrix.html, matrix.md)
//! mcpspec proxy [OPTIONS] -- SERVER_CMD ...  relay a host's server over stdio, judging both sides
//! mcpspec proxy --listen ADDR --upstream URL  … in front of a Streamable HTTP server
//! ```
//!
//! Every command returns an [`Exit`] (`mcpspec_model::exit`: 0 conforming;
//! 1 failures; 2 usage, configuration or scenario-file error; 3 the target
//! could not be run; 130 / 143 stopped by Ctrl-C (SIGINT) / SIGTERM, see
//! `interrupt`), the one list of exit codes, which `--help` and the README
//! show.
//! This file only parses arguments and dispatches; the work is in the
//! library crates.

mod cli;
mod coverage;
mod diff;
mod from_transcript;
mod fuzz;
mod interrupt;
mod judge;
mod judged_outputs;
mod list;
mod malloc;
mod merge;
mod parity;
mod progress;
mod proxy;
mod reference;
mod reference_auth;
mod reference_client;
mod replay;
mod requirements;
mod resident;
mod review;
mod server;
mod shim;
mod snapshots;

use std::process::ExitCode;

use clap::Parser;
use mcpspec_model::Exit;

use cli::{Cli, Command, ReferenceCommand, ReferenceServerArgs};

fn main() -> ExitCode {
    malloc::one_arena();
    let cli = Cli::parse();
    if matches!(cli.command, Command::Server(_) | Command::Client(_)) {
        malloc::purge_in_background();
    }
    // A fuzz run drives one target a message at a time, and the reference
    // server over stdio answers one peer: on one thread each, a message
    // costs no wake-up of another thread (issue #18: the fuzzer at the
    // target's speed). Everything else runs many cases or sessions at once.
    let one_thread = match &cli.command {
        Command::Fuzz { .. } => true,
        Command::Reference {
            command: ReferenceCommand::Server(args),
        } => args.http.is_none(),
        _ => false,
    };
    let mut builder = if one_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: failed to start the async runtime: {e}");
            return ExitCode::from(Exit::Usage);
        }
    };
    let code = runtime.block_on(async {
        match cli.command {
            Command::Server(args) => server::run(args).await,
            Command::Client(args) => server::run_client(args).await,
            Command::Shim(args) => shim::run(&args),
            Command::List(args) => list::run(args),
            Command::Coverage(args) => coverage::run(args),
            Command::Reference {
                command: ReferenceCommand::Server(args),
            } => reference_server(args).await,
            Command::Reference {
                command: ReferenceCommand::Client(args),
            } => reference_client::run(args).await,
            Command::Fuzz { command } => fuzz::run(command).await,
            Command::Replay(args) => replay::run(args).await,
            Command::Judge(args) => judge::run(args),
            Command::Scenario { command } => from_transcript::run(command),
            Command::Diff(args) => diff::run(args),
            Command::Review(args) => review::run(args),
            Command::Report { command } => merge::run(command),
            Command::Proxy(args) => proxy::run(args).await,
        }
    });
    // Child processes are killed when their handles drop; do not wait for
    // stray blocking tasks (e.g. a stdin reader) at shutdown.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    ExitCode::from(code)
}

async fn reference_server(args: ReferenceServerArgs) -> Exit {
    if args.list_faults {
        print!("{}", reference::list_faults());
        return Exit::Success;
    }
    let http = args.http;
    let args = reference::ReferenceArgs {
        faults: args.faults,
        page_size: args.page_size,
        auth: args.auth,
        shed_above: args.shed_above,
    };
    let run = match http {
        Some(addr) => reference::run_http(args, addr).await,
        None => reference::run_stdio(args).await,
    };
    match run {
        Ok(status) => reference::exit_for(status),
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Usage
        }
    }
}
