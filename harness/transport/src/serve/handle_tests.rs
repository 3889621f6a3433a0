//! Unit tests of [`super`]: the answers' helpers.

use super::*;

fn with(name: hyper::header::HeaderName, value: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        name,
        HeaderValue::from_str(value).expect("a valid header value"),
    );
    h
}

#[test]
fn only_this_servers_own_origin_passes() {
    assert!(origin_allowed(&HeaderMap::new(), 8080));
    for ok in [
        "http://127.0.0.1:8080",
        "http://localhost:8080/",
        "HTTP://LOCALHOST:8080",
    ] {
        assert!(origin_allowed(&with(ORIGIN, ok), 8080), "{ok}");
    }
    for bad in [
        "http://evil.example",
        "http://localhost:8081",
        "http://127.0.0.1",
        "null",
        "https://localhost:8080",
    ] {
        assert!(!origin_allowed(&with(ORIGIN, bad), 8080), "{bad}");
    }
}

#[test]
fn accept_lists_are_read_by_media_type() {
    let h = with(ACCEPT, "application/json;q=0.9, Text/Event-Stream");
    assert!(accepts(&h, "text/event-stream") && accepts(&h, "application/json"));
    assert!(!accepts(&with(ACCEPT, "*/*"), "text/event-stream"));
}

#[test]
fn shapes_say_what_a_post_carries() {
    let s = Shape::of(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
    assert!(s.initialize && s.requests.len() == 1 && s.invalid.is_none());
    let s = Shape::of(
        br#"[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"n"}]"#,
    );
    assert_eq!(s.requests, vec![mcpspec_wire::Id::from("a")]);
    assert!(!s.initialize);
    let s = Shape::of(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert!(s.requests.is_empty() && s.invalid.is_none());
    assert_eq!(Shape::of(b"{").invalid.map(|(c, _)| c), Some(-32700));
    assert_eq!(
        Shape::of(br#"{"id":1}"#).invalid.map(|(c, _)| c),
        Some(-32600)
    );
}
