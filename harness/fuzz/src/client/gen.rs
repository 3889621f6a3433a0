//! Inputs for a client under test: seeded, pure, one per exec — the same
//! seed, exec index and version always give the same bytes.
//!
//! The bytes, json and jsonrpc levels are the server fuzzer's generators
//! ([`crate::gen`]): the messages they break are client→server requests and
//! notifications, which to a client are requests it does not serve (owed an
//! error) and notifications it does not know; the framing, JSON and envelope
//! mutations are what those levels test. The mcp level is this module's:
//! what a *server* sends.
//!
//! | label                        | what                                                                 |
//! |------------------------------|----------------------------------------------------------------------|
//! | `mcp/server-request`         | a request a server may send at the version: ping, roots/list, sampling/createMessage, elicitation/create (2025-06-18 on), tasks/* (2025-11-25) |
//! | `mcp/edge-progress-token`    | the same with a `_meta.progressToken` (huge, negative, odd strings)   |
//! | `mcp/edge-string`            | the same with unusual but valid strings                               |
//! | `mcp/edge-extra-member`      | the same with an unknown extra params member                          |
//! | `mcp/missing-member`         | a member the request needs removed (messages, maxTokens, message, requestedSchema, taskId) |
//! | `mcp/member-type`            | that member of the wrong JSON type                                    |
//! | `mcp/params-array`           | params as an array                                                    |
//! | `mcp/misdirected`            | a client→server request (tools/list, resources/read…) sent to the client |
//! | `mcp/unknown-request`        | a method no version defines                                           |
//! | `mcp/notification`           | a valid server notification: progress, message, list_changed, resources/updated, cancelled, tasks/status, elicitation/complete |
//! | `mcp/notification-mutated`   | the same with a member removed, mistyped, huge or deeply nested       |
//! | `mcp/unknown-notification`   | a notification no version defines                                     |
//!
//! Request ids are the server fuzzer's ([`crate::gen::Ctx::id`]: integers
//! from 1 000 000 up, or `fz-…` strings), and cancellations name ids the
//! client never sent, so no input touches the client's own (held) request.

use mcpspec_engine::{Role, Version};
use mcpspec_schema::{schemas, Kind};
use serde_json::{json, Value};

use crate::gen::mcp::{break_member, notification, request, wrong_type};
use crate::gen::{line, Ctx, Knowledge, Phase};
use crate::input::{Framing, Hint, Input, Level};
use crate::rng::Rng;
use mcpspec_reference::LogLevel;

/// The input of exec `exec`, at one of `levels` (all when empty), for a
/// client speaking `version`.
pub fn generate(seed: u64, levels: &[Level], version: Version, exec: u64) -> Input {
    let mut rng = Rng::for_exec(seed, exec);
    let levels = if levels.is_empty() {
        &Level::ALL[..]
    } else {
        levels
    };
    let know = Knowledge::default();
    let ctx = Ctx {
        version,
        phase: Phase::Operating,
        know: &know,
        exec,
        framing: Framing::Ndjson,
    };
    match *rng.pick(levels) {
        Level::Bytes => crate::gen::bytes::generate(&mut rng, ctx),
        Level::Json => crate::gen::json::generate(&mut rng, ctx),
        Level::Jsonrpc => crate::gen::jsonrpc::generate(&mut rng, ctx),
        Level::Mcp => mcp(&mut rng, ctx),
    }
}

/// The requests a server may send at `version`.
pub fn server_requests(version: Version) -> Vec<&'static str> {
    schemas(version)
        .methods()
        .iter()
        .filter(|m| m.kind == Kind::Request && m.senders.includes(Role::Server))
        .map(|m| m.name)
        .collect()
}

/// The notifications a server may send at `version`.
fn server_notifications(version: Version) -> Vec<&'static str> {
    schemas(version)
        .methods()
        .iter()
        .filter(|m| m.kind == Kind::Notification && m.senders.includes(Role::Server))
        .map(|m| m.name)
        .collect()
}

/// Strings a schema `string` accepts but a client may trip on.
fn edge_string(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => String::new(),
        1 => "ü🦀 \u{202e}rtl \u{0} nul".to_owned(),
        2 => "x".repeat(rng.range(1000, 20_000)),
        3 => "\\\"'<>&%s%n{}${jndi:x}".to_owned(),
        4 => "\u{feff}bom".to_owned(),
        5 => "line\nbreak\r\ttab".to_owned(),
        6 => "../../../../etc/passwd".to_owned(),
        _ => format!("fuzz-{}", rng.next_u64()),
    }
}

fn text(rng: &mut Rng) -> String {
    if rng.one_in(3) {
        edge_string(rng)
    } else {
        "Say hello.".to_owned()
    }
}

/// Valid params of a server request, or `None` for no params member.
fn request_params(method: &str, rng: &mut Rng, ctx: Ctx<'_>) -> Option<Value> {
    Some(match method {
        "ping" | "roots/list" | "tasks/list" => return rng.coin().then(|| json!({})),
        "sampling/createMessage" => {
            let mut p = json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": text(rng) } }],
                "maxTokens": *rng.pick(&[1, 16, 1000, i64::from(i32::MAX)]),
            });
            if rng.coin() {
                p["systemPrompt"] = Value::from(text(rng));
            }
            if rng.coin() {
                p["includeContext"] = Value::from(*rng.pick(&["none", "thisServer", "allServers"]));
            }
            if rng.coin() {
                p["modelPreferences"] = json!({
                    "hints": [{ "name": text(rng) }],
                    "costPriority": 0, "speedPriority": 1, "intelligencePriority": 0.5
                });
            }
            if rng.one_in(3) {
                p["temperature"] = json!(0.7);
                p["stopSequences"] = json!(["\n\n", ""]);
                p["metadata"] = json!({ "fuzz": ctx.exec });
            }
            p
        }
        "elicitation/create" => {
            let mut p = json!({
                "message": text(rng),
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "description": text(rng) },
                        "age": { "type": "integer", "minimum": 0 },
                        "ok": { "type": "boolean" }
                    },
                    "required": ["name"]
                }
            });
            if ctx.version >= Version::V2025_11_25 && rng.coin() {
                p["mode"] = Value::from("form");
            }
            p
        }
        "tasks/get" | "tasks/result" | "tasks/cancel" => {
            json!({ "taskId": format!("fuzz-task-{}", rng.below(10)) })
        }
        _ => json!({}),
    })
}

/// The members a server request cannot be served without.
fn essential(method: &str) -> &'static [&'static str] {
    match method {
        "sampling/createMessage" => &["messages", "maxTokens"],
        "elicitation/create" => &["message", "requestedSchema"],
        "tasks/get" | "tasks/result" | "tasks/cancel" => &["taskId"],
        _ => &[],
    }
}

/// Valid params of a server notification, or `None` for no params member.
fn notification_params(method: &str, rng: &mut Rng, ctx: Ctx<'_>) -> Option<Value> {
    Some(match method {
        "notifications/progress" => {
            let mut p =
                json!({ "progressToken": progress_token(rng, ctx), "progress": rng.below(100) });
            if rng.coin() {
                p["total"] = json!(100);
            }
            if rng.coin() {
                p["message"] = Value::from(text(rng));
            }
            p
        }
        "notifications/message" => {
            let data = match rng.below(4) {
                0 => Value::from(text(rng)),
                1 => json!({ "error": "fuzz", "n": [1, 2, 3] }),
                2 => Value::Null,
                _ => json!(42),
            };
            let mut p = json!({ "level": rng.pick(&LogLevel::ALL).as_str(), "data": data });
            if rng.coin() {
                p["logger"] = Value::from(text(rng));
            }
            p
        }
        "notifications/resources/updated" => {
            json!({ "uri": format!("file:///fuzz/{}", rng.below(100)) })
        }
        "notifications/cancelled" => {
            json!({ "requestId": ctx.id(9), "reason": text(rng) })
        }
        "notifications/tasks/status" => json!({
            "taskId": format!("fuzz-task-{}", rng.below(10)),
            "status": *rng.pick(&["working", "input_required", "completed", "failed", "cancelled"]),
            "createdAt": "2025-01-01T00:00:00Z",
            "lastUpdatedAt": "2025-01-01T00:00:01Z",
            "ttl": null
        }),
        "notifications/elicitation/complete" => {
            json!({ "elicitationId": format!("fuzz-elicitation-{}", ctx.exec) })
        }
        _ => return rng.coin().then(|| json!({})),
    })
}

/// A progress token no request of the client carries.
fn progress_token(rng: &mut Rng, ctx: Ctx<'_>) -> Value {
    match rng.below(4) {
        0 => Value::from(i64::MAX),
        1 => Value::from(-1),
        2 => Value::from(edge_string(rng)),
        _ => Value::from(format!("tok-{}", ctx.exec)),
    }
}

/// A valid server request of this exec (id `ctx.id(0)`).
pub fn server_request(rng: &mut Rng, ctx: Ctx<'_>) -> Value {
    let methods = server_requests(ctx.version);
    let method = methods
        .get(rng.below(methods.len()))
        .copied()
        .unwrap_or("ping");
    request(ctx.id(0), method, request_params(method, rng, ctx))
}

/// The mcp level: what a server sends, valid and broken.
pub fn mcp(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let (label, hint, m) = match rng.below(12) {
        0 | 1 => ("mcp/server-request", Hint::Exact, server_request(rng, ctx)),
        2 => edge(rng, ctx),
        3 | 4 => malformed(rng, ctx),
        5 => {
            let method = *rng.pick(&[
                "tools/list",
                "tools/call",
                "resources/read",
                "prompts/get",
                "logging/setLevel",
                "completion/complete",
                "initialize",
            ]);
            let m = request(ctx.id(0), method, Some(json!({})));
            ("mcp/misdirected", Hint::Exact, m)
        }
        6 => {
            let method = match rng.below(3) {
                0 => format!("mcpspec/no-such-method-{}", rng.below(100)),
                1 => "SAMPLING/CREATEMESSAGE".to_owned(),
                _ => "roots/list/".to_owned(),
            };
            let m = request(ctx.id(0), &method, rng.coin().then(|| json!({})));
            ("mcp/unknown-request", Hint::Exact, m)
        }
        7..=9 => {
            let methods = server_notifications(ctx.version);
            let method = methods
                .get(rng.below(methods.len()))
                .copied()
                .unwrap_or("notifications/message");
            let m = notification(method, notification_params(method, rng, ctx));
            ("mcp/notification", Hint::Exact, m)
        }
        10 => (
            "mcp/notification-mutated",
            Hint::Exact,
            mutated_notification(rng, ctx),
        ),
        _ => {
            let method = format!("notifications/mcpspec/fuzz-{}", rng.below(10));
            let m = notification(&method, Some(json!({ "x": text(rng) })));
            ("mcp/unknown-notification", Hint::Exact, m)
        }
    };
    Input::new(Level::Mcp, label, hint, line(&m))
}

fn edge(rng: &mut Rng, ctx: Ctx<'_>) -> (&'static str, Hint, Value) {
    let mut m = server_request(rng, ctx);
    if !m.get("params").is_some_and(Value::is_object) {
        m["params"] = json!({});
    }
    let label = match rng.below(3) {
        0 => {
            m["params"]["_meta"] = json!({ "progressToken": progress_token(rng, ctx) });
            "mcp/edge-progress-token"
        }
        1 => {
            m["params"]["x-mcpspec-fuzz"] = Value::from(edge_string(rng));
            "mcp/edge-extra-member"
        }
        _ => {
            if let Some(Value::Object(p)) = m.get_mut("params") {
                for v in p.values_mut() {
                    if v.is_string() {
                        *v = Value::from(edge_string(rng));
                    }
                }
            }
            "mcp/edge-string"
        }
    };
    (label, Hint::Exact, m)
}

/// A server request with a member it needs removed or mistyped (or its
/// params an array); [`Hint::SchemaInvalid`] when the version's schema
/// rejects the result.
fn malformed(rng: &mut Rng, ctx: Ctx<'_>) -> (&'static str, Hint, Value) {
    let methods: Vec<&str> = server_requests(ctx.version)
        .into_iter()
        .filter(|m| !essential(m).is_empty())
        .collect();
    let Some(&method) = methods.get(rng.below(methods.len())) else {
        return ("mcp/server-request", Hint::Exact, server_request(rng, ctx));
    };
    let p = request_params(method, rng, ctx).unwrap_or_else(|| json!({}));
    let member = *rng.pick(essential(method));
    let (label, p) = break_member(rng, p, member);
    let m = request(ctx.id(0), method, Some(p));
    let rejected = !schemas(ctx.version)
        .check_request(Role::Server, method, &m)
        .is_empty();
    let hint = if rejected {
        Hint::SchemaInvalid
    } else {
        Hint::Exact
    };
    (label, hint, m)
}

/// A server notification with one member removed, mistyped, huge or deep.
fn mutated_notification(rng: &mut Rng, ctx: Ctx<'_>) -> Value {
    let methods = server_notifications(ctx.version);
    let method = methods
        .get(rng.below(methods.len()))
        .copied()
        .unwrap_or("notifications/progress");
    let mut p = notification_params(method, rng, ctx).unwrap_or_else(|| json!({}));
    let keys: Vec<String> = p
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let key = keys
        .get(rng.below(keys.len()))
        .cloned()
        .unwrap_or_else(|| "x-mcpspec-fuzz".to_owned());
    match rng.below(4) {
        0 => {
            if let Some(o) = p.as_object_mut() {
                o.remove(&key);
            }
        }
        1 => {
            let bad = wrong_type(p.get(&key), rng);
            p[&key] = bad;
        }
        2 => p[&key] = Value::from("z".repeat(rng.range(10_000, 200_000))),
        _ => {
            let depth = rng.range(16, 64);
            let deep = (0..depth).fold(json!(1), |v, _| json!([v]));
            p[&key] = deep;
        }
    }
    notification(method, Some(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_wire::{classify, Inbound, Message};

    fn ctx(k: &Knowledge, version: Version, exec: u64) -> Ctx<'_> {
        Ctx {
            version,
            phase: Phase::Operating,
            know: k,
            exec,
            framing: Framing::Ndjson,
        }
    }

    #[test]
    fn same_seed_same_inputs() {
        for exec in 0..200 {
            let a = generate(5, &[], Version::V2025_11_25, exec);
            assert_eq!(a, generate(5, &[], Version::V2025_11_25, exec));
            assert!(!a.bytes.is_empty(), "{}", a.label);
        }
        let differ = (0..50)
            .filter(|&e| {
                generate(1, &[], Version::V2025_06_18, e)
                    != generate(2, &[], Version::V2025_06_18, e)
            })
            .count();
        assert!(differ > 40);
        for exec in 0..100 {
            assert_eq!(
                generate(3, &[Level::Mcp], Version::V2025_06_18, exec).level,
                Level::Mcp
            );
        }
    }

    #[test]
    fn valid_server_messages_conform_to_the_schema() {
        let k = Knowledge::default();
        for version in Version::HANDSHAKE {
            let s = schemas(version);
            let mut seen = 0;
            for exec in 0..400 {
                let i = mcp(&mut Rng::for_exec(21, exec), ctx(&k, version, exec));
                if !matches!(i.label.as_str(), "mcp/server-request" | "mcp/notification") {
                    continue;
                }
                seen += 1;
                let body = &i.bytes[..i.bytes.len() - 1];
                let v: Value = serde_json::from_slice(body).unwrap();
                let method = v["method"].as_str().unwrap().to_owned();
                let violations = if v.get("id").is_some() {
                    s.check_request(Role::Server, &method, &v)
                } else {
                    s.check_notification(Role::Server, &method, &v)
                };
                assert!(violations.is_empty(), "{version} {v}: {violations:?}");
            }
            assert!(seen > 100, "{version}: {seen}");
        }
    }

    #[test]
    fn no_input_names_a_small_request_id() {
        let k = Knowledge::default();
        for exec in 0..600 {
            let i = mcp(
                &mut Rng::for_exec(8, exec),
                ctx(&k, Version::V2025_11_25, exec),
            );
            let body = &i.bytes[..i.bytes.len() - 1];
            let Ok(Inbound::Single(m)) = classify(body) else {
                continue;
            };
            let named = match &m {
                Message::Request(r) => Some(r.id.to_value()),
                Message::Notification(n) if n.method == "notifications/cancelled" => {
                    n.params.as_ref().and_then(|p| p.get("requestId")).cloned()
                }
                _ => None,
            };
            if let Some(Value::Number(n)) = named {
                assert!(n.as_i64().is_none_or(|n| n >= 1_000_000), "{}", i.label);
            }
        }
    }

    #[test]
    fn malformed_requests_are_rejected_by_the_schema() {
        let k = Knowledge::default();
        let mut invalid = 0;
        for exec in 0..300 {
            let (_, hint, _) = malformed(
                &mut Rng::for_exec(4, exec),
                ctx(&k, Version::V2025_06_18, exec),
            );
            invalid += usize::from(hint == Hint::SchemaInvalid);
        }
        assert!(invalid > 250, "{invalid}");
        assert!(server_requests(Version::V2025_03_26).contains(&"roots/list"));
        assert!(!server_requests(Version::V2025_03_26).contains(&"elicitation/create"));
    }
}
