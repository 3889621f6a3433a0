//! Differential test of mcpspec's own message schemas against the official ones.
//!
//! The corpus in `tests/corpus/<version>.jsonl` holds MCP messages and fragments, each
//! naming its `version`, the official `definition` it is checked against, the
//! `instance`, whether it is `valid` per the official schema, and a short `why`.
//! (`tests/corpus/generate.py` regenerates it from our seeds and mutation rules; the
//! committed JSON Lines files are the data this test reads.)
//!
//! For every entry:
//!
//! - (a) the official schema's verdict must equal the recorded `valid`, so the corpus
//!   checks itself;
//! - (b) the verdict of `mcpspec_schema::document(version)` for the same definition
//!   must equal the official one. A definition missing from our document is a
//!   disagreement, not a skip.
//!
//! All disagreements are collected and reported together.
//!
//! The official schemas are reference data, read at run time from
//! `CARGO_MANIFEST_DIR/../../../shared/schemas/<version>/schema.json` (or the folder
//! named by `MCPSPEC_OFFICIAL_SCHEMAS`). Without that folder the test says it is
//! skipped, except under `CI=true`, where that is a failure.
//!
//! Validation choices, the same on both sides:
//!
//! - each document is compiled once into a map of per-definition validators
//!   (`jsonschema::ValidationOptions::build_map`), so no wrapper schema with a root
//!   `$ref` is needed; since draft-07 ignores the siblings of a `$ref`, the test also
//!   asserts that no draft-07 official schema puts an assertion beside one;
//! - `format` is treated as an annotation (`should_validate_formats(false)`): draft-07
//!   would assert it by default and 2020-12 would not, and MCP's `uri`/`byte` formats
//!   are not what this test compares;
//! - no external retrieval (the workspace builds `jsonschema` without default features).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use jsonschema::{Draft, ValidatorMap};
use mcpspec_engine::Version;
use serde_json::Value;

/// One corpus entry, with where it came from.
struct Entry {
    file: String,
    line: usize,
    version: Version,
    definition: String,
    valid: bool,
    why: String,
    instance: Value,
}

/// A verdict and, for a rejection, the first error.
#[derive(Clone)]
enum Verdict {
    Valid,
    Invalid(String),
}

impl Verdict {
    fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid)
    }

    fn word(&self) -> &'static str {
        if self.is_valid() {
            "valid"
        } else {
            "invalid"
        }
    }
}

/// A compiled schema document: its validators by definition name, or why there are none.
struct Compiled {
    /// `#/definitions/` or `#/$defs/`.
    prefix: &'static str,
    /// The names the document defines.
    names: BTreeSet<String>,
    map: Result<ValidatorMap, String>,
}

impl Compiled {
    fn new(doc: &Value, draft: Draft) -> Compiled {
        let (key, prefix) = if draft == Draft::Draft7 {
            ("definitions", "#/definitions/")
        } else {
            ("$defs", "#/$defs/")
        };
        let names = doc
            .get(key)
            .and_then(Value::as_object)
            .map(|defs| defs.keys().cloned().collect())
            .unwrap_or_default();
        let map = jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(false)
            .build_map(doc)
            .map_err(|e| format!("the document does not compile: {e}"));
        Compiled { prefix, names, map }
    }

    /// The verdict for `instance` as `definition`, or why none can be given.
    fn verdict(&self, definition: &str, instance: &Value) -> Result<Verdict, String> {
        let map = self.map.as_ref().map_err(Clone::clone)?;
        if !self.names.contains(definition) {
            return Err(format!("no definition `{definition}`"));
        }
        let pointer = format!("{}{definition}", self.prefix);
        let validator = map.get(&pointer).ok_or_else(|| {
            format!("definition `{definition}` did not compile (unresolvable $ref?)")
        })?;
        Ok(match validator.iter_errors(instance).next() {
            None => Verdict::Valid,
            Some(e) => {
                let at = e.instance_path().as_str();
                let at = if at.is_empty() { "(root)" } else { at };
                Verdict::Invalid(format!("at {at}: {e}"))
            }
        })
    }
}

/// Where the official schemas live: beside the repository, unless
/// `MCPSPEC_OFFICIAL_SCHEMAS` names another folder (e.g. to check the skip path).
fn official_dir() -> PathBuf {
    match std::env::var_os("MCPSPEC_OFFICIAL_SCHEMAS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemas"),
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn version_named(name: &str) -> Option<Version> {
    Version::ALL.into_iter().find(|v| v.as_str() == name)
}

/// Reads every `*.jsonl` file of the corpus. Malformed lines are errors, not skips.
fn load_corpus() -> Vec<Entry> {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus folder {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no *.jsonl corpus files in {}",
        dir.display()
    );

    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for path in files {
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match parse_entry(line) {
                Ok((version, definition, valid, why, instance)) => entries.push(Entry {
                    file: file.clone(),
                    line: i + 1,
                    version,
                    definition,
                    valid,
                    why,
                    instance,
                }),
                Err(e) => problems.push(format!("{file}:{}: {e}", i + 1)),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "malformed corpus entries:\n{}",
        problems.join("\n")
    );
    entries
}

type Fields = (Version, String, bool, String, Value);

fn parse_entry(line: &str) -> Result<Fields, String> {
    let mut value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let obj = value.as_object_mut().ok_or("not a JSON object")?;
    let text = |obj: &serde_json::Map<String, Value>, key: &str| -> Result<String, String> {
        obj.get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("`{key}` missing or not a string"))
    };
    let version_name = text(obj, "version")?;
    let version =
        version_named(&version_name).ok_or_else(|| format!("unknown version {version_name:?}"))?;
    let definition = text(obj, "definition")?;
    let why = text(obj, "why")?;
    if why.trim().is_empty() {
        return Err("`why` is empty".into());
    }
    let valid = obj
        .get("valid")
        .and_then(Value::as_bool)
        .ok_or("`valid` missing or not a boolean")?;
    // `null` is a legitimate instance, so only absence is an error.
    let instance = obj.remove("instance").ok_or("`instance` missing")?;
    Ok((version, definition, valid, why, instance))
}

/// Paths of `$ref`s with assertion keywords beside them (ignored by draft-07).
fn ref_siblings(node: &Value, path: &str, out: &mut Vec<String>) {
    const HARMLESS: [&str; 4] = ["$ref", "description", "title", "$comment"];
    match node {
        Value::Object(map) => {
            if map.contains_key("$ref") {
                let extra: Vec<&str> = map
                    .keys()
                    .map(String::as_str)
                    .filter(|k| !HARMLESS.contains(k))
                    .collect();
                if !extra.is_empty() {
                    out.push(format!("{path}: {}", extra.join(", ")));
                }
            }
            for (k, v) in map {
                ref_siblings(v, &format!("{path}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                ref_siblings(v, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The official document of a version and its draft (from `$schema`).
fn load_official(dir: &Path, version: Version) -> (Value, Draft) {
    let path = dir.join(version.as_str()).join("schema.json");
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read official schema {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("official schema {} is not JSON: {e}", path.display()));
    let declared = doc.get("$schema").and_then(Value::as_str).unwrap_or("");
    let draft = if declared.contains("draft-07") {
        Draft::Draft7
    } else if declared.contains("2020-12") {
        Draft::Draft202012
    } else {
        panic!("{}: unexpected $schema {declared:?}", path.display())
    };
    if draft == Draft::Draft7 {
        let mut found = Vec::new();
        ref_siblings(&doc, "#", &mut found);
        assert!(
            found.is_empty(),
            "{}: draft-07 ignores keywords beside $ref, so these would silently not be checked:\n{}",
            path.display(),
            found.join("\n")
        );
    }
    (doc, draft)
}

/// One entry on which a check failed.
struct Disagreement<'a> {
    entry: &'a Entry,
    kind: &'static str,
    detail: String,
}

#[test]
fn our_schemas_agree_with_the_official_ones_on_the_corpus() {
    let dir = official_dir();
    if !dir.is_dir() {
        let why = format!(
            "official schemas not found at {} (expected shared/schemas beside the repository)",
            dir.display()
        );
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{why}; CI=true, so the differential test must run");
        }
        eprintln!("SKIPPED differential schema test: {why}");
        return;
    }

    let entries = load_corpus();
    let mut officials = BTreeMap::new();
    let mut ours = BTreeMap::new();
    for version in Version::ALL {
        let (doc, draft) = load_official(&dir, version);
        officials.insert(version, Compiled::new(&doc, draft));
        ours.insert(
            version,
            Compiled::new(&mcpspec_schema::document(version), Draft::Draft202012),
        );
    }

    let mut disagreements = Vec::new();
    // (version, agreeing entries, entries)
    let mut tally: BTreeMap<Version, (usize, usize)> = BTreeMap::new();
    for entry in &entries {
        let count = tally.entry(entry.version).or_default();
        count.1 += 1;
        let official = match officials[&entry.version].verdict(&entry.definition, &entry.instance) {
            Ok(v) => v,
            Err(e) => {
                disagreements.push(Disagreement {
                    entry,
                    kind: "corpus names no official definition",
                    detail: format!("official schema: {e}"),
                });
                continue;
            }
        };
        let recorded = if entry.valid { "valid" } else { "invalid" };
        if official.is_valid() != entry.valid {
            disagreements.push(Disagreement {
                entry,
                kind: "(a) corpus label differs from the official schema",
                detail: format!(
                    "recorded: {recorded}; official: {}{}",
                    official.word(),
                    first_error("official", &official)
                ),
            });
            continue;
        }
        match ours[&entry.version].verdict(&entry.definition, &entry.instance) {
            Err(e) => disagreements.push(Disagreement {
                entry,
                kind: "(b) missing from ours (absent or not compiled)",
                detail: format!("official: {}; ours: {e}", official.word()),
            }),
            Ok(mine) if mine.is_valid() != official.is_valid() => {
                disagreements.push(Disagreement {
                    entry,
                    kind: "(b) ours differs from the official schema",
                    detail: format!(
                        "official: {}; ours: {}{}{}",
                        official.word(),
                        mine.word(),
                        first_error("official", &official),
                        first_error("ours", &mine)
                    ),
                })
            }
            Ok(_) => count.0 += 1,
        }
    }

    let mut summary = String::new();
    for (version, (agree, total)) in &tally {
        let _ = writeln!(
            summary,
            "  {}: {agree}/{total} entries agree",
            version.as_str()
        );
    }
    eprintln!(
        "differential schema test, {} entries:\n{summary}",
        entries.len()
    );

    if !disagreements.is_empty() {
        let mut report = format!(
            "{} disagreement(s) between the corpus, the official schemas and ours:\n",
            disagreements.len()
        );
        disagreements.sort_by(|a, b| {
            (
                a.entry.version,
                &a.entry.definition,
                a.kind,
                &a.entry.file,
                a.entry.line,
            )
                .cmp(&(
                    b.entry.version,
                    &b.entry.definition,
                    b.kind,
                    &b.entry.file,
                    b.entry.line,
                ))
        });
        for d in &disagreements {
            let e = d.entry;
            let _ = writeln!(
                report,
                "- {} {} [{}:{}] {}\n    why: {}\n    {}",
                e.version.as_str(),
                e.definition,
                e.file,
                e.line,
                d.kind,
                e.why,
                d.detail
            );
        }
        let _ = write!(report, "summary:\n{summary}");
        panic!("{report}");
    }
}

fn first_error(side: &str, verdict: &Verdict) -> String {
    match verdict {
        Verdict::Valid => String::new(),
        Verdict::Invalid(e) => format!("\n    first {side} error: {e}"),
    }
}
