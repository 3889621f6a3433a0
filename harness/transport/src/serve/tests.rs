//! The peer against the crate's own client transports (and plain reqwest
//! for the requests a well-behaved client would not send), over real
//! sockets on 127.0.0.1. Every wait is bounded.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use super::{HttpPeer, ServeKind};
use crate::event::{Event, HttpRecord, Stamped, Via};
use crate::{HttpOptions, HttpSession, LegacySseSession, TransportError};

const MAX: usize = 1 << 20;
const WAIT: Duration = Duration::from_secs(5);
const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
const CALL_RESULT: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
const SAMPLING: &str = r#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}"#;
const SAMPLING_RESULT: &str = r#"{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}"#;
const PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#;
const LIST_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;

async fn next(peer: &mut HttpPeer) -> Stamped {
    tokio::time::timeout(WAIT, peer.recv())
        .await
        .expect("an event within the bound")
        .expect("the peer's channel stays open")
}

async fn record(peer: &mut HttpPeer) -> (Via, HttpRecord) {
    match next(peer).await {
        Stamped {
            via,
            event: Event::Http(r),
            ..
        } => (via, *r),
        other => panic!("expected an HTTP record, got {other:?}"),
    }
}

async fn frame(peer: &mut HttpPeer) -> (Via, String) {
    match next(peer).await {
        Stamped {
            via,
            event: Event::Frame(f),
            ..
        } => (via, f.text().to_owned()),
        other => panic!("expected a frame, got {other:?}"),
    }
}

/// The peer reports nothing for a while.
async fn quiet(peer: &mut HttpPeer) {
    let got = tokio::time::timeout(Duration::from_millis(300), peer.recv()).await;
    assert!(got.is_err(), "unexpected event: {got:?}");
}

/// The client's next frame (skipping records and SSE events).
async fn client_frame(client: &mut HttpSession) -> (Via, String) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match tokio::time::timeout_at(deadline, client.recv()).await {
            Ok(Some(Stamped {
                via,
                event: Event::Frame(f),
                ..
            })) => return (via, f.text().to_owned()),
            Ok(Some(_)) => {}
            other => panic!("no frame reached the client: {other:?}"),
        }
    }
}

/// The client's next HTTP record.
async fn client_record(client: &mut HttpSession) -> HttpRecord {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match tokio::time::timeout_at(deadline, client.recv()).await {
            Ok(Some(Stamped {
                event: Event::Http(r),
                ..
            })) => return *r,
            Ok(Some(_)) => {}
            other => panic!("no record reached the client: {other:?}"),
        }
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(WAIT)
        .build()
        .unwrap()
}

/// A POST as a client would send it, with extra headers.
async fn raw_post(url: &str, body: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut req = http()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_owned());
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap())
}

/// A Streamable peer and a client that went through `initialize`.
async fn initialized() -> (HttpPeer, HttpSession, String) {
    let mut peer = HttpPeer::bind(ServeKind::Streamable, MAX).await.unwrap();
    let mut client = HttpSession::connect(peer.url(), HttpOptions::default()).unwrap();
    client.send(INIT.as_bytes()).await.unwrap();
    let (via, rec) = record(&mut peer).await;
    assert_eq!(via, Via::Post(1));
    let session = rec
        .response_header("mcp-session-id")
        .expect("initialize is answered with a session id")
        .to_owned();
    assert_eq!(frame(&mut peer).await, (Via::Post(1), INIT.to_owned()));
    peer.send(format!("{INIT_RESULT}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Post(1), INIT_RESULT.to_owned())
    );
    (peer, client, session)
}

#[tokio::test]
async fn streamable_initialize_round_trip_issues_a_session() {
    let mut peer = HttpPeer::bind(ServeKind::Streamable, MAX).await.unwrap();
    assert!(peer.url().starts_with("http://127.0.0.1:") && peer.url().ends_with("/mcp"));
    let mut client = HttpSession::connect(peer.url(), HttpOptions::default()).unwrap();
    client.send(INIT.as_bytes()).await.unwrap();

    let (via, rec) = record(&mut peer).await;
    assert_eq!(via, Via::Post(1));
    assert_eq!((rec.method.as_str(), rec.target.as_str()), ("POST", "/mcp"));
    assert_eq!(
        rec.request_header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(rec.request_header("content-type"), Some("application/json"));
    assert_eq!(rec.request_header("mcp-session-id"), None);
    assert_eq!(rec.request_body, INIT);
    assert_eq!(rec.status, Some(200));
    assert_eq!(
        rec.response_header("content-type"),
        Some("text/event-stream")
    );
    assert_eq!(rec.body, "SSE stream");
    let issued = rec.response_header("mcp-session-id").unwrap().to_owned();
    assert!(issued.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    assert_eq!(peer.session_id().as_deref(), Some(issued.as_str()));
    assert_eq!(frame(&mut peer).await, (Via::Post(1), INIT.to_owned()));

    peer.send(format!("{INIT_RESULT}\n").as_bytes())
        .await
        .unwrap();
    let seen = client_record(&mut client).await;
    assert_eq!(
        seen.response_header("mcp-session-id"),
        Some(issued.as_str())
    );
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Post(1), INIT_RESULT.to_owned())
    );
    assert_eq!(client.session_id().as_deref(), Some(issued.as_str()));

    // The client echoes the session id; a notification is accepted with 202.
    client.set_protocol_version(Some("2025-06-18".into()));
    client.send(INITIALIZED.as_bytes()).await.unwrap();
    let (via, rec) = record(&mut peer).await;
    assert_eq!(via, Via::Post(2));
    assert_eq!(rec.request_header("mcp-session-id"), Some(issued.as_str()));
    assert_eq!(
        rec.request_header("mcp-protocol-version"),
        Some("2025-06-18")
    );
    assert_eq!((rec.status, rec.body.as_str()), (Some(202), ""));
    assert_eq!(
        frame(&mut peer).await,
        (Via::Post(2), INITIALIZED.to_owned())
    );
    assert_eq!(client_record(&mut client).await.status, Some(202));
}

#[tokio::test]
async fn server_messages_ride_the_open_post_stream_then_the_get_stream() {
    let (mut peer, mut client, _) = initialized().await;
    client.send(CALL.as_bytes()).await.unwrap();
    assert_eq!(record(&mut peer).await.1.status, Some(200));
    assert_eq!(frame(&mut peer).await.1, CALL);

    // While tools/call is pending, the server's request and notification
    // go on its stream, before its answer.
    peer.send(SAMPLING.as_bytes()).await.unwrap();
    peer.send(PROGRESS.as_bytes()).await.unwrap();
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Post(2), SAMPLING.to_owned())
    );
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Post(2), PROGRESS.to_owned())
    );

    // The client answers the server's request in a POST of its own: 202.
    client.send(SAMPLING_RESULT.as_bytes()).await.unwrap();
    let (via, rec) = record(&mut peer).await;
    assert_eq!((via, rec.status), (Via::Post(3), Some(202)));
    assert_eq!(
        frame(&mut peer).await,
        (Via::Post(3), SAMPLING_RESULT.to_owned())
    );

    peer.send(CALL_RESULT.as_bytes()).await.unwrap();
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Post(2), CALL_RESULT.to_owned())
    );

    // Every request answered, no GET stream: nothing can carry a notification.
    let err = peer.send(LIST_CHANGED.as_bytes()).await.unwrap_err();
    assert!(matches!(err, TransportError::NoStream(_)), "{err}");

    client.open_get_stream().unwrap();
    let (via, rec) = record(&mut peer).await;
    assert_eq!(
        (via, rec.method.as_str(), rec.status),
        (Via::Get, "GET", Some(200))
    );
    assert_eq!(rec.request_header("accept"), Some("text/event-stream"));
    peer.send(LIST_CHANGED.as_bytes()).await.unwrap();
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Get, LIST_CHANGED.to_owned())
    );

    // One GET stream at a time.
    client.open_get_stream().unwrap();
    assert_eq!(record(&mut peer).await.1.status, Some(409));
    assert_eq!(client_record(&mut client).await.status, Some(409));
}

#[tokio::test]
async fn session_ids_are_checked_and_delete_ends_the_session() {
    let (mut peer, mut client, session) = initialized().await;
    let url = peer.url().to_owned();

    let (status, body) = raw_post(&url, PROGRESS, &[]).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("Mcp-Session-Id"), "{body}");
    let (via, rec) = record(&mut peer).await;
    assert_eq!((via, rec.status), (Via::Post(2), Some(400)));
    assert_eq!(rec.request_body, PROGRESS);
    quiet(&mut peer).await; // reported by its record only

    let (status, _) = raw_post(&url, PROGRESS, &[("mcp-session-id", "not-the-one")]).await;
    assert_eq!(status, 404);
    assert_eq!(record(&mut peer).await.1.status, Some(404));
    quiet(&mut peer).await;

    client.close().await;
    let (via, rec) = record(&mut peer).await;
    assert_eq!(
        (via, rec.method.as_str(), rec.status),
        (Via::Delete, "DELETE", Some(200))
    );
    assert_eq!(rec.request_header("mcp-session-id"), Some(session.as_str()));
    match next(&mut peer).await {
        Stamped {
            via: Via::Delete,
            event: Event::Closed(why),
            ..
        } => assert_eq!(why, "the client ended the session (DELETE)"),
        other => panic!("expected Closed, got {other:?}"),
    }
    assert!(peer.has_exited());
    assert_eq!(peer.session_id(), None);

    let (status, _) = raw_post(&url, PROGRESS, &[("mcp-session-id", &session)]).await;
    assert_eq!(status, 404, "an ended session is unknown");
    assert_eq!(record(&mut peer).await.1.status, Some(404));
}

#[tokio::test]
async fn foreign_origins_are_refused() {
    let mut peer = HttpPeer::bind(ServeKind::Streamable, MAX).await.unwrap();
    let url = peer.url().to_owned();
    let (status, body) = raw_post(&url, INIT, &[("origin", "http://evil.example")]).await;
    assert_eq!(status, 403, "{body}");
    let (_, rec) = record(&mut peer).await;
    assert_eq!(rec.request_header("origin"), Some("http://evil.example"));
    assert_eq!(rec.status, Some(403));
    quiet(&mut peer).await;
    assert_eq!(
        peer.session_id(),
        None,
        "a refused initialize opens no session"
    );

    let own = url
        .trim_end_matches("/mcp")
        .replace("127.0.0.1", "localhost");
    let (status, _) = raw_post(&url, PROGRESS, &[("origin", &own)]).await;
    assert_eq!(status, 202);
    assert_eq!(record(&mut peer).await.1.status, Some(202));
    assert_eq!(frame(&mut peer).await.1, PROGRESS);
}

#[tokio::test]
async fn bodies_that_are_not_messages_get_400_and_reach_the_runner() {
    let mut peer = HttpPeer::bind(ServeKind::Streamable, 64).await.unwrap();
    let url = peer.url().to_owned();
    let (status, body) = raw_post(&url, "{", &[]).await;
    assert_eq!(status, 400);
    assert!(
        body.contains("-32700") && body.contains(r#""id":null"#),
        "{body}"
    );
    assert_eq!(record(&mut peer).await.1.status, Some(400));
    assert_eq!(frame(&mut peer).await.1, "{");

    let (status, body) = raw_post(&url, r#"{"id":1}"#, &[]).await;
    assert_eq!(status, 400);
    assert!(body.contains("-32600"), "{body}");
    record(&mut peer).await;
    frame(&mut peer).await;

    // Over `max_line`: 413, reported as an oversize frame error.
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"x","params":{{"p":"{}"}}}}"#,
        "a".repeat(100)
    );
    let (status, _) = raw_post(&url, &big, &[]).await;
    assert_eq!(status, 413);
    assert_eq!(record(&mut peer).await.1.status, Some(413));
    match next(&mut peer).await.event {
        Event::FrameError(e) => {
            assert!(matches!(
                e.kind,
                mcpspec_wire::FrameErrorKind::Oversize { limit: 64, .. }
            ))
        }
        other => panic!("expected an oversize frame error, got {other:?}"),
    }
}

#[tokio::test]
async fn legacy_endpoint_posts_and_messages_on_the_stream() {
    let mut peer = HttpPeer::bind(ServeKind::LegacySse, MAX).await.unwrap();
    assert!(peer.url().ends_with("/sse"));
    let mut client = LegacySseSession::connect(peer.url(), HttpOptions::default(), WAIT)
        .await
        .unwrap();
    assert_eq!(client.first_event(), "endpoint");
    let session = peer.session_id().unwrap();
    let base = peer.url().trim_end_matches("/sse").to_owned();
    assert_eq!(
        client.endpoint(),
        format!("{base}/messages?session={session}")
    );
    let (via, rec) = record(&mut peer).await;
    assert_eq!(
        (via, rec.method.as_str(), rec.target.as_str()),
        (Via::Legacy, "GET", "/sse")
    );
    assert_eq!(rec.status, Some(200));

    client.send(INIT.as_bytes()).await.unwrap();
    let (via, rec) = record(&mut peer).await;
    assert_eq!((via, rec.status), (Via::Post(1), Some(202)));
    assert_eq!(rec.target, format!("/messages?session={session}"));
    assert_eq!(frame(&mut peer).await, (Via::Post(1), INIT.to_owned()));

    peer.send(INIT_RESULT.as_bytes()).await.unwrap();
    peer.send(LIST_CHANGED.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + WAIT;
    while got.len() < 2 {
        match tokio::time::timeout_at(deadline, client.recv()).await {
            Ok(Some(Stamped {
                via,
                event: Event::Frame(f),
                ..
            })) => got.push((via, f.text().to_owned())),
            Ok(Some(_)) => {}
            other => panic!("no frame reached the client: {other:?}"),
        }
    }
    assert_eq!(
        got,
        vec![
            (Via::Legacy, INIT_RESULT.to_owned()),
            (Via::Legacy, LIST_CHANGED.to_owned())
        ]
    );

    // POSTs without the session, or with another one, are refused.
    let (status, _) = raw_post(&format!("{base}/messages"), PROGRESS, &[]).await;
    assert_eq!(status, 400);
    assert_eq!(record(&mut peer).await.1.status, Some(400));
    let (status, _) = raw_post(&format!("{base}/messages?session=nope"), PROGRESS, &[]).await;
    assert_eq!(status, 404);
    assert_eq!(record(&mut peer).await.1.status, Some(404));
    quiet(&mut peer).await;

    // The client closing its stream ends the session.
    client.kill();
    match next(&mut peer).await {
        Stamped {
            via: Via::Legacy,
            event: Event::Closed(why),
            ..
        } => assert_eq!(why, "the client closed the SSE stream"),
        other => panic!("expected Closed, got {other:?}"),
    }
    assert!(peer.has_exited());
    assert!(peer.send(LIST_CHANGED.as_bytes()).await.is_err());
}

#[tokio::test]
async fn close_ends_the_streams_and_stops_accepting() {
    let mut peer = HttpPeer::bind(ServeKind::LegacySse, MAX).await.unwrap();
    let mut client = LegacySseSession::connect(peer.url(), HttpOptions::default(), WAIT)
        .await
        .unwrap();
    record(&mut peer).await;
    peer.close();
    match next(&mut peer).await.event {
        Event::Closed(why) => assert_eq!(why, "the scripted server closed its end"),
        other => panic!("expected Closed, got {other:?}"),
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match tokio::time::timeout_at(deadline, client.recv()).await {
            Ok(Some(Stamped {
                event: Event::Closed(why),
                ..
            })) => {
                assert_eq!(why, "the server ended the SSE stream");
                break;
            }
            Ok(Some(_)) => {}
            other => panic!("the client's stream did not end: {other:?}"),
        }
    }
    assert!(matches!(
        peer.send(LIST_CHANGED.as_bytes()).await,
        Err(TransportError::Closed)
    ));
    let refused = http().get(peer.url()).send().await;
    assert!(
        refused.is_err_and(|e| e.is_connect()),
        "no more connections"
    );
    quiet(&mut peer).await; // the stream's end is not the client's doing
}

#[tokio::test]
async fn a_batch_is_one_frame_and_its_stream_ends_once_all_is_answered() {
    let mut peer = HttpPeer::bind(ServeKind::Streamable, MAX).await.unwrap();
    let url = peer.url().to_owned();
    let batch = r#"[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"ping"}]"#;
    let post = tokio::spawn(async move { raw_post(&url, batch, &[]).await });
    assert_eq!(record(&mut peer).await.1.status, Some(200));
    assert_eq!(frame(&mut peer).await, (Via::Post(1), batch.to_owned()));
    peer.send(br#"{"jsonrpc":"2.0","id":"b","result":{}}"#)
        .await
        .unwrap();
    assert!(!post.is_finished(), "the stream still owes `a`");
    peer.send(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#)
        .await
        .unwrap();
    let (status, body) = tokio::time::timeout(WAIT, post).await.unwrap().unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        body,
        "id: 1-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"b\",\"result\":{}}\n\n\
         id: 1-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}\n\n"
    );
}

#[tokio::test]
async fn a_cut_stream_primes_ends_and_is_resumed_by_last_event_id() {
    let (mut peer, mut client, _) = initialized().await;
    client.send(CALL.as_bytes()).await.unwrap();
    let (via, _) = record(&mut peer).await;
    assert_eq!(via, Via::Post(2));
    frame(&mut peer).await;
    let cut = peer
        .cut_stream(&mcpspec_wire::Id::from(2), Some(300))
        .unwrap();
    assert_eq!((cut.post, cut.last_event_id.as_str()), (2, "2-1"));
    assert_eq!(cut.retry_ms, Some(300));
    // Nothing awaits the answer any more: a second cut has nothing to cut.
    assert!(peer.cut_stream(&mcpspec_wire::Id::from(2), None).is_err());
    // The answer is parked until the client resumes.
    peer.send(CALL_RESULT.as_bytes()).await.unwrap();
    let (via, rec) = record(&mut peer).await;
    assert_eq!(via, Via::Get);
    assert_eq!(rec.request_header("last-event-id"), Some("2-1"));
    assert_eq!(rec.status, Some(200));
    assert!(peer.resumed(2));
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Resumed(2), CALL_RESULT.to_owned())
    );
    // A GET naming no cut stream is a standing stream, never a resumption.
    assert!(!peer.resumed(3));
}

/// The client transport honours a `retry` above one second: its GET comes
/// no sooner than asked (the peer's clock stamps both the cut and the GET).
#[tokio::test]
async fn the_client_waits_the_whole_retry_before_resuming() {
    let (mut peer, mut client, _) = initialized().await;
    client.send(CALL.as_bytes()).await.unwrap();
    record(&mut peer).await;
    frame(&mut peer).await;
    let cut = peer
        .cut_stream(&mcpspec_wire::Id::from(2), Some(1500))
        .unwrap();
    peer.send(CALL_RESULT.as_bytes()).await.unwrap();
    let got = next(&mut peer).await;
    assert!(matches!(got.event, Event::Http(ref r) if r.method == "GET"));
    let waited = got.at.saturating_sub(cut.at);
    assert!(
        waited >= Duration::from_millis(1500),
        "resumed after {waited:?}, before the 1500 ms retry"
    );
    assert_eq!(
        client_frame(&mut client).await,
        (Via::Resumed(2), CALL_RESULT.to_owned())
    );
}

/// A gate that answers everything but POSTs carrying `Bearer ok`.
#[derive(Debug)]
struct BearerGate;

impl super::Gate for BearerGate {
    fn answer(&self, r: &super::GateRequest<'_>) -> Option<super::GateReply> {
        if r.path == "/mcp" && r.header("authorization") == Some("Bearer ok") {
            return None;
        }
        let seen = serde_json::json!({ "path": r.path, "query": r.query, "origin": r.origin });
        Some(super::GateReply::json(401, &seen).with_header("www-authenticate", "Bearer"))
    }
}

#[tokio::test]
async fn a_gate_answers_first_and_lets_the_rest_through() {
    let gate: std::sync::Arc<dyn super::Gate> = std::sync::Arc::new(BearerGate);
    let mut peer = HttpPeer::bind_gated(ServeKind::Streamable, MAX, Some(gate))
        .await
        .unwrap();
    let meta = http()
        .get(format!("{}/x?y=1", peer.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(meta.status(), 401);
    assert_eq!(meta.headers()["www-authenticate"], "Bearer");
    let body: serde_json::Value = serde_json::from_slice(&meta.bytes().await.unwrap()).unwrap();
    assert_eq!(body["path"], "/mcp/x");
    assert_eq!(body["query"], "y=1");
    assert!(body["origin"]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:"));
    let (via, r) = record(&mut peer).await;
    assert_eq!((via, r.status), (Via::Raw(1), Some(401)));
    // With the token, the POST reaches the MCP endpoint: numbered POST 1.
    let options = HttpOptions {
        headers: vec![("authorization".to_owned(), "Bearer ok".to_owned())],
        ..HttpOptions::default()
    };
    let mut client = HttpSession::connect(peer.url(), options).unwrap();
    client.send(INIT.as_bytes()).await.unwrap();
    let (via, r) = record(&mut peer).await;
    assert_eq!((via, r.status), (Via::Post(1), Some(200)));
    assert_eq!(frame(&mut peer).await, (Via::Post(1), INIT.to_owned()));
}
