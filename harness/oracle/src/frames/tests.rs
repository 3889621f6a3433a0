//! The end of a connection, and the legacy transport's POST bodies.

use mcpspec_engine::{Role, Version};
use mcpspec_wire::event::{Event, HttpRecord, Transport, Via};
use mcpspec_wire::{Frame, Message};
use serde_json::json;

use crate::{Observed, Oracle};

fn frame(text: &str) -> Event {
    Event::Frame(Frame {
        bytes: text.as_bytes().to_vec(),
        line: 1,
        crlf: false,
    })
}

fn ids(found: &[crate::Violation]) -> Vec<&'static str> {
    found.iter().map(|v| v.requirement.id).collect()
}

const EXITED: Event = Event::Exited {
    code: Some(1),
    signal: None,
};

#[test]
fn a_server_that_went_away_owes_what_it_had_not_answered() {
    let mut o = Oracle::new(Role::Server, Version::V2025_06_18, Transport::Stdio);
    let ping = Message::request(3, "ping", None);
    o.observe(0, Observed::Sent(&ping));
    // Still running at the end: nothing is owed yet.
    assert!(o.observe(5, Observed::End).is_empty());
    let exit = Observed::Received {
        via: Via::Stdio,
        event: &EXITED,
    };
    assert!(o.observe(6, exit).is_empty());
    assert_eq!(o.gone(), Some("the target exited with code 1"));
    let found = o.observe(7, Observed::End);
    assert_eq!(ids(&found), ["jsonrpc.request.answered"]);
    assert_eq!(
        found[0].detail,
        "the target exited with code 1 leaving ping (id 3) unanswered"
    );
}

#[test]
fn a_client_owes_answers_only_when_it_walked_away_from_its_own_request() {
    let start = |o: &mut Oracle| {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                          "params": {"protocolVersion": "2025-06-18"}});
        o.observe(
            0,
            Observed::Received {
                via: Via::Stdio,
                event: &frame(&init.to_string()),
            },
        );
        let roots = Message::request("r1", "roots/list", None);
        o.observe(1, Observed::Sent(&roots));
    };
    let exit = Observed::Received {
        via: Via::Stdio,
        event: &EXITED,
    };
    // The client's initialize is held unanswered when it goes: it walked away.
    let mut o = Oracle::new(Role::Client, Version::V2025_06_18, Transport::Stdio);
    start(&mut o);
    o.observe(2, exit);
    assert_eq!(
        o.walked_away_from(),
        Some("the target exited with code 1 while the harness held its request initialize (id 0) unanswered")
    );
    assert_eq!(
        ids(&o.observe(3, Observed::End)),
        ["jsonrpc.request.answered"]
    );
    // Answered first: a client ends its session when it is done.
    let mut o = Oracle::new(Role::Client, Version::V2025_06_18, Transport::Stdio);
    start(&mut o);
    let answer = Message::result(
        0.into(),
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "serverInfo": {"name": "s", "version": "1"}}),
    );
    o.observe(2, Observed::Sent(&answer));
    o.observe(3, exit);
    assert_eq!(o.walked_away_from(), None);
    assert!(o.observe(4, Observed::End).is_empty());
}

#[test]
fn a_legacy_server_refuses_a_post_in_its_body_but_answers_on_the_stream() {
    let judge = |status: u16, body: &str| {
        let mut o = Oracle::new(Role::Server, Version::V2024_11_05, Transport::Sse);
        let record = Event::Http(Box::new(HttpRecord {
            method: "POST".into(),
            target: "/messages?session=1".into(),
            status: Some(status),
            response_headers: vec![("content-type".into(), "application/json".into())],
            ..HttpRecord::default()
        }));
        o.observe(0, Observed::SentBytes(b"{not json"));
        o.observe(0, Observed::Posted(b"{not json"));
        let mut found = o.observe(
            1,
            Observed::Received {
                via: Via::Post(1),
                event: &record,
            },
        );
        found.extend(o.observe(
            2,
            Observed::Received {
                via: Via::Post(1),
                event: &frame(body),
            },
        ));
        ids(&found)
    };
    let refusal = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#;
    assert!(judge(400, refusal).is_empty());
    assert_eq!(judge(200, refusal), ["sse.message-event"]);
}
