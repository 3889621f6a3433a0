//! `summary.md`: made for a CI step summary (`cat summary.md >>
//! "$GITHUB_STEP_SUMMARY"`): a headline with the verdict, a totals table,
//! the broken requirements (the rollup: each once, with its level, spec
//! link, failed / warned / blocked cases and one example), then the
//! problems grouped (stale expectations, failures, blocked, errors,
//! warnings, expected failures), at most [`EXAMPLES`] per requirement,
//! each with a compact Expected / Actual. A blocked case is one line naming
//! what blocked it and its rollup entry. An interrupted run (Ctrl-C) says
//! so in the headline (`## mcpspec: interrupted (exit 130)`) and a line
//! below it; a run in which no case could run opens with a banner giving
//! the reason and what the version probe learnt.
//!
//! GitHub caps a step summary at 1 MiB: the text stops at [`LIMIT`] bytes,
//! at a case boundary, with a note saying how many problems were left out
//! (report.json has them all). Every target-supplied text is escaped, so it
//! can neither format nor inject HTML.

use std::fmt::Write as _;

use mcpspec_model::{CaseResult, Exit, Outcome};

use crate::baseline::Expectation;
use crate::log::{rfc3339, Judged, RunLog};
use crate::rollup::{self, expected_lines, Broken, EXAMPLES};

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

fn result<'a>(j: &'a &Judged) -> &'a CaseResult {
    &j.result
}

/// What makes cases of one scenario "the same problem" at several
/// versions ([`rollup::signature`]), with the baseline entry.
fn signature(j: &&Judged) -> String {
    let extra = format!("{:?}", j.expectation.map(|e| (e.as_str(), e.entry())));
    rollup::signature(&j.result, &extra)
}

/// Groups shown (a case and its versions), and per requirement the cases
/// left out.
type Grouped<'a> = (Vec<(&'a Judged, Vec<String>)>, Vec<(String, usize)>);

/// `cases` with the same problem at several versions shown once (the
/// first case and every version), at most [`EXAMPLES`] groups per
/// requirement; then, per requirement, the cases left out.
fn grouped(cases: Vec<&Judged>) -> Grouped<'_> {
    let mut shown = Vec::new();
    let mut per: Vec<(String, usize, usize)> = Vec::new();
    for g in rollup::group(cases, result, signature) {
        let key = rollup::primary(&g.first.result).map_or_else(String::new, |(req, _)| req);
        let i = match per.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                per.push((key, 0, 0));
                per.len() - 1
            }
        };
        if per[i].1 < EXAMPLES || per[i].0.is_empty() {
            per[i].1 += 1;
            shown.push((g.first, g.versions));
        } else {
            per[i].2 += g.versions.len();
        }
    }
    let more = per
        .into_iter()
        .filter(|(_, _, more)| *more > 0)
        .map(|(k, _, more)| (k, more))
        .collect();
    (shown, more)
}

/// ` (rollup 2)`: where `requirement` is in the rollup.
fn rank_of(broken: &[Broken], requirement: &str) -> String {
    broken
        .iter()
        .position(|b| b.requirement == requirement)
        .map(|i| format!(" (rollup {})", i + 1))
        .unwrap_or_default()
}

/// A blocked group: one line.
fn blocked_line(broken: &[Broken], j: &Judged, versions: &[String]) -> String {
    let r = &j.result;
    let (by, level) = match &r.outcome {
        Outcome::Blocked { by, level } => (by.as_str(), *level),
        _ => ("", mcpspec_engine::Level::May),
    };
    let url = r
        .findings
        .iter()
        .find(|f| f.requirement == by)
        .map_or("", |f| f.spec_url.as_str());
    format!(
        "- {} — blocked by **{level}** {}{}\n",
        escape(&case_name(r, versions), ITEM_MAX),
        link(by, url),
        rank_of(broken, by)
    )
}

fn case_name(r: &CaseResult, versions: &[String]) -> String {
    if versions.len() > 1 {
        format!("{} @ {}", r.scenario, versions.join(", "))
    } else {
        r.id.clone()
    }
}

fn case_block(log: &RunLog, j: &Judged, versions: &[String]) -> String {
    let r = &j.result;
    let name = case_name(r, versions);
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
    if !j.attempts.is_empty() {
        let steady = if j.steady() {
            " (passed every attempt: a candidate to remove from the baseline)"
        } else {
            ""
        };
        let _ = writeln!(s, "- **attempts:** {}{steady}", j.attempts_text());
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
        let expected = expected_lines(f);
        if !expected.is_empty() {
            let items: Vec<String> = expected.iter().map(|e| escape(e, ITEM_MAX)).collect();
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
    let mut blocked = Vec::new();
    let mut errored = Vec::new();
    let mut warned = Vec::new();
    let mut expected = Vec::new();
    let mut flaky = Vec::new();
    for j in log.sorted() {
        match (j.expectation, &j.result.outcome) {
            (Some(Expectation::Stale(_)), _) => stale.push(j),
            (Some(Expectation::ExpectedFailure(_)), _) => expected.push(j),
            (Some(Expectation::Flaky(_)), _) => flaky.push(j),
            (_, Outcome::Fail) => failed.push(j),
            (_, Outcome::Blocked { .. }) => blocked.push(j),
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
        (
            "Blocked (the target broke another requirement first)",
            blocked,
        ),
        ("Errors", errored),
        (warn_title, warned),
        ("Expected failures (baseline)", expected),
        (
            "Flaky (baseline; candidates to remove passed every attempt)",
            flaky,
        ),
    ]
}

/// The cases the rollup counts: all but the baseline's expected failures.
fn counted(log: &RunLog) -> Vec<&CaseResult> {
    log.cases
        .iter()
        .filter(|j| !j.expectation.is_some_and(Expectation::tolerated))
        .map(|j| &j.result)
        .collect()
}

/// The banner of a run in which no case could run.
fn unavailable(log: &RunLog, reason: &str) -> String {
    let mut out = format!("> **No case could run:** {}\n>\n", escape(reason, ITEM_MAX));
    if !log.probes.is_empty() {
        out.push_str("> | version | probe |\n> |---|---|\n");
        for p in &log.probes {
            let state = if p.supported {
                "offered"
            } else {
                "not offered"
            };
            let _ = writeln!(
                out,
                "> | {} | {state}: {} |",
                p.version,
                escape(&p.detail, ITEM_MAX)
            );
        }
    }
    out.push('\n');
    out
}

/// The rollup: each broken requirement once, in at most `budget` bytes
/// (then a note of how many were left out).
fn broken_section(broken: &[Broken], budget: usize) -> String {
    let mut out = format!("### Broken requirements: {}\n\n", broken.len());
    for (i, b) in broken.iter().enumerate() {
        let mut entry = format!(
            "{}. **{}** {}: {} — {}\n",
            i + 1,
            b.level,
            link(&b.requirement, &b.spec_url),
            b.counts(),
            escape(&b.summary, ITEM_MAX)
        );
        let e = &b.example;
        let _ = write!(entry, "   - e.g. {}", escape(&e.case, ITEM_MAX));
        if !e.expected.is_empty() {
            let items: Vec<String> = e.expected.iter().map(|x| escape(x, ITEM_MAX)).collect();
            let _ = write!(entry, " — Expected: {}", items.join("; "));
        }
        let _ = writeln!(entry, " — Actual: {}", escape(&e.actual, ITEM_MAX));
        if out.len() + entry.len() > budget {
            let _ = writeln!(
                out,
                "\n_… and {} more broken requirement(s); report.json has them all._",
                broken.len() - i
            );
            break;
        }
        out.push_str(&entry);
    }
    out.push('\n');
    out
}

/// The summary, at most `limit` bytes.
pub fn render(log: &RunLog, limit: usize) -> String {
    let s = &log.summary;
    let code = log.exit_code();
    let verdict = if log.interrupted.is_some() {
        "interrupted"
    } else if s.unavailable.is_some() && s.total() == 0 {
        "nothing could be judged"
    } else if code == Exit::Success {
        "conforming"
    } else {
        "not conforming"
    };
    let mut out = format!(
        "## mcpspec: {verdict} (exit {code}){}\n\n",
        if log.complete() || log.interrupted.is_some() {
            ""
        } else {
            " — run cut short"
        }
    );
    if let Some(reason) = &s.unavailable {
        out.push_str(&unavailable(log, reason));
    }
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
        ("blocked", s.blocked),
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
    let broken = rollup::rollup(counted(log));
    if !broken.is_empty() {
        // Half of what is left at most: the cases need room too.
        out.push_str(&broken_section(
            &broken,
            limit.saturating_sub(out.len()) / 2,
        ));
    }
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
        let (shown, more) = grouped(cases);
        for (j, versions) in shown {
            let block = if matches!(j.result.outcome, Outcome::Blocked { .. }) {
                blocked_line(&broken, j, &versions)
            } else {
                case_block(log, j, &versions)
            };
            if left_out > 0 || out.len() + block.len() > limit {
                left_out += versions.len();
            } else {
                out.push_str(&block);
            }
        }
        if !more.is_empty() && left_out == 0 {
            for (requirement, n) in more {
                let _ = writeln!(
                    out,
                    "- _… and {n} more case(s) under {} (report.json has every case)_",
                    escape(&requirement, ITEM_MAX)
                );
            }
        }
        if !out.ends_with("\n\n") {
            out.push('\n');
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
mod tests;
