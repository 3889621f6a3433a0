//! From scenarios to cases: one case per scenario and version, filtered by
//! id (prefix or glob) and by the versions the user asked for.
//!
//! A case id is `<scenario id>@<version>`, e.g.
//! `server/lifecycle/version/echo-supported@2025-06-18`; it is stable, so it
//! can be filtered on, baselined and snapshotted.
//!
//! [`Partition`] (`--partition hash:K/N` or `count:K/N`, nextest's meaning)
//! then keeps one shard of the planned cases, so that N CI jobs run the
//! suite between them and `mcpspec report combine` joins their reports.

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

/// One shard of N: `hash:K/N` keeps the cases whose id hashes to shard K
/// (FNV-1a, 64 bits, of the case id: the same on every machine and run, and
/// a case keeps its shard when others are added or removed); `count:K/N`
/// deals the planned cases out in turn (the K-th, (K+N)-th, …: even shard
/// sizes, but a new case shifts those after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    Hash { shard: u64, of: u64 },
    Count { shard: u64, of: u64 },
}

impl std::str::FromStr for Partition {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid partition {s:?} (use hash:K/N or count:K/N, 1 <= K <= N)");
        let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
        let (k, n) = rest.split_once('/').ok_or_else(bad)?;
        let (shard, of): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if shard == 0 || shard > of {
            return Err(bad());
        }
        match kind {
            "hash" => Ok(Partition::Hash { shard, of }),
            "count" => Ok(Partition::Count { shard, of }),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Partition::Hash { shard, of } => write!(f, "hash:{shard}/{of}"),
            Partition::Count { shard, of } => write!(f, "count:{shard}/{of}"),
        }
    }
}

/// FNV-1a, 64 bits: a fixed, documented hash (std's hasher may change
/// between Rust releases, which would move cases between shards).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Partition {
    /// The cases of this shard, in their planned order.
    pub fn apply(self, cases: Vec<Case>) -> Vec<Case> {
        cases
            .into_iter()
            .enumerate()
            .filter(|(i, c)| self.keeps(*i, &c.id))
            .map(|(_, c)| c)
            .collect()
    }

    /// Whether the `index`-th planned case, `id`, is in this shard.
    fn keeps(self, index: usize, id: &str) -> bool {
        match self {
            Partition::Hash { shard, of } => fnv1a(id) % of == shard - 1,
            Partition::Count { shard, of } => index as u64 % of == shard - 1,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_as_nextest_writes_them() {
        assert_eq!("hash:2/3".parse(), Ok(Partition::Hash { shard: 2, of: 3 }));
        assert_eq!(
            "count:1/1".parse(),
            Ok(Partition::Count { shard: 1, of: 1 })
        );
        for bad in [
            "hash:0/3",
            "hash:4/3",
            "count:1",
            "slice:1/2",
            "hash:a/2",
            "hash:1/0",
        ] {
            assert!(bad.parse::<Partition>().is_err(), "{bad}");
        }
        assert_eq!(Partition::Hash { shard: 2, of: 3 }.to_string(), "hash:2/3");
    }

    /// Every case is in exactly one shard of N, whatever N.
    #[test]
    fn the_shards_of_n_cover_every_case_once() {
        let ids: Vec<String> = (0..200)
            .map(|i| format!("server/x/{i}@2025-06-18"))
            .collect();
        for of in 1..=7u64 {
            for (i, id) in ids.iter().enumerate() {
                let hash = (1..=of).filter(|&k| Partition::Hash { shard: k, of }.keeps(i, id));
                let count = (1..=of).filter(|&k| Partition::Count { shard: k, of }.keeps(i, id));
                assert_eq!((hash.count(), count.count()), (1, 1), "{id} of {of}");
            }
        }
        // Hashing spreads: no shard of 4 is empty or holds most of 200.
        for k in 1..=4 {
            let n = ids
                .iter()
                .filter(|id| Partition::Hash { shard: k, of: 4 }.keeps(0, id))
                .count();
            assert!((25..=75).contains(&n), "shard {k}: {n}");
        }
    }

    /// The published FNV-1a test vectors: the hash, and so the shards, are
    /// the same everywhere.
    #[test]
    fn the_hash_is_fnv1a() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a("foobar"), 0x8594_4171_f739_67e8);
    }
}
