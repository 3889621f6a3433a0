//! From scenarios to cases: one case per scenario and version, filtered by
//! id (prefix or glob) and by the versions the user asked for.
//!
//! A case id is `<scenario id>@<version>`, e.g.
//! `server/lifecycle/version/echo-supported@2025-06-18`; it is stable, so it
//! can be filtered on, baselined and snapshotted.

use std::sync::Arc;

use globset::{Glob, GlobMatcher};
use mcpspec_engine::Version;
use mcpspec_scenario::{Scenario, TransportKind};

/// One scenario at one version.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub scenario: Arc<Scenario>,
    pub version: Version,
}

/// What the user selected.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Id prefixes or globs; empty selects everything.
    pub filters: Vec<String>,
    /// Versions to run; empty means every version a scenario lists.
    pub versions: Vec<Version>,
    /// Only scenarios whose id starts with this role prefix (`server/`, `client/`).
    pub role_prefix: String,
    pub transport: Option<TransportKind>,
}

/// A filter that is not a valid glob.
#[derive(Debug, thiserror::Error)]
#[error("invalid --filter {pattern:?}: {reason}")]
pub struct FilterError {
    pub pattern: String,
    pub reason: String,
}

enum Filter {
    Prefix(String),
    Glob(GlobMatcher),
}

impl Filter {
    fn parse(pattern: &str) -> Result<Self, FilterError> {
        if pattern.contains(['*', '?', '[', '{']) {
            Glob::new(pattern)
                .map(|g| Filter::Glob(g.compile_matcher()))
                .map_err(|e| FilterError {
                    pattern: pattern.to_owned(),
                    reason: e.kind().to_string(),
                })
        } else {
            Ok(Filter::Prefix(pattern.to_owned()))
        }
    }

    fn matches(&self, scenario_id: &str, case_id: &str) -> bool {
        match self {
            Filter::Prefix(p) => case_id.starts_with(p.as_str()),
            Filter::Glob(g) => g.is_match(case_id) || g.is_match(scenario_id),
        }
    }
}

/// Expands scenarios into the selected cases, in a stable order (scenario id, then version).
pub fn plan(scenarios: &[Arc<Scenario>], sel: &Selection) -> Result<Vec<Case>, FilterError> {
    let filters = sel
        .filters
        .iter()
        .map(|f| Filter::parse(f))
        .collect::<Result<Vec<_>, _>>()?;
    let mut cases = Vec::new();
    for s in scenarios {
        if !s.id.starts_with(&sel.role_prefix) {
            continue;
        }
        if let Some(t) = sel.transport {
            if !s.transports.contains(&t) {
                continue;
            }
        }
        for &v in &s.versions {
            if !sel.versions.is_empty() && !sel.versions.contains(&v) {
                continue;
            }
            let id = format!("{}@{}", s.id, v);
            if !filters.is_empty() && !filters.iter().any(|f| f.matches(&s.id, &id)) {
                continue;
            }
            cases.push(Case {
                id,
                scenario: s.clone(),
                version: v,
            });
        }
    }
    cases.sort_by(|a, b| {
        a.scenario
            .id
            .cmp(&b.scenario.id)
            .then(a.version.cmp(&b.version))
    });
    Ok(cases)
}
