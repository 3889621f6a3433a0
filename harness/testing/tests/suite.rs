//! The suite as trials, against the reference server served in-process over
//! Streamable HTTP, with and without faults:
//!
//! - a broken MUST fails its trial, with the CLI's Expected / Actual text;
//! - a broken SHOULD passes, and fails under `strict`;
//! - libtest's filter and `--list` see case ids;
//! - a target that cannot be reached fails every trial (it is not ignored);
//! - a selection with no case, or a bad glob, is an error before any trial;
//!   so is a scenario naming a requirement id the catalogue lacks, located
//!   at the id as the CLI reports it.
//!
//! Each run writes libtest-mimic's output to a log file (`--logfile`), so
//! the assertions read what `cargo test` would print.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcpspec_reference::{Config, Fault};
use mcpspec_reference_http::{serve, HttpServerConfig, TcpListener, MCP_PATH};
use mcpspec_testing::{Arguments, Conclusion, Suite, SuiteError, Version};
use tokio::runtime::Runtime;

/// The reference server with `faults`, on a free loopback port; it stops
/// when the runtime is dropped.
struct Reference {
    _runtime: Runtime,
    url: String,
}

impl Reference {
    fn start(faults: &[Fault]) -> Reference {
        let runtime = Runtime::new().unwrap();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let cfg = HttpServerConfig::new(Config {
            faults: faults.to_vec(),
            ..Config::default()
        });
        runtime.spawn(serve(listener, cfg));
        Reference {
            _runtime: runtime,
            url: format!("http://{addr}{MCP_PATH}"),
        }
    }
}

/// Runs `suite` as `cargo test -- <filter>` would, returning the
/// conclusion and everything libtest-mimic printed.
fn run(suite: &Suite, args: Arguments) -> (Conclusion, String) {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let log: PathBuf = std::env::temp_dir().join(format!(
        "mcpspec-testing-{}-{}.log",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let args = Arguments {
        logfile: Some(log.to_string_lossy().into_owned()),
        test_threads: args.test_threads.or(Some(4)),
        ..args
    };
    let conclusion = suite.run(&args).unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    (conclusion, text)
}

const PING: &str = "server/lifecycle/ping/operating";

#[test]
fn a_broken_must_fails_its_trial_with_expected_and_actual() {
    let clean = Reference::start(&[]);
    let suite = Suite::http(&clean.url)
        .filter(PING)
        .versions([Version::V2025_06_18]);
    let (c, log) = run(&suite, Arguments::default());
    assert_eq!((c.num_passed, c.num_failed), (1, 0), "{log}");

    let faulty = Reference::start(&[Fault::PingNonEmpty]);
    let suite = Suite::http(&faulty.url)
        .filter(PING)
        .versions([Version::V2025_06_18]);
    let (c, log) = run(&suite, Arguments::default());
    assert_eq!((c.num_passed, c.num_failed), (0, 1), "{log}");
    assert!(c.has_failed());
    for part in [
        "---- server/lifecycle/ping/operating@2025-06-18 ----",
        "FAIL server/lifecycle/ping/operating@2025-06-18",
        "MUST ping.respond",
        "spec: https://modelcontextprotocol.io/specification/2025-06-18/",
        "at: <embedded>/server/lifecycle/ping/operating.yaml",
        "Expected:",
        "Actual:",
        "Transcript",
    ] {
        assert!(log.contains(part), "{part:?} missing from:\n{log}");
    }
}

#[test]
fn a_broken_should_passes_unless_strict() {
    let faulty = Reference::start(&[Fault::UnknownMethodCode]);
    let case = "server/jsonrpc/method-not-found/unknown-method@2025-11-25";
    let suite = Suite::http(&faulty.url).filter(case);
    let (c, log) = run(&suite, Arguments::default());
    assert_eq!((c.num_passed, c.num_failed), (1, 0), "{log}");

    let (c, log) = run(&suite.clone().strict(true), Arguments::default());
    assert_eq!((c.num_passed, c.num_failed), (0, 1), "{log}");
    assert!(
        log.contains("WARN server/jsonrpc/method-not-found/unknown-method@2025-11-25"),
        "{log}"
    );
    assert!(
        log.contains("SHOULD jsonrpc.error.method-not-found"),
        "{log}"
    );
}

#[test]
fn libtest_filters_and_lists_by_case_id() {
    let clean = Reference::start(&[]);
    let suite = Suite::http(&clean.url)
        .filter("server/lifecycle/ping/")
        .versions([Version::V2025_06_18, Version::V2025_11_25]);
    let total = suite.trials().unwrap().len() as u64;
    assert!(total >= 4, "{total} ping cases");

    let listed = Arguments {
        list: true,
        ..Arguments::default()
    };
    let (_, log) = run(&suite, listed);
    assert!(
        log.contains("server/lifecycle/ping/operating@2025-06-18: test"),
        "{log}"
    );
    assert_eq!(log.matches(": test").count() as u64, total, "{log}");

    // `cargo test -- ping/operating@2025-11-25`: a substring of the id.
    let one = Arguments {
        filter: Some("ping/operating@2025-11-25".to_owned()),
        ..Arguments::default()
    };
    let (c, log) = run(&suite, one);
    assert_eq!((c.num_passed, c.num_filtered_out), (1, total - 1), "{log}");
}

#[test]
fn a_target_that_cannot_be_reached_fails_every_trial() {
    // A port that was free a moment ago: connections are refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let suite = Suite::http(format!("http://127.0.0.1:{port}{MCP_PATH}"))
        .filter(PING)
        .versions([Version::V2025_06_18, Version::V2025_11_25]);
    let (c, log) = run(&suite, Arguments::default());
    assert_eq!(
        (c.num_failed, c.num_ignored, c.num_passed),
        (2, 0, 0),
        "{log}"
    );
    assert!(log.contains("target at fault"), "{log}");
}

#[test]
fn a_selection_without_cases_or_with_a_bad_glob_is_an_error() {
    let suite = Suite::http("http://127.0.0.1:9/mcp").filter("server/no-such-area/");
    let e = suite.trials().err().unwrap();
    assert!(matches!(e, SuiteError::NoCases { .. }), "{e}");
    assert!(e.to_string().contains("no http case matches"), "{e}");

    let suite = Suite::http("http://127.0.0.1:9/mcp").filter("server/[");
    let e = suite.trials().err().unwrap();
    assert!(matches!(e, SuiteError::Filter(_)), "{e}");
}

#[test]
fn stdio_only_scenarios_are_not_trials_of_an_http_target() {
    let http = Suite::http("http://127.0.0.1:9/mcp").trials().unwrap();
    let stdio = Suite::stdio("my-server", ["--stdio"]).trials().unwrap();
    assert!(!http.is_empty() && !stdio.is_empty());
    let names = |t: &[mcpspec_testing::Trial]| {
        t.iter()
            .map(|t| t.name().to_owned())
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_ne!(names(&http), names(&stdio));
    assert!(names(&http).iter().all(|n| n.starts_with("server/")));
}

#[test]
fn a_scenario_naming_an_unknown_requirement_is_an_error_at_the_id() {
    let dir = std::env::temp_dir().join(format!(
        "mcpspec-testing-{}-unknown-requirement",
        std::process::id()
    ));
    let file = dir.join("server/demo/bogus.yaml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "id: server/demo/bogus\ntitle: Bogus\nrequirements: [ping.respond, ping.respnd]\nlevel: must\nsteps:\n  - send: { method: ping }\n    expect: { result: {} }\n",
    )
    .unwrap();
    let suite = Suite::http("http://127.0.0.1:9/mcp").scenarios(&dir);
    let e = suite.trials().err();
    let _ = std::fs::remove_dir_all(&dir);
    let Some(SuiteError::Scenarios(errors)) = &e else {
        panic!("expected scenario file errors, got {e:?}")
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    let label = file.display().to_string();
    assert_eq!(
        (errors[0].file.as_str(), errors[0].line, errors[0].column),
        (label.as_str(), 3, 30)
    );
    let text = e.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.contains(&format!(
            "{label}:3:30: error in scenario file: unknown requirement id \"ping.respnd\" (did you mean \"ping.respond\"?)"
        )),
        "{text}"
    );
}
