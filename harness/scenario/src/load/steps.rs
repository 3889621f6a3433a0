//! Building steps: exactly one step key per step, the keys each kind
//! accepts, and the per-step overrides (`level`, `requirement`, `versions`,
//! `note`, and `why`, which the timed steps of `keys::TIMED_STEPS` must
//! carry); a step's `requirement` is checked against the catalogue at the
//! versions the step runs at ([`super::requirements`]).

use super::keys::{self, names};
use super::reader::{suggest, Ctx, Fields};
use super::{level, requirements, versions};
use crate::error::ScenarioError;
use crate::matcher::compile::{compile, template};
use crate::model::{
    CutStream, Expectation, RawBytes, RawStep, Reply, ReplyAnswer, ResponseExpect, Selector,
    SendStep, Step, StepKind,
};
use crate::template::{check_str, is_var_path, Template};
use crate::yaml::{Kind, Node};
use mcpspec_engine::Version;
use std::time::Duration;

/// `expect_exit` without `within`.
const DEFAULT_EXIT_WITHIN: Duration = Duration::from_secs(5);

/// One step of a scenario that runs at `scenario_versions`.
pub(super) fn step(
    ctx: &Ctx,
    node: &Node,
    scenario_versions: &[Version],
    extension: Option<&str>,
    labels: &mut Vec<String>,
) -> Result<Step, ScenarioError> {
    let mut f = ctx.map(node, "a step")?;
    let step_keys = keys::step_keys();
    let common = names(keys::STEP_COMMON);
    let is_modifier = |key: &str| {
        keys::STEPS
            .iter()
            .any(|s| s.modifiers.iter().any(|m| m.name == key))
    };
    for (key, k) in f.keys() {
        if !step_keys.contains(&key) && !common.contains(&key) && !is_modifier(key) {
            return Err(ctx.err(
                k.at,
                format!(
                    "unknown step key `{key}`{} (valid step keys: {}; any step also takes {})",
                    suggest(key, &step_keys),
                    step_keys.join(", "),
                    common.join(", ")
                ),
            ));
        }
    }
    // `expect` is a step only when no other step key is there to modify.
    let primaries: Vec<(&str, &Node)> = f
        .keys()
        .filter(|(key, _)| step_keys.contains(key) && !is_modifier(key))
        .collect();
    let expect_key = f
        .keys()
        .find(|(k, _)| step_keys.contains(k) && is_modifier(k))
        .map(|(k, _)| k);
    let (key, value) = match primaries.as_slice() {
        [] => match expect_key {
            Some(key) => (key, f.take(key)),
            None => {
                return Err(ctx.err(
                    node.at,
                    format!("a step needs a step key (one of: {})", step_keys.join(", ")),
                ))
            }
        },
        [(key, _)] => (*key, f.take(key)),
        [(first, _), (second, k), ..] => {
            return Err(ctx.err(
                k.at,
                format!("a step has exactly one step key, found `{first}` and `{second}`"),
            ))
        }
    };
    let Some(value) = value else {
        // `Fields::take` finds every key `Fields::keys` listed.
        return Err(ctx.err(node.at, format!("cannot read the `{key}` step")));
    };
    let kind = kind(ctx, key, value, &mut f, labels)?;
    let level = f.take("level").map(|n| level(ctx, n)).transpose()?;
    let requirement = f
        .take("requirement")
        .map(|n| ctx.nonempty_str(n, "`requirement`").map(|id| (id, n.at)))
        .transpose()?;
    let versions = f.take("versions").map(|n| versions(ctx, n)).transpose()?;
    let note = f
        .take("note")
        .map(|n| ctx.str(n, "`note`").map(str::to_owned))
        .transpose()?;
    let why = super::waits::why(ctx, node, key, f.take("why"))?;
    let mut valid = vec![key];
    if let Some(def) = keys::step(key) {
        valid.extend(names(def.modifiers));
    }
    valid.extend(common);
    f.finish(ctx, &format!("a `{key}` step"), &valid)?;
    if let Some((id, at)) = requirement {
        let runs_at: Vec<Version> = scenario_versions
            .iter()
            .copied()
            .filter(|v| versions.as_ref().is_none_or(|vs| vs.contains(v)))
            .collect();
        requirements::check(ctx, at, id, &runs_at, extension)?;
    }
    Ok(Step {
        kind,
        level,
        requirement: requirement.map(|(id, _)| id.to_owned()),
        versions,
        note,
        why,
        at: ctx.loc(node.at),
    })
}

fn kind(
    ctx: &Ctx,
    key: &str,
    value: &Node,
    f: &mut Fields,
    labels: &mut Vec<String>,
) -> Result<StepKind, ScenarioError> {
    Ok(match key {
        "send" => {
            let (method, params, id) = request(ctx, value, "`send`", true)?;
            let label = take_label(ctx, f, labels)?;
            let lasts = f
                .take("lasts")
                .map(|n| ctx.duration(n, "`lasts` (how long the request takes at least)"))
                .transpose()?;
            let expect = f
                .take("expect")
                .map(|n| response_expect(ctx, n, false))
                .transpose()?;
            StepKind::Send(SendStep {
                method,
                params,
                id,
                label,
                lasts,
                expect,
            })
        }
        "notify" => {
            let (method, params, _) = request(ctx, value, "`notify`", false)?;
            StepKind::Notify { method, params }
        }
        "raw" | "raw_hex" => {
            let bytes = if key == "raw" {
                let text = ctx.str(value, "`raw` (the bytes to send, as text)")?;
                check_str(text, false).map_err(|m| ctx.err(value.at, m))?;
                RawBytes::Text(text.to_owned())
            } else {
                RawBytes::Hex(hex(ctx, value)?)
            };
            let newline = f
                .take("newline")
                .map(|n| ctx.bool(n, "`newline`"))
                .transpose()?
                .unwrap_or(key == "raw");
            let expect = f
                .take("expect")
                .map(|n| response_expect(ctx, n, true))
                .transpose()?;
            StepKind::Raw(RawStep {
                bytes,
                newline,
                expect,
            })
        }
        "expect" => {
            let mut e = expectation(ctx, value, labels)?;
            if let Some(n) = f.keys().find(|(k, _)| *k == "as").map(|(_, n)| n) {
                if !matches!(e.selector, Selector::Request(_)) {
                    return Err(ctx.err(
                        n.at,
                        "`as` labels a request the client sent: it needs `expect: { request: ... }`"
                            .to_owned(),
                    ));
                }
            }
            e.label = take_label(ctx, f, labels)?;
            StepKind::Expect(e)
        }
        "reply" => StepKind::Reply(reply(ctx, value, labels)?),
        "expect_silence" => super::waits::silence(ctx, value)?,
        "repeat_until" => StepKind::RepeatUntil(super::iterate::repeat_until(ctx, value)?),
        "discover" => StepKind::Discover(super::iterate::discover(ctx, value)?),
        "sleep" => StepKind::Sleep(ctx.duration(value, "`sleep`")?),
        "expect_no_fetch" => StepKind::ExpectNoFetch(ctx.duration(value, "`expect_no_fetch`")?),
        "disconnect" => {
            if !matches!(value.kind, Kind::Null) {
                ctx.map(value, "`disconnect` (write `disconnect: {}`)")?
                    .finish(ctx, "`disconnect`", &keys::NOTHING.names())?;
            }
            StepKind::Disconnect
        }
        "expect_exit" => {
            let within = if matches!(value.kind, Kind::Null) {
                DEFAULT_EXIT_WITHIN
            } else {
                let mut m = ctx.map(value, "`expect_exit`")?;
                let within = m
                    .take("within")
                    .map(|n| ctx.duration(n, "`within`"))
                    .transpose()?;
                m.finish(ctx, "`expect_exit`", &keys::EXPECT_EXIT.names())?;
                within.unwrap_or(DEFAULT_EXIT_WITHIN)
            };
            StepKind::ExpectExit { within }
        }
        "assert" => {
            let mut m = ctx.map(value, "`assert`")?;
            let v = template(ctx, m.require(ctx, "value", "`assert`")?)?;
            let matches = compile(ctx, m.require(ctx, "matches", "`assert`")?)?;
            let within = take_within(ctx, &mut m)?;
            m.finish(ctx, "`assert`", &keys::ASSERT.names())?;
            StepKind::Assert {
                value: v,
                matches,
                within,
            }
        }
        "assume" => {
            let mut m = ctx.map(value, "`assume`")?;
            let v = template(ctx, m.require(ctx, "value", "`assume`")?)?;
            let matches = compile(ctx, m.require(ctx, "matches", "`assume`")?)?;
            let reason_node = m.require(ctx, "reason", "`assume`")?;
            let reason = ctx.nonempty_str(reason_node, "`reason`")?.trim();
            if reason.contains('\n') {
                return Err(ctx.err(reason_node.at, "`reason` must be one line"));
            }
            let reason = reason.to_owned();
            let within = take_within(ctx, &mut m)?;
            m.finish(ctx, "`assume`", &keys::ASSUME.names())?;
            StepKind::Assume {
                value: v,
                matches,
                reason,
                within,
            }
        }
        "http" => {
            let label = take_label(ctx, f, labels)?;
            StepKind::Http(super::http::http_step(ctx, value, f, label)?)
        }
        // Every step key of `keys::STEPS` has an arm above.
        other => return Err(ctx.err(value.at, format!("cannot read the `{other}` step"))),
    })
}

/// `within:` of `assert` and `assume`: how long the step may wait for its
/// value to match. Not a timed step: it ends when the value matches.
fn take_within(ctx: &Ctx, m: &mut Fields) -> Result<Option<Duration>, ScenarioError> {
    m.take("within")
        .map(|n| {
            let d = ctx.duration(n, "`within`")?;
            if d.is_zero() {
                return Err(ctx.err(
                    n.at,
                    "`within: 0` waits for nothing: leave it out".to_owned(),
                ));
            }
            Ok(d)
        })
        .transpose()
}

/// `as:` of `send` and `http`: a label, remembered for `response_to`.
fn take_label(
    ctx: &Ctx,
    f: &mut Fields,
    labels: &mut Vec<String>,
) -> Result<Option<String>, ScenarioError> {
    let label = f
        .take("as")
        .map(|n| {
            let label = ctx.str(n, "`as` (a label)")?;
            if !is_label(label) {
                return Err(ctx.err(
                    n.at,
                    format!("invalid label {label:?} (letters, digits, `_` and `-`, starting with a letter)"),
                ));
            }
            Ok(label.to_owned())
        })
        .transpose()?;
    if let Some(label) = &label {
        if !labels.contains(label) {
            labels.push(label.clone());
        }
    }
    Ok(label)
}

/// `{method, params, id}` of `send` (with `id`) or `notify`.
pub(super) fn request(
    ctx: &Ctx,
    node: &Node,
    what: &str,
    with_id: bool,
) -> Result<(String, Option<Template>, Option<Template>), ScenarioError> {
    let mut m = ctx.map(node, what)?;
    let method = ctx
        .nonempty_str(m.require(ctx, "method", what)?, "`method`")?
        .to_owned();
    let params = m.take("params").map(|n| params(ctx, n)).transpose()?;
    let id = if with_id {
        m.take("id")
            .map(|n| match n.kind {
                Kind::String(_) | Kind::Number(_) => template(ctx, n),
                _ => Err(ctx.err(
                    n.at,
                    format!(
                        "`id` must be a string or a number, found {}",
                        n.kind.describe()
                    ),
                )),
            })
            .transpose()?
    } else {
        None
    };
    let valid = if with_id { &keys::SEND } else { &keys::NOTIFY };
    m.finish(ctx, what, &valid.names())?;
    Ok((method, params, id))
}

fn params(ctx: &Ctx, node: &Node) -> Result<Template, ScenarioError> {
    match &node.kind {
        Kind::Map(_) | Kind::Seq(_) | Kind::String(_) => template(ctx, node),
        other => Err(ctx.err(
            node.at,
            format!(
                "`params` must be a map (or a list), found {}",
                other.describe()
            ),
        )),
    }
}

/// The `expect` of `send` and `raw` (`id` only for `raw`), and of `repeat_until`.
pub(super) fn response_expect(
    ctx: &Ctx,
    node: &Node,
    raw: bool,
) -> Result<ResponseExpect, ScenarioError> {
    let mut m = ctx.map(node, "`expect`")?;
    let id = if raw {
        m.take("id")
            .map(|n| match n.kind {
                Kind::String(_) | Kind::Number(_) | Kind::Null => template(ctx, n),
                _ => Err(ctx.err(
                    n.at,
                    format!(
                        "`id` must be a string, a number or null, found {}",
                        n.kind.describe()
                    ),
                )),
            })
            .transpose()?
    } else {
        None
    };
    let (result, error) = result_error(ctx, &mut m)?;
    let within = m
        .take("within")
        .map(|n| ctx.duration(n, "`within`"))
        .transpose()?;
    let valid = if raw {
        &keys::RAW_EXPECT
    } else {
        &keys::RESPONSE_EXPECT
    };
    m.finish(ctx, "`expect`", &valid.names())?;
    Ok(ResponseExpect {
        id,
        result,
        error,
        within,
    })
}

type ResultError = (Option<crate::Matcher>, Option<crate::Matcher>);

fn result_error(ctx: &Ctx, m: &mut Fields) -> Result<ResultError, ScenarioError> {
    let result = m.take("result");
    let error = m.take("error");
    if let (Some(_), Some(e)) = (result, error) {
        return Err(ctx.err(
            m.key_at("error").unwrap_or(e.at),
            "`result` and `error` cannot both be given: a response is one or the other (give neither to accept any response)",
        ));
    }
    Ok((
        result.map(|n| compile(ctx, n)).transpose()?,
        error.map(|n| compile(ctx, n)).transpose()?,
    ))
}

fn expectation(ctx: &Ctx, node: &Node, labels: &[String]) -> Result<Expectation, ScenarioError> {
    let selectors: Vec<&str> = keys::RESPONSE_SELECTORS
        .iter()
        .chain(keys::MESSAGE_SELECTORS)
        .map(|k| k.name)
        .collect();
    let mut m = ctx.map(node, "`expect`")?;
    let found: Vec<(&str, &Node)> = m.keys().filter(|(k, _)| selectors.contains(k)).collect();
    let (key, key_node) = match found.as_slice() {
        [] => {
            return Err(ctx.err(
                node.at,
                format!("`expect` needs a selector: one of {}", selectors.join(", ")),
            ))
        }
        [one] => *one,
        [(first, _), (second, k), ..] => {
            return Err(ctx.err(
                k.at,
                format!("`expect` takes one selector, found `{first}` and `{second}`"),
            ))
        }
    };
    let value = m.take(key).unwrap_or(key_node);
    let selector = match key {
        "response_to" => {
            let label = ctx.str(value, "`response_to` (a label)")?;
            if !labels.iter().any(|l| l == label) {
                return Err(ctx.err(
                    value.at,
                    format!("`response_to: {label}` names no label defined by an earlier `send` (`as: {label}`)"),
                ));
            }
            Selector::ResponseTo(label.to_owned())
        }
        "id" => match value.kind {
            Kind::String(_) | Kind::Number(_) | Kind::Null => Selector::Id(value.to_json()),
            _ => {
                return Err(ctx.err(
                    value.at,
                    format!(
                        "`id` must be a string, a number or null, found {}",
                        value.kind.describe()
                    ),
                ))
            }
        },
        "notification" => Selector::Notification(
            ctx.nonempty_str(value, "`notification` (a method)")?
                .to_owned(),
        ),
        _ => Selector::Request(ctx.nonempty_str(value, "`request` (a method)")?.to_owned()),
    };
    let is_response = keys::RESPONSE_SELECTORS.iter().any(|k| k.name == key);
    for (k, other) in [
        ("result", "params"),
        ("error", "params"),
        ("params", "result"),
    ] {
        let applies = (k == "params") != is_response;
        if !applies {
            if let Some((_, kn)) = m.keys().find(|(key, _)| *key == k) {
                let kind = if is_response {
                    "responses"
                } else {
                    "notifications and requests"
                };
                return Err(ctx.err(
                    kn.at,
                    format!("`{k}` does not apply to `{key}` (for {kind}, use `{other}`)"),
                ));
            }
        }
    }
    let (result, error) = result_error(ctx, &mut m)?;
    let params = m.take("params").map(|n| compile(ctx, n)).transpose()?;
    let within = m
        .take("within")
        .map(|n| ctx.duration(n, "`within`"))
        .transpose()?;
    let owed = match m.take("owed") {
        Some(n) if key == "request" => ctx.bool(n, "`owed`")?,
        Some(n) => {
            return Err(ctx.err(
                n.at,
                format!("`owed` applies to `expect: {{ request }}` only (a request a client owes), not to `{key}`"),
            ))
        }
        None => false,
    };
    let mut valid = vec![key];
    valid.extend(names(if is_response {
        keys::EXPECT_RESPONSE
    } else {
        keys::EXPECT_MESSAGE
    }));
    m.finish(ctx, "`expect`", &valid)?;
    Ok(Expectation {
        selector,
        label: None,
        result,
        error,
        params,
        within,
        owed,
    })
}

/// `reply: { to, result | error }`.
fn reply(ctx: &Ctx, node: &Node, labels: &[String]) -> Result<Reply, ScenarioError> {
    let mut m = ctx.map(node, "`reply`")?;
    let to_node = m.require(ctx, "to", "`reply`")?;
    let to = ctx.str(to_node, "`to` (a label)")?;
    if !labels.iter().any(|l| l == to) {
        return Err(ctx.err(
            to_node.at,
            format!("`to: {to}` names no label defined by an earlier `expect: {{ request }}` (`as: {to}`)"),
        ));
    }
    let to = to.to_owned();
    let result = m.take("result");
    let error = m.take("error");
    if let (Some(_), Some(e)) = (result, error) {
        return Err(ctx.err(
            m.key_at("error").unwrap_or(e.at),
            "`result` and `error` cannot both be given: an answer is one or the other (give neither to let the fixture server answer)",
        ));
    }
    let answer = match (result, error) {
        (Some(r), _) => ReplyAnswer::Result(template(ctx, r)?),
        (None, Some(e)) => ReplyAnswer::Error(template(ctx, e)?),
        (None, None) => ReplyAnswer::Fixture,
    };
    let cut_stream = match m.take("cut_stream") {
        Some(node) => {
            let mut c = ctx.map(node, "`reply.cut_stream`")?;
            let retry = c
                .take("retry")
                .map(|n| ctx.duration(n, "`cut_stream.retry`"))
                .transpose()?;
            let resume_within = c
                .take("resume_within")
                .map(|n| ctx.duration(n, "`cut_stream.resume_within`"))
                .transpose()?
                .unwrap_or(CutStream::DEFAULT_RESUME_WITHIN);
            c.finish(ctx, "`reply.cut_stream`", &keys::CUT_STREAM.names())?;
            Some(CutStream {
                retry,
                resume_within,
            })
        }
        None => None,
    };
    m.finish(ctx, "`reply`", &keys::REPLY.names())?;
    Ok(Reply {
        to,
        answer,
        cut_stream,
    })
}

pub(super) fn var_name(ctx: &Ctx, node: &Node, what: &str) -> Result<String, ScenarioError> {
    let name = ctx.str(node, &format!("{what} (a variable name)"))?;
    if !is_var_path(name) {
        return Err(ctx.err(
            node.at,
            format!("invalid variable name {name:?} for {what}"),
        ));
    }
    Ok(name.to_owned())
}

fn is_label(label: &str) -> bool {
    label.starts_with(|c: char| c.is_ascii_alphabetic())
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `raw_hex`: pairs of hex digits, whitespace ignored.
fn hex(ctx: &Ctx, node: &Node) -> Result<Vec<u8>, ScenarioError> {
    let text = ctx.str(node, "`raw_hex` (hex digits, spaces ignored)")?;
    let digits: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if digits.len() % 2 != 0 {
        return Err(ctx.err(node.at, "`raw_hex` has an odd number of hex digits"));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let s: String = pair.iter().collect();
            u8::from_str_radix(&s, 16)
                .map_err(|_| ctx.err(node.at, format!("`raw_hex` has a non-hex pair {s:?}")))
        })
        .collect()
}
