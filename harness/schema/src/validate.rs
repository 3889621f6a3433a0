//! Checking messages against a version's definitions.
//!
//! [`schemas`] holds the document of a version and answers, for a message the runner
//! received, which definition describes it and whether it conforms. Each definition is
//! compiled the first time a message is checked against it, with only the definitions it
//! refers to: a run compiles what its traffic needs, not every subschema of five
//! documents (issue #18: that was most of a run's heap).
//! What each check validates:
//!
//! - a request ([`VersionSchemas::check_request`]) and a notification
//!   ([`VersionSchemas::check_notification`]): the **whole message** object. Up to
//!   2025-06-18 the official definitions describe only `method` and `params` (other
//!   members are allowed), from 2025-11-25 on also `jsonrpc` and `id`; either way the whole
//!   message is what they describe. Instance paths start at the message (`/params/name`).
//! - a result ([`VersionSchemas::check_result`]): the **`result` member** of the response,
//!   against the result definition of the request's method. Instance paths start at the
//!   result (`/tools/0`).
//! - an error response ([`VersionSchemas::check_error_response`]): the **whole message**,
//!   against `JSONRPCError` (up to 2025-06-18) or `JSONRPCErrorResponse`, and, when the
//!   code is one the version names (`-32042` in 2025-11-25; `-32020`..`-32022` in
//!   2026-07-28), against that named error's definition too.
//!
//! A method the version does not have, or that the given sender may not send, is not
//! checked here (no violations): the engine judges unknown and misdirected methods.
//!
//! `format` (`uri`, `uri-template`, `byte`) is an annotation in every version, as JSON
//! Schema 2020-12 has it: draft-07 left asserting it optional, and a target is not judged
//! on URI syntax here (the differential test compares verdicts the same way).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use jsonschema::{ValidationError, Validator};
use mcpspec_engine::{Role, Version};
use serde_json::{Map, Value};

#[cfg(test)]
use crate::generate::definition_names;
use crate::generate::{definition as definition_value, DIALECT};
use crate::methods::{methods, Alternative, Kind, Method};

/// At most this many violations are reported for one message.
const MAX_VIOLATIONS: usize = 20;
/// Messages are cut to about this many characters.
const MAX_MESSAGE: usize = 200;

/// One way a value breaks a definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The definition checked against (`CallToolRequest`).
    pub definition: String,
    /// JSON pointer into the checked value (`/params/name`; empty for the value itself).
    pub instance_path: String,
    /// JSON pointer into the definition to the failing keyword (`/properties/params/…`).
    pub schema_path: String,
    /// What is wrong, in a few words.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        write!(
            f,
            "{} at {at}: {} (schema {})",
            self.definition, self.message, self.schema_path
        )
    }
}

/// The definitions (compiled as they are used) and method table of one version.
/// The document itself is not kept: a definition is built from the model when
/// it is compiled, with the ones it refers to (the five documents were a
/// megabyte of JSON values held for the whole run, issue #18).
pub struct VersionSchemas {
    version: Version,
    methods: Vec<Method>,
    /// Definitions compiled so far; `Err` holds why one did not compile (the
    /// tests compile every definition of every version, so none should).
    compiled: RwLock<HashMap<String, Compiled>>,
}

type Compiled = Result<Arc<Validator>, String>;

/// The schemas of `version`, compiled on first use.
pub fn schemas(version: Version) -> &'static VersionSchemas {
    static CELLS: [OnceLock<VersionSchemas>; 5] = [const { OnceLock::new() }; 5];
    let index = Version::ALL.iter().position(|v| *v == version).unwrap_or(0);
    CELLS[index].get_or_init(|| VersionSchemas::compile(version))
}

impl VersionSchemas {
    fn compile(version: Version) -> Self {
        VersionSchemas {
            version,
            methods: methods(version),
            compiled: RwLock::new(HashMap::new()),
        }
    }

    /// The validator of `definition`, compiled on first use.
    fn validator(&self, definition: &str) -> Compiled {
        // A poisoned lock only means another check panicked; the map itself is whole.
        if let Some(done) = self
            .compiled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(definition)
        {
            return done.clone();
        }
        let compiled = self.build(definition);
        self.compiled
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(definition.to_owned())
            .or_insert(compiled)
            .clone()
    }

    /// Compiles `definition` as a document of its own: the definition at the
    /// root (so schema paths read as they would inside the whole document),
    /// beside the definitions it refers to, directly or not.
    fn build(&self, definition: &str) -> Compiled {
        let defs = referenced(self.version, definition);
        let Some(Value::Object(mut root)) = defs.get(definition).cloned() else {
            return Err(format!("{} defines no {definition}", self.version));
        };
        let defs: Map<String, Value> = defs.into_iter().collect();
        root.insert("$schema".to_owned(), Value::String(DIALECT.to_owned()));
        root.insert("$defs".to_owned(), Value::Object(defs));
        jsonschema::options()
            .should_validate_formats(false)
            .build(&Value::Object(root))
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// Every method of this version.
    pub fn methods(&self) -> &[Method] {
        &self.methods
    }

    /// The method named `name`, if this version has it.
    pub fn method(&self, name: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// The definition of the request `method` sent by `sender` (`tools/call` from a
    /// client: `CallToolRequest`).
    pub fn request_definition(&self, sender: Role, method: &str) -> Option<&'static str> {
        self.sent(sender, method, Kind::Request)
            .map(|m| m.definition)
    }

    /// The definition of the notification `method` sent by `sender`.
    pub fn notification_definition(&self, sender: Role, method: &str) -> Option<&'static str> {
        self.sent(sender, method, Kind::Notification)
            .map(|m| m.definition)
    }

    /// The usual result definition of the request `method` (`tools/call`: `CallToolResult`).
    pub fn result_definition(&self, method: &str) -> Option<&'static str> {
        self.method(method).and_then(|m| m.result)
    }

    fn sent(&self, sender: Role, method: &str, kind: Kind) -> Option<&Method> {
        self.method(method)
            .filter(|m| m.kind == kind && m.senders.includes(sender))
    }

    /// Checks a whole request message sent by `sender`.
    pub fn check_request(&self, sender: Role, method: &str, message: &Value) -> Vec<Violation> {
        match self.request_definition(sender, method) {
            Some(def) => self.check(def, message),
            None => Vec::new(),
        }
    }

    /// Checks a whole notification message sent by `sender`.
    pub fn check_notification(
        &self,
        sender: Role,
        method: &str,
        message: &Value,
    ) -> Vec<Violation> {
        match self.notification_definition(sender, method) {
            Some(def) => self.check(def, message),
            None => Vec::new(),
        }
    }

    /// Checks the `result` member of a response to a `method` request.
    pub fn check_result(&self, method: &str, result: &Value) -> Vec<Violation> {
        let Some(m) = self.method(method) else {
            return Vec::new();
        };
        let Some(usual) = m.result else {
            return Vec::new();
        };
        let def = match m.alternative {
            Alternative::Task if result.get("task").is_some() => "CreateTaskResult",
            Alternative::InputRequired
                if result.get("resultType").and_then(Value::as_str) == Some("input_required") =>
            {
                "InputRequiredResult"
            }
            _ => usual,
        };
        self.check(def, result)
    }

    /// Checks a whole error response message.
    pub fn check_error_response(&self, message: &Value) -> Vec<Violation> {
        let envelope = if self.version >= Version::V2025_11_25 {
            "JSONRPCErrorResponse"
        } else {
            "JSONRPCError"
        };
        let mut out = self.check(envelope, message);
        let code = message.pointer("/error/code").and_then(Value::as_i64);
        let named = match (self.version, code) {
            (Version::V2025_11_25, Some(-32042)) => Some("URLElicitationRequiredError"),
            (Version::V2026_07_28, Some(-32020)) => Some("HeaderMismatchError"),
            (Version::V2026_07_28, Some(-32021)) => Some("MissingRequiredClientCapabilityError"),
            (Version::V2026_07_28, Some(-32022)) => Some("UnsupportedProtocolVersionError"),
            _ => None,
        };
        if let (Some(named), true) = (named, out.is_empty()) {
            out = self.check(named, message);
        }
        out
    }

    /// Checks `value` against the definition `definition` of this version. A name the
    /// version does not define yields one violation saying so.
    pub fn check(&self, definition: &str, value: &Value) -> Vec<Violation> {
        let validator = match self.validator(definition) {
            Ok(v) => v,
            Err(why) => return vec![harness_violation(definition, &why)],
        };
        if validator.is_valid(value) {
            return Vec::new();
        }
        validator
            .iter_errors(value)
            .take(MAX_VIOLATIONS)
            .map(|e| violation(definition, &e))
            .collect()
    }
}

/// The definitions `definition` refers to (`"$ref": "#/$defs/Name"`), directly or
/// through others, itself included: each as `document(version)` has it, built
/// alone from the model, by name.
fn referenced(version: Version, definition: &str) -> BTreeMap<String, Value> {
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(members) => {
                for (key, member) in members {
                    match (key.as_str(), member) {
                        ("$ref", Value::String(target)) => {
                            if let Some(name) = target.strip_prefix("#/$defs/") {
                                out.push(name.to_owned());
                            }
                        }
                        _ => refs(member, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
            _ => {}
        }
    }
    let mut seen = BTreeMap::new();
    let mut todo = vec![definition.to_owned()];
    while let Some(name) = todo.pop() {
        if seen.contains_key(&name) {
            continue;
        }
        if let Some(schema) = definition_value(version, &name) {
            refs(&schema, &mut todo);
            seen.insert(name, schema);
        }
    }
    seen
}

fn violation(definition: &str, error: &ValidationError<'_>) -> Violation {
    Violation {
        definition: definition.to_owned(),
        instance_path: error.instance_path().to_string(),
        schema_path: error.schema_path().to_string(),
        message: truncate(error.masked().to_string()),
    }
}

fn harness_violation(definition: &str, why: &str) -> Violation {
    Violation {
        definition: definition.to_owned(),
        instance_path: String::new(),
        schema_path: String::new(),
        message: truncate(why.to_owned()),
    }
}

fn truncate(mut s: String) -> String {
    if s.chars().count() > MAX_MESSAGE {
        let cut = s
            .char_indices()
            .nth(MAX_MESSAGE)
            .map_or(s.len(), |(i, _)| i);
        s.truncate(cut);
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_definition_of_every_version_compiles() {
        for version in Version::ALL {
            let s = schemas(version);
            let names: Vec<&str> = definition_names(version).collect();
            assert!(!names.is_empty(), "@{version}: no definitions");
            for name in names {
                if let Err(why) = s.validator(name) {
                    panic!("{name}@{version}: {why}");
                }
            }
        }
    }

    #[test]
    fn a_definition_is_compiled_with_what_it_refers_to_and_no_more() {
        let r = referenced(Version::V2025_11_25, "CallToolResult");
        assert!(
            r.contains_key("CallToolResult") && r.contains_key("ContentBlock"),
            "{:?}",
            r.keys()
        );
        assert!(!r.contains_key("InitializeRequest"), "{:?}", r.keys());
        // Each as the whole document has it.
        let doc = crate::document(Version::V2025_11_25);
        for (name, value) in &r {
            assert_eq!(Some(value), doc["$defs"].get(name), "{name}");
        }
    }

    #[test]
    fn schema_paths_start_at_the_definition() {
        let v = schemas(Version::V2025_11_25).check("CallToolResult", &serde_json::json!({}));
        assert!(!v.is_empty());
        assert!(
            v.iter().all(|v| !v.schema_path.starts_with("/$defs")),
            "{v:?}"
        );
    }

    #[test]
    fn truncation_keeps_char_boundaries() {
        let cut = truncate("é".repeat(500));
        assert_eq!(cut.chars().count(), MAX_MESSAGE + 1);
        assert_eq!(truncate("short".into()), "short");
    }

    #[test]
    fn an_unknown_definition_is_reported_not_panicked() {
        let v = schemas(Version::V2024_11_05).check("DiscoverRequest", &serde_json::json!({}));
        assert_eq!(v.len(), 1);
        assert!(v[0].message.contains("defines no DiscoverRequest"));
    }
}
