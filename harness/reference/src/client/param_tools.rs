//! SEP-2243 custom headers on the client side (2026-07-28): which listed
//! tools the reference client keeps, and which of their parameters its
//! transport mirrors into `Mcp-Param-*` headers
//! (`basic/transports/streamable-http#schema-extension`).
//!
//! A tool whose `x-mcp-header` annotations break the rules
//! ([`mcpspec_engine::param_headers::annotations`]) is dropped from the
//! tool list, with a warning naming it and the reason (never called); the
//! valid annotations of the kept tools are remembered by tool name, for the
//! driver to hand to the Streamable HTTP transport, which adds the headers
//! to each `tools/call`. The `http-keeps-invalid-header-tools` fault keeps every
//! tool (the invalid ones without headers).

use std::collections::BTreeMap;

use mcpspec_engine::param_headers::{annotations, Annotation};
use serde_json::Value;

/// The annotated parameters of each kept tool, by name.
pub type ParamTools = BTreeMap<String, Vec<Annotation>>;

/// The tools of one `tools/list` page the client keeps, and a warning for
/// each it drops. `check`: the rules apply (a 2026-07-28 session without
/// the fault). Valid annotations are added to `remembered`.
pub(crate) fn keep(
    items: &[Value],
    check: bool,
    remembered: &mut ParamTools,
) -> (Vec<Value>, Vec<String>) {
    let mut kept = Vec::new();
    let mut warnings = Vec::new();
    for tool in items {
        let name = tool.get("name").and_then(Value::as_str);
        let verdict = tool.get("inputSchema").map(annotations);
        match (verdict, name) {
            (Some(Err(why)), Some(name)) if check => {
                warnings.push(format!("dropping tool {name:?}: its {why}"));
                continue;
            }
            (Some(Ok(marked)), Some(name)) if !marked.is_empty() => {
                remembered.insert(name.to_owned(), marked);
            }
            _ => {}
        }
        kept.push(tool.clone());
    }
    (kept, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn invalid_tools_are_dropped_and_valid_annotations_kept() {
        let items = [
            json!({ "name": "good", "inputSchema": { "type": "object", "properties": {
                "r": { "type": "string", "x-mcp-header": "Region" } } } }),
            json!({ "name": "bad", "inputSchema": { "type": "object", "properties": {
                "s": { "type": "number", "x-mcp-header": "Score" } } } }),
            json!({ "name": "plain", "inputSchema": { "type": "object" } }),
        ];
        let mut remembered = ParamTools::new();
        let (kept, warnings) = keep(&items, true, &mut remembered);
        let names: Vec<&str> = kept.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["good", "plain"]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("\"bad\""), "{warnings:?}");
        assert_eq!(remembered["good"][0].header(), "Mcp-Param-Region");
        assert!(!remembered.contains_key("plain"));
        let (kept, warnings) = keep(&items, false, &mut ParamTools::new());
        assert_eq!(
            (kept.len(), warnings.len()),
            (3, 0),
            "the fault keeps them all"
        );
    }
}
