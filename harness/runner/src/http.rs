//! The `http` step: one HTTP exchange a transport scenario builds itself.
//!
//! The step's request is rendered (templates in the URL, headers and body),
//! sent through the connection's raw exchange (which records it in the
//! transcript but keeps its answer away from the case's messages and the
//! oracle), and its response turned into the JSON object the step's matcher
//! judges — `status`, `headers`, `content_type`, `body`, `events`,
//! `messages`, `open`, `challenge` (see `scenarios/README.md`). With
//! `judge:` the body is also checked as an authorization metadata document
//! (`crate::server_auth`). `keep_open` GETs are the
//! exception: they open the session's standing stream, whose messages do
//! join the case's.

use std::time::Duration;

use mcpspec_scenario::{HeaderMode, HttpBody, HttpStep, HttpUrl, Step};
use mcpspec_transport::{self as transport, Connection, RawRequest, RawResponse, TransportError};
use mcpspec_wire::{SseError, SseEvent};
use serde_json::{json, Map, Value};

use crate::case::{Ctx, Stop};
use crate::outcome::Blame;
use crate::steps::{checked, report_mismatches};

/// `read_for` when the step gives none.
pub(crate) const DEFAULT_READ_FOR: Duration = Duration::from_secs(1);

/// A session id no server issued (`url: unknown_session`).
const FORGED_SESSION: &str = "mcpspec-unknown-session-7d3f0c2a9b";

pub async fn run(ctx: &mut Ctx<'_>, at: Option<(usize, &Step)>, h: &HttpStep) -> Result<(), Stop> {
    if let Some(stop) = crate::server_auth::undiscovered(ctx, h) {
        return Err(stop);
    }
    let mut fetched: Option<String> = None;
    let response = if h.keep_open {
        open_standing_stream(ctx, at).await?
    } else {
        let mut req = request(ctx, h)?;
        req.until = settled_early(ctx, at, h);
        fetched.clone_from(&req.url);
        let read_for = req.read_for;
        // Legacy SSE: what is POSTed to the case's own endpoint is answered
        // on the case's stream, where the oracle expects it.
        let answered_on_stream = ctx.conn.transport() == mcpspec_transport::Transport::Sse
            && matches!(h.url, HttpUrl::Endpoint)
            && matches!(h.session, HeaderMode::Auto)
            && !req.body.is_empty();
        let body = req.body.clone();
        // The transport bounds the wait for headers by its own, longer,
        // request timeout: a server that never answers must cost no more
        // than the step's own allowance.
        let limit = read_for.max(ctx.cfg.step_timeout) + Duration::from_millis(500);
        let answer = tokio::time::timeout(limit, ctx.conn.connection().exchange(req)).await;
        match answer {
            Err(_) => return no_answer(ctx, at, h, limit),
            Ok(None) => {
                return Err(Stop::Error(
                    Blame::Harness,
                    "an `http` step ran over stdio (the loader should have refused it)".to_owned(),
                ))
            }
            Ok(Some(Err(TransportError::Timeout { after, .. }))) => {
                return no_answer(ctx, at, h, after)
            }
            Ok(Some(Err(
                e @ (TransportError::InvalidHeader { .. }
                | TransportError::InvalidMethod(_)
                | TransportError::InvalidUrl { .. }),
            ))) => return Err(Stop::Error(Blame::Scenario, e.to_string())),
            Ok(Some(Err(e))) => return Err(Stop::Error(Blame::Target, e.to_string())),
            Ok(Some(Ok(r))) => {
                if answered_on_stream && (200..300).contains(&r.status) {
                    let now = ctx.conn.now_ms();
                    ctx.conn.note_outbound(&body, now);
                }
                if r.ended_early {
                    ctx.conn.note(format!(
                        "reading the stream ended before its {}ms: what it carried already \
                         breaks the step's expectation, and more of it could not mend that",
                        read_for.as_millis()
                    ));
                }
                response_object(&r)
            }
        }
    };
    // Let the exchange's record reach the transcript before judging.
    ctx.conn.drain_ready().await;
    if let Some(label) = &h.label {
        ctx.vars.set(label, json!({ "response": response.clone() }));
    }
    if let Some(doc) = h.judge {
        crate::server_auth::judge(ctx, at, doc, fetched.as_deref(), &response)?;
    }
    match &h.expect {
        Some(m) => {
            let mismatches = m
                .check(Some(&response), "response", &mut ctx.vars)
                .map_err(|e| Stop::Error(Blame::Scenario, e.to_string()))?;
            report_mismatches(ctx, at, &mismatches, m)
        }
        None => Ok(()),
    }
}

/// When an event stream's reading may end before the step's `read_for`
/// (issue #18): once what was read already fails the step's expectation
/// for good ([`mcpspec_scenario::Matcher::fails_for_good`]: a `$not:
/// {$contains}` an element read breaks, an element that fails `$each`).
/// The window's end would only add elements, so the verdict is the one it
/// would have given. Only for a MUST step: its failure ends the case, so no
/// later step reads the shorter response through the step's label; a
/// failing SHOULD lets the case go on, and its window is read out.
fn settled_early(
    ctx: &Ctx<'_>,
    at: Option<(usize, &Step)>,
    h: &HttpStep,
) -> Option<transport::ReadUntil> {
    if ctx.level_of(at) != mcpspec_scenario::Level::Must || h.judge.is_some() {
        return None;
    }
    let matcher = h.expect.clone()?;
    let vars = ctx.vars.clone();
    // Both rules are about single elements, and an earlier call saw the
    // earlier events: only the new ones are looked at, so a long stream
    // costs linear time.
    Some(transport::ReadUntil::new(move |partial, new| {
        let events = partial.events.get(new..).unwrap_or_default();
        // An unbound variable is the scenario's error, reported by the
        // full check at the window's end.
        matcher
            .fails_for_good(&object_with(partial, events), &vars)
            .unwrap_or(false)
    }))
}

/// The request of a step, rendered.
fn request(ctx: &Ctx<'_>, h: &HttpStep) -> Result<RawRequest, Stop> {
    let render = |text: &str| {
        mcpspec_scenario::template::render_str(text, &ctx.vars)
            .map_err(|e| Stop::Error(Blame::Scenario, e.to_string()))
    };
    let mode = |m: &HeaderMode| -> Result<transport::HeaderMode, Stop> {
        Ok(match m {
            HeaderMode::Auto => transport::HeaderMode::Auto,
            HeaderMode::Omit => transport::HeaderMode::Omit,
            HeaderMode::Value(v) => transport::HeaderMode::Value(render(v)?),
        })
    };
    let mut req = RawRequest::new(h.method.clone());
    req.session_id = mode(&h.session)?;
    req.protocol_version = mode(&h.protocol_version)?;
    req.url = match &h.url {
        HttpUrl::Endpoint => None,
        // Streamable HTTP has one URL: the endpoint is the stream.
        HttpUrl::Stream => ctx.conn_sse_url(),
        HttpUrl::UnknownSession => match ctx.conn_endpoint() {
            // Legacy SSE: the session lives in the announced endpoint URI.
            Some(endpoint) => Some(forge_session(&endpoint)),
            // Streamable HTTP: in the header.
            None => {
                if matches!(h.session, HeaderMode::Auto) {
                    req.session_id = transport::HeaderMode::Value(FORGED_SESSION.to_owned());
                }
                None
            }
        },
        HttpUrl::Path(p) => Some(render(p)?),
    };
    for (name, value) in &h.headers {
        let name = render(name)?;
        match value {
            Some(v) => req.headers.push((name, render(v)?)),
            None => req.remove.push(name),
        }
    }
    req.body = match &h.body {
        None => Vec::new(),
        Some(HttpBody::Text(t)) => render(t)?.into_bytes(),
        Some(HttpBody::Json(t)) => {
            let v = t
                .render(&ctx.vars)
                .map_err(|e| Stop::Error(Blame::Scenario, e.to_string()))?;
            serde_json::to_vec(&v).map_err(|e| Stop::Error(Blame::Scenario, e.to_string()))?
        }
    };
    req.read_for = h.read_for.unwrap_or(DEFAULT_READ_FOR);
    Ok(req)
}

/// `keep_open`: the standing GET stream; its response object has no events.
async fn open_standing_stream(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
) -> Result<Value, Stop> {
    let within = ctx.cfg.step_timeout;
    match ctx.conn.open_get_stream(within).await {
        Ok(record) => {
            let headers: Vec<(String, String)> = record.response_headers.clone();
            let content_type = record.response_header("content-type").map(media_type);
            Ok(json!({
                "status": record.status,
                "headers": header_map(&headers),
                "content_type": content_type,
                "body": Value::Null,
                "events": [],
                "messages": [],
                "open": record.status == Some(200),
            }))
        }
        Err(e) => {
            let level = ctx.fail(at, vec!["an answer to the GET".to_owned()], e);
            checked(level)?;
            Err(Stop::Failed)
        }
    }
}

fn no_answer(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    h: &HttpStep,
    after: Duration,
) -> Result<(), Stop> {
    let level = ctx.fail(
        at,
        vec![format!("an HTTP response to the {}", h.method)],
        format!(
            "none within {}ms: the request was left hanging",
            after.as_millis()
        ),
    );
    checked(level)?;
    // A SHOULD: the case goes on, but there is no response to bind or match.
    Ok(())
}

/// The response object the step's matcher sees.
pub fn response_object(r: &RawResponse) -> Value {
    object_with(r, &r.events)
}

/// The response object with `events_read` for `r`'s events.
fn object_with(r: &RawResponse, events_read: &[Result<SseEvent, SseError>]) -> Value {
    let body_text = || String::from_utf8_lossy(&r.body).into_owned();
    let is_sse = r.content_type.as_deref() == Some("text/event-stream");
    let body = if is_sse || r.body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice::<Value>(&r.body).unwrap_or_else(|_| Value::String(body_text()))
    };
    let mut messages: Vec<Value> = Vec::new();
    let mut events: Vec<Value> = Vec::new();
    for e in events_read {
        match e {
            Ok(ev) => {
                let data = serde_json::from_str::<Value>(&ev.data)
                    .unwrap_or_else(|_| Value::String(ev.data.clone()));
                if ev.event == "message" && !ev.data.trim().is_empty() {
                    push_messages(&mut messages, &data);
                }
                let mut obj = Map::new();
                obj.insert("event".into(), json!(ev.event));
                obj.insert("data".into(), data);
                if let Some(id) = &ev.id {
                    obj.insert("id".into(), json!(id));
                }
                if let Some(retry) = ev.retry {
                    obj.insert("retry".into(), json!(retry));
                }
                events.push(Value::Object(obj));
            }
            Err(err) => events.push(json!({ "error": err.to_string() })),
        }
    }
    if !is_sse {
        push_messages(&mut messages, &body);
    }
    json!({
        "status": r.status,
        "headers": header_map(&r.headers),
        "content_type": r.content_type,
        "body": body,
        "events": events,
        "messages": messages,
        "open": r.stream_open,
        "challenge": crate::server_auth::challenge_object(r.header("www-authenticate")),
        "redirect": redirect_object(r.header("location")),
    })
}

/// Where a `Location` header sends the user agent, as the `redirect` member
/// of a response object: `{uri, query}` (the URI without its query, and
/// the query's parameters decoded, the first of a repeated one), or null
/// without the header or when it is not an absolute URI.
fn redirect_object(location: Option<&str>) -> Value {
    let Some(mut url) = location.and_then(|l| url::Url::parse(l).ok()) else {
        return Value::Null;
    };
    let mut query = Map::new();
    for (k, v) in url.query_pairs() {
        query.entry(k.into_owned()).or_insert_with(|| json!(v));
    }
    url.set_query(None);
    url.set_fragment(None);
    json!({ "uri": url.as_str(), "query": query })
}

/// JSON-RPC-looking values: an object, or the objects of a batch array.
fn push_messages(out: &mut Vec<Value>, v: &Value) {
    match v {
        Value::Object(_) => out.push(v.clone()),
        Value::Array(items) => out.extend(items.iter().filter(|i| i.is_object()).cloned()),
        _ => {}
    }
}

/// Lower-case names; repeated headers joined with `, `.
fn header_map(headers: &[(String, String)]) -> Value {
    let mut map: Map<String, Value> = Map::new();
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        match map.get_mut(&name) {
            Some(Value::String(s)) => {
                s.push_str(", ");
                s.push_str(value);
            }
            _ => {
                map.insert(name, Value::String(value.clone()));
            }
        }
    }
    Value::Object(map)
}

/// `text/event-stream; charset=utf-8` → `text/event-stream`.
fn media_type(v: &str) -> String {
    v.split(';').next().unwrap_or(v).trim().to_ascii_lowercase()
}

/// The legacy endpoint with its session replaced by one never issued: every
/// query value is swapped for a forged one of the same length (the session
/// id travels in the query in every known server); without a query, the
/// last path segment is.
pub fn forge_session(endpoint: &str) -> String {
    let forge = |s: &str| -> String {
        // Same length and alphabet class, different characters.
        s.chars()
            .enumerate()
            .map(|(i, c)| {
                let pool: &[u8] = if c.is_ascii_hexdigit() {
                    b"0f1e2d3c"
                } else {
                    b"qxzjkv"
                };
                let candidate = pool[i % pool.len()] as char;
                if candidate == c {
                    pool[(i + 1) % pool.len()] as char
                } else {
                    candidate
                }
            })
            .collect()
    };
    let (base, fragment) = match endpoint.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (endpoint, None),
    };
    let forged = match base.split_once('?') {
        Some((path, query)) if !query.is_empty() => {
            let pairs: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, v)) if !v.is_empty() => format!("{k}={}", forge(v)),
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", pairs.join("&"))
        }
        _ => {
            let trimmed = base.trim_end_matches('/');
            match trimmed.rsplit_once('/') {
                Some((head, last)) if !last.is_empty() => format!("{head}/{}", forge(last)),
                _ => format!("{base}/{FORGED_SESSION}"),
            }
        }
    };
    match fragment {
        Some(f) => format!("{forged}#{f}"),
        None => forged,
    }
}

impl Ctx<'_> {
    /// The legacy SSE stream URL, on an SSE connection.
    fn conn_sse_url(&self) -> Option<String> {
        match self.conn.connection_ref() {
            Connection::Sse(s) => Some(s.sse_url().to_owned()),
            _ => None,
        }
    }

    /// The announced POST endpoint, on an SSE connection.
    fn conn_endpoint(&self) -> Option<String> {
        match self.conn.connection_ref() {
            Connection::Sse(s) => Some(s.endpoint().to_owned()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forged_sessions_differ_and_keep_shape() {
        let e = "/message?sessionId=3f2a9c01-aa";
        let f = forge_session(e);
        assert!(f.starts_with("/message?sessionId="));
        assert_ne!(f, e);
        assert_eq!(f.len(), e.len());
        assert_eq!(
            forge_session("http://h:1/messages/abc123"),
            "http://h:1/messages/0f1edd"
        );
        assert_eq!(forge_session("/x?a=1&flag"), "/x?a=0&flag");
    }

    #[test]
    fn response_objects_expose_messages_from_json_and_sse() {
        let r = RawResponse {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            content_type: Some("application/json".into()),
            body: br#"[{"jsonrpc":"2.0","id":1,"result":{}},5]"#.to_vec(),
            body_cut: false,
            events: vec![],
            stream_open: false,
            ended_early: false,
        };
        let o = response_object(&r);
        assert_eq!(o["messages"], json!([{"jsonrpc":"2.0","id":1,"result":{}}]));
        assert_eq!(o["headers"]["content-type"], "application/json");
        let events = mcpspec_wire::sse::decode_all(
            b"event: message\nid: 7\ndata: {\"id\":2}\n\nevent: endpoint\ndata: /m\n\n",
            1 << 20,
        );
        let o = response_object(&sse_response(events, true));
        assert_eq!(o["messages"], json!([{"id": 2}]));
        assert_eq!(
            o["events"][0],
            json!({"event": "message", "data": {"id": 2}, "id": "7"})
        );
        assert_eq!(o["events"][1]["data"], "/m");
        assert_eq!(o["body"], Value::Null);
        assert_eq!(o["open"], true);
    }

    /// A 200 `text/event-stream` response carrying `events`.
    fn sse_response(
        events: Vec<Result<mcpspec_wire::sse::SseEvent, mcpspec_wire::sse::SseError>>,
        stream_open: bool,
    ) -> RawResponse {
        RawResponse {
            status: 200,
            headers: vec![],
            content_type: Some("text/event-stream".into()),
            body: vec![],
            body_cut: false,
            events,
            stream_open,
            ended_early: false,
        }
    }

    #[test]
    fn a_priming_event_shows_its_retry_and_empty_data() {
        let events = mcpspec_wire::sse::decode_all(b"id: 1-1\nretry: 500\ndata: \n\n", 1 << 20);
        let o = response_object(&sse_response(events, false));
        assert_eq!(
            o["events"][0],
            json!({"event": "message", "data": "", "id": "1-1", "retry": 500})
        );
        assert_eq!(o["messages"], json!([]));
    }

    #[test]
    fn a_location_header_becomes_a_redirect_object() {
        assert_eq!(redirect_object(None), Value::Null);
        assert_eq!(redirect_object(Some("/relative?code=1")), Value::Null);
        assert_eq!(
            redirect_object(Some(
                "http://127.0.0.1:9/cb?code=a%2Fb&state=s&iss=http%3A%2F%2Fh&code=2#frag"
            )),
            json!({
                "uri": "http://127.0.0.1:9/cb",
                "query": { "code": "a/b", "state": "s", "iss": "http://h" },
            })
        );
    }
}
