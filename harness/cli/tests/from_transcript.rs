//! `mcpspec scenario from-transcript`: a failed case's transcript becomes a
//! regression scenario that fails against the fault it recorded and passes
//! against the clean reference, for five reference faults the oracle
//! judges; and input it cannot use is refused with exit 2.

use std::path::Path;
use std::time::Duration;

mod support;

use serde_json::Value;
use support::{mcpspec, path, temp_dir, BIN};

const CASE: &str = "server/tools/list/result-shape";
const VERSION: &str = "2025-06-18";

/// `mcpspec server --scenarios DIR --filter server/regress/` against the
/// reference with `faults`: exit code and report.
fn run_regression(dir: &Path, faults: &[&str], json: &Path) -> (Option<i32>, Value) {
    let mut args = vec![
        "server",
        "--scenarios",
        path(dir),
        "--filter",
        "server/regress/",
        "--timeout",
        "2s",
        "--no-progress",
        "--json",
        path(json),
        "--",
        BIN,
        "reference",
        "server",
    ];
    for f in faults {
        args.extend(["--fault", f]);
    }
    let run = mcpspec(&args, Duration::from_secs(60));
    let doc = std::fs::read_to_string(json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| panic!("no report: {}", run.stderr));
    (run.code, doc)
}

#[test]
fn regression_scenarios_fail_against_their_fault_and_pass_when_fixed() {
    for fault in [
        "stringify-ids",
        "drop-jsonrpc",
        "stdout-noise",
        "embedded-newlines",
        "answer-notification",
    ] {
        let work = temp_dir(&format!("regress-{fault}"));
        let reports = work.join("recorded");
        let recorded = mcpspec(
            &[
                "server",
                "--filter",
                CASE,
                "--spec-version",
                VERSION,
                "--no-progress",
                "--report-dir",
                path(&reports),
                "--",
                BIN,
                "reference",
                "server",
                "--fault",
                fault,
            ],
            Duration::from_secs(60),
        );
        assert_eq!(recorded.code, Some(1), "{fault}: {}", recorded.stderr);
        let transcript = reports.join(format!("transcripts/{CASE}@{VERSION}.jsonl"));
        let scenarios = work.join("scenarios");
        let file = scenarios.join(format!("server/regress/{fault}.yaml"));
        let made = mcpspec(
            &[
                "scenario",
                "from-transcript",
                path(&transcript),
                "--out",
                path(&file),
            ],
            Duration::from_secs(30),
        );
        assert_eq!(made.code, Some(0), "{fault}: {}", made.stderr);
        let yaml = std::fs::read_to_string(&file).expect("the scenario was written");
        assert!(
            yaml.contains(&format!("id: server/regress/{fault}")),
            "{yaml}"
        );

        let (clean, doc) = run_regression(&scenarios, &[], &work.join("clean.json"));
        assert_eq!(
            clean,
            Some(0),
            "{fault}: fails against the clean reference: {doc}"
        );
        let (faulty, doc) = run_regression(&scenarios, &[fault], &work.join("fault.json"));
        assert_eq!(faulty, Some(1), "{fault}: passes against its fault: {doc}");
        // It fails on a rule it names.
        let result = &doc["results"][0];
        let named: Vec<&Value> = result["requirements"]
            .as_array()
            .expect("requirements")
            .iter()
            .collect();
        assert!(
            result["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .any(|f| named.contains(&&f["requirement"])),
            "{fault}: no finding on a named rule: {result}\n{yaml}"
        );
    }
}

#[test]
fn unusable_input_is_refused_with_exit_2() {
    let work = temp_dir("regress-refusals");
    let loose = work.join("x@2025-06-18.jsonl");
    std::fs::write(&loose, "{\"kind\":\"sent\",\"at_ms\":0,\"raw\":\"{}\"}\n").expect("write");
    let client = work.join("transcripts/client/lifecycle/x@2025-06-18.jsonl");
    std::fs::create_dir_all(client.parent().expect("parent")).expect("dir");
    std::fs::write(&client, "{\"kind\":\"sent\",\"at_ms\":0,\"raw\":\"{}\"}\n").expect("write");
    let broken = work.join("transcripts/server/x/y@2025-06-18.jsonl");
    std::fs::create_dir_all(broken.parent().expect("parent")).expect("dir");
    std::fs::write(&broken, "{\"kind\":\"sent\"}\nnot json\n").expect("write");
    for (file, why) in [
        (&loose, "transcripts/"),
        (&client, "client case"),
        (&broken, "line 2"),
    ] {
        let run = mcpspec(
            &["scenario", "from-transcript", path(file)],
            Duration::from_secs(30),
        );
        assert_eq!(run.code, Some(2), "{}: {}", file.display(), run.stderr);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
    }
}
