//! `--json FILE`: the report document ([`crate::model::Report`], the same
//! as `--report-dir`'s `report.json`, without transcript paths), written
//! once the run finishes.
//!
//! ```json
//! { "summary": { "passed": 57, "failed": 1, "warned": 0, "not_applicable": 4, "errored": 0, … },
//!   "results": [ { "id": "…@2025-06-18", "scenario": "…", "version": "2025-06-18",
//!                  "outcome": "fail", "level": "must", "requirements": ["…"],
//!                  "message": "…", "duration_ms": 12, "findings": [ … ] } ],
//!   "run": { … }, "probes": [ … ], "format": 1, "complete": true }
//! ```
//!
//! The file is written to a temporary name and renamed into place, so a
//! reader never sees half a report.

use std::path::PathBuf;
use std::sync::Arc;

use mcpspec_model::{Event, Reporter};

use crate::baseline::Baseline;
use crate::dir::write_atomic;
use crate::log::RunLog;
use crate::model;

pub struct JsonReporter {
    path: PathBuf,
    log: RunLog,
    /// Set when writing failed; the CLI reports it.
    pub error: Option<String>,
}

impl JsonReporter {
    pub fn new(path: PathBuf, strict: bool, baseline: Option<Arc<Baseline>>) -> Self {
        JsonReporter {
            path,
            log: RunLog::new(strict, baseline),
            error: None,
        }
    }
}

impl JsonReporter {
    /// The run as recorded so far (`--partition` names the shard here).
    pub fn log_mut(&mut self) -> &mut RunLog {
        &mut self.log
    }
}

impl Reporter for JsonReporter {
    fn event(&mut self, event: &Event) {
        self.log.observe(event);
        if matches!(event, Event::RunFinished { .. }) {
            let report = model::build(&self.log, &|_| None);
            let written = serde_json::to_string_pretty(&report)
                .map_err(|e| e.to_string())
                .and_then(|text| {
                    write_atomic(&self.path, format!("{text}\n").as_bytes())
                        .map_err(|e| e.to_string())
                });
            if let Err(e) = written {
                self.error = Some(format!("failed to write {}: {e}", self.path.display()));
            }
        }
    }
}
