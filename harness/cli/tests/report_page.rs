//! The HTML report opens on the problem, checked in a real headless
//! Chromium (1280×900): the verdict and the rollup of broken requirements
//! in the first window, the area × version matrix with the failing areas
//! open, failures on top of the case list, and `index.html?case=<id>`
//! landing with the case's badge and id below the sticky header — in the
//! DOM after the page's script ran, and in a screenshot that is not blank
//! (a page that scrolled itself at load used to screenshot blank).
//!
//! The failing run is the reference server with its pagination-loop fault
//! (SHOULD warnings, and the cases the loop blocks) and its ping-non-empty
//! fault (MUST failures); a page of blocked cases alone and one of a run in
//! which no case could run are written from events. Without `/usr/bin/chromium` the
//! browser checks are skipped with a note (they fail when `CI=true`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use mcpspec_engine::{Level, Version};
use mcpspec_report::ReportDir;
use mcpspec_runner::{CaseResult, Event, Finding, FindingSource, Outcome, Reporter, Summary};
use serde_json::Value;

mod chromium;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-page-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// One failing run, shared: tools, pagination and ping cases against a
/// server whose listings never end.
fn run_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = temp_dir("run").join("reports");
        let out = Command::new(BIN)
            .args(["server", "--no-progress"])
            .args([
                "--filter",
                "server/tools/",
                "--filter",
                "server/pagination/",
            ])
            .args(["--filter", "server/lifecycle/ping/", "--report-dir"])
            .arg(&dir)
            .args([
                "--",
                BIN,
                "reference",
                "server",
                "--fault",
                "pagination-loop",
                // A MUST beside the SHOULD the loop is (what it blocks weighs
                // a SHOULD): the run fails, and the page leads with that.
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
    serde_json::from_str(&text).expect("JSON")
}

/// The start tag of the element with `id` in `dom`.
fn tag_of<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element {id}"));
    let start = dom[..at].rfind('<').expect("tag start");
    let end = at + dom[at..].find('>').expect("tag end");
    &dom[start..=end]
}

/// A screenshot is a 1280×900 PNG that weighs more than a blank page's.
fn assert_not_blank(png: &[u8], what: &str) {
    assert_eq!(
        chromium::png_size(png),
        (chromium::WIDTH, chromium::HEIGHT),
        "{what}"
    );
    let blank = chromium::blank().expect("chromium ran before");
    assert!(
        png.len() > 5 * blank.len(),
        "{what}: the screenshot ({} bytes) is about as empty as a blank page ({} bytes)",
        png.len(),
        blank.len()
    );
}

#[test]
fn the_page_opens_on_the_verdict_and_the_rollup() {
    let doc = report();
    let worst = doc["rollup"][0]["requirement"]
        .as_str()
        .expect("a broken requirement")
        .to_owned();
    assert_eq!(doc["rollup"][0]["level"], "must", "{}", doc["rollup"]);
    let html = std::fs::read_to_string(run_dir().join("index.html")).expect("index.html");
    // Written into the page, in this order: verdict, rollup, matrix, cases.
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("no {needle}"));
    assert!(at("id=\"verdict\">not conforming · exit 1<") < at("id=\"rollup\""));
    assert!(at("id=\"rollup\"") < at("id=\"matrix\"") && at("id=\"matrix\"") < at("id=\"cases\""));
    assert!(html.contains(&format!("<tr id=\"req-{worst}\" class=\"l-must\">")));
    assert!(html.contains("<details class=\"area\" data-area=\"tools\" open>"));

    let Some(dom) = chromium::dom(&run_dir().join("index.html"), "") else {
        return;
    };
    assert!(
        tag_of(&dom, "rollup").contains("data-in-view=\"true\""),
        "the rollup starts in the first window: {}",
        tag_of(&dom, "rollup")
    );
    // The case list leads with the failures, not with alphabetical passes.
    let list = &dom[dom.find("id=\"cases\"").expect("the list")..];
    let first = &list[list.find("<details").expect("a case")..];
    assert!(
        first.starts_with("<details class=\"case\" id=\"case-")
            && first.contains("data-outcome=\"fail\""),
        "{}",
        &first[..first.len().min(300)]
    );
    let png = chromium::screenshot(&run_dir().join("index.html"), "").expect("chromium ran");
    assert_not_blank(&png, "the page");
}

#[test]
fn a_case_link_lands_with_the_case_in_view() {
    let doc = report();
    // A failing case that sorts late: the list alone would put it far down.
    let id = doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .rev()
        .find(|r| r["outcome"] == "fail")
        .expect("a failure")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let page = run_dir().join("index.html");
    let query = format!("?case={id}");
    let Some(dom) = chromium::dom(&page, &query) else {
        return;
    };
    let tag = tag_of(&dom, &format!("case-{id}"));
    assert!(
        tag.contains("data-landed=\"in-view\"") && tag.contains("open"),
        "{tag}"
    );
    let row = &dom[dom.find(tag).expect("the case")..];
    let summary = &row[..row.find("</summary>").expect("its summary")];
    assert!(
        summary.contains("class=\"badge o-fail\">FAIL<"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("class=\"id\">{id}<")),
        "{summary}"
    );
    // Landed at the top, above the rollup, expanded.
    assert!(dom.find("id=\"focus\"") < dom.find(tag) && dom.find(tag) < dom.find("id=\"rollup\""));
    assert!(row.contains("<table class=\"transcript\">"));

    let png = chromium::screenshot(&page, &query).expect("chromium ran");
    assert_not_blank(&png, "the landed page");
}

fn blocked(scenario: &str) -> CaseResult {
    CaseResult {
        id: format!("{scenario}@2025-06-18"),
        scenario: scenario.into(),
        title: "A tool's title is a string".into(),
        version: Version::V2025_06_18,
        level: Level::Must,
        requirements: vec!["tools.title.type".into()],
        outcome: Outcome::Blocked {
            by: "pagination.cursor.terminates".into(),
            level: Level::Should,
        },
        findings: vec![Finding {
            requirement: "pagination.cursor.terminates".into(),
            level: Level::Should,
            spec_url: "https://modelcontextprotocol.io/specification/2025-06-18/server/utilities/pagination".into(),
            summary: "Paging ends.".into(),
            expected: vec!["the listing ends within 50 pages".into()],
            actual: "tools/list still returned a cursor after 50 pages".into(),
            location: None,
            source: FindingSource::Step,
        }],
        duration: Duration::from_millis(2),
        transcript: Vec::new(),
    }
}

/// Writes a report directory from `events`.
fn write(name: &str, events: Vec<Event>) -> PathBuf {
    let dir = temp_dir(name);
    let mut reports = ReportDir::create(dir.clone(), false, None).expect("created");
    for e in &events {
        reports.event(e);
    }
    assert!(reports.errors.is_empty(), "{:?}", reports.errors);
    dir
}

#[test]
fn blocked_cases_point_at_what_blocked_them() {
    let cases = [
        blocked("server/tools/list/title"),
        blocked("server/tools/list/unique-names"),
    ];
    let mut summary = Summary::default();
    let mut events = vec![Event::RunStarted {
        target: "srv".into(),
        cases: 2,
        jobs: 1,
    }];
    for c in cases {
        summary.add(&c.outcome);
        events.push(Event::CaseFinished(Box::new(c)));
    }
    events.push(Event::RunFinished {
        summary,
        wall: Duration::from_millis(5),
        strict: false,
    });
    let dir = write("blocked", events);
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    // The rollup row counts them as blocked, once, at the blocking requirement.
    let row = &html[html
        .find("<tr id=\"req-pagination.cursor.terminates\"")
        .expect("row")..];
    let row = &row[..row.find("</tr>").expect("row end")];
    assert!(
        row.contains(
            "<td class=\"n zero\">0</td><td class=\"n zero\">0</td><td class=\"n\">2</td>"
        ),
        "{row}"
    );
    assert!(
        !html.contains("req-tools.title.type"),
        "never a failure of their own"
    );
    let Some(dom) = chromium::dom(&dir.join("index.html"), "") else {
        return;
    };
    let case = &dom[dom
        .find("id=\"case-server/tools/list/title@2025-06-18\"")
        .expect("case")..];
    let summary = &case[..case.find("</summary>").expect("summary")];
    assert!(
        summary.contains("class=\"badge o-blocked\">BLOCKED<"),
        "{summary}"
    );
    assert!(
        summary.contains("blocked by pagination.cursor.terminates"),
        "{summary}"
    );
}

#[test]
fn a_run_in_which_nothing_could_run_shows_why_first() {
    let summary = Summary {
        unavailable: Some("the target negotiated no version".into()),
        ..Summary::default()
    };
    let dir = write(
        "unavailable",
        vec![
            Event::RunStarted {
                target: "http://127.0.0.1:1/mcp".into(),
                cases: 500,
                jobs: 1,
            },
            Event::Probe {
                version: Version::V2025_06_18,
                supported: false,
                detail: "connection refused".into(),
            },
            Event::RunFinished {
                summary,
                wall: Duration::from_millis(5),
                strict: false,
            },
        ],
    );
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    let banner = html.find("id=\"unavailable\"").expect("the banner");
    assert!(html.find("</header>") < Some(banner) && Some(banner) < html.find("id=\"focus\""));
    assert!(html.contains("<p class=\"reason\">the target negotiated no version</p>"));
    assert!(html.contains("<td>2025-06-18</td><td>not offered: connection refused</td>"));
    assert!(html.contains("id=\"verdict\">nothing could be judged · exit 3<"));
    let Some(dom) = chromium::dom(&dir.join("index.html"), "") else {
        return;
    };
    assert!(dom.contains("No case could run"));
    let png = chromium::screenshot(&dir.join("index.html"), "").expect("chromium ran");
    assert_eq!(
        chromium::png_size(&png),
        (chromium::WIDTH, chromium::HEIGHT)
    );
}
