//! A message broken across lines over stdio: one cause, one finding.
//!
//! A peer that pretty-prints its messages writes each over several lines.
//! Judged line by line, every one of them is "not a JSON-RPC message": a
//! few dozen findings for one defect, and under a rule that is not the one
//! broken (what it sends is MCP; its framing is not). So a stdio line that
//! opens a JSON object or array without closing it breaks
//! `stdio.newline-delimited` (a message has no newline inside it:
//! basic/transports#stdio), once, and opens a [`Split`]: the lines after it
//! are joined to it while the whole is still the beginning of one JSON
//! value, and are that message's, not findings of their own. The split
//! closes
//!
//! - with the line that completes the value (the broken message's last);
//! - at a line after which the whole is no longer the beginning of a JSON
//!   value: that line is judged as any other (a log line after a stray `{`,
//!   a whole message after an unfinished one, a raw newline in a string);
//! - past [`SPLIT_MAX`] bytes, so that a peer cannot make the oracle hold
//!   an unbounded message: the lines after that are judged one by one.
//!
//! Each line is read once, by an incremental JSON syntax check ([`Syntax`]),
//! so a long split costs what its bytes cost. The joined message is not
//! judged as a message: the harness never received it as one.

/// The most a split holds (a pretty-printed message of the corpus is a few
/// kilobytes).
pub const SPLIT_MAX: usize = 1 << 20;

/// The lines so far of a message broken across lines.
#[derive(Debug)]
pub struct Split {
    syntax: Syntax,
}

/// What one more line made of a [`Split`].
#[derive(Debug)]
pub enum Next {
    /// Still the beginning of the value: the line is the message's.
    Continues(Split),
    /// The line completed the value: it is the message's, and the split is
    /// over.
    Ends,
    /// The line is not the message's: judge it as any line.
    NotIts,
}

impl Split {
    /// The split `line` opens, if it begins a JSON object or array without
    /// ending it (and not inside a string: a raw newline there is no JSON).
    pub fn open(line: &[u8]) -> Option<Split> {
        let mut syntax = Syntax::default();
        syntax.feed(line).ok()?;
        (!syntax.containers.is_empty() && !syntax.in_string).then_some(Split { syntax })
    }

    /// The split with `line` joined to it (after a newline).
    pub fn push(mut self, line: &[u8]) -> Next {
        if self.syntax.bytes + 1 + line.len() > SPLIT_MAX {
            return Next::NotIts;
        }
        match self
            .syntax
            .feed(b"\n")
            .and_then(|()| self.syntax.feed(line))
        {
            Err(()) => Next::NotIts,
            Ok(()) if self.syntax.expect == Expect::Done => Next::Ends,
            Ok(()) => Next::Continues(self),
        }
    }
}

/// What comes next in the JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Expect {
    #[default]
    Value,
    /// After `[`.
    ValueOrClose,
    /// After `{`.
    KeyOrClose,
    /// After `,` in an object.
    Key,
    Colon,
    CommaOrClose,
    /// The value is complete: only whitespace may follow.
    Done,
}

/// An incremental check that bytes fed so far begin one JSON value.
#[derive(Debug, Default)]
struct Syntax {
    /// The open containers, innermost last: `true` for an object.
    containers: Vec<bool>,
    expect: Expect,
    in_string: bool,
    escaped: bool,
    /// A number or `true`/`false`/`null` under way.
    word: Vec<u8>,
    bytes: usize,
}

impl Syntax {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), ()> {
        self.bytes += bytes.len();
        for &b in bytes {
            self.byte(b)?;
        }
        Ok(())
    }

    fn byte(&mut self, b: u8) -> Result<(), ()> {
        if self.in_string {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => {
                    self.in_string = false;
                    self.string_ended();
                }
                // A raw control character (a newline among them) in a string.
                (false, 0..=0x1f) => return Err(()),
                _ => {}
            }
            return Ok(());
        }
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.') {
            if self.word.is_empty() && !self.wants_value() {
                return Err(());
            }
            self.word.push(b);
            return Ok(());
        }
        self.end_word()?;
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => Ok(()),
            b'"' if self.wants_value()
                || matches!(self.expect, Expect::Key | Expect::KeyOrClose) =>
            {
                self.in_string = true;
                Ok(())
            }
            b'{' | b'[' if self.wants_value() => {
                self.containers.push(b == b'{');
                self.expect = if b == b'{' {
                    Expect::KeyOrClose
                } else {
                    Expect::ValueOrClose
                };
                Ok(())
            }
            b'}' | b']' => {
                let object = b == b'}';
                let may_close = match self.expect {
                    Expect::CommaOrClose => true,
                    Expect::KeyOrClose => object,
                    Expect::ValueOrClose => !object,
                    _ => false,
                };
                if !may_close || self.containers.pop() != Some(object) {
                    return Err(());
                }
                self.value_ended();
                Ok(())
            }
            b',' if self.expect == Expect::CommaOrClose => {
                self.expect = if self.containers.last() == Some(&true) {
                    Expect::Key
                } else {
                    Expect::Value
                };
                Ok(())
            }
            b':' if self.expect == Expect::Colon => {
                self.expect = Expect::Value;
                Ok(())
            }
            _ => Err(()),
        }
    }

    fn wants_value(&self) -> bool {
        matches!(self.expect, Expect::Value | Expect::ValueOrClose)
    }

    /// A string closed: an object's key, or a value.
    fn string_ended(&mut self) {
        if matches!(self.expect, Expect::Key | Expect::KeyOrClose) {
            self.expect = Expect::Colon;
        } else {
            self.value_ended();
        }
    }

    /// A number or literal ends at the first byte that cannot be in it.
    fn end_word(&mut self) -> Result<(), ()> {
        if self.word.is_empty() {
            return Ok(());
        }
        let word = std::mem::take(&mut self.word);
        if !(matches!(&word[..], b"true" | b"false" | b"null") || is_number(&word)) {
            return Err(());
        }
        self.value_ended();
        Ok(())
    }

    fn value_ended(&mut self) {
        self.expect = if self.containers.is_empty() {
            Expect::Done
        } else {
            Expect::CommaOrClose
        };
    }
}

/// A JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_number(w: &[u8]) -> bool {
    let digits = |w: &[u8]| w.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut w = w.strip_prefix(b"-").unwrap_or(w);
    let int = digits(w);
    if int == 0 || (int > 1 && w[0] == b'0') {
        return false;
    }
    w = &w[int..];
    if let Some(rest) = w.strip_prefix(b".") {
        let frac = digits(rest);
        if frac == 0 {
            return false;
        }
        w = &rest[frac..];
    }
    if let Some(rest) = w.strip_prefix(b"e").or_else(|| w.strip_prefix(b"E")) {
        let rest = rest
            .strip_prefix(b"+")
            .or_else(|| rest.strip_prefix(b"-"))
            .unwrap_or(rest);
        let exp = digits(rest);
        if exp == 0 {
            return false;
        }
        w = &rest[exp..];
    }
    w.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `lines` after the split `first` opens; says what each did.
    fn feed(first: &str, lines: &[&str]) -> Vec<&'static str> {
        let mut split = Some(Split::open(first.as_bytes()).expect("the first line opens a split"));
        let mut out = Vec::new();
        for line in lines {
            let Some(s) = split.take() else {
                out.push("closed");
                continue;
            };
            out.push(match s.push(line.as_bytes()) {
                Next::Continues(s) => {
                    split = Some(s);
                    "its"
                }
                Next::Ends => "ends",
                Next::NotIts => "not its",
            });
        }
        out
    }

    #[test]
    fn a_pretty_printed_message_is_one_split() {
        let lines = [
            r#"  "jsonrpc": "2.0","#,
            r#"  "id": -1.5e3,"#,
            r#"  "result": {"#,
            r#"    "content": [true, false, null, 0, {"text": "a \"quoted\" \\ line"}],"#,
            "",
            "    \"isError\": false",
            "  }",
            "}",
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        ];
        assert_eq!(
            feed("{", &lines),
            ["its", "its", "its", "its", "its", "its", "its", "ends", "closed"]
        );
        // What serde_json reads as one value.
        let joined = format!("{{\n{}", lines[..8].join("\n"));
        assert!(serde_json::from_str::<serde_json::Value>(&joined).is_ok());
    }

    #[test]
    fn a_line_after_which_no_value_is_begun_is_not_its() {
        // A stray `{`, and a log line after it.
        assert_eq!(feed("{", &["starting up..."]), ["not its"]);
        // A whole message after an unfinished one.
        assert_eq!(
            feed(
                r#"{"jsonrpc":"2.0","#,
                &[r#"{"jsonrpc":"2.0","id":2,"result":{}}"#]
            ),
            ["not its"]
        );
        // Trailing text after the value is complete.
        assert_eq!(feed("[1,", &["2] x"]), ["not its"]);
        // Numbers JSON does not have.
        assert_eq!(feed("[", &["01]"]), ["not its"]);
        assert_eq!(feed("[", &["1.]"]), ["not its"]);
        assert_eq!(feed("[", &["nil]"]), ["not its"]);
        // A closer of the wrong kind, a key that is no string.
        assert_eq!(feed("[", &["}"]), ["not its"]);
        assert_eq!(feed("{", &["id: 1}"]), ["not its"]);
    }

    #[test]
    fn only_an_open_container_outside_a_string_opens_one() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"text":"a"#, // a raw newline would follow
            "tru",                                            // no container
            "starting up",
            "{}", // whole
            "]",
        ] {
            assert!(Split::open(line.as_bytes()).is_none(), "{line}");
        }
    }

    #[test]
    fn a_split_is_bounded() {
        let mut split = Split::open(b"[").expect("opens");
        let line = [b"1".repeat(999), b",".to_vec()].concat();
        let mut joined = 0;
        loop {
            match split.push(&line) {
                Next::Continues(s) => {
                    split = s;
                    joined += 1;
                }
                Next::NotIts => break,
                Next::Ends => panic!("the array never ends"),
            }
        }
        assert_eq!(joined, (SPLIT_MAX - 1) / (line.len() + 1));
    }

    #[test]
    fn numbers() {
        for ok in ["0", "-0", "12", "1.5", "1e9", "1E+9", "-2.5e-3"] {
            assert!(is_number(ok.as_bytes()), "{ok}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1-2", "0x1"] {
            assert!(!is_number(bad.as_bytes()), "{bad}");
        }
    }
}
