//! The scenario steps, one function each, over a case's [`Ctx`].
//!
//! Every step either holds, records a finding through [`Ctx::fail`] (and
//! stops the case when the finding is a MUST), or stops the case as not
//! applicable or errored. Templates are rendered from the case's bindings;
//! an unbound variable is the scenario file's fault.

use std::time::Duration;

use mcpspec_engine::Level;
use mcpspec_scenario::{
    Bindings, Discover, Expectation, Matcher, Mismatch, ResponseExpect, Selector, SendStep, Step,
    StepKind, Template, TemplateError,
};
use mcpspec_wire::{Id, Message};
use serde_json::Value;

use crate::case::{is_response_to, Ctx, Stop};
use crate::conn::{Received, WaitError};
use crate::outcome::Blame;

mod paging;

/// Short label of a step for locations: `send tools/list`, `expect_silence`, ...
pub fn describe(kind: &StepKind) -> String {
    match kind {
        StepKind::Send(s) => format!("send {}", s.method),
        StepKind::Notify { method, .. } => format!("notify {method}"),
        StepKind::Raw(_) => "raw".to_owned(),
        StepKind::Expect(e) => match &e.selector {
            Selector::ResponseTo(l) => format!("expect response_to {l}"),
            Selector::Id(v) => format!("expect id {v}"),
            Selector::Notification(m) => format!("expect notification {m}"),
            Selector::Request(m) => format!("expect request {m}"),
        },
        StepKind::ExpectSilence { .. } => "expect_silence".to_owned(),
        StepKind::RepeatUntil(r) => format!("repeat_until {}", r.send.method),
        StepKind::Discover(d) => format!("discover {}", d.list),
        StepKind::Sleep(_) => "sleep".to_owned(),
        StepKind::ExpectNoFetch(_) => "expect_no_fetch".to_owned(),
        StepKind::Disconnect => "disconnect".to_owned(),
        StepKind::ExpectExit { .. } => "expect_exit".to_owned(),
        StepKind::Assert { .. } => "assert".to_owned(),
        StepKind::Assume { .. } => "assume".to_owned(),
        StepKind::Http(h) => format!("http {}", h.method),
        StepKind::Reply(r) => format!("reply {}", r.to),
    }
}

pub fn wait_error_text(e: &WaitError) -> String {
    match e {
        WaitError::Timeout => "nothing arrived".to_owned(),
        WaitError::Exited(how) => format!("nothing arrived: {how}"),
        WaitError::Refused(how) => format!("no answer: {how}"),
        WaitError::Invalid => {
            "no valid response: what the target sent broke the rules listed with this case"
                .to_owned()
        }
    }
}

/// A wait that ended without its answer for a cause the oracle has
/// already reported, which is then the one finding: the case is blocked by
/// that rule (failed, when it is the scenario's own), not failed again as
/// "nothing arrived" under its own.
///
/// - Nothing came after the target sent what could not be read as a
///   message or an answer (a line that is no JSON-RPC, a message broken
///   across lines, a response with an id no request carried): the awaited
///   answer may have been it.
/// - Over HTTP, the POST was accepted (2xx) with a body of a type that
///   carries no answer: the same.
/// - The target went away owing the answer: the oracle's
///   `jsonrpc.request.answered`, judged at the end of the case, is that
///   finding.
pub(crate) fn unreadable_stop(ctx: &Ctx<'_>, e: &WaitError) -> Option<Stop> {
    let accepted = |status: Option<u16>| status.is_some_and(|s| (200..300).contains(&s));
    let rule = match e {
        WaitError::Timeout => ctx.conn.unreadable_rule()?,
        WaitError::Refused(r) if accepted(r.status) => ctx.conn.unreadable_rule()?,
        WaitError::Exited(_) if ctx.conn.owes_answers() => {
            &mcpspec_engine::ids::JSONRPC_REQUEST_ANSWERED
        }
        _ => return None,
    };
    Some(if ctx.owns(rule) {
        Stop::Failed
    } else {
        Stop::Blocked {
            by: rule.id.to_owned(),
            level: rule.level,
        }
    })
}

fn scenario_error(e: TemplateError) -> Stop {
    Stop::Error(Blame::Scenario, e.to_string())
}

fn target_gone(e: String) -> Stop {
    if e.starts_with(crate::conn::NO_STREAM) {
        // Serving a client over HTTP: keeping a stream open is its choice.
        return Stop::NotApplicable(format!("the server cannot reach the client: {e}"));
    }
    Stop::Error(Blame::Target, e)
}

/// Turns a failed check into `Err(Stop::Failed)` when it was a MUST.
pub(crate) fn checked(level: Level) -> Result<(), Stop> {
    if level == Level::Must {
        Err(Stop::Failed)
    } else {
        Ok(())
    }
}

/// Runs step `i`.
pub async fn run(ctx: &mut Ctx<'_>, i: usize, step: &Step) -> Result<(), Stop> {
    let at = Some((i, step));
    match &step.kind {
        StepKind::Send(s) => send(ctx, at, s).await,
        StepKind::Notify { method, params } => {
            let params = render_opt(params.as_ref(), &ctx.vars)?;
            // A notification naming a request of ours (a cancellation's
            // `requestId`) goes once that request reached the target.
            if let Some(id) = params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .and_then(Id::from_value)
            {
                ctx.conn.received(&id).await;
            }
            let msg = Message::notification(method, params);
            ctx.conn.send(&msg).await.map_err(target_gone)?;
            // A notification is delivered once the target accepted it; the
            // steps after it (a grace, a silence window) time from there.
            ctx.conn.accepted().await;
            Ok(())
        }
        StepKind::Raw(raw) => {
            let bytes = raw.render(&ctx.vars).map_err(scenario_error)?;
            ctx.conn.send_raw(&bytes).await.map_err(target_gone)?;
            match &raw.expect {
                Some(exp) => {
                    let id = match &exp.id {
                        Some(t) => t.render(&ctx.vars).map_err(scenario_error)?,
                        None => return Err(Stop::Error(
                            Blame::Scenario,
                            "`expect` after `raw` needs an `id` (use null for unreadable input)"
                                .to_owned(),
                        )),
                    };
                    let id = Id::from_value(&id);
                    expect_response(
                        ctx,
                        at,
                        exp,
                        "the raw message",
                        move |m| matches!(m, Message::Response(r) if r.id == id),
                    )
                    .await
                }
                None => Ok(()),
            }
        }
        StepKind::Expect(e) => expect(ctx, at, e).await,
        StepKind::ExpectSilence {
            duration,
            all,
            notification,
            params,
        } => {
            let filter = notification.as_deref().map(|m| (m, params.as_ref()));
            silence(ctx, at, *duration, *all, filter).await
        }
        StepKind::RepeatUntil(r) => paging::repeat_until(ctx, at, r).await,
        StepKind::Discover(d) => discover(ctx, d).await,
        StepKind::Sleep(d) => {
            ctx.conn.idle(*d).await;
            Ok(())
        }
        StepKind::ExpectNoFetch(d) => {
            ctx.conn.idle(*d).await;
            crate::canary::judge(ctx, at)
        }
        StepKind::Disconnect => {
            ctx.conn.close_input();
            Ok(())
        }
        StepKind::ExpectExit { within } => {
            if ctx.conn.wait_exit(*within).await.is_none() {
                let level = ctx.fail(
                    at,
                    vec![format!("the target exits within {}ms", within.as_millis())],
                    "it was still running".to_owned(),
                );
                checked(level)?;
            }
            Ok(())
        }
        StepKind::Assert {
            value,
            matches,
            within,
        } => {
            let (_, mismatches) = settle(ctx, value, matches, *within).await?;
            report_mismatches(ctx, at, &mismatches, matches)
        }
        StepKind::Assume {
            value,
            matches,
            reason,
            within,
        } => {
            let (actual, mismatches) = settle(ctx, value, matches, *within).await?;
            if mismatches.is_empty() {
                Ok(())
            } else {
                ctx.conn
                    .note(format!("not applicable: {reason} ({})", compact(&actual)));
                Err(Stop::NotApplicable(reason.clone()))
            }
        }
        StepKind::Http(h) => crate::http::run(ctx, at, h).await,
        StepKind::Reply(r) => crate::client::reply(ctx, at, step, r).await,
    }
}

/// How often a waiting `assert` or `assume` looks at `${auth}` again.
const SETTLE_POLL: Duration = Duration::from_millis(20);

/// `value` rendered and checked against `matches`. With `within`, the check
/// is made again, with `${auth}` brought up to date, until it holds, the
/// time is up or the target has exited (nothing it does can change now).
/// The steps after it are thereby timed from when the value held, not from
/// the start of the case, however slowly the target got there.
async fn settle(
    ctx: &mut Ctx<'_>,
    value: &Template,
    matches: &Matcher,
    within: Option<Duration>,
) -> Result<(Value, Vec<Mismatch>), Stop> {
    let deadline = within.map(|w| tokio::time::Instant::now() + w);
    loop {
        let actual = value.render(&ctx.vars).map_err(scenario_error)?;
        let mismatches = matches
            .check(Some(&actual), "value", &mut ctx.vars)
            .map_err(scenario_error)?;
        let now = tokio::time::Instant::now();
        match deadline {
            Some(deadline)
                if !mismatches.is_empty() && now < deadline && ctx.conn.exit().is_none() =>
            {
                ctx.conn.idle(SETTLE_POLL.min(deadline - now)).await;
                crate::case::observe_auth(ctx);
            }
            _ => return Ok((actual, mismatches)),
        }
    }
}

fn render_opt(t: Option<&Template>, vars: &Bindings) -> Result<Option<Value>, Stop> {
    t.map(|t| t.render(vars))
        .transpose()
        .map_err(scenario_error)
}

async fn send(ctx: &mut Ctx<'_>, at: Option<(usize, &Step)>, s: &SendStep) -> Result<(), Stop> {
    let params = render_opt(s.params.as_ref(), &ctx.vars)?;
    let id = match &s.id {
        Some(t) => {
            let v = t.render(&ctx.vars).map_err(scenario_error)?;
            Id::from_value(&v).ok_or_else(|| {
                Stop::Error(
                    Blame::Scenario,
                    format!("`id: {v}` is not a string or integer; use `raw` for invalid ids"),
                )
            })?
        }
        None => ctx.conn.next_id(),
    };
    if let Some(label) = &s.label {
        ctx.vars.set(&format!("{label}.id"), id.to_value());
    }
    let msg = Message::request(id.clone(), &s.method, params);
    ctx.conn.send(&msg).await.map_err(target_gone)?;
    if let Some(lasts) = s.lasts {
        ctx.conn.lasts(&id, lasts);
    }
    if let Some(exp) = &s.expect {
        let what = format!("{} (id {id})", s.method);
        let label = s.label.clone();
        let got = expect_response_value(ctx, at, exp, &what, |m| is_response_to(m, &id)).await?;
        if let (Some(label), Some(v)) = (label, got) {
            ctx.vars.set(&format!("{label}.response"), v);
        }
    }
    Ok(())
}

async fn expect_response(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    exp: &ResponseExpect,
    what: &str,
    pred: impl Fn(&Message) -> bool,
) -> Result<(), Stop> {
    expect_response_value(ctx, at, exp, what, pred)
        .await
        .map(|_| ())
}

/// Waits for a response and checks it; returns the response as JSON when one arrived.
async fn expect_response_value(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    exp: &ResponseExpect,
    what: &str,
    pred: impl Fn(&Message) -> bool,
) -> Result<Option<Value>, Stop> {
    let within = exp.within.unwrap_or(ctx.cfg.step_timeout);
    match ctx.conn.wait_for(within, pred).await {
        Ok(Received { msg, .. }) => {
            check_response(ctx, at, &msg, exp.result.as_ref(), exp.error.as_ref())?;
            Ok(Some(msg.to_value()))
        }
        Err(e) => {
            if let Some(stop) = crate::client::client_left(ctx, &e) {
                return Err(stop);
            }
            if let Some(stop) = unreadable_stop(ctx, &e) {
                return Err(stop);
            }
            let expected = vec![format!(
                "a response to {what} within {}ms",
                within.as_millis()
            )];
            let level = ctx.fail(at, expected, wait_error_text(&e));
            checked(level)?;
            Ok(None)
        }
    }
}

/// Checks a response against `result` / `error` matchers.
fn check_response(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    msg: &Message,
    result: Option<&Matcher>,
    error: Option<&Matcher>,
) -> Result<(), Stop> {
    let Message::Response(r) = msg else {
        let level = ctx.fail(at, vec!["a response".to_owned()], msg.describe());
        return checked(level);
    };
    match (&r.outcome, result, error) {
        (Ok(v), Some(m), _) => {
            let mismatches = m
                .check(Some(v), "result", &mut ctx.vars)
                .map_err(scenario_error)?;
            report_mismatches(ctx, at, &mismatches, m)
        }
        (Err(e), _, Some(m)) => {
            let v = msg.to_value().get("error").cloned().unwrap_or(Value::Null);
            let mismatches = m
                .check(Some(&v), "error", &mut ctx.vars)
                .map_err(scenario_error)?;
            if !mismatches.is_empty() {
                ctx.conn
                    .note(format!("error was {} {:?}", e.code, e.message));
            }
            report_mismatches(ctx, at, &mismatches, m)
        }
        (Err(e), Some(m), None) => {
            let level = ctx.fail(
                at,
                vec![format!("a result matching {}", m.describe())],
                format!("error {} {:?}", e.code, e.message),
            );
            checked(level)
        }
        (Ok(v), None, Some(m)) => {
            let level = ctx.fail(
                at,
                vec![format!("an error matching {}", m.describe())],
                format!("a result: {}", compact(v)),
            );
            checked(level)
        }
        _ => Ok(()),
    }
}

pub(crate) fn report_mismatches(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    mismatches: &[Mismatch],
    _m: &Matcher,
) -> Result<(), Stop> {
    if mismatches.is_empty() {
        return Ok(());
    }
    let expected = mismatches
        .iter()
        .map(|m| format!("{}: {}", m.path, m.expected))
        .collect();
    let actual = mismatches
        .iter()
        .map(|m| match &m.actual {
            Some(v) => format!("{}: {}", m.path, compact(v)),
            None => format!("{}: absent", m.path),
        })
        .collect::<Vec<_>>()
        .join("; ");
    let level = ctx.fail(at, expected, actual);
    checked(level)
}

/// A JSON value on one line, cut to 300 characters.
pub fn compact(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 300 {
        let mut cut = 300;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// Which message an `expect` step waits for.
type Predicate = Box<dyn Fn(&Message) -> bool + Send>;

async fn expect(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    e: &Expectation,
) -> Result<(), Stop> {
    let within = e.within.unwrap_or(ctx.cfg.step_timeout);
    let (what, pred): (String, Predicate) = match &e.selector {
        Selector::ResponseTo(label) => {
            let id = ctx
                .vars
                .get(&format!("{label}.id"))
                .and_then(Id::from_value)
                .ok_or_else(|| {
                    Stop::Error(
                        Blame::Scenario,
                        format!("no request labelled `{label}` was sent"),
                    )
                })?;
            (
                format!("the response to `{label}` (id {id})"),
                Box::new(move |m| is_response_to(m, &id)),
            )
        }
        Selector::Id(v) => {
            let id = Id::from_value(v);
            (
                format!("a response with id {v}"),
                Box::new(move |m| matches!(m, Message::Response(r) if r.id == id)),
            )
        }
        Selector::Notification(method) => {
            let method = method.clone();
            (
                format!("a {method} notification"),
                Box::new(move |m| matches!(m, Message::Notification(n) if n.method == method)),
            )
        }
        Selector::Request(method) => {
            let method = method.clone();
            let what = if method == Selector::ANY_METHOD {
                "a request".to_owned()
            } else {
                format!("a {method} request")
            };
            (
                what,
                Box::new(move |m| crate::client::selects_request(&method, m)),
            )
        }
    };
    let got = match ctx.conn.wait_for(within, pred).await {
        Ok(r) => r.msg,
        Err(err)
            if is_client_request(ctx, e) && !e.owed && ctx.conn.gone_while_holding().is_none() =>
        {
            // A client need not send any particular request: one that did
            // not is judged on what it did.
            let reason = match &err {
                WaitError::Timeout => format!("none came within {}ms", within.as_millis()),
                other => wait_error_text(other),
            };
            let what = what.trim_start_matches("a ");
            return Err(Stop::NotApplicable(format!(
                "the client sent no {what} ({reason}): the steps that need it are not applicable"
            )));
        }
        Err(err) => {
            if let Some(stop) = crate::client::client_left(ctx, &err).filter(|_| !e.owed) {
                return Err(stop);
            }
            if let Some(stop) = unreadable_stop(ctx, &err) {
                return Err(stop);
            }
            let level = ctx.fail(
                at,
                vec![format!("{what} within {}ms", within.as_millis())],
                wait_error_text(&err),
            );
            return checked(level);
        }
    };
    if let Some(label) = &e.label {
        crate::client::bind_request(ctx, label, &got);
    }
    match &got {
        Message::Response(_) => check_response(ctx, at, &got, e.result.as_ref(), e.error.as_ref()),
        Message::Notification(_) | Message::Request(_) => match &e.params {
            Some(m) => {
                let params = got.params().cloned();
                let mismatches = m
                    .check(params.as_ref(), "params", &mut ctx.vars)
                    .map_err(scenario_error)?;
                report_mismatches(ctx, at, &mismatches, m)
            }
            None => Ok(()),
        },
    }
}

/// An `expect` of a request in a client case (the client's own choice to send).
fn is_client_request(ctx: &Ctx<'_>, e: &Expectation) -> bool {
    ctx.conn.own_role() == mcpspec_engine::Role::Server
        && matches!(e.selector, Selector::Request(_))
}

async fn silence(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    d: Duration,
    all: bool,
    filter: Option<(&str, Option<&Matcher>)>,
) -> Result<(), Stop> {
    // What was taken in before the step began is not the step's. Events
    // come in order, so what arrived before the message that ended the
    // previous step is behind the mark, and what came after it (even if
    // not read yet) is ahead of it.
    let since = ctx.conn.mark();
    let vars = ctx.vars.clone();
    let pred = |m: &Message| match (filter, m) {
        (None, _) => all || !matches!(m, Message::Notification(_)),
        (Some((method, params)), Message::Notification(n)) if n.method == method => {
            params.is_none_or(|p| {
                // A scratch copy: a silence check binds nothing.
                let mut scratch = vars.clone();
                p.check(n.params.as_ref(), "params", &mut scratch)
                    .is_ok_and(|mismatches| mismatches.is_empty())
            })
        }
        (Some(_), _) => false,
    };
    // A silence that has heard what it forbids has failed for good: the
    // rest of its window could only lengthen the list. Where that failure
    // ends the case (a MUST stops it; after the last step nothing follows)
    // no later step runs in the time the window would have taken, so the
    // window ends with the first forbidden message. Otherwise the case goes
    // on after a failing SHOULD, and the window is waited out so that the
    // steps after it start when the scenario says.
    let ends_case = ctx.level_of(at) == Level::Must || at.is_some_and(|(i, _)| last_step(ctx, i));
    if ends_case {
        if ctx.conn.idle_unless(d, since, &pred).await {
            ctx.conn.note(format!(
                "the silence ended before its {}ms: the target sent what it forbids, and \
                 the rest of the window could not mend that",
                d.as_millis()
            ));
        }
    } else {
        ctx.conn.idle(d).await;
    }
    let mut heard = ctx.conn.drain_after(since, pred);
    if heard.is_empty() {
        return Ok(());
    }
    // What the oracle already found against the step's own requirement (an
    // answer to a cancelled request breaks `cancellation.no-response`) is
    // its finding, not the step's too: one cause, one finding. The step has
    // failed all the same.
    let own = ctx.requirement_of(at);
    heard.retain(|r| {
        !ctx.conn
            .violations()
            .iter()
            .any(|v| v.requirement.id == own && v.at_ms == r.at_ms)
    });
    if heard.is_empty() {
        return checked(ctx.level_of(at));
    }
    let what = match filter {
        Some((method, Some(p))) => format!("no {method} notification matching {}", p.describe()),
        Some((method, None)) => format!("no {method} notification"),
        None if all => "no message".to_owned(),
        None => "no response or request".to_owned(),
    };
    let actual = heard
        .iter()
        .map(|r| match r.msg.params() {
            Some(p) => format!("{} {} at {}ms", r.msg.describe(), compact(p), r.at_ms),
            None => format!("{} at {}ms", r.msg.describe(), r.at_ms),
        })
        .collect::<Vec<_>>()
        .join("; ");
    let level = ctx.fail(at, vec![format!("{what} for {}ms", d.as_millis())], actual);
    checked(level)
}

/// Whether step `i` is the last one its case plays (no later step runs at
/// the case's version).
fn last_step(ctx: &Ctx<'_>, i: usize) -> bool {
    !ctx.scenario
        .steps
        .iter()
        .skip(i + 1)
        .any(|s| s.applies_to(ctx.version))
}

/// The member of a list result that holds the items.
fn list_key(method: &str) -> &'static str {
    match method {
        "tools/list" => "tools",
        "resources/list" => "resources",
        "resources/templates/list" => "resourceTemplates",
        "prompts/list" => "prompts",
        _ => "items",
    }
}

async fn discover(ctx: &mut Ctx<'_>, d: &Discover) -> Result<(), Stop> {
    const MAX_PAGES: usize = 100;
    let key = list_key(&d.list);
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let id = ctx.conn.next_id();
        let params = cursor.take().map(|c| serde_json::json!({ "cursor": c }));
        let msg = Message::request(id.clone(), &d.list, params);
        ctx.conn.send(&msg).await.map_err(target_gone)?;
        let got = ctx
            .conn
            .wait_for(ctx.cfg.step_timeout, |m| is_response_to(m, &id))
            .await;
        let result = match got {
            Ok(Received {
                msg: Message::Response(r),
                ..
            }) => r.outcome.ok(),
            _ => None,
        };
        let Some(result) = result else {
            return Err(Stop::NotApplicable(format!(
                "{} did not return a usable listing to discover from",
                d.list
            )));
        };
        items.extend(
            result
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        match result.get("nextCursor") {
            Some(c @ Value::String(_)) => cursor = Some(c.clone()),
            _ => break,
        }
    }
    let mut kept = Vec::new();
    for item in items {
        let ok = match &d.filter {
            Some(m) => {
                let mut scratch = ctx.vars.clone();
                m.check(Some(&item), "item", &mut scratch)
                    .map_err(scenario_error)?
                    .is_empty()
            }
            None => true,
        };
        if ok {
            kept.push(item);
        }
    }
    if kept.len() < d.require {
        let wanted = d
            .filter
            .as_ref()
            .map(|m| format!(" matching {}", m.describe_with(&ctx.vars)))
            .unwrap_or_default();
        return Err(Stop::NotApplicable(format!(
            "{} lists {} item(s){wanted}; the scenario needs {}",
            d.list,
            kept.len(),
            d.require
        )));
    }
    if let Some(var) = &d.header_param {
        kept.retain(|tool| header_param(tool).is_some());
        match kept.first().and_then(header_param) {
            Some(found) => ctx.vars.set(var, found),
            None => {
                return Err(Stop::NotApplicable(format!(
                    "{} lists no tool with a valid x-mcp-header on a top-level string parameter",
                    d.list
                )))
            }
        }
    }
    ctx.vars.set(&d.into, Value::Array(kept));
    Ok(())
}

/// `discover`'s `header_param`: `{ tool, property, header }` for the first
/// top-level string parameter a valid `x-mcp-header` marks (SEP-2243).
fn header_param(tool: &Value) -> Option<Value> {
    use mcpspec_engine::param_headers::{annotations, Kind};
    let marked = annotations(tool.get("inputSchema")?).ok()?;
    let a = marked
        .iter()
        .find(|a| a.path.len() == 1 && a.kind == Some(Kind::String))?;
    Some(serde_json::json!({
        "tool": tool.get("name")?.as_str()?,
        "property": a.path[0],
        "header": a.header(),
    }))
}
