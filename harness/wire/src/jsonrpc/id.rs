//! Request ids: a string or an integer, compared by value.

use serde_json::{Number, Value};
use std::fmt;

/// A JSON-RPC request id as MCP allows it: a string or an integer.
///
/// "Integer" is the JSON Schema's: a number whose value has no fractional
/// part, however it is written — `0`, `-0`, `0.0`, `-0.0` and `0e0` are
/// one id, and `1e2` is the id `100`. Ids compare (and hash) by value:
/// a response with the id `0` answers the request `-0.0`. A string never
/// equals a number (`"0"` is not `0`). The written form is kept, so an id
/// is echoed as it came.
#[derive(Debug, Clone)]
pub enum Id {
    Number(Number),
    String(String),
}

/// What an id is, for comparison: the value of a number, the text of a string.
#[derive(PartialEq, Eq, Hash)]
enum IdKey<'a> {
    Integer(i128),
    /// A number that is no integer, or one beyond `i128` (its bits; `-0.0`
    /// never gets here).
    Float(u64),
    String(&'a str),
}

impl Id {
    /// The id a JSON value is, if it is a string or an integer-valued number.
    pub fn from_value(v: &Value) -> Option<Id> {
        match v {
            Value::String(s) => Some(Id::String(s.clone())),
            Value::Number(n) if integer_valued(n) => Some(Id::Number(n.clone())),
            _ => None,
        }
    }

    /// [`Id::from_value`] on an owned value: a string id is moved, not copied.
    pub(crate) fn from_owned(v: Value) -> Option<Id> {
        match v {
            Value::String(s) => Some(Id::String(s)),
            Value::Number(n) if integer_valued(&n) => Some(Id::Number(n)),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::String(s.clone()),
        }
    }

    /// An integer written with a fraction or an exponent (`-0.0`, `1e2`):
    /// the schema's integer, but one that readers which parse it as a
    /// float may refuse.
    pub fn written_as_float(&self) -> bool {
        matches!(self, Id::Number(n) if n.is_f64())
    }

    fn key(&self) -> IdKey<'_> {
        match self {
            Id::String(s) => IdKey::String(s),
            Id::Number(n) => {
                if let Some(i) = n.as_i64() {
                    IdKey::Integer(i128::from(i))
                } else if let Some(u) = n.as_u64() {
                    IdKey::Integer(i128::from(u))
                } else {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    // 2^127: every integral f64 below it converts exactly.
                    if f.fract() == 0.0 && f.abs() < 1.7e38 {
                        IdKey::Integer(f as i128)
                    } else {
                        IdKey::Float(f.to_bits())
                    }
                }
            }
        }
    }
}

/// Whether a JSON number is an integer in the JSON Schema's sense.
fn integer_valued(n: &Number) -> bool {
    !n.is_f64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

impl PartialEq for Id {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Id {}

impl std::hash::Hash for Id {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n.into())
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "{s:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{classify, Inbound, InvalidKind, Message};

    fn single(text: &str) -> Message {
        match classify(text.as_bytes()) {
            Ok(Inbound::Single(m)) => m,
            other => panic!("{text}: {other:?}"),
        }
    }

    fn kind(text: &str) -> InvalidKind {
        classify(text.as_bytes()).expect_err("invalid").kind
    }

    #[test]
    fn ids_are_equal_by_value_and_strings_are_not_numbers() {
        use std::collections::HashSet;
        let num = |text: &str| Id::from_value(&serde_json::from_str(text).unwrap()).unwrap();
        let zeros: Vec<Id> = ["0", "-0", "0.0", "-0.0", "0e0", "-0E+3"]
            .iter()
            .map(|t| num(t))
            .collect();
        for z in &zeros {
            assert_eq!(z, &Id::from(0), "{z}");
        }
        // Equal ids hash alike: a map keyed by id finds `0` under `-0.0`.
        assert_eq!(zeros.iter().cloned().collect::<HashSet<_>>().len(), 1);
        assert_eq!(num("1e2"), Id::from(100));
        assert_eq!(num("10000000000000000000"), num("1e19"));
        assert_ne!(num("-1"), num("18446744073709551615"));
        assert_ne!(Id::from("0"), Id::from(0));
        assert_ne!(num("7"), num("8.0"));
        // Not integers: no id.
        assert_eq!(Id::from_value(&serde_json::json!(0.5)), None);
        assert_eq!(Id::from_value(&serde_json::json!(true)), None);
    }

    #[test]
    fn an_integer_written_as_a_float_is_an_id_kept_as_written() {
        let m = single(r#"{"jsonrpc":"2.0","id":-0.0,"method":"ping"}"#);
        let Message::Request(r) = &m else {
            panic!("{m:?}")
        };
        assert_eq!(r.id, Id::from(0));
        assert!(r.id.written_as_float());
        assert!(!Id::from(0).written_as_float());
        assert_eq!(
            m.to_json(),
            r#"{"jsonrpc":"2.0","id":-0.0,"method":"ping"}"#
        );
        // A response to it may say `0`.
        let Message::Response(resp) = single(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#) else {
            panic!()
        };
        assert_eq!(resp.id.as_ref(), Some(&r.id));
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":0.5,"method":"a"}"#).name(),
            "id_float"
        );
    }
}
