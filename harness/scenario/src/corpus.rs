//! The set of scenarios a run can use: the files embedded at build time
//! (`scenarios/**/*.yaml`, see `build.rs`) plus folders given with
//! `--scenarios DIR`, where a file with the same id replaces the embedded one.
//!
//! Checks across files live here: the id equals the file's path below the
//! folder (without `.yaml`), and no id appears twice in one source.

use crate::error::ScenarioError;
use crate::load::parse;
use crate::model::Scenario;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// `(path relative to scenarios/, text)` of every embedded scenario file,
/// sorted by path.
pub fn embedded() -> &'static [(&'static str, &'static str)] {
    EMBEDDED
}

/// The label embedded files carry in errors and [`crate::Source::path`].
pub const EMBEDDED_PREFIX: &str = "<embedded>";

/// Load every `*.yaml` below `dir` (recursively; dot-files skipped), checking
/// each id against its path. All errors are returned, not only the first.
pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, Vec<ScenarioError>> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    walk(dir, dir, &mut files, &mut errors);
    files.sort();
    let mut scenarios = Vec::new();
    for (rel, path) in files {
        let label = path.display().to_string();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                errors.push(ScenarioError::whole_file(
                    &label,
                    format!("cannot read it: {e}"),
                ));
                continue;
            }
        };
        match parse(&label, &text).and_then(|s| check_id_path(s, &rel, &text)) {
            Ok(s) => scenarios.push(s),
            Err(e) => errors.push(e),
        }
    }
    if let Err(dupes) = check_unique(&scenarios) {
        errors.extend(dupes);
    }
    if errors.is_empty() {
        Ok(scenarios)
    } else {
        Err(errors)
    }
}

/// Every scenario a run can use.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Sorted by id.
    pub scenarios: Vec<Scenario>,
}

impl Corpus {
    /// The embedded scenarios, then each folder of `extra_dirs` in order; a
    /// scenario whose id is already loaded replaces it.
    pub fn load(extra_dirs: &[PathBuf]) -> Result<Corpus, Vec<ScenarioError>> {
        let mut errors = Vec::new();
        let mut builtin = Vec::new();
        for (rel, text) in embedded() {
            let label = format!("{EMBEDDED_PREFIX}/{rel}");
            match parse(&label, text).and_then(|s| check_id_path(s, rel, text)) {
                Ok(s) => builtin.push(s),
                Err(e) => errors.push(e),
            }
        }
        if let Err(dupes) = check_unique(&builtin) {
            errors.extend(dupes);
        }
        let mut by_id: BTreeMap<String, Scenario> =
            builtin.into_iter().map(|s| (s.id.clone(), s)).collect();
        for dir in extra_dirs {
            match load_dir(dir) {
                Ok(scenarios) => by_id.extend(scenarios.into_iter().map(|s| (s.id.clone(), s))),
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            Ok(Corpus {
                scenarios: by_id.into_values().collect(),
            })
        } else {
            Err(errors)
        }
    }

    /// The scenario with this id.
    pub fn get(&self, id: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.id == id)
    }
}

/// The id must be the relative path without `.yaml`.
fn check_id_path(s: Scenario, rel: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let expected = rel.strip_suffix(".yaml").unwrap_or(rel);
    if s.id == expected {
        return Ok(s);
    }
    Err(ScenarioError::at(
        &s.id_at.file,
        text,
        s.id_at.line,
        s.id_at.column,
        format!(
            "id {:?} does not match the file's path: expected {expected:?} (ids mirror paths below the scenarios folder)",
            s.id
        ),
    ))
}

fn check_unique(scenarios: &[Scenario]) -> Result<(), Vec<ScenarioError>> {
    let mut seen: BTreeMap<&str, &Scenario> = BTreeMap::new();
    let mut errors = Vec::new();
    for s in scenarios {
        if let Some(first) = seen.insert(&s.id, s) {
            errors.push(ScenarioError {
                file: s.id_at.file.clone(),
                line: s.id_at.line,
                column: s.id_at.column,
                message: format!(
                    "duplicate id {:?}: also defined in {}",
                    s.id, first.source.path
                ),
                snippet: String::new(),
            });
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Collect `(relative path with '/', path)` of `*.yaml` below `dir`.
fn walk(
    root: &Path,
    dir: &Path,
    out: &mut Vec<(String, PathBuf)>,
    errors: &mut Vec<ScenarioError>,
) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(ScenarioError::whole_file(
                &dir.display().to_string(),
                format!("cannot read the scenarios folder: {e}"),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, out, errors);
            continue;
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some("yaml") => {
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, path));
            }
            Some("yml") => errors.push(ScenarioError::whole_file(
                &path.display().to_string(),
                "scenario files end in `.yaml`, not `.yml` (this file would be ignored)",
            )),
            _ => {}
        }
    }
}
