//! Whether a value still being read already fails a matcher for good
//! (issue #18: an `http` step's read window ends once its verdict is
//! settled, instead of waiting the window out).
//!
//! While an event stream is read, the arrays of the step's response object
//! (`events`, `messages`) only grow at their end, and what is already in
//! them does not change. Most of a matcher can change its verdict as they
//! grow — a `$contains` may yet match, a `$len` moves — but two parts
//! cannot, once they fail:
//!
//! - `$not: {$contains: X}`: an element matching X stays in every longer
//!   array;
//! - `$each: M`: an element that fails M stays in every longer array.
//!
//! [`Matcher::fails_for_good`] looks for such a part that already fails,
//! through the members of objects; everything else answers "not yet".

use serde_json::Value;

use super::{check, Body, Matcher, Op, Presence};
use crate::bindings::Bindings;
use crate::template::TemplateError;

impl Matcher {
    /// Whether `partial`, a value whose arrays may still grow at their end
    /// (and change in no other way), already fails this matcher however
    /// they grow. `false` means "not settled yet", never "matches".
    /// Bindings are read, never changed.
    pub fn fails_for_good(&self, partial: &Value, b: &Bindings) -> Result<bool, TemplateError> {
        let Body::Map { ops, members, .. } = &self.body else {
            return Ok(false);
        };
        if self.presence == Presence::Absent {
            return Ok(false);
        }
        if let Value::Array(items) = partial {
            for op in ops {
                let settled = match op {
                    Op::Not(inner) => match inner.only_contains() {
                        Some(x) => check::contains(x, items, "", &mut b.clone())?,
                        None => false,
                    },
                    Op::Each(m) => {
                        let mut failed = false;
                        for item in items {
                            if !m.check(Some(item), "", &mut b.clone())?.is_empty() {
                                failed = true;
                                break;
                            }
                        }
                        failed
                    }
                    _ => false,
                };
                if settled {
                    return Ok(true);
                }
            }
        }
        if let Value::Object(map) = partial {
            for (key, m) in members {
                if let Some(v) = map.get(key) {
                    if m.fails_for_good(v, b)? {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    /// X, when this matcher is exactly `{$contains: X}`.
    fn only_contains(&self) -> Option<&Matcher> {
        match (&self.presence, &self.body) {
            (Presence::Required, Body::Map { ops, members, .. }) if members.is_empty() => {
                match ops.as_slice() {
                    [Op::Contains(x)] => Some(x),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn m(text: &str) -> Matcher {
        Matcher::parse("t.yaml", text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn settled(matcher: &str, partial: Value) -> bool {
        m(matcher)
            .fails_for_good(&partial, &Bindings::new())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_forbidden_element_read_settles_the_verdict() {
        let not = "messages: { $not: { $contains: { id: 101 } } }";
        assert!(settled(not, json!({"messages": [{"id": 7}, {"id": 101}]})));
        // Not yet: it may still come, and then the window decides.
        assert!(!settled(not, json!({"messages": [{"id": 7}]})));
        assert!(!settled(not, json!({"messages": []})));
        // Beside other constraints on the same array.
        let both = "messages: { $contains: { id: 5 }, $not: { $contains: { id: 9 } } }";
        assert!(settled(both, json!({"messages": [{"id": 9}]})));
        assert!(!settled(both, json!({"messages": [{"id": 4}]})));
    }

    #[test]
    fn an_element_that_fails_each_settles_the_verdict() {
        let each = "events: { $each: { id: { $type: string } } }";
        assert!(settled(each, json!({"events": [{"id": "a"}, {"id": 3}]})));
        assert!(!settled(each, json!({"events": [{"id": "a"}]})));
    }

    #[test]
    fn parts_that_growth_can_mend_or_break_are_never_settled() {
        // A missing element may still come; a length still moves; a
        // negated anything-else may flip either way.
        assert!(!settled(
            "messages: { $contains: { id: 1 } }",
            json!({"messages": []})
        ));
        assert!(!settled(
            "messages: { $len: 1 }",
            json!({"messages": [1, 2]})
        ));
        assert!(!settled(
            "messages: { $not: { $len: 2 } }",
            json!({"messages": [1, 2]})
        ));
        assert!(!settled(
            "messages: { $not: { $contains: { id: 1 }, $type: array } }",
            json!({"messages": [{"id": 1}]})
        ));
        // Scalars are not what grows: a wrong status is for the full check.
        assert!(!settled("status: 200", json!({"status": 500})));
        // `$absent` is not about the elements.
        assert!(!settled(
            "messages: { $absent: true }",
            json!({"messages": [{"id": 1}]})
        ));
    }

    #[test]
    fn templates_render_against_the_bindings_and_leave_them_alone() {
        let mut b = Bindings::new();
        b.set("call", json!({"id": 101}));
        let matcher =
            m("messages: { $not: { $contains: { id: \"${call.id}\", x: { $capture: got } } } }");
        let partial = json!({"messages": [{"id": 101, "x": 1}]});
        assert!(matcher.fails_for_good(&partial, &b).unwrap());
        assert!(b.get("got").is_none());
    }
}
