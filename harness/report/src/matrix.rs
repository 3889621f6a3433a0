//! `mcpspec report merge DIR... --out DIR`: one compatibility matrix,
//! implementations × cases, from several report directories (as
//! Autobahn|Testsuite shows its results).
//!
//! Writes `matrix.md` (fits a CI step summary) and `matrix.html` (one
//! self-contained page: inline CSS, no script, no external URL; [`page`]).
//! Each implementation is named after its report directory (`out/python-sdk`
//! → `python-sdk`; parent directories are added while two names clash);
//! its target command line is shown beside it.
//!
//! The cases are grouped by role, the first segment of their id (`server/…`
//! run by `mcpspec server`, `client/…` by `mcpspec client`): each group is
//! its own table, whose columns are only the implementations that ran a case
//! of it (a server never runs a client case: a column of "not run" cells
//! says nothing). A row whose outcomes within its group are not all alike is
//! marked, and the page can show those rows only.

mod page;

pub use page::html;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// One report directory.
#[derive(Debug, Clone)]
pub struct Implementation {
    pub name: String,
    pub dir: PathBuf,
    /// `run.target` of its report.json.
    pub target: String,
    /// Case id → (outcome, one-line message).
    pub results: BTreeMap<String, (String, String)>,
    /// Case id → its findings, for the cases that have any.
    pub findings: BTreeMap<String, Vec<Finding>>,
}

/// What one finding of a case says, as the matrix page shows it (the spec
/// link and the scenario location stay in report.json and summary.md: the
/// page links to nothing outside itself).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub level: String,
    pub requirement: String,
    pub summary: String,
    pub expected: Vec<String>,
    pub actual: String,
}

impl Finding {
    fn from_json(f: &Value) -> Self {
        let s = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        Finding {
            level: s("level"),
            requirement: s("requirement"),
            summary: s("summary"),
            expected: f
                .get("expected")
                .and_then(Value::as_array)
                .map(|e| {
                    e.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            actual: s("actual"),
        }
    }
}

impl Implementation {
    /// Reads `dir/report.json`.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let path = dir.join("report.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("failed to read {}: {e}", path.display()))?;
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        let results = doc
            .get("results")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{} has no `results`", path.display()))?;
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let mut imp = Implementation {
            name: String::new(),
            dir: dir.to_path_buf(),
            target: doc.get("run").map(|r| s(r, "target")).unwrap_or_default(),
            results: BTreeMap::new(),
            findings: BTreeMap::new(),
        };
        for r in results {
            let Some(id) = r.get("id").and_then(Value::as_str) else {
                continue;
            };
            imp.results
                .insert(id.to_owned(), (s(r, "outcome"), s(r, "message")));
            let findings: Vec<Finding> = r
                .get("findings")
                .and_then(Value::as_array)
                .map(|f| f.iter().map(Finding::from_json).collect())
                .unwrap_or_default();
            if !findings.is_empty() {
                imp.findings.insert(id.to_owned(), findings);
            }
        }
        Ok(imp)
    }

    /// Cases per outcome.
    pub fn count(&self, outcome: &str) -> usize {
        self.results.values().filter(|(o, _)| o == outcome).count()
    }
}

/// Names each implementation after the tail of its directory, long enough
/// to be unique.
pub fn assign_names(impls: &mut [Implementation]) {
    let comps: Vec<Vec<String>> = impls
        .iter()
        .map(|i| {
            let abs = std::path::absolute(&i.dir).unwrap_or_else(|_| i.dir.clone());
            abs.components()
                .filter_map(|c| match c {
                    std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let tail = |c: &Vec<String>, n: usize| c[c.len().saturating_sub(n)..].join("/");
    let longest = comps.iter().map(Vec::len).max().unwrap_or(1).max(1);
    for n in 1..=longest {
        let names: Vec<String> = comps.iter().map(|c| tail(c, n)).collect();
        let unique: BTreeSet<&String> = names.iter().collect();
        if unique.len() == names.len() || n == longest {
            for (i, name) in impls.iter_mut().zip(names) {
                i.name = if name.is_empty() {
                    "report".into()
                } else {
                    name
                };
            }
            return;
        }
    }
}

const OUTCOMES: [(&str, &str, &str); 5] = [
    ("pass", "✅", "pass"),
    ("fail", "❌", "fail"),
    ("warn", "⚠️", "warn"),
    ("not_applicable", "➖", "n/a"),
    ("error", "💥", "error"),
];

fn label(outcome: &str) -> (&'static str, &'static str) {
    OUTCOMES
        .iter()
        .find(|(o, _, _)| *o == outcome)
        .map_or(("?", "?"), |(_, sym, word)| (*sym, *word))
}

/// The role of a case: the first segment of its id.
fn role(id: &str) -> &str {
    id.split('/').next().unwrap_or(id)
}

/// One table of the matrix: the cases of one role, sorted, each with whether
/// its outcomes differ among `columns`, the implementations that ran any
/// case of that role (in the order given).
struct Group<'a> {
    role: String,
    columns: Vec<&'a Implementation>,
    rows: Vec<(String, bool)>,
}

/// The groups, in the order their roles first appear in the implementations.
fn groups(impls: &[Implementation]) -> Vec<Group<'_>> {
    let mut roles: Vec<&str> = Vec::new();
    for i in impls {
        let mine: BTreeSet<&str> = i.results.keys().map(|id| role(id)).collect();
        for r in mine {
            if !roles.contains(&r) {
                roles.push(r);
            }
        }
    }
    roles
        .into_iter()
        .map(|r| {
            let columns: Vec<&Implementation> = impls
                .iter()
                .filter(|i| i.results.keys().any(|id| role(id) == r))
                .collect();
            let ids: BTreeSet<&String> = columns
                .iter()
                .flat_map(|i| i.results.keys())
                .filter(|id| role(id) == r)
                .collect();
            let rows = ids
                .into_iter()
                .map(|id| {
                    let outcomes: BTreeSet<Option<&String>> = columns
                        .iter()
                        .map(|i| i.results.get(id).map(|r| &r.0))
                        .collect();
                    (id.clone(), outcomes.len() > 1)
                })
                .collect();
            Group {
                role: r.to_owned(),
                columns,
                rows,
            }
        })
        .collect()
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `matrix.md`.
pub fn markdown(impls: &[Implementation]) -> String {
    let groups = groups(impls);
    let cases: usize = groups.iter().map(|g| g.rows.len()).sum();
    let differing: usize = groups
        .iter()
        .map(|g| g.rows.iter().filter(|r| r.1).count())
        .sum();
    let mut s = String::from("# mcpspec compatibility matrix\n\n");
    let _ = writeln!(
        s,
        "{} implementations, {} cases, {} with differing outcomes.\n",
        impls.len(),
        cases,
        differing
    );
    s.push_str("| implementation | target | passed | failed | warned | n/a | errored |\n");
    s.push_str("|---|---|---:|---:|---:|---:|---:|\n");
    for i in impls {
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {} | {} | {} | {} |",
            md_cell(&i.name),
            md_cell(&i.target.replace('`', "'")),
            i.count("pass"),
            i.count("fail"),
            i.count("warn"),
            i.count("not_applicable"),
            i.count("error")
        );
    }
    for g in &groups {
        let _ = writeln!(
            s,
            "\n## {} cases ({}, {} implementations)\n",
            md_cell(&g.role),
            g.rows.len(),
            g.columns.len()
        );
        s.push_str("| case |");
        for i in &g.columns {
            let _ = write!(s, " {} |", md_cell(&i.name));
        }
        s.push_str("\n|---|");
        s.push_str(&"---|".repeat(g.columns.len()));
        s.push('\n');
        for (id, differs) in &g.rows {
            let mark = if *differs { " ≠" } else { "" };
            let _ = write!(s, "| `{id}`{mark} |");
            for i in &g.columns {
                match i.results.get(id) {
                    Some((o, _)) => {
                        let (sym, word) = label(o);
                        let _ = write!(s, " {sym} {word} |");
                    }
                    None => s.push_str(" — |"),
                }
            }
            s.push('\n');
        }
    }
    s.push_str(
        "\n≠ marks a case whose outcomes differ; — a case that implementation did not run.\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imp(dir: &str, results: &[(&str, &str)]) -> Implementation {
        Implementation {
            name: String::new(),
            dir: PathBuf::from(dir),
            target: "srv --x <y>".into(),
            results: results
                .iter()
                .map(|(id, o)| ((*id).to_owned(), ((*o).to_owned(), "m & <b>".to_owned())))
                .collect(),
            findings: BTreeMap::new(),
        }
    }

    #[test]
    fn names_grow_until_unique() {
        let mut v = vec![
            imp("/x/a/report", &[]),
            imp("/x/b/report", &[]),
            imp("/x/c", &[]),
        ];
        assign_names(&mut v);
        let names: Vec<&str> = v.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["a/report", "b/report", "x/c"]);
    }

    #[test]
    fn rows_mark_differing_outcomes_and_missing_cases() {
        let mut v = vec![
            imp("/r/one", &[("s/a@1", "pass"), ("s/b@1", "pass")]),
            imp(
                "/r/two",
                &[("s/a@1", "pass"), ("s/b@1", "fail"), ("s/c@1", "warn")],
            ),
        ];
        assign_names(&mut v);
        let md = markdown(&v);
        assert!(md.contains("| `s/a@1` | ✅ pass | ✅ pass |"), "{md}");
        assert!(md.contains("| `s/b@1` ≠ | ✅ pass | ❌ fail |"), "{md}");
        assert!(md.contains("| `s/c@1` ≠ | — | ⚠️ warn |"), "{md}");
        let page = html(&v);
        assert!(page.contains("<span id=\"differing\">2</span>"));
        // The message is text in the cells' shared entry, not markup.
        assert!(page.contains(") m &amp; &lt;b&gt;</p>"), "{page}");
        assert!(!page.contains("<b>") && !page.contains("src="));
        assert!(
            !page.contains("href=\"")
                || page.matches("href=\"").count() == page.matches("href=\"#r").count()
        );
    }

    #[test]
    fn each_role_is_a_table_of_the_implementations_that_ran_it() {
        let mut v = vec![
            imp(
                "/r/srv-a",
                &[("server/x@1", "pass"), ("server/y@1", "fail")],
            ),
            imp(
                "/r/srv-b",
                &[("server/x@1", "pass"), ("server/y@1", "fail")],
            ),
            imp("/r/cli", &[("client/z@1", "pass")]),
        ];
        for i in &mut v {
            for r in i.results.values_mut() {
                r.1.clear();
            }
        }
        assign_names(&mut v);
        let md = markdown(&v);
        assert!(
            md.contains("3 implementations, 3 cases, 0 with differing outcomes."),
            "{md}"
        );
        assert!(
            md.contains("## server cases (2, 2 implementations)\n\n| case | srv-a | srv-b |\n"),
            "{md}"
        );
        assert!(
            md.contains("| `server/y@1` | ❌ fail | ❌ fail |\n"),
            "{md}"
        );
        assert!(
            md.contains("## client cases (1, 1 implementations)\n\n| case | cli |\n"),
            "{md}"
        );
        assert!(
            !md.contains('—') || md.matches('—').count() == 1,
            "only the legend's: {md}"
        );
    }
}
