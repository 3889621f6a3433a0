//! Client cases: the harness plays the server for a client under test.
//!
//! ```text
//!  start the client ─► [serve the handshake ─► requires?] ─► steps… (holds per step) ─► end
//!                          │ initialize: the fixture's result at the case version
//!                          │ notifications/initialized awaited
//!                          └─ the client left after a counter-offer: not applicable
//! ```
//!
//! A client is judged on what it did: when it ends its session before a
//! step needs it (a CLI client that lists its tools and exits), the rest of
//! the case is not applicable — unless the harness was holding one of its
//! requests at the time, which no clean client walks away from.
//!
//! Before each step the case tells the connection which requests to hold
//! for the steps ([`held_methods`]); the fixture answers all others.

use mcpspec_engine::{ids, Level, Lifecycle, Requirement, Version};
use mcpspec_scenario::{CutStream, Reply, ReplyAnswer, Scenario, Selector, Step, StepKind};
use mcpspec_wire::{Id, Message};
use serde_json::{json, Value};

use crate::case::{Ctx, Stop};
use crate::conn::{Conn, WaitError};
use crate::outcome::Blame;
use crate::steps::wait_error_text;

/// The requirement the runner's own handshake checks in client cases.
pub const INITIALIZED_REQUIREMENT: &Requirement = &ids::LIFECYCLE_CLIENT_INITIALIZED_NOTIFICATION;

/// The methods of the `expect: { request }` steps from `from` on that run
/// at `version`: what the connection holds for the steps.
pub fn held_methods(scenario: &Scenario, from: usize, version: Version) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for step in scenario.steps.iter().skip(from) {
        if !step.applies_to(version) {
            continue;
        }
        if let StepKind::Expect(e) = &step.kind {
            if let Selector::Request(m) = &e.selector {
                if !out.contains(m) {
                    out.push(m.clone());
                }
            }
        }
    }
    out
}

/// Whether `m` is a request `method` selects (`*`: any).
pub fn selects_request(method: &str, m: &Message) -> bool {
    matches!(m, Message::Request(r) if method == Selector::ANY_METHOD || r.method == method)
}

/// In a client case, what a failed wait means when the client has gone
/// away: not applicable when it simply ended its session (it is judged on
/// what it did), `None` (the wait's own verdict) when it left while the
/// harness held one of its requests, or in a server case.
pub fn client_left(ctx: &Ctx<'_>, err: &WaitError) -> Option<Stop> {
    if ctx.conn.own_role() != mcpspec_engine::Role::Server
        || ctx.conn.gone_while_holding().is_some()
    {
        return None;
    }
    match err {
        WaitError::Exited(how) => Some(Stop::NotApplicable(format!(
            "the client ended its session ({how}) before this step: it is judged on what it did"
        ))),
        _ => None,
    }
}

/// The server side of the handshake for `initialized` client scenarios:
/// take the client's `initialize`, answer with the fixture's result at the
/// case's version, wait for `notifications/initialized`, then check the
/// scenario's gates against the client's capabilities.
pub async fn serve_handshake(ctx: &mut Ctx<'_>) -> Result<(), Stop> {
    if ctx.version.lifecycle() == Lifecycle::Stateless {
        return serve_stateless_start(ctx).await;
    }
    let within = ctx.cfg.step_timeout;
    let mut holds = vec!["initialize".to_owned()];
    holds.extend(held_methods(ctx.scenario, 0, ctx.version));
    ctx.conn.hold(holds).await;
    // (A server/discover probe before it is answered by the fixture.)
    let init = match ctx
        .conn
        .wait_for(opening_wait(ctx.cfg), |m| selects_request("initialize", m))
        .await
    {
        Ok(r) => r.msg,
        Err(e) => return Err(no_initialize(ctx, &e)),
    };
    let params = init.params().cloned().unwrap_or(Value::Null);
    let caps = params.get("capabilities").cloned().unwrap_or(Value::Null);
    let asked = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    ctx.vars.set("init", params);
    ctx.vars.set("capabilities", caps.clone());
    ctx.conn.answer_with_fixture(&init).await;
    let version = ctx.version.as_str();
    let initialized = ctx
        .conn
        .wait_for(
            within,
            |m| matches!(m, Message::Notification(n) if n.method == "notifications/initialized"),
        )
        .await;
    if let Err(e) = initialized {
        if asked != version && matches!(e, WaitError::Exited(_)) {
            return Err(Stop::NotApplicable(format!(
                "the client asked for {asked:?} and left when offered {version}: it does not speak {version}"
            )));
        }
        ctx.fail_as(
            None,
            INITIALIZED_REQUIREMENT.id,
            Level::Must,
            vec![format!(
                "notifications/initialized within {}ms of the initialize result",
                within.as_millis()
            )],
            wait_error_text(&e),
        );
        return Err(Stop::Failed);
    }
    crate::case::check_requires(ctx, &caps)
}

/// The start of an `initialized` client case at 2026-07-28, which has no
/// handshake: the fixture answers a `server/discover` probe; the client's
/// first other request shows what it declares in `_meta` (bound as
/// `${init}`, its `_meta`, and `${capabilities}`) and stays in the inbox
/// for the steps. A client that sends `initialize` instead does not speak
/// 2026-07-28: not applicable.
async fn serve_stateless_start(ctx: &mut Ctx<'_>) -> Result<(), Stop> {
    let mut holds = vec![Selector::ANY_METHOD.to_owned()];
    holds.extend(held_methods(ctx.scenario, 0, ctx.version));
    ctx.conn.hold(holds).await;
    let first = match ctx
        .conn
        .wait_present(opening_wait(ctx.cfg), |m| matches!(m, Message::Request(_)))
        .await
    {
        Ok(m) => m,
        Err(e) => return Err(no_initialize(ctx, &e)),
    };
    if selects_request("initialize", &first) {
        return Err(Stop::NotApplicable(
            "the client does not speak 2026-07-28: it opened with initialize".to_owned(),
        ));
    }
    let meta = first
        .params()
        .and_then(|p| p.get("_meta"))
        .cloned()
        .unwrap_or(Value::Null);
    let caps = meta
        .get(crate::conn::CLIENT_CAPABILITIES_KEY)
        .cloned()
        .unwrap_or(Value::Null);
    ctx.vars.set("init", meta);
    ctx.vars.set("capabilities", caps.clone());
    crate::case::check_requires(ctx, &caps)
}

/// How long a client may take to open its session. Its opening request is
/// part of its start-up (an interpreter loading an SDK, a `server/discover`
/// probe and the fall-back after it), so the start-up allowance applies,
/// not only until its first message as for a server's.
fn opening_wait(cfg: &crate::CaseConfig) -> std::time::Duration {
    cfg.startup_timeout.max(cfg.step_timeout)
}

/// Why a client case could not start: the client never sent `initialize`.
fn no_initialize(ctx: &Ctx<'_>, e: &WaitError) -> Stop {
    let why = match e {
        WaitError::Timeout if ctx.conn.frames_received() == 0 => format!(
            "the client sent nothing within {}ms (its start-up allowance): did it start, and \
             connect to the server it was given ({{server}}, {{url}} or {{sse_url}})?",
            opening_wait(ctx.cfg).as_millis()
        ),
        WaitError::Timeout => format!(
            "the client sent no initialize within {}ms",
            opening_wait(ctx.cfg).as_millis()
        ),
        other => format!("the client sent no initialize: {}", wait_error_text(other)),
    };
    Stop::Error(Blame::Target, why)
}

/// Binds what an `expect: { request }` step took, under its label.
pub fn bind_request(ctx: &mut Ctx<'_>, label: &str, msg: &Message) {
    if let Message::Request(r) = msg {
        ctx.vars.set(&format!("{label}.id"), r.id.to_value());
        ctx.vars
            .set(&format!("{label}.method"), Value::from(r.method.clone()));
        ctx.vars.set(
            &format!("{label}.params"),
            r.params.clone().unwrap_or(Value::Null),
        );
    }
}

/// `reply`: answers the request labelled `reply.to` — with `cut_stream`,
/// on the client's resumption of its response stream, which is cut first.
pub async fn reply(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    step: &Step,
    r: &Reply,
) -> Result<(), Stop> {
    let Some(how) = &r.cut_stream else {
        return answer(ctx, step, &r.to, &r.answer).await;
    };
    let cut = cut_stream(ctx, step, &r.to, how)?;
    answer(ctx, step, &r.to, &r.answer).await?;
    crate::resume::await_resumption(ctx, at, &cut, how).await
}

/// Cuts the response stream of the request labelled `to`.
fn cut_stream(
    ctx: &mut Ctx<'_>,
    step: &Step,
    to: &str,
    how: &CutStream,
) -> Result<mcpspec_transport::serve::Cut, Stop> {
    let id = ctx
        .vars
        .get(&format!("{to}.id"))
        .and_then(Id::from_value)
        .ok_or_else(|| {
            Stop::Error(
                Blame::Scenario,
                format!(
                    "{}:{}:{}: `reply: {{ to: {to} }}`: no request with an id was taken under that label",
                    step.at.file, step.at.line, step.at.column
                ),
            )
        })?;
    ctx.conn.cut_stream(&id, how.retry).map_err(|e| {
        Stop::Error(
            Blame::Harness,
            format!("could not cut the response stream: {e}"),
        )
    })
}

/// Answers the request labelled `to`.
async fn answer(
    ctx: &mut Ctx<'_>,
    step: &Step,
    to: &str,
    answer: &ReplyAnswer,
) -> Result<(), Stop> {
    let field = |name: &str| ctx.vars.get(&format!("{to}.{name}")).cloned();
    let (Some(id), Some(method)) = (field("id"), field("method")) else {
        return Err(Stop::Error(
            Blame::Scenario,
            format!(
                "{}:{}:{}: `reply: {{ to: {to} }}`: no request was taken under that label",
                step.at.file, step.at.line, step.at.column
            ),
        ));
    };
    let params = field("params").filter(|p| !p.is_null());
    let bytes = match answer {
        ReplyAnswer::Fixture => {
            let Some(id) = Id::from_value(&id) else {
                return Err(Stop::Error(
                    Blame::Harness,
                    format!("the request labelled `{to}` has an id the harness cannot answer"),
                ));
            };
            let method = method.as_str().unwrap_or_default().to_owned();
            let request = Message::request(id, &method, params);
            ctx.conn.answer_with_fixture(&request).await;
            return Ok(());
        }
        ReplyAnswer::Result(t) => {
            let v = t
                .render(&ctx.vars)
                .map_err(|e| Stop::Error(Blame::Scenario, e.to_string()))?;
            json!({ "jsonrpc": "2.0", "id": id, "result": v })
        }
        ReplyAnswer::Error(t) => {
            let v = t
                .render(&ctx.vars)
                .map_err(|e| Stop::Error(Blame::Scenario, e.to_string()))?;
            json!({ "jsonrpc": "2.0", "id": id, "error": v })
        }
    };
    let mut line = bytes.to_string().into_bytes();
    line.push(b'\n');
    ctx.conn
        .send_raw(&line)
        .await
        .map_err(|e| Stop::Error(Blame::Target, e))
}

/// What a client asks for when it starts: the `protocolVersion` of its
/// `initialize` (empty when it never sent one), and whether it speaks
/// 2026-07-28 (offered that version by `server/discover`, it went on with
/// stateless requests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOffer {
    pub asked: String,
    pub stateless: bool,
}

/// Starts the client (twice for a client of both eras) and reads what it
/// asks for; it is stopped afterwards. `Err` says why nothing could be learnt.
pub async fn probe_client(cfg: &crate::CaseConfig) -> Result<ClientOffer, String> {
    // First as a 2026-07-28 server: a dual-era client goes on statelessly.
    let first = first_request(cfg, Version::V2026_07_28, Selector::ANY_METHOD).await?;
    if selects_request("initialize", &first) {
        return Ok(ClientOffer {
            asked: asked_version(&first),
            stateless: false,
        });
    }
    // Then as a handshake-era server, for the version it falls back to.
    let asked = first_request(cfg, Version::V2025_11_25, "initialize")
        .await
        .map(|m| asked_version(&m))
        .unwrap_or_default();
    Ok(ClientOffer {
        asked,
        stateless: true,
    })
}

/// Serves one start of the client at `version` (a `server/discover` probe
/// is answered) and returns its first request of `method` (`*`: any).
async fn first_request(
    cfg: &crate::CaseConfig,
    version: Version,
    method: &str,
) -> Result<Message, String> {
    let proc = cfg
        .target
        .connect(cfg.max_line, cfg.startup_timeout)
        .await?;
    let mut conn = Conn::serving(proc, version, cfg.startup_timeout);
    conn.hold(vec![method.to_owned()]).await;
    let got = conn
        .wait_for(opening_wait(cfg), |m| selects_request(method, m))
        .await;
    conn.end().await;
    got.map(|r| r.msg).map_err(|e| probe_failure(&e))
}

fn asked_version(msg: &Message) -> String {
    msg.params()
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn probe_failure(e: &WaitError) -> String {
    match e {
        WaitError::Timeout => {
            "the client sent no request: did it start, and connect to the server it was given?"
                .to_owned()
        }
        other => format!("the client sent no request: {}", wait_error_text(other)),
    }
}
