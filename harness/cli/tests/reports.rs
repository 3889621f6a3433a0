//! The committed conformance matrix (`reports/`, written by
//! `reports/regenerate.sh`), checked without the network: every
//! `reports/servers/<implementation>/<transport>/report.json` (and
//! `reports/clients/<client>/<transport>/report.json`) fits
//! `schema/report.schema.json`, names only cases mcpspec still has (a
//! renamed or removed scenario means the reports must be regenerated), and
//! `reports/matrix.md` / `matrix.html` are exactly what `mcpspec report
//! merge` makes of those directories.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use support::{mcpspec, temp_dir};

/// The regeneration covers at least this many server implementation ×
/// transport pairs (issue #20); fewer means directories went missing.
const MIN_TARGETS: usize = 8;

/// ... and at least this many clients (TypeScript SDK, Python SDK 2.x and
/// 1.x, Inspector CLI), over one transport or more each.
const MIN_CLIENTS: usize = 4;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The committed report directories, in the order regenerate.py merges them:
/// the servers' sorted, then the clients' sorted.
fn report_dirs() -> Vec<PathBuf> {
    let servers = dirs_under(&repo().join("reports/servers"));
    assert!(
        servers.len() >= MIN_TARGETS,
        "only {} server report directories",
        servers.len()
    );
    let clients = dirs_under(&repo().join("reports/clients"));
    let named: BTreeSet<&Path> = clients.iter().filter_map(|d| d.parent()).collect();
    assert!(
        named.len() >= MIN_CLIENTS,
        "only {} clients under reports/clients",
        named.len()
    );
    servers.into_iter().chain(clients).collect()
}

/// `<base>/<implementation>/<transport>` directories holding a report.json, sorted.
fn dirs_under(base: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for imp in std::fs::read_dir(base).unwrap_or_else(|e| panic!("{}: {e}", base.display())) {
        let imp = imp.expect("entry").path();
        if !imp.is_dir() {
            continue;
        }
        for tr in std::fs::read_dir(&imp).expect("implementation dir") {
            let tr = tr.expect("entry").path();
            if tr.join("report.json").is_file() {
                dirs.push(tr);
            }
        }
    }
    dirs.sort();
    dirs
}

fn load(dir: &Path) -> Value {
    let path = dir.join("report.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("report.json"))
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

#[test]
fn committed_reports_fit_the_schema_and_keep_no_transcripts() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schema/report.schema.json")).expect("schema"),
    )
    .expect("JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let mut problems = Vec::new();
    for dir in report_dirs() {
        let doc = load(&dir);
        for e in validator.iter_errors(&doc) {
            problems.push(format!("{}: {}: {e}", dir.display(), e.instance_path()));
        }
        let results = doc["results"].as_array().expect("results");
        assert!(!results.is_empty(), "{}: no results", dir.display());
        for r in results {
            if !r["transcript"].is_null() {
                problems.push(format!("{}: {} names a transcript", dir.display(), r["id"]));
            }
        }
        assert!(
            dir.join("summary.md").is_file(),
            "{}: no summary.md",
            dir.display()
        );
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn committed_case_ids_are_cases_mcpspec_still_runs() {
    let run = mcpspec(&["list", "--json"], Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let listed: Value = serde_json::from_str(&run.stdout).expect("list --json is JSON");
    let known: BTreeSet<&str> = listed
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert!(
        known.len() > 100,
        "list --json printed {} cases",
        known.len()
    );
    let mut stale = Vec::new();
    for dir in report_dirs() {
        let doc = load(&dir);
        for r in doc["results"].as_array().expect("results") {
            let id = r["id"].as_str().expect("id");
            if !known.contains(id) {
                stale.push(format!("{}: {id}", dir.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "cases mcpspec no longer has (regenerate with reports/regenerate.sh): {stale:#?}"
    );
}

#[test]
fn matrix_is_what_report_merge_makes_of_the_committed_dirs() {
    let out = temp_dir("reports-merge");
    let dirs: Vec<String> = report_dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    let mut args = vec!["report", "merge", "--out", out.to_str().expect("utf-8")];
    args.extend(dirs.iter().map(String::as_str));
    let run = mcpspec(&args, Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for file in ["matrix.md", "matrix.html"] {
        let fresh = std::fs::read_to_string(out.join(file)).expect("merge wrote it");
        let committed =
            std::fs::read_to_string(repo().join("reports").join(file)).unwrap_or_default();
        assert!(
            fresh == committed,
            "reports/{file} is not what `mcpspec report merge` makes of reports/servers/*/* \
             and reports/clients/*/*; \
             regenerate it (reports/regenerate.sh) or merge again"
        );
    }
}
