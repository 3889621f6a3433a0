//! `mcpspec coverage --against official`: what the official conformance
//! suite checks, scenario by scenario, and which mcpspec scenarios judge the
//! same rule — or why none does.
//!
//! ```text
//!  schema/parity/official-<pinned>.yaml ──► Entry (official scenario, role, revisions,
//!     (data, embedded in the binary)          the rule it checks, mcpspec ids, status, note)
//!                                        ──► checked against the loaded scenarios
//!                                        ──► a table per revision × role, the entries,
//!                                            --json, or --markdown (the README's table)
//! ```
//!
//! The official suite is pinned ([`PINNED`]): its frozen requirement sets
//! (`requirements/2025-11-25.yaml`, `requirements/2026-07-28.yaml`) name the
//! scenarios, and each entry says in our own words which rule the scenario
//! checks. A status says how mcpspec stands: `mapped` (the same rule is
//! judged, against any implementation), `partial` (some of it; the note says
//! what is not), `fixture` (all but the exact content of the official
//! fixture's named tools, resources and prompts), `beyond-spec` (the
//! official scenario asserts what no sentence of the specification requires,
//! so a conforming implementation could fail it; the note quotes the spec
//! sections that do apply and the cases that judge them), `missing`, `auth`
//! (authorization: its own issue) or `extension`. Every mcpspec id the map
//! names must be a scenario id, or an id prefix ending in `/` that selects
//! some: the command refuses the map otherwise (exit 2), so a renamed
//! scenario cannot leave a stale claim behind.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use mcpspec_model::Exit;
use mcpspec_scenario::Scenario;
use serde::{Deserialize, Serialize};

use crate::requirements::emit;

/// The official package the map was read from.
pub const PINNED: &str = "@modelcontextprotocol/conformance 0.2.0-alpha.12";
/// Where the map is kept, relative to the repository root.
pub const PATH: &str = "schema/parity/official-0.2.0-alpha.12.yaml";
// `parity` is a symlink to the repository's schema/parity (packaged with the crate).
const DATA: &str = include_str!("../parity/official-0.2.0-alpha.12.yaml");

/// The revisions the official suite keeps frozen requirement sets for.
const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];
const ROLES: [&str; 2] = ["server", "client"];

/// How mcpspec stands on one official scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Mapped,
    Partial,
    Fixture,
    #[serde(rename = "beyond-spec")]
    BeyondSpec,
    Missing,
    Auth,
    Extension,
}

impl Status {
    const ALL: [Status; 7] = [
        Status::Mapped,
        Status::Partial,
        Status::Fixture,
        Status::BeyondSpec,
        Status::Missing,
        Status::Auth,
        Status::Extension,
    ];

    fn as_str(self) -> &'static str {
        match self {
            Status::Mapped => "mapped",
            Status::Partial => "partial",
            Status::Fixture => "fixture",
            Status::BeyondSpec => "beyond-spec",
            Status::Missing => "missing",
            Status::Auth => "auth",
            Status::Extension => "extension",
        }
    }
}

/// One official scenario in one role.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub official: String,
    pub role: String,
    /// The frozen requirement sets that name it.
    pub revisions: Vec<String>,
    /// False for a `not_scored` entry (then `official_reason` says why).
    pub scored: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub official_reason: Option<String>,
    /// The rule it checks, in our words.
    pub checks: String,
    /// mcpspec scenario ids, or id prefixes ending in `/`.
    pub mcpspec: Vec<String>,
    pub status: Status,
    /// A revision whose status differs from `status`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_revision: BTreeMap<String, Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Entry {
    fn status_at(&self, revision: &str) -> Status {
        self.by_revision
            .get(revision)
            .copied()
            .unwrap_or(self.status)
    }
}

/// The map, parsed and checked against `scenarios`: every problem, one line
/// each, when it does not hold.
pub fn load(scenarios: &[Arc<Scenario>]) -> Result<Vec<Entry>, Vec<String>> {
    let entries: Vec<Entry> =
        serde_saphyr::from_str(DATA).map_err(|e| vec![format!("{PATH}: {e}")])?;
    check(entries, scenarios)
}

/// The rules every entry of a map must keep.
fn check(entries: Vec<Entry>, scenarios: &[Arc<Scenario>]) -> Result<Vec<Entry>, Vec<String>> {
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for e in &entries {
        let name = format!("{} ({})", e.official, e.role);
        if !seen.insert((e.official.clone(), e.role.clone())) {
            problems.push(format!("{name}: listed twice"));
        }
        if !ROLES.contains(&e.role.as_str()) {
            problems.push(format!("{name}: unknown role {:?}", e.role));
        }
        for r in e.revisions.iter().chain(e.by_revision.keys()) {
            if !REVISIONS.contains(&r.as_str()) {
                problems.push(format!("{name}: unknown revision {r:?}"));
            }
        }
        if e.scored == e.official_reason.is_some() {
            problems.push(format!(
                "{name}: an official_reason is given exactly when it is not scored"
            ));
        }
        let needs_ids = matches!(e.status, Status::Mapped | Status::Partial | Status::Fixture);
        if needs_ids && e.mcpspec.is_empty() {
            problems.push(format!(
                "{name}: {} names no mcpspec scenario",
                e.status.as_str()
            ));
        }
        let needs_note = matches!(
            e.status,
            Status::Partial | Status::Fixture | Status::BeyondSpec | Status::Missing
        );
        if needs_note && e.note.is_none() {
            problems.push(format!(
                "{name}: {} needs a note on what is not judged and why",
                e.status.as_str()
            ));
        }
        for id in &e.mcpspec {
            let known = scenarios
                .iter()
                .any(|s| s.id == *id || (id.ends_with('/') && s.id.starts_with(id.as_str())));
            if !known {
                problems.push(format!("{name}: no mcpspec scenario {id:?}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(entries)
    } else {
        Err(problems)
    }
}

/// Entries per status, for one revision and role.
fn counts(entries: &[Entry], revision: &str, role: &str, scored: bool) -> BTreeMap<Status, usize> {
    let mut out = BTreeMap::new();
    for e in entries.iter().filter(|e| {
        e.role == role && e.scored == scored && e.revisions.iter().any(|r| r == revision)
    }) {
        *out.entry(e.status_at(revision)).or_default() += 1;
    }
    out
}

/// The summary as a Markdown table (the README's): one row per revision,
/// role and scoring.
pub fn markdown(entries: &[Entry]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| revision | role | scenarios | {} |",
        Status::ALL.map(Status::as_str).join(" | ")
    );
    let _ = writeln!(out, "|---|---|---|{}", "---|".repeat(Status::ALL.len()));
    for revision in REVISIONS {
        for role in ROLES {
            for scored in [true, false] {
                let c = counts(entries, revision, role, scored);
                let total: usize = c.values().sum();
                if total == 0 {
                    continue;
                }
                let cells: Vec<String> = Status::ALL
                    .iter()
                    .map(|s| c.get(s).copied().unwrap_or(0).to_string())
                    .collect();
                let which = if scored { "scored" } else { "not scored" };
                let _ = writeln!(
                    out,
                    "| {revision} | {role} | {total} {which} | {} |",
                    cells.join(" | ")
                );
            }
        }
    }
    out
}

/// `coverage --against official`.
pub fn run(scenarios: &[Arc<Scenario>], json: bool, markdown_only: bool) -> Exit {
    let entries = match load(scenarios) {
        Ok(e) => e,
        Err(problems) => {
            for p in problems {
                eprintln!("error: {PATH}: {p}");
            }
            return Exit::Usage;
        }
    };
    if json {
        let doc = serde_json::json!({ "official": PINNED, "map": PATH, "entries": entries });
        return match serde_json::to_string_pretty(&doc) {
            Ok(text) => emit(&(text + "\n")),
            Err(e) => {
                eprintln!("error: failed to print JSON: {e}");
                Exit::Usage
            }
        };
    }
    if markdown_only {
        return emit(&markdown(&entries));
    }
    let mut out = format!("parity with {PINNED} (the map: {PATH})\n\n");
    out.push_str(&markdown(&entries));
    for role in ROLES {
        let _ = writeln!(out, "\n── {role} scenarios");
        let mut mine: Vec<&Entry> = entries.iter().filter(|e| e.role == role).collect();
        mine.sort_by(|a, b| (a.status, &a.official).cmp(&(b.status, &b.official)));
        for e in mine {
            let scored = if e.scored { "" } else { ", not scored" };
            let _ = writeln!(
                out,
                "{:<9} {} ({}{scored})",
                e.status.as_str(),
                e.official,
                e.revisions.join(", ")
            );
            let _ = writeln!(out, "          checks: {}", e.checks);
            if !e.mcpspec.is_empty() {
                let _ = writeln!(out, "          mcpspec: {}", e.mcpspec.join(", "));
            }
            for (r, s) in &e.by_revision {
                let _ = writeln!(out, "          at {r}: {}", s.as_str());
            }
            if let Some(note) = &e.note {
                let _ = writeln!(out, "          note: {note}");
            }
        }
    }
    emit(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without the scenarios it names, the map is refused, entry by entry:
    /// a renamed or deleted scenario cannot leave a stale claim behind.
    #[test]
    fn a_map_naming_scenarios_that_do_not_exist_is_refused() {
        let problems = load(&[]).expect_err("no scenario exists");
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("ping (server): no mcpspec scenario")),
            "{problems:#?}"
        );
        assert!(problems.iter().all(|p| p.contains("no mcpspec scenario")));
    }

    /// A status that leaves a rule unjudged must say why: `beyond-spec`
    /// without the spec sections it weighed is an unexplained gap.
    #[test]
    fn an_unexplained_gap_is_refused() {
        let entries: Vec<Entry> = serde_saphyr::from_str(
            "- {official: x, role: client, revisions: [2025-11-25], scored: true, checks: c, mcpspec: [], status: beyond-spec}\n\
             - {official: y, role: client, revisions: [2025-11-25], scored: true, checks: c, mcpspec: [], status: missing, note: why}\n",
        )
        .expect("parses");
        let problems = check(entries, &[]).expect_err("x has no note");
        assert_eq!(
            problems,
            ["x (client): beyond-spec needs a note on what is not judged and why"]
        );
    }

    /// Each count row adds up to the entries of its revision and role.
    #[test]
    fn the_summary_counts_every_entry_once_per_revision() {
        let entries: Vec<Entry> = serde_saphyr::from_str(DATA).expect("the map parses");
        for revision in REVISIONS {
            for role in ROLES {
                let listed = entries
                    .iter()
                    .filter(|e| e.role == role && e.revisions.iter().any(|r| r == revision))
                    .count();
                let counted: usize = [true, false]
                    .iter()
                    .map(|s| counts(&entries, revision, role, *s).values().sum::<usize>())
                    .sum();
                assert_eq!(listed, counted, "{revision} {role}");
            }
        }
    }
}
