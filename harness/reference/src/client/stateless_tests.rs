//! The reference client under 2026-07-28: against the reference server in
//! process, every message judged by the engine's session oracle (playing
//! the server's side), and against scripted answers to `server/discover`.
//! The clean client breaks no rule; each stateless fault breaks its own.

use mcpspec_engine::{Role, Session as Oracle, Version};
use mcpspec_wire::{classify, Inbound};
use serde_json::{json, Value};

use super::tests::{against_server, client_at, count, exit, frame, methods, writes, Session};
use super::*;

const V: Version = STATELESS_VERSION;

fn stateless(faults: &[ClientFault]) -> ReferenceClient {
    client_at(V, faults)
}

/// The requirement ids the server-side oracle flags in a session's traffic.
fn judged(s: &Session) -> Vec<&'static str> {
    let mut oracle = Oracle::new(Role::Server, Some(V));
    let mut flagged = Vec::new();
    for (from_client, line) in &s.wire {
        let Ok(Inbound::Single(msg)) = classify(line.to_string().as_bytes()) else {
            panic!("not one message: {line}");
        };
        if *from_client {
            flagged.extend(oracle.inbound(&msg, 0).iter().map(|v| v.requirement.id));
        } else {
            oracle.outbound(&msg, 0);
        }
    }
    flagged
}

fn requests(s: &Session) -> impl Iterator<Item = &Value> {
    s.to_server
        .iter()
        .filter(|l| l.get("method").is_some() && l.get("id").is_some())
}

fn discover_result(versions: Value, capabilities: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "result": {
        "supportedVersions": versions, "capabilities": capabilities,
        "resultType": "complete", "cacheScope": "public", "ttlMs": 0 } })
}

fn error(id: i64, code: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": "no" } })
}

#[test]
fn clean_client_runs_statelessly_against_the_reference_server() {
    for bare in [false, true] {
        let mut c = ReferenceClient::new(ClientConfig {
            version: V,
            bare,
            ..ClientConfig::default()
        });
        let s = against_server(&mut c, &[]);
        assert_eq!(s.exit, Some(0), "bare {bare}: {:#?}", s.stderr);
        assert_eq!(judged(&s), Vec::<&str>::new(), "bare {bare}");
        let sent = methods(&s.to_server);
        assert_eq!(sent[0], "server/discover");
        for gone in [
            "initialize",
            "notifications/initialized",
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "resources/unsubscribe",
        ] {
            assert!(!sent.contains(&gone), "bare {bare}: sent {gone}");
        }
        // Every request carries its _meta.
        let caps = if bare {
            json!({})
        } else {
            json!({ "roots": {}, "sampling": {}, "elicitation": {} })
        };
        for r in requests(&s) {
            let meta = &r["params"]["_meta"];
            assert_eq!(
                meta["io.modelcontextprotocol/protocolVersion"],
                V.as_str(),
                "{r}"
            );
            assert_eq!(
                meta["io.modelcontextprotocol/clientCapabilities"], caps,
                "{r}"
            );
            assert_eq!(
                meta["io.modelcontextprotocol/clientInfo"]["name"],
                CLIENT_NAME
            );
        }
        // Pages of two of every tool and prompt; the fixture prompt of the
        // input-required pattern is retried once with the input it asks for
        // when the client declares elicitation.
        let (tools, prompts) = super::tests::offer(V);
        assert_eq!(count(&s.to_server, "tools/list"), tools.div_ceil(2));
        let retried = usize::from(!bare);
        assert_eq!(count(&s.to_server, "prompts/get"), prompts + retried);
        let ids: Vec<i64> = s
            .to_server
            .iter()
            .filter_map(|l| l["id"].as_i64())
            .collect();
        assert_eq!(ids, (1..=ids.len() as i64).collect::<Vec<_>>());
        assert_eq!(c.version(), Some(V));
        assert!(c.is_stateless());
        // The roots tool asks for the roots inside an input_required result:
        // the client retries with them when it declares roots, and its
        // request is refused with -32021 when it declares nothing.
        let roots_calls: Vec<&Value> = s
            .to_server
            .iter()
            .filter(|l| l["method"] == "tools/call" && l["params"]["name"] == "roots")
            .collect();
        let errors: Vec<i64> = s
            .to_client
            .iter()
            .filter_map(|l| l["error"]["code"].as_i64())
            .collect();
        if bare {
            assert_eq!(roots_calls.len(), 1);
            // The roots tool, and the fixtures that need a capability (all
            // but test_input_required_result_capabilities, and the prompt).
            assert_eq!(errors, [-32021; 9]);
        } else {
            assert_eq!(roots_calls.len(), 2, "the call and its retry");
            let retry = &roots_calls[1]["params"];
            assert_eq!(
                retry["inputResponses"]["roots"]["roots"][0]["uri"],
                ROOT_URI
            );
            assert!(roots_calls[0]["id"] != roots_calls[1]["id"]);
            assert!(errors.is_empty(), "{errors:?}");
            let done = s.stderr.iter().find(|l| l.contains("workflow done"));
            let listed = format!("{tools} tool(s) listed, {tools} called");
            assert!(done.is_some_and(|l| l.contains(&listed)), "{done:?}");
        }
    }
}

#[test]
fn each_stateless_fault_breaks_its_own_rule() {
    let cases = [
        (
            ClientFault::MissingMetaVersion,
            "stateless.meta.required-keys",
        ),
        (
            ClientFault::MissingClientCapabilities,
            "stateless.meta.required-keys",
        ),
        (
            ClientFault::SendsRemovedMethod,
            "stateless.removed.not-sent",
        ),
        (
            ClientFault::FallbackAfterDiscover,
            "stateless.client.era-cached",
        ),
    ];
    for (fault, rule) in cases {
        assert_eq!(fault.requirement().id, rule);
        let mut c = stateless(&[fault]);
        let s = against_server(&mut c, &[]);
        assert_eq!(s.exit, Some(0), "{fault}: {:#?}", s.stderr);
        let flagged = judged(&s);
        assert!(!flagged.is_empty(), "{fault}: nothing flagged");
        assert!(flagged.iter().all(|id| *id == rule), "{fault}: {flagged:?}");
        // server/discover itself is always right, so the session opens.
        let discover = &s.to_server[0];
        assert_eq!(discover["method"], "server/discover");
        let meta = &discover["params"]["_meta"];
        assert!(meta["io.modelcontextprotocol/protocolVersion"].is_string());
        assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    }
}

#[test]
fn what_each_stateless_fault_sends() {
    let mut c = stateless(&[ClientFault::MissingMetaVersion]);
    let s = against_server(&mut c, &[]);
    let later: Vec<&Value> = requests(&s).skip(1).collect();
    assert!(!later.is_empty());
    for r in &later {
        let meta = &r["params"]["_meta"];
        assert!(
            meta.get("io.modelcontextprotocol/protocolVersion")
                .is_none(),
            "{r}"
        );
        assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    }

    let mut c = stateless(&[ClientFault::SendsRemovedMethod]);
    let s = against_server(&mut c, &[]);
    let sent = methods(&s.to_server);
    assert_eq!(sent[..2], ["server/discover", "ping"]);
    assert_eq!(count(&s.to_server, "logging/setLevel"), 1);
    assert_eq!(count(&s.to_server, "resources/subscribe"), 0);

    let mut c = stateless(&[ClientFault::FallbackAfterDiscover]);
    let s = against_server(&mut c, &[]);
    let sent = methods(&s.to_server);
    assert_eq!(
        sent[..4],
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "ping"
        ]
    );
    assert_eq!(s.to_server[1]["id"], 2);
    assert_eq!(s.to_server[1]["params"]["protocolVersion"], "2025-11-25");
    assert!(s.to_server[1]["params"].get("_meta").is_none());
    assert_eq!(c.version(), Some(Version::V2025_11_25));
    assert!(!c.is_stateless());
}

#[test]
fn a_server_without_discover_gets_the_handshake() {
    let mut c = stateless(&[]);
    let first = writes(&c.start(0));
    assert_eq!(methods(&first), ["server/discover"]);
    assert_eq!(c.header_version(), Some(V));
    assert_eq!(c.version(), None);
    let out = c.on_frame(1, frame(&error(1, -32601)));
    let lines = writes(&out);
    assert_eq!(methods(&lines), ["initialize"]);
    assert_eq!(lines[0]["id"], 2);
    assert_eq!(lines[0]["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        lines[0]["params"]["capabilities"]["roots"],
        json!({ "listChanged": true })
    );
    assert_eq!(
        c.header_version(),
        None,
        "initialize goes out without the header"
    );
    let init = json!({ "jsonrpc": "2.0", "id": 2, "result": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "serverInfo": { "name": "old", "version": "1" } } });
    let lines = writes(&c.on_frame(2, frame(&init)));
    assert_eq!(methods(&lines), ["notifications/initialized", "ping"]);
    assert_eq!(c.version(), Some(Version::V2025_11_25));
    assert_eq!(c.header_version(), Some(Version::V2025_11_25));
    // A plain error other than -32601 is a handshake server too.
    let mut c = stateless(&[]);
    c.start(0);
    assert_eq!(
        methods(&writes(&c.on_frame(1, frame(&error(1, -32600))))),
        ["initialize"]
    );
}

#[test]
fn discover_outcomes_that_end_the_session() {
    // (answer, exit code)
    let cases = [
        (
            discover_result(json!(["2025-11-25", "2099-01-01"]), json!({})),
            0,
        ),
        (error(1, -32022), 0),
        (error(1, -32020), 1),
        (error(1, -32021), 1),
    ];
    for (answer, code) in cases {
        let mut c = stateless(&[]);
        c.start(0);
        let out = c.on_frame(1, frame(&answer));
        assert!(
            writes(&out).is_empty(),
            "{answer}: no fallback, nothing more"
        );
        assert_eq!(exit(&out), Some(code), "{answer}");
    }
    // No answer: no cancellation, exit 1; EOF before the answer: exit 1.
    let mut c = stateless(&[]);
    c.start(0);
    let out = c.on_tick(10_000);
    assert!(writes(&out).is_empty());
    assert_eq!(exit(&out), Some(1));
    let mut c = stateless(&[]);
    c.start(0);
    assert_eq!(exit(&c.on_eof(5)), Some(1));
}

#[test]
fn the_workflow_follows_the_discovered_capabilities() {
    let mut c = stateless(&[]);
    c.start(0);
    let answer = discover_result(
        json!(["2026-07-28"]),
        json!({ "prompts": {}, "logging": {} }),
    );
    let lines = writes(&c.on_frame(1, frame(&answer)));
    assert_eq!(methods(&lines), ["prompts/list"]);
    assert_eq!(c.version(), Some(V));
    // A result without resultType is complete.
    let page = json!({ "jsonrpc": "2.0", "id": 2, "result": { "prompts": [] } });
    let out = c.on_frame(2, frame(&page));
    assert!(writes(&out).is_empty());
    assert_eq!(exit(&out), Some(0), "logging/setLevel is not sent");
}

#[test]
fn without_discovery_the_workflow_starts_at_once() {
    let mut c = ReferenceClient::new(ClientConfig {
        version: V,
        discover: false,
        ..ClientConfig::default()
    });
    let lines = writes(&c.start(0));
    assert_eq!(methods(&lines), ["tools/list"]);
    assert_eq!(lines[0]["id"], 1);
    let meta = &lines[0]["params"]["_meta"];
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], V.as_str());
    assert_eq!(c.version(), Some(V));
}

/// A stateless client whose workflow has just sent tools/call `name`
/// (id 3); returns it.
fn calling(faults: &[ClientFault], bare: bool) -> ReferenceClient {
    let mut c = ReferenceClient::new(ClientConfig {
        version: V,
        faults: faults.to_vec(),
        bare,
        ..ClientConfig::default()
    });
    c.start(0);
    c.on_frame(
        1,
        frame(&discover_result(
            json!(["2026-07-28"]),
            json!({ "tools": {} }),
        )),
    );
    let list = json!({ "jsonrpc": "2.0", "id": 2, "result": { "resultType": "complete",
        "tools": [{ "name": "ask", "inputSchema": { "type": "object" } }] } });
    let lines = writes(&c.on_frame(2, frame(&list)));
    assert_eq!(lines[0]["params"]["name"], "ask");
    c
}

fn input_required(id: i64, result: Value) -> Value {
    let mut r = result;
    r["resultType"] = json!("input_required");
    json!({ "jsonrpc": "2.0", "id": id, "result": r })
}

#[test]
fn input_required_is_answered_and_the_request_retried() {
    let mut c = calling(&[], false);
    let ask = input_required(
        3,
        json!({
            "inputRequests": {
                "r": { "method": "roots/list" },
                "s": { "method": "sampling/createMessage",
                       "params": { "messages": [], "maxTokens": 5 } },
                "e": { "method": "elicitation/create",
                       "params": { "message": "?", "requestedSchema": { "type": "object", "properties": {} } } }
            },
            "requestState": "opaque-1"
        }),
    );
    let lines = writes(&c.on_frame(3, frame(&ask)));
    assert_eq!(methods(&lines), ["tools/call"]);
    let retry = &lines[0];
    assert_eq!(retry["id"], 4);
    let p = &retry["params"];
    assert_eq!(p["name"], "ask");
    assert_eq!(p["requestState"], "opaque-1");
    assert_eq!(p["inputResponses"]["r"]["roots"][0]["uri"], ROOT_URI);
    assert_eq!(p["inputResponses"]["s"]["model"], SAMPLING_MODEL);
    assert_eq!(p["inputResponses"]["e"]["action"], "decline");
    assert_eq!(
        p["_meta"]["io.modelcontextprotocol/protocolVersion"],
        V.as_str()
    );
    assert!(p["_meta"]["progressToken"].is_string());
    // The next round replaces the input; requestState alone is echoed.
    let again = input_required(4, json!({ "requestState": "opaque-2" }));
    let lines = writes(&c.on_frame(4, frame(&again)));
    let p = &lines[0]["params"];
    assert_eq!(p["requestState"], "opaque-2");
    assert!(p.get("inputResponses").is_none());
    let done =
        json!({ "jsonrpc": "2.0", "id": 5, "result": { "resultType": "complete", "content": [] } });
    let out = c.on_frame(5, frame(&done));
    assert_eq!(exit(&out), Some(0));
    let log: Vec<String> = out
        .iter()
        .filter_map(|o| match o {
            Output::Stderr(l) => Some(l.clone()),
            _ => None,
        })
        .collect();
    assert!(log.iter().any(|l| l.contains("1 called")), "{log:?}");
}

/// The retry the client sends for an input_required answer to its call
/// (asking for the roots, with `state` if any).
fn retried(faults: &[ClientFault], state: Option<&str>) -> Value {
    let mut ask = json!({ "inputRequests": { "r": { "method": "roots/list" } } });
    if let Some(s) = state {
        ask["requestState"] = json!(s);
    }
    let mut c = calling(faults, false);
    let lines = writes(&c.on_frame(3, frame(&input_required(3, ask))));
    assert_eq!(methods(&lines), ["tools/call"]);
    lines[0]["params"].clone()
}

#[test]
fn the_retry_faults_spoil_the_request_state() {
    assert_eq!(retried(&[], Some("s"))["requestState"], "s");
    assert!(retried(&[], None).get("requestState").is_none());
    let altered = retried(&[ClientFault::RetryStateAltered], Some("s"));
    assert_eq!(altered["requestState"], "sx");
    let invented = retried(&[ClientFault::RetryStateInvented], None);
    assert_eq!(invented["requestState"], "mcpspec-invented");
}

/// A client that has called the only tool (id 3) of a server offering
/// tools and prompts: after the call, it lists the prompts.
fn calling_before_prompts(faults: &[ClientFault]) -> ReferenceClient {
    let mut c = ReferenceClient::new(ClientConfig {
        version: V,
        faults: faults.to_vec(),
        ..ClientConfig::default()
    });
    c.start(0);
    let caps = json!({ "tools": {}, "prompts": {} });
    c.on_frame(1, frame(&discover_result(json!(["2026-07-28"]), caps)));
    let list = json!({ "jsonrpc": "2.0", "id": 2, "result": { "resultType": "complete",
        "tools": [{ "name": "ask", "inputSchema": { "type": "object" } }] } });
    let lines = writes(&c.on_frame(2, frame(&list)));
    assert_eq!(lines[0]["params"]["name"], "ask");
    c
}

fn answer(c: &mut ReferenceClient, id: i64, result: Value) -> Vec<Value> {
    let now = u64::try_from(id).unwrap_or_default();
    writes(&c.on_frame(
        now,
        frame(&json!({ "jsonrpc": "2.0", "id": id, "result": result })),
    ))
}

#[test]
fn the_leak_fault_carries_the_state_into_the_next_request() {
    let ask = json!({ "resultType": "input_required", "requestState": "s",
        "inputRequests": { "r": { "method": "roots/list" } } });
    let done = json!({ "resultType": "complete", "content": [] });
    for (faults, leaked) in [(vec![], false), (vec![ClientFault::RetryStateLeaked], true)] {
        let mut c = calling_before_prompts(&faults);
        let retry = answer(&mut c, 3, ask.clone());
        assert_eq!(retry[0]["params"]["requestState"], "s");
        let next = answer(&mut c, 4, done.clone());
        assert_eq!(methods(&next), ["prompts/list"]);
        let carried = next[0]["params"].get("requestState").is_some();
        assert_eq!(carried, leaked, "{faults:?}: {}", next[0]);
    }
}

#[test]
fn a_result_without_result_type_is_complete_unless_the_fault_infers_one() {
    let bait = json!({ "content": [], "inputRequests": { "r": { "method": "roots/list" } } });
    let mut clean = calling_before_prompts(&[]);
    assert_eq!(
        methods(&answer(&mut clean, 3, bait.clone())),
        ["prompts/list"]
    );
    let mut faulty = calling_before_prompts(&[ClientFault::ResultTypeInferred]);
    let next = answer(&mut faulty, 3, bait);
    assert_eq!(methods(&next), ["tools/call"]);
    assert!(next[0]["params"]["inputResponses"]["r"].is_object());
}

#[test]
fn input_the_client_cannot_give_skips_the_request() {
    let roots = json!({ "inputRequests": { "r": { "method": "roots/list" } } });
    let cases = [
        (calling(&[], true), roots.clone(), "cannot give"),
        (
            calling(&[], false),
            json!({ "inputRequests": { "x": { "method": "nope/nope" } } }),
            "cannot give",
        ),
        (
            calling(&[], false),
            json!({}),
            "neither inputRequests nor requestState",
        ),
        (
            calling(&[], false),
            json!({ "inputRequests": [] }),
            "not an object",
        ),
    ];
    for (mut c, result, why) in cases {
        let out = c.on_frame(3, frame(&input_required(3, result)));
        assert!(writes(&out).is_empty(), "{why}");
        assert_eq!(exit(&out), Some(0));
        let skipped = out.iter().any(
            |o| matches!(o, Output::Stderr(l) if l.contains(why) && l.contains("skipping it")),
        );
        assert!(skipped, "{why}: {out:?}");
    }
    // A server that keeps asking is given up on after MAX_INPUT_ROUNDS retries.
    let mut c = calling(&[], false);
    let mut id: i64 = 3;
    loop {
        let now = u64::try_from(id).unwrap_or_default();
        let out = c.on_frame(now, frame(&input_required(id, roots.clone())));
        if exit(&out).is_some() {
            break;
        }
        id += 1;
    }
    assert_eq!(id - 3, i64::from(workflow::MAX_INPUT_ROUNDS));
}

#[test]
fn header_version_per_session() {
    let mut c = client_at(Version::V2025_03_26, &[]);
    c.start(0);
    assert_eq!(c.header_version(), None);
    let init = json!({ "jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "serverInfo": { "name": "s", "version": "1" } } });
    c.on_frame(1, frame(&init));
    assert_eq!(c.version(), Some(Version::V2025_03_26));
    assert_eq!(c.header_version(), None, "2025-03-26 has no version header");
    let c = stateless(&[]);
    assert_eq!(c.header_version(), Some(V), "from the first request on");
}

#[test]
fn a_32022_listing_the_version_earns_one_retry() {
    let unsupported = |id: i64, supported: Value| {
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32022, "message": "no",
            "data": { "supported": supported, "requested": "2026-07-28" } } })
    };
    let meta_version =
        |w: &Value| w["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].clone();
    for (fault, named) in [
        (None, "2026-07-28"),
        (Some(ClientFault::RetryUnlistedVersion), "2025-11-25"),
    ] {
        let faults: Vec<ClientFault> = fault.into_iter().collect();
        let mut c = stateless(&faults);
        c.start(0);
        // server/discover: refused, listing 2026-07-28: sent again, once.
        let out = c.on_frame(1, frame(&unsupported(1, json!(["2026-07-28"]))));
        let sent = writes(&out);
        assert_eq!(sent.len(), 1, "{fault:?}: {sent:?}");
        assert_eq!(sent[0]["method"], "server/discover");
        assert_eq!(meta_version(&sent[0]), json!(named), "{fault:?}");
        let again = sent[0]["id"].as_i64().unwrap();
        let out = c.on_frame(2, frame(&unsupported(again, json!(["2026-07-28"]))));
        assert!(writes(&out).is_empty(), "{fault:?}: no second retry");
        assert_eq!(exit(&out), Some(0));
    }
    // A -32022 that does not list the client's version ends the session.
    let mut c = stateless(&[]);
    c.start(0);
    let out = c.on_frame(1, frame(&unsupported(1, json!(["2025-11-25"]))));
    assert!(writes(&out).is_empty());
    assert_eq!(exit(&out), Some(0));
}
