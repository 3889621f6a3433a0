//! What an oracle reports: which [`Oracle`] tripped, the requirement broken
//! (a catalogue entry, whose level says MUST or SHOULD), what was seen, and the
//! exec responsible. The table of oracles is in [`crate::oracle`].

use mcpspec_engine::{Level as ReqLevel, Requirement};
use serde::{Deserialize, Serialize};

/// Which oracle tripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    Alive,
    Ping,
    /// What came back over stdio is not valid JSON-RPC (or not ndjson).
    Stdout,
    /// What came back over HTTP (a JSON body, an SSE message) is not valid JSON-RPC.
    Output,
    /// An HTTP status or body the transport rules forbid for the input.
    Http,
    ErrorClass,
    Notification,
    /// The driver's own `initialize` unanswered within the start-up
    /// timeout, or its own request refused without an answer. (An input's
    /// request waited for to the end is a note, not this:
    /// [`crate::oracle::wait`].)
    Unanswered,
    Memory,
}

impl Oracle {
    /// Whether its verdict ends the session: the target is gone, does not
    /// answer, or is to be restarted. Any other finding leaves a target
    /// that still answers, so the session goes on.
    pub fn ends_session(self) -> bool {
        matches!(self, Oracle::Alive | Oracle::Ping | Oracle::Memory)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Oracle::Alive => "alive",
            Oracle::Ping => "ping",
            Oracle::Stdout => "stdout",
            Oracle::Output => "output",
            Oracle::Http => "http",
            Oracle::ErrorClass => "error-class",
            Oracle::Notification => "notification",
            Oracle::Unanswered => "unanswered",
            Oracle::Memory => "memory",
        }
    }
}

impl std::fmt::Display for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tripped oracle.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub oracle: Oracle,
    /// The broken requirement.
    pub requirement: &'static Requirement,
    /// What was seen, as a sentence fragment.
    pub detail: String,
    /// The exec whose input is responsible, when known.
    pub exec: Option<u64>,
    /// The message kind, when the oracle knows it better than the input as a
    /// whole does (`request tools/call` for an unanswered call sent in a
    /// line with others).
    pub subject: Option<String>,
    /// The shape of what was wrong, whatever input it was seen with
    /// (`invalid params answered with error -32603`): verdicts of one
    /// oracle with the same cause are one finding, seen with many inputs
    /// (the root cause, not each symptom; see [`crate::minimize::key_of`]).
    pub cause: Option<String>,
}

impl Verdict {
    pub fn new(
        oracle: Oracle,
        requirement: &'static Requirement,
        detail: String,
        exec: Option<u64>,
    ) -> Self {
        Verdict {
            oracle,
            requirement,
            detail,
            exec,
            subject: None,
            cause: None,
        }
    }

    pub fn about(mut self, subject: String) -> Self {
        self.subject = Some(subject);
        self
    }

    /// Names the cause ([`Verdict::cause`]).
    pub fn because(mut self, cause: String) -> Self {
        self.cause = Some(cause);
        self
    }

    /// MUST / SHOULD, from the catalogue.
    pub fn level(&self) -> ReqLevel {
        self.requirement.level
    }
}
