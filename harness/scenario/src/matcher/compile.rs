//! Compiling a matcher from its YAML node: `$` keys checked, regexes built,
//! template syntax checked — every error at the offending node.

use super::operators::OPERATORS;
use super::{Body, Cmp, JsonType, Matcher, Op, Presence};
use crate::error::ScenarioError;
use crate::load::keys::names;
use crate::load::reader::Ctx;
use crate::template::{check_str, is_var_path, Template};
use crate::yaml::{Kind, Node};

pub(crate) fn compile(ctx: &Ctx, node: &Node) -> Result<Matcher, ScenarioError> {
    let body = match &node.kind {
        Kind::Seq(items) => Body::List(
            items
                .iter()
                .map(|n| compile(ctx, n))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Map(entries) => return compile_map(ctx, entries),
        _ => Body::Scalar(template(ctx, node)?),
    };
    Ok(Matcher {
        presence: Presence::Required,
        body,
    })
}

/// A node as a template (its strings' `${..}` syntax checked).
pub(crate) fn template(ctx: &Ctx, node: &Node) -> Result<Template, ScenarioError> {
    check_strings(ctx, node)?;
    Template::new(node.to_json()).map_err(|m| ctx.err(node.at, m))
}

/// Check `${..}` syntax string by string, so an error points at the string.
fn check_strings(ctx: &Ctx, node: &Node) -> Result<(), ScenarioError> {
    match &node.kind {
        Kind::String(s) => check_str(s, true).map_err(|m| ctx.err(node.at, m)),
        Kind::Seq(items) => items.iter().try_for_each(|n| check_strings(ctx, n)),
        Kind::Map(entries) => entries.iter().try_for_each(|(_, v)| check_strings(ctx, v)),
        _ => Ok(()),
    }
}

fn compile_map(ctx: &Ctx, entries: &[(Node, Node)]) -> Result<Matcher, ScenarioError> {
    let mut ops = Vec::new();
    let mut members = Vec::new();
    let mut has_operator = false;
    let mut absent: Option<(bool, &Node)> = None;
    let mut present: Option<bool> = None;
    let mut optional: Option<bool> = None;
    for (k, v) in entries {
        let Kind::String(key) = &k.kind else {
            return Err(ctx.err(
                k.at,
                format!("matcher keys must be strings, found {}", k.kind.describe()),
            ));
        };
        if !key.starts_with('$') {
            members.push((key.clone(), compile(ctx, v)?));
            continue;
        }
        has_operator = true;
        match key.as_str() {
            "$type" => ops.push(Op::Type(types(ctx, v)?)),
            "$regex" => {
                let source = ctx.str(v, "`$regex`")?;
                let re = super::LazyRegex::new(source)
                    .map_err(|e| ctx.err(v.at, format!("invalid `$regex`: {}", regex_message(&e))))?;
                ops.push(Op::Regex(re));
            }
            "$oneOf" => {
                let items = ctx.seq(v, "`$oneOf` (a list of matchers)")?;
                if items.is_empty() {
                    return Err(ctx.err(v.at, "`$oneOf` needs at least one matcher"));
                }
                let options = items.iter().map(|n| compile(ctx, n)).collect::<Result<_, _>>()?;
                ops.push(Op::OneOf(options));
            }
            "$absent" => absent = Some((ctx.bool(v, "`$absent`")?, k)),
            "$present" => present = Some(ctx.bool(v, "`$present`")?),
            "$optional" => optional = Some(ctx.bool(v, "`$optional`")?),
            "$capture" | "$collect" => {
                let name = ctx.str(v, &format!("`{key}` (a variable name)"))?;
                if !is_var_path(name) {
                    return Err(ctx.err(
                        v.at,
                        format!("invalid variable name {name:?} for `{key}` (letters, digits, `_`, `-`, dotted)"),
                    ));
                }
                ops.push(if key == "$capture" {
                    Op::Capture(name.to_owned())
                } else {
                    Op::Collect(name.to_owned())
                });
            }
            "$eq" => ops.push(Op::Eq(template(ctx, v)?)),
            "$ne" => ops.push(Op::Ne(template(ctx, v)?)),
            "$gt" | "$gte" | "$lt" | "$lte" => {
                let cmp = match key.as_str() {
                    "$gt" => Cmp::Gt,
                    "$gte" => Cmp::Gte,
                    "$lt" => Cmp::Lt,
                    _ => Cmp::Lte,
                };
                if !matches!(v.kind, Kind::Number(_) | Kind::String(_)) {
                    return Err(ctx.err(
                        v.at,
                        format!("`{key}` needs a number, found {}", v.kind.describe()),
                    ));
                }
                ops.push(Op::Cmp(cmp, template(ctx, v)?));
            }
            "$in" => {
                let items = ctx.seq(v, "`$in` (a list of values)")?;
                let values = items.iter().map(|n| template(ctx, n)).collect::<Result<_, _>>()?;
                ops.push(Op::In(values));
            }
            "$contains" => ops.push(Op::Contains(Box::new(compile(ctx, v)?))),
            "$each" => ops.push(Op::Each(Box::new(compile(ctx, v)?))),
            "$len" => ops.push(Op::Len(Box::new(compile(ctx, v)?))),
            "$not" => ops.push(Op::Not(Box::new(compile(ctx, v)?))),
            "$schema" => {
                let t = template(ctx, v)?;
                // A literal schema is the scenario's own: check it now, at the node.
                if t.variables().is_empty() {
                    super::schema::compile(t.value(), "the schema")
                        .map_err(|why| ctx.err(v.at, format!("invalid `$schema`: {why}")))?;
                }
                ops.push(Op::Schema(t));
            }
            _ => {
                return Err(ctx.err(
                    k.at,
                    format!(
                        "unknown matcher `{key}`{} (valid: {}; to match a member whose name starts with `$`, use `$eq` on the enclosing object)",
                        crate::load::reader::suggest(key, &names(OPERATORS)),
                        names(OPERATORS).join(", ")
                    ),
                ))
            }
        }
    }
    let presence = match (absent, present, optional) {
        (Some((true, k)), p, o) => {
            if p == Some(true) || o == Some(true) || !ops.is_empty() || !members.is_empty() {
                return Err(ctx.err(
                    k.at,
                    "`$absent: true` cannot be combined with other matcher keys",
                ));
            }
            Presence::Absent
        }
        (_, _, Some(true)) => Presence::Optional,
        (Some((false, _)), _, _) | (_, Some(true), _) => Presence::Present,
        _ => Presence::Required,
    };
    Ok(Matcher {
        presence,
        body: Body::Map {
            ops,
            object: !members.is_empty() || !has_operator,
            members,
        },
    })
}

fn types(ctx: &Ctx, node: &Node) -> Result<Vec<JsonType>, ScenarioError> {
    let one = |n: &Node| -> Result<JsonType, ScenarioError> {
        // `$type: [string, null]`: YAML reads a bare `null` as null, not a name.
        if n.kind == Kind::Null {
            return Ok(JsonType::Null);
        }
        let name = ctx.str(n, "a `$type` name")?;
        JsonType::parse(name).ok_or_else(|| {
            ctx.err(
                n.at,
                format!(
                    "unknown `$type` {name:?} (valid: {})",
                    JsonType::names().join(", ")
                ),
            )
        })
    };
    match &node.kind {
        Kind::Seq(items) if !items.is_empty() => items.iter().map(one).collect(),
        Kind::Seq(_) => Err(ctx.err(node.at, "`$type` needs at least one type")),
        _ => Ok(vec![one(node)?]),
    }
}

/// The regex crate's message without its multi-line pattern echo.
fn regex_message(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .find_map(|l| l.strip_prefix("error: "))
        .unwrap_or(text.lines().last().unwrap_or("invalid regular expression"))
        .to_owned()
}
