//! `mcpspec server --snapshots DIR`: each case's normalised transcript is
//! compared with its stored snapshot (`mcpspec_report::snapshot`), as insta
//! does for a test's output:
//!
//! | snapshot | the case | written |
//! |---|---|---|
//! | matches | as judged | a stale `.snap.new` is removed |
//! | changed | fails (MUST `mcpspec.snapshot`, the diff as Actual) | `.snap.new` |
//! | new (none stored) | as judged: reported as *new*, not a failure | `.snap.new` |
//! | new, under `--snapshots-strict` or `CI=true` | fails | `.snap.new` (nothing under CI) |
//!
//! A first run against a target therefore reports its conformance verdicts
//! unchanged plus "N new snapshots"; only a stored snapshot that no longer
//! matches (or a missing one where snapshots are required) fails. The run
//! ends with one line counting matched / new / changed snapshots and the
//! command that reviews them (`mcpspec review DIR`, one case at a time).
//!
//! **Where this sits.** The comparison can change a case's outcome, so every
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
//! the target). A new snapshot that does not fail leaves the case's outcome
//! and findings untouched (the outcome is the conformance verdict); it is
//! counted here and shown in the closing line only.

use std::sync::Arc;

use mcpspec_engine::Level;
use mcpspec_report::normalize::normalize_lines;
use mcpspec_report::snapshot::{Check, Store};
use mcpspec_report::textdiff;
use mcpspec_report::Redactions;
use mcpspec_runner::{CaseResult, Event, Finding, FindingSource, Outcome, Reporter, Summary};

/// The requirement id of a snapshot finding (not in the spec catalogue: it
/// is the user's own baseline of behaviour).
pub const REQUIREMENT: &str = "mcpspec.snapshot";

/// Diff lines quoted in a changed snapshot's finding; `mcpspec review`
/// shows the rest.
const DIFF_LINES: usize = 40;

/// How the run's snapshots compared.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SnapshotCounts {
    pub matched: usize,
    /// None stored; reported, not failed.
    pub new: usize,
    /// None stored, failed (`--snapshots-strict` or CI).
    pub missing: usize,
    pub changed: usize,
    /// A `.snap.new` was written for a new, missing or changed snapshot.
    pub pending_written: bool,
}

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
    pub counts: SnapshotCounts,
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
            counts: SnapshotCounts::default(),
        }
    }

    fn forward(&mut self, event: &Event) {
        for r in self.inner.iter_mut() {
            r.event(event);
        }
    }

    fn review_command(&self, case_id: Option<&str>) -> String {
        let dir = self.store.dir.display();
        match case_id {
            Some(id) => format!("`mcpspec review {dir} --filter {id}`"),
            None => format!("`mcpspec review {dir}`"),
        }
    }

    /// Compares the case with its snapshot: the finding that fails it, if any.
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
        let review = format!("review with {}", self.review_command(Some(&r.id)));
        let (expected, actual) = match check {
            Check::Same => {
                self.counts.matched += 1;
                return None;
            }
            Check::New { pending } => {
                self.counts.pending_written |= pending.is_some();
                if !self.store.strict {
                    self.counts.new += 1;
                    return None;
                }
                self.counts.missing += 1;
                (
                    format!("a stored snapshot {}", snap.display()),
                    match pending {
                        Some(p) => format!(
                            "none stored (--snapshots-strict: a missing snapshot fails); \
                             the new one is in {} ({review})",
                            p.display()
                        ),
                        None => "none stored (CI: a missing snapshot fails; no .snap.new written)"
                            .to_owned(),
                    },
                )
            }
            Check::Changed { diff, pending } => {
                self.counts.pending_written |= pending.is_some();
                self.counts.changed += 1;
                let more = match &pending {
                    Some(_) => review.clone(),
                    None => "run without CI=true to write it for review".to_owned(),
                };
                (
                    format!("the transcript stored in {}", snap.display()),
                    format!(
                        "a different transcript{} (- stored, + new):\n{}",
                        match pending {
                            Some(p) => format!(", written to {} ({review})", p.display()),
                            None => " (CI: no .snap.new written)".to_owned(),
                        },
                        textdiff::cut(&diff, DIFF_LINES, &more).trim_end()
                    ),
                )
            }
        };
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

    /// The closing line: how the snapshots compared and how to review them.
    pub fn closing_line(&self) -> String {
        let c = &self.counts;
        let mut parts = vec![format!("{} matched", c.matched)];
        if c.new > 0 {
            parts.push(format!(
                "{} new (not stored yet; not failures, unless --snapshots-strict or CI=true)",
                c.new
            ));
        }
        if c.missing > 0 {
            let why = if self.store.write {
                "--snapshots-strict"
            } else {
                "CI"
            };
            parts.push(format!("{} missing (failed: {why})", c.missing));
        }
        if c.changed > 0 {
            parts.push(format!("{} changed (failed)", c.changed));
        }
        let mut line = format!(
            "snapshots in {}: {}",
            self.store.dir.display(),
            parts.join(", ")
        );
        if c.pending_written {
            line.push_str(&format!(
                "; review them one at a time with {}",
                self.review_command(None)
            ));
        } else if !self.store.write && c.new + c.missing + c.changed > 0 {
            line.push_str("; CI=true: no .snap.new written, run without it to review");
        }
        line
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
                // After the reporters' closing lines (they flush at RunFinished).
                println!("{}", self.closing_line());
            }
            _ => self.forward(event),
        }
    }
}
