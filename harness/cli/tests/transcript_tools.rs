//! What users do with transcripts once a run is over (snapshots: `snapshots.rs`), against the real
//! binary and the built-in reference server (the ping scenarios at one
//! version, a few cases, so each run takes well under a second):
//!
//! - `diff A B`: two report directories differ in exactly the cases whose
//!   outcome or normalised transcript changed; two runs of one target do not.
//! - `replay FILE.jsonl`: the answers of a recorded run differ from another
//!   target's, and match the same target's.
//! - `report merge`: the matrix names every case and implementation, and
//!   its HTML is well-formed and self-contained.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");
const FILTER: &str = "server/lifecycle/ping/";
const VERSION: &str = "2025-06-18";
const OPERATING: &str = "server/lifecycle/ping/operating@2025-06-18";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-tt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `mcpspec <args>` with `CI` unset (or set, with `ci`).
fn mcpspec(args: &[&str], ci: bool) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("NO_COLOR", "1");
    if ci {
        cmd.env("CI", "true");
    } else {
        cmd.env_remove("CI");
    }
    cmd.output().expect("mcpspec runs")
}

/// `server` on the ping cases, against the clean reference or a faulty one.
fn server(extra: &[&str], fault: bool, ci: bool) -> Output {
    let mut args = vec!["server", "--filter", FILTER, "--spec-version", VERSION];
    args.extend_from_slice(extra);
    if fault {
        args.extend_from_slice(&[
            "--",
            BIN,
            "reference",
            "server",
            "--fault",
            "ping-non-empty",
        ]);
    }
    mcpspec(&args, ci)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// Report directories, made once for the tests: two clean runs and one faulty run.
fn report_dirs() -> (PathBuf, PathBuf, PathBuf) {
    static DIRS: std::sync::OnceLock<(PathBuf, PathBuf, PathBuf)> = std::sync::OnceLock::new();
    DIRS.get_or_init(|| {
        let root = temp_dir("reports");
        let dirs = (
            root.join("clean-1"),
            root.join("clean-2"),
            root.join("faulty"),
        );
        for (dir, fault) in [(&dirs.0, false), (&dirs.1, false), (&dirs.2, true)] {
            let out = server(&["--report-dir", s(dir)], fault, false);
            let expected = if fault { 1 } else { 0 };
            assert_eq!(out.status.code(), Some(expected), "{}", text(&out));
        }
        dirs
    })
    .clone()
}

fn transcript(dir: &Path, id: &str) -> PathBuf {
    dir.join("transcripts").join(format!("{id}.jsonl"))
}

#[test]
fn diff_shows_exactly_the_cases_that_differ_and_exits_by_it() {
    let (a, b, faulty) = report_dirs();
    let same = mcpspec(&["diff", s(&a), s(&b)], false);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));
    assert!(
        text(&same).contains("0 transcript changed, 4 same"),
        "{}",
        text(&same)
    );

    let d = mcpspec(&["diff", s(&a), s(&faulty), "--color", "never"], false);
    assert_eq!(d.status.code(), Some(1), "{}", text(&d));
    let out = text(&d);
    let changed: Vec<&str> = out.lines().filter(|l| l.starts_with("changed: ")).collect();
    assert!(!changed.is_empty(), "{out}");
    assert!(
        changed
            .iter()
            .any(|l| *l == format!("changed: {OPERATING} (outcome pass → fail, transcript)")),
        "{out}"
    );
    assert!(out.contains("+    \"ok\": true"), "{out}");
    assert!(!out.contains('\x1b'), "--color never");
    let summary = out.lines().last().unwrap();
    assert!(
        summary.starts_with("4 cases in A, 4 in B: 0 only in A, 0 only in B")
            && summary.contains(&format!("{} transcript changed", changed.len())),
        "{summary}"
    );

    let coloured = mcpspec(&["diff", s(&a), s(&faulty), "--color", "always"], false);
    assert!(
        text(&coloured).contains("\x1b[32m+"),
        "--color always beats NO_COLOR"
    );

    let files = mcpspec(
        &[
            "diff",
            s(&transcript(&a, OPERATING)),
            s(&transcript(&b, OPERATING)),
        ],
        false,
    );
    assert_eq!(files.status.code(), Some(0), "{}", text(&files));
    let mixed = mcpspec(&["diff", s(&a), s(&transcript(&b, OPERATING))], false);
    assert_eq!(mixed.status.code(), Some(2), "{}", text(&mixed));
    let missing = mcpspec(&["diff", s(&a), "/nonexistent/dir"], false);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
}

#[test]
fn replay_diffs_the_answers_of_a_recorded_transcript() {
    let root = temp_dir("replay");
    let out = server(&["--report-dir", s(&root)], true, false);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let file = transcript(&root, OPERATING);
    let file = s(&file);

    // The clean reference answers ping differently from the recording.
    let clean = mcpspec(&["replay", file, "--color", "never"], false);
    assert_eq!(clean.status.code(), Some(1), "{}", text(&clean));
    assert!(
        text(&clean).contains("-    \"ok\": true"),
        "{}",
        text(&clean)
    );
    assert!(text(&clean).contains("DIFFERENT"), "{}", text(&clean));

    // The same faulty target answers alike.
    let same = mcpspec(
        &[
            "replay",
            file,
            "--",
            BIN,
            "reference",
            "server",
            "--fault",
            "ping-non-empty",
        ],
        false,
    );
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));

    let bad = root.join("bad.jsonl");
    std::fs::write(&bad, "{\"x\":1}\n").unwrap();
    let bad = mcpspec(&["replay", s(&bad)], false);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
}

/// A well-formedness check of XHTML-style markup: every element closed in
/// order (void elements written `<x />`), attribute values quoted, no
/// bare `<` or `&` in text. Returns the element names in document order.
fn parse_markup(page: &str) -> Result<Vec<String>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = page.strip_prefix("<!DOCTYPE html>\n").ok_or("no doctype")?;
    while let Some(i) = rest.find(['<', '&']) {
        let (before, at) = rest.split_at(i);
        let _ = before;
        if at.starts_with('&') {
            let end = at.find(';').ok_or("bare &")?;
            let entity = &at[1..end];
            if !(["lt", "gt", "amp", "quot", "#39"].contains(&entity)) {
                return Err(format!("unknown entity &{entity};"));
            }
            rest = &at[end + 1..];
            continue;
        }
        let end = at.find('>').ok_or("unclosed tag")?;
        let tag = &at[1..end];
        rest = &at[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
            if open != name {
                return Err(format!("</{name}> closes <{open}>"));
            }
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.is_empty() {
            return Err(format!("bad tag <{tag}>"));
        }
        if tag.matches('"').count() % 2 != 0 {
            return Err(format!("unbalanced quotes in <{tag}>"));
        }
        names.push(name.clone());
        if !tag.ends_with('/') {
            if name == "style" {
                let close = rest.find("</style>").ok_or("unclosed style")?;
                rest = &rest[close + "</style>".len()..];
                continue;
            }
            stack.push(name);
        }
    }
    if stack.is_empty() {
        Ok(names)
    } else {
        Err(format!("unclosed: {stack:?}"))
    }
}

#[test]
fn report_merge_builds_a_matrix_of_implementations_and_cases() {
    let (a, _, faulty) = report_dirs();
    let out_dir = temp_dir("matrix");
    let merged = mcpspec(
        &["report", "merge", s(&a), s(&faulty), "--out", s(&out_dir)],
        false,
    );
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged));
    assert!(
        text(&merged).contains("(clean-1, faulty)"),
        "{}",
        text(&merged)
    );

    let md = std::fs::read_to_string(out_dir.join("matrix.md")).unwrap();
    assert!(md.contains("| case | clean-1 | faulty |"), "{md}");
    assert!(
        md.contains(&format!("| `{OPERATING}` ≠ | ✅ pass | ❌ fail |")),
        "{md}"
    );
    assert!(md.contains("2 implementations, 4 cases"), "{md}");

    let page = std::fs::read_to_string(out_dir.join("matrix.html")).unwrap();
    let names = parse_markup(&page).unwrap_or_else(|e| panic!("{e}\n{page}"));
    assert!(!names
        .iter()
        .any(|n| n == "script" || n == "link" || n == "img"));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "self-contained"
    );
    let matrix = &page[page.find("<table id=\"matrix\">").expect("the matrix")..];
    let rows: Vec<&str> = matrix
        .split("<tr class=")
        .skip(1)
        .map(|r| &r[..r.find("</tr>").unwrap()])
        .collect();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(
            r.matches("<td").count(),
            3,
            "a case and two implementations: {r}"
        );
    }
    let op = rows
        .iter()
        .find(|r| r.contains(&format!("data-case=\"{OPERATING}\"")))
        .expect("the operating case");
    assert!(op.starts_with("\"differs\""), "{op}");
    assert!(
        op.contains("class=\"pass\"") && op.contains("class=\"fail\""),
        "{op}"
    );

    let bad = mcpspec(
        &["report", "merge", s(&out_dir), "--out", s(&out_dir)],
        false,
    );
    assert_eq!(bad.status.code(), Some(2), "no report.json: {}", text(&bad));
}
