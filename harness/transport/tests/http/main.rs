//! The HTTP client transports against a tiny in-test server on 127.0.0.1
//! (port 0): Streamable HTTP, legacy HTTP+SSE, raw exchanges, records.

mod server;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpspec_transport::{
    Connection, Event, HeaderMode, HttpOptions, HttpSession, LegacySseSession, RawRequest, Stamped,
    TransportError, Via,
};
use server::{h, json, sse, Reply, Server};
use tokio::sync::mpsc;

const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
const RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
const NOTE: &str = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#;

/// Events of a session until it is quiet for 500 ms.
async fn events_of(conn: &mut Connection) -> Vec<Stamped> {
    let mut out = Vec::new();
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_millis(500), conn.recv()).await {
        out.push(e);
        assert!(out.len() < 100, "too many events");
    }
    out
}

/// Waits (bounded) for the first event matching `pred`.
async fn until(conn: &mut Connection, pred: impl Fn(&Stamped) -> bool) -> Stamped {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match tokio::time::timeout_at(deadline, conn.recv()).await {
            Ok(Some(e)) if pred(&e) => return e,
            Ok(Some(_)) => {}
            other => panic!("no matching event: {other:?}"),
        }
    }
}

fn frames(events: &[Stamped]) -> Vec<(Via, u64, String)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Frame(f) => Some((e.via, f.line, f.text().to_owned())),
            _ => None,
        })
        .collect()
}

fn records(events: &[Stamped]) -> Vec<(Via, String, Option<u16>)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Http(r) => Some((e.via, r.method.clone(), r.status)),
            _ => None,
        })
        .collect()
}

fn http(url: &str) -> Connection {
    Connection::Http(HttpSession::connect(url, HttpOptions::default()).expect("valid url"))
}

#[tokio::test]
async fn json_response_is_one_frame_after_its_record() {
    let srv = Server::start(|_| json(RESULT)).await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(&[INIT, b"\n"].concat()).await.expect("send");
    let events = events_of(&mut conn).await;
    assert!(matches!(events[0].event, Event::Http(ref r) if r.status == Some(200)));
    assert_eq!(frames(&events), [(Via::Post(1), 1, RESULT.to_owned())]);
    let req = &srv.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.target, "/mcp");
    assert_eq!(req.body, INIT, "the trailing newline is stripped");
    assert_eq!(
        req.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("mcp-session-id"), None);
}

#[tokio::test]
async fn sse_response_events_become_frames_in_order() {
    let srv = Server::start(|_| {
        let prime = "id: p0\ndata:\n\n";
        let note = format!("event: message\nid: p1\ndata: {NOTE}\n\n");
        let ping = "event: ping\ndata: x\n\n";
        let answer = format!("id: p2\r\ndata: {RESULT}\r\n\r\n");
        sse(&[prime, &note, ping, &answer[..10], &answer[10..]])
    })
    .await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(INIT).await.expect("send");
    let events = events_of(&mut conn).await;
    assert_eq!(
        frames(&events),
        [
            (Via::Post(1), 1, NOTE.to_owned()),
            (Via::Post(1), 2, RESULT.to_owned())
        ]
    );
    let sse_events: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::SseEvent { event, id, .. } => Some((event.clone(), id.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        sse_events,
        [
            ("message".to_owned(), Some("p0".to_owned())),
            ("message".to_owned(), Some("p1".to_owned())),
            ("ping".to_owned(), None),
            ("message".to_owned(), Some("p2".to_owned())),
        ]
    );
    let Event::Http(r) = &events[0].event else {
        panic!("record first: {events:?}");
    };
    assert_eq!(r.body, "SSE stream");
    assert_eq!(r.response_header("content-type"), Some("text/event-stream"));
}

#[tokio::test]
async fn notification_gets_202_and_no_frame() {
    let srv = Server::start(|_| Reply::Full(202, vec![], vec![])).await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(NOTE.as_bytes()).await.expect("send");
    let events = events_of(&mut conn).await;
    assert_eq!(
        records(&events),
        [(Via::Post(1), "POST".to_owned(), Some(202))]
    );
    assert!(frames(&events).is_empty());
}

#[tokio::test]
async fn error_status_with_json_body_still_yields_the_frame() {
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#;
    let srv = Server::start(move |_| {
        Reply::Full(
            400,
            h(&[("content-type", "application/json; charset=utf-8")]),
            body.into(),
        )
    })
    .await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(b"{nope").await.expect("send");
    let events = events_of(&mut conn).await;
    assert_eq!(
        records(&events),
        [(Via::Post(1), "POST".to_owned(), Some(400))]
    );
    assert_eq!(frames(&events), [(Via::Post(1), 1, body.to_owned())]);
}

#[tokio::test]
async fn session_id_is_captured_and_echoed_and_version_header_follows_set() {
    let srv = Server::start(|r| {
        if r.body.windows(10).any(|w| w == b"initialize") {
            Reply::Full(
                200,
                h(&[
                    ("content-type", "application/json"),
                    ("mcp-session-id", "s-42"),
                ]),
                RESULT.into(),
            )
        } else {
            Reply::Full(202, vec![], vec![])
        }
    })
    .await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(INIT).await.expect("send");
    until(&mut conn, |e| matches!(e.event, Event::Frame(_))).await;
    assert_eq!(conn.session_id().as_deref(), Some("s-42"));
    conn.send(NOTE.as_bytes()).await.expect("send");
    conn.set_protocol_version(Some("2025-06-18".to_owned()));
    conn.send(NOTE.as_bytes()).await.expect("send");
    let reqs = srv.wait_requests(3).await;
    assert_eq!(reqs[0].header("mcp-protocol-version"), None);
    assert_eq!(reqs[1].header("mcp-session-id"), Some("s-42"));
    assert_eq!(reqs[1].header("mcp-protocol-version"), None);
    assert_eq!(reqs[2].header("mcp-session-id"), Some("s-42"));
    assert_eq!(reqs[2].header("mcp-protocol-version"), Some("2025-06-18"));
}

#[tokio::test]
async fn get_stream_405_is_recorded_and_a_real_one_delivers_frames() {
    let srv = Server::start(|_| Reply::Full(405, h(&[("allow", "POST, DELETE")]), vec![])).await;
    let Connection::Http(mut session) = http(&srv.url("/mcp")) else {
        unreachable!()
    };
    session.open_get_stream().expect("open");
    let mut conn = Connection::Http(session);
    let events = events_of(&mut conn).await;
    assert_eq!(records(&events), [(Via::Get, "GET".to_owned(), Some(405))]);
    let Event::Http(r) = &events[0].event else {
        unreachable!()
    };
    assert_eq!(r.response_header("allow"), Some("POST, DELETE"));
    assert_eq!(
        srv.requests()[0].header("accept"),
        Some("text/event-stream")
    );

    let srv = Server::start(|_| sse(&[&format!("data: {NOTE}\n\n")])).await;
    let mut session = HttpSession::connect(&srv.url("/mcp"), HttpOptions::default()).expect("url");
    session.open_get_stream().expect("open");
    let mut conn = Connection::Http(session);
    let events = events_of(&mut conn).await;
    assert_eq!(frames(&events), [(Via::Get, 1, NOTE.to_owned())]);
}

#[tokio::test]
async fn close_sends_delete_with_the_session_id() {
    let srv = Server::start(|r| match r.method.as_str() {
        "DELETE" => Reply::Full(200, vec![], vec![]),
        _ => Reply::Full(
            200,
            h(&[
                ("content-type", "application/json"),
                ("mcp-session-id", "s-1"),
            ]),
            RESULT.into(),
        ),
    })
    .await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(INIT).await.expect("send");
    until(&mut conn, |e| matches!(e.event, Event::Frame(_))).await;
    conn.close().await;
    let reqs = srv.requests();
    assert_eq!(reqs[1].method, "DELETE");
    assert_eq!(reqs[1].header("mcp-session-id"), Some("s-1"));
    let events = events_of(&mut conn).await;
    assert_eq!(
        records(&events),
        [(Via::Delete, "DELETE".to_owned(), Some(200))]
    );
    assert!(
        matches!(events.last().map(|e| &e.event), Some(Event::Closed(s)) if s.contains("DELETE → 200"))
    );
    assert!(conn.has_exited());
    assert!(matches!(
        conn.send(NOTE.as_bytes()).await,
        Err(TransportError::Closed)
    ));
}

#[tokio::test]
async fn unanswered_post_does_not_block_send_and_is_aborted_on_drop() {
    let srv = Server::start(|_| Reply::Never).await;
    let mut conn = http(&srv.url("/mcp"));
    let started = std::time::Instant::now();
    conn.send(INIT).await.expect("send");
    conn.send(INIT).await.expect("send");
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "send waited for an answer"
    );
    srv.wait_requests(2).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(200), conn.recv())
            .await
            .is_err(),
        "nothing arrives"
    );
    drop(conn);
    for _ in 0..200 {
        if *srv.hung_up.lock().expect("lock") == 2 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the POSTs were not aborted when the session was dropped");
}

#[tokio::test]
async fn connection_refused_is_recorded_and_closes() {
    let port = {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        l.local_addr().expect("addr").port()
    };
    let mut conn = http(&format!("http://127.0.0.1:{port}/mcp"));
    conn.send(INIT).await.expect("send starts");
    let events = events_of(&mut conn).await;
    let Event::Http(r) = &events[0].event else {
        panic!("{events:?}")
    };
    assert_eq!(r.status, None);
    assert!(r.error.is_some());
    assert!(matches!(events[1].event, Event::Closed(ref s) if s.contains("could not connect")));
    assert!(conn.has_exited());
}

#[tokio::test]
async fn authorization_and_cookie_values_are_redacted_in_records() {
    let srv =
        Server::start(|_| Reply::Full(202, h(&[("set-cookie", "sid=hunter2")]), vec![])).await;
    let options = HttpOptions {
        headers: vec![
            ("Authorization".into(), "Bearer s3cret-token".into()),
            ("Cookie".into(), "sid=hunter2".into()),
        ],
        ..HttpOptions::default()
    };
    let mut conn = Connection::Http(HttpSession::connect(&srv.url("/mcp"), options).expect("url"));
    conn.send(NOTE.as_bytes()).await.expect("send");
    let raw = RawRequest::new("POST").body(NOTE);
    conn.exchange(raw).await.expect("http").expect("exchange");
    let events = events_of(&mut conn).await;
    assert_eq!(records(&events).len(), 2);
    let dump = format!("{events:?}");
    assert!(
        !dump.contains("s3cret") && !dump.contains("hunter2"),
        "{dump}"
    );
    assert!(dump.contains("Bearer [redacted]"));
    let reqs = srv.wait_requests(2).await;
    for r in reqs {
        assert_eq!(r.header("authorization"), Some("Bearer s3cret-token"));
    }
}

#[tokio::test]
async fn raw_exchange_sends_exactly_the_asked_headers_and_stays_off_the_frame_stream() {
    let srv = Server::start(|r| match r.header("accept") {
        Some("text/plain") => Reply::Full(
            406,
            h(&[
                ("content-type", "application/json"),
                ("mcp-session-id", "other"),
            ]),
            RESULT.into(),
        ),
        _ => Reply::Full(
            200,
            h(&[
                ("content-type", "application/json"),
                ("mcp-session-id", "s-9"),
            ]),
            RESULT.into(),
        ),
    })
    .await;
    let Connection::Http(mut session) = http(&srv.url("/mcp")) else {
        unreachable!()
    };
    session.send(INIT).await.expect("send");
    let mut conn = Connection::Http(session);
    until(&mut conn, |e| matches!(e.event, Event::Frame(_))).await;
    let Connection::Http(session) = &mut conn else {
        unreachable!()
    };
    let mut req = RawRequest::new("POST")
        .header("Accept", "text/plain")
        .header("Origin", "http://evil.example")
        .without("content-type")
        .body(INIT);
    req.session_id = HeaderMode::Omit;
    req.protocol_version = HeaderMode::Value("1999-01-01".into());
    req.url = Some("/mcp?x=1".into());
    let resp = session.exchange(req).await.expect("exchange");
    assert_eq!(resp.status, 406);
    assert_eq!(resp.header("MCP-Session-Id"), Some("other"));
    assert_eq!(resp.content_type.as_deref(), Some("application/json"));
    assert_eq!(resp.body, RESULT.as_bytes());
    assert!(!resp.stream_open);
    assert_eq!(
        session.session_id().as_deref(),
        Some("s-9"),
        "raw never captures"
    );

    let sent = &srv.requests()[1];
    assert_eq!(sent.target, "/mcp?x=1");
    assert_eq!(sent.header("accept"), Some("text/plain"));
    assert_eq!(sent.header("content-type"), None);
    assert_eq!(sent.header("origin"), Some("http://evil.example"));
    assert_eq!(sent.header("mcp-session-id"), None);
    assert_eq!(sent.header("mcp-protocol-version"), Some("1999-01-01"));

    // Omitting Accept really omits it (reqwest would add `*/*`).
    let mut req = RawRequest::new("POST").without("accept").body(INIT);
    req.session_id = HeaderMode::Value("forged".into());
    let resp = session.exchange(req).await.expect("exchange");
    assert_eq!(resp.status, 200);
    let sent = &srv.requests()[2];
    assert_eq!(sent.header("accept"), None);
    assert_eq!(sent.header("mcp-session-id"), Some("forged"));
    assert_eq!(sent.header("content-type"), Some("application/json"));

    let events = events_of(&mut conn).await;
    assert_eq!(
        records(&events),
        [
            (Via::Raw(1), "POST".to_owned(), Some(406)),
            (Via::Raw(2), "POST".to_owned(), Some(200))
        ]
    );
    assert!(frames(&events).is_empty(), "raw answers are not frames");
    let Event::Http(r) = &events[0].event else {
        unreachable!()
    };
    assert_eq!(r.target, "/mcp?x=1");
    assert_eq!(r.request_header("origin"), Some("http://evil.example"));
}

#[tokio::test]
async fn raw_exchange_reads_an_open_stream_for_read_for_only() {
    let keep: Arc<Mutex<Vec<mpsc::UnboundedSender<Vec<u8>>>>> = Arc::default();
    let k = keep.clone();
    let srv = Server::start(move |_| {
        let (tx, rx) = mpsc::unbounded_channel();
        let _ = tx.send(b"id: 1\ndata: {}\n\n: comment\n".to_vec());
        k.lock().expect("lock").push(tx);
        Reply::Stream(200, h(&[("content-type", "text/event-stream")]), rx)
    })
    .await;
    let mut session = HttpSession::connect(&srv.url("/mcp"), HttpOptions::default()).expect("url");
    let mut req = RawRequest::new("GET");
    req.read_for = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let resp = session.exchange(req).await.expect("exchange");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(2),
        "{took:?}"
    );
    assert!(resp.stream_open);
    assert_eq!(resp.events.len(), 1);
    let ev = resp.events[0].as_ref().expect("event");
    assert_eq!((ev.data.as_str(), ev.id.as_deref()), ("{}", Some("1")));
    assert_eq!(resp.body, b"id: 1\ndata: {}\n\n: comment\n");
}

#[tokio::test]
async fn cut_stream_is_resumed_with_last_event_id() {
    let srv = Server::start(|r| match (r.method.as_str(), r.header("last-event-id")) {
        ("POST", _) => sse(&["retry: 10\nid: e1\n", &format!("data: {NOTE}\n\n")]),
        ("GET", Some("e1")) => sse(&[&format!("id: e2\ndata: {RESULT}\n\n")]),
        _ => Reply::Full(400, vec![], vec![]),
    })
    .await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(INIT).await.expect("send");
    let events = events_of(&mut conn).await;
    assert_eq!(
        frames(&events),
        [
            (Via::Post(1), 1, NOTE.to_owned()),
            (Via::Resumed(1), 2, RESULT.to_owned())
        ]
    );
    assert_eq!(
        records(&events),
        [
            (Via::Post(1), "POST".to_owned(), Some(200)),
            (Via::Resumed(1), "GET".to_owned(), Some(200))
        ]
    );
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 2, "answered after one resumption: no more GETs");
    assert_eq!(reqs[1].header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn answered_stream_is_not_resumed() {
    let srv = Server::start(|_| sse(&[&format!("id: 1\ndata: {RESULT}\n\n")])).await;
    let mut conn = http(&srv.url("/mcp"));
    conn.send(INIT).await.expect("send");
    let events = events_of(&mut conn).await;
    assert_eq!(frames(&events).len(), 1);
    assert_eq!(srv.requests().len(), 1);
}

/// A legacy server: GET /sse streams `endpoint` first, POSTs answer on it.
async fn legacy_server(first: String) -> Server {
    let stream: Arc<Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>> = Arc::default();
    Server::start(move |r| match r.method.as_str() {
        "GET" => {
            let first = first.clone();
            let (tx, rx) = mpsc::unbounded_channel();
            let _ = tx.send(first.as_bytes().to_vec());
            *stream.lock().expect("lock") = Some(tx);
            Reply::Stream(200, h(&[("content-type", "text/event-stream")]), rx)
        }
        "POST" if r.target == "/messages?sessionId=abc" => {
            if let Some(tx) = &*stream.lock().expect("lock") {
                let _ = tx.send(format!("event: message\ndata: {RESULT}\n\n").into_bytes());
            }
            Reply::Full(202, vec![], b"Accepted".to_vec())
        }
        "DROP" => {
            stream.lock().expect("lock").take();
            Reply::Full(200, vec![], vec![])
        }
        _ => Reply::Full(404, vec![], vec![]),
    })
    .await
}

#[tokio::test]
async fn legacy_endpoint_handshake_then_answers_on_the_stream() {
    let srv = legacy_server("event: endpoint\ndata: /messages?sessionId=abc\n\n".into()).await;
    let session = LegacySseSession::connect(
        &srv.url("/sse"),
        HttpOptions::default(),
        Duration::from_secs(2),
    )
    .await
    .expect("connect");
    assert_eq!(session.first_event(), "endpoint");
    assert_eq!(session.endpoint(), srv.url("/messages?sessionId=abc"));
    let mut conn = Connection::from(session);
    conn.send(INIT).await.expect("send");
    let events = events_of(&mut conn).await;
    assert_eq!(frames(&events), [(Via::Legacy, 1, RESULT.to_owned())]);
    let recs = records(&events);
    assert!(
        recs.contains(&(Via::Legacy, "GET".to_owned(), Some(200))),
        "{recs:?}"
    );
    assert!(
        recs.contains(&(Via::Post(1), "POST".to_owned(), Some(202))),
        "{recs:?}"
    );
    let post = &srv.requests()[1];
    assert_eq!(post.body, INIT);
    assert_eq!(post.header("content-type"), Some("application/json"));

    // The server ending the stream ends the connection.
    let Connection::Sse(session) = &mut conn else {
        unreachable!()
    };
    session
        .exchange(RawRequest::new("DROP").body(""))
        .await
        .expect("raw");
    let closed = until(&mut conn, |e| matches!(e.event, Event::Closed(_))).await;
    assert_eq!(closed.via, Via::Legacy);
    assert!(conn.has_exited());
}

#[tokio::test]
async fn legacy_stream_without_endpoint_first_fails_to_connect_in_time() {
    let srv = legacy_server(format!("data: {NOTE}\n\n")).await;
    let started = std::time::Instant::now();
    let err = LegacySseSession::connect(
        &srv.url("/sse"),
        HttpOptions::default(),
        Duration::from_millis(300),
    )
    .await
    .expect_err("no endpoint");
    assert!(started.elapsed() < Duration::from_secs(2));
    match err {
        TransportError::NoEndpoint { first_event, .. } => {
            assert_eq!(first_event.as_deref(), Some("message"));
        }
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn legacy_first_event_is_reported_even_when_endpoint_comes_later() {
    let srv = legacy_server(
        ": hi\n\nevent: hello\ndata: x\n\nevent: endpoint\ndata: messages?sessionId=abc\n\n".into(),
    )
    .await;
    let session = LegacySseSession::connect(
        &srv.url("/sse"),
        HttpOptions::default(),
        Duration::from_secs(2),
    )
    .await
    .expect("connect");
    assert_eq!(session.first_event(), "hello");
    assert_eq!(session.endpoint(), srv.url("/messages?sessionId=abc"));
}

#[tokio::test]
async fn stdio_through_connection_keeps_its_behaviour() {
    let spec = mcpspec_transport::CommandSpec::new("cat", Vec::<String>::new());
    let mut conn =
        Connection::from(mcpspec_transport::StdioProcess::spawn(&spec, 1024).expect("cat starts"));
    conn.send(b"{\"x\":1}\n").await.expect("write");
    let first = until(&mut conn, |_| true).await;
    assert_eq!(first.via, Via::Stdio);
    assert!(matches!(first.event, Event::Frame(ref f) if f.text() == "{\"x\":1}"));
    conn.close_input();
    let exit = until(&mut conn, |e| matches!(e.event, Event::Exited { .. })).await;
    assert!(matches!(exit.event, Event::Exited { code: Some(0), .. }));
    assert!(conn.has_exited());
}
