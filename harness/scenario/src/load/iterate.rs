//! The looping and listing steps: `repeat_until` (follow a cursor until a
//! capture is unbound) and `discover` (bind the target's own tools,
//! resources or prompts, over every page).

use super::keys;
use super::reader::Ctx;
use super::steps::{request, response_expect, var_name};
use crate::error::ScenarioError;
use crate::matcher::compile::compile;
use crate::model::{Discover, RepeatUntil, ResponseExpect, SendSpec, UniqueBy};
use crate::yaml::Node;

/// `repeat_until` without `max`.
const DEFAULT_MAX_ITERATIONS: u32 = 100;

pub(super) fn repeat_until(ctx: &Ctx, node: &Node) -> Result<RepeatUntil, ScenarioError> {
    let what = "`repeat_until`";
    let mut m = ctx.map(node, what)?;
    let (method, params, _) = request(
        ctx,
        m.require(ctx, "send", what)?,
        "`repeat_until.send`",
        false,
    )?;
    let expect = match m.take("expect") {
        Some(n) => response_expect(ctx, n, false)?,
        None => ResponseExpect {
            id: None,
            result: None,
            error: None,
            within: None,
        },
    };
    let until = m.require(ctx, "until", what)?;
    let mut u = ctx.map(until, "`until` (write `until: { unbound: name }`)")?;
    let name_node = u.require(ctx, "unbound", "`until`")?;
    let until_unbound = var_name(ctx, name_node, "`unbound`")?;
    u.finish(ctx, "`until`", &keys::UNTIL.names())?;
    let max = match m.take("max") {
        None => DEFAULT_MAX_ITERATIONS,
        Some(n) => {
            let max = ctx.u64(n, "`max`")?;
            match u32::try_from(max) {
                Ok(max) if max > 0 => max,
                _ => return Err(ctx.err(n.at, "`max` must be between 1 and 4294967295")),
            }
        }
    };
    let unique_by = m
        .take("unique_by")
        .map(|n| {
            let mut u = ctx.map(
                n,
                "`unique_by` (write `unique_by: { list: name, key: member }`)",
            )?;
            let list = var_name(ctx, u.require(ctx, "list", "`unique_by`")?, "`list`")?;
            let key = ctx
                .nonempty_str(u.require(ctx, "key", "`unique_by`")?, "`key`")?
                .to_owned();
            u.finish(ctx, "`unique_by`", &keys::UNIQUE_BY.names())?;
            Ok(UniqueBy { list, key })
        })
        .transpose()?;
    m.finish(ctx, what, &keys::REPEAT_UNTIL.names())?;
    Ok(RepeatUntil {
        send: SendSpec { method, params },
        expect,
        until_unbound,
        max,
        unique_by,
    })
}

pub(super) fn discover(ctx: &Ctx, node: &Node) -> Result<Discover, ScenarioError> {
    let what = "`discover`";
    let mut m = ctx.map(node, what)?;
    let list_node = m.require(ctx, "list", what)?;
    let list = ctx.str(list_node, "`list`")?;
    if !Discover::LISTS.contains(&list) {
        return Err(ctx.err(
            list_node.at,
            format!(
                "`discover` cannot list {list:?} (valid: {})",
                Discover::LISTS.join(", ")
            ),
        ));
    }
    let into = var_name(ctx, m.require(ctx, "into", what)?, "`into`")?;
    let filter = m.take("where").map(|n| compile(ctx, n)).transpose()?;
    let require = match m.take("require") {
        None => 1,
        Some(n) => usize::try_from(ctx.u64(n, "`require`")?).unwrap_or(usize::MAX),
    };
    let header_param = match m.take("header_param") {
        None => None,
        Some(_) if list != "tools/list" => {
            return Err(ctx.err(
                list_node.at,
                "`header_param` needs `list: tools/list` (x-mcp-header marks tool parameters)",
            ))
        }
        Some(n) => Some(var_name(ctx, n, "`header_param`")?),
    };
    m.finish(ctx, what, &keys::DISCOVER.names())?;
    Ok(Discover {
        list: list.to_owned(),
        into,
        filter,
        require,
        header_param,
    })
}
