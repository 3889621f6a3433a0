//! The report schema (`schema/report.schema.json`): committed up to date
//! with the report's own types, a valid JSON Schema, and satisfied by the
//! documents the reporters write (a real run's report is checked by
//! `harness/cli/tests/report_dir.rs`).
//!
//! Regenerate the committed file after changing `harness/report/src/model.rs`:
//! `MCPSPEC_BLESS=1 cargo test -p mcpspec-report --test report_schema`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcpspec_engine::{Level, Version};
use mcpspec_model::{
    Blame, CaseResult, Event, Exit, Finding, FindingSource, Outcome, Summary, TranscriptLine,
};
use mcpspec_report::{model, report_schema, report_schema_text, Baseline, Entry, SCHEMA_PATH};

fn committed_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(SCHEMA_PATH)
}

#[test]
fn committed_schema_is_current() {
    let path = committed_path();
    let fresh = report_schema_text();
    if std::env::var_os("MCPSPEC_BLESS").is_some() {
        std::fs::write(&path, &fresh).expect("write the schema");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{SCHEMA_PATH} is stale; regenerate it: \
         MCPSPEC_BLESS=1 cargo test -p mcpspec-report --test report_schema"
    );
}

fn case(id: &str, version: Version, outcome: Outcome, level: Level) -> CaseResult {
    CaseResult {
        id: format!("{id}@{version}"),
        scenario: id.into(),
        title: "a <b>title</b>".into(),
        version,
        level,
        requirements: vec!["jsonrpc.x".into()],
        findings: if matches!(
            outcome,
            Outcome::Fail | Outcome::Warn | Outcome::Blocked { .. }
        ) {
            vec![Finding {
                requirement: "jsonrpc.x".into(),
                level,
                spec_url: "https://modelcontextprotocol.io/specification/x#y".into(),
                summary: "x".into(),
                expected: vec!["a".into()],
                actual: "b".into(),
                location: Some("f.yaml:1:1 (step 1)".into()),
                source: FindingSource::Step,
            }]
        } else {
            Vec::new()
        },
        outcome,
        duration: Duration::from_millis(3),
        transcript: vec![TranscriptLine {
            at_ms: 1,
            dir: ">>",
            text: "{}".into(),
            transport: "stdio",
            raw: Some(b"{}".to_vec()),
        }],
    }
}

/// A log of every kind of case, with a baseline.
fn sample_log() -> mcpspec_report::log::RunLog {
    let entries = ["server/fail", "server/stale"]
        .iter()
        .map(|p| {
            Entry::new((*p).into(), "known".into(), "b.yaml:1:1".into()).expect("a valid entry")
        })
        .collect();
    let baseline = Baseline {
        file: "b.yaml".into(),
        entries,
    };
    let mut log = mcpspec_report::log::RunLog::new(true, Some(Arc::new(baseline)));
    let v = Version::V2025_06_18;
    let cases = [
        case("server/pass", v, Outcome::Pass, Level::Must),
        case("server/fail", v, Outcome::Fail, Level::Must),
        case("server/stale", v, Outcome::Pass, Level::Must),
        case(
            "server/warn",
            Version::V2024_11_05,
            Outcome::Warn,
            Level::Should,
        ),
        case(
            "server/na",
            v,
            Outcome::NotApplicable {
                reason: "no tools".into(),
            },
            Level::May,
        ),
        case(
            "server/err",
            v,
            Outcome::Error {
                blame: Blame::Target,
                message: "died".into(),
            },
            Level::Must,
        ),
        case(
            "server/blocked",
            v,
            Outcome::Blocked {
                by: "jsonrpc.x".into(),
                level: Level::Must,
            },
            Level::Must,
        ),
    ];
    log.observe(&Event::RunStarted {
        target: "srv --flag".into(),
        cases: cases.len(),
        jobs: 2,
    });
    log.observe(&Event::Probe {
        version: v,
        supported: true,
        detail: "answered".into(),
    });
    let mut summary = Summary::default();
    for c in cases {
        summary.add(&c.outcome);
        log.observe(&Event::CaseFinished(Box::new(c)));
    }
    log.observe(&Event::RunFinished {
        summary,
        wall: Duration::from_millis(20),
        strict: true,
    });
    log
}

#[test]
fn every_kind_of_case_validates() {
    let validator = jsonschema::draft202012::new(&report_schema()).expect("the schema compiles");
    let log = sample_log();
    let report = model::build(&log, &|id| Some(format!("transcripts/{id}.jsonl")));
    let doc = serde_json::to_value(&report).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(doc["summary"]["expected_failures"], 1);
    assert_eq!(doc["summary"]["stale_expectations"], 1);
    // The unlisted failure, the stale entry and the strict warning (1) win
    // over an unlisted target error (3): verdicts are not hidden by it.
    assert_eq!(doc["run"]["exit_code"], 1);
    assert_eq!(
        doc["baseline"]["entries"][1]["stale"][0],
        "server/stale@2025-06-18"
    );
    let blocked = &doc["results"][0];
    assert_eq!(blocked["outcome"], "blocked");
    assert_eq!(blocked["blocked_by"], "jsonrpc.x");
    // The rollup counts the requirement once: the unlisted warning and the
    // blocked case (the listed failure is expected).
    assert_eq!(
        doc["rollup"].as_array().map(Vec::len),
        Some(1),
        "{}",
        doc["rollup"]
    );
    assert_eq!(doc["rollup"][0]["requirement"], "jsonrpc.x");
    assert_eq!(doc["rollup"][0]["blocked"], 1);
    assert_eq!(doc["rollup"][0]["warned"], 1);
    assert_eq!(
        doc["rollup"][0]["example"]["case"],
        "server/warn@2024-11-05"
    );
    let fail = &doc["results"][2];
    assert_eq!(fail["id"], "server/fail@2025-06-18");
    assert_eq!(fail["expectation"]["status"], "expected_failure");

    // And the schema rejects what it should.
    let mut bad = doc.clone();
    bad["results"][0]["outcome"] = "passed".into();
    assert!(!validator.is_valid(&bad));
    let mut bad = doc;
    bad["surprise"] = true.into();
    assert!(!validator.is_valid(&bad));
}

#[test]
fn an_interrupted_run_validates_and_says_so() {
    let validator = jsonschema::draft202012::new(&report_schema()).expect("the schema compiles");
    let mut log = mcpspec_report::log::RunLog::new(false, None);
    let v = Version::V2025_06_18;
    log.observe(&Event::RunStarted {
        target: "srv".into(),
        cases: 4,
        jobs: 2,
    });
    let mut summary = Summary::default();
    let done = case("server/fail", v, Outcome::Fail, Level::Must);
    summary.add(&done.outcome);
    log.observe(&Event::CaseFinished(Box::new(done)));
    log.observe(&Event::Interrupted {
        reason: "SIGTERM".into(),
        exit: Exit::Terminated,
    });
    log.observe(&Event::RunFinished {
        summary,
        wall: Duration::from_millis(20),
        strict: false,
    });
    let doc = serde_json::to_value(model::build(&log, &|_| None)).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(doc["interrupted"], true);
    assert_eq!(doc["complete"], false);
    assert_eq!(doc["run"]["interrupted_by"], "SIGTERM");
    // The interruption's code wins over the failure's (1).
    assert_eq!(doc["run"]["exit_code"], 143);
    assert_eq!(doc["run"]["planned"], 4);
    assert_eq!(doc["results"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_run_in_which_nothing_could_run_validates_and_says_why() {
    let validator = jsonschema::draft202012::new(&report_schema()).expect("the schema compiles");
    let mut log = mcpspec_report::log::RunLog::new(false, None);
    log.observe(&Event::RunStarted {
        target: "http://127.0.0.1:1/mcp".into(),
        cases: 500,
        jobs: 2,
    });
    log.observe(&Event::Probe {
        version: Version::V2025_06_18,
        supported: false,
        detail: "connection refused".into(),
    });
    let summary = Summary {
        unavailable: Some("the target could not be reached".into()),
        ..Summary::default()
    };
    log.observe(&Event::RunFinished {
        summary,
        wall: Duration::from_millis(20),
        strict: false,
    });
    let doc = serde_json::to_value(model::build(&log, &|_| None)).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(doc["run"]["unavailable"], "the target could not be reached");
    assert_eq!(doc["run"]["exit_code"], 3);
    assert_eq!(doc["results"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["rollup"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["probes"][0]["supported"], false);
}

/// `--sarif` / `sarif.json`: valid against the OASIS SARIF 2.1.0 schema
/// (`schema/sarif/`), one rule per requirement, one result per finding, the
/// baseline's expected failure suppressed, the target error a notification.
#[test]
fn sarif_of_every_kind_of_case_validates() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/sarif/sarif-schema-2.1.0.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the SARIF schema"))
            .expect("JSON");
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let doc = mcpspec_report::sarif::render(&sample_log());
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 1, "{rules:#?}");
    assert_eq!(rules[0]["id"], "jsonrpc.x");
    assert_eq!(
        rules[0]["helpUri"],
        "https://modelcontextprotocol.io/specification/x#y"
    );
    let results = run["results"].as_array().unwrap();
    // fail, warn, blocked: one finding each.
    assert_eq!(results.len(), 3, "{results:#?}");
    let by_case = |id: &str| {
        results
            .iter()
            .find(|r| r["properties"]["case"] == id)
            .unwrap_or_else(|| panic!("no result for {id}"))
    };
    let fail = by_case("server/fail@2025-06-18");
    assert_eq!(fail["level"], "error");
    assert_eq!(fail["suppressions"][0]["kind"], "external");
    assert_eq!(
        fail["partialFingerprints"]["mcpspec/v1"],
        "server/fail@2025-06-18:jsonrpc.x"
    );
    assert_eq!(
        fail["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({ "startLine": 1, "startColumn": 1 })
    );
    assert!(fail["message"]["text"]
        .as_str()
        .unwrap()
        .contains("\nExpected: a\nActual: b"));
    let warn = by_case("server/warn@2024-11-05");
    assert_eq!(warn["level"], "warning");
    assert!(warn.get("suppressions").is_none());
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["exitCode"], 1);
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["descriptor"]["id"], "error.target");
}
