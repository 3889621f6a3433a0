//! Unit tests of the session's JSON-RPC and handshake rules.

use super::*;
use serde_json::json;

fn ids(v: &[Violation]) -> Vec<&str> {
    v.iter().map(|v| v.requirement.id).collect()
}

/// The rules `s` left undecided, in order.
fn undecided(s: &Session) -> Vec<&str> {
    s.undecided().iter().map(|u| u.requirement.id).collect()
}

/// What one cancelled request that may have crossed its answer leaves
/// undecided: whether the answer was owed, and whether work was stopped.
const CROSSED: [&str; 2] = ["cancellation.no-response", "cancellation.stop-processing"];

fn client() -> Session {
    let mut s = Session::new(Role::Client, None);
    s.outbound(
        &Message::request(
            0,
            "initialize",
            Some(json!({"protocolVersion": "2025-06-18"})),
        ),
        0,
    );
    let v = s.inbound(
        &Message::result(
            Id::from(0),
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}),
        ),
        1,
    );
    assert!(v.is_empty());
    s.outbound(&Message::notification("notifications/initialized", None), 2);
    s
}

#[test]
fn handshake_moves_through_phases() {
    let s = client();
    assert_eq!(s.phase(), &Phase::Operating);
    assert_eq!(s.version(), Some(Version::V2025_06_18));
    assert_eq!(s.peer_capabilities(), Some(&json!({"tools": {}})));
}

/// Regression (fuzz/corpus/engine, from server/lifecycle/initialize/second-initialize):
/// the answer to a second `initialize` moved an operating session back to
/// `Initialized`, so the server's next request was flagged as too early.
#[test]
fn a_second_initialize_does_not_restart_the_lifecycle() {
    for answer in [
        Message::result(
            Id::from(5),
            json!({"protocolVersion": "2024-11-05", "capabilities": {}}),
        ),
        Message::error(Some(Id::from(5)), -32600, "already initialized", None),
    ] {
        let mut s = client();
        s.outbound(&Message::request(5, "initialize", Some(json!({}))), 3);
        assert!(s.inbound(&answer, 4).is_empty());
        assert_eq!(s.phase(), &Phase::Operating);
        assert_eq!(s.version(), Some(Version::V2025_06_18));
        assert_eq!(s.peer_capabilities(), Some(&json!({"tools": {}})));
        assert!(s
            .inbound(&Message::request(1, "roots/list", None), 5)
            .is_empty());
    }
}

#[test]
fn an_id_of_the_wrong_type_names_the_id_rule() {
    let mut s = client();
    let bad = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)
        .expect_err("a float id is invalid");
    assert_eq!(
        s.inbound_invalid(&bad, 1).requirement.id,
        "jsonrpc.request.id-type"
    );
    let other = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":1,"method":7}"#)
        .expect_err("a numeric method is invalid");
    assert_eq!(
        s.inbound_invalid(&other, 1).requirement.id,
        "jsonrpc.message.valid"
    );
}

#[test]
fn responses_must_match_a_pending_request_once() {
    let mut s = client();
    s.outbound(&Message::request(1, "ping", None), 3);
    assert!(s
        .inbound(&Message::result(Id::from(1), json!({})), 4)
        .is_empty());
    assert_eq!(
        ids(&s.inbound(&Message::result(Id::from(1), json!({})), 5)),
        ["jsonrpc.response.once"]
    );
    assert_eq!(
        ids(&s.inbound(&Message::result(Id::from(9), json!({})), 6)),
        ["jsonrpc.response.id-matches"]
    );
}

/// Regression (bench/speed.sh's fuzz run against server-everything): a
/// `tools/call` and then a `prompts/list`, both with id `-0.0`, the first
/// given up on and cancelled; the late answer to the call was judged as the
/// list's. With two requests outstanding under one id, an answer names no
/// method, each of the two answers is fine, and a third is one too many.
#[test]
fn an_id_two_requests_share_names_neither_of_them() {
    let mut s = client();
    s.outbound(
        &Message::request(7, "tools/call", Some(json!({"name": "slow"}))),
        3,
    );
    s.outbound(
        &Message::notification("notifications/cancelled", Some(json!({"requestId": 7}))),
        4,
    );
    s.outbound(&Message::request(7, "prompts/list", None), 5);
    assert_eq!(s.sent_method(&Id::from(7)), None);
    let owed: Vec<_> = s.pending().map(|(_, m)| m.to_owned()).collect();
    assert_eq!(owed, ["prompts/list"], "the cancelled call is owed nothing");
    // Long after the cancellation: for the call it would be flagged, but it
    // may be the list's answer.
    let call_answer = Message::result(Id::from(7), json!({"content": []}));
    assert!(s.inbound(&call_answer, 5_000).is_empty());
    assert!(s.is_pending(&Id::from(7)));
    assert_eq!(s.sent_method(&Id::from(7)), None, "still either's");
    assert!(s
        .inbound(&Message::result(Id::from(7), json!({"prompts": []})), 5_001)
        .is_empty());
    assert!(!s.is_pending(&Id::from(7)));
    assert_eq!(
        ids(&s.inbound(&Message::result(Id::from(7), json!({})), 5_002)),
        ["jsonrpc.response.once"]
    );
    // An id reused after its answer came is a new request's alone.
    s.outbound(&Message::request(7, "tools/list", None), 5_003);
    assert_eq!(s.sent_method(&Id::from(7)), Some("tools/list"));
}

#[test]
fn a_response_id_matches_its_request_by_value() {
    // `-0.0` is the integer zero under the schema: `0` answers it, once.
    let mut s = client();
    let Ok(mcpspec_wire::Inbound::Single(req)) =
        mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":-0.0,"method":"ping"}"#)
    else {
        panic!("-0.0 is a valid id")
    };
    s.outbound(&req, 1);
    assert!(s
        .inbound(&Message::result(Id::from(0), json!({})), 2)
        .is_empty());
    assert_eq!(
        ids(&s.inbound(&Message::result(Id::from(0), json!({})), 3)),
        ["jsonrpc.response.once"]
    );
    // A string is not a number: `"0"` answers nothing sent.
    s.outbound(&Message::request(0, "ping", None), 4);
    assert_eq!(
        ids(&s.inbound(&Message::result(Id::from("0"), json!({})), 5)),
        ["jsonrpc.response.id-matches"]
    );
}

#[test]
fn null_id_error_needs_an_unreadable_message() {
    let mut s = client();
    let err = Message::error(None, -32700, "Parse error", None);
    assert_eq!(ids(&s.inbound(&err, 1)), ["jsonrpc.response.id-matches"]);
    s.outbound_unreadable(&mcpspec_wire::classify(b"{").unwrap_err());
    assert!(s.inbound(&err, 2).is_empty());
    assert_eq!(ids(&s.inbound(&err, 3)), ["jsonrpc.response.id-matches"]);
}

/// An error about a message of ours that could not be read, with an id
/// guessed instead of null (`parse-error-id` says 0), breaks
/// `jsonrpc.error.null-id`, the rule about that very id; without such a
/// message, an unknown id answers no request (`jsonrpc.response.id-matches`).
#[test]
fn a_guessed_id_on_an_error_about_unreadable_input_is_no_null_id() {
    let mut s = client();
    let err = Message::error(Some(Id::from(77)), -32700, "Parse error", None);
    s.outbound_unreadable(&mcpspec_wire::classify(b"{").unwrap_err());
    assert_eq!(ids(&s.inbound(&err, 1)), ["jsonrpc.error.null-id"]);
    assert_eq!(ids(&s.inbound(&err, 2)), ["jsonrpc.response.id-matches"]);
    // A result is no error about input, nor an error of another kind.
    s.outbound_blank();
    let result = Message::result(Id::from(78), json!({}));
    assert_eq!(ids(&s.inbound(&result, 3)), ["jsonrpc.response.id-matches"]);
    let other = Message::error(Some(Id::from(79)), -32602, "Unknown task", None);
    assert_eq!(ids(&s.inbound(&other, 4)), ["jsonrpc.response.id-matches"]);
}

#[test]
fn invalid_request_with_readable_id_may_be_answered_either_way() {
    let bad = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":5,"method":7}"#).unwrap_err();
    let mut s = client();
    s.outbound_unreadable(&bad);
    assert!(s
        .inbound(&Message::error(Some(Id::from(5)), -32600, "x", None), 1)
        .is_empty());
    let mut s = client();
    s.outbound_unreadable(&bad);
    assert!(s
        .inbound(&Message::error(None, -32600, "x", None), 1)
        .is_empty());
}

#[test]
fn progress_rules() {
    let mut s = client();
    s.outbound(
        &Message::request(
            2,
            "tools/call",
            Some(json!({"_meta": {"progressToken": "t"}})),
        ),
        0,
    );
    let p = |v: f64| {
        Message::notification(
            "notifications/progress",
            Some(json!({"progressToken": "t", "progress": v})),
        )
    };
    assert!(s.inbound(&p(1.0), 1).is_empty());
    assert_eq!(ids(&s.inbound(&p(1.0), 2)), ["progress.increasing"]);
    assert!(s.inbound(&p(2.0), 3).is_empty());
    let other = Message::notification(
        "notifications/progress",
        Some(json!({"progressToken": "u", "progress": 1})),
    );
    assert_eq!(ids(&s.inbound(&other, 4)), ["progress.token-active"]);
    assert!(s
        .inbound(&Message::result(Id::from(2), json!({})), 5)
        .is_empty());
    assert_eq!(ids(&s.inbound(&p(3.0), 6)), ["progress.token-active"]);
}

/// A fuzzer's edge token (-1) on two requests at once: the quick one's
/// answer does not end the token while the slow one still reports under it
/// (the false `progress.token-active` a fuzz run against server-everything
/// reported), nor can the order of progress values under it be judged.
#[test]
fn a_token_supplied_twice_is_active_until_both_are_answered() {
    let mut s = client();
    let call = |id: i64, method: &str| {
        Message::request(id, method, Some(json!({"_meta": {"progressToken": -1}})))
    };
    let p = |v: f64| {
        Message::notification(
            "notifications/progress",
            Some(json!({"progressToken": -1, "progress": v})),
        )
    };
    s.outbound(&call(1, "tools/call"), 0);
    assert!(s.inbound(&p(2.0), 1).is_empty());
    s.outbound(&call(2, "resources/list"), 2);
    assert!(s
        .inbound(&Message::result(Id::from(2), json!({"resources": []})), 3)
        .is_empty());
    // Request 1's progress, or request 2's: lower than 2 is no violation.
    assert!(s.inbound(&p(1.0), 4).is_empty());
    assert!(s
        .inbound(&Message::result(Id::from(1), json!({"content": []})), 5)
        .is_empty());
    assert_eq!(ids(&s.inbound(&p(3.0), 6)), ["progress.token-active"]);
    // Supplied afresh once free, its order is judged again.
    s.outbound(&call(3, "tools/call"), 7);
    assert!(s.inbound(&p(2.0), 8).is_empty());
    assert_eq!(ids(&s.inbound(&p(1.0), 9)), ["progress.increasing"]);
}

#[test]
fn pending_lists_only_what_the_peer_owes() {
    let mut s = client();
    s.outbound(&Message::request(7, "tools/call", None), 0);
    s.outbound(&Message::request(8, "tools/call", None), 0);
    s.outbound(
        &Message::notification("notifications/cancelled", Some(json!({"requestId": 8}))),
        1,
    );
    let bad = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":9,"method":7}"#).unwrap_err();
    s.outbound_unreadable(&bad);
    let owed: Vec<String> = s.pending().map(|(id, m)| format!("{m} {id}")).collect();
    assert_eq!(owed, ["tools/call 7"]);
}

#[test]
fn answer_after_cancel_is_flagged_unless_it_crossed_the_cancellation() {
    let mut s = client();
    for id in [3, 4] {
        s.outbound(&Message::request(id, "tools/call", None), 0);
        s.outbound(
            &Message::notification("notifications/cancelled", Some(json!({"requestId": id}))),
            1000,
        );
    }
    // Sent before the cancellation could arrive: the race the spec allows.
    assert!(s
        .inbound(&Message::result(Id::from(3), json!({})), 1002)
        .is_empty());
    assert_eq!(undecided(&s), CROSSED, "{:?}", s.undecided());
    // Answered long after the target had it: judged, and whether it
    // stopped its work is for the scenario's own steps to see.
    assert_eq!(
        ids(&s.inbound(&Message::result(Id::from(4), json!({})), 1000 + 2000)),
        ["cancellation.no-response"]
    );
    assert_eq!(undecided(&s), CROSSED);
}

/// A client over HTTP: its cancellation reaches the server when the POST
/// carrying it is accepted, which may be long after it was sent.
#[test]
fn over_http_the_crossing_window_opens_at_delivery() {
    let cancel =
        |id: i64| Message::notification("notifications/cancelled", Some(json!({"requestId": id})));
    let mut s = client();
    s.set_delivery(Delivery::Reported);
    // server-everything on a loaded machine: the 2 s call was cancelled at
    // 353 ms, answered at its end, and the cancellation's POST accepted
    // only later. The server did not have it: undecided.
    s.outbound(&Message::request(5, "tools/call", None), 0);
    s.lasts(&Id::from(5), 2000);
    s.outbound(&cancel(5), 353);
    assert!(s
        .inbound(&Message::result(Id::from(5), json!({})), 2218)
        .is_empty());
    s.cancellation_delivered(&Id::from(5), 2858);
    // Nor could it have stopped the call: a silence for the call's progress
    // after that judges nothing (a false pass over HTTP, seen under load).
    assert_eq!(undecided(&s), CROSSED);
    // Accepted at once, answered at the end anyway: a violation.
    s.outbound(&Message::request(6, "tools/call", None), 3000);
    s.lasts(&Id::from(6), 2000);
    s.outbound(&cancel(6), 3300);
    s.cancellation_delivered(&Id::from(6), 3310);
    assert_eq!(
        ids(&s.inbound(&Message::result(Id::from(6), json!({})), 5004)),
        ["cancellation.no-response"]
    );
    // Answered with an error at once, before its POST was even accepted:
    // the call could not have ended yet, so the cancellation ended it.
    s.outbound(&Message::request(7, "tools/call", None), 6000);
    s.lasts(&Id::from(7), 2000);
    s.outbound(&cancel(7), 6300);
    let answer = Message::error(Some(Id::from(7)), 0, "Request cancelled", None);
    assert_eq!(ids(&s.inbound(&answer, 6305)), ["cancellation.no-response"]);
    assert_eq!(undecided(&s), CROSSED);
    // Cancelled after its answer had come: nothing to judge, either way.
    s.outbound(&Message::request(8, "tools/call", None), 7000);
    assert!(s
        .inbound(&Message::result(Id::from(8), json!({})), 7010)
        .is_empty());
    s.outbound(&cancel(8), 7300);
    assert_eq!(undecided(&s), [CROSSED, CROSSED].concat());
    // A request never sent is no such case.
    s.outbound(&cancel(99), 7400);
    assert_eq!(s.undecided().len(), 4);
}

#[test]
fn peer_request_ids_must_be_unique_and_wait_for_initialized() {
    let mut s = Session::new(Role::Client, None);
    assert_eq!(
        ids(&s.inbound(&Message::request(1, "roots/list", None), 0)),
        ["lifecycle.server.no-requests-before-initialized"]
    );
    assert!(s.inbound(&Message::request(2, "ping", None), 0).is_empty());
    assert_eq!(
        ids(&s.inbound(&Message::request(2, "ping", None), 0)),
        ["jsonrpc.request.id-unique"]
    );
}

#[test]
fn log_messages_need_the_logging_capability() {
    let log = Message::notification(
        "notifications/message",
        Some(json!({"level": "info", "data": "x"})),
    );
    let mut s = client(); // declared tools only
    assert_eq!(ids(&s.inbound(&log, 1)), ["logging.capability.declared"]);
    let mut s = Session::new(Role::Client, None);
    assert!(
        s.inbound(&log, 1).is_empty(),
        "unknown capabilities: no judgement"
    );
}

#[test]
fn batches_only_in_2025_03_26() {
    let mut s = Session::new(Role::Client, Some(Version::V2025_06_18));
    assert!(s.inbound_batch(0).is_some());
    let mut s = Session::new(Role::Client, Some(Version::V2025_03_26));
    assert!(s.inbound_batch(0).is_none());
}

/// A fuzzer never takes the undecided rules: the session keeps a bounded
/// few, however many cancellations cross their answers.
#[test]
fn undecided_rules_are_bounded_until_taken() {
    let mut s = client();
    for id in 10..110 {
        s.outbound(&Message::request(id, "ping", None), 0);
        s.outbound(
            &Message::notification("notifications/cancelled", Some(json!({"requestId": id}))),
            1,
        );
        assert!(s
            .inbound(&Message::result(Id::from(id), json!({})), 2)
            .is_empty());
    }
    assert_eq!(s.undecided().len(), UNDECIDED_KEPT);
    assert_eq!(s.take_undecided().len(), UNDECIDED_KEPT);
    assert!(s.undecided().is_empty());
}
