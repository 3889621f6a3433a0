//! The status rules of a server's answers to POSTs, read from what each
//! POST carried: server errors for client input, notification POSTs not
//! accepted with 202, and a body that is not UTF-8.

use mcpspec_engine::{Role, Version};
use mcpspec_wire::event::{Event, HttpRecord, Transport, Via};
use mcpspec_wire::{FrameError, FrameErrorKind};

use crate::{Observed, Oracle};

const NOTIFICATION: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

fn record(status: u16, content_type: Option<&str>, body: &str) -> HttpRecord {
    HttpRecord {
        method: "POST".into(),
        status: Some(status),
        response_headers: content_type
            .map(|c| ("content-type".to_owned(), c.to_owned()))
            .into_iter()
            .collect(),
        body: body.into(),
        ..HttpRecord::default()
    }
}

/// The requirement ids found when `body` is POSTed (as POST #1) to a
/// server at `version` over `transport` and answered with `answer`.
fn exchange(
    version: Version,
    transport: Transport,
    body: &str,
    answer: HttpRecord,
) -> Vec<&'static str> {
    let mut oracle = Oracle::new(Role::Server, version, transport);
    let mut found = oracle.observe(0, Observed::Posted(body.as_bytes()));
    found.extend(oracle.observe(0, Observed::SentBytes(body.as_bytes())));
    let event = Event::Http(Box::new(answer));
    found.extend(oracle.observe(
        1,
        Observed::Received {
            via: Via::Post(1),
            event: &event,
        },
    ));
    found.into_iter().map(|v| v.requirement.id).collect()
}

const V2025: Version = Version::V2025_06_18;

#[test]
fn a_notification_post_is_accepted_with_202_and_no_body() {
    let http = |answer| exchange(V2025, Transport::Http, NOTIFICATION, answer);
    assert!(http(record(202, None, "")).is_empty());
    assert_eq!(
        http(record(200, Some("application/json"), "{}")),
        ["http.post.accepted-202"]
    );
    assert_eq!(http(record(202, None, "ok")), ["http.post.accepted-202"]);
    // A refusal is no acceptance to judge; a request's POST has its own rule.
    assert!(http(record(400, None, "")).is_empty());
    assert!(exchange(
        V2025,
        Transport::Http,
        REQUEST,
        record(200, Some("text/event-stream"), "")
    )
    .is_empty());
    // The legacy transport answers every POST the same way.
    assert!(exchange(
        Version::V2024_11_05,
        Transport::Sse,
        NOTIFICATION,
        record(200, None, "Accepted")
    )
    .is_empty());
}

#[test]
fn a_server_error_for_broken_client_input_is_a_finding_a_refusal_is_not() {
    let http = |body: &str, answer| exchange(V2025, Transport::Http, body, answer);
    assert_eq!(
        http("{not json", record(500, None, "")),
        ["http.post.malformed-400"]
    );
    assert!(http("{not json", record(400, None, "")).is_empty());
    assert_eq!(
        http(
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            record(503, None, "")
        ),
        ["jsonrpc.robustness.survives-invalid"]
    );
    // A batch where the version has none is invalid input too.
    assert_eq!(
        http(&format!("[{REQUEST}]"), record(500, None, "")),
        ["jsonrpc.robustness.survives-invalid"]
    );
    // Valid input may meet a server error (a notification refused, a tool failing).
    assert!(http(NOTIFICATION, record(500, None, "")).is_empty());
    assert!(http(REQUEST, record(500, None, "")).is_empty());
    // Before 2025-03-26 the 400 rule does not exist: surviving invalid input does.
    assert_eq!(
        exchange(
            Version::V2024_11_05,
            Transport::Sse,
            "{not json",
            record(500, None, "")
        ),
        ["jsonrpc.robustness.survives-invalid"]
    );
}

#[test]
fn a_server_body_that_is_not_utf8_breaks_the_utf8_rule() {
    let judge = |version| {
        let mut oracle = Oracle::new(Role::Server, version, Transport::Http);
        let event = Event::FrameError(FrameError {
            kind: FrameErrorKind::InvalidUtf8 { valid_up_to: 3 },
            line: 1,
            bytes: b"abc\xff".to_vec(),
        });
        let found = oracle.observe(
            0,
            Observed::Received {
                via: Via::Post(1),
                event: &event,
            },
        );
        found
            .into_iter()
            .map(|v| v.requirement.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(judge(V2025), ["jsonrpc.message.utf8"]);
    assert_eq!(
        judge(Version::V2024_11_05),
        ["http.post.request-content-type"]
    );
}

/// How a wait for the answer to request 1 ends after POST #1 got `answer`
/// (and, when given, `body` as a frame of that POST's response).
fn refusal_of_request(
    answer: HttpRecord,
    body: Option<&str>,
) -> (Option<crate::Refusal>, Vec<&'static str>) {
    let mut oracle = Oracle::new(Role::Server, V2025, Transport::Http);
    let mut found = oracle.observe(0, Observed::Posted(REQUEST.as_bytes()));
    found.extend(oracle.observe(0, Observed::SentBytes(REQUEST.as_bytes())));
    let event = Event::Http(Box::new(answer));
    let via = Via::Post(1);
    found.extend(oracle.observe(1, Observed::Received { via, event: &event }));
    if let Some(text) = body {
        let frame = Event::Frame(mcpspec_wire::Frame {
            bytes: text.as_bytes().to_vec(),
            line: 1,
            crlf: false,
        });
        found.extend(oracle.observe(2, Observed::Received { via, event: &frame }));
    }
    let is_answer = |m: &mcpspec_wire::Message| matches!(m, mcpspec_wire::Message::Response(r) if r.id == Some(mcpspec_wire::Id::from(1)));
    let refusal = oracle.refused_for(is_answer);
    (
        refusal,
        found.into_iter().map(|v| v.requirement.id).collect(),
    )
}

#[test]
fn a_request_answered_with_a_page_that_carries_no_answer_is_refused() {
    let (refusal, found) = refusal_of_request(record(200, Some("text/html"), "<html>"), None);
    let refusal = refusal.expect("no answer will come");
    assert_eq!(refusal.status, Some(200));
    assert!(refusal.how.contains("text/html"), "{}", refusal.how);
    assert_eq!(found, ["http.post.request-content-type"]);
}

#[test]
fn an_error_body_with_the_servers_own_id_is_a_refusal_not_an_answer() {
    let body = r#"{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Missing session ID"}}"#;
    let (refusal, found) =
        refusal_of_request(record(400, Some("application/json"), body), Some(body));
    let refusal = refusal.expect("refused");
    assert_eq!(refusal.status, Some(400));
    assert!(refusal.how.contains("-32600"), "{}", refusal.how);
    assert!(found.is_empty(), "{found:?}");
    // The request's own id in the error body is an answer, not a refusal.
    let own = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}"#;
    let (refusal, _) = refusal_of_request(record(400, Some("application/json"), own), Some(own));
    assert_eq!(refusal, None);
}

#[test]
fn a_post_that_got_no_response_is_refused_without_a_status() {
    let failed = HttpRecord {
        method: "POST".into(),
        error: Some("connection refused".into()),
        ..HttpRecord::default()
    };
    let (refusal, _) = refusal_of_request(failed, None);
    assert_eq!(refusal.map(|r| r.status), Some(None));
}

/// A legacy session, fed as the runner and the fuzzer feed it: POST #n's
/// bytes, its exchange (status, JSON body), then the body as a frame.
struct Legacy {
    oracle: Oracle,
    posts: u64,
    found: Vec<crate::Violation>,
}

impl Legacy {
    fn new() -> Self {
        Legacy {
            oracle: Oracle::new(Role::Server, Version::V2024_11_05, Transport::Sse),
            posts: 0,
            found: Vec::new(),
        }
    }

    fn post(&mut self, body: &str, answer: HttpRecord) {
        self.posts += 1;
        let via = Via::Post(self.posts);
        let o = &mut self.oracle;
        self.found
            .extend(o.observe(0, Observed::SentBytes(body.as_bytes())));
        self.found
            .extend(o.observe(0, Observed::Posted(body.as_bytes())));
        let json = answer.body.trim_start().starts_with('{');
        let text = answer.body.clone();
        let event = Event::Http(Box::new(answer));
        self.found
            .extend(o.observe(1, Observed::Received { via, event: &event }));
        if json {
            self.found.extend(o.observe(
                2,
                Observed::Received {
                    via,
                    event: &frame(&text),
                },
            ));
        }
    }

    fn on_stream(&mut self, text: &str) {
        let event = frame(text);
        self.found.extend(self.oracle.observe(
            3,
            Observed::Received {
                via: Via::Legacy,
                event: &event,
            },
        ));
    }

    fn ids(&self) -> Vec<&'static str> {
        self.found.iter().map(|v| v.requirement.id).collect()
    }
}

fn frame(text: &str) -> Event {
    Event::Frame(mcpspec_wire::Frame {
        bytes: text.as_bytes().to_vec(),
        line: 1,
        crlf: false,
    })
}

const PARSE_ERROR: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;

/// Issue 14, item 13: a legacy server that refuses a POST it cannot read
/// with HTTP 400 and a -32700 body has sent no protocol message outside its
/// stream. The POST carried nothing to answer on the stream, and the 2024-11-05
/// transport page asks for nothing more (it says server messages travel as
/// message events; it has no rule for a POST that carried no message). The
/// same body with 200 is an answer in the POST's body: `sse.message-event`.
#[test]
fn a_legacy_refusal_of_an_unreadable_post_is_no_message_outside_the_stream() {
    let mut s = Legacy::new();
    s.post(
        "this is not json at all",
        record(400, Some("application/json"), PARSE_ERROR),
    );
    // A request with a null id is no readable request either.
    s.post(
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        record(
            400,
            Some("application/json"),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
        ),
    );
    // The session goes on: a request accepted, answered on the stream.
    s.post(REQUEST, record(202, None, "Accepted"));
    s.on_stream(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    // A server that also reports the parse error on the stream is fine too.
    s.on_stream(PARSE_ERROR);
    s.found.extend(s.oracle.observe(4, Observed::End));
    assert!(s.found.is_empty(), "{:?}", s.found);

    let mut s = Legacy::new();
    s.post(
        "this is not json at all",
        record(200, Some("application/json"), PARSE_ERROR),
    );
    assert_eq!(s.ids(), ["sse.message-event"]);
}

/// A GET (here a resumption, and a standing GET) answered 404 with a
/// JSON-RPC error of a null id, as SDKs and the reference answer a session
/// or stream that is gone: the body answers no message, so it breaks no
/// rule of responses; the same error in a POST's 200 answer still does.
#[test]
fn a_refused_get_body_answers_no_message() {
    const GONE: &str =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Session not found"}}"#;
    for via in [Via::Resumed(1), Via::Get] {
        let mut oracle = Oracle::new(Role::Server, V2025, Transport::Http);
        oracle.observe(0, Observed::SentBytes(REQUEST.as_bytes()));
        let mut refused = record(404, Some("application/json"), GONE);
        refused.method = "GET".into();
        let http = Event::Http(Box::new(refused));
        let mut found = oracle.observe(1, Observed::Received { via, event: &http });
        found.extend(oracle.observe(
            1,
            Observed::Received {
                via,
                event: &frame(GONE),
            },
        ));
        assert!(found.is_empty(), "{via}: {found:?}");
    }
    // In the body of a POST answered 200, it is a response with a null id.
    let mut oracle = Oracle::new(Role::Server, V2025, Transport::Http);
    let mut found = oracle.observe(0, Observed::Posted(REQUEST.as_bytes()));
    found.extend(oracle.observe(0, Observed::SentBytes(REQUEST.as_bytes())));
    let ok = Event::Http(Box::new(record(200, Some("application/json"), GONE)));
    for event in [&ok, &frame(GONE)] {
        found.extend(oracle.observe(
            1,
            Observed::Received {
                via: Via::Post(1),
                event,
            },
        ));
    }
    assert!(
        found
            .iter()
            .any(|v| v.requirement.id == "jsonrpc.response.id-matches"),
        "{found:?}"
    );
}

/// A client's cancellation over HTTP reaches the server with the response
/// head of the POST that carried it: an answer to the cancelled call before
/// then may have crossed it (server-everything on a loaded machine: the
/// call's own answer at 2218 ms, the cancellation's POST accepted at
/// 2858 ms), one after it is a violation. Over stdio the write is the
/// delivery. A refused cancellation never reached the server.
#[test]
fn a_cancellation_reaches_an_http_server_when_its_post_is_accepted() {
    const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}"#;
    const CANCEL: &str =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
    const ANSWER: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
    // (transport, the cancellation POST's status and when it comes, then
    // whether the answer at 2218 ms is a violation)
    for (transport, accepted, violation) in [
        (Transport::Http, Some((202, 2858)), false),
        (Transport::Http, Some((202, 360)), true),
        (Transport::Http, Some((400, 360)), false),
        (Transport::Http, None, false),
        (Transport::Stdio, None, true),
    ] {
        let mut oracle = Oracle::new(Role::Server, V2025, transport);
        let stream = Event::Http(Box::new(record(200, Some("text/event-stream"), "")));
        let mut found = Vec::new();
        let mut observe = |at, o| found.extend(oracle.observe(at, o));
        let stdio = transport == Transport::Stdio;
        for (at, body) in [(0, CALL), (353, CANCEL)] {
            if !stdio {
                observe(at, Observed::Posted(body.as_bytes()));
            }
            observe(at, Observed::SentBytes(body.as_bytes()));
        }
        if !stdio {
            observe(
                5,
                Observed::Received {
                    via: Via::Post(1),
                    event: &stream,
                },
            );
        }
        let head =
            accepted.map(|(status, at)| (at, Event::Http(Box::new(record(status, None, "")))));
        let via = if stdio { Via::Stdio } else { Via::Post(1) };
        let answer = frame(ANSWER);
        let mut events = vec![(2218, via, &answer)];
        if let Some((at, head)) = &head {
            events.push((*at, Via::Post(2), head));
        }
        events.sort_by_key(|(at, ..)| *at);
        for (at, via, event) in events {
            observe(at, Observed::Received { via, event });
        }
        let ids: Vec<&str> = found.iter().map(|v| v.requirement.id).collect();
        let case = format!(
            "{transport:?} {accepted:?}: {ids:?} {:?}",
            oracle.undecided()
        );
        assert_eq!(ids == ["cancellation.no-response"], violation, "{case}");
        assert_eq!(ids.is_empty(), !violation, "{case}");
        // Not judged: whether the answer was owed, nor whether the call was
        // stopped (it may have been over before the cancellation came).
        let undecided: Vec<&str> = oracle
            .undecided()
            .iter()
            .map(|u| u.requirement.id)
            .collect();
        let crossed = ["cancellation.no-response", "cancellation.stop-processing"];
        assert_eq!(
            undecided,
            if violation { &[][..] } else { &crossed[..] },
            "{case}"
        );
    }
}
