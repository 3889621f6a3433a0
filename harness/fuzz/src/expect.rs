//! What the target owes in return for an input — derived from the exact bytes.
//!
//! The bytes are read the way a strict receiver reads them (the wire layer's
//! ndjson decoder, then `classify`); the generator's [`Hint`] and the
//! version's schema then decide how much may be demanded:
//!
//! | what a line is                                | expectation                                          |
//! |-----------------------------------------------|------------------------------------------------------|
//! | not JSON, not UTF-8, oversize                 | ignored, or one error with a null id                 |
//! | invalid JSON-RPC, id readable                 | ignored, or an error (-32600) with that id or null    |
//! | invalid JSON-RPC, id unusable (float, bool…)  | ignored, or an error with a null (or echoed) id      |
//! | request whose integer id is written as a float (`-0.0`) | ignored, an error with a null id, or an answer with an id of that value |
//! | valid request                                 | answered within the timeout, result or error          |
//! | request for a method no version has           | answered with an error (-32601 once initialized)      |
//! | [`Hint::SchemaInvalid`] request, schema agrees | answered with an error (-32602 once initialized)     |
//! | notification                                  | never answered                                        |
//! | batch (2025-03-26)                            | each element as above                                 |
//! | batch (other versions, or before initialize)  | ignored, or errors; nothing owed                      |
//! | [`Hint::Ambiguous`] line                      | anything carrying its ids, or nothing; nothing owed   |
//!
//! Lenient second readings guard against false findings: a line that is not
//! UTF-8 is also read lossily, and a line with a BOM or a NUL is also read
//! without them; ids found that way may be answered (once), never owed.

use mcpspec_engine::{ids, Requirement, Role, Version};
use mcpspec_schema::schemas;
use mcpspec_wire::{classify, Id, Inbound, InvalidKind, Message, NdjsonDecoder, DEFAULT_MAX_LINE};
use serde_json::Value;

use crate::input::{Framing, Hint, Input};

/// The error a malformed input should earn: acceptable codes (empty: any
/// error) and the requirement a success result or another code breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Want {
    pub codes: &'static [i64],
    pub requirement: &'static Requirement,
}

pub const INVALID_REQUEST: Want = Want {
    codes: &[-32600],
    requirement: &ids::JSONRPC_ERROR_INVALID_REQUEST,
};
pub const INVALID_PARAMS_SHAPE: Want = Want {
    codes: &[-32600, -32602],
    requirement: &ids::JSONRPC_ERROR_INVALID_REQUEST,
};
pub const ANY_ERROR_FOR_INVALID: Want = Want {
    codes: &[],
    requirement: &ids::JSONRPC_ERROR_INVALID_REQUEST,
};
pub const METHOD_NOT_FOUND: Want = Want {
    codes: &[-32601],
    requirement: &ids::JSONRPC_ERROR_METHOD_NOT_FOUND,
};
pub const ANY_ERROR_FOR_UNKNOWN: Want = Want {
    codes: &[],
    requirement: &ids::JSONRPC_ERROR_METHOD_NOT_FOUND,
};
pub const INVALID_PARAMS: Want = Want {
    codes: &[-32602],
    requirement: &ids::JSONRPC_ERROR_INVALID_PARAMS,
};
pub const ANY_ERROR_FOR_PARAMS: Want = Want {
    codes: &[],
    requirement: &ids::JSONRPC_ERROR_INVALID_PARAMS,
};

/// One thing the target owes, may do, or must not do, because of an input.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// A request that must be answered within the timeout; with `error`, only
    /// an error is right.
    Owed {
        id: Id,
        method: String,
        error: Option<Want>,
        /// The request's progress token (JSON text): progress under it shows
        /// the target is working on it.
        token: Option<String>,
        /// It came inside a batch (what goes wrong is then likely the batch).
        batch: bool,
    },
    /// An answer with this id is acceptable once; it is not owed.
    MayAnswer { id: Id, error: Option<Want> },
    /// An unusable id (a float, a boolean…) that an error may echo.
    Echo { id: Value },
    /// One error with a null id is acceptable.
    NullIdError,
    /// A notification: never answered.
    Notification { method: String },
    /// `notifications/cancelled` for this request id: its answer is no longer owed.
    Cancel { id: Id },
    /// A JSON array was sent: array answers are the target's reply to it.
    Batch,
}

/// The session facts expectations depend on.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    pub version: Version,
    /// The handshake is complete.
    pub initialized: bool,
    /// The capabilities the target declared.
    pub capabilities: Option<&'a Value>,
    /// Stdio lines or HTTP bodies ([`crate::post`]).
    pub framing: Framing,
}

/// Whether every expectation is a notification's (a cancellation is one):
/// the input can only be answered wrongly.
pub fn notifications_only(expects: &[Expect]) -> bool {
    !expects.is_empty()
        && expects
            .iter()
            .all(|e| matches!(e, Expect::Notification { .. } | Expect::Cancel { .. }))
}

/// The expectations of one input, in order.
pub fn derive(input: &Input, ctx: Ctx<'_>) -> Vec<Expect> {
    if ctx.framing.is_http() {
        return crate::post::posts(input, ctx)
            .into_iter()
            .flat_map(|p| p.expects)
            .collect();
    }
    let mut out = Vec::new();
    let mut decoder = NdjsonDecoder::new(DEFAULT_MAX_LINE);
    decoder.push(&input.wire_bytes());
    decoder.finish();
    while let Some(item) = decoder.next() {
        match item {
            Err(e) => {
                out.push(Expect::NullIdError);
                second_reading(
                    &String::from_utf8_lossy(&e.bytes).into_owned().into_bytes(),
                    &mut out,
                );
            }
            Ok(frame) => {
                line(&frame.bytes, ctx, input.hint, &mut out);
                if let Some(rest) = frame.bytes.strip_prefix("\u{feff}".as_bytes()) {
                    second_reading(rest, &mut out);
                }
                if let Some(nul) = frame.bytes.iter().position(|&b| b == 0) {
                    second_reading(&frame.bytes[..nul], &mut out);
                }
            }
        }
    }
    // A peer may answer an empty line with a parse error.
    out.extend((0..decoder.blank_lines()).map(|_| Expect::NullIdError));
    if input.hint == Hint::Ambiguous {
        return ambiguous(out, input);
    }
    out
}

/// Parsers disagree on this input: nothing is owed, nothing forbidden beyond
/// what no reading allows.
pub(crate) fn ambiguous(exact: Vec<Expect>, input: &Input) -> Vec<Expect> {
    let mut out: Vec<Expect> = Vec::new();
    for e in exact {
        match e {
            Expect::Owed { id, .. } | Expect::MayAnswer { id, .. } => {
                out.push(Expect::MayAnswer { id, error: None })
            }
            Expect::Notification { .. } => out.push(Expect::NullIdError),
            other => out.push(other),
        }
    }
    for v in &input.ids {
        match id_of(v) {
            Some(id) => out.push(Expect::MayAnswer { id, error: None }),
            None => out.push(Expect::Echo { id: v.clone() }),
        }
    }
    out.push(Expect::NullIdError);
    out
}

fn id_of(v: &Value) -> Option<Id> {
    Id::from_value(v)
}

/// A lenient receiver's reading: any request id it finds may be answered.
pub(crate) fn second_reading(bytes: &[u8], out: &mut Vec<Expect>) {
    let mut ids = Vec::new();
    match classify(bytes) {
        Ok(Inbound::Single(Message::Request(r))) => ids.push(r.id),
        Ok(Inbound::Batch(items)) => ids.extend(items.into_iter().filter_map(|i| match i {
            Ok(Message::Request(r)) => Some(r.id),
            _ => None,
        })),
        Err(inv) => ids.extend(inv.id),
        _ => {}
    }
    out.extend(
        ids.into_iter()
            .map(|id| Expect::MayAnswer { id, error: None }),
    );
}

pub(crate) fn line(bytes: &[u8], ctx: Ctx<'_>, hint: Hint, out: &mut Vec<Expect>) {
    match classify(bytes) {
        Err(inv) => invalid(bytes, &inv.kind, inv.id, out),
        Ok(Inbound::Single(msg)) => single(&msg, bytes, ctx, hint, false, out),
        Ok(Inbound::Batch(items)) => {
            out.push(Expect::Batch);
            if !(ctx.initialized && ctx.version.has_batches()) {
                // Not part of the protocol (or not yet: the version is only
                // settled by the handshake): an error (null id) or silence; a
                // target that serves the elements anyway is not judged for it.
                out.push(Expect::NullIdError);
                for item in items {
                    match item {
                        Ok(Message::Request(r)) => out.push(Expect::MayAnswer {
                            id: r.id,
                            error: None,
                        }),
                        Err(inv) => {
                            out.extend(inv.id.map(|id| Expect::MayAnswer { id, error: None }))
                        }
                        _ => {}
                    }
                }
                return;
            }
            for item in items {
                match item {
                    Ok(msg) => single(&msg, bytes, ctx, Hint::Exact, true, out),
                    Err(inv) => {
                        out.push(Expect::NullIdError);
                        out.extend(inv.id.map(|id| Expect::MayAnswer {
                            id,
                            error: Some(want_for(&inv.kind)),
                        }));
                    }
                }
            }
        }
    }
}

fn invalid(bytes: &[u8], kind: &InvalidKind, id: Option<Id>, out: &mut Vec<Expect>) {
    out.push(Expect::NullIdError);
    if let Some(id) = id {
        out.push(Expect::MayAnswer {
            id,
            error: Some(want_for(kind)),
        });
    } else if let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(bytes) {
        if let Some(v) = obj.get("id").filter(|v| !v.is_null()) {
            out.push(Expect::Echo { id: v.clone() });
        }
    }
}

/// The error class an invalid message with a readable id should earn.
fn want_for(kind: &InvalidKind) -> Want {
    match kind {
        InvalidKind::ParamsNotStructured(_) => INVALID_PARAMS_SHAPE,
        InvalidKind::ResultAndError
        | InvalidKind::NeitherResultNorError
        | InvalidKind::ResultWithoutId
        | InvalidKind::ErrorNotObject(_)
        | InvalidKind::ErrorCodeMissing
        | InvalidKind::ErrorCodeNotInteger(_)
        | InvalidKind::ErrorMessageMissing
        | InvalidKind::ErrorMessageNotString(_) => ANY_ERROR_FOR_INVALID,
        _ => INVALID_REQUEST,
    }
}

fn single(
    msg: &Message,
    bytes: &[u8],
    ctx: Ctx<'_>,
    hint: Hint,
    batch: bool,
    out: &mut Vec<Expect>,
) {
    match msg {
        Message::Request(r) if r.id.written_as_float() => {
            // An integer id written as a float (`-0.0`, `1e2`) is the
            // schema's integer, but a reader that parses it as a float may
            // refuse it as an invalid id: an answer (with an id of the same
            // value) or a null-id error may come, and nothing is owed.
            out.push(Expect::NullIdError);
            out.push(Expect::MayAnswer {
                id: r.id.clone(),
                error: request_want(&r.method, bytes, ctx, hint),
            });
        }
        Message::Request(r) => {
            let token = r
                .params
                .as_ref()
                .and_then(|p| p.pointer("/_meta/progressToken"))
                .map(Value::to_string);
            let error = request_want(&r.method, bytes, ctx, hint);
            out.push(Expect::Owed {
                id: r.id.clone(),
                method: r.method.clone(),
                error,
                token,
                batch,
            });
        }
        Message::Notification(n) => {
            out.push(Expect::Notification {
                method: n.method.clone(),
            });
            if n.method == "notifications/cancelled" {
                if let Some(id) = n
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(id_of)
                {
                    out.push(Expect::Cancel { id });
                }
            }
        }
        // A response the target never asked for: it may complain (null id) or ignore it.
        Message::Response(_) => out.push(Expect::NullIdError),
    }
}

/// Whether a well-formed request may only be answered with an error.
fn request_want(method: &str, bytes: &[u8], ctx: Ctx<'_>, hint: Hint) -> Option<Want> {
    let known_anywhere = Version::ALL
        .iter()
        .any(|v| schemas(*v).method(method).is_some());
    if !known_anywhere {
        return Some(if ctx.initialized {
            METHOD_NOT_FOUND
        } else {
            ANY_ERROR_FOR_UNKNOWN
        });
    }
    if hint != Hint::SchemaInvalid {
        return None;
    }
    let s = schemas(ctx.version);
    s.request_definition(Role::Client, method)?;
    let value: Value = serde_json::from_slice(bytes).ok()?;
    if s.check_request(Role::Client, method, &value).is_empty() {
        // The generator meant to break it, but the schema accepts it.
        return None;
    }
    if ctx.initialized && offered(method, ctx.capabilities) {
        Some(INVALID_PARAMS)
    } else {
        Some(ANY_ERROR_FOR_PARAMS)
    }
}

/// Whether the target declared the capability `method` belongs to (methods
/// outside any capability count as offered).
pub fn offered(method: &str, capabilities: Option<&Value>) -> bool {
    let cap = match method.split('/').next() {
        Some("tools") => "tools",
        Some("resources") => "resources",
        Some("prompts") => "prompts",
        Some("logging") => "logging",
        Some("completion") => "completions",
        Some("tasks") => "tasks",
        _ => return true,
    };
    capabilities.is_some_and(|c| c.get(cap).is_some_and(Value::is_object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Level;
    use serde_json::json;

    fn ctx(caps: &Value) -> Ctx<'_> {
        Ctx {
            version: Version::V2025_06_18,
            initialized: true,
            capabilities: Some(caps),
            framing: Framing::Ndjson,
        }
    }

    fn exp(bytes: &[u8], hint: Hint) -> Vec<Expect> {
        let caps = json!({"tools": {}});
        derive(
            &Input::new(Level::Jsonrpc, "t", hint, bytes.to_vec()),
            ctx(&caps),
        )
    }

    #[test]
    fn only_notifications_and_cancellations_make_a_notifications_only_input() {
        let note = Expect::Notification {
            method: "notifications/progress".into(),
        };
        let cancel = Expect::Cancel { id: Id::from(1) };
        assert!(notifications_only(&[note.clone(), cancel]));
        assert!(!notifications_only(&[note, Expect::NullIdError]));
        assert!(!notifications_only(&[]));
    }

    #[test]
    fn a_valid_request_is_owed_any_answer() {
        let e = exp(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            Hint::Exact,
        );
        assert!(matches!(&e[..], [Expect::Owed { error: None, .. }]));
    }

    #[test]
    fn unknown_methods_and_broken_params_are_owed_errors() {
        let e = exp(
            br#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#,
            Hint::Exact,
        );
        assert!(matches!(
            &e[..],
            [Expect::Owed {
                error: Some(METHOD_NOT_FOUND),
                ..
            }]
        ));
        let bad = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5}}"#;
        let e = exp(bad, Hint::SchemaInvalid);
        assert!(matches!(
            &e[..],
            [Expect::Owed {
                error: Some(INVALID_PARAMS),
                ..
            }]
        ));
        // Without the hint, the same bytes only need an answer.
        assert!(matches!(
            &exp(bad, Hint::Exact)[..],
            [Expect::Owed { error: None, .. }]
        ));
        // A "broken" request the schema accepts demands nothing.
        let fine = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}"#;
        assert!(matches!(
            &exp(fine, Hint::SchemaInvalid)[..],
            [Expect::Owed { error: None, .. }]
        ));
    }

    #[test]
    fn malformed_input_may_earn_an_error_and_is_never_owed() {
        assert_eq!(exp(b"{nope", Hint::Exact), vec![Expect::NullIdError]);
        let e = exp(br#"{"id":4,"method":"ping"}"#, Hint::Exact);
        assert_eq!(
            e,
            vec![
                Expect::NullIdError,
                Expect::MayAnswer {
                    id: Id::from(4),
                    error: Some(INVALID_REQUEST)
                }
            ]
        );
        let e = exp(
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            Hint::Exact,
        );
        assert_eq!(
            e,
            vec![Expect::NullIdError, Expect::Echo { id: json!(1.5) }]
        );
    }

    #[test]
    fn lenient_readings_allow_answers() {
        let mut bytes = b"\xef\xbb\xbf".to_vec();
        bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
        let e = exp(&bytes, Hint::Exact);
        assert!(e.contains(&Expect::MayAnswer {
            id: Id::from(9),
            error: None
        }));
        let e = exp(
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"p\xffng\"}",
            Hint::Exact,
        );
        assert!(e.contains(&Expect::MayAnswer {
            id: Id::from(8),
            error: None
        }));
    }

    #[test]
    fn notifications_and_cancellation() {
        let e = exp(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}"#,
            Hint::Exact,
        );
        assert_eq!(e[1], Expect::Cancel { id: Id::from("a") });
        assert!(matches!(e[0], Expect::Notification { .. }));
    }

    #[test]
    fn batches_depend_on_the_version() {
        let caps = json!({});
        let input = Input::new(
            Level::Jsonrpc,
            "t",
            Hint::Exact,
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_vec(),
        );
        let mut c = ctx(&caps);
        assert!(derive(&input, c)
            .iter()
            .all(|e| !matches!(e, Expect::Owed { .. })));
        c.version = Version::V2025_03_26;
        assert!(derive(&input, c)
            .iter()
            .any(|e| matches!(e, Expect::Owed { .. })));
    }
}
