//! The server's side of multi round-trip requests (2026-07-28,
//! `basic/patterns/mrtr`), judged on every result a server sends to a
//! request that named the stateless version.
//!
//! A server that needs the client's input answers `resultType:
//! "input_required"` instead of sending requests of its own. Such a result:
//!
//! | rule                                           | requirement                                  |
//! |------------------------------------------------|----------------------------------------------|
//! | answers only prompts/get, resources/read, tools/call | `stateless.input-required.supported-requests` |
//! | carries inputRequests (an object), requestState (a string), or both | `stateless.input-required.shape` |
//! | every inputRequests value is an elicitation, sampling or roots request | `stateless.input-required.request-kinds` |
//! | asks only for capabilities the request's `_meta` declared | `stateless.input-required.declared-capabilities` |
//!
//! What happens on the retry (state integrity, validation of the answers)
//! needs a tool whose behaviour is known, so scenarios judge it.

use serde_json::Value;

use crate::catalogue::ids;
use crate::requirement::Requirement;

/// The requests a server may answer with `input_required`.
pub(super) const SUPPORTED: [&str; 3] = ["prompts/get", "resources/read", "tools/call"];

/// The kinds of input request, and the client capability each needs.
pub(super) const KINDS: [(&str, &str); 3] = [
    ("elicitation/create", "elicitation"),
    ("sampling/createMessage", "sampling"),
    ("roots/list", "roots"),
];

/// Judges `result`, the answer to a `method` request whose `_meta` declared
/// `capabilities`; quiet unless it is an `input_required` result.
pub(super) fn judge(
    method: &str,
    capabilities: Option<&Value>,
    result: &Value,
    flag: &mut impl FnMut(&'static Requirement, String),
) {
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return;
    }
    if !method.is_empty() && !SUPPORTED.contains(&method) {
        flag(
            &ids::STATELESS_INPUT_REQUIRED_SUPPORTED_REQUESTS,
            format!(
                "{method} was answered input_required; only {} may be",
                SUPPORTED.join(", ")
            ),
        );
    }
    let requests = result.get("inputRequests");
    let state = result.get("requestState");
    let mut shape = Vec::new();
    if requests.is_none() && state.is_none() {
        shape.push("carries neither inputRequests nor requestState".to_owned());
    }
    if let Some(r) = requests.filter(|r| !r.is_object()) {
        shape.push(format!("has inputRequests {r}, not an object"));
    }
    if let Some(s) = state.filter(|s| !s.is_string()) {
        shape.push(format!("has requestState {s}, not a string"));
    }
    if !shape.is_empty() {
        flag(
            &ids::STATELESS_INPUT_REQUIRED_SHAPE,
            format!(
                "the input_required result of {method} {}",
                shape.join(" and ")
            ),
        );
    }
    let Some(requests) = requests.and_then(Value::as_object) else {
        return;
    };
    for (key, request) in requests {
        let asked = request.get("method").and_then(Value::as_str);
        let kind = asked.and_then(|m| KINDS.iter().find(|(k, _)| *k == m));
        let Some((asked, needs)) = kind else {
            let what = asked.map_or_else(|| "no method".to_owned(), |m| format!("method {m}"));
            flag(
                &ids::STATELESS_INPUT_REQUIRED_REQUEST_KINDS,
                format!(
                    "inputRequests[{key:?}] of {method} names {what}; only elicitation/create, sampling/createMessage and roots/list may be asked"
                ),
            );
            continue;
        };
        let declared = capabilities.and_then(|c| c.get(needs)).is_some();
        if capabilities.is_some() && !declared {
            flag(
                &ids::STATELESS_INPUT_REQUIRED_DECLARED_CAPABILITIES,
                format!(
                    "inputRequests[{key:?}] of {method} asks for {asked}, but the request's clientCapabilities declare no {needs}"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use mcpspec_wire::{Id, Message};
    use serde_json::{json, Value};

    use crate::level::Role;
    use crate::session::Session;
    use crate::version::Version;

    /// The ids a 2026-07-28 server's `answer` to a `method` request
    /// declaring `capabilities` is flagged with.
    fn judged(method: &str, capabilities: Value, answer: Value) -> Vec<&'static str> {
        let mut s = Session::new(Role::Client, Some(Version::V2026_07_28));
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        s.outbound(
            &Message::request(1, method, Some(json!({ "_meta": meta }))),
            0,
        );
        let mut result = answer;
        result["resultType"] = json!("input_required");
        s.inbound(&Message::result(Id::from(1), result), 1)
            .iter()
            .map(|v| v.requirement.id)
            .collect()
    }

    fn ask(method: &str) -> Value {
        json!({ "inputRequests": { "k": { "method": method, "params": {} } } })
    }

    #[test]
    fn a_well_formed_request_for_declared_input_passes() {
        let all = json!({ "roots": {}, "sampling": {}, "elicitation": {} });
        for (kind, _) in super::KINDS {
            for method in super::SUPPORTED {
                assert!(
                    judged(method, all.clone(), ask(kind)).is_empty(),
                    "{method} {kind}"
                );
            }
        }
        let state = json!({ "requestState": "s" });
        assert!(judged("tools/call", json!({}), state).is_empty());
        // A complete result is none of these rules' business.
        let mut s = Session::new(Role::Client, Some(Version::V2026_07_28));
        let meta = json!({ "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }});
        s.outbound(&Message::request(1, "tools/list", Some(meta)), 0);
        let done =
            json!({ "tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private" });
        assert!(s.inbound(&Message::result(Id::from(1), done), 1).is_empty());
    }

    #[test]
    fn only_three_methods_may_be_answered_input_required() {
        let caps = json!({ "roots": {} });
        for method in [
            "tools/list",
            "prompts/list",
            "server/discover",
            "completion/complete",
        ] {
            assert_eq!(
                judged(method, caps.clone(), ask("roots/list")),
                ["stateless.input-required.supported-requests"],
                "{method}"
            );
        }
    }

    #[test]
    fn the_result_carries_requests_or_state_of_the_right_types() {
        for bad in [
            json!({}),
            json!({ "inputRequests": [] }),
            json!({ "requestState": 7 }),
        ] {
            assert_eq!(
                judged("tools/call", json!({}), bad.clone()),
                ["stateless.input-required.shape"],
                "{bad}"
            );
        }
    }

    #[test]
    fn input_requests_are_elicitation_sampling_or_roots() {
        let caps = json!({ "roots": {}, "sampling": {}, "elicitation": {} });
        for bad in [
            ask("ping"),
            ask("tools/call"),
            json!({ "inputRequests": { "k": {} } }),
        ] {
            assert_eq!(
                judged("tools/call", caps.clone(), bad.clone()),
                ["stateless.input-required.request-kinds"],
                "{bad}"
            );
        }
    }

    #[test]
    fn input_requests_ask_only_for_declared_capabilities() {
        for (kind, needs) in super::KINDS {
            let mut others = json!({ "roots": {}, "sampling": {}, "elicitation": {} });
            others.as_object_mut().map(|o| o.remove(needs));
            assert_eq!(
                judged("prompts/get", others, ask(kind)),
                ["stateless.input-required.declared-capabilities"],
                "{kind}"
            );
        }
    }
}
