//! MCP's message types across all versions, written once.
//!
//! Each area file returns its [`Def`]s; [`model`] gathers them. The language they are
//! written in is in [`dsl`]; shapes many areas share are in [`common`].
//!
//! | file | what |
//! |---|---|
//! | `jsonrpc` | envelopes, ids, generic request / notification / result, pagination |
//! | `lifecycle` | initialize, capabilities, ping, cancellation, progress, implementation info |
//! | `content` | content blocks, resource contents, annotations |
//! | `tools`, `resources`, `prompts` | server features |
//! | `logging` | logging and argument completion |
//! | `sampling` | sampling and roots (client features) |
//! | `elicitation` | elicitation and its primitive schemas |
//! | `tasks` | 2025-11-25 tasks |
//! | `stateless` | 2026-07-28: discover, `_meta` objects, input-required results, subscriptions, named errors |
//! | `unions` | what each role may send |

pub mod dsl;

mod common;
mod content;
mod elicitation;
mod jsonrpc;
mod lifecycle;
mod logging;
mod prompts;
mod resources;
mod sampling;
mod stateless;
mod tasks;
mod tools;
mod unions;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use dsl::Def;

/// Every definition of every version, by name.
pub struct Model {
    defs: BTreeMap<&'static str, Def>,
}

impl Model {
    /// The definitions, ordered by name.
    pub fn defs(&self) -> impl Iterator<Item = &Def> {
        self.defs.values()
    }
}

impl dsl::Defs for Model {
    fn get(&self, name: &str) -> Option<&Def> {
        self.defs.get(name)
    }
}

/// The model, built once.
pub fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let defs = [
            jsonrpc::defs(),
            lifecycle::defs(),
            content::defs(),
            tools::defs(),
            resources::defs(),
            prompts::defs(),
            logging::defs(),
            sampling::defs(),
            elicitation::defs(),
            tasks::defs(),
            stateless::defs(),
            unions::defs(),
        ]
        .into_iter()
        .flatten()
        .map(|d| (d.name, d))
        .collect();
        Model { defs }
    })
}

#[cfg(test)]
mod tests {
    use mcpspec_engine::Version;
    use serde_json::Value;

    use crate::document;

    /// Walks every subschema, calling `f` on each.
    fn walk(value: &Value, f: &mut impl FnMut(&Value)) {
        f(value);
        match value {
            Value::Object(m) => m.values().for_each(|v| walk(v, f)),
            Value::Array(a) => a.iter().for_each(|v| walk(v, f)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_resolves_and_no_version_falls_into_a_hole() {
        for version in Version::ALL {
            let doc = document(version);
            let defs = doc["$defs"].as_object().expect("$defs");
            walk(&doc, &mut |v| {
                // `Ty::Versioned` without an arm for the version emits `false`.
                assert_ne!(
                    v,
                    &Value::Bool(false),
                    "@{version}: a versioned type has no arm"
                );
                if let Some(r) = v.get("$ref").and_then(Value::as_str) {
                    let name = r.strip_prefix("#/$defs/").expect("local reference");
                    assert!(defs.contains_key(name), "@{version}: dangling {r}");
                }
            });
        }
    }

    #[test]
    fn definition_names_are_the_official_ones() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemas");
        if !root.is_dir() {
            println!("skipped: no official schemas at {}", root.display());
            return;
        }
        for version in Version::ALL {
            let path = root.join(version.as_str()).join("schema.json");
            let text = std::fs::read_to_string(&path).expect("read the official schema");
            let official: Value = serde_json::from_str(&text).expect("parse the official schema");
            let theirs = official
                .get("$defs")
                .or_else(|| official.get("definitions"))
                .and_then(Value::as_object)
                .expect("official definitions");
            let ours = document(version)["$defs"]
                .as_object()
                .cloned()
                .expect("$defs");
            let a: Vec<_> = theirs.keys().collect();
            let mut b: Vec<_> = ours.keys().collect();
            let mut a = a;
            a.sort();
            b.sort();
            assert_eq!(a, b, "@{version}");
        }
    }
}
