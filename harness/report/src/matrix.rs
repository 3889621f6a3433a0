//! `mcpspec report merge DIR... --out DIR`: one compatibility matrix,
//! implementations × cases, from several report directories (as
//! Autobahn|Testsuite shows its results).
//!
//! Writes `matrix.md` (fits a CI step summary) and `matrix.html` (one
//! self-contained page: inline CSS, no script, no external URL). Each
//! implementation is named after its report directory (`out/python-sdk`
//! → `python-sdk`; parent directories are added while two names clash);
//! its target command line is shown beside it. A row whose outcomes are
//! not all alike is marked, and the page can show those rows only.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::html::escape;

/// One report directory.
#[derive(Debug, Clone)]
pub struct Implementation {
    pub name: String,
    pub dir: PathBuf,
    /// `run.target` of its report.json.
    pub target: String,
    /// Case id → (outcome, one-line message).
    pub results: BTreeMap<String, (String, String)>,
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
        Ok(Implementation {
            name: String::new(),
            dir: dir.to_path_buf(),
            target: doc.get("run").map(|r| s(r, "target")).unwrap_or_default(),
            results: results
                .iter()
                .filter_map(|r| {
                    let id = r.get("id")?.as_str()?.to_owned();
                    Some((id, (s(r, "outcome"), s(r, "message"))))
                })
                .collect(),
        })
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

/// Every case id, sorted, with whether its outcomes differ.
fn rows(impls: &[Implementation]) -> Vec<(String, bool)> {
    let ids: BTreeSet<&String> = impls.iter().flat_map(|i| i.results.keys()).collect();
    ids.into_iter()
        .map(|id| {
            let outcomes: BTreeSet<Option<&String>> = impls
                .iter()
                .map(|i| i.results.get(id).map(|r| &r.0))
                .collect();
            (id.clone(), outcomes.len() > 1)
        })
        .collect()
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `matrix.md`.
pub fn markdown(impls: &[Implementation]) -> String {
    let rows = rows(impls);
    let differing = rows.iter().filter(|r| r.1).count();
    let mut s = String::from("# mcpspec compatibility matrix\n\n");
    let _ = writeln!(
        s,
        "{} implementations, {} cases, {} with differing outcomes.\n",
        impls.len(),
        rows.len(),
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
    s.push_str("\n| case |");
    for i in impls {
        let _ = write!(s, " {} |", md_cell(&i.name));
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(impls.len()));
    s.push('\n');
    for (id, differs) in &rows {
        let mark = if *differs { " ≠" } else { "" };
        let _ = write!(s, "| `{id}`{mark} |");
        for i in impls {
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
    s.push_str(
        "\n≠ marks a case whose outcomes differ; — a case that implementation did not run.\n",
    );
    s
}

const CSS: &str = "\
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;margin:1em 0}\
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}\
th{background:#f4f4f4;position:sticky;top:0}\
td.case{font-family:ui-monospace,monospace;white-space:nowrap}\
td.pass{background:#dff5df}td.fail{background:#f9d6d6}td.warn{background:#fbeec8}\
td.not_applicable{background:#eee;color:#666}td.error{background:#f3d0f0}td.missing{color:#999}\
tr.differs td.case{font-weight:bold}\
.target{font-family:ui-monospace,monospace;font-size:12px;color:#555}\
body:has(#only-differing:checked) tr.same{display:none}";

/// `matrix.html`: self-contained, no script.
pub fn html(impls: &[Implementation]) -> String {
    let rows = rows(impls);
    let differing = rows.iter().filter(|r| r.1).count();
    let mut p = String::new();
    p.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n");
    p.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\" />\n",
    );
    p.push_str("<title>mcpspec compatibility matrix</title>\n<style>");
    p.push_str(CSS);
    p.push_str("</style>\n</head>\n<body>\n<h1>mcpspec compatibility matrix</h1>\n");
    let _ = writeln!(
        p,
        "<p id=\"counts\">{} implementations, {} cases, <span id=\"differing\">{differing}</span> with differing outcomes.</p>",
        impls.len(),
        rows.len()
    );
    p.push_str("<table id=\"implementations\">\n<thead><tr><th>implementation</th><th>target</th>");
    for (_, _, word) in OUTCOMES {
        let _ = write!(p, "<th>{word}</th>");
    }
    p.push_str("</tr></thead>\n<tbody>\n");
    for i in impls {
        let _ = write!(
            p,
            "<tr><td>{}</td><td class=\"target\">{}</td>",
            escape(&i.name),
            escape(&i.target)
        );
        for (o, _, _) in OUTCOMES {
            let _ = write!(p, "<td class=\"{o}\">{}</td>", i.count(o));
        }
        p.push_str("</tr>\n");
    }
    p.push_str("</tbody>\n</table>\n");
    p.push_str("<p><label><input type=\"checkbox\" id=\"only-differing\" /> only cases whose outcomes differ</label></p>\n");
    p.push_str("<table id=\"matrix\">\n<thead><tr><th>case</th>");
    for i in impls {
        let _ = write!(
            p,
            "<th title=\"{}\">{}</th>",
            escape(&i.target),
            escape(&i.name)
        );
    }
    p.push_str("</tr></thead>\n<tbody>\n");
    for (id, differs) in &rows {
        let class = if *differs { "differs" } else { "same" };
        let _ = write!(
            p,
            "<tr class=\"{class}\" data-case=\"{}\"><td class=\"case\">{}</td>",
            escape(id),
            escape(id)
        );
        for i in impls {
            match i.results.get(id) {
                Some((o, message)) => {
                    let (sym, word) = label(o);
                    let _ = write!(
                        p,
                        "<td class=\"{}\" title=\"{}\">{sym} {word}</td>",
                        escape(o),
                        escape(message)
                    );
                }
                None => p.push_str("<td class=\"missing\">—</td>"),
            }
        }
        p.push_str("</tr>\n");
    }
    p.push_str("</tbody>\n</table>\n</body>\n</html>\n");
    p
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
        assert!(page.contains("title=\"m &amp; &lt;b&gt;\""));
        assert!(!page.contains("<b>") && !page.contains("src=") && !page.contains("href="));
    }
}
