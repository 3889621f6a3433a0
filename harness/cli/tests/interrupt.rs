//! Interactive and interrupted runs of `mcpspec server`, with the real
//! binary:
//!
//! - Ctrl-C (SIGINT) or SIGTERM in the middle of a run ends it promptly
//!   with 130 / 143, kills every target process, and still leaves valid
//!   reports (report.json against the committed schema, junit.xml, the
//!   `--json` file) holding exactly the cases that finished, marked
//!   interrupted;
//! - output that is not a terminal is plain lines (no progress bar, no
//!   escape codes); on a terminal (a pty from `script`, when installed) a
//!   bar is drawn, and `--no-progress` turns it off.
//!
//! The slow target is the reference server behind `sleep 1`, in a shell that
//! also starts a `sleep 300` helper: each writes its pid to a file, and no
//! pid may be alive once mcpspec has exited.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcpspec_report::SCHEMA_PATH;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-int-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A case line of the human report: `  PASS [ 1.012s] <id>`.
fn case_id(line: &str) -> Option<String> {
    let (label, rest) = line.split_once(" [")?;
    if !["PASS", "FAIL", "WARN", "N/A", "ERROR"].contains(&label.trim()) {
        return None;
    }
    let id = rest.split_once("] ")?.1.split(' ').next()?;
    Some(id.to_owned())
}

/// What an interrupted run left.
struct Stopped {
    code: Option<i32>,
    /// From the signal to the exit.
    took: Duration,
    stdout: String,
    /// Case ids printed before the exit.
    printed: BTreeSet<String>,
    dir: PathBuf,
}

/// Runs the lifecycle cases against the slow target, sends `signal` once
/// `after` case lines were printed, and waits for the exit.
fn interrupt(name: &str, signal: i32, after: usize) -> Stopped {
    let dir = temp_dir(name);
    let pids = dir.join("pids");
    let target = format!(
        "echo $$ >> '{p}'; sleep 300 & echo $! >> '{p}'; sleep 1; exec '{BIN}' reference server",
        p = pids.display()
    );
    let mut child: Child = Command::new(BIN)
        .args([
            "server",
            "--spec-version",
            "2025-06-18",
            "--filter",
            "server/lifecycle/",
            "--jobs",
            "2",
            // A line per case, passes too: the test counts them.
            "--status-level",
            "all",
            "--report-dir",
        ])
        .arg(dir.join("reports"))
        .arg("--json")
        .arg(dir.join("out.json"))
        .args(["--", "sh", "-c", &target])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("mcpspec runs");
    let (tx, rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut text = String::new();
    let mut cases = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    while cases < after {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("fewer than {after} cases finished:\n{text}"));
        cases += usize::from(case_id(&line).is_some());
        text.push_str(&line);
        text.push('\n');
    }
    let pid = i32::try_from(child.id()).expect("a pid");
    // SAFETY: kill(2) on our own child's pid; no memory is involved.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill");
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("still running 20s after the signal:\n{text}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = sent.elapsed();
    reader.join().expect("reader");
    text.extend(rx.try_iter().map(|l| l + "\n"));
    let printed = text.lines().filter_map(case_id).collect();
    // Every target and helper is gone (zombies awaiting their reaper count as gone).
    std::thread::sleep(Duration::from_millis(200));
    let list = std::fs::read_to_string(&pids).unwrap_or_default();
    let alive: Vec<&str> = list
        .lines()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                !s.split(") ")
                    .nth(1)
                    .is_some_and(|rest| rest.starts_with('Z'))
            })
        })
        .collect();
    assert!(
        !list.is_empty() && alive.is_empty(),
        "processes left behind: {alive:?} (of {list:?})"
    );
    Stopped {
        code: status.code(),
        took,
        stdout: text,
        printed,
        dir,
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

fn assert_valid(doc: &Value) {
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(SCHEMA_PATH);
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// The ids of a report's results.
fn ids(doc: &Value) -> BTreeSet<String> {
    doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn ctrl_c_stops_the_run_kills_the_targets_and_leaves_valid_reports() {
    let run = interrupt("sigint", libc::SIGINT, 2);
    assert_eq!(run.code, Some(130), "{}", run.stdout);
    assert!(run.took < Duration::from_secs(5), "took {:?}", run.took);
    assert!(
        run.stdout.contains("interrupted (SIGINT)"),
        "{}",
        run.stdout
    );
    // The closing totals count the finished cases; then the reports' path.
    let lines: Vec<&str> = run.stdout.lines().collect();
    let [.., totals, reports_line] = lines[..] else {
        panic!("no closing lines: {}", run.stdout);
    };
    assert!(
        totals.starts_with(&format!("{} passed, ", run.printed.len())),
        "{totals}"
    );
    assert!(reports_line.starts_with("reports: "), "{reports_line}");

    let reports = run.dir.join("reports");
    let doc = read_json(&reports.join("report.json"));
    assert_valid(&doc);
    assert_eq!(doc["interrupted"], true);
    assert_eq!(doc["complete"], false);
    assert_eq!(doc["run"]["interrupted_by"], "SIGINT");
    assert_eq!(doc["run"]["exit_code"], 130);
    // Only the cases that finished, each with its transcript.
    assert_eq!(ids(&doc), run.printed);
    let planned = doc["run"]["planned"].as_u64().expect("planned");
    assert!((run.printed.len() as u64) < planned, "{planned}");
    for r in doc["results"].as_array().expect("results") {
        let rel = r["transcript"].as_str().expect("a transcript path");
        assert!(reports.join(rel).is_file(), "{rel}");
    }

    let xml = std::fs::read_to_string(reports.join("junit.xml")).expect("junit.xml");
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("junit.xml parses");
    assert_eq!(junit.tests, run.printed.len());
    assert!(
        xml.contains(r#"name="interrupted" value="SIGINT""#),
        "{xml}"
    );
    let md = std::fs::read_to_string(reports.join("summary.md")).expect("summary.md");
    assert!(md.starts_with("## mcpspec: interrupted (exit 130)"), "{md}");
    let html = std::fs::read_to_string(reports.join("index.html")).expect("index.html");
    assert!(html.contains("id=\"interrupted\">Interrupted (SIGINT)"));

    let json = read_json(&run.dir.join("out.json"));
    assert_valid(&json);
    assert_eq!(json["interrupted"], true);
    assert_eq!(ids(&json), run.printed);

    // Every file was renamed into place: no temporary left.
    let leftovers: Vec<_> = [run.dir.clone(), reports]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("dir"))
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn sigterm_stops_the_run_with_143() {
    let run = interrupt("sigterm", libc::SIGTERM, 1);
    assert_eq!(run.code, Some(143), "{}", run.stdout);
    assert!(run.took < Duration::from_secs(5), "took {:?}", run.took);
    let doc = read_json(&run.dir.join("reports/report.json"));
    assert_valid(&doc);
    assert_eq!(doc["run"]["interrupted_by"], "SIGTERM");
    assert_eq!(doc["run"]["exit_code"], 143);
    assert_eq!(ids(&doc), run.printed);
}

/// The ping cases against the reference server, output piped.
fn quick_run(extra: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args([
            "server",
            "--spec-version",
            "2025-06-18",
            "--filter",
            "server/lifecycle/ping/",
        ])
        .args(extra)
        .output()
        .expect("mcpspec runs")
}

#[test]
fn output_that_is_not_a_terminal_has_no_progress_bar() {
    for extra in [&[][..], &["--no-progress"][..]] {
        let out = quick_run(extra);
        assert_eq!(out.status.code(), Some(0));
        for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.contains('\x1b') && !text.contains('\r'),
                "{name} has terminal control codes: {text:?}"
            );
            assert!(!text.contains(" cases · "), "{name} has a bar: {text}");
        }
    }
}

/// `command` run on a pseudo-terminal by util-linux `script`; what the
/// terminal showed, or `None` when `script` is not installed.
fn on_a_terminal(command: &str) -> Option<String> {
    let out = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        Ok(out) => panic!("script failed: {out:?}"),
        Err(e) => {
            eprintln!(
                "note: `script` (util-linux) not runnable ({e}); the terminal check is skipped"
            );
            None
        }
    }
}

#[test]
fn a_terminal_gets_a_progress_bar_unless_no_progress() {
    let cmd = format!("'{BIN}' server --spec-version 2025-06-18 --filter server/lifecycle/ping/");
    let Some(shown) = on_a_terminal(&cmd) else {
        return;
    };
    assert!(shown.contains("/4 cases · "), "{shown:?}");
    assert!(shown.contains("4 passed, 0 failed"), "{shown:?}");
    let Some(plain) = on_a_terminal(&format!("{cmd} --no-progress")) else {
        return;
    };
    assert!(!plain.contains(" cases · "), "{plain:?}");
    assert!(plain.contains("4 passed, 0 failed"), "{plain:?}");
}
