//! Newline-delimited JSON framing (the MCP stdio transport).
//!
//! MCP's stdio transport sends one JSON-RPC message per line; messages MUST NOT
//! contain embedded newlines. The decoder turns an arbitrary chunking of a byte
//! stream into the same sequence of [`Frame`]s and [`FrameError`]s — that
//! chunking invariance is what the `framing` fuzz target checks.
//!
//! What the decoder does with awkward input:
//!
//! | input                              | result                                   |
//! |------------------------------------|------------------------------------------|
//! | several messages in one read       | several frames                           |
//! | a message split over reads         | buffered until its `\n`                  |
//! | `\r\n` line ending                 | a frame with `crlf: true` (CR stripped)  |
//! | blank / whitespace-only line       | skipped, counted in `blank_lines`        |
//! | invalid UTF-8 in a line            | `FrameErrorKind::InvalidUtf8`            |
//! | line longer than the limit         | `FrameErrorKind::Oversize`, line dropped |
//! | bytes after the last `\n` at EOF   | `FrameErrorKind::Truncated`              |
//!
//! A message broken across two lines is *not* repaired here: each half is a
//! frame of its own and classification reports it (`InvalidKind::IncompleteJson`).

use std::fmt;

/// Default limit for one line: 16 MiB.
pub const DEFAULT_MAX_LINE: usize = 16 * 1024 * 1024;

/// One complete line of the stream, without its terminator.
#[derive(Clone, PartialEq, Eq)]
pub struct Frame {
    /// The line's bytes, verbatim, without `\n` (and without the `\r` of a CRLF).
    pub bytes: Vec<u8>,
    /// 1-based line number in the stream (blank lines count).
    pub line: u64,
    /// The line ended in `\r\n` rather than `\n`.
    pub crlf: bool,
}

impl Frame {
    /// The frame as text. Frames are only produced for valid UTF-8.
    pub fn text(&self) -> &str {
        // Frames are only constructed after a successful UTF-8 check in `emit`.
        std::str::from_utf8(&self.bytes).unwrap_or("")
    }
}

impl fmt::Debug for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frame")
            .field("line", &self.line)
            .field("crlf", &self.crlf)
            .field("text", &String::from_utf8_lossy(&self.bytes))
            .finish()
    }
}

/// A framing violation, with the offending bytes kept (possibly cut to a prefix
/// for oversize lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError {
    pub kind: FrameErrorKind,
    /// 1-based line number of the offending line.
    pub line: u64,
    /// The offending bytes; for `Oversize`, only the first [`FrameError::KEPT`] bytes.
    pub bytes: Vec<u8>,
}

impl FrameError {
    /// How many bytes of an oversize line are kept for the report.
    pub const KEPT: usize = 256;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameErrorKind {
    /// The line is not valid UTF-8; `valid_up_to` bytes were.
    InvalidUtf8 { valid_up_to: usize },
    /// The line exceeded the limit; `len` is its full length once the newline
    /// arrived (or the length seen so far at EOF).
    Oversize { len: usize, limit: usize },
    /// The stream ended in the middle of a line.
    Truncated,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FrameErrorKind::InvalidUtf8 { valid_up_to } => write!(
                f,
                "line {} is not valid UTF-8 (invalid byte at offset {valid_up_to})",
                self.line
            ),
            FrameErrorKind::Oversize { len, limit } => write!(
                f,
                "line {} is {len} bytes long, over the {limit}-byte limit",
                self.line
            ),
            FrameErrorKind::Truncated => write!(
                f,
                "stream ended inside line {} ({} bytes without a terminating newline)",
                self.line,
                self.bytes.len()
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// Incremental ndjson decoder. Push bytes with [`NdjsonDecoder::push`], pull
/// results with [`NdjsonDecoder::next`]; call [`NdjsonDecoder::finish`] at EOF.
#[derive(Debug)]
pub struct NdjsonDecoder {
    buf: Vec<u8>,
    /// Start of the unconsumed part of `buf`.
    start: usize,
    /// Where to resume looking for `\n` (everything before has none).
    scan: usize,
    max_line: usize,
    /// Set while discarding the rest of an oversize line.
    skipping: Option<Skipping>,
    line: u64,
    blank_lines: u64,
    finished: bool,
}

#[derive(Debug)]
struct Skipping {
    prefix: Vec<u8>,
    len: usize,
}

impl Default for NdjsonDecoder {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE)
    }
}

impl NdjsonDecoder {
    pub fn new(max_line: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            scan: 0,
            max_line: max_line.max(1),
            skipping: None,
            line: 0,
            blank_lines: 0,
            finished: false,
        }
    }

    /// Appends bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
            self.scan = 0;
        } else if self.start > 64 * 1024 && self.start * 2 > self.buf.len() {
            self.buf.drain(..self.start);
            self.scan -= self.start;
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Marks the end of the stream: remaining bytes become a `Truncated` error.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Number of blank or whitespace-only lines skipped so far.
    pub fn blank_lines(&self) -> u64 {
        self.blank_lines
    }

    /// Bytes buffered but not yet part of a complete line.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Next frame or framing error, or `None` when more bytes are needed.
    #[allow(clippy::should_implement_trait)] // not an Iterator: `None` means "need more input", not "done"
    pub fn next(&mut self) -> Option<Result<Frame, FrameError>> {
        loop {
            let rest = &self.buf[self.scan..];
            match memchr::memchr(b'\n', rest) {
                Some(pos) => {
                    let end = self.scan + pos; // index of '\n'
                    let line_start = self.start;
                    self.start = end + 1;
                    self.scan = self.start;
                    self.line += 1;
                    if let Some(mut skip) = self.skipping.take() {
                        let len = skip.len + (end - line_start);
                        let take = (FrameError::KEPT - skip.prefix.len()).min(end - line_start);
                        skip.prefix
                            .extend_from_slice(&self.buf[line_start..line_start + take]);
                        return Some(Err(FrameError {
                            kind: FrameErrorKind::Oversize {
                                len,
                                limit: self.max_line,
                            },
                            line: self.line,
                            bytes: skip.prefix,
                        }));
                    }
                    let mut content_end = end;
                    let crlf = content_end > line_start && self.buf[content_end - 1] == b'\r';
                    if crlf {
                        content_end -= 1;
                    }
                    let content = &self.buf[line_start..content_end];
                    if content.len() > self.max_line {
                        let raw = &self.buf[line_start..end];
                        return Some(Err(FrameError {
                            kind: FrameErrorKind::Oversize {
                                len: raw.len(),
                                limit: self.max_line,
                            },
                            line: self.line,
                            bytes: raw[..FrameError::KEPT.min(raw.len())].to_vec(),
                        }));
                    }
                    if content.iter().all(|b| b.is_ascii_whitespace()) {
                        self.blank_lines += 1;
                        continue;
                    }
                    return Some(Self::emit(content.to_vec(), self.line, crlf));
                }
                None => {
                    let pending = self.buf.len() - self.start;
                    // `max_line + 1` leaves room for the CR of a CRLF ending.
                    if self.skipping.is_some() || pending > self.max_line + 1 {
                        // Too long already: stop buffering, keep a prefix for the report.
                        let skip = self.skipping.get_or_insert_with(|| Skipping {
                            prefix: Vec::new(),
                            len: 0,
                        });
                        let take = (FrameError::KEPT - skip.prefix.len()).min(pending);
                        skip.prefix
                            .extend_from_slice(&self.buf[self.start..self.start + take]);
                        skip.len += pending;
                        self.start = self.buf.len();
                    }
                    self.scan = self.buf.len();
                    if self.finished {
                        return self.take_eof();
                    }
                    return None;
                }
            }
        }
    }

    fn take_eof(&mut self) -> Option<Result<Frame, FrameError>> {
        if let Some(skip) = self.skipping.take() {
            // `next` absorbs every pending byte into `skip` before reaching here.
            self.line += 1;
            let len = skip.len;
            self.start = self.buf.len();
            self.scan = self.start;
            return Some(Err(FrameError {
                kind: FrameErrorKind::Oversize {
                    len,
                    limit: self.max_line,
                },
                line: self.line,
                bytes: skip.prefix,
            }));
        }
        if self.start == self.buf.len() {
            return None;
        }
        let rest = self.buf[self.start..].to_vec();
        self.start = self.buf.len();
        self.scan = self.start;
        if rest.iter().all(|b| b.is_ascii_whitespace()) {
            return None;
        }
        self.line += 1;
        Some(Err(FrameError {
            kind: FrameErrorKind::Truncated,
            line: self.line,
            bytes: rest,
        }))
    }

    fn emit(bytes: Vec<u8>, line: u64, crlf: bool) -> Result<Frame, FrameError> {
        match std::str::from_utf8(&bytes) {
            Ok(_) => Ok(Frame { bytes, line, crlf }),
            Err(e) => Err(FrameError {
                kind: FrameErrorKind::InvalidUtf8 {
                    valid_up_to: e.valid_up_to(),
                },
                line,
                bytes,
            }),
        }
    }
}

/// Encodes one message as a line: the JSON text followed by `\n`.
/// Embedded raw newlines cannot occur in serde_json output.
pub fn encode_line(json: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len() + 1);
    out.extend_from_slice(json.as_bytes());
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(d: &mut NdjsonDecoder) -> Vec<Result<Frame, FrameError>> {
        let mut out = Vec::new();
        while let Some(x) = d.next() {
            out.push(x);
        }
        out
    }

    fn decode_chunked(input: &[u8], chunk: usize, limit: usize) -> Vec<Result<Frame, FrameError>> {
        let mut d = NdjsonDecoder::new(limit);
        let mut out = Vec::new();
        for c in input.chunks(chunk.max(1)) {
            d.push(c);
            out.extend(drain(&mut d));
        }
        d.finish();
        out.extend(drain(&mut d));
        out
    }

    #[test]
    fn several_messages_in_one_read() {
        let out = decode_chunked(b"{\"a\":1}\n{\"b\":2}\n", 1000, 100);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].as_ref().unwrap().text(), "{\"a\":1}");
        assert_eq!(out[1].as_ref().unwrap().line, 2);
    }

    #[test]
    fn chunking_does_not_change_frames() {
        let input = b"{\"a\":1}\r\n\n  \n{\"b\":\"\xff\"}\n{\"c\":3}\n{\"too long line\"}\npartial";
        let whole = decode_chunked(input, input.len(), 12);
        for chunk in 1..input.len() {
            assert_eq!(
                decode_chunked(input, chunk, 12),
                whole,
                "chunk size {chunk}"
            );
        }
        let kinds: Vec<_> = whole
            .iter()
            .map(|r| match r {
                Ok(f) => format!("ok:{}:{}", f.line, f.crlf),
                Err(e) => format!("err:{}:{:?}", e.line, e.kind),
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                "ok:1:true",
                "err:4:InvalidUtf8 { valid_up_to: 6 }",
                "ok:5:false",
                "err:6:Oversize { len: 17, limit: 12 }",
                "err:7:Truncated",
            ]
        );
    }

    #[test]
    fn blank_lines_are_counted_not_emitted() {
        let mut d = NdjsonDecoder::default();
        d.push(b"\n\r\n \t\n{}\n");
        let out = drain(&mut d);
        assert_eq!(out.len(), 1);
        assert_eq!(d.blank_lines(), 3);
        assert_eq!(out[0].as_ref().unwrap().line, 4);
    }

    #[test]
    fn oversize_line_is_dropped_without_buffering_it_all() {
        let mut d = NdjsonDecoder::new(8);
        d.push(&[b'x'; 100]);
        assert!(d.next().is_none());
        assert!(d.pending() < 100, "oversize bytes must not be kept");
        d.push(b"yyy\n{}\n");
        let out = drain(&mut d);
        assert!(matches!(
            out[0],
            Err(FrameError {
                kind: FrameErrorKind::Oversize { len: 103, limit: 8 },
                line: 1,
                ..
            })
        ));
        assert_eq!(out[1].as_ref().unwrap().text(), "{}");
    }

    #[test]
    fn eof_after_complete_lines_is_clean() {
        let out = decode_chunked(b"{}\n  ", 3, 100);
        assert_eq!(out.len(), 1);
    }
}
