//! Every message the judged peer sends is checked against its version's schema
//! definition for that method and direction (`mcpspec-schema`), not only
//! against the generic JSON-RPC envelope: `tools/call` params with `name: 5`
//! or a tool without `inputSchema` is caught here whatever the scenario
//! looks at.
//!
//! What is checked, for a case at version V (the target plays `server`):
//!
//! | received              | definition                                   |
//! |-----------------------|----------------------------------------------|
//! | request               | V's request definition for the method        |
//! | notification          | V's notification definition for the method   |
//! | result                | V's result definition of the request's method|
//! | error response        | V's error response (and named error) shapes  |
//!
//! Methods V does not define are left to the engine (unknown methods are
//! judged there), and so is the id of an error response: JSON-RPC answers
//! unreadable input with a null id, which the schemas before 2025-11-25 do
//! not model. Violations carry `schema.message.conforms`.

use mcpspec_engine::ids;
use mcpspec_engine::{Role, Session, Version, Violation};
use mcpspec_wire::Message;
use serde_json::Value;

/// The version a message is judged by: an answer by the version its
/// request named (2026-07-28 requests name theirs in `_meta`; a fallback
/// `initialize` is answered by the era it asks for), anything else by the
/// session's version (which a successful fallback changes), else the case's.
fn judged_version(session: &Session, case: Version, msg: &Message) -> Version {
    let session_version = session.version().unwrap_or(case);
    let Message::Response(r) = msg else {
        return session_version;
    };
    let Some(id) = &r.id else {
        return session_version;
    };
    if let Some(v) = session.request_version(id) {
        return v;
    }
    r.outcome
        .as_ref()
        .ok()
        .and_then(|v| v.get("protocolVersion"))
        .and_then(Value::as_str)
        .and_then(|v| v.parse().ok())
        .unwrap_or(session_version)
}

/// How many schema violations of one message are spelled out.
const SHOWN: usize = 3;

/// Schema violations of `msg`, received from a peer playing `sender`.
/// Must run before the session absorbs `msg` (a response's request is then
/// still pending, so its method is known).
pub fn check(
    session: &Session,
    version: Version,
    sender: Role,
    msg: &Message,
    at_ms: u64,
) -> Option<Violation> {
    let version = judged_version(session, version, msg);
    let schemas = mcpspec_schema::schemas(version);
    let (what, found) = match msg {
        Message::Request(r) => (
            format!("request {}", r.method),
            schemas.check_request(sender, &r.method, &msg.to_value()),
        ),
        Message::Notification(n) => (
            format!("notification {}", n.method),
            schemas.check_notification(sender, &n.method, &msg.to_value()),
        ),
        Message::Response(r) => match &r.outcome {
            Ok(result) => {
                let method = r.id.as_ref().and_then(|id| session.sent_method(id))?;
                (
                    format!("result of {method}"),
                    schemas.check_result(method, result),
                )
            }
            Err(_) => {
                let mut whole = msg.to_value();
                if r.id.is_none() {
                    // JSON-RPC answers unreadable input with a null id, which
                    // the schemas before 2025-11-25 do not model; the engine
                    // judges ids (`jsonrpc.error.null-id`), the schema the rest.
                    whole["id"] = Value::from(0);
                }
                (
                    "error response".to_owned(),
                    schemas.check_error_response(&whole),
                )
            }
        },
    };
    if found.is_empty() {
        return None;
    }
    let mut detail = format!("{what} does not conform to the {version} schema: ");
    let shown: Vec<String> = found.iter().take(SHOWN).map(ToString::to_string).collect();
    detail.push_str(&shown.join("; "));
    if found.len() > SHOWN {
        detail.push_str(&format!("; and {} more", found.len() - SHOWN));
    }
    Some(Violation {
        requirement: &ids::SCHEMA_MESSAGE_CONFORMS,
        detail,
        at_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn client_at(version: Version) -> Session {
        Session::new(Role::Client, Some(version))
    }

    #[test]
    fn a_tool_without_input_schema_is_named_with_its_paths() {
        let mut s = client_at(Version::V2025_06_18);
        s.outbound(&Message::request(1, "tools/list", None), 0);
        let answer = Message::result(1.into(), json!({"tools": [{"name": "t"}]}));
        let v = check(&s, Version::V2025_06_18, Role::Server, &answer, 5).expect("violation");
        assert_eq!(v.requirement.id, "schema.message.conforms");
        assert!(v.detail.contains("result of tools/list"), "{}", v.detail);
        assert!(
            v.detail.contains("ListToolsResult at /tools/0"),
            "{}",
            v.detail
        );
        assert!(v.detail.contains("inputSchema"), "{}", v.detail);
        assert!(v.detail.contains("(schema /"), "{}", v.detail);
    }

    #[test]
    fn conformant_messages_and_unknown_methods_pass() {
        let mut s = client_at(Version::V2025_11_25);
        s.outbound(&Message::request(1, "tools/list", None), 0);
        let ok = Message::result(
            1.into(),
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "x-extra": 1}], "_meta": {}}),
        );
        assert_eq!(check(&s, Version::V2025_11_25, Role::Server, &ok, 1), None);
        let unknown = Message::notification("notifications/vendor/thing", Some(json!({"a": 1})));
        assert_eq!(
            check(&s, Version::V2025_11_25, Role::Server, &unknown, 1),
            None
        );
        let unasked = Message::result(99.into(), json!({"anything": true}));
        assert_eq!(
            check(&s, Version::V2025_11_25, Role::Server, &unasked, 1),
            None
        );
    }

    #[test]
    fn a_null_id_error_is_judged_on_its_error_object_only() {
        let s = client_at(Version::V2024_11_05);
        let ok = Message::error(None, -32700, "parse error", None);
        assert_eq!(check(&s, Version::V2024_11_05, Role::Server, &ok, 1), None);
        // A named error of the version is held to its own definition too.
        let s = client_at(Version::V2026_07_28);
        let unsupported = Message::error(Some(3.into()), -32022, "unsupported version", None);
        let v = check(&s, Version::V2026_07_28, Role::Server, &unsupported, 1);
        assert!(v.is_some_and(|v| v.detail.contains("UnsupportedProtocolVersionError")));
    }

    #[test]
    fn a_mistyped_notification_is_caught() {
        let s = client_at(Version::V2025_03_26);
        let bad = Message::notification(
            "notifications/message",
            Some(json!({"level": "loud", "data": "x"})),
        );
        let v = check(&s, Version::V2025_03_26, Role::Server, &bad, 1).expect("violation");
        assert!(
            v.detail.contains("notification notifications/message"),
            "{}",
            v.detail
        );
        assert!(v.detail.contains("/params/level"), "{}", v.detail);
    }
}
