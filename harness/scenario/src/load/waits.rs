//! The timed steps, which cost their full time on every conformant target
//! (`sleep`, `expect_silence`, `expect_no_fetch`: `keys::TIMED_STEPS`): each
//! must say `why` it waits as long as it does, and the loader refuses one
//! that does not, saying what to write. `expect_silence` is read here too.

use super::keys;
use super::reader::Ctx;
use crate::error::ScenarioError;
use crate::matcher::compile::compile;
use crate::model::StepKind;
use crate::yaml::{Kind, Node};

/// The `why` of a step keyed `key` (`why_node`: its value, if given);
/// required on the timed steps.
pub(super) fn why(
    ctx: &Ctx,
    step: &Node,
    key: &str,
    why_node: Option<&Node>,
) -> Result<Option<String>, ScenarioError> {
    let why = why_node
        .map(|n| ctx.nonempty_str(n, "`why`").map(|w| w.trim().to_owned()))
        .transpose()?;
    if why.is_none() && keys::TIMED_STEPS.contains(&key) {
        return Err(ctx.err(step.at, missing(key)));
    }
    Ok(why)
}

/// The refusal of a timed step without `why`: what to write.
fn missing(key: &str) -> String {
    format!(
        "a `{key}` step costs its full time on every conformant target, so it needs `why:` \
         next to it: one line saying what the wait waits out and why it is this long \
         (e.g. `why: a server answers a notification within milliseconds if it answers at all; \
         500ms covers a loaded CI machine`)"
    )
}

/// `expect_silence: D` or `expect_silence: { for: D, all, notification, params }`.
pub(super) fn silence(ctx: &Ctx, value: &Node) -> Result<StepKind, ScenarioError> {
    Ok(match &value.kind {
        Kind::Map(_) => {
            let mut m = ctx.map(value, "`expect_silence`")?;
            let duration = ctx.duration(m.require(ctx, "for", "`expect_silence`")?, "`for`")?;
            let all_node = m.take("all");
            let all = all_node
                .map(|n| ctx.bool(n, "`all`"))
                .transpose()?
                .unwrap_or(false);
            let notification = m
                .take("notification")
                .map(|n| {
                    ctx.nonempty_str(n, "`notification` (a method)")
                        .map(str::to_owned)
                })
                .transpose()?;
            let params_node = m.take("params");
            if let (Some(n), None) = (params_node, &notification) {
                return Err(ctx.err(
                    n.at,
                    "`params` needs `notification` (whose params to match)".to_owned(),
                ));
            }
            if let (Some(n), true, Some(_)) = (all_node, all, &notification) {
                return Err(ctx.err(
                    n.at,
                    "`all: true` and `notification` contradict each other".to_owned(),
                ));
            }
            let params = params_node.map(|n| compile(ctx, n)).transpose()?;
            m.finish(ctx, "`expect_silence`", &keys::SILENCE.names())?;
            StepKind::ExpectSilence {
                duration,
                all,
                notification,
                params,
            }
        }
        _ => StepKind::ExpectSilence {
            duration: ctx.duration(value, "`expect_silence`")?,
            all: false,
            notification: None,
            params: None,
        },
    })
}
