//! Templates: JSON values whose strings may contain `${name}` or
//! `${name.path.0.key}`, rendered against [`Bindings`].
//!
//! - A string that is exactly `${x}` becomes the bound value with its JSON type.
//! - Otherwise each `${x}` is formatted into the string: strings as they
//!   are, other values as compact JSON.
//! - A string that is exactly `${x?}` is optional: when `x` is unbound the
//!   object member or array element holding it is removed.
//! - Object member names may hold `${x}` too (formatted in, never optional):
//!   `arguments: { "${param.property}": "v" }`.
//! - Any other unbound variable is a [`TemplateError`]: the scenario is wrong.
//!
//! Template syntax is checked when the scenario loads ([`Template::new`]), so
//! rendering can only fail on unbound variables.

use crate::bindings::Bindings;
use serde_json::Value;

/// A variable was not bound when a template was rendered. The scenario file
/// is at fault (it uses a variable no earlier step binds).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("variable `${{{name}}}` is not bound (the scenario uses a variable no earlier step binds)")]
pub struct TemplateError {
    /// The dotted path that was not bound, without `${` `}`.
    pub name: String,
}

/// A JSON value with `${..}` substitutions in its strings.
#[derive(Debug, Clone, PartialEq)]
pub struct Template(Value);

/// One piece of a template string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    Text(&'a str),
    Var(&'a str),
}

impl Template {
    /// Check every string's `${..}` syntax; the message says what is wrong.
    pub fn new(value: Value) -> Result<Template, String> {
        check_value(&value)?;
        Ok(Template(value))
    }

    /// The unrendered value.
    pub fn value(&self) -> &Value {
        &self.0
    }

    /// Render; a whole template of `${x?}` with `x` unbound renders as `null`
    /// (use [`Template::render_opt`] to tell that apart).
    pub fn render(&self, b: &Bindings) -> Result<Value, TemplateError> {
        Ok(self.render_opt(b)?.unwrap_or(Value::Null))
    }

    /// Render; `None` when the whole template is `${x?}` and `x` is unbound.
    pub fn render_opt(&self, b: &Bindings) -> Result<Option<Value>, TemplateError> {
        render_value(&self.0, b)
    }

    /// The variables this template uses (dotted paths), in order of appearance.
    pub fn variables(&self) -> Vec<String> {
        let mut out = Vec::new();
        collect_vars(&self.0, &mut out, true);
        out
    }

    /// The variables rendering needs bound: all but the optional `${x?}` ones.
    pub fn required_variables(&self) -> Vec<String> {
        let mut out = Vec::new();
        collect_vars(&self.0, &mut out, false);
        out
    }
}

/// The variables a `raw` text uses.
pub(crate) fn str_variables(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    collect_vars(&Value::String(text.to_owned()), &mut out, false);
    out
}

/// Render a string with every `${x}` formatted into it (used for `raw` text).
pub fn render_str(text: &str, b: &Bindings) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(text.len());
    for piece in pieces(text) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Var(name) => {
                let name = name.trim_end_matches('?');
                let value = b.get(name).ok_or_else(|| TemplateError {
                    name: name.to_owned(),
                })?;
                push_formatted(&mut out, value);
            }
        }
    }
    Ok(out)
}

/// Check a string's `${..}` syntax. `optional_ok`: `${x?}` may be the whole string.
pub(crate) fn check_str(text: &str, optional_ok: bool) -> Result<(), String> {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "unterminated `${{` in {text:?} (write `${{name}}`)"
            ));
        };
        let inner = &after[..end];
        let (name, optional) = match inner.strip_suffix('?') {
            Some(name) => (name, true),
            None => (inner, false),
        };
        if !is_var_path(name) {
            return Err(format!(
                "invalid variable `${{{inner}}}` in {text:?} (names are dotted paths of letters, digits, `_` and `-`)"
            ));
        }
        if optional && !(optional_ok && text == format!("${{{inner}}}")) {
            return Err(format!(
                "`${{{inner}}}` must be the whole string: an optional variable removes the member or element holding it"
            ));
        }
        rest = &after[end + 1..];
    }
    Ok(())
}

/// A dotted path of `[A-Za-z0-9_-]+` segments.
pub(crate) fn is_var_path(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// Split a (checked) template string into text and variables.
pub(crate) fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        if start > 0 {
            out.push(Piece::Text(&rest[..start]));
        }
        out.push(Piece::Var(&after[..end]));
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

fn check_value(value: &Value) -> Result<(), String> {
    match value {
        Value::String(s) => check_str(s, true),
        Value::Array(items) => items.iter().try_for_each(check_value),
        Value::Object(map) => map
            .iter()
            .try_for_each(|(k, v)| check_str(k, false).and_then(|()| check_value(v))),
        _ => Ok(()),
    }
}

fn collect_vars(value: &Value, out: &mut Vec<String>, optional_too: bool) {
    match value {
        Value::String(s) => {
            for piece in pieces(s) {
                if let Piece::Var(name) = piece {
                    match name.strip_suffix('?') {
                        Some(name) if optional_too => out.push(name.to_owned()),
                        Some(_) => {}
                        None => out.push(name.to_owned()),
                    }
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| collect_vars(v, out, optional_too)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            // A member name may be a template too (never an optional one).
            collect_vars(&Value::String(k.clone()), out, false);
            collect_vars(v, out, optional_too);
        }),
        _ => {}
    }
}

/// `None`: an optional variable was unbound, remove the holder.
fn render_value(value: &Value, b: &Bindings) -> Result<Option<Value>, TemplateError> {
    Ok(Some(match value {
        Value::String(s) => return render_string(s, b),
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                if let Some(v) = render_value(item, b)? {
                    out.push(v);
                }
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                if let Some(v) = render_value(v, b)? {
                    let k = if k.contains("${") {
                        render_str(k, b)?
                    } else {
                        k.clone()
                    };
                    out.insert(k, v);
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }))
}

fn render_string(s: &str, b: &Bindings) -> Result<Option<Value>, TemplateError> {
    let parts = pieces(s);
    if let [Piece::Var(inner)] = parts.as_slice() {
        if let Some(name) = inner.strip_suffix('?') {
            return Ok(b.get(name).cloned());
        }
        return b
            .get(inner)
            .cloned()
            .map(Some)
            .ok_or_else(|| TemplateError {
                name: (*inner).to_owned(),
            });
    }
    render_str(s, b).map(|s| Some(Value::String(s)))
}

fn push_formatted(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => out.push_str(s),
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bindings() -> Bindings {
        let mut b = Bindings::new();
        b.set("version", json!("2025-06-18"));
        b.set("n", json!(3));
        b.set("obj", json!({"a": [1, {"b": "x"}]}));
        b
    }

    #[test]
    fn member_names_render() {
        let t = Template::new(json!({"${version}-k": {"${n}": "v"}})).expect("valid");
        assert_eq!(
            t.render(&bindings()),
            Ok(json!({"2025-06-18-k": {"3": "v"}}))
        );
        assert!(t.required_variables().contains(&"n".to_owned()));
        assert!(
            Template::new(json!({"${x?}": 1})).is_err(),
            "no optional names"
        );
    }

    #[test]
    fn whole_string_keeps_type() {
        let t = Template::new(json!({"v": "${version}", "n": "${n}", "o": "${obj.a.1}"}))
            .expect("valid");
        assert_eq!(
            t.render(&bindings()),
            Ok(json!({"v": "2025-06-18", "n": 3, "o": {"b": "x"}}))
        );
    }

    #[test]
    fn embedded_is_formatted() {
        let t =
            Template::new(json!("v=${version} n=${n} o=${obj.a.1} b=${obj.a.1.b}")).expect("valid");
        assert_eq!(
            t.render(&bindings()),
            Ok(json!(r#"v=2025-06-18 n=3 o={"b":"x"} b=x"#))
        );
    }

    #[test]
    fn optional_removes_member_and_element() {
        let t =
            Template::new(json!({"cursor": "${cursor?}", "list": ["${cursor?}", 1], "n": "${n?}"}))
                .expect("valid");
        assert_eq!(t.render(&bindings()), Ok(json!({"list": [1], "n": 3})));
        let whole = Template::new(json!("${cursor?}")).expect("valid");
        assert_eq!(whole.render_opt(&bindings()), Ok(None));
    }

    #[test]
    fn unbound_is_an_error() {
        let t = Template::new(json!({"a": ["x ${missing.path} y"]})).expect("valid");
        assert_eq!(
            t.render(&bindings()),
            Err(TemplateError {
                name: "missing.path".into()
            })
        );
        assert_eq!(t.variables(), vec!["missing.path".to_owned()]);
    }

    #[test]
    fn syntax_is_checked() {
        assert!(Template::new(json!("${")).is_err());
        assert!(Template::new(json!("${}")).is_err());
        assert!(Template::new(json!("${a b}")).is_err());
        assert!(Template::new(json!("x ${a?}")).is_err());
        assert!(Template::new(json!("$ {a} and $x")).is_ok());
    }
}
