//! What a transport observes, as plain data: [`Stamped`] [`Event`]s in the
//! order they happened, each with the stream it came from ([`Via`]).
//!
//! The types live here, below the transport, so that the judge
//! (`mcpspec-oracle`) reads them without tokio: the transport
//! (`mcpspec-transport`) produces them, a recorded transcript could too.
//!
//! ```text
//!   stdio            Frame / FrameError / Stderr / Exited          via Stdio
//!   Streamable HTTP  Http (one per exchange), SseEvent, SseError,
//!                    Frame / FrameError, Closed                    via Post(n) / Resumed(n) / Get / Delete / Raw(n)
//!   legacy HTTP+SSE  Http, SseEvent, SseError, Frame, Closed       via Legacy (stream) / Post(n) / Raw(n)
//! ```
//!
//! An exchange's [`HttpRecord`] comes before the frames of its response.
//! Authorization and cookie values never leave the transport: records hold
//! [`REDACTED`] instead.

use std::fmt;
use std::time::Duration;

use crate::{Frame, FrameError, SseError};

/// The transport a connection runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Newline-delimited JSON over a child process's stdin and stdout.
    Stdio,
    /// Streamable HTTP (2025-03-26 on).
    Http,
    /// The legacy HTTP+SSE transport (2024-11-05).
    Sse,
}

impl Transport {
    /// The name transcripts and reports use: `stdio`, `http` or `sse`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which stream or exchange an event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Via {
    /// The child process's stdio.
    Stdio,
    /// The `n`-th POST of the session (1-based): its response, or the
    /// events of its response stream.
    Post(u64),
    /// A GET with `Last-Event-ID` resuming the response stream of POST `n`.
    Resumed(u64),
    /// The optional standalone GET stream (Streamable HTTP).
    Get,
    /// The legacy transport's one SSE stream.
    Legacy,
    /// The DELETE that ends a Streamable HTTP session.
    Delete,
    /// The `n`-th raw exchange of the session (1-based).
    Raw(u64),
}

impl Via {
    /// The POST whose response stream this is, directly or resumed.
    pub fn post(self) -> Option<u64> {
        match self {
            Via::Post(n) | Via::Resumed(n) => Some(n),
            _ => None,
        }
    }
}

impl fmt::Display for Via {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Via::Stdio => f.write_str("stdio"),
            Via::Post(n) => write!(f, "post#{n}"),
            Via::Resumed(n) => write!(f, "post#{n} (resumed)"),
            Via::Get => f.write_str("get"),
            Via::Legacy => f.write_str("sse"),
            Via::Delete => f.write_str("delete"),
            Via::Raw(n) => write!(f, "raw#{n}"),
        }
    }
}

/// Something that happened on the connection.
#[derive(Debug, Clone)]
pub enum Event {
    /// One message: an ndjson line, a JSON response body, or the data of
    /// one SSE `message` event. `line` numbers increase per connection.
    Frame(Frame),
    FrameError(FrameError),
    /// One line the target wrote to stderr (cut to 4 KiB).
    Stderr(String),
    /// One line a client under test wrote to its own stdout, which is not
    /// its MCP channel (it reaches the harness through the shim or HTTP).
    Stdout(String),
    /// The process ended. `code` is `None` when a signal ended it.
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// One HTTP exchange (or its failure).
    Http(Box<HttpRecord>),
    /// One SSE event as received (its data, if a message, follows as a frame).
    SseEvent {
        event: String,
        id: Option<String>,
        retry: Option<u64>,
        data_len: usize,
    },
    /// An SSE stream broke the event-stream format.
    SseError(SseError),
    /// The connection ended: the server could not be reached, the legacy
    /// stream ended, or the harness closed the session.
    Closed(String),
}

/// An event with the time since the connection started and its stream.
#[derive(Debug, Clone)]
pub struct Stamped {
    pub at: Duration,
    pub via: Via,
    pub event: Event,
}

/// Where the harness serves a client under test: the path of its
/// Streamable HTTP endpoint (the oracle judges a client's POSTs elsewhere).
pub const MCP_PATH: &str = "/mcp";
/// Path of the harness's legacy SSE stream.
pub const LEGACY_SSE_PATH: &str = "/sse";
/// Path the harness's legacy `endpoint` event names for POSTs.
pub const LEGACY_POST_PATH: &str = "/messages";

/// What replaces authorization and cookie values in records.
pub const REDACTED: &str = "[redacted]";

/// Text kept of a body in a record.
pub const RECORD_BODY_MAX: usize = 2000;

/// One HTTP exchange, as the case's record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HttpRecord {
    pub method: String,
    /// Path and query of the request.
    pub target: String,
    /// Relevant request headers (lowercase names), credentials redacted.
    pub request_headers: Vec<(String, String)>,
    /// The request body as text, cut to [`RECORD_BODY_MAX`].
    pub request_body: String,
    /// `None` when no response arrived.
    pub status: Option<u16>,
    /// Relevant response headers (lowercase names), cookies redacted.
    pub response_headers: Vec<(String, String)>,
    /// The response body as text (cut), `SSE stream` for an event stream,
    /// empty for none.
    pub body: String,
    /// Why the exchange failed (connection refused, timed out, …).
    pub error: Option<String>,
}

impl HttpRecord {
    /// A response header's value (first of that name).
    pub fn response_header(&self, name: &str) -> Option<&str> {
        find(&self.response_headers, name)
    }

    /// A request header's value (first of that name).
    pub fn request_header(&self, name: &str) -> Option<&str> {
        find(&self.request_headers, name)
    }

    /// One line for a transcript: `POST /mcp → 200 (text/event-stream)`.
    pub fn summary(&self) -> String {
        let outcome = match (self.status, &self.error) {
            (Some(s), _) => s.to_string(),
            (None, Some(e)) => format!("failed: {e}"),
            (None, None) => "no response".to_owned(),
        };
        match self.response_header("content-type") {
            Some(ct) => format!("{} {} → {outcome} ({ct})", self.method, self.target),
            None => format!("{} {} → {outcome}", self.method, self.target),
        }
    }
}

fn find<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_reads_as_one_line() {
        let r = HttpRecord {
            method: "POST".into(),
            target: "/mcp".into(),
            status: Some(202),
            ..HttpRecord::default()
        };
        assert_eq!(r.summary(), "POST /mcp → 202");
        let r = HttpRecord {
            error: Some("connection refused".into()),
            ..r
        };
        assert_eq!(r.summary(), "POST /mcp → 202");
        let r = HttpRecord { status: None, ..r };
        assert_eq!(r.summary(), "POST /mcp → failed: connection refused");
    }

    #[test]
    fn post_streams_include_resumed_ones() {
        assert_eq!(Via::Resumed(3).post(), Some(3));
        assert_eq!(Via::Post(2).post(), Some(2));
        assert_eq!(Via::Get.post(), None);
        assert_eq!(Via::Resumed(3).to_string(), "post#3 (resumed)");
    }
}
