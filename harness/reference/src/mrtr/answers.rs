//! What the input-required fixtures ask for, and how they read the answers:
//! the three kinds of input request, the capability each needs, and the
//! shape a valid answer of each kind has (the schema's `ElicitResult`,
//! `CreateMessageResult` and `ListRootsResult`, as far as the tools use them).

use serde_json::{json, Value};

/// A kind of input request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Elicit,
    Sample,
    Roots,
}

impl Kind {
    pub(crate) fn method(self) -> &'static str {
        match self {
            Kind::Elicit => "elicitation/create",
            Kind::Sample => "sampling/createMessage",
            Kind::Roots => "roots/list",
        }
    }

    /// The client capability the request needs.
    pub(crate) fn capability(self) -> &'static str {
        match self {
            Kind::Elicit => "elicitation",
            Kind::Sample => "sampling",
            Kind::Roots => "roots",
        }
    }

    /// What is wrong with `answer` as an answer of this kind, if anything.
    pub(crate) fn invalid(self, answer: &Value) -> Option<&'static str> {
        let Some(obj) = answer.as_object() else {
            return Some("not an object");
        };
        match self {
            Kind::Elicit => match obj.get("action").and_then(Value::as_str) {
                Some("accept") if !obj.get("content").is_some_and(Value::is_object) => {
                    Some("an accepted elicitation without a content object")
                }
                Some("accept" | "decline" | "cancel") => None,
                _ => Some("no action of accept, decline or cancel"),
            },
            Kind::Sample => {
                let content = obj.get("content");
                if obj.get("role").and_then(Value::as_str).is_none()
                    || !content.is_some_and(|c| c.is_object() || c.is_array())
                    || obj.get("model").and_then(Value::as_str).is_none()
                {
                    Some("not a sampling result (role, content and model)")
                } else {
                    None
                }
            }
            Kind::Roots => {
                let ok = obj.get("roots").and_then(Value::as_array).is_some_and(|r| {
                    r.iter()
                        .all(|root| root.get("uri").and_then(Value::as_str).is_some())
                });
                (!ok).then_some("not a roots list (roots: [{ uri }])")
            }
        }
    }
}

/// One entry of `inputRequests`.
#[derive(Debug, Clone)]
pub(crate) struct Ask {
    pub key: &'static str,
    pub kind: Kind,
    pub params: Value,
}

impl Ask {
    /// An elicitation of one string (or boolean) field.
    pub(crate) fn elicit(key: &'static str, message: &str, field: &str, ty: &str) -> Ask {
        Ask {
            key,
            kind: Kind::Elicit,
            params: json!({
                "mode": "form",
                "message": message,
                "requestedSchema": {
                    "type": "object",
                    "properties": { field: { "type": ty } },
                    "required": [field]
                }
            }),
        }
    }

    pub(crate) fn sample(key: &'static str, prompt: &str, max_tokens: u32) -> Ask {
        Ask {
            key,
            kind: Kind::Sample,
            params: json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
                "maxTokens": max_tokens
            }),
        }
    }

    pub(crate) fn roots(key: &'static str) -> Ask {
        Ask {
            key,
            kind: Kind::Roots,
            params: json!({}),
        }
    }

    pub(crate) fn request(&self) -> Value {
        json!({ "method": self.kind.method(), "params": self.params })
    }
}

/// A field of an accepted elicitation, as text ("(declined)" otherwise).
pub(crate) fn elicited(answer: &Value, field: &str) -> String {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => match answer.get("content").and_then(|c| c.get(field)) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => "(not given)".to_owned(),
        },
        Some(other) => format!("({other}d)"),
        None => "(no answer)".to_owned(),
    }
}

/// The text of a sampling result.
pub(crate) fn sampled(answer: &Value) -> String {
    let content = answer.get("content");
    let first = match content {
        Some(Value::Array(items)) => items.first(),
        other => other,
    };
    first
        .and_then(|c| c.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("(no text)")
        .to_owned()
}

/// The URIs of a roots list, joined.
pub(crate) fn root_uris(answer: &Value) -> String {
    let uris: Vec<&str> = answer
        .get("roots")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|root| root.get("uri").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if uris.is_empty() {
        "no roots".to_owned()
    } else {
        uris.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_validated_by_kind() {
        let accept = json!({ "action": "accept", "content": { "name": "Ada" } });
        assert_eq!(Kind::Elicit.invalid(&accept), None);
        assert_eq!(Kind::Elicit.invalid(&json!({ "action": "decline" })), None);
        assert!(Kind::Elicit.invalid(&json!(12345)).is_some());
        assert!(Kind::Elicit
            .invalid(&json!({ "action": "accept" }))
            .is_some());
        let sample = json!({ "role": "assistant", "content": { "type": "text", "text": "Paris" }, "model": "m" });
        assert_eq!(Kind::Sample.invalid(&sample), None);
        assert!(Kind::Sample.invalid(&accept).is_some());
        assert_eq!(
            Kind::Roots.invalid(&json!({ "roots": [{ "uri": "file:///a" }] })),
            None
        );
        assert!(Kind::Roots.invalid(&json!({ "roots": [{}] })).is_some());
        assert_eq!(elicited(&accept, "name"), "Ada");
        assert_eq!(sampled(&sample), "Paris");
    }
}
