//! The routing headers of a 2026-07-28 POST (SEP-2243,
//! `basic/transports/streamable-http#standard-request-headers`): the
//! JSON-RPC method in `Mcp-Method`, the tool, prompt or resource a
//! `tools/call`, `prompts/get` or `resources/read` targets in `Mcp-Name`,
//! and the version the request's `_meta` names in `MCP-Protocol-Version`.
//!
//! A value that is not plain header-safe ASCII (characters outside visible
//! ASCII and inner spaces or tabs, whitespace at either end) or that looks
//! like the sentinel itself goes out in the Base64 sentinel form
//! `=?base64?…?=` (`#value-encoding`); `Mcp-Method` and the version are
//! left out instead when they are not plain (method names and versions
//! defined by the spec always are).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

/// The first version whose POSTs carry `Mcp-Method` (and `Mcp-Name`).
pub(super) const STATELESS_SINCE: &str = "2026-07-28";

/// The routing headers of `body`: nothing for a body that is not one
/// message with a method (a batch, a response, unreadable bytes).
pub(super) fn routing_headers(body: &[u8]) -> Vec<(&'static str, String)> {
    use mcpspec_wire::{classify, Inbound, Message};
    let (method, params) = match classify(body) {
        Ok(Inbound::Single(Message::Request(r))) => (r.method, r.params),
        Ok(Inbound::Single(Message::Notification(n))) => (n.method, n.params),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    if plain(&method) {
        out.push(("mcp-method", method.clone()));
    }
    // The header names the version the request itself names (they must agree).
    if let Some(v) = params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(|v| v.as_str())
    {
        if plain(v) {
            out.push(("mcp-protocol-version", v.to_owned()));
        }
    }
    let target = match method.as_str() {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return out,
    };
    if let Some(name) = params
        .as_ref()
        .and_then(|p| p.get(target))
        .and_then(|v| v.as_str())
    {
        out.push(("mcp-name", header_value(name)));
    }
    out
}

/// `value` as it may go out in a header: itself when plain, else in the
/// Base64 sentinel form.
pub(crate) fn header_value(value: &str) -> String {
    if plain(value) && !sentinel(value) {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(value.as_bytes()))
    }
}

/// Visible ASCII with inner spaces or tabs, nothing at either end that
/// HTTP field parsing would strip; not empty.
fn plain(value: &str) -> bool {
    let visible = |b: u8| (0x21..0x7f).contains(&b);
    let bytes = value.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => {
            visible(first)
                && visible(last)
                && bytes.iter().all(|&b| visible(b) || b == b' ' || b == b'\t')
        }
        _ => false,
    }
}

/// Looks like an encoded value already: sent encoded, so it is not taken
/// for one.
fn sentinel(value: &str) -> bool {
    value.starts_with("=?base64?") && value.ends_with("?=")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_that_are_not_plain_are_encoded() {
        // The spec's examples (streamable-http#value-encoding).
        assert_eq!(header_value("us-west1"), "us-west1");
        assert_eq!(header_value("us west 1"), "us west 1");
        assert_eq!(
            header_value("Hello, \u{4e16}\u{754c}"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(header_value(""), "=?base64??=");
    }
}
