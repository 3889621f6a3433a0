//! SEP-2243 custom headers (2026-07-28, Streamable HTTP): a tool's
//! `inputSchema` may mark parameters with `x-mcp-header: Name`, and a
//! client then mirrors each such argument of a `tools/call` into an
//! `Mcp-Param-Name` request header, which the server checks against the
//! body (`basic/transports/streamable-http#custom-headers-from-tool-parameters`).
//!
//! This module is the one place that knows the rules, for every side of
//! the harness: the oracle (a server's listed tools, a client's headers),
//! the reference server (checks the headers it gets) and the reference
//! client (drops invalid tools, mirrors and encodes the arguments).
//!
//! - [`annotations`]: the annotations of a schema, or why they are invalid
//!   (`#schema-extension`): a non-empty RFC 9110 token, unique ignoring
//!   case, on a property reached from the root by `properties` keys alone,
//!   whose type is not `number`, `object`, `array` or `null`.
//! - [`text_of`]: an argument's string form (`#value-encoding`): strings as
//!   they are, integers in decimal, booleans `true`/`false`; `null` and
//!   non-primitives have none (the header is left out).
//! - [`encode`] / [`decode`]: the Base64 sentinel `=?base64?…?=` (standard
//!   alphabet, padded), used when the text is not a safe plain value — a
//!   byte outside visible ASCII, space and tab, surrounding whitespace, or
//!   text that itself looks like the sentinel.
//!
//! Only clear breaches make an annotation invalid: a property without a
//! `type` (or with `enum` alone) is not judged, so neither a server nor a
//! client is blamed for a schema the rules do not settle.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::Value;

/// The schema member that marks a parameter.
pub const ANNOTATION: &str = "x-mcp-header";

/// The prefix of a mirrored parameter's header name.
pub const HEADER_PREFIX: &str = "Mcp-Param-";

/// One valid annotation: where the parameter sits and the header it gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The chain of `properties` keys from the schema root to the parameter.
    pub path: Vec<String>,
    /// The annotation's value, the header name's tail.
    pub name: String,
    /// The parameter's declared type, when it declares one.
    pub kind: Option<Kind>,
}

impl Annotation {
    /// The full header name, `Mcp-Param-{name}`.
    pub fn header(&self) -> String {
        format!("{HEADER_PREFIX}{}", self.name)
    }

    /// The argument this annotation mirrors, in a `tools/call`'s `arguments`
    /// (`None` when absent or `null`).
    pub fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        let mut at = arguments;
        for key in &self.path {
            at = at.get(key)?;
        }
        (!at.is_null()).then_some(at)
    }
}

/// The primitive types an annotated parameter may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    String,
    Integer,
    Boolean,
}

/// The valid annotations of a tool's `inputSchema` (none when it has no
/// annotation), or the reason the tool definition is invalid.
pub fn annotations(schema: &Value) -> Result<Vec<Annotation>, String> {
    let mut found = Vec::new();
    walk(schema, Some(&mut Vec::new()), &mut found)?;
    let mut seen: Vec<String> = Vec::new();
    for a in &found {
        let lower = a.name.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!(
                "x-mcp-header {:?} is used twice (names are compared ignoring case)",
                a.name
            ));
        }
        seen.push(lower);
    }
    Ok(found)
}

/// Keywords whose values are data, not subschemas.
const DATA_KEYWORDS: [&str; 5] = ["const", "enum", "default", "examples", "required"];

/// Walks one schema node; `path` is `Some` while the node is statically
/// reachable (the chain of `properties` keys that led here).
fn walk(
    node: &Value,
    path: Option<&mut Vec<String>>,
    found: &mut Vec<Annotation>,
) -> Result<(), String> {
    let Value::Object(map) = node else {
        if let Value::Array(items) = node {
            for item in items {
                walk(item, None, found)?;
            }
        }
        return Ok(());
    };
    let mut path = path;
    if let Some(value) = map.get(ANNOTATION) {
        let Some(at) = path.as_deref().filter(|p| !p.is_empty()) else {
            return Err(format!(
                "x-mcp-header {value} is not on a property reached from the schema root through `properties` alone"
            ));
        };
        found.push(annotation(at, value, map.get("type"))?);
    }
    for (key, value) in map {
        match key.as_str() {
            ANNOTATION => {}
            k if DATA_KEYWORDS.contains(&k) => {}
            "properties" => {
                let Value::Object(props) = value else {
                    continue;
                };
                for (name, sub) in props {
                    match path.as_deref_mut() {
                        Some(p) => {
                            p.push(name.clone());
                            let r = walk(sub, Some(p), found);
                            p.pop();
                            r?;
                        }
                        None => walk(sub, None, found)?,
                    }
                }
            }
            _ => walk(value, None, found)?,
        }
    }
    Ok(())
}

fn annotation(path: &[String], value: &Value, ty: Option<&Value>) -> Result<Annotation, String> {
    let at = path.join(".");
    let Some(name) = value.as_str() else {
        return Err(format!("x-mcp-header of {at} is {value}, not a string"));
    };
    if name.is_empty() {
        return Err(format!("x-mcp-header of {at} is empty"));
    }
    if let Some(c) = name.chars().find(|&c| !is_tchar(c)) {
        return Err(format!(
            "x-mcp-header {name:?} of {at} holds {c:?}, which an HTTP field name (a token) may not"
        ));
    }
    let types: Vec<&str> = match ty {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if let Some(bad) = types
        .iter()
        .find(|t| !matches!(**t, "string" | "integer" | "boolean"))
    {
        return Err(format!(
            "x-mcp-header {name:?} is on {at}, of type {bad}; only string, integer and boolean parameters may be mirrored"
        ));
    }
    let kind = match types.as_slice() {
        ["string"] => Some(Kind::String),
        ["integer"] => Some(Kind::Integer),
        ["boolean"] => Some(Kind::Boolean),
        _ => None,
    };
    Ok(Annotation {
        path: path.to_vec(),
        name: name.to_owned(),
        kind,
    })
}

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// An argument's header text (before encoding); `None` for `null`,
/// objects, arrays and non-integral numbers.
pub fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Some(i.to_string()),
            (_, Some(u)) => Some(u.to_string()),
            _ => n
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0)
                // Integral, within the safe range: the cast is exact.
                .map(|f| (f as i64).to_string()),
        },
        _ => None,
    }
}

/// True when `text` cannot travel as a plain header value.
pub fn needs_encoding(text: &str) -> bool {
    let unsafe_byte = text
        .bytes()
        .any(|b| b != b'\t' && !(0x20..0x7f).contains(&b));
    let padded = text.starts_with([' ', '\t']) || text.ends_with([' ', '\t']);
    unsafe_byte || padded || is_sentinel(text)
}

/// `=?base64?…?=` (the markers are case-sensitive).
pub fn is_sentinel(text: &str) -> bool {
    text.len() >= "=?base64??=".len() && text.starts_with("=?base64?") && text.ends_with("?=")
}

/// The header value for `text`: as it is when safe, else the sentinel form.
pub fn encode(text: &str) -> String {
    if needs_encoding(text) {
        format!("=?base64?{}?=", STANDARD.encode(text.as_bytes()))
    } else {
        text.to_owned()
    }
}

/// A received header value as it compares with the body: surrounding
/// whitespace dropped, the sentinel form decoded. `None` when malformed:
/// bytes outside visible ASCII, space and tab, or a sentinel whose payload
/// is not padded standard Base64 of UTF-8 text.
pub fn decode(raw: &[u8]) -> Option<String> {
    if raw
        .iter()
        .any(|&b| b != b'\t' && !(0x20..0x7f).contains(&b))
    {
        return None;
    }
    let text = std::str::from_utf8(raw).ok()?.trim_matches([' ', '\t']);
    if is_sentinel(text) {
        let coded = &text["=?base64?".len()..text.len() - "?=".len()];
        String::from_utf8(STANDARD.decode(coded).ok()?).ok()
    } else {
        Some(text.to_owned())
    }
}

/// Whether a decoded header value carries `value` (integers compared as
/// numbers, so `42.0` matches 42).
pub fn agrees(decoded: &str, value: &Value) -> bool {
    match value {
        Value::Number(n) => match (decoded.trim().parse::<f64>(), n.as_f64()) {
            (Ok(h), Some(b)) => h == b,
            _ => false,
        },
        other => text_of(other).as_deref() == Some(decoded),
    }
}

#[cfg(test)]
mod tests;
