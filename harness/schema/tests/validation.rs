//! The validation API catches real defects and lets conforming messages through, in
//! every version.

use mcpspec_engine::{Role, Version};
use mcpspec_schema::{schemas, Violation};
use serde_json::{json, Value};

const HANDSHAKE: [Version; 4] = Version::HANDSHAKE;
const STATELESS: Version = Version::V2026_07_28;

/// `params._meta` as 2026-07-28 requires it, empty before.
fn request_meta(version: Version) -> Value {
    if version == STATELESS {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "progressToken": 7
        })
    } else {
        json!({"progressToken": "p-1", "vendor.example/trace": {"x": [1, 2]}})
    }
}

fn call_tool(version: Version, name: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {"a": 1}, "_meta": request_meta(version)}
    })
}

fn tool(version: Version) -> Value {
    let mut tool = json!({
        "name": "echo",
        "description": "Echo the input",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "x-extra": true
    });
    if version >= Version::V2025_06_18 {
        tool["outputSchema"] = json!({"type": "object", "properties": {}});
        tool["_meta"] = json!({"vendor.example/k": "v"});
    }
    tool
}

/// What every 2026-07-28 result carries.
fn stateless_result(mut result: Value, cacheable: bool) -> Value {
    result["resultType"] = json!("complete");
    if cacheable {
        result["cacheScope"] = json!("public");
        result["ttlMs"] = json!(0);
    }
    result
}

fn list_tools_result(version: Version, tools: Value) -> Value {
    let result = json!({"tools": tools, "nextCursor": "c2"});
    if version == STATELESS {
        stateless_result(result, true)
    } else {
        result
    }
}

fn assert_clean(what: &str, version: Version, violations: &[Violation]) {
    assert!(
        violations.is_empty(),
        "{what} @{version} should conform, got:\n{}",
        violations
            .iter()
            .map(|v| format!("  {v}\n"))
            .collect::<String>()
    );
}

#[test]
fn tool_name_that_is_a_number_is_a_violation_though_a_valid_json_rpc_message() {
    for version in Version::ALL {
        let s = schemas(version);
        let message = call_tool(version, json!(5));
        assert!(s.check("JSONRPCMessage", &message).is_empty(), "@{version}");
        let violations = s.check_request(Role::Client, "tools/call", &message);
        assert!(!violations.is_empty(), "@{version}");
        let v = &violations[0];
        assert_eq!(v.definition, "CallToolRequest");
        assert_eq!(v.instance_path, "/params/name", "@{version}: {v}");
        assert_clean(
            "tools/call",
            version,
            &s.check_request(
                Role::Client,
                "tools/call",
                &call_tool(version, json!("echo")),
            ),
        );
    }
}

#[test]
fn tool_without_input_schema_is_a_violation_at_its_index() {
    for version in Version::ALL {
        let mut broken = tool(version);
        broken.as_object_mut().map(|t| t.remove("inputSchema"));
        let result = list_tools_result(version, json!([broken]));
        let violations = schemas(version).check_result("tools/list", &result);
        let v = violations
            .iter()
            .find(|v| v.instance_path == "/tools/0")
            .unwrap_or_else(|| panic!("@{version}: no violation at /tools/0 in {violations:?}"));
        assert_eq!(v.definition, "ListToolsResult");
        assert!(v.schema_path.contains("required"), "@{version}: {v}");
        let shown = v.to_string();
        assert!(
            shown.contains("ListToolsResult")
                && shown.contains("/tools/0")
                && shown.contains(&v.schema_path),
            "{shown}"
        );
    }
}

fn initialize_result(version: Version) -> Value {
    json!({
        "protocolVersion": version.as_str(),
        "capabilities": {"tools": {"listChanged": true}, "logging": {}, "experimental": {"x": {"y": 1.5}}},
        "serverInfo": {"name": "ref", "version": "0.1.0"},
        "instructions": "",
        "_meta": {}
    })
}

#[test]
fn initialize_result_without_server_info_is_a_violation() {
    for version in HANDSHAKE {
        let s = schemas(version);
        assert_clean(
            "InitializeResult",
            version,
            &s.check_result("initialize", &initialize_result(version)),
        );
        let mut broken = initialize_result(version);
        broken.as_object_mut().map(|r| r.remove("serverInfo"));
        let violations = s.check_result("initialize", &broken);
        assert_eq!(violations.len(), 1, "@{version}: {violations:?}");
        assert_eq!(violations[0].definition, "InitializeResult");
        assert_eq!(violations[0].instance_path, "");
        assert!(
            violations[0].message.contains("serverInfo"),
            "{}",
            violations[0]
        );
    }
}

#[test]
fn realistic_messages_of_every_version_conform() {
    for version in Version::ALL {
        let s = schemas(version);
        let meta = request_meta(version);
        // Large ids and tokens, extra members, `_meta`, empty arrays.
        let list = json!({"jsonrpc": "2.0", "id": u64::MAX, "method": "tools/list",
            "params": {"_meta": meta, "cursor": "abc"}, "extra": null});
        assert_clean(
            "tools/list",
            version,
            &s.check_request(Role::Client, "tools/list", &list),
        );
        assert_clean(
            "ListToolsResult",
            version,
            &s.check_result("tools/list", &list_tools_result(version, json!([]))),
        );
        assert_clean(
            "ListToolsResult",
            version,
            &s.check_result(
                "tools/list",
                &list_tools_result(version, json!([tool(version)])),
            ),
        );

        let mut call = json!({"content": [], "isError": false});
        if version >= Version::V2025_06_18 {
            call["structuredContent"] = json!({"n": 9_007_199_254_740_993_i64});
            call["content"] = json!([
                {"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5}},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
                {"type": "resource", "resource": {"uri": "file:///b", "blob": "AAEC", "mimeType": "application/octet-stream"}}
            ]);
        }
        if version == STATELESS {
            call = stateless_result(call, false);
        }
        assert_clean(
            "CallToolResult",
            version,
            &s.check_result("tools/call", &call),
        );

        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 123_456_789_012_i64, "progress": 0.25, "total": 1}});
        for sender in [Role::Client, Role::Server] {
            assert_clean(
                "progress",
                version,
                &s.check_notification(sender, "notifications/progress", &progress),
            );
        }
        let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "warning", "data": {"anything": [null]}}});
        assert_clean(
            "log",
            version,
            &s.check_notification(Role::Server, "notifications/message", &log),
        );

        let error = json!({"jsonrpc": "2.0", "id": "r-1", "error": {"code": -32601, "message": "Method not found", "data": null}});
        assert_clean("error", version, &s.check_error_response(&error));

        let read = json!({"contents": [{"uri": "file:///x.md", "text": "# x", "mimeType": "text/markdown"}]});
        let read = if version == STATELESS {
            stateless_result(read, true)
        } else {
            read
        };
        assert_clean(
            "ReadResourceResult",
            version,
            &s.check_result("resources/read", &read),
        );
    }
}

#[test]
fn handshake_versions_accept_their_handshake_and_server_requests() {
    for version in HANDSHAKE {
        let s = schemas(version);
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version.as_str(),
            "capabilities": {"roots": {"listChanged": true}, "sampling": {}},
            "clientInfo": {"name": "mcpspec", "version": "0.1.0"}}});
        assert_clean(
            "initialize",
            version,
            &s.check_request(Role::Client, "initialize", &init),
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_clean(
            "initialized",
            version,
            &s.check_notification(Role::Client, "notifications/initialized", &initialized),
        );
        let sampling = json!({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}],
            "maxTokens": 100, "includeContext": "none"}});
        assert_clean(
            "sampling",
            version,
            &s.check_request(Role::Server, "sampling/createMessage", &sampling),
        );
        let created = json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "endTurn"});
        assert_clean(
            "CreateMessageResult",
            version,
            &s.check_result("sampling/createMessage", &created),
        );
        assert_clean("EmptyResult", version, &s.check_result("ping", &json!({})));
        // The sender matters: a client does not send sampling requests.
        assert_eq!(
            s.request_definition(Role::Client, "sampling/createMessage"),
            None
        );
        assert_eq!(
            s.request_definition(Role::Server, "sampling/createMessage"),
            Some("CreateMessageRequest")
        );
    }
}

#[test]
fn stateless_requests_need_their_meta_and_results_their_type() {
    let s = schemas(STATELESS);
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": request_meta(STATELESS)}});
    assert_clean(
        "discover",
        STATELESS,
        &s.check_request(Role::Client, "server/discover", &discover),
    );
    let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}});
    let violations = s.check_request(Role::Client, "server/discover", &bare);
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].instance_path, "/params");

    let untyped = json!({"tools": [], "cacheScope": "public", "ttlMs": 10});
    assert!(!s.check_result("tools/list", &untyped).is_empty());

    let needs_input = json!({"resultType": "input_required", "requestState": "opaque",
        "inputRequests": {"a": {"method": "roots/list"}}});
    assert_clean(
        "InputRequiredResult",
        STATELESS,
        &s.check_result("tools/call", &needs_input),
    );

    let unsupported =
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "unsupported"}});
    let violations = s.check_error_response(&unsupported);
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].definition, "UnsupportedProtocolVersionError");
}

#[test]
fn tasks_answer_with_a_task_in_2025_11_25() {
    let s = schemas(Version::V2025_11_25);
    let created = json!({"task": {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T00:00:00Z",
        "lastUpdatedAt": "2025-11-25T00:00:00Z", "ttl": null}});
    assert_clean(
        "CreateTaskResult",
        Version::V2025_11_25,
        &s.check_result("tools/call", &created),
    );
    let mut bad = created.clone();
    bad["task"]["status"] = json!("sleeping");
    let violations = s.check_result("tools/call", &bad);
    assert_eq!(violations[0].definition, "CreateTaskResult");
    assert_eq!(violations[0].instance_path, "/task/status");
}

#[test]
fn unknown_methods_are_not_checked() {
    for version in Version::ALL {
        let s = schemas(version);
        let junk = json!({"jsonrpc": "2.0", "id": 1, "method": "vendor/thing", "params": 5});
        assert!(s
            .check_request(Role::Client, "vendor/thing", &junk)
            .is_empty());
        assert!(s
            .check_notification(Role::Server, "vendor/thing", &junk)
            .is_empty());
        assert!(s.check_result("vendor/thing", &json!(5)).is_empty());
    }
    // Removed in 2026-07-28, so unknown there.
    assert!(schemas(STATELESS)
        .check_result("initialize", &json!({}))
        .is_empty());
}

#[test]
fn formats_are_annotations() {
    for version in Version::HANDSHAKE {
        let result = json!({"resources": [{"uri": "not a uri", "name": "n"}]});
        assert_clean(
            "ListResourcesResult",
            version,
            &schemas(version).check_result("resources/list", &result),
        );
    }
}

#[test]
fn messages_stay_short() {
    let s = schemas(Version::V2025_06_18);
    let long = "x".repeat(10_000);
    let message = call_tool(Version::V2025_06_18, json!([long]));
    let violations = s.check_request(Role::Client, "tools/call", &message);
    assert!(!violations.is_empty());
    for v in violations {
        assert!(v.message.chars().count() <= 201, "{}", v.message.len());
    }
}
