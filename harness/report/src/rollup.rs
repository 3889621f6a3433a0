//! Root causes: the findings of a run grouped by requirement, and the
//! per-case problem list bounded by them.
//!
//! ```text
//!  cases ──► distinct findings ──► rollup: each broken requirement once
//!                                  (level, spec link, failed / warned /
//!                                  blocked cases, one example)
//!        ──► groups (one scenario, same findings, its versions)
//!            ──► sections: per broken requirement at most N groups,
//!                then "… and K more cases"
//! ```
//!
//! The human report, summary.md, report.json and index.html all take their
//! rollup from [`rollup`], so they agree on what is broken and how often.
//! A blocked case ([`Outcome::Blocked`]) counts as *blocked* for the
//! requirement that blocked it — never as a failure of its own.
//!
//! Two findings of one case are "the same" when they name the same rule,
//! level, expectation and location and say the same apart from when it
//! happened (`at 3ms: …`): [`distinct`] keeps the first. An Expected line
//! that only repeats the requirement's summary says nothing new:
//! [`expected_lines`] leaves it out.

use std::collections::HashMap;

use mcpspec_engine::Level;
use mcpspec_model::{CaseResult, Finding, Outcome};

/// Examples a report shows per broken requirement before "… and K more".
pub const EXAMPLES: usize = 3;

/// One broken requirement across the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Broken {
    pub requirement: String,
    pub level: Level,
    /// The example's specification link.
    pub spec_url: String,
    pub summary: String,
    /// Cases where it was broken at MUST level (they failed).
    pub failed: usize,
    /// Cases where it was broken at SHOULD level.
    pub warned: usize,
    /// Cases it kept from reaching what they check.
    pub blocked: usize,
    /// Every case it affected, sorted by id.
    pub cases: Vec<String>,
    /// One case where it was seen, preferably not a blocked one.
    pub example: Example,
}

impl Broken {
    /// Cases affected, however.
    pub fn total(&self) -> usize {
        self.failed + self.warned + self.blocked
    }

    /// `3 failed, 2 blocked`: the non-zero counts.
    pub fn counts(&self) -> String {
        let parts: Vec<String> = [
            (self.failed, "failed"),
            (self.warned, "warned"),
            (self.blocked, "blocked"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        parts.join(", ")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// The case id.
    pub case: String,
    /// Without lines that repeat the summary ([`expected_lines`]).
    pub expected: Vec<String>,
    pub actual: String,
    pub location: Option<String>,
}

/// `text` without a leading `at 12ms: ` (the time a check saw something).
fn untimed(text: &str) -> &str {
    text.strip_prefix("at ")
        .and_then(|rest| rest.split_once("ms: "))
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map_or(text, |(_, rest)| rest)
}

/// `findings` without repeats (see the module doc), in order.
pub fn distinct(findings: &[Finding]) -> Vec<Finding> {
    let mut seen = std::collections::HashSet::new();
    findings
        .iter()
        .filter(|f| {
            seen.insert((
                f.requirement.clone(),
                f.level,
                f.expected.clone(),
                f.location.clone(),
                untimed(&f.actual).to_owned(),
            ))
        })
        .cloned()
        .collect()
}

/// `r` with [`distinct`] findings.
pub fn dedup_case(r: &mut CaseResult) {
    if r.findings.len() > 1 {
        r.findings = distinct(&r.findings);
    }
}

fn same_text(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.trim().trim_end_matches('.').trim().to_lowercase();
    norm(a) == norm(b)
}

/// The Expected lines worth printing: those that do not merely repeat the
/// requirement's summary.
pub fn expected_lines(f: &Finding) -> Vec<&str> {
    f.expected
        .iter()
        .map(String::as_str)
        .filter(|e| !same_text(e, &f.summary))
        .collect()
}

/// The requirement a problem case is listed under: what blocked it, or its
/// worst finding's. `None` for errors and cases without findings.
pub fn primary(r: &CaseResult) -> Option<(String, Level)> {
    if let Outcome::Blocked { by, level } = &r.outcome {
        return Some((by.clone(), *level));
    }
    if matches!(r.outcome, Outcome::Error { .. }) {
        return None;
    }
    let worst = r.findings.iter().map(|f| f.level).max()?;
    r.findings
        .iter()
        .find(|f| f.level == worst)
        .map(|f| (f.requirement.clone(), f.level))
}

/// The broken requirements of `cases`, MUST first, then by the number of
/// cases, then by id. Pass only the cases that count (expected failures
/// of a baseline do not). MAY findings are notes, not broken rules.
pub fn rollup<'a>(cases: impl IntoIterator<Item = &'a CaseResult>) -> Vec<Broken> {
    let mut sorted: Vec<&CaseResult> = cases.into_iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<Broken> = Vec::new();
    // Whether the example is a case that broke the rule itself.
    let mut direct: Vec<bool> = Vec::new();
    for r in sorted {
        let blocked_by = match &r.outcome {
            Outcome::Blocked { by, level } => Some((by.as_str(), *level)),
            _ => None,
        };
        let mut counted: Vec<&str> = Vec::new();
        let findings = r.findings.iter().filter(|f| f.level > Level::May);
        // A block whose finding is missing still counts, without an example.
        let orphan = blocked_by
            .filter(|(by, _)| !r.findings.iter().any(|f| f.requirement == *by))
            .map(|(by, level)| Finding {
                requirement: by.to_owned(),
                level,
                spec_url: String::new(),
                summary: String::new(),
                expected: Vec::new(),
                actual: r.message(),
                location: None,
                source: mcpspec_model::FindingSource::Step,
            });
        for f in findings.chain(orphan.as_ref()) {
            if counted.contains(&f.requirement.as_str()) {
                continue;
            }
            counted.push(&f.requirement);
            let is_block = blocked_by.is_some_and(|(by, _)| by == f.requirement);
            let at = *index.entry(f.requirement.clone()).or_insert_with(|| {
                out.push(Broken {
                    requirement: f.requirement.clone(),
                    level: f.level,
                    spec_url: String::new(),
                    summary: String::new(),
                    failed: 0,
                    warned: 0,
                    blocked: 0,
                    cases: Vec::new(),
                    example: Example {
                        case: String::new(),
                        expected: Vec::new(),
                        actual: String::new(),
                        location: None,
                    },
                });
                direct.push(false);
                out.len() - 1
            });
            let b = &mut out[at];
            b.level = b.level.max(f.level);
            if is_block {
                b.blocked += 1;
            } else if f.level == Level::Must {
                b.failed += 1;
            } else {
                b.warned += 1;
            }
            b.cases.push(r.id.clone());
            let better = b.example.case.is_empty() || (!direct[at] && !is_block);
            if better && (!f.summary.is_empty() || b.example.case.is_empty()) {
                direct[at] = !is_block;
                b.spec_url.clone_from(&f.spec_url);
                b.summary.clone_from(&f.summary);
                b.example = Example {
                    case: r.id.clone(),
                    expected: expected_lines(f).into_iter().map(str::to_owned).collect(),
                    actual: f.actual.clone(),
                    location: f.location.clone(),
                };
            }
        }
    }
    out.sort_by(|a, b| {
        b.level
            .cmp(&a.level)
            .then(b.total().cmp(&a.total()))
            .then(a.requirement.cmp(&b.requirement))
    });
    out
}

/// What makes cases of one scenario "the same problem" at several
/// versions: the outcome and the rules broken with what was expected (the
/// actual texts may differ in timings), plus `extra` (e.g. a baseline
/// entry).
pub fn signature(r: &CaseResult, extra: &str) -> String {
    let mut key = format!("{}|{}|{extra}", r.scenario, r.outcome.as_str());
    if let Outcome::Blocked { by, .. } = &r.outcome {
        key.push_str(by);
    }
    for f in &r.findings {
        key.push_str(&format!("|{}|{}|{:?}", f.requirement, f.level, f.expected));
    }
    key
}

/// One scenario's problem, with the versions at which it happened alike.
#[derive(Debug, Clone)]
pub struct Group<T> {
    /// The first case (by id).
    pub first: T,
    pub versions: Vec<String>,
}

/// `items` (any order) grouped by `key` (see [`signature`]), sorted by id
/// of their first case.
pub fn group<T>(
    mut items: Vec<T>,
    case: impl Fn(&T) -> &CaseResult,
    key: impl Fn(&T) -> String,
) -> Vec<Group<T>> {
    items.sort_by(|a, b| case(a).id.cmp(&case(b).id));
    let mut keys: Vec<String> = Vec::new();
    let mut out: Vec<Group<T>> = Vec::new();
    for item in items {
        let k = key(&item);
        let version = case(&item).version.to_string();
        match keys.iter().position(|x| *x == k) {
            Some(i) => out[i].versions.push(version),
            None => {
                keys.push(k);
                out.push(Group {
                    first: item,
                    versions: vec![version],
                });
            }
        }
    }
    out
}

/// The heading a [`Section`] is listed under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heading {
    /// A broken requirement: its rank in the rollup (1-based), id, level.
    Requirement {
        rank: usize,
        requirement: String,
        level: Level,
    },
    /// Cases that could not be run.
    Errors,
    /// Anything else: MAY notes of passing cases, stale expectations.
    Other,
}

/// The groups listed under one heading, at most `per` of them, and how
/// many cases (and of them blocked ones) were left out.
#[derive(Debug, Clone)]
pub struct Section<T> {
    pub heading: Heading,
    pub shown: Vec<Group<T>>,
    pub more_cases: usize,
    pub more_blocked: usize,
}

/// `groups` under their headings in rollup order (errors after the MUST
/// requirements, before the SHOULD ones; other problems last), at most
/// `per` groups each: groups that broke the rule themselves first, then
/// blocked ones.
pub fn sections<T>(
    groups: Vec<Group<T>>,
    case: impl Fn(&T) -> &CaseResult,
    broken: &[Broken],
    per: usize,
) -> Vec<Section<T>> {
    let rank = |req: &str| broken.iter().position(|b| b.requirement == req);
    // (sort key, heading) per group
    let mut keyed: Vec<(usize, Heading, bool, Group<T>)> = groups
        .into_iter()
        .map(|g| {
            let r = case(&g.first);
            let blocked = matches!(r.outcome, Outcome::Blocked { .. });
            let heading = match (&r.outcome, primary(r)) {
                (Outcome::Error { .. }, _) => Heading::Errors,
                (_, Some((req, level))) if level > Level::May => match rank(&req) {
                    Some(i) => Heading::Requirement {
                        rank: i + 1,
                        requirement: req,
                        level: broken[i].level,
                    },
                    None => Heading::Other,
                },
                _ => Heading::Other,
            };
            let order = match &heading {
                Heading::Requirement { rank, level, .. } => {
                    let must = usize::from(*level != Level::Must);
                    must * 2 * broken.len() + rank * 2
                }
                // After the MUSTs.
                Heading::Errors => {
                    broken
                        .iter()
                        .filter(|b| b.level == Level::Must)
                        .count()
                        .saturating_mul(2)
                        + 1
                }
                Heading::Other => usize::MAX,
            };
            (order, heading, blocked, g)
        })
        .collect();
    keyed.sort_by_key(|(order, _, blocked, _)| (*order, *blocked));
    let mut out: Vec<Section<T>> = Vec::new();
    for (_, heading, blocked, g) in keyed {
        if out.last().is_none_or(|s| s.heading != heading) {
            out.push(Section {
                heading,
                shown: Vec::new(),
                more_cases: 0,
                more_blocked: 0,
            });
        }
        let Some(s) = out.last_mut() else { continue };
        if s.shown.len() < per {
            s.shown.push(g);
        } else {
            s.more_cases += g.versions.len();
            if blocked {
                s.more_blocked += g.versions.len();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::Version;
    use mcpspec_model::FindingSource;
    use std::time::Duration;

    fn finding(req: &str, level: Level, actual: &str) -> Finding {
        Finding {
            requirement: req.into(),
            level,
            spec_url: format!("https://spec/{req}"),
            summary: format!("{req} holds."),
            expected: vec![format!("{req} holds"), "a list that ends".into()],
            actual: actual.into(),
            location: None,
            source: FindingSource::Step,
        }
    }

    fn case(
        scenario: &str,
        version: Version,
        outcome: Outcome,
        findings: Vec<Finding>,
    ) -> CaseResult {
        CaseResult {
            id: format!("{scenario}@{version}"),
            scenario: scenario.into(),
            title: String::new(),
            version,
            level: Level::Must,
            requirements: Vec::new(),
            outcome,
            findings,
            duration: Duration::ZERO,
            transcript: Vec::new(),
        }
    }

    fn blocked(by: &str) -> Outcome {
        Outcome::Blocked {
            by: by.into(),
            level: Level::Should,
        }
    }

    #[test]
    fn each_broken_requirement_once_must_first_blocks_counted_apart() {
        let lp = "pagination.cursor.terminates";
        let cases = [
            case(
                "server/tools/list/title",
                Version::V2025_06_18,
                blocked(lp),
                vec![finding(lp, Level::Should, "looped")],
            ),
            case(
                "server/pagination/tools/follow",
                Version::V2025_06_18,
                Outcome::Warn,
                vec![finding(lp, Level::Should, "looped")],
            ),
            case(
                "server/tools/list/unique",
                Version::V2025_06_18,
                blocked(lp),
                vec![finding(lp, Level::Should, "looped")],
            ),
            case(
                "server/ping",
                Version::V2025_06_18,
                Outcome::Fail,
                vec![finding("ping.respond", Level::Must, "{\"ok\":true}")],
            ),
            case(
                "server/ping/may",
                Version::V2025_06_18,
                Outcome::Pass,
                vec![finding("x.may", Level::May, "note")],
            ),
        ];
        let r = rollup(&cases);
        assert_eq!(r.len(), 2, "{r:#?}");
        assert_eq!(
            (r[0].requirement.as_str(), r[0].failed),
            ("ping.respond", 1)
        );
        let b = &r[1];
        assert_eq!((b.warned, b.blocked, b.failed, b.total()), (1, 2, 0, 3));
        assert_eq!(b.counts(), "1 warned, 2 blocked");
        // The example is the case that broke the rule itself.
        assert_eq!(b.example.case, "server/pagination/tools/follow@2025-06-18");
        // Its Expected does not repeat the summary.
        assert_eq!(b.example.expected, ["a list that ends"]);
        assert_eq!(b.spec_url, format!("https://spec/{lp}"));
    }

    #[test]
    fn the_same_finding_twice_in_a_case_is_kept_once() {
        let f = finding("jsonrpc.message.valid", Level::Must, "at 3ms: null id");
        let later = finding("jsonrpc.message.valid", Level::Must, "at 3001ms: null id");
        let other = finding("jsonrpc.message.valid", Level::Must, "at 4ms: string id");
        let kept = distinct(&[f.clone(), f.clone(), later, other.clone()]);
        assert_eq!(kept, [f, other]);
        assert_eq!(untimed("at 12ms: x"), "x");
        assert_eq!(untimed("at noon: x"), "at noon: x");
    }

    #[test]
    fn sections_show_at_most_n_groups_per_requirement() {
        let lp = "pagination.cursor.terminates";
        let mut cases = Vec::new();
        for n in 0..5 {
            for v in [Version::V2025_06_18, Version::V2025_11_25] {
                cases.push(case(
                    &format!("server/b{n}"),
                    v,
                    blocked(lp),
                    vec![finding(lp, Level::Should, "x")],
                ));
            }
        }
        cases.push(case(
            "server/z",
            Version::V2025_06_18,
            Outcome::Warn,
            vec![finding(lp, Level::Should, "x")],
        ));
        cases.push(case(
            "server/e",
            Version::V2025_06_18,
            Outcome::Error {
                blame: mcpspec_model::Blame::Target,
                message: "died".into(),
            },
            vec![],
        ));
        let broken = rollup(&cases);
        fn deref<'a>(c: &'a &CaseResult) -> &'a CaseResult {
            c
        }
        let groups = group(cases.iter().collect(), deref, |c| signature(c, ""));
        assert_eq!(groups.len(), 7);
        let s = sections(groups, deref, &broken, 3);
        assert_eq!(s.len(), 2);
        // The SHOULD requirement comes after the errors (no MUST broken).
        assert_eq!(s[0].heading, Heading::Errors);
        assert!(matches!(
            &s[1].heading,
            Heading::Requirement { rank: 1, .. }
        ));
        // The direct warning first, then two blocked groups; 3 groups (6 cases) left.
        assert_eq!(s[1].shown[0].first.id, "server/z@2025-06-18");
        assert_eq!(s[1].shown.len(), 3);
        assert_eq!(s[1].shown[1].versions, ["2025-06-18", "2025-11-25"]);
        assert_eq!((s[1].more_cases, s[1].more_blocked), (6, 6));
    }
}
