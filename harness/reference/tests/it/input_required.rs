//! The input-required fixtures of 2026-07-28 (`mrtr`): each asks for its
//! input, completes on a retry that brings it, and refuses what it must; and
//! the detectors of the `input-required-*` faults (used by `faults`).

use crate::support::{meta, Client};
use mcpspec_reference::offer::{INPUT_REQUIRED_PROMPT, INPUT_REQUIRED_TOOLS};
use mcpspec_reference::Fault;
use serde_json::{json, Value};

const ELICITATION: &str = "test_input_required_result_elicitation";

fn all_caps() -> Value {
    json!({ "elicitation": {}, "sampling": {}, "roots": {} })
}

/// `tools/call` of `tool` declaring `caps`, with `extra` params merged in;
/// the whole response.
fn call(f: &[Fault], tool: &str, caps: Value, extra: Value) -> Value {
    let mut params = json!({ "name": tool, "arguments": {}, "_meta": meta("2026-07-28", caps) });
    if let Value::Object(extra) = extra {
        for (k, v) in extra {
            params[k] = v;
        }
    }
    Client::new(f).request("tools/call", Some(params)).0
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

fn sampled(text: &str) -> Value {
    json!({ "role": "assistant", "content": { "type": "text", "text": text }, "model": "m" })
}

fn roots() -> Value {
    json!({ "roots": [{ "uri": "file:///tmp/r" }] })
}

/// Every item of a 2026-07-28 listing, over all pages.
fn list_2026(c: &mut Client, method: &str, key: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut params = json!({});
    for _ in 0..100 {
        let r = c.stateless(method, params);
        items.extend(r["result"][key].as_array().unwrap().iter().cloned());
        match r["result"].get("nextCursor") {
            Some(cursor) => params = json!({ "cursor": cursor }),
            None => return items,
        }
    }
    panic!("{method} never ends")
}

fn text(r: &Value) -> String {
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

// ── behaviour ───────────────────────────────────────────────────────────────

#[test]
fn the_fixtures_are_listed_only_in_2026() {
    let mut c = Client::new(&[]);
    let tools = list_2026(&mut c, "tools/list", "tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for t in INPUT_REQUIRED_TOOLS {
        assert!(names.contains(&t), "{t} in {names:?}");
    }
    let prompts = list_2026(&mut c, "prompts/list", "prompts");
    assert!(prompts.iter().any(|p| p["name"] == INPUT_REQUIRED_PROMPT));
    let mut old = Client::ready("2025-11-25", &[]);
    let (tools, _) = old.list_all("tools/list", "tools");
    assert!(!tools.iter().any(|t| t["name"] == ELICITATION));
}

#[test]
fn each_one_round_fixture_asks_then_completes() {
    let cases = [
        (
            ELICITATION,
            "user_name",
            accept(json!({ "name": "Ada" })),
            "Hello, Ada!",
        ),
        (
            "test_input_required_result_sampling",
            "capital_question",
            sampled("Paris"),
            "Paris",
        ),
        (
            "test_input_required_result_list_roots",
            "client_roots",
            roots(),
            "file:///tmp/r",
        ),
    ];
    for (tool, key, answer, says) in cases {
        let first = call(&[], tool, all_caps(), json!({}));
        let r = &first["result"];
        assert_eq!(r["resultType"], "input_required", "{tool}: {first}");
        assert!(
            r["inputRequests"][key]["method"].is_string(),
            "{tool}: {first}"
        );
        let done = call(
            &[],
            tool,
            all_caps(),
            json!({ "inputResponses": { key: answer } }),
        );
        assert_eq!(done["result"]["resultType"], "complete", "{tool}: {done}");
        assert!(text(&done).contains(says), "{tool}: {done}");
    }
}

#[test]
fn a_tool_without_the_capability_it_asks_for_is_refused() {
    let r = call(&[], ELICITATION, json!({ "roots": {} }), json!({}));
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert!(r["error"]["data"]["requiredCapabilities"]["elicitation"].is_object());
}

#[test]
fn request_state_round_trips_and_a_tampered_one_is_refused() {
    for tool in [
        "test_input_required_result_request_state",
        "test_input_required_result_tampered_state",
    ] {
        let first = call(&[], tool, all_caps(), json!({}));
        let state = first["result"]["requestState"].as_str().unwrap().to_owned();
        let answer = json!({ "confirm": accept(json!({ "ok": true })) });
        let done = call(
            &[],
            tool,
            all_caps(),
            json!({ "inputResponses": answer, "requestState": state }),
        );
        assert!(text(&done).contains("state-ok"), "{done}");
        let forged = format!("{state}-TAMPERED");
        let bad = call(
            &[],
            tool,
            all_caps(),
            json!({ "inputResponses": answer, "requestState": forged }),
        );
        assert_eq!(bad["error"]["code"], -32602, "{bad}");
    }
    // A state another tool issued is refused too.
    let other = call(
        &[],
        "test_input_required_result_multi_round",
        all_caps(),
        json!({}),
    );
    let state = other["result"]["requestState"].clone();
    let answer = json!({ "confirm": accept(json!({ "ok": true })) });
    let r = call(
        &[],
        "test_input_required_result_request_state",
        all_caps(),
        json!({ "inputResponses": answer, "requestState": state }),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[test]
fn multiple_inputs_and_multiple_rounds() {
    let tool = "test_input_required_result_multiple_inputs";
    let first = call(&[], tool, all_caps(), json!({}));
    let asked = first["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(asked.len(), 3, "{first}");
    let answers = json!({
        "user_name": accept(json!({ "name": "Ada" })),
        "greeting": sampled("hi"),
        "client_roots": roots(),
    });
    let state = first["result"]["requestState"].clone();
    let done = call(
        &[],
        tool,
        all_caps(),
        json!({ "inputResponses": answers, "requestState": state }),
    );
    assert_eq!(done["result"]["resultType"], "complete", "{done}");

    let tool = "test_input_required_result_multi_round";
    let r1 = call(&[], tool, all_caps(), json!({}));
    let s1 = r1["result"]["requestState"].clone();
    let step1 = json!({ "step1": accept(json!({ "name": "Ada" })) });
    let r2 = call(
        &[],
        tool,
        all_caps(),
        json!({ "inputResponses": step1, "requestState": s1 }),
    );
    assert!(r2["result"]["inputRequests"]["step2"].is_object(), "{r2}");
    let s2 = r2["result"]["requestState"].clone();
    assert_ne!(s1, s2);
    let step2 = json!({ "step2": accept(json!({ "color": "blue" })) });
    let r3 = call(
        &[],
        tool,
        all_caps(),
        json!({ "inputResponses": step2, "requestState": s2 }),
    );
    assert_eq!(text(&r3), "Ada's favourite colour is blue", "{r3}");
}

#[test]
fn the_capabilities_fixture_asks_only_for_what_is_declared() {
    let tool = "test_input_required_result_capabilities";
    let r = call(&[], tool, json!({ "sampling": {} }), json!({}));
    let asked: Vec<&str> = r["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|v| v["method"].as_str())
        .collect();
    assert_eq!(asked, ["sampling/createMessage"], "{r}");
    let none = call(&[], tool, json!({}), json!({}));
    assert_eq!(none["result"]["resultType"], "complete", "{none}");
}

#[test]
fn answers_are_validated_missing_ones_asked_again_and_extra_ones_ignored() {
    let wrong = call(
        &[],
        ELICITATION,
        all_caps(),
        json!({ "inputResponses": { "user_name": 12345 } }),
    );
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    let null = call(
        &[],
        ELICITATION,
        all_caps(),
        json!({ "inputResponses": null }),
    );
    assert_eq!(null["error"]["code"], -32602, "{null}");
    let missing = call(
        &[],
        ELICITATION,
        all_caps(),
        json!({ "inputResponses": { "other": {} } }),
    );
    assert_eq!(
        missing["result"]["resultType"], "input_required",
        "{missing}"
    );
    let extra = json!({ "user_name": accept(json!({ "name": "Ada" })), "more": { "x": 1 } });
    let ok = call(
        &[],
        ELICITATION,
        all_caps(),
        json!({ "inputResponses": extra }),
    );
    assert_eq!(text(&ok), "Hello, Ada!", "{ok}");
}

#[test]
fn the_prompt_asks_then_gives_its_messages() {
    let mut c = Client::new(&[]);
    let get = |c: &mut Client, extra: Value| {
        let mut p =
            json!({ "name": INPUT_REQUIRED_PROMPT, "_meta": meta("2026-07-28", all_caps()) });
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                p[k] = v;
            }
        }
        c.request("prompts/get", Some(p)).0
    };
    let first = get(&mut c, json!({}));
    assert!(
        first["result"]["inputRequests"]["user_context"].is_object(),
        "{first}"
    );
    let answer = json!({ "user_context": accept(json!({ "context": "tests" })) });
    let done = get(&mut c, json!({ "inputResponses": answer }));
    assert!(done["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("tests"));
}

// ── fault detectors ─────────────────────────────────────────────────────────

pub fn on_list(f: &[Fault]) -> bool {
    Client::new(f).stateless("prompts/list", json!({}))["result"]["resultType"] == "input_required"
}

pub fn undeclared(f: &[Fault]) -> bool {
    call(f, ELICITATION, json!({}), json!({}))["result"]["inputRequests"].is_object()
}

pub fn state_unverified(f: &[Fault]) -> bool {
    let tool = "test_input_required_result_tampered_state";
    let first = call(f, tool, all_caps(), json!({}));
    let Some(state) = first["result"]["requestState"].as_str() else {
        return false;
    };
    let answer = json!({ "confirm": accept(json!({ "ok": true })) });
    let forged = format!("{state}-TAMPERED");
    let r = call(
        f,
        tool,
        all_caps(),
        json!({ "inputResponses": answer, "requestState": forged }),
    );
    r["result"]["resultType"] == "complete"
}

pub fn missing_error(f: &[Fault]) -> bool {
    // No answer at all (an extra one would be the business of another fault).
    call(f, ELICITATION, all_caps(), json!({ "inputResponses": {} }))["error"].is_object()
}

pub fn extra_rejected(f: &[Fault]) -> bool {
    let extra = json!({ "user_name": accept(json!({ "name": "Ada" })), "more": { "x": 1 } });
    call(
        f,
        ELICITATION,
        all_caps(),
        json!({ "inputResponses": extra }),
    )["error"]
        .is_object()
}

pub fn unvalidated(f: &[Fault]) -> bool {
    let wrong = json!({ "user_name": 12345 });
    call(
        f,
        ELICITATION,
        all_caps(),
        json!({ "inputResponses": wrong }),
    )["result"]["resultType"]
        == "complete"
}

pub fn retry_ignored(f: &[Fault]) -> bool {
    let answer = json!({ "user_name": accept(json!({ "name": "Ada" })) });
    call(
        f,
        ELICITATION,
        all_caps(),
        json!({ "inputResponses": answer }),
    )["result"]["resultType"]
        == "input_required"
}

pub fn result_type_missing(f: &[Fault]) -> bool {
    let r = call(f, ELICITATION, all_caps(), json!({}));
    r["result"]["inputRequests"].is_object() && r["result"].get("resultType").is_none()
}

pub fn decline_fails(f: &[Fault]) -> bool {
    ["decline", "cancel"].iter().any(|action| {
        let refused = json!({ "user_name": { "action": action } });
        call(
            f,
            ELICITATION,
            all_caps(),
            json!({ "inputResponses": refused }),
        )["error"]
            .is_object()
    })
}
