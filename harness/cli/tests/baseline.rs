//! `--expected-failures FILE`: a listed failure does not fail the run, an
//! unlisted one does, a listed case that passes fails it as stale; a
//! broken file is an error at `file:line:col` (exit 2). Each test runs the
//! real binary against the reference server with one fault.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

/// `ping.respond` broken: the ping scenarios fail (MUST).
const FAULT: &str = "ping-non-empty";
const OPERATING: &str = "server/lifecycle/ping/operating@2025-06-18";
const BEFORE_INITIALIZED: &str = "server/lifecycle/ping/before-initialized@2025-06-18";

fn temp_dir(name: &str) -> PathBuf {
    let dir = temp_dir_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

struct Run {
    out: Output,
    stdout: String,
    stderr: String,
    report: Value,
}

/// The two ping cases at 2025-06-18 (`extra` may add more `--filter`s)
/// with `baseline` as the file, against the reference server with `fault`
/// (none: the clean reference).
fn run(name: &str, baseline: &str, fault: Option<&str>, extra: &[&str]) -> Run {
    let dir = temp_dir(name);
    let file = dir.join("expected-failures.yaml");
    std::fs::write(&file, baseline).expect("write baseline");
    let json = dir.join("report.json");
    let mut cmd = Command::new(BIN);
    cmd.args(["server", "--spec-version", "2025-06-18"])
        .args(["--filter", "server/lifecycle/ping/operating"])
        .args(["--filter", "server/lifecycle/ping/before-initialized"])
        .arg("--expected-failures")
        .arg(&file)
        .arg("--json")
        .arg(&json)
        .args(extra)
        .args(["--", BIN, "reference", "server"]);
    if let Some(f) = fault {
        cmd.args(["--fault", f]);
    }
    finish(&mut cmd, &json)
}

/// Runs `cmd` and reads the report it wrote to `json` (null when none).
fn finish(cmd: &mut Command, json: &Path) -> Run {
    let out = cmd.output().expect("mcpspec runs");
    let report = std::fs::read_to_string(json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        out,
        report,
    }
}

fn result<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["results"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["id"] == id))
        .unwrap_or(&Value::Null)
}

#[test]
fn listed_failures_do_not_fail_the_run() {
    let r = run(
        "listed",
        &format!(
            "{OPERATING}: known, tracked upstream\nserver/lifecycle/ping/before-*: also known\n"
        ),
        Some(FAULT),
        &[],
    );
    assert_eq!(r.out.status.code(), Some(0), "{}{}", r.stdout, r.stderr);
    // Listed apart from the problems (their lines need --status-level pass).
    let listed = r
        .stdout
        .split_once("── expected failures (baseline) ──\n")
        .map_or("", |(_, rest)| rest);
    assert!(
        listed.contains(&format!("  {OPERATING} — known, tracked upstream")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("baseline: 2 expected failure(s), 0 stale"),
        "{}",
        r.stdout
    );
    assert_eq!(r.report["summary"]["expected_failures"], 2);
    assert_eq!(
        result(&r.report, OPERATING)["expectation"]["status"],
        "expected_failure"
    );
    assert_eq!(r.report["run"]["exit_code"], 0);
}

#[test]
fn an_unlisted_failure_fails_the_run() {
    let r = run(
        "unlisted",
        &format!("{OPERATING}: known\n"),
        Some(FAULT),
        &[],
    );
    assert_eq!(r.out.status.code(), Some(1), "{}{}", r.stdout, r.stderr);
    assert!(result(&r.report, BEFORE_INITIALIZED)["expectation"].is_null());
    assert_eq!(r.report["summary"]["expected_failures"], 1);
}

#[test]
fn a_listed_case_that_passes_is_stale_and_fails_the_run() {
    let r = run(
        "stale",
        &format!("{OPERATING}: was broken once\n"),
        None,
        &[],
    );
    assert_eq!(r.out.status.code(), Some(1), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("(stale expectation: was broken once)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("── stale expectations"), "{}", r.stdout);
    assert_eq!(r.report["summary"]["stale_expectations"], 1);
    assert_eq!(
        result(&r.report, OPERATING)["expectation"]["status"],
        "stale_expectation"
    );
    assert_eq!(r.report["baseline"]["entries"][0]["stale"][0], OPERATING);
}

#[test]
fn strict_warnings_fail_unless_listed() {
    // unknown-method-code breaks a SHOULD: this scenario warns.
    let warn = "server/jsonrpc/method-not-found/unknown-method";
    let only = format!("{warn}@2025-06-18");
    let filter = ["--filter", only.as_str()];
    let fault = Some("unknown-method-code");
    let lenient = run("lenient", "", fault, &filter);
    assert_eq!(lenient.report["summary"]["warned"], 1, "{}", lenient.stdout);
    assert_eq!(lenient.out.status.code(), Some(0), "{}", lenient.stdout);
    let strict = run("strict", "", fault, &[filter[0], filter[1], "--strict"]);
    assert_eq!(strict.out.status.code(), Some(1), "{}", strict.stdout);
    let listed = run(
        "strict-listed",
        &format!("{warn}: we answer -32600, to be fixed\n"),
        fault,
        &[filter[0], filter[1], "--strict"],
    );
    assert_eq!(listed.out.status.code(), Some(0), "{}", listed.stdout);
    assert_eq!(listed.report["summary"]["expected_failures"], 1);
}

/// `case:requirement` expects one rule: the run passes when exactly the
/// listed rules broke, and fails when the case broke another.
#[test]
fn per_check_entries_expect_one_rule_each() {
    let r = run(
        "per-check",
        &format!("{OPERATING}:ping.respond: known\n{BEFORE_INITIALIZED}:ping.respond: known\n"),
        Some(FAULT),
        &[],
    );
    assert_eq!(r.out.status.code(), Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.report["summary"]["expected_failures"], 2);
    let r = run(
        "per-check-other",
        &format!("{OPERATING}:jsonrpc.message.valid: the wrong rule\n"),
        Some(FAULT),
        &[],
    );
    assert_eq!(r.out.status.code(), Some(1), "{}{}", r.stdout, r.stderr);
    assert!(result(&r.report, OPERATING)["expectation"].is_null());
}

#[test]
fn errors_in_the_file_point_at_file_line_col() {
    let cases = [
        (
            "empty-reason",
            format!("{OPERATING}: known\nserver/lifecycle/ping/operating@2024-11-05: ''\n"),
            ":2:",
            "empty reason",
        ),
        ("no-reason", format!("{OPERATING}:\n"), ":1:", "no reason"),
        (
            "unknown-id",
            "server/no/such/case@2025-06-18: typo\n".to_owned(),
            ":1:1",
            "names no case",
        ),
        (
            "unknown-requirement",
            format!("{OPERATING}:no.such.rule: typo\n"),
            ":1:1",
            "names no requirement `no.such.rule`",
        ),
        (
            "flaky-per-check",
            format!("flaky:\n  {OPERATING}:ping.respond: no\n"),
            ":2:3",
            "a flaky case is named whole",
        ),
        (
            "twice",
            format!("{OPERATING}: a\n{OPERATING}: b\n"),
            ":2:1",
            "listed twice: server/lifecycle/ping/operating@2025-06-18",
        ),
        (
            "not-a-map",
            "- a\n- b\n".to_owned(),
            ":1:",
            "expected a map",
        ),
    ];
    for (name, text, at, what) in cases {
        let r = run(name, &text, Some(FAULT), &[]);
        assert_eq!(
            r.out.status.code(),
            Some(2),
            "{name}: {}{}",
            r.stdout,
            r.stderr
        );
        assert!(
            r.stderr.contains("expected-failures.yaml") && r.stderr.contains(at),
            "{name}: {}",
            r.stderr
        );
        assert!(r.stderr.contains(what), "{name}: {}", r.stderr);
    }
}

/// A target whose `faulty_at`-th start (counting the version probe's) is the
/// reference server with the ping fault, every other start the clean one:
/// a flaky target, made deterministic.
fn flaky_run(name: &str, faulty_at: &str, extra: &[&str]) -> Run {
    let dir = temp_dir(name);
    let file = dir.join("expected-failures.yaml");
    std::fs::write(
        &file,
        format!("flaky:\n  {OPERATING}: races with the scheduler\n"),
    )
    .expect("write baseline");
    let script = dir.join("target.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nc={dir}/count\nn=$(cat $c 2>/dev/null || echo 0); n=$((n+1)); echo $n > $c\n\
             if [ \"$n\" = \"{faulty_at}\" ] || [ \"{faulty_at}\" = always ]; then exec {BIN} reference server --fault {FAULT}; fi\n\
             exec {BIN} reference server\n",
            dir = dir.display()
        ),
    )
    .expect("write script");
    let json = dir.join("report.json");
    let junit = dir.join("reports");
    let mut cmd = Command::new(BIN);
    cmd.args([
        "server",
        "--spec-version",
        "2025-06-18",
        "--filter",
        OPERATING,
    ])
    .arg("--expected-failures")
    .arg(&file)
    .arg("--json")
    .arg(&json)
    .arg("--report-dir")
    .arg(&junit)
    .args(extra)
    .args(["--", "sh"])
    .arg(&script);
    finish(&mut cmd, &json)
}

/// `flaky:` with `--retries`: a failure is run again until it passes (the
/// run passes, the case shows its attempts, JUnit a flaky failure); a
/// failure every time is tolerated, and said so; a case that passes every
/// attempt is a candidate to remove.
#[test]
fn flaky_cases_are_retried_tolerated_and_reported() {
    // Start 1 is the version probe, start 2 the first attempt.
    let r = flaky_run("flaky-once", "2", &["--retries", "2"]);
    assert_eq!(r.out.status.code(), Some(0), "{}{}", r.stdout, r.stderr);
    let case = result(&r.report, OPERATING);
    assert_eq!(case["outcome"], "pass", "{}", r.report);
    assert_eq!(case["attempts"], serde_json::json!(["fail", "pass"]));
    assert_eq!(case["expectation"]["status"], "flaky");
    assert!(r.stdout.contains("attempts: fail, pass"), "{}", r.stdout);
    let dir = temp_dir_path("flaky-once").join("reports/junit.xml");
    let xml = std::fs::read_to_string(dir).expect("junit.xml");
    assert!(xml.contains("<flakyFailure"), "{xml}");

    let r = flaky_run("flaky-always", "always", &["--retries", "1"]);
    assert_eq!(r.out.status.code(), Some(0), "{}{}", r.stdout, r.stderr);
    let case = result(&r.report, OPERATING);
    assert_eq!(case["outcome"], "fail");
    assert_eq!(case["attempts"], serde_json::json!(["fail", "fail"]));
    assert_eq!(r.report["summary"]["flaky"], 1);
    assert_eq!(r.report["summary"]["expected_failures"], 0);

    let r = flaky_run("flaky-never", "never", &["--retries", "2"]);
    assert_eq!(r.out.status.code(), Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(
        result(&r.report, OPERATING)["attempts"],
        serde_json::json!(["pass", "pass", "pass"])
    );
    assert_eq!(
        r.report["baseline"]["entries"][0]["steady"],
        serde_json::json!([OPERATING])
    );
    assert!(r.stdout.contains("candidates to remove"), "{}", r.stdout);
}

/// A case not listed as flaky runs once, retries or not, and fails the run.
#[test]
fn retries_leave_cases_not_listed_as_flaky_alone() {
    let r = run(
        "retries-unlisted",
        &format!("flaky:\n  {BEFORE_INITIALIZED}: flaky\n"),
        Some(FAULT),
        &["--retries", "3"],
    );
    assert_eq!(r.out.status.code(), Some(1), "{}{}", r.stdout, r.stderr);
    assert!(result(&r.report, OPERATING)["attempts"].is_null());
}

fn temp_dir_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("mcpspec-baseline-{}-{name}", std::process::id()))
}
