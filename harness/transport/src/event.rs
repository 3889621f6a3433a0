//! What every transport reports: [`Stamped`] [`Event`]s on one channel, in
//! the order they happened, each with the stream it came from ([`Via`]).
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

use mcpspec_wire::{Frame, FrameError, SseError};

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

const REQUEST_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "origin",
    "host",
    "authorization",
    "cookie",
];

const RESPONSE_HEADERS: &[&str] = &[
    "content-type",
    "content-length",
    "mcp-session-id",
    "mcp-protocol-version",
    "allow",
    "www-authenticate",
    "retry-after",
    "location",
    "set-cookie",
];

/// Whether a header is worth recording for a request (`all` for raw
/// exchanges, whose every header was chosen by a scenario).
pub(crate) fn keep_request_header(name: &str, all: bool) -> bool {
    all || REQUEST_HEADERS.contains(&name)
}

pub(crate) fn keep_response_header(name: &str) -> bool {
    RESPONSE_HEADERS.contains(&name)
}

/// The value a record keeps: credentials and cookies redacted.
pub(crate) fn recorded_value(name: &str, value: &[u8]) -> String {
    match name {
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie" => {
            // Keep the scheme ("Bearer"), which is not a secret.
            let text = String::from_utf8_lossy(value);
            match (name, text.split_once(' ')) {
                ("authorization" | "proxy-authorization", Some((scheme, _))) => {
                    format!("{scheme} {REDACTED}")
                }
                _ => REDACTED.to_owned(),
            }
        }
        _ => String::from_utf8_lossy(value).into_owned(),
    }
}

/// Text of a body for a record, cut at a char boundary.
pub(crate) fn body_text(bytes: &[u8]) -> String {
    let cut = bytes.len().min(RECORD_BODY_MAX);
    let mut text = String::from_utf8_lossy(&bytes[..cut]).into_owned();
    if bytes.len() > cut {
        text.push_str(" …");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_redacted_but_the_scheme_kept() {
        assert_eq!(
            recorded_value("authorization", b"Bearer s3cret"),
            "Bearer [redacted]"
        );
        assert_eq!(recorded_value("authorization", b"s3cret"), "[redacted]");
        assert_eq!(recorded_value("cookie", b"a=b; c=d"), "[redacted]");
        assert_eq!(recorded_value("set-cookie", b"a=b"), "[redacted]");
        assert_eq!(recorded_value("accept", b"*/*"), "*/*");
    }

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
