//! Self-validation: the harness must be able to fail.
//!
//! One libtest-mimic trial per claim, so `cargo test -- fault/` filters:
//!
//! - `clean-reference-passes-everything`: the built-in reference server
//!   passes every case at every version, and no case is not-applicable
//!   (a case the reference cannot exercise is a case nobody proved).
//! - `fault/<name>`: `mcpspec server -- mcpspec reference server --fault <name>`
//!   exits 1 (SHOULD-level faults under `--strict`), and names the scenarios
//!   that caught it; or, for a fault of a rule the oracle judges on every
//!   message that no scenario names (`drop-jsonrpc`: every case is blocked
//!   by it), reports that rule itself.
//! - `every-scenario-catches-a-fault`: each scenario fails against at least
//!   one fault, unless `tests/uncovered-scenarios.txt` lists it with a reason.
//! - `robustness/*`: targets that hang, exit at once or flood stdout end the
//!   run within its timeouts, with exit 3, and leave no process behind; a
//!   target slower to start than `--timeout` is not failed for it.
//! - `http/clean-reference-passes-everything`, `sse/…`: the same over
//!   Streamable HTTP (`--url`) and legacy HTTP+SSE (`--sse-url`) against
//!   `mcpspec reference server --http 127.0.0.1:0`.
//! - `fault/<name>` of an HTTP-only fault runs over its transport, and its
//!   catches count for `every-scenario-catches-a-fault`.
//! - `robustness/post-never-answered`: a server that accepts the connection
//!   but never answers a POST ends each case in an error, not a hung run.
//!
//! - `auth/clean-reference-passes-everything`: the authorization scenarios
//!   (`server/auth/`) pass against `mcpspec reference server --http
//!   127.0.0.1:0 --auth` (OAuth mode), with `--auth-token` and
//!   `--auth-token-other-audience` obtained from its demo authorization
//!   server as a client would (`support::oauth`). The other clean HTTP run
//!   finds them not applicable (the plain reference is not protected).
//! - `fault/http-auth-*`: each authorization fault runs in OAuth mode, the
//!   same way, filtered to `server/auth/`.
//!
//! - every run enables the opt-in extensions (`--extension tasks`,
//!   `--extension skills`), so their scenarios are held to the same claims.
//!
//! Every run is the real binary against a real child process.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

mod support;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use support::HttpReference;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-selftest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The outcome of one `mcpspec server` run.
#[derive(Debug, Clone)]
struct RunResult {
    code: i32,
    stdout: String,
    /// scenario id → outcomes of its cases
    outcomes: BTreeMap<String, Vec<String>>,
    results: Vec<Value>,
}

/// A run over HTTP (`transport`: `http` or `sse`) against the reference
/// server with `faults`.
fn run_http(transport: &str, faults: &[&str], extra: &[&str], tag: &str) -> RunResult {
    let server = HttpReference::start(faults);
    let target = if transport == "sse" {
        ["--sse-url".to_owned(), server.sse()]
    } else {
        ["--url".to_owned(), server.mcp()]
    };
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(target.iter().map(String::as_str));
    run_server(&args, &[], tag)
}

/// A run of the authorization scenarios against the reference in OAuth
/// mode with `faults`, holding the two tokens its authorization server issued.
fn run_auth(faults: &[&str], extra: &[&str], tag: &str) -> RunResult {
    let server = HttpReference::start_auth(faults);
    let (token, other) = server.tokens();
    let url = server.mcp();
    let mut args: Vec<&str> = extra.to_vec();
    args.extend([
        "--filter",
        AUTH_SCENARIOS,
        "--url",
        &url,
        "--auth-token",
        &token,
        "--auth-token-other-audience",
        &other,
    ]);
    run_server(&args, &[], tag)
}

/// The authorization scenarios: judged only in OAuth-mode runs.
const AUTH_SCENARIOS: &str = "server/auth/";

/// The opt-in extensions every self-validation run enables: their
/// scenarios must pass against the clean reference and catch their faults
/// like any other.
const EXTENSIONS: [&str; 4] = ["--extension", "tasks", "--extension", "skills"];

fn run_server(extra: &[&str], target: &[&str], tag: &str) -> RunResult {
    let json = scratch().join(format!("{tag}.json"));
    let mut cmd = Command::new(BIN);
    cmd.arg("server")
        .arg("--jobs")
        .arg("8")
        .arg("--json")
        .arg(&json)
        .args(EXTENSIONS);
    cmd.args(extra);
    if !target.is_empty() {
        cmd.arg("--").args(target);
    }
    let out = cmd.output().expect("mcpspec runs");
    let text = std::fs::read_to_string(&json).unwrap_or_default();
    let doc: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let results = doc["results"].as_array().cloned().unwrap_or_default();
    let mut outcomes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in &results {
        outcomes
            .entry(r["scenario"].as_str().unwrap_or("").to_owned())
            .or_default()
            .push(r["outcome"].as_str().unwrap_or("").to_owned());
    }
    RunResult {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        outcomes,
        results,
    }
}

/// A fault, its level, and the transport its run uses: stdio when the
/// fault applies there, else its HTTP transport.
#[derive(Debug, Clone)]
struct FaultSpec {
    name: String,
    should: bool,
    /// `stdio`, `http` or `sse`.
    transport: String,
    /// The requirement it breaks: the description's last `(…)`.
    rule: Option<String>,
}

/// Every fault the reference server offers that a scenario run can see
/// (`--list-faults` prints `name LEVEL transports description`; the
/// transports of a fault only the fuzzer sees start with `fuzz:`).
fn faults() -> Vec<FaultSpec> {
    let out = Command::new(BIN)
        .args(["reference", "server", "--list-faults"])
        .output()
        .expect("mcpspec runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next()?;
            let level = words.next()?;
            let transports = words.next()?;
            if transports.starts_with("fuzz:") {
                // Only the fuzzer's oracles see it (tests/fuzz.rs proves they do).
                return None;
            }
            let transports: Vec<&str> = transports.split(',').collect();
            let transport = if transports.contains(&"stdio") {
                "stdio"
            } else if name.starts_with("http-auth-") {
                // Carried out in OAuth mode only: see `run_auth`.
                "auth"
            } else {
                transports.first()?
            };
            let rule = l
                .trim_end()
                .strip_suffix(')')
                .and_then(|l| l.rsplit_once('('))
                .map(|(_, rule)| rule.to_owned());
            Some(FaultSpec {
                name: name.to_owned(),
                should: level.eq_ignore_ascii_case("should"),
                transport: transport.to_owned(),
                rule,
            })
        })
        .collect()
}

fn fault_runs() -> &'static BTreeMap<String, RunResult> {
    static RUNS: OnceLock<BTreeMap<String, RunResult>> = OnceLock::new();
    RUNS.get_or_init(|| {
        // Four runs at a time, as before: a run's cases mostly wait, but the
        // runner and the reference processes it starts keep its CPU busy, so
        // more runs at once would only share the same two cores.
        support::each_parallel(faults(), 4, |f| {
            let mut opts = vec!["--timeout", "2s"];
            if f.should {
                opts.push("--strict");
            }
            let tag = format!("fault-{}", f.name);
            let r = if f.transport == "stdio" {
                let target = [BIN, "reference", "server", "--fault", &f.name];
                run_server(&opts, &target, &tag)
            } else if f.transport == "auth" {
                run_auth(&[&f.name], &opts, &tag)
            } else {
                run_http(&f.transport, &[&f.name], &opts, &tag)
            };
            (f.name, r)
        })
        .into_iter()
        .collect()
    })
}

fn caught_by(r: &RunResult) -> Vec<String> {
    r.outcomes
        .iter()
        .filter(|(_, o)| o.iter().any(|o| o == "fail" || o == "warn"))
        .map(|(s, _)| s.clone())
        .collect()
}

fn clean_reference_passes_everything() -> Result<(), Failed> {
    clean_passes(run_server(&[], &[], "clean"))
}

/// The clean run over `transport` (`http`, `sse`).
fn clean_over(transport: &str) -> Result<(), Failed> {
    clean_passes(run_http(transport, &[], &[], &format!("clean-{transport}")))
}

/// The clean run of the authorization scenarios in OAuth mode.
fn clean_auth() -> Result<(), Failed> {
    clean_passes(run_auth(&[], &[], "clean-auth"))
}

/// Whether a case's outcome is what the clean reference owes: a pass, or
/// for an authorization case outside OAuth mode, not applicable because
/// the server is not protected.
fn clean_outcome(c: &Value) -> bool {
    c["outcome"] == "pass"
        || (c["outcome"] == "not_applicable"
            && c["scenario"]
                .as_str()
                .is_some_and(|s| s.starts_with(AUTH_SCENARIOS))
            && c["message"]
                .as_str()
                .is_some_and(|m| m.contains("not a protected resource")))
}

fn clean_passes(r: RunResult) -> Result<(), Failed> {
    let bad: Vec<String> = r
        .results
        .iter()
        .filter(|c| !clean_outcome(c))
        .map(|c| format!("{} {}: {}", c["id"], c["outcome"], c["message"]))
        .collect();
    if r.code != 0 || !bad.is_empty() || r.results.is_empty() {
        return Err(format!(
            "exit {} with {} cases not passing:\n{}\n\n{}",
            r.code,
            bad.len(),
            bad.join("\n"),
            r.stdout
        )
        .into());
    }
    Ok(())
}

fn fault_is_caught(f: &FaultSpec) -> Result<(), Failed> {
    let name = &f.name;
    let r = &fault_runs()[name];
    let caught = caught_by(r);
    // Blocked cases whose one finding is the fault's own rule: the oracle
    // caught it on the way, and no scenario names that rule.
    let blocked_by_its_rule = r
        .results
        .iter()
        .filter(|c| c["outcome"] == "blocked")
        .filter(|c| {
            c["findings"].as_array().into_iter().flatten().any(|x| {
                x["requirement"].as_str().is_some()
                    && x["requirement"].as_str() == f.rule.as_deref()
            })
        })
        .count();
    if r.code != 1 || (caught.is_empty() && blocked_by_its_rule == 0) {
        return Err(format!(
            "fault {name}: exit {} (want 1), caught by {caught:?}, {blocked_by_its_rule} case(s) \
             blocked by its rule {:?}\n{}",
            r.code, f.rule, r.stdout
        )
        .into());
    }
    if caught.is_empty() {
        eprintln!(
            "fault {name} caught by the oracle: {blocked_by_its_rule} case(s) blocked by {:?}",
            f.rule
        );
    } else {
        eprintln!("fault {name} caught by: {}", caught.join(", "));
    }
    Ok(())
}

fn uncovered_allowlist(root: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root.join("harness/cli/tests/uncovered-scenarios.txt"))
        .expect("the allowlist file exists (it may list nothing)");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(id, _reason)| id.trim().to_owned())
        .collect()
}

fn every_scenario_catches_a_fault() -> Result<(), Failed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let allow = uncovered_allowlist(&root);
    let listing = Command::new(BIN)
        .args(["list", "--json"])
        .output()
        .expect("list");
    let cases: Value = serde_json::from_slice(&listing.stdout).map_err(|e| e.to_string())?;
    let scenarios: BTreeSet<String> = cases
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["scenario"].as_str())
        .filter(|s| s.starts_with("server/"))
        .map(str::to_owned)
        .collect();
    let mut caught = BTreeSet::new();
    for r in fault_runs().values() {
        caught.extend(caught_by(r));
    }
    let missing: Vec<_> = scenarios
        .iter()
        .filter(|s| !caught.contains(*s) && !allow.contains(*s))
        .collect();
    let stale: Vec<_> = allow.iter().filter(|s| caught.contains(*s)).collect();
    if !missing.is_empty() || !stale.is_empty() {
        return Err(format!(
            "scenarios no fault makes fail (add a fault, or list them in harness/cli/tests/uncovered-scenarios.txt with a reason): {missing:?}\n\
             listed as uncovered but caught (remove them from uncovered-scenarios.txt): {stale:?}"
        )
        .into());
    }
    Ok(())
}

/// Runs a hopeless target and checks the run ends fast, with one of the
/// `allowed` exit codes, and leaves no process behind.
fn robustness(script: &str, allowed: &[i32]) -> Result<(), Failed> {
    let dir = scratch().join(format!(
        "robust-{:x}",
        script.len() * 31 + script.as_bytes()[0] as usize
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let pids = dir.join("pids");
    let _ = std::fs::remove_file(&pids);
    let full = format!("sleep 300 & echo $! >> {}; {script}", pids.display());
    let started = Instant::now();
    let r = run_server(
        &[
            "--timeout",
            "500ms",
            "--case-timeout",
            "5s",
            "--startup-timeout",
            "2s",
            "--filter",
            "server/lifecycle/",
        ],
        &["sh", "-c", &full],
        &format!("robust-{}", script.len()),
    );
    let took = started.elapsed();
    if !allowed.contains(&r.code) {
        return Err(format!("exit {} (want one of {allowed:?})\n{}", r.code, r.stdout).into());
    }
    if took > Duration::from_secs(60) {
        return Err(format!("took {took:?}").into());
    }
    // Every helper process the target spawned must be gone.
    std::thread::sleep(Duration::from_millis(200));
    let alive = support::still_running(&pids);
    if !alive.is_empty() {
        return Err(format!("processes left behind: {alive:?}").into());
    }
    Ok(())
}

/// A target that takes longer to start than `--timeout` still passes:
/// waits before its first line are extended to the start-up allowance.
fn slow_start() -> Result<(), Failed> {
    let target = format!("sleep 2; exec '{BIN}' reference server");
    let r = run_server(
        &[
            "--timeout",
            "1s",
            "--filter",
            "server/lifecycle/ping/",
            "--filter",
            "server/lifecycle/version/",
        ],
        &["sh", "-c", &target],
        "slow-start",
    );
    if r.code != 0 || r.results.is_empty() {
        return Err(format!("exit {} (want 0)\n{}", r.code, r.stdout).into());
    }
    Ok(())
}

/// A Streamable HTTP server that accepts connections and reads requests
/// but never answers: the run ends within its limits, blamed on the target.
fn post_never_answered() -> Result<(), Failed> {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut conn = conn;
                let mut buf = [0u8; 4096];
                // Read and hold: never a byte back.
                while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
            });
        }
    });
    let url = format!("http://{addr}/mcp");
    let started = Instant::now();
    let r = run_server(
        &[
            "--timeout",
            "500ms",
            "--case-timeout",
            "5s",
            "--startup-timeout",
            "1s",
            "--filter",
            "server/lifecycle/ping/",
            "--url",
            &url,
        ],
        &[],
        "never-answers-http",
    );
    let took = started.elapsed();
    if r.code != 3 {
        return Err(format!("exit {} (want 3)\n{}", r.code, r.stdout).into());
    }
    if took > Duration::from_secs(60) {
        return Err(format!("took {took:?}").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        Trial::test(
            "clean-reference-passes-everything",
            clean_reference_passes_everything,
        ),
        Trial::test(
            "every-scenario-catches-a-fault",
            every_scenario_catches_a_fault,
        ), // Silent or absent targets could not be run (3); a flooding one is
        // judged on the garbage it sends (1) unless it drowns the probe (3).
        Trial::test("robustness/never-answers", || {
            robustness("exec cat > /dev/null", &[3])
        }),
        Trial::test("robustness/exits-at-once", || robustness("exit 0", &[3])),
        Trial::test("robustness/floods-stdout", || {
            robustness("exec yes 'not json at all'", &[1, 3])
        }),
        Trial::test("robustness/slow-start-is-not-slow-answering", slow_start),
    ];
    trials.push(Trial::test(
        "http/clean-reference-passes-everything",
        || clean_over("http"),
    ));
    trials.push(Trial::test("sse/clean-reference-passes-everything", || {
        clean_over("sse")
    }));
    trials.push(Trial::test(
        "auth/clean-reference-passes-everything",
        clean_auth,
    ));
    trials.push(Trial::test(
        "robustness/post-never-answered",
        post_never_answered,
    ));
    for f in faults() {
        trials.push(Trial::test(format!("fault/{}", f.name), move || {
            fault_is_caught(&f)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
