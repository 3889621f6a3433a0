//! HAR 1.2 files (browser dev tools, mitmproxy, HTTP debugging proxies) as
//! the traffic of one MCP connection over Streamable HTTP or legacy
//! HTTP+SSE.
//!
//! Each entry (in `startedDateTime` order) becomes what the HTTP transport
//! would have reported: a POST's body (the client's message), the
//! exchange's [`HttpRecord`] (method, path and query, lowercase headers with
//! credentials redacted, bodies cut as the transport cuts them), then the
//! response: an `application/json` body (or one that looks like JSON) as the
//! server's message, a `text/event-stream` body parsed by the wire crate's
//! SSE decoder into its events and their `message` data. POSTs are counted
//! as the transport counts them (`post#n`); a GET is the standalone stream,
//! or, when its stream names an `endpoint`, the legacy transport's stream
//! (which makes the file a legacy HTTP+SSE connection).
//!
//! A HAR keeps an event stream whole, without the time of each event: the
//! events of a GET stream (the legacy transport's, or the standalone one)
//! are placed in their order, an answer right after the POST that carried
//! its request. The client-side rules name the endpoint the harness serves (`/mcp`): the
//! path of the first POST is taken as the MCP endpoint and written as that.
//! Entries of other hosts' requests (a page's assets) are not skipped: give
//! a HAR of the MCP traffic only. A body kept base64 (`encoding`) is decoded.

use std::collections::{HashSet, VecDeque};

use mcpspec_oracle::pair::{Side, Traffic};
use mcpspec_wire::event::{Event, HttpRecord, Transport, Via, MCP_PATH, RECORD_BODY_MAX, REDACTED};
use mcpspec_wire::sse::decode_all;
use serde_json::Value;

use super::Recording;

/// Largest SSE event read from a body.
const MAX_EVENT: usize = 16 * 1024 * 1024;

/// One entry, read.
struct Entry {
    at_ms: u64,
    method: String,
    path: String,
    query: String,
    request_headers: Vec<(String, String)>,
    request_body: Vec<u8>,
    status: Option<u16>,
    response_headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Entry {
    fn content_type(&self) -> String {
        self.response_headers
            .iter()
            .find(|(n, _)| n == "content-type")
            .map(|(_, v)| {
                v.split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase()
            })
            .unwrap_or_default()
    }
}

/// Reads a HAR document: one connection per MCP session it holds (see
/// [`sessions`]), each with its session id when there are several.
pub fn read(doc: &Value) -> Result<Vec<(Option<String>, Recording)>, String> {
    let entries = doc
        .get("log")
        .and_then(|l| l.get("entries"))
        .and_then(Value::as_array)
        .ok_or("not a HAR file: no log.entries array")?;
    let mut read = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        read.push(entry(e).map_err(|why| format!("entry {i}: {why}"))?);
    }
    read.sort_by_key(|e| e.at_ms);
    Ok(sessions(read)
        .into_iter()
        .map(|(key, mut entries)| {
            if let Some(first) = entries.first().map(|e| e.at_ms) {
                for e in &mut entries {
                    e.at_ms -= first;
                }
            }
            (key, connection(&entries))
        })
        .collect())
}

/// The entries of each MCP session, in order: a capture of a gateway or
/// of several clients holds several. An entry's session is its
/// `Mcp-Session-Id` (request or response header), or for the legacy
/// transport the `session…` query parameter of a POST's URI or of the
/// `endpoint` its stream announced. With at most one session every entry
/// is one connection; with more, the entries of none are one more.
fn sessions(entries: Vec<Entry>) -> Vec<(Option<String>, Vec<Entry>)> {
    let keys: Vec<Option<String>> = entries.iter().map(session_of).collect();
    let mut distinct: Vec<&String> = keys.iter().flatten().collect();
    distinct.sort();
    distinct.dedup();
    if distinct.len() <= 1 {
        return vec![(None, entries)];
    }
    let mut out: Vec<(Option<String>, Vec<Entry>)> = Vec::new();
    for (key, e) in keys.into_iter().zip(entries) {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, group)) => group.push(e),
            None => out.push((key, vec![e])),
        }
    }
    out
}

/// The session an entry belongs to, if it names one.
fn session_of(e: &Entry) -> Option<String> {
    let header = |list: &[(String, String)]| {
        list.iter()
            .find(|(n, _)| n == "mcp-session-id")
            .map(|(_, v)| v.clone())
    };
    if let Some(id) = header(&e.request_headers).or_else(|| header(&e.response_headers)) {
        return Some(id);
    }
    if let Some(id) = session_param(&e.query) {
        return Some(id);
    }
    if e.method == "GET" && e.content_type() == "text/event-stream" {
        return decode_all(&e.body, MAX_EVENT)
            .into_iter()
            .find_map(|ev| match ev {
                Ok(ev) if ev.event == "endpoint" => {
                    session_param(ev.data.split_once('?').map_or("", |(_, q)| q))
                }
                _ => None,
            });
    }
    None
}

/// The value of a query's `session…` parameter (`sessionId`, `session_id`).
fn session_param(query: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| k.to_ascii_lowercase().starts_with("session"))
        .map(|(_, v)| v.to_owned())
}

/// One session's entries as the traffic of one connection.
fn connection(read: &[Entry]) -> Recording {
    let legacy = read.iter().any(|e| {
        e.method == "GET"
            && e.content_type() == "text/event-stream"
            && decode_all(&e.body, MAX_EVENT)
                .iter()
                .any(|ev| matches!(ev, Ok(ev) if ev.event == "endpoint"))
    });
    let endpoint = read
        .iter()
        .find(|e| e.method == "POST")
        .map(|e| e.path.clone());
    let mut traffic = Vec::new();
    let mut posts = 0;
    // A GET stream's events, not yet placed; the ids of client requests so far.
    let mut stream: VecDeque<(u64, Option<String>, Vec<Traffic>)> = VecDeque::new();
    let mut asked: HashSet<String> = HashSet::new();
    for e in read {
        let via = match e.method.as_str() {
            "POST" => {
                posts += 1;
                Via::Post(posts)
            }
            "GET" if legacy => Via::Legacy,
            "GET" => Via::Get,
            "DELETE" => Via::Delete,
            _ => Via::Raw(traffic.len() as u64 + 1),
        };
        if e.method == "POST" && !e.request_body.is_empty() {
            traffic.push((
                e.at_ms,
                Traffic::Message {
                    from: Side::Client,
                    via,
                    bytes: e.request_body.clone(),
                },
            ));
        }
        let sse = e.content_type() == "text/event-stream";
        let path = match &endpoint {
            Some(p) if !legacy && *p == e.path => MCP_PATH.to_owned(),
            _ => e.path.clone(),
        };
        let record = HttpRecord {
            method: e.method.clone(),
            target: if e.query.is_empty() {
                path
            } else {
                format!("{path}?{}", e.query)
            },
            request_headers: e.request_headers.clone(),
            request_body: cut(&e.request_body),
            status: e.status,
            response_headers: e.response_headers.clone(),
            body: if sse {
                "SSE stream".to_owned()
            } else {
                cut(&e.body)
            },
            error: e
                .status
                .is_none()
                .then(|| "no response recorded".to_owned()),
        };
        traffic.push((e.at_ms, Traffic::Http { via, record }));
        if let Some(ids) = client_ids(e) {
            asked.extend(ids);
        }
        let events = if sse {
            sse_events(via, &e.body)
        } else if json_like(&e.content_type(), &e.body) {
            let bytes = e.body.clone();
            vec![(
                None,
                vec![Traffic::Message {
                    from: Side::Server,
                    via,
                    bytes,
                }],
            )]
        } else {
            Vec::new()
        };
        if e.method == "GET" {
            stream.extend(events.into_iter().map(|(id, t)| (e.at_ms, id, t)));
        } else {
            traffic.extend(
                events
                    .into_iter()
                    .flat_map(|(_, t)| t)
                    .map(|t| (e.at_ms, t)),
            );
        }
        due(&mut stream, &asked, &mut traffic, false);
    }
    due(&mut stream, &asked, &mut traffic, true);
    Recording {
        transport: if legacy {
            Transport::Sse
        } else {
            Transport::Http
        },
        version: None,
        traffic,
    }
}

/// The events of an SSE body, each with the id of the request it answers
/// (if a response): its `SseEvent`, then its message.
fn sse_events(via: Via, body: &[u8]) -> Vec<(Option<String>, Vec<Traffic>)> {
    let mut out = Vec::new();
    for item in decode_all(body, MAX_EVENT) {
        match item {
            Ok(ev) => {
                let message = ev.event == "message" && !ev.data.trim().is_empty();
                let data = ev.data.clone().into_bytes();
                let answers = response_id(&data);
                let event = Event::SseEvent {
                    event: ev.event,
                    id: ev.id,
                    retry: ev.retry,
                    data_len: data.len(),
                };
                let mut items = vec![Traffic::Sse { via, event }];
                if message {
                    let from = Side::Server;
                    items.push(Traffic::Message {
                        from,
                        via,
                        bytes: data,
                    });
                }
                out.push((answers, items));
            }
            Err(err) => {
                let event = Event::SseError(err);
                out.push((None, vec![Traffic::Sse { via, event }]));
            }
        }
    }
    out
}

/// A HAR keeps a stream whole, with no time per event: a GET stream's
/// events are placed in order, each answer only once the request it
/// answers was sent (everything, at the end).
fn due(
    stream: &mut VecDeque<(u64, Option<String>, Vec<Traffic>)>,
    asked: &HashSet<String>,
    traffic: &mut Vec<(u64, Traffic)>,
    all: bool,
) {
    let at = traffic.last().map_or(0, |(at, _)| *at);
    while let Some((_, answers, _)) = stream.front() {
        if !all && answers.as_ref().is_some_and(|id| !asked.contains(id)) {
            return;
        }
        if let Some((start, _, items)) = stream.pop_front() {
            traffic.extend(items.into_iter().map(|t| (start.max(at), t)));
        }
    }
}

/// The id a response answers (as JSON text), if `bytes` is one.
fn response_id(bytes: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    let is_response =
        v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some());
    is_response
        .then(|| v.get("id").map(Value::to_string))
        .flatten()
}

/// The ids of the requests a POST carries (as JSON text).
fn client_ids(e: &Entry) -> Option<Vec<String>> {
    let v: Value = serde_json::from_slice(&e.request_body).ok()?;
    let items = match v {
        Value::Array(items) => items,
        one => vec![one],
    };
    Some(
        items
            .iter()
            .filter(|m| m.get("method").is_some())
            .filter_map(|m| m.get("id").map(Value::to_string))
            .collect(),
    )
}

/// A body the transport frames as a message: JSON by type or by look, not blank.
fn json_like(content_type: &str, body: &[u8]) -> bool {
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    first.is_some() && (content_type == "application/json" || matches!(first, Some(b'{' | b'[')))
}

fn cut(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut end = text.len().min(RECORD_BODY_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

fn entry(e: &Value) -> Result<Entry, String> {
    let request = e.get("request").ok_or("no `request`")?;
    let response = e.get("response");
    let method = request
        .get("method")
        .and_then(Value::as_str)
        .ok_or("no `request.method`")?
        .to_ascii_uppercase();
    let url = request
        .get("url")
        .and_then(Value::as_str)
        .ok_or("no `request.url`")?;
    let parsed = url::Url::parse(url).map_err(|err| format!("`request.url` {url:?}: {err}"))?;
    let started = e
        .get("startedDateTime")
        .and_then(Value::as_str)
        .ok_or("no `startedDateTime`")?;
    let at_ms = millis(started)
        .ok_or_else(|| format!("`startedDateTime` {started:?} is not an ISO 8601 time"))?;
    let request_body = match request.get("postData") {
        Some(p) => text_of(p, "request.postData")?,
        None => Vec::new(),
    };
    // A status of 0 (or none): the request got no response.
    let status = response
        .and_then(|r| r.get("status"))
        .and_then(Value::as_u64)
        .filter(|s| (100..600).contains(s))
        .map(|s| s as u16);
    let body = match response.and_then(|r| r.get("content")) {
        Some(c) if status.is_some() => text_of(c, "response.content")?,
        _ => Vec::new(),
    };
    Ok(Entry {
        at_ms,
        method,
        path: parsed.path().to_owned(),
        query: parsed.query().unwrap_or_default().to_owned(),
        request_headers: headers(request.get("headers"), "request.headers")?,
        request_body,
        status,
        response_headers: match status {
            Some(_) => headers(response.and_then(|r| r.get("headers")), "response.headers")?,
            None => Vec::new(),
        },
        body,
    })
}

/// A HAR `postData` or `content`: its `text`, base64-decoded when so encoded.
fn text_of(v: &Value, what: &str) -> Result<Vec<u8>, String> {
    let Some(text) = v.get("text").and_then(Value::as_str) else {
        return Ok(Vec::new());
    };
    match v.get("encoding").and_then(Value::as_str) {
        Some("base64") => mcpspec_report::transcript::base64_decode(text)
            .map_err(|e| format!("`{what}.text` is not base64: {e}")),
        _ => Ok(text.as_bytes().to_vec()),
    }
}

/// Headers, names lowercased, credentials redacted as the transport does.
fn headers(v: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    let Some(list) = v else { return Ok(Vec::new()) };
    let list = list
        .as_array()
        .ok_or_else(|| format!("`{what}` is not an array"))?;
    let mut out = Vec::new();
    for h in list {
        let (Some(name), Some(value)) = (
            h.get("name").and_then(Value::as_str),
            h.get("value").and_then(Value::as_str),
        ) else {
            return Err(format!("`{what}` has an entry without a name and value"));
        };
        let name = name.to_ascii_lowercase();
        if name.starts_with(':') {
            continue; // HTTP/2 pseudo-headers
        }
        let secret = matches!(
            name.as_str(),
            "authorization" | "cookie" | "set-cookie" | "proxy-authorization"
        );
        let value = if secret {
            REDACTED.to_owned()
        } else {
            value.to_owned()
        };
        out.push((name, value));
    }
    Ok(out)
}

/// Milliseconds since the Unix epoch of an ISO 8601 date-time
/// (`2026-01-02T03:04:05.678Z`, or with an offset such as `+02:00`).
fn millis(s: &str) -> Option<u64> {
    let (date, rest) = s.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let (time, offset) = match rest.find(['Z', '+', '-']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut t = time.split(':');
    let (h, min) = (
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<i64>().ok()?,
    );
    let secs: f64 = t.next().unwrap_or("0").parse().ok()?;
    let off_min = match offset.as_bytes().first() {
        Some(sign @ (b'+' | b'-')) => {
            let (oh, om) = offset[1..].split_once(':').unwrap_or((&offset[1..], "0"));
            let v = oh.parse::<i64>().ok()? * 60 + om.parse::<i64>().ok()?;
            if *sign == b'-' {
                -v
            } else {
                v
            }
        }
        _ => 0,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let ms = ((days * 86_400 + h * 3600 + (min - off_min) * 60) as f64 + secs) * 1000.0;
    (ms >= 0.0).then_some(ms as u64)
}

#[cfg(test)]
mod tests {
    use super::millis;

    #[test]
    fn har_times_are_read_with_their_offset() {
        assert_eq!(millis("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(
            millis("2026-01-02T03:04:05.000+01:00"),
            millis("2026-01-02T02:04:05Z")
        );
        assert_eq!(millis("2000-03-01T00:00:00Z"), Some(951_868_800_000));
        assert_eq!(millis("yesterday"), None);
    }
}
