//! JSON-RPC 2.0 message classification.
//!
//! [`classify`] turns one frame's bytes into a [`Message`] (request,
//! notification or response), a batch, or an [`Invalid`] that names precisely
//! what is wrong ([`InvalidKind`]) and, when it could be read, the id — so a
//! server can answer an invalid request with its id, and a harness can say
//! "id is a float" rather than "invalid message".
//!
//! Classification is *version-neutral*: whether a batch is allowed, or whether
//! an error response may omit its id, is decided by the engine for the
//! negotiated protocol version. This module only reports what it saw
//! ([`Response::id`] is `None` when the id was `null` or absent, and
//! [`Response::id_absent`] tells the two apart).
//!
//! The order of checks is fixed and documented on [`classify_value`], so that
//! a message with several defects is always reported the same way.

use serde_json::{Map, Value};
use std::fmt;

#[cfg(test)]
mod differential;
mod envelope;
mod id;

use envelope::Envelope;
pub use id::Id;

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: Id,
    pub method: String,
    /// `None` when the `params` member is absent.
    pub params: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub method: String,
    pub params: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// `None` when the id is `null` or absent (only acceptable for errors).
    pub id: Option<Id>,
    /// True when the `id` member is missing altogether (as opposed to `null`).
    pub id_absent: bool,
    pub outcome: Result<Value, ErrorObject>,
}

impl Response {
    pub fn is_error(&self) -> bool {
        self.outcome.is_err()
    }
    pub fn error(&self) -> Option<&ErrorObject> {
        self.outcome.as_ref().err()
    }
}

/// One valid JSON-RPC 2.0 message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
}

impl Message {
    pub fn request(id: impl Into<Id>, method: &str, params: Option<Value>) -> Self {
        Message::Request(Request {
            id: id.into(),
            method: method.to_owned(),
            params,
        })
    }

    pub fn notification(method: &str, params: Option<Value>) -> Self {
        Message::Notification(Notification {
            method: method.to_owned(),
            params,
        })
    }

    pub fn result(id: Id, result: Value) -> Self {
        Message::Response(Response {
            id: Some(id),
            id_absent: false,
            outcome: Ok(result),
        })
    }

    pub fn error(id: Option<Id>, code: i64, message: &str, data: Option<Value>) -> Self {
        Message::Response(Response {
            id,
            id_absent: false,
            outcome: Err(ErrorObject {
                code,
                message: message.to_owned(),
                data,
            }),
        })
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }

    /// The `params` of a request or notification.
    pub fn params(&self) -> Option<&Value> {
        match self {
            Message::Request(r) => r.params.as_ref(),
            Message::Notification(n) => n.params.as_ref(),
            Message::Response(_) => None,
        }
    }

    /// A short human label: `request tools/list (id 3)`, `response to 3`, ...
    pub fn describe(&self) -> String {
        match self {
            Message::Request(r) => format!("request {} (id {})", r.method, r.id),
            Message::Notification(n) => format!("notification {}", n.method),
            Message::Response(r) => {
                let id = r.id.as_ref().map_or("null".to_owned(), Id::to_string);
                match &r.outcome {
                    Ok(_) => format!("result for id {id}"),
                    Err(e) => format!("error {} for id {id}", e.code),
                }
            }
        }
    }

    /// The canonical JSON form, members in the order jsonrpc, id, method,
    /// params, result, error.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("jsonrpc".into(), Value::from("2.0"));
        match self {
            Message::Request(r) => {
                m.insert("id".into(), r.id.to_value());
                m.insert("method".into(), Value::from(r.method.clone()));
                if let Some(p) = &r.params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Notification(n) => {
                m.insert("method".into(), Value::from(n.method.clone()));
                if let Some(p) = &n.params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Response(r) => {
                if !r.id_absent {
                    m.insert("id".into(), r.id.as_ref().map_or(Value::Null, Id::to_value));
                }
                match &r.outcome {
                    Ok(v) => {
                        m.insert("result".into(), v.clone());
                    }
                    Err(e) => {
                        let mut err = Map::new();
                        err.insert("code".into(), Value::from(e.code));
                        err.insert("message".into(), Value::from(e.message.clone()));
                        if let Some(d) = &e.data {
                            err.insert("data".into(), d.clone());
                        }
                        m.insert("error".into(), Value::Object(err));
                    }
                }
            }
        }
        Value::Object(m)
    }

    /// Compact JSON text (never contains a raw newline).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}

/// What a valid frame contained.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    Single(Message),
    /// A JSON array: each element classified on its own. Whether batches are
    /// allowed at all depends on the protocol version (engine's decision).
    Batch(Vec<Result<Message, Invalid>>),
}

/// The JSON type of a value, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    Null,
    Bool,
    Integer,
    Float,
    String,
    Array,
    Object,
}

impl JsonType {
    pub fn of(v: &Value) -> Self {
        match v {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Bool,
            Value::Number(n) if n.is_f64() => JsonType::Float,
            Value::Number(_) => JsonType::Integer,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonType::Null => "null",
            JsonType::Bool => "a boolean",
            JsonType::Integer => "an integer",
            JsonType::Float => "a non-integer number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        })
    }
}

/// Why a frame is not a valid JSON-RPC 2.0 message. Each defect is its own
/// variant so that reports and scenario matchers can name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvalidKind {
    /// Not JSON at all (syntax error at the given 1-based line/column).
    NotJson {
        line: usize,
        column: usize,
        reason: String,
    },
    /// JSON that stops early: typically a message broken across lines.
    IncompleteJson,
    /// Valid JSON that is not an object (nor an array, for batches).
    NotAnObject(JsonType),
    /// `[]`.
    EmptyBatch,
    /// An array where a single message was required (inside a batch).
    NestedBatch,
    JsonrpcMissing,
    JsonrpcNotString(JsonType),
    JsonrpcWrongVersion(String),
    /// `"id": null` on a request (only error responses may carry a null id).
    IdNull,
    IdFloat,
    IdBool,
    IdObject,
    IdArray,
    MethodNotString(JsonType),
    /// `params` present but neither an object nor an array.
    ParamsNotStructured(JsonType),
    /// A response with both `result` and `error`.
    ResultAndError,
    /// No `method`, and neither `result` nor `error`.
    NeitherResultNorError,
    /// A `result` response whose id is null or absent.
    ResultWithoutId,
    ErrorNotObject(JsonType),
    ErrorCodeMissing,
    ErrorCodeNotInteger(JsonType),
    ErrorMessageMissing,
    ErrorMessageNotString(JsonType),
    /// A message with `method` that also carries `result` or `error`.
    MethodWithResult,
}

impl InvalidKind {
    /// Stable snake_case name, used by scenario files and reports.
    pub fn name(&self) -> &'static str {
        match self {
            InvalidKind::NotJson { .. } => "not_json",
            InvalidKind::IncompleteJson => "incomplete_json",
            InvalidKind::NotAnObject(_) => "not_an_object",
            InvalidKind::EmptyBatch => "empty_batch",
            InvalidKind::NestedBatch => "nested_batch",
            InvalidKind::JsonrpcMissing => "jsonrpc_missing",
            InvalidKind::JsonrpcNotString(_) => "jsonrpc_not_string",
            InvalidKind::JsonrpcWrongVersion(_) => "jsonrpc_wrong_version",
            InvalidKind::IdNull => "id_null",
            InvalidKind::IdFloat => "id_float",
            InvalidKind::IdBool => "id_bool",
            InvalidKind::IdObject => "id_object",
            InvalidKind::IdArray => "id_array",
            InvalidKind::MethodNotString(_) => "method_not_string",
            InvalidKind::ParamsNotStructured(_) => "params_not_structured",
            InvalidKind::ResultAndError => "result_and_error",
            InvalidKind::NeitherResultNorError => "neither_result_nor_error",
            InvalidKind::ResultWithoutId => "result_without_id",
            InvalidKind::ErrorNotObject(_) => "error_not_object",
            InvalidKind::ErrorCodeMissing => "error_code_missing",
            InvalidKind::ErrorCodeNotInteger(_) => "error_code_not_integer",
            InvalidKind::ErrorMessageMissing => "error_message_missing",
            InvalidKind::ErrorMessageNotString(_) => "error_message_not_string",
            InvalidKind::MethodWithResult => "method_with_result",
        }
    }

    /// True when the text was not even parseable JSON (JSON-RPC -32700),
    /// false for JSON that is not a valid message (JSON-RPC -32600).
    pub fn is_parse_error(&self) -> bool {
        matches!(
            self,
            InvalidKind::NotJson { .. } | InvalidKind::IncompleteJson
        )
    }
}

impl fmt::Display for InvalidKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidKind::NotJson {
                line,
                column,
                reason,
            } => write!(f, "not JSON: {reason} at line {line} column {column}"),
            InvalidKind::IncompleteJson => {
                f.write_str("JSON ends early (a message broken across lines?)")
            }
            InvalidKind::NotAnObject(t) => write!(f, "message is {t}, not an object"),
            InvalidKind::EmptyBatch => f.write_str("empty batch `[]`"),
            InvalidKind::NestedBatch => f.write_str("batch element is itself an array"),
            InvalidKind::JsonrpcMissing => f.write_str("`jsonrpc` member is missing"),
            InvalidKind::JsonrpcNotString(t) => write!(f, "`jsonrpc` is {t}, not \"2.0\""),
            InvalidKind::JsonrpcWrongVersion(v) => write!(f, "`jsonrpc` is {v:?}, not \"2.0\""),
            InvalidKind::IdNull => f.write_str("request `id` is null"),
            InvalidKind::IdFloat => f.write_str("`id` is a non-integer number"),
            InvalidKind::IdBool => f.write_str("`id` is a boolean"),
            InvalidKind::IdObject => f.write_str("`id` is an object"),
            InvalidKind::IdArray => f.write_str("`id` is an array"),
            InvalidKind::MethodNotString(t) => write!(f, "`method` is {t}, not a string"),
            InvalidKind::ParamsNotStructured(t) => {
                write!(f, "`params` is {t}, neither an object nor an array")
            }
            InvalidKind::ResultAndError => f.write_str("response has both `result` and `error`"),
            InvalidKind::NeitherResultNorError => {
                f.write_str("no `method`, and neither `result` nor `error`")
            }
            InvalidKind::ResultWithoutId => f.write_str("`result` response has a null or no `id`"),
            InvalidKind::ErrorNotObject(t) => write!(f, "`error` is {t}, not an object"),
            InvalidKind::ErrorCodeMissing => f.write_str("`error.code` is missing"),
            InvalidKind::ErrorCodeNotInteger(t) => {
                write!(f, "`error.code` is {t}, not an integer")
            }
            InvalidKind::ErrorMessageMissing => f.write_str("`error.message` is missing"),
            InvalidKind::ErrorMessageNotString(t) => {
                write!(f, "`error.message` is {t}, not a string")
            }
            InvalidKind::MethodWithResult => {
                f.write_str("message has `method` and also `result` or `error`")
            }
        }
    }
}

/// An invalid message: what is wrong, and the id if one could be read (so a
/// receiver can answer `-32600` with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub kind: InvalidKind,
    pub id: Option<Id>,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for Invalid {}

impl Invalid {
    fn new(kind: InvalidKind) -> Self {
        Invalid { kind, id: None }
    }
}

/// Classifies one frame's bytes.
///
/// The same as parsing the bytes into a [`Value`] (as `serde_json::from_slice`
/// does) and classifying that — as [`classify_value`] for a single message, or
/// element by element for a batch — but without building the top-level object
/// (see `envelope`).
pub fn classify(bytes: &[u8]) -> Result<Inbound, Invalid> {
    envelope::classify_frame(bytes)
}

/// The [`Invalid`] for bytes that are not JSON.
fn parse_error(e: serde_json::Error) -> Invalid {
    Invalid::new(if e.is_eof() {
        InvalidKind::IncompleteJson
    } else {
        InvalidKind::NotJson {
            line: e.line(),
            column: e.column(),
            reason: syntax_reason(&e),
        }
    })
}

fn syntax_reason(e: &serde_json::Error) -> String {
    // serde_json renders "<reason> at line L column C"; keep only the reason.
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// Classifies one JSON value as a single message.
///
/// Checks, in order: object; `jsonrpc` present, a string, `"2.0"`; `id`
/// well-typed (read early so later errors can carry it); `method` a string;
/// for requests/notifications: no `result`/`error`, `params` structured,
/// `id` not null; for responses: not both / not neither of `result` and
/// `error`, a well-formed error object, a non-null id for results.
pub fn classify_value(v: &Value) -> Result<Message, Invalid> {
    match v {
        Value::Object(obj) => Envelope::from_map(obj).classify(),
        other => Err(Invalid::new(InvalidKind::NotAnObject(JsonType::of(other)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> InvalidKind {
        match classify(text.as_bytes()) {
            Err(e) => e.kind,
            Ok(Inbound::Batch(items)) => {
                items
                    .into_iter()
                    .find_map(Result::err)
                    .expect("a batch with an invalid element")
                    .kind
            }
            Ok(other) => panic!("{text} classified as valid: {other:?}"),
        }
    }

    fn single(text: &str) -> Message {
        match classify(text.as_bytes()) {
            Ok(Inbound::Single(m)) => m,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn each_defect_is_its_own_kind() {
        let cases: &[(&str, &str)] = &[
            (r#"{"jsonrpc":"2.0","id":1,"method":"a"#, "incomplete_json"),
            (r#"{"jsonrpc":"2.0",}"#, "not_json"),
            ("42", "not_an_object"),
            ("[]", "empty_batch"),
            ("[[]]", "nested_batch"),
            (r#"{"id":1,"method":"a"}"#, "jsonrpc_missing"),
            (r#"{"jsonrpc":2,"id":1,"method":"a"}"#, "jsonrpc_not_string"),
            (
                r#"{"jsonrpc":"1.0","id":1,"method":"a"}"#,
                "jsonrpc_wrong_version",
            ),
            (r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#, "id_null"),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#, "id_float"),
            (r#"{"jsonrpc":"2.0","id":true,"method":"a"}"#, "id_bool"),
            (r#"{"jsonrpc":"2.0","id":{},"method":"a"}"#, "id_object"),
            (r#"{"jsonrpc":"2.0","id":[1],"method":"a"}"#, "id_array"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
                "method_not_string",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"a","params":3}"#,
                "params_not_structured",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
                "result_and_error",
            ),
            (r#"{"jsonrpc":"2.0","id":1}"#, "neither_result_nor_error"),
            (
                r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
                "result_without_id",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":"x"}"#,
                "error_not_object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}"#,
                "error_code_missing",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"x"}}"#,
                "error_code_not_integer",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
                "error_message_missing",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}"#,
                "error_message_not_string",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"a","result":{}}"#,
                "method_with_result",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(kind(text).name(), *want, "{text}");
        }
    }

    #[test]
    fn invalid_request_keeps_its_id() {
        let err = classify(br#"{"jsonrpc":"2.0","id":"abc","method":7}"#).unwrap_err();
        assert_eq!(err.id, Some(Id::from("abc")));
        assert!(!err.kind.is_parse_error());
    }

    #[test]
    fn valid_messages_round_trip() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"cursor":"c"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x","data":[1]}}"#,
        ] {
            let m = single(text);
            assert_eq!(m.to_json(), text);
            assert_eq!(single(&m.to_json()), m);
        }
    }

    #[test]
    fn batch_elements_are_classified_individually() {
        let Ok(Inbound::Batch(items)) =
            classify(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":true,"method":"ping"}]"#)
        else {
            panic!("not a batch")
        };
        assert!(items[0].is_ok());
        assert_eq!(items[1].as_ref().unwrap_err().kind, InvalidKind::IdBool);
    }

    #[test]
    fn big_integer_ids_are_kept_exactly() {
        let m = single(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"a"}"#);
        assert_eq!(
            m.to_json(),
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"a"}"#
        );
    }
}
