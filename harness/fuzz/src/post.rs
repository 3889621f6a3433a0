//! Over HTTP: how an input becomes POSTs, and what each POST owes.
//!
//! An input is one POST body, exactly its bytes (an input whose lines are
//! separate messages — a request and its cancellation — is one POST per
//! line). A body is read the way a strict receiver reads it: as one JSON
//! text, then `classify` (not as ndjson: two messages in one body are not
//! one JSON text). The expectations are those of [`crate::expect`], with
//! lenient second readings that guard against false findings:
//!
//! | lenient reading                                  | why                                        |
//! |--------------------------------------------------|--------------------------------------------|
//! | the first JSON value(s) of the body, each line     | streaming decoders (Go's `json.Decoder`) read the first value and ignore the rest |
//! | without a BOM, up to a NUL, decoded lossily       | as over stdio                              |
//!
//! Ids found that way may be answered, never owed. Each POST also gets a
//! [`Shape`], which the fuzz policy keys its HTTP rules on (an ambiguous
//! body is owed nothing; a 5xx for a request owed an error: [`crate::oracle`]).

use serde_json::Value;

use crate::expect::{ambiguous, line, second_reading, Ctx, Expect};
use crate::input::{Hint, Input};
use mcpspec_wire::{classify, Inbound, Message};

/// What a POST body is, read strictly, for the HTTP status rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Not a JSON-RPC message the server can accept (`parse`: not even one
    /// JSON text), or a batch the version does not have.
    Malformed { parse: bool },
    /// Readers legitimately disagree on it ([`Hint::Ambiguous`]).
    Ambiguous,
    /// Notifications and responses only: 202 and no body.
    Quiet,
    /// One or more requests (with notifications, in a batch).
    Requests {
        /// A request in it is owed an error (unknown method, broken params).
        owed_error: bool,
    },
}

impl Shape {
    /// The generator broke it: a server error (5xx) for it is a finding.
    pub fn client_error(self) -> bool {
        matches!(
            self,
            Shape::Malformed { .. } | Shape::Requests { owed_error: true }
        )
    }
}

/// One POST of an input.
#[derive(Debug, Clone, PartialEq)]
pub struct Post {
    /// The exact body the server receives.
    pub body: Vec<u8>,
    pub shape: Shape,
    pub expects: Vec<Expect>,
}

/// The POSTs of `input`, in order.
pub fn posts(input: &Input, ctx: Ctx<'_>) -> Vec<Post> {
    input
        .bodies()
        .into_iter()
        .map(|body| {
            let mut expects = Vec::new();
            body_expects(&body, ctx, input.hint, &mut expects);
            let shape = shape(&body, ctx, input.hint, &expects);
            if input.hint == Hint::Ambiguous {
                expects = ambiguous(expects, input);
            }
            Post {
                body,
                shape,
                expects,
            }
        })
        .collect()
}

fn body_expects(body: &[u8], ctx: Ctx<'_>, hint: Hint, out: &mut Vec<Expect>) {
    line(body, ctx, hint, out);
    if classify(body).is_ok() {
        return;
    }
    // Lenient readings: each JSON value a streaming decoder would read…
    let mut values = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    while let Some(Ok(v)) = values.next() {
        second_reading(v.to_string().as_bytes(), out);
    }
    // …each line, the body without a BOM, up to a NUL, decoded lossily.
    for l in body.split(|&b| b == b'\n').filter(|l| l.len() < body.len()) {
        second_reading(l, out);
    }
    if let Some(rest) = body.strip_prefix("\u{feff}".as_bytes()) {
        second_reading(rest, out);
    }
    if let Some(nul) = body.iter().position(|&b| b == 0) {
        second_reading(&body[..nul], out);
    }
    if std::str::from_utf8(body).is_err() {
        second_reading(String::from_utf8_lossy(body).as_bytes(), out);
    }
}

fn shape(body: &[u8], ctx: Ctx<'_>, hint: Hint, expects: &[Expect]) -> Shape {
    if hint == Hint::Ambiguous {
        return Shape::Ambiguous;
    }
    let owed_error = expects
        .iter()
        .any(|e| matches!(e, Expect::Owed { error: Some(_), .. }));
    let messages = match classify(body) {
        Err(inv) => {
            return Shape::Malformed {
                parse: inv.kind.is_parse_error(),
            }
        }
        Ok(Inbound::Single(m)) => vec![Ok(m)],
        Ok(Inbound::Batch(_)) if !(ctx.initialized && ctx.version.has_batches()) => {
            return Shape::Malformed { parse: false }
        }
        Ok(Inbound::Batch(items)) => items,
    };
    if messages.iter().any(Result::is_err) {
        return Shape::Malformed { parse: false };
    }
    if messages
        .iter()
        .any(|m| matches!(m, Ok(Message::Request(_))))
    {
        Shape::Requests { owed_error }
    } else {
        Shape::Quiet
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Framing, Level};
    use mcpspec_engine::Version;
    use mcpspec_wire::Id;

    fn ctx() -> Ctx<'static> {
        Ctx {
            version: Version::V2025_06_18,
            initialized: true,
            capabilities: None,
            framing: Framing::HttpBody { streamable: true },
        }
    }

    fn one(bytes: &[u8]) -> Post {
        let input = Input::new(Level::Bytes, "t", Hint::Exact, bytes.to_vec());
        posts(&input, ctx()).remove(0)
    }

    #[test]
    fn a_body_is_one_json_text() {
        let p = one(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        assert_eq!(p.shape, Shape::Requests { owed_error: false });
        assert!(matches!(&p.expects[..], [Expect::Owed { .. }]));
        let n = one(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        assert_eq!(n.shape, Shape::Quiet);
    }

    #[test]
    fn two_messages_in_a_body_owe_nothing_but_may_be_read_leniently() {
        let p = one(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
        );
        assert_eq!(p.shape, Shape::Malformed { parse: true });
        assert!(!p.expects.iter().any(|e| matches!(e, Expect::Owed { .. })));
        for id in [1, 2] {
            assert!(p.expects.contains(&Expect::MayAnswer {
                id: Id::from(id),
                error: None
            }));
        }
        assert_eq!(one(b"").shape, Shape::Malformed { parse: true });
    }

    #[test]
    fn separate_lines_are_separate_posts() {
        let input = Input::new(
            Level::Mcp,
            "mcp/cancel-after",
            Hint::Exact,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n".to_vec(),
        )
        .separate();
        let p = posts(&input, ctx());
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].shape, Shape::Quiet);
    }
}
