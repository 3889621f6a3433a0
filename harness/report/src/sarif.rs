//! SARIF 2.1.0 (`--sarif FILE`, and `sarif.json` in `--report-dir`): the
//! run's findings in the format code-scanning services read.
//!
//! ```text
//!  RunLog ──► runs[0].tool.driver.rules   one per requirement a finding names:
//!                                         id, paraphrase, helpUri = spec link,
//!                                         defaultConfiguration.level from MUST/SHOULD/MAY
//!         ──► runs[0].results             one per distinct finding of a case:
//!                                         ruleId, level, Expected / Actual, the case as a
//!                                         logical location, the scenario step (file:line:col)
//!                                         as a physical one when the finding has it;
//!                                         a failure the baseline expects is suppressed
//!         ──► runs[0].invocations[0]      exit code, whether the run completed, and a
//!                                         notification per case that could not be judged
//!                                         (who is at fault: target, scenario or harness)
//! ```
//!
//! Levels: a MUST finding is `error`, a SHOULD `warning`, a MAY `note`.
//! Each result carries `partialFingerprints["mcpspec/v1"]` =
//! `case id:requirement id`, stable across runs, so a service tracks one
//! finding from run to run. `schema/sarif/sarif-schema-2.1.0.json` (the OASIS
//! schema) validates the output in `tests/report_schema.rs`. [`document`]
//! builds a log from any [`Item`]s: `mcpspec fuzz --sarif` uses it for fuzz
//! findings (the reproducer file as the location).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use mcpspec_engine::Level;
use mcpspec_model::{Blame, CaseResult, Event, Finding, FindingSource, Outcome, Reporter};
use serde_json::{json, Map, Value};

use crate::baseline::Baseline;
use crate::dir::write_atomic;
use crate::log::{rfc3339, Judged, RunLog};
use crate::rollup::{distinct, expected_lines};

/// The `$schema` a SARIF 2.1.0 log names.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// SARIF's level for a requirement level.
pub fn level(l: Level) -> &'static str {
    match l {
        Level::Must => "error",
        Level::Should => "warning",
        Level::May => "note",
    }
}

/// The label built-in scenario files carry in step locations
/// (`mcpspec_scenario::corpus::EMBEDDED_PREFIX`, then `/`); the files live
/// under `scenarios/` in mcpspec's repository, which is what SARIF names.
pub const EMBEDDED_LABEL: &str = "<embedded>/";

/// A file path as a relative URI reference: `/` separators, the embedded
/// label replaced by `scenarios/`, and characters a URI cannot hold
/// percent-encoded.
fn uri_of(file: &str) -> String {
    let file = file.replace('\\', "/");
    let file = match file.strip_prefix(EMBEDDED_LABEL) {
        Some(rel) => format!("scenarios/{rel}"),
        None => file,
    };
    let mut out = String::with_capacity(file.len());
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:@!$&'()*+,;=".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A file as a SARIF physical location without a region (a reproducer).
pub fn artifact(path: &str) -> Value {
    json!({ "artifactLocation": { "uri": uri_of(path) } })
}

/// A step location, `file:line:col (step N: …)`, as a SARIF physical location.
fn physical(location: &str) -> Option<Value> {
    let place = location.split(" (").next().unwrap_or(location);
    let mut parts = place.rsplitn(3, ':');
    let column: u64 = parts.next()?.parse().ok()?;
    let line: u64 = parts.next()?.parse().ok()?;
    let file = parts.next().filter(|f| !f.is_empty())?;
    (line >= 1 && column >= 1).then(|| {
        json!({
            "artifactLocation": { "uri": uri_of(file) },
            "region": { "startLine": line, "startColumn": column },
        })
    })
}

fn message(r: &CaseResult, f: &Finding) -> String {
    let mut text = format!("{}: {} [{} {}]", r.id, f.summary, f.level, f.requirement);
    for e in expected_lines(f) {
        text.push_str("\nExpected: ");
        text.push_str(e);
    }
    text.push_str("\nActual: ");
    text.push_str(&f.actual);
    text
}

/// One result of a SARIF log, whatever produced it (a case's finding, a
/// fuzz finding): [`document`] turns these into rules and results.
#[derive(Debug, Clone)]
pub struct Item {
    pub requirement: String,
    /// The level it was broken at.
    pub level: Level,
    /// The requirement's paraphrase and spec link (the rule's text).
    pub summary: String,
    pub spec_url: String,
    pub message: String,
    /// A SARIF `location` object.
    pub location: Value,
    /// `partialFingerprints["mcpspec/v1"]`: stable across runs.
    pub fingerprint: String,
    pub properties: Value,
    /// Set when a baseline accepts it: the justification.
    pub suppressed: Option<String>,
}

/// The rules table, filled as results name requirements.
#[derive(Default)]
struct Rules {
    index: BTreeMap<String, usize>,
    rules: Vec<Value>,
}

impl Rules {
    fn of(&mut self, item: &Item) -> usize {
        if let Some(i) = self.index.get(&item.requirement) {
            return *i;
        }
        let level = mcpspec_engine::lookup(&item.requirement).map_or(item.level, |r| r.level);
        let mut rule = json!({
            "id": item.requirement,
            "shortDescription": { "text": item.summary },
            "defaultConfiguration": { "level": self::level(level) },
            "properties": { "level": level.keyword(), "tags": ["mcp", level.as_str()] },
        });
        if !item.spec_url.is_empty() {
            rule["helpUri"] = json!(item.spec_url);
            rule["help"] = json!({ "text": format!("{} See {}", item.summary, item.spec_url) });
        }
        let i = self.rules.len();
        self.rules.push(rule);
        self.index.insert(item.requirement.clone(), i);
        i
    }
}

/// A SARIF 2.1.0 log of one run: `items` as results (their requirements as
/// rules), `invocation` as its one invocation, `properties` on the run.
pub fn document(items: &[Item], invocation: Map<String, Value>, properties: Value) -> Value {
    let mut rules = Rules::default();
    let results: Vec<Value> = items
        .iter()
        .map(|item| {
            let mut out = json!({
                "ruleId": item.requirement,
                "ruleIndex": rules.of(item),
                "kind": "fail",
                "level": level(item.level),
                "message": { "text": item.message },
                "locations": [item.location],
                "partialFingerprints": { "mcpspec/v1": item.fingerprint },
                "properties": item.properties,
            });
            if let Some(why) = &item.suppressed {
                out["suppressions"] =
                    json!([{ "kind": "external", "status": "accepted", "justification": why }]);
            }
            out
        })
        .collect();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mcpspec",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules.rules,
            } },
            "invocations": [Value::Object(invocation)],
            "results": results,
            "properties": properties,
        }],
    })
}

fn item(log: &RunLog, j: &Judged, f: &Finding) -> Item {
    let r = &j.result;
    let mut location = json!({
        "logicalLocations": [{ "fullyQualifiedName": r.id, "name": r.scenario, "kind": "test" }],
    });
    if let Some(p) = f.location.as_deref().and_then(physical) {
        location["physicalLocation"] = p;
    }
    let suppressed = match j.expectation {
        Some(e) if e.tolerated() => Some(
            log.entry(e)
                .map(|b| format!("{}: {} ({})", e.label(), b.reason, b.origin))
                .unwrap_or_default(),
        ),
        _ => None,
    };
    Item {
        requirement: f.requirement.clone(),
        level: f.level,
        summary: f.summary.clone(),
        spec_url: f.spec_url.clone(),
        message: message(r, f),
        location,
        fingerprint: format!("{}:{}", r.id, f.requirement),
        properties: json!({
            "case": r.id,
            "scenario": r.scenario,
            "version": r.version.as_str(),
            "outcome": r.outcome.as_str(),
            "source": match f.source { FindingSource::Step => "step", FindingSource::Oracle => "oracle" },
        }),
        suppressed,
    }
}

/// A case that could not be judged, as a tool execution notification.
fn notification(r: &CaseResult) -> Option<Value> {
    let Outcome::Error { blame, message } = &r.outcome else {
        return None;
    };
    Some(json!({
        "level": "error",
        "message": { "text": format!("{}: {} error: {message}", r.id, blame.as_str()) },
        "descriptor": { "id": format!("error.{}", blame.as_str()) },
        "properties": { "case": r.id, "blame": blame.as_str() },
    }))
}

/// The SARIF log of a run, from what the log holds now.
pub fn render(log: &RunLog) -> Value {
    let mut items = Vec::new();
    let mut notifications = Vec::new();
    for j in log.sorted() {
        for f in distinct(&j.result.findings) {
            items.push(item(log, j, &f));
        }
        notifications.extend(notification(&j.result));
    }
    if let Some(why) = &log.summary.unavailable {
        notifications.push(json!({
            "level": "error",
            "message": { "text": format!("no case could run: {why}") },
            "descriptor": { "id": "error.target" },
        }));
    }
    let harness_failed = log.cases.iter().any(|j| {
        matches!(
            &j.result.outcome,
            Outcome::Error {
                blame: Blame::Harness,
                ..
            }
        )
    });
    let mut invocation = Map::new();
    invocation.insert(
        "executionSuccessful".into(),
        json!(log.complete() && !harness_failed && log.summary.unavailable.is_none()),
    );
    invocation.insert("exitCode".into(), json!(i32::from(log.exit_code())));
    invocation.insert("startTimeUtc".into(), json!(rfc3339(log.started_at)));
    if !notifications.is_empty() {
        invocation.insert("toolExecutionNotifications".into(), json!(notifications));
    }
    if let Some((why, _)) = &log.interrupted {
        invocation.insert("exitCodeDescription".into(), json!(why));
    }
    document(
        &items,
        invocation,
        json!({ "target": log.target, "complete": log.complete() }),
    )
}

/// `--sarif FILE`: the SARIF log, written once the run finishes.
pub struct SarifReporter {
    path: PathBuf,
    log: RunLog,
    /// Set when writing failed; the CLI reports it.
    pub error: Option<String>,
}

impl SarifReporter {
    pub fn new(path: PathBuf, strict: bool, baseline: Option<Arc<Baseline>>) -> Self {
        SarifReporter {
            path,
            log: RunLog::new(strict, baseline),
            error: None,
        }
    }
}

impl Reporter for SarifReporter {
    fn event(&mut self, event: &Event) {
        self.log.observe(event);
        if matches!(event, Event::RunFinished { .. }) {
            if let Err(e) = write(&self.path, &render(&self.log)) {
                self.error = Some(e);
            }
        }
    }
}

/// Writes a SARIF log (or any JSON document) to `path`, atomically.
pub fn write(path: &std::path::Path, doc: &Value) -> Result<(), String> {
    serde_json::to_string_pretty(doc)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            write_atomic(path, format!("{text}\n").as_bytes()).map_err(|e| e.to_string())
        })
        .map_err(|e| format!("failed to write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_location_becomes_a_region() {
        assert_eq!(
            physical("scenarios/server/ping.yaml:12:5 (step 2: send ping)"),
            Some(json!({
                "artifactLocation": { "uri": "scenarios/server/ping.yaml" },
                "region": { "startLine": 12, "startColumn": 5 },
            }))
        );
        assert_eq!(
            physical("C:\\s\\p.yaml:3:1").unwrap()["artifactLocation"]["uri"],
            "C:/s/p.yaml"
        );
        assert_eq!(
            physical("<embedded>/server/a b.yaml:2:3").unwrap()["artifactLocation"]["uri"],
            "scenarios/server/a%20b.yaml"
        );
        assert_eq!(physical("no location"), None);
        assert_eq!(physical(":1:1"), None);
        assert_eq!(physical("f.yaml:0:1"), None);
    }

    #[test]
    fn levels_follow_the_keywords() {
        assert_eq!(
            [Level::Must, Level::Should, Level::May].map(level),
            ["error", "warning", "note"]
        );
    }
}
