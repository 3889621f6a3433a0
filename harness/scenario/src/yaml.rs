//! Pass 1 of loading: YAML text → a generic value tree where every node knows
//! its line and column.
//!
//! serde-saphyr does the YAML 1.2 parsing (strict booleans: only
//! `true`/`false`; `yes` stays a string). We deserialize into [`Node`] rather
//! than into the typed model so that pass 2 can point at the exact node that
//! is wrong, whatever is wrong with it.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// 1-based line and character column of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub column: usize,
}

/// A YAML node with its position.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub kind: Kind,
    pub at: Pos,
}

/// The value of a node. Map entries keep their order and their keys' positions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Kind {
    /// What this node is, for messages: "a string", "a map", ….
    pub fn describe(&self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Number(_) => "a number",
            Kind::String(_) => "a string",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a map",
        }
    }
}

impl Node {
    /// The node as plain JSON (positions dropped). Map keys that are not
    /// strings are written as their JSON text.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Number(n) => Value::Number(n.clone()),
            Kind::String(s) => Value::String(s.clone()),
            Kind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let key = match &k.kind {
                            Kind::String(s) => s.clone(),
                            _ => k.to_json().to_string(),
                        };
                        (key, v.to_json())
                    })
                    .collect(),
            ),
        }
    }
}

/// A YAML syntax error: message and position.
#[derive(Debug)]
pub(crate) struct SyntaxError {
    pub message: String,
    pub at: Option<Pos>,
}

/// Parse one YAML document into a [`Node`] tree.
pub(crate) fn parse(text: &str) -> Result<Node, SyntaxError> {
    let options = serde_saphyr::options! { strict_booleans: true };
    serde_saphyr::from_str_with_options::<Node>(text, options).map_err(|e| {
        let at = e.location().map(|l| Pos {
            line: usize::try_from(l.line()).unwrap_or(usize::MAX),
            column: usize::try_from(l.column()).unwrap_or(usize::MAX),
        });
        let mut message = e.without_snippet().to_string();
        // The position is reported separately; drop saphyr's "at line X, column Y"
        // suffix (and its "line X column Y: " prefix) from the message.
        if let Some(i) = message.rfind(" at line ") {
            message.truncate(i);
        }
        if let Some(rest) = message.strip_prefix("error: line ") {
            if let Some((_, m)) = rest.split_once(": ") {
                message = m.to_owned();
            }
        }
        SyntaxError { message, at }
    })
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        let spanned = Spanned::<Kind>::deserialize(d)?;
        let at = Pos {
            line: usize::try_from(spanned.referenced.line()).unwrap_or(usize::MAX),
            column: usize::try_from(spanned.referenced.column()).unwrap_or(usize::MAX),
        };
        Ok(Node {
            kind: spanned.value,
            at,
        })
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        d.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        Kind::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Kind, E> {
        Ok(Kind::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Kind, E> {
        Ok(Kind::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Kind, E> {
        Ok(Kind::Number(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Kind, E> {
        i64::try_from(v)
            .map(|v| Kind::Number(v.into()))
            .map_err(|_| E::custom("integer out of range"))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Kind, E> {
        u64::try_from(v)
            .map(|v| Kind::Number(v.into()))
            .map_err(|_| E::custom("integer out of range"))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Kind, E> {
        serde_json::Number::from_f64(v)
            .map(Kind::Number)
            .ok_or_else(|| E::custom("numbers must be finite (JSON has no NaN or infinity)"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Kind, E> {
        Ok(Kind::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Kind, E> {
        Ok(Kind::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Kind::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Node>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Kind::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_scalars() {
        let n = parse("a: yes\nb: true\nc: [1, 2.5, null]\nd: \"1\"\n").expect("parses");
        let Kind::Map(entries) = &n.kind else {
            panic!("not a map")
        };
        assert_eq!(entries[0].1.kind, Kind::String("yes".into()));
        assert_eq!(entries[1].1.kind, Kind::Bool(true));
        assert_eq!(entries[2].1.at, Pos { line: 3, column: 4 });
        assert_eq!(entries[3].1.kind, Kind::String("1".into()));
        assert_eq!(
            n.to_json(),
            serde_json::json!({"a": "yes", "b": true, "c": [1, 2.5, null], "d": "1"})
        );
    }

    #[test]
    fn syntax_error_has_position() {
        let e = parse("a: [1, 2\n").expect_err("unclosed");
        assert_eq!(e.at, Some(Pos { line: 1, column: 4 }));
        assert_eq!(e.message, "unclosed bracket '['");
        let e = parse("a: 1\na: 2\n").expect_err("duplicate");
        assert_eq!(e.at, Some(Pos { line: 2, column: 1 }));
        assert!(
            e.message.starts_with("duplicate mapping key: a"),
            "{}",
            e.message
        );
    }
}
