//! `badge.json` in `--report-dir`: a shields.io endpoint document, so a
//! README can show the run's verdict
//! (`https://img.shields.io/endpoint?url=<where badge.json is served>`).
//!
//! ```json
//! { "schemaVersion": 1, "label": "MCP conformance",
//!   "message": "4/5 versions · 1 MUST failure", "color": "red" }
//! ```
//!
//! A version *passes* when at least one of its cases was judged and none
//! failed, errored or was blocked by a MUST. MUST failures are counted once
//! per broken requirement (the rollup's root causes), not per case. The
//! badge tells the truth regardless of `--expected-failures`: an expected
//! failure is still a failure of the implementation. Colours: green when
//! every judged version passes with no MUST failure, yellow when only SHOULDs
//! were broken or some case could not be judged, red on a MUST failure,
//! grey when nothing was judged (a run that judged nothing is no pass).

use std::collections::BTreeMap;

use mcpspec_engine::Level;
use mcpspec_model::Outcome;
use serde_json::{json, Value};

use crate::log::RunLog;
use crate::rollup::rollup;

/// The badge document of a run.
pub fn render(log: &RunLog) -> Value {
    // Per version: (judged, clean).
    let mut versions: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
    let mut warned = false;
    for j in &log.cases {
        let r = &j.result;
        let v = versions.entry(r.version.as_str()).or_insert((false, true));
        match &r.outcome {
            Outcome::Pass => v.0 = true,
            Outcome::Warn => {
                v.0 = true;
                warned = true;
            }
            Outcome::Blocked { level, .. } => {
                v.0 = true;
                if *level == Level::Must {
                    v.1 = false;
                } else {
                    warned = true;
                }
            }
            Outcome::Fail => *v = (true, false),
            Outcome::Error { .. } => v.1 = false,
            Outcome::NotApplicable { .. } => {}
        }
    }
    let judged = versions.values().filter(|(j, _)| *j).count();
    let passed = versions.values().filter(|(j, c)| *j && *c).count();
    let must = rollup(log.cases.iter().map(|j| &j.result))
        .iter()
        .filter(|b| b.level == Level::Must)
        .count();
    let (message, color) = if judged == 0 {
        ("no case judged".to_owned(), "lightgrey")
    } else {
        let plural = if must == 1 { "" } else { "s" };
        let message = format!("{passed}/{judged} versions · {must} MUST failure{plural}");
        let color = if must > 0 {
            "red"
        } else if passed < judged || warned {
            "yellow"
        } else {
            "brightgreen"
        };
        (message, color)
    };
    json!({ "schemaVersion": 1, "label": "MCP conformance", "message": message, "color": color })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::Version;
    use mcpspec_model::{CaseResult, Event, Finding, FindingSource, Summary};
    use std::time::Duration;

    fn case(id: &str, version: Version, outcome: Outcome, findings: Vec<Finding>) -> CaseResult {
        CaseResult {
            id: format!("{id}@{}", version.as_str()),
            scenario: id.into(),
            title: id.into(),
            version,
            level: Level::Must,
            requirements: vec![],
            outcome,
            findings,
            duration: Duration::ZERO,
            transcript: vec![],
        }
    }

    fn must(req: &str) -> Finding {
        Finding {
            requirement: req.into(),
            level: Level::Must,
            spec_url: String::new(),
            summary: req.into(),
            expected: vec![],
            actual: "no".into(),
            location: None,
            source: FindingSource::Oracle,
        }
    }

    fn badge(cases: Vec<CaseResult>) -> (String, String) {
        let mut log = RunLog::new(false, None);
        let mut summary = Summary::default();
        for c in cases {
            summary.add(&c.outcome);
            log.observe(&Event::CaseFinished(Box::new(c)));
        }
        log.observe(&Event::RunFinished {
            summary,
            wall: Duration::from_millis(1),
            strict: false,
        });
        let b = render(&log);
        (
            b["message"].as_str().unwrap().into(),
            b["color"].as_str().unwrap().into(),
        )
    }

    #[test]
    fn a_must_failure_is_counted_once_per_requirement_and_turns_the_badge_red() {
        let v1 = Version::V2025_06_18;
        let v2 = Version::V2025_11_25;
        let got = badge(vec![
            case("a", v1, Outcome::Pass, vec![]),
            case("b", v2, Outcome::Fail, vec![must("ping.respond")]),
            case("c", v2, Outcome::Fail, vec![must("ping.respond")]),
        ]);
        assert_eq!(got, ("1/2 versions · 1 MUST failure".into(), "red".into()));
    }

    #[test]
    fn all_passing_is_green_and_nothing_judged_is_grey() {
        let v = Version::V2025_11_25;
        let na = Outcome::NotApplicable {
            reason: "no tools".into(),
        };
        assert_eq!(
            badge(vec![
                case("a", v, Outcome::Pass, vec![]),
                case("b", v, na.clone(), vec![])
            ]),
            (
                "1/1 versions · 0 MUST failures".into(),
                "brightgreen".into()
            )
        );
        assert_eq!(
            badge(vec![case("b", v, na, vec![])]),
            ("no case judged".into(), "lightgrey".into())
        );
        assert_eq!(badge(vec![]), ("no case judged".into(), "lightgrey".into()));
    }

    #[test]
    fn an_error_keeps_a_version_from_passing() {
        let v = Version::V2025_11_25;
        let err = Outcome::Error {
            blame: mcpspec_model::Blame::Target,
            message: "died".into(),
        };
        assert_eq!(
            badge(vec![
                case("a", v, Outcome::Pass, vec![]),
                case("b", v, err, vec![])
            ]),
            ("0/1 versions · 0 MUST failures".into(), "yellow".into())
        );
    }
}
