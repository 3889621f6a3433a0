//! What the target said, beyond the messages the steps wait for: how many
//! of its frames were JSON-RPC, tried to answer, or looked like JSON at all,
//! the first line that was no JSON-RPC, and its last stderr lines. The
//! probe reads this to tell a target that speaks MCP badly (its cases run
//! and judge it) from one that speaks something else (one error that
//! quotes it), and an exit carries the stderr tail as the target's last
//! words. Everything quoted is made safe to print: control characters
//! escaped, long lines cut.

use std::collections::VecDeque;

/// Stderr lines kept as a target's last words.
const STDERR_TAIL: usize = 5;
/// Characters kept of a quoted line (stderr, an unreadable frame).
const TAIL_LINE_MAX: usize = 200;

#[derive(Debug, Default)]
pub(super) struct Heard {
    /// Frames that held at least one JSON-RPC message.
    pub(super) messages: usize,
    /// Frames that were, or tried to be, a response (an object with an
    /// `id` and no `method`, valid or not).
    pub(super) answers: usize,
    /// Frames that start as JSON does (`{` or `[`): a message, or a piece
    /// of one broken over lines.
    pub(super) json_like: usize,
    /// Frames (and framing errors) that held no JSON-RPC message.
    unreadable: usize,
    /// The first of those, quoted safely.
    first_unreadable: Option<String>,
    stderr_tail: VecDeque<String>,
}

impl Heard {
    /// A frame; `message` when it held a JSON-RPC message.
    pub(super) fn frame(&mut self, bytes: &[u8], message: bool) {
        if message {
            self.messages += 1;
        } else {
            self.unreadable(bytes);
        }
        if looks_like_answer(bytes) {
            self.answers += 1;
        }
        if looks_like_json(bytes) {
            self.json_like += 1;
        }
    }

    /// Bytes that are no JSON-RPC message (a frame, or a framing error's).
    pub(super) fn unreadable(&mut self, bytes: &[u8]) {
        self.unreadable += 1;
        if self.first_unreadable.is_none() {
            self.first_unreadable = Some(format!("«{}»", quote(bytes, TAIL_LINE_MAX)));
        }
    }

    /// A stderr line: the last [`STDERR_TAIL`] are kept, each cut.
    pub(super) fn stderr(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        if self.stderr_tail.len() == STDERR_TAIL {
            self.stderr_tail.pop_front();
        }
        self.stderr_tail
            .push_back(quote(line.as_bytes(), TAIL_LINE_MAX));
    }

    /// See [`super::Conn::unreadable`].
    pub(super) fn unreadable_text(&self) -> Option<String> {
        let first = self.first_unreadable.as_ref()?;
        Some(format!(
            "{} line(s) that are no JSON-RPC message; the first: {first}",
            self.unreadable
        ))
    }

    /// See [`super::Conn::stderr_tail`].
    pub(super) fn stderr_text(&self) -> Option<String> {
        (!self.stderr_tail.is_empty()).then(|| {
            self.stderr_tail
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" | ")
        })
    }
}

/// Whether a frame is, or tries to be, a response: a JSON object (or a
/// batch holding one) with an `id` member and no `method`.
fn looks_like_answer(bytes: &[u8]) -> bool {
    let answer = |v: &serde_json::Value| {
        v.as_object()
            .is_some_and(|o| o.contains_key("id") && !o.contains_key("method"))
    };
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Array(items)) => items.iter().any(answer),
        Ok(v) => answer(&v),
        Err(_) => false,
    }
}

/// Whether a frame starts as JSON text does (`{` or `[` after blanks).
fn looks_like_json(bytes: &[u8]) -> bool {
    matches!(
        bytes.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// `bytes` as one printable line: invalid UTF-8 replaced, control
/// characters escaped, cut to `max` characters with a mark.
fn quote(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\r', '\n']);
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push_str(" …");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Heard;

    #[test]
    fn garbage_json_broken_over_lines_and_answers_are_told_apart() {
        let mut h = Heard::default();
        h.frame(b"garbage", false);
        h.frame(b"{", false);
        h.frame(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, true);
        h.frame(
            br#"{"jsonrpc":"2.0","method":"notifications/message"}"#,
            true,
        );
        assert_eq!((h.messages, h.answers, h.json_like), (2, 1, 3));
        assert_eq!(
            h.unreadable_text().as_deref(),
            Some("2 line(s) that are no JSON-RPC message; the first: «garbage»")
        );
    }

    #[test]
    fn last_words_are_the_last_lines_quoted_safely() {
        let mut h = Heard::default();
        assert_eq!(h.stderr_text(), None);
        for n in 0..7 {
            h.stderr(&format!("line {n}"));
        }
        h.stderr("   ");
        h.stderr("boom\u{1b}[31m");
        assert_eq!(
            h.stderr_text().as_deref(),
            Some(r"line 3 | line 4 | line 5 | line 6 | boom\u{1b}[31m")
        );
    }
}
