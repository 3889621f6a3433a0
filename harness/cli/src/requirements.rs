//! The requirement catalogue seen through the scenario corpus: for each
//! version, every requirement that applies, with the scenarios that check it,
//! the oracle check that covers it, or the reason it is excluded. Shared by
//! `mcpspec list --requirements` and `mcpspec coverage`; the committed data
//! files `schema/requirements/<version>.json` are this module's JSON.
//!
//! That every id a scenario names is catalogued and applies to one of its
//! versions is the scenario loader's check (`mcpspec_scenario::parse`): a
//! scenario-file error, exit 2, like any other.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpspec_engine::catalogue::{self, Area};
use mcpspec_engine::{Level, Requirement, Version};
use mcpspec_model::Exit;
use mcpspec_oracle::checks::{self as oracle, OracleCheck};
use mcpspec_scenario::{Scenario, TransportKind};
use serde_json::{json, Value};

/// Writes `text` to stdout; a closed pipe (`| head`) is not an error.
pub fn emit(text: &str) -> Exit {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => Exit::Success,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Success,
        Err(e) => {
            eprintln!("error: failed to write to stdout: {e}");
            Exit::Usage
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
        if let Some(profile) = self.req.profile {
            v["profile"] = json!(profile);
        }
        if let Some(extension) = self.req.extension {
            v["extension"] = json!(extension);
        }
        if self.req.authorization {
            v["authorization"] = json!(true);
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
    // a client-only check a client case, a server-only one a server case (of
    // an HTTP transport if it is HTTP's).
    let at = |s: &&Arc<Scenario>| s.versions.contains(&version);
    let any_case = scenarios.iter().any(|s| at(&s));
    let stdio_case = scenarios
        .iter()
        .any(|s| at(&s) && s.transports.contains(&TransportKind::Stdio));
    let is_client = |s: &Arc<Scenario>| s.role() == mcpspec_engine::Role::Client;
    let client_case = scenarios.iter().any(|s| at(&s) && is_client(s));
    let over_http = |s: &Arc<Scenario>| {
        s.transports
            .iter()
            .any(|t| matches!(t, TransportKind::Http | TransportKind::Sse))
    };
    let client_http_case = scenarios
        .iter()
        .any(|s| at(&s) && is_client(s) && over_http(s));
    // The authorization flow is judged only where a case scripts one.
    let client_auth_case = scenarios
        .iter()
        .any(|s| at(&s) && is_client(s) && s.auth.is_some());
    let server_http_case = scenarios
        .iter()
        .any(|s| at(&s) && !is_client(s) && over_http(s));
    catalogue::AREAS
        .iter()
        .flat_map(|area| area.entries.iter().map(move |req| (area, req)))
        .filter(|(_, req)| req.applies_to(version))
        .map(|(area, req)| {
            let mut scenarios = named.remove(req.id).unwrap_or_default();
            scenarios.sort();
            scenarios.dedup();
            let oracle = oracle::check_of(req.id).filter(|c| {
                if c.by.auth_only() {
                    client_auth_case
                } else if c.by.http_only() && c.by.server_only() {
                    server_http_case
                } else if c.by.http_only() {
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
    /// The core figure. Excluded requirements count in `excluded`, never in
    /// a total; rules of a test profile (the official fixture's contract)
    /// count nowhere; rules of an opt-in extension count only in
    /// [`Coverage::of_extension`], rules of the authorization pages only in
    /// [`Coverage::of_authorization`].
    pub fn of(rows: &[Row]) -> Coverage {
        Coverage::count(rows.iter().filter(|r| {
            r.req.profile.is_none() && r.req.extension.is_none() && !r.req.authorization
        }))
    }

    /// The figure of the authorization pages (OAuth over HTTP) alone, apart
    /// from the core (`None` when none of their rules is among `rows`, as
    /// at 2024-11-05).
    pub fn of_authorization(rows: &[Row]) -> Option<Coverage> {
        let mine = || rows.iter().filter(|r| r.req.authorization);
        mine().next()?;
        Some(Coverage::count(mine()))
    }

    /// The figure of the opt-in extension `name` alone (`None` when no
    /// requirement of it applies among `rows`).
    pub fn of_extension(rows: &[Row], name: &str) -> Option<Coverage> {
        let mine = || rows.iter().filter(|r| r.req.extension == Some(name));
        mine().next()?;
        Some(Coverage::count(mine()))
    }

    /// The figure of every extension with a requirement among `rows`, in
    /// [`mcpspec_engine::EXTENSIONS`] order.
    pub fn of_extensions(rows: &[Row]) -> Vec<(&'static str, Coverage)> {
        mcpspec_engine::EXTENSIONS
            .iter()
            .filter_map(|e| Some((e.name, Coverage::of_extension(rows, e.name)?)))
            .collect()
    }

    fn count<'r>(rows: impl Iterator<Item = &'r Row>) -> Coverage {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing row of `req`, named by one scenario when `named`.
    fn row(req: &'static Requirement, area: &'static Area, named: bool) -> Row {
        let scenarios = if named {
            vec!["server/x".to_owned()]
        } else {
            Vec::new()
        };
        Row {
            req,
            area,
            scenarios,
            oracle: None,
        }
    }

    /// A profile rule (the official fixture's contract) is judged and listed,
    /// but it is not the specification's: it counts in no coverage total,
    /// whether or not a scenario names it.
    #[test]
    fn profile_rules_count_in_no_total() {
        let area =
            mcpspec_engine::catalogue::area_of("fixture.tools.image").expect("the fixture area");
        let req = mcpspec_engine::lookup("fixture.tools.image").expect("catalogued");
        let spec = mcpspec_engine::lookup("ping.respond").expect("catalogued");
        let row = |req: &'static Requirement, named: bool| row(req, area, named);
        let c = Coverage::of(&[row(req, true), row(req, false), row(spec, true)]);
        assert_eq!((c.must_covered, c.must_total, c.excluded), (1, 1, 0));
        assert_eq!(
            row(req, true).to_json(Version::V2025_11_25)["profile"],
            "fixture"
        );
    }

    /// An extension rule (2025-11-25 tasks) counts in its extension's
    /// figure, never in the core one.
    #[test]
    fn extension_rules_count_apart_from_the_core() {
        let area = mcpspec_engine::catalogue::area_of("tasks.errors").expect("the tasks area");
        let task = mcpspec_engine::lookup("tasks.errors").expect("catalogued");
        let task_should = mcpspec_engine::lookup("tasks.list.paginated").expect("catalogued");
        let spec = mcpspec_engine::lookup("ping.respond").expect("catalogued");
        let row = |req: &'static Requirement, named: bool| row(req, area, named);
        let rows = [row(task, true), row(task_should, false), row(spec, false)];
        let core = Coverage::of(&rows);
        assert_eq!(
            (core.must_covered, core.must_total, core.should_total),
            (0, 1, 0)
        );
        let tasks = Coverage::of_extension(&rows, "tasks").expect("tasks rules apply");
        assert_eq!(
            (tasks.must_covered, tasks.must_total, tasks.should_total),
            (1, 1, 1)
        );
        assert_eq!(Coverage::of_extension(&rows, "skills"), None);
        assert_eq!(Coverage::of_extensions(&rows), vec![("tasks", tasks)]);
        assert_eq!(
            row(task, true).to_json(Version::V2025_11_25)["extension"],
            "tasks"
        );
    }

    /// An authorization rule counts in the authorization figure, never in
    /// the core one, and is marked in the listing.
    #[test]
    fn authorization_rules_count_apart_from_the_core() {
        use mcpspec_engine::ids;
        let area = mcpspec_engine::catalogue::area_of(ids::AUTH_PKCE.id).expect("an auth area");
        let row = |req: &'static Requirement, named: bool| row(req, area, named);
        let rows = [
            row(&ids::AUTH_PKCE, true),
            row(&ids::AUTH_AUDIENCE, false),
            row(&ids::AUTH_STATE, false),
            row(&ids::AUTH_NO_PASSTHROUGH, false),
            row(&ids::PING_RESPOND, true),
        ];
        let core = Coverage::of(&rows);
        assert_eq!(
            (core.must_covered, core.must_total, core.excluded),
            (1, 1, 0)
        );
        let auth = Coverage::of_authorization(&rows).expect("authorization rules apply");
        assert_eq!(
            (
                auth.must_covered,
                auth.must_total,
                auth.should_total,
                auth.excluded
            ),
            (1, 2, 1, 1)
        );
        assert_eq!(Coverage::of_authorization(&rows[4..]), None);
        assert_eq!(
            row(&ids::AUTH_PKCE, true).to_json(Version::V2025_11_25)["authorization"],
            true
        );
        assert!(row(&ids::PING_RESPOND, true)
            .to_json(Version::V2025_11_25)
            .get("authorization")
            .is_none());
    }
}
