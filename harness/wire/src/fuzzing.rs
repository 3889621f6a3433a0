//! Invariant checkers for the fuzz targets in `fuzz/` (and for the corpus
//! tests that replay `fuzz/corpus/*` on stable).
//!
//! Each checker takes arbitrary bytes, never panics on its own account, and
//! panics (assertion failure) only when the code under test breaks an
//! invariant. A fuzz target is one line calling one of these, so the very
//! same check runs under libFuzzer and in `cargo test` (the rustls pattern:
//! `rustls/src/msgs/mod.rs::fuzzing`).
//!
//! - [`framing`]: [`NdjsonDecoder`] gives the same frames and errors for any
//!   chunking of the same bytes, agrees with a one-pass reference model of
//!   the format, and never yields a frame containing `\n`.
//! - [`jsonrpc`]: [`classify`] never panics; a valid message survives
//!   `classify → to_json → classify` unchanged (element-wise for batches);
//!   an invalid one has a stable name and a readable one-line description.
//!
//! Input layout of [`framing`] (see [`framing_input`], which builds one):
//!
//! ```text
//!   byte 0      line limit: 0 → DEFAULT_MAX_LINE, 1..=127 → itself,
//!               128..=255 → 127 + 8·(b − 127) (up to 1143, past FrameError::KEPT)
//!   byte 1      k = b % 32 chunk specs follow (k = 0: feed one byte at a time)
//!   k bytes     chunk specs, used cyclically: low 7 bits = chunk length
//!               (0 = an empty push), high bit = do not drain after this push
//!   rest        the byte stream
//! ```

use crate::framing::{Frame, FrameError, FrameErrorKind, NdjsonDecoder, DEFAULT_MAX_LINE};
use crate::jsonrpc::{classify, Inbound, Invalid, InvalidKind, Message};

type Decoded = Vec<Result<Frame, FrameError>>;

/// The line limit byte 0 of a [`framing`] input selects.
fn max_line_for(selector: u8) -> usize {
    limit_for(selector, DEFAULT_MAX_LINE)
}

/// The size limit a selector byte stands for (shared by the chunked-stream
/// checkers): 0 → `default`, 1..=127 → itself, 128..=255 → 127 + 8·(b − 127).
pub(crate) fn limit_for(selector: u8, default: usize) -> usize {
    match selector {
        0 => default,
        1..=127 => usize::from(selector),
        _ => 127 + 8 * (usize::from(selector) - 127),
    }
}

/// A chunked-stream input: a limit selector, chunk specs, the stream.
pub(crate) struct Chunked<'a> {
    pub selector: u8,
    pub specs: &'a [u8],
    pub stream: &'a [u8],
}

impl<'a> Chunked<'a> {
    /// Reads the layout of the module docs; `None` for fewer than two bytes.
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let [selector, count, rest @ ..] = data else {
            return None;
        };
        let k = usize::from(count % 32).min(rest.len());
        let (specs, stream) = rest.split_at(k);
        Some(Chunked {
            selector: *selector,
            specs,
            stream,
        })
    }

    /// Writes the layout (at most 31 chunk specs are kept).
    pub fn build(selector: u8, specs: &[u8], stream: &[u8]) -> Vec<u8> {
        let specs = &specs[..specs.len().min(31)];
        let mut out = Vec::with_capacity(2 + specs.len() + stream.len());
        out.push(selector);
        out.push(u8::try_from(specs.len()).unwrap_or(31));
        out.extend_from_slice(specs);
        out.extend_from_slice(stream);
        out
    }

    /// The pieces the stream is pushed in, and after each whether the
    /// decoder is drained: specs used cyclically, low 7 bits the length, the
    /// high bit "do not drain"; no spec that moves forward means one byte at
    /// a time.
    pub fn pieces(&self) -> Vec<(&'a [u8], bool)> {
        let specs: &[u8] = if self.specs.iter().all(|s| s & 0x7f == 0) {
            &[1]
        } else {
            self.specs
        };
        let stream = self.stream;
        let mut out = Vec::new();
        let mut at = 0;
        for spec in specs.iter().cycle() {
            if at >= stream.len() {
                break;
            }
            let len = usize::from(spec & 0x7f).min(stream.len() - at);
            out.push((&stream[at..at + len], spec & 0x80 == 0));
            at += len;
        }
        out
    }
}

/// Builds a [`framing`] input: a limit selector, chunk specs (at most 31; see
/// the module docs for their encoding) and the stream.
pub fn framing_input(limit_selector: u8, chunks: &[u8], stream: &[u8]) -> Vec<u8> {
    Chunked::build(limit_selector, chunks, stream)
}

/// Fuzz check: chunking invariance and format model of [`NdjsonDecoder`].
pub fn framing(data: &[u8]) {
    let Some(input) = Chunked::parse(data) else {
        return;
    };
    let (specs, stream) = (input.specs, input.stream);
    let max_line = max_line_for(input.selector);

    let whole = decode_whole(stream, max_line);
    let chunked = decode_chunked(&input, max_line);
    assert_eq!(
        chunked, whole,
        "chunked decoding differs from whole decoding (limit {max_line}, specs {specs:?})"
    );
    let model = reference_model(stream, max_line);
    assert_eq!(
        whole, model,
        "decoder differs from the reference model (limit {max_line})"
    );

    let mut last_line = 0;
    for item in &whole {
        let line = match item {
            Ok(frame) => {
                assert!(!frame.bytes.contains(&b'\n'), "frame contains a newline");
                assert!(
                    std::str::from_utf8(&frame.bytes).is_ok(),
                    "frame is not UTF-8"
                );
                assert!(
                    !frame.bytes.iter().all(u8::is_ascii_whitespace),
                    "blank frame emitted"
                );
                frame.line
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                if let FrameErrorKind::Oversize { .. } = e.kind {
                    assert!(
                        e.bytes.len() <= FrameError::KEPT,
                        "oversize prefix too long"
                    );
                }
                e.line
            }
        };
        assert!(line > last_line, "line numbers must increase");
        last_line = line;
    }
}

fn drain(d: &mut NdjsonDecoder, out: &mut Decoded) {
    while let Some(item) = d.next() {
        out.push(item);
    }
}

fn decode_whole(stream: &[u8], max_line: usize) -> Decoded {
    let mut d = NdjsonDecoder::new(max_line);
    let mut out = Vec::new();
    d.push(stream);
    d.finish();
    drain(&mut d, &mut out);
    // A finished decoder stays finished: more polling yields nothing.
    assert!(d.next().is_none(), "decoder yields after EOF was drained");
    out
}

fn decode_chunked(input: &Chunked<'_>, max_line: usize) -> Decoded {
    let mut d = NdjsonDecoder::new(max_line);
    let mut out = Vec::new();
    for (piece, drained) in input.pieces() {
        d.push(piece);
        if drained {
            drain(&mut d, &mut out);
            // Once drained, the decoder holds at most one line's worth of an
            // incomplete line (plus room for a CR): oversize bytes are dropped.
            assert!(
                d.pending() <= max_line.saturating_add(1),
                "decoder buffers {} bytes of an incomplete line over a {max_line}-byte limit",
                d.pending()
            );
        }
    }
    drain(&mut d, &mut out);
    d.finish();
    drain(&mut d, &mut out);
    out
}

/// The format as the module docs of [`crate::framing`] state it, decoded in
/// one pass over the whole stream.
fn reference_model(stream: &[u8], max_line: usize) -> Decoded {
    let mut out = Vec::new();
    let mut line = 0u64;
    let mut segments: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    // `split` always yields a last segment: the bytes after the last `\n`.
    let tail = segments.pop().unwrap_or_default();
    for raw in segments {
        line += 1;
        let (content, crlf) = match raw.strip_suffix(b"\r") {
            Some(c) => (c, true),
            None => (raw, false),
        };
        if content.len() > max_line {
            out.push(Err(FrameError {
                kind: FrameErrorKind::Oversize {
                    len: raw.len(),
                    limit: max_line,
                },
                line,
                bytes: raw[..raw.len().min(FrameError::KEPT)].to_vec(),
            }));
        } else if content.iter().all(u8::is_ascii_whitespace) {
            continue;
        } else {
            out.push(match std::str::from_utf8(content) {
                Ok(_) => Ok(Frame {
                    bytes: content.to_vec(),
                    line,
                    crlf,
                }),
                Err(e) => Err(FrameError {
                    kind: FrameErrorKind::InvalidUtf8 {
                        valid_up_to: e.valid_up_to(),
                    },
                    line,
                    bytes: content.to_vec(),
                }),
            });
        }
    }
    // An unterminated tail: too long already (room left for a CR), or a
    // truncated line unless it is only whitespace.
    if tail.len() > max_line + 1 {
        out.push(Err(FrameError {
            kind: FrameErrorKind::Oversize {
                len: tail.len(),
                limit: max_line,
            },
            line: line + 1,
            bytes: tail[..tail.len().min(FrameError::KEPT)].to_vec(),
        }));
    } else if !tail.iter().all(u8::is_ascii_whitespace) {
        out.push(Err(FrameError {
            kind: FrameErrorKind::Truncated,
            line: line + 1,
            bytes: tail.to_vec(),
        }));
    }
    out
}

/// Fuzz check: [`classify`] on one frame's bytes.
pub fn jsonrpc(data: &[u8]) {
    let parses = serde_json::from_slice::<serde_json::Value>(data).is_ok();
    match classify(data) {
        Ok(Inbound::Single(m)) => round_trip(&m),
        Ok(Inbound::Batch(items)) => {
            assert!(!items.is_empty(), "an empty batch classified as valid");
            let mut valid = Vec::new();
            for item in &items {
                match item {
                    Ok(m) => {
                        round_trip(m);
                        valid.push(m.to_value());
                    }
                    Err(e) => readable(e, false),
                }
            }
            // The valid elements, re-sent as a batch, classify the same.
            if !valid.is_empty() {
                let text = serde_json::Value::Array(valid).to_string();
                let Ok(Inbound::Batch(again)) = classify(text.as_bytes()) else {
                    panic!("re-serialized batch is not a batch: {text}");
                };
                let before: Vec<&Message> = items.iter().filter_map(|i| i.as_ref().ok()).collect();
                let after: Vec<&Message> = again.iter().filter_map(|i| i.as_ref().ok()).collect();
                assert_eq!(before, after, "batch changed in a round trip");
                assert_eq!(again.len(), after.len(), "a valid element became invalid");
            }
        }
        Err(e) => readable(&e, !parses),
    }
}

/// `classify(m.to_json())` gives `m` back, and serialization is a fixed point.
fn round_trip(m: &Message) {
    let text = m.to_json();
    assert!(
        !text.contains('\n'),
        "serialized message contains a newline"
    );
    assert!(!m.describe().is_empty());
    match classify(text.as_bytes()) {
        Ok(Inbound::Single(again)) => {
            assert_eq!(&again, m, "message changed in a round trip through {text}");
            assert_eq!(again.to_json(), text, "serialization is not stable");
        }
        other => panic!("{text} no longer classifies as the same message: {other:?}"),
    }
}

/// An invalid message has a snake_case name and a one-line description.
fn readable(e: &Invalid, parse_error: bool) {
    let name = e.kind.name();
    assert!(
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
        "kind name {name:?} is not snake_case"
    );
    let text = e.to_string();
    assert!(
        !text.is_empty() && !text.contains('\n'),
        "description of {name} is not one line: {text:?}"
    );
    assert_eq!(
        e.kind.is_parse_error(),
        parse_error,
        "{name}: parse-error class disagrees with serde_json"
    );
    if let InvalidKind::NotJson { line, .. } = &e.kind {
        assert!(*line >= 1, "not_json at line 0");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_input_round_trips_its_layout() {
        let input = framing_input(5, &[3, 0x81], b"{}\n{\"a\":1}\r\n\nxx");
        assert_eq!(&input[..4], &[5, 2, 3, 0x81]);
        framing(&input);
        for limit in [0, 1, 2, 3, 127, 128, 255] {
            framing(&framing_input(
                limit,
                &[],
                b"{}\n  \n\xff\n{\"a\":\"b\"}\r\n tail",
            ));
        }
    }

    #[test]
    fn jsonrpc_checks_hold_for_every_kind_of_message() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":true}]"#,
            r#"{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}"#,
            "[]",
            "[[]]",
            "{",
            "nope",
            "",
        ] {
            jsonrpc(text.as_bytes());
        }
    }
}
