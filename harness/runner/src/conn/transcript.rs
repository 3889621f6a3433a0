//! A case's transcript as it is written: every frame both ways (with its
//! exact bytes while the raw budget lasts), stderr, and the harness's notes,
//! bounded so that a flooding target cannot exhaust memory.

use mcpspec_transport::Transport;

use crate::outcome::TranscriptLine;

/// Transcript lines kept per case before the rest is only counted.
const TRANSCRIPT_MAX: usize = 2000;
/// Stderr lines kept in the transcript.
const STDERR_MAX: usize = 200;
/// Text kept of one transcript line.
const LINE_MAX: usize = 2000;
/// Exact frame bytes kept per case (for `--report-dir` transcripts); frames
/// past the budget keep only their text.
const RAW_BUDGET: usize = 16 * 1024 * 1024;

#[derive(Debug)]
pub(crate) struct Transcript {
    transport: Transport,
    pub(crate) lines: Vec<TranscriptLine>,
    dropped: usize,
    raw_budget: usize,
    stderr_lines: usize,
}

impl Transcript {
    pub(crate) fn new(transport: Transport) -> Self {
        Transcript {
            transport,
            lines: Vec::new(),
            dropped: 0,
            raw_budget: RAW_BUDGET,
            stderr_lines: 0,
        }
    }

    /// One line: `>>` harness to peer, `<<` peer to harness, `!!` the
    /// peer's stderr, `--` a note.
    pub(crate) fn line(&mut self, at_ms: u64, dir: &'static str, mut text: String) {
        if self.lines.len() >= TRANSCRIPT_MAX {
            self.dropped += 1;
            return;
        }
        // What a target wrote is quoted safely: a control character (an
        // escape sequence on stderr, a NUL in a broken frame) is shown
        // escaped, never passed to a terminal or a report as is. The exact
        // bytes stay in `raw`.
        if text.contains(char::is_control) {
            text = text
                .chars()
                .flat_map(|c| {
                    let escaped: Vec<char> = if c.is_control() {
                        c.escape_default().collect()
                    } else {
                        vec![c]
                    };
                    escaped
                })
                .collect();
        }
        if text.len() > LINE_MAX {
            let mut cut = LINE_MAX;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str(" …");
        }
        self.lines.push(TranscriptLine {
            at_ms,
            dir,
            text,
            transport: self.transport.as_str(),
            raw: None,
        });
    }

    /// Like [`Transcript::line`], and keeps the frame's exact bytes while
    /// the raw budget lasts.
    pub(crate) fn frame(&mut self, at_ms: u64, dir: &'static str, text: String, raw: &[u8]) {
        let before = self.lines.len();
        self.line(at_ms, dir, text);
        if self.lines.len() > before && raw.len() <= self.raw_budget {
            self.raw_budget -= raw.len();
            if let Some(line) = self.lines.last_mut() {
                line.raw = Some(raw.to_vec());
            }
        }
    }

    /// A line of the peer's stderr (or of a client's own stdout), while
    /// the stderr allowance lasts.
    pub(crate) fn stderr(&mut self, at_ms: u64, text: String) {
        self.stderr_lines += 1;
        if self.stderr_lines <= STDERR_MAX {
            self.line(at_ms, "!!", text);
        }
    }

    /// Lines that did not fit.
    pub(crate) fn dropped(&self) -> usize {
        self.dropped
    }
}

/// Raw bytes for the transcript: verbatim when they are one line of plain
/// text (as a message would be shown), escaped otherwise so that newlines,
/// CRs and invalid UTF-8 stay visible.
pub(crate) fn raw_text(bytes: &[u8]) -> String {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    match std::str::from_utf8(body) {
        Ok(t) if !t.is_empty() && !t.contains(char::is_control) => t.to_owned(),
        _ => format!("[raw] {}", String::from_utf8_lossy(bytes).escape_debug()),
    }
}

#[cfg(test)]
mod tests {
    use super::{raw_text, Transcript};
    use mcpspec_transport::Transport;

    #[test]
    fn control_characters_are_shown_escaped_and_kept_raw() {
        let mut t = Transcript::new(Transport::Stdio);
        t.stderr(1, "\u{1b}[2J\u{1b}]0;pwned\u{7}boom".to_owned());
        t.frame(2, "<<", "a\u{0}b".to_owned(), b"a\0b");
        assert_eq!(t.lines[0].text, r"\u{1b}[2J\u{1b}]0;pwned\u{7}boom");
        assert_eq!(t.lines[1].text, r"a\u{0}b");
        assert_eq!(t.lines[1].raw.as_deref(), Some(&b"a\0b"[..]));
    }

    #[test]
    fn raw_frames_are_shown_plainly_unless_they_hide_something() {
        assert_eq!(raw_text(b"{\"a\":1}\n"), "{\"a\":1}");
        assert_eq!(raw_text(b"{\"a\":\n1}\n"), r#"[raw] {\"a\":\n1}\n"#);
        assert_eq!(raw_text(b"\n"), r"[raw] \n");
        assert!(raw_text(b"\xff\n").starts_with("[raw] "));
    }
}
