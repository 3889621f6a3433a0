//! From the model to one JSON Schema 2020-12 document per version.

use mcpspec_engine::Version;
use serde_json::{json, Map, Value};

use crate::model::{dsl, model};

/// The JSON Schema 2020-12 dialect every document declares.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The schema document of `version`: `$defs` holds one entry per definition the official
/// schema of that version names, in name order, and the document itself accepts any
/// `JSONRPCMessage` of that version.
pub fn document(version: Version) -> Value {
    let model = model();
    let mut defs = Map::new();
    for d in model.defs().filter(|d| d.span.contains(version)) {
        defs.insert(d.name.to_owned(), dsl::emit(&d.ty, version, model));
    }
    json!({
        "$schema": DIALECT,
        "title": format!("MCP {version} messages, as mcpspec models them"),
        "$ref": "#/$defs/JSONRPCMessage",
        "$defs": defs,
    })
}

/// The names of the definitions in `document(version)`'s `$defs`, in name order.
#[cfg(test)]
pub(crate) fn definition_names(version: Version) -> impl Iterator<Item = &'static str> {
    model()
        .defs()
        .filter(move |d| d.span.contains(version))
        .map(|d| d.name)
}

/// `document(version)`'s `$defs` entry `name`, built alone (`None`: the
/// version does not define it).
pub(crate) fn definition(version: Version, name: &str) -> Option<Value> {
    let model = model();
    let d = dsl::Defs::get(model, name).filter(|d| d.span.contains(version))?;
    Some(dsl::emit(&d.ty, version, model))
}

/// `document(version)` as committed: pretty-printed, with a final newline.
pub fn document_text(version: Version) -> String {
    // Serialising a `Value` cannot fail: its keys are strings and it holds no non-finite floats.
    let mut text = serde_json::to_string_pretty(&document(version)).unwrap_or_default();
    text.push('\n');
    text
}
