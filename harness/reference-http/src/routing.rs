//! The routing headers of a 2026-07-28 POST (SEP-2243,
//! `basic/transports/streamable-http#standard-request-headers`): every
//! request names its JSON-RPC method in `Mcp-Method`, and `tools/call`,
//! `prompts/get` and `resources/read` name their target (`params.name`,
//! `params.uri`) in `Mcp-Name`. Intermediaries route on them, so a server
//! that reads the body must refuse a request whose headers are missing or
//! disagree with it (`#server-validation`): HTTP 400, error -32020.
//!
//! - Header *names* are case-insensitive (the HTTP layer lowercases them);
//!   header *values* are compared case-sensitively (`#case-sensitivity`).
//! - Surrounding whitespace is not part of a field value (RFC 9110 §5.5):
//!   the HTTP parser drops it before this module sees the value.
//! - A value in the Base64 sentinel form `=?base64?…?=` is decoded before
//!   it is compared (`#value-encoding`); one that does not decode, or a value
//!   with bytes outside visible ASCII, space and tab, is malformed.
//!
//! - `tools/call` of a tool that marks parameters with `x-mcp-header`
//!   (SEP-2243 custom headers, the reference's `region_echo`): each marked
//!   argument present in the body must come in its `Mcp-Param-{Name}`
//!   header too, well-formed, and equal once decoded (`param_refusal`).
//!
//! Faults: `http-method-header-optional` serves a request without
//! `Mcp-Method`; `http-method-header-case-insensitive` compares the method
//! ignoring ASCII case; `http-name-header-unchecked` never looks at
//! `Mcp-Name`; `http-name-header-not-decoded` compares a Base64-encoded
//! `Mcp-Name` as it came. `http-param-header-unchecked` never looks at
//! `Mcp-Param-*`; `http-param-header-not-decoded` compares them as they
//! came. (`http-header-meta-mismatch-accepted` lets every mismatch through,
//! as before.)

use axum::http::HeaderMap;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use mcpspec_engine::{param_headers, Version};
use mcpspec_reference::{offer, Fault};
use mcpspec_wire::{classify, Inbound, Message, Request};
use serde_json::{json, Value};

use crate::App;

pub(crate) const METHOD_HEADER: &str = "mcp-method";
pub(crate) const NAME_HEADER: &str = "mcp-name";

/// Builds a refusal: the header, the value sent, the body's value, why.
type Refuse<'a> = dyn Fn(&str, Option<&str>, &str, String) -> Refusal + 'a;

/// Why a request's routing headers are refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The request's id, for the error response.
    pub(crate) id: Value,
    pub(crate) message: String,
    pub(crate) data: Value,
}

/// The body member `Mcp-Name` mirrors for `method`, if it has one.
pub(crate) fn name_source(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// A header value as the server compares it: `None` when it is malformed
/// (bytes outside visible ASCII, space and tab; a sentinel that does not
/// decode to UTF-8).
pub(crate) fn decoded(raw: &[u8]) -> Option<String> {
    if raw
        .iter()
        .any(|&b| b != b'\t' && !(0x20..0x7f).contains(&b))
    {
        return None;
    }
    let text = std::str::from_utf8(raw).ok()?.trim_matches([' ', '\t']);
    match text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        Some(coded) => String::from_utf8(STANDARD.decode(coded).ok()?).ok(),
        None => Some(text.to_owned()),
    }
}

/// `Some` when the single request in `body` must be refused for its
/// `Mcp-Method` or `Mcp-Name` header. Not a request (a notification, a
/// response, a batch): nothing to check here.
pub(crate) fn refusal(app: &App, headers: &HeaderMap, body: &[u8]) -> Option<Refusal> {
    if app.has(Fault::HttpHeaderMetaMismatchAccepted) {
        return None;
    }
    let Ok(Inbound::Single(Message::Request(req))) = classify(body) else {
        return None;
    };
    let id = req.id.to_value();
    let refuse = move |header: &str, sent: Option<&str>, want: &str, why: String| Refusal {
        id: id.clone(),
        message: format!("header mismatch: {why}"),
        data: json!({ "header": header, "value": sent, "body": want }),
    };
    let method = req.method.as_str();
    match headers
        .get(METHOD_HEADER)
        .map(|v| decoded_method(v.as_bytes()))
    {
        None if app.has(Fault::HttpMethodHeaderOptional) => {}
        None => {
            let why = format!("Mcp-Method is required and must be {method:?}");
            return Some(refuse("Mcp-Method", None, method, why));
        }
        Some(None) => {
            let why = "Mcp-Method carries characters a header value may not".to_owned();
            return Some(refuse("Mcp-Method", None, method, why));
        }
        Some(Some(sent)) => {
            let same = if app.has(Fault::HttpMethodHeaderCaseInsensitive) {
                sent.eq_ignore_ascii_case(method)
            } else {
                sent == method
            };
            if !same {
                let why = format!("Mcp-Method {sent:?} differs from the body's method {method:?}");
                return Some(refuse("Mcp-Method", Some(&sent), method, why));
            }
        }
    }
    if !app.has(Fault::HttpNameHeaderUnchecked) {
        if let Some(r) = name_refusal(app, headers, &req, &refuse) {
            return Some(r);
        }
    }
    param_refusal(app, headers, &req, &refuse)
}

/// The `Mcp-Name` check of `tools/call`, `prompts/get`, `resources/read`.
fn name_refusal(
    app: &App,
    headers: &HeaderMap,
    req: &Request,
    refuse: &Refuse<'_>,
) -> Option<Refusal> {
    let method = req.method.as_str();
    let member = name_source(method)?;
    let want = req.params.as_ref()?.get(member)?.as_str()?;
    let read = |raw: &[u8]| {
        if app.has(Fault::HttpNameHeaderNotDecoded) {
            decoded_method(raw)
        } else {
            decoded(raw)
        }
    };
    let why = match headers.get(NAME_HEADER).map(|v| read(v.as_bytes())) {
        None => {
            format!("Mcp-Name is required for {method} and must carry params.{member} {want:?}")
        }
        Some(None) => "Mcp-Name is malformed (invalid characters or Base64)".to_owned(),
        Some(Some(sent)) if sent == want => return None,
        Some(Some(sent)) => {
            format!("Mcp-Name {sent:?} differs from the body's params.{member} {want:?}")
        }
    };
    let sent = headers
        .get(NAME_HEADER)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    Some(refuse("Mcp-Name", sent.as_deref(), want, why))
}

/// The `Mcp-Param-{Name}` checks of a `tools/call` whose tool marks
/// parameters with `x-mcp-header` (`#server-behavior-for-custom-headers`):
/// an argument present in the body (not `null`) needs its header, which
/// must be well-formed and, decoded, carry the same value (integers
/// compared as numbers). An absent argument owes no header.
fn param_refusal(
    app: &App,
    headers: &HeaderMap,
    req: &Request,
    refuse: &Refuse<'_>,
) -> Option<Refusal> {
    if req.method != "tools/call" || app.has(Fault::HttpParamHeaderUnchecked) {
        return None;
    }
    let params = req.params.as_ref()?;
    let tool = params.get("name")?.as_str()?;
    let schema = offer::input_schema(Version::V2026_07_28, tool)?;
    let marked = param_headers::annotations(&schema).ok()?;
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    for a in &marked {
        let Some(value) = a.value_in(&arguments) else {
            continue;
        };
        let header = a.header();
        let want = param_headers::text_of(value).unwrap_or_else(|| value.to_string());
        let raw = headers.get(header.to_ascii_lowercase().as_str());
        let sent = raw.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let read = |raw: &[u8]| {
            if app.has(Fault::HttpParamHeaderNotDecoded) {
                decoded_method(raw)
            } else {
                param_headers::decode(raw)
            }
        };
        let at = a.path.join(".");
        let why = match raw.map(|v| read(v.as_bytes())) {
            None => format!("{header} is required: the body's arguments.{at} is {want:?}"),
            Some(None) => format!("{header} is malformed (invalid characters or Base64)"),
            Some(Some(got)) if param_headers::agrees(&got, value) => continue,
            Some(Some(got)) => {
                format!("{header} {got:?} differs from the body's arguments.{at} {want:?}")
            }
        };
        return Some(refuse(&header, sent.as_deref(), &want, why));
    }
    None
}

/// A value taken as it came, whitespace aside: `Mcp-Method` is never
/// Base64-encoded (method names are ASCII).
fn decoded_method(raw: &[u8]) -> Option<String> {
    if raw
        .iter()
        .any(|&b| b != b'\t' && !(0x20..0x7f).contains(&b))
    {
        return None;
    }
    Some(
        std::str::from_utf8(raw)
            .ok()?
            .trim_matches([' ', '\t'])
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_decode() {
        assert_eq!(decoded(b"echo").as_deref(), Some("echo"));
        assert_eq!(decoded(b"  echo\t").as_deref(), Some("echo"));
        assert_eq!(
            decoded(b"=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, \u{4e16}\u{754c}")
        );
        assert_eq!(decoded(b"=?base64?not base64!?="), None);
        assert_eq!(decoded(b"=?base64?/w==?="), None, "not UTF-8");
        assert_eq!(decoded("caf\u{e9}".as_bytes()), None);
        assert_eq!(decoded(b"a\x01b"), None);
        // The markers are case-sensitive: anything else is a literal.
        assert_eq!(
            decoded(b"=?BASE64?YQ==?=").as_deref(),
            Some("=?BASE64?YQ==?=")
        );
    }

    #[test]
    fn name_sources() {
        assert_eq!(name_source("tools/call"), Some("name"));
        assert_eq!(name_source("prompts/get"), Some("name"));
        assert_eq!(name_source("resources/read"), Some("uri"));
        assert_eq!(name_source("tools/list"), None);
    }
}
