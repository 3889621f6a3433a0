//! Continuous fuzzing on existing infrastructure: `.clusterfuzzlite/build.sh`
//! (the script ClusterFuzzLite and OSS-Fuzz run) builds every cargo-fuzz
//! target of `fuzz/` into `$OUT` with its seed corpus and dictionary, and
//! each built fuzzer runs over its seeds with its dictionary (libFuzzer
//! refuses a malformed one). Here on stable Rust: `FUZZ_SANITIZER=none`,
//! `FUZZ_PROFILE=dev`.
//!
//! Needs `cargo fuzz` (`cargo install cargo-fuzz --locked`; `.ci/run`
//! installs it); without it the build is skipped with a note, and fails
//! when `CI=true`. The dictionaries are checked either way.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::temp_dir;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `[[bin]]` targets of fuzz/Cargo.toml.
fn targets() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).expect("fuzz/Cargo.toml");
    text.split("[[bin]]")
        .skip(1)
        .filter_map(|bin| {
            let line = bin.lines().find(|l| l.trim_start().starts_with("name"))?;
            Some(line.split('"').nth(1)?.to_owned())
        })
        .collect()
}

/// A libFuzzer dictionary line's value, decoded (`None`: malformed).
fn entry(line: &str) -> Option<Vec<u8>> {
    let (name, rest) = line.split_once('=')?;
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let body = rest.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = Vec::new();
    let mut bytes = body.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' => match bytes.next()? {
                b'\\' => out.push(b'\\'),
                b'"' => out.push(b'"'),
                b'x' => {
                    let hex = [bytes.next()?, bytes.next()?];
                    out.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
                }
                _ => return None,
            },
            b'"' => return None,
            b => out.push(b),
        }
    }
    (!out.is_empty()).then_some(out)
}

#[test]
fn every_target_has_a_seed_corpus_and_a_wellformed_dictionary() {
    let targets = targets();
    assert_eq!(targets.len(), 5, "{targets:?}");
    for t in &targets {
        let corpus = root().join("fuzz/corpus").join(t);
        assert!(
            std::fs::read_dir(&corpus).is_ok_and(|d| d.count() > 0),
            "no seeds in {}",
            corpus.display()
        );
        let dict = std::fs::read_to_string(root().join(format!("fuzz/dict/{t}.dict")))
            .unwrap_or_else(|e| panic!("fuzz/dict/{t}.dict: {e}"));
        let mut n = 0;
        for (i, line) in dict.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            assert!(
                entry(line).is_some(),
                "fuzz/dict/{t}.dict:{}: {line}",
                i + 1
            );
            n += 1;
        }
        assert!(n >= 5, "fuzz/dict/{t}.dict has {n} entries");
    }
    assert_eq!(entry(r#"a="\x00\"\\b""#), Some(vec![0, b'"', b'\\', b'b']));
    assert_eq!(entry(r#"a="\q""#), None);
}

#[test]
fn build_sh_builds_every_target_with_its_corpus_and_dictionary() {
    let has_cargo_fuzz = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_cargo_fuzz {
        assert!(
            std::env::var_os("CI").is_none(),
            "cargo-fuzz is needed under CI=true (.ci/run installs it)"
        );
        eprintln!("note: cargo-fuzz not found; the ClusterFuzzLite build is not tried");
        return;
    }
    let out = temp_dir("clusterfuzzlite");
    let built = Command::new("bash")
        .arg(root().join(".clusterfuzzlite/build.sh"))
        .current_dir(root())
        .env("OUT", &out)
        .env("FUZZ_SANITIZER", "none")
        .env("FUZZ_PROFILE", "dev")
        .output()
        .expect("bash runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    for t in targets() {
        for file in [
            t.clone(),
            format!("{t}_seed_corpus.zip"),
            format!("{t}.dict"),
        ] {
            assert!(out.join(&file).is_file(), "no {file} in $OUT");
        }
        // A fresh directory first: libFuzzer writes what it finds there.
        let found = out.join(format!("found-{t}"));
        std::fs::create_dir_all(&found).expect("dir");
        // Its log goes to a file: a pipe left unread could fill and stall it.
        let log_path = out.join(format!("{t}.log"));
        let log = std::fs::File::create(&log_path).expect("log file");
        let mut child = Command::new(out.join(&t))
            .arg(format!("-dict={}", out.join(format!("{t}.dict")).display()))
            .args(["-runs=300", "-max_len=4096", "-rss_limit_mb=2048"])
            .arg(&found)
            .arg(root().join("fuzz/corpus").join(&t))
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .spawn()
            .expect("the fuzzer starts");
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait") {
                break s;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{t}: the fuzzer did not finish 300 runs in 120 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let err = std::fs::read_to_string(&log_path).unwrap_or_default();
        assert!(status.success(), "{t}: {err}");
        assert!(
            err.contains("Dictionary: "),
            "{t}: the dictionary was not loaded: {err}"
        );
    }
    // The fuzz binaries weigh ~170 MB: a passing run leaves none behind (a
    // failing one keeps them, with the logs, for a look).
    let _ = std::fs::remove_dir_all(&out);
}
