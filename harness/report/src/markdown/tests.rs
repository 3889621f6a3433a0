//! summary.md: escaping, the size limit, root causes and blocked cases.

mod escaping {
    use super::super::*;

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

mod truncation {
    use super::super::*;
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
            requirements: vec![format!("r{n}")],
            outcome: Outcome::Fail,
            findings: vec![Finding {
                requirement: format!("r{n}"),
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

mod causes {
    use super::super::*;
    use mcpspec_engine::{Level, Version};
    use mcpspec_model::{CaseResult, Event, Finding, FindingSource, Summary};
    use std::time::Duration;

    const LOOP: &str = "pagination.cursor.terminates";

    fn case(scenario: &str, outcome: Outcome) -> CaseResult {
        CaseResult {
            id: format!("{scenario}@2025-06-18"),
            scenario: scenario.into(),
            title: "t".into(),
            version: Version::V2025_06_18,
            level: Level::Must,
            requirements: vec!["own.requirement".into()],
            outcome,
            findings: vec![Finding {
                requirement: LOOP.into(),
                level: Level::Should,
                spec_url: "https://spec.example/p#loop".into(),
                summary: "Paging ends.".into(),
                expected: vec![
                    "Paging ends".into(),
                    "the listing ends within 50 pages".into(),
                ],
                actual: "still a cursor after 50 pages".into(),
                location: None,
                source: FindingSource::Step,
            }],
            duration: Duration::ZERO,
            transcript: Vec::new(),
        }
    }

    fn log_of(cases: Vec<CaseResult>, unavailable: Option<&str>) -> RunLog {
        let mut log = RunLog::new(false, None);
        log.observe(&Event::RunStarted {
            target: "srv".into(),
            cases: 500,
            jobs: 1,
        });
        log.observe(&Event::Probe {
            version: Version::V2025_06_18,
            supported: false,
            detail: "HTTP 501 <b>Not Implemented</b>".into(),
        });
        let mut summary = Summary::default();
        for c in cases {
            summary.add(&c.outcome);
            log.observe(&Event::CaseFinished(Box::new(c)));
        }
        summary.unavailable = unavailable.map(str::to_owned);
        log.observe(&Event::RunFinished {
            summary,
            wall: Duration::from_millis(1),
            strict: false,
        });
        log
    }

    #[test]
    fn blocked_cases_name_what_blocked_them_and_the_rollup_comes_first() {
        let blocked = || Outcome::Blocked {
            by: LOOP.into(),
            level: Level::Should,
        };
        let mut cases = vec![case("server/pagination/follow", Outcome::Warn)];
        for n in 0..5 {
            cases.push(case(&format!("server/tools/check-{n}"), blocked()));
        }
        let md = render(&log_of(cases, None), LIMIT);
        let rollup = md.find("### Broken requirements: 1").expect("rollup");
        assert!(md[rollup..].contains(
            "1. **SHOULD** [pagination.cursor.terminates](https://spec.example/p#loop): 1 warned, 5 blocked — Paging ends.\n   \
             - e.g. server/pagination/follow@2025-06-18 — Expected: the listing ends within 50 pages — Actual: still a cursor after 50 pages\n"
        ), "{md}");
        let section = md
            .find("### Blocked (the target broke another requirement first): 5")
            .expect("blocked");
        assert!(rollup < section);
        assert!(md.contains(
            "- server/tools/check-0@2025-06-18 — blocked by **SHOULD** [pagination.cursor.terminates](https://spec.example/p#loop) (rollup 1)\n"
        ), "{md}");
        // Three examples, then the rest counted; never a failure of their own.
        assert!(!md.contains("check-3@"), "{md}");
        assert!(
            md.contains("- _… and 2 more case(s) under pagination.cursor.terminates"),
            "{md}"
        );
        assert!(
            !md.contains("own.requirement") && !md.contains("### Failures"),
            "{md}"
        );
        assert!(md.contains("| blocked | 5 |"), "{md}");
    }

    #[test]
    fn a_run_in_which_nothing_could_run_opens_with_a_banner() {
        let md = render(&log_of(Vec::new(), Some("no version negotiated")), LIMIT);
        assert!(
            md.starts_with(
                "## mcpspec: nothing could be judged (exit 3)\n\n\
             > **No case could run:** no version negotiated\n>\n\
             > | version | probe |\n> |---|---|\n\
             > | 2025-06-18 | not offered: HTTP 501 &lt;b&gt;Not Implemented&lt;/b&gt; |\n"
            ),
            "{md}"
        );
    }
}
