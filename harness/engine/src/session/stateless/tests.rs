//! Unit tests of the stateless rules: each rule fails on the message that
//! breaks it and stays quiet on conformant traffic.

use mcpspec_wire::{Id, Message};
use serde_json::{json, Value};

use crate::level::Role;
use crate::session::{Direction, Phase, Session, Violation};
use crate::version::Version;

const V2026: &str = "2026-07-28";

fn ids(v: &[Violation]) -> Vec<&str> {
    v.iter().map(|v| v.requirement.id).collect()
}

/// A session judging a 2026-07-28 server (the runner's kind).
fn judging_server() -> Session {
    Session::new(Role::Client, Some(Version::V2026_07_28))
}

/// A session judging a 2026-07-28 client (the reference server's kind).
fn judging_client() -> Session {
    Session::new(Role::Server, Some(Version::V2026_07_28))
}

fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A request stamped as a 2026-07-28 client stamps it.
fn request(id: i64, method: &str, version: &str) -> Message {
    Message::request(id, method, Some(json!({ "_meta": meta(version) })))
}

fn result(id: i64, result: Value) -> Message {
    Message::result(Id::from(id), result)
}

fn error(id: i64, code: i64, data: Option<Value>) -> Message {
    Message::error(Some(Id::from(id)), code, "x", data)
}

fn log(level: &str) -> Message {
    Message::notification(
        "notifications/message",
        Some(json!({"level": level, "data": "x"})),
    )
}

// ── judging servers ─────────────────────────────────────────────────────────

#[test]
fn a_server_sends_no_requests_and_there_is_no_handshake() {
    let mut s = judging_server();
    assert_eq!(s.phase(), &Phase::Operating);
    let notice = Message::notification("notifications/tools/list_changed", None);
    assert!(s.inbound(&notice, 1).is_empty());
    for (id, method) in [(1, "roots/list"), (2, "ping"), (3, "vendor/ask")] {
        assert_eq!(
            ids(&s.inbound(&Message::request(id, method, None), 2)),
            ["stateless.server.no-requests"],
            "{method}"
        );
    }
}

/// The gap the stateless lifecycle closed: a client session that learns
/// 2026-07-28 from an initialize result has no handshake left to finish.
#[test]
fn a_2026_initialize_result_leaves_no_handshake_to_finish() {
    let mut s = Session::new(Role::Client, None);
    s.outbound(&Message::request(0, "initialize", Some(json!({}))), 0);
    let ok = result(0, json!({"protocolVersion": V2026, "capabilities": {}}));
    assert!(s.inbound(&ok, 1).is_empty());
    assert_eq!(s.phase(), &Phase::Operating);
    assert!(s.is_stateless());
    let found = s.inbound(&Message::request(1, "roots/list", None), 2);
    assert_eq!(ids(&found), ["stateless.server.no-requests"]);

    let mut s = Session::new(Role::Server, None);
    assert!(s
        .inbound(&Message::request(0, "initialize", Some(json!({}))), 0)
        .is_empty());
    s.outbound(&ok, 1);
    assert_eq!(s.phase(), &Phase::Operating);
    assert!(s.inbound(&request(1, "tools/list", V2026), 2).is_empty());
}

#[test]
fn results_of_2026_requests_carry_a_result_type() {
    let mut s = judging_server();
    for id in 1..=3 {
        s.outbound(&request(id, "tools/list", V2026), 0);
    }
    let good = json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"});
    assert!(s.inbound(&result(1, good), 1).is_empty());
    assert_eq!(
        ids(&s.inbound(&result(2, json!({"tools": []})), 2)),
        ["stateless.result.result-type"]
    );
    assert_eq!(
        ids(&s.inbound(&result(3, json!({"tools": [], "resultType": 1})), 3)),
        ["stateless.result.result-type"]
    );
    // A request without a 2026 `_meta` may be answered by older rules.
    s.outbound(&Message::request(4, "ping", None), 4);
    s.outbound(&request(5, "tools/list", "2025-11-25"), 4);
    assert_eq!(s.request_version(&Id::from(5)), Some(Version::V2025_11_25));
    assert!(s.inbound(&result(4, json!({})), 5).is_empty());
    assert!(s.inbound(&result(5, json!({"tools": []})), 5).is_empty());
}

#[test]
fn unsupported_version_errors_name_both_versions() {
    let mut s = judging_server();
    for id in 1..=5 {
        s.outbound(&request(id, "tools/list", "1999-01-01"), 0);
    }
    let good = json!({"requested": "1999-01-01", "supported": [V2026]});
    assert!(s.inbound(&error(1, -32022, Some(good)), 1).is_empty());
    for (id, data) in [
        (2, None),
        (3, Some(json!({"requested": "1999-01-01"}))),
        (
            4,
            Some(json!({"requested": "2000-01-01", "supported": [V2026]})),
        ),
        (
            5,
            Some(json!({"requested": "1999-01-01", "supported": ["1999-01-01"]})),
        ),
    ] {
        assert_eq!(
            ids(&s.inbound(&error(id, -32022, data), 2)),
            ["stateless.error.unsupported-version-data"],
            "id {id}"
        );
    }
}

#[test]
fn missing_capability_errors_name_the_capabilities() {
    let mut s = judging_server();
    s.outbound(&request(1, "tools/call", V2026), 0);
    s.outbound(&request(2, "tools/call", V2026), 0);
    let good = json!({"requiredCapabilities": {"sampling": {}}});
    assert!(s.inbound(&error(1, -32021, Some(good)), 1).is_empty());
    assert_eq!(
        ids(&s.inbound(&error(2, -32021, Some(json!({}))), 2)),
        ["stateless.error.missing-capability-data"]
    );
}

#[test]
fn only_defined_codes_of_the_reserved_range() {
    let mut s = judging_server();
    for id in 1..=6 {
        s.outbound(&request(id, "resources/read", V2026), 0);
    }
    assert!(s.inbound(&error(1, -32602, None), 1).is_empty());
    assert!(s.inbound(&error(2, -32020, None), 1).is_empty());
    assert!(s.inbound(&error(3, -32001, None), 1).is_empty());
    assert_eq!(
        ids(&s.inbound(&error(4, -32050, None), 2)),
        ["stateless.error.reserved-range"]
    );
    assert_eq!(
        ids(&s.inbound(&error(5, -32002, None), 2)),
        ["stateless.error.retired-codes"]
    );
    assert_eq!(
        ids(&s.inbound(&error(6, -32042, None), 2)),
        ["stateless.error.retired-codes"]
    );
    // A request without a `_meta` version may be answered by older rules.
    s.outbound(&Message::request(7, "resources/read", None), 3);
    assert!(s.inbound(&error(7, -32002, None), 4).is_empty());
}

#[test]
fn removed_server_notifications_are_flagged() {
    let mut s = judging_server();
    let updated = Message::notification(
        "notifications/resources/updated",
        Some(json!({"uri": "x:/"})),
    );
    assert!(s.inbound(&updated, 1).is_empty());
    let gone = Message::notification(
        "notifications/elicitation/complete",
        Some(json!({"elicitationId": "e"})),
    );
    assert_eq!(ids(&s.inbound(&gone, 2)), ["stateless.removed.not-sent"]);
}

#[test]
fn a_server_cancels_only_listen_streams() {
    let mut s = judging_server();
    s.outbound(&request(4, "subscriptions/listen", V2026), 0);
    s.outbound(&request(5, "tools/call", V2026), 0);
    let cancel =
        |id: i64| Message::notification("notifications/cancelled", Some(json!({"requestId": id})));
    assert!(s.inbound(&cancel(4), 1).is_empty());
    assert_eq!(
        ids(&s.inbound(&cancel(5), 2)),
        ["stateless.cancel.listen-only"]
    );
}

#[test]
fn log_messages_need_a_request_that_asked_for_them() {
    let mut s = judging_server();
    assert_eq!(
        ids(&s.inbound(&log("error"), 1)),
        ["logging.meta-level.opt-in"]
    );
    let mut m = meta(V2026);
    m["io.modelcontextprotocol/logLevel"] = json!("warning");
    s.outbound(
        &Message::request(1, "tools/call", Some(json!({"name": "t", "_meta": m}))),
        2,
    );
    assert!(s.inbound(&log("error"), 3).is_empty());
    assert!(s.inbound(&log("warning"), 3).is_empty());
    assert_eq!(
        ids(&s.inbound(&log("info"), 4)),
        ["logging.meta-level.opt-in"]
    );
    let done = json!({"content": [], "resultType": "complete"});
    assert!(s.inbound(&result(1, done), 5).is_empty());
    assert_eq!(
        ids(&s.inbound(&log("error"), 6)),
        ["logging.meta-level.opt-in"]
    );
}

#[test]
fn discover_tells_the_server_capabilities() {
    let mut s = judging_server();
    s.outbound(&request(1, "server/discover", V2026), 0);
    let discovered = json!({
        "supportedVersions": [V2026], "capabilities": {"tools": {}},
        "cacheScope": "public", "ttlMs": 0, "resultType": "complete",
    });
    assert!(s.inbound(&result(1, discovered), 1).is_empty());
    assert_eq!(s.peer_capabilities(), Some(&json!({"tools": {}})));
    let mut m = meta(V2026);
    m["io.modelcontextprotocol/logLevel"] = json!("debug");
    s.outbound(
        &Message::request(2, "tools/list", Some(json!({"_meta": m}))),
        2,
    );
    assert_eq!(
        ids(&s.inbound(&log("info"), 3)),
        ["logging.capability.declared"]
    );
}

#[test]
fn a_fallback_initialize_takes_the_handshake_version() {
    let mut s = judging_server();
    s.outbound(
        &Message::request(1, "initialize", Some(json!({"protocolVersion": V2026}))),
        0,
    );
    let legacy = json!({"protocolVersion": "2025-11-25", "capabilities": {}});
    assert!(s.inbound(&result(1, legacy), 1).is_empty());
    assert_eq!(s.version(), Some(Version::V2025_11_25));
    assert_eq!(s.phase(), &Phase::Initialized);
    assert!(s.inbound(&Message::request(9, "ping", None), 2).is_empty());
    assert_eq!(
        ids(&s.inbound(&Message::request(10, "roots/list", None), 2)),
        ["lifecycle.server.no-requests-before-initialized"]
    );
    s.outbound(&Message::notification("notifications/initialized", None), 3);
    assert!(s
        .inbound(&Message::request(11, "roots/list", None), 4)
        .is_empty());

    // Answered with 2026-07-28 itself, the session stays stateless.
    let mut s = judging_server();
    s.outbound(&Message::request(1, "initialize", Some(json!({}))), 0);
    let modern = json!({"protocolVersion": V2026, "capabilities": {"logging": {}}});
    assert!(s.inbound(&result(1, modern), 1).is_empty());
    assert!(s.is_stateless());
    assert_eq!(s.peer_capabilities(), Some(&json!({"logging": {}})));
}

// ── judging clients ─────────────────────────────────────────────────────────

#[test]
fn every_client_request_carries_version_and_capabilities() {
    let mut s = judging_client();
    assert!(s.inbound(&request(1, "tools/list", V2026), 0).is_empty());
    let clientless = [
        Message::request(2, "tools/list", None),
        Message::request(3, "tools/list", Some(json!({"cursor": "c"}))),
        Message::request(
            4,
            "tools/list",
            Some(json!({"_meta": {"io.modelcontextprotocol/protocolVersion": V2026}})),
        ),
        Message::request(
            5,
            "tools/list",
            Some(json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": 2026,
                "io.modelcontextprotocol/clientCapabilities": {},
            }})),
        ),
    ];
    for m in clientless {
        assert_eq!(
            ids(&s.inbound(&m, 1)),
            ["stateless.meta.required-keys"],
            "{m:?}"
        );
    }
}

#[test]
fn removed_client_methods_are_flagged() {
    let mut s = judging_client();
    for m in [
        request(1, "ping", V2026),
        request(2, "logging/setLevel", V2026),
        request(3, "resources/subscribe", V2026),
        Message::notification("notifications/roots/list_changed", None),
        Message::notification("notifications/initialized", None),
    ] {
        assert_eq!(
            ids(&s.inbound(&m, 1)),
            ["stateless.removed.not-sent"],
            "{m:?}"
        );
    }
    let cancel = Message::notification("notifications/cancelled", Some(json!({"requestId": 1})));
    assert!(s.inbound(&cancel, 2).is_empty());
}

/// A dual-era client probes with server/discover; answered by anything but
/// a modern error, it may fall back to initialize and speak the handshake
/// version from then on.
#[test]
fn a_client_may_fall_back_to_initialize_until_the_server_answered_as_modern() {
    let mut s = judging_client();
    assert!(s
        .inbound(&request(1, "server/discover", V2026), 0)
        .is_empty());
    s.outbound(&error(1, -32601, None), 1);
    let init = Message::request(2, "initialize", Some(json!({"protocolVersion": V2026})));
    assert!(s.inbound(&init, 2).is_empty());
    s.outbound(
        &result(
            2,
            json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
        ),
        3,
    );
    assert_eq!(s.version(), Some(Version::V2025_11_25));
    let initialized = Message::notification("notifications/initialized", None);
    assert!(s.inbound(&initialized, 4).is_empty());
    assert_eq!(s.phase(), &Phase::Operating);
    assert!(s.inbound(&Message::request(3, "ping", None), 5).is_empty());

    for answer in [
        result(
            1,
            json!({"supportedVersions": [V2026], "resultType": "complete"}),
        ),
        error(
            1,
            -32022,
            Some(json!({"requested": "2027-01-01", "supported": [V2026]})),
        ),
    ] {
        let mut s = judging_client();
        assert!(s
            .inbound(&request(1, "server/discover", V2026), 0)
            .is_empty());
        s.outbound(&answer, 1);
        assert_eq!(
            ids(&s.inbound(&init, 2)),
            ["stateless.client.era-cached"],
            "{answer:?}"
        );
    }
}

#[test]
fn a_client_names_a_version_the_server_listed() {
    let mut s = judging_client();
    assert!(s
        .inbound(&request(1, "server/discover", V2026), 0)
        .is_empty());
    let discovered = json!({"supportedVersions": [V2026], "resultType": "complete"});
    s.outbound(&result(1, discovered), 1);
    assert!(s.inbound(&request(2, "tools/list", V2026), 2).is_empty());
    assert_eq!(
        ids(&s.inbound(&request(3, "tools/list", "2027-01-01"), 3)),
        ["stateless.client.version-from-supported"]
    );

    let mut s = judging_client();
    assert!(s
        .inbound(&request(1, "tools/list", "2027-01-01"), 0)
        .is_empty());
    let data = json!({"requested": "2027-01-01", "supported": [V2026]});
    s.outbound(&error(1, -32022, Some(data)), 1);
    assert!(s.inbound(&request(2, "tools/list", V2026), 2).is_empty());
    assert_eq!(
        ids(&s.inbound(&request(3, "tools/list", "2027-01-01"), 3)),
        ["stateless.client.retry-supported"]
    );
}

/// The fuzz checker's invariants allow the fallback's one step back.
#[test]
fn a_fallback_keeps_the_fuzz_invariants() {
    let frames = [
        (
            Direction::Outbound,
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#.to_vec(),
        ),
        (
            Direction::Inbound,
            br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#.to_vec(),
        ),
        (
            Direction::Inbound,
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#.to_vec(),
        ),
        (
            Direction::Outbound,
            br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#.to_vec(),
        ),
    ];
    crate::fuzzing::engine(&crate::fuzzing::script(Some(Version::V2026_07_28), &frames));
}

#[test]
fn complete_cacheable_results_carry_caching_hints() {
    let mut s = judging_server();
    let methods = [
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    ];
    let mut id = 0;
    let mut answer = |s: &mut Session, method: &str, body: Value| -> Vec<&'static str> {
        id += 1;
        s.outbound(&request(id, method, V2026), 0);
        let found = s.inbound(&result(id, body), 1);
        found.iter().map(|v| v.requirement.id).collect()
    };
    for method in methods {
        let hinted = json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": "private"});
        assert!(answer(&mut s, method, hinted).is_empty(), "{method}");
        for bad in [
            json!({"resultType": "complete", "cacheScope": "public"}),
            json!({"resultType": "complete", "ttlMs": 0}),
            json!({"resultType": "complete", "ttlMs": -1, "cacheScope": "public"}),
            json!({"resultType": "complete", "ttlMs": 1.5, "cacheScope": "public"}),
            json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "shared"}),
        ] {
            assert_eq!(
                answer(&mut s, method, bad.clone()),
                ["stateless.result.caching-hints"],
                "{method} {bad}"
            );
        }
        // Interim results are not cacheable (whatever else an
        // input_required answer to this method breaks is another rule's).
        let interim = answer(&mut s, method, json!({"resultType": "input_required"}));
        assert!(
            !interim.contains(&"stateless.result.caching-hints"),
            "{method} {interim:?}"
        );
    }
    // Other methods' results need none.
    assert!(answer(
        &mut s,
        "tools/call",
        json!({"resultType": "complete", "content": []})
    )
    .is_empty());
}

#[test]
fn listed_tools_carry_valid_header_annotations() {
    let mut s = judging_server();
    let mut id = 0;
    let mut list = |s: &mut Session, tools: Value| -> Vec<&'static str> {
        id += 1;
        s.outbound(&request(id, "tools/list", V2026), 0);
        let body =
            json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": tools});
        let found = s.inbound(&result(id, body), 1);
        found.iter().map(|v| v.requirement.id).collect()
    };
    let good = json!([{"name": "g", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "plain": {"type": "number"}}}}]);
    assert!(list(&mut s, good).is_empty());
    let bad = json!([
        {"name": "a", "inputSchema": {"type": "object", "properties": {
            "n": {"type": "number", "x-mcp-header": "N"}}}},
        {"name": "b", "inputSchema": {"type": "object", "properties": {
            "x": {"type": "string", "x-mcp-header": "My Region"}}}}
    ]);
    assert_eq!(
        list(&mut s, bad),
        ["tools.x-mcp-header.valid", "tools.x-mcp-header.valid"]
    );
}
