//! Redactions: volatile values replaced by named placeholders before
//! transcripts are compared (snapshots, `mcpspec diff`, `mcpspec replay`).
//!
//! **Built in**, always applied ([`Redactions::builtin`]):
//!
//! | what | placeholder |
//! |---|---|
//! | `.result.serverInfo.version` (the target's version) | `[server-version]` |
//! | `.params.clientInfo.version` (mcpspec's own version) | `[client-version]` |
//! | any value under a key like `sessionId`, `session_id`, `mcp-session-id` | `[session-id]` |
//! | a number under a key like `durationMs`, `elapsed` | `[duration]` |
//! | an RFC 3339 date-time inside any string (`2026-01-02T03:04:05Z`) | `[timestamp]` |
//! | the working directory, temp directory and home directory inside any string | `[cwd]`, `[tmp]`, `[home]` |
//! | an `mcp-session-id: …` header or a `?sessionId=…` query inside any string | `[session-id]` |
//! | a loopback port inside any string (`127.0.0.1:41234`) | `127.0.0.1:[port]` |
//! | a duration in a harness note (`300ms`, `5s`) | `[duration]` |
//!
//! **Per target**, a small YAML file (`--redactions FILE`):
//!
//! ```yaml
//! # selector into each message → placeholder
//! paths:
//!   .result.serverInfo.name: "[server-name]"
//!   .result.tools[].description: "[description]"
//!   .**.traceId: "[trace-id]"
//! # regular expression over every string and note → placeholder
//! patterns:
//!   'req-[0-9a-f]{8}': "[request-tag]"
//! ```
//!
//! Selectors follow insta's: `.key`, `["odd key"]`, `.*` (any key), `[]` or
//! `[*]` (every element), `[N]` (one element), `.**` (any depth, including
//! none). Harness-chosen request ids are already deterministic (1, 2, 3 …
//! in the order a case sends), so they are kept.

use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

/// One step of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    AnyKey,
    Index(usize),
    AnyIndex,
    Deep,
}

/// A parsed selector with the placeholder it writes.
#[derive(Debug, Clone)]
struct PathRule {
    segs: Vec<Seg>,
    placeholder: String,
}

#[derive(Debug, Clone)]
struct PatternRule {
    regex: Regex,
    placeholder: String,
}

/// The rules in force: the built-in ones plus a target's file.
#[derive(Debug, Clone)]
pub struct Redactions {
    paths: Vec<PathRule>,
    patterns: Vec<PatternRule>,
    /// `(prefix, placeholder)`, longest prefix first.
    dirs: Vec<(String, &'static str)>,
    timestamp: Regex,
    /// `(regex, replacement)` applied to every string after timestamps.
    text_rules: Vec<(Regex, &'static str)>,
    duration: Regex,
    session_key: Regex,
    duration_key: Regex,
}

/// Parses `.a.b[].c`, `.**.x`, `["k"]`, `[3]`.
fn parse_selector(text: &str) -> Result<Vec<Seg>, String> {
    let bad = |why: &str| format!("invalid selector {text:?}: {why}");
    if !text.starts_with(['.', '[']) {
        return Err(bad("it must start with `.` or `[`"));
    }
    let mut segs = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(".**") {
            segs.push(Seg::Deep);
            rest = after;
        } else if let Some(after) = rest.strip_prefix(".*") {
            segs.push(Seg::AnyKey);
            rest = after;
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(bad("empty key"));
            }
            segs.push(Seg::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or_else(|| bad("unclosed `[`"))?;
            let inner = after[..end].trim();
            segs.push(match inner {
                "" | "*" => Seg::AnyIndex,
                s if s.starts_with('"') => {
                    Seg::Key(serde_json::from_str(s).map_err(|_| bad("bad quoted key"))?)
                }
                s => Seg::Index(s.parse().map_err(|_| bad("bad index"))?),
            });
            rest = &after[end + 1..];
        } else {
            return Err(bad("expected `.` or `[`"));
        }
    }
    Ok(segs)
}

fn apply_path(value: &mut Value, segs: &[Seg], placeholder: &str) {
    let Some((first, rest)) = segs.split_first() else {
        *value = Value::String(placeholder.to_owned());
        return;
    };
    match (first, value) {
        (Seg::Deep, v) => {
            apply_path(v, rest, placeholder);
            match v {
                Value::Object(m) => m
                    .values_mut()
                    .for_each(|c| apply_path(c, segs, placeholder)),
                Value::Array(a) => a.iter_mut().for_each(|c| apply_path(c, segs, placeholder)),
                _ => {}
            }
        }
        (Seg::Key(k), Value::Object(m)) => {
            if let Some(c) = m.get_mut(k) {
                apply_path(c, rest, placeholder);
            }
        }
        (Seg::AnyKey, Value::Object(m)) => {
            m.values_mut()
                .for_each(|c| apply_path(c, rest, placeholder));
        }
        (Seg::Index(i), Value::Array(a)) => {
            if let Some(c) = a.get_mut(*i) {
                apply_path(c, rest, placeholder);
            }
        }
        (Seg::AnyIndex, Value::Array(a)) => {
            a.iter_mut().for_each(|c| apply_path(c, rest, placeholder));
        }
        _ => {}
    }
}

/// A built-in pattern; the pattern is a literal, tested below.
fn builtin_regex(pattern: &str) -> Regex {
    // A literal pattern that the unit tests compile: it cannot fail at run time.
    #[allow(clippy::unwrap_used)]
    Regex::new(pattern).unwrap()
}

impl Redactions {
    /// The built-in rules only.
    pub fn builtin() -> Self {
        let mut dirs: Vec<(String, &'static str)> = Vec::new();
        let mut add = |p: Option<std::path::PathBuf>, name: &'static str| {
            if let Some(p) = p {
                let s = p.to_string_lossy().trim_end_matches('/').to_owned();
                // `/` or a one-level path would redact far too much.
                if s.matches('/').count() >= 2 || (s.len() > 4 && s.starts_with('/')) {
                    dirs.push((s, name));
                }
            }
        };
        add(std::env::current_dir().ok(), "[cwd]");
        add(Some(std::env::temp_dir()), "[tmp]");
        add(std::env::var_os("HOME").map(Into::into), "[home]");
        dirs.sort_by_key(|d| std::cmp::Reverse(d.0.len()));
        dirs.dedup_by(|a, b| a.0 == b.0);
        let rule = |sel: &str, placeholder: &str| PathRule {
            segs: parse_selector(sel).unwrap_or_default(),
            placeholder: placeholder.to_owned(),
        };
        Redactions {
            paths: vec![
                rule(".result.serverInfo.version", "[server-version]"),
                rule(".params.clientInfo.version", "[client-version]"),
            ],
            patterns: Vec::new(),
            dirs,
            timestamp: builtin_regex(
                r"\b\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:?\d{2})?",
            ),
            text_rules: vec![
                (
                    builtin_regex(r"(?i)\b(mcp-session-id:\s*)[^;\s]+"),
                    "${1}[session-id]",
                ),
                (
                    builtin_regex(r"(?i)([?&]session_?id=)[^&\s\x22]+"),
                    "${1}[session-id]",
                ),
                (
                    builtin_regex(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+"),
                    "${1}:[port]",
                ),
            ],
            duration: builtin_regex(r"\b\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m)\b"),
            session_key: builtin_regex(r"(?i)^(?:mcp[-_]?)?session[-_]?id$"),
            duration_key: builtin_regex(
                r"(?i)^(?:duration|elapsed)(?:[-_]?(?:ms|millis|secs?|seconds))?$",
            ),
        }
    }

    /// The built-in rules plus those of `path` (see the module docs).
    pub fn load(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("failed to read the redactions file {shown}: {e}"))?;
        let mut rules = Self::builtin();
        rules
            .add_file_text(&text)
            .map_err(|e| format!("{shown}: {e}"))?;
        Ok(rules)
    }

    /// Adds the rules of a redactions file's text.
    pub fn add_file_text(&mut self, text: &str) -> Result<(), String> {
        let doc: Value = if text.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_saphyr::from_str(text).map_err(|e| format!("not valid YAML: {e}"))?
        };
        let Value::Object(doc) = doc else {
            return Err("expected a mapping with `paths` and/or `patterns`".into());
        };
        for (key, section) in doc {
            if key != "paths" && key != "patterns" {
                return Err(format!(
                    "unknown section `{key}` (expected `paths` or `patterns`)"
                ));
            }
            let entries = match section {
                Value::Object(m) => m,
                Value::Null => Map::new(),
                _ => return Err(format!("`{key}` must map each rule to its placeholder")),
            };
            for (rule, placeholder) in entries {
                let Value::String(placeholder) = placeholder else {
                    return Err(format!(
                        "`{key}`: the placeholder of {rule:?} must be a string (quote it)"
                    ));
                };
                match key.as_str() {
                    "paths" => self.paths.push(PathRule {
                        segs: parse_selector(&rule)?,
                        placeholder,
                    }),
                    _ => self.patterns.push(PatternRule {
                        regex: Regex::new(&rule)
                            .map_err(|e| format!("invalid pattern {rule:?}: {e}"))?,
                        placeholder,
                    }),
                }
            }
        }
        Ok(())
    }

    /// A string with timestamps, directories and the file's patterns replaced.
    pub fn text(&self, s: &str) -> String {
        let mut out = self.timestamp.replace_all(s, "[timestamp]").into_owned();
        for (regex, with) in &self.text_rules {
            if regex.is_match(&out) {
                out = regex.replace_all(&out, *with).into_owned();
            }
        }
        for (dir, name) in &self.dirs {
            if out.contains(dir.as_str()) {
                out = out.replace(dir.as_str(), name);
            }
        }
        for p in &self.patterns {
            out = p
                .regex
                .replace_all(&out, p.placeholder.as_str())
                .into_owned();
        }
        out
    }

    /// A harness note: [`Redactions::text`] plus durations.
    pub fn note(&self, s: &str) -> String {
        let s = self.duration.replace_all(s, "[duration]");
        self.text(&s)
    }

    /// A message with every rule applied.
    pub fn message(&self, message: &Value) -> Value {
        let mut v = message.clone();
        for rule in &self.paths {
            apply_path(&mut v, &rule.segs, &rule.placeholder);
        }
        self.walk(&mut v);
        v
    }

    fn walk(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                let t = self.text(s);
                if t != *s {
                    *s = t;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|c| self.walk(c)),
            Value::Object(m) => {
                for (k, c) in m.iter_mut() {
                    if self.session_key.is_match(k) && !c.is_null() {
                        *c = Value::String("[session-id]".into());
                    } else if self.duration_key.is_match(k) && c.is_number() {
                        *c = Value::String("[duration]".into());
                    } else {
                        self.walk(c);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_parse_like_insta() {
        assert_eq!(
            parse_selector(".a[].b.*[2][\"x.y\"].**").unwrap(),
            vec![
                Seg::Key("a".into()),
                Seg::AnyIndex,
                Seg::Key("b".into()),
                Seg::AnyKey,
                Seg::Index(2),
                Seg::Key("x.y".into()),
                Seg::Deep,
            ]
        );
        for bad in ["a", ".", ".a[", ".a[x]", ".a..b"] {
            assert!(parse_selector(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn builtins_hide_versions_sessions_times_and_paths() {
        let r = Redactions::builtin();
        let cwd = std::env::current_dir().unwrap().display().to_string();
        let m = json!({
            "id": 1,
            "result": {
                "serverInfo": {"name": "x", "version": "1.2.3"},
                "protocolVersion": "2025-06-18",
                "sessionId": "abc",
                "meta": {"durationMs": 12, "at": "at 2026-01-02T03:04:05.123Z ok"},
                "file": format!("{cwd}/a.txt"),
            }
        });
        let out = r.message(&m);
        assert_eq!(out["result"]["serverInfo"]["version"], "[server-version]");
        assert_eq!(out["result"]["serverInfo"]["name"], "x");
        assert_eq!(out["result"]["protocolVersion"], "2025-06-18", "dates stay");
        assert_eq!(out["result"]["sessionId"], "[session-id]");
        assert_eq!(out["result"]["meta"]["durationMs"], "[duration]");
        assert_eq!(out["result"]["meta"]["at"], "at [timestamp] ok");
        assert_eq!(out["result"]["file"], "[cwd]/a.txt");
        assert_eq!(out["id"], 1, "harness ids are kept");
        assert_eq!(
            r.note("http POST /mcp · got mcp-session-id: 5f2a-9; content-type: x"),
            "http POST /mcp · got mcp-session-id: [session-id]; content-type: x"
        );
        assert_eq!(
            r.text("endpoint http://127.0.0.1:41234/messages?sessionId=ab12&x=1"),
            "endpoint http://127.0.0.1:[port]/messages?sessionId=[session-id]&x=1"
        );
        assert_eq!(
            r.note("no answer within 300ms (case limit 5s)"),
            "no answer within [duration] (case limit [duration])"
        );
    }

    #[test]
    fn a_file_adds_paths_and_patterns() {
        let mut r = Redactions::builtin();
        r.add_file_text(
            "paths:\n  .result.tools[].description: \"[d]\"\n  .**.traceId: \"[t]\"\n\
             patterns:\n  'req-[0-9a-f]+': \"[req]\"\n",
        )
        .unwrap();
        let m = json!({"result": {"tools": [{"description": "a", "name": "req-12ab"}],
                                  "deep": [{"traceId": 7}]}});
        let out = r.message(&m);
        assert_eq!(out["result"]["tools"][0]["description"], "[d]");
        assert_eq!(out["result"]["tools"][0]["name"], "[req]");
        assert_eq!(out["result"]["deep"][0]["traceId"], "[t]");
        assert!(r
            .add_file_text("other: {}")
            .unwrap_err()
            .contains("unknown section"));
        let e = r.add_file_text("paths: {x: '[y]'}").unwrap_err();
        assert!(e.contains("selector"), "{e}");
        assert!(r
            .add_file_text("patterns: {'(': '[y]'}")
            .unwrap_err()
            .contains("invalid pattern"));
    }
}
