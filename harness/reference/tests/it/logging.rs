//! logging/setLevel and the server's own log notifications.

use crate::support::Client;
use serde_json::{json, Value};

fn echo_logs(c: &mut Client, tool: &str) -> Vec<String> {
    let (resp, rest) = c.request(
        "tools/call",
        Some(json!({ "name": tool, "arguments": { "message": "m" } })),
    );
    assert!(resp["result"].is_object());
    rest.iter()
        .map(|n| {
            assert_eq!(n["method"], "notifications/message");
            assert_eq!(n["params"]["logger"], "mcpspec-reference");
            assert!(n["params"].get("data").is_some());
            n["params"]["level"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn nothing_is_logged_before_set_level() {
    let mut c = Client::ready("2025-06-18", &[]);
    assert!(echo_logs(&mut c, "echo").is_empty());
    assert!(echo_logs(&mut c, "fail").is_empty());
}

#[test]
fn only_messages_at_or_above_the_level_are_sent() {
    let mut c = Client::ready("2025-06-18", &[]);
    assert_eq!(
        c.ok("logging/setLevel", json!({ "level": "info" })),
        json!({})
    );
    assert_eq!(echo_logs(&mut c, "echo"), ["info"]);
    assert_eq!(echo_logs(&mut c, "fail"), ["info", "warning"]);
    c.ok("logging/setLevel", json!({ "level": "debug" }));
    assert_eq!(echo_logs(&mut c, "echo"), ["debug", "info"]);
    c.ok("logging/setLevel", json!({ "level": "warning" }));
    assert!(echo_logs(&mut c, "echo").is_empty());
    assert_eq!(echo_logs(&mut c, "fail"), ["warning"]);
    c.ok("logging/setLevel", json!({ "level": "emergency" }));
    assert!(echo_logs(&mut c, "fail").is_empty());
}

#[test]
fn unknown_levels_are_invalid_params() {
    let mut c = Client::ready("2025-06-18", &[]);
    for level in [json!("verbose"), json!("INFO"), json!(3), Value::Null] {
        assert_eq!(
            c.code("logging/setLevel", json!({ "level": level })),
            -32602,
            "{level}"
        );
    }
    assert_eq!(c.code("logging/setLevel", json!({})), -32602);
    assert!(
        echo_logs(&mut c, "echo").is_empty(),
        "a failed setLevel sets nothing"
    );
}
