//! The fuzz policy over the one oracle's violations: what stands, what
//! fuzzed input allows, and what only the fuzzer can find.

use super::*;
use crate::expect::{INVALID_PARAMS, INVALID_REQUEST};
use crate::feed::Feed;
use mcpspec_engine::{Level as ReqLevel, Role, Version};
use mcpspec_transport::{Event, Transport};
use mcpspec_wire::Frame;

/// A judge and the oracle it takes violations from, over stdio.
struct Fixture {
    feed: Feed,
    judge: Judge,
}

impl Fixture {
    fn new() -> Self {
        Fixture {
            feed: Feed::new(Role::Server, Version::V2025_06_18, Transport::Stdio),
            judge: Judge::new(1000),
        }
    }

    /// Exec `exec` sends `line` (which `expects` describe).
    fn send(&mut self, exec: u64, line: &str, expects: &[Expect]) {
        self.judge.sent(exec, expects, 0);
        self.feed.sent(0, format!("{line}\n").as_bytes());
    }

    fn recv(&mut self, text: &str) -> Vec<Verdict> {
        let event = Event::Frame(Frame {
            bytes: text.as_bytes().to_vec(),
            line: 1,
            crlf: false,
        });
        let found = self.feed.received(0, Via::Stdio, &event);
        self.judge.frame(Via::Stdio, text.as_bytes(), found)
    }
}

fn owed(id: i64, error: Option<Want>) -> Expect {
    Expect::Owed {
        id: Id::from(id),
        method: "tools/call".into(),
        error,
        token: Some("\"t\"".into()),
        batch: false,
    }
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;

#[test]
fn the_oracle_judges_ids_a_second_answer_and_an_unknown_one_trip() {
    let mut f = Fixture::new();
    f.send(0, CALL, &[owed(1, None)]);
    let ok = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
    assert!(f.recv(ok).is_empty());
    let v = f.recv(ok);
    assert_eq!(
        (v[0].oracle, v[0].requirement.id),
        (Oracle::Stdout, "jsonrpc.response.once")
    );
    let v = f.recv(r#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    assert_eq!(v[0].requirement.id, "jsonrpc.response.id-matches");
    assert_eq!(v[0].exec, Some(0));
}

#[test]
fn ids_a_lenient_reader_finds_may_be_answered_once() {
    let mut f = Fixture::new();
    // A line with a BOM: the oracle reads it strictly, a lenient target answers it.
    f.send(
        0,
        &format!("\u{feff}{CALL}"),
        &[
            Expect::NullIdError,
            Expect::MayAnswer {
                id: Id::from(1),
                error: None,
            },
        ],
    );
    let ok = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
    assert!(f.recv(ok).is_empty());
    assert_eq!(f.recv(ok)[0].requirement.id, "jsonrpc.response.id-matches");
}

#[test]
fn malformed_input_must_not_succeed_nor_earn_another_class() {
    let mut j = Judge::new(1000);
    let answer = |j: &mut Judge, text: &str| j.frame(Via::Stdio, text.as_bytes(), Vec::new());
    j.sent(
        3,
        &[owed(1, Some(INVALID_PARAMS)), owed(2, Some(INVALID_PARAMS))],
        0,
    );
    let v = answer(&mut j, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert_eq!((v[0].oracle, v[0].exec), (Oracle::ErrorClass, Some(3)));
    assert_eq!(v[0].level(), ReqLevel::Should);
    let v = answer(
        &mut j,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"x"}}"#,
    );
    assert_eq!(v[0].oracle, Oracle::ErrorClass);
    j.sent(
        4,
        &[
            Expect::NullIdError,
            Expect::MayAnswer {
                id: Id::from(5),
                error: Some(INVALID_REQUEST),
            },
        ],
        0,
    );
    assert!(answer(
        &mut j,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"x"}}"#
    )
    .is_empty());
}

#[test]
fn null_id_errors_are_allowed_once_per_unreadable_line() {
    let mut f = Fixture::new();
    // The judge allows one (say, for a lenient reading) the oracle does not know of.
    f.judge.sent(0, &[Expect::NullIdError], 0);
    let err = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#;
    assert!(f.recv(err).is_empty());
    let v = f.recv(err);
    assert_eq!(
        (v[0].oracle, v[0].requirement.id),
        (Oracle::Stdout, "jsonrpc.response.id-matches")
    );
}

#[test]
fn answered_notifications_trip() {
    let mut f = Fixture::new();
    f.send(
        0,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &[Expect::Notification {
            method: "notifications/initialized".into(),
        }],
    );
    let v = f.recv(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#);
    assert_eq!(v[0].oracle, Oracle::Notification);
    assert_eq!(v[0].requirement.id, "jsonrpc.notification.no-response");
    assert_eq!(v[0].level(), ReqLevel::Must);
    let v = f.recv(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#);
    assert_eq!(v[0].oracle, Oracle::Notification);
}

#[test]
fn owed_requests_end_as_notes_at_the_bound_unless_cancelled() {
    let mut f = Fixture::new();
    f.judge = Judge::new(1000).max_wait(1800);
    f.judge.sent(0, &[owed(1, None), owed(2, None)], 0);
    f.judge.sent(1, &[Expect::Cancel { id: Id::from(2) }], 10);
    f.judge.progress(&Value::from("t"), 900);
    assert!(f.judge.overdue(1500).is_empty());
    let v = f.judge.overdue(1900);
    assert_eq!(v.len(), 1);
    assert_eq!(
        (&v[0].id, v[0].exec, v[0].progressed),
        (&Id::from(1), Some(0), true)
    );
    // Late answers are accepted once the wait ended, and the cancelled one may still come.
    let mut j = f.judge;
    for id in [1, 2] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
        assert!(j.frame(Via::Stdio, text.as_bytes(), Vec::new()).is_empty());
    }
}

#[test]
fn echoed_unusable_ids_arrays_for_arrays_and_junk_stdout() {
    let mut f = Fixture::new();
    f.send(
        0,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        &[
            Expect::NullIdError,
            Expect::Echo {
                id: serde_json::json!(1.5),
            },
        ],
    );
    assert!(f
        .recv(r#"{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600,"message":"x"}}"#)
        .is_empty());
    assert_eq!(
        f.recv("server started")[0].requirement.id,
        "stdio.stdout-only-mcp"
    );
    let v = f.recv(r#"[{"jsonrpc":"2.0","id":9,"result":{}}]"#);
    assert!(
        v.iter().any(|v| v.requirement.id == "jsonrpc.batch.absent"),
        "{v:?}"
    );
    // An array sent: arrays are the reply to it.
    f.send(1, &format!("[{CALL}]"), &[Expect::Batch, owed(1, None)]);
    let v = f.recv(r#"[{"jsonrpc":"2.0","id":1,"result":{"content":[]}}]"#);
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn an_id_written_as_minus_zero_is_answered_by_zero_or_refused() {
    let line = r#"{"jsonrpc":"2.0","id":-0.0,"method":"ping"}"#;
    let caps = serde_json::json!({});
    let ctx = crate::expect::Ctx {
        version: Version::V2025_06_18,
        initialized: true,
        capabilities: Some(&caps),
        framing: crate::input::Framing::Ndjson,
    };
    let input = crate::Input::new(
        crate::Level::Jsonrpc,
        "jsonrpc/id-type",
        crate::Hint::Exact,
        format!("{line}\n").into_bytes(),
    );
    let expects = crate::expect::derive(&input, ctx);
    // The same integer, written plainly, answers it…
    let mut f = Fixture::new();
    f.send(0, line, &expects);
    let v = f.recv(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#);
    assert!(v.is_empty(), "{v:?}");
    // …once.
    let v = f.recv(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#);
    assert_eq!(v[0].requirement.id, "jsonrpc.response.once");
    // A reader that takes it for a float may refuse it with a null id,
    // or say nothing: nothing was owed.
    let mut f = Fixture::new();
    f.send(0, line, &expects);
    let v = f.recv(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id"}}"#);
    assert!(v.is_empty(), "{v:?}");
    assert!(f.judge.overdue(10_000).is_empty());
    // The string "0" is another id.
    let mut f = Fixture::new();
    f.send(0, line, &expects);
    let v = f.recv(r#"{"jsonrpc":"2.0","id":"0","result":{}}"#);
    assert_eq!(v[0].requirement.id, "jsonrpc.response.id-matches");
}

#[test]
fn one_wrong_error_class_across_methods_is_one_cause() {
    let mut j = Judge::new(1000);
    let owed = |id: i64, method: &str| Expect::Owed {
        id: Id::from(id),
        method: method.into(),
        error: Some(INVALID_PARAMS),
        token: None,
        batch: false,
    };
    j.sent(
        0,
        &[
            owed(1, "tools/call"),
            owed(2, "prompts/get"),
            owed(3, "resources/read"),
        ],
        0,
    );
    let answer = |j: &mut Judge, text: &str| j.frame(Via::Stdio, text.as_bytes(), Vec::new());
    let internal =
        |id| format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"x"}}}}"#);
    let a = answer(&mut j, &internal(1));
    let b = answer(&mut j, &internal(2));
    // Seen with two methods, one cause: the key findings are deduplicated by.
    assert_eq!(a[0].subject.as_deref(), Some("malformed tools/call"));
    assert_eq!(b[0].subject.as_deref(), Some("malformed prompts/get"));
    assert_eq!(a[0].cause, b[0].cause);
    assert_eq!(
        a[0].cause.as_deref(),
        Some("invalid params answered with error -32603")
    );
    let key = |v: &Verdict| crate::minimize::key_of(v, v.subject.as_deref().unwrap_or(""));
    assert_eq!(key(&a[0]), key(&b[0]));
    // Another wrong answer to the same class is another cause.
    let c = answer(&mut j, r#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
    assert_eq!(
        c[0].cause.as_deref(),
        Some("invalid params answered with a success result")
    );
}
