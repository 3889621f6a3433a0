//! Reading a frame's top-level object member by member (issue #18).
//!
//! [`classify`](super::classify) used to parse each frame into a
//! `serde_json::Value` and then pick members out of the top-level map — a map
//! (an `IndexMap` under `preserve_order`, with an allocated, hashed key per
//! member) built only to be taken apart. Here the same `serde_json` parser
//! walks the same bytes, but the top level is read by serde visitors: the
//! members `jsonrpc`, `id`, `method`, `params`, `result` and `error` land in an
//! [`Envelope`], any other member is parsed and checked without being kept.
//!
//! What keeps the outcome identical to the `Value` path:
//!
//! - every value goes through `deserialize_any` (keys through
//!   `deserialize_str`) as `Value`'s own `Deserialize` does, so the parser sees
//!   the same calls — same syntax errors at the same line and column, same
//!   recursion limit, same end-of-input and trailing-characters checks;
//! - the visitors never fail on their own: only the parser's errors surface;
//! - a repeated member overwrites the earlier one, as `Map::insert` does;
//! - a JSON type is named as `JsonType::of` would name the `Value` (a
//!   non-finite float would be `null` there; the parser never yields one);
//! - [`Envelope::classify`] holds the order of checks, for this path and for
//!   [`classify_value`](super::classify_value) alike;
//! - a frame that is valid UTF-8 is read as a `&str` (serde_json's `StrRead`,
//!   which then skips its per-string UTF-8 check), any other as bytes
//!   (`SliceRead`, as `from_slice`): the two readers share everything else.
//!
//! This assumes serde_json's `arbitrary_precision` and `raw_value` features are
//! off (they are, workspace-wide: `Cargo.toml`); with them, numbers and raw
//! values reach a visitor as maps. The `differential` tests compare this path
//! with the old `Value`-based code over many inputs, and would catch that.

use serde::de::{self, DeserializeSeed, Deserializer as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

use super::{
    ErrorObject, Id, Inbound, Invalid, InvalidKind, JsonType, Message, Notification, Request,
    Response,
};

/// Classifies one frame's bytes (see [`super::classify`]).
pub(super) fn classify_frame(bytes: &[u8]) -> Result<Inbound, Invalid> {
    // One UTF-8 check of the whole frame (framed lines always pass it) spares
    // the parser one per string; both readers walk the same bytes the same
    // way and differ only in that check, so errors are unchanged. Bytes that
    // are not UTF-8 go to the checking reader, which reports the first
    // offending string as `serde_json::from_slice` does.
    match std::str::from_utf8(bytes) {
        Ok(text) => read_frame(serde_json::Deserializer::from_str(text)),
        Err(_) => read_frame(serde_json::Deserializer::from_slice(bytes)),
    }
}

fn read_frame<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> Result<Inbound, Invalid> {
    // As `serde_json::from_slice`: the value, then nothing but whitespace.
    let read = de.deserialize_any(Frame).and_then(|c| de.end().map(|()| c));
    read.map_err(super::parse_error)?
}

/// The members of a message object that classification looks at; `None` when
/// absent.
#[derive(Debug, Default)]
pub(super) struct Envelope {
    jsonrpc: Option<Version>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

/// The `jsonrpc` member, as far as classification cares.
#[derive(Debug)]
enum Version {
    V2,
    Other(String),
    NotString(JsonType),
}

impl Version {
    fn of(v: &Value) -> Self {
        match v {
            Value::String(s) => Version::of_str(s),
            other => Version::NotString(JsonType::of(other)),
        }
    }

    fn of_str(s: &str) -> Self {
        if s == "2.0" {
            Version::V2
        } else {
            Version::Other(s.to_owned())
        }
    }
}

impl Envelope {
    /// The members of an object already parsed (copies only the ones read).
    pub(super) fn from_map(obj: &Map<String, Value>) -> Self {
        Envelope {
            jsonrpc: obj.get("jsonrpc").map(Version::of),
            id: obj.get("id").cloned(),
            method: obj.get("method").cloned(),
            params: obj.get("params").cloned(),
            result: obj.get("result").cloned(),
            error: obj.get("error").cloned(),
        }
    }

    /// Classifies the message, checking in the order documented on
    /// [`super::classify_value`] (the object check is the caller's).
    pub(super) fn classify(self) -> Result<Message, Invalid> {
        let Envelope {
            jsonrpc,
            id,
            method,
            params,
            result,
            error,
        } = self;

        // Read the id first so every later error can carry it.
        let id_absent = id.is_none();
        let id: Result<Option<Id>, InvalidKind> = match id {
            None | Some(Value::Null) => Ok(None),
            Some(v @ (Value::String(_) | Value::Number(_))) => {
                Id::from_owned(v).map(Some).ok_or(InvalidKind::IdFloat)
            }
            Some(Value::Bool(_)) => Err(InvalidKind::IdBool),
            Some(Value::Object(_)) => Err(InvalidKind::IdObject),
            Some(Value::Array(_)) => Err(InvalidKind::IdArray),
        };
        let version = match jsonrpc {
            None => Err(InvalidKind::JsonrpcMissing),
            Some(Version::V2) => Ok(()),
            Some(Version::Other(s)) => Err(InvalidKind::JsonrpcWrongVersion(s)),
            Some(Version::NotString(t)) => Err(InvalidKind::JsonrpcNotString(t)),
        };
        // A bad `jsonrpc` is reported before a bad id, with the id if readable.
        let id = match (version, id) {
            (Ok(()), Ok(id)) => id,
            (Err(kind), Ok(id)) => return Err(Invalid { kind, id }),
            (Err(kind), Err(_)) | (Ok(()), Err(kind)) => return Err(Invalid::new(kind)),
        };
        let fail = |kind: InvalidKind, id: &Option<Id>| Invalid {
            kind,
            id: id.clone(),
        };

        if let Some(method) = method {
            let Value::String(method) = method else {
                return Err(fail(
                    InvalidKind::MethodNotString(JsonType::of(&method)),
                    &id,
                ));
            };
            if result.is_some() || error.is_some() {
                return Err(fail(InvalidKind::MethodWithResult, &id));
            }
            let params = match params {
                None => None,
                Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
                Some(p) => {
                    let kind = InvalidKind::ParamsNotStructured(JsonType::of(&p));
                    return Err(fail(kind, &id));
                }
            };
            return match (id_absent, id) {
                (true, _) => Ok(Message::Notification(Notification { method, params })),
                (false, None) => Err(Invalid::new(InvalidKind::IdNull)),
                (false, Some(id)) => Ok(Message::Request(Request { id, method, params })),
            };
        }

        let outcome = match (result, error) {
            (Some(_), Some(_)) => return Err(fail(InvalidKind::ResultAndError, &id)),
            (None, None) => return Err(fail(InvalidKind::NeitherResultNorError, &id)),
            (Some(result), None) => {
                if id.is_none() {
                    return Err(Invalid::new(InvalidKind::ResultWithoutId));
                }
                Ok(result)
            }
            (None, Some(error)) => match classify_error_object(error) {
                Ok(e) => Err(e),
                Err(kind) => return Err(fail(kind, &id)),
            },
        };
        Ok(Message::Response(Response {
            id,
            id_absent,
            outcome,
        }))
    }
}

fn classify_error_object(error: Value) -> Result<ErrorObject, InvalidKind> {
    let mut e = match error {
        Value::Object(e) => e,
        other => return Err(InvalidKind::ErrorNotObject(JsonType::of(&other))),
    };
    let code = match e.get("code") {
        None => return Err(InvalidKind::ErrorCodeMissing),
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or(InvalidKind::ErrorCodeNotInteger(JsonType::Float))?,
        Some(other) => return Err(InvalidKind::ErrorCodeNotInteger(JsonType::of(other))),
    };
    let message = match e.remove("message") {
        None => return Err(InvalidKind::ErrorMessageMissing),
        Some(Value::String(s)) => s,
        Some(other) => return Err(InvalidKind::ErrorMessageNotString(JsonType::of(&other))),
    };
    Ok(ErrorObject {
        code,
        message,
        data: e.remove("data"),
    })
}

/// The type `JsonType::of` gives the `Value` serde_json builds from an `f64`
/// (`Number::from_f64`, or `null` for a non-finite one).
fn float_type(f: f64) -> JsonType {
    if f.is_finite() {
        JsonType::Float
    } else {
        JsonType::Null
    }
}

/// The scalar `visit_*` methods of a visitor whose outcome depends only on
/// the scalar's [`JsonType`]: `$on` maps the type to the visitor's value.
/// `visit_str` (and so `visit_borrowed_str`, `visit_string`) is left to the
/// visitor; serde_json never calls the other methods from `deserialize_any`.
macro_rules! visit_scalars_by_type {
    ($on:expr) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($on(JsonType::Null))
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($on(JsonType::Bool))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($on(JsonType::Integer))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($on(JsonType::Integer))
        }
        fn visit_f64<E: de::Error>(self, f: f64) -> Result<Self::Value, E> {
            Ok($on(float_type(f)))
        }
    };
}

/// A whole frame: one message, a batch, or something else.
struct Frame;

impl<'de> Visitor<'de> for Frame {
    type Value = Result<Inbound, Invalid>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    visit_scalars_by_type!(|t| Err(Invalid::new(InvalidKind::NotAnObject(t))));

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err(Invalid::new(InvalidKind::NotAnObject(
            JsonType::String,
        ))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Element)? {
            items.push(item);
        }
        Ok(if items.is_empty() {
            Err(Invalid::new(InvalidKind::EmptyBatch))
        } else {
            Ok(Inbound::Batch(items))
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(read_envelope(map)?.classify().map(Inbound::Single))
    }
}

/// One element of a batch: a message, or what it is instead.
struct Element;

impl<'de> DeserializeSeed<'de> for Element {
    type Value = Result<Message, Invalid>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Element {
    type Value = Result<Message, Invalid>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    visit_scalars_by_type!(|t| Err(Invalid::new(InvalidKind::NotAnObject(t))));

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err(Invalid::new(InvalidKind::NotAnObject(
            JsonType::String,
        ))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Skip.visit_seq(seq)?;
        Ok(Err(Invalid::new(InvalidKind::NestedBatch)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(read_envelope(map)?.classify())
    }
}

/// Reads a message object's members: the ones classification uses into an
/// [`Envelope`] (the last of repeated ones wins), the others parsed and dropped.
fn read_envelope<'de, A: MapAccess<'de>>(mut map: A) -> Result<Envelope, A::Error> {
    let mut env = Envelope::default();
    while let Some(key) = map.next_key_seed(KeySeed)? {
        match key {
            Key::Jsonrpc => env.jsonrpc = Some(map.next_value_seed(VersionSeed)?),
            Key::Id => env.id = Some(map.next_value()?),
            Key::Method => env.method = Some(map.next_value()?),
            Key::Params => env.params = Some(map.next_value()?),
            Key::Result => env.result = Some(map.next_value()?),
            Key::Error => env.error = Some(map.next_value()?),
            Key::Other => {
                map.next_value_seed(Skip)?;
            }
        }
    }
    Ok(env)
}

/// A member name, read without allocating.
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        // As `Value`'s map keys are read.
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
        Ok(match s {
            "jsonrpc" => Key::Jsonrpc,
            "id" => Key::Id,
            "method" => Key::Method,
            "params" => Key::Params,
            "result" => Key::Result,
            "error" => Key::Error,
            _ => Key::Other,
        })
    }
}

/// The `jsonrpc` member's value: `"2.0"` is recognised without allocating.
struct VersionSeed;

impl<'de> DeserializeSeed<'de> for VersionSeed {
    type Value = Version;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Version, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for VersionSeed {
    type Value = Version;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    visit_scalars_by_type!(Version::NotString);

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Version, E> {
        Ok(Version::of_str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Version, A::Error> {
        Skip.visit_seq(seq).map(Version::NotString)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Version, A::Error> {
        Skip.visit_map(map).map(Version::NotString)
    }
}

/// Any value, parsed exactly as `Value` would be (strings and numbers
/// included: `IgnoredAny` would skim them more leniently) but not kept; yields
/// its type.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = JsonType;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<JsonType, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = JsonType;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    visit_scalars_by_type!(|t| t);

    fn visit_str<E: de::Error>(self, _: &str) -> Result<JsonType, E> {
        Ok(JsonType::String)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonType, A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(JsonType::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonType, A::Error> {
        while map.next_key_seed(KeySeed)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(JsonType::Object)
    }
}
