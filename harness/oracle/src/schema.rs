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
//! not model.
//!
//! ## Which requirement a violation carries
//!
//! One cause is one finding, under the most specific rule that names it.
//! Where the catalogue has a rule that *is* the schema's definition of a
//! message (a `tools/call` result's shape, a log message's members), a
//! message of that method that fails the schema is reported under that
//! rule, from the versions the rule is part of ([`SPECIFIC`]); where a rule
//! covers only part of a message (a form elicitation's `requestedSchema`),
//! it takes the violations under that part of the message, when those are
//! all there is. Everything else carries `schema.message.conforms`. Rules
//! beyond the schema (a capability declared before use, uniqueness) are
//! judged elsewhere; when such a rule already named the cause in a
//! message the schema also rejects, [`crate::frames`] keeps that one
//! finding and drops this one (see [`ENCODED_ELSEWHERE`]).

use mcpspec_engine::ids;
use mcpspec_engine::{Requirement, Role, Session, Version, Violation};
use mcpspec_wire::Message;
use std::collections::HashMap;

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

/// What kind of message a [`SPECIFIC`] row is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Request,
    Notification,
    Result,
}

/// A rule that is the schema's definition of (part of) one message: a
/// message of `kind` and `method` sent by `sender` that fails the schema
/// with every violation's instance path under `under` is reported under
/// `rule`, at the versions the rule is part of.
struct Specific {
    kind: Kind,
    method: &'static str,
    sender: Role,
    /// Instance path prefix (`""`: the whole message or result).
    under: &'static str,
    rule: &'static Requirement,
}

const fn row(
    kind: Kind,
    method: &'static str,
    sender: Role,
    under: &'static str,
    rule: &'static Requirement,
) -> Specific {
    Specific {
        kind,
        method,
        sender,
        under,
        rule,
    }
}

/// The rules that are the schema's own definitions, most specific first
/// (the first row that fits a message's violations names them). Instance
/// paths of requests and notifications start at the message (`/params/…`),
/// of results at the result.
const SPECIFIC: &[Specific] = {
    use Kind::{Notification, Request, Result};
    use Role::{Client, Server};
    &[
        row(
            Result,
            "initialize",
            Server,
            "/capabilities",
            &ids::LIFECYCLE_INITIALIZE_CAPABILITIES_SHAPE,
        ),
        row(
            Result,
            "initialize",
            Server,
            "",
            &ids::LIFECYCLE_INITIALIZE_RESULT_SHAPE,
        ),
        row(
            Request,
            "initialize",
            Client,
            "",
            &ids::LIFECYCLE_INITIALIZE_REQUEST_SHAPE,
        ),
        row(
            Result,
            "server/discover",
            Server,
            "",
            &ids::STATELESS_DISCOVER_RESULT_SHAPE,
        ),
        row(
            Result,
            "tools/list",
            Server,
            "",
            &ids::TOOLS_LIST_RESULT_SHAPE,
        ),
        row(
            Result,
            "tools/call",
            Server,
            "",
            &ids::TOOLS_CALL_RESULT_SHAPE,
        ),
        row(
            Result,
            "resources/list",
            Server,
            "",
            &ids::RESOURCES_LIST_RESULT_SHAPE,
        ),
        row(
            Result,
            "resources/read",
            Server,
            "",
            &ids::RESOURCES_READ_RESULT_SHAPE,
        ),
        row(
            Result,
            "resources/templates/list",
            Server,
            "",
            &ids::RESOURCES_TEMPLATES_RESULT_SHAPE,
        ),
        row(
            Result,
            "prompts/list",
            Server,
            "",
            &ids::PROMPTS_LIST_RESULT_SHAPE,
        ),
        row(
            Result,
            "prompts/get",
            Server,
            "",
            &ids::PROMPTS_GET_RESULT_SHAPE,
        ),
        row(
            Result,
            "completion/complete",
            Server,
            "",
            &ids::COMPLETION_COMPLETE_RESULT_SHAPE,
        ),
        row(
            Notification,
            "notifications/message",
            Server,
            "",
            &ids::LOGGING_MESSAGE_SHAPE,
        ),
        row(
            Notification,
            "notifications/progress",
            Server,
            "",
            &ids::PROGRESS_NOTIFICATION_SHAPE,
        ),
        row(
            Notification,
            "notifications/progress",
            Client,
            "",
            &ids::PROGRESS_NOTIFICATION_SHAPE,
        ),
        row(
            Request,
            "elicitation/create",
            Server,
            "/params/requestedSchema",
            &ids::ELICITATION_SCHEMA_FLAT,
        ),
        row(
            Request,
            "elicitation/create",
            Server,
            "",
            &ids::ELICITATION_REQUEST_SHAPE,
        ),
        row(
            Request,
            "sampling/createMessage",
            Server,
            "/params/messages",
            &ids::SAMPLING_MESSAGES_SHAPE,
        ),
        row(
            Result,
            "roots/list",
            Client,
            "",
            &ids::ROOTS_LIST_RESULT_SHAPE,
        ),
        row(
            Result,
            "sampling/createMessage",
            Client,
            "",
            &ids::SAMPLING_RESULT_SHAPE,
        ),
        row(
            Result,
            "elicitation/create",
            Client,
            "",
            &ids::ELICITATION_RESPONSE_ACTION,
        ),
    ]
};

/// Rules judged beyond the schema whose cause the schema also sees (a
/// missing `resultType`, the data of a named error, an input_required
/// result's members, an input_required result where the method allows
/// none — the schema sees the method's own result missing —, a cacheable
/// result's missing hints): when one of them is reported on a message, the
/// schema's finding on the same message is the same cause and is dropped.
pub const ENCODED_ELSEWHERE: &[&Requirement] = &[
    &ids::STATELESS_RESULT_RESULT_TYPE,
    &ids::STATELESS_INPUT_REQUIRED_SHAPE,
    &ids::STATELESS_INPUT_REQUIRED_SUPPORTED_REQUESTS,
    &ids::STATELESS_RESULT_CACHING_HINTS,
    &ids::STATELESS_ERROR_UNSUPPORTED_VERSION_DATA,
    &ids::STATELESS_ERROR_MISSING_CAPABILITY_DATA,
    &ids::STATELESS_META_REQUIRED_KEYS,
    &ids::PROGRESS_TOKEN_TYPE,
    &ids::TOOLS_INPUT_SCHEMA_VALID,
    &ids::SCHEMA_JSON_SCHEMA_VALID,
];

/// The rule a message's schema violations are reported under.
fn attributed(
    kind: Kind,
    method: &str,
    sender: Role,
    version: Version,
    found: &[mcpspec_schema::Violation],
) -> &'static Requirement {
    SPECIFIC
        .iter()
        .find(|s| {
            s.kind == kind
                && s.method == method
                && s.sender == sender
                && s.rule.applies_to(version)
                && found.iter().all(|v| under(&v.instance_path, s.under))
        })
        .map_or(&ids::SCHEMA_MESSAGE_CONFORMS, |s| s.rule)
}

/// The requests a 2026-07-28 server embeds in an `input_required` result,
/// with the definitions of the request and of its answer.
const EMBEDDABLE: &[(&str, &str, &str)] = &[
    (
        "sampling/createMessage",
        "CreateMessageRequest",
        "CreateMessageResult",
    ),
    ("roots/list", "ListRootsRequest", "ListRootsResult"),
    ("elicitation/create", "ElicitRequest", "ElicitResult"),
];

/// 2026-07-28 carries the server's requests to the client inside a result
/// (`inputRequests`, each keyed) and the client's answers inside its retried
/// request (`params.inputResponses`, under the same keys). The version's
/// schema types each as a union, so a broken one fails the message as a
/// whole, often at its root; so when a message that fails the schema
/// embeds such messages, each is checked against the definition of its own
/// method (a server's by the `method` it names, a client's by the method
/// the harness asked under that key, `asked`), and the first that fails is
/// reported as that message would be: the finding names its rule.
fn embedded(
    schemas: &mcpspec_schema::VersionSchemas,
    version: Version,
    sender: Role,
    whole: &Value,
    asked: &HashMap<String, String>,
) -> Option<(String, Vec<mcpspec_schema::Violation>, &'static Requirement)> {
    let (pointer, kind) = match sender {
        Role::Server => ("/inputRequests", Kind::Request),
        _ => ("/params/inputResponses", Kind::Result),
    };
    let items = whole.pointer(pointer)?.as_object()?;
    items.iter().find_map(|(key, item)| {
        let method = match kind {
            Kind::Request => item.get("method")?.as_str()?.to_owned(),
            _ => asked.get(key)?.clone(),
        };
        let (_, request, result) = EMBEDDABLE.iter().find(|(m, ..)| *m == method)?;
        let definition = if kind == Kind::Request {
            request
        } else {
            result
        };
        let inner = schemas.check(definition, item);
        if inner.is_empty() {
            return None;
        }
        let rule = attributed(kind, &method, sender, version, &inner);
        let what = match kind {
            Kind::Request => format!("input request {key:?} ({method})"),
            _ => format!("input response {key:?} (to {method})"),
        };
        Some((what, inner, rule))
    })
}

/// Whether JSON pointer `path` is `prefix` or lies beneath it.
fn under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Schema violations of `msg`, received from a peer playing `sender`.
/// Must run before the session absorbs `msg` (a response's request is then
/// still pending, so its method is known).
pub fn check(
    session: &Session,
    version: Version,
    sender: Role,
    msg: &Message,
    asked: &HashMap<String, String>,
    at_ms: u64,
) -> Option<Violation> {
    let version = judged_version(session, version, msg);
    let schemas = mcpspec_schema::schemas(version);
    let (what, found, requirement) = match msg {
        Message::Request(r) => {
            let found = schemas.check_request(sender, &r.method, &msg.to_value());
            let rule = attributed(Kind::Request, &r.method, sender, version, &found);
            (format!("request {}", r.method), found, rule)
        }
        Message::Notification(n) => {
            let found = schemas.check_notification(sender, &n.method, &msg.to_value());
            let rule = attributed(Kind::Notification, &n.method, sender, version, &found);
            (format!("notification {}", n.method), found, rule)
        }
        Message::Response(r) => match &r.outcome {
            Ok(result) => {
                let method = r.id.as_ref().and_then(|id| session.sent_method(id))?;
                let found = schemas.check_result(method, result);
                let rule = attributed(Kind::Result, method, sender, version, &found);
                (format!("result of {method}"), found, rule)
            }
            Err(_) => {
                let mut whole = msg.to_value();
                if r.id.is_none() {
                    // JSON-RPC answers unreadable input with a null id, which
                    // the schemas before 2025-11-25 do not model; the engine
                    // judges ids (`jsonrpc.error.null-id`), the schema the rest.
                    whole["id"] = Value::from(0);
                }
                // A -32042 error's data is the definition of
                // `elicitation.url.required-error` where that rule exists.
                let url_required = &ids::ELICITATION_URL_REQUIRED_ERROR;
                let rule = match r.outcome.as_ref().err().map(|e| e.code) {
                    Some(-32042) if url_required.applies_to(version) => url_required,
                    _ => &ids::SCHEMA_MESSAGE_CONFORMS,
                };
                (
                    "error response".to_owned(),
                    schemas.check_error_response(&whole),
                    rule,
                )
            }
        },
    };
    if found.is_empty() {
        return None;
    }
    let whole = match msg {
        Message::Response(r) => r.outcome.as_ref().ok().cloned().unwrap_or_default(),
        _ => msg.to_value(),
    };
    let (what, found, requirement) =
        embedded(schemas, version, sender, &whole, asked).unwrap_or((what, found, requirement));
    let mut detail = format!("{what} does not conform to the {version} schema: ");
    let shown: Vec<String> = found.iter().take(SHOWN).map(ToString::to_string).collect();
    detail.push_str(&shown.join("; "));
    if found.len() > SHOWN {
        detail.push_str(&format!("; and {} more", found.len() - SHOWN));
    }
    Some(Violation {
        requirement,
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

    /// [`super::check`] with no input requests asked.
    fn check(
        session: &Session,
        version: Version,
        sender: Role,
        msg: &Message,
        at_ms: u64,
    ) -> Option<Violation> {
        super::check(session, version, sender, msg, &HashMap::new(), at_ms)
    }

    #[test]
    fn a_message_that_is_one_rules_definition_is_reported_under_it() {
        let s = client_at(Version::V2025_06_18);
        let flat = Message::request(
            "e",
            "elicitation/create",
            Some(json!({"message": "m", "requestedSchema": {"type": "object",
                "properties": {"a": {"type": "object"}}}})),
        );
        let v = check(&s, Version::V2025_06_18, Role::Server, &flat, 1).expect("violation");
        assert_eq!(v.requirement.id, "elicitation.schema.flat");
        // The same request without its message: not only the schema's part.
        let both = Message::request(
            "e",
            "elicitation/create",
            Some(json!({"requestedSchema": {"type": "object",
                "properties": {"a": {"type": "object"}}}})),
        );
        let v = check(&s, Version::V2025_06_18, Role::Server, &both, 1).expect("violation");
        assert_eq!(
            v.requirement.id, "schema.message.conforms",
            "no request-shape rule at 2025-06-18"
        );
        let s = client_at(Version::V2025_11_25);
        let v = check(&s, Version::V2025_11_25, Role::Server, &both, 1).expect("violation");
        assert_eq!(v.requirement.id, "elicitation.request.shape");
    }

    #[test]
    fn an_embedded_input_request_is_judged_by_its_own_definition() {
        let mut s = client_at(Version::V2026_07_28);
        let meta = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}});
        s.outbound(&Message::request(6, "tools/call", Some(meta)), 0);
        let asks = Message::result(
            6.into(),
            json!({"resultType": "input_required", "inputRequests": {"k": {
                "method": "sampling/createMessage",
                "params": {"messages": [{"role": "robot", "content": {"type": "text", "text": "x"}}],
                           "maxTokens": 5}}}}),
        );
        let v = check(&s, Version::V2026_07_28, Role::Server, &asks, 1).expect("violation");
        assert_eq!(v.requirement.id, "sampling.messages.shape", "{}", v.detail);
        assert!(v.detail.contains("input request \"k\""), "{}", v.detail);
    }

    #[test]
    fn a_tool_without_input_schema_is_named_with_its_paths() {
        let mut s = client_at(Version::V2025_06_18);
        s.outbound(&Message::request(1, "tools/list", None), 0);
        let answer = Message::result(1.into(), json!({"tools": [{"name": "t"}]}));
        let v = check(&s, Version::V2025_06_18, Role::Server, &answer, 5).expect("violation");
        assert_eq!(v.requirement.id, "tools.list.result-shape");
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
