//! Bytes level: the ndjson framing around valid messages.
//!
//! | label                  | what                                                         |
//! |------------------------|--------------------------------------------------------------|
//! | `bytes/split`          | one message written in several flushed chunks                 |
//! | `bytes/two-lines`      | two messages in one write                                     |
//! | `bytes/merged`         | two messages on one line, no newline between                  |
//! | `bytes/embedded-newline` | a newline inside a message                                  |
//! | `bytes/crlf`           | a CRLF line ending                                            |
//! | `bytes/blank-lines`    | empty and whitespace-only lines around a message              |
//! | `bytes/whitespace`     | leading and trailing spaces and tabs                          |
//! | `bytes/bom`            | a UTF-8 byte order mark before the message                    |
//! | `bytes/nul`            | a NUL byte inside or after the message                        |
//! | `bytes/invalid-utf8`   | a stray continuation byte, an overlong, a surrogate, 0xFF…    |
//! | `bytes/oversize`       | a line of 64 KiB to 17 MiB (garbage, or a valid message with a huge member); over 16 MiB once a run ([`tame`]) |
//! | `bytes/truncated`      | a message cut short (the driver ends the line)               |
//! | `bytes/flip`           | a few random bytes changed                                   |
//!
//! Over HTTP an input is one POST body, so what only ndjson framing gives
//! meaning to is replaced (same choice of the seed, another input):
//!
//! | ndjson             | over HTTP                | why                                              |
//! |--------------------|--------------------------|--------------------------------------------------|
//! | `bytes/split`      | `bytes/trailing-garbage` | a body is sent in one piece; a message then junk  |
//! | `bytes/crlf`       | `bytes/empty-body`       | a line ending is mere JSON whitespace in a body   |
//!
//! The others keep their bytes and change meaning: `two-lines` and `merged`
//! are a body with two messages (not one JSON text), `embedded-newline`,
//! `blank-lines` and `whitespace` put JSON whitespace (or a raw newline in a
//! string) into the body, `truncated` is a cut body. How a body is read is in
//! [`crate::post`].
//!
//! Input whose bytes parsers may read differently (NUL, invalid UTF-8, huge
//! valid lines, random flips that leave text that is not UTF-8) is
//! [`Hint::Ambiguous`].

use serde_json::{json, Value};

use super::mcp::base_message;
use super::{ids_of, text, Ctx};
use crate::input::{Framing, Hint, Input, Level};
use crate::rng::Rng;

const BAD_UTF8: [&[u8]; 6] = [
    b"\xff",
    b"\x80",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xe2\x82",
    b"\xf8\x88\x80\x80\x80",
];

pub fn generate(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let m = base_message(rng, ctx, 0);
    let ids = ids_of(&m);
    let t = text(&m).into_bytes();
    let http = ctx.framing != Framing::Ndjson;
    let mut input = match rng.below(14) {
        0 | 1 if http => {
            let junk = *rng.pick(&[&b" x"[..], b"]", b"}", b"\0", b" {\"jsonrpc\""]);
            let bytes = [&t[..], junk].concat();
            Input::new(Level::Bytes, "bytes/trailing-garbage", Hint::Exact, bytes)
        }
        5 if http => Input::new(Level::Bytes, "bytes/empty-body", Hint::Exact, Vec::new()),
        0 | 1 => {
            let n = rng.range(1, 3);
            let splits = (0..n).map(|_| rng.range(1, t.len())).collect();
            Input::new(Level::Bytes, "bytes/split", Hint::Exact, nl(&t)).with_splits(splits)
        }
        2 => {
            let second = text(&base_message(rng, ctx, 1)).into_bytes();
            let bytes = [nl(&t), nl(&second)].concat();
            Input::new(Level::Bytes, "bytes/two-lines", Hint::Exact, bytes)
        }
        3 => {
            let second = text(&base_message(rng, ctx, 1)).into_bytes();
            Input::new(
                Level::Bytes,
                "bytes/merged",
                Hint::Exact,
                nl(&[t.clone(), second].concat()),
            )
        }
        4 => {
            let at = rng.range(1, t.len() - 1);
            let bytes = [&t[..at], b"\n", &t[at..], b"\n"].concat();
            Input::new(Level::Bytes, "bytes/embedded-newline", Hint::Exact, bytes)
        }
        5 => Input::new(
            Level::Bytes,
            "bytes/crlf",
            Hint::Exact,
            [&t[..], b"\r\n"].concat(),
        ),
        6 => {
            let bytes = [b"\n \t\n".as_slice(), &t, b"\n\n"].concat();
            Input::new(Level::Bytes, "bytes/blank-lines", Hint::Exact, bytes)
        }
        7 => Input::new(
            Level::Bytes,
            "bytes/whitespace",
            Hint::Exact,
            [b"  \t", &t[..], b" \t\n"].concat(),
        ),
        8 => Input::new(
            Level::Bytes,
            "bytes/bom",
            Hint::Exact,
            nl(&[b"\xef\xbb\xbf", &t[..]].concat()),
        ),
        9 => {
            let at = rng.range(0, t.len());
            Input::new(
                Level::Bytes,
                "bytes/nul",
                Hint::Ambiguous,
                nl(&[&t[..at], b"\0", &t[at..]].concat()),
            )
        }
        10 => {
            let at = rng.range(1, t.len() - 1);
            let bad = *rng.pick(&BAD_UTF8);
            Input::new(
                Level::Bytes,
                "bytes/invalid-utf8",
                Hint::Ambiguous,
                nl(&[&t[..at], bad, &t[at..]].concat()),
            )
        }
        11 if rng.one_in(3) => oversize(rng, m),
        12 => {
            let at = rng.range(1, t.len() - 1);
            Input::new(
                Level::Bytes,
                "bytes/truncated",
                Hint::Exact,
                t[..at].to_vec(),
            )
        }
        _ => {
            let mut b = t.clone();
            for _ in 0..rng.range(1, 4) {
                let i = rng.below(b.len());
                b[i] = (rng.next_u64() & 0xff) as u8;
            }
            b.retain(|&c| c != b'\n');
            let hint = if std::str::from_utf8(&b).is_ok() && !b.contains(&0) {
                Hint::Exact
            } else {
                Hint::Ambiguous
            };
            Input::new(Level::Bytes, "bytes/flip", hint, nl(&b))
        }
    };
    input.ids = ids;
    input
}

fn nl(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    v.push(b'\n');
    v
}

/// The longest line the generator writes (over 16 MiB, a common limit).
const HUGE: usize = 17 << 20;
/// What a huge line is cut to once one was sent.
const TAMED: usize = 1 << 20;

/// `input`, unless it is a line over 16 MiB and one was sent this run
/// already (`huge_sent`): then the same line cut to 1 MiB. One such line
/// shows what the target does with it; each costs seconds against a
/// target that parses or dies on it (Node: ~5 s), which later ones would
/// spend again on the same finding.
pub fn tame(input: Input, huge_sent: &mut bool) -> Input {
    if input.label != "bytes/oversize" || input.bytes.len() <= HUGE {
        return input;
    }
    if !*huge_sent {
        *huge_sent = true;
        return input;
    }
    let mut out = input;
    // `oversize` writes garbage as a line of `x`, else a message.
    if out.bytes.first() == Some(&b'x') {
        out.bytes = nl(&vec![b'x'; TAMED]);
    } else if let Ok(mut m) = serde_json::from_slice::<Value>(&out.bytes) {
        m["params"]["x-mcpspec-fuzz"] = Value::from("y".repeat(TAMED));
        out.bytes = nl(text(&m).as_bytes());
    }
    out
}

fn oversize(rng: &mut Rng, mut m: Value) -> Input {
    // Over 16 MiB (a common line limit) rarely, and once a run ([`tame`]).
    let size = if rng.one_in(32) {
        HUGE
    } else if rng.one_in(4) {
        1 << 20
    } else {
        64 << 10
    };
    if rng.coin() {
        let bytes = nl(&vec![b'x'; size]);
        Input::new(Level::Bytes, "bytes/oversize", Hint::Exact, bytes)
    } else {
        if !m.get("params").is_some_and(Value::is_object) {
            m["params"] = json!({});
        }
        m["params"]["x-mcpspec-fuzz"] = Value::from("y".repeat(size));
        Input::new(
            Level::Bytes,
            "bytes/oversize",
            Hint::Ambiguous,
            nl(text(&m).as_bytes()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_huge_line_a_run_the_rest_cut_to_a_mebibyte() {
        let garbage = || {
            Input::new(
                Level::Bytes,
                "bytes/oversize",
                Hint::Exact,
                nl(&vec![b'x'; HUGE]),
            )
        };
        let message = || {
            let m = json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
                "params": {"x-mcpspec-fuzz": "y".repeat(HUGE)}});
            Input::new(
                Level::Bytes,
                "bytes/oversize",
                Hint::Ambiguous,
                nl(text(&m).as_bytes()),
            )
        };
        let mut sent = false;
        assert_eq!(tame(garbage(), &mut sent).bytes.len(), HUGE + 1);
        assert!(sent);
        let cut = tame(garbage(), &mut sent);
        assert_eq!(cut.bytes.len(), TAMED + 1);
        let cut = tame(message(), &mut sent);
        assert!(cut.bytes.len() < TAMED + 100, "{}", cut.bytes.len());
        let v: Value = serde_json::from_slice(&cut.bytes).expect("still a message");
        assert_eq!(v["method"], "ping");
        // Anything else passes untouched.
        let small = Input::new(Level::Bytes, "bytes/crlf", Hint::Exact, b"{}\r\n".to_vec());
        assert_eq!(tame(small, &mut sent).bytes, b"{}\r\n");
    }
    use crate::gen::{tests::know, Phase};
    use mcpspec_engine::Version;

    #[test]
    fn framing_labels_do_what_they_say() {
        let k = know();
        for exec in 0..600 {
            let ctx = Ctx {
                version: Version::V2025_06_18,
                phase: Phase::Operating,
                know: &k,
                exec,
                framing: Framing::Ndjson,
            };
            let i = generate(&mut Rng::for_exec(17, exec), ctx);
            let b = &i.bytes;
            match i.label.as_str() {
                "bytes/crlf" => assert!(b.ends_with(b"\r\n")),
                "bytes/bom" => assert!(b.starts_with(b"\xef\xbb\xbf")),
                "bytes/nul" => assert!(b.contains(&0)),
                "bytes/invalid-utf8" => assert!(std::str::from_utf8(b).is_err()),
                "bytes/truncated" => assert!(!b.ends_with(b"\n")),
                "bytes/split" => {
                    assert!(!i.splits.is_empty() && i.chunks().concat() == i.wire_bytes())
                }
                "bytes/two-lines" => assert_eq!(b.iter().filter(|&&c| c == b'\n').count(), 2),
                "bytes/oversize" => assert!(b.len() > 60_000),
                "bytes/embedded-newline" => {
                    assert_eq!(b.iter().filter(|&&c| c == b'\n').count(), 2)
                }
                _ => {}
            }
        }
    }

    #[test]
    fn over_http_no_input_relies_on_ndjson_framing() {
        let k = know();
        for exec in 0..600 {
            let ctx = Ctx {
                version: Version::V2025_06_18,
                phase: Phase::Operating,
                know: &k,
                exec,
                framing: Framing::HttpBody { streamable: true },
            };
            let i = generate(&mut Rng::for_exec(17, exec), ctx);
            assert!(i.splits.is_empty(), "{}", i.label);
            assert!(!matches!(i.label.as_str(), "bytes/split" | "bytes/crlf"));
        }
    }
}
