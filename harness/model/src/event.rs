//! The runner's event stream: everything reporters may know about a run.
//!
//! Reporters implement [`Reporter`] and see only these events, in order:
//! `RunStarted`, then `Probe` per version, then per case `CaseStarted` /
//! [`Retried`](Event::Retried) (only for a case run more than once) /
//! `CaseFinished` (interleaved across parallel cases), then `RunFinished`.
//! A run stopped early (the runner's `run_until`, Ctrl-C) says
//! `Interrupted` once, before `RunFinished`: no case starts after it, the
//! running ones are cancelled, and `RunFinished` totals the finished ones.

use std::time::Duration;

use mcpspec_engine::Version;

use crate::exit::Exit;
use crate::outcome::{CaseResult, Outcome, Summary};

#[derive(Debug, Clone)]
pub enum Event {
    RunStarted {
        /// How the target is reached, e.g. the command line.
        target: String,
        cases: usize,
        jobs: usize,
    },
    /// Whether the target offers a version (learnt from a handshake).
    Probe {
        version: Version,
        supported: bool,
        detail: String,
    },
    CaseStarted {
        id: String,
    },
    /// The case ran more than once (`--retries`, for a case the baseline
    /// calls flaky): every attempt's outcome, in order, the last being the
    /// one `CaseFinished` then reports. Sent just before that.
    Retried {
        id: String,
        attempts: Vec<Outcome>,
    },
    CaseFinished(Box<CaseResult>),
    /// The run was stopped before its end (e.g. `SIGINT`).
    Interrupted {
        /// Why, e.g. `SIGINT`.
        reason: String,
        /// The exit code an interrupted run comes to ([`Exit::Interrupted`]
        /// for `SIGINT`).
        exit: Exit,
    },
    RunFinished {
        summary: Summary,
        wall: Duration,
        strict: bool,
    },
}

/// A consumer of runner events (human output, JSON, JUnit, ...).
pub trait Reporter: Send {
    fn event(&mut self, event: &Event);
}
