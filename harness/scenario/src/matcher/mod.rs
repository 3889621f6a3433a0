//! Matchers: YAML patterns compared with actual JSON values.
//!
//! The table in `scenarios/README.md` is the contract. A matcher is compiled
//! once when the scenario loads: regexes are checked and unknown
//! `$` keys rejected there, with the file position (a regex is built again,
//! and kept, when a check first needs it: [`LazyRegex`]). At check time ([`Matcher::check`])
//! its strings are rendered as templates against the case's [`Bindings`], so
//! `protocolVersion: "${version}"` compares with the case's version.
//!
//! Checking returns every [`Mismatch`] (path, expected, actual) rather than a
//! boolean, so a failure can list what was Expected against what was Actual.
//! `$capture` and `$collect` bind only when the matcher that holds them matched;
//! `$oneOf`, `$contains` and `$not` try alternatives on a copy of the bindings,
//! so a branch that did not match leaves nothing behind.

pub(crate) mod check;
pub(crate) mod compile;
mod describe;
pub(crate) mod json;
pub(crate) mod operators;
mod prefix;
mod schema;

use crate::bindings::Bindings;
use crate::template::Template;
use regex::Regex;
use serde_json::Value;
use std::fmt;
use std::sync::OnceLock;

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub(crate) presence: Presence,
    pub(crate) body: Body,
}

/// How a matcher treats a missing value (`$absent`, `$present`, `$optional`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// The value must exist (the default).
    Required,
    /// `$absent: true`: the value must not exist.
    Absent,
    /// `$present: true`: the value must exist, any value.
    Present,
    /// `$optional: true`: absent is fine; if present, the rest applies.
    Optional,
}

#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// A scalar: equal (numbers by value). Strings are templates.
    Scalar(Template),
    /// An array of the same length, element by element.
    List(Vec<Matcher>),
    /// `$` operators (all must hold) and members (subset match).
    Map {
        ops: Vec<Op>,
        members: Vec<(String, Matcher)>,
        /// The value must be an object: the map has members, or is `{}`.
        object: bool,
    },
}

#[derive(Debug, Clone)]
pub(crate) enum Op {
    Type(Vec<JsonType>),
    Regex(LazyRegex),
    OneOf(Vec<Matcher>),
    Capture(String),
    Collect(String),
    Eq(Template),
    Ne(Template),
    Cmp(Cmp, Template),
    In(Vec<Template>),
    Contains(Box<Matcher>),
    Each(Box<Matcher>),
    Len(Box<Matcher>),
    Not(Box<Matcher>),
    /// `$schema`: validates against a JSON Schema (rendered and compiled at check time).
    Schema(Template),
}

/// A `$regex`, built when a check first needs it (issue #18). A built
/// regex costs tens of kilobytes (hundreds with Unicode classes such as
/// `\d`), and most of a corpus's regexes are checked by few cases or none
/// (an extension's): a run builds those its cases use.
#[derive(Debug, Clone)]
pub(crate) struct LazyRegex {
    source: String,
    built: OnceLock<Regex>,
}

impl LazyRegex {
    /// `source`, once it is known to build (the error is the regex crate's).
    pub(crate) fn new(source: &str) -> Result<Self, regex::Error> {
        // Built once here only to report a bad pattern at load time, with
        // its position; dropped at once.
        Regex::new(source)?;
        Ok(LazyRegex {
            source: source.to_owned(),
            built: OnceLock::new(),
        })
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.source
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        let re = self.built.get_or_init(|| {
            // It built in `new`, and building is deterministic.
            Regex::new(&self.source).expect("a regex that built at load time builds again")
        });
        re.is_match(text)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Gt,
    Gte,
    Lt,
    Lte,
}

/// JSON types for `$type`. `integer` is a number with no fractional part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    String,
    Integer,
    Number,
    Boolean,
    Object,
    Array,
    Null,
}

/// What [`Matcher::walk`] reports.
enum Visit<'a> {
    Template(&'a Template),
    Binds(&'a str),
}

/// One way the actual value differs from the matcher.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Where, as a dotted path from the checked value (`result.serverInfo.name`,
    /// `result.tools.0`); `length(result.tools)` for `$len`.
    pub path: String,
    /// What the matcher wanted, in matcher notation.
    pub expected: String,
    /// What was there; `None` when the value is absent.
    pub actual: Option<Value>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(value)"
        } else {
            &self.path
        };
        match &self.actual {
            Some(v) => write!(f, "{path}: expected {}, actual {v}", self.expected),
            None => write!(f, "{path}: expected {}, actual <absent>", self.expected),
        }
    }
}

impl Matcher {
    /// Compare `actual` (`None`: absent) with this matcher; `path` names the
    /// value in mismatches. Captures go into `b`. An empty list means a match.
    /// Err: the matcher uses a variable that is not bound (scenario at fault).
    pub fn check(
        &self,
        actual: Option<&Value>,
        path: &str,
        b: &mut Bindings,
    ) -> Result<Vec<Mismatch>, crate::TemplateError> {
        let mut out = Vec::new();
        self.check_into(actual, path, b, &mut out)?;
        Ok(out)
    }

    /// Whether `actual` matches; captures go into `b` only on a match.
    pub fn matches(
        &self,
        actual: Option<&Value>,
        b: &mut Bindings,
    ) -> Result<bool, crate::TemplateError> {
        let mut scratch = b.clone();
        let ok = self.check(actual, "", &mut scratch)?.is_empty();
        if ok {
            *b = scratch;
        }
        Ok(ok)
    }

    /// Human "expected" text, templates unrendered:
    /// `{protocolVersion: "${version}", serverInfo: {name: <string>}}`.
    pub fn describe(&self) -> String {
        self.describe_in(None)
    }

    /// Like [`Matcher::describe`], with templates rendered where `b` binds them.
    pub fn describe_with(&self, b: &Bindings) -> String {
        self.describe_in(Some(b))
    }

    /// The variables checking needs bound (dotted paths), in order.
    pub fn variables(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(&mut |m| match m {
            Visit::Template(t) => out.extend(t.required_variables()),
            Visit::Binds(_) => {}
        });
        out
    }

    /// The names `$capture` and `$collect` may bind (in any branch).
    pub fn binds(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(&mut |m| match m {
            Visit::Binds(name) => out.push(name.to_owned()),
            Visit::Template(_) => {}
        });
        out
    }

    fn walk(&self, f: &mut dyn FnMut(Visit<'_>)) {
        match &self.body {
            Body::Scalar(t) => f(Visit::Template(t)),
            Body::List(items) => items.iter().for_each(|m| m.walk(f)),
            Body::Map { ops, members, .. } => {
                for op in ops {
                    match op {
                        Op::Type(_) | Op::Regex(_) => {}
                        Op::OneOf(options) => options.iter().for_each(|m| m.walk(f)),
                        Op::Capture(name) | Op::Collect(name) => f(Visit::Binds(name)),
                        Op::Eq(t) | Op::Ne(t) | Op::Cmp(_, t) | Op::Schema(t) => {
                            f(Visit::Template(t))
                        }
                        Op::In(values) => values.iter().for_each(|t| f(Visit::Template(t))),
                        Op::Contains(m) | Op::Each(m) | Op::Len(m) | Op::Not(m) => m.walk(f),
                    }
                }
                members.iter().for_each(|(_, m)| m.walk(f));
            }
        }
    }

    /// Compile a matcher from YAML text (for tests and tools; scenario files
    /// compile theirs while loading). `label` names the text in errors.
    pub fn parse(label: &str, text: &str) -> Result<Matcher, crate::ScenarioError> {
        let ctx = crate::load::reader::Ctx::new(label, text);
        let node = ctx.parse_yaml()?;
        compile::compile(&ctx, &node)
    }
}

#[cfg(test)]
mod tests;
