//! Traffic breaking the rules of the schema's specific definitions and of
//! what messages say beyond the schema (`crate::schema`, `crate::content`),
//! for [`super::breaking`].

use mcpspec_engine::{Role, Version};
use mcpspec_wire::event::Transport;
use serde_json::{json, Value};

use super::Step::{self, *};
use super::{err, judge, meta, note, ok, post, req, ACCEPT};

const V24: Version = Version::V2024_11_05;
const V25_03: Version = Version::V2025_03_26;
const V25_06: Version = Version::V2025_06_18;
const V25_11: Version = Version::V2025_11_25;
const V26: Version = Version::V2026_07_28;

/// The handshake at `version`, this side the client declaring `own`, the
/// server declaring `server`; then `steps`.
fn hs(version: Version, own: Value, server: Value, steps: Vec<Step>) -> Vec<Step> {
    let v = version.to_string();
    let mut all = vec![
        Send(req(
            json!(0),
            "initialize",
            json!({"protocolVersion": v, "capabilities": own,
                   "clientInfo": {"name": "c", "version": "1"}}),
        )),
        Recv(ok(
            json!(0),
            json!({"protocolVersion": v, "capabilities": server,
                   "serverInfo": {"name": "s", "version": "1"}}),
        )),
        Send(note("notifications/initialized", json!({}))),
    ];
    all.extend(steps);
    all
}

/// A server at `version` declaring `server`, the harness declaring `own`.
fn server(version: Version, own: Value, server: Value, steps: Vec<Step>) -> Vec<String> {
    judge(
        Role::Server,
        version,
        Transport::Stdio,
        hs(version, own, server, steps),
    )
}

/// A server at `version` declaring every capability, the harness none.
fn plain(version: Version, steps: Vec<Step>) -> Vec<String> {
    let all =
        json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}, "logging": {}});
    server(version, json!({}), all, steps)
}

/// The harness asks `method`, the server answers `result`.
fn answered(method: &str, params: Value, result: Value) -> Vec<Step> {
    vec![
        Send(req(json!(3), method, params)),
        Recv(ok(json!(3), result)),
    ]
}

/// A client at `version` declaring `caps`; then `steps`.
fn client(version: Version, caps: Value, steps: Vec<Step>) -> Vec<String> {
    let v = version.to_string();
    let mut all = vec![
        Recv(req(
            json!(0),
            "initialize",
            json!({"protocolVersion": v, "capabilities": caps,
                   "clientInfo": {"name": "c", "version": "1"}}),
        )),
        Send(ok(
            json!(0),
            json!({"protocolVersion": v, "capabilities": {},
                   "serverInfo": {"name": "s", "version": "1"}}),
        )),
        Recv(note("notifications/initialized", json!({}))),
    ];
    all.extend(steps);
    judge(Role::Client, version, Transport::Stdio, all)
}

fn text() -> Value {
    json!({"type": "text", "text": "x"})
}

/// A sampling request from the server with these messages and extras.
fn sampling(messages: Value, extra: Value) -> Step {
    let mut params = json!({"messages": messages, "maxTokens": 5});
    for (k, v) in extra.as_object().into_iter().flatten() {
        params[k] = v.clone();
    }
    Recv(req(json!("s1"), "sampling/createMessage", params))
}

/// An `elicitation/create` request for an empty form, with request id `id`.
fn elicit_form(id: &str) -> Value {
    req(
        json!(id),
        "elicitation/create",
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
    )
}

pub(super) fn breaking(id: &str) -> Option<Vec<String>> {
    let found = match id {
        "tools.call.result-shape" => plain(
            V24,
            answered("tools/call", json!({"name": "t"}), json!({"content": "x"})),
        ),
        "completion.complete.result-shape" => plain(
            V24,
            answered(
                "completion/complete",
                json!({}),
                json!({"completion": {"values": [1]}}),
            ),
        ),
        "logging.message.shape" => plain(
            V26,
            vec![Recv(note(
                "notifications/message",
                json!({"level": "loud", "data": "x"}),
            ))],
        ),
        "elicitation.request.shape" => server(
            V25_11,
            json!({"elicitation": {"form": {}, "url": {}}}),
            json!({}),
            vec![Recv(req(
                json!("e"),
                "elicitation/create",
                json!({"mode": "url", "message": "m"}),
            ))],
        ),
        "elicitation.schema.flat" => server(
            V25_06,
            json!({"elicitation": {}}),
            json!({}),
            vec![Recv(req(
                json!("e"),
                "elicitation/create",
                json!({"message": "m", "requestedSchema": {"type": "object",
                       "properties": {"a": {"type": "object"}}}}),
            ))],
        ),
        "sampling.messages.shape" => judge(
            Role::Server,
            V26,
            Transport::Stdio,
            vec![
                Send(req(json!(6), "tools/call", meta("2026-07-28"))),
                Recv(ok(
                    json!(6),
                    json!({"resultType": "input_required", "inputRequests": {"k": {
                        "method": "sampling/createMessage",
                        "params": {"messages": [{"role": "robot", "content": text()}], "maxTokens": 5}}}}),
                )),
            ],
        ),
        "elicitation.url.required-error" => plain(
            V25_11,
            vec![
                Send(req(json!(3), "tools/call", json!({"name": "t"}))),
                Recv(err(json!(3), -32042, Some(json!({"elicitations": "none"})))),
            ],
        ),
        "roots.list.result-shape" => client(
            V25_06,
            json!({"roots": {}}),
            vec![
                Send(req(json!("r"), "roots/list", json!({}))),
                Recv(ok(json!("r"), json!({"roots": [{"name": "no uri"}]}))),
            ],
        ),
        "sampling.result-shape" => client(
            V25_06,
            json!({"sampling": {}}),
            vec![
                Send(req(
                    json!("r"),
                    "sampling/createMessage",
                    json!({"messages": [], "maxTokens": 5}),
                )),
                Recv(ok(
                    json!("r"),
                    json!({"role": "assistant", "content": text()}),
                )),
            ],
        ),
        "elicitation.response.action" => client(
            V25_06,
            json!({"elicitation": {}}),
            vec![
                Send(elicit_form("r")),
                Recv(ok(json!("r"), json!({"action": "maybe"}))),
            ],
        ),
        "jsonrpc.notification.no-id" => plain(
            V25_06,
            vec![Recv(req(
                json!(9),
                "notifications/tools/list_changed",
                json!({}),
            ))],
        ),
        "progress.token.type" => plain(
            V25_06,
            vec![Recv(req(
                json!("s"),
                "roots/list",
                json!({"_meta": {"progressToken": 1.5}}),
            ))],
        ),
        "progress.token.unique" => plain(
            V25_06,
            vec![
                Recv(req(
                    json!("s1"),
                    "roots/list",
                    json!({"_meta": {"progressToken": "p"}}),
                )),
                Recv(req(
                    json!("s2"),
                    "roots/list",
                    json!({"_meta": {"progressToken": "p"}}),
                )),
            ],
        ),
        "cancellation.same-direction" => plain(
            V25_06,
            vec![
                Send(req(json!(42), "tools/call", json!({"name": "t"}))),
                Recv(note("notifications/cancelled", json!({"requestId": 42}))),
            ],
        ),
        "meta.key.format" => plain(
            V25_06,
            vec![Recv(note(
                "notifications/tools/list_changed",
                json!({"_meta": {"-not a key": 1}}),
            ))],
        ),
        "extensions.identifier-format" => judge(
            Role::Server,
            V26,
            Transport::Stdio,
            vec![
                Send(req(json!(1), "server/discover", meta("2026-07-28"))),
                Recv(ok(
                    json!(1),
                    json!({"supportedVersions": ["2026-07-28"], "resultType": "complete",
                           "capabilities": {"extensions": {"ui": {}}}}),
                )),
            ],
        ),
        "schema.json-schema.valid" | "tools.input-schema.valid" => {
            let bad = json!({"type": "object", "properties": {"a": {"type": "strin"}}});
            let tool = if id == "tools.input-schema.valid" {
                json!({"name": "t", "inputSchema": bad})
            } else {
                json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": bad})
            };
            plain(
                V25_11,
                answered("tools/list", json!({}), json!({"tools": [tool]})),
            )
        }
        "sampling.tool-result.matches-use" => server(
            V25_11,
            json!({"sampling": {"tools": {}}}),
            json!({}),
            vec![sampling(
                json!([{"role": "user", "content": [{"type": "tool_result", "toolUseId": "u1", "content": []}]}]),
                json!({}),
            )],
        ),
        "sampling.tool-result.only-results" => server(
            V25_11,
            json!({"sampling": {"tools": {}}}),
            json!({}),
            vec![sampling(
                json!([
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "t", "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "toolUseId": "u1", "content": []}, text()]}
                ]),
                json!({}),
            )],
        ),
        "tools.capability.declared" => server(
            V25_06,
            json!({}),
            json!({}),
            answered("tools/call", json!({"name": "t"}), json!({"content": []})),
        ),
        "resources.capability.declared" => server(
            V25_06,
            json!({}),
            json!({}),
            answered(
                "resources/read",
                json!({"uri": "x://a"}),
                json!({"contents": [{"uri": "x://a", "text": "t"}]}),
            ),
        ),
        "prompts.capability.declared" => server(
            V25_06,
            json!({}),
            json!({}),
            answered(
                "prompts/list",
                json!({}),
                json!({"prompts": [{"name": "p"}]}),
            ),
        ),
        "completion.capability.declared" => server(
            V25_06,
            json!({}),
            json!({}),
            answered(
                "completion/complete",
                json!({}),
                json!({"completion": {"values": ["a"]}}),
            ),
        ),
        "sampling.server.capability-required" => server(
            V25_06,
            json!({}),
            json!({}),
            vec![sampling(
                json!([{"role": "user", "content": text()}]),
                json!({}),
            )],
        ),
        "sampling.tools.server-gated" => server(
            V25_11,
            json!({"sampling": {}}),
            json!({}),
            vec![sampling(
                json!([{"role": "user", "content": text()}]),
                json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            )],
        ),
        "elicitation.server.capability-required" => {
            server(V25_06, json!({}), json!({}), vec![Recv(elicit_form("e"))])
        }
        "elicitation.url.capability" => server(
            V25_11,
            json!({"elicitation": {}}),
            json!({}),
            vec![Recv(req(
                json!("e"),
                "elicitation/create",
                json!({"mode": "url", "message": "m", "url": "https://example.com/x", "elicitationId": "e1"}),
            ))],
        ),
        "resources.templates.rfc6570" => plain(
            V25_06,
            answered(
                "resources/templates/list",
                json!({}),
                json!({"resourceTemplates": [{"uriTemplate": "x://{id", "name": "t"}]}),
            ),
        ),
        "caching.server.scope-consistent-pages" => {
            let mut second = meta("2026-07-28");
            second["cursor"] = json!("c1");
            let page = |scope: &str, next: Option<&str>| {
                let mut r =
                    json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": scope});
                if let Some(n) = next {
                    r["nextCursor"] = json!(n);
                }
                r
            };
            judge(
                Role::Server,
                V26,
                Transport::Stdio,
                vec![
                    Send(req(json!(1), "tools/list", meta("2026-07-28"))),
                    Recv(ok(json!(1), page("public", Some("c1")))),
                    Send(req(json!(2), "tools/list", second)),
                    Recv(ok(json!(2), page("private", None))),
                ],
            )
        }
        "roots.capability.declared" => client(
            V25_06,
            json!({}),
            vec![
                Send(req(json!("r"), "roots/list", json!({}))),
                Recv(ok(json!("r"), json!({"roots": []}))),
            ],
        ),
        "roots.uri.file" => client(
            V25_06,
            json!({"roots": {}}),
            vec![
                Send(req(json!("r"), "roots/list", json!({}))),
                Recv(ok(
                    json!("r"),
                    json!({"roots": [{"uri": "https://example.com/r"}]}),
                )),
            ],
        ),
        "sampling.capability.declared" => client(
            V25_06,
            json!({}),
            vec![
                Send(req(
                    json!("r"),
                    "sampling/createMessage",
                    json!({"messages": [], "maxTokens": 5}),
                )),
                Recv(ok(
                    json!("r"),
                    json!({"role": "assistant", "content": text(), "model": "m"}),
                )),
            ],
        ),
        "elicitation.capability.declared" => client(
            V25_06,
            json!({}),
            vec![
                Send(elicit_form("r")),
                Recv(ok(json!("r"), json!({"action": "decline"}))),
            ],
        ),
        "lifecycle.initialize.not-batched" => judge(
            Role::Client,
            V25_03,
            Transport::Stdio,
            vec![Recv(json!([req(
                json!(0),
                "initialize",
                json!({"protocolVersion": "2025-03-26", "capabilities": {},
                       "clientInfo": {"name": "c", "version": "1"}}),
            )]))],
        ),
        "stdio.client.no-responses" => judge(
            Role::Client,
            V26,
            Transport::Stdio,
            vec![Recv(ok(json!(1), json!({})))],
        ),
        "http.post.client-no-responses" => judge(
            Role::Client,
            V26,
            Transport::Http,
            vec![Recv(ok(json!(1), json!({})))],
        ),
        "http.post.batch-body" => judge(
            Role::Client,
            V25_03,
            Transport::Http,
            vec![Record(post(
                "/mcp",
                &[ACCEPT],
                json!([req(json!(1), "ping", json!({})), ok(json!(2), json!({}))]),
                200,
            ))],
        ),
        "stdio.client.stdin-only-mcp" => judge(
            Role::Client,
            V25_06,
            Transport::Stdio,
            vec![Line("hello from the client")],
        ),
        _ => return None,
    };
    Some(found)
}

#[test]
fn a_notification_sent_with_an_id_is_one_finding() {
    // At 2026-07-28 a server's request would break the stateless rule too;
    // a notification with an id is that one cause, named once.
    let found = judge(
        Role::Server,
        V26,
        Transport::Stdio,
        vec![Recv(req(
            json!(9),
            "notifications/message",
            json!({"level": "error", "data": "x"}),
        ))],
    );
    assert_eq!(found, ["jsonrpc.notification.no-id"]);
}

#[test]
fn a_schema_cause_named_by_a_content_rule_is_one_finding() {
    // `required` must be an array: the version's schema and the JSON
    // Schema meta-schema both see it; the content rule keeps the finding.
    let tool = json!({"name": "t", "inputSchema": {"type": "object", "required": "a"}});
    let found = plain(
        V25_11,
        answered("tools/list", json!({}), json!({"tools": [tool]})),
    );
    assert_eq!(found, ["tools.input-schema.valid"]);
}
