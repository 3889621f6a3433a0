//! One test per WHATWG event-stream rule, then chunking invariance.

use super::*;

fn events(body: &[u8]) -> Vec<Result<SseEvent, SseError>> {
    decode_all(body, DEFAULT_MAX_EVENT)
}

/// (type, data) of each item; errors as `err:<kind>`.
fn summary(body: &[u8]) -> Vec<String> {
    events(body)
        .iter()
        .map(|r| match r {
            Ok(e) => format!("{}={}", e.event, e.data),
            Err(e) => match &e.kind {
                SseErrorKind::InvalidUtf8 { .. } => "err:utf8".to_owned(),
                SseErrorKind::Oversize { len, .. } => format!("err:oversize:{len}"),
                SseErrorKind::Truncated => "err:truncated".to_owned(),
            },
        })
        .collect()
}

fn only(body: &[u8]) -> SseEvent {
    let mut all = events(body);
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0).expect("an event")
}

#[test]
fn event_type_defaults_to_message() {
    let e = only(b"data: {}\n\n");
    assert_eq!((e.event.as_str(), e.data.as_str()), ("message", "{}"));
    assert_eq!(e.raw, b"data: {}\n\n");
}

#[test]
fn event_field_sets_the_type_for_one_event() {
    assert_eq!(
        summary(b"event: endpoint\ndata: /m?s=1\n\ndata: x\n\n"),
        ["endpoint=/m?s=1", "message=x"]
    );
}

#[test]
fn data_lines_are_joined_with_newlines() {
    assert_eq!(only(b"data: a\ndata: b\ndata\n\n").data, "a\nb\n");
    assert_eq!(
        only(b"data\n\n").data,
        "",
        "a lone data line dispatches empty data"
    );
}

#[test]
fn only_one_leading_space_is_stripped() {
    assert_eq!(only(b"data:  two\n\n").data, " two");
    assert_eq!(only(b"data:none\n\n").data, "none");
    assert_eq!(only(b"data:\t tab\n\n").data, "\t tab");
}

#[test]
fn a_line_without_colon_is_a_field_with_empty_value() {
    let e = only(b"event\ndata: x\n\n");
    assert_eq!(e.event, "message", "empty event type means message");
}

#[test]
fn comments_are_ignored_but_kept_in_raw() {
    let e = only(b": keepalive\ndata: x\n:\n\n");
    assert_eq!(e.data, "x");
    assert_eq!(e.raw, b": keepalive\ndata: x\n:\n\n");
    assert!(events(b": only a comment\n\n").is_empty());
}

#[test]
fn unknown_fields_are_ignored() {
    assert_eq!(
        summary(b"foo: bar\nData: no\ndata: yes\n\n"),
        ["message=yes"]
    );
}

#[test]
fn empty_data_buffer_dispatches_nothing() {
    assert!(events(b"event: x\n\n").is_empty());
    assert!(events(b"\n\n\n").is_empty());
    // The event type does not leak into the next event.
    assert_eq!(summary(b"event: x\n\ndata: y\n\n"), ["message=y"]);
}

#[test]
fn cr_lf_and_crlf_all_end_lines() {
    for body in [
        &b"data: a\ndata: b\n\n"[..],
        b"data: a\rdata: b\r\r",
        b"data: a\r\ndata: b\r\n\r\n",
        b"data: a\r\ndata: b\n\r",
    ] {
        assert_eq!(summary(body), ["message=a\nb"], "{body:?}");
    }
}

#[test]
fn crlf_split_across_pushes_is_one_line_end() {
    let mut d = SseDecoder::default();
    d.push(b"data: a\r");
    d.push(b"\ndata: b\r");
    d.push(b"\n\r");
    let e = d.next().expect("dispatched at the CR").expect("event");
    assert_eq!(e.data, "a\nb");
    d.push(b"\ndata: c\n\n");
    let e = d.next().expect("second").expect("event");
    assert_eq!(
        e.data, "c",
        "the LF of the CRLF blank line is not a second blank line"
    );
    assert_eq!(e.raw, b"data: c\n\n");
    assert!(d.next().is_none());
}

#[test]
fn leading_bom_is_skipped_once() {
    assert_eq!(summary(b"\xEF\xBB\xBFdata: x\n\n"), ["message=x"]);
    // A second BOM is part of the first field's name, which is then unknown.
    assert!(events(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n").is_empty());
    // Split over pushes.
    let mut d = SseDecoder::default();
    for b in b"\xEF\xBB\xBFdata: y\n\n" {
        d.push(&[*b]);
    }
    assert_eq!(d.next().expect("event").expect("ok").data, "y");
    // Not a BOM: the bytes are kept.
    assert_eq!(summary(b"\xEF\xBBdata: z\n\n"), ["err:utf8"]);
}

#[test]
fn id_sets_last_event_id_which_persists() {
    let all = events(b"id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n");
    let ids: Vec<_> = all
        .iter()
        .map(|r| {
            let e = r.as_ref().expect("ok");
            (e.id.clone(), e.last_event_id.clone())
        })
        .collect();
    assert_eq!(
        ids,
        [
            (Some("7".to_owned()), "7".to_owned()),
            (None, "7".to_owned()),
            (Some(String::new()), String::new()),
        ]
    );
}

#[test]
fn id_with_nul_is_ignored() {
    let e = only(b"id: 1\n\nid: a\0b\ndata: x\n\n");
    assert_eq!(e.id, None);
    assert_eq!(
        e.last_event_id, "1",
        "an id-only block still sets the last event id"
    );
}

#[test]
fn last_event_id_changes_only_at_a_blank_line() {
    let mut d = SseDecoder::default();
    d.push(b"id: 1\ndata: a\n\nid: 2\ndata: b\n");
    assert_eq!(d.last_event_id(), "1");
    d.push(b"\n");
    assert_eq!(d.last_event_id(), "2");
}

#[test]
fn retry_needs_ascii_digits_only() {
    let mut d = SseDecoder::default();
    d.push(b"retry: 1500\ndata: a\n\nretry: 15x\ndata: b\n\nretry: -1\nretry:\ndata: c\n\n");
    let retries: Vec<_> = std::iter::from_fn(|| d.next())
        .map(|r| r.expect("ok").retry)
        .collect();
    assert_eq!(retries, [Some(1500), None, None]);
    assert_eq!(d.retry(), Some(1500));
}

#[test]
fn invalid_utf8_is_an_error_carrying_the_lossy_event() {
    let all = events(b"data: a\xFFb\n\ndata: ok\n\n");
    let Err(SseError {
        kind: SseErrorKind::InvalidUtf8 { valid_up_to, event },
        raw,
    }) = &all[0]
    else {
        panic!("expected an invalid UTF-8 error, got {all:?}");
    };
    assert_eq!(*valid_up_to, 7);
    assert_eq!(raw, b"data: a\xFFb\n\n");
    assert_eq!(event.as_ref().expect("lossy event").data, "a\u{FFFD}b");
    assert_eq!(all[1].as_ref().expect("recovers").data, "ok");
    // In a comment: still reported, nothing to dispatch.
    assert_eq!(summary(b": \xC0\n\n"), ["err:utf8"]);
}

#[test]
fn oversize_event_is_dropped_and_decoding_recovers() {
    let mut d = SseDecoder::new(16);
    d.push(b"data: 0123456789abcdef");
    assert!(d.pending() <= 16, "oversize bytes must not be buffered");
    d.push(b"more\ndata: x\n\ndata: ok\n\n");
    let all: Vec<_> = std::iter::from_fn(|| d.next()).collect();
    let Err(SseError {
        kind: SseErrorKind::Oversize { len, limit: 16 },
        raw,
    }) = &all[0]
    else {
        panic!("expected oversize, got {all:?}");
    };
    assert_eq!(*len, 36);
    assert!(raw.starts_with(b"data: 0123"));
    assert_eq!(all[1].as_ref().expect("recovers").data, "ok");
    assert_eq!(all.len(), 2);
}

#[test]
fn end_of_stream_inside_an_event_is_truncated() {
    assert_eq!(
        summary(b"data: a\n\ndata: b\n"),
        ["message=a", "err:truncated"]
    );
    assert_eq!(
        summary(b"data: a\n\ndata: b"),
        ["message=a", "err:truncated"]
    );
    // Only a comment pending: nothing lost.
    assert_eq!(summary(b"data: a\n\n: ping\n"), ["message=a"]);
}

#[test]
fn encode_event_round_trips() {
    let bytes = encode_event("endpoint", Some("4"), "line1\nline2");
    assert_eq!(
        bytes,
        b"event: endpoint\nid: 4\ndata: line1\ndata: line2\n\n"
    );
    let e = only(&bytes);
    assert_eq!(
        (e.event.as_str(), e.data.as_str(), e.id.as_deref()),
        ("endpoint", "line1\nline2", Some("4"))
    );
    assert_eq!(encode_event("message", None, ""), b"data: \n\n");
}

const MIXED: &[u8] = b"\xEF\xBB\xBF: hi\r\nid: 1\r\nevent: e\r\ndata: a\r\ndata:b\r\n\r\n\
retry: 10\rdata: c\r\rdata: \xFF\n\ndata: 0123456789012345678901234567890123456789\n\n\
id\ndata\n\ndata: last";

#[test]
fn any_split_gives_the_same_events() {
    let whole = decode_all(MIXED, 45);
    assert_eq!(whole.len(), 6, "{whole:?}");
    for a in 0..=MIXED.len() {
        for b in a..=MIXED.len() {
            let mut d = SseDecoder::new(45);
            let mut got = Vec::new();
            for part in [&MIXED[..a], &MIXED[a..b], &MIXED[b..]] {
                d.push(part);
                got.extend(std::iter::from_fn(|| d.next()));
            }
            d.finish();
            got.extend(std::iter::from_fn(|| d.next()));
            assert_eq!(got, whole, "split at {a} and {b}");
        }
    }
}

#[test]
fn checker_accepts_its_own_inputs() {
    for limit in [0, 5, 40, 200] {
        for chunks in [&[][..], &[1, 0x83, 7], &[0]] {
            check_chunking(&sse_input(limit, chunks, MIXED));
        }
    }
}
