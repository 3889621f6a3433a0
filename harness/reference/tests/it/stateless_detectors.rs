//! Detectors for the 2026-07-28 faults (used by `faults`): each runs a few
//! stateless requests against a server with the given faults and says
//! whether its violation showed.

use crate::support::{meta, Client};
use mcpspec_reference::Fault;
use serde_json::{json, Value};

pub fn missing_meta_accepted(f: &[Fault]) -> bool {
    let mut c = Client::new(f);
    let partial = json!({ "_meta": { "io.modelcontextprotocol/clientCapabilities": {} } });
    let (a, _) = c.request("tools/list", Some(partial));
    let (b, _) = c.request("prompts/list", Some(json!({})));
    a.get("result").is_some() || b.get("result").is_some()
}

fn unsupported(f: &[Fault]) -> Value {
    let mut c = Client::new(f);
    let params = json!({ "_meta": meta("1999-01-01", json!({})) });
    c.request("tools/list", Some(params)).0
}

pub fn unsupported_version_wrong_code(f: &[Fault]) -> bool {
    let e = &unsupported(f)["error"];
    e.is_object() && e["code"] != -32022
}

pub fn unsupported_version_no_data(f: &[Fault]) -> bool {
    let e = &unsupported(f)["error"];
    e["code"] == -32022 && !e["data"]["supported"].is_array()
}

pub fn discover_missing_supported_versions(f: &[Fault]) -> bool {
    let r = Client::new(f).stateless("server/discover", json!({}));
    r["result"].is_object() && r["result"].get("supportedVersions").is_none()
}

pub fn result_type_missing(f: &[Fault]) -> bool {
    let r = Client::new(f).stateless("prompts/list", json!({}));
    r["result"].is_object() && r["result"].get("resultType").is_none()
}

pub fn resource_not_found_empty(f: &[Fault]) -> bool {
    let r = Client::new(f).stateless("resources/read", json!({ "uri": "mcpspec://nope" }));
    r["result"]["contents"] == json!([])
}

pub fn capability_inferred(f: &[Fault]) -> bool {
    let mut c = Client::new(f);
    let declaring = json!({ "_meta": meta("2026-07-28", json!({ "roots": {} })) });
    c.request("prompts/list", Some(declaring));
    let call = json!({ "name": "roots", "_meta": meta("2026-07-28", json!({})) });
    c.request("tools/call", Some(call))
        .0
        .get("result")
        .is_some()
}

pub fn removed_method_answered(f: &[Fault]) -> bool {
    Client::new(f)
        .stateless("ping", json!({}))
        .get("result")
        .is_some()
}

/// `_meta` key of the stream a notification belongs to.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Opens a listen stream with `filter` (id 900) and returns everything
/// written over the next second: its answer (if any) and notifications.
fn listen(f: &[Fault], filter: Value) -> Vec<Value> {
    let mut c = Client::new(f);
    let params = json!({ "notifications": filter, "_meta": meta("2026-07-28", json!({})) });
    let mut lines = c.send(
        json!({ "jsonrpc": "2.0", "id": 900, "method": "subscriptions/listen", "params": params }),
    );
    lines.extend(c.advance(1000));
    lines
}

fn counter_filter() -> Value {
    json!({ "resourceSubscriptions": [mcpspec_reference::offer::COUNTER_URI] })
}

fn is_ack(line: &Value) -> bool {
    line["method"] == "notifications/subscriptions/acknowledged"
}

pub fn listen_no_ack(f: &[Fault]) -> bool {
    let lines = listen(f, counter_filter());
    let first = lines.iter().find(|l| l.get("method").is_some());
    !first.is_some_and(is_ack)
}

pub fn listen_unrequested(f: &[Fault]) -> bool {
    listen(f, json!({ "toolsListChanged": true }))
        .iter()
        .any(|l| l["method"] == "notifications/resources/updated")
}

pub fn listen_no_subscription_id(f: &[Fault]) -> bool {
    listen(f, counter_filter())
        .iter()
        .filter(|l| l.get("method").is_some())
        .any(|l| l["params"]["_meta"][SUBSCRIPTION_ID] != 900)
}

pub fn listen_ack_superset(f: &[Fault]) -> bool {
    let requested = json!({ "toolsListChanged": true });
    let lines = listen(f, requested.clone());
    let Some(ack) = lines.iter().find(|l| is_ack(l)) else {
        return false;
    };
    let honoured = ack["params"]["notifications"].as_object().unwrap();
    honoured.iter().any(|(k, v)| match v {
        Value::Bool(true) => requested.get(k) != Some(&json!(true)),
        Value::Bool(false) => false,
        other => requested.get(k) != Some(other),
    })
}

pub fn cache_hints_missing(f: &[Fault]) -> bool {
    let mut c = Client::new(f);
    let read = c.stateless("resources/read", json!({ "uri": "mcpspec://static/1" }));
    let templates = c.stateless("resources/templates/list", json!({}));
    [read, templates]
        .iter()
        .any(|r| r["result"].is_object() && r["result"].get("ttlMs").is_none())
}
