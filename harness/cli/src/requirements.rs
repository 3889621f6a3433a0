//! The requirement catalogue seen through the scenario corpus: for each
//! version, every requirement that applies, with the scenarios that check it,
//! the oracle check that covers it, or the reason it is excluded. Shared by
//! `mcpspec list --requirements` and `mcpspec coverage`; the committed data
//! files `schema/requirements/<version>.json` are this module's JSON.
//!
//! Also the corpus-wide check that every requirement id a scenario names is
//! in the catalogue and applies to at least one of the scenario's versions
//! (a scenario-file error, exit 2, pointing at the id in the file).

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpspec_engine::catalogue::{self, Area};
use mcpspec_engine::{Level, Requirement, Version};
use mcpspec_oracle::checks::{self as oracle, OracleCheck};
use mcpspec_scenario::corpus::EMBEDDED_PREFIX;
use mcpspec_scenario::{Scenario, ScenarioError, TransportKind};
use serde_json::{json, Value};

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error.
pub fn emit(text: &str) -> u8 {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => crate::server::EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => crate::server::EXIT_OK,
        Err(e) => {
            eprintln!("error: failed to write to stdout: {e}");
            crate::EXIT_USAGE
        }
    }
}

/// How a requirement stands at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Knowingly left out, with the reason.
    Excluded(&'static str),
    /// Named by a scenario of this version, or checked by the oracle in its cases.
    Covered,
    /// Neither.
    NotYetCovered,
}

/// One requirement at one version.
#[derive(Debug, Clone)]
pub struct Row {
    pub req: &'static Requirement,
    pub area: &'static Area,
    /// Ids of the scenarios that name it and run at this version, sorted.
    pub scenarios: Vec<String>,
    /// The every-message check that covers it at this version, if any.
    pub oracle: Option<&'static OracleCheck>,
}

impl Row {
    pub fn status(&self) -> Status {
        match self.req.excluded {
            Some(why) => Status::Excluded(why),
            None if !self.scenarios.is_empty() || self.oracle.is_some() => Status::Covered,
            None => Status::NotYetCovered,
        }
    }

    /// The entry of the data file / `list --requirements --json`.
    pub fn to_json(&self, version: Version) -> Value {
        let mut v = json!({
            "id": self.req.id,
            "level": self.req.level.as_str(),
            "role": self.req.binds.as_str(),
            "summary": self.req.summary,
            "url": self.req.url(version),
        });
        if !self.scenarios.is_empty() {
            v["scenarios"] = json!(self.scenarios);
        }
        if let Some(check) = self.oracle {
            v["oracle"] = json!(check.by.describe());
        }
        if let Some(why) = self.req.excluded {
            v["excluded"] = json!(why);
        }
        v
    }
}

/// Every requirement that applies to `version`, in catalogue order, with
/// what covers it in `scenarios`.
pub fn rows(version: Version, scenarios: &[Arc<Scenario>]) -> Vec<Row> {
    let mut named: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for s in scenarios.iter().filter(|s| s.versions.contains(&version)) {
        for id in ids_at(s, version) {
            named.entry(id).or_default().push(s.id.clone());
        }
    }
    // The oracle runs in every case; a stdio-only check needs a stdio case,
    // a client-only check a client case (of an HTTP transport if it is HTTP's).
    let at = |s: &&Arc<Scenario>| s.versions.contains(&version);
    let any_case = scenarios.iter().any(|s| at(&s));
    let stdio_case = scenarios
        .iter()
        .any(|s| at(&s) && s.transports.contains(&TransportKind::Stdio));
    let is_client = |s: &Arc<Scenario>| s.role() == mcpspec_engine::Role::Client;
    let client_case = scenarios.iter().any(|s| at(&s) && is_client(s));
    let client_http_case = scenarios.iter().any(|s| {
        at(&s)
            && is_client(s)
            && s.transports
                .iter()
                .any(|t| matches!(t, TransportKind::Http | TransportKind::Sse))
    });
    catalogue::AREAS
        .iter()
        .flat_map(|area| area.entries.iter().map(move |req| (area, req)))
        .filter(|(_, req)| req.applies_to(version))
        .map(|(area, req)| {
            let mut scenarios = named.remove(req.id).unwrap_or_default();
            scenarios.sort();
            scenarios.dedup();
            let oracle = oracle::check_of(req.id).filter(|c| {
                if c.by.http_only() {
                    client_http_case
                } else if c.by.client_only() {
                    client_case
                } else if c.by.stdio_only() {
                    stdio_case
                } else {
                    any_case
                }
            });
            Row {
                req,
                area,
                scenarios,
                oracle,
            }
        })
        .collect()
}

/// The requirement ids a scenario checks when it runs at `version`: its own,
/// and those of the steps that run at that version.
fn ids_at(s: &Scenario, version: Version) -> Vec<&str> {
    let steps = s
        .steps
        .iter()
        .filter(|st| st.versions.as_ref().is_none_or(|vs| vs.contains(&version)))
        .filter_map(|st| st.requirement.as_deref());
    let mut out: Vec<&str> = s
        .requirements
        .iter()
        .map(String::as_str)
        .chain(steps)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Counts for one version (`mcpspec coverage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub must_covered: usize,
    pub must_total: usize,
    pub should_covered: usize,
    pub should_total: usize,
    pub may_covered: usize,
    pub may_total: usize,
    pub excluded: usize,
}

impl Coverage {
    /// Excluded requirements count in `excluded`, never in a total.
    pub fn of(rows: &[Row]) -> Coverage {
        let mut c = Coverage::default();
        for row in rows {
            let covered = match row.status() {
                Status::Excluded(_) => {
                    c.excluded += 1;
                    continue;
                }
                Status::Covered => 1,
                Status::NotYetCovered => 0,
            };
            let (n, total) = match row.req.level {
                Level::Must => (&mut c.must_covered, &mut c.must_total),
                Level::Should => (&mut c.should_covered, &mut c.should_total),
                Level::May => (&mut c.may_covered, &mut c.may_total),
            };
            *n += covered;
            *total += 1;
        }
        c
    }

    /// Requirements neither covered nor excluded, at every level.
    pub fn not_yet_covered(&self) -> usize {
        (self.must_total - self.must_covered)
            + (self.should_total - self.should_covered)
            + (self.may_total - self.may_covered)
    }

    /// Exactly the documented `coverage --json` shape.
    pub fn to_json(self) -> Value {
        json!({
            "must_covered": self.must_covered,
            "must_total": self.must_total,
            "should_covered": self.should_covered,
            "should_total": self.should_total,
            "excluded": self.excluded,
        })
    }
}

/// Every requirement id a scenario names must be catalogued and apply to at
/// least one version the scenario (or the step naming it) runs at. Errors
/// point at the id in the scenario file.
pub fn check_ids(scenarios: &[Arc<Scenario>]) -> Vec<ScenarioError> {
    let mut errors = Vec::new();
    for s in scenarios {
        let text = source_text(s);
        let named = s
            .requirements
            .iter()
            .map(|id| (id.as_str(), 1, s.versions.clone()))
            .chain(s.steps.iter().filter_map(|st| {
                let id = st.requirement.as_deref()?;
                let versions = match &st.versions {
                    Some(vs) => s
                        .versions
                        .iter()
                        .copied()
                        .filter(|v| vs.contains(v))
                        .collect(),
                    None => s.versions.clone(),
                };
                Some((id, st.at.line, versions))
            }));
        for (id, from_line, versions) in named {
            let problem = match mcpspec_engine::lookup(id) {
                None => format!(
                    "unknown requirement id {id:?}{} (see `mcpspec list --requirements`)",
                    suggestion(id)
                ),
                Some(r) if !versions.iter().any(|v| r.applies_to(*v)) => format!(
                    "requirement {id:?} does not apply to {} (it applies to {})",
                    join(&versions),
                    join(&r.versions().collect::<Vec<_>>())
                ),
                Some(_) => continue,
            };
            let (line, column) = text
                .as_deref()
                .and_then(|t| find_word(t, id, from_line))
                .unwrap_or((s.id_at.line, s.id_at.column));
            errors.push(ScenarioError::at(
                &s.source.path,
                text.as_deref().unwrap_or(""),
                line,
                column,
                problem,
            ));
        }
    }
    errors
}

fn join(versions: &[Version]) -> String {
    versions
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// ` (did you mean "x"?)` for a catalogued id sharing the longest prefix.
fn suggestion(id: &str) -> String {
    let common = |a: &str| {
        a.chars()
            .zip(id.chars())
            .take_while(|(x, y)| x == y)
            .count()
    };
    catalogue::all()
        .map(|r| (common(r.id), r.id))
        .max_by_key(|(n, _)| *n)
        .filter(|(n, _)| *n * 2 >= id.len())
        .map(|(_, best)| format!(" (did you mean {best:?}?)"))
        .unwrap_or_default()
}

/// The text of a scenario's file: embedded, or read again from disk.
fn source_text(s: &Scenario) -> Option<String> {
    let path = &s.source.path;
    match path
        .strip_prefix(EMBEDDED_PREFIX)
        .and_then(|p| p.strip_prefix('/'))
    {
        Some(rel) => mcpspec_scenario::embedded()
            .iter()
            .find(|(r, _)| *r == rel)
            .map(|(_, text)| (*text).to_owned()),
        None => std::fs::read_to_string(path).ok(),
    }
}

/// 1-based line and character column of the first whole-word occurrence of
/// `word` at or after line `from_line`.
fn find_word(text: &str, word: &str, from_line: usize) -> Option<(usize, usize)> {
    let is_id_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
    for (i, line) in text.lines().enumerate().skip(from_line.saturating_sub(1)) {
        let mut start = 0;
        while let Some(off) = line[start..].find(word) {
            let at = start + off;
            let end = at + word.len();
            let before = line[..at].chars().next_back();
            let after = line[end..].chars().next();
            if !before.is_some_and(is_id_char) && !after.is_some_and(is_id_char) {
                return Some((i + 1, line[..at].chars().count() + 1));
            }
            start = end;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_found_whole() {
        let text = "id: x\nrequirements: [ping.respond-x, ping.respond]\n";
        assert_eq!(find_word(text, "ping.respond", 1), Some((2, 32)));
        assert_eq!(find_word(text, "ping", 3), None);
    }

    #[test]
    fn suggestions_need_a_real_resemblance() {
        assert!(suggestion("ping.respnd").contains("ping.respond"));
        assert_eq!(suggestion("zzz.nothing"), "");
    }
}
