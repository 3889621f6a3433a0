//! The client-side HTTP rules, on records built by hand.
use super::*;
use serde_json::json;

/// No tools listed (the custom-header rules then judge nothing).
fn no_tools() -> &'static params::Listed {
    Box::leak(Box::default())
}

const BOTH: (&str, &str) = ("accept", "application/json, text/event-stream");
const SSE: (&str, &str) = ("accept", "text/event-stream");

#[test]
fn every_rule_judged_here_is_a_client_rule_of_the_catalogue() {
    let rules = "http.post.accept http.get.accept http.post.client-post http.post.single-message \
        http.session.client-echo http.header.protocol-version http.header.version-matches-meta \
        sse.client-post http.header.param-mirror http.header.value-encoding \
        http.header.client-rejects-invalid-tools http.sse.client-respects-retry";
    for id in rules.split_whitespace() {
        let r = mcpspec_engine::lookup(id).unwrap_or_else(|| panic!("{id} is not catalogued"));
        assert_eq!(r.binds.as_str(), "client", "{id}");
        assert!(
            r.excluded.is_none(),
            "{id} is judged, so it cannot be excluded"
        );
    }
}

/// A record of `line` (`POST /mcp`) answered with `status`.
fn rec(line: &str, headers: &[(&str, &str)], body: &str, status: u16) -> HttpRecord {
    let (method, target) = line.split_once(' ').unwrap_or((line, "/mcp"));
    HttpRecord {
        method: method.to_owned(),
        target: target.to_owned(),
        request_headers: headers
            .iter()
            .map(|(n, v)| ((*n).into(), (*v).into()))
            .collect(),
        request_body: body.to_owned(),
        status: Some(status),
        ..HttpRecord::default()
    }
}

fn post(headers: &[(&str, &str)], body: &str) -> HttpRecord {
    rec("POST /mcp", headers, body, 200)
}

fn cx(version: Version) -> Context<'static> {
    Context {
        version,
        legacy: false,
        live_session: None,
        negotiation: None,
        listed: no_tools(),
        stateless: version.lifecycle() == Lifecycle::Stateless,
    }
}

/// The findings as `id: detail`, for a request that came as POST #2.
fn found(cx: &Context<'_>, r: &HttpRecord) -> Vec<String> {
    let found = judge(cx, Via::Post(2), r).into_iter();
    found
        .map(|(r, detail)| format!("{}: {detail}", r.id))
        .collect()
}

fn ids(cx: &Context<'_>, r: &HttpRecord) -> Vec<&'static str> {
    judge(cx, Via::Post(2), r)
        .into_iter()
        .map(|f| f.0.id)
        .collect()
}

fn request(method: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {}}).to_string()
}

fn initialized() -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()
}

#[test]
fn requests_accept_the_media_types_of_their_answers() {
    let cx = cx(Version::V2025_06_18);
    let with = |accept: &str| post(&[("accept", accept)], &initialized());
    let odd = "Application/JSON;q=0.9 , text/event-stream;charset=utf-8";
    for ok in [BOTH.1, odd] {
        assert!(ids(&cx, &with(ok)).is_empty(), "{ok}");
    }
    let refused = "text/event-stream;q=0, application/json";
    for bad in ["application/json", "*/*", refused] {
        assert_eq!(ids(&cx, &with(bad)), ["http.post.accept"], "{bad}");
    }
    assert_eq!(
        found(&cx, &post(&[], &initialized())),
        ["http.post.accept: POST #2 (notifications/initialized) sent no Accept header, which does not list application/json or text/event-stream"]
    );
    // A repeated Accept header counts as a whole.
    let split = post(&[("accept", "application/json"), SSE], &initialized());
    assert!(ids(&cx, &split).is_empty());
    // 2024-11-05 has no Streamable HTTP.
    let bare = post(&[], &request("tools/list"));
    assert!(ids(&self::cx(Version::V2024_11_05), &bare).is_empty());
    // A GET asks for an event stream, while there is such a stream.
    let get = rec("GET /mcp", &[("accept", "application/json")], "", 200);
    let fine = rec("GET /mcp", &[SSE], "", 200);
    for v in [Version::V2025_03_26, Version::V2025_11_25] {
        assert_eq!(ids(&self::cx(v), &get), ["http.get.accept"], "{v}");
        assert!(ids(&self::cx(v), &fine).is_empty(), "{v}");
    }
    // 2026-07-28 has no GET stream, so no rule for its Accept.
    assert!(ids(&self::cx(Version::V2026_07_28), &get).is_empty());
}

#[test]
fn a_body_is_one_message_sent_to_the_mcp_endpoint() {
    let batch = post(
        &[BOTH],
        &format!("[{},{}]", request("tools/list"), initialized()),
    );
    assert_eq!(
        ids(&cx(Version::V2025_06_18), &batch),
        ["http.post.single-message"]
    );
    assert!(ids(&cx(Version::V2025_03_26), &batch).is_empty());
    let cx = cx(Version::V2025_11_25);
    let elsewhere = rec("POST /other", &[BOTH], &request("ping"), 200);
    assert_eq!(
        found(&cx, &elsewhere),
        ["http.post.client-post: POST #2 (ping) went to /other, not to the MCP endpoint /mcp"]
    );
    // Authorization discovery and token requests are no MCP messages;
    // a query string on the endpoint leaves it the endpoint.
    for r in [
        rec("GET /.well-known/oauth-protected-resource", &[], "", 404),
        rec("POST /token", &[], "grant_type=client_credentials", 404),
        rec("POST /mcp?x=1", &[BOTH], &request("ping"), 200),
    ] {
        assert!(ids(&cx, &r).is_empty(), "{}", r.target);
    }
}

#[test]
fn the_session_id_is_echoed_once_issued() {
    let mut cx = Context {
        live_session: Some("s-1"),
        ..cx(Version::V2025_03_26)
    };
    let list = request("tools/list");
    // Refused with 400 for lacking the id, or with 404 for another one.
    let missing = rec("POST /mcp", &[BOTH], &list, 400);
    let stale = rec("POST /mcp", &[BOTH, ("mcp-session-id", "s-0")], &list, 404);
    assert_eq!(
        found(&cx, &missing),
        ["http.session.client-echo: POST #2 (tools/list) carried no Mcp-Session-Id, though the server issued \"s-1\" with its initialize answer (refused with 400)"]
    );
    assert_eq!(ids(&cx, &stale), ["http.session.client-echo"]);
    for method in ["GET", "DELETE"] {
        let r = rec(&format!("{method} /mcp"), &[SSE], "", 400);
        assert_eq!(ids(&cx, &r), ["http.session.client-echo"], "{method}");
    }
    // Accepted (the right id, or none while no session was live); a new
    // initialize, which opens a session; a 400 about an unreadable body.
    let mut reinit = post(&[BOTH], &request("initialize"));
    reinit.response_headers = vec![("mcp-session-id".into(), "s-2".into())];
    for r in [
        post(&[BOTH, ("mcp-session-id", "s-1")], &list),
        post(&[BOTH], &list),
        reinit,
        rec("POST /mcp", &[BOTH], "{not json", 400),
    ] {
        assert!(ids(&cx, &r).is_empty(), "{}", r.request_body);
    }
    // 2026-07-28 has no sessions; without a live one there is nothing to echo.
    let stateless = Context {
        version: Version::V2026_07_28,
        ..cx
    };
    let routed = rec(
        "POST /mcp",
        &[BOTH, ("mcp-method", "tools/list")],
        &list,
        400,
    );
    assert!(ids(&stateless, &routed).is_empty());
    cx.live_session = None;
    assert!(ids(&cx, &missing).is_empty() && ids(&cx, &stale).is_empty());
}

fn negotiated(version: Version, binding: bool, confirmed: bool) -> Context<'static> {
    Context {
        negotiation: Some(Negotiation {
            version,
            binding,
            confirmed,
        }),
        ..cx(version)
    }
}

#[test]
fn after_the_handshake_every_request_names_the_negotiated_version() {
    let cx = negotiated(Version::V2025_06_18, true, true);
    let named = |v: &str| post(&[BOTH, ("mcp-protocol-version", v)], &initialized());
    assert_eq!(
        found(&cx, &post(&[BOTH], &initialized())),
        ["http.header.protocol-version: POST #2 (notifications/initialized) carried no MCP-Protocol-Version header; 2025-06-18 was negotiated"]
    );
    assert!(ids(&cx, &named("2025-06-18")).is_empty());
    assert_eq!(
        ids(&cx, &named("2025-11-25")),
        ["http.header.protocol-version-negotiated"]
    );
    for method in ["GET", "DELETE"] {
        let r = rec(&format!("{method} /mcp"), &[SSE], "", 200);
        assert_eq!(ids(&cx, &r), ["http.header.protocol-version"], "{method}");
    }
    // The initialize POST itself comes before any version is agreed.
    assert!(ids(&cx, &post(&[BOTH], &request("initialize"))).is_empty());
    // 2025-03-26 has no such header.
    let old = negotiated(Version::V2025_03_26, true, true);
    assert!(ids(&old, &post(&[BOTH], &initialized())).is_empty());
}

#[test]
fn a_client_is_held_to_a_version_only_once_it_can_know_it() {
    let ping = post(&[BOTH], &request("ping"));
    let answer = post(&[BOTH], r#"{"jsonrpc":"2.0","id":"h1","result":{}}"#);
    let list = post(&[BOTH], &request("tools/list"));
    // Answer sent, initialized not yet seen: a ping may have crossed it.
    let early = negotiated(Version::V2025_11_25, true, false);
    assert!(ids(&early, &ping).is_empty() && ids(&early, &answer).is_empty());
    assert_eq!(ids(&early, &list), ["http.header.protocol-version"]);
    let later = negotiated(Version::V2025_11_25, true, true);
    assert_eq!(ids(&later, &ping), ["http.header.protocol-version"]);
    // A counter-offer the client has not taken binds it to nothing; nor
    // does an exchange not yet answered.
    let offered = negotiated(Version::V2025_11_25, false, false);
    assert!(ids(&offered, &list).is_empty());
    assert!(ids(&cx(Version::V2025_11_25), &list).is_empty());
}

#[test]
fn a_stateless_request_names_its_version_in_the_header_and_in_meta() {
    let cx = cx(Version::V2026_07_28);
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}
    })
    .to_string();
    const ROUTED: (&str, &str) = ("mcp-method", "tools/list");
    let with = |v: &str| post(&[BOTH, ROUTED, ("mcp-protocol-version", v)], &body);
    assert!(ids(&cx, &with("2026-07-28")).is_empty());
    assert_eq!(
        ids(&cx, &post(&[BOTH, ROUTED], &body)),
        ["http.header.protocol-version"]
    );
    assert_eq!(
        found(&cx, &with("2025-11-25")),
        ["http.header.version-matches-meta: POST #2 (tools/list) carried MCP-Protocol-Version \"2025-11-25\", but its _meta names \"2026-07-28\""]
    );
    // Notification POSTs have no header rule in 2026-07-28; a request
    // without `_meta` is the stateless rules' business.
    assert!(ids(&cx, &post(&[BOTH], &initialized())).is_empty());
    assert!(ids(&cx, &post(&[BOTH, ROUTED], &request("tools/list"))).is_empty());
}

/// A 2026-07-28 client whose `server/discover` failed may fall back to
/// `initialize`: that POST, and what follows it, are handshake-era requests,
/// not held to the 2026-07-28 request headers.
#[test]
fn a_client_that_fell_back_to_initialize_is_not_held_to_stateless_headers() {
    let bare = post(&[BOTH], &request("initialize"));
    assert_eq!(ids(&cx(Version::V2026_07_28), &bare), Vec::<&str>::new());
    let after = Context {
        stateless: false,
        ..cx(Version::V2026_07_28)
    };
    assert_eq!(
        ids(&after, &post(&[BOTH], &request("tools/list"))),
        Vec::<&str>::new()
    );
    // Before any fall-back, the same request breaks the routing rule.
    assert!(ids(
        &cx(Version::V2026_07_28),
        &post(&[BOTH], &request("tools/list"))
    )
    .contains(&ids::HTTP_HEADER_METHOD.id));
}

#[test]
fn a_stateless_request_names_its_method_and_target_in_headers() {
    let cx = cx(Version::V2026_07_28);
    let version = ("mcp-protocol-version", "2026-07-28");
    let call = |name: &str| {
        json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}
        })
        .to_string()
    };
    let method = ("mcp-method", "tools/call");
    let ok = |headers: &[(&str, &str)], body: &str| ids(&cx, &post(headers, body)).is_empty();
    assert!(ok(
        &[BOTH, version, method, ("mcp-name", "echo")],
        &call("echo")
    ));
    // Whitespace around a value is not part of it; the sentinel is decoded.
    assert!(ok(
        &[BOTH, version, method, ("mcp-name", " echo ")],
        &call("echo")
    ));
    let coded = ("mcp-name", "=?base64?Z3LDtsOfZQ==?=");
    assert!(ok(&[BOTH, version, method, coded], &call("größe")));
    for (headers, want) in [
        (
            vec![BOTH, version, ("mcp-name", "echo")],
            "carried no Mcp-Method header",
        ),
        (
            vec![
                BOTH,
                version,
                ("mcp-method", "TOOLS/CALL"),
                ("mcp-name", "echo"),
            ],
            "carried Mcp-Method \"TOOLS/CALL\", not its method \"tools/call\"",
        ),
        (
            vec![BOTH, version, method],
            "carried no Mcp-Name header (params.name is \"echo\")",
        ),
        (
            vec![BOTH, version, method, ("mcp-name", "add")],
            "carried Mcp-Name \"add\", which does not give its params.name \"echo\"",
        ),
    ] {
        let found = found(&cx, &post(&headers, &call("echo")));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("http.header.method: POST #2 (tools/call) "),
            "{found:?}"
        );
        assert!(found[0].ends_with(want), "{found:?}");
    }
    // Only at 2026-07-28, and only for requests.
    let old = self::cx(Version::V2025_11_25);
    assert!(!ids(&old, &post(&[BOTH], &call("echo"))).contains(&"http.header.method"));
    assert!(ids(&cx, &post(&[BOTH], &initialized())).is_empty());
}

#[test]
fn legacy_posts_go_to_the_endpoint_of_the_stream() {
    let cx = Context {
        legacy: true,
        live_session: Some("abc"),
        ..cx(Version::V2024_11_05)
    };
    let body = request("tools/list");
    let to = |target: &str, status: u16| rec(&format!("POST {target}"), &[], &body, status);
    // Accepted; or the right URI, refused for its size.
    assert!(ids(&cx, &to("/messages?session=abc", 202)).is_empty());
    assert!(ids(&cx, &to("/messages?session=abc", 413)).is_empty());
    assert_eq!(
        found(&cx, &to("/messages?session=old", 404)),
        ["sse.client-post: POST #2 (tools/list) went to /messages?session=old, not to the URI of the endpoint event (/messages?session=abc)"]
    );
    assert_eq!(ids(&cx, &to("/sse", 405)), ["sse.client-post"]);
    assert_eq!(ids(&cx, &to("/messages", 400)), ["sse.client-post"]);
    // Before the stream opened, a POST is a Streamable HTTP probe.
    let probe = Context {
        live_session: None,
        ..cx
    };
    assert!(ids(&probe, &to("/sse", 405)).is_empty());
    assert!(ids(&cx, &rec("GET /sse", &[], "", 200)).is_empty());
}

/// The exchange of an `initialize` asking for `asked`, answered with
/// `result`, as the judge follows it.
fn exchange(asked: &str, result: Value) -> State {
    let mut state = State::default();
    let init = Id::from(0);
    state.received(&Message::request(
        0,
        "initialize",
        Some(json!({"protocolVersion": asked, "capabilities": {}})),
    ));
    state.sent(&Message::result(init.clone(), result), Some(&init));
    state
}

#[test]
fn the_negotiated_version_is_followed_from_the_exchange() {
    let init = Id::from(0);
    let same = exchange("2025-06-18", json!({"protocolVersion": "2025-06-18"}));
    let taken = Negotiation {
        version: Version::V2025_06_18,
        binding: true,
        confirmed: false,
    };
    assert_eq!(same.negotiation(&init, false), Some(taken));
    // Counter-offered: binding once the client took it.
    let mut offered = exchange("2025-11-25", json!({"protocolVersion": "2025-06-18"}));
    assert!(offered
        .negotiation(&init, false)
        .is_some_and(|n| !n.binding));
    assert!(offered
        .negotiation(&init, true)
        .is_some_and(|n| n.binding && n.confirmed));
    offered.received(&Message::notification("notifications/initialized", None));
    assert!(offered
        .negotiation(&init, false)
        .is_some_and(|n| n.binding && n.confirmed));
    // No header in that version, no such version, no handshake; an
    // error; no answer yet; an answer to another initialize.
    for v in ["2025-03-26", "1999-01-01", "2026-07-28"] {
        let ex = exchange("2025-06-18", json!({"protocolVersion": v}));
        assert_eq!(ex.negotiation(&init, false), None, "{v}");
    }
    let mut error = State::default();
    error.received(&Message::request(
        0,
        "initialize",
        Some(json!({"protocolVersion": "2025-06-18"})),
    ));
    error.sent(
        &Message::error(Some(init.clone()), -32602, "protocolVersion", None),
        Some(&init),
    );
    assert_eq!(error.negotiation(&init, false), None);
    let mut unanswered = State::default();
    unanswered.received(&Message::request(
        0,
        "initialize",
        Some(json!({"protocolVersion": "2025-06-18"})),
    ));
    assert_eq!(unanswered.negotiation(&init, false), None);
    assert_eq!(same.negotiation(&Id::from(1), false), None);
    // A new initialize starts over.
    let mut again = exchange("2025-06-18", json!({"protocolVersion": "2025-06-18"}));
    again.received(&Message::request(
        1,
        "initialize",
        Some(json!({"protocolVersion": "2025-06-18"})),
    ));
    assert_eq!(again.negotiation(&init, false), None);
}
