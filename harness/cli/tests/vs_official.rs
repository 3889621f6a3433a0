//! `bench/vs_official.py`, the comparison behind `bench/vs-official.sh`: each
//! failed official check is matched by an mcpspec case the parity map names,
//! explained by what mcpspec said instead, or reported as unmatched — and the
//! exit status says whether anything was unmatched. Fed hand-made official
//! results and an mcpspec report; the parity map is the real one.

use std::path::Path;
use std::process::Command;

use serde_json::json;

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/vs_official.py");

fn official_check(dir: &Path, scenario: &str, checks: serde_json::Value) {
    let d = dir.join(format!("server-{scenario}-2026-11-24T08-17-41-933Z"));
    std::fs::create_dir_all(&d).expect("mkdir");
    std::fs::write(d.join("checks.json"), checks.to_string()).expect("write");
}

fn case(scenario: &str, version: &str, outcome: &str, message: &str) -> serde_json::Value {
    json!({
        "id": format!("{scenario}@{version}"), "scenario": scenario, "version": version,
        "outcome": outcome, "message": message,
        "findings": if outcome == "fail" {
            json!([{"requirement": "http.session.terminated-404"}])
        } else { json!([]) },
    })
}

fn compare(dir: &Path, results: serde_json::Value) -> (Option<i32>, String) {
    let parity = Command::new(BIN)
        .args(["coverage", "--against", "official", "--json"])
        .output()
        .expect("mcpspec runs");
    assert!(parity.status.success());
    std::fs::write(dir.join("parity.json"), &parity.stdout).expect("write");
    std::fs::write(
        dir.join("report.json"),
        json!({ "results": results }).to_string(),
    )
    .expect("write");
    let out = Command::new("python3")
        .arg(SCRIPT)
        .arg("--parity")
        .arg(dir.join("parity.json"))
        .arg("--mcpspec")
        .arg(dir.join("report.json"))
        .arg(format!("2025-11-25={}", dir.join("official").display()))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    (out.status.code(), stdout)
}

fn line_of<'a>(stdout: &'a str, scenario: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.contains(&format!(" {scenario} / ")))
        .unwrap_or_else(|| panic!("no line for {scenario} in:\n{stdout}"))
}

#[test]
fn failures_are_matched_explained_or_unmatched() {
    let tmp = support::temp_dir("vs-official-kinds");
    let official = tmp.join("official");
    let failed = |id: &str| json!([{"id": id, "status": "FAILURE", "errorMessage": "boom"}]);
    official_check(
        &official,
        "server-session-lifecycle",
        failed("terminated-404"),
    );
    official_check(&official, "ping", failed("ping"));
    official_check(&official, "tools-call-image", failed("image"));
    official_check(&official, "no-such-official", failed("x"));
    official_check(
        &official,
        "resources-list",
        json!([{"id": "ok", "status": "SUCCESS"}]),
    );

    let results = json!([
        case(
            "server/http/session/delete-ends-session",
            "2025-11-25",
            "fail",
            "MUST …"
        ),
        case("server/lifecycle/ping/operating", "2025-11-25", "pass", ""),
        case(
            "server/tools/call/content-blocks",
            "2025-11-25",
            "not_applicable",
            "no tool fits"
        ),
        case(
            "server/prompts/get/image-content",
            "2025-11-25",
            "not_applicable",
            "no prompt fits"
        ),
        case(
            "server/fixture/tools/image",
            "2025-11-25",
            "not_applicable",
            "no test_image_content"
        ),
    ]);
    let (code, stdout) = compare(&tmp, results);

    assert!(
        line_of(&stdout, "server-session-lifecycle").starts_with("matched"),
        "{stdout}"
    );
    assert!(stdout.contains("delete-ends-session@2025-11-25 [fail: http.session.terminated-404]"));
    assert!(
        line_of(&stdout, "ping").starts_with("UNMATCHED"),
        "{stdout}"
    );
    assert!(
        line_of(&stdout, "tools-call-image").starts_with("explained"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not applicable: no prompt fits | no test_image_content | no tool fits")
    );
    assert!(
        line_of(&stdout, "no-such-official").starts_with("UNMATCHED"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("resources-list"),
        "passed checks are not listed"
    );
    assert!(
        stdout.contains("1 matched, 1 explained, 2 unmatched"),
        "{stdout}"
    );
    assert_eq!(code, Some(1), "unmatched failures fail the comparison");
}

/// An official check that needs a fixture name the target does not list is
/// explained (the fixture is the official suite's contract, not the spec's),
/// and the line names what mcpspec judged on the target's own items.
#[test]
fn an_absent_fixture_explains_a_failure_the_generic_cases_passed() {
    let tmp = support::temp_dir("vs-official-fixture");
    let official = tmp.join("official");
    let failed = |id: &str| json!([{"id": id, "status": "FAILURE", "errorMessage": "not found"}]);
    official_check(&official, "tools-call-image", failed("image"));
    official_check(&official, "ping", failed("ping"));
    let results = json!([
        case("server/tools/call/content-blocks", "2025-11-25", "pass", ""),
        case(
            "server/fixture/tools/image",
            "2025-11-25",
            "not_applicable",
            "tools/list lists 0 item(s) matching {name: \"test_image_content\"}"
        ),
        case("server/lifecycle/ping/operating", "2025-11-25", "pass", ""),
    ]);
    let (code, stdout) = compare(&tmp, results);
    let line = line_of(&stdout, "tools-call-image");
    assert!(line.starts_with("explained"), "{stdout}");
    assert!(
        stdout.contains("the target lacks the official fixture")
            && stdout.contains("server/tools/call/content-blocks@2025-11-25 [pass]"),
        "{stdout}"
    );
    // Without a fixture case, a pass where the official failed stays unmatched.
    assert!(
        line_of(&stdout, "ping").starts_with("UNMATCHED"),
        "{stdout}"
    );
    assert_eq!(code, Some(1));
}

#[test]
fn a_revision_the_target_does_not_offer_explains_every_failure_there() {
    let tmp = support::temp_dir("vs-official-not-offered");
    let official = tmp.join("official");
    official_check(
        &official,
        "ping",
        json!([{"id": "ping", "status": "WARNING", "errorMessage": "no"}]),
    );
    let refused = "the target does not offer 2025-11-25 (refused)";
    let results = json!([
        case(
            "server/lifecycle/ping/operating",
            "2025-11-25",
            "not_applicable",
            refused
        ),
        case(
            "server/tools/list/result-shape",
            "2025-11-25",
            "not_applicable",
            refused
        ),
    ]);
    let (code, stdout) = compare(&tmp, results);
    assert!(
        line_of(&stdout, "ping").starts_with("explained"),
        "{stdout}"
    );
    assert!(stdout.contains(refused), "{stdout}");
    assert_eq!(code, Some(0), "{stdout}");
}
