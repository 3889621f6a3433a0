//! `mcpspec server`: test an MCP server over stdio, Streamable HTTP or
//! legacy HTTP+SSE; and `mcpspec client`, the same run against a client
//! under test, which the harness serves (the client is started once first
//! to learn its versions: `mcpspec_runner::client::probe_client`).
//!
//! Loads the scenario corpus (embedded, plus `--scenarios` directories),
//! plans the cases, runs them against the command after `--` (or the
//! built-in reference server, started as a child process of this binary),
//! and maps the summary to the documented exit code.
//!
//! `--expected-failures FILE` loads a baseline ([`baseline`]) that every
//! reporter and the exit code take into account; `--report-dir DIR`
//! writes the report files (`mcpspec_report::dir`).
//!
//! On a terminal a progress bar ([`crate::progress`]) runs in front of the
//! human reporter. Ctrl-C or `SIGTERM` ([`crate::interrupt`]) stops the
//! run: the runner cancels the running cases, every reporter still writes
//! what finished, marked interrupted, and the exit code is 130 / 143.

mod baseline;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcpspec_engine::{Role, Version};
use mcpspec_report::{Baseline, HumanReporter, JsonReporter, ReportDir, SarifReporter, Verdict};
use std::collections::BTreeMap;

use mcpspec_model::Exit;
use mcpspec_runner::run::{run_until, Offer};
use mcpspec_runner::{
    plan, transport_kind, Case, CaseConfig, CaseResult, FailFast, Reporter, RunConfig, Selection,
    Target,
};
use mcpspec_scenario::{Corpus, Scenario, TransportKind};
use mcpspec_transport::{ClientCommand, CommandSpec};

use crate::cli::{NoTests, SelectArgs, ServerArgs};

/// Loads the scenarios, printing every scenario-file error (exit 2 on any).
pub fn load_corpus(extra: &[PathBuf]) -> Result<Vec<Arc<Scenario>>, Exit> {
    match Corpus::load(extra) {
        Ok(corpus) => Ok(corpus.scenarios.into_iter().map(Arc::new).collect()),
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}\n");
            }
            eprintln!(
                "error: {} scenario file error(s); the scenario files are at fault",
                errors.len()
            );
            Err(Exit::Usage)
        }
    }
}

/// Loads the corpus and plans the selected cases; on failure the error is
/// printed and the exit code returned.
pub fn select_cases(
    select: &SelectArgs,
    role_prefix: &str,
    transport: Option<TransportKind>,
) -> Result<Vec<Case>, Exit> {
    let scenarios = load_corpus(&select.scenarios)?;
    plan_cases(&scenarios, select, role_prefix, transport)
}

/// Plans the selected cases of `scenarios`.
fn plan_cases(
    scenarios: &[Arc<Scenario>],
    select: &SelectArgs,
    role_prefix: &str,
    transport: Option<TransportKind>,
) -> Result<Vec<Case>, Exit> {
    let sel = Selection {
        filters: select.filter.clone(),
        versions: select.spec_version.clone(),
        role_prefix: role_prefix.to_owned(),
        transport,
    };
    let cases = plan(scenarios, &sel).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Usage
    })?;
    Ok(match select.partition {
        Some(p) => p.apply(cases),
        None => cases,
    })
}

/// The target: the command after `--`, or this binary's reference server.
pub(crate) fn target(command: &[String]) -> Result<CommandSpec, String> {
    match command.split_first() {
        Some((program, args)) => Ok(CommandSpec::new(program.clone(), args.iter().cloned())),
        None => {
            let exe = std::env::current_exe().map_err(|e| {
                format!("cannot locate the mcpspec binary for the reference server: {e}")
            })?;
            Ok(CommandSpec::new(
                exe.to_string_lossy().into_owned(),
                ["reference", "server"],
            ))
        }
    }
}

/// What `mcpspec server` tests: `--url`, `--sse-url`, or a command (the
/// reference server when none is given).
fn server_target(args: &ServerArgs) -> Result<Target, String> {
    let mut headers = args.headers.clone();
    if let Some(token) = &args.auth_token {
        if headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
        {
            return Err(
                "--auth-token sends `Authorization: Bearer TOKEN`; drop the -H Authorization header"
                    .to_owned(),
            );
        }
        headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
    }
    let mut target = Target::choose(
        args.url.as_deref(),
        args.sse_url.as_deref(),
        &headers,
        || target(&args.command),
    )?;
    match &mut target {
        Target::Http { options, .. } | Target::Sse { options, .. } => {
            let max = args
                .max_connections
                .unwrap_or(mcpspec_transport::limit::DEFAULT_MAX);
            options.limit = Some(mcpspec_transport::limit::ConnLimit::new(max));
            options.shared_client = Some(mcpspec_transport::SharedClient::default());
        }
        Target::Stdio(_) | Target::Client(_) if args.max_connections.is_some() => {
            return Err("--max-connections limits an HTTP server's sessions: use it with --url or --sse-url (--jobs bounds stdio start-ups)".to_owned());
        }
        Target::Stdio(_) | Target::Client(_) => {}
    }
    Ok(target)
}

/// What `mcpspec client` tests: the command after `--` (the reference
/// client when none is given), reaching the harness through `{server}`
/// (this binary's `shim`), `{url}` or `{sse_url}`.
fn client_target(args: &ServerArgs) -> Result<Target, String> {
    if args.max_connections.is_some() {
        return Err(
            "--max-connections limits a server's sessions (--url, --sse-url); a client under test starts once per case, bounded by --jobs".to_owned(),
        );
    }
    if args.auth_token.is_some() || args.auth_token_other_audience.is_some() {
        return Err(
            "--auth-token and --auth-token-other-audience are for testing a server's authorization (--url)".to_owned(),
        );
    }
    if args.url.is_some() || args.sse_url.is_some() || !args.headers.is_empty() {
        return Err(
            "--url, --sse-url and -H choose a server to test; a client reaches the harness through {url} or {sse_url} in its own arguments".to_owned(),
        );
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate the mcpspec binary for the shim: {e}"))?
        .to_string_lossy()
        .into_owned();
    let command = match args.command.split_first() {
        Some((program, rest)) => CommandSpec::new(program.clone(), rest.iter().cloned()),
        None => CommandSpec::new(exe.clone(), ["reference", "client", "--", "{server}"]),
    };
    Ok(Target::Client(ClientCommand {
        command,
        shim: CommandSpec::new(exe, ["shim"]),
    }))
}

/// The versions a client case runs at when `--spec-version` is not given:
/// the handshake version the client asks for, and 2026-07-28 when it
/// speaks that too (learnt by starting it).
async fn client_versions(cfg: &CaseConfig) -> Result<Vec<Version>, String> {
    let offer = mcpspec_runner::client::probe_client(cfg).await?;
    let mut versions = Vec::new();
    match offer.asked.parse::<Version>() {
        Ok(v) if v.lifecycle() == mcpspec_engine::Lifecycle::Handshake => versions.push(v),
        _ if offer.asked.is_empty() => {}
        _ => {
            eprintln!(
                "note: the client asks for protocol version {:?}; its handshake cases run at {} (counter-offered)",
                offer.asked,
                Version::V2025_11_25
            );
            versions.push(Version::V2025_11_25);
        }
    }
    if offer.stateless {
        versions.push(Version::V2026_07_28);
    }
    Ok(versions)
}

/// The offers of a client that asks for `asked`: those supported, every
/// other version not (named after what it asks for instead).
fn client_offers(asked: &[Version]) -> BTreeMap<Version, Offer> {
    let named = asked
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(" and ");
    Version::ALL
        .iter()
        .map(|&v| {
            let offer = if asked.contains(&v) {
                Offer::Supported
            } else {
                Offer::Other(named.clone())
            };
            (v, offer)
        })
        .collect()
}

/// Loads `--expected-failures`, checking each entry against every server
/// case of the corpus; errors are printed (exit 2).
fn load_baseline(
    args: &ServerArgs,
    scenarios: &[Arc<Scenario>],
    role_prefix: &str,
) -> Result<Option<Arc<Baseline>>, Exit> {
    let Some(path) = &args.expected_failures else {
        return Ok(None);
    };
    let everything = SelectArgs {
        filter: Vec::new(),
        spec_version: Vec::new(),
        scenarios: Vec::new(),
        partition: None,
    };
    // Every transport's cases: one baseline may serve runs over several.
    let all = plan_cases(scenarios, &everything, role_prefix, None)?;
    match baseline::load(path, &all) {
        Ok(b) => Ok(Some(Arc::new(b))),
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            Err(Exit::Usage)
        }
    }
}

/// `mcpspec server`.
pub async fn run(args: ServerArgs) -> Exit {
    run_as(args, Role::Server).await
}

/// `mcpspec client`.
pub async fn run_client(args: ServerArgs) -> Exit {
    run_as(args, Role::Client).await
}

/// Tests a target playing `role` (the harness plays the other).
async fn run_as(args: ServerArgs, role: Role) -> Exit {
    let scenarios = match load_corpus(&args.select.scenarios) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (target, role_prefix) = match role {
        Role::Client => (client_target(&args), "client/"),
        _ => (server_target(&args), "server/"),
    };
    let target = match target {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let case_config = CaseConfig {
        target: target.clone(),
        step_timeout: args.timeout,
        case_timeout: args
            .case_timeout
            .unwrap_or_else(|| (args.timeout * 6).max(Duration::from_secs(30))),
        startup_timeout: args.startup_timeout,
        max_line: args.max_line,
        auth: mcpspec_runner::AuthTokens {
            token: args.auth_token.clone(),
            other_audience: args.auth_token_other_audience.clone(),
        },
    };
    // A client's versions are learnt by starting it once; cases at other
    // versions are then not applicable (with --spec-version: counter-offered).
    let mut offers = None;
    if role == Role::Client && args.select.spec_version.is_empty() && !args.list {
        match client_versions(&case_config).await {
            Ok(v) => offers = Some(client_offers(&v)),
            Err(e) => {
                eprintln!("error: {e} (client: {})", target.display());
                return Exit::TargetUnavailable;
            }
        }
    }
    let transport = Some(transport_kind(&target));
    let cases = match plan_cases(&scenarios, &args.select, role_prefix, transport) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if args.list {
        let text: String = cases.iter().map(|c| format!("{}: test\n", c.id)).collect();
        return crate::requirements::emit(&text);
    }
    if cases.is_empty() {
        return match args.no_tests {
            NoTests::Fail => {
                eprintln!("error: no case matches the filters (--no-tests=fail)");
                Exit::Usage
            }
            NoTests::Warn => {
                eprintln!("warning: no case matches the filters (--no-tests=warn)");
                Exit::Success
            }
            NoTests::Pass => Exit::Success,
        };
    }
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    // Jobs bound target start-ups (a case that waits holds none): the
    // built-in reference is a light native process, four per core keep the
    // CPU busy. A command of unknown weight (an interpreter, `npx`) gets one
    // per core. HTTP targets start no process: jobs bound only their version
    // probe, --max-connections their cases.
    let light = args.command.is_empty() && role == Role::Server;
    let jobs = args.jobs.unwrap_or(if light { cores * 4 } else { cores });
    let baseline = match load_baseline(&args, &scenarios, role_prefix) {
        Ok(b) => b,
        Err(code) => return code,
    };
    // The selected cases hold their scenarios; the rest are not needed again.
    drop(scenarios);
    // A previous run in the same report directory measured every case:
    // those durations order this run (slowest first) better than the waits
    // the scenarios declare.
    let history = args
        .report_dir
        .as_ref()
        .map(|dir| mcpspec_runner::schedule::History::load(&dir.join("report.json")))
        .unwrap_or_default();
    let cfg = RunConfig {
        live: None,
        history,
        case: case_config,
        offers,
        jobs,
        strict: args.strict,
        fail_fast: args
            .fail_fast
            .then(|| fail_fast(args.strict, baseline.clone())),
        extensions: args.extension.clone(),
        retries: retries(args.retries, baseline.clone()),
        // A stored snapshot is a case's whole transcript (its handshake, its
        // request ids): only a case alone reproduces it.
        isolate: args.isolate || args.snapshots.is_some(),
    };
    let strict = args.strict;
    // Only snapshots redact; a `--redactions` file is read (and its errors
    // reported) either way. The built-in rules' regexes cost most of a
    // megabyte: none are built for a run that has no use for them.
    let redactions = if args.snapshots.is_some() || args.redactions.is_some() {
        match crate::diff::load_redactions(args.redactions.as_deref()) {
            Ok(r) => Some(Arc::new(r)),
            Err(code) => return code,
        }
    } else {
        None
    };
    let snapshot_store = args
        .snapshots
        .clone()
        .map(|dir| mcpspec_report::snapshot::Store::new(dir).strict(args.snapshots_strict));
    let mut report_dir = match args.report_dir.clone() {
        Some(dir) => match ReportDir::create(dir, strict, baseline.clone()) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        },
        None => None,
    };
    let human = HumanReporter::stdout(args.verbose)
        .with_status_levels(args.status_level.into(), args.final_status_level.into())
        .with_baseline(baseline.clone());
    let mut human: Box<dyn Reporter> = if crate::progress::wanted(args.no_progress) {
        Box::new(crate::progress::Progress::new(human))
    } else {
        Box::new(human)
    };
    let mut json = args
        .json
        .clone()
        .map(|path| JsonReporter::new(path, strict, baseline.clone()));
    let partition = args.select.partition.map(|p| p.to_string());
    if let Some(j) = json.as_mut() {
        j.log_mut().partition = partition.clone();
    }
    if let Some(d) = report_dir.as_mut() {
        d.log_mut().partition = partition;
    }
    let mut sarif = args
        .sarif
        .clone()
        .map(|path| SarifReporter::new(path, strict, baseline.clone()));
    let mut verdict = baseline.map(Verdict::new);
    let mut write_errors: Vec<String> = Vec::new();
    let watch = crate::interrupt::watch();
    if let Err(e) = &watch {
        eprintln!(
            "warning: Ctrl-C will not stop the run cleanly: failed to watch for signals: {e}"
        );
    }
    let stop = async move {
        match watch {
            Ok(stop) => stop.await,
            Err(_) => std::future::pending().await,
        }
    };
    crate::resident::release_startup_pages();
    let (summary, stopped) = {
        let mut reporters: Vec<&mut dyn Reporter> = vec![human.as_mut()];
        if let Some(j) = json.as_mut() {
            reporters.push(j);
        }
        if let Some(s) = sarif.as_mut() {
            reporters.push(s);
        }
        if let Some(d) = report_dir.as_mut() {
            reporters.push(d);
        }
        if let Some(v) = verdict.as_mut() {
            reporters.push(v);
        }
        match snapshot_store.zip(redactions) {
            // Snapshots judge cases before any reporter sees them (snapshots.rs).
            Some((store, redactions)) => {
                let mut gate = crate::snapshots::SnapshotGate::new(store, redactions, reporters);
                let (summary, stopped) = run_until(cases, cfg, &mut [&mut gate], stop).await;
                write_errors.append(&mut gate.errors);
                (gate.summary.unwrap_or(summary), stopped)
            }
            None => run_until(cases, cfg, &mut reporters, stop).await,
        }
    };
    write_errors.extend(json.and_then(|j| j.error));
    write_errors.extend(sarif.and_then(|s| s.error));
    if let Some(d) = &report_dir {
        write_errors.extend(d.errors.iter().cloned());
        if d.errors.is_empty() {
            println!("reports: {}", d.path().join("index.html").display());
        }
    }
    for e in &write_errors {
        eprintln!("error: {e}");
    }
    // Stopped: the signal's code (README), whatever else happened.
    if let Some(stop) = stopped {
        return stop.exit;
    }
    if !write_errors.is_empty() {
        return Exit::Usage;
    }
    match &verdict {
        Some(v) => v.tally.exit_code(&summary, strict),
        None => summary.exit_code(strict),
    }
}

/// `--retries N` for the baseline's flaky cases (none without one).
fn retries(times: u32, baseline: Option<Arc<Baseline>>) -> Option<mcpspec_runner::Retries> {
    let baseline = baseline.filter(|b| times > 0 && b.entries.iter().any(|e| e.flaky))?;
    Some(mcpspec_runner::Retries {
        times,
        applies: Arc::new(move |case, scenario| baseline.flaky_for(case, scenario).is_some()),
    })
}

/// `--fail-fast`'s rule: a case that fails (warns too under `--strict`, a
/// block weighing as its cause), unless the baseline expects it.
fn fail_fast(strict: bool, baseline: Option<Arc<Baseline>>) -> FailFast {
    FailFast(Arc::new(move |r: &CaseResult| {
        let mut one = mcpspec_runner::Summary::default();
        one.add(&r.outcome);
        let expected = baseline
            .as_ref()
            .and_then(|b| b.judge(r))
            .is_some_and(mcpspec_report::Expectation::tolerated);
        one.has_failures(strict) && !expected
    }))
}
