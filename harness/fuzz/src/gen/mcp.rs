//! MCP level: valid requests and notifications of the negotiated version,
//! and schema-aware mutations of them, in each lifecycle phase.
//!
//! - **valid** (`mcp/valid`): a request the version defines, with params a
//!   client may send (tool arguments from the tool's input schema, minimal
//!   values so that no call is slow on purpose); sometimes with edge values
//!   the schema allows (`mcp/edge`: a `_meta.progressToken`, unusual but valid
//!   strings, an unknown extra member). Owed an answer, result or error.
//! - **malformed** (`mcp/missing-member`, `mcp/member-type`, `mcp/params-array`):
//!   a member the request cannot be served without (the tool's or prompt's
//!   `name`, a `uri`, the log `level`, `protocolVersion`…) removed or given a
//!   value of the wrong type. [`Hint::SchemaInvalid`]: the schema must agree
//!   before an error is demanded (see [`crate::expect`]).
//! - **before initialization**: the same, for any method but a valid
//!   `initialize` (the driver performs the handshake itself).
//! - **around cancellation** (`mcp/cancel-*`): a request followed at once by
//!   `notifications/cancelled` for it, a cancellation of an id never sent,
//!   a cancellation with broken params, a cancellation ahead of its request.
//! - **notifications** (`mcp/notification`): never to be answered.

use serde_json::{json, Map, Value};

use super::{line, Ctx, Phase};
use crate::input::{Hint, Input, Level};
use crate::rng::Rng;

/// Request methods a client may send, by version table; those without a
/// params builder here get `{}`.
fn request_methods(ctx: Ctx<'_>) -> Vec<&'static str> {
    use mcpspec_engine::Role;
    use mcpspec_schema::{schemas, Kind};
    schemas(ctx.version)
        .methods()
        .iter()
        .filter(|m| m.kind == Kind::Request && m.senders.includes(Role::Client))
        .filter(|m| m.name != "initialize" && m.name != "server/discover")
        .map(|m| m.name)
        .collect()
}

/// The member a request cannot be served without, per method.
fn essential(method: &str) -> &'static [&'static str] {
    match method {
        "tools/call" | "prompts/get" => &["name"],
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => &["uri"],
        "logging/setLevel" => &["level"],
        "completion/complete" => &["ref", "argument"],
        "initialize" => &["protocolVersion"],
        "tasks/get" | "tasks/result" | "tasks/cancel" => &["taskId"],
        _ => &[],
    }
}

const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Strings a schema `string` accepts but an implementation may trip on.
fn edge_string(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => String::new(),
        1 => "ü🦀 \u{202e}rtl \u{0} nul".to_owned(),
        2 => "x".repeat(rng.range(1000, 20_000)),
        3 => "\\\"'<>&%s%n{}".to_owned(),
        4 => "\u{feff}bom".to_owned(),
        5 => "line\nbreak\r\ttab".to_owned(),
        6 => "../../../../etc/passwd".to_owned(),
        _ => format!("fuzz-{}", rng.next_u64()),
    }
}

/// A minimal value satisfying a (simple) JSON schema: numbers at their
/// minimum, so that no call is slow on purpose.
fn value_for(schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    if let Some(Value::Array(options)) = schema.get("enum") {
        if let Some(v) = options.get(rng.below(options.len())) {
            return v.clone();
        }
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.first().and_then(Value::as_str).unwrap_or("string"),
        _ => "string",
    };
    match ty {
        "integer" => Value::from(schema.get("minimum").and_then(Value::as_i64).unwrap_or(0)),
        "number" => schema.get("minimum").cloned().unwrap_or(Value::from(0)),
        "boolean" => Value::Bool(rng.coin()),
        "null" => Value::Null,
        "array" => Value::Array(Vec::new()),
        "object" if depth < 4 => object_for(schema, rng, depth + 1),
        "object" => json!({}),
        _ => Value::from(edge_string(rng)),
    }
}

fn object_for(schema: &Value, rng: &mut Rng, depth: u32) -> Value {
    let mut out = Map::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (k, s) in props {
            if required.contains(&k.as_str()) || rng.coin() {
                out.insert(k.clone(), value_for(s, rng, depth));
            }
        }
    }
    Value::Object(out)
}

/// Valid params for `method`, or `None` for no params member.
fn params(method: &str, rng: &mut Rng, ctx: Ctx<'_>) -> Option<Value> {
    let know = ctx.know;
    Some(match method {
        "ping" => return rng.coin().then(|| json!({})),
        "tools/list"
        | "prompts/list"
        | "resources/list"
        | "resources/templates/list"
        | "tasks/list" => return rng.coin().then(|| json!({})),
        "tools/call" => match know.tools.get(rng.below(know.tools.len() + 1)) {
            Some(t) => json!({ "name": t.name, "arguments": value_for(&t.input_schema, rng, 0) }),
            None => {
                json!({ "name": format!("fuzz-no-such-tool-{}", rng.below(100)), "arguments": {} })
            }
        },
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            let uri = match know.resources.get(rng.below(know.resources.len() + 1)) {
                Some(u) => u.clone(),
                None => format!("file:///fuzz/{}", rng.below(100)),
            };
            json!({ "uri": uri })
        }
        "prompts/get" => match know.prompts.get(rng.below(know.prompts.len() + 1)) {
            Some(p) => {
                let mut args = Map::new();
                for (name, required) in &p.arguments {
                    if *required || rng.coin() {
                        args.insert(name.clone(), Value::from(edge_string(rng)));
                    }
                }
                json!({ "name": p.name, "arguments": args })
            }
            None => json!({ "name": "fuzz-no-such-prompt" }),
        },
        "logging/setLevel" => json!({ "level": *rng.pick(&LOG_LEVELS) }),
        "completion/complete" => {
            let (name, arg) = match know.prompts.first() {
                Some(p) => (
                    p.name.clone(),
                    p.arguments.first().map_or("x".to_owned(), |a| a.0.clone()),
                ),
                None => ("fuzz".to_owned(), "x".to_owned()),
            };
            json!({ "ref": { "type": "ref/prompt", "name": name }, "argument": { "name": arg, "value": edge_string(rng) } })
        }
        "tasks/get" | "tasks/result" | "tasks/cancel" => {
            json!({ "taskId": format!("fuzz-task-{}", rng.below(10)) })
        }
        _ => json!({}),
    })
}

/// The initialize params the driver sends, for `version`.
pub fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": { "name": "mcpspec-fuzz", "version": env!("CARGO_PKG_VERSION") }
    })
}

/// A JSON-RPC request (also the client fuzzer's).
pub(crate) fn request(id: Value, method: &str, params: Option<Value>) -> Value {
    let mut m = json!({ "jsonrpc": "2.0", "id": id, "method": method });
    if let Some(p) = params {
        m["params"] = p;
    }
    m
}

/// A JSON-RPC notification (also the client fuzzer's).
pub(crate) fn notification(method: &str, params: Option<Value>) -> Value {
    let mut m = json!({ "jsonrpc": "2.0", "method": method });
    if let Some(p) = params {
        m["params"] = p;
    }
    m
}

/// A valid request message with id `k` of this exec.
pub fn valid_request(rng: &mut Rng, ctx: Ctx<'_>, k: u64) -> Value {
    let methods = request_methods(ctx);
    let method = if methods.is_empty() {
        "ping"
    } else {
        *rng.pick(&methods)
    };
    request(ctx.id(k), method, params(method, rng, ctx))
}

/// A valid notification a client may send in this phase.
pub fn valid_notification(rng: &mut Rng, ctx: Ctx<'_>) -> Value {
    match rng.below(5) {
        0 if ctx.phase == Phase::Operating => notification("notifications/initialized", None),
        1 => notification("notifications/roots/list_changed", None),
        2 => notification(
            "notifications/progress",
            Some(
                json!({ "progressToken": format!("fuzz-{}", rng.below(1000)), "progress": rng.below(100) }),
            ),
        ),
        3 => notification(
            "notifications/cancelled",
            Some(json!({ "requestId": format!("fuzz-never-sent-{}", ctx.exec), "reason": "fuzz" })),
        ),
        _ => notification(
            &format!("notifications/fuzz/x{}", rng.below(10)),
            Some(json!({})),
        ),
    }
}

/// A valid message (mostly requests) for the lower levels to break.
pub fn base_message(rng: &mut Rng, ctx: Ctx<'_>, k: u64) -> Value {
    if rng.one_in(5) {
        valid_notification(rng, ctx)
    } else {
        valid_request(rng, ctx, k)
    }
}

/// A value of another JSON type than `v`.
pub fn wrong_type(v: Option<&Value>, rng: &mut Rng) -> Value {
    let choices = [
        json!(42),
        json!(true),
        Value::Null,
        json!([1, "a"]),
        json!({ "x": 1 }),
        json!("s"),
    ];
    loop {
        let c = rng.pick(&choices).clone();
        let same = matches!(
            (v, &c),
            (Some(Value::String(_)), Value::String(_))
                | (Some(Value::Object(_)), Value::Object(_))
                | (Some(Value::Array(_)), Value::Array(_))
                | (Some(Value::Number(_)), Value::Number(_))
                | (Some(Value::Bool(_)), Value::Bool(_))
        );
        if !same {
            return c;
        }
    }
}

pub fn generate(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let operating = ctx.phase == Phase::Operating;
    match rng.below(10) {
        0 | 1 => malformed(rng, ctx),
        2 if operating => cancellation(rng, ctx),
        3 => Input::new(
            Level::Mcp,
            "mcp/notification",
            Hint::Exact,
            line(&valid_notification(rng, ctx)),
        ),
        4 | 5 => edge(rng, ctx),
        _ => Input::new(
            Level::Mcp,
            "mcp/valid",
            Hint::Exact,
            line(&valid_request(rng, ctx, 0)),
        ),
    }
}

fn edge(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let mut m = valid_request(rng, ctx, 0);
    if !m.get("params").is_some_and(Value::is_object) {
        m["params"] = json!({});
    }
    let label = match rng.below(3) {
        0 => {
            let token = match rng.below(4) {
                0 => Value::from(i64::MAX),
                1 => Value::from(-1),
                2 => Value::from(edge_string(rng)),
                _ => Value::from(format!("tok-{}", ctx.exec)),
            };
            m["params"]["_meta"] = json!({ "progressToken": token });
            "mcp/edge-progress-token"
        }
        1 => {
            m["params"]["x-mcpspec-fuzz"] = Value::from(edge_string(rng));
            "mcp/edge-extra-member"
        }
        _ => {
            // An unusual string wherever the request has a string member.
            if let Some(Value::Object(p)) = m.get_mut("params") {
                for v in p.values_mut() {
                    if v.is_string() && rng.coin() {
                        *v = Value::from(edge_string(rng));
                    }
                }
            }
            "mcp/edge-string"
        }
    };
    Input::new(Level::Mcp, label, Hint::Exact, line(&m))
}

fn malformed(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let mut methods: Vec<&str> = request_methods(ctx)
        .into_iter()
        .filter(|m| !essential(m).is_empty())
        .collect();
    if ctx.phase == Phase::BeforeInit {
        methods.push("initialize");
    }
    let Some(&method) = methods.get(rng.below(methods.len())) else {
        return Input::new(
            Level::Mcp,
            "mcp/valid",
            Hint::Exact,
            line(&valid_request(rng, ctx, 0)),
        );
    };
    let p = if method == "initialize" {
        initialize_params(ctx.version.as_str())
    } else {
        params(method, rng, ctx).unwrap_or_else(|| json!({}))
    };
    let member = *rng.pick(essential(method));
    let (label, p) = break_member(rng, p, member);
    let m = request(ctx.id(0), method, Some(p));
    Input::new(Level::Mcp, label, Hint::SchemaInvalid, line(&m))
}

/// `params` broken at `member`, a member the request cannot be served
/// without: params made an array, the member removed, or the member of the
/// wrong type; with the input's label. The server and client fuzzers'
/// malformed requests both break theirs this way.
pub(crate) fn break_member(rng: &mut Rng, mut p: Value, member: &str) -> (&'static str, Value) {
    let label = match rng.below(5) {
        0 => {
            p = json!([p]);
            "mcp/params-array"
        }
        1 | 2 => {
            if let Some(o) = p.as_object_mut() {
                o.remove(member);
            }
            "mcp/missing-member"
        }
        _ => {
            let bad = wrong_type(p.get(member), rng);
            p[member] = bad;
            "mcp/member-type"
        }
    };
    (label, p)
}

fn cancellation(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let req = valid_request(rng, ctx, 0);
    let id = req["id"].clone();
    let cancel = notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id, "reason": "fuzz" })),
    );
    let (label, msgs) = match rng.below(4) {
        0 => ("mcp/cancel-after", vec![req, cancel]),
        1 => ("mcp/cancel-before", vec![cancel, req]),
        2 => (
            "mcp/cancel-unknown",
            vec![notification(
                "notifications/cancelled",
                Some(json!({ "requestId": format!("never-{}", ctx.exec) })),
            )],
        ),
        _ => (
            "mcp/cancel-broken",
            vec![notification(
                "notifications/cancelled",
                Some(json!({ "requestId": { "x": [1] } })),
            )],
        ),
    };
    let bytes = msgs.iter().flat_map(line).collect();
    // A request and its cancellation are two messages: two POSTs over HTTP.
    Input::new(Level::Mcp, label, Hint::Exact, bytes).separate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::{derive, Ctx as ExpectCtx, Expect};
    use crate::gen::{tests::know, Ctx};
    use mcpspec_engine::{Role, Version};
    use mcpspec_schema::schemas;

    #[test]
    fn valid_requests_conform_to_the_schema() {
        let k = know();
        for version in mcpspec_engine::Version::HANDSHAKE {
            for exec in 0..300 {
                let ctx = Ctx {
                    version,
                    phase: Phase::Operating,
                    know: &k,
                    exec,
                    framing: crate::input::Framing::Ndjson,
                };
                let mut rng = Rng::for_exec(9, exec);
                let m = valid_request(&mut rng, ctx, 0);
                let method = m["method"].as_str().unwrap_or_default().to_owned();
                let v = schemas(version).check_request(Role::Client, &method, &m);
                assert!(v.is_empty(), "{version} {m}: {v:?}");
            }
        }
    }

    #[test]
    fn malformed_requests_are_schema_invalid_and_owed_errors() {
        let k = know();
        let caps =
            json!({"tools": {}, "prompts": {}, "resources": {}, "logging": {}, "completions": {}});
        let mut demanded = 0;
        for exec in 0..300 {
            let ctx = Ctx {
                version: Version::V2025_06_18,
                phase: Phase::Operating,
                know: &k,
                exec,
                framing: crate::input::Framing::Ndjson,
            };
            let i = malformed(&mut Rng::for_exec(5, exec), ctx);
            let exp = derive(
                &i,
                ExpectCtx {
                    version: ctx.version,
                    initialized: true,
                    capabilities: Some(&caps),
                    framing: crate::input::Framing::Ndjson,
                },
            );
            match &exp[..] {
                [Expect::Owed { error: Some(_), .. }] => demanded += 1,
                other => panic!("{}: {other:?}", String::from_utf8_lossy(&i.bytes)),
            }
        }
        assert_eq!(demanded, 300);
    }

    #[test]
    fn tool_arguments_follow_the_input_schema_at_minimal_values() {
        let k = know();
        let v = value_for(&k.tools[0].input_schema, &mut Rng::new(1), 0);
        assert!(v["text"].is_string());
        if let Some(n) = v.get("n") {
            assert_eq!(n, &json!(0));
        }
    }
}
