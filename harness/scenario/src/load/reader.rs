//! Reading the YAML node tree with errors that point at the node: the
//! context (file label and text) and a map reader that rejects unknown keys.

use crate::error::{Location, ScenarioError};
use crate::yaml::{self, Kind, Node, Pos};
use std::time::Duration;

/// The file being loaded: its label (for messages) and its text (for snippets).
pub(crate) struct Ctx<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

impl<'a> Ctx<'a> {
    pub fn new(file: &'a str, text: &'a str) -> Self {
        Ctx { file, text }
    }

    pub fn err(&self, at: Pos, message: impl Into<String>) -> ScenarioError {
        ScenarioError::at(self.file, self.text, at.line, at.column, message)
    }

    pub fn loc(&self, at: Pos) -> Location {
        Location {
            file: self.file.to_owned(),
            line: at.line,
            column: at.column,
        }
    }

    /// Pass 1: the text as a node tree.
    pub fn parse_yaml(&self) -> Result<Node, ScenarioError> {
        yaml::parse(self.text).map_err(|e| match e.at {
            Some(at) => self.err(at, format!("invalid YAML: {}", e.message)),
            None => ScenarioError::whole_file(self.file, format!("invalid YAML: {}", e.message)),
        })
    }

    fn wrong(&self, node: &Node, what: &str) -> ScenarioError {
        self.err(node.at, format!("expected {what}, found {}", found(node)))
    }

    pub fn str<'n>(&self, node: &'n Node, what: &str) -> Result<&'n str, ScenarioError> {
        match &node.kind {
            Kind::String(s) => Ok(s),
            _ => Err(self.wrong(node, &format!("a string for {what}"))),
        }
    }

    /// A string that must not be empty.
    pub fn nonempty_str<'n>(&self, node: &'n Node, what: &str) -> Result<&'n str, ScenarioError> {
        let s = self.str(node, what)?;
        if s.trim().is_empty() {
            return Err(self.err(node.at, format!("{what} must not be empty")));
        }
        Ok(s)
    }

    pub fn bool(&self, node: &Node, what: &str) -> Result<bool, ScenarioError> {
        match &node.kind {
            Kind::Bool(b) => Ok(*b),
            _ => Err(self.wrong(node, &format!("`true` or `false` for {what}"))),
        }
    }

    pub fn u64(&self, node: &Node, what: &str) -> Result<u64, ScenarioError> {
        match &node.kind {
            Kind::Number(n) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or_default()),
            _ => Err(self.wrong(node, &format!("a non-negative integer for {what}"))),
        }
    }

    pub fn seq<'n>(&self, node: &'n Node, what: &str) -> Result<&'n [Node], ScenarioError> {
        match &node.kind {
            Kind::Seq(items) => Ok(items),
            _ => Err(self.wrong(node, &format!("a list for {what}"))),
        }
    }

    pub fn duration(&self, node: &Node, what: &str) -> Result<Duration, ScenarioError> {
        let text = match &node.kind {
            Kind::String(s) => s.as_str(),
            Kind::Number(_) => {
                return Err(self.err(
                    node.at,
                    format!("duration for {what} has no unit (write it like 250ms, 2s or 1m)"),
                ))
            }
            _ => return Err(self.wrong(node, &format!("a duration (250ms, 2s, 1m) for {what}"))),
        };
        crate::duration::parse_duration(text).map_err(|m| self.err(node.at, m))
    }

    /// A map whose keys are all strings.
    pub fn map<'n>(&self, node: &'n Node, what: &str) -> Result<Fields<'n>, ScenarioError> {
        let Kind::Map(entries) = &node.kind else {
            return Err(self.wrong(node, &format!("a map for {what}")));
        };
        for (k, _) in entries {
            if !matches!(k.kind, Kind::String(_)) {
                return Err(self.err(
                    k.at,
                    format!(
                        "keys of {what} must be strings, found {}",
                        k.kind.describe()
                    ),
                ));
            }
        }
        Ok(Fields {
            at: node.at,
            entries,
            used: vec![false; entries.len()],
        })
    }
}

/// "a string \"x\"", "a number 5", "a map", … for "found …" messages.
fn found(node: &Node) -> String {
    match &node.kind {
        Kind::String(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
        Kind::Number(n) => format!("the number {n}"),
        Kind::Bool(b) => format!("`{b}`"),
        other => other.describe().to_owned(),
    }
}

/// The members of a YAML map, taken by name; [`Fields::finish`] rejects the rest.
pub(crate) struct Fields<'n> {
    pub at: Pos,
    entries: &'n [(Node, Node)],
    used: Vec<bool>,
}

impl<'n> Fields<'n> {
    /// The value of `key`, marking it used.
    pub fn take(&mut self, key: &str) -> Option<&'n Node> {
        let i = self.entries.iter().position(|(k, _)| key_str(k) == key)?;
        self.used[i] = true;
        Some(&self.entries[i].1)
    }

    /// The value of `key`, or an error at the map saying it is missing.
    pub fn require(&mut self, ctx: &Ctx, key: &str, what: &str) -> Result<&'n Node, ScenarioError> {
        self.take(key)
            .ok_or_else(|| ctx.err(self.at, format!("{what} is missing `{key}`")))
    }

    /// Where `key` itself is written (for errors about the member as a whole).
    pub fn key_at(&self, key: &str) -> Option<Pos> {
        self.entries
            .iter()
            .find(|(k, _)| key_str(k) == key)
            .map(|(k, _)| k.at)
    }

    /// Every key, with its node, in order.
    pub fn keys(&self) -> impl Iterator<Item = (&'n str, &'n Node)> + '_ {
        self.entries.iter().map(|(k, _)| (key_str(k), k))
    }

    /// Error on the first key not taken: `unknown key `x` in {what} (valid: …)`.
    /// `valid` comes from the tables of [`super::keys`]; every key taken must
    /// be in it, or the file schema would reject what the loader accepts.
    pub fn finish(self, ctx: &Ctx, what: &str, valid: &[&str]) -> Result<(), ScenarioError> {
        debug_assert!(
            self.entries
                .iter()
                .zip(&self.used)
                .all(|((k, _), used)| !*used || valid.contains(&key_str(k))),
            "{what}: a key was taken that the tables of load::keys do not list (valid: {valid:?})"
        );
        match self
            .entries
            .iter()
            .zip(&self.used)
            .find(|(_, used)| !**used)
        {
            None => Ok(()),
            Some(((k, _), _)) => {
                let key = key_str(k);
                Err(ctx.err(
                    k.at,
                    format!(
                        "unknown key `{key}` in {what}{} (valid: {})",
                        suggest(key, valid),
                        valid.join(", ")
                    ),
                ))
            }
        }
    }
}

fn key_str(k: &Node) -> &str {
    match &k.kind {
        Kind::String(s) => s,
        // `Ctx::map` checked that every key is a string.
        _ => "",
    }
}

/// ` (did you mean `x`?)` when a valid name is close to `word`, else "".
pub(crate) fn suggest(word: &str, valid: &[&str]) -> String {
    valid
        .iter()
        .map(|v| (distance(word, v), v))
        .filter(|(d, v)| *d <= 2.max(v.len() / 4) && *d > 0)
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| format!(" (did you mean `{v}`?)"))
        .unwrap_or_default()
}

/// Levenshtein distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(row[j + 1])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("sned", &["send", "notify"]),
            " (did you mean `send`?)"
        );
        assert_eq!(
            suggest("requirement", &["requirements", "level"]),
            " (did you mean `requirements`?)"
        );
        assert_eq!(suggest("zzzz", &["send"]), "");
    }
}
