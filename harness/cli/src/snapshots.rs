//! `mcpspec server --snapshots DIR`: each case's normalised transcript is
//! compared with its stored snapshot (`mcpspec_report::snapshot`).
//!
//! **Where this sits.** The comparison changes a case's outcome, so every
//! reporter (and the baseline, and the exit code) must see the changed
//! outcome. [`SnapshotGate`] is a thin stage on the event stream, wired by
//! `server.rs` between the runner and the reporters:
//!
//! ```text
//! runner ──Event──► SnapshotGate ──Event (outcome adjusted)──► human, json, report dir, baseline
//! ```
//!
//! The runner stays unaware of snapshots (it plays scenarios) and the
//! reporters stay pure consumers; the gate is the one place that judges a
//! case by something other than its scenario. It leaves cases that were not
//! applicable or errored alone (their transcripts say nothing stable about
//! the target). A case whose transcript is new or changed gets one MUST
//! finding, `mcpspec.snapshot`, whose Actual is the unified diff from the
//! stored snapshot (Expected) to the new transcript, and so fails.

use std::sync::Arc;

use mcpspec_engine::Level;
use mcpspec_report::normalize::normalize_lines;
use mcpspec_report::snapshot::{Check, Store};
use mcpspec_report::Redactions;
use mcpspec_runner::{CaseResult, Event, Finding, FindingSource, Outcome, Reporter, Summary};

/// The requirement id of a snapshot finding (not in the spec catalogue: it
/// is the user's own baseline of behaviour).
pub const REQUIREMENT: &str = "mcpspec.snapshot";

/// The snapshot stage; forwards every event to `inner`.
pub struct SnapshotGate<'a> {
    store: Store,
    rules: Arc<Redactions>,
    inner: Vec<&'a mut dyn Reporter>,
    /// Cases the gate turned from pass to fail, and from warn to fail.
    from_pass: usize,
    from_warn: usize,
    /// The run's summary with those changes, once `RunFinished` passed.
    pub summary: Option<Summary>,
    /// Snapshot files that could not be read or written (exit 2).
    pub errors: Vec<String>,
    /// Cases whose snapshot was new or changed.
    pub changed: usize,
}

impl<'a> SnapshotGate<'a> {
    pub fn new(store: Store, rules: Arc<Redactions>, inner: Vec<&'a mut dyn Reporter>) -> Self {
        SnapshotGate {
            store,
            rules,
            inner,
            from_pass: 0,
            from_warn: 0,
            summary: None,
            errors: Vec::new(),
            changed: 0,
        }
    }

    fn forward(&mut self, event: &Event) {
        for r in self.inner.iter_mut() {
            r.event(event);
        }
    }

    /// The finding for a new or changed snapshot, if any.
    fn finding(&mut self, r: &CaseResult) -> Option<Finding> {
        let content = normalize_lines(&r.transcript, &self.rules);
        let snap = mcpspec_report::snapshot::snap_path(&self.store.dir, &r.id);
        let check = match self.store.check(&r.id, &content) {
            Ok(c) => c,
            Err(e) => {
                self.errors.push(e);
                return None;
            }
        };
        let review = format!("review with `mcpspec review {}`", self.store.dir.display());
        let (expected, actual) = match check {
            Check::Same => return None,
            Check::New { pending } => (
                format!("a stored snapshot {}", snap.display()),
                match pending {
                    Some(p) => format!("none stored; the new one is in {} ({review})", p.display()),
                    None => "none stored (CI: no .snap.new written)".to_owned(),
                },
            ),
            Check::Changed { diff, pending } => (
                format!("the transcript stored in {}", snap.display()),
                format!(
                    "a different transcript{} (- stored, + new):\n{}",
                    match pending {
                        Some(p) => format!(", written to {} ({review})", p.display()),
                        None => " (CI: no .snap.new written)".to_owned(),
                    },
                    diff.trim_end()
                ),
            ),
        };
        self.changed += 1;
        Some(Finding {
            requirement: REQUIREMENT.to_owned(),
            level: Level::Must,
            spec_url: String::new(),
            summary: "The case's normalised transcript matches its stored snapshot".to_owned(),
            expected: vec![expected],
            actual,
            location: None,
            source: FindingSource::Oracle,
        })
    }
}

impl Reporter for SnapshotGate<'_> {
    fn event(&mut self, event: &Event) {
        match event {
            Event::CaseFinished(r)
                if matches!(r.outcome, Outcome::Pass | Outcome::Fail | Outcome::Warn) =>
            {
                let Some(finding) = self.finding(r) else {
                    self.forward(event);
                    return;
                };
                let mut r = (**r).clone();
                match r.outcome {
                    Outcome::Pass => self.from_pass += 1,
                    Outcome::Warn => self.from_warn += 1,
                    _ => {}
                }
                r.outcome = Outcome::Fail;
                // First: a case's one-line message names its last worst
                // finding, which stays the scenario's own when it has one.
                r.findings.insert(0, finding);
                self.forward(&Event::CaseFinished(Box::new(r)));
            }
            Event::RunFinished {
                summary,
                wall,
                strict,
            } => {
                let mut s = summary.clone();
                s.passed = s.passed.saturating_sub(self.from_pass);
                s.warned = s.warned.saturating_sub(self.from_warn);
                s.failed += self.from_pass + self.from_warn;
                self.summary = Some(s.clone());
                self.forward(&Event::RunFinished {
                    summary: s,
                    wall: *wall,
                    strict: *strict,
                });
            }
            _ => self.forward(event),
        }
    }
}
