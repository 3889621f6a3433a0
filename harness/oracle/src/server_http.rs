//! A server's HTTP answers, judged (the harness is the client).
//!
//! | rule | what is checked |
//! |---|---|
//! | `http.post.request-content-type` | a POST that carried a request is answered 2xx with `application/json` or `text/event-stream` (Streamable HTTP) |
//! | `http.get.no-responses` | no response arrives on the standing GET stream (judged per message in [`crate::frames`]) |
//! | `http.resume.event-id-unique` | SSE event ids are unique within a session (Streamable HTTP, handshake versions) |
//! | `sse.message-event` | a legacy stream keeps the event-stream format; answers come as message events, not in a POST's body (in [`crate::frames`]) |
//!
//! Refusals are not answers: a POST refused with 4xx or 5xx leaves the
//! requests it carried unanswered (waits for them end at once, with how it
//! was refused), unless a JSON body follows that answers them. An error with
//! a null id in the body of a refused POST is the transport's refusal, not a
//! JSON-RPC response to judge — on either HTTP transport, so a legacy
//! server's 400 for an unreadable POST is a refusal here exactly as it is to
//! the fuzzer.

use std::collections::HashSet;

use mcpspec_engine::requirement::known;
use mcpspec_engine::{Lifecycle, Version, Violation};
use mcpspec_wire::event::{HttpRecord, Via};
use mcpspec_wire::{classify, ErrorObject, Id, Inbound, Message, Response, SseError};

/// What the judge remembers of a server's HTTP exchanges.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Per POST of the session (`Via::Post(n)` is entry n-1): the ids of
    /// the requests it carried, and its HTTP status once known.
    posts: Vec<(Vec<Id>, Option<u16>)>,
    /// Requests whose POST was refused without an answer: id → how.
    refused: Vec<(Id, String)>,
    /// SSE event ids seen on the session's streams.
    event_ids: HashSet<String>,
}

impl State {
    /// This side started the next POST of the session with `body`.
    pub(crate) fn posted(&mut self, body: &[u8]) {
        let body = body.strip_suffix(b"\n").unwrap_or(body);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let ids = match classify(body) {
            Ok(Inbound::Single(Message::Request(r))) => vec![r.id],
            Ok(Inbound::Batch(items)) => items
                .into_iter()
                .filter_map(|m| match m {
                    Ok(Message::Request(r)) => Some(r.id),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        self.posts.push((ids, None));
    }

    /// One HTTP exchange of the session. A POST's status: a refusal (4xx,
    /// 5xx) leaves its requests without an answer, unless the body answers
    /// them (then the frame follows).
    pub(crate) fn exchange(
        &mut self,
        at_ms: u64,
        via: Via,
        record: &HttpRecord,
        streamable: bool,
        out: &mut Vec<Violation>,
    ) {
        let Via::Post(n) = via else { return };
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
        if streamable
            && carries_requests
            && record.status.is_some_and(|s| (200..300).contains(&s))
            && !answered_as_allowed
        {
            let shown = media
                .clone()
                .unwrap_or_else(|| "no Content-Type".to_owned());
            out.push(Violation {
                requirement: known("http.post.request-content-type"),
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

    /// Whether `via` is the body of a POST refused with an error status.
    pub(crate) fn post_refused(&self, via: Via) -> bool {
        let Via::Post(n) = via else { return false };
        post_index(n)
            .and_then(|i| self.posts.get(i))
            .and_then(|p| p.1)
            .is_some_and(|s| s >= 400)
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
    pub(crate) fn refusal_body(&mut self, via: Via, msg: &Message) -> bool {
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
            Message::Response(Response {
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
    pub(crate) fn answered(&mut self, id: &Id) {
        self.refused.retain(|(rid, _)| rid != id);
    }

    /// See [`crate::Oracle::refused_for`].
    pub(crate) fn refused_for(&self, pred: impl Fn(&Message) -> bool) -> Option<String> {
        self.refused.iter().find_map(|(id, how)| {
            let stand_in = Message::Response(Response {
                id: Some(id.clone()),
                id_absent: false,
                outcome: Err(ErrorObject {
                    code: 0,
                    message: String::new(),
                    data: None,
                }),
            });
            pred(&stand_in).then(|| how.clone())
        })
    }

    /// An SSE event: its id must be unique within the session (Streamable
    /// HTTP; sessions, and the rule, end with 2025-11-25: a stateless POST's
    /// stream stands alone).
    pub(crate) fn sse_event(
        &mut self,
        at_ms: u64,
        via: Via,
        id: Option<&str>,
        version: Version,
        out: &mut Vec<Violation>,
    ) {
        let streamable = matches!(via, Via::Post(_) | Via::Resumed(_) | Via::Get)
            && version.lifecycle() != Lifecycle::Stateless;
        if let (true, Some(id)) = (streamable, id) {
            if !id.is_empty() && !self.event_ids.insert(id.to_owned()) {
                out.push(Violation {
                    requirement: known("http.resume.event-id-unique"),
                    detail: format!(
                        "SSE event id {id:?} was used twice in the session (again on {via})"
                    ),
                    at_ms,
                });
            }
        }
    }
}

/// An SSE stream broke the event-stream format.
pub(crate) fn sse_error(at_ms: u64, via: Via, err: &SseError, out: &mut Vec<Violation>) {
    let requirement = if via == Via::Legacy {
        "sse.message-event"
    } else {
        "http.post.request-content-type"
    };
    out.push(Violation {
        requirement: known(requirement),
        detail: format!("the SSE stream ({via}) broke the event-stream format: {err}"),
        at_ms,
    });
}

/// `Via::Post(n)` is the n-th POST, 1-based.
fn post_index(n: u64) -> Option<usize> {
    usize::try_from(n).ok().and_then(|n| n.checked_sub(1))
}
