//! The report crate builds without the async stack: it depends on
//! `mcpspec-model`, not on the runner, so `cargo tree -p mcpspec-report -e
//! normal` must name none of tokio, hyper or reqwest (nor their companion
//! crates, `tokio-*`, `hyper-*`). A dependency that brings them back fails
//! here, naming the crates and the path to them (`cargo tree -p
//! mcpspec-report -e normal -i tokio` shows it).
//!
//! The test runs the cargo that runs it (`CARGO`), offline, with a time
//! limit; when cargo cannot be run it fails with the reason, it never skips.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// More than `cargo tree` needs on a slow machine, offline, by far.
const LIMIT: Duration = Duration::from_secs(120);

const BANNED: [&str; 3] = ["tokio", "hyper", "reqwest"];

/// Whether `name` is a banned crate or one of its companions (`tokio-util`).
fn banned(name: &str) -> bool {
    BANNED
        .iter()
        .any(|b| name == *b || name.starts_with(&format!("{b}-")))
}

/// The crate names `cargo tree -p mcpspec-report -e normal` lists.
fn normal_dependencies() -> Vec<String> {
    let cargo = env!("CARGO");
    let mut child = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "mcpspec-report",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run `{cargo} tree` (the cargo that built this test): {e}")
        });
    // Drained on threads so that a full pipe cannot stall cargo.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr is piped")));
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for cargo tree") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`cargo tree` did not finish within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (
        stdout.join().expect("stdout reader"),
        stderr.join().expect("stderr reader"),
    );
    assert!(
        status.success(),
        "`cargo tree` failed ({status}):\n{stderr}"
    );
    stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_report_crate_builds_without_tokio_hyper_or_reqwest() {
    let names = normal_dependencies();
    // The listing was read, and is the one meant: the crate and its model.
    for expected in ["mcpspec-report", "mcpspec-model", "mcpspec-engine"] {
        assert!(
            names.iter().any(|n| n == expected),
            "`cargo tree` does not list {expected}: {names:?}"
        );
    }
    let mut found: Vec<&String> = names.iter().filter(|n| banned(n)).collect();
    found.sort();
    found.dedup();
    assert!(
        found.is_empty(),
        "mcpspec-report depends on {found:?}; reporters must build without the async stack \
         (see `cargo tree -p mcpspec-report -e normal -i {}`)",
        found.first().map_or("tokio", |n| n.as_str())
    );
}

#[test]
fn companion_crates_count_as_banned() {
    assert!(banned("tokio") && banned("tokio-util") && banned("hyper-util"));
    assert!(!banned("tokioish") && !banned("mcpspec-report"));
}
