//! The requirement catalogue as users and CI see it: `mcpspec coverage`,
//! `mcpspec list --requirements`, scenario files naming unknown ids, and the
//! committed per-version data files `schema/requirements/<version>.json`;
//! and the guard that source code names requirements only through
//! `mcpspec_engine::ids`, never by a string literal.
//!
//! The data files are generated from the catalogue and the embedded corpus;
//! when they are stale, regenerate them with
//! `MCPSPEC_BLESS=1 cargo test -p mcpspec --test requirements`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcpspec_engine::catalogue::static_name;
use mcpspec_engine::Version;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");
const BLESS: &str = "MCPSPEC_BLESS=1 cargo test -p mcpspec --test requirements";

fn mcpspec(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("mcpspec runs")
}

fn stdout_json(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-req-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn coverage_json_has_every_version_with_exactly_the_documented_keys() {
    let doc = stdout_json(&mcpspec(&["coverage", "--json"]));
    let doc = doc.as_object().expect("an object");
    let versions: Vec<&str> = doc.keys().map(String::as_str).collect();
    assert_eq!(
        versions,
        Version::ALL.map(|v| v.as_str()),
        "one key per version, oldest first"
    );
    const COUNTS: [&str; 5] = [
        "must_covered",
        "must_total",
        "should_covered",
        "should_total",
        "excluded",
    ];
    for (version, c) in doc {
        let c = c.as_object().expect("counts");
        let keys: Vec<&str> = c.keys().map(String::as_str).collect();
        // Opt-in extensions and authorization, where a version has their rules, come apart.
        let core: Vec<&str> = keys
            .iter()
            .copied()
            .filter(|k| *k != "extensions" && *k != "authorization")
            .collect();
        assert_eq!(core, COUNTS, "{version}");
        match c.get("authorization") {
            Some(auth) => {
                let keys: Vec<&str> = auth
                    .as_object()
                    .expect("counts")
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(keys, COUNTS, "{version} authorization");
            }
            None => assert_eq!(version, "2024-11-05", "authorization from 2025-03-26 on"),
        }
        if let Some(ext) = c.get("extensions") {
            for (name, counts) in ext.as_object().expect("extensions by name") {
                let keys: Vec<&str> = counts
                    .as_object()
                    .expect("counts")
                    .keys()
                    .map(String::as_str)
                    .collect();
                assert_eq!(keys, COUNTS, "{version} {name}");
            }
        }
        let n = |k: &str| c[k].as_u64().expect("a count");
        assert!(n("must_covered") <= n("must_total"), "{version}: {c:?}");
        assert!(n("should_covered") <= n("should_total"), "{version}: {c:?}");
        assert!(
            n("must_total") >= 40,
            "{version}: a realistic catalogue has dozens of MUSTs"
        );
        assert!(n("should_total") >= 10, "{version}: {c:?}");
        assert!(n("excluded") >= 1, "{version}: {c:?}");
    }
    // The handshake versions have scenarios; their coverage is not zero.
    for v in Version::HANDSHAKE {
        assert!(doc[v.as_str()]["must_covered"].as_u64() > Some(10), "{v}");
    }
}

/// The 2025-11-25 tasks rules are the opt-in extension `tasks`: counted in
/// its own figure, never in the core one; listed with their extension.
#[test]
fn extension_rules_count_apart_from_the_core() {
    let doc = stdout_json(&mcpspec(&[
        "coverage",
        "--json",
        "--spec-version",
        "2025-11-25",
    ]));
    let tasks = &doc["2025-11-25"]["extensions"]["tasks"];
    let n = |v: &Value, k: &str| v[k].as_u64().expect("a count");
    assert!(n(tasks, "must_total") >= 10, "{doc}");
    assert!(n(tasks, "must_covered") >= 5, "{doc}");
    let docs = stdout_json(&mcpspec(&[
        "list",
        "--requirements",
        "--json",
        "--spec-version",
        "2025-11-25",
    ]));
    let reqs = docs[0]["requirements"].as_array().expect("requirements");
    let must_core = reqs
        .iter()
        .filter(|r| r["level"] == "must" && r.get("excluded").is_none())
        .filter(|r| r.get("profile").is_none() && r.get("extension").is_none())
        .filter(|r| r.get("authorization").is_none())
        .count() as u64;
    assert_eq!(must_core, n(&doc["2025-11-25"], "must_total"), "{doc}");
    let errors = reqs
        .iter()
        .find(|r| r["id"] == "tasks.errors")
        .expect("listed");
    assert_eq!(errors["extension"], "tasks");
    let text = mcpspec(&["coverage", "--spec-version", "2025-11-25"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("opt-in extensions") && text.contains("2025-11-25 tasks"),
        "{text}"
    );
}

/// Authorization rules (OAuth over HTTP) count in their own figure, per
/// role, never in the core one; the text prints them in their own block.
#[test]
fn authorization_rules_count_apart_from_the_core() {
    let n = |v: &Value, k: &str| v[k].as_u64().expect("a count");
    for role in ["server", "client"] {
        let doc = stdout_json(&mcpspec(&["coverage", "--json", "--role", role]));
        let docs = stdout_json(&mcpspec(&["list", "--requirements", "--json"]));
        for d in docs.as_array().expect("documents") {
            let version = d["version"].as_str().expect("version");
            let fits = |r: &&Value| r["role"] == role || r["role"] == "both";
            let reqs: Vec<&Value> = d["requirements"]
                .as_array()
                .expect("requirements")
                .iter()
                .filter(fits)
                .collect();
            let auth_musts = reqs
                .iter()
                .filter(|r| r["level"] == "must" && r.get("excluded").is_none())
                .filter(|r| r.get("authorization").is_some())
                .count() as u64;
            let core_musts = reqs
                .iter()
                .filter(|r| r["level"] == "must" && r.get("excluded").is_none())
                .filter(|r| r.get("profile").is_none() && r.get("extension").is_none())
                .filter(|r| r.get("authorization").is_none())
                .count() as u64;
            assert_eq!(
                core_musts,
                n(&doc[version], "must_total"),
                "{role} {version}"
            );
            if version == "2024-11-05" {
                assert_eq!(auth_musts, 0);
                continue;
            }
            let auth = &doc[version]["authorization"];
            assert_eq!(auth_musts, n(auth, "must_total"), "{role} {version}: {doc}");
            assert!(auth_musts >= 5, "{role} {version}: {auth}");
        }
        let text = mcpspec(&["coverage", "--role", role]);
        let text = String::from_utf8_lossy(&text.stdout);
        let block = text.find("authorization (HTTP)").expect("the block");
        assert!(text[block..].contains("2026-07-28"), "{text}");
    }
}

/// `--role` splits the figure: each role counts its own requirements and
/// those binding either side, so each role's total is within the whole and
/// the two together cover it (the shared ones twice).
#[test]
fn coverage_splits_by_role() {
    let whole = stdout_json(&mcpspec(&["coverage", "--json"]));
    let server = stdout_json(&mcpspec(&["coverage", "--json", "--role", "server"]));
    let client = stdout_json(&mcpspec(&["coverage", "--json", "--role", "client"]));
    let n = |doc: &Value, v: &str, key: &str| doc[v][key].as_u64().expect("a count");
    for v in ["2024-11-05", "2025-11-25", "2026-07-28"] {
        for key in ["must_total", "should_total", "must_covered"] {
            let (w, s, c) = (n(&whole, v, key), n(&server, v, key), n(&client, v, key));
            assert!(
                s < w && c < w,
                "{v} {key}: server {s}, client {c}, whole {w}"
            );
            assert!(s + c >= w, "{v} {key}: server {s} + client {c} < whole {w}");
        }
    }
    let text = mcpspec(&["coverage", "--role", "client"]);
    assert!(String::from_utf8_lossy(&text.stdout).starts_with("client requirements"));
}

#[test]
fn coverage_respects_spec_version_and_prints_a_table() {
    let doc = stdout_json(&mcpspec(&[
        "coverage",
        "--json",
        "--spec-version",
        "2025-03-26",
    ]));
    assert_eq!(doc.as_object().map(|o| o.len()), Some(1));
    assert!(doc["2025-03-26"].is_object());
    let out = mcpspec(&["coverage"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for v in Version::ALL {
        assert!(text.contains(v.as_str()), "{text}");
    }
    assert!(
        text.contains("MUST") && text.contains("not yet covered"),
        "{text}"
    );
}

#[test]
fn list_requirements_names_the_scenarios_behind_an_id() {
    let docs = stdout_json(&mcpspec(&[
        "list",
        "--requirements",
        "--json",
        "--spec-version",
        "2025-06-18",
        "--filter",
        "ping.",
    ]));
    let docs = docs.as_array().expect("one document per version");
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0]["version"], "2025-06-18");
    let reqs = docs[0]["requirements"].as_array().expect("requirements");
    let ping = reqs
        .iter()
        .find(|r| r["id"] == "ping.respond")
        .expect("ping.respond listed");
    assert_eq!(ping["level"], "must");
    assert_eq!(ping["role"], "both");
    assert!(ping["url"]
        .as_str()
        .is_some_and(|u| u.contains("/2025-06-18/") && u.contains('#')));
    let scenarios = ping["scenarios"].as_array().expect("scenarios behind it");
    assert!(scenarios.iter().any(|s| s
        .as_str()
        .is_some_and(|s| s.starts_with("server/lifecycle/ping/"))));

    let human = mcpspec(&["list", "--requirements", "--spec-version", "2025-06-18"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("scenario: server/lifecycle/ping/"), "{text}");
    assert!(text.contains("not yet covered"), "{text}");
    assert!(
        text.contains("excluded: credentials taken from the environment never cross the wire"),
        "{text}"
    );
    assert!(
        text.contains("oracle: the oracle judges every message"),
        "{text}"
    );
}

#[test]
fn removed_methods_are_not_listed_for_the_stateless_version() {
    let docs = stdout_json(&mcpspec(&[
        "list",
        "--requirements",
        "--json",
        "--spec-version",
        "2026-07-28",
    ]));
    let ids: Vec<&str> = docs[0]["requirements"]
        .as_array()
        .expect("requirements")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(ids.contains(&"stateless.discover.implemented"));
    assert!(ids.contains(&"stateless.version.unsupported"));
    for gone in [
        "ping.respond",
        "lifecycle.initialize.result-shape",
        "logging.set-level.result",
    ] {
        assert!(!ids.contains(&gone), "{gone} listed for 2026-07-28");
    }
}

fn write_scenario(dir: &Path, body: &str) -> PathBuf {
    let file = dir.join("server/demo/bogus.yaml");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("dirs");
    std::fs::write(&file, body).expect("write");
    file
}

#[test]
fn a_scenario_naming_an_unknown_requirement_is_located_and_exits_2() {
    let dir = temp_dir("unknown");
    write_scenario(
        &dir,
        "id: server/demo/bogus\ntitle: Bogus\nrequirements: [ping.respond, ping.respnd]\nlevel: must\nsteps:\n  - send: { method: ping }\n    expect: { result: {} }\n",
    );
    for command in [&["list"][..], &["coverage"], &["server", "--list"]] {
        let mut args = command.to_vec();
        args.extend(["--scenarios", dir.to_str().expect("utf-8")]);
        let out = mcpspec(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {err}");
        assert!(
            err.contains("bogus.yaml:3:30"),
            "{command:?}: no file:line:col in {err}"
        );
        assert!(
            err.contains("unknown requirement id \"ping.respnd\""),
            "{err}"
        );
        assert!(err.contains("did you mean \"ping.respond\""), "{err}");
    }
}

#[test]
fn a_step_requirement_outside_the_scenario_versions_is_an_error() {
    let dir = temp_dir("range");
    write_scenario(
        &dir,
        "id: server/demo/bogus\ntitle: Bogus\nrequirements: [ping.respond]\nlevel: must\nversions: [\"2024-11-05\"]\nsteps:\n  - send: { method: ping }\n    expect: { result: {} }\n    requirement: tools.output-schema.conform\n",
    );
    let out = mcpspec(&["list", "--scenarios", dir.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bogus.yaml:9:18"), "{err}");
    assert!(err.contains("does not apply to 2024-11-05"), "{err}");
}

#[test]
fn every_requirement_an_embedded_scenario_names_exists_and_applies() {
    let corpus = mcpspec_scenario::Corpus::load(&[]).expect("the embedded corpus loads");
    assert!(!corpus.scenarios.is_empty());
    for s in &corpus.scenarios {
        for id in s.requirement_ids() {
            let r = mcpspec_engine::lookup(&id)
                .unwrap_or_else(|| panic!("{}: unknown requirement {id}", s.id));
            assert!(
                s.versions.iter().any(|v| r.applies_to(*v)),
                "{}: {id} applies to none of its versions",
                s.id
            );
            assert!(
                r.excluded.is_none(),
                "{}: {id} is excluded, yet checked",
                s.id
            );
        }
    }
}

#[test]
fn the_requirement_data_files_are_up_to_date() {
    let docs = stdout_json(&mcpspec(&["list", "--requirements", "--json"]));
    let dir = repo_root().join("schema/requirements");
    let bless = std::env::var_os("MCPSPEC_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for doc in docs.as_array().expect("documents") {
        let version = doc["version"].as_str().expect("version");
        let expected = serde_json::to_string_pretty(doc).expect("printable") + "\n";
        let path = dir.join(format!("{version}.json"));
        let actual = std::fs::read_to_string(&path).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if bless {
            std::fs::create_dir_all(&dir).expect("schema/requirements");
            std::fs::write(&path, expected).expect("write the data file");
        } else {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "out of date: {}; regenerate with `{BLESS}` and commit the result",
        stale.join(", ")
    );
}

#[test]
fn no_source_names_a_requirement_by_a_string_literal() {
    let root = repo_root();
    let ids: HashSet<&str> = mcpspec_engine::catalogue::all().map(|r| r.id).collect();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("harness")).expect("harness/") {
        let src = krate.expect("a crate").path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    rust_files(&root.join("fuzz"), &mut files);
    let mut found = Vec::new();
    let mut scanned = 0;
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let name = rel.rsplit('/').next().unwrap_or_default();
        if rel.starts_with("harness/engine/src/catalogue/")
            || rel.contains("/tests/")
            || name == "tests.rs"
            || name.ends_with("_tests.rs")
        {
            continue;
        }
        scanned += 1;
        let src = std::fs::read_to_string(file).expect("readable source");
        let test_lines = test_only_lines(&src);
        for (line, text) in string_literals(&src) {
            if ids.contains(text.as_str()) && !test_lines.contains(&line) {
                found.push(format!(
                    "{rel}:{line}: \"{text}\" (write ids::{})",
                    static_name(&text)
                ));
            }
        }
    }
    assert!(scanned >= 100, "only {scanned} source files found");
    assert!(
        found.is_empty(),
        "requirement ids as string literals; name them through mcpspec_engine::ids:\n{}",
        found.join("\n")
    );
}

/// Every `.rs` file under `dir`, build output aside.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The 1-based lines of items marked `#[cfg(test)]` at module level: the
/// attribute up to the item's `;`, or to the `}` that closes it at column 0.
fn test_only_lines(src: &str) -> HashSet<usize> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = HashSet::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "#[cfg(test)]" {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < lines.len() && lines[i].starts_with("#[") {
            i += 1;
        }
        if !lines.get(i).is_some_and(|l| l.trim_end().ends_with(';')) {
            while i < lines.len() && lines[i].trim_end() != "}" {
                i += 1;
            }
        }
        out.extend(start + 1..=i + 1);
        i += 1;
    }
    out
}

/// The string literals of Rust source (plain, byte and raw), each with the
/// line it starts on. Enough of Rust's lexer to step over comments, char
/// literals and lifetimes, which may hold a lone `"`.
fn string_literals(src: &str) -> Vec<(usize, String)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(b[i] == b'\n');
                        i += 1;
                    }
                }
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}', 'é') or a lifetime.
                if b.get(i + 1) == Some(&b'\\') {
                    // Past the escaped character, which may be a quote.
                    i += 3;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                } else {
                    let width = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                    i += if b.get(i + 1 + width) == Some(&b'\'') {
                        width + 2
                    } else {
                        1
                    };
                }
            }
            b'r' if i == 0
                || !ident(b[i - 1])
                || (b[i - 1] == b'b' && (i == 1 || !ident(b[i - 2]))) =>
            {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                let open = i + 1 + hashes;
                if b.get(open) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = [b"\"".as_slice(), &vec![b'#'; hashes]].concat();
                let start = open + 1;
                let len = b[start..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .unwrap_or(b.len() - start);
                out.push((line, src[start..start + len].to_owned()));
                line += src[start..start + len].matches('\n').count();
                i = start + len + close.len();
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let j = j.min(b.len());
                out.push((line, src[start..j].to_owned()));
                line += src[start..j].matches('\n').count();
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

#[test]
fn the_literal_scanner_skips_comments_chars_and_test_items() {
    let src = "let c = '\"'; // \"not.this\"\n/* \"nor.this\" */ fn f<'a>(x: &'a str) {}\nlet s = \"one.two\"; let r = r#\"raw \"q\"\"#; let e = '\\'';\n\"three.four\"";
    let got: Vec<(usize, String)> = string_literals(src);
    assert_eq!(
        got,
        [
            (3, "one.two".to_owned()),
            (3, "raw \"q\"".to_owned()),
            (4, "three.four".to_owned()),
        ]
    );
    let lines = test_only_lines("fn a() {}\n#[cfg(test)]\nmod tests;\nfn b() {}\n#[cfg(test)]\nmod t {\n    x\n}\nfn c() {}\n");
    let mut lines: Vec<usize> = lines.into_iter().collect();
    lines.sort_unstable();
    assert_eq!(lines, [2, 3, 5, 6, 7, 8]);
}
