//! The CI action (`action.yml`, its script `.ci/action.sh`), run locally as
//! GitHub would run its step: with the inputs in `INPUT_*`, a fake
//! `GITHUB_STEP_SUMMARY` and `GITHUB_OUTPUT`, against the reference server
//! (clean: exit 0; with a fault: exit 1, the summary and reports still
//! written), and `action.yml` wired to that script.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{temp_dir, BIN};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Step {
    code: Option<i32>,
    stdout: String,
    summary: String,
    outputs: BTreeMap<String, String>,
}

fn step(name: &str, role: &str, args: &str) -> (Step, PathBuf) {
    let dir = temp_dir(&format!("action-{name}"));
    let summary = dir.join("step-summary.md");
    let outputs = dir.join("outputs");
    std::fs::write(&summary, "# earlier steps\n").expect("summary file");
    let out = Command::new("bash")
        .arg(root().join(".ci/action.sh"))
        .current_dir(&dir)
        .env("MCPSPEC", BIN)
        .env("INPUT_ROLE", role)
        .env("INPUT_ARGS", args)
        .env("INPUT_REPORT_DIR", "report")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .output()
        .expect("bash runs");
    let outputs = std::fs::read_to_string(&outputs)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    (
        Step {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
            summary: std::fs::read_to_string(&summary).unwrap_or_default(),
            outputs,
        },
        dir,
    )
}

#[test]
fn a_conforming_server_passes_the_step_and_fills_summary_and_outputs() {
    let (s, dir) = step(
        "clean",
        "server",
        "--filter server/lifecycle/ping/ --spec-version '2025-06-18'",
    );
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(s.summary.starts_with("# earlier steps\n"), "{}", s.summary);
    assert!(
        s.summary.len() > "# earlier steps\n".len() + 20,
        "{}",
        s.summary
    );
    assert_eq!(s.outputs.get("exit-code").map(String::as_str), Some("0"));
    for key in ["junit", "sarif", "summary", "badge"] {
        let file = s
            .outputs
            .get(key)
            .unwrap_or_else(|| panic!("no output {key}"));
        assert!(dir.join(file).is_file(), "{key}: {file}");
    }
}

#[test]
fn failures_fail_the_step_with_the_reports_written() {
    let args = format!(
        "--filter server/lifecycle/ping/operating -- {BIN} reference server --fault ping-non-empty"
    );
    let (s, dir) = step("fault", "server", &args);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(
        s.stdout.contains("::error::mcpspec: conformance failures"),
        "{}",
        s.stdout
    );
    assert!(s.summary.contains("ping.respond"), "{}", s.summary);
    assert_eq!(s.outputs.get("exit-code").map(String::as_str), Some("1"));
    assert!(dir.join("report/junit.xml").is_file());
}

#[test]
fn a_bad_role_is_a_usage_error() {
    let (s, _) = step("role", "proxy", "");
    assert_eq!(s.code, Some(2), "{}", s.stdout);
    assert!(
        s.stdout.contains("role must be server or client"),
        "{}",
        s.stdout
    );
}

/// `action.yml` runs that script with those inputs, and says what it outputs.
#[test]
fn the_action_runs_the_script_it_is_tested_by() {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    let doc: serde_json::Value = serde_saphyr::from_str(&text).expect("action.yml is YAML");
    assert_eq!(doc["runs"]["using"], "composite");
    let steps = doc["runs"]["steps"].as_array().expect("steps");
    let run = steps
        .iter()
        .find(|s| s["id"] == "run")
        .expect("a step with id run");
    assert!(
        run["run"]
            .as_str()
            .is_some_and(|r| r.contains(".ci/action.sh")),
        "{run}"
    );
    for (env, input) in [
        ("INPUT_ROLE", "role"),
        ("INPUT_ARGS", "args"),
        ("INPUT_REPORT_DIR", "report-dir"),
    ] {
        assert_eq!(
            run["env"][env],
            format!("${{{{ inputs.{input} }}}}"),
            "{env}"
        );
        assert!(doc["inputs"][input].is_object(), "input {input}");
    }
    for output in ["exit-code", "report-dir", "junit", "sarif"] {
        assert_eq!(
            doc["outputs"][output]["value"],
            format!("${{{{ steps.run.outputs.{output} }}}}"),
            "{output}"
        );
    }
}
