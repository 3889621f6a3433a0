//! Invariant checker for the `sse` fuzz target (and the corpus test that
//! replays `fuzz/corpus/sse/` on stable).
//!
//! [`check_chunking`] panics only when [`SseDecoder`] breaks an invariant:
//!
//! - any chunking of the same bytes (with or without draining between pushes)
//!   gives the same events and errors, raw bytes included;
//! - the decoder agrees with a one-pass reference model of the WHATWG rules
//!   (when the limit cannot be reached);
//! - every event has a type, no CR in its data, no NUL in its id, raw bytes
//!   that occur in the stream and stay within the limit;
//! - an event survives [`encode_event`] → decode unchanged (type, data, id).
//!
//! Input layout (see [`sse_input`], which builds one), as for `framing`:
//!
//! ```text
//!   byte 0      event limit: 0 → DEFAULT_MAX_EVENT, 1..=127 → itself,
//!               128..=255 → 127 + 8·(b − 127)
//!   byte 1      k = b % 32 chunk specs follow (k = 0: one byte at a time)
//!   k bytes     chunk specs, used cyclically: low 7 bits = chunk length
//!               (0 = an empty push), high bit = do not drain after this push
//!   rest        the event stream
//! ```

use super::{decode_all, encode_event, SseDecoder, SseError, SseErrorKind, SseEvent};
use super::{BOM, DEFAULT_MAX_EVENT};
use crate::fuzzing::{limit_for, Chunked};

type Decoded = Vec<Result<SseEvent, SseError>>;

fn max_event_for(selector: u8) -> usize {
    limit_for(selector, DEFAULT_MAX_EVENT)
}

/// Builds a [`check_chunking`] input: a limit selector, chunk specs (at most
/// 31) and the stream.
pub fn sse_input(limit_selector: u8, chunks: &[u8], stream: &[u8]) -> Vec<u8> {
    Chunked::build(limit_selector, chunks, stream)
}

/// Fuzz check: chunking invariance, reference model and round trip of
/// [`SseDecoder`].
pub fn check_chunking(data: &[u8]) {
    let Some(input) = Chunked::parse(data) else {
        return;
    };
    let (specs, stream) = (input.specs, input.stream);
    let max_event = max_event_for(input.selector);

    let whole = decode_all(stream, max_event);
    let chunked = decode_chunked(&input, max_event);
    assert_eq!(
        chunked, whole,
        "chunked decoding differs (limit {max_event}, specs {specs:?})"
    );
    if stream.len() <= max_event {
        let got: Vec<Shape> = whole.iter().map(shape).collect();
        assert_eq!(
            got,
            model(stream),
            "decoder differs from the reference model"
        );
    }
    for item in &whole {
        let event = match item {
            Ok(e) => e,
            Err(SseError {
                kind: SseErrorKind::InvalidUtf8 { event: Some(e), .. },
                ..
            }) => e,
            Err(_) => continue,
        };
        assert!(!event.event.is_empty(), "event without a type");
        assert!(!event.data.contains('\r'), "data contains a CR");
        assert!(!event.last_event_id.contains('\0'), "id contains NUL");
        assert!(event.raw.len() <= max_event + 1, "raw over the limit");
        assert!(
            stream.windows(event.raw.len()).any(|w| w == event.raw),
            "raw bytes not from the stream"
        );
        let again = decode_all(
            &encode_event(&event.event, event.id.as_deref(), &event.data),
            DEFAULT_MAX_EVENT,
        );
        let [Ok(back)] = again.as_slice() else {
            panic!("encoded event does not decode to one event: {again:?}");
        };
        assert_eq!(
            (&back.event, &back.data, &back.id),
            (&event.event, &event.data, &event.id),
            "round trip changed the event"
        );
    }
}

fn decode_chunked(input: &Chunked<'_>, max_event: usize) -> Decoded {
    let mut d = SseDecoder::new(max_event);
    let mut out = Vec::new();
    for (piece, drained) in input.pieces() {
        d.push(piece);
        if drained {
            out.extend(std::iter::from_fn(|| d.next()));
        }
        // An oversize event is dropped, not buffered.
        assert!(
            d.pending() <= max_event + 1,
            "decoder buffers {} bytes over a {max_event}-byte limit",
            d.pending()
        );
    }
    d.finish();
    out.extend(std::iter::from_fn(|| d.next()));
    out
}

/// What the model can predict: everything but raw bytes and offsets.
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    Event(String, String, Option<String>, String, Option<u64>),
    BadUtf8(Option<Box<Shape>>),
    Oversize,
    Truncated,
}

fn event_shape(e: &SseEvent) -> Shape {
    Shape::Event(
        e.event.clone(),
        e.data.clone(),
        e.id.clone(),
        e.last_event_id.clone(),
        e.retry,
    )
}

fn shape(item: &Result<SseEvent, SseError>) -> Shape {
    match item {
        Ok(e) => event_shape(e),
        Err(e) => match &e.kind {
            SseErrorKind::InvalidUtf8 { event, .. } => {
                Shape::BadUtf8(event.as_ref().map(|e| Box::new(event_shape(e))))
            }
            SseErrorKind::Oversize { .. } => Shape::Oversize,
            SseErrorKind::Truncated => Shape::Truncated,
        },
    }
}

/// The WHATWG algorithm written as plainly as possible over the whole body.
fn model(stream: &[u8]) -> Vec<Shape> {
    let stream = stream.strip_prefix(BOM).unwrap_or(stream);
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < stream.len() {
        if stream[i] == b'\r' || stream[i] == b'\n' {
            lines.push(&stream[start..i]);
            if stream[i] == b'\r' && stream.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    let tail = &stream[start..];

    let mut out = Vec::new();
    let (mut data, mut kind, mut id_buf, mut last_id) =
        (String::new(), String::new(), String::new(), String::new());
    let (mut block_id, mut block_retry, mut fields, mut bad) = (None, None, false, false);
    for line in lines {
        if line.is_empty() {
            last_id.clone_from(&id_buf);
            let event = (!data.is_empty()).then(|| {
                data.pop();
                let kind = if kind.is_empty() { "message" } else { &kind };
                Shape::Event(
                    kind.to_owned(),
                    data.clone(),
                    block_id.clone(),
                    last_id.clone(),
                    block_retry,
                )
            });
            match (bad, event) {
                (true, e) => out.push(Shape::BadUtf8(e.map(Box::new))),
                (false, Some(e)) => out.push(e),
                (false, None) => {}
            }
            (data, kind, block_id, block_retry, fields, bad) =
                (String::new(), String::new(), None, None, false, false);
            continue;
        }
        bad |= std::str::from_utf8(line).is_err();
        let text = String::from_utf8_lossy(line);
        if text.starts_with(':') {
            continue;
        }
        fields = true;
        let (name, value) = match text.find(':') {
            Some(c) => {
                let v = &text[c + 1..];
                (&text[..c], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (&text[..], ""),
        };
        match name {
            "event" => kind = value.to_owned(),
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "id" if !value.contains('\0') => {
                id_buf = value.to_owned();
                block_id = Some(value.to_owned());
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                block_retry = Some(value.parse().unwrap_or(u64::MAX));
            }
            _ => {}
        }
    }
    if fields || !tail.is_empty() {
        out.push(Shape::Truncated);
    }
    out
}
