//! The reference server's tools: their definitions per protocol version and
//! what calling them does.
//!
//! | tool         | arguments                                   | result                                  |
//! |--------------|---------------------------------------------|-----------------------------------------|
//! | `echo`       | `message: string` (required)                | the message as text                     |
//! | `add`        | `a: number`, `b: number` (required)         | the sum as text                         |
//! | `fail`       | none                                        | `isError: true` with an explanation     |
//! | `slow`       | `duration: number` s (default 2, 0..=60),   | text after `duration`; progress at each |
//! |              | `steps: integer` (default 5, 0..=100)       | step when a progressToken was given     |
//! | `structured` | `text: string` (default empty)              | text; from 2025-06-18 also an           |
//! |              |                                             | `outputSchema` and `structuredContent`  |
//! | `region_echo` (2026-07-28) | `region: string` (optional, `x-mcp-header: Region`) | the region as text     |
//!
//! `region_echo` is the SEP-2243 custom header: over Streamable HTTP a
//! client mirrors `region` into `Mcp-Param-Region`, which the HTTP layer
//! checks against the body (`mcpspec-reference-http`'s `routing`). The
//! parameter is optional, so a caller filling in required arguments only
//! sends no value and owes no header.
//!
//! From 2025-03-26 every tool is annotated read-only, idempotent and
//! closed-world (with a title, which from 2025-06-18 is also the tool's `title`).
//!
//! Argument errors: before 2025-11-25 they are protocol errors (-32602); from
//! 2025-11-25 on they are tool execution errors (`isError: true`), as SEP-1303
//! moved them. An unknown tool name is a -32602 protocol error in every version.

use mcpspec_engine::Version;
use serde_json::{json, Map, Value};

use crate::error::RpcError;
use crate::fault::{Fault, FaultSet};

pub(crate) const NAMES: [&str; 5] = ["echo", "add", "fail", "slow", "structured"];

/// Limits of the `slow` tool's arguments.
const MAX_DURATION_S: f64 = 60.0;
const MAX_STEPS: u64 = 100;

/// Display titles, from 2025-06-18 on (same order as [`NAMES`]).
const TITLES: [&str; 5] = [
    "Echo",
    "Add two numbers",
    "Always fail",
    "Slow operation",
    "Describe a text",
];

/// The name the `tool-name-format` fault gives the `add` tool.
pub(crate) const BAD_ADD_NAME: &str = "add numbers";

/// `tools/list` entries, in list order.
pub(crate) fn definitions(version: Version, faults: FaultSet) -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": "echo",
            "description": "Returns the given message unchanged.",
            "inputSchema": {
                "type": "object",
                "properties": { "message": { "type": "string", "description": "Text to echo back." } },
                "required": ["message"]
            }
        }),
        json!({
            "name": "add",
            "description": "Adds two numbers.",
            "inputSchema": {
                "type": "object",
                "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
                "required": ["a", "b"]
            }
        }),
        json!({
            "name": "fail",
            "description": "Always reports a tool execution error (isError: true).",
            "inputSchema": { "type": "object", "properties": {} }
        }),
        json!({
            "name": "slow",
            "description": "Completes after `duration` seconds, reporting progress in `steps` steps when the request carries a progress token. Honours cancellation.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "duration": { "type": "number", "description": "Seconds until completion.", "default": 2, "minimum": 0, "maximum": MAX_DURATION_S },
                    "steps": { "type": "integer", "description": "Number of progress notifications.", "default": 5, "minimum": 0, "maximum": MAX_STEPS }
                }
            }
        }),
        json!({
            "name": "structured",
            "description": "Describes a text (default: empty): its length, word count and upper-case form.",
            "inputSchema": {
                "type": "object",
                "properties": { "text": { "type": "string", "default": "" } }
            }
        }),
    ];
    if has_structured_output(version) {
        if let Some(Value::Object(tool)) = tools.last_mut() {
            tool.insert("outputSchema".into(), output_schema());
        }
    }
    let titled = version >= Version::V2025_06_18;
    for (tool, title) in tools.iter_mut().zip(TITLES) {
        let Value::Object(tool) = tool else { continue };
        if titled {
            let title = if faults.has(Fault::TitleNotString) {
                json!({ "en": title })
            } else {
                Value::from(title)
            };
            tool.insert("title".into(), title);
        }
        if has_annotations(version) {
            // None of the tools changes anything: say so, so that harnesses
            // (ours included) may call them without side effects.
            let idempotent = if faults.has(Fault::ToolAnnotationStrings) {
                json!("true")
            } else {
                json!(true)
            };
            tool.insert(
                "annotations".into(),
                json!({
                    "title": title,
                    "readOnlyHint": true,
                    "idempotentHint": idempotent,
                    "openWorldHint": false
                }),
            );
        }
    }
    if version >= Version::V2025_11_25 && faults.has(Fault::ToolNameFormat) {
        tools[1]["name"] = Value::from(BAD_ADD_NAME);
    }
    // The official conformance fixture's tools follow the reference's own.
    tools.extend(crate::fixtures::tool_definitions(version, faults));
    if crate::tasks::offered(version) {
        tools.push(crate::tasks::definition());
    }
    if version >= Version::V2026_07_28 {
        tools.push(region_echo());
        tools.push(crate::stateless::roots::definition());
        tools.extend(crate::mrtr::tool_definitions());
    }
    if faults.has(Fault::ToolSchemaInvalid) {
        tools.push(json!({
            "name": "invalid_schema",
            "description": "Lists a schema no validator accepts (the tool-schema-invalid fault).",
            "inputSchema": {
                "type": "object",
                "properties": { "n": { "type": "number", "minimum": "zero" } }
            }
        }));
    }
    if faults.has(Fault::DuplicateToolName) {
        let mut twin = tools[0].clone();
        twin["description"] =
            Value::from("Returns the given message unchanged (a second tool of the same name).");
        tools.push(twin);
    }
    tools
}

/// The tool whose parameter is mirrored into a header (SEP-2243).
pub(crate) const REGION_ECHO: &str = "region_echo";

fn region_echo() -> Value {
    json!({
        "name": REGION_ECHO,
        "description": "Returns the given region. Over Streamable HTTP the region travels in the Mcp-Param-Region header too.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "region": { "type": "string", "description": "Any text.", "x-mcp-header": "Region" }
            }
        }
    })
}

/// The `inputSchema` of tool `name` as listed at `version`, for the HTTP
/// layer's `Mcp-Param-*` checks.
pub fn input_schema(version: Version, name: &str) -> Option<Value> {
    definitions(version, FaultSet::default())
        .into_iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
        .and_then(|t| t.get("inputSchema").cloned())
}

/// The changes result faults make to every `tools/call` result.
pub(crate) fn apply_result_faults(result: &mut Value, faults: FaultSet) {
    if !faults.has(Fault::TextContentKey) {
        return;
    }
    if let Some(Value::Array(items)) = result.get_mut("content") {
        for item in items.iter_mut() {
            if let Value::Object(item) = item {
                if item.get("type") == Some(&Value::from("text")) {
                    if let Some(text) = item.remove("text") {
                        item.insert("content".into(), text);
                    }
                }
            }
        }
    }
}

/// Tool annotations exist from 2025-03-26 on.
fn has_annotations(version: Version) -> bool {
    version >= Version::V2025_03_26
}

fn has_structured_output(version: Version) -> bool {
    version >= Version::V2025_06_18
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "length": { "type": "integer" },
            "words": { "type": "integer" },
            "upper": { "type": "string" }
        },
        "required": ["length", "words", "upper"]
    })
}

/// What a call turned into.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ToolRun {
    /// A `CallToolResult`, ready to send.
    Done(Value),
    /// The `slow` tool: finish after `duration_ms`, in `steps` progress steps.
    Slow { duration_ms: u64, steps: u64 },
    /// Log `messages` notifications/message, then answer with `result`
    /// (the fixture's `test_tool_with_logging`).
    Logged { messages: usize, result: Value },
    /// Ask the client first; its answer makes the result (the fixture's
    /// sampling and elicitation tools).
    Ask(crate::fixtures::asks::Ask),
}

/// A `CallToolResult` with one text content block.
pub(crate) fn text_result(text: impl Into<String>, is_error: bool) -> Value {
    let mut result = json!({ "content": [{ "type": "text", "text": text.into() }] });
    if is_error {
        result["isError"] = Value::Bool(true);
    }
    result
}

/// Runs tool `name`. `Err` is a protocol error; execution errors are `Ok`.
pub(crate) fn run(
    name: &str,
    args: &Map<String, Value>,
    version: Version,
    faults: FaultSet,
) -> Result<ToolRun, RpcError> {
    let bad_args = |message: String| -> Result<ToolRun, RpcError> {
        if faults.has(Fault::ToolInputUnvalidated) {
            // The fault: the arguments are not checked, so the tool runs on a stand-in.
            return Ok(ToolRun::Done(text_result(String::new(), false)));
        }
        if version >= Version::V2025_11_25 && !faults.has(Fault::InputErrorAsProtocolError) {
            Ok(ToolRun::Done(text_result(
                format!("invalid arguments for tool {name}: {message}"),
                true,
            )))
        } else {
            Err(RpcError::invalid_params(format!(
                "invalid arguments for tool {name}: {message}"
            )))
        }
    };
    // Under `tool-name-format` the add tool is listed (and so called) by another name.
    let renamed = version >= Version::V2025_11_25 && faults.has(Fault::ToolNameFormat);
    let name = if renamed && name == BAD_ADD_NAME {
        "add"
    } else {
        name
    };
    match name {
        "echo" => match args.get("message") {
            Some(Value::String(m)) => Ok(ToolRun::Done(text_result(m.clone(), false))),
            _ => bad_args("`message` must be a string".into()),
        },
        "add" => match (args.get("a"), args.get("b")) {
            (Some(Value::Number(a)), Some(Value::Number(b))) => {
                let sum = match (a.as_i64(), b.as_i64()) {
                    (Some(a), Some(b)) => a.checked_add(b).map(Value::from),
                    _ => None,
                }
                .or_else(|| {
                    let f = a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0);
                    serde_json::Number::from_f64(f).map(Value::Number)
                });
                match sum {
                    Some(sum) => Ok(ToolRun::Done(text_result(sum.to_string(), false))),
                    None => bad_args("the sum is not a finite number".into()),
                }
            }
            _ => bad_args("`a` and `b` must be numbers".into()),
        },
        "fail" => Ok(ToolRun::Done(text_result(
            "the fail tool always fails: this is a tool execution error, not a protocol error",
            true,
        ))),
        "slow" => {
            let duration = match args.get("duration") {
                None => 2.0,
                Some(Value::Number(n)) => n.as_f64().unwrap_or(-1.0),
                Some(_) => -1.0,
            };
            if !(0.0..=MAX_DURATION_S).contains(&duration) {
                return bad_args(format!(
                    "`duration` must be a number of seconds from 0 to {MAX_DURATION_S}"
                ));
            }
            let steps = match args.get("steps") {
                None => Some(5),
                Some(Value::Number(n)) => n.as_u64().filter(|s| *s <= MAX_STEPS),
                Some(_) => None,
            };
            let Some(steps) = steps else {
                return bad_args(format!("`steps` must be an integer from 0 to {MAX_STEPS}"));
            };
            // In range 0..=60 s, so the product fits comfortably.
            let duration_ms = (duration * 1000.0).round() as u64;
            Ok(ToolRun::Slow { duration_ms, steps })
        }
        REGION_ECHO if version >= Version::V2026_07_28 => match args.get("region") {
            Some(Value::String(r)) => Ok(ToolRun::Done(text_result(format!("region: {r}"), false))),
            None => Ok(ToolRun::Done(text_result("region: (none)", false))),
            Some(_) => bad_args("`region` must be a string".into()),
        },
        "structured" => match args.get("text") {
            Some(Value::String(text)) => Ok(ToolRun::Done(structured(text, version, faults))),
            None => Ok(ToolRun::Done(structured("", version, faults))),
            Some(_) => bad_args("`text` must be a string".into()),
        },
        _ => Err(RpcError::invalid_params(format!("unknown tool: {name}"))
            .with_data(json!({ "name": name }))),
    }
}

/// The `slow` tool's final result.
pub(crate) fn slow_result(duration_ms: u64, steps: u64) -> Value {
    text_result(
        format!("slow finished after {duration_ms} ms in {steps} steps"),
        false,
    )
}

fn structured(text: &str, version: Version, faults: FaultSet) -> Value {
    let mut data = json!({
        "length": text.chars().count(),
        "words": text.split_whitespace().count(),
        "upper": text.to_uppercase(),
    });
    let mut result = text_result(data.to_string(), false);
    if has_structured_output(version) {
        if faults.has(Fault::StructuredMismatch) {
            // `length` becomes a string and `words` goes missing.
            data["length"] = Value::String(data["length"].to_string());
            if let Value::Object(obj) = &mut data {
                obj.remove("words");
            }
        }
        if faults.has(Fault::StructuredNoText) {
            result["content"] = json!([]);
        }
        result["structuredContent"] = data;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn definitions_follow_the_version() {
        let old = definitions(Version::V2025_03_26, FaultSet::default());
        let new = definitions(Version::V2025_06_18, FaultSet::default());
        // The reference's own tools first, then the conformance fixture's.
        let fixtures = crate::fixtures::tool_definitions(Version::V2025_03_26, FaultSet::default());
        assert_eq!(old.len(), NAMES.len() + fixtures.len());
        assert_eq!(old[NAMES.len()..], fixtures[..]);
        for (tool, name) in old.iter().zip(NAMES) {
            assert_eq!(tool["name"], name);
            assert_eq!(tool["inputSchema"]["type"], "object");
        }
        assert!(old.iter().all(|t| t.get("outputSchema").is_none()));
        assert!(new[4].get("outputSchema").is_some());
        assert!(old.iter().all(|t| t.get("title").is_none()));
        assert!(new[..NAMES.len()].iter().all(|t| t["title"].is_string()));
    }

    #[test]
    fn add_keeps_integers_exact() {
        let run = run(
            "add",
            &args(json!({"a": 2, "b": 40})),
            Version::V2025_06_18,
            FaultSet::default(),
        );
        assert_eq!(run, Ok(ToolRun::Done(text_result("42", false))));
    }

    #[test]
    fn argument_errors_depend_on_the_version() {
        let bad = args(json!({"message": 5}));
        let old = run("echo", &bad, Version::V2025_06_18, FaultSet::default());
        assert!(matches!(old, Err(RpcError { code: -32602, .. })));
        let new = run("echo", &bad, Version::V2025_11_25, FaultSet::default());
        assert!(matches!(new, Ok(ToolRun::Done(v)) if v["isError"] == true));
    }
}
