//! Checking messages against a version's definitions.
//!
//! [`schemas`] compiles the document of a version once (on first use) and answers, for a
//! message the runner received, which definition describes it and whether it conforms.
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

use std::fmt;
use std::sync::OnceLock;

use jsonschema::{ValidationError, ValidatorMap};
use mcpspec_engine::{Role, Version};
use serde_json::Value;

use crate::generate::document;
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

/// The compiled definitions and method table of one version.
pub struct VersionSchemas {
    version: Version,
    methods: Vec<Method>,
    /// `Err` holds why the document did not compile; the model tests make sure it does.
    validators: Result<ValidatorMap, String>,
}

/// The schemas of `version`, compiled on first use.
pub fn schemas(version: Version) -> &'static VersionSchemas {
    static CELLS: [OnceLock<VersionSchemas>; 5] = [const { OnceLock::new() }; 5];
    let index = Version::ALL.iter().position(|v| *v == version).unwrap_or(0);
    CELLS[index].get_or_init(|| VersionSchemas::compile(version))
}

impl VersionSchemas {
    fn compile(version: Version) -> Self {
        let validators = jsonschema::options()
            .should_validate_formats(false)
            .build_map(&document(version))
            .map_err(|e| e.to_string());
        VersionSchemas {
            version,
            methods: methods(version),
            validators,
        }
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
        let validators = match &self.validators {
            Ok(v) => v,
            Err(why) => return vec![harness_violation(definition, why)],
        };
        let Some(validator) = validators.get(&format!("#/$defs/{definition}")) else {
            let why = format!("{} defines no {definition}", self.version);
            return vec![harness_violation(definition, &why)];
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
    fn every_version_compiles() {
        for version in Version::ALL {
            assert!(schemas(version).validators.is_ok(), "@{version}");
        }
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
