//! The HTTP side of [`Conn`]: the standing GET stream, which requests a
//! refused POST leaves unanswered, the protocol-version header that follows
//! negotiation, and how HTTP exchanges read in a transcript.

use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_transport::{Connection, HttpRecord, Via};
use mcpspec_wire::{Id, Message};
use tokio::time::Instant;

use super::Conn;

impl Conn {
    /// Opens the standing GET stream (Streamable HTTP) and waits up to
    /// `within` for the server's answer to the GET: its record.
    pub async fn open_get_stream(&mut self, within: Duration) -> Result<HttpRecord, String> {
        let Connection::Http(session) = &mut self.proc else {
            return Err("only a Streamable HTTP session has a GET stream".to_owned());
        };
        session
            .open_get_stream()
            .map_err(|e| format!("could not open the GET stream: {e}"))?;
        let deadline = Instant::now() + within;
        while self.get_record.is_none() {
            if !self.pump(deadline).await && Instant::now() >= deadline {
                return Err(format!(
                    "no answer to the GET within {}ms",
                    within.as_millis()
                ));
            }
            if let Some(how) = &self.exit {
                return Err(how.clone());
            }
        }
        self.get_record
            .clone()
            .ok_or_else(|| "the GET stream was not answered".to_owned())
    }

    /// A POST's status: a refusal (4xx, 5xx) leaves its requests without
    /// an answer, unless the body answers them (then the frame follows).
    pub(super) fn note_post_status(&mut self, n: u64, record: &HttpRecord) {
        let Some(entry) = post_index(n).and_then(|i| self.posts.get_mut(i)) else {
            return;
        };
        entry.1 = record.status;
        let media = record.response_header("content-type").map(|ct| {
            ct.split(';')
                .next()
                .unwrap_or(ct)
                .trim()
                .to_ascii_lowercase()
        });
        let json_body = media.as_deref() == Some("application/json");
        let carries_requests = !entry.0.is_empty();
        let answered_as_allowed = matches!(
            media.as_deref(),
            Some("application/json" | "text/event-stream")
        );
        if self.transport == "http"
            && carries_requests
            && record.status.is_some_and(|s| (200..300).contains(&s))
            && !answered_as_allowed
        {
            let at_ms = self.now_ms();
            let shown = media
                .clone()
                .unwrap_or_else(|| "no Content-Type".to_owned());
            self.violation(mcpspec_engine::Violation {
                requirement: mcpspec_engine::requirement::known("http.post.request-content-type"),
                detail: format!(
                    "POST #{n} carried a request and was answered {} with {shown}, neither application/json nor text/event-stream",
                    record.status.unwrap_or(0)
                ),
                at_ms,
            });
        }
        let refused = match (record.status, &record.error) {
            // A JSON body follows as a frame: it may answer the request
            // (a named error goes out with 400), or be a refusal without an
            // id, which `refusal_body` then notes.
            (Some(s), _) if s >= 400 && json_body => return,
            (Some(s), _) if s >= 400 => format!("the POST carrying it was refused with HTTP {s}"),
            (None, Some(e)) => format!("the POST carrying it failed: {e}"),
            _ => return,
        };
        self.refuse(n, &refused);
    }

    /// The requests of POST `n` will get no answer: `how` says why.
    fn refuse(&mut self, n: u64, how: &str) {
        let Some(ids) = post_index(n)
            .and_then(|i| self.posts.get(i))
            .map(|p| p.0.clone())
        else {
            return;
        };
        for id in ids {
            self.refused.push((id, how.to_owned()));
        }
    }

    /// An HTTP error body (`id: null` error) answering a refused POST: the
    /// transport's refusal, not a JSON-RPC response to judge; the POST's
    /// requests will get no other answer.
    pub(super) fn refusal_body(&mut self, via: Via, msg: &Message) -> bool {
        let Via::Post(n) = via else { return false };
        let status = post_index(n)
            .and_then(|i| self.posts.get(i))
            .and_then(|p| p.1);
        let Some(status) = status.filter(|s| *s >= 400) else {
            return false;
        };
        if !matches!(msg, Message::Response(r) if r.id.is_none()) {
            return false;
        }
        let how = match msg {
            Message::Response(mcpspec_wire::Response {
                outcome: Err(e), ..
            }) => format!(
                "the POST carrying it was refused with HTTP {status} and error {} {:?}",
                e.code, e.message
            ),
            _ => format!("the POST carrying it was refused with HTTP {status}"),
        };
        self.refuse(n, &how);
        true
    }

    /// A request was answered after all: its POST's refusal does not stand.
    pub(super) fn answered(&mut self, id: &Id) {
        self.refused.retain(|(rid, _)| rid != id);
    }

    /// If the awaited message is the answer to a request whose POST was
    /// refused: how. (A stand-in error response for each refused id is put
    /// to the predicate, which only ever asks for answers by id.)
    pub(super) fn refused_for(&self, pred: impl Fn(&Message) -> bool) -> Option<String> {
        self.refused.iter().find_map(|(id, how)| {
            let stand_in = Message::Response(mcpspec_wire::Response {
                id: Some(id.clone()),
                id_absent: false,
                outcome: Err(mcpspec_wire::ErrorObject {
                    code: 0,
                    message: String::new(),
                    data: None,
                }),
            });
            pred(&stand_in).then(|| how.clone())
        })
    }

    /// Over Streamable HTTP, once initialize is answered with 2025-06-18 or
    /// later, every later request names that version in the
    /// MCP-Protocol-Version header (the transport adds it).
    pub(super) fn follow_negotiation(&mut self, msg: &Message) {
        let Message::Response(r) = msg else { return };
        let Some(id) = &r.id else { return };
        let is_initialize = self
            .session
            .pending()
            .any(|(pending, method)| pending == id && method == "initialize");
        if !is_initialize {
            return;
        }
        let negotiated = r
            .outcome
            .as_ref()
            .ok()
            .and_then(|v| v.get("protocolVersion"))
            .and_then(serde_json::Value::as_str)
            .and_then(|v| v.parse::<Version>().ok());
        if let Some(v) = negotiated {
            if v >= Version::V2025_06_18 {
                self.proc.set_protocol_version(Some(v.as_str().to_owned()));
            }
        }
    }
}

/// `Via::Post(n)` is the n-th POST, 1-based.
fn post_index(n: u64) -> Option<usize> {
    usize::try_from(n).ok().and_then(|n| n.checked_sub(1))
}

/// One transcript line for an HTTP exchange: the summary, then the
/// relevant headers both ways (credentials are already redacted) and, for
/// an error status, the body.
pub fn describe_record(r: &HttpRecord) -> String {
    let mut text = format!("http {}", r.summary());
    let headers = |hs: &[(String, String)]| {
        hs.iter()
            .map(|(n, v)| format!("{n}: {v}"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !r.request_headers.is_empty() {
        text.push_str(&format!(" · sent {}", headers(&r.request_headers)));
    }
    if !r.response_headers.is_empty() {
        text.push_str(&format!(" · got {}", headers(&r.response_headers)));
    }
    if r.status.is_some_and(|s| s >= 400) && !r.body.is_empty() {
        text.push_str(&format!(" · body {}", r.body));
    }
    text
}
