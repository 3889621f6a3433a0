//! A server's HTTP answers, judged (the harness is the client).
//!
//! | rule | what is checked |
//! |---|---|
//! | `http.post.request-content-type` | a POST that carried a request is answered 2xx with `application/json` or `text/event-stream` (Streamable HTTP) |
//! | `http.post.accepted-202` | a POST of notifications and responses only, read strictly, is answered 202 with no body (Streamable HTTP) |
//! | `http.post.malformed-400` | a POST body that is not JSON is not answered with a server error (5xx); before 2025-03-26 `jsonrpc.robustness.survives-invalid` |
//! | `jsonrpc.robustness.survives-invalid` | a POST body that is not a valid JSON-RPC message (or a batch the version does not have) is not answered with a server error (5xx) |
//! | `http.get.no-responses` | no response arrives on the standing GET stream (judged per message in [`crate::frames`]) |
//! | `http.resume.event-id-unique` | SSE event ids are unique within a session (Streamable HTTP, handshake versions) |
//! | `http.sse.notifications-related` | a progress notification on a POST's stream names a progress token of that POST's request (2026-07-28) |
//! | `sse.message-event` | a legacy stream keeps the event-stream format; answers come as message events, not in a POST's body (in [`crate::frames`]) |
//!
//! Refusals are not answers: a POST refused with 4xx or 5xx leaves the
//! requests it carried unanswered (waits for them end at once, with how it
//! was refused), unless a JSON body follows that answers them. An error with
//! a null id in the body of a refused POST is the transport's refusal, not a
//! JSON-RPC response to judge — on either HTTP transport, so a legacy
//! server's 400 for an unreadable POST is a refusal here exactly as it is to
//! the fuzzer. Such a POST carried no message, so nothing is owed on the
//! stream either: the 2024-11-05 transport page only says that server
//! messages travel as `message` events, and has no rule that a parse error
//! must (also) come there, so none is judged.

use std::collections::HashSet;

use mcpspec_engine::ids;
use mcpspec_engine::{Lifecycle, Requirement, Version, Violation};
use mcpspec_wire::event::{HttpRecord, Via};
use mcpspec_wire::{classify, ErrorObject, Id, Inbound, Message, Response, SseError};

/// What a POST body is, read strictly (as one JSON text, then `classify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    /// Not one JSON text.
    Unparsable,
    /// JSON, but not a valid JSON-RPC message, or a batch the version
    /// does not have.
    Invalid,
    /// Notifications and responses only: accepted with 202, no body.
    Quiet,
    /// It carries a request.
    Requests,
}

/// Why the requests of a POST will get no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The POST's HTTP status; `None` when no response came at all (the
    /// connection failed: nothing is listening, or it went away).
    pub status: Option<u16>,
    /// What happened, one line.
    pub how: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.how)
    }
}

/// One POST of the session.
#[derive(Debug)]
struct Post {
    /// The ids of the requests it carried.
    ids: Vec<Id>,
    /// The progress tokens its requests supplied (JSON text).
    tokens: Vec<String>,
    /// The requests its `notifications/cancelled` named.
    cancels: Vec<Id>,
    body: Body,
    /// Its HTTP status, once known.
    status: Option<u16>,
}

/// What the judge remembers of a server's HTTP exchanges.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Per POST of the session (`Via::Post(n)` is entry n-1).
    posts: Vec<Post>,
    /// Requests whose POST was refused without an answer: id → how.
    refused: Vec<(Id, Refusal)>,
    /// SSE event ids seen on the session's streams.
    event_ids: HashSet<String>,
    /// GETs and DELETEs (`via`) whose answer opened no SSE stream: their
    /// body, if any, is the refusal's (see [`State::plain_body`]).
    plain: HashSet<Via>,
    /// The rule a POST that carried requests broke when it was accepted
    /// (2xx) with a body of a type that carries no answer, until the oracle
    /// takes it ([`crate::Oracle::unreadable`]).
    pub(crate) unanswerable: Option<&'static Requirement>,
}

impl State {
    /// This side started the next POST of the session with `body`, at
    /// `version` (which says whether a batch is a message).
    pub(crate) fn posted(&mut self, body: &[u8], version: Version) {
        let body = body.strip_suffix(b"\n").unwrap_or(body);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let (ids, kind) = match classify(body) {
            Ok(Inbound::Single(Message::Request(r))) => (vec![r.id], Body::Requests),
            Ok(Inbound::Single(_)) => (Vec::new(), Body::Quiet),
            Ok(Inbound::Batch(items)) => {
                let ids: Vec<Id> = items
                    .iter()
                    .filter_map(|m| match m {
                        Ok(Message::Request(r)) => Some(r.id.clone()),
                        _ => None,
                    })
                    .collect();
                let kind = if !version.has_batches() || items.iter().any(Result::is_err) {
                    Body::Invalid
                } else if ids.is_empty() {
                    Body::Quiet
                } else {
                    Body::Requests
                };
                (ids, kind)
            }
            Err(inv) if inv.kind.is_parse_error() => (Vec::new(), Body::Unparsable),
            Err(_) => (Vec::new(), Body::Invalid),
        };
        let (tokens, cancels) = tokens_and_cancels(body);
        self.posts.push(Post {
            ids,
            tokens,
            cancels,
            body: kind,
            status: None,
        });
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
        version: Version,
        out: &mut Vec<Violation>,
    ) {
        let Via::Post(n) = via else {
            let stream = record.status.is_some_and(|s| (200..300).contains(&s))
                && record.response_header("content-type").is_some_and(|ct| {
                    ct.trim_start()
                        .to_ascii_lowercase()
                        .starts_with("text/event-stream")
                });
            if stream {
                self.plain.remove(&via);
            } else {
                self.plain.insert(via);
            }
            return;
        };
        let Some(entry) = post_index(n).and_then(|i| self.posts.get_mut(i)) else {
            return;
        };
        entry.status = record.status;
        if let Some(v) = status_for_body(entry.body, record, streamable, version, n) {
            out.push(Violation { at_ms, ..v });
        }
        let media = record.response_header("content-type").map(|ct| {
            ct.split(';')
                .next()
                .unwrap_or(ct)
                .trim()
                .to_ascii_lowercase()
        });
        let json_body = media.as_deref() == Some("application/json");
        let carries_requests = !entry.ids.is_empty();
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
            self.unanswerable = Some(&ids::HTTP_POST_REQUEST_CONTENT_TYPE);
            out.push(Violation {
                requirement: &ids::HTTP_POST_REQUEST_CONTENT_TYPE,
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
            // A success in a type that carries no answer (an HTML page):
            // no answer will come (judged above as a content type).
            (Some(s), _)
                if streamable
                    && carries_requests
                    && (200..300).contains(&s)
                    && !answered_as_allowed =>
            {
                format!(
                    "the POST carrying it was answered HTTP {s} with {}, which carries no JSON-RPC answer",
                    media.as_deref().unwrap_or("no Content-Type")
                )
            }
            (None, Some(e)) => format!("the POST carrying it failed: {e}"),
            _ => return,
        };
        self.refuse(
            n,
            Refusal {
                status: record.status,
                how: refused,
            },
        );
    }

    /// The requests POST `via` cancelled, once the server accepted it (a
    /// 2xx status): from its response head on, the server has the
    /// cancellations.
    pub(crate) fn cancellations_accepted(&self, via: Via) -> &[Id] {
        let Via::Post(n) = via else { return &[] };
        post_index(n)
            .and_then(|i| self.posts.get(i))
            .filter(|p| p.status.is_some_and(|s| (200..300).contains(&s)))
            .map_or(&[], |p| p.cancels.as_slice())
    }

    /// Whether `via` is the body of a GET or DELETE that opened no SSE
    /// stream (a refusal, the 404 of a session or stream that is gone).
    /// Messages only ever answer a GET on an SSE stream, so no JSON-RPC
    /// message there answers anything: a JSON-RPC error the server put in
    /// such a body (with a null id, as SDKs do) is the refusal's text, and
    /// the exchange itself is what is judged.
    pub(crate) fn plain_body(&self, via: Via) -> bool {
        self.plain.contains(&via)
    }

    /// Whether `via` is the body of a POST refused with an error status.
    pub(crate) fn post_refused(&self, via: Via) -> bool {
        let Via::Post(n) = via else { return false };
        post_index(n)
            .and_then(|i| self.posts.get(i))
            .and_then(|p| p.status)
            .is_some_and(|s| s >= 400)
    }

    /// The requests of POST `n` will get no answer: `how` says why.
    fn refuse(&mut self, n: u64, how: Refusal) {
        let Some(ids) = post_index(n)
            .and_then(|i| self.posts.get(i))
            .map(|p| p.ids.clone())
        else {
            return;
        };
        for id in ids {
            self.refused.push((id, how.clone()));
        }
    }

    /// An HTTP error body answering a refused POST with an error whose id
    /// is none of the POST's requests (`null`, or a server's own marker such
    /// as `"server-error"`): the transport's refusal, not a JSON-RPC
    /// response to judge; the POST's requests will get no other answer.
    pub(crate) fn refusal_body(&mut self, via: Via, msg: &Message) -> bool {
        let Via::Post(n) = via else { return false };
        let Some(post) = post_index(n).and_then(|i| self.posts.get(i)) else {
            return false;
        };
        let Some(status) = post.status.filter(|s| *s >= 400) else {
            return false;
        };
        let foreign = match msg {
            Message::Response(r) => match &r.id {
                None => true,
                Some(id) => r.outcome.is_err() && !post.ids.contains(id),
            },
            _ => false,
        };
        if !foreign {
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
        self.refuse(
            n,
            Refusal {
                status: Some(status),
                how,
            },
        );
        true
    }

    /// A request was answered after all: its POST's refusal does not stand.
    pub(crate) fn answered(&mut self, id: &Id) {
        self.refused.retain(|(rid, _)| rid != id);
    }

    /// See [`crate::Oracle::refused_for`].
    pub(crate) fn refused_for(&self, pred: impl Fn(&Message) -> bool) -> Option<Refusal> {
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
                    requirement: &ids::HTTP_RESUME_EVENT_ID_UNIQUE,
                    detail: format!(
                        "SSE event id {id:?} was used twice in the session (again on {via})"
                    ),
                    at_ms,
                });
            }
        }
    }

    /// A message on `via`: at 2026-07-28 a progress notification on a
    /// POST's stream must carry a token of that POST's request (the only
    /// notification whose relation to a request the wire shows).
    pub(crate) fn stream_message(
        &self,
        at_ms: u64,
        via: Via,
        msg: &Message,
        version: Version,
        out: &mut Vec<Violation>,
    ) {
        if !ids::HTTP_SSE_NOTIFICATIONS_RELATED.applies_to(version) {
            return;
        }
        let (Via::Post(n), Message::Notification(note)) = (via, msg) else {
            return;
        };
        if note.method != "notifications/progress" {
            return;
        }
        let Some(post) = post_index(n).and_then(|i| self.posts.get(i)) else {
            return;
        };
        let Some(token) = note
            .params
            .as_ref()
            .and_then(|p| p.get("progressToken"))
            .map(ToString::to_string)
        else {
            return; // no token: the schema's to judge
        };
        if !post.tokens.contains(&token) {
            out.push(Violation {
                requirement: &ids::HTTP_SSE_NOTIFICATIONS_RELATED,
                detail: format!(
                    "a progress notification for token {token} came on the stream of POST #{n}, whose request supplied {}",
                    if post.tokens.is_empty() { "no progress token".to_owned() } else { post.tokens.join(", ") }
                ),
                at_ms,
            });
        }
    }
}

/// The progress tokens (JSON text) the requests of a POST body supply, and
/// the requests its cancellations name.
fn tokens_and_cancels(body: &[u8]) -> (Vec<String>, Vec<Id>) {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) else {
        return (Vec::new(), Vec::new());
    };
    let items: Vec<&serde_json::Value> = match &v {
        serde_json::Value::Array(items) => items.iter().collect(),
        _ => vec![&v],
    };
    let tokens = items
        .iter()
        .filter_map(|m| m.pointer("/params/_meta/progressToken"))
        .map(ToString::to_string)
        .collect();
    let cancels = items
        .iter()
        .filter(|m| m.get("method").and_then(|m| m.as_str()) == Some("notifications/cancelled"))
        .filter_map(|m| m.pointer("/params/requestId").and_then(Id::from_value))
        .collect();
    (tokens, cancels)
}

/// What POST `n`'s status (and body) break, given what it carried: a
/// server error for client input a server can tell is broken, or a
/// notification-only POST not simply accepted. (`at_ms` is the caller's.)
fn status_for_body(
    body: Body,
    record: &HttpRecord,
    streamable: bool,
    version: Version,
    n: u64,
) -> Option<Violation> {
    let status = record.status?;
    let violation = |requirement: &'static Requirement, detail: String| {
        requirement.applies_to(version).then_some(Violation {
            requirement,
            detail,
            at_ms: 0,
        })
    };
    match body {
        Body::Unparsable | Body::Invalid if status >= 500 => {
            let (id, what) = match body {
                Body::Unparsable if ids::HTTP_POST_MALFORMED_400.applies_to(version) => {
                    (&ids::HTTP_POST_MALFORMED_400, "a body that is not JSON")
                }
                Body::Unparsable => (
                    &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
                    "a body that is not JSON",
                ),
                _ => (
                    &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
                    "a body that is not a valid JSON-RPC message",
                ),
            };
            violation(
                id,
                format!("POST #{n} carried {what} and was answered with HTTP {status} (a server error on client input)"),
            )
        }
        Body::Quiet if streamable && (200..300).contains(&status) => {
            let body = record.body.trim();
            if status == 202 && body.is_empty() {
                return None;
            }
            let shown = if body.is_empty() {
                String::new()
            } else {
                let cut: String = body.chars().take(200).collect();
                format!(" and the body {cut}")
            };
            violation(
                &ids::HTTP_POST_ACCEPTED_202,
                format!("POST #{n} carried notifications or responses only and was answered with HTTP {status}{shown}"),
            )
        }
        _ => None,
    }
}

/// An SSE stream broke the event-stream format.
pub(crate) fn sse_error(at_ms: u64, via: Via, err: &SseError, out: &mut Vec<Violation>) {
    let requirement = if via == Via::Legacy {
        &ids::SSE_MESSAGE_EVENT
    } else {
        &ids::HTTP_POST_REQUEST_CONTENT_TYPE
    };
    out.push(Violation {
        requirement,
        detail: format!("the SSE stream ({via}) broke the event-stream format: {err}"),
        at_ms,
    });
}

/// `Via::Post(n)` is the n-th POST, 1-based.
fn post_index(n: u64) -> Option<usize> {
    usize::try_from(n).ok().and_then(|n| n.checked_sub(1))
}

#[cfg(test)]
mod tests;
