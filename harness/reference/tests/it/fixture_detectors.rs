//! Detectors for the `fixture-*` faults (used by `faults`): each plays the
//! official conformance suite's check of one fixture name against a server
//! with the given faults and says whether the fixture's contract broke.
//! They call the fixture by name and never walk a listing (but one).

use crate::support::{split_response, Client};
use mcpspec_reference::Fault;
use serde_json::{json, Value};

const V: &str = "2025-11-25";

/// The result (or error response) of calling fixture tool `name`.
fn call(f: &[Fault], name: &str) -> Value {
    let mut c = Client::ready(V, f);
    c.request("tools/call", Some(json!({ "name": name, "arguments": {} })))
        .0
}

fn types(response: &Value) -> Vec<String> {
    response["result"]["content"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i["type"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

pub fn simple_text_empty(f: &[Fault]) -> bool {
    !types(&call(f, "test_simple_text")).contains(&"text".to_owned())
}

pub fn image_missing(f: &[Fault]) -> bool {
    !types(&call(f, "test_image_content")).contains(&"image".to_owned())
}

pub fn audio_mime(f: &[Fault]) -> bool {
    call(f, "test_audio_content")["result"]["content"][0]["mimeType"] != "audio/wav"
}

pub fn resource_mime_missing(f: &[Fault]) -> bool {
    let embedded = call(f, "test_embedded_resource");
    let mut c = Client::ready(V, f);
    let text = c.ok("resources/read", json!({ "uri": "test://static-text" }));
    embedded["result"]["content"][0]["resource"]
        .get("mimeType")
        .is_none()
        || text["contents"][0].get("mimeType").is_none()
}

pub fn error_as_protocol_error(f: &[Fault]) -> bool {
    call(f, "test_error_handling")["result"]["isError"] != true
}

pub fn progress_silent(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let mut lines = c.send(json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "test_tool_with_progress", "arguments": {}, "_meta": { "progressToken": "fixture-token" } } }));
    lines.extend(c.advance(5000));
    // Any progress counts (whose token is `wrong-progress-token`'s business).
    lines
        .iter()
        .filter(|l| l["method"] == "notifications/progress")
        .count()
        < 3
}

pub fn logging_silent(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    c.ok("logging/setLevel", json!({ "level": "debug" }));
    let (_, lines) = c.request(
        "tools/call",
        Some(json!({ "name": "test_tool_with_logging", "arguments": {} })),
    );
    let own = lines
        .iter()
        .filter(|l| {
            l["method"] == "notifications/message"
                && l["params"]["data"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("test_tool_with_logging"))
        })
        .count();
    own < 3
}

/// A session whose client declared sampling and elicitation; the outputs
/// of calling `name`.
fn asking(f: &[Fault], name: &str) -> Vec<Value> {
    let mut c = Client::new(f);
    c.request(
        "initialize",
        Some(json!({
            "protocolVersion": V,
            "capabilities": { "sampling": {}, "elicitation": {} },
            "clientInfo": { "name": "mcpspec-test", "version": "0" }
        })),
    );
    c.notify("notifications/initialized", None);
    c.send(json!({ "jsonrpc": "2.0", "id": 50, "method": "tools/call",
                   "params": { "name": name, "arguments": { "prompt": "hi", "message": "hi" } } }))
}

/// The request the fixture tool `name` sent the client, if any.
pub fn asked(f: &[Fault], name: &str) -> Option<Value> {
    asking(f, name)
        .into_iter()
        .find(|l| l.get("method").is_some() && l.get("id").is_some())
}

pub fn client_requests_skipped(f: &[Fault]) -> bool {
    asked(f, "test_sampling").is_none_or(|r| r["method"] != "sampling/createMessage")
}

pub fn elicitation_schema_plain(f: &[Fault]) -> bool {
    let Some(r) = asked(f, "test_elicitation_sep1034_defaults") else {
        return false;
    };
    r["params"]["requestedSchema"]["properties"]["name"]["default"] != "John Doe"
}

pub fn schema_stripped(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let (tools, _) = c.list_all("tools/list", "tools");
    let Some(tool) = tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
    else {
        return true;
    };
    let s = &tool["inputSchema"];
    s.get("$schema").is_none() || s.get("$defs").is_none() || s["additionalProperties"] != false
}

pub fn prompt_content_missing(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let got = c.ok("prompts/get", json!({ "name": "test_simple_prompt" }));
    got["messages"].as_array().is_none_or(Vec::is_empty)
}

pub fn arguments_ignored(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let got = c.ok(
        "prompts/get",
        json!({ "name": "test_prompt_with_arguments", "arguments": { "arg1": "alpha", "arg2": "beta" } }),
    );
    let text = got["messages"].to_string();
    !(text.contains("alpha") && text.contains("beta"))
}

pub fn completion_refused(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let (resp, _) = c.request(
        "completion/complete",
        Some(
            json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                     "argument": { "name": "arg1", "value": "test" } }),
        ),
    );
    !resp["result"]["completion"]["values"].is_array()
}

/// The whole round trip of an ask: the client's answer completes the call.
#[test]
fn an_answered_ask_completes_the_call() {
    let mut c = Client::new(&[]);
    c.request(
        "initialize",
        Some(
            json!({ "protocolVersion": V, "capabilities": { "sampling": {} },
                     "clientInfo": { "name": "t", "version": "0" } }),
        ),
    );
    c.notify("notifications/initialized", None);
    let out = c.send(json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                             "params": { "name": "test_sampling", "arguments": { "prompt": "hi" } } }));
    let (pending, rest) = split_response(out, &json!(7));
    assert!(
        pending.is_null(),
        "answered before the client was asked: {pending}"
    );
    let ask = rest
        .iter()
        .find(|l| l["method"] == "sampling/createMessage")
        .expect("asked");
    let answer = json!({ "jsonrpc": "2.0", "id": ask["id"], "result": {
        "role": "assistant", "content": { "type": "text", "text": "hello" }, "model": "m" } });
    let (done, _) = split_response(c.send(answer), &json!(7));
    assert_eq!(done["result"]["content"][0]["type"], "text", "{done}");
    assert!(done["result"].get("isError").is_none(), "{done}");
    // Without the capability, the tool says why instead of asking.
    let refused = Client::ready(V, &[])
        .request(
            "tools/call",
            Some(json!({ "name": "test_sampling", "arguments": { "prompt": "hi" } })),
        )
        .0;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
}
