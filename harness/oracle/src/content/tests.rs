//! What the content rules let pass: the clean side of each rule (the
//! breaking side is proven for every rule in `crate::checks`).

use mcpspec_engine::{Role, Session, Version};
use mcpspec_wire::Message;
use serde_json::{json, Value};

use super::State;

fn message(v: Value) -> Message {
    match mcpspec_wire::classify(v.to_string().as_bytes()) {
        Ok(mcpspec_wire::Inbound::Single(m)) => m,
        other => panic!("not one message: {other:?}"),
    }
}

/// Judges `received` after `sent`, both at `version`, the peer a server.
fn server(version: Version, sent: &[Value], received: &[Value]) -> Vec<&'static str> {
    let mut state = State::default();
    let mut session = Session::new(Role::Client, Some(version));
    let mut found = Vec::new();
    for s in sent {
        let m = message(s.clone());
        state.outbound(&m);
        session.outbound(&m, 0);
    }
    for r in received {
        let m = message(r.clone());
        found.extend(
            state
                .inbound(&session, version, Role::Server, &m, 0)
                .into_iter()
                .map(|v| v.requirement.id),
        );
        session.inbound(&m, 0);
    }
    found
}

fn req(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

#[test]
fn well_behaved_traffic_passes() {
    let v = Version::V2025_11_25;
    let init = req(
        json!(0),
        "initialize",
        json!({"capabilities": {"sampling": {"tools": {}}, "elicitation": {"url": {}}}}),
    );
    let sent = [init, req(json!(1), "prompts/list", json!({}))];
    let received = [
        ok(json!(0), json!({"capabilities": {}})),
        // An empty list offers nothing: no capability needed.
        ok(json!(1), json!({"prompts": []})),
        req(
            json!("a"),
            "roots/list",
            json!({"_meta": {"progressToken": 7, "com.example/x": 1}}),
        ),
        req(
            json!("b"),
            "sampling/createMessage",
            json!({"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "t", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "u1", "content": []}]}
        ], "tools": [{"name": "t", "inputSchema": {"type": "object"}}], "maxTokens": 5}),
        ),
        req(
            json!("c"),
            "elicitation/create",
            json!({"mode": "url", "message": "m",
            "url": "https://example.com", "elicitationId": "e"}),
        ),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}}),
    ];
    assert_eq!(server(v, &sent, &received), Vec::<&str>::new());
}

#[test]
fn a_token_is_free_again_once_its_request_is_answered() {
    let v = Version::V2025_06_18;
    let mut state = State::default();
    let session = Session::new(Role::Client, Some(v));
    let first = message(req(
        json!("a"),
        "roots/list",
        json!({"_meta": {"progressToken": "p"}}),
    ));
    assert!(state
        .inbound(&session, v, Role::Server, &first, 0)
        .is_empty());
    state.outbound(&message(ok(json!("a"), json!({"roots": []}))));
    let again = message(req(
        json!("b"),
        "roots/list",
        json!({"_meta": {"progressToken": "p"}}),
    ));
    assert!(state
        .inbound(&session, v, Role::Server, &again, 0)
        .is_empty());
}

#[test]
fn rules_newer_than_the_version_are_not_judged() {
    // meta.key.format is 2025-06-18's; the tool-result rules 2025-11-25's.
    let received = [
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {"bad key": 1}}}),
    ];
    assert_eq!(
        server(Version::V2025_03_26, &[], &received),
        Vec::<&str>::new()
    );
    assert_eq!(
        server(Version::V2025_06_18, &[], &received),
        ["meta.key.format"]
    );
}

/// A 2026-07-28 request's `_meta`, declaring `caps`.
fn meta26(caps: Value) -> Value {
    json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps}})
}

#[test]
fn requests_embedded_in_2026_results_are_judged_against_the_asking_request() {
    let v = Version::V2026_07_28;
    let asks = |params: Value| {
        ok(
            json!(1),
            json!({"resultType": "input_required", "inputRequests": {"k": {
                "method": "sampling/createMessage", "params": params}}}),
        )
    };
    let with_tools = json!({"messages": [], "maxTokens": 5,
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
    let call = |caps| req(json!(1), "tools/call", meta26(caps));
    assert_eq!(
        server(
            v,
            &[call(json!({"sampling": {}}))],
            &[asks(with_tools.clone())]
        ),
        ["sampling.tools.server-gated"]
    );
    assert_eq!(
        server(
            v,
            &[call(json!({"sampling": {"tools": {}}}))],
            &[asks(with_tools)]
        ),
        Vec::<&str>::new()
    );
    // Sampling not declared at all is the stateless rule's, not judged here.
    let plain = json!({"messages": [], "maxTokens": 5});
    assert_eq!(
        server(v, &[call(json!({}))], &[asks(plain)]),
        Vec::<&str>::new()
    );
}

#[test]
fn answers_embedded_in_a_2026_retry_are_judged_against_its_capabilities() {
    let v = Version::V2026_07_28;
    let mut state = State::default();
    let session = Session::new(Role::Server, Some(v));
    state.outbound(&message(ok(
        json!(1),
        json!({"resultType": "input_required",
               "inputRequests": {"r": {"method": "roots/list", "params": {}}}}),
    )));
    let mut retry = |caps: Value, uri: &str| {
        let mut params = meta26(caps);
        params["name"] = json!("t");
        params["inputResponses"] = json!({"r": {"roots": [{"uri": uri}]}});
        let m = message(req(json!(2), "tools/call", params));
        let found: Vec<&str> = state
            .inbound(&session, v, Role::Client, &m, 0)
            .into_iter()
            .map(|v| v.requirement.id)
            .collect();
        found
    };
    assert_eq!(
        retry(json!({"roots": {}}), "file:///home"),
        Vec::<&str>::new()
    );
    assert_eq!(
        retry(json!({}), "https://example.com"),
        ["roots.capability.declared", "roots.uri.file"]
    );
}
