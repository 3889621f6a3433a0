//! The harness as the client of a server under test: the standing GET
//! stream, the protocol-version header that follows negotiation, which POST
//! carried each request still unanswered (a cancellation waits until its
//! request reached the server: [`Conn::received`]), and how HTTP exchanges
//! read in a transcript. (Requests are stamped with the
//! stateless `_meta` in [`super::stateless`].) What the server's answers
//! mean — refusals, content types, stray responses — is the oracle's to
//! judge.

use std::collections::HashMap;
use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_transport::{Connection, HttpRecord, Via};
use mcpspec_wire::{Id, Message};
use tokio::time::Instant;

use super::{Conn, Side};

/// The longest a step waits for a request it names to reach the server
/// ([`Conn::received`]). A server that answers with JSON (or holds its
/// stream's head back until the stream's first event) gives no earlier
/// sign of receipt than its answer, and a longer wait would let a short
/// call end before its cancellation went: the corpus's cancellations leave
/// 700 ms or more of their call after the lead they sleep, and the late
/// receipt seen (a busy server-everything) came 180 ms after such a lead.
const RECEIPT_WAIT: Duration = Duration::from_millis(500);

/// What the client side keeps of its own.
#[derive(Debug, Default)]
pub(super) struct ClientSide {
    /// The record of the standing GET stream, once it answered.
    get_record: Option<HttpRecord>,
    /// Over HTTP, the POST that carried each request still unanswered.
    posted: HashMap<Id, u64>,
}

impl ClientSide {
    /// A request went out (on POST `post`, over HTTP).
    pub(super) fn sent(&mut self, msg: &Message, post: Option<u64>) {
        if let (Message::Request(r), Some(n)) = (msg, post) {
            self.posted.insert(r.id.clone(), n);
        }
    }

    /// An answer came: its request's POST is no longer asked about.
    pub(super) fn answered(&mut self, msg: &Message) {
        if let Message::Response(r) = msg {
            if let Some(id) = &r.id {
                self.posted.remove(id);
            }
        }
    }

    /// An HTTP exchange of the session.
    pub(super) fn exchanged(&mut self, via: Via, record: &HttpRecord) {
        if via == Via::Get && self.get_record.is_none() {
            self.get_record = Some(record.clone());
        }
    }
}

impl Conn {
    /// The capabilities the harness declares as the client of the server
    /// under test, in the `_meta` of 2026-07-28 requests (the handshake's
    /// `initialize` carries them itself). No effect when serving a client.
    pub fn declare_client_capabilities(&mut self, caps: serde_json::Value) {
        if let Side::Client(_) = self.side {
            self.client_capabilities = Some(caps);
        }
    }

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
        while self.get_record().is_none() {
            self.pump(deadline).await;
            if self.get_record().is_none() && (Instant::now() >= deadline || self.flooded) {
                return Err(format!(
                    "no answer to the GET within {}ms",
                    within.as_millis()
                ));
            }
            if let Some(how) = &self.exit {
                return Err(how.clone());
            }
        }
        self.get_record()
            .cloned()
            .ok_or_else(|| "the GET stream was not answered".to_owned())
    }

    /// Waits until the unanswered request `id` has reached the server, as
    /// far as the transport can tell (over HTTP its POST's response head;
    /// see `HttpSession::received`), at most [`RECEIPT_WAIT`], and notes a wait
    /// in the transcript. Over
    /// stdio the write was the delivery. For a step that names the request
    /// to the server (a cancellation): two POSTs may reach it in either
    /// order, and a cancellation of a request it has not seen is ignored.
    pub async fn received(&mut self, id: &Id) {
        let Side::Client(c) = &self.side else { return };
        let Some(&post) = c.posted.get(id) else {
            return;
        };
        let started = Instant::now();
        if self.proc.received(post, RECEIPT_WAIT).await {
            let waited = started.elapsed().as_millis();
            self.note(format!(
                "waited {waited}ms for request {id} to reach the server (its POST's \
                 response head) before naming it"
            ));
        }
    }

    fn get_record(&self) -> Option<&HttpRecord> {
        match &self.side {
            Side::Client(c) => c.get_record.as_ref(),
            Side::Server(_) => None,
        }
    }

    /// Over Streamable HTTP, once initialize is answered with 2025-06-18 or
    /// later, every later request names that version in the
    /// MCP-Protocol-Version header (the transport adds it).
    pub(super) fn follow_negotiation(&mut self, msg: &Message) {
        let Message::Response(r) = msg else { return };
        let Some(id) = &r.id else { return };
        let is_initialize = self
            .session()
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
