//! `$schema`: the actual value validates against a JSON Schema.
//!
//! The schema is usually the target's own (a tool's `outputSchema`, bound by
//! `discover`), so it is rendered and compiled at check time, and everything
//! wrong with it is reported as a mismatch, never as a panic or a scenario
//! error: the target is at fault for a schema that is not one.
//!
//! - Draft: the schema's own `$schema` keyword when it names a known draft,
//!   otherwise 2020-12 (MCP's default).
//! - External `$ref`s are not resolved (the crate is built without HTTP or
//!   file retrieval); a schema that needs one is reported as unusable.
//! - `format` is an annotation only, as 2020-12 has it by default (asserting
//!   it is optional in every draft).

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, ReferencingError, Retrieve, Uri, ValidationError};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What the matcher expects, first in every mismatch it reports.
pub(crate) const EXPECTED: &str = "conforms to the given schema";

/// How many validation errors a mismatch lists.
const MAX_ERRORS: usize = 3;

/// Longest message quoted from the validator (they may embed the instance).
const MAX_MESSAGE: usize = 200;

/// Validate `instance` against `schema`. `Err` is the mismatch's "expected"
/// text: why it does not conform, or why the schema cannot be used.
pub(crate) fn validate(schema: &Value, instance: &Value) -> Result<(), String> {
    // The schema comes from the target under test: a panic in the validator
    // on a pathological schema must not take the case (or the run) down.
    catch_unwind(AssertUnwindSafe(|| validate_inner(schema, instance))).unwrap_or_else(|_| {
        Err(format!(
            "{EXPECTED} ({TARGETS} could not be used: the validator failed on it)"
        ))
    })
}

fn validate_inner(schema: &Value, instance: &Value) -> Result<(), String> {
    let validator = compile(schema, TARGETS).map_err(|why| format!("{EXPECTED} ({why})"))?;
    let mut errors = validator.iter_errors(instance);
    let listed: Vec<String> = errors
        .by_ref()
        .take(MAX_ERRORS)
        .map(|e| describe(&e))
        .collect();
    if listed.is_empty() {
        return Ok(());
    }
    let more = errors.count();
    let mut text = format!("{EXPECTED}; {}", listed.join("; "));
    if more > 0 {
        text.push_str(&format!("; and {more} more"));
    }
    Err(text)
}

/// How check-time errors name the schema: it is (usually) the target's.
const TARGETS: &str = "the target's schema";

/// Compile `schema`; `Err` says what is wrong with it, calling it `whose`.
pub(crate) fn compile(schema: &Value, whose: &str) -> Result<jsonschema::Validator, String> {
    match schema {
        Value::Object(_) | Value::Bool(_) => {}
        other => {
            return Err(format!(
                "{whose} is invalid: a JSON Schema is an object or a boolean, found {}",
                kind(other)
            ))
        }
    }
    let mut options = jsonschema::options()
        .with_retriever(NoRetrieval)
        .should_validate_formats(false);
    // The draft a string `$schema` names (a non-string one fails meta-validation);
    // none: 2020-12, pinned here rather than left to the library's default.
    let draft = match schema.get("$schema").and_then(Value::as_str) {
        None => Draft::Draft202012,
        Some(uri) => match Draft::from_schema_uri(uri) {
            d @ (Draft::Draft4
            | Draft::Draft6
            | Draft::Draft7
            | Draft::Draft201909
            | Draft::Draft202012) => d,
            _ => {
                return Err(format!(
                    "{whose} cannot be used: its `$schema` {uri:?} is not a JSON Schema draft this harness knows"
                ))
            }
        },
    };
    options = options.with_draft(draft);
    options.build(schema).map_err(|e| match e.kind() {
        ValidationErrorKind::Referencing(ReferencingError::Unretrievable { uri, .. }) => format!(
            "{whose} cannot be used: it refers to {uri:?}, and external `$ref`s are not resolved"
        ),
        _ => format!("{whose} is invalid: {}", describe_schema_error(&e)),
    })
}

/// One validation error: `at /length: "3" is not of type "integer" (schema path /properties/length/type)`.
fn describe(e: &ValidationError<'_>) -> String {
    format!(
        "at {}: {} (schema path {})",
        pointer(e.instance_path().as_str()),
        message(e),
        pointer(e.schema_path().as_str())
    )
}

/// An error found while compiling: where in the schema, and what.
fn describe_schema_error(e: &ValidationError<'_>) -> String {
    format!("at {}: {}", pointer(e.instance_path().as_str()), message(e))
}

fn pointer(p: &str) -> &str {
    if p.is_empty() {
        "(root)"
    } else {
        p
    }
}

fn message(e: &ValidationError<'_>) -> String {
    let text = e.to_string();
    match text.char_indices().nth(MAX_MESSAGE) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Refuses every external resource: nothing is fetched over the network or
/// read from disk on the target's behalf.
struct NoRetrieval;

impl Retrieve for NoRetrieval {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("external references are not resolved ({uri})").into())
    }
}
