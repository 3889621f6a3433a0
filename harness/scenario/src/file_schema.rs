//! The JSON Schema (2020-12) of the scenario file format, for editors:
//! `schema/scenario.schema.json` at the root of the repository is this
//! schema, written by `MCPSPEC_BLESS=1 cargo test -p mcpspec-scenario --test
//! file_schema` and checked up to date by that test.
//!
//! It is generated from the tables the loader itself reads files with
//! (`load::keys`: every map's keys with their descriptions and value shapes,
//! the step kinds, the matcher operators, the keyword sets) and from the
//! loader's own enumerations ([`Version::ALL`], [`TransportKind::ALL`], the
//! duration units, the `$type` names), so the two cannot drift apart.
//!
//! Where the loader checks more than JSON Schema can say (template syntax,
//! labels defined by an earlier step, variables bound before use, regexes
//! that compile, literal `$schema`s that are schemas), the schema is an
//! approximation that accepts more: it never rejects a file the loader
//! accepts, since a false error in an editor is worse than a missed one.
//!
//! It declares 2020-12 but keeps to keywords that mean the same in draft 7
//! (`items` with one schema, `if`/`then`, `const`, `propertyNames`; `$ref`s
//! are plain JSON pointers into `$defs`), because the YAML language server
//! behind most editors validates with draft-7 semantics.

use crate::duration;
use crate::load::keys::{self, Key, Lit, MapDef, Rule, Shape};
use crate::matcher::{operators, JsonType};
use crate::model::{Discover, SessionMode};
use mcpspec_engine::Version;
use serde_json::{json, Map, Value};

/// Where the schema is committed, relative to the repository root.
pub const SCHEMA_PATH: &str = "schema/scenario.schema.json";

/// The JSON Schema of a scenario file.
pub fn scenario_file_schema() -> Value {
    let mut root = map_schema(&keys::TOP);
    let mut head = Map::new();
    head.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    head.insert("title".into(), json!("mcpspec scenario file"));
    head.insert(
        "description".into(),
        json!("One mcpspec scenario: a declarative script played against an MCP implementation. The format is documented in scenarios/README.md."),
    );
    head.append(&mut root);
    head.insert("$defs".into(), defs());
    Value::Object(head)
}

/// [`scenario_file_schema`] as the committed file has it: pretty, with a
/// final newline.
pub fn scenario_file_schema_text() -> String {
    // Serializing a `Value` to a `String` cannot fail (its keys are strings).
    let mut text = serde_json::to_string_pretty(&scenario_file_schema()).unwrap_or_default();
    text.push('\n');
    text
}

fn defs() -> Value {
    let version_names: Vec<&str> = Version::ALL.iter().map(|v| v.as_str()).collect();
    let sets: Vec<String> = keys::VERSION_SETS
        .iter()
        .map(|(k, vs)| {
            let vs: Vec<&str> = vs.iter().map(|v| v.as_str()).collect();
            format!("{k} ({})", vs.join(", "))
        })
        .collect();
    let mut keywords: Vec<Value> = keys::VERSION_SETS.iter().map(|(k, _)| json!(k)).collect();
    keywords.extend(version_names.iter().map(|v| json!(v)));
    let levels: Vec<&str> = keys::LEVELS.iter().map(|l| l.as_str()).collect();
    json!({
        "level": {
            "description": "The level of the checks: must (failure), should (warning), may",
            "enum": levels,
        },
        "versions": {
            "description": format!(
                "{}, one version, or a list of versions",
                sets.join(", ")
            ),
            "anyOf": [
                { "enum": keywords },
                {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": true,
                    "items": { "enum": version_names },
                },
            ],
        },
        "duration": {
            "description": "A duration: 250ms, 2s, 1m",
            "type": "string",
            "pattern": duration::pattern(),
        },
        "step": step_schema(),
        "matcher": matcher_schema(),
    })
}

/// A reference to one of [`defs`].
fn def(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// The schema of a key: its shape with its description.
fn key_schema(key: &Key) -> Value {
    described(shape(key.shape), key.doc)
}

fn described(mut schema: Value, doc: &str) -> Value {
    if let Value::Object(m) = &mut schema {
        let mut out = Map::new();
        out.insert("description".into(), json!(doc));
        out.append(m);
        return Value::Object(out);
    }
    schema
}

/// A string with something other than whitespace in it.
fn non_empty() -> Value {
    json!({ "type": "string", "pattern": "\\S" })
}

fn shape(s: Shape) -> Value {
    match s {
        Shape::ScenarioId => json!({
            "type": "string",
            "pattern": format!("^({})(/[a-z0-9-]+)+$", keys::ID_ROLES.join("|")),
        }),
        // Not blank and, once trimmed, one line.
        Shape::OneLine => json!({ "type": "string", "pattern": "^\\s*[^\\n]*\\S[^\\n]*\\s*$" }),
        Shape::Text => json!({ "type": "string" }),
        Shape::NonEmpty => non_empty(),
        Shape::RequirementIds => json!({
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": non_empty(),
        }),
        Shape::Level => def("level"),
        Shape::Versions => def("versions"),
        Shape::Transports => json!({
            "anyOf": [
                { "const": keys::ALL_TRANSPORTS },
                {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": true,
                    "items": { "enum": keys::transport_names() },
                },
            ],
        }),
        Shape::Session => {
            let names: Vec<&str> = SessionMode::ALL.iter().map(|m| m.as_str()).collect();
            json!({ "enum": names })
        }
        Shape::MetadataDoc => {
            let names: Vec<&str> = crate::model::MetadataDoc::ALL
                .iter()
                .map(|d| d.as_str())
                .collect();
            json!({ "enum": names })
        }
        Shape::AuthGate => {
            let names: Vec<&str> = crate::model::AuthGate::ALL
                .iter()
                .map(|g| g.as_str())
                .collect();
            json!({ "enum": names })
        }
        Shape::Extension => {
            let names: Vec<&str> = mcpspec_engine::EXTENSIONS.iter().map(|e| e.name).collect();
            json!({ "enum": names })
        }
        Shape::CapabilityPaths => json!({
            "type": "array",
            "items": {
                "type": "string",
                "allOf": [{ "pattern": "\\S" }, { "pattern": "^[^.]+(\\.[^.]+)*$" }],
            },
        }),
        Shape::Duration => def("duration"),
        Shape::Bool => json!({ "type": "boolean" }),
        Shape::Count { min, max } => {
            let mut m = Map::new();
            m.insert("type".into(), json!("integer"));
            m.insert("minimum".into(), json!(min));
            m.insert("maximum".into(), json!(max.unwrap_or(u64::MAX)));
            Value::Object(m)
        }
        Shape::Label => json!({ "type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_-]*$" }),
        Shape::Var => json!({
            "type": "string",
            "pattern": "^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$",
        }),
        Shape::Template => json!({}),
        Shape::Object => json!({ "type": "object" }),
        Shape::Params => json!({ "type": ["object", "array", "string"] }),
        Shape::RequestId { null: false } => json!({ "type": ["string", "number"] }),
        Shape::RequestId { null: true } => json!({ "type": ["string", "number", "null"] }),
        Shape::Matcher => def("matcher"),
        // `u8::from_str_radix` takes a leading `+`, so the loader reads `+f` as a byte.
        Shape::Hex => json!({
            "type": "string",
            "pattern": "^\\s*([+0-9A-Fa-f]\\s*[0-9A-Fa-f]\\s*)*$",
        }),
        Shape::DiscoverList => json!({ "enum": Discover::LISTS }),
        Shape::Steps => json!({ "type": "array", "minItems": 1, "items": def("step") }),
        Shape::Map(m) => Value::Object(map_schema(m)),
        Shape::NullOr(m) => json!({ "anyOf": [{ "type": "null" }, map_schema(m)] }),
        Shape::DurationOr(m) => json!({ "anyOf": [def("duration"), map_schema(m)] }),
        Shape::Expectation => expectation_schema(),
        Shape::TypeNames => {
            let mut names: Vec<Value> = JsonType::names().into_iter().map(Value::from).collect();
            // `$type: [string, null]`: YAML reads a bare `null` as null, not a name.
            names.push(Value::Null);
            json!({
                "anyOf": [
                    { "enum": names },
                    { "type": "array", "minItems": 1, "items": { "enum": names } },
                ],
            })
        }
        Shape::Regex => json!({ "type": "string" }),
        Shape::OneOf(words) => json!({ "enum": words }),
        Shape::Matchers => json!({ "type": "array", "minItems": 1, "items": def("matcher") }),
        Shape::Values => json!({ "type": "array" }),
        Shape::Bound => json!({ "type": ["number", "string"] }),
        Shape::Schema => json!({ "type": ["object", "boolean", "string"] }),
        Shape::Headers => json!({
            "type": "object",
            "additionalProperties": { "type": ["string", "null"] }
        }),
    }
}

/// A closed object: the keys of `m`, its required ones, its rules.
fn map_schema(m: &MapDef) -> Map<String, Value> {
    let mut out = object(m.keys);
    let rules: Vec<Value> = m.rules.iter().map(rule).collect();
    if !rules.is_empty() {
        out.insert("allOf".into(), Value::Array(rules));
    }
    out
}

/// Each key's schema, by name.
fn properties<'a>(keys: impl IntoIterator<Item = &'a Key>) -> Map<String, Value> {
    keys.into_iter()
        .map(|k| (k.name.to_owned(), key_schema(k)))
        .collect()
}

/// `{type: object, properties, required, additionalProperties: false}`.
fn object<'a>(keys: impl IntoIterator<Item = &'a Key> + Clone) -> Map<String, Value> {
    let required: Vec<Value> = keys
        .clone()
        .into_iter()
        .filter(|k| k.required)
        .map(|k| json!(k.name))
        .collect();
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(properties(keys)));
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    out.insert("additionalProperties".into(), json!(false));
    out
}

fn rule(r: &Rule) -> Value {
    match r {
        Rule::AtMostOne(keys) => {
            let pairs: Vec<Value> = keys
                .iter()
                .enumerate()
                .flat_map(|(i, a)| {
                    keys[i + 1..]
                        .iter()
                        .map(move |b| json!({ "required": [a, b] }))
                })
                .collect();
            match <[Value; 1]>::try_from(pairs) {
                Ok([pair]) => json!({ "not": pair }),
                Err(pairs) => json!({ "not": { "anyOf": pairs } }),
            }
        }
        // Not `dependentRequired`: editors that know only draft 7 would ignore it.
        Rule::Needs(key, other) => json!({
            "if": { "required": [key] },
            "then": { "required": [other] },
        }),
        Rule::Excludes { key, when, other } => {
            let when = match when {
                Lit::True => json!(true),
                Lit::Str(s) => json!(s),
            };
            json!({
                "if": { "required": [key], "properties": { *key: { "const": when } } },
                "then": { "not": { "required": [other] } },
            })
        }
        Rule::ExcludesMembers {
            key,
            when,
            map,
            members,
        } => {
            let when = match when {
                Lit::True => json!(true),
                Lit::Str(s) => json!(s),
            };
            let any: Vec<Value> = members.iter().map(|m| json!({ "required": [m] })).collect();
            json!({
                "if": { "required": [key], "properties": { *key: { "const": when } } },
                "then": { "properties": { *map: { "not": { "anyOf": any } } } },
            })
        }
    }
}

/// A step: exactly one step kind, its modifiers, and the common keys.
fn step_schema() -> Value {
    let kinds: Vec<Value> = keys::STEPS
        .iter()
        .map(|def| {
            let kind = Key {
                name: def.key,
                doc: def.doc,
                shape: def.shape,
                required: true,
            };
            let keys = std::iter::once(&kind)
                .chain(def.modifiers)
                .chain(keys::STEP_COMMON);
            let mut o = object(keys);
            if keys::TIMED_STEPS.contains(&def.key) {
                // The loader refuses a timed step without `why`.
                if let Some(Value::Array(required)) = o.get_mut("required") {
                    required.push(json!("why"));
                }
            }
            Value::Object(o)
        })
        .collect();
    json!({
        "description": format!(
            "A step: exactly one of {}, plus {}",
            keys::step_keys().join(", "),
            keys::names(keys::STEP_COMMON).join(", ")
        ),
        "type": "object",
        "anyOf": kinds,
    })
}

/// The `expect` step: one selector; `result`/`error` for responses, `params`
/// for notifications and requests.
fn expectation_schema() -> Value {
    let response = keys::RESPONSE_SELECTORS.iter().map(|k| {
        let mut o = object(std::iter::once(k).chain(keys::EXPECT_RESPONSE));
        let rules: Vec<Value> = keys::EXPECT_RESPONSE_RULES.iter().map(rule).collect();
        o.insert("allOf".into(), Value::Array(rules));
        Value::Object(o)
    });
    let message = keys::MESSAGE_SELECTORS
        .iter()
        .map(|k| Value::Object(object(std::iter::once(k).chain(keys::EXPECT_MESSAGE))));
    json!({ "anyOf": response.chain(message).collect::<Vec<_>>() })
}

/// A matcher: a scalar (equal), a list (element by element), or a map of
/// members and `$` operators.
fn matcher_schema() -> Value {
    let mut map = Map::new();
    map.insert("type".into(), json!("object"));
    map.insert(
        "properties".into(),
        Value::Object(properties(operators::OPERATORS)),
    );
    // Any key not starting with `$` (the empty key too) is a member.
    map.insert(
        "patternProperties".into(),
        json!({ "^([^$]|$)": def("matcher") }),
    );
    map.insert("additionalProperties".into(), json!(false));
    let [absent, present, optional] = operators::PRESENCE_OPERATORS;
    map.insert(
        "if".into(),
        json!({ "required": [absent], "properties": { absent: { "const": true } } }),
    );
    map.insert(
        "then".into(),
        json!({
            "propertyNames": { "enum": operators::PRESENCE_OPERATORS },
            "properties": { present: { "const": false }, optional: { "const": false } },
        }),
    );
    json!({
        "description": "A matcher: a scalar (equal), a list (element by element), or a map of members (at least these) and $ operators (all must hold)",
        "anyOf": [
            { "type": ["string", "number", "boolean", "null"] },
            { "type": "array", "items": def("matcher") },
            map,
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_described() {
        assert_eq!(scenario_file_schema_text(), scenario_file_schema_text());
        let s = scenario_file_schema();
        for key in keys::TOP.keys {
            assert!(
                s["properties"][key.name]["description"].is_string(),
                "{}",
                key.name
            );
        }
    }
}
