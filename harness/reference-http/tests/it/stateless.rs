//! 2026-07-28 over Streamable HTTP: no session, the `MCP-Protocol-Version`
//! header agreeing with `_meta`, named errors with status 400, and the
//! handshake-era sessions unchanged beside it. Bodies are validated against
//! the 2026-07-28 schema.

use mcpspec_engine::Version;
use mcpspec_schema::schemas;
use serde_json::{json, Value};

use crate::support::*;

const V: &str = "2026-07-28";

fn meta(version: &str, caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

/// A 2026-07-28 request whose `_meta` names `version`.
fn req(id: i64, method: &str, mut params: Value, version: &str) -> Value {
    params["_meta"] = meta(version, json!({}));
    request(id, method, params)
}

/// A sessionless POST with the version header.
fn post(header: &str) -> Req {
    Req::post("/mcp").header("MCP-Protocol-Version", header)
}

fn conforms(method: &str, body: &Value) {
    let s = schemas(Version::V2026_07_28);
    let v = match body.get("result") {
        Some(r) => s.check_result(method, r),
        None => s.check_error_response(body),
    };
    assert!(v.is_empty(), "{method}: {body}\n{v:#?}");
}

#[tokio::test]
async fn requests_need_no_session() {
    let s = start(&[]).await;
    for (method, params) in [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({ "name": "echo", "arguments": { "message": "hi" } }),
        ),
        ("resources/read", json!({ "uri": "mcpspec://blob" })),
        ("prompts/get", json!({ "name": "simple" })),
    ] {
        let r = post(V).json(&req(1, method, params, V)).send(s.addr).await;
        assert_eq!(r.status, 200, "{method}: {}", r.text());
        assert!(r.header("mcp-session-id").is_none());
        let body = r.json();
        conforms(method, &body);
        assert_eq!(body["result"]["resultType"], "complete", "{body}");
    }
    let r = post(V)
        .json(&req(2, "server/discover", json!({}), V))
        .send(s.addr)
        .await;
    assert!(r.json()["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!(V)));
}

#[tokio::test]
async fn header_must_agree_with_meta() {
    let s = start(&[]).await;
    let body = req(7, "tools/list", json!({}), V);
    for header in [Some("2025-11-25"), Some("2027-01-01"), Some(""), None] {
        let mut r = Req::post("/mcp").json(&body);
        if let Some(h) = header {
            r = r.header("MCP-Protocol-Version", h);
        }
        let r = r.send(s.addr).await;
        assert_eq!(r.status, 400, "{header:?}: {}", r.text());
        let b = r.json();
        assert_eq!(b["error"]["code"], -32020, "{b}");
        assert_eq!(b["id"], 7);
        conforms("tools/list", &b);
    }
}

#[tokio::test]
async fn mcp_method_header_must_name_the_body_method() {
    let s = start(&[]).await;
    let body = req(8, "tools/list", json!({}), V);
    let r = post(V)
        .header("Mcp-Method", "prompts/list")
        .json(&body)
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let b = r.json();
    assert_eq!(b["error"]["code"], -32020, "{b}");
    assert_eq!(b["id"], 8);
    conforms("tools/list", &b);
    // The right method is served, in any case of the header's name and
    // with whitespace around its value; a missing one or another case of
    // the value is refused.
    for (name, value, want) in [
        ("Mcp-Method", Some("tools/list"), 200),
        ("mcp-method", Some("tools/list"), 200),
        ("MCP-METHOD", Some("  tools/list\t"), 200),
        ("Mcp-Method", Some("TOOLS/LIST"), 400),
        ("Mcp-Method", None, 400),
    ] {
        let mut r = post(V).json(&body).without("Mcp-Method");
        if let Some(v) = value {
            r = r.header(name, v);
        }
        let r = r.send(s.addr).await;
        assert_eq!(r.status, want, "{name}: {value:?}: {}", r.text());
        if want == 400 {
            assert_eq!(r.json()["error"]["code"], -32020);
            conforms("tools/list", &r.json());
        }
    }
}

#[tokio::test]
async fn mcp_name_header_must_name_the_target() {
    let s = start(&[]).await;
    for (method, params) in [
        (
            "tools/call",
            json!({ "name": "echo", "arguments": { "message": "hi" } }),
        ),
        ("prompts/get", json!({ "name": "simple" })),
        ("resources/read", json!({ "uri": "mcpspec://blob" })),
    ] {
        let body = req(9, method, params.clone(), V);
        let target = params.get("name").or(params.get("uri")).unwrap();
        let target = target.as_str().unwrap();
        let coded = format!("=?base64?{}?=", b64(target));
        for (value, want) in [
            (Some(target.to_owned()), 200),
            (Some(format!(" {target} ")), 200),
            (Some(coded), 200),
            (Some("mcpspec-other".to_owned()), 400),
            (Some(target.to_uppercase()), 400),
            (Some("=?base64?%%%?=".to_owned()), 400),
            (None, 400),
        ] {
            let mut r = post(V).json(&body).without("Mcp-Name");
            if let Some(v) = &value {
                r = r.header("Mcp-Name", v);
            }
            let r = r.send(s.addr).await;
            assert_eq!(r.status, want, "{method} {value:?}: {}", r.text());
            if want == 400 {
                assert_eq!(r.json()["error"]["code"], -32020);
                assert_eq!(r.json()["id"], 9);
                conforms(method, &r.json());
            }
        }
    }
}

/// Standard Base64 with padding (test-side, independent of the server's).
fn b64(text: &str) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[tokio::test]
async fn concurrent_clients_may_reuse_request_ids() {
    // Each stateless POST stands alone: the same id in flight from two
    // clients is no conflict (a slow call, then a quick one with its id).
    let s = start(&[]).await;
    let mut call = slow(5, 0.5, 1, "a");
    call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(V);
    call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let addr = s.addr;
    let slow_call = tokio::spawn(async move { post(V).json(&call).send(addr).await });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let r = post(V)
        .json(&req(5, "tools/list", json!({}), V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["result"]["tools"].is_array(), "{}", r.text());
    let slow_answer = slow_call.await.expect("slow call task");
    assert_eq!(slow_answer.status, 200);
}

#[tokio::test]
async fn named_errors_are_400() {
    let s = start(&[]).await;
    let r = post("1999-01-01")
        .json(&req(1, "tools/list", json!({}), "1999-01-01"))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
    let b = r.json();
    assert_eq!(b["error"]["code"], -32022);
    assert_eq!(b["error"]["data"]["requested"], "1999-01-01");
    conforms("tools/list", &b);

    let r = post(V)
        .json(&req(2, "tools/call", json!({ "name": "roots" }), V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32021);
    conforms("tools/call", &r.json());
}

#[tokio::test]
async fn missing_meta_and_removed_methods() {
    let s = start(&[]).await;
    // The header says 2026-07-28, the body has no _meta: invalid params,
    // with 400 (basic#meta).
    let r = post(V)
        .json(&request(1, "tools/list", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32602);
    // A removed method is not implemented: 404 with -32601.
    let r = post(V)
        .json(&req(2, "ping", json!({}), V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["code"], -32601);
    // No session was made: initialize-era requests still need one.
    let r = Req::post("/mcp")
        .json(&request(3, "tools/list", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn slow_calls_stream_progress_and_can_be_cancelled() {
    let s = start(&[]).await;
    let mut call = slow(9, 0.2, 2, "tok");
    call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(V);
    call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let r = post(V).json(&call).send(s.addr).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "text/event-stream");
    let events = r.events();
    let last = events.last().expect("events").json();
    assert_eq!(last["id"], 9);
    conforms("tools/call", &last);
    assert_eq!(
        events.len(),
        3,
        "two progress notifications, then the answer"
    );
    // A notification with the header goes to the same place: 202.
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": { "requestId": 123 } });
    assert_eq!(post(V).json(&cancel).send(s.addr).await.status, 202);
}

#[tokio::test]
async fn handshake_sessions_are_unchanged() {
    let s = start(&[]).await;
    let id = session(s.addr, "2025-06-18").await;
    let r = mcp(&id, "2025-06-18")
        .json(&request(1, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.json()["result"], json!({}));
    // A 2026 header on a plain request of the session is still a bad header.
    let r = mcp(&id, V)
        .json(&request(2, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
    // A body that names 2026-07-28 is served statelessly, session id or not.
    let r = mcp(&id, V)
        .json(&req(3, "tools/list", json!({}), V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["resultType"], "complete");
}
