//! `mcpspec server --report-dir DIR` against the reference server with a
//! fault: the reports are valid (report.json against the committed schema,
//! junit.xml parses with the right counts, summary.md names the failing
//! requirement with its link, index.html renders in a real headless
//! Chromium, sarif.json against the OASIS SARIF 2.1.0 schema and the same as
//! `--sarif FILE`, badge.json a red shields.io endpoint), and every case has
//! its transcript file.
//!
//! The browser part needs `/usr/bin/chromium` (Debian's `chromium`
//! package; see `chromium/mod.rs`); without it the part is skipped with a
//! note, and fails when `CI=true`. `report_page.rs` checks that the page
//! opens on the problem.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use mcpspec_engine::{Level, Version};
use mcpspec_report::{ReportDir, SCHEMA_PATH};
use mcpspec_runner::{CaseResult, Event, Outcome, Reporter, Summary, TranscriptLine};
use serde_json::Value;

mod chromium;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// One run, shared by the tests: the ping scenarios against a server whose
/// ping answers are not empty (MUST failures at every version).
fn run_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = temp_dir("run").join("nested/reports");
        let out = Command::new(BIN)
            .args([
                "server",
                "--filter",
                "server/lifecycle/ping/",
                "--report-dir",
            ])
            .arg(&dir)
            .arg("--sarif")
            .arg(dir.join("../cli.sarif"))
            .args([
                "--",
                BIN,
                "reference",
                "server",
                "--fault",
                "ping-non-empty",
            ])
            .output()
            .expect("mcpspec runs");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

fn report() -> Value {
    let text = std::fs::read_to_string(run_dir().join("report.json")).expect("report.json");
    serde_json::from_str(&text).expect("report.json is JSON")
}

#[test]
fn report_json_validates_against_the_committed_schema() {
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(SCHEMA_PATH);
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let doc = report();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(doc["summary"]["failed"].as_u64() > Some(0));
    assert_eq!(doc["run"]["exit_code"], 1);
    assert_eq!(doc["complete"], true);
}

#[test]
fn every_case_has_a_jsonl_transcript_named_after_its_id() {
    let doc = report();
    let mut saw_stderr = false;
    for r in doc["results"].as_array().expect("results") {
        let id = r["id"].as_str().expect("id");
        let rel = r["transcript"].as_str().expect("transcript path");
        assert_eq!(rel, format!("transcripts/{id}.jsonl"));
        let text = std::fs::read_to_string(run_dir().join(rel)).expect("transcript file");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        assert_eq!(lines.len() as u64, r["transcript_lines"].as_u64().unwrap());
        for l in &lines {
            assert!(l["at_ms"].is_u64() && l["dir"].is_string() && l["transport"] == "stdio");
        }
        let received = lines
            .iter()
            .find(|l| l["kind"] == "received")
            .expect("a received frame");
        assert!(received["raw"].is_string(), "{received}");
        assert_eq!(received["message"]["jsonrpc"], "2.0");
        saw_stderr |= lines.iter().any(|l| l["kind"] == "stderr");
    }
    assert!(saw_stderr, "the target's stderr lines are kept");
}

#[test]
fn junit_parses_with_a_testcase_per_case_and_the_failures() {
    let doc = report();
    let xml = std::fs::read_to_string(run_dir().join("junit.xml")).expect("junit.xml");
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("junit.xml parses");
    let results = doc["results"].as_array().expect("results");
    assert_eq!(junit.tests, results.len());
    assert_eq!(
        junit.failures as u64,
        doc["summary"]["failed"].as_u64().unwrap()
    );
    let failing = results
        .iter()
        .find(|r| r["outcome"] == "fail")
        .expect("a failure");
    let case = junit
        .test_suites
        .iter()
        .flat_map(|s| &s.test_cases)
        .find(|c| c.name.as_str() == failing["id"].as_str().unwrap())
        .expect("the failing case");
    match &case.status {
        quick_junit::TestCaseStatus::NonSuccess {
            kind: quick_junit::NonSuccessKind::Failure,
            description: Some(d),
            ..
        } => {
            let d = d.as_str();
            assert!(
                d.contains("Expected:") && d.contains("Actual:") && d.contains("spec: https://"),
                "{d}"
            );
        }
        other => panic!("not a failure: {other:?}"),
    }
}

#[test]
fn sarif_validates_and_names_the_broken_requirement_once() {
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/sarif/sarif-schema-2.1.0.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("JSON");
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let text = std::fs::read_to_string(run_dir().join("sarif.json")).expect("sarif.json");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let run = &doc["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(
        rules.iter().filter(|r| **r == "ping.respond").count(),
        1,
        "{rules:?}"
    );
    let results = run["results"].as_array().expect("results");
    let ping = results
        .iter()
        .find(|r| r["ruleId"] == "ping.respond" && r["level"] == "error")
        .expect("a ping.respond error");
    let uri = ping["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .expect("a scenario step location");
    assert!(uri.starts_with("scenarios/server/lifecycle/ping/"), "{uri}");
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    let cli = std::fs::read_to_string(run_dir().join("../cli.sarif")).expect("--sarif FILE");
    let cli: Value = serde_json::from_str(&cli).expect("JSON");
    assert_eq!(cli["runs"][0]["results"], run["results"]);
}

#[test]
fn badge_json_is_a_red_shields_endpoint() {
    let text = std::fs::read_to_string(run_dir().join("badge.json")).expect("badge.json");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(doc["schemaVersion"], 1);
    assert_eq!(doc["color"], "red");
    let message = doc["message"].as_str().expect("message");
    assert!(
        message.starts_with("0/") && message.ends_with("1 MUST failure"),
        "{message}"
    );
}

#[test]
fn summary_md_names_the_failing_requirement_with_its_link() {
    let md = std::fs::read_to_string(run_dir().join("summary.md")).expect("summary.md");
    assert!(md.contains("| fail | "), "{md}");
    assert!(
        md.contains("[ping.respond](https://modelcontextprotocol.io/specification/"),
        "{md}"
    );
    assert!(md.contains("Expected:") && md.contains("Actual:"));
}

/// The DOM Chromium renders for `page` (with `query`), or `None` when
/// Chromium is not installed (fails under `CI=true`).
fn render(page: &Path, query: &str) -> Option<String> {
    chromium::dom(page, query)
}

#[test]
fn index_html_shows_the_failures_and_expands_a_transcript_in_chromium() {
    let doc = report();
    let failed = doc["summary"]["failed"].as_u64().unwrap();
    let failing = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["outcome"] == "fail")
        .expect("a failure")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let Some(dom) = render(&run_dir().join("index.html"), &format!("?case={failing}")) else {
        return;
    };
    assert!(
        dom.contains(&format!("id=\"count-fail\">{failed}<")),
        "failure count"
    );
    // The named case is open, with its findings and transcript rendered.
    let start = dom
        .find(&format!("id=\"case-{failing}\""))
        .expect("the case's row");
    let row = &dom[start..];
    let row = &row[..row.find("</details>").expect("row end")];
    assert!(row.contains("open=\"\""), "the case is expanded: {row}");
    assert!(row.contains("ping.respond"), "its finding: {row}");
    assert!(
        row.contains("<table class=\"transcript\">"),
        "its transcript: {row}"
    );
    assert!(
        row.contains("<td class=\"dir\">&gt;&gt;</td>"),
        "a sent line: {row}"
    );
    // Other cases are rendered closed, without their transcript.
    assert_eq!(dom.matches("<table class=\"transcript\">").count(), 1);

    // Filters come from the URL too: only the failures at one version.
    let Some(dom) = render(
        &run_dir().join("index.html"),
        "?outcome=fail&version=2025-06-18",
    ) else {
        return;
    };
    let shown = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] == "fail" && r["version"] == "2025-06-18")
        .count();
    assert!(
        dom.contains(&format!(
            "{shown} of {} cases shown",
            doc["results"].as_array().unwrap().len()
        )),
        "filtered"
    );
}

/// A case whose target wrote markup everywhere it could.
fn hostile_case() -> CaseResult {
    let evil = "</script><img src=x onerror=\"document.title='pwned'\"><b>bold</b>";
    CaseResult {
        id: "server/evil@2025-06-18".into(),
        scenario: "server/evil".into(),
        title: evil.into(),
        version: Version::V2025_06_18,
        level: Level::Must,
        requirements: vec!["ping.respond".into()],
        outcome: Outcome::Error {
            blame: mcpspec_runner::Blame::Target,
            message: evil.into(),
        },
        findings: Vec::new(),
        duration: Duration::from_millis(1),
        transcript: vec![
            TranscriptLine {
                at_ms: 1,
                dir: "<<",
                text: evil.into(),
                transport: "stdio",
                raw: Some(evil.as_bytes().to_vec()),
            },
            TranscriptLine {
                at_ms: 2,
                dir: "!!",
                text: "<script>document.title='pwned'</script>\u{2028}".into(),
                transport: "stdio",
                raw: None,
            },
        ],
    }
}

#[test]
fn target_text_cannot_inject_markup_into_the_reports() {
    let dir = temp_dir("hostile");
    {
        let mut reports = ReportDir::create(dir.clone(), false, None).expect("created");
        let case = hostile_case();
        let mut summary = Summary::default();
        summary.add(&case.outcome);
        for e in [
            Event::RunStarted {
                target: "<i>srv</i>".into(),
                cases: 1,
                jobs: 1,
            },
            Event::CaseFinished(Box::new(case)),
            Event::RunFinished {
                summary,
                wall: Duration::from_millis(5),
                strict: false,
            },
        ] {
            reports.event(&e);
        }
        assert!(reports.errors.is_empty(), "{:?}", reports.errors);
    }
    let xml = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    quick_junit::Report::deserialize_from_str(&xml).expect("junit.xml still parses");
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        !md.contains("<img") && !md.contains("<script") && !md.contains("<i>"),
        "{md}"
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "only the page's own script ends"
    );
    let Some(dom) = render(&dir.join("index.html"), "?case=server/evil@2025-06-18") else {
        return;
    };
    assert!(
        !dom.contains("<img") && !dom.contains("<b>bold"),
        "markup was not parsed"
    );
    assert!(dom.contains("&lt;img src=x"), "it is shown as text");
    assert!(!dom.contains("<title>pwned"), "no script ran");
}
