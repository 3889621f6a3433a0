//! `mcpspec proxy`: judging the live traffic between a real client and a
//! real server, both sides at once, while relaying it unchanged.
//!
//! ```text
//! mcpspec proxy [OPTIONS] -- SERVER_CMD ARGS…           stdio: what a host starts instead of its server
//! mcpspec proxy --listen 127.0.0.1:PORT --upstream URL  Streamable HTTP, in front of a server's endpoint
//! mcpspec proxy --listen 127.0.0.1:PORT --sse-upstream URL  … of a legacy HTTP+SSE server's stream
//!
//!   relay (mcpspec_transport::proxy) ──► taps ──► Judging (one oracle pair per connection)
//!        ──► a line per violation on stderr (--quiet: none) ──► at the end: outputs, exit code
//! ```
//!
//! The relay is the transport's; the verdicts are the two-sided judge's
//! (`mcpspec_oracle::pair`). Over stdio the proxy's stdout *is* the MCP
//! channel to the host: everything the proxy says goes to stderr.
//!
//! How a run ends: the host closes stdin or the server exits (stdio), Ctrl-C
//! or `SIGTERM`, `--duration`. Each is a normal end: the exit code is the
//! verdict on what was seen (1 when a MUST was broken), not 130.

mod judging;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use mcpspec_engine::{Level, Version};
use mcpspec_model::Exit;
use mcpspec_report::HumanReporter;
use mcpspec_transport::proxy::http::{HttpProxy, HttpProxyOptions};
use mcpspec_transport::proxy::stdio::{self, StdioOptions};
use mcpspec_transport::CommandSpec;
use mcpspec_wire::event::Transport;

use crate::cli::{parse_duration, with_exit_codes};
use crate::judged_outputs::{self, Outputs};
pub use judging::Judging;

pub const PROXY_HELP: &str = "\
Examples:
  mcpspec proxy -- npx -y @modelcontextprotocol/server-everything
  mcpspec proxy --report-dir out -- python server.py
  mcpspec proxy --listen 127.0.0.1:8931 --upstream http://127.0.0.1:3000/mcp
  mcpspec proxy --listen 127.0.0.1:8931 --sse-upstream http://127.0.0.1:3000/sse

Over stdio, configure the host to start `mcpspec` with `proxy`, `--` and the server's command as
arguments. Over HTTP, point the client at the proxy's address with the upstream's path.";

/// The proxy's help text, with the exit codes.
pub fn help() -> String {
    with_exit_codes(PROXY_HELP)
}

#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Listen for Streamable HTTP clients on ADDR (loopback unless --listen-any), relaying to
    /// --upstream
    #[arg(
        long,
        value_name = "ADDR",
        requires = "upstream",
        conflicts_with = "command"
    )]
    pub listen: Option<SocketAddr>,
    /// Allow --listen on an address that is not loopback (the proxy has no authentication)
    #[arg(long, requires = "listen")]
    pub listen_any: bool,
    /// The real server's Streamable HTTP endpoint (http:// only)
    #[arg(long, value_name = "URL", requires = "listen")]
    pub upstream: Option<String>,
    /// The real server's legacy HTTP+SSE (2024-11-05) stream URL, instead of --upstream
    #[arg(
        long,
        value_name = "URL",
        requires = "listen",
        conflicts_with = "upstream"
    )]
    pub sse_upstream: Option<String>,
    /// Judge at this protocol version (default: the one the traffic negotiates)
    #[arg(long = "spec-version", value_name = "VERSION", value_parser = parse_version)]
    pub spec_version: Option<Version>,
    /// Stop after this long (e.g. 30s, 10m)
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Print no line per violation (the end-of-run outputs are still written)
    #[arg(long, short)]
    pub quiet: bool,
    /// Write the results as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write report.json, junit.xml, summary.md and index.html to DIR (created if missing)
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// stdio: how long the server has to exit once the host closed stdin (then SIGTERM, SIGKILL)
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub grace: Duration,
    /// The server command and its arguments (after `--`), started and spoken to over stdio
    #[arg(last = true, value_name = "SERVER_CMD")]
    pub command: Vec<String>,
}

fn parse_version(s: &str) -> Result<Version, String> {
    s.parse()
        .map_err(|e: mcpspec_engine::UnknownVersion| e.to_string())
}

/// Runs the proxy until its end; the exit code is the verdict.
pub async fn run(args: ProxyArgs) -> Exit {
    let stop = match stop_signal(args.duration) {
        Ok(stop) => stop,
        Err(e) => {
            eprintln!("error: cannot watch for Ctrl-C: {e}");
            return Exit::Usage;
        }
    };
    let upstream = match (&args.upstream, &args.sse_upstream) {
        (Some(url), _) => Some((url.clone(), false)),
        (None, Some(url)) => Some((url.clone(), true)),
        (None, None) => None,
    };
    match (args.listen, upstream) {
        (Some(listen), Some((upstream, legacy))) => {
            run_http(&args, listen, upstream, legacy, stop).await
        }
        (Some(_), None) => {
            eprintln!("error: --listen needs --upstream URL (or --sse-upstream URL)");
            Exit::Usage
        }
        (None, _) => run_stdio(&args, stop).await,
    }
}

/// Completes at the first `SIGINT` / `SIGTERM`, or after `duration`.
fn stop_signal(
    duration: Option<Duration>,
) -> std::io::Result<impl std::future::Future<Output = String> + Send + 'static> {
    let signal = crate::interrupt::watch()?;
    Ok(async move {
        let timer = async {
            match duration {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            stop = signal => format!("stopped by {}", stop.reason),
            () = timer => "--duration elapsed".to_owned(),
        }
    })
}

async fn run_stdio(
    args: &ProxyArgs,
    stop: impl std::future::Future<Output = String> + Send + 'static,
) -> Exit {
    let Some((program, rest)) = args.command.split_first() else {
        eprintln!(
            "error: give the server command after `--` (stdio), or --listen and --upstream (HTTP)"
        );
        return Exit::Usage;
    };
    let spec = CommandSpec::new(program.clone(), rest.iter().cloned());
    let options = StdioOptions {
        grace: args.grace,
        ..StdioOptions::default()
    };
    let (why_tx, mut why_rx) = tokio::sync::oneshot::channel();
    let stop = async move {
        let _ = why_tx.send(stop.await);
    };
    let host = match stdio::HostStdio::start() {
        Ok(host) => host,
        Err(e) => {
            eprintln!("error: cannot start the stdio threads: {e}");
            return Exit::Usage;
        }
    };
    let (host_in, host_out, host_err, written) = host.split();
    let started = stdio::start(&spec, host_in, host_out, host_err, options, stop);
    let mut proxy = match started {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::TargetUnavailable;
        }
    };
    let mut judging = Judging::new(Transport::Stdio, args.spec_version, args.quiet);
    while let Some(tapped) = proxy.taps.recv().await {
        judging.take(tapped);
    }
    let ending = match proxy.ended.await {
        Ok(ending) => ending.describe(),
        Err(e) => format!("the relay failed: {e}"),
    };
    // The host reads end of file now, not when the reports are written
    // (once the last bytes were written out).
    written.wait(Duration::from_secs(2));
    stdio::detach_stdout();
    let ending = match why_rx.try_recv() {
        Ok(why) => format!("{why}; {ending}"),
        Err(_) => ending,
    };
    finish(
        args,
        &format!("proxy -- {}", spec.display()),
        judging,
        &ending,
    )
}

async fn run_http(
    args: &ProxyArgs,
    listen: SocketAddr,
    upstream: String,
    legacy: bool,
    stop: impl std::future::Future<Output = String>,
) -> Exit {
    if !listen.ip().is_loopback() && !args.listen_any {
        eprintln!(
            "error: --listen {listen} is not a loopback address; the proxy has no \
             authentication: add --listen-any to listen there anyway"
        );
        return Exit::Usage;
    }
    let options = HttpProxyOptions {
        listen,
        upstream: upstream.clone(),
        max_body: mcpspec_wire::DEFAULT_MAX_LINE,
        timeout: Duration::from_secs(30),
        legacy,
    };
    let mut proxy = match HttpProxy::bind(options).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let path = url::Url::parse(&upstream)
        .map(|u| u.path().to_owned())
        .unwrap_or_default();
    // Tests and scripts read where it listens from this line.
    eprintln!(
        "mcpspec proxy: listening on http://{}{path}, relaying to {upstream}",
        proxy.local
    );
    let transport = if legacy {
        Transport::Sse
    } else {
        Transport::Http
    };
    let mut judging = Judging::new(transport, args.spec_version, args.quiet);
    tokio::pin!(stop);
    let why = loop {
        tokio::select! {
            tapped = proxy.taps.recv() => match tapped {
                Some(t) => judging.take(t),
                None => break "the listener ended".to_owned(),
            },
            why = &mut stop => break why,
        }
    };
    proxy.shutdown().await;
    // What was tapped before the shutdown is judged too.
    while let Ok(tapped) = proxy.taps.try_recv() {
        judging.take(tapped);
    }
    let sessions = proxy.connections();
    drop(proxy);
    let target = format!("proxy {upstream}");
    finish(
        args,
        &target,
        judging,
        &format!("{why}; {sessions} session(s)"),
    )
}

/// Judges what each side still owes, prints the tally, writes the outputs
/// (through the shared `mcpspec_runner::judged` path: a case per side and
/// connection); the exit code is the run's.
fn finish(args: &ProxyArgs, target: &str, mut judging: Judging, ending: &str) -> Exit {
    judging.end();
    let must = judging
        .found()
        .values()
        .flatten()
        .filter(|v| v.violation.requirement.level == Level::Must)
        .count();
    eprintln!(
        "mcpspec proxy: {ending}; {} violation(s), {must} of a MUST",
        judging.count()
    );
    let connections = judging.connections();
    judged_outputs::write(
        target,
        &connections,
        Outputs {
            // Stdout may be the MCP channel: the human report goes to stderr.
            human: (!args.quiet)
                .then(|| HumanReporter::new(Box::new(std::io::stderr()), false, false)),
            json: args.json.clone(),
            sarif: None,
            report_dir: args.report_dir.clone(),
            notes_to_stderr: true,
        },
    )
}
