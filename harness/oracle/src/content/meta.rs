//! `_meta` keys and extension identifiers: the key format of `basic#meta`
//! (an optional prefix of dot-separated labels and `/`, then a name), and
//! (2026-07-28) extension identifiers, which are such keys with a prefix.

use mcpspec_engine::ids;
use serde_json::Value;

use super::Out;

/// Members whose values are the peer's data or a JSON Schema, not MCP
/// objects: a `_meta` inside them is not MCP's.
const OPAQUE: &[&str] = &[
    "arguments",
    "structuredContent",
    "inputSchema",
    "outputSchema",
    "requestedSchema",
    "content",
    "requestState",
];

/// `meta.key.format`: every key of every `_meta` object of `message`.
pub(super) fn judge(message: &Value, out: &mut Out<'_>) {
    let mut bad = Vec::new();
    walk(message, &mut bad);
    for key in bad {
        out.flag(
            &ids::META_KEY_FORMAT,
            format!("_meta key {key:?} is not a well-formed key (prefix of dot-separated labels and '/', then a name)"),
        );
    }
}

fn walk(v: &Value, bad: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if k == "_meta" {
                    if let Value::Object(meta) = child {
                        bad.extend(meta.keys().filter(|key| !key_ok(key, false)).cloned());
                    }
                } else if !OPAQUE.contains(&k.as_str()) {
                    walk(child, bad);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| walk(i, bad)),
        _ => {}
    }
}

/// `extensions.identifier-format`: the keys of `capabilities.extensions`.
pub(super) fn extensions(capabilities: Option<&Value>, out: &mut Out<'_>) {
    let Some(map) = capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(Value::as_object)
    else {
        return;
    };
    for key in map.keys().filter(|k| !key_ok(k, true)) {
        out.flag(
            &ids::EXTENSIONS_IDENTIFIER_FORMAT,
            format!("extension identifier {key:?} is not a _meta-style key with a prefix"),
        );
    }
}

/// Whether `key` is a well-formed `_meta` key (with a prefix, if `prefixed`).
pub(super) fn key_ok(key: &str, prefixed: bool) -> bool {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if prefixed && prefix.is_none() {
        return false;
    }
    prefix.is_none_or(|p| p.split('.').all(label_ok)) && name_ok(name)
}

fn label_ok(label: &str) -> bool {
    let b = label.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphabetic()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        }
        _ => false,
    }
}

fn name_ok(name: &str) -> bool {
    let b = name.as_bytes();
    match (b.first(), b.last()) {
        (None, _) => true,
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::key_ok;

    #[test]
    fn keys_follow_the_format() {
        for ok in [
            "progressToken",
            "io.modelcontextprotocol/protocolVersion",
            "com.example/",
            "com.example-x.a1/my_key.v2",
            "",
        ] {
            assert!(key_ok(ok, false), "{ok}");
        }
        for bad in [
            "-x",
            "x-",
            "1com/x",
            "com./x",
            "com.example-/x",
            "a b",
            "/x",
            "com/x/",
        ] {
            assert!(!key_ok(bad, false), "{bad}");
        }
        assert!(key_ok("io.modelcontextprotocol/ui", true));
        assert!(!key_ok("ui", true));
    }
}
