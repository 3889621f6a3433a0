//! The reference client's answers to what the client scenarios of #15
//! provoke: an unrecognized `resultType`, a `server/discover` refused with a
//! plain error other than -32601, the completion of an unknown elicitation,
//! and a tool schema with a network `$ref` — clean, and with the fault that
//! breaks each rule.

use serde_json::{json, Value};

use super::tests::{client_at, exit, frame, methods, writes};
use super::*;

const V: Version = STATELESS_VERSION;

/// A stateless client whose workflow has listed `tools` (one page) and is
/// calling the first of them (id 3); returns the client and what it sent.
fn listed(faults: &[ClientFault], tools: Value) -> (ReferenceClient, Vec<Value>) {
    let mut c = client_at(V, faults);
    c.start(0);
    let discovered = json!({ "jsonrpc": "2.0", "id": 1, "result": {
        "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} },
        "resultType": "complete", "cacheScope": "public", "ttlMs": 0 } });
    c.on_frame(1, frame(&discovered));
    let list = json!({ "jsonrpc": "2.0", "id": 2, "result": { "tools": tools } });
    let sent = writes(&c.on_frame(2, frame(&list)));
    (c, sent)
}

fn two_tools() -> Value {
    json!([{ "name": "a", "inputSchema": { "type": "object" } },
           { "name": "b", "inputSchema": { "type": "object" } }])
}

#[test]
fn an_unrecognized_result_type_is_invalid_unless_the_fault_asks_for_input() {
    let bait = json!({ "jsonrpc": "2.0", "id": 3, "result": {
        "resultType": "mcpspec-unrecognized", "content": [],
        "inputRequests": { "r": { "method": "roots/list" } } } });
    let (mut clean, _) = listed(&[], two_tools());
    let next = writes(&clean.on_frame(3, frame(&bait)));
    assert_eq!(methods(&next), ["tools/call"]);
    assert_eq!(next[0]["params"]["name"], "b", "the next tool, no retry");
    assert!(next[0]["params"].get("inputResponses").is_none());
    let (mut faulty, _) = listed(&[ClientFault::UnknownResultTypeAccepted], two_tools());
    let retry = writes(&faulty.on_frame(3, frame(&bait)));
    assert_eq!(retry[0]["params"]["name"], "a", "a retry of the same call");
    assert!(retry[0]["params"]["inputResponses"]["r"].is_object());
    // The core values keep their meaning under the fault.
    let (mut c, _) = listed(&[ClientFault::UnknownResultTypeAccepted], two_tools());
    let done =
        json!({ "jsonrpc": "2.0", "id": 3, "result": { "resultType": "complete", "content": [] } });
    assert_eq!(
        writes(&c.on_frame(3, frame(&done)))[0]["params"]["name"],
        "b"
    );
}

#[test]
fn any_plain_discover_error_falls_back_unless_the_fault_wants_minus_32601() {
    for code in [-32601, -32602, -32603, -32000] {
        let mut clean = client_at(V, &[]);
        clean.start(0);
        let err = json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": code, "message": "no" } });
        let out = clean.on_frame(1, frame(&err));
        assert_eq!(methods(&writes(&out)), ["initialize"], "{code}");
        let mut faulty = client_at(V, &[ClientFault::FallbackOnlyMethodNotFound]);
        faulty.start(0);
        let out = faulty.on_frame(1, frame(&err));
        if code == -32601 {
            assert_eq!(methods(&writes(&out)), ["initialize"]);
        } else {
            assert!(writes(&out).is_empty(), "{code}");
            assert_eq!(exit(&out), Some(1), "{code}");
        }
    }
}

#[test]
fn an_unknown_elicitation_completion_is_ignored_unless_the_fault_exits() {
    let complete = json!({ "jsonrpc": "2.0", "method": "notifications/elicitation/complete",
        "params": { "elicitationId": "never" } });
    for (faults, version, exits) in [
        (vec![], Version::V2025_11_25, false),
        (
            vec![ClientFault::CrashOnUnknownComplete],
            Version::V2025_11_25,
            true,
        ),
        // Before 2025-11-25 the notification does not exist: not a completion.
        (
            vec![ClientFault::CrashOnUnknownComplete],
            Version::V2025_06_18,
            false,
        ),
    ] {
        let mut c = client_at(version, &faults);
        c.start(0);
        let init = json!({ "jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": version.as_str(), "capabilities": {},
            "serverInfo": { "name": "s", "version": "1" } } });
        c.on_frame(1, frame(&init));
        let out = c.on_frame(2, frame(&complete));
        assert_eq!(exit(&out), exits.then_some(1), "{faults:?} at {version}");
    }
}

#[test]
fn network_refs_are_fetched_only_by_the_fault() {
    let tools = json!([{ "name": "t", "inputSchema": { "type": "object",
        "$defs": { "id": { "type": "string" } },
        "properties": { "id": { "$ref": "#/$defs/id" },
                        "p": { "$ref": "http://127.0.0.1:9/canary.json" } } } }]);
    let (mut clean, _) = listed(&[], tools.clone());
    assert!(clean.take_fetches().is_empty());
    let (mut faulty, sent) = listed(&[ClientFault::DerefNetworkRef], tools);
    assert_eq!(methods(&sent), ["tools/call"], "the workflow goes on");
    assert_eq!(faulty.take_fetches(), ["http://127.0.0.1:9/canary.json"]);
    assert!(faulty.take_fetches().is_empty(), "taken once");
}
