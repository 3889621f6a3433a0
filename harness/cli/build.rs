//! Build script of the `mcpspec` binary: lays out first the code a run
//! executes (issue #18).
//!
//! The kernel maps a program's code in 64 KiB windows around each page a run
//! touches. The few megabytes a run executes were spread over the whole
//! 14 MB of code, so nearly all of it became resident. `hot-symbols.txt`
//! lists those functions (`scripts/hot-symbols.sh` regenerates it); an ELF
//! linker that takes `--symbol-ordering-file` (LLD, Rust's default linker on
//! x86_64 Linux since 1.90; mold) puts them first, so that mostly their
//! pages become resident (the peak RSS lines of `bench/speed.sh` measure
//! the result).
//!
//! Release builds for Linux pass it, when a trial link with the same
//! compiler, linker and flags accepts the option, so any other set-up builds
//! as before. The names carry hashes of the toolchain, the dependencies and
//! the profile's LTO and codegen settings: the list is made from, and
//! matches, the shipped `--profile dist` build; a plain `--release` build
//! shares few of its names (about 5 %) and gains little. Names the binary
//! does not have are skipped without a warning: a stale list costs memory,
//! never a build. `MCPSPEC_NO_SYMBOL_ORDER=1` turns it off.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=MCPSPEC_NO_SYMBOL_ORDER");
    let var = |name: &str| env::var(name).unwrap_or_default();
    if env::var_os("MCPSPEC_NO_SYMBOL_ORDER").is_some()
        || var("PROFILE") != "release"
        || var("CARGO_CFG_TARGET_OS") != "linux"
    {
        return;
    }
    let list = PathBuf::from(var("CARGO_MANIFEST_DIR")).join("hot-symbols.txt");
    let out = PathBuf::from(var("OUT_DIR"));
    if !list.is_file() || !links_with(&out, &args(&list)) {
        return;
    }
    for arg in args(&list) {
        println!("cargo:rustc-link-arg-bin=mcpspec={arg}");
    }
}

/// The linker arguments.
fn args(list: &Path) -> [String; 2] {
    [
        format!("-Wl,--symbol-ordering-file={}", list.display()),
        "-Wl,--no-warn-symbol-ordering".to_owned(),
    ]
}

/// Whether a trivial program links with `link_args`, built by the same
/// compiler for the same target with the same linker and flags.
fn links_with(out: &Path, link_args: &[String]) -> bool {
    let src = out.join("symbol_order_probe.rs");
    if std::fs::write(&src, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut cmd = Command::new(rustc);
    cmd.arg(&src)
        .arg("--crate-name=symbol_order_probe")
        .arg("--edition=2021")
        .arg("-o")
        .arg(out.join("symbol_order_probe"));
    if let Ok(target) = env::var("TARGET") {
        cmd.arg("--target").arg(target);
    }
    if let Ok(linker) = env::var("RUSTC_LINKER") {
        cmd.arg("-C").arg(format!("linker={linker}"));
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    for arg in link_args {
        cmd.arg("-C").arg(format!("link-arg={arg}"));
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
