//! `summary.md`: made for a CI step summary (`cat summary.md >>
//! "$GITHUB_STEP_SUMMARY"`): a headline, a totals table, then the problems
//! grouped (stale expectations, failures, errors, warnings, expected
//! failures), each with its requirements linked to the specification and a
//! compact Expected / Actual. An interrupted run (Ctrl-C) says so in the
//! headline (`## mcpspec: interrupted (exit 130)`) and a line below it.
//!
//! GitHub caps a step summary at 1 MiB: the text stops at [`LIMIT`] bytes,
//! at a case boundary, with a note saying how many problems were left out
//! (report.json has them all). Every target-supplied text is escaped, so it
//! can neither format nor inject HTML.

use std::fmt::Write as _;

use mcpspec_model::{Exit, Outcome};

use crate::baseline::Expectation;
use crate::log::{rfc3339, Judged, RunLog};

/// The most bytes written (under GitHub's 1 MiB, with room for the note).
pub const LIMIT: usize = 1_000_000;
/// Characters kept of one Actual or Expected item.
const ITEM_MAX: usize = 300;

/// `text` as inert Markdown on one line: the characters that format
/// (`` \ ` * _ [ ] | # ~ ! ``) backslash-escaped, `<`, `>` and `&` as
/// entities, line breaks as spaces, cut at `max` characters. Escaped text
/// never starts a line, so `-`, `+` and digits stay plain.
pub fn escape(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A link to `url` when it is a plain http(s) URL, else the escaped text.
fn link(text: &str, url: &str) -> String {
    let safe = (url.starts_with("https://") || url.starts_with("http://"))
        && !url.contains(|c: char| c.is_whitespace() || c.is_control() || "<>()\"'`".contains(c));
    if safe {
        format!("[{}]({url})", escape(text, ITEM_MAX))
    } else {
        escape(text, ITEM_MAX)
    }
}

/// What makes cases of one scenario "the same problem" at several
/// versions: outcome, baseline entry, and the rules broken with what was
/// expected (actual texts may differ in timings).
fn signature(j: &Judged) -> String {
    let r = &j.result;
    let mut key = format!(
        "{}|{}|{:?}",
        r.scenario,
        r.outcome.as_str(),
        j.expectation.map(|e| (e.as_str(), e.entry()))
    );
    for f in &r.findings {
        let _ = write!(key, "|{}|{}|{:?}", f.requirement, f.level, f.expected);
    }
    key
}

/// `cases` (sorted by id) with the same problem at several versions
/// shown once: the first case and every version.
fn grouped(cases: Vec<&Judged>) -> Vec<(&Judged, Vec<&'static str>)> {
    let mut out: Vec<(&Judged, Vec<&'static str>, String)> = Vec::new();
    for j in cases {
        let key = signature(j);
        let version = j.result.version.as_str();
        match out.iter_mut().find(|(_, _, k)| *k == key) {
            Some((_, versions, _)) => versions.push(version),
            None => out.push((j, vec![version], key)),
        }
    }
    out.into_iter().map(|(j, v, _)| (j, v)).collect()
}

fn case_block(log: &RunLog, j: &Judged, versions: &[&str]) -> String {
    let r = &j.result;
    let name = if versions.len() > 1 {
        format!("{} @ {}", r.scenario, versions.join(", "))
    } else {
        r.id.clone()
    };
    let mut s = format!(
        "#### {} — {}\n\n",
        escape(&name, ITEM_MAX),
        escape(&r.title, ITEM_MAX)
    );
    if let Some(e) = j.expectation.and_then(|x| log.entry(x).map(|e| (x, e))) {
        let (x, entry) = e;
        let _ = writeln!(
            s,
            "- **{}** (baseline entry {} at {}): {}",
            x.label(),
            escape(&entry.pattern, ITEM_MAX),
            escape(&entry.origin, ITEM_MAX),
            escape(&entry.reason, ITEM_MAX)
        );
    }
    if let Outcome::Error { blame, message } = &r.outcome {
        let _ = writeln!(
            s,
            "- **error**, {} at fault: {}",
            blame.as_str(),
            escape(message, ITEM_MAX)
        );
    }
    for f in &r.findings {
        let _ = writeln!(
            s,
            "- **{}** {}: {}",
            f.level,
            link(&f.requirement, &f.spec_url),
            escape(&f.summary, ITEM_MAX)
        );
        if !f.expected.is_empty() {
            let items: Vec<String> = f.expected.iter().map(|e| escape(e, ITEM_MAX)).collect();
            let _ = writeln!(s, "  - Expected: {}", items.join("; "));
        }
        let _ = writeln!(s, "  - Actual: {}", escape(&f.actual, ITEM_MAX));
    }
    s.push('\n');
    s
}

/// The sections, in order: title, and the cases that belong there.
fn sections(log: &RunLog) -> Vec<(&'static str, Vec<&Judged>)> {
    let mut stale = Vec::new();
    let mut failed = Vec::new();
    let mut errored = Vec::new();
    let mut warned = Vec::new();
    let mut expected = Vec::new();
    for j in log.sorted() {
        match (j.expectation, &j.result.outcome) {
            (Some(Expectation::Stale(_)), _) => stale.push(j),
            (Some(Expectation::ExpectedFailure(_)), _) => expected.push(j),
            (_, Outcome::Fail) => failed.push(j),
            (_, Outcome::Error { .. }) => errored.push(j),
            (_, Outcome::Warn) => warned.push(j),
            _ => {}
        }
    }
    let warn_title = if log.strict {
        "Warnings (SHOULD; failures under --strict)"
    } else {
        "Warnings (SHOULD)"
    };
    vec![
        ("Stale expectations (listed as failing, but passed)", stale),
        ("Failures (MUST)", failed),
        ("Errors", errored),
        (warn_title, warned),
        ("Expected failures (baseline)", expected),
    ]
}

/// The summary, at most `limit` bytes.
pub fn render(log: &RunLog, limit: usize) -> String {
    let s = &log.summary;
    let code = log.exit_code();
    let verdict = if code == Exit::Success {
        "conforming"
    } else {
        "not conforming"
    };
    let verdict = if log.interrupted.is_some() {
        "interrupted"
    } else {
        verdict
    };
    let mut out = format!(
        "## mcpspec: {verdict} (exit {code}){}\n\n",
        if log.complete() || log.interrupted.is_some() {
            ""
        } else {
            " — run cut short"
        }
    );
    if let Some((reason, _)) = &log.interrupted {
        let _ = writeln!(
            out,
            "**Interrupted** ({}): {} of {} planned cases finished; the others did not run.\n",
            escape(reason, ITEM_MAX),
            log.cases.len(),
            log.planned
        );
    }
    let _ = writeln!(
        out,
        "Target: {} · mcpspec {} · started {} · {:.2}s · strict: {}\n",
        escape(&log.target, ITEM_MAX),
        env!("CARGO_PKG_VERSION"),
        rfc3339(log.started_at),
        log.wall().as_secs_f64(),
        if log.strict { "yes" } else { "no" }
    );
    out.push_str("| outcome | cases |\n|---|---:|\n");
    for (name, n) in [
        ("pass", s.passed),
        ("fail", s.failed),
        ("warn", s.warned),
        ("not applicable", s.not_applicable),
        ("error", s.errored),
    ] {
        let _ = writeln!(out, "| {name} | {n} |");
    }
    if log.baseline.is_some() {
        let _ = writeln!(
            out,
            "| expected failure (baseline) | {} |",
            log.tally.expected_total()
        );
        let _ = writeln!(out, "| stale expectation | {} |", log.tally.stale);
    }
    out.push('\n');
    let mut left_out = 0usize;
    for (title, cases) in sections(log) {
        if cases.is_empty() {
            continue;
        }
        let head = format!("### {title}: {}\n\n", cases.len());
        if left_out > 0 || out.len() + head.len() > limit {
            left_out += cases.len();
            continue;
        }
        out.push_str(&head);
        for (j, versions) in grouped(cases) {
            let block = case_block(log, j, &versions);
            if left_out > 0 || out.len() + block.len() > limit {
                left_out += versions.len();
            } else {
                out.push_str(&block);
            }
        }
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "\n_Truncated: {left_out} more case(s) left out to stay within the step summary limit; report.json has every case._"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_text_is_inert() {
        assert_eq!(
            escape("<img src=x> *b* [l](u)\n`c`", 100),
            "&lt;img src=x&gt; \\*b\\* \\[l\\](u) \\`c\\`"
        );
        assert_eq!(escape("abcdef", 3), "abc…");
        assert_eq!(link("r", "javascript:alert(1)"), "r");
        assert_eq!(link("a.b", "https://x/y#z"), "[a.b](https://x/y#z)");
    }
}

#[cfg(test)]
mod truncation {
    use super::*;
    use mcpspec_engine::{Level, Version};
    use mcpspec_model::{CaseResult, Event, Finding, FindingSource};
    use std::time::Duration;

    fn failing(n: usize) -> CaseResult {
        CaseResult {
            id: format!("server/s{n}@2025-06-18"),
            scenario: format!("server/s{n}"),
            title: "t".into(),
            version: Version::V2025_06_18,
            level: Level::Must,
            requirements: vec!["r".into()],
            outcome: Outcome::Fail,
            findings: vec![Finding {
                requirement: "r".into(),
                level: Level::Must,
                spec_url: "https://x/y".into(),
                summary: "s".into(),
                expected: vec!["e".into()],
                actual: "a".repeat(200),
                location: None,
                source: FindingSource::Step,
            }],
            duration: Duration::ZERO,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn a_long_summary_stops_at_the_limit_with_a_note() {
        let mut log = RunLog::new(false, None);
        for n in 0..100 {
            log.observe(&Event::CaseFinished(Box::new(failing(n))));
        }
        let full = render(&log, LIMIT);
        assert!(!full.contains("Truncated"));
        let cut = render(&log, 4000);
        assert!(cut.len() < 4000 + 200, "{}", cut.len());
        assert!(cut.contains("more case(s) left out"), "{cut}");
        assert!(cut.contains("#### server/s0@2025-06-18"));
    }
}
