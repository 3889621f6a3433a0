//! The reference server's resources and resource templates.
//!
//! | URI                              | kind                                              |
//! |----------------------------------|---------------------------------------------------|
//! | `mcpspec://static/1` … `/5`      | fixed text (`text/plain`)                          |
//! | `mcpspec://blob`                 | fixed bytes 0..=31 as base64 (`application/octet-stream`) |
//! | `mcpspec://counter`              | text that changes every 250 ms (subscribable)     |
//! | `mcpspec://items/{id}`           | template: text naming the item                    |
//! | `mcpspec://users/{name}/profile` | template: a JSON profile (`application/json`)     |
//! | `mcpspec://echo/{text}`          | template: the text itself                         |
//!
//! The counter's value is derived from time (`now_ms / 250`), so reading it is
//! pure; the server schedules `notifications/resources/updated` for
//! subscribers at each 250 ms boundary.

use serde_json::{json, Value};

use crate::b64;
use crate::fault::{Fault, FaultSet};

pub(crate) const COUNTER_URI: &str = "mcpspec://counter";
pub(crate) const BLOB_URI: &str = "mcpspec://blob";
/// How often the counter resource changes.
pub(crate) const COUNTER_PERIOD_MS: u64 = 250;
const STATIC_COUNT: usize = 5;

/// `resources/list` entries, in list order. The changing counter comes
/// first, so that a client which subscribes to the first resource it finds
/// sees updates.
pub(crate) fn definitions(faults: FaultSet) -> Vec<Value> {
    let mut list = vec![json!({
        "uri": COUNTER_URI,
        "name": "counter",
        "description": "A counter that changes every 250 ms; subscribe to be told.",
        "mimeType": "text/plain"
    })];
    list.extend((1..=STATIC_COUNT).map(|n| {
        json!({
            "uri": format!("mcpspec://static/{n}"),
            "name": format!("static-{n}"),
            "description": format!("Static text resource number {n}."),
            "mimeType": "text/plain"
        })
    }));
    list.push(json!({
        "uri": BLOB_URI,
        "name": "blob",
        "description": "32 bytes (0 to 31) of binary data.",
        "mimeType": "application/octet-stream"
    }));
    if faults.has(Fault::RelativeResourceUri) {
        list.push(json!({
            "uri": RELATIVE_URI,
            "name": "notes",
            "description": "Notes, listed under a relative reference (fault relative-resource-uri).",
            "mimeType": "text/plain"
        }));
    }
    list
}

/// What the `relative-resource-uri` fault lists: no scheme, so not a URI.
const RELATIVE_URI: &str = "notes.txt";

/// The `blob` member for `bytes`: base64, or (fault `blob-raw-bytes`) the
/// bytes themselves as a string.
pub(crate) fn blob(bytes: &[u8], faults: FaultSet) -> String {
    if faults.has(Fault::BlobRawBytes) {
        bytes.iter().map(|b| char::from(*b)).collect()
    } else {
        b64::encode(bytes)
    }
}

/// A URI template with exactly one variable standing for one path segment.
struct Template {
    name: &'static str,
    prefix: &'static str,
    var: &'static str,
    suffix: &'static str,
    mime: &'static str,
    description: &'static str,
}

const TEMPLATES: [Template; 3] = [
    Template {
        name: "item",
        prefix: "mcpspec://items/",
        var: "id",
        suffix: "",
        mime: "text/plain",
        description: "An item, by id.",
    },
    Template {
        name: "user-profile",
        prefix: "mcpspec://users/",
        var: "name",
        suffix: "/profile",
        mime: "application/json",
        description: "A user's profile as JSON.",
    },
    Template {
        name: "echo",
        prefix: "mcpspec://echo/",
        var: "text",
        suffix: "",
        mime: "text/plain",
        description: "A resource whose content is the text in its URI.",
    },
];

impl Template {
    fn uri_template(&self) -> String {
        format!("{}{{{}}}{}", self.prefix, self.var, self.suffix)
    }

    /// The variable's value if `uri` matches.
    fn matches<'u>(&self, uri: &'u str) -> Option<&'u str> {
        let value = uri.strip_prefix(self.prefix)?.strip_suffix(self.suffix)?;
        (!value.is_empty() && !value.contains(['/', '?', '#'])).then_some(value)
    }

    fn contents(&self, uri: &str, value: &str) -> Value {
        let text = match self.name {
            "item" => format!("Item {value}"),
            "user-profile" => json!({ "name": value, "role": "tester" }).to_string(),
            _ => value.to_owned(),
        };
        json!({ "uri": uri, "mimeType": self.mime, "text": text })
    }

    /// Completion candidates for the template's variable.
    fn candidates(&self) -> Vec<String> {
        match self.name {
            "item" => (1..=12).map(|n| n.to_string()).collect(),
            "user-profile" => ["ada", "alan", "grace", "linus"].map(String::from).to_vec(),
            _ => ["hello", "help", "world"].map(String::from).to_vec(),
        }
    }
}

/// `resources/templates/list` entries, in list order.
pub(crate) fn templates() -> Vec<Value> {
    TEMPLATES
        .iter()
        .map(|t| {
            json!({
                "uriTemplate": t.uri_template(),
                "name": t.name,
                "description": t.description,
                "mimeType": t.mime
            })
        })
        .collect()
}

/// The counter's value at `now_ms`.
pub(crate) fn counter_value(now_ms: u64) -> u64 {
    now_ms / COUNTER_PERIOD_MS
}

/// The `contents` entry of `resources/read` for `uri`, or `None` if no such resource.
pub(crate) fn read(uri: &str, now_ms: u64, faults: FaultSet) -> Option<Value> {
    if let Some(n) = uri.strip_prefix("mcpspec://static/") {
        let n: usize = n.parse().ok().filter(|n| (1..=STATIC_COUNT).contains(n))?;
        // Canonical numbers only: "01" is not a resource.
        if uri != format!("mcpspec://static/{n}") {
            return None;
        }
        return Some(json!({
            "uri": uri,
            "mimeType": "text/plain",
            "text": format!("This is static resource number {n}.")
        }));
    }
    match uri {
        BLOB_URI => {
            let bytes: Vec<u8> = (0..32).collect();
            Some(json!({
                "uri": uri,
                "mimeType": "application/octet-stream",
                "blob": blob(&bytes, faults)
            }))
        }
        RELATIVE_URI if faults.has(Fault::RelativeResourceUri) => Some(json!({
            "uri": uri,
            "mimeType": "text/plain",
            "text": "Notes without a URI scheme."
        })),
        COUNTER_URI => Some(json!({
            "uri": uri,
            "mimeType": "text/plain",
            "text": counter_value(now_ms).to_string()
        })),
        _ => TEMPLATES
            .iter()
            .find_map(|t| t.matches(uri).map(|v| t.contents(uri, v)))
            .or_else(|| crate::fixtures::library::read(uri, faults))
            .or_else(|| unvalidated(uri, faults)),
    }
}

/// The `resource-uri-unvalidated` fault: a string that is no URI at all (no
/// scheme) is "read" as an empty text instead of refused.
fn unvalidated(uri: &str, faults: FaultSet) -> Option<Value> {
    let scheme = uri.split_once(':').map(|(s, _)| s).unwrap_or_default();
    let is_uri = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (faults.has(Fault::ResourceUriUnvalidated) && !is_uri)
        .then(|| json!({ "uri": uri, "mimeType": "text/plain", "text": "" }))
}

/// Completion candidates for `var` of the template `uri_template`, or `None`
/// when the server has no such template.
pub(crate) fn complete(uri_template: &str, var: &str) -> Option<Vec<String>> {
    let t = TEMPLATES
        .iter()
        .find(|t| t.uri_template() == uri_template)?;
    Some(if t.var == var {
        t.candidates()
    } else {
        Vec::new()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_resource_can_be_read() {
        for r in definitions(FaultSet::default()) {
            let uri = r["uri"].as_str().unwrap_or_default();
            let c = read(uri, 0, FaultSet::default()).unwrap_or_default();
            assert_eq!(c["uri"], uri);
            assert_eq!(c["mimeType"], r["mimeType"]);
        }
    }

    #[test]
    fn templates_match_one_segment() {
        assert_eq!(
            read("mcpspec://items/42", 0, FaultSet::default()).unwrap_or_default()["text"],
            "Item 42"
        );
        let profile =
            read("mcpspec://users/ada/profile", 0, FaultSet::default()).unwrap_or_default();
        assert_eq!(profile["mimeType"], "application/json");
        assert!(read("mcpspec://items/", 0, FaultSet::default()).is_none());
        assert!(read("mcpspec://items/a/b", 0, FaultSet::default()).is_none());
        assert!(read("mcpspec://users/ada", 0, FaultSet::default()).is_none());
        assert!(read("mcpspec://static/01", 0, FaultSet::default()).is_none());
        assert!(read("mcpspec://static/6", 0, FaultSet::default()).is_none());
        assert!(read("mcpspec://nothing", 0, FaultSet::default()).is_none());
    }

    #[test]
    fn counter_changes_every_period() {
        let at =
            |ms| read(COUNTER_URI, ms, FaultSet::default()).unwrap_or_default()["text"].clone();
        assert_eq!(at(0), at(249));
        assert_ne!(at(249), at(250));
    }

    #[test]
    fn template_completion() {
        assert_eq!(
            complete("mcpspec://items/{id}", "id").map(|v| v.len()),
            Some(12)
        );
        assert_eq!(complete("mcpspec://items/{id}", "other"), Some(vec![]));
        assert_eq!(complete("mcpspec://nope/{id}", "id"), None);
    }
}
