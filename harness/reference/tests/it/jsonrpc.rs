//! JSON-RPC error classes, framing errors and batches.

use crate::support::{json_lines, slow_call, split_response, Client, VERSIONS};
use mcpspec_wire::{FrameError, FrameErrorKind};
use serde_json::{json, Value};

#[test]
fn unparseable_json_is_a_parse_error_with_null_id() {
    let mut c = Client::ready("2025-06-18", &[]);
    for line in ["{not json", "{\"jsonrpc\":\"2.0\",", "nul"] {
        let out = json_lines(&c.bytes(format!("{line}\n").as_bytes()));
        assert_eq!(out.len(), 1, "{line}");
        assert_eq!(out[0]["error"]["code"], -32700);
        assert_eq!(out[0]["id"], Value::Null);
        assert_eq!(out[0]["jsonrpc"], "2.0");
    }
    // Still alive.
    assert_eq!(c.ok("ping", json!({})), json!({}));
}

#[test]
fn framing_errors_are_parse_errors() {
    let mut c = Client::ready("2025-06-18", &[]);
    let out = json_lines(&c.bytes(b"{\"a\":\"\xff\"}\n"));
    assert_eq!(out[0]["error"]["code"], -32700);
    assert_eq!(out[0]["id"], Value::Null);
    let oversize = Err(FrameError {
        kind: FrameErrorKind::Oversize { len: 99, limit: 10 },
        line: 3,
        bytes: vec![b'x'; 10],
    });
    let out = json_lines(&c.server.on_frame(0, oversize));
    assert_eq!(out[0]["error"]["code"], -32700);
}

#[test]
fn invalid_requests_keep_a_readable_id() {
    let mut c = Client::ready("2025-06-18", &[]);
    let cases = [
        (json!({ "id": 7, "method": "ping" }), json!(7)),
        (
            json!({ "jsonrpc": "1.0", "id": "x", "method": "ping" }),
            json!("x"),
        ),
        (json!({ "jsonrpc": "2.0", "id": 8, "method": 3 }), json!(8)),
        (
            json!({ "jsonrpc": "2.0", "id": null, "method": "ping" }),
            Value::Null,
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 1.5, "method": "ping" }),
            Value::Null,
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 9, "method": "ping", "params": 3 }),
            json!(9),
        ),
        (json!(42), Value::Null),
        (json!([]), Value::Null),
    ];
    for (msg, id) in cases {
        let out = c.send(msg.clone());
        assert_eq!(out.len(), 1, "{msg}");
        assert_eq!(out[0]["error"]["code"], -32600, "{msg}");
        assert_eq!(out[0]["id"], id, "{msg}");
    }
}

#[test]
fn unknown_methods_and_bad_params() {
    let mut c = Client::ready("2025-11-25", &[]);
    assert_eq!(c.code("tools/frobnicate", json!({})), -32601);
    assert_eq!(c.code("tools/list", json!([1, 2])), -32602);
    assert_eq!(c.code("tools/list", json!({ "cursor": 5 })), -32602);
    // Unsolicited responses from the client are ignored.
    assert!(c
        .send(json!({ "jsonrpc": "2.0", "id": 99, "result": {} }))
        .is_empty());
}

#[test]
fn a_request_id_in_flight_cannot_be_reused() {
    let mut c = Client::ready("2025-06-18", &[]);
    assert!(c.send(slow_call(5, 1.0, 1, None)).is_empty());
    let out = c.send(json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" }));
    assert_eq!(out[0]["error"]["code"], -32600);
    let done = c.advance(1000);
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["id"], 5);
    assert!(done[0]["result"].is_object());
}

fn batch() -> Value {
    json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ping" },
        { "jsonrpc": "2.0", "method": "notifications/whatever" },
        { "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "echo", "arguments": { "message": "hi" } } },
        { "jsonrpc": "2.0", "id": 3, "method": "nope" },
        { "jsonrpc": "2.0", "id": true, "method": "ping" },
    ])
}

#[test]
fn batches_are_answered_as_one_array_under_2025_03_26() {
    let mut c = Client::ready("2025-03-26", &[]);
    let out = c.send(batch());
    assert_eq!(out.len(), 1, "one line");
    let arr = out[0].as_array().unwrap();
    assert_eq!(arr.len(), 4, "notifications get no entry: {arr:?}");
    assert_eq!(arr[0]["result"], json!({}));
    assert_eq!(arr[1]["result"]["content"][0]["text"], "hi");
    assert_eq!(arr[2]["error"]["code"], -32601);
    assert_eq!(arr[3]["error"]["code"], -32600);
    assert_eq!(arr[3]["id"], Value::Null);
    // All notifications: nothing at all.
    let quiet = json!([{ "jsonrpc": "2.0", "method": "notifications/a" }, { "jsonrpc": "2.0", "method": "notifications/b" }]);
    assert!(c.send(quiet).is_empty());
}

#[test]
fn batches_are_rejected_outside_2025_03_26() {
    for v in VERSIONS.into_iter().filter(|v| *v != "2025-03-26") {
        let mut c = Client::ready(v, &[]);
        let out = c.send(batch());
        assert_eq!(out.len(), 1, "{v}");
        assert_eq!(out[0]["error"]["code"], -32600, "{v}");
        assert_eq!(out[0]["id"], Value::Null, "{v}");
    }
    let mut c = Client::new(&[]);
    let out = c.send(json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]));
    assert_eq!(out[0]["error"]["code"], -32600, "before initialize");
}

#[test]
fn a_batch_waits_for_its_slow_call() {
    let mut c = Client::ready("2025-03-26", &[]);
    let b = json!([slow_call(10, 0.5, 2, Some(json!("tok"))), { "jsonrpc": "2.0", "id": 11, "method": "ping" }]);
    assert!(c.send(b).is_empty(), "nothing until the slow call is done");
    let out = c.advance(500);
    assert_eq!(
        out.len(),
        3,
        "two progress notifications, then the batch: {out:?}"
    );
    let arr = out[2].as_array().unwrap();
    let ids: Vec<_> = arr.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, vec![json!(11), json!(10)]);
}

#[test]
fn a_batch_whose_slow_call_is_cancelled_is_sent_without_it() {
    let mut c = Client::ready("2025-03-26", &[]);
    let b = json!([slow_call(10, 1.0, 1, None), { "jsonrpc": "2.0", "id": 11, "method": "ping" }]);
    assert!(c.send(b).is_empty());
    let out = c.notify("notifications/cancelled", Some(json!({ "requestId": 10 })));
    assert_eq!(out.len(), 1);
    let (resp, _) = split_response(out[0].as_array().unwrap().clone(), &json!(11));
    assert_eq!(resp["result"], json!({}));
    assert!(c.advance(5000).is_empty());
}
