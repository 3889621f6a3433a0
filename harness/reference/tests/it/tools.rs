//! Tools: calls, argument errors, the slow tool's progress and cancellation.

use crate::support::{methods, slow_call, Client, VERSIONS};
use serde_json::{json, Value};

fn call(c: &mut Client, name: &str, args: Value) -> Value {
    c.ok("tools/call", json!({ "name": name, "arguments": args }))
}

#[test]
fn echo_add_and_fail() {
    let mut c = Client::ready("2025-06-18", &[]);
    let r = call(&mut c, "echo", json!({ "message": "hello" }));
    assert_eq!(r["content"], json!([{ "type": "text", "text": "hello" }]));
    assert!(r.get("isError").is_none());
    assert_eq!(
        call(&mut c, "add", json!({ "a": 1, "b": 2 }))["content"][0]["text"],
        "3"
    );
    assert_eq!(
        call(&mut c, "add", json!({ "a": 0.5, "b": 2 }))["content"][0]["text"],
        "2.5"
    );
    let fail = call(&mut c, "fail", json!({}));
    assert_eq!(fail["isError"], true);
    assert_eq!(fail["content"][0]["type"], "text");
}

#[test]
fn structured_output_only_from_2025_06_18() {
    for v in VERSIONS {
        let mut c = Client::ready(v, &[]);
        let tools = c.list_all("tools/list", "tools").0;
        let def = tools.iter().find(|t| t["name"] == "structured").unwrap();
        let r = call(&mut c, "structured", json!({ "text": "two words" }));
        let modern = v >= "2025-06-18";
        assert_eq!(def.get("outputSchema").is_some(), modern, "{v}");
        assert_eq!(r.get("structuredContent").is_some(), modern, "{v}");
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            text,
            json!({ "length": 9, "words": 2, "upper": "TWO WORDS" })
        );
        if modern {
            assert_eq!(r["structuredContent"], text);
        }
    }
}

#[test]
fn protocol_errors_of_tools_call() {
    let mut c = Client::ready("2025-11-25", &[]);
    assert_eq!(c.code("tools/call", json!({ "name": "nope" })), -32602);
    assert_eq!(c.code("tools/call", json!({})), -32602);
    assert_eq!(c.code("tools/call", json!({ "name": 5 })), -32602);
    assert_eq!(
        c.code("tools/call", json!({ "name": "echo", "arguments": [] })),
        -32602
    );
}

#[test]
fn argument_errors_moved_to_tool_results_in_2025_11_25() {
    let bad = json!({ "name": "add", "arguments": { "a": "1", "b": 2 } });
    for v in VERSIONS {
        let mut c = Client::ready(v, &[]);
        let (resp, _) = c.request("tools/call", Some(bad.clone()));
        if v == "2025-11-25" {
            assert_eq!(resp["result"]["isError"], true);
        } else {
            assert_eq!(resp["error"]["code"], -32602, "{v}");
        }
    }
}

#[test]
fn slow_reports_progress_then_answers() {
    for v in VERSIONS {
        let mut c = Client::ready(v, &[]);
        assert!(c.send(slow_call(42, 1.0, 4, Some(json!("p-1")))).is_empty());
        assert!(c.advance(249).is_empty());
        let mut seen = Vec::new();
        for t in [250, 500, 750, 1000] {
            let out = c.advance(t);
            assert_eq!(out[0]["method"], "notifications/progress", "{v} at {t}");
            let p = &out[0]["params"];
            assert_eq!(p["progressToken"], "p-1");
            assert_eq!(p["total"], 4);
            assert_eq!(p.get("message").is_some(), v != "2024-11-05", "{v}");
            seen.push(p["progress"].as_u64().unwrap());
            if t == 1000 {
                assert_eq!(out.len(), 2);
                assert_eq!(out[1]["id"], 42);
                assert!(out[1]["result"]["content"][0]["text"].is_string());
            } else {
                assert_eq!(out.len(), 1);
            }
        }
        assert_eq!(seen, vec![1, 2, 3, 4]);
        assert_eq!(c.server.next_deadline(), None);
    }
}

#[test]
fn slow_without_token_sends_no_progress_and_defaults_apply() {
    let mut c = Client::ready("2025-06-18", &[]);
    let req =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "slow" } });
    assert!(c.send(req).is_empty());
    assert!(c.advance(1999).is_empty());
    let out = c.advance(2000);
    assert_eq!(out.len(), 1, "default 2 s, no progress without a token");
    assert_eq!(out[0]["id"], 1);
}

#[test]
fn late_ticks_catch_up_in_order() {
    let mut c = Client::ready("2025-06-18", &[]);
    c.send(slow_call(1, 1.0, 5, Some(json!(7))));
    let out = c.server.on_tick(5000);
    let lines = crate::support::json_lines(&out);
    assert_eq!(methods(&lines).len(), 5);
    assert_eq!(lines[5]["id"], 1);
}

#[test]
fn cancelled_slow_call_is_never_answered() {
    let mut c = Client::ready("2025-06-18", &[]);
    c.send(slow_call(3, 1.0, 4, Some(json!("t"))));
    assert_eq!(c.advance(250).len(), 1);
    assert!(c
        .notify(
            "notifications/cancelled",
            Some(json!({ "requestId": 3, "reason": "test" }))
        )
        .is_empty());
    assert!(c.advance(10_000).is_empty(), "no progress, no response");
    assert_eq!(c.server.next_deadline(), None);
    // Cancelling something unknown or finished is ignored.
    assert!(c
        .notify("notifications/cancelled", Some(json!({ "requestId": 3 })))
        .is_empty());
    assert!(c
        .notify(
            "notifications/cancelled",
            Some(json!({ "requestId": "zzz" }))
        )
        .is_empty());
    assert!(c
        .notify("notifications/cancelled", Some(json!({})))
        .is_empty());
}

#[test]
fn slow_argument_limits() {
    let mut c = Client::ready("2025-06-18", &[]);
    for args in [
        json!({ "duration": -1 }),
        json!({ "duration": 61 }),
        json!({ "steps": 1.5 }),
        json!({ "steps": 101 }),
    ] {
        assert_eq!(
            c.code("tools/call", json!({ "name": "slow", "arguments": args })),
            -32602,
            "{args}"
        );
    }
    let bad_token = json!({ "name": "slow", "_meta": { "progressToken": 1.5 } });
    assert_eq!(c.code("tools/call", bad_token), -32602);
    assert!(c.advance(100_000).is_empty());
}
