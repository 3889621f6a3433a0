//! Installing mcpspec without a Rust toolchain: `packaging/build.py` wraps
//! this build's binary into a Python wheel and into npm packages; each is
//! installed with one command into a fresh venv or a fresh npm project (from
//! the files, no registry), and the installed `mcpspec` runs the built-in
//! reference suite (exit 0) and reports a faulty server (exit 1).
//!
//! Needs `python3` (with venv) and `npm`; without them the test is skipped
//! with a note, and fails when `CI=true`.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{temp_dir, BIN};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is needed for the packaging tests under CI=true"
        );
        eprintln!("note: {tool} not found; packaging test skipped");
    }
    ok
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn build(kind: &str, out: &Path) -> Vec<PathBuf> {
    let printed = run(Command::new("python3")
        .arg(root().join("packaging/build.py"))
        .args([kind, "--binary", BIN, "--out"])
        .arg(out));
    String::from_utf8_lossy(&printed.stdout)
        .lines()
        .map(PathBuf::from)
        .collect()
}

/// The installed `mcpspec` (run as `mcpspec`) runs the reference suite and
/// judges a faulty server (the installed `exe` with a fault).
fn check_installed(mcpspec: &[&str], exe: &Path, dir: &Path) {
    let cmd = |extra: &[&str]| {
        let mut c = Command::new(mcpspec[0]);
        c.args(&mcpspec[1..]).args(extra).current_dir(dir);
        c
    };
    let version = run(&mut cmd(&["--version"]));
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("mcpspec "));
    let filter = ["server", "--filter", "server/lifecycle/ping/operating"];
    let clean = cmd(&filter).output().expect("runs");
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&clean.stdout),
        String::from_utf8_lossy(&clean.stderr)
    );
    assert!(String::from_utf8_lossy(&clean.stdout).contains(" passed, 0 failed"));
    // The installed binary also serves as the reference (with a fault).
    let faulty = cmd(&filter)
        .arg("--")
        .arg(exe)
        .args(["reference", "server"])
        .args(["--fault", "ping-non-empty"])
        .output()
        .expect("runs");
    assert_eq!(faulty.status.code(), Some(1));
}

#[test]
fn pip_install_of_the_wheel_puts_a_working_mcpspec_on_path() {
    if !have("python3") {
        return;
    }
    let dir = temp_dir("packaging-wheel");
    let wheels = build("wheel", &dir.join("dist"));
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    let name = wheels[0]
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    assert!(
        name.as_deref()
            .is_some_and(|n| n.starts_with("mcpspec-") && n.contains("-py3-none-manylinux_2_")),
        "{name:?}"
    );
    let venv = dir.join("venv");
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "-q", "--no-index", "--no-cache-dir"])
        .arg(&wheels[0]));
    let exe = venv.join("bin/mcpspec");
    check_installed(&[exe.to_str().expect("utf-8")], &exe, &dir);
}

#[test]
fn npm_install_of_the_packages_gives_a_working_npx_mcpspec() {
    if !have("npm") {
        return;
    }
    let dir = temp_dir("packaging-npm");
    let tarballs = build("npm", &dir.join("dist"));
    assert_eq!(tarballs.len(), 2, "{tarballs:?}");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).expect("project dir");
    std::fs::write(
        project.join("package.json"),
        r#"{ "name": "an-mcp-server", "version": "1.0.0", "private": true }"#,
    )
    .expect("package.json");
    run(Command::new("npm")
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "-D",
        ])
        .args(&tarballs)
        .current_dir(&project));
    let launcher = project.join("node_modules/.bin/mcpspec");
    assert!(launcher.exists(), "no node_modules/.bin/mcpspec");
    // npx runs the launcher, which runs the platform package's binary.
    check_installed(
        &["npx", "--offline", "--no-install", "mcpspec"],
        &launcher,
        &project,
    );
}
