//! # mcpspec-testing — the conformance suite inside your own `cargo test`
//!
//! An MCP server's repository runs mcpspec's scenarios as part of its test
//! suite: every case (`<scenario id>@<version>`) becomes one
//! [libtest-mimic](libtest_mimic) trial, so the usual test arguments work —
//! `cargo test -- server/lifecycle` runs the cases whose id contains that
//! text, `cargo test -- --list` lists the case ids, `--exact`, `--skip`,
//! `--test-threads` behave as for any test.
//!
//! ```text
//!  Suite::http(url) ──trials()──► Trial per case ──libtest-mimic──► threads
//!                                     │
//!                                     ▼  (first trial to run)
//!                 shared: tokio runtime ─► version probe, once ─► offers
//!                                     │
//!               run_case ─► CaseResult ─► ok / FAILED (Expected, Actual) / ignored
//! ```
//!
//! ## Use
//!
//! In the server's `Cargo.toml`:
//!
//! ```toml
//! [dev-dependencies]
//! mcpspec-testing = "0.1"
//!
//! [[test]]
//! name = "conformance"
//! harness = false
//! ```
//!
//! and `tests/conformance.rs`:
//!
//! ```no_run
//! use mcpspec_testing::{Suite, Version};
//!
//! fn main() {
//!     // A stdio server, one process per case. Inside the server's own
//!     // crate, `env!("CARGO_BIN_EXE_my-server")` names its built binary.
//!     Suite::stdio("target/debug/my-server", ["--stdio"])
//!         .versions([Version::V2025_06_18, Version::V2025_11_25])
//!         .run_main()
//! }
//! ```
//!
//! `Suite::http("http://127.0.0.1:PORT/mcp")` tests a Streamable HTTP server
//! (one MCP session per case); `examples/reference_http.rs` serves the
//! built-in reference server in-process and tests it that way.
//!
//! ## What a trial reports
//!
//! - **pass**: `ok`. A case that broke only SHOULD rules (a warning) passes
//!   too, unless [`Suite::strict`] is set.
//! - **fail** (a MUST broken), or **error** (the target or a scenario at
//!   fault): `FAILED`, with the text the `mcpspec` CLI prints — requirement,
//!   level, spec link, location, Expected / Actual, and the last lines of the
//!   transcript.
//! - **not applicable** — the target does not offer the case's version
//!   (learnt once, from a short handshake per version, the first time a
//!   trial runs), or lacks what the scenario requires: `ignored`, with the
//!   reason.
//!
//! A target that completes no handshake at any version fails every trial
//! (blamed on the target), as the CLI exits 3: a server that cannot start is
//! not "not applicable".
//!
//! ## Threads
//!
//! Trials run on libtest-mimic's worker threads; each blocks on one shared
//! multi-threaded tokio runtime, created when the first trial runs. Cases
//! mostly wait on the target, so [`Suite::run_main`] defaults
//! `--test-threads` like the CLI's `--jobs`: four per core for HTTP targets,
//! one per core for commands (`RUST_TEST_THREADS`, `--test-threads` or
//! [`Suite::jobs`] override it).

mod shared;
mod verdict;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcpspec_runner::plan::FilterError;
use mcpspec_runner::{plan, transport_kind, CaseConfig, Selection};
use mcpspec_scenario::{Corpus, Scenario, ScenarioError};

pub use libtest_mimic::{self, Arguments, Conclusion, Trial};
pub use mcpspec_engine::Version;
pub use mcpspec_transport::{CommandSpec, HttpOptions, Target};

use crate::shared::Shared;

/// The conformance suite against one server target; build it, then turn it
/// into [`trials`](Suite::trials) or [`run_main`](Suite::run_main).
#[derive(Debug, Clone)]
pub struct Suite {
    target: Target,
    filters: Vec<String>,
    versions: Vec<Version>,
    scenario_dirs: Vec<PathBuf>,
    step_timeout: Duration,
    case_timeout: Option<Duration>,
    startup_timeout: Duration,
    max_line: usize,
    strict: bool,
    jobs: Option<usize>,
    extensions: Vec<&'static str>,
}

/// Why no trials could be made; the text says who is at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuiteError {
    /// A scenario file (embedded or from [`Suite::scenarios`]) is invalid,
    /// as the CLI finds it: it breaks the file format, or names a requirement
    /// id the catalogue does not have (or not at a version it runs at).
    #[error("{} scenario file error(s); the scenario files are at fault:\n{}", .0.len(), list(.0))]
    Scenarios(Vec<ScenarioError>),
    /// A [`Suite::filter`] that is not a valid glob.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// The filters and versions leave no case for this target's transport:
    /// zero trials would pass silently, so this is an error.
    #[error("no {transport} case matches the filters {filters:?} and versions {versions:?}")]
    NoCases {
        transport: &'static str,
        filters: Vec<String>,
        versions: Vec<String>,
    },
}

fn list(errors: &[ScenarioError]) -> String {
    errors
        .iter()
        .map(|e| format!("{e}\n"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Suite {
    /// The server scenarios against `target` (those of its transport), at
    /// every version, with the CLI's default timeouts.
    pub fn server(target: Target) -> Suite {
        Suite {
            target,
            filters: Vec::new(),
            versions: Vec::new(),
            scenario_dirs: Vec::new(),
            step_timeout: Duration::from_secs(5),
            case_timeout: None,
            startup_timeout: Duration::from_secs(20),
            max_line: mcpspec_wire::DEFAULT_MAX_LINE,
            strict: false,
            jobs: None,
            extensions: Vec::new(),
        }
    }

    /// A server spoken to over stdio: `program args…`, a fresh process per case.
    pub fn stdio(
        program: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Suite {
        Suite::server(Target::Stdio(CommandSpec::new(program, args)))
    }

    /// A Streamable HTTP server at `url` (e.g. `http://127.0.0.1:8080/mcp`),
    /// a fresh MCP session per case.
    pub fn http(url: impl Into<String>) -> Suite {
        Suite::server(Target::Http {
            url: url.into(),
            options: HttpOptions::default(),
        })
    }

    /// Only these versions (repeatable; default: every version a scenario lists).
    pub fn versions(mut self, versions: impl IntoIterator<Item = Version>) -> Suite {
        self.versions.extend(versions);
        self
    }

    /// Only cases whose id starts with `pattern`, or matches it as a glob
    /// (`*`, `?`, `[`, `{`), like the CLI's `--filter` (repeatable: any
    /// may match). Applied before libtest's own filter, so the cases left
    /// out are not listed either.
    pub fn filter(mut self, pattern: impl Into<String>) -> Suite {
        self.filters.push(pattern.into());
        self
    }

    /// Also load the scenarios below `dir` (repeatable), as `--scenarios`
    /// does: a file whose id is already loaded replaces it.
    pub fn scenarios(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.scenario_dirs.push(dir.into());
        self
    }

    /// How long to wait for each expected message (default 5s, `--timeout`).
    pub fn timeout(mut self, timeout: Duration) -> Suite {
        self.step_timeout = timeout;
        self
    }

    /// Hard limit for one case after start-up (default: 30s, or six times
    /// the timeout when that is longer; `--case-timeout`).
    pub fn case_timeout(mut self, timeout: Duration) -> Suite {
        self.case_timeout = Some(timeout);
        self
    }

    /// How long a fresh target may take to answer first (default 20s,
    /// `--startup-timeout`).
    pub fn startup_timeout(mut self, timeout: Duration) -> Suite {
        self.startup_timeout = timeout;
        self
    }

    /// Also run the cases of the opt-in extension `name` (`tasks`, `skills`:
    /// `--extension`); without it they are ignored as not applicable. An
    /// unknown name is ignored too: no scenario carries it.
    pub fn extension(mut self, name: &str) -> Suite {
        if let Some(e) = mcpspec_engine::extension::extension(name) {
            self.extensions.push(e.name);
        }
        self
    }

    /// Fail the trials of cases that broke SHOULD rules too (`--strict`).
    pub fn strict(mut self, strict: bool) -> Suite {
        self.strict = strict;
        self
    }

    /// The default `--test-threads` of [`run`](Suite::run) and
    /// [`run_main`](Suite::run_main), when neither the command line nor
    /// `RUST_TEST_THREADS` sets it.
    pub fn jobs(mut self, jobs: usize) -> Suite {
        self.jobs = Some(jobs.max(1));
        self
    }

    /// One trial per selected case, named by the case id, in id order.
    /// Nothing is started until a trial runs.
    pub fn trials(&self) -> Result<Vec<Trial>, SuiteError> {
        let scenarios = self.load()?;
        let selection = Selection {
            filters: self.filters.clone(),
            versions: self.versions.clone(),
            role_prefix: "server/".to_owned(),
            transport: Some(transport_kind(&self.target)),
        };
        let cases = plan(&scenarios, &selection)?;
        if cases.is_empty() {
            return Err(SuiteError::NoCases {
                transport: self.target.transport(),
                filters: self.filters.clone(),
                versions: self.versions.iter().map(|v| v.to_string()).collect(),
            });
        }
        let mut versions: Vec<Version> = cases.iter().map(|c| c.version).collect();
        versions.sort();
        versions.dedup();
        let shared = Arc::new(Shared::new(
            self.case_config(),
            versions,
            self.strict,
            self.extensions.clone(),
        ));
        Ok(cases
            .into_iter()
            .map(|case| {
                let shared = Arc::clone(&shared);
                Trial::ignorable_test(case.id.clone(), move || shared.play(&case))
            })
            .collect())
    }

    /// Runs the trials under `args` (libtest's options), with
    /// [`jobs`](Suite::jobs)' default thread count.
    pub fn run(&self, args: &Arguments) -> Result<Conclusion, SuiteError> {
        let mut args = args.clone();
        if args.test_threads.is_none() {
            args.test_threads = Some(self.default_threads());
        }
        Ok(libtest_mimic::run(&args, self.trials()?))
    }

    /// Parses the test binary's arguments, runs the trials and exits: 0
    /// when none failed, 101 otherwise (as `cargo test` expects), 101 with
    /// the error printed when the suite cannot be set up.
    pub fn run_main(self) -> ! {
        let args = Arguments::from_args();
        match self.run(&args) {
            Ok(conclusion) => conclusion.exit(),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(101)
            }
        }
    }

    /// Embedded scenarios plus [`scenarios`](Suite::scenarios) folders,
    /// validated by the loader (requirement ids against the catalogue too).
    fn load(&self) -> Result<Vec<Arc<Scenario>>, SuiteError> {
        let corpus = Corpus::load(&self.scenario_dirs).map_err(SuiteError::Scenarios)?;
        Ok(corpus.scenarios.into_iter().map(Arc::new).collect())
    }

    fn case_config(&self) -> CaseConfig {
        CaseConfig {
            target: self.target.clone(),
            step_timeout: self.step_timeout,
            case_timeout: self
                .case_timeout
                .unwrap_or_else(|| (self.step_timeout * 6).max(Duration::from_secs(30))),
            startup_timeout: self.startup_timeout,
            max_line: self.max_line,
            auth: mcpspec_runner::AuthTokens::default(),
        }
    }

    /// `RUST_TEST_THREADS`, else [`jobs`](Suite::jobs), else the CLI's
    /// default: four per core over HTTP (a case is a session), one per core
    /// for a command of unknown weight.
    fn default_threads(&self) -> usize {
        if let Some(n) = std::env::var("RUST_TEST_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
        {
            return n;
        }
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        self.jobs.unwrap_or(match self.target {
            Target::Stdio(_) | Target::Client(_) => cores,
            Target::Http { .. } | Target::Sse { .. } => cores * 4,
        })
    }
}
