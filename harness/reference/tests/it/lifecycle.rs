//! Initialization, version negotiation and what is allowed before it.

use crate::support::{Client, VERSIONS};
use serde_json::json;

#[test]
fn handshake_echoes_each_supported_version() {
    for v in VERSIONS {
        let mut c = Client::new(&[]);
        let resp = c.init(v);
        let r = &resp["result"];
        assert_eq!(resp["jsonrpc"], "2.0");
        assert_eq!(r["protocolVersion"], v);
        assert_eq!(r["serverInfo"]["name"], "mcpspec-reference");
        assert_eq!(r["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        let caps = &r["capabilities"];
        assert_eq!(caps["tools"], json!({ "listChanged": true }));
        assert_eq!(
            caps["resources"],
            json!({ "subscribe": true, "listChanged": true })
        );
        assert_eq!(caps["prompts"], json!({ "listChanged": true }));
        assert_eq!(caps["logging"], json!({}));
        let modern = v != "2024-11-05";
        assert_eq!(caps.get("completions").is_some(), modern, "{v}");
        assert_eq!(r.get("instructions").is_some(), modern, "{v}");
        assert_eq!(c.server.version().map(|x| x.as_str()), Some(v));
    }
}

#[test]
fn unknown_versions_get_the_latest_handshake_version() {
    for asked in ["1999-01-01", "2026-07-28", "latest", ""] {
        let mut c = Client::new(&[]);
        assert_eq!(
            c.init(asked)["result"]["protocolVersion"],
            "2025-11-25",
            "{asked}"
        );
    }
}

#[test]
fn initialize_needs_a_string_protocol_version() {
    let mut c = Client::new(&[]);
    assert_eq!(c.code("initialize", json!({ "capabilities": {} })), -32602);
    assert_eq!(
        c.code("initialize", json!({ "protocolVersion": 20251125 })),
        -32602
    );
    assert_eq!(c.code("initialize", json!([])), -32602);
    assert!(
        c.server.version().is_none(),
        "a failed initialize changes nothing"
    );
    assert_eq!(
        c.init("2025-06-18")["result"]["protocolVersion"],
        "2025-06-18"
    );
}

#[test]
fn second_initialize_is_an_invalid_request() {
    let mut c = Client::ready("2025-06-18", &[]);
    let resp = c.init("2025-03-26");
    assert_eq!(resp["error"]["code"], -32600);
    assert_eq!(c.server.version().map(|v| v.as_str()), Some("2025-06-18"));
}

#[test]
fn before_initialize_only_ping_and_initialize_are_served() {
    let mut c = Client::new(&[]);
    assert_eq!(c.ok("ping", json!({})), json!({}));
    let (ping, _) = c.request("ping", None);
    assert_eq!(ping["result"], json!({}));
    assert_eq!(c.code("tools/list", json!({})), -32600);
    assert_eq!(
        c.code("resources/read", json!({ "uri": "mcpspec://blob" })),
        -32600
    );
    assert_eq!(c.code("no/such/method", json!({})), -32601);
    assert!(c.notify("notifications/initialized", None).is_empty());
    c.init("2025-11-25");
    assert_eq!(c.ok("ping", json!({})), json!({}));
}

#[test]
fn notifications_are_never_answered() {
    let mut c = Client::new(&[]);
    c.init("2025-11-25");
    assert!(c.notify("notifications/initialized", None).is_empty());
    assert!(c
        .notify("notifications/roots/list_changed", None)
        .is_empty());
    assert!(c
        .notify("notifications/whatever", Some(json!({ "x": 1 })))
        .is_empty());
    assert!(c
        .notify("notifications/cancelled", Some(json!({ "requestId": 1 })))
        .is_empty());
}

#[test]
fn requests_are_served_before_the_initialized_notification() {
    let mut c = Client::new(&[]);
    c.init("2025-06-18");
    assert!(c.ok("tools/list", json!({}))["tools"].is_array());
}

#[test]
fn eof_exits_cleanly() {
    let mut c = Client::ready("2025-06-18", &[]);
    let out = c.server.on_eof(5);
    assert_eq!(crate::support::exit_code(&out), Some(0));
    assert!(
        c.server.on_frame(6, Ok(frame("{}"))).is_empty(),
        "nothing after exit"
    );
    assert_eq!(c.server.next_deadline(), None);
}

fn frame(text: &str) -> mcpspec_wire::Frame {
    mcpspec_wire::Frame {
        bytes: text.as_bytes().to_vec(),
        line: 1,
        crlf: false,
    }
}
