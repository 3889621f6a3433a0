//! Self-validation of the client side: the harness must be able to fail a
//! client, and must not fail a clean one.
//!
//! One libtest-mimic trial per claim (`cargo test --test client_validation -- fault/`):
//!
//! - `clean-reference-client-passes-everything`: `mcpspec client -- mcpspec
//!   reference client -- {server}` at every handshake version, run twice —
//!   declaring every client capability, and declaring none — and once at
//!   2026-07-28, passes every case in at least one of the runs and fails,
//!   warns or errs in none (a scenario gated on a capability is not
//!   applicable in the other run).
//! - `http/clean-reference-client-passes-everything`: the same over
//!   Streamable HTTP (`--url {url}`), where the client's HTTP requests are
//!   judged too.
//! - `fault/<name>`: the reference client with `--fault <name>` makes the run
//!   exit 1 (SHOULD-level faults under `--strict`) at the handshake versions
//!   and at 2026-07-28 together; the catching scenarios are named. A fault of
//!   the HTTP transport alone runs over `--url {url}`.
//! - `every-client-scenario-catches-a-fault`: each client scenario fails
//!   against at least one fault, unless `tests/uncovered-scenarios.txt`
//!   lists it with a reason.
//! - `timing/a-slow-client-is-judged-from-its-flow`: a client that starts
//!   5 s late is still judged by an authorization case, whose windows are
//!   timed from the client's flow: failed with a fault, passed without.
//! - `robustness/*`: a client that never connects, or connects and then
//!   hangs, ends the run within its timeouts and leaves no process behind.
//!
//! Every run is the real binary against a real child process.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

mod support;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-clienttest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The outcome of one `mcpspec client` run.
#[derive(Debug, Clone)]
struct RunResult {
    code: i32,
    stdout: String,
    /// case id → outcome
    cases: BTreeMap<String, (String, String)>,
    /// scenario id → outcomes of its cases
    outcomes: BTreeMap<String, Vec<String>>,
}

/// `mcpspec client [extra] -- client...` at every handshake version.
fn run_client(extra: &[&str], client: &[&str], tag: &str) -> RunResult {
    run_client_at(&VERSIONS, extra, client, tag)
}

/// `mcpspec client --spec-version V… [extra] -- client...`.
fn run_client_at(versions: &[&str], extra: &[&str], client: &[&str], tag: &str) -> RunResult {
    let json = scratch().join(format!("{tag}.json"));
    let mut cmd = Command::new(BIN);
    cmd.args(["client", "--jobs", "8", "--json"]).arg(&json);
    for v in versions {
        cmd.args(["--spec-version", v]);
    }
    cmd.args(extra).arg("--").args(client);
    let out = cmd.output().expect("mcpspec runs");
    let text = std::fs::read_to_string(&json).unwrap_or_default();
    let doc: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let mut cases = BTreeMap::new();
    let mut outcomes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in doc["results"].as_array().into_iter().flatten() {
        let outcome = r["outcome"].as_str().unwrap_or("").to_owned();
        cases.insert(
            r["id"].as_str().unwrap_or("").to_owned(),
            (
                outcome.clone(),
                r["message"].as_str().unwrap_or("").to_owned(),
            ),
        );
        outcomes
            .entry(r["scenario"].as_str().unwrap_or("").to_owned())
            .or_default()
            .push(outcome);
    }
    RunResult {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        cases,
        outcomes,
    }
}

/// The reference client's argv with `extra` options, reaching the harness
/// over `transport` (`stdio`: `-- {server}`, `http`: `--url {url}`, with
/// `{client_id}` and `{client_secret}`).
fn reference_client(extra: &[&str], transport: &str) -> Vec<String> {
    let mut argv = vec![BIN.to_owned(), "reference".into(), "client".into()];
    argv.extend(extra.iter().map(|s| (*s).to_owned()));
    if transport == "http" {
        // Static credentials reach it where a case's authorization server
        // registered it beforehand (client/auth/pre-registration).
        argv.extend(
            [
                "--client-id",
                "{client_id}",
                "--client-secret",
                "{client_secret}",
            ]
            .map(str::to_owned),
        );
        argv.extend(["--url".to_owned(), "{url}".to_owned()]);
    } else {
        argv.extend(["--".to_owned(), "{server}".to_owned()]);
    }
    argv
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The stateless version, run separately: the reference client speaks it
/// only when asked (`--spec-version`), and only `client/stateless/*` has it.
const STATELESS: &str = "2026-07-28";

fn clean_passes(transport: &str) -> Result<(), Failed> {
    let full = reference_client(&[], transport);
    let bare = reference_client(&["--no-capabilities"], transport);
    let modern = reference_client(&["--spec-version", STATELESS], transport);
    let runs = [
        run_client(&[], &strs(&full), &format!("clean-full-{transport}")),
        run_client(&[], &strs(&bare), &format!("clean-bare-{transport}")),
        run_client_at(
            &[STATELESS],
            &[],
            &strs(&modern),
            &format!("clean-2026-{transport}"),
        ),
    ];
    let mut problems = Vec::new();
    for (r, name) in runs
        .iter()
        .zip(["all capabilities", "no capabilities", "2026-07-28"])
    {
        if r.code != 0 || r.cases.is_empty() {
            problems.push(format!("{name}: exit {}\n{}", r.code, r.stdout));
        }
        for (id, (outcome, message)) in &r.cases {
            if outcome != "pass" && outcome != "not_applicable" {
                problems.push(format!("{name}: {id} {outcome}: {message}"));
            }
        }
    }
    let ids: BTreeSet<&String> = runs.iter().flat_map(|r| r.cases.keys()).collect();
    for id in ids {
        let passed = runs
            .iter()
            .any(|r| r.cases.get(id).is_some_and(|(o, _)| o == "pass"));
        if !passed {
            let why: Vec<String> = runs
                .iter()
                .filter_map(|r| r.cases.get(id).map(|(o, m)| format!("{o}: {m}")))
                .collect();
            problems.push(format!(
                "{id} passes in neither clean run (a case the reference client cannot exercise is a case nobody proved): {}",
                why.join(" | ")
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// A fault of the reference client, its level, and the transport its run
/// uses (stdio when the fault applies there, else its HTTP transport).
#[derive(Debug, Clone)]
struct FaultSpec {
    name: String,
    should: bool,
    transport: String,
}

/// `mcpspec reference client --list-faults` prints `name LEVEL transports description`.
fn faults() -> Vec<FaultSpec> {
    let out = Command::new(BIN)
        .args(["reference", "client", "--list-faults"])
        .output()
        .expect("mcpspec runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next()?;
            let level = words.next()?;
            let transports: Vec<&str> = words.next()?.split(',').collect();
            let transport = if transports.contains(&"stdio") {
                "stdio"
            } else {
                transports.first()?
            };
            Some(FaultSpec {
                name: name.to_owned(),
                should: level.eq_ignore_ascii_case("should"),
                transport: transport.to_owned(),
            })
        })
        .collect()
}

fn fault_runs() -> &'static BTreeMap<String, RunResult> {
    static RUNS: OnceLock<BTreeMap<String, RunResult>> = OnceLock::new();
    RUNS.get_or_init(|| {
        // Each fault's two runs (the handshake versions, and 2026-07-28) are
        // two items, eight at a time: a client run mostly waits on its
        // timeouts, so four at a time left the cores idle much of the run.
        let items: Vec<(FaultSpec, bool)> = faults()
            .into_iter()
            .flat_map(|f| [(f.clone(), false), (f, true)])
            .collect();
        let runs = support::each_parallel(items, 8, |(f, stateless)| {
            let mut opts = vec!["--timeout", "2s"];
            if f.should {
                opts.push("--strict");
            }
            let r = if stateless {
                let modern = reference_client(
                    &["--spec-version", STATELESS, "--fault", &f.name],
                    &f.transport,
                );
                run_client_at(
                    &[STATELESS],
                    &opts,
                    &strs(&modern),
                    &format!("fault-{}-2026", f.name),
                )
            } else {
                let client = reference_client(&["--fault", &f.name], &f.transport);
                run_client(&opts, &strs(&client), &format!("fault-{}", f.name))
            };
            (f.name, r)
        });
        let mut out: BTreeMap<String, RunResult> = BTreeMap::new();
        for (name, r) in runs {
            match out.entry(name) {
                Entry::Occupied(mut first) => first.get_mut().merge(r),
                Entry::Vacant(slot) => {
                    slot.insert(r);
                }
            }
        }
        out
    })
}

impl RunResult {
    /// Both runs' cases, and exit 1 when either run found failures.
    fn merge(&mut self, other: RunResult) {
        self.code = if self.code == 1 || other.code == 1 {
            1
        } else {
            self.code.max(other.code)
        };
        self.stdout.push_str(&other.stdout);
        self.cases.extend(other.cases);
        for (s, o) in other.outcomes {
            self.outcomes.entry(s).or_default().extend(o);
        }
    }
}

fn caught_by(r: &RunResult) -> Vec<String> {
    r.outcomes
        .iter()
        .filter(|(_, o)| o.iter().any(|o| o == "fail" || o == "warn"))
        .map(|(s, _)| s.clone())
        .collect()
}

fn fault_is_caught(name: &str) -> Result<(), Failed> {
    let r = &fault_runs()[name];
    let caught = caught_by(r);
    if r.code != 1 || caught.is_empty() {
        return Err(format!(
            "fault {name}: exit {} (want 1), caught by {caught:?}\n{}",
            r.code, r.stdout
        )
        .into());
    }
    eprintln!("fault {name} caught by: {}", caught.join(", "));
    Ok(())
}

fn every_scenario_catches_a_fault() -> Result<(), Failed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("harness/cli/tests/uncovered-scenarios.txt"))
        .map_err(|e| e.to_string())?;
    let allow: BTreeSet<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(id, _)| id.trim().to_owned())
        .filter(|id| id.starts_with("client/"))
        .collect();
    let listing = Command::new(BIN)
        .args(["list", "--json", "--filter", "client/"])
        .output()
        .expect("list");
    let cases: Value = serde_json::from_slice(&listing.stdout).map_err(|e| e.to_string())?;
    let scenarios: BTreeSet<String> = cases
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["scenario"].as_str())
        .filter(|s| s.starts_with("client/"))
        .map(str::to_owned)
        .collect();
    if scenarios.is_empty() {
        return Err("no client scenarios listed".into());
    }
    let caught: BTreeSet<String> = fault_runs().values().flat_map(caught_by).collect();
    let missing: Vec<_> = scenarios
        .iter()
        .filter(|s| !caught.contains(*s) && !allow.contains(*s))
        .collect();
    let stale: Vec<_> = allow.iter().filter(|s| caught.contains(*s)).collect();
    if !missing.is_empty() || !stale.is_empty() {
        return Err(format!(
            "client scenarios no fault makes fail (add a fault to the reference client, or list them in harness/cli/tests/uncovered-scenarios.txt with a reason): {missing:?}\n\
             listed as uncovered but caught: {stale:?}"
        )
        .into());
    }
    Ok(())
}

/// Runs a hopeless client (`script`, given the shim's argv as "$@") and
/// checks the run ends within its limits with `want`, leaving nothing behind.
fn robustness(script: &str, want: i32, tag: &str) -> Result<(), Failed> {
    let dir = scratch().join(tag);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let pids = dir.join("pids");
    let _ = std::fs::remove_file(&pids);
    let full = format!("sleep 300 & echo $! >> {}; {script}", pids.display());
    let started = Instant::now();
    let r = run_client(
        &[
            "--timeout",
            "500ms",
            "--case-timeout",
            "5s",
            "--startup-timeout",
            "2s",
            "--filter",
            "client/ping/",
        ],
        &["sh", "-c", &full, "sh", "{server}"],
        tag,
    );
    let took = started.elapsed();
    if r.code != want {
        return Err(format!("exit {} (want {want})\n{}", r.code, r.stdout).into());
    }
    if took > Duration::from_secs(60) {
        return Err(format!("took {took:?}").into());
    }
    std::thread::sleep(Duration::from_millis(300));
    let alive = support::still_running(&pids);
    if !alive.is_empty() {
        return Err(format!("processes left behind: {alive:?}").into());
    }
    Ok(())
}

/// An authorization case is timed from the step of the flow it judges, not
/// from the start of the case: a client that starts 5 s late (as an SDK's
/// interpreter may on a loaded machine) is still judged, both ways. A
/// violating one is caught (with a fixed window from the start of the case
/// it would be not applicable, or pass when the window ended between the
/// metadata fetch and the violation), and a clean one passes.
fn a_slow_client_is_judged_from_its_flow() -> Result<(), Failed> {
    let scenario = "client/auth/pkce-unsupported";
    let slow = |extra: &[&str]| {
        let mut argv = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            r#"sleep 5; exec "$@""#.to_owned(),
            "sh".to_owned(),
        ];
        argv.extend(reference_client(extra, "http"));
        argv
    };
    let runs = std::thread::scope(|s| {
        let run = |extra: &'static [&'static str], tag: &'static str| {
            let argv = slow(extra);
            s.spawn(move || {
                run_client_at(&["2025-11-25"], &["--filter", scenario], &strs(&argv), tag)
            })
        };
        let faulty = run(&["--fault", "auth-ignores-pkce-support"], "slow-faulty");
        let clean = run(&[], "slow-clean");
        [faulty, clean].map(|h| h.join().expect("the run's thread"))
    });
    let id = format!("{scenario}@2025-11-25");
    let outcome = |r: &RunResult| r.cases.get(&id).map(|(o, _)| o.clone());
    let mut problems = Vec::new();
    for (r, name, code, want) in [
        (&runs[0], "the slow faulty client", 1, "fail"),
        (&runs[1], "the slow clean client", 0, "pass"),
    ] {
        if r.code != code || outcome(r).as_deref() != Some(want) {
            problems.push(format!("{name}: exit {}, {:?}", r.code, r.cases.get(&id)));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        Trial::test("clean-reference-client-passes-everything", || {
            clean_passes("stdio")
        }),
        Trial::test("http/clean-reference-client-passes-everything", || {
            clean_passes("http")
        }),
        Trial::test(
            "every-client-scenario-catches-a-fault",
            every_scenario_catches_a_fault,
        ),
        Trial::test(
            "timing/a-slow-client-is-judged-from-its-flow",
            a_slow_client_is_judged_from_its_flow,
        ),
        // Never connects: every case errs on the target (3).
        Trial::test("robustness/never-connects", || {
            robustness("exec sleep 30", 3, "never-connects")
        }),
        // Sends initialize and hangs: the handshake's initialized never
        // comes, a MUST (1); the case ends at --timeout, not at 30 s.
        Trial::test("robustness/hangs-after-initialize", || {
            robustness(
                r#"(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hang","version":"1"}}}'; exec sleep 30) | "$@""#,
                1,
                "hangs",
            )
        }),
    ];
    for f in faults() {
        let n = f.name.clone();
        trials.push(Trial::test(format!("fault/{}", f.name), move || {
            fault_is_caught(&n)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
