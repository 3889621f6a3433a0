//! A gate in front of the peer's endpoints: a scripted authorization layer
//! (the runner's protected mode) sees every request first and may answer it
//! itself — a 401 for an MCP request without a valid token, the metadata
//! documents, the authorization server's endpoints — or let it through to
//! the MCP endpoints.
//!
//! ```text
//!   request ─► body read ─► Gate::answer ─► Some(reply): answered here, recorded as Via::Raw(n)
//!                                      └──► None: routed as without a gate (POST /mcp …)
//! ```
//!
//! The gate judges nothing: it is a script. What it saw is its owner's to
//! keep (the runner binds it for the scenario's checks). The request it is
//! shown carries the headers unredacted (a harness-issued token is no
//! secret); the record the peer emits redacts them as always.

use std::fmt::Debug;

use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::http::request::Parts;
use hyper::StatusCode;

/// One request as the gate sees it.
#[derive(Debug, Clone)]
pub struct GateRequest<'a> {
    /// `GET`, `POST`, …
    pub method: &'a str,
    /// The path, without the query.
    pub path: &'a str,
    /// The raw query, if any.
    pub query: Option<&'a str>,
    /// Every header, names in lower case, values as sent (lossy UTF-8).
    pub headers: Vec<(String, String)>,
    pub body: &'a [u8],
    /// This peer's origin, `http://127.0.0.1:PORT`.
    pub origin: &'a str,
}

impl GateRequest<'_> {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The gate's own answer to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl GateReply {
    /// A reply with a JSON body.
    pub fn json(status: u16, body: &serde_json::Value) -> GateReply {
        GateReply {
            status,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: body.to_string().into_bytes(),
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> GateReply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// What sits in front of the peer's endpoints.
pub trait Gate: Send + Sync + Debug {
    /// `Some`: the request is answered with this and goes no further;
    /// `None`: it reaches the MCP endpoints.
    fn answer(&self, request: &GateRequest<'_>) -> Option<GateReply>;

    /// Static client credentials (client id, client secret) the client under
    /// test is handed through `{client_id}` and `{client_secret}` in its
    /// command line, when the gate plays an authorization server that
    /// registered it beforehand; `None`: the placeholders expand to nothing.
    fn client_credentials(&self) -> Option<(String, String)> {
        None
    }
}

/// Shows `gate` the request (its body read whole) that reached the peer on
/// `port`; its answer as hyper's parts, if it gives one. A header it names
/// that HTTP cannot carry is left out.
pub(super) fn ask(
    gate: &dyn Gate,
    port: u16,
    parts: &Parts,
    body: &[u8],
) -> Option<(StatusCode, HeaderMap, Vec<u8>)> {
    let origin = format!("http://127.0.0.1:{port}");
    let request = GateRequest {
        method: parts.method.as_str(),
        path: parts.uri.path(),
        query: parts.uri.query(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
        origin: &origin,
    };
    let answer = gate.answer(&request)?;
    let mut headers = HeaderMap::new();
    for (name, value) in &answer.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            headers.append(n, v);
        }
    }
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    Some((status, headers, answer.body))
}
