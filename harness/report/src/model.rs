//! `report.json`: the typed document, written by `--report-dir` and
//! `--json FILE`, and the source of its JSON Schema
//! (`schema/report.schema.json`, see [`report_schema`]).
//!
//! The document is a superset of what `--json` wrote before (`summary` and
//! `results` keep their fields) plus the run's metadata, the version probe
//! and the baseline's judgement:
//!
//! ```json
//! { "format": 1, "complete": true, "interrupted": false,
//!   "run": { "mcpspec_version": "0.1.0", "target": "…", "started_at": "2026-…Z",
//!            "wall_ms": 1930, "strict": false, "jobs": 8, "planned": 62, "exit_code": 1,
//!            "interrupted_by": "SIGINT" (only when interrupted) },
//!   "summary": { "passed": 57, "failed": 1, …, "expected_failures": 0, "stale_expectations": 0 },
//!   "probes": [ { "version": "2025-06-18", "supported": true, "detail": "…" } ],
//!   "baseline": { "file": "…", "entries": [ { "pattern", "reason", "origin", "cases", "stale" } ] },
//!   "rollup": [ { "requirement", "level", "spec_url", "summary", "failed", "warned", "blocked",
//!                 "cases", "example": { "case", "expected", "actual", "location" } } ],
//!   "results": [ { "id", "scenario", "title", "version", "outcome", "level", "requirements",
//!                  "message", "blocked_by", "duration_ms", "findings", "expectation",
//!                  "transcript" } ] }
//! ```
//!
//! `rollup` is the root causes ([`crate::rollup`]): each broken requirement
//! once, MUST first, then by the number of cases, with the cases it failed,
//! warned or blocked (a baseline's expected failures left out). A run in
//! which no case could run has `run.unavailable` and no results.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use mcpspec_model::Outcome;

use crate::log::{rfc3339, Judged, RunLog};

/// Bumped on incompatible changes of the document.
pub const FORMAT: u32 = 1;

/// Where the schema is committed, relative to the repository root.
pub const SCHEMA_PATH: &str = "schema/report.schema.json";

/// The result of one `mcpspec server` run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// Version of this document's format.
    pub format: u32,
    /// False when the run was cut short: the results are those finished so far.
    pub complete: bool,
    /// True when the run was stopped (Ctrl-C, SIGTERM): the results are the
    /// cases that finished before; `run.interrupted_by` says why.
    #[serde(default)]
    pub interrupted: bool,
    pub run: RunMeta,
    pub summary: Totals,
    /// What the version probe learnt, per version.
    pub probes: Vec<ProbeEntry>,
    /// The `--expected-failures` file, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineEntries>,
    /// Each broken requirement once (MUST first, then by cases affected).
    #[serde(default)]
    pub rollup: Vec<RollupEntry>,
    /// One per case, sorted by id.
    pub results: Vec<CaseEntry>,
}

/// One broken requirement across the run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RollupEntry {
    pub requirement: String,
    pub level: LevelName,
    /// The example's specification link (empty when not catalogued).
    pub spec_url: String,
    pub summary: String,
    /// Cases it failed (broken at MUST level).
    pub failed: usize,
    /// Cases it warned (broken at SHOULD level).
    pub warned: usize,
    /// Cases it blocked: they could not reach what they check.
    pub blocked: usize,
    /// Every case it affected, sorted by id.
    pub cases: Vec<String>,
    pub example: RollupExample,
}

/// One case where a requirement was broken.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RollupExample {
    /// The case id.
    pub case: String,
    /// Without lines that only repeat the summary.
    pub expected: Vec<String>,
    pub actual: String,
    pub location: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunMeta {
    pub mcpspec_version: String,
    /// How the target was started (its command line).
    pub target: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub wall_ms: u64,
    /// Whether SHOULD violations fail the run.
    pub strict: bool,
    pub jobs: usize,
    /// Cases planned; `results` has fewer when the run was cut short.
    pub planned: usize,
    /// The process exit code the results come to (README: 0, 1, 2 or 3;
    /// 130 or 143 when interrupted by SIGINT or SIGTERM).
    pub exit_code: i32,
    /// What stopped the run early, e.g. `SIGINT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
    /// The shard of the selected cases this run ran (`--partition`, e.g.
    /// `hash:1/3`); `mcpspec report combine` joins the shards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// Why no case could run: the target could not be started or reached,
    /// or negotiated none of the selected versions (`results` is empty then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub warned: usize,
    pub not_applicable: usize,
    /// Cases blocked by another rule's violation (absent before format 1.1: 0).
    #[serde(default)]
    pub blocked: usize,
    pub errored: usize,
    pub wall_ms: u64,
    /// Failures (fail, warn, target error) the baseline lists: they do not fail the run.
    pub expected_failures: usize,
    /// Listed cases that passed: each fails the run.
    pub stale_expectations: usize,
    /// Flaky cases (baseline `flaky:`) whose failure was tolerated.
    #[serde(default)]
    pub flaky: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbeEntry {
    pub version: String,
    pub supported: bool,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntries {
    /// The file as given on the command line.
    pub file: String,
    pub entries: Vec<BaselineEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    /// Case id, scenario id or glob over case ids.
    pub pattern: String,
    pub reason: String,
    /// `file:line:col`.
    pub origin: String,
    /// Cases of this run the entry judged.
    pub cases: Vec<String>,
    /// Cases among them that passed: the entry is stale.
    pub stale: Vec<String>,
    /// Listed under `flaky:`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// For a flaky entry: cases that passed every one of several attempts
    /// (the entry is a candidate to remove).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steady: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeName {
    Pass,
    Fail,
    Warn,
    NotApplicable,
    /// Could not reach what it checks: the target broke another rule first
    /// (`blocked_by`).
    Blocked,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LevelName {
    Must,
    Should,
    May,
}

impl From<mcpspec_engine::Level> for LevelName {
    fn from(l: mcpspec_engine::Level) -> Self {
        match l {
            mcpspec_engine::Level::Must => LevelName::Must,
            mcpspec_engine::Level::Should => LevelName::Should,
            mcpspec_engine::Level::May => LevelName::May,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BlameName {
    Target,
    Scenario,
    Harness,
}

/// How the baseline judged a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExpectationStatus {
    /// Listed, and failed: does not fail the run.
    ExpectedFailure,
    /// Listed, but passed: fails the run until the entry is removed.
    StaleExpectation,
    /// Listed, but not judged (not applicable, or a scenario/harness error).
    Listed,
    /// Listed as flaky: its outcome, whatever it is, does not fail the run.
    Flaky,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectationEntry {
    pub status: ExpectationStatus,
    pub pattern: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseEntry {
    /// `<scenario id>@<version>`.
    pub id: String,
    pub scenario: String,
    pub title: String,
    pub version: String,
    pub outcome: OutcomeName,
    /// The scenario's level.
    pub level: LevelName,
    pub requirements: Vec<String>,
    /// One line: the worst finding, or why the case is n/a or an error.
    pub message: String,
    /// Who is at fault, for an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blame: Option<BlameName>,
    /// For a blocked case: the requirement the target broke first (its
    /// finding is among `findings`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    pub duration_ms: u64,
    pub findings: Vec<FindingEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expectation: Option<ExpectationEntry>,
    /// The transcript file, relative to the report directory (`--report-dir` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// Lines in the transcript.
    pub transcript_lines: usize,
    /// Every attempt's outcome when the case ran more than once
    /// (`--retries`, a flaky case), the last being `outcome`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<OutcomeName>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindingEntry {
    pub requirement: String,
    pub level: LevelName,
    /// Specification link (empty when the requirement is not catalogued).
    pub spec_url: String,
    pub summary: String,
    pub expected: Vec<String>,
    pub actual: String,
    /// `file:line:col (step N: …)` in the scenario.
    pub location: Option<String>,
    /// Who decided it: a scenario step, or the oracle (absent in reports
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceName>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceName {
    Step,
    Oracle,
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The report's name of an outcome.
pub(crate) fn outcome_name(o: &Outcome) -> OutcomeName {
    match o {
        Outcome::Pass => OutcomeName::Pass,
        Outcome::Blocked { .. } => OutcomeName::Blocked,
        Outcome::Fail => OutcomeName::Fail,
        Outcome::Warn => OutcomeName::Warn,
        Outcome::NotApplicable { .. } => OutcomeName::NotApplicable,
        Outcome::Error { .. } => OutcomeName::Error,
    }
}

/// One case as a report entry; `transcript` is its file, when written.
pub fn case_entry(log: &RunLog, j: &Judged, transcript: Option<String>) -> CaseEntry {
    let r = &j.result;
    let blocked_by = match &r.outcome {
        Outcome::Blocked { by, .. } => Some(by.clone()),
        _ => None,
    };
    let outcome = outcome_name(&r.outcome);
    let blame = match &r.outcome {
        Outcome::Error { blame, .. } => Some(match blame {
            mcpspec_model::Blame::Target => BlameName::Target,
            mcpspec_model::Blame::Scenario => BlameName::Scenario,
            mcpspec_model::Blame::Harness => BlameName::Harness,
        }),
        _ => None,
    };
    let expectation = j.expectation.and_then(|e| {
        let entry = log.entry(e)?;
        Some(ExpectationEntry {
            status: match e {
                crate::Expectation::ExpectedFailure(_) => ExpectationStatus::ExpectedFailure,
                crate::Expectation::Stale(_) => ExpectationStatus::StaleExpectation,
                crate::Expectation::Listed(_) => ExpectationStatus::Listed,
                crate::Expectation::Flaky(_) => ExpectationStatus::Flaky,
            },
            pattern: entry.pattern.clone(),
            reason: entry.reason.clone(),
        })
    });
    CaseEntry {
        id: r.id.clone(),
        scenario: r.scenario.clone(),
        title: r.title.clone(),
        version: r.version.as_str().to_owned(),
        outcome,
        level: r.level.into(),
        requirements: r.requirements.clone(),
        message: r.message(),
        blame,
        blocked_by,
        duration_ms: millis(r.duration),
        findings: r
            .findings
            .iter()
            .map(|f| FindingEntry {
                requirement: f.requirement.clone(),
                level: f.level.into(),
                spec_url: f.spec_url.clone(),
                summary: f.summary.clone(),
                expected: f.expected.clone(),
                actual: f.actual.clone(),
                location: f.location.clone(),
                source: Some(match f.source {
                    mcpspec_model::FindingSource::Step => SourceName::Step,
                    mcpspec_model::FindingSource::Oracle => SourceName::Oracle,
                }),
            })
            .collect(),
        expectation,
        transcript,
        transcript_lines: j.transcript_lines,
        attempts: j.attempts.iter().map(outcome_name).collect(),
    }
}

/// The document for `log`; `transcript_of` names each case's transcript file.
pub fn build(log: &RunLog, transcript_of: &dyn Fn(&str) -> Option<String>) -> Report {
    let wall_ms = millis(log.wall());
    let sorted = log.sorted();
    let baseline = log.baseline.as_ref().map(|b| BaselineEntries {
        file: b.file.clone(),
        entries: b
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let judged = sorted
                    .iter()
                    .filter(|j| j.expectation.is_some_and(|x| x.entry() == i));
                BaselineEntry {
                    pattern: e.pattern.clone(),
                    reason: e.reason.clone(),
                    origin: e.origin.clone(),
                    flaky: e.flaky,
                    steady: judged
                        .clone()
                        .filter(|j| j.steady())
                        .map(|j| j.result.id.clone())
                        .collect(),
                    cases: judged.clone().map(|j| j.result.id.clone()).collect(),
                    stale: judged
                        .filter(|j| matches!(j.expectation, Some(crate::Expectation::Stale(_))))
                        .map(|j| j.result.id.clone())
                        .collect(),
                }
            })
            .collect(),
    });
    let s = &log.summary;
    let counted = sorted
        .iter()
        .filter(|j| !j.expectation.is_some_and(crate::Expectation::tolerated))
        .map(|j| &j.result);
    let rollup = crate::rollup::rollup(counted)
        .into_iter()
        .map(|b| RollupEntry {
            level: b.level.into(),
            failed: b.failed,
            warned: b.warned,
            blocked: b.blocked,
            example: RollupExample {
                case: b.example.case,
                expected: b.example.expected,
                actual: b.example.actual,
                location: b.example.location,
            },
            requirement: b.requirement,
            spec_url: b.spec_url,
            summary: b.summary,
            cases: b.cases,
        })
        .collect();
    Report {
        format: FORMAT,
        complete: log.complete(),
        interrupted: log.interrupted.is_some(),
        run: RunMeta {
            mcpspec_version: env!("CARGO_PKG_VERSION").to_owned(),
            target: log.target.clone(),
            started_at: rfc3339(log.started_at),
            wall_ms,
            strict: log.strict,
            jobs: log.jobs,
            planned: log.planned,
            exit_code: log.exit_code().into(),
            interrupted_by: log.interrupted.as_ref().map(|(why, _)| why.clone()),
            partition: log.partition.clone(),
            unavailable: s.unavailable.clone(),
        },
        summary: Totals {
            passed: s.passed,
            failed: s.failed,
            warned: s.warned,
            not_applicable: s.not_applicable,
            blocked: s.blocked,
            errored: s.errored,
            wall_ms,
            expected_failures: log.tally.expected_total(),
            stale_expectations: log.tally.stale,
            flaky: log.tally.flaky,
        },
        probes: log
            .probes
            .iter()
            .map(|p| ProbeEntry {
                version: p.version.as_str().to_owned(),
                supported: p.supported,
                detail: p.detail.clone(),
            })
            .collect(),
        baseline,
        rollup,
        results: sorted
            .iter()
            .map(|j| case_entry(log, j, transcript_of(&j.result.id)))
            .collect(),
    }
}

/// The JSON Schema of [`Report`] (draft 2020-12).
pub fn report_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(Report);
    let mut value = serde_json::to_value(&schema).unwrap_or_default();
    if let Some(obj) = value.as_object_mut() {
        obj.insert(
            "$comment".into(),
            "Generated from harness/report/src/model.rs; regenerate with \
             `MCPSPEC_BLESS=1 cargo test -p mcpspec-report --test report_schema`."
                .into(),
        );
    }
    value
}

/// [`report_schema`] as committed: pretty JSON with a final newline.
pub fn report_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&report_schema()).unwrap_or_default();
    text.push('\n');
    text
}
