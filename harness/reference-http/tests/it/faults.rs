//! One test per HTTP fault: the clean server keeps the rule, the faulty one
//! breaks it in the way a black-box client sees. Plus protocol faults whose
//! HTTP shape is this crate's choice (exit, hang, duplicate answers).

use std::time::{Duration, Instant};

use mcpspec_reference::{Fault, Transport};
use serde_json::{json, Value};

use crate::support::*;

const V: &str = "2025-06-18";

fn ping(id: i64) -> Value {
    request(id, "ping", json!({}))
}

/// Every HTTP fault has a test below (names checked, not just counted).
#[test]
fn every_http_fault_is_tested_here() {
    let source = [
        include_str!("faults.rs"),
        include_str!("param_faults.rs"),
        include_str!("auth.rs"),
        include_str!("auth_server.rs"),
    ]
    .concat();
    for f in Fault::ALL
        .iter()
        .filter(|f| !f.applies_to(Transport::Stdio))
    {
        let test = format!("async fn {}(", f.name().replace('-', "_"));
        assert!(source.contains(&test), "no test for {f}");
    }
}

#[tokio::test]
async fn http_unknown_session_400() {
    for (faults, want) in [(vec![], 404), (vec![Fault::HttpUnknownSession400], 400)] {
        let s = start(&faults).await;
        let r = mcp("not-a-session", V).json(&ping(1)).send(s.addr).await;
        assert_eq!(r.status, want);
        // An ended session too.
        let id = session(s.addr, V).await;
        Req::delete("/mcp").session(&id).send(s.addr).await;
        assert_eq!(mcp(&id, V).json(&ping(2)).send(s.addr).await.status, want);
    }
}

#[tokio::test]
async fn http_session_id_space() {
    let s = start(&[Fault::HttpSessionIdSpace]).await;
    let id = session(s.addr, V).await;
    assert!(id.starts_with("mcp session ") && id.contains(' '), "{id:?}");
    // The session works otherwise.
    let r = mcp(&id, V).json(&ping(1)).send(s.addr).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn http_missing_session_accepted() {
    for (faults, want) in [
        (vec![], 400),
        (vec![Fault::HttpMissingSessionAccepted], 200),
    ] {
        let s = start(&faults).await;
        let _id = session(s.addr, V).await;
        let r = Req::post("/mcp").json(&ping(1)).send(s.addr).await;
        assert_eq!(r.status, want);
        if want == 200 {
            assert_eq!(r.json(), json!({ "jsonrpc": "2.0", "id": 1, "result": {} }));
        }
    }
}

#[tokio::test]
async fn http_foreign_origin_accepted() {
    for (faults, want) in [(vec![], 403), (vec![Fault::HttpForeignOriginAccepted], 200)] {
        let s = start(&faults).await;
        let r = Req::post("/mcp")
            .header("Origin", "http://evil.example")
            .json(&initialize(V))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want);
    }
}

#[tokio::test]
async fn http_delete_ignored() {
    for (faults, want) in [(vec![], 404), (vec![Fault::HttpDeleteIgnored], 200)] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        assert_eq!(
            Req::delete("/mcp").session(&id).send(s.addr).await.status,
            200
        );
        assert_eq!(mcp(&id, V).json(&ping(1)).send(s.addr).await.status, want);
    }
}

#[tokio::test]
async fn http_notification_200() {
    for (faults, want) in [(vec![], 202), (vec![Fault::HttpNotification200], 200)] {
        let s = start(&faults).await;
        let r = Req::post("/mcp").json(&initialize(V)).send(s.addr).await;
        let id = r.header("mcp-session-id").unwrap().to_owned();
        let r = mcp(&id, V)
            .json(&notification("notifications/initialized"))
            .send(s.addr)
            .await;
        assert_eq!((r.status, r.body.len()), (want, 0));
    }
}

#[tokio::test]
async fn http_protocol_version_not_checked() {
    for (faults, want) in [
        (vec![], 400),
        (vec![Fault::HttpProtocolVersionNotChecked], 200),
    ] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let r = mcp(&id, "1999-01-01").json(&ping(1)).send(s.addr).await;
        assert_eq!(r.status, want);
    }
}

#[tokio::test]
async fn http_malformed_no_error_body() {
    let s = start(&[Fault::HttpMalformedNoErrorBody]).await;
    let id = session(s.addr, V).await;
    for req in [Req::post("/mcp"), mcp(&id, V)] {
        let r = req.body(b"{oops").send(s.addr).await;
        assert_eq!((r.status, r.body.len()), (400, 0));
    }
    // The clean server's body: see streamable::malformed_json_gets_400_with_a_parse_error.
    let clean = start(&[]).await;
    let r = Req::post("/mcp").body(b"{oops").send(clean.addr).await;
    assert_eq!(r.json()["error"]["code"], -32700);
}

#[tokio::test]
async fn http_response_on_get_stream() {
    for fault in [false, true] {
        let faults = if fault {
            vec![Fault::HttpResponseOnGetStream]
        } else {
            vec![]
        };
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let mut get = Req::get("/mcp").session(&id).open(s.addr).await;
        let r = mcp(&id, V).json(&ping(7)).send(s.addr).await;
        if fault {
            assert_eq!(r.content_type(), "text/event-stream");
            assert!(
                r.events().is_empty(),
                "the POST's stream closes without the answer"
            );
            let e = get.event().await.expect("the answer on the GET stream");
            assert_eq!(e.json()["id"], 7);
        } else {
            assert_eq!(r.json()["id"], 7);
            assert!(get.silent_for(Duration::from_millis(300)).await);
        }
    }
}

#[tokio::test]
async fn http_event_ids_per_stream() {
    for fault in [false, true] {
        let faults = if fault {
            vec![Fault::HttpEventIdsPerStream]
        } else {
            vec![]
        };
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let a = mcp(&id, V).json(&slow(1, 0.1, 1, "a")).send(s.addr).await;
        let b = mcp(&id, V).json(&slow(2, 0.1, 1, "b")).send(s.addr).await;
        let first = |r: &Resp| r.events()[0].id.clone().unwrap();
        if fault {
            assert_eq!((first(&a).as_str(), first(&b).as_str()), ("1", "1"));
        } else {
            assert_ne!(first(&a), first(&b));
        }
    }
}

#[tokio::test]
async fn http_sse_stays_open() {
    for fault in [false, true] {
        let faults = if fault {
            vec![Fault::HttpSseStaysOpen]
        } else {
            vec![]
        };
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let mut post = mcp(&id, V).json(&slow(1, 0.1, 1, "t")).open(s.addr).await;
        assert_eq!(
            post.event().await.unwrap().json()["method"],
            "notifications/progress"
        );
        assert_eq!(post.event().await.unwrap().json()["id"], 1);
        if fault {
            assert!(
                post.silent_for(Duration::from_millis(500)).await,
                "the stream stays open"
            );
        } else {
            assert_eq!(
                post.event().await,
                None,
                "the stream ends after the response"
            );
        }
    }
}

#[tokio::test]
async fn http_response_text_plain() {
    for (faults, want) in [
        (vec![], "application/json"),
        (vec![Fault::HttpResponseTextPlain], "text/plain"),
    ] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let r = mcp(&id, V).json(&ping(1)).send(s.addr).await;
        assert_eq!((r.status, r.content_type()), (200, want));
        assert_eq!(r.json()["id"], 1);
    }
}

#[tokio::test]
async fn http_accept_not_checked() {
    for (faults, want) in [(vec![], 406), (vec![Fault::HttpAcceptNotChecked], 200)] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let r = mcp(&id, V)
            .header("Accept", "text/plain")
            .json(&ping(1))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want);
    }
}

#[tokio::test]
async fn http_content_type_not_checked() {
    for (faults, want) in [(vec![], 415), (vec![Fault::HttpContentTypeNotChecked], 200)] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let r = mcp(&id, V)
            .header("Content-Type", "text/plain")
            .json(&ping(1))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want);
    }
}

#[tokio::test]
async fn http_get_404() {
    for (faults, want) in [(vec![], 200), (vec![Fault::HttpGet404], 404)] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let stream = Req::get("/mcp")
            .session(&id)
            .header("MCP-Protocol-Version", V)
            .open(s.addr)
            .await;
        assert_eq!(stream.status, want);
    }
}

#[tokio::test]
async fn http_protocol_version_required() {
    for (faults, want) in [
        (vec![], 200),
        (vec![Fault::HttpProtocolVersionRequired], 400),
    ] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let r = Req::post("/mcp")
            .session(&id)
            .json(&ping(1))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want, "{}", r.text());
    }
}

#[tokio::test]
async fn http_malformed_200() {
    for (faults, want) in [(vec![], 400), (vec![Fault::HttpMalformed200], 200)] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        for body in [&b"{oops"[..], &b""[..]] {
            let r = mcp(&id, V).body(body).send(s.addr).await;
            assert_eq!(r.status, want, "{:?}: {}", body, r.text());
            assert_eq!(r.json()["error"]["code"], -32700);
        }
    }
}

#[tokio::test]
async fn sse_endpoint_not_first() {
    let s = start(&[Fault::SseEndpointNotFirst]).await;
    let mut stream = Req::get("/sse").open(s.addr).await;
    let e = stream.event().await.unwrap();
    assert_eq!(e.event, "message");
    assert_eq!(e.json()["method"], "ping");
    assert_eq!(stream.event().await.unwrap().event, "endpoint");
}

#[tokio::test]
async fn sse_foreign_origin_accepted() {
    // Clean: 403 before the session is looked up; faulty: the unknown session's 404.
    for (faults, want) in [(vec![], 403), (vec![Fault::SseForeignOriginAccepted], 404)] {
        let s = start(&faults).await;
        let r = Req::post("/message?sessionId=unknown")
            .header("Origin", "http://evil.example")
            .json(&ping(1))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want);
    }
    // The Streamable HTTP endpoint keeps its own switch.
    let s = start(&[Fault::SseForeignOriginAccepted]).await;
    let r = Req::post("/mcp")
        .header("Origin", "http://evil.example")
        .json(&initialize(V))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn sse_unknown_session_hang() {
    let s = start(&[Fault::SseUnknownSessionHang]).await;
    let post = Req::post("/message?sessionId=unknown").json(&ping(1));
    assert!(
        post.unanswered_for(s.addr, Duration::from_millis(700))
            .await,
        "no answer at all"
    );
    let clean = start(&[]).await;
    assert!(
        !post
            .unanswered_for(clean.addr, Duration::from_millis(700))
            .await
    );
    // Known sessions still work.
    let (mut stream, endpoint) = legacy(s.addr).await;
    assert_eq!(
        Req::post(&endpoint)
            .json(&ping(2))
            .send(s.addr)
            .await
            .status,
        202
    );
    assert_eq!(stream.event().await.unwrap().json()["id"], 2);
}

#[tokio::test]
async fn sse_answer_in_post_body() {
    let s = start(&[Fault::SseAnswerInPostBody]).await;
    let (mut stream, endpoint) = legacy(s.addr).await;
    let r = Req::post(&endpoint).json(&ping(3)).send(s.addr).await;
    assert_eq!((r.status, r.content_type()), (200, "application/json"));
    assert_eq!(r.json()["id"], 3);
    assert!(
        stream.silent_for(Duration::from_millis(300)).await,
        "nothing on the stream"
    );
}

// ── protocol faults over HTTP ────────────────────────────────────────────

#[tokio::test]
async fn exit_on_call_ends_the_session_with_500() {
    let s = start(&[Fault::ExitOnCall]).await;
    let id = session(s.addr, V).await;
    let call = request(
        1,
        "tools/call",
        json!({ "name": "echo", "arguments": { "message": "x" } }),
    );
    let r = mcp(&id, V).json(&call).send(s.addr).await;
    assert_eq!((r.status, r.body.len()), (500, 0));
    assert_eq!(mcp(&id, V).json(&ping(2)).send(s.addr).await.status, 404);
}

#[tokio::test]
async fn hang_on_call_leaves_an_sse_stream_open_without_an_answer() {
    let s = start(&[Fault::HangOnCall]).await;
    let id = session(s.addr, V).await;
    let call = request(
        1,
        "tools/call",
        json!({ "name": "echo", "arguments": { "message": "x" } }),
    );
    let started = Instant::now();
    let mut post = mcp(&id, V).json(&call).open(s.addr).await;
    assert_eq!(post.header("content-type"), Some("text/event-stream"));
    assert!(post.silent_for(Duration::from_millis(500)).await);
    assert!(started.elapsed() < Duration::from_secs(3));
    // DELETE ends the session, and the stream with it.
    Req::delete("/mcp").session(&id).send(s.addr).await;
    assert_eq!(post.event().await, None);
}

#[tokio::test]
async fn duplicate_response_comes_twice_on_one_stream() {
    let s = start(&[Fault::DuplicateResponse]).await;
    let id = session(s.addr, V).await;
    let call = request(
        5,
        "tools/call",
        json!({ "name": "echo", "arguments": { "message": "x" } }),
    );
    let r = mcp(&id, V).json(&call).send(s.addr).await;
    assert_eq!(r.content_type(), "text/event-stream");
    let ids: Vec<Value> = r.events().iter().map(|e| e.json()["id"].clone()).collect();
    assert_eq!(ids, [json!(5), json!(5)]);
}

#[tokio::test]
async fn answer_notification_makes_a_notification_post_200_with_a_body() {
    let s = start(&[Fault::AnswerNotification]).await;
    let r = Req::post("/mcp").json(&initialize(V)).send(s.addr).await;
    let id = r.header("mcp-session-id").unwrap().to_owned();
    let r = mcp(&id, V)
        .json(&notification("notifications/initialized"))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["id"], json!(null));
}

/// A sessionless 2026-07-28 POST of `tools/list` whose `_meta` names `meta`.
fn stateless_list(id: i64, meta: &str) -> Value {
    request(
        id,
        "tools/list",
        json!({ "_meta": {
            "io.modelcontextprotocol/protocolVersion": meta,
            "io.modelcontextprotocol/clientCapabilities": {}
        } }),
    )
}

#[tokio::test]
async fn http_header_meta_mismatch_accepted() {
    for (faults, want) in [
        (vec![], 400),
        (vec![Fault::HttpHeaderMetaMismatchAccepted], 200),
    ] {
        let s = start(&faults).await;
        let r = Req::post("/mcp")
            .header("MCP-Protocol-Version", "2025-11-25")
            .json(&stateless_list(1, "2026-07-28"))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want, "{faults:?}: {}", r.text());
        let faulty = r.json().get("result").is_some();
        assert_eq!(faulty, want == 200, "{}", r.text());
        if want == 400 {
            assert_eq!(r.json()["error"]["code"], -32020);
        }
    }
}

#[tokio::test]
async fn http_named_error_status_200() {
    for (faults, want) in [(vec![], 400), (vec![Fault::HttpNamedErrorStatus200], 200)] {
        let s = start(&faults).await;
        let r = Req::post("/mcp")
            .header("MCP-Protocol-Version", "1999-01-01")
            .json(&stateless_list(1, "1999-01-01"))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want, "{faults:?}");
        assert_eq!(r.json()["error"]["code"], -32022, "the body is unchanged");
        let r = Req::post("/mcp")
            .json(&stateless_list(2, "2026-07-28"))
            .send(s.addr)
            .await;
        assert_eq!(r.status, want, "-32020 too");
        assert_eq!(r.json()["error"]["code"], -32020);
    }
}

/// A 2026-07-28 POST of `body` with the version header; the routing
/// headers as `Req::json` sets them, then `fix` changes them.
async fn routed(s: &Server, body: &Value, fix: impl FnOnce(Req) -> Req) -> Resp {
    let r = Req::post("/mcp")
        .header("MCP-Protocol-Version", "2026-07-28")
        .json(body);
    fix(r).send(s.addr).await
}

#[tokio::test]
async fn http_method_header_optional() {
    for (faults, want) in [(vec![], 400), (vec![Fault::HttpMethodHeaderOptional], 200)] {
        let s = start(&faults).await;
        let r = routed(&s, &stateless_list(1, "2026-07-28"), |r| {
            r.without("Mcp-Method")
        })
        .await;
        assert_eq!(r.status, want, "{faults:?}: {}", r.text());
        // A wrong one is still refused.
        let r = routed(&s, &stateless_list(2, "2026-07-28"), |r| {
            r.header("Mcp-Method", "prompts/list")
        })
        .await;
        assert_eq!(r.status, 400, "{faults:?}: {}", r.text());
    }
}

#[tokio::test]
async fn http_method_header_case_insensitive() {
    let faults = [Fault::HttpMethodHeaderCaseInsensitive];
    for (faults, want) in [(&[][..], 400), (&faults[..], 200)] {
        let s = start(faults).await;
        let r = routed(&s, &stateless_list(1, "2026-07-28"), |r| {
            r.header("Mcp-Method", "TOOLS/LIST")
        })
        .await;
        assert_eq!(r.status, want, "{faults:?}: {}", r.text());
        let r = routed(&s, &stateless_list(2, "2026-07-28"), |r| {
            r.without("Mcp-Method")
        })
        .await;
        assert_eq!(r.status, 400, "{faults:?}: still required");
    }
}

/// A 2026-07-28 tools/call of `echo` (a request a Mcp-Name header names).
fn stateless_echo_call() -> Value {
    let mut call = stateless_list(1, "2026-07-28");
    call["method"] = json!("tools/call");
    call["params"]["name"] = json!("echo");
    call["params"]["arguments"] = json!({ "message": "hi" });
    call
}

#[tokio::test]
async fn http_name_header_unchecked() {
    for (faults, want) in [(vec![], 400), (vec![Fault::HttpNameHeaderUnchecked], 200)] {
        let s = start(&faults).await;
        let call = stateless_echo_call();
        let missing = routed(&s, &call, |r| r.without("Mcp-Name")).await;
        assert_eq!(missing.status, want, "{faults:?}: {}", missing.text());
        let other = routed(&s, &call, |r| r.header("Mcp-Name", "add")).await;
        assert_eq!(other.status, want, "{faults:?}: {}", other.text());
        let method = routed(&s, &call, |r| r.header("Mcp-Method", "tools/list")).await;
        assert_eq!(method.status, 400, "Mcp-Method still checked");
    }
}

#[tokio::test]
async fn http_name_header_not_decoded() {
    for (faults, want) in [(vec![], 200), (vec![Fault::HttpNameHeaderNotDecoded], 400)] {
        let s = start(&faults).await;
        let call = stateless_echo_call();
        // "echo", Base64-encoded as a client may send any name.
        let r = routed(&s, &call, |r| r.header("Mcp-Name", "=?base64?ZWNobw==?=")).await;
        assert_eq!(r.status, want, "{faults:?}: {}", r.text());
        let plain = routed(&s, &call, |r| r).await;
        assert_eq!(plain.status, 200, "{faults:?}: a plain name still passes");
    }
}

#[tokio::test]
async fn http_method_not_found_200() {
    for (faults, want) in [(vec![], 404), (vec![Fault::HttpMethodNotFound200], 200)] {
        let s = start(&faults).await;
        for method in ["mcpspec/no-such-method", "ping", "logging/setLevel"] {
            let mut body = stateless_list(1, "2026-07-28");
            body["method"] = json!(method);
            let r = routed(&s, &body, |r| r).await;
            assert_eq!(r.status, want, "{faults:?} {method}: {}", r.text());
            assert_eq!(r.json()["error"]["code"], -32601, "the body is unchanged");
        }
        // Served methods are not touched, nor are sessions of earlier versions.
        let r = routed(&s, &stateless_list(2, "2026-07-28"), |r| r).await;
        assert_eq!(r.status, 200);
        let id = session(s.addr, V).await;
        let r = mcp(&id, V)
            .json(&request(3, "no/such", json!({})))
            .send(s.addr)
            .await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
}

#[tokio::test]
async fn http_meta_invalid_200() {
    for (faults, want) in [(vec![], 400), (vec![Fault::HttpMetaInvalid200], 200)] {
        let s = start(&faults).await;
        for meta in [
            json!(null),
            json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" }),
            json!({ "io.modelcontextprotocol/clientCapabilities": {} }),
        ] {
            let mut body = stateless_list(1, "2026-07-28");
            if meta.is_null() {
                body["params"] = json!({});
            } else {
                body["params"]["_meta"] = meta.clone();
            }
            let r = routed(&s, &body, |r| r).await;
            assert_eq!(r.status, want, "{faults:?} {meta}: {}", r.text());
            assert_eq!(r.json()["error"]["code"], -32602, "the body is unchanged");
        }
        // Another -32602 (an unknown tool) keeps its 200.
        let mut call = stateless_list(2, "2026-07-28");
        call["method"] = json!("tools/call");
        call["params"]["name"] = json!("mcpspec-no-such-tool");
        let r = routed(&s, &call, |r| r).await;
        assert_eq!(r.json()["error"]["code"], -32602, "{}", r.text());
        assert_eq!(r.status, 200);
    }
}

#[tokio::test]
async fn http_no_priming_event() {
    const V11: &str = "2025-11-25";
    for fault in [false, true] {
        let faults = if fault {
            vec![Fault::HttpNoPrimingEvent]
        } else {
            vec![]
        };
        let s = start(&faults).await;
        let id = session(s.addr, V11).await;
        let r = mcp(&id, V11).json(&slow(1, 0.1, 1, "t")).send(s.addr).await;
        assert_eq!(r.content_type(), "text/event-stream");
        let first = r.events()[0].clone();
        if fault {
            assert_eq!(first.json()["method"], "notifications/progress");
        } else {
            assert!(first.id.is_some() && first.data.is_empty(), "{first:?}");
            assert!(r.text().contains("retry: "), "{}", r.text());
        }
        // Earlier versions never prime.
        let id = session(s.addr, V).await;
        let r = mcp(&id, V).json(&slow(1, 0.1, 1, "t")).send(s.addr).await;
        assert!(!r.events()[0].data.is_empty());
    }
}

#[tokio::test]
async fn http_resume_cross_replay() {
    for fault in [false, true] {
        let faults = if fault {
            vec![Fault::HttpResumeCrossReplay]
        } else {
            vec![]
        };
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let a = mcp(&id, V).json(&slow(1, 0.1, 1, "a")).send(s.addr).await;
        let b = mcp(&id, V).json(&slow(2, 0.1, 1, "b")).send(s.addr).await;
        assert_eq!(b.content_type(), "text/event-stream");
        let first = a.events()[0].id.clone().expect("an event id");
        let r = Req::get("/mcp")
            .session(&id)
            .header("MCP-Protocol-Version", V)
            .header("Last-Event-ID", &first)
            .send(s.addr)
            .await;
        assert_eq!(r.status, 200);
        let replayed: Vec<Value> = r.events().iter().map(Event::json).collect();
        // The rest of a's stream: its answer.
        assert!(replayed.iter().any(|m| m["id"] == 1), "{replayed:?}");
        let foreign = replayed
            .iter()
            .any(|m| m["id"] == 2 || m["params"]["progressToken"] == "b");
        assert_eq!(foreign, fault, "{replayed:?}");
    }
}

#[tokio::test]
async fn http_concurrent_post_refused() {
    for (faults, want) in [(vec![], 200), (vec![Fault::HttpConcurrentPostRefused], 409)] {
        let s = start(&faults).await;
        let id = session(s.addr, V).await;
        let mut first = mcp(&id, V).json(&slow(1, 2.0, 2, "a")).open(s.addr).await;
        assert_eq!(first.status, 200);
        assert!(first.event().await.is_some(), "the first stream is open");
        let second = mcp(&id, V).json(&slow(2, 0.0, 1, "b")).send(s.addr).await;
        assert_eq!(second.status, want, "{}", second.text());
        // Other requests are never refused.
        assert_eq!(mcp(&id, V).json(&ping(3)).send(s.addr).await.status, 200);
    }
}

#[tokio::test]
async fn http_foreign_progress_on_stream() {
    const V26: &str = "2026-07-28";
    for fault in [false, true] {
        let faults = if fault {
            vec![Fault::HttpForeignProgressOnStream]
        } else {
            vec![]
        };
        let s = start(&faults).await;
        let mut call = slow(5, 0.1, 1, "mine");
        call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(V26);
        call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
        let r = Req::post("/mcp")
            .header("MCP-Protocol-Version", V26)
            .json(&call)
            .send(s.addr)
            .await;
        assert_eq!(r.content_type(), "text/event-stream", "{}", r.text());
        let tokens: Vec<Value> = r
            .events()
            .iter()
            .map(Event::json)
            .filter(|m| m["method"] == "notifications/progress")
            .map(|m| m["params"]["progressToken"].clone())
            .collect();
        assert!(tokens.contains(&json!("mine")), "{tokens:?}");
        assert_eq!(tokens.iter().any(|t| t != "mine"), fault, "{tokens:?}");
    }
}
