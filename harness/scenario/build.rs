//! Embeds every `scenarios/**/*.yaml` of the repository into the crate:
//! writes `$OUT_DIR/embedded.rs` with one `include_str!` per file, sorted by
//! path, and asks Cargo to rerun when the folder or any file changes.
//!
//! The crate reaches the folder through its own `scenarios` entry, a symlink
//! to the repository's `scenarios/` (`cargo package` follows it, so a
//! packaged crate carries the corpus it embeds).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    // Cargo always sets both variables for build scripts.
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    let dir = manifest.join("scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());

    let mut files = Vec::new();
    match dir.canonicalize() {
        Ok(root) => walk(&root, &root, &mut files),
        Err(_) => println!(
            "cargo:warning=no scenarios folder at {}; embedding none",
            dir.display()
        ),
    }
    files.sort();

    let mut code = String::from(
        "/// (path relative to `scenarios/`, text) of every embedded scenario file.\n",
    );
    code.push_str("static EMBEDDED: &[(&str, &str)] = &[\n");
    for (rel, path) in &files {
        // `{:?}` of a str is a valid Rust string literal.
        let _ = writeln!(
            code,
            "    ({rel:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    if let Err(e) = fs::write(out_dir.join("embedded.rs"), code) {
        // A build script reports failure by panicking; there is no caller to return to.
        panic!("cannot write embedded.rs: {e}");
    }
}

/// Collect `(relative path with '/', absolute path)` of `*.yaml` under `dir`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            println!("cargo:rerun-if-changed={}", path.display());
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, path));
        }
    }
}
