//! SEP-2243 custom headers, judged on a 2026-07-28 client over Streamable
//! HTTP (`basic/transports/streamable-http#custom-headers-from-tool-parameters`).
//!
//! The judge remembers the tools this side listed (its answers to the
//! client's `tools/list`), each with its `x-mcp-header` annotations or the
//! reason they are invalid ([`mcpspec_engine::param_headers`]). On each
//! `tools/call` of such a tool:
//!
//! | rule | what is checked |
//! |---|---|
//! | `http.header.client-rejects-invalid-tools` | the tool was not listed with invalid annotations (a client drops such tools, so never calls them) |
//! | `http.header.param-mirror` | each annotated argument present (not `null`) comes in its `Mcp-Param-{Name}` header carrying the same value; an absent one has no header |
//! | `http.header.value-encoding` | a value that is not a safe plain header value (non-ASCII, control characters, surrounding whitespace, the sentinel's look) comes in the Base64 sentinel form, which decodes to it |
//!
//! Values are compared as HTTP reads them (surrounding whitespace is not
//! part of a field value), so a plain value with surrounding spaces can
//! only be carried encoded. A client may encode a safe value too.

use std::collections::{BTreeMap, HashSet};

use mcpspec_engine::ids;
use mcpspec_engine::param_headers::{
    agrees, annotations, decode, is_sentinel, needs_encoding, text_of, Annotation,
};
use mcpspec_wire::{Id, Message, Request};
use serde_json::Value;

use super::{Finding, Req};

/// What the judge knows of the tools this side listed.
#[derive(Debug, Default)]
pub(crate) struct Listed {
    /// The client's `tools/list` requests not yet answered.
    asked: HashSet<Id>,
    /// Each listed tool's annotations, or why they are invalid.
    tools: BTreeMap<String, Result<Vec<Annotation>, String>>,
}

impl Listed {
    /// A message of the client's.
    pub(crate) fn received(&mut self, msg: &Message) {
        if let Message::Request(r) = msg {
            if r.method == "tools/list" {
                self.asked.insert(r.id.clone());
            }
        }
    }

    /// A message of this side's: an answer to the client's `tools/list`.
    pub(crate) fn sent(&mut self, msg: &Message) {
        let Message::Response(r) = msg else { return };
        let Some(id) = &r.id else { return };
        if !self.asked.remove(id) {
            return;
        }
        let Ok(result) = &r.outcome else { return };
        for tool in result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("inputSchema"),
            ) else {
                continue;
            };
            self.tools.insert(name.to_owned(), annotations(schema));
        }
    }
}

/// The custom-header rules `q` breaks, if it is a `tools/call` of a listed tool.
pub(super) fn judge(listed: &Listed, q: &Req<'_>) -> Vec<Finding> {
    let [Message::Request(req)] = q.items.as_slice() else {
        return Vec::new();
    };
    if req.method != "tools/call" {
        return Vec::new();
    }
    let Some(tool) = req
        .params
        .as_ref()
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
    else {
        return Vec::new();
    };
    let label = &q.label;
    match listed.tools.get(tool) {
        None => Vec::new(),
        Some(Err(why)) => vec![(
            &ids::HTTP_HEADER_CLIENT_REJECTS_INVALID_TOOLS,
            format!("{label} called tool {tool:?}, listed with an invalid x-mcp-header ({why}); a client must drop such a tool"),
        )],
        Some(Ok(marked)) => marked
            .iter()
            .filter_map(|a| mirrored(q, req, a))
            .collect(),
    }
}

/// The finding for one annotated parameter, if its header is wrong.
fn mirrored(q: &Req<'_>, req: &Request, a: &Annotation) -> Option<Finding> {
    let label = &q.label;
    let header = a.header();
    let at = a.path.join(".");
    let arguments = req
        .params
        .as_ref()
        .and_then(|p| p.get("arguments"))
        .unwrap_or(&Value::Null);
    let sent =
        q.r.request_header(&header)
            .map(|v| v.trim_matches([' ', '\t']));
    let value = a.value_in(arguments);
    let mirror = &ids::HTTP_HEADER_PARAM_MIRROR;
    let (value, sent) = match (value, sent) {
        (None, None) => return None,
        (None, Some(s)) => {
            return Some((
                mirror,
                format!("{label} carried {header}: {s:?}, though arguments.{at} is absent or null (the header must be left out)"),
            ))
        }
        (Some(v), None) => {
            return Some((
                mirror,
                format!("{label} carried no {header} header, though arguments.{at} is {v}"),
            ))
        }
        (Some(v), Some(s)) => (v, s),
    };
    // Non-primitive values are the tool definition's problem, not the header's.
    let text = text_of(value)?;
    if needs_encoding(&text) && !is_sentinel(sent) {
        return Some((
            &ids::HTTP_HEADER_VALUE_ENCODING,
            format!("{label} carried {header}: {sent:?} for arguments.{at} {text:?}, which is not a safe plain header value and must go in the =?base64?...?= form"),
        ));
    }
    match decode(sent.as_bytes()) {
        None => Some((
            &ids::HTTP_HEADER_VALUE_ENCODING,
            format!("{label} carried {header}: {sent:?}, which is not a well-formed header value (characters, or Base64 of UTF-8)"),
        )),
        Some(got) if agrees(&got, value) => None,
        Some(got) => Some((
            mirror,
            format!("{label} carried {header}: {sent:?} (read as {got:?}), not arguments.{at} {text:?}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_wire::event::{HttpRecord, Via};
    use serde_json::json;

    fn listed() -> Listed {
        let mut l = Listed::default();
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        l.received(&mcpspec_wire::classify_value(&list).expect("a request"));
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "t", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "flag": {"type": "boolean", "x-mcp-header": "Flag"}}}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {
                "s": {"type": "number", "x-mcp-header": "S"}}}}
        ]}});
        l.sent(&mcpspec_wire::classify_value(&answer).expect("a response"));
        l
    }

    fn found(tool: &str, arguments: Value, headers: &[(&str, &str)]) -> Vec<&'static str> {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let record = HttpRecord {
            method: "POST".to_owned(),
            target: "/mcp".to_owned(),
            request_headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            request_body: body.to_string(),
            status: Some(200),
            ..HttpRecord::default()
        };
        let q = Req::new(Via::Post(1), &record);
        judge(&listed(), &q)
            .into_iter()
            .map(|(r, _)| r.id)
            .collect()
    }

    #[test]
    fn conformant_headers_pass() {
        let args = json!({"region": "Hello, \u{4e16}\u{754c}", "n": 42, "flag": false});
        let headers = [
            ("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("mcp-param-n", "42"),
            ("MCP-PARAM-FLAG", "false"),
        ];
        assert!(found("t", args, &headers).is_empty());
        // Absent and null values owe no header; a safe value may be encoded.
        let args = json!({"region": "us", "flag": null});
        assert!(found("t", args, &[("mcp-param-region", "=?base64?dXM=?=")]).is_empty());
        // Tools nobody listed are not judged.
        assert!(found("other", json!({"region": "x"}), &[]).is_empty());
    }

    #[test]
    fn each_rule_is_reported() {
        let mirror = "http.header.param-mirror";
        let encoding = "http.header.value-encoding";
        assert_eq!(found("t", json!({"region": "us"}), &[]), [mirror]);
        assert_eq!(
            found("t", json!({"region": "us"}), &[("mcp-param-region", "eu")]),
            [mirror]
        );
        assert_eq!(
            found("t", json!({"n": 42}), &[("mcp-param-n", "41")]),
            [mirror]
        );
        assert_eq!(
            found("t", json!({"flag": null}), &[("mcp-param-flag", "true")]),
            [mirror]
        );
        assert_eq!(
            found(
                "t",
                json!({"region": " padded "}),
                &[("mcp-param-region", " padded ")]
            ),
            [encoding]
        );
        assert_eq!(
            found(
                "t",
                json!({"region": "=?base64?x?="}),
                &[("mcp-param-region", "=?base64?x?=")]
            ),
            [encoding],
            "the sentinel's look must be encoded (and this one does not decode)"
        );
        assert_eq!(
            found("bad", json!({"s": 1.5}), &[]),
            ["http.header.client-rejects-invalid-tools"]
        );
    }
}
