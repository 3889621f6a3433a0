//! Matchers as human text, for the Expected side of a failure:
//! `{protocolVersion: "2025-06-18", serverInfo: {name: <string>}}`.
//!
//! Literal values are JSON; keys are bare; `<...>` marks a class of values
//! (`<string>`, `<absent>`, `<any>`); an optional member is written `key?:`.

use super::{Body, Matcher, Op, Presence};
use crate::bindings::Bindings;
use crate::template::Template;

impl Matcher {
    pub(crate) fn describe_in(&self, b: Option<&Bindings>) -> String {
        match self.presence {
            Presence::Absent => return "<absent>".to_owned(),
            Presence::Present if self.is_any() => return "<present>".to_owned(),
            _ => {}
        }
        match &self.body {
            Body::Scalar(t) => literal(t, b),
            Body::List(items) => {
                let parts: Vec<String> = items.iter().map(|m| m.describe_in(b)).collect();
                format!("[{}]", parts.join(", "))
            }
            Body::Map {
                ops,
                members,
                object,
            } => {
                let mut parts: Vec<String> =
                    ops.iter().filter_map(|op| op.describe_opt(b)).collect();
                if *object {
                    let fields: Vec<String> = members
                        .iter()
                        .map(|(key, m)| match m.presence {
                            Presence::Optional => format!("{key}?: {}", m.describe_in(b)),
                            _ => format!("{key}: {}", m.describe_in(b)),
                        })
                        .collect();
                    parts.push(format!("{{{}}}", fields.join(", ")));
                }
                match parts.len() {
                    0 => "<any>".to_owned(),
                    1 => parts.remove(0),
                    _ => parts.join(" and "),
                }
            }
        }
    }

    /// A map with nothing to check (only presence or binding keys).
    fn is_any(&self) -> bool {
        match &self.body {
            Body::Map { ops, object, .. } => {
                !object
                    && ops
                        .iter()
                        .all(|op| matches!(op, Op::Capture(_) | Op::Collect(_)))
            }
            _ => false,
        }
    }

    /// For nesting inside another description: parenthesised when compound.
    fn describe_nested(&self, b: Option<&Bindings>) -> String {
        let text = self.describe_in(b);
        if text.contains(" and ") {
            format!("({text})")
        } else {
            text
        }
    }
}

impl Op {
    pub(crate) fn describe_in(&self, b: Option<&Bindings>) -> String {
        self.describe_opt(b).unwrap_or_else(|| "<any>".to_owned())
    }

    /// `None` for operators that check nothing (`$capture`, `$collect`).
    fn describe_opt(&self, b: Option<&Bindings>) -> Option<String> {
        Some(match self {
            Op::Type(types) => {
                let names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
                format!("<{}>", names.join("|"))
            }
            Op::Regex(re) => format!("<string matching /{}/>", re.as_str()),
            Op::OneOf(options) => {
                let parts: Vec<String> = options.iter().map(|m| m.describe_nested(b)).collect();
                format!("one of ({})", parts.join(" | "))
            }
            Op::Capture(_) | Op::Collect(_) => return None,
            Op::Eq(t) => literal(t, b),
            Op::Ne(t) => format!("not {}", literal(t, b)),
            Op::Cmp(op, t) => format!("{} {}", op.symbol(), literal(t, b)),
            Op::In(values) => {
                let parts: Vec<String> = values.iter().map(|t| literal(t, b)).collect();
                format!("one of [{}]", parts.join(", "))
            }
            Op::Contains(m) => format!("<array containing {}>", m.describe_nested(b)),
            Op::Each(m) => format!("<array of {}>", m.describe_nested(b)),
            Op::Len(m) => format!("<length {}>", m.describe_nested(b)),
            Op::Not(m) => format!("not {}", m.describe_nested(b)),
            Op::Schema(_) => "<conforms to schema>".to_owned(),
        })
    }
}

/// A template as JSON text, rendered when `b` binds its variables.
fn literal(t: &Template, b: Option<&Bindings>) -> String {
    b.and_then(|b| t.render(b).ok())
        .unwrap_or_else(|| t.value().clone())
        .to_string()
}
