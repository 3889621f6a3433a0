//! The requirement catalogue as users and CI see it: `mcpspec coverage`,
//! `mcpspec list --requirements`, scenario files naming unknown ids, and the
//! committed per-version data files `schema/requirements/<version>.json`.
//!
//! The data files are generated from the catalogue and the embedded corpus;
//! when they are stale, regenerate them with
//! `MCPSPEC_BLESS=1 cargo test -p mcpspec --test requirements`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
    for (version, c) in doc {
        let c = c.as_object().expect("counts");
        let keys: Vec<&str> = c.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "must_covered",
                "must_total",
                "should_covered",
                "should_total",
                "excluded"
            ],
            "{version}"
        );
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
        text.contains("excluded: authorization is out of scope"),
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
