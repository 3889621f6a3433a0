//! SEP-2243 custom headers (2026-07-28): the `Mcp-Param-{Name}` headers a
//! client adds to a `tools/call` of a tool whose `inputSchema` marks
//! parameters with `x-mcp-header`
//! (`basic/transports/streamable-http#custom-headers-from-tool-parameters`).
//!
//! The transport does not read tool listings: whoever drives the session
//! tells it the annotations of the tools it kept
//! ([`super::HttpSession::set_param_tools`]). Each annotated argument present
//! in the call (and not `null`) goes out in its header, in the Base64
//! sentinel form when it is not a safe plain value
//! ([`mcpspec_engine::param_headers::encode`]); an absent one has no header.

use std::collections::BTreeMap;

use mcpspec_engine::param_headers::{encode, text_of, Annotation};
use mcpspec_wire::{classify, Inbound, Message};
use serde_json::Value;

/// The annotated parameters of each tool, by tool name.
pub type ParamTools = BTreeMap<String, Vec<Annotation>>;

/// The `Mcp-Param-*` headers of `body` (nothing unless it is one
/// `tools/call` of a known tool). `plain`: values as they are, never
/// encoded (a deliberate violation; values no header can carry are left out).
pub(super) fn param_headers(tools: &ParamTools, body: &[u8], plain: bool) -> Vec<(String, String)> {
    let Ok(Inbound::Single(Message::Request(r))) = classify(body) else {
        return Vec::new();
    };
    if r.method != "tools/call" {
        return Vec::new();
    }
    let Some(params) = r.params.as_ref() else {
        return Vec::new();
    };
    let Some(marked) = params
        .get("name")
        .and_then(Value::as_str)
        .and_then(|name| tools.get(name))
    else {
        return Vec::new();
    };
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    marked
        .iter()
        .filter_map(|a| {
            let text = text_of(a.value_in(&arguments)?)?;
            let value = if plain { text } else { encode(&text) };
            Some((a.header(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::param_headers::annotations;
    use serde_json::json;

    fn tools() -> ParamTools {
        let schema = json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "greeting": { "type": "string", "x-mcp-header": "Greeting" },
            "n": { "type": "integer", "x-mcp-header": "N" },
            "query": { "type": "string" }
        } });
        let mut t = ParamTools::new();
        t.insert("t".into(), annotations(&schema).expect("valid"));
        t
    }

    fn call(name: &str, arguments: Value) -> Vec<u8> {
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": { "name": name, "arguments": arguments } })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn annotated_arguments_are_mirrored_and_encoded() {
        let body = call(
            "t",
            json!({ "region": "us-west1", "greeting": "Hello, \u{4e16}\u{754c}", "n": 42, "query": "q" }),
        );
        let mut got = param_headers(&tools(), &body, false);
        got.sort();
        assert_eq!(
            got,
            vec![
                (
                    "Mcp-Param-Greeting".to_owned(),
                    "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
                ),
                ("Mcp-Param-N".to_owned(), "42".to_owned()),
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
            ]
        );
        let plain = param_headers(&tools(), &body, true);
        assert!(plain.contains(&(
            "Mcp-Param-Greeting".to_owned(),
            "Hello, \u{4e16}\u{754c}".to_owned()
        )));
    }

    #[test]
    fn absent_null_and_unknown_give_nothing() {
        let body = call("t", json!({ "region": null }));
        assert!(param_headers(&tools(), &body, false).is_empty());
        assert!(
            param_headers(&tools(), &call("other", json!({ "region": "x" })), false).is_empty()
        );
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(param_headers(&tools(), list, false).is_empty());
    }
}
