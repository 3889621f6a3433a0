//! The scenario file format as tables: the keys of every map (each with a
//! one-line description and the shape of its value), the step kinds and the
//! keyword sets (levels, versions, transports, sessions). The matcher
//! operators are a table of the same kind, in [`crate::matcher::operators`].
//!
//! The loader reads files through these tables — its lists of valid keys, its
//! "did you mean" suggestions and its keyword lookups come from here — and
//! [`crate::file_schema`] turns the same tables into the JSON Schema of the
//! format, so the two cannot drift apart. A key the loader takes but no table
//! lists trips a debug assertion in [`super::reader::Fields::finish`].
//!
//! Here: the table types and the keyword sets; the scenario's own maps
//! (top level, `requires`, `auth`) are in `scenario`, the steps' in `steps`.

use crate::model::TransportKind;
use mcpspec_engine::{Level, Version};

mod scenario;
mod steps;

pub(crate) use scenario::{AUTH, REQUIRES, TOP};
pub(crate) use steps::*;

/// One key of a YAML map.
pub(crate) struct Key {
    pub name: &'static str,
    /// One line for editors (hover, completion).
    pub doc: &'static str,
    pub shape: Shape,
    pub required: bool,
}

pub(crate) const fn opt(name: &'static str, doc: &'static str, shape: Shape) -> Key {
    Key {
        name,
        doc,
        shape,
        required: false,
    }
}

pub(crate) const fn req(name: &'static str, doc: &'static str, shape: Shape) -> Key {
    Key {
        name,
        doc,
        shape,
        required: true,
    }
}

/// A closed map: these keys and no others, under these rules.
pub(crate) struct MapDef {
    pub keys: &'static [Key],
    pub rules: &'static [Rule],
}

impl MapDef {
    const fn new(keys: &'static [Key]) -> MapDef {
        MapDef { keys, rules: &[] }
    }

    /// The key names, in order (the `valid` list of [`super::reader::Fields::finish`]).
    pub fn names(&self) -> Vec<&'static str> {
        names(self.keys)
    }
}

/// The names of `keys`, in order.
pub(crate) fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

/// A constraint between keys of one map.
pub(crate) enum Rule {
    /// At most one of these keys.
    AtMostOne(&'static [&'static str]),
    /// `.0` needs `.1`.
    Needs(&'static str, &'static str),
    /// `key` with the value `when` excludes `other`.
    Excludes {
        key: &'static str,
        when: Lit,
        other: &'static str,
    },
    /// `key` with the value `when` excludes these members of the map `map`.
    ExcludesMembers {
        key: &'static str,
        when: Lit,
        map: &'static str,
        members: &'static [&'static str],
    },
}

/// A literal value in a [`Rule`].
pub(crate) enum Lit {
    True,
    Str(&'static str),
}

/// What the value of a key looks like. [`crate::file_schema`] says it in
/// JSON Schema; the loader's reading functions check it.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// `server/...` or `client/...`: lowercase `[a-z0-9-]` segments.
    ScenarioId,
    /// One line of text, not blank.
    OneLine,
    /// Any string.
    Text,
    /// A string that is not blank.
    NonEmpty,
    /// A list (≥1, no repeats) of requirement ids.
    RequirementIds,
    Level,
    /// `handshake`, `all`, a version, or a list of versions.
    Versions,
    /// `all` or a list of transports.
    Transports,
    Session,
    /// `requires.auth`: one of [`crate::model::AuthGate::ALL`].
    AuthGate,
    /// `judge:` of an `http` step: one of [`crate::model::MetadataDoc::ALL`].
    MetadataDoc,
    /// The name of an opt-in extension ([`mcpspec_engine::EXTENSIONS`]).
    Extension,
    /// A list of dotted capability paths.
    CapabilityPaths,
    /// `250ms`, `2s`, `1m`.
    Duration,
    Bool,
    /// An integer in `min..=max` (`None`: `u64::MAX`).
    Count {
        min: u64,
        max: Option<u64>,
    },
    /// `letters, digits, _ and -`, starting with a letter.
    Label,
    /// A dotted variable path.
    Var,
    /// Any value; its strings are templates.
    Template,
    /// A map of any values (plain JSON, no templates).
    Object,
    /// Request params: a map, a list, or a template string.
    Params,
    /// A JSON-RPC id: a string or a number, or also `null`.
    RequestId {
        null: bool,
    },
    Matcher,
    /// Pairs of hex digits, whitespace ignored.
    Hex,
    /// One of [`crate::model::Discover::LISTS`].
    DiscoverList,
    /// The list of steps.
    Steps,
    Map(&'static MapDef),
    /// `null` (nothing written) or the map.
    NullOr(&'static MapDef),
    /// A duration or the map.
    DurationOr(&'static MapDef),
    /// The `expect` step: one selector and the keys it allows.
    Expectation,
    /// `$type`: a type name or a list of them.
    TypeNames,
    /// `$regex`: a regular expression.
    Regex,
    /// A non-empty list of matchers.
    Matchers,
    /// A list of values (templates).
    Values,
    /// A number or a template string.
    Bound,
    /// `$schema`: a JSON Schema, or a template string that renders to one.
    Schema,
    /// HTTP header overrides: names → a string (a template) or `null` (remove).
    Headers,
    /// One of these words.
    OneOf(&'static [&'static str]),
}

/// The roles a scenario id starts with.
pub(crate) const ID_ROLES: [&str; 2] = ["server", "client"];

/// The values of `level`.
pub(crate) const LEVELS: [Level; 3] = [Level::Must, Level::Should, Level::May];

/// `versions` keywords and the versions they stand for; the first is the default.
pub(crate) const VERSION_SETS: [(&str, &[Version]); 2] =
    [("handshake", &Version::HANDSHAKE), ("all", &Version::ALL)];

/// The `transports` keyword for every transport (the default).
pub(crate) const ALL_TRANSPORTS: &str = "all";

/// `level` of the scenario or of a step.
const LEVEL_DOC: &str = "must | should | may: the level of the checks";

/// The transports `transports` may list.
pub(crate) fn transport_names() -> Vec<&'static str> {
    TransportKind::ALL.iter().map(|t| t.as_str()).collect()
}

/// `a, b or c`.
pub(crate) fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_lists() {
        assert_eq!(one_of(&["must", "should", "may"]), "must, should or may");
        assert_eq!(one_of(&["a"]), "a");
    }

    #[test]
    fn keys_are_unique_per_map() {
        let maps: [&[Key]; 4] = [
            TOP.keys,
            STEP_COMMON,
            crate::matcher::operators::OPERATORS,
            DISCOVER.keys,
        ];
        for keys in maps {
            let mut seen = names(keys);
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), keys.len());
        }
    }
}
