//! The reference client against scripted server frames, and against the
//! reference server itself (in process, time simulated): the clean client
//! completes its workflow; each fault changes exactly what it names.

use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_wire::{Frame, FrameError, NdjsonDecoder};
use serde_json::{json, Value};

use super::*;
use crate::{Config, ReferenceServer};

fn client(faults: &[ClientFault]) -> ReferenceClient {
    client_at(Version::LATEST_HANDSHAKE, faults)
}

pub(super) fn client_at(version: Version, faults: &[ClientFault]) -> ReferenceClient {
    ReferenceClient::new(ClientConfig {
        version,
        faults: faults.to_vec(),
        ..ClientConfig::default()
    })
}

pub(super) fn frame(v: &Value) -> Result<Frame, FrameError> {
    raw(v.to_string().as_bytes())
}

pub(super) fn raw(bytes: &[u8]) -> Result<Frame, FrameError> {
    Ok(Frame {
        bytes: bytes.to_vec(),
        line: 1,
        crlf: false,
    })
}

/// The lines written to the server, as JSON (a non-JSON line as a string).
pub(super) fn writes(out: &[Output]) -> Vec<Value> {
    out.iter()
        .filter_map(|o| match o {
            Output::Write(b) => Some(
                serde_json::from_slice(b)
                    .unwrap_or_else(|_| Value::from(String::from_utf8_lossy(b).into_owned())),
            ),
            _ => None,
        })
        .collect()
}

pub(super) fn exit(out: &[Output]) -> Option<i32> {
    out.iter().find_map(|o| match o {
        Output::Exit(c) => Some(*c),
        _ => None,
    })
}

pub(super) fn methods(lines: &[Value]) -> Vec<&str> {
    lines.iter().filter_map(|l| l["method"].as_str()).collect()
}

fn init_result(version: &str, capabilities: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": version, "capabilities": capabilities,
        "serverInfo": { "name": "scripted", "version": "1" } } })
}

/// A client that has sent initialize and received a result declaring
/// `capabilities`; returns what that result made it write.
fn initialized(c: &mut ReferenceClient, capabilities: Value) -> Vec<Value> {
    c.start(0);
    let v = c.offered.as_str();
    writes(&c.on_frame(1, frame(&init_result(v, capabilities))))
}

// ── against the reference server ─────────────────────────────────────────

/// What crossed the wire in a whole session between the client and the
/// reference server.
pub(super) struct Session {
    pub(super) to_server: Vec<Value>,
    pub(super) to_client: Vec<Value>,
    /// Both directions in the order they crossed (true: from the client).
    pub(super) wire: Vec<(bool, Value)>,
    pub(super) stderr: Vec<String>,
    pub(super) exit: Option<i32>,
}

pub(super) fn against_server(
    client: &mut ReferenceClient,
    server_faults: &[crate::Fault],
) -> Session {
    let mut server = ReferenceServer::new(Config {
        faults: server_faults.to_vec(),
        ..Config::default()
    });
    let mut s = Session {
        to_server: Vec::new(),
        to_client: Vec::new(),
        wire: Vec::new(),
        stderr: Vec::new(),
        exit: None,
    };
    let mut now = 0;
    let mut for_client = Vec::new();
    let mut from_client = client.start(now);
    for _ in 0..10_000 {
        // Client outputs → the server.
        let mut decoder = NdjsonDecoder::default();
        for o in std::mem::take(&mut from_client) {
            match o {
                Output::Write(b) => {
                    let lines = writes(&[Output::Write(b.clone())]);
                    s.wire.extend(lines.iter().map(|l| (true, l.clone())));
                    s.to_server.extend(lines);
                    decoder.push(&b);
                }
                Output::Stderr(line) => s.stderr.push(line),
                Output::Exit(code) => {
                    s.exit = Some(code);
                    return s;
                }
            }
        }
        while let Some(f) = decoder.next() {
            for_client.extend(server.on_frame(now, f));
        }
        // Server outputs → the client.
        let mut decoder = NdjsonDecoder::default();
        for o in std::mem::take(&mut for_client) {
            if let Output::Write(b) = o {
                let lines = writes(&[Output::Write(b.clone())]);
                s.wire.extend(lines.iter().map(|l| (false, l.clone())));
                s.to_client.extend(lines);
                decoder.push(&b);
            }
        }
        while let Some(f) = decoder.next() {
            from_client.extend(client.on_frame(now, f));
        }
        if from_client.is_empty() {
            // Quiet: jump to the next timer of either side.
            let next = [client.next_deadline(), server.next_deadline()]
                .into_iter()
                .flatten()
                .min();
            let Some(next) = next else { break };
            now = now.max(next);
            if server.next_deadline().is_some_and(|d| d <= now) {
                for_client.extend(server.on_tick(now));
            }
            if client.next_deadline().is_some_and(|d| d <= now) {
                from_client.extend(client.on_tick(now));
            }
        }
    }
    s
}

/// How many tools and prompts the clean reference server lists at `version`.
pub(super) fn offer(version: Version) -> (usize, usize) {
    let tools = crate::tools::definitions(version, crate::fault::FaultSet::default()).len();
    let mrtr_prompt = usize::from(version >= Version::V2026_07_28);
    let prompts = crate::prompts::definitions().len()
        + crate::fixtures::library::prompt_definitions().len()
        + mrtr_prompt;
    (tools, prompts)
}

pub(super) fn count(lines: &[Value], method: &str) -> usize {
    methods(lines).iter().filter(|m| **m == method).count()
}

#[test]
fn clean_client_completes_its_workflow_against_the_reference_server_in_every_version() {
    for version in CLIENT_VERSIONS {
        let mut c = client_at(version, &[]);
        let s = against_server(&mut c, &[]);
        assert_eq!(s.exit, Some(0), "{version}: {:#?}", s.stderr);
        let sent = &s.to_server;
        assert_eq!(
            &methods(sent)[..3],
            ["initialize", "notifications/initialized", "ping"],
            "{version}"
        );
        // Every tool and prompt the server lists (its own five of each, then
        // the conformance fixture's), two to a page; seven resources or more.
        let (tools, prompts) = offer(version);
        assert_eq!(count(sent, "tools/list"), tools.div_ceil(2), "{version}");
        // A tool that runs only as a task (2025-11-25's `background`) is
        // not called: this client does not use tasks.
        let task_only = usize::from(crate::tasks::offered(version));
        assert_eq!(count(sent, "tools/call"), tools - task_only, "{version}");
        assert_eq!(
            count(sent, "prompts/list"),
            prompts.div_ceil(2),
            "{version}"
        );
        assert_eq!(count(sent, "prompts/get"), prompts, "{version}");
        assert!(count(sent, "resources/read") >= 5, "{version}");
        assert_eq!(count(sent, "resources/subscribe"), 1, "{version}");
        assert_eq!(count(sent, "resources/unsubscribe"), 1, "{version}");
        assert!(count(sent, "resources/templates/list") >= 1, "{version}");
        assert_eq!(count(sent, "logging/setLevel"), 1, "{version}");
        // Ids 1, 2, 3, … in order, never reused.
        let ids: Vec<i64> = sent.iter().filter_map(|l| l["id"].as_i64()).collect();
        assert_eq!(ids, (1..=ids.len() as i64).collect::<Vec<_>>(), "{version}");
        // The server never had to reject one of the client's requests.
        let errors: Vec<&Value> = s
            .to_client
            .iter()
            .filter(|l| l.get("error").is_some())
            .collect();
        assert!(errors.is_empty(), "{version}: {errors:?}");
        assert!(
            s.stderr.iter().any(|l| l.contains("workflow done")),
            "{version}"
        );
        assert_eq!(c.version(), Some(version));
    }
}

#[test]
fn a_tampered_cursor_is_refused_by_the_server_and_the_workflow_goes_on() {
    let mut c = client(&[ClientFault::TamperCursor]);
    let s = against_server(&mut c, &[]);
    assert_eq!(s.exit, Some(0));
    let cursors: Vec<&str> = s
        .to_server
        .iter()
        .filter_map(|l| l["params"]["cursor"].as_str())
        .collect();
    assert!(!cursors.is_empty() && cursors.iter().all(|c| c.ends_with('x')));
    assert!(s.to_client.iter().any(|l| l["error"]["code"] == -32602));
}

#[test]
fn the_servers_early_roots_request_is_answered_and_the_session_goes_on() {
    let mut c = client(&[]);
    let s = against_server(&mut c, &[crate::Fault::EarlyRequest]);
    assert_eq!(s.exit, Some(0), "{:#?}", s.stderr);
    let asked = s.to_client.iter().find(|l| l["method"] == "roots/list");
    let id = asked
        .map(|r| r["id"].clone())
        .expect("the server asked for roots");
    let answer = s
        .to_server
        .iter()
        .find(|l| l["id"] == id && l.get("result").is_some());
    assert_eq!(
        answer.map(|a| a["result"]["roots"][0]["uri"].clone()),
        Some(json!(ROOT_URI))
    );
}

// ── the handshake ─────────────────────────────────────────────────────────

#[test]
fn initialize_request_per_version() {
    for version in CLIENT_VERSIONS {
        let lines = writes(&client_at(version, &[]).start(0));
        assert_eq!(lines.len(), 1);
        let init = &lines[0];
        assert_eq!(
            (init["id"].clone(), init["method"].clone()),
            (json!(1), json!("initialize"))
        );
        let params = &init["params"];
        assert_eq!(params["protocolVersion"], version.as_str());
        assert_eq!(params["clientInfo"]["name"], CLIENT_NAME);
        assert!(params["clientInfo"]["version"].is_string());
        let caps = &params["capabilities"];
        assert_eq!(caps["roots"], json!({ "listChanged": true }));
        assert_eq!(caps["sampling"], json!({}));
        assert_eq!(
            caps.get("elicitation").is_some(),
            version >= Version::V2025_06_18,
            "{version}"
        );
    }
}

#[test]
fn an_older_supported_version_is_adopted() {
    let mut c = client(&[]);
    c.start(0);
    let out = c.on_frame(1, frame(&init_result("2025-03-26", json!({}))));
    assert_eq!(
        methods(&writes(&out)),
        ["notifications/initialized", "ping"]
    );
    assert_eq!(c.version(), Some(Version::V2025_03_26));
}

#[test]
fn an_unsupported_version_ends_the_session_unless_the_fault_goes_on() {
    for named in ["1999-01-01", "2026-07-28"] {
        let mut c = client(&[]);
        c.start(0);
        let out = c.on_frame(1, frame(&init_result(named, json!({}))));
        assert!(writes(&out).is_empty(), "{named}: nothing more is sent");
        assert_eq!(exit(&out), Some(0), "{named}");

        let mut c = client(&[ClientFault::AcceptUnsupportedVersion]);
        c.start(0);
        let out = c.on_frame(1, frame(&init_result(named, json!({}))));
        assert_eq!(
            methods(&writes(&out)),
            ["notifications/initialized", "ping"]
        );
        assert_eq!(exit(&out), None);
    }
}

#[test]
fn a_failed_or_malformed_initialize_exits_1() {
    let mut c = client(&[]);
    c.start(0);
    let err = json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32602, "message": "no" } });
    assert_eq!(exit(&c.on_frame(1, frame(&err))), Some(1));
    let mut c = client(&[]);
    c.start(0);
    let bad = json!({ "jsonrpc": "2.0", "id": 1, "result": { "capabilities": {} } });
    assert_eq!(exit(&c.on_frame(1, frame(&bad))), Some(1));
}

#[test]
fn an_unanswered_initialize_times_out_without_being_cancelled() {
    let mut c = client(&[]);
    c.start(0);
    assert_eq!(c.next_deadline(), Some(10_000));
    let out = c.on_tick(10_000);
    assert!(writes(&out).is_empty(), "initialize is never cancelled");
    assert_eq!(exit(&out), Some(1));
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn a_ping_before_the_initialize_result_is_answered() {
    let mut c = client(&[]);
    c.start(0);
    let ping = json!({ "jsonrpc": "2.0", "id": "p", "method": "ping" });
    let lines = writes(&c.on_frame(1, frame(&ping)));
    assert_eq!(
        lines,
        [json!({ "jsonrpc": "2.0", "id": "p", "result": {} })]
    );
}

// ── the workflow ──────────────────────────────────────────────────────────

#[test]
fn a_timed_out_request_is_cancelled_and_the_workflow_goes_on() {
    let mut c = client(&[]);
    let lines = initialized(&mut c, json!({ "logging": {} }));
    assert_eq!(lines[1]["method"], "ping");
    let out = c.on_tick(1 + 10_000);
    let lines = writes(&out);
    assert_eq!(
        methods(&lines),
        ["notifications/cancelled", "logging/setLevel"]
    );
    assert_eq!(lines[0]["params"]["requestId"], 2);
    assert_eq!(lines[1]["id"], 3);
}

#[test]
fn a_request_the_server_cancels_is_no_longer_awaited() {
    let mut c = client(&[]);
    initialized(&mut c, json!({ "logging": {} }));
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": { "requestId": 2 } });
    let lines = writes(&c.on_frame(2, frame(&cancel)));
    assert_eq!(methods(&lines), ["logging/setLevel"]);
    // The late answer is ignored.
    let late = json!({ "jsonrpc": "2.0", "id": 2, "result": {} });
    assert!(writes(&c.on_frame(3, frame(&late))).is_empty());
}

#[test]
fn responses_to_ids_not_awaited_are_ignored() {
    let mut c = client(&[]);
    initialized(&mut c, json!({}));
    for id in [json!(99), json!("2"), Value::Null] {
        let r = json!({ "jsonrpc": "2.0", "id": id, "result": {} });
        let out = c.on_frame(2, frame(&r));
        assert!(writes(&out).is_empty() && exit(&out).is_none());
    }
    // The ping (id 2) is still awaited; its answer ends the workflow.
    let done = c.on_frame(
        3,
        frame(&json!({ "jsonrpc": "2.0", "id": 2, "result": {} })),
    );
    assert_eq!(exit(&done), Some(0));
}

#[test]
fn linger_keeps_answering_until_its_time_or_eof() {
    let mut c = ReferenceClient::new(ClientConfig {
        linger: Duration::from_millis(500),
        ..ClientConfig::default()
    });
    initialized(&mut c, json!({}));
    let out = c.on_frame(
        10,
        frame(&json!({ "jsonrpc": "2.0", "id": 2, "result": {} })),
    );
    assert_eq!(exit(&out), None);
    assert_eq!(c.next_deadline(), Some(510));
    let ping = json!({ "jsonrpc": "2.0", "id": 7, "method": "ping" });
    assert_eq!(
        writes(&c.on_frame(20, frame(&ping)))[0]["result"],
        json!({})
    );
    assert_eq!(exit(&c.on_tick(510)), Some(0));

    let mut c = ReferenceClient::new(ClientConfig {
        linger: Duration::from_secs(60),
        ..ClientConfig::default()
    });
    initialized(&mut c, json!({}));
    c.on_frame(
        10,
        frame(&json!({ "jsonrpc": "2.0", "id": 2, "result": {} })),
    );
    assert_eq!(exit(&c.on_eof(20)), Some(0));
    assert!(
        c.on_frame(30, frame(&ping)).is_empty(),
        "nothing after the exit"
    );
}

#[test]
fn eof_before_the_handshake_is_a_failure_after_it_not() {
    let mut c = client(&[]);
    c.start(0);
    assert_eq!(exit(&c.on_eof(1)), Some(1));
    let mut c = client(&[]);
    initialized(&mut c, json!({ "tools": {} }));
    assert_eq!(exit(&c.on_eof(2)), Some(0));
}

// ── what the server sends ─────────────────────────────────────────────────

#[test]
fn invalid_lines_are_ignored_and_notifications_tolerated() {
    let mut c = client(&[]);
    c.start(0);
    for bad in [
        &b"not json"[..],
        b"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
        b"[]",
    ] {
        let out = c.on_frame(1, raw(bad));
        assert!(writes(&out).is_empty() && exit(&out).is_none());
        assert!(out.iter().any(|o| matches!(o, Output::Stderr(_))));
    }
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/message",
                       "params": { "level": "info", "data": "hi" } });
    assert!(writes(&c.on_frame(1, frame(&note))).is_empty());
}

#[test]
fn batches_are_answered_as_one_array_under_2025_03_26_only() {
    let batch = json!([
        { "jsonrpc": "2.0", "id": "a", "method": "ping" },
        { "jsonrpc": "2.0", "method": "notifications/progress",
          "params": { "progressToken": 1, "progress": 1 } },
        { "jsonrpc": "2.0", "id": "b", "method": "roots/list" }
    ]);
    let mut c = client_at(Version::V2025_03_26, &[]);
    initialized(&mut c, json!({}));
    let lines = writes(&c.on_frame(2, frame(&batch)));
    assert_eq!(lines.len(), 1);
    let ids: Vec<&Value> = lines[0]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&json!("a"), &json!("b")]);

    let mut c = client_at(Version::V2025_03_26, &[ClientFault::NoBatch]);
    initialized(&mut c, json!({}));
    assert!(writes(&c.on_frame(2, frame(&batch))).is_empty());

    let mut c = client_at(Version::V2025_06_18, &[]);
    initialized(&mut c, json!({}));
    let lines = writes(&c.on_frame(2, frame(&batch)));
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (lines[0]["id"].clone(), lines[0]["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
}

#[test]
fn the_servers_requests_are_answered_at_once() {
    let mut c = client(&[]);
    initialized(&mut c, json!({}));
    let ask = |c: &mut ReferenceClient, method: &str, params: Value| {
        let req = json!({ "jsonrpc": "2.0", "id": 50, "method": method, "params": params });
        writes(&c.on_frame(2, frame(&req)))
    };
    let roots = ask(&mut c, "roots/list", json!({}));
    assert_eq!(roots[0]["result"]["roots"][0]["uri"], ROOT_URI);
    let sampling = ask(
        &mut c,
        "sampling/createMessage",
        json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
                "maxTokens": 5 }),
    );
    assert_eq!(sampling[0]["result"]["model"], SAMPLING_MODEL);
    assert_eq!(sampling[0]["result"]["role"], "assistant");
    let elicit = ask(&mut c, "elicitation/create", json!({ "message": "?" }));
    assert_eq!(elicit[0]["result"], json!({ "action": "decline" }));
    let unknown = ask(&mut c, "tools/list", json!({}));
    assert_eq!(unknown[0]["error"]["code"], -32601);
}

// ── each fault ────────────────────────────────────────────────────────────

#[test]
fn start_faults() {
    let lines = writes(&client(&[ClientFault::BadInitialize]).start(0));
    assert!(lines[0]["params"].get("clientInfo").is_none());

    let lines = writes(&client(&[ClientFault::CancelInitialize]).start(0));
    assert_eq!(methods(&lines), ["initialize", "notifications/cancelled"]);
    assert_eq!(lines[1]["params"]["requestId"], 1);

    let mut c = client(&[ClientFault::UndeclaredSampling]);
    let lines = writes(&c.start(0));
    assert!(lines[0]["params"]["capabilities"].get("sampling").is_none());
    let req = json!({ "jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage",
                      "params": { "messages": [], "maxTokens": 1 } });
    assert!(writes(&c.on_frame(1, frame(&req)))[0]["result"]["model"].is_string());
}

#[test]
fn early_request_goes_out_before_the_result_and_both_answers_are_awaited() {
    let mut c = client(&[ClientFault::EarlyRequest]);
    let lines = writes(&c.start(0));
    assert_eq!(methods(&lines), ["initialize", "tools/list"]);
    assert_eq!(lines[1]["id"], 2);
    let out = c.on_frame(1, frame(&init_result("2025-11-25", json!({}))));
    assert_eq!(methods(&writes(&out)), ["notifications/initialized"]);
    let answer =
        json!({ "jsonrpc": "2.0", "id": 2, "error": { "code": -32600, "message": "early" } });
    let lines = writes(&c.on_frame(2, frame(&answer)));
    assert_eq!(methods(&lines), ["ping"]);
    assert_eq!(lines[0]["id"], 3);
}

#[test]
fn handshake_faults() {
    let mut c = client(&[ClientFault::SkipInitialized]);
    assert_eq!(methods(&initialized(&mut c, json!({}))), ["ping"]);

    let mut c = client(&[ClientFault::ReuseIds]);
    let lines = initialized(&mut c, json!({}));
    assert_eq!(
        (lines[1]["method"].clone(), lines[1]["id"].clone()),
        (json!("ping"), json!(1))
    );
    let done = c.on_frame(
        2,
        frame(&json!({ "jsonrpc": "2.0", "id": 1, "result": {} })),
    );
    assert_eq!(exit(&done), Some(0));

    let mut c = client(&[ClientFault::StdinNoise]);
    let lines = initialized(&mut c, json!({}));
    assert_eq!(lines[0]["method"], "notifications/initialized");
    assert!(lines[1].is_string(), "a non-JSON line: {}", lines[1]);
    assert_eq!(lines[2]["method"], "ping");
}

#[test]
fn answer_faults() {
    let ask = |faults: &[ClientFault], method: &str, params: Value| {
        let mut c = client(faults);
        initialized(&mut c, json!({}));
        let req = json!({ "jsonrpc": "2.0", "id": 50, "method": method, "params": params });
        writes(&c.on_frame(2, frame(&req)))
    };
    assert!(ask(&[ClientFault::IgnorePing], "ping", json!({})).is_empty());
    let roots = ask(&[ClientFault::MalformedRoots], "roots/list", json!({}));
    assert!(roots[0]["result"]["roots"][0].get("uri").is_none());
    let roots = ask(&[ClientFault::RootsNotFile], "roots/list", json!({}));
    assert_eq!(
        roots[0]["result"]["roots"][0]["uri"],
        "https://example.com/root"
    );
    let sampling = ask(
        &[ClientFault::MalformedSampling],
        "sampling/createMessage",
        json!({ "messages": [], "maxTokens": 1 }),
    );
    assert!(sampling[0]["result"].get("model").is_none());
    let elicit = ask(
        &[ClientFault::ElicitationBadAction],
        "elicitation/create",
        json!({}),
    );
    assert_eq!(elicit[0]["result"]["action"], "maybe");
    let unknown = ask(&[ClientFault::UnknownRequestSuccess], "x/y", json!({}));
    assert_eq!(unknown[0]["result"], json!({}));
    assert!(ask(&[ClientFault::NoResponseToUnknown], "x/y", json!({})).is_empty());
}

#[test]
fn notification_and_malformed_input_faults() {
    let mut c = client(&[ClientFault::AnswerNotifications]);
    initialized(&mut c, json!({}));
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" });
    assert_eq!(
        writes(&c.on_frame(2, frame(&note))),
        [json!({ "jsonrpc": "2.0", "id": 0, "result": {} })]
    );

    let mut c = client(&[ClientFault::CrashOnMalformed]);
    c.start(0);
    assert_eq!(exit(&c.on_frame(1, raw(b"{oops"))), Some(1));
}
