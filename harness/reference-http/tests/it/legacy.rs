//! The legacy HTTP+SSE transport at `/sse` (2024-11-05).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn the_first_event_is_the_endpoint() {
    let s = start(&[]).await;
    let mut stream = Req::get("/sse").open(s.addr).await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let e = stream.event().await.expect("an event");
    assert_eq!(e.event, "endpoint");
    let id = e
        .data
        .strip_prefix("/message?sessionId=")
        .expect("the POST endpoint");
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
}

#[tokio::test]
async fn a_post_is_accepted_and_answered_on_the_stream() {
    let s = start(&[]).await;
    let (mut stream, endpoint) = legacy(s.addr).await;
    let r = Req::post(&endpoint)
        .json(&initialize("2024-11-05"))
        .send(s.addr)
        .await;
    assert_eq!((r.status, r.body.len()), (202, 0));
    let e = stream.event().await.expect("the answer");
    assert_eq!(e.event, "message");
    assert_eq!(e.json()["id"], 0);
    assert_eq!(e.json()["result"]["protocolVersion"], "2024-11-05");
    let r = Req::post(&endpoint)
        .json(&notification("notifications/initialized"))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 202);
    Req::post(&endpoint)
        .json(&request(1, "tools/list", json!({})))
        .send(s.addr)
        .await;
    let e = stream.event().await.expect("the answer");
    assert_eq!(e.json()["id"], 1);
    assert!(e.json()["result"]["tools"].is_array());
    // Progress and late answers come on the stream too.
    Req::post(&endpoint)
        .json(&slow(2, 0.1, 1, "p"))
        .send(s.addr)
        .await;
    assert_eq!(
        stream.event().await.expect("progress").json()["method"],
        "notifications/progress"
    );
    assert_eq!(stream.event().await.expect("answer").json()["id"], 2);
    // A parse error is answered on the stream as well.
    let r = Req::post(&endpoint).body(b"{nope").send(s.addr).await;
    assert_eq!(r.status, 202);
    assert_eq!(
        stream.event().await.expect("error").json()["error"]["code"],
        -32700
    );
}

#[tokio::test]
async fn an_unknown_session_is_rejected_promptly() {
    let s = start(&[]).await;
    let started = Instant::now();
    let r = Req::post("/message?sessionId=0123456789abcdef0123456789abcdef")
        .json(&request(1, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 404);
    assert!(started.elapsed() < Duration::from_secs(1));
    let r = Req::post("/message")
        .json(&request(1, "ping", json!({})))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn closing_the_stream_ends_the_session() {
    let s = start(&[]).await;
    let (stream, endpoint) = legacy(s.addr).await;
    let ping = Req::post(&endpoint).json(&request(1, "ping", json!({})));
    assert_eq!(ping.send(s.addr).await.status, 202);
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let status = ping.send(s.addr).await.status;
        if status == 404 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the session outlived its stream (last status {status})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
