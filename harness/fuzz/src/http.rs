//! The `http` oracle: what the HTTP exchange of an input's POST may look
//! like, given the POST's [`Shape`] (pure; the driver feeds it the
//! [`HttpRecord`] of each input POST).
//!
//! | transport        | POST body (read strictly)           | trips when                                           | requirement (level) |
//! |------------------|-------------------------------------|------------------------------------------------------|---------------------|
//! | both             | not JSON                            | HTTP 5xx (a server error on client input)            | `http.post.malformed-400` (SHOULD) |
//! | both             | invalid JSON-RPC, batch without batches, a request owed an error | HTTP 5xx | `jsonrpc.robustness.survives-invalid` (SHOULD) |
//! | Streamable HTTP  | notifications / responses only      | a 2xx other than 202, or 202 with a body             | `http.post.accepted-202` (MUST) |
//! | Streamable HTTP  | requests                            | a 2xx that is neither `application/json` nor `text/event-stream` | `http.post.request-content-type` (MUST) |
//! | legacy HTTP+SSE  | requests                            | the POST's own response body holds the answer        | `sse.message-event` (MUST) |
//!
//! Findings about the answer to a request or notification are deduplicated
//! by that rule (the message kind names it); a 5xx by the kind of the input.
//!
//! Not findings: any 4xx (a refusal; a JSON-RPC error without an id may come
//! with it, and a request owed an error has had its refusal), a 5xx for a
//! valid notification (an error status is how a server refuses one), anything
//! for [`Shape::Ambiguous`] bodies, and an exchange that failed without a
//! status (the sync ping after it says whether the server is still there).
//! Whether the answers themselves are right is the other oracles' business.

use mcpspec_engine::ids;
use mcpspec_transport::HttpRecord;
use mcpspec_wire::{classify, Inbound, Message};

use crate::oracle::{Oracle, Verdict};
use crate::post::Shape;

/// Judges the exchange of one input POST.
pub fn judge_post(
    streamable: bool,
    shape: Shape,
    record: &HttpRecord,
    exec: Option<u64>,
) -> Option<Verdict> {
    let status = record.status?;
    let v =
        |requirement, detail: String| Some(Verdict::new(Oracle::Http, requirement, detail, exec));
    if status >= 500 && shape.client_error() {
        let requirement = match shape {
            Shape::Malformed { parse: true } => &ids::HTTP_POST_MALFORMED_400,
            _ => &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
        };
        return v(
            requirement,
            format!(
                "{} was answered with HTTP {status} (a server error on client input)",
                what(shape)
            ),
        );
    }
    if !(200..300).contains(&status) {
        return None;
    }
    let media = record.response_header("content-type").map(|ct| {
        ct.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    });
    let body = record.body.trim();
    match shape {
        Shape::Quiet if streamable && (status != 202 || !body.is_empty()) => v(
            &ids::HTTP_POST_ACCEPTED_202,
            format!(
                "a POST of notifications only was answered with HTTP {status}{}",
                if body.is_empty() {
                    String::new()
                } else {
                    format!(" and the body {}", cut(body))
                }
            ),
        )
        .map(|v| v.about("notification POST not answered with 202".to_owned())),
        Shape::Requests { .. }
            if streamable
                && !matches!(
                    media.as_deref(),
                    Some("application/json" | "text/event-stream")
                ) =>
        {
            v(
                &ids::HTTP_POST_REQUEST_CONTENT_TYPE,
                format!(
                    "a POSTed request was answered with HTTP {status} and Content-Type {}",
                    media.as_deref().unwrap_or("(none)")
                ),
            )
            .map(|v| v.about("request answered with another content type".to_owned()))
        }
        Shape::Requests { .. } if !streamable && answers(body) => v(
            &ids::SSE_MESSAGE_EVENT,
            format!(
                "the answer came in the POST's response body instead of on the SSE stream: {}",
                cut(body)
            ),
        )
        .map(|v| v.about("answer in the POST body".to_owned())),
        _ => None,
    }
}

fn what(shape: Shape) -> &'static str {
    match shape {
        Shape::Malformed { parse: true } => "a body that is not JSON",
        Shape::Malformed { parse: false } => "a body that is not a valid JSON-RPC message",
        _ => "a request owed an error",
    }
}

/// The body holds a JSON-RPC response (or a batch of them).
fn answers(body: &str) -> bool {
    match classify(body.as_bytes()) {
        Ok(Inbound::Single(m)) => matches!(m, Message::Response(_)),
        Ok(Inbound::Batch(items)) => items.iter().any(|i| matches!(i, Ok(Message::Response(_)))),
        Err(_) => false,
    }
}

fn cut(text: &str) -> String {
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(status: u16, ct: Option<&str>, body: &str) -> HttpRecord {
        HttpRecord {
            method: "POST".into(),
            status: Some(status),
            response_headers: ct
                .map(|c| ("content-type".to_owned(), c.to_owned()))
                .into_iter()
                .collect(),
            body: body.into(),
            ..HttpRecord::default()
        }
    }

    #[test]
    fn refusals_are_fine_server_errors_on_client_input_are_not() {
        let bad = Shape::Malformed { parse: true };
        assert!(judge_post(true, bad, &record(400, None, ""), Some(1)).is_none());
        let v = judge_post(true, bad, &record(500, None, ""), Some(1)).unwrap();
        assert_eq!(
            (v.oracle, v.requirement.id),
            (Oracle::Http, "http.post.malformed-400")
        );
        // A valid notification may be refused with any error status.
        assert!(judge_post(true, Shape::Quiet, &record(500, None, ""), None).is_none());
        assert!(judge_post(false, Shape::Ambiguous, &record(500, None, ""), None).is_none());
    }

    #[test]
    fn notifications_get_202_and_no_body_requests_json_or_sse() {
        assert!(judge_post(true, Shape::Quiet, &record(202, None, ""), None).is_none());
        let v = judge_post(
            true,
            Shape::Quiet,
            &record(200, Some("application/json"), "{}"),
            None,
        );
        assert_eq!(v.unwrap().requirement.id, "http.post.accepted-202");
        let req = Shape::Requests { owed_error: false };
        assert!(judge_post(true, req, &record(200, Some("text/event-stream"), ""), None).is_none());
        let v = judge_post(true, req, &record(200, Some("text/plain"), "{}"), None).unwrap();
        assert_eq!(v.requirement.id, "http.post.request-content-type");
        // Legacy: 202 without a body; an answer in the body trips.
        assert!(judge_post(false, req, &record(202, None, "Accepted"), None).is_none());
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let v = judge_post(
            false,
            req,
            &record(200, Some("application/json"), answer),
            None,
        );
        assert_eq!(v.unwrap().requirement.id, "sse.message-event");
    }
}
