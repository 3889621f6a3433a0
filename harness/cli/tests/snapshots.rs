//! `server --snapshots DIR` and `review DIR`, with the real binary and the
//! built-in reference server (the four ping cases at one version, so each
//! run takes well under a second):
//!
//! - a first run reports its snapshots as *new*: the cases keep their
//!   verdicts, the run exits 0, and a closing line counts them and names
//!   the review command; `--snapshots-strict` or `CI=true` fails them;
//! - `review` not on a terminal lists what is pending (a diff only for a
//!   single match) and changes nothing; `--filter` chooses, `--accept` /
//!   `--reject` apply to what matches; each prints one summary line;
//! - an unchanged target then matches; a changed one fails with a diff;
//! - on a terminal (a pty from util-linux `script`, when installed) the
//!   review shows one case at a time and takes a/r/s answers.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");
const FILTER: &str = "server/lifecycle/ping/";
const VERSION: &str = "2025-06-18";
const OPERATING: &str = "server/lifecycle/ping/operating@2025-06-18";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-snaps-{}-{name}", std::process::id()));
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
    cmd.args(args).env("NO_COLOR", "1").stdin(Stdio::null());
    if ci {
        cmd.env("CI", "true");
    } else {
        cmd.env_remove("CI");
    }
    cmd.output().expect("mcpspec runs")
}

/// `server` on the ping cases, against the clean reference or a faulty one.
fn server(extra: &[&str], fault: bool, ci: bool) -> Output {
    let mut args = vec![
        "server",
        "--filter",
        FILTER,
        "--spec-version",
        VERSION,
        "--no-progress",
    ];
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

fn pending(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".snap.new") {
                out.push(
                    p.strip_prefix(dir)
                        .expect("under dir")
                        .display()
                        .to_string(),
                );
            }
        }
    }
    out.sort();
    out
}

#[test]
fn new_snapshots_are_reported_not_failed_unless_strict_or_ci() {
    let snaps = temp_dir("first");
    let first = server(&["--snapshots", s(&snaps)], false, false);
    let out = text(&first);
    assert_eq!(first.status.code(), Some(0), "{out}");
    assert!(out.contains("4 passed, 0 failed"), "{out}");
    assert!(!out.contains("mcpspec.snapshot"), "{out}");
    assert!(
        out.contains(&format!(
            "snapshots in {}: 0 matched, 4 new (not stored yet; not failures",
            snaps.display()
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "review them one at a time with `mcpspec review {}`",
            snaps.display()
        )),
        "{out}"
    );
    assert_eq!(pending(&snaps).len(), 4);

    // --snapshots-strict: a missing snapshot fails, and is written for review.
    let strict_dir = temp_dir("strict");
    let strict = server(
        &["--snapshots", s(&strict_dir), "--snapshots-strict"],
        false,
        false,
    );
    let out = text(&strict);
    assert_eq!(strict.status.code(), Some(1), "{out}");
    assert!(out.contains("0 passed, 4 failed"), "{out}");
    assert!(out.contains("MUST mcpspec.snapshot"), "{out}");
    assert!(
        out.contains("4 missing (failed: --snapshots-strict)"),
        "{out}"
    );
    assert_eq!(pending(&strict_dir).len(), 4);

    // CI=true: a missing snapshot fails and nothing is written.
    let ci_dir = temp_dir("ci");
    let ci = server(&["--snapshots", s(&ci_dir)], false, true);
    let out = text(&ci);
    assert_eq!(ci.status.code(), Some(1), "{out}");
    assert!(
        out.contains("CI: a missing snapshot fails; no .snap.new written"),
        "{out}"
    );
    assert!(out.contains("4 missing (failed: CI)"), "{out}");
    assert!(pending(&ci_dir).is_empty());
}

#[test]
fn review_filters_accepts_rejects_and_prints_a_summary_not_the_world() {
    let snaps = temp_dir("review");
    let first = server(&["--snapshots", s(&snaps)], false, false);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));

    // Not a terminal, no --accept/--reject: a short list, no diffs, no change.
    let listed = mcpspec(&["review", s(&snaps)], false);
    let listing = text(&listed);
    assert_eq!(listed.status.code(), Some(0), "{listing}");
    assert!(
        listing.contains(&format!("pending (new): {OPERATING} (-0 +")),
        "{listing}"
    );
    assert!(
        !listing.contains("+++ new"),
        "no diff for 4 matches:\n{listing}"
    );
    assert!(
        listing.contains("0 accepted, 0 rejected, 4 skipped; 4 still pending"),
        "{listing}"
    );
    assert!(listing.lines().count() <= 8, "{listing}");
    assert_eq!(pending(&snaps).len(), 4);

    // One match: its diff, with the redacted content.
    let one = mcpspec(&["review", s(&snaps), "--filter", OPERATING], false);
    let shown = text(&one);
    assert!(shown.contains("+++ new ("), "{shown}");
    assert!(
        shown.contains("\"version\": \"[server-version]\""),
        "{shown}"
    );
    assert!(
        shown.contains("0 accepted, 0 rejected, 1 skipped"),
        "{shown}"
    );

    // A filter (glob) chooses what --accept applies to.
    let some = mcpspec(
        &[
            "review",
            s(&snaps),
            "--filter",
            "server/*/operating",
            "--accept",
        ],
        false,
    );
    let out = text(&some);
    assert_eq!(some.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 accepted, 0 rejected, 0 skipped; 3 still pending"),
        "{out}"
    );
    assert!(!pending(&snaps).contains(&format!("{OPERATING}.snap.new")));
    let nothing = mcpspec(&["review", s(&snaps), "--filter", "client/"], false);
    assert!(
        text(&nothing).contains("none of the 3 pending snapshots"),
        "{}",
        text(&nothing)
    );
    let bad = mcpspec(&["review", s(&snaps), "--filter", "[unclosed"], false);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));

    let rest = mcpspec(&["review", s(&snaps), "--accept"], false);
    assert!(
        text(&rest).contains("3 accepted, 0 rejected, 0 skipped\n"),
        "{}",
        text(&rest)
    );
    assert!(pending(&snaps).is_empty());
    let stored = std::fs::read_to_string(snaps.join(format!("{OPERATING}.snap"))).unwrap();
    assert!(stored.starts_with("---\nsource: \"mcpspec\"\n"), "{stored}");

    // An unchanged target matches.
    let again = server(&["--snapshots", s(&snaps)], false, false);
    let out = text(&again);
    assert_eq!(again.status.code(), Some(0), "{out}");
    assert!(out.contains(": 4 matched\n"), "{out}");
    assert!(pending(&snaps).is_empty());

    // A changed target fails with the diff: Expected = stored, Actual = new.
    let changed = server(&["--snapshots", s(&snaps)], true, false);
    let out = text(&changed);
    assert_eq!(changed.status.code(), Some(1), "{out}");
    assert!(out.contains("the transcript stored in"), "{out}");
    assert!(out.contains("-  \"result\": {}"), "{out}");
    assert!(out.contains("+    \"ok\": true"), "{out}");
    assert!(out.contains(": 0 matched, 4 changed (failed)"), "{out}");
    assert!(pending(&snaps).contains(&format!("{OPERATING}.snap.new")));

    // Rejecting drops the pending file; the stored snapshot stays.
    let rejected = mcpspec(&["review", s(&snaps), "--reject"], false);
    assert!(
        text(&rejected).contains("0 accepted, 4 rejected, 0 skipped\n"),
        "{}",
        text(&rejected)
    );
    assert!(pending(&snaps).is_empty());
    assert!(snaps.join(format!("{OPERATING}.snap")).exists());
}

/// `mcpspec review DIR` on a pseudo-terminal (util-linux `script`), typing
/// `answers`; what the terminal showed, or `None` when `script` is missing.
fn review_on_a_terminal(dir: &Path, answers: &str) -> Option<String> {
    let command = format!("'{BIN}' review '{}' --diff-lines 12", dir.display());
    let child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "note: `script` (util-linux) not runnable ({e}); the terminal review is not tested"
            );
            return None;
        }
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answers.as_bytes())
        .expect("answers typed");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the terminal review did not end within 30s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    assert!(out.status.success(), "{}", text(&out));
    Some(String::from_utf8_lossy(&out.stdout).replace('\r', ""))
}

#[test]
fn on_a_terminal_review_asks_one_case_at_a_time() {
    let snaps = temp_dir("tty");
    let first = server(&["--snapshots", s(&snaps)], false, false);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    // Skip the first, a wrong key, reject the second, accept it all from the third.
    let Some(shown) = review_on_a_terminal(&snaps, "s\nx\nr\nA\n") else {
        return;
    };
    assert!(
        shown.contains("[1/4] new: server/lifecycle/ping/before-initialize@2025-06-18\n"),
        "{shown}"
    );
    assert!(shown.contains("[2/4] new: "), "{shown}");
    assert!(shown.contains("\"x\" is not an answer"), "{shown}");
    assert!(shown.contains("[3/4] new: "), "{shown}");
    assert!(!shown.contains("[4/4]"), "accepted unseen: {shown}");
    // Each diff is cut at --diff-lines, with a count.
    assert!(
        shown.contains("more lines of diff not shown; --diff-lines 0 shows all"),
        "{shown}"
    );
    assert!(
        shown.contains("2 accepted, 1 rejected, 1 skipped; 1 still pending"),
        "{shown}"
    );
    assert_eq!(
        pending(&snaps),
        ["server/lifecycle/ping/before-initialize@2025-06-18.snap.new"]
    );
    assert!(!snaps
        .join("server/lifecycle/ping/before-initialized@2025-06-18.snap")
        .exists());
    assert!(snaps.join(format!("{OPERATING}.snap")).exists());
}
