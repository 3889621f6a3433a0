//! Prompts and completion.

use crate::support::Client;
use serde_json::json;

#[test]
fn prompts_get_returns_messages() {
    let mut c = Client::ready("2025-06-18", &[]);
    let simple = c.ok("prompts/get", json!({ "name": "simple" }));
    assert_eq!(simple["messages"][0]["role"], "user");
    assert_eq!(simple["messages"][0]["content"]["type"], "text");
    let greet = c.ok(
        "prompts/get",
        json!({ "name": "greet", "arguments": { "name": "Ada", "style": "formal" } }),
    );
    assert_eq!(
        greet["messages"][0]["content"]["text"],
        "Greet Ada in a formal style."
    );
    let d = c.ok("prompts/get", json!({ "name": "dialogue" }));
    assert_eq!(d["messages"].as_array().unwrap().len(), 3);
}

#[test]
fn prompt_errors_are_invalid_params() {
    let mut c = Client::ready("2025-06-18", &[]);
    assert_eq!(c.code("prompts/get", json!({ "name": "greet" })), -32602);
    assert_eq!(
        c.code(
            "prompts/get",
            json!({ "name": "greet", "arguments": { "style": "formal" } })
        ),
        -32602
    );
    assert_eq!(c.code("prompts/get", json!({ "name": "nope" })), -32602);
    assert_eq!(c.code("prompts/get", json!({})), -32602);
    assert_eq!(
        c.code(
            "prompts/get",
            json!({ "name": "greet", "arguments": { "name": 1 } })
        ),
        -32602
    );
}

#[test]
fn completion_of_prompt_arguments_and_template_variables() {
    for v in ["2024-11-05", "2025-11-25"] {
        let mut c = Client::ready(v, &[]);
        let r = c.ok(
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "greet" }, "argument": { "name": "name", "value": "al" } }),
        );
        assert_eq!(
            r["completion"],
            json!({ "values": ["Alan", "Alice"], "total": 2, "hasMore": false })
        );
        let r = c.ok(
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": "mcpspec://items/{id}" }, "argument": { "name": "id", "value": "1" } }),
        );
        assert_eq!(r["completion"]["values"], json!(["1", "10", "11", "12"]));
    }
}

#[test]
fn completion_errors() {
    let mut c = Client::ready("2025-06-18", &[]);
    let arg = json!({ "name": "x", "value": "" });
    for reference in [
        json!({ "type": "ref/prompt", "name": "nope" }),
        json!({ "type": "ref/resource", "uri": "mcpspec://nope/{x}" }),
        json!({ "type": "ref/tool", "name": "echo" }),
        json!({}),
    ] {
        assert_eq!(
            c.code(
                "completion/complete",
                json!({ "ref": reference, "argument": arg })
            ),
            -32602,
            "{reference}"
        );
    }
    assert_eq!(
        c.code(
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "greet" } })
        ),
        -32602
    );
}
