//! A client's HTTP requests, judged (the harness serves the client under
//! test over Streamable HTTP or legacy HTTP+SSE).
//!
//! The serving transport reports each request as one [`HttpRecord`] before
//! its body's frame; the oracle judges it with what it knows at that moment:
//! the live session id of the serving endpoint ([`Observed::LiveSession`])
//! and the version the initialize exchange settled on, which it follows from
//! the messages both ways (the client's `initialize`, this side's answer,
//! the client's `notifications/initialized`).
//!
//! | rule | versions | what is checked |
//! |---|---|---|
//! | `http.post.accept` | 2025-03-26 → | a POST's `Accept` lists `application/json` and `text/event-stream` |
//! | `http.get.accept` | 2025-03-26 … 2025-11-25 | a GET's `Accept` lists `text/event-stream` |
//! | `http.post.client-post` | 2025-03-26 → | a JSON-RPC message is POSTed to the MCP endpoint, not elsewhere |
//! | `http.post.single-message` | 2025-06-18 → | a POST body is one message, not a batch |
//! | `http.session.client-echo` | 2025-03-26 … 2025-11-25 | once issued, the session id is on every request |
//! | `http.header.protocol-version` | 2025-06-18 → | after the handshake every request names the negotiated version (2026-07-28: every request) |
//! | `http.header.version-matches-meta` | 2026-07-28 → | the header equals the version in the request's `_meta` |
//! | `http.header.method` | 2026-07-28 → | a request's `Mcp-Method` names its method; `Mcp-Name` its `params.name` / `params.uri` (`tools/call`, `prompts/get`, `resources/read`; Base64 sentinel decoded) |
//! | `http.header.param-mirror`, `http.header.value-encoding`, `http.header.client-rejects-invalid-tools` | 2026-07-28 → | `Mcp-Param-*` headers of a `tools/call` of a tool this side listed with `x-mcp-header` annotations; no call of one listed with invalid ones ([`params`]) |
//! | `sse.client-post` | 2024-11-05 | (legacy) every POST goes to the URI of the `endpoint` event |
//! | `http.sse.client-respects-retry` | 2025-11-25 | a reconnection to a stream the harness cut waits its `retry` ([`resume`]) |
//! | `auth.no-token-in-query` | 2025-03-26 → | no request carries an access token in its query (`crate::auth_client`) |
//!
//! No false failures: a rule is only applied where the harness can tell a
//! conformant client from a broken one. The session rules lean on the
//! serving endpoint's own verdict, which it took under its lock when it
//! handled the request (it refuses a missing id with 400 and an unknown one
//! with 404): a request is blamed only when that refusal and the session
//! live when the record is judged agree, so a request that crossed a new
//! `initialize` is not. Before the client can know the negotiated version (a
//! ping racing the initialize result) its requests are not held to it, and a
//! version this side counter-offered binds the client only once it took it
//! (`notifications/initialized`).
//!
//! [`Observed::LiveSession`]: crate::Observed::LiveSession

use mcpspec_engine::ids;
use mcpspec_engine::session::{Phase, META_PROTOCOL_VERSION};
use mcpspec_engine::{Lifecycle, Requirement, Version, Violation};
use mcpspec_wire::event::{HttpRecord, Transport, Via, LEGACY_POST_PATH, MCP_PATH};
use mcpspec_wire::{classify, Id, Inbound, Message};
use serde_json::Value;

use crate::Oracle;

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// What the judge follows of a client's session over HTTP.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The serving endpoint's live session id.
    live: Option<String>,
    /// The client's latest `initialize`: its id and the version it asked for.
    asked: Option<(Id, Option<String>)>,
    /// This side's answer to it, when that named a handshake version with
    /// the protocol-version header.
    answer: Option<(Id, Version)>,
    /// The client sent `notifications/initialized` after that answer.
    initialized: bool,
    /// The tools this side listed, for the custom-header rules.
    listed: params::Listed,
    /// The response streams this side cut.
    pub(crate) cuts: resume::Cuts,
}

impl State {
    pub(crate) fn live(&mut self, id: Option<&str>) {
        self.live = id.map(str::to_owned);
    }

    /// A message of the client's.
    pub(crate) fn received(&mut self, msg: &Message) {
        self.listed.received(msg);
        match msg {
            Message::Request(r) if r.method == "initialize" => {
                let asked = r
                    .params
                    .as_ref()
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.asked = Some((r.id.clone(), asked));
                self.answer = None;
                self.initialized = false;
            }
            Message::Notification(n) if n.method == "notifications/initialized" => {
                self.initialized |= self.answer.is_some();
            }
            _ => {}
        }
    }

    /// A message of this side's: the answer to the client's `initialize`
    /// (`init`, as the session knows it) settles the version.
    pub(crate) fn sent(&mut self, msg: &Message, init: Option<&Id>) {
        self.listed.sent(msg);
        let Message::Response(r) = msg else { return };
        let (Some(id), Some(init)) = (&r.id, init) else {
            return;
        };
        if id != init || self.asked.as_ref().is_none_or(|(asked, _)| asked != id) {
            return;
        }
        let version = r
            .outcome
            .as_ref()
            .ok()
            .and_then(|v| v.get("protocolVersion"))
            .and_then(Value::as_str)
            .and_then(|v| v.parse::<Version>().ok())
            .filter(|v| v.lifecycle() == Lifecycle::Handshake && v.has_protocol_version_header());
        self.answer = version.map(|v| (id.clone(), v));
    }

    /// The settled version of the exchange whose request is `init`, if any.
    fn negotiation(&self, init: &Id, operating: bool) -> Option<Negotiation> {
        let (id, version) = self.answer.as_ref()?;
        if id != init {
            return None;
        }
        let asked = self.asked.as_ref().and_then(|(_, v)| v.as_deref());
        let confirmed = operating || self.initialized;
        Some(Negotiation {
            version: *version,
            binding: confirmed || asked == Some(version.as_str()),
            confirmed,
        })
    }
}

impl Oracle {
    /// Judges one request record of the client under test.
    pub(crate) fn client_request(
        &mut self,
        at_ms: u64,
        via: Via,
        record: &HttpRecord,
        out: &mut Vec<Violation>,
    ) {
        let legacy = match self.transport {
            Transport::Http => false,
            Transport::Sse => true,
            Transport::Stdio => return,
        };
        let negotiation = if legacy || !self.version.has_protocol_version_header() {
            None
        } else {
            self.session.peer_initialize_id().and_then(|init| {
                let operating = *self.session.phase() == Phase::Operating;
                self.client_http.negotiation(init, operating)
            })
        };
        let cx = Context {
            version: self.version,
            legacy,
            live_session: self.client_http.live.as_deref(),
            negotiation,
            listed: &self.client_http.listed,
            stateless: self.version.lifecycle() == Lifecycle::Stateless
                && self.client_http.asked.is_none(),
        };
        let mut found = judge(&cx, via, record);
        if !legacy {
            found.extend(self.client_http.cuts.judge(self.version, at_ms, record));
        }
        for (id, detail) in found {
            out.push(Violation {
                requirement: id,
                detail,
                at_ms,
            });
        }
    }
}

/// What the harness knows when a request record is judged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The case's version.
    version: Version,
    /// Legacy HTTP+SSE rather than Streamable HTTP.
    legacy: bool,
    /// The peer's live session id (Streamable: issued with the answer to
    /// `initialize`; legacy: the SSE stream's), when the record is judged.
    live_session: Option<&'a str>,
    /// The initialize exchange, once the harness answered it with a version
    /// that has the protocol-version header.
    negotiation: Option<Negotiation>,
    /// The tools this side listed (custom headers).
    listed: &'a params::Listed,
    /// The 2026-07-28 request rules apply: the case runs at a stateless
    /// version and the client has not fallen back to the handshake era (it
    /// sent no `initialize`, which the stateless rules allow after its
    /// `server/discover` failed: from then on its requests are handshake-era
    /// ones).
    stateless: bool,
}

impl Context<'_> {
    /// `q` is judged by the 2026-07-28 request rules: see `stateless`. (An
    /// `initialize` POST is the fall-back itself; its record is judged
    /// before its body is seen as a message.)
    fn stateless_request(&self, q: &Req<'_>) -> bool {
        self.stateless && !q.initialize()
    }
}

/// The version the initialize exchange settled on, and whether the client
/// has taken it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Negotiation {
    version: Version,
    /// The client asked for this very version, or has sent
    /// `notifications/initialized` since: it is bound to it.
    binding: bool,
    /// The client has sent `notifications/initialized`.
    confirmed: bool,
}

/// A broken rule: the requirement id and what happened.
type Finding = (&'static Requirement, String);

/// One request as the rules read it: its record, its body (from the
/// record's copy, cut at `RECORD_BODY_MAX`, so a long body may be
/// unreadable here) and how it reads in a detail (`POST #3 (tools/list)`).
struct Req<'a> {
    r: &'a HttpRecord,
    /// The POST body's messages (a batch's readable members).
    items: Vec<Message>,
    batch: bool,
    /// A POST body not readable as JSON-RPC (or cut).
    unreadable: bool,
    label: String,
}

impl<'a> Req<'a> {
    fn new(via: Via, r: &'a HttpRecord) -> Self {
        let (items, batch, unreadable) = match classify(r.request_body.as_bytes()) {
            _ if r.method != "POST" => (Vec::new(), false, false),
            Ok(Inbound::Single(m)) => (vec![m], false, false),
            Ok(Inbound::Batch(items)) => (items.into_iter().flatten().collect(), true, false),
            Err(_) => (Vec::new(), false, true),
        };
        let mut label = match via {
            Via::Post(n) => format!("{} #{n}", r.method),
            _ => r.method.clone(),
        };
        if !items.is_empty() {
            let carried: Vec<String> = items
                .iter()
                .map(|m| match (m.method(), m) {
                    (Some(method), _) => method.to_owned(),
                    (None, Message::Response(resp)) => resp
                        .id
                        .as_ref()
                        .map_or_else(|| "response".to_owned(), |id| format!("response to {id}")),
                    (None, _) => String::new(),
                })
                .collect();
            label = format!("{label} ({})", carried.join(", "));
        }
        Req {
            r,
            items,
            batch,
            unreadable,
            label,
        }
    }

    /// It carries `initialize`, or might (a body cut in the record).
    fn initialize(&self) -> bool {
        self.items.iter().any(|m| m.method() == Some("initialize"))
            || (self.unreadable && self.r.request_body.contains("\"initialize\""))
    }

    /// Only what a client may send before it has the initialize result:
    /// pings, and answers to the server's pings.
    fn early_only(&self) -> bool {
        !self.items.is_empty()
            && self.items.iter().all(|m| match m {
                Message::Request(r) => r.method == "ping",
                Message::Response(_) => true,
                Message::Notification(_) => false,
            })
    }
}

/// Every rule `record` breaks, given what the harness knew (`cx`).
fn judge(cx: &Context<'_>, via: Via, record: &HttpRecord) -> Vec<Finding> {
    let q = Req::new(via, record);
    let path = record.target.split('?').next().unwrap_or_default();
    let token = crate::auth_client::query_token(cx.version, record);
    let mut found = if cx.legacy {
        vec![legacy_post(cx, &q)]
    } else if path != MCP_PATH {
        vec![off_endpoint(cx, &q)]
    } else {
        let mut found = vec![
            accept(cx, &q),
            single_message(cx, &q),
            batch_body(cx, &q),
            session_echo(cx, &q),
            protocol_version(cx, &q),
            routing(cx, &q),
        ];
        if applies(&ids::HTTP_HEADER_PARAM_MIRROR, cx.version) && cx.stateless_request(&q) {
            found.extend(params::judge(cx.listed, &q).into_iter().map(Some));
        }
        found
    };
    found.push(token);
    found.into_iter().flatten().collect()
}

fn applies(id: &'static Requirement, version: Version) -> bool {
    id.applies_to(version)
}

/// `http.post.accept`, `http.get.accept`.
fn accept(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let (id, wanted): (&'static Requirement, &[&str]) = match q.r.method.as_str() {
        "POST" => (
            &ids::HTTP_POST_ACCEPT,
            &["application/json", "text/event-stream"],
        ),
        "GET" => (&ids::HTTP_GET_ACCEPT, &["text/event-stream"]),
        _ => return None,
    };
    let values = header_values(q.r, "accept");
    let missing: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|m| !lists(&values, m))
        .collect();
    if missing.is_empty() || !applies(id, cx.version) {
        return None;
    }
    let sent = match values.as_slice() {
        [] => "no Accept header".to_owned(),
        _ => format!("Accept: {}", values.join(", ")),
    };
    let missing = missing.join(" or ");
    Some((
        id,
        format!("{} sent {sent}, which does not list {missing}", q.label),
    ))
}

/// `http.post.client-post`: a message POSTed beside the MCP endpoint.
/// (Other requests elsewhere — discovery of authorization metadata — are
/// not MCP messages.)
fn off_endpoint(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let id = &ids::HTTP_POST_CLIENT_POST;
    (q.r.method == "POST" && !q.items.is_empty() && applies(id, cx.version)).then(|| {
        let to = &q.r.target;
        (
            id,
            format!(
                "{} went to {to}, not to the MCP endpoint {MCP_PATH}",
                q.label
            ),
        )
    })
}

/// `http.post.single-message`: a batch in a POST body (2025-06-18 on).
fn single_message(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let id = &ids::HTTP_POST_SINGLE_MESSAGE;
    (q.batch && applies(id, cx.version)).then(|| {
        let n = q.items.len();
        (
            id,
            format!(
                "{} carried a JSON-RPC batch of {n} messages, not one message",
                q.label
            ),
        )
    })
}

/// `http.post.batch-body` (2025-03-26): a batch in a POST body holds
/// requests and notifications, or responses, never both.
fn batch_body(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let id = &ids::HTTP_POST_BATCH_BODY;
    let responses = q
        .items
        .iter()
        .filter(|m| matches!(m, Message::Response(_)))
        .count();
    let mixed = responses > 0 && responses < q.items.len();
    (q.batch && mixed && applies(id, cx.version)).then(|| {
        (
            id,
            format!(
                "{} carried a batch mixing {responses} responses with {} requests or notifications",
                q.label,
                q.items.len() - responses
            ),
        )
    })
}

/// `http.session.client-echo`, on the peer's verdict (see the module docs).
fn session_echo(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let id = &ids::HTTP_SESSION_CLIENT_ECHO;
    if !applies(id, cx.version) || q.r.response_header(SESSION_HEADER).is_some() {
        return None; // not a session version, or this request opened the session
    }
    // None issued, or it ended: nothing to echo.
    let live = cx.live_session?;
    let detail = match (q.r.status, q.r.request_header(SESSION_HEADER)) {
        // A POST's 400 may be about its body instead, when that is unreadable.
        (Some(400), None) if !q.unreadable => format!(
            "{} carried no Mcp-Session-Id, though the server issued {live:?} with its initialize answer (refused with 400)",
            q.label
        ),
        (Some(404), Some(sent)) if sent != live => format!(
            "{} carried Mcp-Session-Id {sent:?}, not the session's {live:?} (refused with 404)",
            q.label
        ),
        _ => return None,
    };
    Some((id, detail))
}

/// `http.header.protocol-version` and `http.header.version-matches-meta`.
fn protocol_version(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let id = &ids::HTTP_HEADER_PROTOCOL_VERSION;
    if !applies(id, cx.version) {
        return None;
    }
    let sent = q.r.request_header(VERSION_HEADER).map(str::trim);
    let label = &q.label;
    if let (true, [Message::Request(req)]) = (cx.stateless_request(q), q.items.as_slice()) {
        // Every request names its version, in `_meta` and in the header
        // (notification POSTs have no header rule in 2026-07-28).
        if let Some(meta) = meta_version(req.params.as_ref()) {
            let matches = &ids::HTTP_HEADER_VERSION_MATCHES_META;
            return match sent {
                None => Some((
                    id,
                    format!(
                        "{label} carried no MCP-Protocol-Version header (its _meta names {meta})"
                    ),
                )),
                Some(v) if v != meta && applies(matches, cx.version) => Some((
                    matches,
                    format!(
                        "{label} carried MCP-Protocol-Version {v:?}, but its _meta names {meta:?}"
                    ),
                )),
                Some(_) => None,
            };
        }
    }
    // Nothing negotiated yet that binds the client; or a request from
    // before it could know the version.
    let n = cx.negotiation.filter(|n| n.binding)?;
    if q.initialize() || (!n.confirmed && q.early_only()) {
        return None;
    }
    let want = n.version.as_str();
    match sent {
        None => Some((
            id,
            format!("{label} carried no MCP-Protocol-Version header; {want} was negotiated"),
        )),
        // The header is a MUST; naming the negotiated version, a SHOULD.
        Some(v) if v != want => Some((
            &ids::HTTP_HEADER_PROTOCOL_VERSION_NEGOTIATED,
            format!("{label} carried MCP-Protocol-Version {v:?}, not the negotiated {want}"),
        )),
        Some(_) => None,
    }
}

/// `http.header.method`: the routing headers of a 2026-07-28 request
/// (`basic/transports/streamable-http#standard-request-headers`). Values
/// are compared as HTTP reads them (surrounding whitespace is not part of
/// a value) and case-sensitively; an `Mcp-Name` in the Base64 sentinel
/// form is decoded first.
fn routing(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let id = &ids::HTTP_HEADER_METHOD;
    let [Message::Request(req)] = q.items.as_slice() else {
        return None;
    };
    if !applies(id, cx.version) || !cx.stateless_request(q) {
        return None;
    }
    let label = &q.label;
    let method = req.method.as_str();
    let detail = match q.r.request_header(METHOD_HEADER).map(str::trim) {
        None => format!("{label} carried no Mcp-Method header"),
        Some(sent) if sent != method => {
            format!("{label} carried Mcp-Method {sent:?}, not its method {method:?}")
        }
        Some(_) => {
            let member = match method {
                "tools/call" | "prompts/get" => "name",
                "resources/read" => "uri",
                _ => return None,
            };
            let want = req.params.as_ref()?.get(member)?.as_str()?;
            match q.r.request_header(NAME_HEADER).map(str::trim) {
                None => format!("{label} carried no Mcp-Name header (params.{member} is {want:?})"),
                Some(sent) if decode_sentinel(sent).as_deref() == Some(want) => return None,
                Some(sent) => format!(
                    "{label} carried Mcp-Name {sent:?}, which does not give its params.{member} {want:?}"
                ),
            }
        }
    };
    Some((id, detail))
}

/// A header value with the Base64 sentinel form (`=?base64?…?=`) decoded;
/// `None` when that does not decode to UTF-8.
fn decode_sentinel(value: &str) -> Option<String> {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(coded) => String::from_utf8(STANDARD.decode(coded).ok()?).ok(),
        None => Some(value.to_owned()),
    }
}

/// `sse.client-post`: after the `endpoint` event every message is POSTed to
/// its URI. Judged on POSTs the peer refused while a legacy session is live
/// (an accepted one went where it should; before the stream opened a POST
/// may be a Streamable HTTP probe, which the spec's fallback expects).
fn legacy_post(cx: &Context<'_>, q: &Req<'_>) -> Option<Finding> {
    let id = &ids::SSE_CLIENT_POST;
    let r = q.r;
    let live = cx.live_session?;
    if r.method != "POST" || !applies(id, cx.version) || r.status.is_some_and(|s| s < 300) {
        return None;
    }
    let (path, query) = r.target.split_once('?').unwrap_or((&r.target, ""));
    let session = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find_map(|(k, v)| (k == "session").then_some(v));
    if path == LEGACY_POST_PATH && session == Some(live) {
        return None; // the right URI, refused for another reason
    }
    let endpoint = format!("{LEGACY_POST_PATH}?session={live}");
    let to = &r.target;
    Some((
        id,
        format!(
            "{} went to {to}, not to the URI of the endpoint event ({endpoint})",
            q.label
        ),
    ))
}

/// Every value of a request header (a header may be repeated).
fn header_values<'a>(r: &'a HttpRecord, name: &str) -> Vec<&'a str> {
    r.request_headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
        .collect()
}

/// Whether Accept values list `media` by name (case-insensitively, with
/// any parameters) and do not refuse it with `q=0`. A wildcard does not
/// list it: the rule asks for both types by name.
fn lists(values: &[&str], media: &str) -> bool {
    values.iter().flat_map(|v| v.split(',')).any(|range| {
        let mut parts = range.split(';');
        let name = parts.next().unwrap_or_default().trim();
        let refused = parts.any(|p| {
            p.split_once('=').is_some_and(|(k, v)| {
                k.trim().eq_ignore_ascii_case("q")
                    && v.trim().parse::<f64>().is_ok_and(|q| q == 0.0)
            })
        });
        name.eq_ignore_ascii_case(media) && !refused
    })
}

/// The protocol version a request names in `params._meta`.
fn meta_version(params: Option<&Value>) -> Option<&str> {
    params?.get("_meta")?.get(META_PROTOCOL_VERSION)?.as_str()
}

mod params;
mod resume;
#[cfg(test)]
mod tests;
