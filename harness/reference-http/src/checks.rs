//! Header rules of the HTTP transports, and the responses that reject a
//! request.
//!
//! - **Origin** (DNS rebinding, `http.security.origin`, `…origin-403`): a
//!   request that carries an `Origin` whose host is not `localhost`,
//!   `127.0.0.1` or `[::1]` (or that is `null` or unparseable) → 403.
//!   Requests without `Origin` (non-browser clients) pass.
//! - **Accept** on POST: must list both `application/json` and
//!   `text/event-stream` (the client MUST, `http.post.accept`); on GET
//!   `text/event-stream`. Wildcards do not count: the rule asks for the two
//!   types to be listed. Otherwise 406.
//! - **Content-Type** on POST: `application/json` (parameters allowed), else 415.
//! - **MCP-Protocol-Version** (2025-06-18 on, `basic/transports#protocol-version-header`):
//!   "If the server receives a request with an invalid or unsupported
//!   MCP-Protocol-Version, it MUST respond with 400 Bad Request." The header
//!   is checked on every request of a session negotiated at 2025-06-18 or
//!   later, when present: a value that is not one of the versions this server
//!   negotiates → 400. A missing header is accepted: the spec has the server
//!   assume 2025-03-26 only when it "has no other way to identify the
//!   version", and a session knows its negotiated one. A different but
//!   supported version is accepted too (it is neither invalid nor
//!   unsupported). Sessions at 2025-03-26 or older ignore the header, which
//!   their version does not define; so does `initialize` (the header is for
//!   the requests after it).
//!
//! Error responses carry a JSON-RPC error body with `id: null` and code
//! -32000, so that a client sees why.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use mcpspec_engine::Version;
use mcpspec_reference::HANDSHAKE_VERSIONS;
use serde_json::json;

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";
pub(crate) const LAST_EVENT_ID: &str = "last-event-id";

pub(crate) const JSON: &str = "application/json";
pub(crate) const EVENT_STREAM: &str = "text/event-stream";

/// True when the request has no `Origin`, or one on this machine.
pub(crate) fn origin_allowed(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let Some((_scheme, rest)) = origin.trim().split_once("://") else {
        return false; // includes the opaque origin "null"
    };
    let authority = rest.split('/').next().unwrap_or("");
    let host = if authority.starts_with('[') {
        authority
            .find(']')
            .map_or(authority, |end| &authority[..=end])
    } else {
        authority.split(':').next().unwrap_or("")
    };
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "[::1]"
    )
}

/// The media types an `Accept` lists, lowercased, without parameters.
fn accepted(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|range| {
            range
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect()
}

pub(crate) fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    accepted(headers).iter().any(|t| t == media_type)
}

pub(crate) fn content_type_is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case(JSON))
}

pub(crate) fn header_string(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// `Some(reason)` when a session at `negotiated` must reject this
/// `MCP-Protocol-Version` value with 400.
pub(crate) fn bad_version_header(negotiated: Version, header: Option<&str>) -> Option<String> {
    if negotiated < Version::V2025_06_18 {
        return None;
    }
    let value = header?;
    match value.parse::<Version>() {
        Ok(v) if HANDSHAKE_VERSIONS.contains(&v) => None,
        Ok(v) => Some(format!(
            "Bad Request: unsupported MCP-Protocol-Version {v} (supported: {})",
            supported_list()
        )),
        Err(_) => Some(format!(
            "Bad Request: invalid MCP-Protocol-Version {value:?} (supported: {})",
            supported_list()
        )),
    }
}

fn supported_list() -> String {
    HANDSHAKE_VERSIONS
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An HTTP error with a JSON-RPC error body (`id: null`, code -32000).
pub(crate) fn reject(status: StatusCode, message: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32000, "message": message },
    });
    json_response(status, body.to_string().into_bytes(), JSON)
}

/// A complete JSON body.
pub(crate) fn json_response(status: StatusCode, body: Vec<u8>, content_type: &str) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    if let Ok(v) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}

/// A status with no body at all (202 Accepted, 200 after DELETE, 500).
pub(crate) fn empty(status: StatusCode) -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = status;
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn origins() {
        assert!(origin_allowed(&HeaderMap::new()));
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443/",
            "http://[::1]:9",
            "HTTP://LOCALHOST",
        ] {
            assert!(origin_allowed(&with(header::ORIGIN, ok)), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example:80",
            "null",
            "localhost",
            "http://[::2]",
        ] {
            assert!(!origin_allowed(&with(header::ORIGIN, bad)), "{bad}");
        }
    }

    #[test]
    fn accept_lists() {
        let h = with(header::ACCEPT, "application/json;q=0.9, Text/Event-Stream");
        assert!(accepts(&h, JSON) && accepts(&h, EVENT_STREAM));
        let h = with(header::ACCEPT, "*/*");
        assert!(!accepts(&h, JSON));
    }

    #[test]
    fn content_types() {
        let h = with(header::CONTENT_TYPE, "application/json; charset=utf-8");
        assert!(content_type_is_json(&h));
        assert!(!content_type_is_json(&with(
            header::CONTENT_TYPE,
            "text/plain"
        )));
        assert!(!content_type_is_json(&HeaderMap::new()));
    }

    #[test]
    fn version_header() {
        let v = Version::V2025_06_18;
        assert_eq!(bad_version_header(v, None), None);
        assert_eq!(bad_version_header(v, Some("2025-03-26")), None);
        assert!(bad_version_header(v, Some("1999-01-01")).is_some());
        assert!(bad_version_header(v, Some("2026-07-28")).is_some());
        assert!(bad_version_header(v, Some("banana")).is_some());
        assert_eq!(
            bad_version_header(Version::V2025_03_26, Some("banana")),
            None
        );
    }
}
