//! The progress bar of `mcpspec server` on a terminal (indicatif).
//!
//! ```text
//!   FAIL [  0.402s] server/notifications/…@2025-06-18                  ← the human reporter's lines
//!  BLOCK [  0.020s] server/tools/list/title@2025-06-18 (blocked by …)    (--status-level), above the bar
//! ⠙ [00:00:07] [=============>                ] 41/96 cases · 1 failed, 1 blocked
//! ```
//!
//! [`Progress`] is a thin stage in front of the human reporter: it forwards
//! every event to it with the bar cleared (`ProgressBar::suspend`), so the
//! lines print exactly as they would without it, then redraws the bar:
//! cases done / planned, failures (errors, blocked cases, warnings) so
//! far, elapsed time. At `RunFinished`
//! the bar is cleared before the closing lines print. It consumes runner
//! events only, like every reporter.
//!
//! [`wanted`] decides: only when stdout and stderr are terminals, `TERM` is
//! not `dumb` (no cursor movement there) and `--no-progress` is not given;
//! otherwise the human reporter runs alone and the output is plain lines.
//! `NO_COLOR` keeps the bar, without colour.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpspec_runner::{Event, Outcome, Reporter};

/// Whether to draw a progress bar (see the module doc).
pub fn wanted(no_progress: bool) -> bool {
    !no_progress
        && std::io::stdout().is_terminal()
        && std::io::stderr().is_terminal()
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// The bar in front of `inner` (the human reporter).
pub struct Progress<R> {
    inner: R,
    bar: ProgressBar,
    failed: usize,
    errored: usize,
    blocked: usize,
    warned: usize,
}

impl<R: Reporter> Progress<R> {
    /// A bar on stderr; coloured unless `NO_COLOR` is set.
    pub fn new(inner: R) -> Self {
        let color = std::env::var_os("NO_COLOR").is_none();
        let bar_spec = if color {
            "{bar:30.cyan/blue}"
        } else {
            "{bar:30}"
        };
        let template = format!(
            "{{spinner}} [{{elapsed_precise}}] [{bar_spec}] {{pos}}/{{len}} cases · {{msg}}"
        );
        let style = ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        // Drawn from `RunStarted` on, when its length is known.
        let bar = ProgressBar::hidden();
        bar.set_style(style);
        Progress {
            inner,
            bar,
            failed: 0,
            errored: 0,
            blocked: 0,
            warned: 0,
        }
    }

    /// The failures so far, for the bar's message.
    fn tally(&self) -> String {
        let mut text = format!("{} failed", self.failed);
        for (n, what) in [
            (self.errored, "errored"),
            (self.blocked, "blocked"),
            (self.warned, "warned"),
        ] {
            if n > 0 {
                text.push_str(&format!(", {n} {what}"));
            }
        }
        text
    }

    /// Forwards `event` to the inner reporter with the bar cleared.
    fn forward(&mut self, event: &Event) {
        let inner = &mut self.inner;
        self.bar.suspend(|| inner.event(event));
    }
}

impl<R: Reporter> Reporter for Progress<R> {
    fn event(&mut self, event: &Event) {
        match event {
            Event::RunStarted { cases, .. } => {
                self.forward(event);
                self.bar
                    .set_length(u64::try_from(*cases).unwrap_or(u64::MAX));
                self.bar.set_message("probing versions");
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
                self.bar.enable_steady_tick(Duration::from_millis(200));
            }
            Event::CaseFinished(r) => {
                match r.outcome {
                    Outcome::Fail => self.failed += 1,
                    Outcome::Error { .. } => self.errored += 1,
                    Outcome::Warn => self.warned += 1,
                    Outcome::Blocked { .. } => self.blocked += 1,
                    Outcome::Pass | Outcome::NotApplicable { .. } => {}
                }
                self.forward(event);
                self.bar.inc(1);
                self.bar.set_message(self.tally());
            }
            Event::Interrupted { reason, .. } => {
                self.forward(event);
                self.bar
                    .set_message(format!("{} · {reason}: stopping", self.tally()));
            }
            Event::RunFinished { .. } => {
                self.bar.finish_and_clear();
                self.inner.event(event);
            }
            Event::Probe { .. } | Event::CaseStarted { .. } | Event::Retried { .. } => {
                self.forward(event)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::{Level, Version};
    use mcpspec_runner::CaseResult;

    struct Nothing;
    impl Reporter for Nothing {
        fn event(&mut self, _: &Event) {}
    }

    #[test]
    fn the_bar_counts_blocked_cases_among_the_problems() {
        let mut progress = Progress::new(Nothing);
        for outcome in [
            Outcome::Fail,
            Outcome::Blocked {
                by: "pagination.cursor.terminates".into(),
                level: Level::Should,
            },
            Outcome::Blocked {
                by: "pagination.cursor.terminates".into(),
                level: Level::Should,
            },
            Outcome::Pass,
        ] {
            progress.event(&Event::CaseFinished(Box::new(CaseResult {
                id: "server/x@2025-06-18".into(),
                scenario: "server/x".into(),
                title: String::new(),
                version: Version::V2025_06_18,
                level: Level::Must,
                requirements: Vec::new(),
                outcome,
                findings: Vec::new(),
                duration: Duration::ZERO,
                transcript: Vec::new(),
            })));
        }
        assert_eq!(progress.tally(), "1 failed, 2 blocked");
    }
}
