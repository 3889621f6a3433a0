//! `mcpspec diff A B`: two transcripts, or two report directories case by
//! case, compared on their normalised form ([`crate::normalize`]).
//!
//! A report directory's cases are its `transcripts/**/*.jsonl` files, and
//! the outcomes of its `report.json` when there is one. Two directories
//! differ by cases only in one of them, cases whose outcome changed, and
//! cases whose normalised transcript changed:
//!
//! ```text
//! only in A: server/x@2025-06-18
//! changed: server/lifecycle/ping/operating@2025-06-18 (outcome pass → fail, transcript)
//! --- A/transcripts/server/lifecycle/ping/operating@2025-06-18.jsonl
//! +++ B/transcripts/server/lifecycle/ping/operating@2025-06-18.jsonl
//! @@ -30,7 +30,9 @@
//! …
//! 4 cases in A, 3 in B: 1 only in A, 0 only in B, 1 outcome changed, 1 transcript changed, 2 same
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::normalize::{normalize, parse_jsonl};
use crate::redact::Redactions;
use crate::textdiff;

/// How diffs are shown.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub context: usize,
    pub color: bool,
}

/// A transcript file's normalised text.
pub fn normalized_file(path: &Path, rules: &Redactions) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("failed to read {}: {e}", path.display()))?;
    let records = parse_jsonl(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(normalize(&records, rules))
}

/// The unified diff of two transcript files (empty when they are the same).
pub fn files(a: &Path, b: &Path, rules: &Redactions, style: Style) -> Result<String, String> {
    let (ta, tb) = (normalized_file(a, rules)?, normalized_file(b, rules)?);
    Ok(textdiff::unified(
        &ta,
        &tb,
        &a.display().to_string(),
        &b.display().to_string(),
        style.context,
        style.color,
    ))
}

/// One case of a report directory.
#[derive(Debug, Clone, Default)]
pub struct CaseFiles {
    /// From report.json, when there is one.
    pub outcome: Option<String>,
    pub transcript: Option<PathBuf>,
}

/// A report directory's cases, by id.
pub fn load_dir(dir: &Path) -> Result<BTreeMap<String, CaseFiles>, String> {
    let mut cases: BTreeMap<String, CaseFiles> = BTreeMap::new();
    let transcripts = dir.join("transcripts");
    let report = dir.join("report.json");
    if !transcripts.is_dir() && !report.is_file() {
        return Err(format!(
            "{} is not a report directory (no report.json, no transcripts/)",
            dir.display()
        ));
    }
    if transcripts.is_dir() {
        let mut stack = vec![transcripts.clone()];
        while let Some(d) = stack.pop() {
            let entries = std::fs::read_dir(&d)
                .map_err(|e| format!("failed to read {}: {e}", d.display()))?;
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let Ok(rel) = path.strip_prefix(&transcripts) else {
                    continue;
                };
                let rel = rel.to_string_lossy().replace('\\', "/");
                if let Some(id) = crate::transcript::case_id_of(&rel) {
                    cases.entry(id).or_default().transcript = Some(path);
                }
            }
        }
    }
    if report.is_file() {
        let text = std::fs::read_to_string(&report)
            .map_err(|e| format!("failed to read {}: {e}", report.display()))?;
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", report.display()))?;
        let results = doc
            .get("results")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{} has no `results`", report.display()))?;
        for r in results {
            let Some(id) = r.get("id").and_then(Value::as_str) else {
                continue;
            };
            let entry = cases.entry(id.to_owned()).or_default();
            entry.outcome = r.get("outcome").and_then(Value::as_str).map(str::to_owned);
        }
    }
    Ok(cases)
}

/// How two report directories differ.
#[derive(Debug, Default)]
pub struct DirDiff {
    pub in_a: usize,
    pub in_b: usize,
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    /// `(id, outcome in A, outcome in B)`.
    pub outcome_changed: Vec<(String, String, String)>,
    /// `(id, unified diff)`.
    pub transcript_changed: Vec<(String, String)>,
    pub same: usize,
    /// The report as printed.
    pub text: String,
}

impl DirDiff {
    pub fn differs(&self) -> bool {
        !(self.only_a.is_empty()
            && self.only_b.is_empty()
            && self.outcome_changed.is_empty()
            && self.transcript_changed.is_empty())
    }

    /// The closing line.
    pub fn summary(&self) -> String {
        format!(
            "{} case{} in A, {} in B: {} only in A, {} only in B, {} outcome changed, {} transcript changed, {} same",
            self.in_a,
            if self.in_a == 1 { "" } else { "s" },
            self.in_b,
            self.only_a.len(),
            self.only_b.len(),
            self.outcome_changed.len(),
            self.transcript_changed.len(),
            self.same
        )
    }
}

fn transcript_text(c: &CaseFiles, rules: &Redactions) -> Result<String, String> {
    match &c.transcript {
        Some(p) => normalized_file(p, rules),
        None => Ok(String::new()),
    }
}

/// Compares two report directories case by case.
pub fn dirs(a: &Path, b: &Path, rules: &Redactions, style: Style) -> Result<DirDiff, String> {
    let (ca, cb) = (load_dir(a)?, load_dir(b)?);
    let paint = |code: &str, s: &str| {
        if style.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    };
    let mut d = DirDiff {
        in_a: ca.len(),
        in_b: cb.len(),
        ..DirDiff::default()
    };
    let ids: BTreeSet<&String> = ca.keys().chain(cb.keys()).collect();
    for id in ids {
        let (x, y) = match (ca.get(id), cb.get(id)) {
            (Some(x), Some(y)) => (x, y),
            (Some(_), None) => {
                d.text.push_str(&paint("31", &format!("only in A: {id}")));
                d.text.push('\n');
                d.only_a.push(id.clone());
                continue;
            }
            (None, _) => {
                d.text.push_str(&paint("32", &format!("only in B: {id}")));
                d.text.push('\n');
                d.only_b.push(id.clone());
                continue;
            }
        };
        let mut what = Vec::new();
        let outcome = match (&x.outcome, &y.outcome) {
            (Some(p), Some(q)) if p != q => Some((p.clone(), q.clone())),
            _ => None,
        };
        if let Some((p, q)) = &outcome {
            what.push(format!("outcome {p} → {q}"));
            d.outcome_changed.push((id.clone(), p.clone(), q.clone()));
        }
        let (tx, ty) = (transcript_text(x, rules)?, transcript_text(y, rules)?);
        let name = |dir: &Path, c: &CaseFiles| match &c.transcript {
            Some(p) => p.display().to_string(),
            None => format!("{} (no transcript)", dir.display()),
        };
        let diff = textdiff::unified(
            &tx,
            &ty,
            &name(a, x),
            &name(b, y),
            style.context,
            style.color,
        );
        if !diff.is_empty() {
            what.push("transcript".to_owned());
            d.transcript_changed.push((id.clone(), diff.clone()));
        }
        if what.is_empty() {
            d.same += 1;
        } else {
            d.text.push_str(&paint(
                "33",
                &format!("changed: {id} ({})", what.join(", ")),
            ));
            d.text.push('\n');
            d.text.push_str(&diff);
        }
    }
    d.text.push_str(&d.summary());
    d.text.push('\n');
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, id: &str, outcome: &str, lines: &[&str]) {
        let path = dir
            .join("transcripts")
            .join(crate::transcript::file_name(id));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, lines.join("\n")).unwrap();
        let report = dir.join("report.json");
        let mut doc: Value = std::fs::read_to_string(&report)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| serde_json::json!({"results": []}));
        doc["results"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"id": id, "outcome": outcome}));
        std::fs::write(report, doc.to_string()).unwrap();
    }

    #[test]
    fn directories_differ_by_exactly_the_changed_cases() {
        let root = std::env::temp_dir().join(format!("mcpspec-cmp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (a, b) = (root.join("a"), root.join("b"));
        let sent = r#"{"dir":">>","kind":"sent","at_ms":0,"text":"","message":{"id":1}}"#;
        let ok =
            r#"{"dir":"<<","kind":"received","at_ms":3,"text":"","message":{"id":1,"result":{}}}"#;
        let ok_later =
            r#"{"dir":"<<","kind":"received","at_ms":9,"text":"","message":{"result":{},"id":1}}"#;
        let bad = r#"{"dir":"<<","kind":"received","at_ms":3,"text":"","message":{"id":1,"result":{"x":1}}}"#;
        write(&a, "s/same@1", "pass", &[sent, ok]);
        write(&b, "s/same@1", "pass", &[sent, ok_later]);
        write(&a, "s/changed@1", "pass", &[sent, ok]);
        write(&b, "s/changed@1", "fail", &[sent, bad]);
        write(&a, "s/gone@1", "pass", &[sent]);
        write(&b, "s/added@1", "pass", &[sent]);
        let style = Style {
            context: 3,
            color: false,
        };
        let d = dirs(&a, &b, &Redactions::builtin(), style).unwrap();
        assert!(d.differs());
        assert_eq!(d.only_a, ["s/gone@1"]);
        assert_eq!(d.only_b, ["s/added@1"]);
        assert_eq!(
            d.outcome_changed,
            [("s/changed@1".into(), "pass".into(), "fail".into())]
        );
        assert_eq!(d.transcript_changed.len(), 1);
        assert_eq!(d.same, 1);
        assert!(
            d.text
                .contains("changed: s/changed@1 (outcome pass → fail, transcript)"),
            "{}",
            d.text
        );
        assert!(d.text.contains("+    \"x\": 1"), "{}", d.text);
        let same = dirs(&a, &a, &Redactions::builtin(), style).unwrap();
        assert!(!same.differs());
        assert!(dirs(&a, &root.join("nope"), &Redactions::builtin(), style).is_err());
    }
}
