//! The matcher operators as a table: each `$` key with a one-line
//! description and the shape of its value. [`super::compile`] takes its list
//! of valid operators (and its "did you mean" suggestions) from here, and
//! [`crate::file_schema`] its `matcher` definition.

use crate::load::keys::{opt, Key, Shape};

/// The `$` keys a matcher map may use.
pub(crate) const OPERATORS: &[Key] = &[
    opt(
        "$type",
        "JSON type: string, integer, number, boolean, object, array, null; or a list",
        Shape::TypeNames,
    ),
    opt(
        "$regex",
        "A string matching this regular expression (search; anchor it yourself)",
        Shape::Regex,
    ),
    opt(
        "$oneOf",
        "At least one of these matchers matches",
        Shape::Matchers,
    ),
    opt(
        "$absent",
        "As an object member: the member must not exist",
        Shape::Bool,
    ),
    opt(
        "$present",
        "As an object member: the member exists (any value)",
        Shape::Bool,
    ),
    opt(
        "$optional",
        "As an object member: may be absent; if present, the rest applies",
        Shape::Bool,
    ),
    opt(
        "$capture",
        "Bind the actual value to this variable",
        Shape::Var,
    ),
    opt(
        "$collect",
        "Append the value (an array's elements) to this list variable",
        Shape::Var,
    ),
    opt(
        "$eq",
        "Literal equality (for values that contain $ keys)",
        Shape::Template,
    ),
    opt("$ne", "Not equal", Shape::Template),
    opt("$gt", "Greater than", Shape::Bound),
    opt("$gte", "Greater than or equal", Shape::Bound),
    opt("$lt", "Less than", Shape::Bound),
    opt("$lte", "Less than or equal", Shape::Bound),
    opt("$in", "Equal to one of these values", Shape::Values),
    opt(
        "$contains",
        "An array with at least one element matching this",
        Shape::Matcher,
    ),
    opt(
        "$each",
        "An array whose every element matches this",
        Shape::Matcher,
    ),
    opt(
        "$len",
        "The length of an array, string or object matches this",
        Shape::Matcher,
    ),
    opt("$not", "This matcher does not match", Shape::Matcher),
    opt(
        "$schema",
        "The value validates against this JSON Schema (usually a template)",
        Shape::Schema,
    ),
];

/// `$absent: true` stands alone, but for these keys set to `false`.
pub(crate) const PRESENCE_OPERATORS: [&str; 3] = ["$absent", "$present", "$optional"];
