//! The fuzz corpus on stable: the scenario loader's corpus, and the seeding
//! step that writes every target's seed corpus from the scenario files.
//!
//! - `scenario_corpus_holds_invariants` replays every file of
//!   `fuzz/corpus/scenario/` through the `scenario` fuzz target's checker
//!   (`fuzz/src/scenario.rs`, compiled in here with `#[path]`, so the same
//!   function runs under libFuzzer and in `cargo test`). The wire and engine
//!   corpora run in those crates' own `tests/fuzz_corpus.rs`.
//! - `seed_corpora` with `MCPSPEC_BLESS=1` rewrites the `seed-*` files of
//!   `fuzz/corpus/{framing,jsonrpc,engine,scenario}/` from `scenarios/**/*.yaml`:
//!   the messages each scenario sends (`send`, `notify`, `raw`, `raw_hex`,
//!   `repeat_until`, `discover`), with `${..}` left unrendered, plus a
//!   synthetic answer for each. The output depends only on the scenario files.
//!   Other files (regression inputs the fuzzer found) are left alone.
//!
//! ```sh
//! MCPSPEC_BLESS=1 cargo test -p mcpspec --test fuzz_corpus_scenario
//! ```

#[path = "../../../fuzz/src/scenario.rs"]
mod scenario_check;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use mcpspec_engine::{fuzzing::script, Direction, Version};
use mcpspec_scenario::{RawBytes, SessionMode, StepKind};
use mcpspec_wire::{fuzzing::framing_input, Message};
use serde_json::{json, Value};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus_dir(target: &str) -> PathBuf {
    repo().join("fuzz/corpus").join(target)
}

/// Every file of a corpus directory, sorted by name.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir(target);
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("directory entry").path();
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, fs::read(&path).expect("readable corpus file"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn scenario_corpus_holds_invariants() {
    let files = corpus("scenario");
    assert!(
        files.len() >= 20,
        "the scenario corpus has only {} files",
        files.len()
    );
    let mut failed = Vec::new();
    for (name, data) in &files {
        if std::panic::catch_unwind(|| scenario_check::scenario(data)).is_err() {
            failed.push(name.clone());
        }
    }
    assert!(
        failed.is_empty(),
        "invariants broken by fuzz/corpus/scenario/{failed:?}"
    );
}

#[test]
fn seed_corpora() {
    if std::env::var_os("MCPSPEC_BLESS").is_none() {
        for target in ["framing", "jsonrpc", "engine", "scenario"] {
            let seeds = corpus(target)
                .iter()
                .filter(|(name, _)| name.starts_with("seed-"))
                .count();
            assert!(
                seeds > 0,
                "fuzz/corpus/{target} has no seeds: run with MCPSPEC_BLESS=1"
            );
        }
        return;
    }
    let mut seeds: BTreeMap<&str, Vec<Vec<u8>>> = BTreeMap::new();
    for (i, (rel, text)) in scenario_files().iter().enumerate() {
        seeds
            .entry("scenario")
            .or_default()
            .push(text.clone().into_bytes());
        // Broken variants, so the corpus exercises the errors' locations:
        // the file cut two thirds of the way down, or a step key misspelt.
        if i % 2 == 0 {
            let lines: Vec<&str> = text.lines().collect();
            let cut = lines[..lines.len() * 2 / 3].join("\n");
            seeds.entry("scenario").or_default().push(cut.into_bytes());
        } else {
            let typo = text.replacen("\n  - send:", "\n  - sned:", 1);
            let typo = if typo == *text {
                text.replacen("steps:", "stesp:", 1)
            } else {
                typo
            };
            seeds.entry("scenario").or_default().push(typo.into_bytes());
        }
        let Ok(scenario) = mcpspec_scenario::parse(rel, text) else {
            // Another engineer's work in progress; the text is still a seed.
            continue;
        };
        let script_frames = frames(&scenario);
        if script_frames.is_empty() {
            continue;
        }
        let out: Vec<&Frame> = script_frames
            .iter()
            .filter(|f| f.direction == Direction::Outbound)
            .collect();

        // jsonrpc: every frame on its own; every fourth scenario also as a batch.
        for f in &script_frames {
            seeds.entry("jsonrpc").or_default().push(f.bytes.clone());
        }
        if i % 4 == 0 && out.len() >= 2 {
            let batch: Vec<&[u8]> = out.iter().take(3).map(|f| f.bytes.as_slice()).collect();
            let mut text = b"[".to_vec();
            text.extend_from_slice(&batch.join(&b","[..]));
            text.push(b']');
            seeds.entry("jsonrpc").or_default().push(text);
        }

        // framing: what the harness writes, as one stream, under varied limits and chunkings.
        let mut stream = Vec::new();
        for f in &out {
            stream.extend_from_slice(&f.bytes);
            if f.newline {
                stream.push(b'\n');
            }
        }
        // Limits at the first line's length and one below hit the boundary exactly.
        let first = stream
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(stream.len());
        let first = u8::try_from(first.clamp(2, 127)).expect("at most 127");
        let selectors = [0u8, first, first - 1, 64, 200, 1];
        let spec = |n: usize| u8::try_from(n % 128).expect("below 128");
        let chunks = [spec(i * 7 + 1), 0x80 | spec(i * 13 + 5), spec(i + 2)];
        let take = if i % 3 == 0 { 0 } else { i % 3 + 1 };
        seeds.entry("framing").or_default().push(framing_input(
            selectors[i % selectors.len()],
            &chunks[..take],
            &stream,
        ));

        // engine: the exchange as the harness sees it; every other seed leaves the version unpinned.
        let pinned = scenario.versions.first().copied().filter(|_| i % 2 == 0);
        let mut exchange = Vec::new();
        if scenario.session == SessionMode::Initialized {
            let version = scenario
                .versions
                .first()
                .copied()
                .unwrap_or(Version::LATEST_HANDSHAKE);
            exchange.extend(handshake(version, &scenario.requires.capabilities));
        }
        exchange.extend(script_frames.iter().map(|f| (f.direction, f.bytes.clone())));
        seeds
            .entry("engine")
            .or_default()
            .push(script(pinned, &exchange));
    }
    for (target, files) in &seeds {
        write_seeds(target, files);
    }
}

/// `scenarios/**/*.yaml`, as (path below `scenarios/`, text), sorted.
fn scenario_files() -> Vec<(String, String)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
        for entry in fs::read_dir(dir).expect("readable scenarios folder") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let rel = path
                    .strip_prefix(root)
                    .expect("below the root")
                    .display()
                    .to_string();
                out.push((rel, fs::read_to_string(&path).expect("UTF-8 scenario file")));
            }
        }
    }
    let root = repo().join("scenarios");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

struct Frame {
    direction: Direction,
    bytes: Vec<u8>,
    /// Written with a trailing `\n` (false for `raw_hex`, unless it says otherwise).
    newline: bool,
}

/// The frames a scenario sends, each followed by a plausible answer.
fn frames(s: &mcpspec_scenario::Scenario) -> Vec<Frame> {
    let mut out = Vec::new();
    let mut next_id = 0i64;
    let mut send =
        |out: &mut Vec<Frame>, id: Option<Value>, method: &str, params: Option<Value>| {
            let id = id.unwrap_or_else(|| {
                next_id += 1;
                json!(next_id)
            });
            let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
            if let (Some(p), Value::Object(o)) = (params, &mut m) {
                o.insert("params".into(), p);
            }
            out.push(outbound(m.to_string().into_bytes(), true));
            out.push(inbound(json!({"jsonrpc": "2.0", "id": id, "result": {}})));
        };
    for step in &s.steps {
        match &step.kind {
            StepKind::Send(send_step) => {
                let id = send_step.id.as_ref().map(|t| t.value().clone());
                let params = send_step.params.as_ref().map(|t| t.value().clone());
                send(&mut out, id, &send_step.method, params);
            }
            StepKind::RepeatUntil(r) => {
                let params = r.send.params.as_ref().map(|t| t.value().clone());
                send(&mut out, None, &r.send.method, params);
            }
            StepKind::Discover(d) => send(&mut out, None, &d.list, None),
            StepKind::Notify { method, params } => {
                let m = Message::notification(method, params.as_ref().map(|t| t.value().clone()));
                out.push(outbound(m.to_json().into_bytes(), true));
            }
            StepKind::Raw(raw) => {
                let bytes = match &raw.bytes {
                    RawBytes::Text(text) => text.clone().into_bytes(),
                    RawBytes::Hex(bytes) => bytes.clone(),
                };
                out.push(outbound(bytes, raw.newline));
                if raw.expect.is_some() {
                    out.push(inbound(json!({
                        "jsonrpc": "2.0", "id": null,
                        "error": {"code": -32600, "message": "Invalid Request"}
                    })));
                }
            }
            _ => {}
        }
    }
    out
}

fn outbound(bytes: Vec<u8>, newline: bool) -> Frame {
    Frame {
        direction: Direction::Outbound,
        bytes,
        newline,
    }
}

fn inbound(v: Value) -> Frame {
    Frame {
        direction: Direction::Inbound,
        bytes: v.to_string().into_bytes(),
        newline: true,
    }
}

/// `initialize` (id 0), its result declaring `capabilities`, and `notifications/initialized`.
fn handshake(version: Version, capabilities: &[String]) -> Vec<(Direction, Vec<u8>)> {
    // `resources.subscribe` declares `{"resources": {"subscribe": true}}`.
    let mut caps = json!({});
    for name in capabilities {
        let (head, sub) = name
            .split_once('.')
            .map_or((name.as_str(), None), |(h, s)| (h, Some(s)));
        let entry = &mut caps[head];
        if entry.is_null() {
            *entry = json!({});
        }
        if let Some(sub) = sub {
            entry[sub] = json!(true);
        }
    }
    [
        (
            Direction::Outbound,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version.as_str(), "capabilities": {},
            "clientInfo": {"name": "mcpspec", "version": "0"}}}),
        ),
        (
            Direction::Inbound,
            json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": version.as_str(), "capabilities": caps,
            "serverInfo": {"name": "seed", "version": "0"}}}),
        ),
        (
            Direction::Outbound,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
    ]
    .into_iter()
    .map(|(d, v)| (d, v.to_string().into_bytes()))
    .collect()
}

/// Replaces the `seed-*` files of one corpus, named by a hash of their content.
fn write_seeds(target: &str, files: &[Vec<u8>]) {
    let dir = corpus_dir(target);
    fs::create_dir_all(&dir).expect("corpus folder");
    for (name, _) in corpus(target) {
        if name.starts_with("seed-") {
            fs::remove_file(dir.join(name)).expect("removable seed");
        }
    }
    for data in files {
        let name = format!("seed-{:016x}", fnv1a(data));
        fs::write(dir.join(name), data).expect("writable corpus folder");
    }
}

/// FNV-1a, 64 bits: stable file names for stable content.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
