//! Following a listing page by page (`repeat_until`), and what paging
//! itself can break on the way: a cursor that loops or never ends
//! (`pagination.cursor.terminates`), items served again on a later page
//! (`pagination.cursor.no-duplicates`). A scenario about paging owns those
//! findings; any other scenario that follows a listing to check its items
//! is blocked by them ([`Ctx::block`]), never failed under its own
//! requirement for what paging did.

use mcpspec_engine::ids;
use mcpspec_scenario::{RepeatUntil, Step};
use mcpspec_wire::Message;
use serde_json::Value;

use super::{checked, expect_response_value, render_opt, target_gone};
use crate::case::{is_response_to, Ctx, Stop};

pub(super) async fn repeat_until(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    r: &RepeatUntil,
) -> Result<(), Stop> {
    if let Some(u) = &r.unique_by {
        ctx.vars.set(&u.list, Value::Array(Vec::new()));
    }
    ctx.vars.unset(&r.until_unbound);
    let mut cursors = std::collections::HashSet::new();
    for page in 1..=r.max {
        // The first page renders with the cursor unbound (`${cursor?}` drops out).
        let params = render_opt(r.send.params.as_ref(), &ctx.vars)?;
        // The capture that continues the loop must come from this page's answer.
        ctx.vars.unset(&r.until_unbound);
        let id = ctx.conn.next_id();
        let msg = Message::request(id.clone(), &r.send.method, params);
        ctx.conn.send(&msg).await.map_err(target_gone)?;
        let what = format!("{} (id {id}, page {page})", r.send.method);
        let got =
            expect_response_value(ctx, at, &r.expect, &what, |m| is_response_to(m, &id)).await?;
        if got.is_none() {
            // A non-MUST failure was recorded; the listing cannot be followed further.
            return Ok(());
        }
        let Some(cursor) = ctx.vars.get(&r.until_unbound).map(Value::to_string) else {
            return match &r.unique_by {
                Some(u) => check_unique(ctx, at, &u.list, &u.key),
                None => Ok(()),
            };
        };
        if !cursors.insert(cursor.clone()) {
            return paging_broke(
                ctx,
                at,
                &ids::PAGINATION_CURSOR_TERMINATES,
                vec!["each page's nextCursor leads on, until a page has none".to_owned()],
                format!(
                    "{} answered page {page} with nextCursor {cursor}, a cursor it had \
                     already given: the listing loops",
                    r.send.method
                ),
            );
        }
    }
    paging_broke(
        ctx,
        at,
        &ids::PAGINATION_CURSOR_TERMINATES,
        vec![format!("the listing ends within {} pages", r.max)],
        format!(
            "{} still returned a cursor after {} pages",
            r.send.method, r.max
        ),
    )
}

/// Paging broke `req` while a step followed a listing. A scenario about
/// paging owns the finding; any other (a tool's title, unique names) is
/// blocked by it: it cannot see the whole listing it checks.
fn paging_broke(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    req: &'static mcpspec_engine::Requirement,
    expected: Vec<String>,
    actual: String,
) -> Result<(), Stop> {
    if ctx.owns(req) {
        let level = ctx.fail_as(at, req.id, req.level, expected, actual);
        checked(level)
    } else {
        Err(ctx.block(at, req, expected, actual))
    }
}

fn check_unique(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    list: &str,
    key: &str,
) -> Result<(), Stop> {
    let items = ctx.vars.get(list).cloned().unwrap_or(Value::Null);
    let mut seen = std::collections::HashMap::new();
    let mut repeats = Vec::new();
    // Whether every repeat is the very same item served again (paging
    // broke), rather than two items that share a key.
    let mut served_again = true;
    for item in items.as_array().into_iter().flatten() {
        let k = item.get(key).map(Value::to_string).unwrap_or_default();
        match seen.get(&k) {
            Some(first) => {
                served_again &= *first == item;
                repeats.push(k);
            }
            None => {
                seen.insert(k, item);
            }
        }
    }
    if repeats.is_empty() {
        return Ok(());
    }
    if served_again {
        return paging_broke(
            ctx,
            at,
            &ids::PAGINATION_CURSOR_NO_DUPLICATES,
            vec!["each item is served on one page only".to_owned()],
            format!("served again on a later page: {}", repeats.join(", ")),
        );
    }
    let level = ctx.fail(
        at,
        vec![format!(
            "every item's `{key}` appears once across all pages"
        )],
        format!("repeated: {}", repeats.join(", ")),
    );
    checked(level)
}
