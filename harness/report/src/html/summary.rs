//! The top of `index.html`, written into the page (no script needed): the
//! sticky header with the verdict and totals, the banners (no case could
//! run; interrupted), and the rollup of broken requirements.

use std::fmt::Write as _;

use crate::model::{LevelName, Report, RollupEntry};

use super::{case_href, escape};

/// The verdict a report comes to, and its CSS class.
fn verdict(report: &Report) -> (&'static str, &'static str) {
    if report.interrupted {
        return ("interrupted", "v-stop");
    }
    if report.run.unavailable.is_some() && report.results.is_empty() {
        return ("nothing could be judged", "v-error");
    }
    match report.run.exit_code {
        0 => ("conforming", "v-pass"),
        1 => ("not conforming", "v-fail"),
        2 => ("harness or scenario error", "v-error"),
        _ => ("could not be judged", "v-error"),
    }
}

/// `<header>`: verdict, target, totals (`#count-<outcome>`), run metadata.
pub(super) fn header(report: &Report) -> String {
    let (verdict, class) = verdict(report);
    let s = &report.summary;
    let mut out = String::from("<header id=\"top\">\n<div class=\"headline\">");
    let _ = write!(
        out,
        "<span class=\"verdict {class}\" id=\"verdict\">{} · exit {}</span>",
        escape(verdict),
        report.run.exit_code
    );
    let _ = writeln!(
        out,
        "<h1>mcpspec report: <span id=\"target\">{}</span></h1></div>",
        escape(&report.run.target)
    );
    out.push_str("<div class=\"totals\" id=\"totals\">");
    let mut counts = vec![
        ("fail", "failed", s.failed),
        ("error", "errored", s.errored),
        ("blocked", "blocked", s.blocked),
        ("warn", "warned", s.warned),
        ("pass", "passed", s.passed),
        ("not_applicable", "not applicable", s.not_applicable),
    ];
    if report.baseline.is_some() {
        counts.push(("expected_failure", "expected failures", s.expected_failures));
        counts.push(("flaky", "flaky (tolerated failures)", s.flaky));
        counts.push((
            "stale_expectation",
            "stale expectations",
            s.stale_expectations,
        ));
    }
    for (key, label, n) in counts {
        let zero = if n == 0 { " zero" } else { "" };
        let _ = write!(
            out,
            "<span class=\"count c-{key}{zero}\"><strong id=\"count-{key}\">{n}</strong> {label}</span>"
        );
    }
    out.push_str("</div>\n");
    let r = &report.run;
    let state = if report.interrupted {
        format!(
            " · interrupted ({})",
            r.interrupted_by.as_deref().unwrap_or("stopped")
        )
    } else if report.complete {
        String::new()
    } else {
        " · run cut short".to_owned()
    };
    let _ = writeln!(
        out,
        "<div class=\"meta\" id=\"meta\">mcpspec {} · started {} · {:.2}s · {} jobs · strict: {}{}</div>",
        escape(&r.mcpspec_version),
        escape(&r.started_at),
        r.wall_ms as f64 / 1000.0,
        r.jobs,
        if r.strict { "yes" } else { "no" },
        escape(&state)
    );
    out.push_str("</header>\n");
    out
}

/// The banners: no case could run (reason and probe), interrupted.
pub(super) fn banners(report: &Report) -> String {
    let mut out = String::new();
    if let Some(reason) = &report.run.unavailable {
        let _ = write!(
            out,
            "<section class=\"banner unavailable\" id=\"unavailable\"><h2>No case could run</h2>\
             <p class=\"reason\">{}</p>",
            escape(reason)
        );
        if !report.probes.is_empty() {
            out.push_str("<table class=\"probes\"><tr><th>version</th><th>probe</th></tr>");
            for p in &report.probes {
                let state = if p.supported {
                    "offered"
                } else {
                    "not offered"
                };
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td>{state}: {}</td></tr>",
                    escape(&p.version),
                    escape(&p.detail)
                );
            }
            out.push_str("</table>");
        }
        out.push_str("</section>\n");
    }
    if report.interrupted {
        let _ = writeln!(
            out,
            "<p class=\"interrupted\" id=\"interrupted\">Interrupted ({}): {} of {} planned \
             cases finished; the others did not run.</p>",
            escape(report.run.interrupted_by.as_deref().unwrap_or("stopped")),
            report.results.len(),
            report.run.planned
        );
    }
    out
}

fn level(l: LevelName) -> (&'static str, &'static str) {
    match l {
        LevelName::Must => ("must", "MUST"),
        LevelName::Should => ("should", "SHOULD"),
        LevelName::May => ("may", "MAY"),
    }
}

/// A link when `url` is a plain http(s) URL, else the text.
fn spec_link(text: &str, url: &str) -> String {
    let safe = (url.starts_with("https://") || url.starts_with("http://"))
        && !url.contains(|c: char| c.is_whitespace() || c.is_control() || "<>\"'`".contains(c));
    if safe {
        format!(
            "<a class=\"req\" href=\"{}\" rel=\"noreferrer\" target=\"_blank\">{}</a>",
            escape(url),
            escape(text)
        )
    } else {
        format!("<span class=\"req\">{}</span>", escape(text))
    }
}

fn rollup_row(rank: usize, b: &RollupEntry) -> String {
    let (class, keyword) = level(b.level);
    let mut out = format!(
        "<tr id=\"req-{}\" class=\"l-{class}\"><td class=\"rank\">{rank}</td>\
         <td><span class=\"lvl {class}\">{keyword}</span></td><td>{}<div class=\"summary\">{}</div></td>",
        escape(&b.requirement),
        spec_link(&b.requirement, &b.spec_url),
        escape(&b.summary)
    );
    for n in [b.failed, b.warned, b.blocked] {
        let zero = if n == 0 { " zero" } else { "" };
        let _ = write!(out, "<td class=\"n{zero}\">{n}</td>");
    }
    let e = &b.example;
    let _ = write!(
        out,
        "<td class=\"example\"><a class=\"case-link\" href=\"{}\" data-case=\"{}\">{}</a>",
        escape(&case_href(&e.case)),
        escape(&e.case),
        escape(&e.case)
    );
    if !e.expected.is_empty() {
        out.push_str("<div>Expected: ");
        let items: Vec<String> = e.expected.iter().map(|x| escape(x)).collect();
        out.push_str(&items.join("; "));
        out.push_str("</div>");
    }
    let _ = writeln!(
        out,
        "<div class=\"actual\">Actual: {}</div></td></tr>",
        escape(&e.actual)
    );
    out
}

/// The rollup: each broken requirement once, MUST first.
pub(super) fn rollup(report: &Report) -> String {
    if report.rollup.is_empty() {
        if report.results.is_empty() {
            return String::new();
        }
        return format!(
            "<section id=\"rollup\" class=\"clean\"><h2>No requirement broken</h2>\
             <p>{} passed, {} not applicable, {} errored.</p></section>\n",
            report.summary.passed, report.summary.not_applicable, report.summary.errored
        );
    }
    let mut out = format!(
        "<section id=\"rollup\"><h2>Broken requirements ({})</h2>\n\
         <table class=\"rollup\"><thead><tr><th>#</th><th>level</th><th>requirement</th>\
         <th>failed</th><th>warned</th><th>blocked</th><th>example</th></tr></thead><tbody>\n",
        report.rollup.len()
    );
    for (i, b) in report.rollup.iter().enumerate() {
        out.push_str(&rollup_row(i + 1, b));
    }
    out.push_str("</tbody></table></section>\n");
    out
}
