//! A session's inputs, kept so that a finding can be minimised from them.
//!
//! A session runs for up to [`crate::run::SESSION_EXECS`] inputs, and a few
//! of them are lines of a mebibyte or more whose bulk is one byte repeated:
//! the filler of `bytes/oversize` (up to 17 MiB), the brackets of
//! `json/deep-nesting`. Kept as sent, they would make a long session's
//! history tens of mebibytes. Kept here, any run of one byte longer than
//! [`RUN_MIN`] is stored as the byte and its count, so the history costs
//! about what its messages do; [`History::to_vec`] gives every input back
//! byte for byte.

use crate::input::Input;

/// The shortest run of one byte that is stored as (byte, count).
const RUN_MIN: usize = 256;

/// The inputs of one session, in order.
#[derive(Debug, Default)]
pub struct History {
    kept: Vec<Kept>,
    /// Bytes the history holds (literal bytes; a run counts as one).
    held: usize,
}

#[derive(Debug)]
struct Kept {
    /// The input; its `bytes` are empty when `packed` holds them.
    input: Input,
    packed: Option<Vec<Piece>>,
}

#[derive(Debug)]
enum Piece {
    Literal(Vec<u8>),
    Run(u8, usize),
}

impl History {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many inputs the session sent.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Bytes held: what bounds a session's memory ([`crate::run::SESSION_BYTES`]).
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    pub fn push(&mut self, mut input: Input) {
        let packed = pack(&input.bytes);
        let kept = match packed {
            Some(pieces) => {
                self.held += pieces
                    .iter()
                    .map(|p| match p {
                        Piece::Literal(b) => b.len(),
                        Piece::Run(..) => 1,
                    })
                    .sum::<usize>();
                input.bytes = Vec::new();
                Kept {
                    input,
                    packed: Some(pieces),
                }
            }
            None => {
                self.held += input.bytes.len();
                Kept {
                    input,
                    packed: None,
                }
            }
        };
        self.kept.push(kept);
    }

    /// Every input, as it was sent.
    pub fn to_vec(&self) -> Vec<Input> {
        self.kept
            .iter()
            .map(|k| {
                let mut input = k.input.clone();
                if let Some(pieces) = &k.packed {
                    input.bytes = unpack(pieces);
                }
                input
            })
            .collect()
    }
}

/// The pieces of `bytes`, when it has a run worth packing.
fn pack(bytes: &[u8]) -> Option<Vec<Piece>> {
    if bytes.len() < RUN_MIN {
        return None;
    }
    let mut pieces = Vec::new();
    let mut literal_from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let len = bytes[i..].iter().take_while(|&&c| c == b).count();
        if len >= RUN_MIN {
            if literal_from < i {
                pieces.push(Piece::Literal(bytes[literal_from..i].to_vec()));
            }
            pieces.push(Piece::Run(b, len));
            literal_from = i + len;
        }
        i += len;
    }
    if pieces.is_empty() {
        return None;
    }
    if literal_from < bytes.len() {
        pieces.push(Piece::Literal(bytes[literal_from..].to_vec()));
    }
    Some(pieces)
}

fn unpack(pieces: &[Piece]) -> Vec<u8> {
    let len = pieces
        .iter()
        .map(|p| match p {
            Piece::Literal(b) => b.len(),
            Piece::Run(_, n) => *n,
        })
        .sum();
    let mut out = Vec::with_capacity(len);
    for p in pieces {
        match p {
            Piece::Literal(b) => out.extend_from_slice(b),
            Piece::Run(b, n) => out.resize(out.len() + n, *b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Hint, Level};

    fn input(bytes: Vec<u8>) -> Input {
        let mut i = Input::new(Level::Bytes, "bytes/oversize", Hint::Exact, bytes);
        i.splits = vec![1];
        i
    }

    #[test]
    fn every_input_comes_back_byte_for_byte() {
        let filler = [vec![b'x'; 17 << 20], b"\n".to_vec()].concat();
        let member = [
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""#.to_vec(),
            vec![b'y'; 1 << 20],
            b"\"}}\n".to_vec(),
        ]
        .concat();
        let nesting = [vec![b'['; 100_000], vec![b']'; 100_000], b"\n".to_vec()].concat();
        let short_runs: Vec<u8> = (0..10_000u32).map(|i| (i / 200) as u8).collect();
        let cases = vec![
            Vec::new(),
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".to_vec(),
            filler,
            member,
            nesting,
            short_runs,
            vec![b'z'; RUN_MIN],
            vec![b'z'; RUN_MIN - 1],
        ];
        let mut history = History::new();
        for bytes in &cases {
            history.push(input(bytes.clone()));
        }
        let back = history.to_vec();
        assert_eq!(back.len(), cases.len());
        for (got, want) in back.iter().zip(&cases) {
            assert_eq!(got.bytes.len(), want.len());
            assert!(
                got.bytes == *want,
                "an input of {} bytes differs",
                want.len()
            );
            assert_eq!(got.splits, vec![1], "the rest of the input is kept");
        }
    }

    #[test]
    fn a_huge_filler_line_holds_next_to_nothing() {
        let mut history = History::new();
        history.push(input([vec![b'x'; 17 << 20], b"\n".to_vec()].concat()));
        let nesting = [vec![b'['; 100_000], vec![b']'; 100_000], b"\n".to_vec()].concat();
        history.push(input(nesting));
        assert!(history.held_bytes() < 16, "{}", history.held_bytes());
        let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".to_vec();
        let n = ping.len();
        history.push(input(ping));
        assert!(history.held_bytes() >= n, "plain input counts in full");
    }
}
