//! The end of the human report: the problems in detail, bounded, and the
//! rollup of broken requirements.
//!
//! ```text
//! ── problems (at most 3 per requirement; --json and --report-dir have every case) ──
//! [1] MUST ping.respond: 5 failed
//! FAIL server/lifecycle/ping/after-init @ 2024-11-05, 2025-03-26
//!   A ping is answered with an empty result
//!   MUST ping.respond: …  spec: …  Expected: …  Actual: …  Transcript, last lines: …
//! BLOCK server/tools/list/title @ 2025-06-18 — blocked by SHOULD pagination.cursor.terminates [2]
//!   … and 2 more cases (1 blocked) under ping.respond
//!
//! ── 2 requirements broken (1 MUST, 1 SHOULD) ──
//! [1] MUST ping.respond: 5 failed
//!     A ping is answered with an empty result.
//!     spec: https://…
//!     e.g. server/lifecycle/ping/after-init@2024-11-05
//!       Expected:
//!         - an empty result
//!       Actual: {"ok":true}
//! ```
//!
//! Problem cases that failed alike at several versions are one group;
//! each broken requirement lists at most [`EXAMPLES`] groups (those that
//! broke it themselves first, then those it blocked), then a count of the
//! rest. A blocked group is one line pointing at the rollup entry of what
//! blocked it; it is never shown as a failure of its own requirement.

use mcpspec_engine::Level;
use mcpspec_model::{CaseResult, Outcome};

use crate::rollup::{expected_lines, Broken, Group, Heading, Section, EXAMPLES};

/// How much of the transcript a failure shows: lines, and characters a line.
pub(crate) const EXCERPT_LINES: usize = 12;
const EXCERPT_WIDTH: usize = 400;

/// `text` cut to at most `max` characters, marked when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{} … ({} more bytes)", &text[..i], text.len() - i),
        None => text.to_owned(),
    }
}

/// Colours, or none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paint(pub bool);

impl Paint {
    pub fn with(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub fn level(self, level: Level) -> String {
        let code = match level {
            Level::Must => "1;31",
            Level::Should => "33",
            Level::May => "2",
        };
        self.with(code, level.keyword())
    }
}

/// `[2]`, the rollup entry of `requirement`, or nothing.
fn rank_of(broken: &[Broken], requirement: &str) -> String {
    broken
        .iter()
        .position(|b| b.requirement == requirement)
        .map(|i| format!(" [{}]", i + 1))
        .unwrap_or_default()
}

/// `server/x @ 2024-11-05, 2025-06-18`, or the case id for one version.
fn name(r: &CaseResult, versions: &[String]) -> String {
    if versions.len() > 1 {
        format!("{} @ {}", r.scenario, versions.join(", "))
    } else {
        r.id.clone()
    }
}

/// One problem group in detail; a blocked one in a line.
fn detail(p: Paint, broken: &[Broken], g: &Group<CaseResult>) -> String {
    let r = &g.first;
    let head = format!(
        "{} {}",
        r.outcome.as_str().to_uppercase(),
        name(r, &g.versions)
    );
    if let Outcome::Blocked { by, level } = &r.outcome {
        return format!(
            "{} — blocked by {} {by}{}\n",
            p.with("35", &head),
            p.level(*level),
            rank_of(broken, by)
        );
    }
    let mut text = format!("{}\n  {}\n", p.with("1", &head), r.title);
    text.push_str(&findings_block(r, "  "));
    if !r.transcript.is_empty() {
        let skip = r.transcript.len().saturating_sub(EXCERPT_LINES);
        let at = if g.versions.len() > 1 {
            format!(" at {}", r.version)
        } else {
            String::new()
        };
        let last = if skip > 0 { ", last lines" } else { "" };
        text.push_str(&format!("  Transcript{at}{last}:\n"));
        for line in &r.transcript[skip..] {
            text.push_str(&format!("    {}\n", cut(&line.to_string(), EXCERPT_WIDTH)));
        }
    }
    text
}

/// The problems section; empty when there are none.
pub(crate) fn problems(p: Paint, broken: &[Broken], sections: &[Section<CaseResult>]) -> String {
    if sections.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{}\n",
        p.with(
            "1",
            &format!(
                "── problems (at most {EXAMPLES} per requirement; --json and --report-dir have every case) ──"
            )
        )
    );
    for s in sections {
        let under = match &s.heading {
            Heading::Requirement {
                rank,
                requirement,
                level,
            } => {
                let counts = broken.get(rank - 1).map(Broken::counts).unwrap_or_default();
                out.push_str(&format!(
                    "{} {}\n",
                    p.with("1", &format!("[{rank}]")),
                    p.with("1", &format!("{} {requirement}: {counts}", level.keyword()))
                ));
                format!("under {requirement}")
            }
            Heading::Errors => {
                out.push_str(&format!("{}\n", p.with("1", "could not run")));
                "that errored".to_owned()
            }
            Heading::Other => "more".to_owned(),
        };
        for g in &s.shown {
            out.push_str(&detail(p, broken, g));
            if !matches!(g.first.outcome, Outcome::Blocked { .. }) {
                out.push('\n');
            }
        }
        if s.more_cases > 0 {
            let blocked = if s.more_blocked > 0 {
                format!(" ({} blocked)", s.more_blocked)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "  … and {} more case{}{blocked} {under} (see the report)\n",
                s.more_cases,
                if s.more_cases == 1 { "" } else { "s" }
            ));
        }
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
    }
    // The next heading brings its own blank line.
    out.pop();
    out
}

/// The rollup: each broken requirement once, with one example.
pub(crate) fn rollup(p: Paint, broken: &[Broken]) -> String {
    if broken.is_empty() {
        return String::new();
    }
    let count = |l: Level| broken.iter().filter(|b| b.level == l).count();
    let levels: Vec<String> = [Level::Must, Level::Should]
        .into_iter()
        .filter(|l| count(*l) > 0)
        .map(|l| format!("{} {}", count(l), l.keyword()))
        .collect();
    let n = broken.len();
    let mut out = format!(
        "\n{}\n",
        p.with(
            "1",
            &format!(
                "── {n} requirement{} broken ({}) ──",
                if n == 1 { "" } else { "s" },
                levels.join(", ")
            )
        )
    );
    for (i, b) in broken.iter().enumerate() {
        out.push_str(&format!(
            "{} {} {}: {}\n",
            p.with("1", &format!("[{}]", i + 1)),
            p.level(b.level),
            p.with("1", &b.requirement),
            b.counts()
        ));
        if !b.summary.is_empty() {
            out.push_str(&format!("    {}\n", b.summary));
        }
        if !b.spec_url.is_empty() {
            out.push_str(&format!("    spec: {}\n", b.spec_url));
        }
        let e = &b.example;
        let at = e
            .location
            .as_ref()
            .map(|l| format!(" (at {l})"))
            .unwrap_or_default();
        out.push_str(&format!("    e.g. {}{at}\n", e.case));
        if !e.expected.is_empty() {
            out.push_str("      Expected:\n");
            for x in &e.expected {
                out.push_str(&format!("        - {x}\n"));
            }
        }
        out.push_str(&format!(
            "      Actual: {}\n",
            cut(&e.actual, EXCERPT_WIDTH).replace('\n', "\n        ")
        ));
    }
    out
}

/// Why a case did not pass, as the human report prints it and JUnit quotes
/// it: what blocked it, or who is at fault for an error, then each finding
/// with its level, requirement, spec link, location, Expected (without a
/// line that repeats the summary) and Actual. `lead` indents the first
/// line of each entry.
pub(crate) fn findings_block(r: &CaseResult, lead: &str) -> String {
    let mut text = String::new();
    match &r.outcome {
        Outcome::Error { blame, message } => {
            text.push_str(&format!("{lead}{} at fault: {message}\n", blame.as_str()));
        }
        Outcome::Blocked { by, level } => {
            text.push_str(&format!(
                "{lead}blocked by {level} {by}: the target broke it before the case could check \
                 its own requirement\n"
            ));
        }
        _ => {}
    }
    for f in &r.findings {
        text.push_str(&format!(
            "{lead}{} {}: {}\n",
            f.level, f.requirement, f.summary
        ));
        if !f.spec_url.is_empty() {
            text.push_str(&format!("  spec: {}\n", f.spec_url));
        }
        if let Some(loc) = &f.location {
            text.push_str(&format!("  at: {loc}\n"));
        }
        let expected = expected_lines(f);
        if !expected.is_empty() {
            text.push_str("  Expected:\n");
            for e in expected {
                text.push_str(&format!("    - {e}\n"));
            }
        }
        // A multi-line Actual (a snapshot diff) stays indented under its heading.
        text.push_str(&format!("  Actual: {}\n", f.actual.replace('\n', "\n    ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_on_a_char_boundary() {
        assert_eq!(cut("abc", 5), "abc");
        assert_eq!(cut("aé€xyz", 3), "aé€ … (3 more bytes)");
    }
}
