//! Frames: everything the judged peer sends as a message, valid or not, and
//! what this side sent that its answers are matched against.
//!
//! A frame is classified by the wire layer; a valid message is checked
//! against its version's schema ([`crate::schema`]) and then judged by the
//! engine's [`Session`](mcpspec_engine::Session) (ids, answers, lifecycle,
//! the stateless rules); an invalid one breaks the rule of the stream it came
//! on:
//!
//! | what came | on | requirement |
//! |---|---|---|
//! | a line that is not JSON-RPC | a server's stdout | `stdio.stdout-only-mcp` |
//! | a line that is not JSON-RPC | a client's stdin side | `stdio.client.stdin-only-mcp` |
//! | a body that is not JSON-RPC | a client's POST | `jsonrpc.message.valid` |
//! | data that is not JSON-RPC | a legacy `message` event | `sse.message-event` |
//! | a body that is not JSON-RPC | a Streamable HTTP answer | `http.post.request-content-type` |
//! | a line that breaks ndjson framing | stdio | `stdio.newline-delimited` |
//! | a line that opens a message it does not close (the lines up to its close are that one finding's: [`crate::split`]) | stdio | `stdio.newline-delimited` |
//! | a body or SSE data that is not UTF-8 | a server's HTTP answers (2025-03-26 on) | `jsonrpc.message.utf8` |
//! | JSON-RPC that is not valid (a readable but wrong message) | anywhere | the engine's verdict |
//! | `initialize` inside a batch | a client's stream (2025-03-26) | `lifecycle.initialize.not-batched` |
//! | a response | a 2026-07-28 client's stream | `stdio.client.no-responses`, `http.post.client-no-responses` |
//!
//! Every valid message then goes to the schema check, the content rules
//! (`crate::content`) and the session; a cause one of the latter names
//! that the schema also sees is reported once (`schema::ENCODED_ELSEWHERE`).
//!
//! A peer that goes away owes an answer to every request it had not
//! answered (and this side had not cancelled): judged at [`Observed::End`]
//! (`jsonrpc.request.answered`). A client ends its session when it is done,
//! so a client owes them only when it walked away from a request of its own
//! ([`Oracle::walked_away_from`]).
//!
//! [`Observed::End`]: crate::Observed::End

use mcpspec_engine::ids;
use mcpspec_engine::{Role, Violation};
use mcpspec_wire::event::{Transport, Via};
use mcpspec_wire::{classify, Frame, FrameError, FrameErrorKind, Inbound, InvalidKind, Message};

use crate::split::{Next, Split};
use crate::{schema, Oracle};

impl Oracle {
    /// A message this side delivered.
    pub(crate) fn sent(&mut self, msg: &Message, at_ms: u64) {
        self.client_http
            .sent(msg, self.session.peer_initialize_id());
        self.content.outbound(msg);
        self.session.outbound(msg, at_ms);
    }

    /// Exact bytes this side delivered, one or more lines.
    pub(crate) fn sent_bytes(&mut self, bytes: &[u8], at_ms: u64) {
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop(); // what follows the final newline is not a line
        }
        for line in lines {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                self.session.outbound_blank();
                continue;
            }
            match classify(line) {
                Ok(Inbound::Single(m)) => self.sent(&m, at_ms),
                Ok(Inbound::Batch(items)) => {
                    for item in items {
                        match item {
                            Ok(m) => self.sent(&m, at_ms),
                            Err(e) => self.session.outbound_unreadable(&e),
                        }
                    }
                }
                Err(e) => self.session.outbound_unreadable(&e),
            }
        }
    }

    /// One frame of the peer's.
    pub(crate) fn frame(&mut self, at_ms: u64, via: Via, frame: &Frame, out: &mut Vec<Violation>) {
        // The body of a GET or DELETE that opened no stream answers no
        // message (`server_http::State::plain_body`).
        if self.judged == Role::Server && self.server_http.plain_body(via) {
            return;
        }
        if via == Via::Stdio {
            match self.split.take().map(|s| s.push(&frame.bytes)) {
                Some(Next::Continues(s)) => {
                    self.split = Some(s);
                    return;
                }
                Some(Next::Ends) => return,
                Some(Next::NotIts) | None => {}
            }
        }
        // A legacy server answers on its SSE stream, never in the body of the
        // POST (a client under test posts its messages: that is its way). An
        // HTTP refusal of the POST may carry a JSON-RPC error: a refusal.
        if self.transport == Transport::Sse
            && self.judged == Role::Server
            && matches!(via, Via::Post(_))
            && !self.server_http.post_refused(via)
        {
            out.push(Violation {
                requirement: &ids::SSE_MESSAGE_EVENT,
                detail: format!(
                    "a message came in the body of the response to a POST ({via}), not as a message event on the SSE stream"
                ),
                at_ms,
            });
        }
        match classify(&frame.bytes) {
            Ok(Inbound::Single(msg)) => self.message(at_ms, via, &msg, out),
            Ok(Inbound::Batch(items)) => {
                out.extend(self.session.inbound_batch(at_ms));
                let initialize = items
                    .iter()
                    .any(|i| matches!(i, Ok(Message::Request(r)) if r.method == "initialize"));
                let rule = &ids::LIFECYCLE_INITIALIZE_NOT_BATCHED;
                if initialize && self.judged == Role::Client && rule.applies_to(self.version) {
                    out.push(Violation {
                        requirement: rule,
                        detail: format!(
                            "the client sent initialize inside a JSON-RPC batch (on {via})"
                        ),
                        at_ms,
                    });
                }
                for item in items {
                    match item {
                        Ok(msg) => self.message(at_ms, via, &msg, out),
                        Err(invalid) => {
                            let v = self.session.inbound_invalid(&invalid, at_ms);
                            self.unread(Some(v.requirement));
                            out.push(v);
                        }
                    }
                }
            }
            Err(invalid) if invalid.kind.is_parse_error() => {
                if via == Via::Stdio && invalid.kind == InvalidKind::IncompleteJson {
                    if let Some(split) = Split::open(&frame.bytes) {
                        self.split = Some(split);
                        self.unread(Some(&ids::STDIO_NEWLINE_DELIMITED));
                        let whose = match self.judged {
                            Role::Client => "line the client wrote",
                            _ => "stdout line",
                        };
                        out.push(Violation {
                            requirement: &ids::STDIO_NEWLINE_DELIMITED,
                            detail: format!(
                                "{whose} {} opens a message that it does not close: a message \
                                 broken across lines (the lines that go on with it are not \
                                 judged one by one)",
                                frame.line
                            ),
                            at_ms,
                        });
                        return;
                    }
                }
                let (requirement, what) = match via {
                    Via::Stdio if self.judged == Role::Client => (
                        &ids::STDIO_CLIENT_STDIN_ONLY_MCP,
                        format!("line {} the client wrote to the server", frame.line),
                    ),
                    Via::Stdio => (
                        &ids::STDIO_STDOUT_ONLY_MCP,
                        format!("stdout line {}", frame.line),
                    ),
                    // A client's POST body that is no message.
                    other if self.judged == Role::Client => (
                        &ids::JSONRPC_MESSAGE_VALID,
                        format!("the body of the client's {other}"),
                    ),
                    Via::Legacy => (&ids::SSE_MESSAGE_EVENT, "an SSE message event".to_owned()),
                    other => (
                        &ids::HTTP_POST_REQUEST_CONTENT_TYPE,
                        format!("a message on {other}"),
                    ),
                };
                self.unread(Some(requirement));
                out.push(Violation {
                    requirement,
                    detail: format!("{what} is not a JSON-RPC message ({})", invalid.kind),
                    at_ms,
                });
            }
            Err(invalid) => {
                let v = self.session.inbound_invalid(&invalid, at_ms);
                self.unread(Some(v.requirement));
                out.push(v);
            }
        }
    }

    /// A stream broke its framing. Lines over the harness's own length
    /// limit are not the peer's fault: the limit is not the spec's.
    pub(crate) fn frame_error(
        &mut self,
        at_ms: u64,
        via: Via,
        err: &FrameError,
        out: &mut Vec<Violation>,
    ) {
        if via == Via::Stdio {
            self.split = None;
        }
        if matches!(err.kind, FrameErrorKind::Oversize { .. }) {
            // Unreadable by the harness, whose limit it is: no rule broken.
            self.unread(None);
            return;
        }
        let utf8 = &ids::JSONRPC_MESSAGE_UTF8;
        let requirement = match via {
            Via::Stdio => &ids::STDIO_NEWLINE_DELIMITED,
            _ if self.judged == Role::Client => &ids::JSONRPC_MESSAGE_VALID,
            // A server's HTTP body or SSE data that is not UTF-8.
            _ if matches!(err.kind, FrameErrorKind::InvalidUtf8 { .. })
                && utf8.applies_to(self.version) =>
            {
                utf8
            }
            Via::Legacy => &ids::SSE_MESSAGE_EVENT,
            _ => &ids::HTTP_POST_REQUEST_CONTENT_TYPE,
        };
        self.unread(Some(requirement));
        out.push(Violation {
            requirement,
            detail: format!("{err} (on {via})"),
            at_ms,
        });
    }

    /// One valid message of the peer's.
    fn message(&mut self, at_ms: u64, via: Via, msg: &Message, out: &mut Vec<Violation>) {
        if self.server_http.refusal_body(via, msg) {
            return; // the transport's refusal, not a JSON-RPC answer to judge
        }
        if let Message::Response(r) = msg {
            if let Some(id) = &r.id {
                self.server_http.answered(id);
            }
            if via == Via::Get {
                out.push(Violation {
                    requirement: &ids::HTTP_GET_NO_RESPONSES,
                    detail: format!(
                        "a response (id {}) arrived on the standing GET stream, not on the stream of its POST",
                        r.id.as_ref().map_or_else(|| "null".to_owned(), ToString::to_string)
                    ),
                    at_ms,
                });
            }
        }
        if self.judged == Role::Client {
            self.client_http.received(msg);
            if self.session.is_stateless() {
                if let Message::Response(r) = msg {
                    // 2026-07-28: the server sends no requests, so a client
                    // has nothing to answer; this is the one finding (no
                    // answer-to-nothing from the session beside it).
                    out.push(self.client_response(via, r, at_ms));
                    return;
                }
            }
        } else {
            self.server_http
                .stream_message(at_ms, via, msg, self.version, out);
        }
        // Before the session absorbs it: an answer's request is still pending.
        let schema = schema::check(
            &self.session,
            self.version,
            self.judged,
            msg,
            self.content.asked(),
            at_ms,
        );
        let version = self.session.version().unwrap_or(self.version);
        let mut judged = self
            .content
            .inbound(&self.session, version, self.judged, msg, at_ms);
        let session = self.session.inbound(msg, at_ms);
        // An answer with an id no request of this side's carried (one the
        // peer mangled, or guessed for a message of ours it could not read)
        // is no answer the runner can take: an awaited one may be it. (A
        // null id is no mangled one: the peer says it could not read, or
        // would not take, what it answers — a batch refused whole, say —,
        // which the scenario judges.)
        let unmatched = [
            &ids::JSONRPC_RESPONSE_ID_MATCHES,
            &ids::JSONRPC_ERROR_NULL_ID,
        ];
        if let Some(v) = session
            .iter()
            .find(|v| unmatched.contains(&v.requirement))
            .filter(|_| matches!(msg, Message::Response(r) if r.id.is_some()))
        {
            self.unread(Some(v.requirement));
        }
        // A notification sent with an id reads as a request: what the
        // session makes of that request (a server's request at 2026-07-28,
        // before the handshake) is the same cause, already named.
        let no_id = &ids::JSONRPC_NOTIFICATION_NO_ID;
        if judged.iter().any(|v| v.requirement.id == no_id.id) {
            // No notification the runner can take either: a wait for one
            // that missed it is that finding's.
            self.unread(Some(no_id));
            out.extend(judged);
            return;
        }
        judged.extend(session);
        // One cause, one finding: a rule beyond the schema that names a
        // cause the schema sees too is the finding (`schema::ENCODED_ELSEWHERE`).
        let named = judged.iter().any(|v| {
            schema::ENCODED_ELSEWHERE
                .iter()
                .any(|r| r.id == v.requirement.id)
        });
        if !named {
            out.extend(schema);
        }
        out.extend(judged);
    }

    /// `stdio.client.no-responses`, `http.post.client-no-responses`.
    fn client_response(&self, via: Via, r: &mcpspec_wire::Response, at_ms: u64) -> Violation {
        let id =
            r.id.as_ref()
                .map_or_else(|| "null".to_owned(), ToString::to_string);
        let (requirement, how) = match via {
            Via::Stdio => (&ids::STDIO_CLIENT_NO_RESPONSES, "wrote"),
            _ => (&ids::HTTP_POST_CLIENT_NO_RESPONSES, "POSTed"),
        };
        Violation {
            requirement,
            detail: format!(
                "the client {how} a JSON-RPC response (id {id}) on {via}; a 2026-07-28 client sends none"
            ),
            at_ms,
        }
    }

    /// This side ends the connection: a server that went away owes every
    /// answer it had not sent, however the steps ended. A client ends its
    /// session when it is done: only one that walked away from a request of
    /// its own owes what it had not answered.
    pub(crate) fn end(&mut self, at_ms: u64, out: &mut Vec<Violation>) {
        let Some(how) = self.went_away() else { return };
        let Some(owed) = crate::listed(self.session.pending()) else {
            return;
        };
        out.push(Violation {
            requirement: &ids::JSONRPC_REQUEST_ANSWERED,
            detail: format!("{how} leaving {owed} unanswered"),
            at_ms,
        });
    }

    /// How the peer went away, as the end judges it: a server's exit or
    /// closed stream, a client's walking away from a request of its own.
    fn went_away(&self) -> Option<&String> {
        match self.judged {
            Role::Server => self.gone.as_ref(),
            _ => self.walked_away.as_ref(),
        }
    }

    /// Whether the end will find the peer gone owing answers
    /// (`jsonrpc.request.answered`).
    pub fn owes_answers(&self) -> bool {
        self.went_away().is_some() && self.session.pending().next().is_some()
    }
}

#[cfg(test)]
mod tests;
