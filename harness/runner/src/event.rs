//! The runner's event stream: everything reporters may know about a run.
//!
//! Reporters implement [`Reporter`] and see only these events, in order:
//! `RunStarted`, then `Probe` per version, then per case `CaseStarted` /
//! `CaseFinished` (interleaved across parallel cases), then `RunFinished`.

use std::time::Duration;

use mcpspec_engine::Version;

use crate::outcome::{CaseResult, Summary};

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
    CaseFinished(Box<CaseResult>),
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
