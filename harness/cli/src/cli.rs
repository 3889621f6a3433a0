//! Argument definitions (clap). The contract is DESIGN.md's CLI section.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use mcpspec_engine::Version;
use mcpspec_model::Exit;

#[derive(Debug, Parser)]
#[command(
    name = "mcpspec",
    version,
    about = "Conformance test harness for the Model Context Protocol",
    after_help = Exit::help()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Test an MCP server started over stdio (no command: the built-in reference server)
    #[command(after_help = with_exit_codes(SERVER_HELP))]
    Server(ServerArgs),
    /// Test an MCP client: the harness plays a scripted server; in the client's arguments
    /// {server} is the argv that starts it over stdio, {url} its Streamable HTTP endpoint,
    /// {sse_url} its legacy SSE endpoint (no placeholder: the stdio argv is appended);
    /// {client_id} and {client_secret} its static OAuth credentials where a case's
    /// authorization server registered it beforehand (elsewhere they expand to nothing)
    #[command(
        after_help = with_exit_codes(CLIENT_HELP),
        mut_arg("command", |a| a.help(
            "The client command and its arguments (after `--`), with {server}, {url} or \
             {sse_url} where it connects (none: the built-in reference client)"
        ))
    )]
    Client(ServerArgs),
    /// Relay stdin and stdout to a running harness over loopback (what {server} starts)
    #[command(hide = true)]
    Shim(ShimArgs),
    /// List the cases (scenario × version) that would run, or the requirement catalogue
    // The selection options read as for a run; here nothing runs and no target is asked.
    #[command(
        mut_arg("filter", |a| a.help(
            "List only cases whose id starts with this prefix, or matches this glob \
             (repeatable; with --requirements: requirement id prefixes)"
        )),
        mut_arg("spec_version", |a| a.help(
            "List only this protocol version (repeatable; default: every version)"
        ))
    )]
    List(ListArgs),
    /// Requirement coverage per protocol version: MUSTs and SHOULDs covered / total
    #[command(after_help = COVERAGE_HELP)]
    Coverage(CoverageArgs),
    /// Run the reference implementation standalone
    Reference {
        #[command(subcommand)]
        command: ReferenceCommand,
    },
    /// Fuzz a live target: seeded inputs at four levels, oracles, minimised reproducers
    /// (exit 0 no findings, 1 findings, 2 usage error, 3 the target could not be run)
    #[command(after_help = Exit::help())]
    Fuzz {
        #[command(subcommand)]
        command: crate::fuzz::FuzzCommand,
    },
    /// Re-run a fuzzing reproducer (exit 1 when its finding reproduces, 0 when not), or replay a
    /// transcript .jsonl against a target (exit 1 when its answers differ, 0 when not)
    Replay(crate::replay::ReplayArgs),
    /// Judge recorded traffic offline, both sides at once: mcpspec transcripts, JSON-lines logs
    /// of {direction, message}, HAR files (exit 1 when a MUST was broken, 2 unreadable input)
    #[command(after_help = Exit::help())]
    Judge(crate::judge::JudgeArgs),
    /// Compare two transcripts (.jsonl) or two report directories case by case, normalised
    /// (exit 0 same, 1 different, 2 usage or input error)
    Diff(crate::diff::DiffArgs),
    /// Pending snapshots (.snap.new) of a --snapshots directory: review them one at a time on a
    /// terminal, or accept or reject all that match
    Review(crate::review::ReviewArgs),
    /// Report directories: merge several implementations into one compatibility matrix, or
    /// combine the shards of one run (--partition) into its report
    Report {
        #[command(subcommand)]
        command: crate::merge::ReportCommand,
    },
    /// Relay a real client's traffic to a real server unchanged (stdio: `-- SERVER_CMD`;
    /// Streamable HTTP: --listen, --upstream), judging both sides live (exit 1: a MUST broken)
    #[command(after_help = crate::proxy::help())]
    Proxy(crate::proxy::ProxyArgs),
    /// Scenario files: write a regression scenario from a recorded case
    Scenario {
        #[command(subcommand)]
        command: crate::from_transcript::ScenarioCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum ReferenceCommand {
    /// The reference MCP server over stdio, or over HTTP with --http
    Server(ReferenceServerArgs),
    /// The reference MCP client, run against a server (exit 0 clean end, 1 the session
    /// failed, 2 usage error, 3 the server could not be started or reached)
    Client(ReferenceClientArgs),
}

/// `--no-tests`: what a run that selects no case comes to (nextest's
/// meaning). A run that selected cases but judged none is another matter:
/// it exits 3 whatever this says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NoTests {
    Fail,
    Warn,
    Pass,
}

/// Options that choose cases.
#[derive(Debug, Clone, Args)]
pub struct SelectArgs {
    /// Run only cases whose id starts with this prefix, or matches this glob (repeatable)
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Protocol version to test (repeatable; default: every version the target offers)
    #[arg(long = "spec-version", value_name = "VERSION", value_parser = parse_version)]
    pub spec_version: Vec<Version>,
    /// Extra scenario directory; a scenario with the same id replaces the built-in one (repeatable)
    #[arg(long, value_name = "DIR")]
    pub scenarios: Vec<PathBuf>,
    /// Run one shard of the selected cases: hash:K/N (by case id, stable) or count:K/N (every
    /// N-th); join the shards' --report-dir with `mcpspec report combine`
    #[arg(long, value_name = "SPEC")]
    pub partition: Option<mcpspec_runner::Partition>,
}

#[derive(Debug, Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Targets started at once (default: the number of cores; four per core for the
    /// built-in reference server). A case holds a job only until its target writes its
    /// first line: cases that then only wait (silence windows, timers) run beside up to
    /// eight others per job (at least 32, at most 128 in all). --url / --sse-url targets start no process:
    /// see --max-connections
    #[arg(long, short = 'j', value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// How long to wait for each expected message
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Hard limit for one case, after start-up (a scenario may set its own;
    /// default: 30s, or six times --timeout when that is longer)
    #[arg(long, value_parser = parse_duration)]
    pub case_timeout: Option<Duration>,
    /// How long a fresh target may take to write its first line; waits
    /// before it are extended to this (start-up is not response time)
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    pub startup_timeout: Duration,
    /// Also run the scenarios of an opt-in extension: tasks, skills (repeatable).
    /// Without it they are not applicable; their rules are never in the core totals
    #[arg(long = "extension", value_name = "NAME", value_parser = parse_extension)]
    pub extension: Vec<&'static str>,
    /// Treat SHOULD violations (warnings) as failures
    #[arg(long)]
    pub strict: bool,
    /// Run a case the baseline lists under `flaky:` up to N more times: after a failure until
    /// it passes, after a pass until it fails (N + 1 passes in a row: a candidate to remove)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub retries: u32,
    /// Stop at the first failing case (one the baseline does not expect):
    /// no case starts after it, running ones are cancelled (those that had
    /// already finished are reported); exit 1
    #[arg(long)]
    pub fail_fast: bool,
    /// Give every case a target of its own: a fresh process over stdio, a
    /// fresh session over HTTP. By default the cases that cannot tell the
    /// difference (plain requests on an initialised session; see
    /// scenarios/README.md) take turns on started processes, or open
    /// sessions, of their version, and a case that fails on one another
    /// case used is run again alone before it counts.
    /// --snapshots implies it (a snapshot is a case's whole transcript); `mcpspec
    /// client` always does it (a client under test is started once per case)
    #[arg(long)]
    pub isolate: bool,
    /// What a run whose filters select no case comes to: fail (exit 2),
    /// warn (a warning, exit 0) or pass (exit 0)
    #[arg(long, value_enum, default_value_t = NoTests::Fail, value_name = "ACTION")]
    pub no_tests: NoTests,
    /// Write the results as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the findings as SARIF 2.1.0 to FILE (for code-scanning services)
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write report.json, junit.xml, summary.md, index.html, sarif.json, badge.json and transcripts/<case id>.jsonl to DIR (created if missing)
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Known failures, YAML `case id or glob: reason`: a listed failure does not fail the run, a listed case that passes does (stale)
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
    /// Compare each case's normalised transcript with DIR/<case id>.snap (insta's format): a
    /// changed one fails the case, a new one (none stored) is reported as new; both write
    /// .snap.new for `mcpspec review DIR` (nothing is written when CI=true)
    #[arg(long, value_name = "DIR")]
    pub snapshots: Option<PathBuf>,
    /// With --snapshots: a case with no stored snapshot fails (the default when CI=true)
    #[arg(long, requires = "snapshots")]
    pub snapshots_strict: bool,
    /// Redaction rules for this target, applied before snapshots are compared (YAML `paths:` /
    /// `patterns:` → placeholder; see the README)
    #[arg(long, value_name = "FILE")]
    pub redactions: Option<PathBuf>,
    /// Test a Streamable HTTP server at this URL (http://…; an MCP session per case, or
    /// one cases take turns on: see --isolate)
    #[arg(long, value_name = "URL", conflicts_with_all = ["sse_url", "command"])]
    pub url: Option<String>,
    /// Test a legacy HTTP+SSE (2024-11-05) server whose SSE stream is at this URL
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub sse_url: Option<String>,
    /// With --url or --sse-url: at most N cases live against the server at once, and N/4
    /// shared sessions idle between cases (none below 4) [default: 96]. While the server
    /// refuses connections or answers 429 or 503, the
    /// harness opens fewer (halving the limit, then raising it again as answers come) and
    /// sends a refused Streamable HTTP request again after a pause (Retry-After, at most 2s)
    #[arg(long, value_name = "N", value_parser = parse_jobs)]
    pub max_connections: Option<usize>,
    /// An extra header for every HTTP request, `Name: value` (repeatable; e.g.
    /// Authorization — its value is redacted in transcripts)
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// With --url: an access token the server accepts, sent as `Authorization: Bearer TOKEN`
    /// on every request. Runs the authorization cases that need a valid token (server/auth/);
    /// those that need none run whenever the server answers 401 without credentials
    #[arg(long, value_name = "TOKEN", requires = "url")]
    pub auth_token: Option<String>,
    /// With --auth-token: a valid token its authorization server issued for another resource
    /// (audience); the server must refuse it with 401
    #[arg(long, value_name = "TOKEN", requires = "auth_token")]
    pub auth_token_other_audience: Option<String>,
    /// Longest stdout line accepted from the target, in bytes
    #[arg(long, default_value_t = mcpspec_wire::DEFAULT_MAX_LINE)]
    pub max_line: usize,
    /// Also show the MAY-level notes of passing cases in detail
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Which cases print a line as they finish (nextest's levels; each shows the ones before it too)
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = StatusLevel::Warn)]
    pub status_level: StatusLevel,
    /// Which cases are listed again once the run ends: problems in detail (at most 3 per broken
    /// requirement), other cases a line each; the rollup of broken requirements and the totals
    /// always print
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = StatusLevel::Warn)]
    pub final_status_level: StatusLevel,
    /// No progress bar (one is drawn only when stdout and stderr are terminals and TERM is not dumb)
    #[arg(long)]
    pub no_progress: bool,
    /// Print the cases that would run and exit (like `cargo test -- --list`)
    #[arg(long)]
    pub list: bool,
    /// The server command and its arguments (after `--`; none: the built-in reference server)
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `--status-level` and `--final-status-level`: which per-case lines print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StatusLevel {
    /// No per-case line
    None,
    /// Failures, errors, stale expectations, cases blocked by a MUST
    Fail,
    /// Also warnings (SHOULD) and cases blocked by a SHOULD
    Warn,
    /// Also passes and expected failures of --expected-failures
    Pass,
    /// Also cases that are not applicable (nextest's "skip")
    Skip,
    /// Every case
    All,
}

impl From<StatusLevel> for mcpspec_report::human::StatusLevel {
    fn from(level: StatusLevel) -> Self {
        use mcpspec_report::human::StatusLevel as L;
        match level {
            StatusLevel::None => L::None,
            StatusLevel::Fail => L::Fail,
            StatusLevel::Warn => L::Warn,
            StatusLevel::Pass => L::Pass,
            StatusLevel::Skip => L::Skip,
            StatusLevel::All => L::All,
        }
    }
}

#[derive(Debug, Args)]
pub struct ShimArgs {
    /// The harness's address (127.0.0.1:PORT)
    #[arg(long, value_name = "ADDR")]
    pub connect: std::net::SocketAddr,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print JSON: one object per case (id, scenario, version, transports, level, requirements);
    /// with --requirements, one object per version (the format of schema/requirements/<version>.json)
    #[arg(long)]
    pub json: bool,
    /// List the requirement catalogue instead of cases: per version, each requirement with its
    /// level, role, summary, spec link, and the scenarios behind it, its oracle check, its
    /// exclusion reason, or "not yet covered". --filter then selects requirement id prefixes.
    #[arg(long)]
    pub requirements: bool,
}

/// The `after_help` of a command that runs a target: its own `text`, then
/// the exit codes, drawn from [`Exit`] so that the help cannot drift from
/// the codes the commands return.
pub fn with_exit_codes(text: &str) -> String {
    format!("{text}\n\n{}", Exit::help())
}

/// Printed after `mcpspec server --help`, before the exit codes.
const SERVER_HELP: &str = "\
Ctrl-C (or SIGTERM) stops the run: no case starts any more, running cases are cancelled and \
their targets killed, and --report-dir / --json are still written for the finished cases, \
marked interrupted. A second Ctrl-C exits at once.";

/// Printed after `mcpspec client --help`, before the exit codes.
const CLIENT_HELP: &str = "\
Examples:
  mcpspec client -- mcpspec reference client -- {server}
  mcpspec client -- npx @modelcontextprotocol/inspector --cli {server} --method tools/list
  mcpspec client -- python my_client.py --url {url}

Each case starts the client anew. The scripted server answers its handshake and its requests \
(listings, calls, reads) as the scenario says, and does the scenario's own steps meanwhile. \
Without --spec-version the client is started once first to learn the version it asks for, and \
every case runs at that version; a --spec-version the client did not ask for is counter-offered. \
A client that ends its session before a step needs it is judged on what it did (the rest is not \
applicable). --url, --sse-url and -H are for servers and are refused here.";

/// Printed after `mcpspec coverage --help`.
const COVERAGE_HELP: &str = "\
A requirement is covered at a version when a scenario that runs at that version names it, or \
when the oracle checks it on every message of the cases of that version. Excluded requirements \
(authorization, UI-only or unobservable rules; see `mcpspec list --requirements`) are not part \
of any *_total: they are counted in `excluded`.

--json prints {\"<version>\": {\"must_covered\": n, \"must_total\": n, \"should_covered\": n, \
\"should_total\": n, \"excluded\": n}}.";

#[derive(Debug, Args)]
pub struct CoverageArgs {
    /// Protocol version to report (repeatable; default: all five)
    #[arg(long = "spec-version", value_name = "VERSION", value_parser = parse_version)]
    pub spec_version: Vec<Version>,
    /// Extra scenario directory; a scenario with the same id replaces the built-in one (repeatable)
    #[arg(long, value_name = "DIR")]
    pub scenarios: Vec<PathBuf>,
    /// Print JSON: {"<version>": {"must_covered", "must_total", "should_covered", "should_total", "excluded"}}
    /// (with --against: the map's entries)
    #[arg(long)]
    pub json: bool,
    /// Count only the requirements that bind this role (and those binding either side,
    /// like JSON-RPC framing); default: both roles together
    #[arg(long, value_enum, value_name = "ROLE")]
    pub role: Option<CoverageRole>,
    /// Compare with another suite instead: `official`, the official MCP conformance suite
    /// (pinned; per official scenario, the mcpspec scenarios that judge the same rule, or
    /// why none does)
    #[arg(long, value_enum, value_name = "SUITE")]
    pub against: Option<Against>,
    /// With --against: print only the summary, as a Markdown table
    #[arg(long, requires = "against")]
    pub markdown: bool,
}

/// `coverage --role`: whose requirements are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CoverageRole {
    /// What servers must do (mcpspec server judges these)
    Server,
    /// What clients must do (mcpspec client judges these)
    Client,
}

/// `coverage --against`: the suites mcpspec keeps a parity map with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Against {
    /// @modelcontextprotocol/conformance (the pinned version: schema/parity/)
    Official,
}

#[derive(Debug, Args)]
pub struct ReferenceServerArgs {
    /// Break one rule of the specification on purpose (repeatable; see --list-faults)
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Items per page of every list result
    #[arg(long, default_value_t = 2)]
    pub page_size: usize,
    /// Print the available faults and exit
    #[arg(long)]
    pub list_faults: bool,
    /// Serve over HTTP at ADDR instead of stdio: Streamable HTTP at /mcp, legacy
    /// HTTP+SSE at /sse (e.g. 127.0.0.1:0 for a free port, printed on the first
    /// stdout line; a non-loopback address is served with a warning)
    #[arg(long, value_name = "ADDR", value_parser = crate::reference::parse_http_addr)]
    pub http: Option<std::net::SocketAddr>,
    /// With --http: OAuth mode. /mcp wants a bearer token (401 with a WWW-Authenticate
    /// challenge otherwise), Protected Resource Metadata is served at
    /// /.well-known/oauth-protected-resource/mcp, and the same address is a demo
    /// authorization server (metadata at /.well-known/oauth-authorization-server, dynamic
    /// registration, an authorize endpoint that approves at once, PKCE S256 required)
    #[arg(long, requires = "http")]
    pub auth: bool,
    /// With --http: act as a server under load. While N POSTs to /mcp are being served,
    /// another is answered 503 with Retry-After: 0, unprocessed (GET and DELETE never are)
    #[arg(long, value_name = "N", requires = "http")]
    pub shed_above: Option<usize>,
}

#[derive(Debug, Args)]
pub struct ReferenceClientArgs {
    /// Protocol version to speak (default: 2025-11-25). A handshake version is offered in
    /// initialize; 2026-07-28 opens with server/discover and runs statelessly (_meta on every
    /// request), falling back to initialize with 2025-11-25 when the server lacks discover
    #[arg(long = "spec-version", value_name = "VERSION", value_parser = parse_version)]
    pub spec_version: Option<Version>,
    /// With --spec-version 2026-07-28: skip server/discover and start the workflow at once,
    /// assuming tools, resources and prompts
    #[arg(long)]
    pub no_discover: bool,
    /// Break one rule of the specification on purpose (repeatable; see --list-faults)
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Print the available faults and exit
    #[arg(long)]
    pub list_faults: bool,
    /// How long each request waits for its answer
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Stay connected this long after the workflow, answering the server
    #[arg(long, default_value = "0s", value_parser = parse_duration_or_zero)]
    pub linger: Duration,
    /// Declare no client capability (roots, sampling, elicitation); their requests earn -32601
    #[arg(long)]
    pub no_capabilities: bool,
    /// Connect to a Streamable HTTP server at this URL
    #[arg(long, value_name = "URL", conflicts_with_all = ["sse_url", "command"])]
    pub url: Option<String>,
    /// OAuth: static client credentials from a pre-registration, used instead of any other
    /// registration (an empty value is none: `mcpspec client` hands them to a client through
    /// {client_id} only where its authorization server registered the client beforehand)
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// OAuth: the client secret of the pre-registered client (with --client-id)
    #[arg(long, value_name = "SECRET")]
    pub client_secret: Option<String>,
    /// OAuth: the client ID metadata document URL the client names itself by where the
    /// authorization server advertises client_id_metadata_document_supported
    #[arg(long, value_name = "URL", default_value = crate::reference_auth::CLIENT_METADATA_URL)]
    pub client_metadata_url: String,
    /// Connect to a legacy HTTP+SSE (2024-11-05) server whose SSE stream is at this URL
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub sse_url: Option<String>,
    /// The server command and its arguments (after `--`), spoken to over stdio
    #[arg(last = true, value_name = "SERVER_CMD")]
    pub command: Vec<String>,
}

fn parse_version(s: &str) -> Result<Version, String> {
    s.parse()
        .map_err(|e: mcpspec_engine::UnknownVersion| e.to_string())
}

/// `--extension NAME`: a known opt-in extension.
fn parse_extension(s: &str) -> Result<&'static str, String> {
    mcpspec_engine::extension::extension(s)
        .map(|e| e.name)
        .ok_or_else(|| {
            format!(
                "unknown extension {s:?} (known: {})",
                mcpspec_engine::extension::known()
            )
        })
}

/// `Name: value` of `--header`.
pub(crate) fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("invalid header {s:?} (write `Name: value`)"))?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    {
        return Err(format!("invalid header name {name:?}"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// `--jobs`: a whole number of at least 1 (0 jobs would run nothing).
fn parse_jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "invalid number {s:?} (a whole number of at least 1)"
        )),
    }
}

/// `250ms`, `5s`, `1m`; never zero, in any unit (a zero wait or limit would
/// fail every case at once, or disable what the option bounds).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration_or_zero(s)?;
    if d.is_zero() {
        return Err(format!(
            "{s:?} is zero: give a positive duration (e.g. 250ms, 5s, 1m)"
        ));
    }
    Ok(d)
}

/// [`parse_duration`] for the few options where zero means "none" (`--linger`).
pub fn parse_duration_or_zero(s: &str) -> Result<Duration, String> {
    let (num, unit) = s
        .find(|c: char| !c.is_ascii_digit())
        .map_or((s, ""), |i| s.split_at(i));
    let n: u64 = num
        .parse()
        .map_err(|_| format!("invalid duration {s:?} (use e.g. 250ms, 5s, 1m)"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "m" => Ok(Duration::from_secs(n.saturating_mul(60))),
        _ => Err(format!("invalid duration {s:?} (use e.g. 250ms, 5s, 1m)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// SARIF names built-in scenario files by the label the loader gives them.
    #[test]
    fn sarif_knows_the_embedded_label() {
        assert_eq!(
            mcpspec_report::sarif::EMBEDDED_LABEL,
            format!("{}/", mcpspec_scenario::corpus::EMBEDDED_PREFIX)
        );
    }

    /// `--help` of the top-level command and of every command that runs a
    /// target ends with the exit codes, exactly as the enum lists them.
    #[test]
    fn help_shows_the_exit_codes() {
        let table = Exit::help();
        for path in [
            &[][..],
            &["server"],
            &["client"],
            &["fuzz"],
            &["fuzz", "server"],
            &["fuzz", "client"],
        ] {
            let mut command = Cli::command();
            let mut cmd = &mut command;
            for name in path {
                cmd = cmd
                    .find_subcommand_mut(name)
                    .unwrap_or_else(|| panic!("no subcommand {name}"));
            }
            for help in [cmd.render_help(), cmd.render_long_help()] {
                let help = help.to_string();
                assert!(
                    help.trim_end().ends_with(&table),
                    "`mcpspec {} --help` does not end with the exit codes:\n{help}",
                    path.join(" ")
                );
            }
        }
    }

    #[test]
    fn status_levels_default_to_problems_and_parse_nextest_names() {
        let parse = |extra: &[&str]| {
            let mut argv = vec!["mcpspec", "server"];
            argv.extend_from_slice(extra);
            match Cli::try_parse_from(argv).map(|c| c.command) {
                Ok(Command::Server(a)) => Ok((a.status_level, a.final_status_level)),
                Ok(other) => panic!("{other:?}"),
                Err(e) => Err(e.kind()),
            }
        };
        assert_eq!(parse(&[]), Ok((StatusLevel::Warn, StatusLevel::Warn)));
        assert_eq!(
            parse(&["--status-level", "all", "--final-status-level", "none"]),
            Ok((StatusLevel::All, StatusLevel::None))
        );
        assert_eq!(
            parse(&["--status-level", "slow"]),
            Err(clap::error::ErrorKind::InvalidValue)
        );
        let help = Cli::command()
            .find_subcommand_mut("server")
            .map(|c| c.render_long_help().to_string())
            .unwrap_or_default();
        assert!(help.contains("--status-level <LEVEL>"), "{help}");
        assert!(help.contains("cases blocked by a SHOULD"), "{help}");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("2h").is_err());
        assert!(parse_duration("s").is_err());
        for zero in ["0", "0s", "0ms", "0m", "00s"] {
            assert!(parse_duration(zero).is_err(), "{zero} accepted");
        }
        assert_eq!(parse_duration_or_zero("0s"), Ok(Duration::ZERO));
    }

    #[test]
    fn jobs_must_be_at_least_one() {
        assert!(parse_jobs("0").is_err());
        assert!(parse_jobs("x").is_err());
        assert_eq!(parse_jobs("3"), Ok(3));
        for cmd in ["server", "client"] {
            let parsed = Cli::try_parse_from(["mcpspec", cmd, "--jobs", "0"]);
            assert!(parsed.is_err(), "{cmd} --jobs 0 accepted");
            let parsed = Cli::try_parse_from(["mcpspec", cmd, "--timeout", "0s"]);
            assert!(parsed.is_err(), "{cmd} --timeout 0s accepted");
        }
    }
}
