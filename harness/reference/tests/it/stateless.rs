//! 2026-07-28, the stateless protocol: `server/discover`, per-request
//! `_meta`, named errors, removed methods, results with `resultType`, and a
//! connection that mixes both eras. Every 2026-07-28 result and error is
//! validated against the 2026-07-28 schema.

use crate::support::{at_2026, meta, methods, slow_call, split_response, Client};
use mcpspec_engine::{Role, Version};
use mcpspec_schema::schemas;
use serde_json::{json, Value};

const V: &str = "2026-07-28";

/// Asserts that `response` (a whole message) conforms to 2026-07-28 as the
/// answer to `method`.
fn conforms(method: &str, response: &Value) {
    let s = schemas(Version::V2026_07_28);
    let violations = match response.get("result") {
        Some(result) => s.check_result(method, result),
        None => s.check_error_response(response),
    };
    assert!(
        violations.is_empty(),
        "{method}: {response}\n{violations:#?}"
    );
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

#[test]
fn our_requests_conform_to_the_schema() {
    let s = schemas(Version::V2026_07_28);
    for (method, params) in [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({ "name": "echo", "arguments": { "message": "x" } }),
        ),
    ] {
        let msg = request(1, method, at_2026(params));
        let v = s.check_request(Role::Client, method, &msg);
        assert!(v.is_empty(), "{msg}: {v:#?}");
    }
}

#[test]
fn discover_lists_versions_capabilities_and_cache_members() {
    let mut c = Client::new(&[]);
    let resp = c.stateless("server/discover", json!({}));
    conforms("server/discover", &resp);
    let r = &resp["result"];
    assert_eq!(
        r["supportedVersions"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", V])
    );
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["cacheScope"], "public");
    assert!(r["ttlMs"].is_u64());
    for cap in ["tools", "resources", "prompts", "logging", "completions"] {
        assert!(r["capabilities"][cap].is_object(), "{cap}: {r}");
    }
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcpspec-reference"
    );
    assert!(c.server.version().is_none(), "discover is not a handshake");
}

#[test]
fn discover_answers_any_supported_version_and_names_them_for_others() {
    let mut c = Client::new(&[]);
    let (ok, _) = c.request(
        "server/discover",
        Some(json!({ "_meta": meta("2025-06-18", json!({})) })),
    );
    assert!(ok["result"]["supportedVersions"].is_array(), "{ok}");
    let (bad, _) = c.request(
        "server/discover",
        Some(json!({ "_meta": meta("2999-01-01", json!({})) })),
    );
    conforms("server/discover", &bad);
    assert_eq!(bad["error"]["code"], -32022);
    assert_eq!(bad["error"]["data"]["requested"], "2999-01-01");
    assert_eq!(
        bad["error"]["data"]["supported"].as_array().unwrap().len(),
        5
    );
    // Without _meta it is still a 2026-07-28 method, and _meta is required.
    assert_eq!(c.code("server/discover", json!({})), -32602);
}

#[test]
fn every_result_is_complete_and_conforms() {
    let mut c = Client::new(&[]);
    let calls = [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({ "name": "echo", "arguments": { "message": "hi" } }),
        ),
        (
            "tools/call",
            json!({ "name": "structured", "arguments": { "text": "a b" } }),
        ),
        ("tools/call", json!({ "name": "fail" })),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({ "uri": "mcpspec://blob" })),
        ("resources/read", json!({ "uri": "mcpspec://counter" })),
        ("prompts/list", json!({})),
        ("prompts/get", json!({ "name": "simple" })),
        ("prompts/get", json!({ "name": "media" })),
        (
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "greet" }, "argument": { "name": "name", "value": "" } }),
        ),
    ];
    for (method, params) in calls {
        let resp = c.stateless(method, params);
        conforms(method, &resp);
        assert_eq!(resp["result"]["resultType"], "complete", "{method}: {resp}");
        let cacheable = method.ends_with("/list") || method == "resources/read";
        assert_eq!(resp["result"].get("ttlMs").is_some(), cacheable, "{method}");
    }
    assert!(c.server.version().is_none());
}

#[test]
fn lists_page_and_include_the_roots_tool() {
    let mut c = Client::new(&[]);
    let mut names = Vec::new();
    let mut params = json!({});
    loop {
        let resp = c.stateless("tools/list", params.clone());
        conforms("tools/list", &resp);
        let r = &resp["result"];
        names.extend(
            r["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].clone()),
        );
        match r.get("nextCursor") {
            Some(cur) => params = json!({ "cursor": cur }),
            None => break,
        }
    }
    let mut expected: Vec<Value> = [
        "echo",
        "add",
        "fail",
        "slow",
        "structured",
        // The conformance fixture's tools of 2026-07-28 (no sampling or
        // elicitation mid-call: the stateless protocol has none).
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_tool_with_logging",
        "test_tool_with_progress",
        "test_error_handling",
        "json_schema_2020_12_tool",
        // SEP-2243: its `region` is mirrored into Mcp-Param-Region over HTTP.
        mcpspec_reference::offer::HEADER_PARAM_TOOL,
        "roots",
    ]
    .map(Value::from)
    .to_vec();
    expected.extend(mcpspec_reference::offer::INPUT_REQUIRED_TOOLS.map(Value::from));
    assert_eq!(names, expected);
    // The handshake-era versions do not have it.
    let mut old = Client::ready("2025-11-25", &[]);
    let (all, _) = old.list_all("tools/list", "tools");
    assert!(all.iter().all(|t| t["name"] != "roots"));
    let header = mcpspec_reference::offer::HEADER_PARAM_TOOL;
    assert!(all.iter().all(|t| t["name"] != header));
}

#[test]
fn missing_meta_is_invalid_params() {
    let mut c = Client::new(&[]);
    let cases = [
        json!({ "_meta": { "io.modelcontextprotocol/clientCapabilities": {} } }),
        json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": V } }),
        json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {} } }),
        json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": [] } }),
        json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud" } }),
    ];
    for params in cases {
        let (resp, _) = c.request("tools/list", Some(params.clone()));
        assert_eq!(resp["error"]["code"], -32602, "{params}: {resp}");
        conforms("tools/list", &resp);
    }
    // No _meta at all, before any initialize: a handshake-era request that
    // came too early (stdio cannot tell it from a 2026 one missing _meta).
    assert_eq!(c.code("tools/list", json!({})), -32600);
}

#[test]
fn driver_told_stateless_requests_without_meta_are_invalid_params() {
    let mut c = Client::new(&[]);
    c.server = mcpspec_reference::ReferenceServer::new(Default::default()).expecting_stateless();
    assert_eq!(c.code("tools/list", json!({})), -32602);
    assert!(c.stateless("tools/list", json!({}))["result"].is_object());
}

#[test]
fn unsupported_versions_get_32022_with_the_supported_list() {
    let mut c = Client::new(&[]);
    for asked in ["1999-01-01", "2027-01-01", "draft", ""] {
        let (resp, _) = c.request(
            "tools/list",
            Some(json!({ "_meta": meta(asked, json!({})) })),
        );
        conforms("tools/list", &resp);
        let e = &resp["error"];
        assert_eq!(e["code"], -32022, "{asked}: {resp}");
        assert_eq!(e["data"]["requested"], asked);
        assert!(e["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!(V)));
    }
}

#[test]
fn removed_methods_are_not_found() {
    let mut c = Client::new(&[]);
    for (method, params) in [
        ("ping", json!({})),
        (
            "initialize",
            json!({ "protocolVersion": V, "capabilities": {} }),
        ),
        ("logging/setLevel", json!({ "level": "debug" })),
        ("resources/subscribe", json!({ "uri": "mcpspec://counter" })),
        (
            "resources/unsubscribe",
            json!({ "uri": "mcpspec://counter" }),
        ),
    ] {
        let resp = c.stateless(method, params);
        assert_eq!(resp["error"]["code"], -32601, "{method}: {resp}");
        conforms(method, &resp);
    }
    assert!(
        c.server.version().is_none(),
        "initialize at 2026 did nothing"
    );
}

#[test]
fn roots_tool_needs_the_capability_of_this_request() {
    let mut c = Client::new(&[]);
    let call = |caps: Value| json!({ "name": "roots", "arguments": {}, "_meta": meta(V, caps) });
    let (resp, _) = c.request("tools/call", Some(call(json!({}))));
    conforms("tools/call", &resp);
    assert_eq!(resp["error"]["code"], -32021, "{resp}");
    assert_eq!(
        resp["error"]["data"]["requiredCapabilities"],
        json!({ "roots": {} })
    );

    let (asked, _) = c.request("tools/call", Some(call(json!({ "roots": {} }))));
    conforms("tools/call", &asked);
    let r = &asked["result"];
    assert_eq!(r["resultType"], "input_required", "{asked}");
    assert_eq!(r["inputRequests"]["roots"]["method"], "roots/list");

    let mut retry = call(json!({ "roots": {} }));
    retry["inputResponses"] =
        json!({ "roots": { "roots": [{ "uri": "file:///work", "name": "work" }] } });
    let (done, _) = c.request("tools/call", Some(retry));
    conforms("tools/call", &done);
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "roots: file:///work");

    // Declared on an earlier request only: not inferred.
    let (again, _) = c.request("tools/call", Some(call(json!({}))));
    assert_eq!(again["error"]["code"], -32021, "{again}");
}

#[test]
fn log_messages_follow_the_requests_own_log_level() {
    let mut c = Client::new(&[]);
    let mut params = json!({ "name": "echo", "arguments": { "message": "hi" } });
    params["_meta"] = meta(V, json!({}));
    let (_, quiet) = c.request("tools/call", Some(params.clone()));
    assert!(quiet.is_empty(), "no logLevel, no log messages: {quiet:?}");
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let (_, logs) = c.request("tools/call", Some(params.clone()));
    assert_eq!(methods(&logs), ["notifications/message"]);
    let s = schemas(Version::V2026_07_28);
    for l in &logs {
        let v = s.check_notification(Role::Server, "notifications/message", l);
        assert!(v.is_empty(), "{l}: {v:#?}");
    }
    // The level of one request does not stay for the next.
    params["_meta"] = meta(V, json!({}));
    assert!(c.request("tools/call", Some(params)).1.is_empty());
}

#[test]
fn slow_tool_reports_progress_and_completes_at_2026() {
    let mut c = Client::new(&[]);
    let mut call = slow_call(5, 1.0, 2, Some(json!("tok")));
    call["params"]["_meta"] = meta(V, json!({}));
    call["params"]["_meta"]["progressToken"] = json!("tok");
    assert!(c.send(call).is_empty());
    let lines = c.advance(1000);
    assert_eq!(
        methods(&lines),
        ["notifications/progress", "notifications/progress"]
    );
    let (resp, _) = split_response(lines, &json!(5));
    conforms("tools/call", &resp);
    assert_eq!(resp["result"]["resultType"], "complete");
}

#[test]
fn one_connection_mixes_both_eras() {
    let mut c = Client::ready("2025-06-18", &[]);
    let old = c.ok("tools/list", json!({}));
    assert!(
        old.get("resultType").is_none(),
        "handshake results are unchanged"
    );
    let new = c.stateless("tools/list", json!({}));
    conforms("tools/list", &new);
    assert_eq!(c.ok("ping", json!({})), json!({}));
    assert_eq!(c.stateless("ping", json!({}))["error"]["code"], -32601);
    assert_eq!(c.server.version().map(|v| v.as_str()), Some("2025-06-18"));
    // _meta naming a handshake-era version is just _meta of that session.
    let (r, _) = c.request(
        "tools/list",
        Some(json!({ "_meta": meta("2025-06-18", json!({})) })),
    );
    assert!(r["result"].get("resultType").is_none(), "{r}");
    // A fresh connection: 2026 requests first, initialize after still works.
    let mut fresh = Client::new(&[]);
    assert!(fresh.stateless("tools/list", json!({}))["result"].is_object());
    assert_eq!(
        fresh.init("2025-11-25")["result"]["protocolVersion"],
        "2025-11-25"
    );
}

/// 2026-07-28 names a missing resource an Invalid Params error (-32602),
/// with the URI in `data`; earlier versions keep -32002.
#[test]
fn a_missing_resource_is_invalid_params_from_2026_07_28() {
    let r = Client::new(&[]).stateless("resources/read", json!({ "uri": "mcpspec://nope" }));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    assert_eq!(r["error"]["data"]["uri"], json!("mcpspec://nope"), "{r}");
}
