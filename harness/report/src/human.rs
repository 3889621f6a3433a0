//! The terminal reporter.
//!
//! ```text
//!    PASS [ 0.031s] server/ping/after-init@2025-06-18
//!    FAIL [ 0.402s] server/notifications/initialized/no-answer@2025-06-18
//! …
//! ── failures ──
//! FAIL server/notifications/initialized/no-answer@2025-06-18
//!   MUST jsonrpc.notification.no-response: A notification is never answered.
//!   spec: https://modelcontextprotocol.io/specification/2025-06-18/basic#notifications
//!   Expected:
//!     - no response or request for 300ms
//!   Actual: result for id null at 12ms
//! …
//! 57 passed, 1 failed, 0 warned, 4 not applicable, 0 errored in 1.93s
//! ```

use std::io::{IsTerminal, Write};

use mcpspec_runner::{CaseResult, Event, Outcome, Reporter};

/// How much of the transcript a failure shows.
const EXCERPT_LINES: usize = 12;

pub struct HumanReporter {
    out: Box<dyn Write + Send>,
    color: bool,
    verbose: bool,
    problems: Vec<CaseResult>,
}

impl HumanReporter {
    /// A reporter on stdout; colours when stdout is a terminal and `NO_COLOR` is unset.
    pub fn stdout(verbose: bool) -> Self {
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Self::new(Box::new(std::io::stdout()), color, verbose)
    }

    pub fn new(out: Box<dyn Write + Send>, color: bool, verbose: bool) -> Self {
        HumanReporter {
            out,
            color,
            verbose,
            problems: Vec::new(),
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn label(&self, outcome: &Outcome) -> String {
        match outcome {
            Outcome::Pass => self.paint("32", "  PASS"),
            Outcome::Fail => self.paint("1;31", "  FAIL"),
            Outcome::Warn => self.paint("33", "  WARN"),
            Outcome::NotApplicable { .. } => self.paint("2", "   N/A"),
            Outcome::Error { .. } => self.paint("1;35", " ERROR"),
        }
    }

    fn detail(&mut self, r: &CaseResult) {
        let mut text = String::new();
        let head = format!("{} {}", r.outcome.as_str().to_uppercase(), r.id);
        text.push_str(&self.paint("1", &head));
        text.push('\n');
        text.push_str(&format!("  {}\n", r.title));
        if let Outcome::Error { blame, message } = &r.outcome {
            text.push_str(&format!("  {} at fault: {message}\n", blame.as_str()));
        }
        for f in &r.findings {
            text.push_str(&format!("  {} {}: {}\n", f.level, f.requirement, f.summary));
            if !f.spec_url.is_empty() {
                text.push_str(&format!("  spec: {}\n", f.spec_url));
            }
            if let Some(loc) = &f.location {
                text.push_str(&format!("  at: {loc}\n"));
            }
            if !f.expected.is_empty() {
                text.push_str("  Expected:\n");
                for e in &f.expected {
                    text.push_str(&format!("    - {e}\n"));
                }
            }
            text.push_str(&format!("  Actual: {}\n", f.actual));
        }
        if !r.transcript.is_empty() {
            let skip = r.transcript.len().saturating_sub(EXCERPT_LINES);
            text.push_str(&format!(
                "  Transcript{}:\n",
                if skip > 0 { " (last lines)" } else { "" }
            ));
            for line in &r.transcript[skip..] {
                text.push_str(&format!("    {line}\n"));
            }
        }
        let _ = writeln!(self.out, "{text}");
    }
}

impl Reporter for HumanReporter {
    fn event(&mut self, event: &Event) {
        match event {
            Event::RunStarted {
                target,
                cases,
                jobs,
            } => {
                let _ = writeln!(
                    self.out,
                    "mcpspec {}: {cases} cases against `{target}` ({jobs} jobs)",
                    env!("CARGO_PKG_VERSION")
                );
            }
            Event::Probe {
                version,
                supported,
                detail,
            } => {
                let state = if *supported { "offered" } else { "not offered" };
                let _ = writeln!(self.out, "  version {version}: {state} ({detail})");
            }
            Event::CaseStarted { .. } => {}
            Event::CaseFinished(r) => {
                let suffix = match &r.outcome {
                    Outcome::NotApplicable { reason } => format!(" ({reason})"),
                    // A pass can carry MAY-level notes: say so, so that a
                    // check that saw nothing is not mistaken for one that held.
                    Outcome::Pass if !r.findings.is_empty() => {
                        format!(" ({} MAY note(s); -v shows them)", r.findings.len())
                    }
                    _ => String::new(),
                };
                let label = self.label(&r.outcome);
                let _ = writeln!(
                    self.out,
                    "{label} [{:>7.3}s] {}{suffix}",
                    r.duration.as_secs_f64(),
                    r.id
                );
                let noted =
                    self.verbose && matches!(r.outcome, Outcome::Pass) && !r.findings.is_empty();
                let problem = matches!(
                    r.outcome,
                    Outcome::Fail | Outcome::Warn | Outcome::Error { .. }
                );
                if noted || problem {
                    self.problems.push((**r).clone());
                }
            }
            Event::RunFinished {
                summary,
                wall,
                strict,
            } => {
                if !self.problems.is_empty() {
                    let _ = writeln!(self.out, "\n{}", self.paint("1", "── problems ──"));
                    let mut problems = std::mem::take(&mut self.problems);
                    problems.sort_by(|a, b| a.id.cmp(&b.id));
                    for p in &problems {
                        self.detail(p);
                    }
                }
                if *strict {
                    let _ = writeln!(self.out, "--strict: warnings (SHOULD) fail the run");
                }
                let _ = writeln!(
                    self.out,
                    "{} passed, {} failed, {} warned, {} not applicable, {} errored in {:.2}s",
                    summary.passed,
                    summary.failed,
                    summary.warned,
                    summary.not_applicable,
                    summary.errored,
                    wall.as_secs_f64()
                );
                let _ = self.out.flush();
            }
        }
    }
}
