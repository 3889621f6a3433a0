//! Server-sent events (`text/event-stream`) decoding, sans-IO.
//!
//! Both HTTP transports of MCP carry JSON-RPC messages as SSE events: the
//! legacy 2024-11-05 transport on its one GET stream, Streamable HTTP on POST
//! response streams and the optional GET stream. [`SseDecoder`] turns any
//! chunking of such a body into the same sequence of [`SseEvent`]s and
//! [`SseError`]s — chunking invariance is what the `sse` fuzz target checks
//! ([`check_chunking`]).
//!
//! The parsing rules are the WHATWG HTML "event stream interpretation":
//!
//! | input                                   | result                                          |
//! |-----------------------------------------|-------------------------------------------------|
//! | UTF-8 BOM at the very start             | skipped (once)                                  |
//! | CR, LF or CRLF line endings             | all end a line (a CRLF split over reads too)    |
//! | `:comment`                              | ignored                                         |
//! | `field:value`, `field: value`           | one leading space of the value stripped         |
//! | `field` (no colon)                      | the field with an empty value                   |
//! | `data`                                  | value + `\n` appended to the data buffer        |
//! | `event`                                 | sets the event type (default `message`)        |
//! | `id`                                    | sets the last event id, unless it contains NUL  |
//! | `retry`                                 | reconnection time, only when all ASCII digits   |
//! | any other field                         | ignored                                         |
//! | blank line                              | dispatch; the final `\n` of the data removed    |
//! | blank line with an empty data buffer    | nothing dispatched (id and retry still apply)   |
//! | end of stream inside an event           | not dispatched: [`SseErrorKind::Truncated`]     |
//!
//! The last event id persists across events until an `id` field changes it
//! (an empty `id` resets it), as for `EventSource.lastEventId`.
//!
//! Two departures from a browser, both because this is a conformance harness:
//!
//! - **Invalid UTF-8 is an error, not silently replaced.** The event is still
//!   decoded (lossily, U+FFFD, exactly as a browser would) and handed over
//!   inside [`SseErrorKind::InvalidUtf8`], so the caller can both report the
//!   violation and see what a browser would have seen.
//! - **Events are bounded.** An event whose bytes exceed the limit is dropped
//!   (only a prefix is kept for the report) and reported as
//!   [`SseErrorKind::Oversize`] when its blank line arrives; decoding goes on
//!   with the next event.
//!
//! Every event keeps its raw bytes ([`SseEvent::raw`]): the lines of its block
//! (comments included) up to and including the first byte of the blank
//! line's terminator. The `LF` of a CRLF that ends the dispatching blank line
//! belongs to no event: the decoder dispatches at the `CR` instead of waiting
//! for a byte that a CR-only server would never send. A leading BOM is not
//! part of any event either.

use std::collections::VecDeque;
use std::fmt;

/// Default bound on one event's bytes: 16 MiB (as the ndjson line limit).
pub const DEFAULT_MAX_EVENT: usize = 16 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched event.
#[derive(Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the `event` field, or `message`.
    pub event: String,
    /// The data lines joined with `\n`.
    pub data: String,
    /// The `id` field of this event's block, when it had a valid one.
    pub id: Option<String>,
    /// The stream's last event id at dispatch (persists across events).
    pub last_event_id: String,
    /// The `retry` field of this event's block, when it had a valid one.
    pub retry: Option<u64>,
    /// The block's bytes as received (see the module docs for the bounds).
    pub raw: Vec<u8>,
}

impl fmt::Debug for SseEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseEvent")
            .field("event", &self.event)
            .field("data", &self.data)
            .field("id", &self.id)
            .field("last_event_id", &self.last_event_id)
            .field("retry", &self.retry)
            .field("raw", &String::from_utf8_lossy(&self.raw))
            .finish()
    }
}

/// A stream violation; decoding continues after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseError {
    pub kind: SseErrorKind,
    /// The block's bytes; for `Oversize`, only the first [`SseError::KEPT`].
    pub raw: Vec<u8>,
}

impl SseError {
    /// How many bytes of an oversize event are kept for the report.
    pub const KEPT: usize = 256;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseErrorKind {
    /// The block held invalid UTF-8 at byte `valid_up_to` of `raw`. `event`
    /// is what a browser would have dispatched (lossily decoded), if anything.
    InvalidUtf8 {
        valid_up_to: usize,
        event: Option<Box<SseEvent>>,
    },
    /// The block exceeded the limit; `len` is its length up to its blank line
    /// (or the length seen at the end of the stream).
    Oversize { len: usize, limit: usize },
    /// The stream ended inside an event (fields or an unterminated line
    /// without the blank line that dispatches them).
    Truncated,
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SseErrorKind::InvalidUtf8 { valid_up_to, .. } => write!(
                f,
                "event stream is not valid UTF-8 (invalid byte at offset {valid_up_to} of the event)"
            ),
            SseErrorKind::Oversize { len, limit } => {
                write!(f, "event is {len} bytes long, over the {limit}-byte limit")
            }
            SseErrorKind::Truncated => write!(
                f,
                "stream ended inside an event ({} bytes without the blank line that dispatches it)",
                self.raw.len()
            ),
        }
    }
}

impl std::error::Error for SseError {}

/// What to do with an `LF` right after a `CR` line end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PendingLf {
    None,
    /// The CR ended a line inside a block: the LF joins the block's raw bytes.
    InBlock,
    /// The CR ended the block: the LF is dropped.
    AfterBlock,
}

/// Discarding the rest of an oversize block.
#[derive(Debug)]
struct Skipping {
    prefix: Vec<u8>,
    len: usize,
    /// Length of the current line (to recognise the blank line).
    line_len: usize,
}

/// Incremental SSE decoder. Push bytes with [`SseDecoder::push`], pull results
/// with [`SseDecoder::next`]; call [`SseDecoder::finish`] at the end of the body.
#[derive(Debug)]
pub struct SseDecoder {
    max_event: usize,
    /// `Some` until the first three bytes decided whether there is a BOM.
    bom: Option<Vec<u8>>,
    /// Raw bytes of the current block, including the current partial line.
    block: Vec<u8>,
    /// Start of the current line in `block`.
    line_start: usize,
    pending_lf: PendingLf,
    skipping: Option<Skipping>,
    data: String,
    event_type: String,
    /// Set by `id` fields at once; copied to `last_event_id` at each blank line.
    id_buffer: String,
    last_event_id: String,
    block_id: Option<String>,
    block_retry: Option<u64>,
    retry: Option<u64>,
    /// A non-comment line was seen in the current block.
    fields: bool,
    /// First invalid UTF-8 offset in the current block.
    bad_utf8: Option<usize>,
    out: VecDeque<Result<SseEvent, SseError>>,
    finished: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_EVENT)
    }
}

impl SseDecoder {
    /// A decoder that drops events longer than `max_event` bytes.
    pub fn new(max_event: usize) -> Self {
        SseDecoder {
            max_event: max_event.max(1),
            bom: Some(Vec::new()),
            block: Vec::new(),
            line_start: 0,
            pending_lf: PendingLf::None,
            skipping: None,
            data: String::new(),
            event_type: String::new(),
            id_buffer: String::new(),
            last_event_id: String::new(),
            block_id: None,
            block_retry: None,
            retry: None,
            fields: false,
            bad_utf8: None,
            out: VecDeque::new(),
            finished: false,
        }
    }

    /// The stream's last event id as of the last blank line (empty when none
    /// was set): what a reconnection sends as `Last-Event-ID`.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time the server asked for, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Bytes of the current, not yet dispatched event held in memory.
    pub fn pending(&self) -> usize {
        self.block.len()
    }

    /// Appends bytes of the body. Ignored after [`SseDecoder::finish`].
    pub fn push(&mut self, mut bytes: &[u8]) {
        if self.finished {
            return;
        }
        if let Some(held) = &mut self.bom {
            let take = (BOM.len() - held.len()).min(bytes.len());
            held.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if BOM.starts_with(held) {
                if held.len() < BOM.len() {
                    return;
                }
                self.bom = None;
            } else {
                let held = std::mem::take(held);
                self.bom = None;
                self.feed(&held);
            }
        }
        self.feed(bytes);
    }

    /// Marks the end of the body: an event without its blank line becomes a
    /// `Truncated` error (an oversize one an `Oversize` error).
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        if let Some(held) = self.bom.take() {
            self.feed(&held);
        }
        self.finished = true;
        if let Some(skip) = self.skipping.take() {
            self.out.push_back(Err(SseError {
                kind: SseErrorKind::Oversize {
                    len: skip.len,
                    limit: self.max_event,
                },
                raw: skip.prefix,
            }));
        } else if self.fields || self.line_start < self.block.len() {
            let raw = std::mem::take(&mut self.block);
            self.out.push_back(Err(SseError {
                kind: SseErrorKind::Truncated,
                raw,
            }));
        }
        self.reset_block();
    }

    /// Next event or error, or `None` when more bytes are needed.
    #[allow(clippy::should_implement_trait)] // not an Iterator: `None` means "need more input"
    pub fn next(&mut self) -> Option<Result<SseEvent, SseError>> {
        self.out.pop_front()
    }

    fn feed(&mut self, input: &[u8]) {
        let mut i = 0;
        while i < input.len() {
            let lf = std::mem::replace(&mut self.pending_lf, PendingLf::None);
            if input[i] == b'\n' && lf != PendingLf::None {
                if lf == PendingLf::InBlock {
                    self.append(b"\n");
                    if self.skipping.is_none() {
                        self.line_start = self.block.len();
                    }
                }
                i += 1;
                continue;
            }
            match input[i..].iter().position(|&b| b == b'\r' || b == b'\n') {
                None => {
                    self.append(&input[i..]);
                    return;
                }
                Some(p) => {
                    self.append(&input[i..i + p]);
                    let cr = input[i + p] == b'\r';
                    let ended_block = self.end_line(input[i + p]);
                    if cr {
                        self.pending_lf = if ended_block {
                            PendingLf::AfterBlock
                        } else {
                            PendingLf::InBlock
                        };
                    }
                    i += p + 1;
                }
            }
        }
    }

    /// Appends bytes of the current line (or a mid-block LF) to the block.
    fn append(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if let Some(skip) = &mut self.skipping {
            Self::skip_bytes(skip, bytes);
            if bytes != b"\n" {
                skip.line_len += bytes.len();
            }
            return;
        }
        if self.block.len() + bytes.len() > self.max_event {
            let mut skip = Skipping {
                prefix: Vec::new(),
                len: 0,
                line_len: self.block.len() - self.line_start,
            };
            let block = std::mem::take(&mut self.block);
            Self::skip_bytes(&mut skip, &block);
            Self::skip_bytes(&mut skip, bytes);
            if bytes != b"\n" {
                skip.line_len += bytes.len();
            }
            self.line_start = 0;
            self.skipping = Some(skip);
            return;
        }
        self.block.extend_from_slice(bytes);
    }

    fn skip_bytes(skip: &mut Skipping, bytes: &[u8]) {
        let take = (SseError::KEPT - skip.prefix.len()).min(bytes.len());
        skip.prefix.extend_from_slice(&bytes[..take]);
        skip.len += bytes.len();
    }

    /// Handles a line terminator; true when it ended the block.
    fn end_line(&mut self, terminator: u8) -> bool {
        if let Some(skip) = &mut self.skipping {
            Self::skip_bytes(skip, &[terminator]);
            if skip.line_len > 0 {
                skip.line_len = 0;
                return false;
            }
            self.last_event_id.clone_from(&self.id_buffer);
            if let Some(skip) = self.skipping.take() {
                self.out.push_back(Err(SseError {
                    kind: SseErrorKind::Oversize {
                        len: skip.len,
                        limit: self.max_event,
                    },
                    raw: skip.prefix,
                }));
            }
            self.reset_block();
            return true;
        }
        if self.line_start == self.block.len() {
            self.block.push(terminator);
            self.dispatch();
            return true;
        }
        let line = self.block[self.line_start..].to_vec();
        if let Err(e) = std::str::from_utf8(&line) {
            self.bad_utf8
                .get_or_insert(self.line_start + e.valid_up_to());
        }
        self.field(&String::from_utf8_lossy(&line));
        // Counted against the limit as any other byte of the block.
        self.append(&[terminator]);
        if self.skipping.is_none() {
            self.line_start = self.block.len();
        } else if let Some(skip) = &mut self.skipping {
            // The terminator pushed the block over: it ended the line.
            skip.line_len = 0;
        }
        false
    }

    fn field(&mut self, line: &str) {
        if line.starts_with(':') {
            return;
        }
        self.fields = true;
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            "event" => value.clone_into(&mut self.event_type),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => {
                value.clone_into(&mut self.id_buffer);
                self.block_id = Some(value.to_owned());
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                let ms = value.parse().unwrap_or(u64::MAX);
                self.retry = Some(ms);
                self.block_retry = Some(ms);
            }
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        self.last_event_id.clone_from(&self.id_buffer);
        let raw = std::mem::take(&mut self.block);
        let event = if self.data.is_empty() {
            None
        } else {
            let mut data = std::mem::take(&mut self.data);
            data.pop(); // the `\n` after the last data line
            let event = if self.event_type.is_empty() {
                "message".to_owned()
            } else {
                std::mem::take(&mut self.event_type)
            };
            Some(SseEvent {
                event,
                data,
                id: self.block_id.take(),
                last_event_id: self.last_event_id.clone(),
                retry: self.block_retry.take(),
                raw: Vec::new(),
            })
        };
        match (self.bad_utf8.take(), event) {
            (Some(valid_up_to), event) => self.out.push_back(Err(SseError {
                kind: SseErrorKind::InvalidUtf8 {
                    valid_up_to,
                    event: event.map(|e| {
                        Box::new(SseEvent {
                            raw: raw.clone(),
                            ..e
                        })
                    }),
                },
                raw,
            })),
            (None, Some(event)) => self.out.push_back(Ok(SseEvent { raw, ..event })),
            (None, None) => {}
        }
        self.reset_block();
    }

    fn reset_block(&mut self) {
        self.block.clear();
        self.line_start = 0;
        self.data.clear();
        self.event_type.clear();
        self.block_id = None;
        self.block_retry = None;
        self.fields = false;
        self.bad_utf8 = None;
    }
}

/// Encodes an event canonically: `event:` unless it is `message`, `id:` when
/// given, one `data:` line per line of `data`, then a blank line. Data with
/// CR line breaks is split on them too (SSE cannot carry a bare CR).
pub fn encode_event(event: &str, id: Option<&str>, data: &str) -> Vec<u8> {
    let mut out = String::new();
    if event != "message" {
        out.push_str("event: ");
        out.push_str(event);
        out.push('\n');
    }
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(id);
        out.push('\n');
    }
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line.trim_end_matches('\r'));
        out.push('\n');
    }
    out.push('\n');
    out.into_bytes()
}

/// Decodes a whole body at once (for tests and raw exchanges).
pub fn decode_all(body: &[u8], max_event: usize) -> Vec<Result<SseEvent, SseError>> {
    let mut d = SseDecoder::new(max_event);
    d.push(body);
    d.finish();
    std::iter::from_fn(|| d.next()).collect()
}

mod fuzzing;
pub use fuzzing::{check_chunking, sse_input};

#[cfg(test)]
mod tests;
