//! What the fuzzer sends: one [`Input`] per exec, its [`Level`] and how the
//! generator vouches for it ([`Hint`]).
//!
//! An input is exact bytes (any number of lines, possibly not UTF-8), plus
//! the offsets at which the driver flushes separately (a message split over
//! several writes), plus the request ids the generator embedded (so that, for
//! input whose meaning parsers disagree on, an answer carrying one of those
//! ids is recognised). What the target owes in return is not stored here: it
//! is derived from the bytes by [`crate::expect`].
//!
//! Over HTTP ([`Framing::HttpBody`]) an input is one POST body, exactly the
//! bytes the server receives ([`Input::bodies`]); an input marked
//! [`Input::separate`] (a request and its cancellation) is one POST per line.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The four generator levels, from raw bytes up to MCP semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Framing: split and merged lines, embedded newlines, CRLF, BOM, NUL,
    /// invalid UTF-8, oversize lines, truncation.
    Bytes,
    /// JSON syntax: malformed text, deep nesting, huge numbers, duplicate keys,
    /// lone surrogates.
    Json,
    /// JSON-RPC 2.0: wrong id / method / params types, null ids, missing
    /// `jsonrpc`, both `result` and `error`, batches.
    Jsonrpc,
    /// MCP: schema-aware mutation of valid requests of the negotiated version,
    /// before initialization, after it, and around cancellation.
    Mcp,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Bytes, Level::Json, Level::Jsonrpc, Level::Mcp];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Bytes => "bytes",
            Level::Json => "json",
            Level::Jsonrpc => "jsonrpc",
            Level::Mcp => "mcp",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| format!("unknown level {s:?} (use bytes, json, jsonrpc or mcp)"))
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an input's bytes reach the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framing {
    /// Newline-delimited JSON over stdio: the bytes are written as they are.
    Ndjson,
    /// HTTP: each input is one POST body (Streamable HTTP to the endpoint,
    /// or legacy HTTP+SSE to the announced message endpoint).
    HttpBody {
        /// Streamable HTTP (answers in the POST's response) rather than
        /// legacy HTTP+SSE (answers on the event stream).
        streamable: bool,
    },
}

impl Framing {
    pub fn is_http(self) -> bool {
        matches!(self, Framing::HttpBody { .. })
    }
}

/// What the generator knows about its input beyond the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hint {
    /// The bytes mean what a strict JSON / JSON-RPC reading says they mean.
    Exact,
    /// Parsers legitimately disagree on these bytes (duplicate keys, lone
    /// surrogates, huge numbers, deep nesting, a BOM, JSON5-isms): any answer,
    /// or none, is acceptable; nothing is owed.
    Ambiguous,
    /// An MCP request whose params the generator broke on purpose, in a member
    /// the request cannot be served without; checked against the version's
    /// schema before it is trusted. It is owed an error.
    SchemaInvalid,
}

/// One exec's input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub level: Level,
    /// What the generator made, e.g. `bytes/crlf`, `jsonrpc/id-float`, `mcp/missing-member`.
    pub label: String,
    pub hint: Hint,
    /// The exact bytes written to the target's stdin.
    #[serde(with = "crate::repro::bytes_serde")]
    pub bytes: Vec<u8>,
    /// Offsets into `bytes` where the driver flushes and yields before
    /// writing on (a message split over several writes). Sorted, in range.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub splits: Vec<usize>,
    /// Request ids the generator embedded (as JSON values), for [`Hint::Ambiguous`] input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<Value>,
    /// Its lines are separate messages (a request and its cancellation):
    /// over HTTP each line is POSTed on its own. Ignored over stdio.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub separate: bool,
}

impl Input {
    pub fn new(level: Level, label: impl Into<String>, hint: Hint, bytes: Vec<u8>) -> Self {
        Input {
            level,
            label: label.into(),
            hint,
            bytes,
            splits: Vec::new(),
            ids: Vec::new(),
            separate: false,
        }
    }

    /// Marks the lines as separate messages (one POST each over HTTP).
    pub fn separate(mut self) -> Self {
        self.separate = true;
        self
    }

    /// The POST bodies over HTTP, exactly as the server receives them: the
    /// bytes as they are (a trailing newline is JSON whitespace), or for a
    /// [`Input::separate`] input each line without its newline. Splits have
    /// no meaning over HTTP (a body is sent as one).
    pub fn bodies(&self) -> Vec<Vec<u8>> {
        if self.separate {
            return self
                .bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect();
        }
        vec![self.bytes.clone()]
    }

    pub fn with_ids(mut self, ids: Vec<Value>) -> Self {
        self.ids = ids;
        self
    }

    pub fn with_splits(mut self, mut splits: Vec<usize>) -> Self {
        splits.retain(|&s| s > 0 && s < self.bytes.len());
        splits.sort_unstable();
        splits.dedup();
        self.splits = splits;
        self
    }

    /// The bytes as the driver writes them: a final newline is added when the
    /// input does not end in one, so that the next line (the sync ping) is
    /// never glued onto a truncated message.
    pub fn wire_bytes(&self) -> Vec<u8> {
        let mut b = self.bytes.clone();
        if b.last() != Some(&b'\n') {
            b.push(b'\n');
        }
        b
    }

    /// The chunks the driver writes, in order.
    pub fn chunks(&self) -> Vec<Vec<u8>> {
        let wire = self.wire_bytes();
        let mut out = Vec::new();
        let mut start = 0;
        for &s in &self.splits {
            if s > start && s < wire.len() {
                out.push(wire[start..s].to_vec());
                start = s;
            }
        }
        out.push(wire[start..].to_vec());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_always_end_the_line_and_chunks_cover_them() {
        let i = Input::new(Level::Bytes, "t", Hint::Exact, b"{\"a\":".to_vec())
            .with_splits(vec![2, 0, 99, 2]);
        assert_eq!(i.wire_bytes(), b"{\"a\":\n");
        assert_eq!(i.splits, vec![2]);
        assert_eq!(i.chunks().concat(), i.wire_bytes());
        assert_eq!(i.chunks().len(), 2);
        assert_eq!("mcp".parse::<Level>(), Ok(Level::Mcp));
        assert!("xml".parse::<Level>().is_err());
    }

    #[test]
    fn bodies_are_what_the_server_receives() {
        let one = Input::new(Level::Bytes, "t", Hint::Exact, b"{}\n{}\n".to_vec());
        assert_eq!(one.bodies(), vec![b"{}\n{}\n".to_vec()]);
        let two = one.clone().separate();
        assert_eq!(two.bodies(), vec![b"{}".to_vec(), b"{}".to_vec()]);
    }
}
