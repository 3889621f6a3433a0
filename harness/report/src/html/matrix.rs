//! The area × version matrix of `index.html`, Autobahn|Testsuite's habit:
//! one coloured cell per case, a row per scenario, a column per version,
//! the scenarios grouped by area (the id's second segment: `tools` in
//! `server/tools/list/title`). An area opens when it holds a problem and
//! shows, folded, the worst outcome per version. A cell links to
//! `?case=<id>`: the page's script opens the case at the top of the page
//! (without a script the link reloads the page, which does the same).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::{CaseEntry, ExpectationStatus, OutcomeName, Report};

use super::{case_href, escape};

/// A cell's class: the outcome, or what the baseline made of it.
fn class(c: &CaseEntry) -> &'static str {
    match (c.expectation.as_ref().map(|e| e.status), c.outcome) {
        (Some(ExpectationStatus::StaleExpectation), _) => "stale_expectation",
        (Some(ExpectationStatus::ExpectedFailure), _) => "expected_failure",
        (_, OutcomeName::Pass) => "pass",
        (_, OutcomeName::Fail) => "fail",
        (_, OutcomeName::Warn) => "warn",
        (_, OutcomeName::NotApplicable) => "not_applicable",
        (_, OutcomeName::Blocked) => "blocked",
        (_, OutcomeName::Error) => "error",
    }
}

/// How bad a class is: 0 is the worst.
fn rank(class: &str) -> usize {
    [
        "fail",
        "stale_expectation",
        "error",
        "blocked",
        "warn",
        "expected_failure",
        "pass",
        "not_applicable",
    ]
    .iter()
    .position(|c| *c == class)
    .unwrap_or(usize::MAX)
}

/// Whether a class is a problem (opens its area).
pub(super) fn is_problem(class: &str) -> bool {
    rank(class) <= rank("warn")
}

/// `server/tools/list/title` → (`tools`, `list/title`).
fn area(scenario: &str) -> (&str, &str) {
    let mut parts = scenario.splitn(3, '/');
    let _role = parts.next();
    let area = parts.next().unwrap_or(scenario);
    (area, parts.next().unwrap_or(""))
}

fn cell(c: &CaseEntry) -> String {
    let class = class(c);
    format!(
        "<a class=\"cell o-{class}\" href=\"{}\" data-case=\"{}\" title=\"{}: {}{}\"></a>",
        escape(&case_href(&c.id)),
        escape(&c.id),
        escape(&c.id),
        class.replace('_', " "),
        if c.message.is_empty() {
            String::new()
        } else {
            format!(" — {}", escape(&c.message))
        }
    )
}

/// One area's cases: scenario → version → case.
type Scenarios<'a> = BTreeMap<&'a str, BTreeMap<&'a str, &'a CaseEntry>>;

/// The matrix section; empty without results.
pub(super) fn render(report: &Report) -> String {
    if report.results.is_empty() {
        return String::new();
    }
    let mut versions: Vec<&str> = report.results.iter().map(|c| c.version.as_str()).collect();
    versions.sort_unstable();
    versions.dedup();
    // area → scenario → version → case
    let mut areas: BTreeMap<&str, Scenarios> = BTreeMap::new();
    for c in &report.results {
        let (a, _) = area(&c.scenario);
        areas
            .entry(a)
            .or_default()
            .entry(c.scenario.as_str())
            .or_default()
            .insert(c.version.as_str(), c);
    }
    let head: String = versions
        .iter()
        .map(|v| format!("<span class=\"v\">{}</span>", escape(v)))
        .collect();
    let mut out = format!(
        "<section id=\"matrix\" style=\"--versions: {}\"><h2>Areas × versions</h2>\n\
         <p class=\"meta\">A cell per case; areas with a problem are open. Click a cell to open the case.</p>\n\
         <div class=\"mrow head\"><span class=\"scn\">area / scenario</span>{head}</div>\n",
        versions.len()
    );
    // Areas with problems first, the worst first; then by name.
    let mut ordered: Vec<(&str, &Scenarios)> = areas.iter().map(|(a, s)| (*a, s)).collect();
    let worst = |scenarios: &Scenarios| {
        scenarios
            .values()
            .flat_map(|v| v.values())
            .map(|c| rank(class(c)))
            .min()
            .unwrap_or(usize::MAX)
    };
    ordered.sort_by_key(|(a, s)| (worst(s), *a));
    for (a, scenarios) in ordered {
        let problems = scenarios
            .values()
            .flat_map(|v| v.values())
            .filter(|c| is_problem(class(c)))
            .count();
        let open = if problems > 0 { " open" } else { "" };
        let folded: String = versions
            .iter()
            .map(|v| {
                let worst = scenarios
                    .values()
                    .filter_map(|byv| byv.get(v))
                    .map(|c| class(c))
                    .min_by_key(|c| rank(c));
                match worst {
                    Some(c) => format!("<span class=\"cell o-{c}\"></span>"),
                    None => "<span></span>".to_owned(),
                }
            })
            .collect();
        let count = scenarios.values().map(BTreeMap::len).sum::<usize>();
        let note = if problems > 0 {
            format!("{problems} of {count} cases with a problem")
        } else {
            format!("{count} cases")
        };
        let _ = write!(
            out,
            "<details class=\"area\" data-area=\"{}\"{open}><summary class=\"mrow\">\
             <span class=\"scn\"><strong>{}</strong> <span class=\"meta\">{note}</span></span>{folded}</summary>",
            escape(a),
            escape(a)
        );
        // Scenarios with problems first, then by id.
        let mut rows: Vec<(&str, &BTreeMap<&str, &CaseEntry>)> =
            scenarios.iter().map(|(s, v)| (*s, v)).collect();
        rows.sort_by_key(|(s, byv)| (byv.values().map(|c| rank(class(c))).min(), *s));
        for (scenario, byv) in rows {
            let (_, rest) = area(scenario);
            let _ = write!(
                out,
                "<div class=\"mrow\"><span class=\"scn\" title=\"{}\">{}</span>",
                escape(scenario),
                escape(if rest.is_empty() { scenario } else { rest })
            );
            for v in &versions {
                match byv.get(v) {
                    Some(c) => out.push_str(&cell(c)),
                    None => out.push_str("<span></span>"),
                }
            }
            out.push_str("</div>");
        }
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_area_is_the_second_segment() {
        assert_eq!(area("server/tools/list/title"), ("tools", "list/title"));
        assert_eq!(area("server/ping"), ("ping", ""));
        assert!(rank("fail") < rank("blocked") && rank("blocked") < rank("warn"));
        assert!(is_problem("blocked") && !is_problem("expected_failure"));
    }
}
