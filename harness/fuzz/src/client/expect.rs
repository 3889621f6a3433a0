//! What a client owes in return for an input, and which verdicts apply to a
//! client at all.
//!
//! The bytes are read as for servers ([`crate::expect::derive`]: the strict
//! reading, the lenient second readings, ambiguous input owed nothing); the
//! requests found are then held to the client's rules:
//!
//! | request                                               | the client owes                                        |
//! |-------------------------------------------------------|--------------------------------------------------------|
//! | `ping`                                                | an answer within the timeout (a result: `ping.respond`) |
//! | `roots/list`, `tasks/*`, capability declared          | an answer within the timeout                           |
//! | `sampling/createMessage`, `elicitation/create`, declared | nothing within the timeout: a human may be asked; an answer is accepted |
//! | `roots/list` without the `roots` capability           | an error, -32601 (`roots.error.unsupported`, SHOULD)    |
//! | `sampling/…`, `elicitation/…` without the capability  | an error (`sampling.capability.declared`, `elicitation.capability.declared`: answering offers it) |
//! | a method no version defines                           | an error, -32601 (`jsonrpc.error.method-not-found`)     |
//! | any other method (client→server ones, or not in the version) | an error, any code (the client does not implement it) |
//!
//! Invalid input (a null id, a missing `jsonrpc`…) may be answered with
//! anything or nothing: the error classes JSON-RPC asks of a *server* for
//! it are not catalogued for clients. [`client_verdicts`] adapts the
//! shared judge's verdicts accordingly.

use mcpspec_engine::Role;
use mcpspec_engine::{ids, Binds, Requirement, Version};
use mcpspec_schema::{schemas, Kind};
use serde_json::Value;

use crate::expect::{
    derive as derive_bytes, Ctx, Expect, Want, ANY_ERROR_FOR_UNKNOWN, METHOD_NOT_FOUND,
};
use crate::input::{Framing, Input};
use crate::minimize::kind_of;
use crate::oracle::{Oracle, Verdict};

/// `roots/list` to a client that did not declare roots.
const ROOTS_UNSUPPORTED: Want = Want {
    codes: &[-32601],
    requirement: &ids::ROOTS_ERROR_UNSUPPORTED,
};
const SAMPLING_UNDECLARED: Want = Want {
    codes: &[],
    requirement: &ids::SAMPLING_CAPABILITY_DECLARED,
};
const ELICITATION_UNDECLARED: Want = Want {
    codes: &[],
    requirement: &ids::ELICITATION_CAPABILITY_DECLARED,
};

/// The requirements of [`Want`]s about undeclared capabilities.
const CAPABILITY_RULES: [&Requirement; 3] = [
    ROOTS_UNSUPPORTED.requirement,
    SAMPLING_UNDECLARED.requirement,
    ELICITATION_UNDECLARED.requirement,
];

/// What a request owes when the client receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owes {
    /// An answer within the timeout; with a want, only an error is right.
    Answer(Option<Want>),
    /// Nothing within the timeout; an answer (any) is accepted.
    Maybe,
}

/// The expectations of one input sent to a client that speaks `version` and
/// declared `capabilities` in its initialize request.
pub fn derive(input: &Input, version: Version, capabilities: &Value) -> Vec<Expect> {
    let ctx = Ctx {
        version,
        initialized: true,
        capabilities: None,
        framing: Framing::Ndjson,
    };
    derive_bytes(input, ctx)
        .into_iter()
        .map(|e| match e {
            Expect::Owed {
                id,
                method,
                error,
                token,
                batch,
            } => match owes(&method, error, version, capabilities) {
                Owes::Answer(error) => Expect::Owed {
                    id,
                    method,
                    error,
                    token,
                    batch,
                },
                Owes::Maybe => Expect::MayAnswer { id, error: None },
            },
            Expect::MayAnswer { id, .. } => Expect::MayAnswer { id, error: None },
            other => other,
        })
        .collect()
}

/// The message kind of an input sent to a client, for deduplication (the
/// server fuzzer's [`kind_of`], with "undeclared" for a capability the
/// client did not declare).
pub fn kind(expects: &[Expect]) -> String {
    let k = kind_of(expects);
    match k.strip_prefix("malformed ") {
        Some(method) => format!("undeclared {method}"),
        None => k,
    }
}

fn owes(method: &str, derived: Option<Want>, version: Version, caps: &Value) -> Owes {
    if derived == Some(METHOD_NOT_FOUND) || !known_anywhere(method) {
        return Owes::Answer(Some(METHOD_NOT_FOUND));
    }
    let served = schemas(version)
        .method(method)
        .is_some_and(|m| m.kind == Kind::Request && m.senders.includes(Role::Server));
    if !served {
        return Owes::Answer(Some(ANY_ERROR_FOR_UNKNOWN));
    }
    let declared = |cap: &str| declared(caps, cap);
    match method.split('/').next().unwrap_or_default() {
        "roots" if !declared("roots") => Owes::Answer(Some(ROOTS_UNSUPPORTED)),
        "sampling" if !declared("sampling") => Owes::Answer(Some(SAMPLING_UNDECLARED)),
        "elicitation" if !declared("elicitation") => Owes::Answer(Some(ELICITATION_UNDECLARED)),
        "tasks" if !declared("tasks") => Owes::Answer(Some(ANY_ERROR_FOR_UNKNOWN)),
        // A human may be asked first (sampling.human-in-the-loop).
        "sampling" | "elicitation" => Owes::Maybe,
        _ => Owes::Answer(None),
    }
}

/// The message kind of a request the client does not implement, whatever
/// its method: one finding, not one per method.
pub const UNSERVED: &str = "request of a method the client does not implement";

/// Whether a client that declared `caps` serves the request `method`: some
/// version lets a server send it, and the client declared its capability.
fn serves(method: &str, caps: &Value) -> bool {
    let server_sent = Version::ALL.iter().any(|v| {
        schemas(*v)
            .method(method)
            .is_some_and(|m| m.kind == Kind::Request && m.senders.includes(Role::Server))
    });
    let cap = method.split('/').next().unwrap_or_default();
    server_sent && (cap == "ping" || declared(caps, cap))
}

fn declared(caps: &Value, cap: &str) -> bool {
    caps.get(cap).is_some_and(Value::is_object)
}

fn known_anywhere(method: &str) -> bool {
    Version::ALL
        .iter()
        .any(|v| schemas(*v).method(method).is_some())
}

/// The shared judge's verdicts, as they apply to a client:
///
/// - what a server's stdout must not carry is what a client's writes to the
///   server's stdin must not: `stdio.client.stdin-only-mcp`;
/// - after input made of notifications only, an answer to an id nobody sent
///   is an answer to a notification (`jsonrpc.notification.no-response`);
/// - an error demanded for an undeclared capability is named so;
/// - "request X" of a method the client does not serve (no version lets a
///   server send it, or its capability was not declared) is one kind,
///   whatever X;
/// - a verdict citing a rule that binds servers only is dropped.
pub fn client_verdicts(
    verdicts: Vec<Verdict>,
    notifications_only: bool,
    capabilities: &Value,
) -> Vec<Verdict> {
    verdicts
        .into_iter()
        .filter_map(|mut v| {
            if v.requirement == &ids::STDIO_STDOUT_ONLY_MCP {
                v.requirement = &ids::STDIO_CLIENT_STDIN_ONLY_MCP;
                v.subject = Some(format!("output breaking {}", v.requirement.id));
            }
            if notifications_only
                && v.requirement == &ids::JSONRPC_RESPONSE_ID_MATCHES
                && v.detail.contains("which no request carried")
            {
                v.oracle = Oracle::Notification;
                v.requirement = &ids::JSONRPC_NOTIFICATION_NO_RESPONSE;
                v.detail = format!("after input made of notifications only, {}", v.detail);
                v.subject = Some("notification answered".to_owned());
            }
            if CAPABILITY_RULES.contains(&v.requirement) {
                let method = v
                    .subject
                    .as_deref()
                    .and_then(|s| s.strip_prefix("malformed "))
                    .unwrap_or("request")
                    .to_owned();
                v.detail = v.detail.replacen(
                    &format!("malformed {method}"),
                    &format!("{method} (a capability the client did not declare)"),
                    1,
                );
                v.subject = Some(format!("undeclared {method}"));
            }
            if v.requirement == METHOD_NOT_FOUND.requirement {
                if let Some(rest) = v.detail.strip_prefix("malformed ") {
                    v.detail =
                        format!("a request for a method the client does not implement, {rest}");
                }
            }
            if let Some(method) = v
                .subject
                .as_deref()
                .and_then(|s| s.strip_prefix("request "))
            {
                if method != "in a batch" && !serves(method, capabilities) {
                    v.subject = Some(UNSERVED.to_owned());
                }
            }
            let server_only = v.requirement.binds == Binds::Server;
            (!server_only).then_some(v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Hint, Level};
    use mcpspec_wire::Id;
    use serde_json::json;

    fn exp(line: &str, caps: &Value) -> Vec<Expect> {
        let input = Input::new(
            Level::Mcp,
            "t",
            Hint::Exact,
            format!("{line}\n").into_bytes(),
        );
        derive(&input, Version::V2025_11_25, caps)
    }

    fn owed_error(e: &[Expect]) -> Option<Option<Want>> {
        match e {
            [Expect::Owed { error, .. }] => Some(*error),
            _ => None,
        }
    }

    #[test]
    fn a_client_owes_what_it_serves_and_errors_for_the_rest() {
        let all = json!({ "roots": {}, "sampling": {}, "elicitation": {} });
        let none = json!({});
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(owed_error(&exp(ping, &none)), Some(None));
        let roots = r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#;
        assert_eq!(owed_error(&exp(roots, &all)), Some(None));
        assert_eq!(
            owed_error(&exp(roots, &none)),
            Some(Some(ROOTS_UNSUPPORTED))
        );
        let sampling = r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}"#;
        assert_eq!(
            exp(sampling, &all),
            vec![Expect::MayAnswer {
                id: Id::from(1),
                error: None
            }]
        );
        assert_eq!(
            owed_error(&exp(sampling, &none)),
            Some(Some(SAMPLING_UNDECLARED))
        );
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(
            owed_error(&exp(call, &all)),
            Some(Some(ANY_ERROR_FOR_UNKNOWN))
        );
        let unknown = r#"{"jsonrpc":"2.0","id":1,"method":"x/y"}"#;
        assert_eq!(
            owed_error(&exp(unknown, &all)),
            Some(Some(METHOD_NOT_FOUND))
        );
        // Invalid JSON-RPC may be answered with anything.
        let e = exp(r#"{"id":4,"method":"ping"}"#, &all);
        assert!(e.contains(&Expect::MayAnswer {
            id: Id::from(4),
            error: None
        }));
        assert_eq!(
            kind(&exp(sampling, &none)),
            "undeclared sampling/createMessage"
        );
    }

    #[test]
    fn verdicts_are_adapted_to_clients() {
        let caps = json!({ "roots": {} });
        let noise = Verdict::new(
            Oracle::Stdout,
            &ids::STDIO_STDOUT_ONLY_MCP,
            "x".into(),
            Some(1),
        )
        .about("output breaking stdio.stdout-only-mcp".into());
        let server_only = Verdict::new(
            Oracle::ErrorClass,
            &ids::JSONRPC_ERROR_INVALID_REQUEST,
            "x".into(),
            None,
        );
        let stray = Verdict::new(
            Oracle::Stdout,
            &ids::JSONRPC_RESPONSE_ID_MATCHES,
            "a response to id 0, which no request carried".into(),
            Some(2),
        );
        let v = client_verdicts(vec![noise, server_only, stray.clone()], true, &caps);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].requirement.id, "stdio.client.stdin-only-mcp");
        assert_eq!(v[1].oracle, Oracle::Notification);
        assert_eq!(
            client_verdicts(vec![stray], false, &caps)[0].oracle,
            Oracle::Stdout
        );
        let undeclared = Verdict::new(
            Oracle::ErrorClass,
            &ids::SAMPLING_CAPABILITY_DECLARED,
            "malformed sampling/createMessage (id 1) was answered with a success result".into(),
            Some(3),
        )
        .about("malformed sampling/createMessage".into());
        let v = client_verdicts(vec![undeclared], false, &caps);
        assert_eq!(
            v[0].subject.as_deref(),
            Some("undeclared sampling/createMessage")
        );
        assert!(
            v[0].detail
                .starts_with("sampling/createMessage (a capability"),
            "{}",
            v[0].detail
        );
        for method in [
            "mcpspec/no-such-method-7",
            "tools/call",
            "sampling/createMessage",
        ] {
            let lost = Verdict::new(
                Oracle::Unanswered,
                &ids::JSONRPC_REQUEST_ANSWERED,
                "x".into(),
                None,
            )
            .about(format!("request {method}"));
            assert_eq!(
                client_verdicts(vec![lost], false, &caps)[0]
                    .subject
                    .as_deref(),
                Some(UNSERVED)
            );
        }
        let roots = Verdict::new(
            Oracle::Unanswered,
            &ids::JSONRPC_REQUEST_ANSWERED,
            "x".into(),
            None,
        )
        .about("request roots/list".into());
        assert_eq!(
            client_verdicts(vec![roots], false, &caps)[0]
                .subject
                .as_deref(),
            Some("request roots/list")
        );
        let success = Verdict::new(
            Oracle::ErrorClass,
            &ids::JSONRPC_ERROR_METHOD_NOT_FOUND,
            "malformed x/y (id 1) was answered with a success result".into(),
            Some(1),
        );
        assert!(client_verdicts(vec![success], false, &caps)[0]
            .detail
            .starts_with("a request for a method the client does not implement, x/y (id 1)"));
    }
}
