//! `schema.json-schema.valid` and `tools.input-schema.valid` (2025-11-25
//! on): every JSON Schema the peer sends is valid under its dialect, the
//! one its `$schema` names or, without one, JSON Schema 2020-12. Checked
//! against the dialect's meta-schema (the `jsonschema` crate bundles the
//! drafts); a schema naming a dialect the crate does not know is not
//! judged here (`schema.json-schema.unsupported-dialect` is another rule).

use mcpspec_engine::{ids, Requirement};
use serde_json::Value;

use super::Out;

/// The dialects judged: the drafts the `jsonschema` crate bundles.
const KNOWN: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];

/// Why `schema` is not valid under its dialect, if it is not (and the
/// dialect is one judged here).
pub(super) fn invalid(schema: &Value) -> Option<String> {
    if !schema.is_object() {
        return None; // the version's schema says what it must be
    }
    let dialect = schema.get("$schema");
    if let Some(d) = dialect {
        let d = d.as_str()?.trim_end_matches('#');
        if !KNOWN.contains(&d) {
            return None;
        }
    }
    let judged = if dialect.is_some() {
        schema.clone()
    } else {
        // The default dialect is 2020-12, whatever the crate's default.
        let mut s = schema.clone();
        s["$schema"] = Value::from(KNOWN[0]);
        s
    };
    jsonschema::meta::validate(&judged)
        .err()
        .map(|e| format!("{} at {}", e.masked(), e.instance_path()))
}

fn judge(schema: Option<&Value>, rule: &'static Requirement, what: &str, out: &mut Out<'_>) {
    if let Some(why) = schema.and_then(invalid) {
        out.flag(rule, format!("{what} is not a valid JSON Schema: {why}"));
    }
}

/// The input and output schemas of a `tools/list` result's tools.
pub(super) fn tools(result: &Value, out: &mut Out<'_>) {
    let tools = result.get("tools").and_then(Value::as_array);
    for tool in tools.into_iter().flatten() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        judge(
            tool.get("inputSchema"),
            &ids::TOOLS_INPUT_SCHEMA_VALID,
            &format!("the inputSchema of tool {name:?}"),
            out,
        );
        judge(
            tool.get("outputSchema"),
            &ids::SCHEMA_JSON_SCHEMA_VALID,
            &format!("the outputSchema of tool {name:?}"),
            out,
        );
    }
}

/// An elicitation's `requestedSchema`.
pub(super) fn requested(schema: Option<&Value>, out: &mut Out<'_>) {
    judge(
        schema,
        &ids::SCHEMA_JSON_SCHEMA_VALID,
        "the elicitation's requestedSchema",
        out,
    );
}

#[cfg(test)]
mod tests {
    use super::invalid;
    use serde_json::json;

    #[test]
    fn schemas_are_judged_by_their_dialect() {
        assert_eq!(invalid(&json!({"type": "object"})), None);
        assert!(
            invalid(&json!({"type": "object", "properties": {"a": {"type": "strin"}}})).is_some()
        );
        assert!(invalid(&json!({"type": "object", "required": "a"})).is_some());
        assert_eq!(
            invalid(&json!({"$schema": "https://example.com/own", "type": 5})),
            None,
            "an unknown dialect is another rule's"
        );
        assert!(invalid(
            &json!({"$schema": "http://json-schema.org/draft-07/schema#", "minLength": -1})
        )
        .is_some());
    }
}
