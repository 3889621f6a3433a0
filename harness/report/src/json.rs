//! `--json FILE`: the machine-readable result of a run.
//!
//! ```json
//! { "summary": { "passed": 57, "failed": 1, "warned": 0, "not_applicable": 4, "errored": 0 },
//!   "results": [ { "id": "…@2025-06-18", "scenario": "…", "version": "2025-06-18",
//!                  "outcome": "fail", "level": "must", "requirements": ["…"],
//!                  "message": "…", "duration_ms": 12, "findings": [ … ] } ] }
//! ```
//!
//! The file is written once, when the run finishes, to a temporary name and
//! renamed into place, so a reader never sees half a report.

use std::path::PathBuf;

use mcpspec_runner::{CaseResult, Event, Reporter};
use serde_json::{json, Value};

pub struct JsonReporter {
    path: PathBuf,
    results: Vec<Value>,
    /// Set when writing failed; the CLI reports it.
    pub error: Option<String>,
}

impl JsonReporter {
    pub fn new(path: PathBuf) -> Self {
        JsonReporter {
            path,
            results: Vec::new(),
            error: None,
        }
    }
}

/// One case as JSON.
pub fn case_json(r: &CaseResult) -> Value {
    json!({
        "id": r.id,
        "scenario": r.scenario,
        "version": r.version.as_str(),
        "outcome": r.outcome.as_str(),
        "level": r.level.as_str(),
        "requirements": r.requirements,
        "message": r.message(),
        "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
        "findings": r.findings.iter().map(|f| json!({
            "requirement": f.requirement,
            "level": f.level.as_str(),
            "spec_url": f.spec_url,
            "summary": f.summary,
            "expected": f.expected,
            "actual": f.actual,
            "location": f.location,
        })).collect::<Vec<_>>(),
    })
}

/// Writes `text` to `path` atomically (temporary file, then rename).
pub fn write_atomic(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

impl Reporter for JsonReporter {
    fn event(&mut self, event: &Event) {
        match event {
            Event::CaseFinished(r) => self.results.push(case_json(r)),
            Event::RunFinished { summary, wall, .. } => {
                let mut results = std::mem::take(&mut self.results);
                results.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
                let doc = json!({
                    "summary": {
                        "passed": summary.passed,
                        "failed": summary.failed,
                        "warned": summary.warned,
                        "not_applicable": summary.not_applicable,
                        "errored": summary.errored,
                        "wall_ms": u64::try_from(wall.as_millis()).unwrap_or(u64::MAX),
                    },
                    "results": results,
                });
                let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
                if let Err(e) = write_atomic(&self.path, &text) {
                    self.error = Some(format!("failed to write {}: {e}", self.path.display()));
                }
            }
            _ => {}
        }
    }
}
