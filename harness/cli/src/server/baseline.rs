//! `--expected-failures FILE`: loading the baseline.
//!
//! ```yaml
//! # case id, scenario id (every version) or glob over case ids: reason
//! server/tools/call/result-shape@2025-06-18: "structuredContent missing; tracked in #123"
//! server/pagination/**: pagination not implemented yet
//! server/tools/call/result-shape@2025-11-25:tools.call.structured-content: one rule only
//! flaky:                                   # may fail or pass; run again with --retries N
//!   server/notifications/progress/ordered: races with the target's scheduler
//! ```
//!
//! Every reason is a non-empty string, every key a string naming at least
//! one case of the corpus (a typo must not hide a failure), and after a `:`
//! a catalogued requirement; no key twice (the YAML parser refuses
//! duplicate keys).
//! Errors point at `file:line:col` and make exit 2. What an entry does to a
//! run is `mcpspec_report::baseline`'s business.

use std::fmt;
use std::path::Path;

use mcpspec_report::{Baseline, Entry};
use mcpspec_runner::Case;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::{Location, Spanned};

/// The map, in file order, each key and value with its position.
struct Entries(Vec<(Spanned<String>, Item)>);

/// A value of the map: a reason, or (under the key `flaky`) a map of its own.
enum Item {
    Reason(Spanned<Value>),
    Flaky(Spanned<Entries>),
}

/// The key of the section of flaky cases.
const FLAKY: &str = "flaky";

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of case id or glob to reason")
            }
            fn visit_unit<E>(self) -> Result<Entries, E> {
                Ok(Entries(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    let item = if key.value == FLAKY {
                        Item::Flaky(map.next_value()?)
                    } else {
                        Item::Reason(map.next_value()?)
                    };
                    out.push((key, item));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_any(V)
    }
}

fn at(file: &str, l: &Location) -> String {
    format!("{file}:{}:{}", l.line(), l.column())
}

/// Loads and checks `path`; `all_cases` is the whole server plan (every
/// scenario, every version), which each entry must name part of.
pub fn load(path: &Path, all_cases: &[Case]) -> Result<Baseline, Vec<String>> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![format!(
            "failed to read the expected-failures file {file}: {e}"
        )]
    })?;
    let options = serde_saphyr::options! { strict_booleans: true };
    let entries = match serde_saphyr::from_str_with_options::<Option<Entries>>(&text, options) {
        Ok(e) => e.map(|e| e.0).unwrap_or_default(),
        Err(e) => {
            // A document of the wrong type has no position: it starts at 1:1.
            let place = e
                .location()
                .map_or_else(|| format!("{file}:1:1"), |l| at(&file, &l));
            let mut message = e.without_snippet().to_string();
            if let Some(i) = message.rfind(" at line ") {
                message.truncate(i);
            }
            if let Some(key) = message.strip_prefix("duplicate mapping key: ") {
                let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
                message = format!("listed twice: {key}");
            } else if !message.contains("expected a map") {
                message.push_str(" (expected a map of case id or glob to reason)");
            }
            return Err(vec![format!(
                "{place}: error in expected-failures file: {message}"
            )]);
        }
    };
    let mut errors = Vec::new();
    let mut baseline = Baseline {
        file: file.clone(),
        entries: Vec::new(),
    };
    for (key, item) in entries {
        match item {
            Item::Reason(value) => match entry(&file, key, value, false, all_cases) {
                Ok(e) => baseline.entries.push(e),
                Err(e) => errors.push(e),
            },
            Item::Flaky(section) => {
                for (key, item) in section.value.0 {
                    let result = match item {
                        Item::Reason(value) => entry(&file, key, value, true, all_cases),
                        Item::Flaky(_) => Err(format!(
                            "{}: error in expected-failures file: `flaky` inside `flaky`",
                            at(&file, &key.referenced)
                        )),
                    };
                    match result {
                        Ok(e) => baseline.entries.push(e),
                        Err(e) => errors.push(e),
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(baseline)
    } else {
        Err(errors)
    }
}

/// One entry, checked: a reason, a valid pattern naming some case, a known
/// requirement after `:`; `flaky` for the `flaky:` section.
fn entry(
    file: &str,
    key: Spanned<String>,
    value: Spanned<Value>,
    flaky: bool,
    all_cases: &[Case],
) -> Result<Entry, String> {
    let origin = at(file, &key.referenced);
    let pattern = key.value;
    let reason = match value.value {
        Value::String(s) if !s.trim().is_empty() => s,
        other => {
            let what = match other {
                Value::Null => "no reason".to_owned(),
                Value::String(_) => "an empty reason".to_owned(),
                v => format!("{v} instead of a reason"),
            };
            return Err(format!(
                "{}: error in expected-failures file: `{pattern}` has {what}; every entry needs one (a string)",
                at(file, &value.referenced)
            ));
        }
    };
    let fail = |e: String| format!("{origin}: error in expected-failures file: {e}");
    let mut entry = Entry::new(pattern, reason, origin.clone()).map_err(fail)?;
    if flaky {
        entry = entry.into_flaky().map_err(fail)?;
    }
    if let Some(check) = entry.check.as_deref() {
        if mcpspec_engine::lookup(check).is_none() {
            return Err(fail(format!(
                "`{}` names no requirement `{check}` (`mcpspec list --requirements` shows them)",
                entry.pattern
            )));
        }
    }
    if !all_cases
        .iter()
        .any(|c| entry.matches(&c.id, &c.scenario.id))
    {
        return Err(fail(format!(
            "`{}` names no case \
             (a case id `<scenario id>@<version>`, a scenario id, or a glob over case ids; \
             `mcpspec server --list` shows them)",
            entry.pattern
        )));
    }
    Ok(entry)
}
