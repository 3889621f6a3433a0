//! Proof of the every-message list: for each entry of [`ORACLE`], traffic
//! that breaks the rule makes the oracle report it. An entry without such
//! traffic, or traffic the oracle stays quiet on, fails here.

use mcpspec_engine::{Role, Version};
use mcpspec_wire::event::{Event, HttpRecord, Transport, Via};
use mcpspec_wire::{Frame, FrameError, FrameErrorKind, Message};
use serde_json::{json, Value};

use super::ORACLE;
use crate::{Observed, Oracle};

mod content;

/// One thing that happens on the connection.
enum Step {
    /// This side sends a message.
    Send(Value),
    /// The peer sends a message (on stdio, or the given stream).
    Recv(Value),
    RecvOn(Via, Value),
    /// The peer writes a line that is not JSON-RPC.
    Line(&'static str),
    /// The peer breaks the framing.
    Broken,
    /// Serving a client over HTTP: the live session, then a request record.
    Live(&'static str),
    Record(HttpRecord),
    /// This side starts a POST of the session with this body.
    Post(Value),
    /// An SSE event with this id, on the stream of POST 1.
    SseId(&'static str),
}
use Step::*;

const V2025: Version = Version::V2025_06_18;
const V2026: Version = Version::V2026_07_28;

/// The ids the oracle reports for `steps`, judging `judged`.
fn judge(judged: Role, version: Version, transport: Transport, steps: Vec<Step>) -> Vec<String> {
    let mut oracle = Oracle::new(judged, version, transport);
    let mut found = Vec::new();
    let via = match transport {
        Transport::Stdio => Via::Stdio,
        Transport::Http => Via::Post(1),
        Transport::Sse => Via::Legacy,
    };
    for (line, step) in (1..).zip(steps) {
        let frame = |bytes: Vec<u8>| {
            Event::Frame(Frame {
                bytes,
                line,
                crlf: false,
            })
        };
        let seen = match step {
            Send(v) => {
                let msg = message(&v);
                oracle.observe(0, Observed::Sent(&msg))
            }
            Recv(v) => oracle.observe(
                0,
                Observed::Received {
                    via,
                    event: &frame(v.to_string().into_bytes()),
                },
            ),
            RecvOn(on, v) => oracle.observe(
                0,
                Observed::Received {
                    via: on,
                    event: &frame(v.to_string().into_bytes()),
                },
            ),
            Line(text) => oracle.observe(
                0,
                Observed::Received {
                    via,
                    event: &frame(text.as_bytes().to_vec()),
                },
            ),
            Broken => oracle.observe(
                0,
                Observed::Received {
                    via,
                    event: &Event::FrameError(FrameError {
                        kind: FrameErrorKind::InvalidUtf8 { valid_up_to: 1 },
                        line,
                        bytes: b"{\xff".to_vec(),
                    }),
                },
            ),
            Live(id) => oracle.observe(0, Observed::LiveSession(Some(id))),
            Post(v) => oracle.observe(0, Observed::Posted(v.to_string().as_bytes())),
            SseId(id) => oracle.observe(
                0,
                Observed::Received {
                    via: Via::Post(1),
                    event: &Event::SseEvent {
                        event: "message".to_owned(),
                        id: Some(id.to_owned()),
                        retry: None,
                        data_len: 2,
                    },
                },
            ),
            Record(record) => oracle.observe(
                0,
                Observed::Received {
                    via,
                    event: &Event::Http(Box::new(record)),
                },
            ),
        };
        found.extend(seen.into_iter().map(|v| v.requirement.id.to_owned()));
    }
    found
}

fn message(v: &Value) -> Message {
    match mcpspec_wire::classify(v.to_string().as_bytes()) {
        Ok(mcpspec_wire::Inbound::Single(m)) => m,
        other => panic!("not one message: {v} ({other:?})"),
    }
}

fn req(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn note(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn err(id: Value, code: i64, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": "x"});
    if let Some(d) = data {
        e["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

/// A 2026-07-28 request's `_meta`, naming `version`.
fn meta(version: &str) -> Value {
    json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }})
}

/// The handshake at 2025-06-18, this side the client; the server declares
/// only tools.
fn handshake() -> Vec<Step> {
    vec![
        Send(req(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "c", "version": "1"}}),
        )),
        Recv(ok(
            json!(0),
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "s", "version": "1"}}),
        )),
        Send(note("notifications/initialized", json!({}))),
    ]
}

fn after_handshake(steps: Vec<Step>) -> Vec<Step> {
    let mut all = handshake();
    all.extend(steps);
    all
}

/// The handshake at 2025-06-18, this side the server.
fn client_handshake() -> Vec<Step> {
    vec![
        Recv(req(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "c", "version": "1"}}),
        )),
        Send(ok(
            json!(0),
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "s", "version": "1"}}),
        )),
        Recv(note("notifications/initialized", json!({}))),
    ]
}

fn post(target: &str, headers: &[(&str, &str)], body: Value, status: u16) -> HttpRecord {
    let (method, target) = target.split_once(' ').unwrap_or(("POST", target));
    HttpRecord {
        method: method.to_owned(),
        target: target.to_owned(),
        request_headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        request_body: if body.is_null() {
            String::new()
        } else {
            body.to_string()
        },
        status: Some(status),
        ..HttpRecord::default()
    }
}

const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");

/// A server's answer to POST 1: `status`, with this Content-Type.
fn answer(status: u16, content_type: Option<&str>) -> HttpRecord {
    HttpRecord {
        method: "POST".to_owned(),
        target: "/mcp".to_owned(),
        status: Some(status),
        response_headers: content_type
            .map(|ct| ("content-type".to_owned(), ct.to_owned()))
            .into_iter()
            .collect(),
        ..HttpRecord::default()
    }
}

/// Traffic that breaks `id`, judged as its checker judges.
fn breaking(id: &str) -> Option<Vec<String>> {
    use Role::{Client, Server};
    use Transport::{Http, Sse, Stdio};
    let server = |steps| judge(Server, V2025, Stdio, steps);
    let server26 = |steps| judge(Server, V2026, Stdio, steps);
    let client = |steps| judge(Client, V2025, Stdio, steps);
    let client26 = |steps| judge(Client, V2026, Stdio, steps);
    let client_http = |steps| judge(Client, V2025, Http, steps);
    let discover = || Recv(req(json!(1), "server/discover", meta("2026-07-28")));
    let discovered = || {
        Send(ok(
            json!(1),
            json!({"supportedVersions": ["2026-07-28"], "resultType": "complete"}),
        ))
    };
    let found = match id {
        "jsonrpc.message.valid" => server(after_handshake(vec![Recv(
            json!({"jsonrpc": "2.0", "id": 1}),
        )])),
        "jsonrpc.request.id-type" => server(after_handshake(vec![Recv(req(
            Value::Null,
            "ping",
            json!({}),
        ))])),
        "jsonrpc.request.id-unique" => server(after_handshake(vec![
            Recv(req(json!("a"), "roots/list", json!({}))),
            Recv(req(json!("a"), "roots/list", json!({}))),
        ])),
        "jsonrpc.response.id-matches" => {
            server(after_handshake(vec![Recv(ok(json!(99), json!({})))]))
        }
        "jsonrpc.response.once" => server(after_handshake(vec![
            Send(req(json!(5), "ping", json!({}))),
            Recv(ok(json!(5), json!({}))),
            Recv(ok(json!(5), json!({}))),
        ])),
        "jsonrpc.batch.absent" => server(after_handshake(vec![Recv(json!([note(
            "notifications/tools/list_changed",
            json!({})
        )]))])),
        "lifecycle.server.no-requests-before-initialized" => server(vec![
            Send(req(
                json!(0),
                "initialize",
                json!({"protocolVersion": "2025-06-18"}),
            )),
            Recv(req(json!("s"), "roots/list", json!({}))),
        ]),
        "logging.capability.declared" => server(after_handshake(vec![Recv(note(
            "notifications/message",
            json!({"level": "info", "data": "x"}),
        ))])),
        "progress.token-active" => server(after_handshake(vec![Recv(note(
            "notifications/progress",
            json!({"progressToken": "nope", "progress": 1}),
        ))])),
        "progress.increasing" => server(after_handshake(vec![
            Send(req(
                json!(7),
                "tools/call",
                json!({"name": "t", "_meta": {"progressToken": "p"}}),
            )),
            Recv(note(
                "notifications/progress",
                json!({"progressToken": "p", "progress": 5}),
            )),
            Recv(note(
                "notifications/progress",
                json!({"progressToken": "p", "progress": 3}),
            )),
        ])),
        "stateless.server.no-requests" => server26(vec![Recv(req(
            json!("s"),
            "sampling/createMessage",
            json!({}),
        ))]),
        "stateless.removed.not-sent" => server26(vec![Recv(note(
            "notifications/elicitation/complete",
            json!({"elicitationId": "e"}),
        ))]),
        "stateless.cancel.listen-only" => server26(vec![
            Send(req(json!(5), "tools/call", meta("2026-07-28"))),
            Recv(note("notifications/cancelled", json!({"requestId": 5}))),
        ]),
        "stateless.result.result-type" => server26(vec![
            Send(req(json!(2), "tools/list", meta("2026-07-28"))),
            Recv(ok(json!(2), json!({"tools": []}))),
        ]),
        "stateless.result.caching-hints" => server26(vec![
            Send(req(json!(2), "tools/list", meta("2026-07-28"))),
            Recv(ok(json!(2), json!({"tools": [], "resultType": "complete"}))),
        ]),
        "tools.x-mcp-header.valid" => server26(vec![
            Send(req(json!(2), "tools/list", meta("2026-07-28"))),
            Recv(ok(
                json!(2),
                json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [
                    {"name": "fine", "inputSchema": {"type": "object", "properties": {
                        "r": {"type": "string", "x-mcp-header": "Region"}}}},
                    {"name": "bad", "inputSchema": {"type": "object", "properties": {
                        "s": {"type": "number", "x-mcp-header": "Score"}}}}
                ]}),
            )),
        ]),
        "stateless.error.unsupported-version-data" => server26(vec![
            Send(req(json!(2), "tools/list", meta("1999-01-01"))),
            Recv(err(json!(2), -32022, None)),
        ]),
        "stateless.error.missing-capability-data" => server26(vec![
            Send(req(json!(2), "tools/call", meta("2026-07-28"))),
            Recv(err(json!(2), -32021, Some(json!({})))),
        ]),
        "stateless.error.reserved-range" => server26(vec![
            Send(req(json!(4), "resources/read", meta("2026-07-28"))),
            Recv(err(json!(4), -32050, None)),
        ]),
        "stateless.error.retired-codes" => server26(vec![
            Send(req(json!(5), "resources/read", meta("2026-07-28"))),
            Recv(err(json!(5), -32002, None)),
        ]),
        "stateless.input-required.shape" => server26(vec![
            Send(req(json!(6), "tools/call", meta("2026-07-28"))),
            Recv(ok(json!(6), json!({"resultType": "input_required"}))),
        ]),
        "stateless.input-required.supported-requests" => server26(vec![
            Send(req(json!(6), "tools/list", meta("2026-07-28"))),
            Recv(ok(
                json!(6),
                json!({"resultType": "input_required", "requestState": "s"}),
            )),
        ]),
        "stateless.input-required.request-kinds" => server26(vec![
            Send(req(json!(6), "tools/call", meta("2026-07-28"))),
            Recv(ok(
                json!(6),
                json!({"resultType": "input_required", "inputRequests": {"k": {"method": "ping"}}}),
            )),
        ]),
        "stateless.input-required.declared-capabilities" => server26(vec![
            Send(req(json!(6), "tools/call", meta("2026-07-28"))),
            Recv(ok(
                json!(6),
                json!({"resultType": "input_required", "inputRequests": {"k": {"method": "roots/list"}}}),
            )),
        ]),
        "logging.meta-level.opt-in" => server26(vec![Recv(note(
            "notifications/message",
            json!({"level": "error", "data": "x"}),
        ))]),
        "lifecycle.initialize.first" => client(vec![Recv(req(json!(1), "tools/list", json!({})))]),
        "lifecycle.client.no-requests-before-response" => client(vec![
            Recv(req(
                json!(0),
                "initialize",
                json!({"protocolVersion": "2025-06-18"}),
            )),
            Recv(req(json!(1), "tools/list", json!({}))),
        ]),
        "lifecycle.client.initialized-notification" => {
            let mut steps = client_handshake();
            steps.pop();
            steps.push(Recv(req(json!(1), "tools/list", json!({}))));
            client(steps)
        }
        "cancellation.initialize-not-cancelled" => client(vec![
            Recv(req(
                json!(0),
                "initialize",
                json!({"protocolVersion": "2025-06-18"}),
            )),
            Recv(note("notifications/cancelled", json!({"requestId": 0}))),
        ]),
        "pagination.client.opaque-cursor" => {
            let mut steps = client_handshake();
            steps.extend([
                Recv(req(json!(1), "tools/list", json!({}))),
                Send(ok(json!(1), json!({"tools": [], "nextCursor": "c1"}))),
                Recv(req(json!(2), "tools/list", json!({"cursor": "forged"}))),
            ]);
            client(steps)
        }
        "stateless.meta.required-keys" => {
            client26(vec![Recv(req(json!(2), "tools/list", json!({})))])
        }
        "stateless.client.era-cached" => client26(vec![
            discover(),
            discovered(),
            Recv(req(
                json!(2),
                "initialize",
                json!({"protocolVersion": "2026-07-28"}),
            )),
        ]),
        "stateless.client.version-from-supported" => client26(vec![
            discover(),
            discovered(),
            Recv(req(json!(3), "tools/list", meta("2027-01-01"))),
        ]),
        "stateless.client.retry-supported" => client26(vec![
            Recv(req(json!(1), "tools/list", meta("2027-01-01"))),
            Send(err(
                json!(1),
                -32022,
                Some(json!({"requested": "2027-01-01", "supported": ["2026-07-28"]})),
            )),
            Recv(req(json!(2), "tools/list", meta("2026-07-28"))),
            Recv(req(json!(3), "tools/list", meta("2027-01-01"))),
        ]),
        "http.post.accept" => client_http(vec![Record(post(
            "/mcp",
            &[("accept", "application/json")],
            note("notifications/initialized", json!({})),
            202,
        ))]),
        "http.get.accept" => client_http(vec![Record(post(
            "GET /mcp",
            &[("accept", "application/json")],
            Value::Null,
            200,
        ))]),
        "http.post.client-post" => client_http(vec![Record(post(
            "/elsewhere",
            &[ACCEPT],
            note("notifications/initialized", json!({})),
            404,
        ))]),
        "auth.no-token-in-query" => client_http(vec![Record(post(
            "/mcp?access_token=t1",
            &[ACCEPT],
            note("notifications/initialized", json!({})),
            202,
        ))]),
        "http.post.single-message" => client_http(vec![Record(post(
            "/mcp",
            &[ACCEPT],
            json!([note("notifications/initialized", json!({}))]),
            202,
        ))]),
        "http.session.client-echo" => client_http(vec![
            Live("abc"),
            Record(post(
                "/mcp",
                &[ACCEPT],
                req(json!(4), "tools/list", json!({})),
                400,
            )),
        ]),
        "http.header.protocol-version" | "http.header.protocol-version-negotiated" => {
            let mut steps = client_handshake();
            let header = [ACCEPT, ("mcp-protocol-version", "2025-03-26")];
            let headers: &[(&str, &str)] = if id == "http.header.protocol-version" {
                &header[..1]
            } else {
                &header
            };
            steps.push(Record(post(
                "/mcp",
                headers,
                req(json!(4), "tools/list", json!({})),
                200,
            )));
            client_http(steps)
        }
        "http.header.version-matches-meta" => judge(
            Client,
            V2026,
            Http,
            vec![Record(post(
                "/mcp",
                &[ACCEPT, ("mcp-protocol-version", "2025-11-25")],
                req(json!(1), "tools/list", meta("2026-07-28")),
                200,
            ))],
        ),
        "http.header.method" => judge(
            Client,
            V2026,
            Http,
            vec![Record(post(
                "/mcp",
                &[ACCEPT, ("mcp-protocol-version", "2026-07-28")],
                req(json!(1), "tools/list", meta("2026-07-28")),
                200,
            ))],
        ),
        "http.header.param-mirror"
        | "http.header.value-encoding"
        | "http.header.client-rejects-invalid-tools" => {
            let (tool, region, sent) = match id {
                "http.header.param-mirror" => ("good", "us-west1", None),
                "http.header.value-encoding" => ("good", " padded ", Some(" padded ")),
                _ => ("bad", "us-west1", None),
            };
            let mut headers = vec![
                ACCEPT,
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", tool),
            ];
            headers.extend(sent.map(|v| ("mcp-param-region", v)));
            let mut call = meta("2026-07-28");
            call["name"] = json!(tool);
            call["arguments"] = json!({ "r": region, "s": 1 });
            judge(
                Client,
                V2026,
                Http,
                vec![
                    Recv(req(json!(1), "tools/list", meta("2026-07-28"))),
                    Send(ok(
                        json!(1),
                        json!({"resultType": "complete", "tools": [
                            {"name": "good", "inputSchema": {"type": "object", "properties": {
                                "r": {"type": "string", "x-mcp-header": "Region"}}}},
                            {"name": "bad", "inputSchema": {"type": "object", "properties": {
                                "s": {"type": "number", "x-mcp-header": "Score"}}}}
                        ]}),
                    )),
                    Record(post(
                        "/mcp",
                        &headers,
                        req(json!(2), "tools/call", call),
                        200,
                    )),
                ],
            )
        }
        "sse.client-post" => judge(
            Client,
            Version::V2024_11_05,
            Sse,
            vec![
                Live("s1"),
                Record(post(
                    "/elsewhere",
                    &[],
                    req(json!(1), "tools/list", json!({})),
                    404,
                )),
            ],
        ),
        "http.post.request-content-type" => judge(
            Server,
            V2025,
            Http,
            vec![
                Post(req(json!(1), "ping", json!({}))),
                Record(answer(200, Some("text/plain"))),
            ],
        ),
        "http.post.accepted-202" => judge(
            Server,
            V2025,
            Http,
            vec![
                Post(note("notifications/initialized", json!({}))),
                Record(answer(200, None)),
            ],
        ),
        "http.resume.event-id-unique" => judge(Server, V2025, Http, vec![SseId("e1"), SseId("e1")]),
        "http.sse.notifications-related" => judge(
            Server,
            V2026,
            Http,
            vec![
                Post(req(
                    json!(1),
                    "tools/call",
                    json!({"name": "t", "_meta": {"progressToken": "mine"}}),
                )),
                Record(answer(200, Some("text/event-stream"))),
                RecvOn(
                    Via::Post(1),
                    note(
                        "notifications/progress",
                        json!({"progressToken": "theirs", "progress": 1}),
                    ),
                ),
            ],
        ),
        "sse.message-event" => judge(
            Server,
            Version::V2024_11_05,
            Sse,
            vec![
                Post(req(json!(1), "ping", json!({}))),
                Record(answer(200, Some("application/json"))),
                RecvOn(Via::Post(1), ok(json!(1), json!({}))),
            ],
        ),
        "jsonrpc.message.utf8" => judge(Server, V2025, Http, vec![Broken]),
        "stdio.stdout-only-mcp" => server(vec![Line("hello, I am starting up")]),
        "stdio.newline-delimited" => server(vec![Broken]),
        // A message no more specific rule defines (a tools/list result
        // missing inputSchema is `tools.list.result-shape`'s).
        "schema.message.conforms" => server(after_handshake(vec![Recv(note(
            "notifications/resources/updated",
            json!({}),
        ))])),
        _ => return content::breaking(id).or_else(|| crate::auth_client::tests::breaking(id)),
    };
    Some(found)
}

/// A cacheable result missing its hints, an input_required result where
/// the method allows none: the schema sees the same cause (`cacheScope`
/// required, the method's own members missing), and is not reported beside
/// the rule.
#[test]
fn stateless_rules_the_schema_also_sees_are_reported_once() {
    for id in [
        "stateless.result.caching-hints",
        "stateless.input-required.supported-requests",
    ] {
        assert_eq!(breaking(id).expect("its traffic"), [id]);
    }
}

/// A pretty-printed answer is one message broken across lines: one
/// `stdio.newline-delimited`, not a `stdio.stdout-only-mcp` per line (nor
/// the stray `"2.0"` line's `jsonrpc.message.valid`). A line that cannot go
/// on with it is judged on its own; the oracle counts the broken message
/// once among the frames it could not read.
#[test]
fn a_message_broken_across_lines_is_one_finding() {
    let lines = [
        "{",
        r#"  "id": 1,"#,
        r#"  "result": {},"#,
        r#"  "jsonrpc":"#,
        r#"  "2.0""#,
        "}",
        "starting up",
    ];
    let found = judge(
        Role::Server,
        V2025,
        Transport::Stdio,
        lines.map(Line).into(),
    );
    assert_eq!(found, ["stdio.newline-delimited", "stdio.stdout-only-mcp"]);
    let mut oracle = Oracle::new(Role::Server, V2025, Transport::Stdio);
    for (line, text) in (1..).zip(lines) {
        let event = Event::Frame(Frame {
            bytes: text.as_bytes().to_vec(),
            line,
            crlf: false,
        });
        oracle.observe(
            0,
            Observed::Received {
                via: Via::Stdio,
                event: &event,
            },
        );
    }
    assert_eq!(oracle.unreadable(), 2);
}

#[test]
fn every_requirement_judged_on_every_message_is_reported_by_the_oracle() {
    let mut failures = Vec::new();
    for check in ORACLE {
        match breaking(check.id()) {
            None => failures.push(format!("{}: no traffic proves this entry", check.id())),
            Some(found) if !found.iter().any(|f| f == check.id()) => failures.push(format!(
                "{}: the oracle stayed quiet on traffic that breaks it (found {found:?})",
                check.id()
            )),
            Some(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn conformant_traffic_is_not_reported() {
    let mut clean = handshake();
    clean.extend([
        Send(req(json!(1), "tools/list", json!({}))),
        Recv(ok(
            json!(1),
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
        )),
        RecvOn(
            Via::Stdio,
            note("notifications/tools/list_changed", json!({})),
        ),
    ]);
    assert_eq!(
        judge(Role::Server, V2025, Transport::Stdio, clean),
        Vec::<String>::new()
    );
    let mut clean = client_handshake();
    clean.push(Recv(req(json!(1), "tools/list", json!({}))));
    assert_eq!(
        judge(Role::Client, V2025, Transport::Stdio, clean),
        Vec::<String>::new()
    );
}

#[test]
fn every_entry_is_catalogued_once_and_not_excluded() {
    let mut seen = std::collections::HashSet::new();
    for c in ORACLE {
        assert!(seen.insert(c.id()), "{} listed twice", c.id());
        let r = mcpspec_engine::lookup(c.id())
            .unwrap_or_else(|| panic!("{} is not catalogued", c.id()));
        assert!(
            r.excluded.is_none(),
            "{} is checked, so it cannot be excluded",
            c.id()
        );
    }
}
