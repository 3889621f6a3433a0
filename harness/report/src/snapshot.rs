//! Snapshot files for `--snapshots DIR`, in insta's file format, so that
//! `cargo insta review --workspace-root DIR` (and `accept`, `reject`)
//! work on them as on any insta snapshot, and so does `mcpspec review DIR`.
//!
//! ```text
//! DIR/server/lifecycle/ping/operating@2025-06-18.snap       stored (committed)
//! DIR/server/lifecycle/ping/operating@2025-06-18.snap.new   pending review
//! ```
//!
//! The path mirrors the case id as transcript files do
//! ([`crate::transcript::file_name`]); `@version` reads as insta's
//! snapshot suffix. A file is a YAML header between `---` lines, then the
//! normalised transcript ([`crate::normalize`]):
//!
//! ```text
//! ---
//! source: "mcpspec"
//! description: "normalised transcript of server/lifecycle/ping/operating@2025-06-18"
//! expression: "server/lifecycle/ping/operating@2025-06-18"
//! ---
//! >> sent
//! …
//! ```
//!
//! insta has no public API to *write* a snapshot outside its assertion
//! macros (which panic, and resolve paths against the calling crate's
//! source), so this module writes the format itself; it *reads* stored
//! snapshots with `insta::Snapshot::from_file` and compares them as
//! insta does (trailing whitespace and CRLF do not count). A unit test
//! checks that insta reads what this module writes.

use std::path::{Path, PathBuf};

use insta::internals::TextSnapshotContents;
use insta::TextSnapshotKind;

use crate::dir::write_atomic;
use crate::textdiff;

/// What comparing a case with its stored snapshot came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// The stored snapshot matches.
    Same,
    /// No snapshot is stored. `pending` is the `.snap.new` written (not under CI).
    New { pending: Option<PathBuf> },
    /// The stored snapshot differs: `diff` from stored to new.
    Changed {
        diff: String,
        pending: Option<PathBuf>,
    },
}

/// `DIR/<case id>.snap`.
pub fn snap_path(dir: &Path, case_id: &str) -> PathBuf {
    let rel = crate::transcript::file_name(case_id);
    let stem = rel.strip_suffix(".jsonl").unwrap_or(&rel);
    dir.join(format!("{stem}.snap"))
}

/// `x.snap` → `x.snap.new`.
pub fn pending_path(snap: &Path) -> PathBuf {
    let mut s = snap.as_os_str().to_owned();
    s.push(".new");
    PathBuf::from(s)
}

/// The case id a snapshot path under `dir` stands for.
pub fn case_id_of(dir: &Path, snap: &Path) -> Option<String> {
    let rel = snap
        .strip_prefix(dir)
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    let stem = rel
        .strip_suffix(".snap.new")
        .or_else(|| rel.strip_suffix(".snap"))?;
    crate::transcript::case_id_of(&format!("{stem}.jsonl"))
}

/// A snapshot file's text: insta's header, then `content`.
pub fn render(case_id: &str, content: &str) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    format!(
        "---\nsource: {}\ndescription: {}\nexpression: {}\n---\n{}\n",
        q("mcpspec"),
        q(&format!("normalised transcript of {case_id}")),
        q(case_id),
        content.trim_end()
    )
}

/// A stored snapshot's content, read by insta.
pub fn read(path: &Path) -> Result<String, String> {
    let snap = insta::Snapshot::from_file(path)
        .map_err(|e| format!("failed to read the snapshot {}: {e}", path.display()))?;
    snap.as_text()
        .map(ToString::to_string)
        .ok_or_else(|| format!("{} is a binary snapshot", path.display()))
}

/// Whether insta would consider `stored` and `new` the same snapshot.
pub fn matches(stored: &str, new: &str) -> bool {
    let a = TextSnapshotContents::new(stored.to_owned(), TextSnapshotKind::File);
    let b = TextSnapshotContents::new(new.to_owned(), TextSnapshotKind::File);
    a.matches_latest(&b)
}

/// Where snapshots live, whether new ones may be written, and whether a
/// missing one fails its case.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
    /// False under CI (`CI` set and not `false`/`0`): nothing is written.
    pub write: bool,
    /// A case with no stored snapshot fails (`--snapshots-strict`, or CI:
    /// insta's habit); otherwise its snapshot is only reported as new.
    pub strict: bool,
}

/// Whether the environment is a CI run, as insta decides it.
pub fn is_ci() -> bool {
    match std::env::var("CI") {
        Ok(v) => !matches!(v.as_str(), "" | "0" | "false"),
        Err(_) => false,
    }
}

impl Store {
    pub fn new(dir: PathBuf) -> Self {
        Store {
            dir,
            write: !is_ci(),
            strict: is_ci(),
        }
    }

    /// Also strict when `strict` (`--snapshots-strict`); CI stays strict.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict |= strict;
        self
    }

    fn write_pending(
        &self,
        snap: &Path,
        case_id: &str,
        content: &str,
    ) -> Result<Option<PathBuf>, String> {
        if !self.write {
            return Ok(None);
        }
        let pending = pending_path(snap);
        if let Some(parent) = pending.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("failed to create {}: {e}", parent.display()))?;
        }
        write_atomic(&pending, render(case_id, content).as_bytes())
            .map_err(|e| format!("failed to write {}: {e}", pending.display()))?;
        Ok(Some(pending))
    }

    /// Compares `content` (a normalised transcript) with the case's stored
    /// snapshot, writing `.snap.new` when it is new or changed (and
    /// removing a stale `.snap.new` when it matches).
    pub fn check(&self, case_id: &str, content: &str) -> Result<Check, String> {
        let snap = snap_path(&self.dir, case_id);
        if !snap.exists() {
            let pending = self.write_pending(&snap, case_id, content)?;
            return Ok(Check::New { pending });
        }
        let stored = read(&snap)?;
        if matches(&stored, content) {
            let stale = pending_path(&snap);
            if self.write && stale.exists() {
                let _ = std::fs::remove_file(stale);
            }
            return Ok(Check::Same);
        }
        let pending = self.write_pending(&snap, case_id, content)?;
        let new_name = match &pending {
            Some(p) => format!("new ({})", p.display()),
            None => "new (not written: CI)".to_owned(),
        };
        let diff = textdiff::unified(
            &stored,
            content,
            &format!("stored ({})", snap.display()),
            &new_name,
            3,
            false,
        );
        Ok(Check::Changed { diff, pending })
    }
}

/// Which case ids a `--filter` list selects, with the syntax of `mcpspec
/// server --filter` (`mcpspec_runner::plan`): a pattern with `*`, `?`, `[`
/// or `{` is a glob over the case id or its scenario id (the id before
/// `@`), anything else an id prefix; no pattern selects everything. (A
/// test of the cli crate checks that both select the same cases.)
#[derive(Debug, Default)]
pub struct CaseFilter {
    prefixes: Vec<String>,
    globs: Vec<globset::GlobMatcher>,
}

impl CaseFilter {
    pub fn new(patterns: &[String]) -> Result<Self, String> {
        let mut filter = CaseFilter::default();
        for p in patterns {
            if p.contains(['*', '?', '[', '{']) {
                let glob = globset::Glob::new(p)
                    .map_err(|e| format!("invalid --filter {p:?}: {}", e.kind()))?;
                filter.globs.push(glob.compile_matcher());
            } else {
                filter.prefixes.push(p.clone());
            }
        }
        Ok(filter)
    }

    pub fn matches(&self, case_id: &str) -> bool {
        if self.prefixes.is_empty() && self.globs.is_empty() {
            return true;
        }
        let scenario = case_id.rsplit_once('@').map_or(case_id, |(s, _)| s);
        self.prefixes
            .iter()
            .any(|p| case_id.starts_with(p.as_str()))
            || self
                .globs
                .iter()
                .any(|g| g.is_match(case_id) || g.is_match(scenario))
    }
}

/// Every `.snap.new` under `dir`, sorted.
pub fn pending(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("failed to read {}: {e}", d.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".snap.new") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Accepts a pending snapshot: `x.snap.new` becomes `x.snap`.
pub fn accept(pending: &Path) -> Result<PathBuf, String> {
    let text = pending.to_string_lossy();
    let snap = PathBuf::from(text.strip_suffix(".new").unwrap_or(&text));
    std::fs::rename(pending, &snap)
        .map_err(|e| format!("failed to accept {}: {e}", pending.display()))?;
    Ok(snap)
}

/// Rejects a pending snapshot: `x.snap.new` is removed.
pub fn reject(pending: &Path) -> Result<(), String> {
    std::fs::remove_file(pending)
        .map_err(|e| format!("failed to reject {}: {e}", pending.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("mcpspec-snap-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn insta_reads_what_we_write() {
        let dir = temp("insta");
        let id = "server/x/y@2025-06-18";
        let content = ">> sent\n{\n  \"id\": 1\n}\n-- note: said \"hi\": ok\n";
        let path = snap_path(&dir, id);
        assert!(path.ends_with("server/x/y@2025-06-18.snap"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, render(id, content)).unwrap();
        let snap = insta::Snapshot::from_file(&path).unwrap();
        assert_eq!(snap.metadata().expression(), Some(id));
        assert_eq!(snap.snapshot_name(), Some("y@2025-06-18"));
        assert_eq!(read(&path).unwrap(), content.trim_end());
        assert!(matches(&read(&path).unwrap(), content));
        assert_eq!(case_id_of(&dir, &path).as_deref(), Some(id));
        assert_eq!(case_id_of(&dir, &pending_path(&path)).as_deref(), Some(id));
    }

    #[test]
    fn new_changed_same_and_ci() {
        let dir = temp("flow");
        let store = Store {
            dir: dir.clone(),
            write: true,
            strict: false,
        };
        let id = "server/a@2025-06-18";
        let Check::New { pending: Some(p) } = store.check(id, "one\n").unwrap() else {
            panic!("new");
        };
        assert_eq!(pending(&dir).unwrap(), vec![p.clone()]);
        accept(&p).unwrap();
        assert_eq!(store.check(id, "one\n").unwrap(), Check::Same);
        let Check::Changed {
            diff,
            pending: Some(p),
        } = store.check(id, "two\n").unwrap()
        else {
            panic!("changed");
        };
        assert!(diff.contains("-one\n+two"), "{diff}");
        assert!(p.exists());
        // Back to the stored content: the stale pending file goes.
        assert_eq!(store.check(id, "one").unwrap(), Check::Same);
        assert!(!p.exists());
        let ci = Store {
            dir: dir.clone(),
            write: false,
            strict: true,
        };
        assert!(matches!(
            ci.check(id, "three").unwrap(),
            Check::Changed { pending: None, .. }
        ));
        assert_eq!(
            ci.check("server/b@2025-06-18", "x").unwrap(),
            Check::New { pending: None }
        );
        assert!(pending(&dir).unwrap().is_empty(), "CI writes nothing");
    }

    #[test]
    fn case_filters_are_prefixes_or_globs_over_case_and_scenario_ids() {
        let f =
            |p: &[&str]| CaseFilter::new(&p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        let id = "server/tools/list/title@2025-06-18";
        assert!(f(&[]).unwrap().matches(id));
        assert!(f(&["server/tools/"]).unwrap().matches(id));
        assert!(!f(&["server/tools/list/titles"]).unwrap().matches(id));
        assert!(
            f(&["server/*/title"]).unwrap().matches(id),
            "glob on the scenario id"
        );
        assert!(
            f(&["*@2025-06-18"]).unwrap().matches(id),
            "glob on the case id"
        );
        assert!(!f(&["*@2025-11-25"]).unwrap().matches(id));
        assert!(f(&["client/", "server/tools/**"]).unwrap().matches(id));
        assert!(f(&["[unclosed"]).is_err());
    }
}
