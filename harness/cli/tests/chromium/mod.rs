//! Headless Chromium for the report page's tests: the DOM after the page's
//! script ran (`--dump-dom`), and screenshots, both in a 1280×900 window,
//! each bounded in time.
//!
//! Needs `/usr/bin/chromium` (Debian's `chromium` package; `.ci/run`
//! installs it). Without it each call returns `None` after a note, and
//! fails when `CI=true`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const CHROMIUM: &str = "/usr/bin/chromium";
const TIMEOUT: Duration = Duration::from_secs(60);
/// The window: a laptop screen.
pub const WIDTH: u32 = 1280;
pub const HEIGHT: u32 = 900;

/// Whether Chromium can be run (a note when not; a failure under CI).
pub fn available() -> bool {
    if Path::new(CHROMIUM).exists() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{CHROMIUM} is missing: install Debian's chromium package"
    );
    eprintln!("note: {CHROMIUM} not found; the browser check is skipped");
    false
}

fn scratch() -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mcpspec-chromium-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs Chromium on `page` + `query` with `mode` (`--dump-dom`,
/// `--screenshot=…`); its stdout and stderr.
fn run(page: &Path, query: &str, mode: &str, profile: &Path) -> (String, String) {
    let url = format!("file://{}{query}", page.display());
    // Output goes to files, so that a hung browser can be killed.
    let stdout = profile.join("stdout.txt");
    let stderr = profile.join("stderr.txt");
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!(
            "--user-data-dir={}",
            profile.join("profile").display()
        ))
        .arg(mode)
        .arg(&url)
        .current_dir(profile)
        .stdout(std::fs::File::create(&stdout).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr).expect("stderr file"))
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + TIMEOUT;
    while child.try_wait().expect("wait for chromium").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (
        std::fs::read_to_string(&stdout).unwrap_or_default(),
        std::fs::read_to_string(&stderr).unwrap_or_default(),
    )
}

/// The DOM Chromium renders for `page` (with `query`) once its script ran,
/// or `None` when Chromium is not installed.
pub fn dom(page: &Path, query: &str) -> Option<String> {
    if !available() {
        return None;
    }
    let profile = scratch();
    let (dom, stderr) = run(page, query, "--dump-dom", &profile);
    assert!(
        dom.contains("data-rendered=\"true\""),
        "the page's script did not finish:\n{stderr}\n{}",
        &dom[..dom.len().min(2000)]
    );
    Some(dom)
}

/// A PNG screenshot of `page` (with `query`), or `None` without Chromium.
pub fn screenshot(page: &Path, query: &str) -> Option<Vec<u8>> {
    if !available() {
        return None;
    }
    let profile = scratch();
    let png = profile.join("shot.png");
    let (_, stderr) = run(
        page,
        query,
        &format!("--screenshot={}", png.display()),
        &profile,
    );
    Some(std::fs::read(&png).unwrap_or_else(|e| panic!("no screenshot ({e}):\n{stderr}")))
}

/// The width and height in a PNG's header (it must be one).
pub fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(
        png.len() > 24 && png.starts_with(b"\x89PNG\r\n\x1a\n") && &png[12..16] == b"IHDR",
        "not a PNG"
    );
    let be = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    (be(16), be(20))
}

/// The screenshot of an empty white page: what "blank" weighs.
pub fn blank() -> Option<Vec<u8>> {
    let dir = scratch();
    let page = dir.join("blank.html");
    std::fs::write(&page, "<!DOCTYPE html><html><body></body></html>").expect("blank page");
    screenshot(&page, "")
}
