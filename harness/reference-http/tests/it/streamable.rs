//! Streamable HTTP at `/mcp`: sessions, header rules, JSON or SSE answers,
//! the GET stream and resumption.

use std::time::Duration;

use serde_json::json;

use crate::support::*;

const V: &str = "2025-06-18";

#[tokio::test]
async fn initialize_issues_a_visible_ascii_session_id() {
    let s = start(&[]).await;
    let r = Req::post("/mcp").json(&initialize(V)).send(s.addr).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "application/json");
    let id = r.header("mcp-session-id").expect("a session id");
    assert!(
        id.len() >= 16 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{id:?}"
    );
    assert_eq!(r.json()["result"]["protocolVersion"], V);
    assert_eq!(r.json()["id"], 0);
    // Each initialize starts its own session.
    let other = Req::post("/mcp").json(&initialize(V)).send(s.addr).await;
    assert_ne!(other.header("mcp-session-id"), Some(id));
}

#[tokio::test]
async fn a_failed_initialize_creates_no_session() {
    let s = start(&[]).await;
    let r = Req::post("/mcp")
        .json(&request(0, "initialize", json!({ "capabilities": {} })))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], -32602);
    assert_eq!(r.header("mcp-session-id"), None);
}

#[tokio::test]
async fn requests_without_a_session_id_get_400() {
    let s = start(&[]).await;
    let _id = session(s.addr, V).await;
    let r = Req::post("/mcp")
        .json(&request(1, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32000);
    assert_eq!(r.json()["id"], json!(null));
    assert_eq!(Req::get("/mcp").send(s.addr).await.status, 400);
    assert_eq!(Req::delete("/mcp").send(s.addr).await.status, 400);
}

#[tokio::test]
async fn an_unknown_session_id_gets_404() {
    let s = start(&[]).await;
    let r = mcp("0123456789abcdef0123456789abcdef", V)
        .json(&request(1, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["message"], "Session not found");
    let r = Req::get("/mcp").session("nope").send(s.addr).await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn delete_ends_the_session() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    let ping = mcp(&id, V).json(&request(1, "ping", json!({})));
    assert_eq!(ping.send(s.addr).await.status, 200);
    let r = Req::delete("/mcp").session(&id).send(s.addr).await;
    assert_eq!(r.status, 200);
    assert!(r.body.is_empty());
    assert_eq!(ping.send(s.addr).await.status, 404);
    assert_eq!(
        Req::delete("/mcp").session(&id).send(s.addr).await.status,
        404
    );
}

#[tokio::test]
async fn accept_must_list_both_types() {
    let s = start(&[]).await;
    for accept in ["application/json", "text/event-stream", "*/*"] {
        let r = Req::post("/mcp")
            .header("Accept", accept)
            .json(&initialize(V))
            .send(s.addr)
            .await;
        assert_eq!(r.status, 406, "{accept}");
        assert_eq!(r.header("mcp-session-id"), None);
    }
    let r = Req::post("/mcp")
        .without("Accept")
        .json(&initialize(V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 406);
    // GET needs text/event-stream.
    let id = session(s.addr, V).await;
    let r = Req::get("/mcp")
        .header("Accept", "application/json")
        .session(&id)
        .send(s.addr)
        .await;
    assert_eq!(r.status, 406);
}

#[tokio::test]
async fn content_type_must_be_json() {
    let s = start(&[]).await;
    let r = Req::post("/mcp")
        .header("Content-Type", "text/plain")
        .json(&initialize(V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 415);
    let r = Req::post("/mcp")
        .header("Content-Type", "application/json; charset=utf-8")
        .json(&initialize(V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn notifications_and_responses_get_202_without_a_body() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    let r = mcp(&id, V)
        .json(&json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 99 } }))
        .send(s.addr)
        .await;
    assert_eq!((r.status, r.body.len()), (202, 0));
    let r = mcp(&id, V)
        .json(&json!({ "jsonrpc": "2.0", "id": "x", "result": {} }))
        .send(s.addr)
        .await;
    assert_eq!((r.status, r.body.len()), (202, 0));
}

#[tokio::test]
async fn malformed_json_gets_400_with_a_parse_error() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    for req in [Req::post("/mcp"), mcp(&id, V), mcp("unknown", V)] {
        let r = req.body(b"{\"jsonrpc\": \"2.0\", ").send(s.addr).await;
        assert_eq!(r.status, 400);
        assert_eq!(r.content_type(), "application/json");
        let body = r.json();
        assert_eq!(body["error"]["code"], -32700, "{body}");
        assert_eq!(body["id"], json!(null));
    }
    // JSON that is not a JSON-RPC message: -32600.
    let r = mcp(&id, V).body(b"{\"hello\":1}").send(s.addr).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
}

#[tokio::test]
async fn a_foreign_origin_gets_403() {
    let s = start(&[]).await;
    for origin in [
        "http://evil.example",
        "null",
        "http://localhost.evil.example:80",
    ] {
        let r = Req::post("/mcp")
            .header("Origin", origin)
            .json(&initialize(V))
            .send(s.addr)
            .await;
        assert_eq!(r.status, 403, "{origin}");
        assert_eq!(r.header("mcp-session-id"), None);
    }
    let r = Req::get("/sse")
        .header("Origin", "http://evil.example")
        .send(s.addr)
        .await;
    assert_eq!(r.status, 403);
    for origin in [
        "http://localhost:6274",
        "http://127.0.0.1",
        "http://[::1]:80",
    ] {
        let r = Req::post("/mcp")
            .header("Origin", origin)
            .json(&initialize(V))
            .send(s.addr)
            .await;
        assert_eq!(r.status, 200, "{origin}");
    }
}

#[tokio::test]
async fn protocol_version_header_rules() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    let ping = request(1, "ping", json!({}));
    for bad in ["1999-01-01", "2026-07-28", "latest", ""] {
        let r = mcp(&id, bad).json(&ping).send(s.addr).await;
        assert_eq!(r.status, 400, "{bad:?}");
        assert_eq!(r.json()["error"]["code"], -32000);
    }
    let r = Req::get("/mcp")
        .session(&id)
        .header("MCP-Protocol-Version", "1999-01-01")
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
    // Missing: the negotiated version is known; another supported one is not invalid.
    let r = mcp(&id, V)
        .without("MCP-Protocol-Version")
        .json(&ping)
        .send(s.addr)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        mcp(&id, "2025-03-26").json(&ping).send(s.addr).await.status,
        200
    );
    // A 2025-03-26 session predates the header and ignores it.
    let old = session(s.addr, "2025-03-26").await;
    assert_eq!(
        mcp(&old, "1999-01-01")
            .json(&ping)
            .send(s.addr)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn an_answer_alone_is_json_and_one_with_progress_is_sse() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    let r = mcp(&id, V)
        .json(&request(1, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!((r.status, r.content_type()), (200, "application/json"));
    assert_eq!(r.json(), json!({ "jsonrpc": "2.0", "id": 1, "result": {} }));

    let r = mcp(&id, V).json(&slow(2, 0.2, 2, "tok")).send(s.addr).await;
    assert_eq!((r.status, r.content_type()), (200, "text/event-stream"));
    let events = r.events(); // the whole body: the stream closed after the response
    let kinds: Vec<String> = events
        .iter()
        .map(|e| e.json()["method"].as_str().unwrap_or("response").to_owned())
        .collect();
    assert_eq!(
        kinds,
        [
            "notifications/progress",
            "notifications/progress",
            "response"
        ]
    );
    assert_eq!(events[0].json()["params"]["progressToken"], "tok");
    assert_eq!(events[2].json()["id"], 2);
    let ids: Vec<&str> = events
        .iter()
        .map(|e| e.id.as_deref().unwrap_or(""))
        .collect();
    let stream = ids[0].split('-').next().unwrap_or("");
    assert_eq!(
        ids,
        [
            format!("{stream}-1"),
            format!("{stream}-2"),
            format!("{stream}-3")
        ]
    );
    assert!(events.iter().all(|e| e.event == "message"));
}

#[tokio::test]
async fn a_late_answer_comes_on_an_sse_stream_even_without_progress() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    let call = request(
        3,
        "tools/call",
        json!({ "name": "slow", "arguments": { "duration": 0.1, "steps": 0 } }),
    );
    let r = mcp(&id, V).json(&call).send(s.addr).await;
    assert_eq!(r.content_type(), "text/event-stream");
    let events = r.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].json()["id"], 3);
}

#[tokio::test]
async fn batches_under_2025_03_26_only() {
    let s = start(&[]).await;
    let id = session(s.addr, "2025-03-26").await;
    let batch = json!([request(1, "ping", json!({})), request(2, "ping", json!({}))]);
    let r = mcp(&id, "2025-03-26").json(&batch).send(s.addr).await;
    assert_eq!((r.status, r.content_type()), (200, "application/json"));
    let ids: Vec<i64> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2]);

    let id = session(s.addr, V).await;
    let r = mcp(&id, V).json(&batch).send(s.addr).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
}

#[tokio::test]
async fn the_get_stream_carries_server_initiated_notifications() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    let mut get = Req::get("/mcp").session(&id).open(s.addr).await;
    assert_eq!(get.status, 200);
    assert_eq!(get.header("content-type"), Some("text/event-stream"));
    let sub = request(
        1,
        "resources/subscribe",
        json!({ "uri": "mcpspec://counter" }),
    );
    let r = mcp(&id, V).json(&sub).send(s.addr).await;
    assert_eq!(r.json()["result"], json!({}));
    let e = get.event().await.expect("an event");
    assert_eq!(e.json()["method"], "notifications/resources/updated");
    assert_eq!(e.json()["params"]["uri"], "mcpspec://counter");
    assert!(
        e.id.as_deref().is_some_and(|i| i.starts_with("0-")),
        "{e:?}"
    );
    // Responses never go there: a ping is answered in its own body.
    let r = mcp(&id, V)
        .json(&request(2, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.json()["id"], 2);
}

#[tokio::test]
async fn messages_for_the_get_stream_wait_until_it_opens() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    let sub = request(
        1,
        "resources/subscribe",
        json!({ "uri": "mcpspec://counter" }),
    );
    mcp(&id, V).json(&sub).send(s.addr).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let mut get = Req::get("/mcp").session(&id).open(s.addr).await;
    let e = get.event().await.expect("a kept event");
    assert_eq!(e.id.as_deref(), Some("0-1"));
}

#[tokio::test]
async fn last_event_id_replays_only_the_stream_that_was_cut() {
    let s = start(&[]).await;
    let id = session(s.addr, V).await;
    // Counter updates flow on the GET stream meanwhile.
    let sub = request(
        1,
        "resources/subscribe",
        json!({ "uri": "mcpspec://counter" }),
    );
    mcp(&id, V).json(&sub).send(s.addr).await;
    let mut post = mcp(&id, V).json(&slow(2, 0.6, 3, "t")).open(s.addr).await;
    let first = post.event().await.expect("first progress");
    let first_id = first.id.clone().expect("an event id");
    drop(post); // the connection breaks
    tokio::time::sleep(Duration::from_millis(900)).await; // the call finishes meanwhile
    let mut resumed = Req::get("/mcp")
        .session(&id)
        .header("Last-Event-ID", &first_id)
        .open(s.addr)
        .await;
    assert_eq!(resumed.status, 200);
    let mut rest = Vec::new();
    while let Some(e) = resumed.event().await {
        rest.push(e);
    }
    let stream = first_id.split('-').next().unwrap_or("");
    let ids: Vec<String> = rest
        .iter()
        .map(|e| e.id.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        ids,
        [
            format!("{stream}-2"),
            format!("{stream}-3"),
            format!("{stream}-4")
        ]
    );
    assert_eq!(rest[2].json()["id"], 2);
    assert!(rest
        .iter()
        .all(|e| e.json()["method"] != "notifications/resources/updated"));
}

#[tokio::test]
async fn other_methods_get_405() {
    let s = start(&[]).await;
    let r = Req::post("/sse").json(&json!({})).send(s.addr).await;
    assert_eq!(r.status, 405);
}
