//! What the sans-IO server is given and what it emits, as far as routing
//! goes: the [`Shape`] of a POSTed body (its request ids and progress
//! tokens), and each emitted message ([`Msg`]) with its [`Kind`] (a response
//! and its id, a batch's ids, a progress notification and its token, or
//! anything else). Ids and tokens are compared as their JSON text, so `1`
//! and `"1"` differ.

use std::collections::BTreeSet;

use axum::http::StatusCode;
use mcpspec_engine::Version;
use mcpspec_reference::{Output, NAMED_ERRORS};
use mcpspec_wire::{classify, Inbound, Message, Request};
use serde_json::Value;

/// What a POST body is, as far as routing its answers goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Not a JSON-RPC message; `parse`: not even JSON.
    Invalid { parse: bool },
    /// Holds requests: their ids and progress tokens (JSON text).
    Requests {
        ids: BTreeSet<String>,
        tokens: Vec<String>,
        initialize: bool,
    },
    /// Only notifications and responses.
    Quiet,
}

impl Shape {
    pub(crate) fn of(body: &[u8]) -> Shape {
        let messages = match classify(body) {
            Err(invalid) => {
                return Shape::Invalid {
                    parse: invalid.kind.is_parse_error(),
                }
            }
            Ok(Inbound::Single(m)) => vec![m],
            Ok(Inbound::Batch(items)) => items.into_iter().filter_map(Result::ok).collect(),
        };
        let mut ids = BTreeSet::new();
        let mut tokens = Vec::new();
        let mut initialize = false;
        for m in &messages {
            if let Message::Request(r) = m {
                ids.insert(r.id.to_value().to_string());
                initialize |= r.method == "initialize" && messages.len() == 1;
                if let Some(t) = r
                    .params
                    .as_ref()
                    .and_then(|p| p.pointer("/_meta/progressToken"))
                {
                    tokens.push(t.to_string());
                }
            }
        }
        if ids.is_empty() {
            Shape::Quiet
        } else {
            Shape::Requests {
                ids,
                tokens,
                initialize,
            }
        }
    }

    pub(crate) fn is_parse_error(&self) -> bool {
        matches!(self, Shape::Invalid { parse: true })
    }

    pub(crate) fn is_invalid(&self) -> bool {
        matches!(self, Shape::Invalid { .. })
    }

    pub(crate) fn is_initialize(&self) -> bool {
        matches!(
            self,
            Shape::Requests {
                initialize: true,
                ..
            }
        )
    }
}

/// One message the server emitted, as text, with what routing needs.
#[derive(Debug)]
pub(crate) struct Msg {
    pub(crate) text: String,
    pub(crate) kind: Kind,
    pub(crate) is_error: bool,
    /// An error whose code 2026-07-28 names (-32020 … -32022).
    pub(crate) named_error: bool,
}

#[derive(Debug)]
pub(crate) enum Kind {
    /// A response; its id as JSON text (`None`: null or absent).
    Response(Option<String>),
    /// A batch's array of responses; their ids.
    Batch(Vec<String>),
    /// `notifications/progress`, with its token.
    Progress(Option<String>),
    /// Any other request or notification.
    Other,
}

impl Msg {
    pub(crate) fn parse(text: String) -> Option<Msg> {
        let v: Value = serde_json::from_str(&text).ok()?;
        let key = |v: Option<&Value>| v.filter(|v| !v.is_null()).map(Value::to_string);
        let kind = match &v {
            Value::Array(items) => {
                Kind::Batch(items.iter().filter_map(|i| key(i.get("id"))).collect())
            }
            Value::Object(o) if o.contains_key("method") => {
                if o.get("method").and_then(Value::as_str) == Some("notifications/progress") {
                    Kind::Progress(key(v.pointer("/params/progressToken")))
                } else {
                    Kind::Other
                }
            }
            _ => Kind::Response(key(v.get("id"))),
        };
        let is_error = v.get("error").is_some();
        let named_error = v
            .pointer("/error/code")
            .and_then(Value::as_i64)
            .is_some_and(|c| NAMED_ERRORS.contains(&c));
        Some(Msg {
            text,
            kind,
            is_error,
            named_error,
        })
    }

    pub(crate) fn is_response(&self) -> bool {
        matches!(self.kind, Kind::Response(_) | Kind::Batch(_))
    }

    pub(crate) fn ids(&self) -> Vec<String> {
        match &self.kind {
            Kind::Response(id) => id.iter().cloned().collect(),
            Kind::Batch(ids) => ids.clone(),
            _ => Vec::new(),
        }
    }
}

/// Turns outputs into messages; true when the server asked to exit.
pub(crate) fn parse_outputs(outputs: Vec<Output>, session: &str) -> (Vec<Msg>, bool) {
    let mut msgs = Vec::new();
    let mut exit = false;
    for output in outputs {
        match output {
            Output::Write(bytes) => {
                let text = String::from_utf8_lossy(&bytes).trim_end().to_owned();
                match Msg::parse(text) {
                    Some(m) => msgs.push(m),
                    None => eprintln!(
                        "mcpspec-reference-http: session {session}: dropping non-JSON output {:?}",
                        String::from_utf8_lossy(&bytes)
                    ),
                }
            }
            Output::Stderr(line) => eprintln!("{line} (session {session})"),
            Output::Exit(_) => exit = true,
        }
    }
    (msgs, exit)
}

/// Several messages in one JSON body: one as itself, more as an array.
pub(crate) fn join(msgs: &[Msg]) -> Vec<u8> {
    match msgs {
        [one] => one.text.clone().into_bytes(),
        many => format!(
            "[{}]",
            many.iter()
                .map(|m| m.text.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )
        .into_bytes(),
    }
}

/// 400 when the body is a lone error with no id (the message as a whole
/// was rejected: a parse error, an invalid message, a refused batch), or,
/// when `named_400`, a lone error with a code 2026-07-28 names
/// (`http.status.named-errors`).
pub(crate) fn status_of(msgs: &[Msg], named_400: bool) -> StatusCode {
    match msgs {
        [m] if m.is_error && matches!(m.kind, Kind::Response(None)) => StatusCode::BAD_REQUEST,
        [m] if m.named_error && named_400 => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// The `_meta` key that names a 2026-07-28 request's protocol version.
pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The requests of a body (none if it is not JSON-RPC).
fn requests(body: &[u8]) -> Vec<Request> {
    let messages = match classify(body) {
        Err(_) => return Vec::new(),
        Ok(Inbound::Single(m)) => vec![m],
        Ok(Inbound::Batch(items)) => items.into_iter().filter_map(Result::ok).collect(),
    };
    messages
        .into_iter()
        .filter_map(|m| match m {
            Message::Request(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn meta_version(r: &Request) -> Option<&Value> {
    r.params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION))
}

/// True when a request of the body is a 2026-07-28 one by its own account:
/// `server/discover`, or `_meta` naming a version other than the
/// handshake-era ones (the sans-IO server's rule, `stateless`).
pub(crate) fn claims_stateless(body: &[u8]) -> bool {
    requests(body).iter().any(|r| {
        r.method == "server/discover"
            || match meta_version(r) {
                Some(Value::String(v)) => !v
                    .parse::<Version>()
                    .is_ok_and(|v| Version::HANDSHAKE.contains(&v)),
                Some(_) => true,
                None => false,
            }
    })
}

/// The id and `_meta` protocolVersion string of a body that is one request.
pub(crate) fn single_meta_version(body: &[u8]) -> Option<(Value, Option<String>)> {
    match classify(body) {
        Ok(Inbound::Single(Message::Request(r))) => {
            let v = meta_version(&r).and_then(Value::as_str).map(str::to_owned);
            Some((r.id.to_value(), v))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(Shape::of(b"{"), Shape::Invalid { parse: true });
        assert_eq!(Shape::of(b"{}"), Shape::Invalid { parse: false });
        assert_eq!(
            Shape::of(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Shape::Quiet
        );
        let s = Shape::of(
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"_meta":{"progressToken":7}}}"#,
        );
        assert_eq!(
            s,
            Shape::Requests {
                ids: ["\"a\"".to_owned()].into(),
                tokens: vec!["7".to_owned()],
                initialize: false
            }
        );
        assert!(Shape::of(br#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#).is_initialize());
    }

    #[test]
    fn message_kinds() {
        let m = Msg::parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into()).unwrap();
        assert!(matches!(m.kind, Kind::Response(Some(ref k)) if k == "1"));
        let m =
            Msg::parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}"#.into()).unwrap();
        assert!(m.is_error && matches!(m.kind, Kind::Response(None)));
        assert_eq!(
            status_of(std::slice::from_ref(&m), true),
            StatusCode::BAD_REQUEST
        );
        let n =
            Msg::parse(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x"}}"#.into())
                .unwrap();
        assert_eq!(
            status_of(std::slice::from_ref(&n), true),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(status_of(std::slice::from_ref(&n), false), StatusCode::OK);
        let m = Msg::parse(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t"}}"#
                .into(),
        )
        .unwrap();
        assert!(matches!(m.kind, Kind::Progress(Some(ref t)) if t == "\"t\""));
        let m = Msg::parse(r#"[{"id":1,"result":{}},{"id":"b","result":{}}]"#.into()).unwrap();
        assert_eq!(m.ids(), vec!["1".to_owned(), "\"b\"".to_owned()]);
        assert!(Msg::parse("server started".into()).is_none());
    }
}
