//! The parity map with the official conformance suite
//! (`schema/parity/official-*.yaml`): it holds against the scenarios that
//! exist, and the README shows what `coverage --against official --markdown`
//! prints.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

fn coverage(extra: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(["coverage", "--against", "official"])
        .args(extra)
        .output()
        .expect("mcpspec runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_map_names_only_scenarios_that_exist() {
    let (code, stdout, stderr) = coverage(&["--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let entries = doc["entries"].as_array().expect("entries");
    assert!(entries.len() >= 100, "{} entries", entries.len());
    assert!(doc["official"]
        .as_str()
        .is_some_and(|o| o.contains("0.2.0-alpha.12")));
}

#[test]
fn the_readme_shows_the_summary_table() {
    let (code, table, stderr) = coverage(&["--markdown"]);
    assert_eq!(code, Some(0), "{stderr}");
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    assert!(
        readme.contains(&table),
        "README.md's parity table differs; it must read:\n\n{table}"
    );
}
