//! Detectors for the faults of what messages say, the rules the oracle
//! judges on every message (used by `faults`): each runs a short session
//! against a server with the given faults and says whether its violation
//! showed.

use crate::support::{slow_call, Client};
use mcpspec_reference::Fault;
use serde_json::{json, Value};

/// The items of up to 20 pages of a list (a looping list is another
/// fault's: this one stops instead of failing).
fn items(c: &mut Client, method: &str, key: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut params = json!({});
    for _ in 0..20 {
        let result = c.ok(method, params);
        all.extend(result[key].as_array().into_iter().flatten().cloned());
        match result.get("nextCursor") {
            Some(cursor) => params = json!({ "cursor": cursor }),
            None => break,
        }
    }
    all
}

/// A notification (a `notifications/` method) that carries an id.
pub fn notification_with_id(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    c.send(slow_call(5, 1.0, 3, Some(json!("tok"))));
    c.advance(5000).iter().any(|l| {
        let method = l["method"].as_str().unwrap_or("");
        method.starts_with("notifications/") && l.get("id").is_some()
    })
}

/// A resource template whose expression braces do not pair up.
pub fn template_not_rfc6570(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    items(&mut c, "resources/templates/list", "resourceTemplates")
        .iter()
        .any(|t| {
            let uri = t["uriTemplate"].as_str().unwrap_or("");
            uri.matches('{').count() != uri.matches('}').count()
        })
}

/// A tool whose input schema gives a property a `minimum` that is no number.
pub fn tool_schema_invalid(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-11-25", f);
    items(&mut c, "tools/list", "tools").iter().any(|t| {
        let props = t["inputSchema"]["properties"].as_object();
        props
            .into_iter()
            .flatten()
            .any(|(_, p)| p.get("minimum").is_some_and(|m| !m.is_number()))
    })
}

/// A `_meta` key of a tools/list result with a space in it.
pub fn meta_key_malformed(f: &[Fault]) -> bool {
    let mut c = Client::ready("2025-06-18", f);
    let result = c.ok("tools/list", json!({}));
    let meta = result["_meta"].as_object();
    meta.into_iter().flatten().any(|(k, _)| k.contains(' '))
}

/// 2026-07-28: a list page reached through a cursor with another
/// cacheScope than the first page.
pub fn page_scope_varies(f: &[Fault]) -> bool {
    let mut c = Client::new(f);
    ["tools/list", "resources/list", "prompts/list"]
        .iter()
        .any(|method| {
            let first = c.stateless(method, json!({}))["result"].clone();
            let Some(cursor) = first.get("nextCursor").cloned() else {
                return false;
            };
            let next = c.stateless(method, json!({ "cursor": cursor }))["result"].clone();
            next["cacheScope"] != first["cacheScope"] && next["cacheScope"] != Value::Null
        })
}

/// test_sampling offers tools to a client that declared only `sampling: {}`.
pub fn sampling_tools_ungated(f: &[Fault]) -> bool {
    crate::fixture_detectors::asked(f, "test_sampling")
        .is_some_and(|r| r["params"].get("tools").is_some())
}

/// test_elicitation asks in URL mode a client that declared only
/// `elicitation: {}` (form mode).
pub fn elicitation_url_undeclared(f: &[Fault]) -> bool {
    crate::fixture_detectors::asked(f, "test_elicitation")
        .is_some_and(|r| r["params"]["mode"] == "url")
}
