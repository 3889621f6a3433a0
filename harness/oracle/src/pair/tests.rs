//! The pair routes, and tags by side: a clean exchange is clean, each
//! side's fault is blamed on that side.

use mcpspec_wire::event::{HttpRecord, Transport, Via};
use serde_json::json;

use super::*;

fn line(v: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&v).expect("json")
}

fn client(v: serde_json::Value) -> Traffic {
    Traffic::Message {
        from: Side::Client,
        via: Via::Stdio,
        bytes: line(v),
    }
}

fn server(v: serde_json::Value) -> Traffic {
    Traffic::Message {
        from: Side::Server,
        via: Via::Stdio,
        bytes: line(v),
    }
}

fn initialize(version: &str) -> Vec<Traffic> {
    vec![
        client(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}),
        ),
        server(json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": version, "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "1"}}})),
        client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    ]
}

fn judge(pair: &mut Pair, traffic: Vec<Traffic>) -> Vec<PairViolation> {
    let mut out = Vec::new();
    let mut at = 0;
    for t in traffic {
        at += 1;
        out.extend(pair.observe(at, t));
    }
    out.extend(pair.end(at + 1));
    out
}

fn ids(found: &[PairViolation]) -> Vec<(Side, &'static str)> {
    found
        .iter()
        .map(|v| (v.side, v.violation.requirement.id))
        .collect()
}

#[test]
fn a_clean_exchange_breaks_nothing_and_settles_the_version() {
    let mut t = initialize("2025-06-18");
    t.push(client(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ));
    t.push(server(
        json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}),
    ));
    let mut pair = Pair::new(Transport::Stdio, None);
    let found = judge(&mut pair, t);
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(pair.version(), Some(Version::V2025_06_18));
    assert_eq!(pair.version_source(), Some(VersionSource::Negotiated));
    assert_eq!(
        (pair.messages(Side::Client), pair.messages(Side::Server)),
        (3, 2)
    );
}

#[test]
fn an_answer_with_a_wrong_id_is_the_servers() {
    let mut t = initialize("2025-06-18");
    t.push(client(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ));
    t.push(server(
        json!({"jsonrpc": "2.0", "id": 99, "result": {"tools": []}}),
    ));
    let found = judge(&mut Pair::new(Transport::Stdio, None), t);
    assert!(!found.is_empty());
    assert!(found.iter().all(|v| v.side == Side::Server), "{found:#?}");
    assert!(
        ids(&found).contains(&(Side::Server, "jsonrpc.response.id-matches")),
        "{found:#?}"
    );
}

#[test]
fn a_request_before_initialize_is_the_clients() {
    let mut t = vec![client(
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
    )];
    t.extend(initialize("2025-06-18"));
    let found = judge(&mut Pair::new(Transport::Stdio, None), t);
    assert!(!found.is_empty());
    assert!(found.iter().all(|v| v.side == Side::Client), "{found:#?}");
}

#[test]
fn a_given_version_is_kept_and_an_unsettled_one_falls_back() {
    let mut pair = Pair::new(Transport::Stdio, Some(Version::V2024_11_05));
    assert_eq!(pair.version(), Some(Version::V2024_11_05));
    judge(&mut pair, initialize("2024-11-05"));
    assert_eq!(pair.version_source(), Some(VersionSource::Given));

    // An initialize never answered: judged at what the client asked for.
    let mut pair = Pair::new(Transport::Stdio, None);
    let t = initialize("2025-03-26").into_iter().take(1).collect();
    let found = judge(&mut pair, t);
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(pair.version(), Some(Version::V2025_03_26));
    assert_eq!(pair.version_source(), Some(VersionSource::Asked));
}

fn post(n: u64, body: &[u8], status: u16, headers: &[(&str, &str)]) -> Vec<Traffic> {
    let record = HttpRecord {
        method: "POST".into(),
        target: mcpspec_wire::event::MCP_PATH.into(),
        request_headers: vec![
            (
                "accept".into(),
                "application/json, text/event-stream".into(),
            ),
            ("content-type".into(), "application/json".into()),
        ]
        .into_iter()
        .chain(
            headers
                .iter()
                .filter(|(k, _)| !k.starts_with('<'))
                .map(|(k, v)| (k.to_string(), v.to_string())),
        )
        .collect(),
        request_body: String::from_utf8_lossy(body).into_owned(),
        status: Some(status),
        response_headers: headers
            .iter()
            .filter_map(|(k, v)| k.strip_prefix('<').map(|k| (k.to_owned(), v.to_string())))
            .collect(),
        body: String::new(),
        error: None,
    };
    vec![
        Traffic::Message {
            from: Side::Client,
            via: Via::Post(n),
            bytes: body.to_vec(),
        },
        Traffic::Http {
            via: Via::Post(n),
            record,
        },
    ]
}

fn http_answer(n: u64, v: serde_json::Value) -> Traffic {
    Traffic::Message {
        from: Side::Server,
        via: Via::Post(n),
        bytes: line(v),
    }
}

#[test]
fn over_http_the_session_the_server_issued_binds_the_client() {
    let init = line(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}}),
    );
    let json_ct = ("<content-type", "application/json");
    let mut t = post(1, &init, 200, &[json_ct, ("<mcp-session-id", "s1")]);
    t.push(http_answer(
        1,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "serverInfo": {"name": "s", "version": "1"}}}),
    ));
    let note = line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    t.extend(post(2, &note, 202, &[("mcp-session-id", "s1")]));
    let ping = line(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    let clean = {
        let mut t = t.clone();
        t.extend(post(3, &ping, 200, &[json_ct, ("mcp-session-id", "s1")]));
        t.push(http_answer(
            3,
            json!({"jsonrpc": "2.0", "id": 2, "result": {}}),
        ));
        t
    };
    let found = judge(&mut Pair::new(Transport::Http, None), clean);
    assert!(found.is_empty(), "{found:#?}");

    // The ping without the session id, refused by the server: the client's.
    t.extend(post(3, &ping, 400, &[json_ct]));
    let found = judge(&mut Pair::new(Transport::Http, None), t);
    assert!(
        ids(&found).contains(&(Side::Client, "http.session.client-echo")),
        "{found:#?}"
    );
}

#[test]
fn a_line_that_breaks_the_framing_is_its_senders() {
    let mut t = initialize("2025-06-18");
    t.push(Traffic::Unframed {
        from: Side::Server,
        via: Via::Stdio,
        error: mcpspec_wire::FrameError {
            kind: mcpspec_wire::FrameErrorKind::Truncated,
            line: 2,
            bytes: b"{\"jsonrpc\"".to_vec(),
        },
    });
    let found = judge(&mut Pair::new(Transport::Stdio, None), t);
    assert_eq!(ids(&found), [(Side::Server, "stdio.newline-delimited")]);
}

#[test]
fn several_stdio_lines_at_once_are_several_frames() {
    let mut t = initialize("2025-06-18");
    let two = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n";
    t.push(Traffic::Message {
        from: Side::Client,
        via: Via::Stdio,
        bytes: two.to_vec(),
    });
    t.push(server(json!({"jsonrpc": "2.0", "id": 2, "result": {}})));
    t.push(server(json!({"jsonrpc": "2.0", "id": 3, "result": {}})));
    let found = judge(&mut Pair::new(Transport::Stdio, None), t);
    assert!(found.is_empty(), "{found:#?}");
}
