//! Checking a value against a compiled matcher, collecting mismatches.

use super::json::{compare, json_eq};
use super::{Body, Matcher, Mismatch, Op, Presence};
use crate::bindings::Bindings;
use crate::template::TemplateError;
use serde_json::Value;

type Out = Vec<Mismatch>;

pub(crate) fn join(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_owned()
    } else {
        format!("{path}.{segment}")
    }
}

fn push(out: &mut Out, path: &str, expected: String, actual: Option<&Value>) {
    out.push(Mismatch {
        path: path.to_owned(),
        expected,
        actual: actual.cloned(),
    });
}

impl Matcher {
    pub(crate) fn check_into(
        &self,
        actual: Option<&Value>,
        path: &str,
        b: &mut Bindings,
        out: &mut Out,
    ) -> Result<(), TemplateError> {
        let Some(v) = actual else {
            if !matches!(self.presence, Presence::Absent | Presence::Optional) {
                push(out, path, self.describe_in(Some(b)), None);
            }
            return Ok(());
        };
        if self.presence == Presence::Absent {
            push(out, path, "<absent>".to_owned(), Some(v));
            return Ok(());
        }
        match &self.body {
            Body::Scalar(t) => {
                let expected = t.render(b)?;
                if !json_eq(&expected, v) {
                    push(out, path, expected.to_string(), Some(v));
                }
            }
            Body::List(items) => match v {
                Value::Array(actual) if actual.len() == items.len() => {
                    for (i, (m, a)) in items.iter().zip(actual).enumerate() {
                        m.check_into(Some(a), &join(path, &i.to_string()), b, out)?;
                    }
                }
                _ => push(out, path, self.describe_in(Some(b)), Some(v)),
            },
            Body::Map {
                ops,
                members,
                object,
            } => {
                let before = out.len();
                for op in ops {
                    op.check(v, path, b, out)?;
                }
                if *object {
                    match v {
                        Value::Object(map) => {
                            for (key, m) in members {
                                m.check_into(map.get(key), &join(path, key), b, out)?;
                            }
                        }
                        _ => push(out, path, self.describe_in(Some(b)), Some(v)),
                    }
                }
                if out.len() == before {
                    for op in ops {
                        match op {
                            Op::Capture(name) => b.set(name, v.clone()),
                            Op::Collect(name) => b.push(name, v.clone()),
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl Op {
    /// Check one operator (binding operators are applied by the caller).
    fn check(
        &self,
        v: &Value,
        path: &str,
        b: &mut Bindings,
        out: &mut Out,
    ) -> Result<(), TemplateError> {
        let fail =
            |out: &mut Out, b: &Bindings| push(out, path, self.describe_in(Some(b)), Some(v));
        match self {
            Op::Type(types) => {
                if !types.iter().any(|t| t.holds(v)) {
                    fail(out, b);
                }
            }
            Op::Regex(re) => {
                if !matches!(v, Value::String(s) if re.is_match(s)) {
                    fail(out, b);
                }
            }
            Op::OneOf(options) => {
                if !first_match(options.iter(), v, path, b)? {
                    fail(out, b);
                }
            }
            Op::Capture(_) | Op::Collect(_) => {}
            Op::Eq(t) => {
                if !json_eq(&t.render(b)?, v) {
                    fail(out, b);
                }
            }
            Op::Ne(t) => {
                if json_eq(&t.render(b)?, v) {
                    fail(out, b);
                }
            }
            Op::Cmp(op, t) => {
                let holds = match (v, t.render(b)?) {
                    (Value::Number(a), Value::Number(bound)) => compare(*op, a, &bound),
                    _ => false,
                };
                if !holds {
                    fail(out, b);
                }
            }
            Op::In(values) => {
                let mut found = false;
                for t in values {
                    if json_eq(&t.render(b)?, v) {
                        found = true;
                        break;
                    }
                }
                if !found {
                    fail(out, b);
                }
            }
            Op::Contains(m) => {
                let found = match v {
                    Value::Array(items) => contains(m, items, path, b)?,
                    _ => false,
                };
                if !found {
                    fail(out, b);
                }
            }
            Op::Each(m) => match v {
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        m.check_into(Some(item), &join(path, &i.to_string()), b, out)?;
                    }
                }
                _ => fail(out, b),
            },
            Op::Len(m) => {
                let len = match v {
                    Value::Array(items) => items.len(),
                    Value::String(s) => s.chars().count(),
                    Value::Object(map) => map.len(),
                    _ => {
                        fail(out, b);
                        return Ok(());
                    }
                };
                m.check_into(Some(&Value::from(len)), &format!("length({path})"), b, out)?;
            }
            Op::Not(m) => {
                let mut scratch = b.clone();
                if m.check(Some(v), path, &mut scratch)?.is_empty() {
                    fail(out, b);
                }
            }
            Op::Schema(t) => {
                if let Err(expected) = super::schema::validate(&t.render(b)?, v) {
                    push(out, path, expected, Some(v));
                }
            }
        }
        Ok(())
    }
}

/// Try each matcher against `v` on a copy of the bindings; keep the copy of
/// the first that matches.
fn first_match<'m>(
    options: impl Iterator<Item = &'m Matcher>,
    v: &Value,
    path: &str,
    b: &mut Bindings,
) -> Result<bool, TemplateError> {
    for m in options {
        let mut scratch = b.clone();
        if m.check(Some(v), path, &mut scratch)?.is_empty() {
            *b = scratch;
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether some element of `items` matches `m` (bindings of the first kept).
pub(super) fn contains(
    m: &Matcher,
    items: &[Value],
    path: &str,
    b: &mut Bindings,
) -> Result<bool, TemplateError> {
    for (i, item) in items.iter().enumerate() {
        let mut scratch = b.clone();
        if m.check(Some(item), &join(path, &i.to_string()), &mut scratch)?
            .is_empty()
        {
            *b = scratch;
            return Ok(true);
        }
    }
    Ok(false)
}
