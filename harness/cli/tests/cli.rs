//! The command-line contract: exit codes, JSON shapes, and how errors in
//! scenario files are reported. Each test runs the real binary.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

fn mcpspec(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("mcpspec runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn json_report_has_the_documented_shape() {
    let dir = temp_dir("json");
    let json = dir.join("out.json");
    let out = mcpspec(&[
        "server",
        "--filter",
        "server/lifecycle/ping/",
        "--spec-version",
        "2025-06-18",
        "--json",
        json.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("written"))
        .expect("valid JSON");
    for key in ["passed", "failed", "warned", "not_applicable", "errored"] {
        assert!(doc["summary"][key].is_u64(), "summary.{key}");
    }
    let results = doc["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        for key in [
            "id",
            "scenario",
            "version",
            "outcome",
            "level",
            "requirements",
            "message",
        ] {
            assert!(!r[key].is_null(), "result lacks {key}: {r}");
        }
        assert!(r["id"].as_str().expect("id").ends_with("@2025-06-18"));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().expect("a closing line");
    assert!(
        last.starts_with(&format!("{} passed, 0 failed", results.len())) && last.ends_with('s'),
        "closing line: {last}"
    );
}

#[test]
fn list_json_names_ids_versions_transports_level_requirements() {
    let out = mcpspec(&["list", "--json", "--filter", "server/pagination"]);
    assert_eq!(out.status.code(), Some(0));
    let cases: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let cases = cases.as_array().expect("array");
    assert!(cases.len() >= 8);
    for c in cases {
        for key in ["id", "versions", "transports", "level", "requirements"] {
            assert!(!c[key].is_null(), "case lacks {key}: {c}");
        }
    }
}

#[test]
fn a_broken_scenario_file_is_located_and_exits_2() {
    let dir = temp_dir("broken");
    let file = dir.join("server/demo/broken.yaml");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("dirs");
    std::fs::write(
        &file,
        "id: server/demo/broken\ntitle: Broken\nrequirements: [ping.respond]\nlevel: must\nsteps:\n  - sned: { method: ping }\n",
    )
    .expect("write");
    let out = mcpspec(&["server", "--scenarios", dir.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("broken.yaml:6:"), "no file:line:col in {err}");
    assert!(err.contains("sned"), "no snippet in {err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        mcpspec(&["server", "--spec-version", "2020-01-01"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        mcpspec(&["server", "--filter", "no/such/scenario"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        mcpspec(&["server", "--filter", "[unclosed"]).status.code(),
        Some(2)
    );
    assert_eq!(
        mcpspec(&["reference", "server", "--fault", "no-such-fault"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_target_that_cannot_start_exits_3() {
    let out = mcpspec(&[
        "server",
        "--filter",
        "server/lifecycle/ping/",
        "--",
        "/nonexistent/mcp-server",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("failed to start"), "{stdout}");
}

#[test]
fn a_should_fault_warns_and_fails_only_under_strict() {
    let target = [BIN, "reference", "server", "--fault", "unknown-method-code"];
    let filter = [
        "--filter",
        "server/jsonrpc/method-not-found/",
        "--spec-version",
        "2025-06-18",
    ];
    let mut args = vec!["server"];
    args.extend(filter);
    args.push("--");
    args.extend(target);
    let lenient = mcpspec(&args);
    assert_eq!(lenient.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&lenient.stdout).contains("WARN"));
    args.insert(1, "--strict");
    assert_eq!(mcpspec(&args).status.code(), Some(1));
}

/// Zero jobs or a zero duration (in any unit) would run nothing or time out
/// at once: they are usage errors, like any other bad value.
#[test]
fn zero_jobs_and_zero_durations_are_refused() {
    for args in [
        &["server", "--jobs", "0"][..],
        &["client", "-j", "0"],
        &["server", "--timeout", "0"],
        &["server", "--timeout", "0s"],
        &["server", "--timeout", "0ms"],
        &["server", "--startup-timeout", "0m"],
        &["server", "--case-timeout", "00s"],
        &["fuzz", "server", "--duration", "0s"],
        &["replay", "x.jsonl", "--timeout", "0ms"],
    ] {
        let out = mcpspec(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("invalid value"), "{args:?}: {stderr}");
    }
}

/// Each command's help speaks of what it handles: `client` of the client it
/// starts, `list` of cases (it asks no target anything).
#[test]
fn help_names_the_right_command_and_no_target_for_list() {
    let help = |args: &[&str]| String::from_utf8_lossy(&mcpspec(args).stdout).into_owned();
    let client = help(&["client", "--help"]);
    assert!(client.contains("The client command"), "{client}");
    assert!(!client.contains("The server command"), "{client}");
    let server = help(&["server", "--help"]);
    assert!(server.contains("The server command"), "{server}");
    for args in [&["list", "--help"][..], &["list", "-h"]] {
        let list = help(args);
        assert!(list.contains("--spec-version"), "{list}");
        assert!(!list.contains("target"), "{list}");
    }
}

/// One case, one job: the console says "1 case" and "1 job", not "1 cases".
#[test]
fn counts_of_one_are_singular() {
    let one = [
        "--filter",
        "server/lifecycle/ping/operating",
        "--spec-version",
        "2025-06-18",
    ];
    let mut args = vec!["server", "--jobs", "1"];
    args.extend(one);
    let out = mcpspec(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains(": 1 case against"), "{stdout}");
    assert!(stdout.contains("(1 job)"), "{stdout}");
    let mut args = vec!["list"];
    args.extend(one);
    let out = mcpspec(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.ends_with("\n1 case\n"), "{stdout}");
    let mut args = vec!["server", "--jobs", "2"];
    args.extend([
        "--filter",
        "server/lifecycle/ping/",
        "--spec-version",
        "2025-06-18",
    ]);
    let out = mcpspec(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(" cases against") && stdout.contains("(2 jobs)"),
        "{stdout}"
    );
}

/// `--no-tests` (nextest's meaning): filters that select nothing fail the
/// run by default; `warn` and `pass` let it succeed.
#[test]
fn filters_that_select_nothing_follow_no_tests() {
    let run = |extra: &[&str]| {
        let mut args = vec!["server", "--filter", "server/no-such-area/"];
        args.extend(extra);
        mcpspec(&args)
    };
    let fail = run(&[]);
    assert_eq!(fail.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&fail.stderr).contains("no case matches"));
    let warn = run(&["--no-tests", "warn"]);
    assert_eq!(warn.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&warn.stderr).contains("warning: no case matches"));
    let pass = run(&["--no-tests=pass"]);
    assert_eq!(pass.status.code(), Some(0));
    assert!(
        pass.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&pass.stderr)
    );
}

/// `--fail-fast` stops at the first failing case: fewer results than
/// planned, the report says why, exit 1.
#[test]
fn fail_fast_stops_at_the_first_failure() {
    let dir = temp_dir("fail-fast");
    let json = dir.join("out.json");
    let out = mcpspec(&[
        "server",
        "--fail-fast",
        "--jobs",
        "1",
        "--spec-version",
        "2025-06-18",
        "--filter",
        "server/tools/",
        "--json",
        json.to_str().unwrap(),
        "--",
        BIN,
        "reference",
        "server",
        "--fault",
        "exit-on-call",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["run"]["interrupted_by"], "--fail-fast: a case failed");
    let planned = doc["run"]["planned"].as_u64().unwrap();
    let finished = doc["results"].as_array().unwrap().len() as u64;
    assert!(finished < planned, "{finished} of {planned}");
    // At least the case that stopped the run: failed, or blocked by the
    // exit's MUST (`jsonrpc.request.answered`, a scenario's own rule or not),
    // which fails a run alike. Cases run side by side even at `--jobs 1` (the
    // bound is on starting targets), so another may have finished, and
    // failed, before the stop: it is reported, not dropped.
    let summary = &doc["summary"];
    let failing = summary["failed"].as_u64().unwrap() + summary["blocked"].as_u64().unwrap();
    assert!(failing >= 1, "{summary}");
}

/// `client_capabilities` are what the harness declares as the client: in
/// `initialize` (the reference's test_sampling asks only a client that
/// declared sampling, and the scenario answers its request with `reply`),
/// and in the `_meta` of 2026-07-28 requests (its roots tool asks only a
/// request that declared roots). Without the declaration both scenarios fail.
#[test]
fn declared_client_capabilities_reach_the_server_and_its_requests_are_answered() {
    let sampling = "id: server/demo/declared-sampling\ntitle: t\nrequirements: [fixture.tools.sampling]\nlevel: must\nversions: [2025-11-25]\nCAPS\
steps:
  - send: { method: tools/call, params: { name: test_sampling, arguments: { prompt: hi } } }
    as: call
  - expect: { request: sampling/createMessage, within: 2s }
    as: asked
  - reply: { to: asked, result: { role: assistant, content: { type: text, text: hello }, model: m } }
  - expect: { response_to: call, result: { content: [{ type: text }] }, within: 2s }
";
    let roots = "id: server/demo/declared-roots\ntitle: t\nrequirements: [tools.call.result-shape]\nlevel: must\nversions: [2026-07-28]\nCAPS\
steps:
  - send: { method: tools/call, params: { name: roots, arguments: {} } }
    expect: { result: { resultType: input_required }, within: 2s }
";
    for (declare, code) in [(true, 0), (false, 1)] {
        let dir = temp_dir(&format!("declared-{declare}"));
        for (name, text, caps) in [
            (
                "sampling",
                sampling,
                "client_capabilities: { sampling: {} }\n",
            ),
            ("roots", roots, "client_capabilities: { roots: {} }\n"),
        ] {
            let file = dir.join(format!("server/demo/declared-{name}.yaml"));
            std::fs::create_dir_all(file.parent().expect("parent")).expect("dirs");
            let text = text.replace("CAPS", if declare { caps } else { "" });
            std::fs::write(&file, text).expect("write");
        }
        let out = mcpspec(&[
            "server",
            "--scenarios",
            dir.to_str().expect("utf-8"),
            "--filter",
            "server/demo/",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "declared {declare}: {stdout}"
        );
        let expected = if declare {
            "2 passed, 0 failed"
        } else {
            "0 passed, 2 failed"
        };
        assert!(stdout.contains(expected), "declared {declare}: {stdout}");
    }
}

/// Opt-in extensions: without `--extension` their cases are not applicable
/// (with the reason), never run; with it they run; an unknown name is a
/// usage error that lists the known ones.
#[test]
fn extension_scenarios_run_only_when_asked_for() {
    let dir = temp_dir("extension");
    let run = |extra: &[&str], name: &str| {
        let json = dir.join(name);
        let mut args = vec![
            "server",
            "--filter",
            "server/tasks/",
            "--json",
            json.to_str().expect("utf-8 path"),
        ];
        args.extend(extra);
        let out = mcpspec(&args);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("written"))
            .expect("valid JSON");
        (out, doc)
    };
    let (off, doc) = run(&[], "off.json");
    // Only extension cases selected, none enabled: a run that judged
    // nothing, which is never a success (exit 3), as for any such run.
    assert_eq!(off.status.code(), Some(3));
    let results = doc["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        assert_eq!(r["outcome"], "not_applicable", "{r}");
        assert!(
            r["message"]
                .as_str()
                .is_some_and(|m| m.contains("--extension tasks")),
            "{r}"
        );
    }
    let (on, doc) = run(&["--extension", "tasks"], "on.json");
    assert_eq!(
        on.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&on.stdout)
    );
    assert_eq!(
        doc["summary"]["passed"].as_u64(),
        Some(results.len() as u64),
        "every tasks case passes against the reference: {doc}"
    );
    let bad = mcpspec(&["server", "--extension", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("tasks, skills"), "{stderr}");
}
