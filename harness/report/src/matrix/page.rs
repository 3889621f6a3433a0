//! `matrix.html`: the merged matrix as one self-contained page (inline CSS,
//! no script, no external URL, XHTML-style markup):
//!
//! ```text
//! counts · implementations (target, cases per outcome) · legend
//! ┌ table#matrix ─────────────────────────────────────────────────────────┐
//! │ one <tbody> per role: a head row (the role's implementations), then a │
//! │ row per case; a cell is its outcome's symbol, linked (#rN) when the   │
//! │ case said something: a message or findings                            │
//! └───────────────────────────────────────────────────────────────────────┘
//! section#reported: entry rN per distinct report (outcome, message, and
//! each finding's level, requirement, Expected and Actual), failures first
//! ```
//!
//! The page is most of `reports/`, so it is written lean: a cell that says
//! the same as another (the same outcome, message and findings: a warning
//! every transport of an implementation earns alike, the one reason a
//! hundred cases are not applicable) links to one shared entry rather than
//! carrying the text itself, a case not run is an empty cell (the style
//! sheet draws its —), and the classes and ids are short. Clicking a cell
//! follows an in-page link to its entry (highlighted by `:target`), so no
//! script is needed; the browser's Back returns to the cell.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{groups, label, Finding, Implementation, OUTCOMES};
use crate::html::escape;

const CSS: &str = "\
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;margin:1em 0}\
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}\
th{background:#f4f4f4;position:sticky;top:0}\
#matrix td{text-align:center}\
#matrix td:first-child{font-family:ui-monospace,monospace;white-space:nowrap;text-align:left}\
#matrix td:empty::after{content:\"—\";color:#999}\
#matrix a{text-decoration:none;display:block}\
td.pass{background:#dff5df}td.fail{background:#f9d6d6}td.warn{background:#fbeec8}\
td.not_applicable{background:#eee;color:#666}td.error{background:#f3d0f0}\
tr.differs td:first-child{font-weight:bold}\
.target{font-family:ui-monospace,monospace;font-size:12px;color:#555}\
body:has(#only-differing:checked) tr.same{display:none}\
.entry{border-left:4px solid #ccc;padding:.1em .8em;margin:.6em 0}\
.entry.fail{border-color:#d33}.entry.warn{border-color:#db3}.entry.error{border-color:#b3b}\
.entry:target{background:#eef4ff;outline:2px solid #36c}\
.entry ul,.entry p{margin:.2em 0}.cells{font-size:12px;color:#555}code{font-family:ui-monospace,monospace}";

/// What a linked cell reports; cells that report the same share one entry.
/// Ordered as the page lists them: failures, errors, warnings, then the rest.
type Key<'a> = (usize, &'a str, &'a str, &'a [Finding]);

/// An entry's number and its cells, as (case id, implementation name).
type Cells<'a> = (usize, Vec<(&'a str, &'a str)>);

fn key<'a>(i: &'a Implementation, id: &str) -> Option<Key<'a>> {
    let (outcome, message) = i.results.get(id)?;
    let findings = i.findings.get(id).map_or(&[][..], Vec::as_slice);
    if message.is_empty() && findings.is_empty() {
        return None;
    }
    let rank = ["fail", "error", "warn", "pass", "not_applicable"]
        .iter()
        .position(|o| o == outcome)
        .unwrap_or(5);
    Some((rank, outcome, message, findings))
}

/// `matrix.html`: self-contained, no script.
pub fn html(impls: &[Implementation]) -> String {
    let groups = groups(impls);
    // Entry numbers, in the order the entries are listed.
    let mut entries: BTreeMap<Key, Cells> = BTreeMap::new();
    for g in &groups {
        for (id, _) in &g.rows {
            for i in &g.columns {
                if let Some(k) = key(i, id) {
                    entries.entry(k).or_default().1.push((id, &i.name));
                }
            }
        }
    }
    for (n, v) in entries.values_mut().enumerate() {
        v.0 = n + 1;
    }
    let cases: usize = groups.iter().map(|g| g.rows.len()).sum();
    let differing: usize = groups
        .iter()
        .map(|g| g.rows.iter().filter(|r| r.1).count())
        .sum();

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
        "<p id=\"counts\">{} implementations, {cases} cases, <span id=\"differing\">{differing}</span> with differing outcomes.</p>",
        impls.len(),
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
    p.push_str("</tbody>\n</table>\n<p id=\"legend\">");
    for (_, sym, word) in OUTCOMES {
        let _ = write!(p, "{sym} {word} · ");
    }
    p.push_str(
        "— not run. A linked cell opens what the case reported (a failure's or warning's \
         Expected and Actual, why a case does not apply), below the matrix.</p>\n",
    );
    p.push_str("<p><label><input type=\"checkbox\" id=\"only-differing\" /> only cases whose outcomes differ</label></p>\n");
    p.push_str("<table id=\"matrix\">\n");
    for g in &groups {
        let _ = write!(
            p,
            "<tbody id=\"role-{}\">\n<tr><th>{} case</th>",
            escape(&g.role),
            escape(&g.role)
        );
        for i in &g.columns {
            let _ = write!(
                p,
                "<th title=\"{}\">{}</th>",
                escape(&i.target),
                escape(&i.name)
            );
        }
        p.push_str("</tr>\n");
        for (id, differs) in &g.rows {
            let class = if *differs { "differs" } else { "same" };
            let id_text = escape(id);
            let _ = write!(
                p,
                "<tr class=\"{class}\" data-case=\"{id_text}\"><td>{id_text}</td>"
            );
            for i in &g.columns {
                let Some((o, _)) = i.results.get(id) else {
                    p.push_str("<td></td>");
                    continue;
                };
                let (sym, _) = label(o);
                match key(i, id).and_then(|k| entries.get(&k)) {
                    Some((n, _)) => {
                        let _ = write!(
                            p,
                            "<td class=\"{}\"><a href=\"#r{n}\">{sym}</a></td>",
                            escape(o)
                        );
                    }
                    None => {
                        let _ = write!(p, "<td class=\"{}\">{sym}</td>", escape(o));
                    }
                }
            }
            p.push_str("</tr>\n");
        }
        p.push_str("</tbody>\n");
    }
    p.push_str("</table>\n");
    if !entries.is_empty() {
        p.push_str("<section id=\"reported\">\n<h2>What the cases reported</h2>\n");
        for ((rank, outcome, message, findings), (n, cells)) in &entries {
            entry(&mut p, *n, (outcome, message, findings), cells, *rank <= 2);
        }
        p.push_str("</section>\n");
    }
    p.push_str("</body>\n</html>\n");
    p
}

/// Entry `r{n}`: the outcome, how many cells report it, the message, each
/// finding with its Expected and Actual, and for a problem (`name_cells`:
/// a failure, error or warning) which cases on which implementations.
fn entry(
    p: &mut String,
    n: usize,
    (outcome, message, findings): (&str, &str, &[Finding]),
    cells: &[(&str, &str)],
    name_cells: bool,
) {
    let (sym, word) = label(outcome);
    let o = escape(outcome);
    let _ = write!(
        p,
        "<div class=\"entry {o}\" id=\"r{n}\"><p><strong>{sym} {word}</strong> ({} cell{}) {}</p>",
        cells.len(),
        if cells.len() == 1 { "" } else { "s" },
        escape(message)
    );
    if name_cells {
        // Cells come row by row, so a case's implementations are adjacent.
        p.push_str("<p class=\"cells\">");
        let mut last: Option<&str> = None;
        for (id, name) in cells {
            if last == Some(*id) {
                let _ = write!(p, ", {}", escape(name));
            } else {
                if last.is_some() {
                    p.push_str("; ");
                }
                let _ = write!(p, "<code>{}</code> on {}", escape(id), escape(name));
                last = Some(*id);
            }
        }
        p.push_str("</p>");
    }
    if !findings.is_empty() {
        p.push_str("<ul>");
        for f in findings {
            let _ = write!(
                p,
                "<li><strong>{}</strong> <code>{}</code>: {}",
                escape(&f.level.to_uppercase()),
                escape(&f.requirement),
                escape(&f.summary)
            );
            for e in &f.expected {
                let _ = write!(p, "<br />Expected: {}", escape(e));
            }
            let _ = write!(p, "<br />Actual: {}</li>", escape(&f.actual));
        }
        p.push_str("</ul>");
    }
    p.push_str("</div>\n");
}

#[cfg(test)]
mod tests {
    use super::super::assign_names;
    use super::*;
    use std::path::PathBuf;

    fn finding(actual: &str) -> Finding {
        Finding {
            level: "must".into(),
            requirement: "ping.respond".into(),
            summary: "answers <ping>".into(),
            expected: vec!["a response".into(), "within 5s".into()],
            actual: actual.into(),
        }
    }

    fn imp(dir: &str, cases: &[(&str, &str, &str, Option<Finding>)]) -> Implementation {
        let mut i = Implementation {
            name: String::new(),
            dir: PathBuf::from(dir),
            target: "srv".into(),
            results: BTreeMap::new(),
            findings: BTreeMap::new(),
        };
        for (id, outcome, message, f) in cases {
            i.results
                .insert((*id).into(), ((*outcome).into(), (*message).into()));
            if let Some(f) = f {
                i.findings.insert((*id).into(), vec![f.clone()]);
            }
        }
        i
    }

    fn row<'a>(page: &'a str, id: &str) -> &'a str {
        let at = page
            .find(&format!("data-case=\"{id}\""))
            .unwrap_or_else(|| panic!("no row {id}: {page}"));
        &page[at..at + page[at..].find("</tr>").expect("closed")]
    }

    #[test]
    fn a_cell_links_to_its_report_and_like_reports_share_one_entry() {
        let late = || Some(finding("nothing <arrived>"));
        let mut v = vec![
            imp(
                "/r/a",
                &[
                    ("server/p@1", "fail", "MUST ping.respond", late()),
                    ("server/q@1", "not_applicable", "no tools", None),
                    ("server/ok@1", "pass", "", None),
                ],
            ),
            imp(
                "/r/b",
                &[
                    ("server/p@1", "fail", "MUST ping.respond", late()),
                    ("server/q@1", "not_applicable", "no tools", None),
                    ("server/ok@1", "pass", "", None),
                ],
            ),
        ];
        assign_names(&mut v);
        let page = html(&v);
        // Failures first: the shared failure is r1, the shared reason r2.
        let p = row(&page, "server/p@1");
        assert_eq!(
            p.matches("<td class=\"fail\"><a href=\"#r1\">❌</a></td>")
                .count(),
            2,
            "{p}"
        );
        let q = row(&page, "server/q@1");
        assert_eq!(q.matches("<a href=\"#r2\">").count(), 2, "{q}");
        assert!(row(&page, "server/ok@1")
            .ends_with("<td class=\"pass\">✅</td><td class=\"pass\">✅</td>"));
        let r1 = &page[page.find("id=\"r1\"").expect("entry r1")..];
        let r1 = &r1[..r1.find("</div>").expect("closed")];
        assert!(r1.contains("(2 cells) MUST ping.respond</p><p class=\"cells\"><code>server/p@1</code> on a, b</p>"), "{r1}");
        assert!(
            r1.contains("<strong>MUST</strong> <code>ping.respond</code>: answers &lt;ping&gt;"),
            "{r1}"
        );
        assert!(r1.contains("<br />Expected: a response<br />Expected: within 5s<br />Actual: nothing &lt;arrived&gt;</li>"), "{r1}");
        assert!(
            page.contains("id=\"r2\"><p><strong>➖ n/a</strong> (2 cells) no tools</p></div>"),
            "a reason names no cells"
        );
        assert!(!page.contains("id=\"r3\""), "one entry per distinct report");
    }

    #[test]
    fn different_evidence_gets_its_own_entry_and_absent_cases_are_empty_cells() {
        let mut v = vec![
            imp("/r/a", &[("server/p@1", "fail", "m", Some(finding("x")))]),
            imp(
                "/r/b",
                &[
                    ("server/p@1", "fail", "m", Some(finding("y"))),
                    ("server/s@1", "warn", "w", None),
                ],
            ),
        ];
        assign_names(&mut v);
        let page = html(&v);
        let p = row(&page, "server/p@1");
        assert!(
            p.contains("href=\"#r1\"") && p.contains("href=\"#r2\""),
            "{p}"
        );
        assert!(
            p.starts_with("data-case=\"server/p@1\"><td>server/p@1</td>"),
            "{p}"
        );
        let s = row(&page, "server/s@1");
        assert!(
            s.ends_with("<td></td><td class=\"warn\"><a href=\"#r3\">⚠️</a></td>"),
            "{s}"
        );
        assert!(page.contains("<tbody id=\"role-server\">\n<tr><th>server case</th><th title=\"srv\">a</th><th title=\"srv\">b</th></tr>"));
    }
}
