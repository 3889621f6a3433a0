//! JSON helpers for matching: equality where numbers compare by value,
//! numeric comparison, and `$type` names.

use super::{Cmp, JsonType};
use serde_json::{Number, Value};
use std::cmp::Ordering;

/// Equality where `1` equals `1.0`; objects compare as maps (member order ignored).
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_cmp(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Compare two numbers: exactly when both are integers, as f64 otherwise.
pub(crate) fn num_cmp(x: &Number, y: &Number) -> Option<Ordering> {
    match (as_i128(x), as_i128(y)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => x.as_f64()?.partial_cmp(&y.as_f64()?),
    }
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Whether `actual <op> bound` holds.
pub(crate) fn compare(op: Cmp, actual: &Number, bound: &Number) -> bool {
    let Some(ord) = num_cmp(actual, bound) else {
        return false;
    };
    match op {
        Cmp::Gt => ord == Ordering::Greater,
        Cmp::Gte => ord != Ordering::Less,
        Cmp::Lt => ord == Ordering::Less,
        Cmp::Lte => ord != Ordering::Greater,
    }
}

impl Cmp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            Cmp::Gt => ">",
            Cmp::Gte => ">=",
            Cmp::Lt => "<",
            Cmp::Lte => "<=",
        }
    }
}

impl JsonType {
    /// Every type, in the order messages and the file schema list them.
    pub(crate) const ALL: [JsonType; 7] = [
        JsonType::String,
        JsonType::Integer,
        JsonType::Number,
        JsonType::Boolean,
        JsonType::Object,
        JsonType::Array,
        JsonType::Null,
    ];

    /// The type names, in order.
    pub(crate) fn names() -> Vec<&'static str> {
        JsonType::ALL.iter().map(|t| t.as_str()).collect()
    }

    pub(crate) fn parse(name: &str) -> Option<JsonType> {
        JsonType::ALL.into_iter().find(|t| t.as_str() == name)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Null => "null",
        }
    }

    /// Whether `v` has this type (`1.0` is an integer, as in JSON Schema).
    pub(crate) fn holds(self, v: &Value) -> bool {
        match (self, v) {
            (JsonType::String, Value::String(_))
            | (JsonType::Number, Value::Number(_))
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Object, Value::Object(_))
            | (JsonType::Array, Value::Array(_))
            | (JsonType::Null, Value::Null) => true,
            (JsonType::Integer, Value::Number(n)) => {
                n.is_i64()
                    || n.is_u64()
                    || n.as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
            }
            _ => false,
        }
    }
}
