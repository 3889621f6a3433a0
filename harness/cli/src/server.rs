//! `mcpspec server`: test an MCP server over stdio.
//!
//! Loads the scenario corpus (embedded, plus `--scenarios` directories),
//! plans the cases, runs them against the command after `--` (or the
//! built-in reference server, started as a child process of this binary),
//! and maps the summary to the documented exit code.

use std::path::PathBuf;
use std::sync::Arc;

use mcpspec_report::{HumanReporter, JsonReporter};
use mcpspec_runner::{plan, Case, CaseConfig, Reporter, RunConfig, Selection};
use mcpspec_scenario::{Corpus, Scenario, TransportKind};
use mcpspec_transport::CommandSpec;

use crate::cli::{SelectArgs, ServerArgs};
use crate::EXIT_USAGE;

pub const EXIT_OK: u8 = 0;

/// Loads the scenarios, printing every scenario-file error (exit 2 on any).
pub fn load_corpus(extra: &[PathBuf]) -> Result<Vec<Arc<Scenario>>, u8> {
    let loaded = Corpus::load(extra).and_then(|c| {
        let scenarios: Vec<Arc<Scenario>> = c.scenarios.into_iter().map(Arc::new).collect();
        // Requirement ids are checked against the catalogue once the corpus is whole.
        let errors = crate::requirements::check_ids(&scenarios);
        if errors.is_empty() {
            Ok(scenarios)
        } else {
            Err(errors)
        }
    });
    match loaded {
        Ok(scenarios) => Ok(scenarios),
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}\n");
            }
            eprintln!(
                "error: {} scenario file error(s); the scenario files are at fault",
                errors.len()
            );
            Err(EXIT_USAGE)
        }
    }
}

/// Loads the corpus and plans the selected cases; on failure the error is
/// printed and the exit code returned.
pub fn select_cases(
    select: &SelectArgs,
    role_prefix: &str,
    transport: Option<TransportKind>,
) -> Result<Vec<Case>, u8> {
    let scenarios = load_corpus(&select.scenarios)?;
    let sel = Selection {
        filters: select.filter.clone(),
        versions: select.spec_version.clone(),
        role_prefix: role_prefix.to_owned(),
        transport,
    };
    plan(&scenarios, &sel).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_USAGE
    })
}

/// The target: the command after `--`, or this binary's reference server.
fn target(command: &[String]) -> Result<CommandSpec, String> {
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

pub async fn run(args: ServerArgs) -> u8 {
    let cases = match select_cases(&args.select, "server/", Some(TransportKind::Stdio)) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if args.list {
        for c in &cases {
            println!("{}: test", c.id);
        }
        return EXIT_OK;
    }
    if cases.is_empty() {
        eprintln!("error: no case matches the filters");
        return EXIT_USAGE;
    }
    let target = match target(&args.command) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    let cfg = RunConfig {
        case: CaseConfig {
            target,
            step_timeout: args.timeout,
            case_timeout: args.case_timeout,
            max_line: args.max_line,
        },
        jobs,
        strict: args.strict,
    };
    let mut human = HumanReporter::stdout(args.verbose);
    let mut json = args.json.clone().map(JsonReporter::new);
    let summary = {
        let mut reporters: Vec<&mut dyn Reporter> = vec![&mut human];
        if let Some(j) = json.as_mut() {
            reporters.push(j);
        }
        mcpspec_runner::run(cases, cfg, &mut reporters).await
    };
    if let Some(err) = json.and_then(|j| j.error) {
        eprintln!("error: {err}");
        return EXIT_USAGE;
    }
    u8::try_from(summary.exit_code(args.strict)).unwrap_or(EXIT_USAGE)
}
