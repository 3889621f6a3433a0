//! Detectors for the faults of content, listings, tool calls and
//! cancellation (used by `faults`): each runs a short session against a
//! server with the given faults and says whether its violation showed.

use crate::support::{slow_call, split_response, Client};
use mcpspec_reference::{Config, Fault};
use serde_json::{json, Value};

/// Standard base64 with padding, as `blob` and `data` carry it.
pub fn is_base64(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    s.len() % 4 == 0
        && s.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// An absolute URI: a scheme (RFC 3986 section 3.1) and a colon.
fn has_scheme(uri: &str) -> bool {
    match uri.split_once(':') {
        Some((scheme, _)) => {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        }
        None => false,
    }
}

/// Every tool of a 2025-06-18 (or `version`) session, on one page.
fn tools(version: &str, f: &[Fault]) -> Vec<Value> {
    let mut c = Client::with_config(Config {
        page_size: 100,
        faults: f.to_vec(),
    });
    c.init(version);
    c.notify("notifications/initialized", None);
    c.ok("tools/list", json!({}))["tools"]
        .as_array()
        .unwrap()
        .clone()
}

/// The content blocks of the `media` prompt.
pub fn media(version: &str, f: &[Fault]) -> Vec<Value> {
    let mut c = Client::ready(version, f);
    c.ok("prompts/get", json!({ "name": "media" }))["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].clone())
        .collect()
}

fn of_type<'a>(blocks: &'a [Value], t: &str) -> Vec<&'a Value> {
    blocks.iter().filter(|b| b["type"] == t).collect()
}

pub fn blob_raw_bytes(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let r = c.ok("resources/read", json!({ "uri": "mcpspec://blob" }));
    !is_base64(r["contents"][0]["blob"].as_str().unwrap())
}

pub fn read_wrong_uri(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let r = c.ok("resources/read", json!({ "uri": "mcpspec://static/3" }));
    r["contents"][0]["uri"] != "mcpspec://static/3"
}

pub fn relative_resource_uri(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let (items, _) = c.list_all("resources/list", "resources");
    items
        .iter()
        .any(|r| !has_scheme(r["uri"].as_str().unwrap()))
}

pub fn duplicate_tool_name(f: &[Fault]) -> bool {
    let list = tools("2025-06-18", f);
    let mut names: Vec<_> = list.iter().map(|t| t["name"].to_string()).collect();
    names.sort();
    names.dedup();
    names.len() != list.len()
}

pub fn tool_name_format(f: &[Fault]) -> bool {
    tools("2025-11-25", f).iter().any(|t| {
        let name = t["name"].as_str().unwrap();
        !(1..=128).contains(&name.len())
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
    })
}

pub fn tool_annotation_strings(f: &[Fault]) -> bool {
    tools("2025-06-18", f).iter().any(|t| {
        // The conformance fixture's tools carry no annotations.
        let annotations = t["annotations"].as_object().into_iter().flatten();
        annotations.into_iter().any(|(k, v)| {
            if k == "title" {
                !v.is_string()
            } else {
                !v.is_boolean()
            }
        })
    })
}

pub fn title_not_string(f: &[Fault]) -> bool {
    tools("2025-06-18", f)
        .iter()
        .any(|t| t.get("title").is_some_and(|v| !v.is_string()))
}

pub fn text_content_key(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let r = c.ok(
        "tools/call",
        json!({ "name": "echo", "arguments": { "message": "x" } }),
    );
    r["content"][0]["text"] != "x"
}

pub fn require_arguments(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let (resp, _) = c.request("tools/call", Some(json!({ "name": "fail" })));
    resp.get("error").is_some()
}

pub fn image_data_url(f: &[Fault]) -> bool {
    let blocks = media("2025-06-18", f);
    of_type(&blocks, "image")
        .iter()
        .any(|i| !is_base64(i["data"].as_str().unwrap()))
}

pub fn audio_missing_mime_type(f: &[Fault]) -> bool {
    let blocks = media("2025-06-18", f);
    of_type(&blocks, "audio")
        .iter()
        .any(|a| !a["mimeType"].is_string())
}

pub fn embedded_resource_flat(f: &[Fault]) -> bool {
    let blocks = media("2025-06-18", f);
    of_type(&blocks, "resource")
        .iter()
        .any(|r| !r["resource"]["uri"].is_string())
}

pub fn resource_link_no_name(f: &[Fault]) -> bool {
    let blocks = media("2025-06-18", f);
    of_type(&blocks, "resource_link")
        .iter()
        .any(|l| !l["name"].is_string())
}

pub fn annotation_priority_range(f: &[Fault]) -> bool {
    media("2025-06-18", f).iter().any(|b| {
        b["annotations"]["priority"]
            .as_f64()
            .is_some_and(|p| !(0.0..=1.0).contains(&p))
    })
}

pub fn content_type_too_new(f: &[Fault]) -> bool {
    media("2024-11-05", f)
        .iter()
        .any(|b| !["text", "image", "resource"].contains(&b["type"].as_str().unwrap()))
}

pub fn cancel_all(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    c.send(slow_call(5, 1.0, 2, None));
    c.send(slow_call(6, 1.0, 2, None));
    c.advance(300);
    c.notify("notifications/cancelled", Some(json!({ "requestId": 5 })));
    !c.advance(5000).iter().any(|l| l["id"] == 6)
}

pub fn progress_after_cancel(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    c.send(slow_call(7, 1.0, 5, Some(json!("p"))));
    c.advance(300);
    c.notify("notifications/cancelled", Some(json!({ "requestId": 7 })));
    let later = c.advance(5000);
    let progressed = later
        .iter()
        .any(|l| l["method"] == "notifications/progress" && l["params"]["progressToken"] == "p");
    let answered = later.iter().any(|l| l["id"] == 7);
    progressed && !answered
}

pub fn reject_meta(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let (resp, _) = c.request(
        "tools/list",
        Some(json!({ "_meta": { "progressToken": "list" } })),
    );
    resp.get("result").is_none()
}

pub fn structured_no_text(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let lines = c.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "structured", "arguments": { "text": "a b" } } }));
    let (resp, _) = split_response(lines, &json!(3));
    let content = resp["result"]["content"].as_array().unwrap();
    !content.iter().any(|b| b["type"] == "text")
}

pub fn tools_list_order_varies(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-11-25", f);
    let names = |r: Value| -> Vec<Value> {
        r["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t["name"].clone())
            .collect()
    };
    let first = names(c.ok("tools/list", json!({})));
    (0..3).any(|_| names(c.ok("tools/list", json!({}))) != first)
}

pub fn input_error_as_protocol_error(f: &[Fault]) -> bool {
    let bad = json!({ "name": "echo", "arguments": { "message": 7 } });
    let mut c = Client::ready("2025-11-25", f);
    let handshake = c.request("tools/call", Some(bad.clone())).0;
    let mut c = Client::new(f);
    let stateless = c.stateless("tools/call", bad);
    [handshake, stateless]
        .iter()
        .any(|r| r["error"]["code"] == -32602 && r.get("result").is_none())
}

pub fn tool_input_unvalidated(f: &[Fault]) -> bool {
    let missing = json!({ "name": "echo", "arguments": {} });
    ["2024-11-05", "2025-11-25"].iter().any(|v| {
        let r = Client::ready(v, f)
            .request("tools/call", Some(missing.clone()))
            .0;
        r["result"].is_object() && r["result"]["isError"] != true
    })
}

pub fn resource_uri_unvalidated(f: &[Fault]) -> bool {
    let r = Client::ready("2025-06-18", f)
        .request("resources/read", Some(json!({ "uri": "not a uri" })))
        .0;
    r.get("result").is_some()
}

/// A 2026-07-28 list request answered with an error.
pub fn list_refused(f: &[Fault], method: &str) -> bool {
    Client::new(f).stateless(method, json!({}))["error"].is_object()
}

/// After a cancellation of an answered request, ping goes unanswered.
pub fn late_cancel_wedges(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let (answer, _) = c.request("ping", None);
    let late = json!({ "requestId": answer["id"].clone() });
    c.notify("notifications/cancelled", Some(late));
    c.request("ping", None).0.get("result").is_none()
}
