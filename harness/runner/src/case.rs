//! Playing one case: start the target, perform the handshake (for
//! `initialized` scenarios), run the steps, and turn what happened into a
//! [`CaseResult`].
//!
//! ```text
//!  spawn ─► [handshake ─► requires?] ─► steps… ─► shutdown ─► findings ─► outcome
//!              │              │           │
//!              │        not applicable    ├─ a MUST step failed: stop here
//!              └─ other version:          └─ Stop::{NotApplicable, Error}
//!                 not applicable
//! ```
//!
//! Step findings carry the step's (or the scenario's) requirement and level;
//! the engine's violations are added at the end with their own.

use std::sync::Arc;
use std::time::Duration;

use crate::target::Target;
use mcpspec_engine::{ids, Level, Requirement, Version};
use mcpspec_scenario::{Bindings, Scenario, SessionMode, Step};
use mcpspec_wire::{Id, Message};
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::conn::{Conn, WaitError};
use crate::outcome::{Blame, CaseResult, Finding, FindingSource, Outcome};
use crate::plan::Case;
use crate::steps;

mod verdict;

pub use verdict::oracle_findings;
use verdict::undecided;
pub(crate) use verdict::{finish, settle};

/// The requirement behind the runner's own handshake: a server answers an
/// `initialize` for a version it offers (the probe saw it do so) with a result.
pub const HANDSHAKE_REQUIREMENT: &Requirement = &ids::LIFECYCLE_INITIALIZE_RESULT_SHAPE;

/// Settings shared by every case of a run.
#[derive(Debug, Clone)]
pub struct CaseConfig {
    pub target: Target,
    /// Default wait for one expected message.
    pub step_timeout: Duration,
    /// Hard limit for one case (a scenario's `timeout` overrides it), on
    /// top of the start-up allowance.
    pub case_timeout: Duration,
    /// How long a fresh target may take to write its first line; waits
    /// before that are extended to it (see `Conn::wait_for`).
    pub startup_timeout: Duration,
    pub max_line: usize,
    /// Tokens for authorization cases (`requires.auth`); the token itself
    /// already travels in the target's headers.
    pub auth: crate::server_auth::AuthTokens,
}

/// Why the steps stopped early.
pub enum Stop {
    NotApplicable(String),
    Error(Blame, String),
    /// A MUST check failed; later steps would only cascade.
    Failed,
    /// The target broke another rule (`by`, at `level`) before the case
    /// reached what it checks; that finding is recorded ([`Ctx::block`]).
    Blocked {
        by: String,
        level: Level,
    },
}

/// State threaded through the steps of one case.
pub struct Ctx<'a> {
    pub conn: Conn,
    pub vars: Bindings,
    pub findings: Vec<Finding>,
    pub scenario: &'a Scenario,
    pub version: Version,
    pub cfg: &'a CaseConfig,
    /// The case's canary URL endpoint (client scenarios with
    /// `expect_no_fetch`); stopped when the case ends.
    pub canary: Option<crate::canary::Canary>,
    /// The case's scripted authorization server (client scenarios with
    /// `auth:`), bound as `${auth}` before every step.
    pub auth: Option<std::sync::Arc<crate::auth::ScriptedAuth>>,
}

impl<'a> Ctx<'a> {
    /// The context of `case` on `conn`: `version` and `transport` bound,
    /// nothing found yet.
    pub(crate) fn new(
        conn: Conn,
        case: &'a Case,
        cfg: &'a CaseConfig,
        auth: Option<std::sync::Arc<crate::auth::ScriptedAuth>>,
    ) -> Self {
        let mut ctx = Ctx {
            conn,
            vars: Bindings::default(),
            findings: Vec::new(),
            scenario: &case.scenario,
            version: case.version,
            cfg,
            canary: None,
            auth,
        };
        ctx.vars.set("version", Value::from(case.version.as_str()));
        bind_transport(&mut ctx);
        ctx
    }

    /// Records a failed check of `step` (or of the handshake when `None`).
    pub fn fail(
        &mut self,
        step: Option<(usize, &Step)>,
        expected: Vec<String>,
        actual: String,
    ) -> Level {
        let req_id = self.requirement_of(step);
        let level = self.level_of(step);
        self.fail_as(step, &req_id, level, expected, actual)
    }

    /// The requirement a failure of `step` is reported under ([`Ctx::fail`]):
    /// the step's own, else the scenario's first; the handshake's (no step).
    pub fn requirement_of(&self, step: Option<(usize, &Step)>) -> String {
        match step {
            Some((_, st)) => st.requirement.clone().unwrap_or_else(|| {
                self.scenario
                    .requirements
                    .first()
                    .cloned()
                    .unwrap_or_default()
            }),
            None => HANDSHAKE_REQUIREMENT.id.to_owned(),
        }
    }

    /// The level a failure of `step` is reported at ([`Ctx::fail`]): the
    /// step's own, else the scenario's; the handshake's (no step) is a MUST.
    pub fn level_of(&self, step: Option<(usize, &Step)>) -> Level {
        match step {
            Some((_, st)) => st.level.unwrap_or(self.scenario.level),
            None => Level::Must,
        }
    }

    /// Whether the scenario checks `req` itself (names it among its
    /// requirements): a violation of it is the case's own finding, not a
    /// block.
    pub fn owns(&self, req: &Requirement) -> bool {
        self.scenario.requirements.iter().any(|r| r == req.id)
    }

    /// The target broke `req` — a rule the scenario does not check — on the
    /// way to what the scenario checks: records that finding at its own
    /// level and stops the case as blocked by it. One cause, one finding,
    /// never a second violation under the scenario's requirement.
    pub fn block(
        &mut self,
        step: Option<(usize, &Step)>,
        req: &'static Requirement,
        expected: Vec<String>,
        actual: String,
    ) -> Stop {
        let level = self.fail_as(step, req.id, req.level, expected, actual);
        Stop::Blocked {
            by: req.id.to_owned(),
            level,
        }
    }

    /// Records a failed check under an explicit requirement and level.
    pub fn fail_as(
        &mut self,
        step: Option<(usize, &Step)>,
        req_id: &str,
        level: Level,
        expected: Vec<String>,
        actual: String,
    ) -> Level {
        let req_id = req_id.to_owned();
        let title = &self.scenario.title;
        let (url, summary) = match mcpspec_engine::lookup(&req_id) {
            Some(r) => (r.url(self.version), r.summary.to_owned()),
            None => (String::new(), title.clone()),
        };
        let location = step.map(|(i, st)| {
            format!(
                "{}:{}:{} (step {}: {})",
                st.at.file,
                st.at.line,
                st.at.column,
                i + 1,
                steps::describe(&st.kind)
            )
        });
        self.conn.note(format!("check failed: {actual}"));
        self.findings.push(Finding {
            requirement: req_id,
            level,
            spec_url: url,
            summary,
            expected,
            actual,
            location,
            source: FindingSource::Step,
        });
        level
    }
}

/// Binds `transport`: its kind, and over HTTP the URL, the legacy POST
/// endpoint and the session id (once issued).
fn bind_transport(ctx: &mut Ctx<'_>) {
    use mcpspec_transport::Connection;
    let mut t = serde_json::Map::new();
    t.insert("kind".into(), json!(ctx.conn.transport().as_str()));
    match ctx.conn.connection_ref() {
        Connection::Stdio(_) | Connection::Peer(_) => {}
        Connection::Http(s) => {
            t.insert("url".into(), json!(s.url()));
            if let Some(id) = s.session_id() {
                t.insert("session_id".into(), json!(id));
            }
        }
        Connection::Sse(s) => {
            t.insert("url".into(), json!(s.sse_url()));
            t.insert("endpoint".into(), json!(s.endpoint()));
        }
    }
    ctx.vars.set("transport", Value::Object(t));
}

/// A future on the heap (issue #18). An `async fn` holds what it awaits
/// inline, so a caller's state is as large as the largest path through all
/// it may await; every case that runs, and every task the run keeps until
/// it ends, was that large. The entry points below (the ones
/// [`crate::shared`] and the retries await) box what they run: a caller
/// holds a pointer, the case's own state lives only while it runs.
pub type Boxed<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Runs one case to completion (bounded by its timeout).
pub fn run_case<'a>(case: &'a Case, cfg: &'a CaseConfig) -> Boxed<'a, CaseResult> {
    Box::pin(run_case_inner(case, cfg))
}

async fn run_case_inner(case: &Case, cfg: &CaseConfig) -> CaseResult {
    let started = Instant::now();
    let scenario = &*case.scenario;
    let limit = scenario.timeout.unwrap_or(cfg.case_timeout) + cfg.startup_timeout;
    let mut result = CaseResult {
        id: case.id.clone(),
        scenario: scenario.id.clone(),
        title: scenario.title.clone(),
        version: case.version,
        level: scenario.level,
        requirements: scenario.requirement_ids(),
        outcome: Outcome::Pass,
        findings: Vec::new(),
        duration: Duration::ZERO,
        transcript: Vec::new(),
    };
    if let Some(reason) = scenario.auth.as_ref().and_then(|a| uncredentialed(a, cfg)) {
        result.outcome = Outcome::NotApplicable { reason };
        return result;
    }
    let auth = scenario
        .auth
        .clone()
        .filter(|_| cfg.target.is_client())
        .map(|script| crate::auth::ScriptedAuth::new(script, case.version));
    let gate = auth
        .clone()
        .map(|a| a as std::sync::Arc<dyn mcpspec_transport::Gate>);
    let proc = match cfg
        .target
        .connect_gated(cfg.max_line, cfg.startup_timeout, gate)
        .await
    {
        Ok(p) => p,
        Err(message) => {
            result.outcome = Outcome::Error {
                blame: Blame::Target,
                message,
            };
            return result;
        }
    };
    let conn = if cfg.target.is_client() {
        Conn::serving(proc, case.version, cfg.startup_timeout)
    } else {
        let mut conn = Conn::new(proc, case.version, cfg.startup_timeout);
        conn.declare_client_capabilities(scenario.client_capabilities.clone());
        conn
    };
    let mut ctx = Ctx::new(conn, case, cfg, auth);
    if scenario.uses_canary() {
        match crate::canary::Canary::start() {
            Ok(canary) => {
                crate::canary::bind(&mut ctx, &canary);
                ctx.canary = Some(canary);
            }
            Err(e) => ctx
                .conn
                .note(format!("the canary endpoint could not be started: {e}")),
        }
    }

    let stop = match tokio::time::timeout(limit, play(&mut ctx)).await {
        Ok(stop) => stop,
        Err(_) => Some(Stop::Error(
            Blame::Target,
            format!(
                "the case did not finish within its {}s limit",
                limit.as_secs_f64()
            ),
        )),
    };
    let (outcome, findings) = finish(&mut ctx, stop).await;
    result.outcome = outcome;
    result.findings = findings;
    result.transcript = ctx.conn.take_transcript();
    result.duration = started.elapsed();
    result
}

/// Why a client case whose authorization server registered the client
/// beforehand cannot run: the client's command line has no `{client_id}`,
/// so the harness has no way to hand it its static credentials (a client
/// that supports them is told how in the README).
fn uncredentialed(script: &mcpspec_scenario::AuthScript, cfg: &CaseConfig) -> Option<String> {
    let Target::Client(c) = &cfg.target else {
        return None;
    };
    (script.registration == "preregistered" && !c.takes_client_id()).then(|| {
        "the client's command line has no {client_id} (and {client_secret}) placeholder: \
         the harness cannot hand it the static credentials of a pre-registered client"
            .to_owned()
    })
}

async fn play(ctx: &mut Ctx<'_>) -> Option<Stop> {
    if let Some(gate) = ctx.scenario.requires.auth {
        if let Err(stop) = crate::server_auth::gate(ctx, gate).await {
            return Some(stop);
        }
    }
    if ctx.scenario.session == SessionMode::Initialized {
        if let Err(stop) = open_session(ctx).await {
            return Some(stop);
        }
    }
    play_steps(ctx).await
}

/// The opening of an `initialized` case: the handshake (serving a client,
/// the client's), or at 2026-07-28 `server/discover`.
pub(crate) fn open_session<'a>(ctx: &'a mut Ctx<'_>) -> Boxed<'a, Result<(), Stop>> {
    Box::pin(open_session_inner(ctx))
}

async fn open_session_inner(ctx: &mut Ctx<'_>) -> Result<(), Stop> {
    if ctx.cfg.target.is_client() {
        crate::client::serve_handshake(ctx).await
    } else if ctx.version.lifecycle() == mcpspec_engine::Lifecycle::Stateless {
        crate::stateless::discover(ctx).await
    } else {
        handshake(ctx).await
    }
}

/// The scenario's steps (those of the case's version), in order, until
/// one stops the case.
pub(crate) fn play_steps<'a>(ctx: &'a mut Ctx<'_>) -> Boxed<'a, Option<Stop>> {
    Box::pin(play_steps_inner(ctx))
}

async fn play_steps_inner(ctx: &mut Ctx<'_>) -> Option<Stop> {
    let serving = ctx.cfg.target.is_client();
    for (i, step) in ctx.scenario.steps.iter().enumerate() {
        if let Some(vs) = &step.versions {
            if !vs.contains(&ctx.version) {
                continue;
            }
        }
        observe_auth(ctx);
        if serving {
            let holds = crate::client::held_methods(ctx.scenario, i, ctx.version);
            ctx.conn.hold(holds).await;
        }
        if let Err(stop) = steps::run(ctx, i, step).await {
            return Some(stop);
        }
    }
    // Every step held; the oracle may still have left the case's own rule
    // undecided (checked again at the end, for what the ending reads).
    undecided(ctx, &ctx.findings)
}

/// Brings `${auth}` up to date with what the scripted authorization server
/// saw, and hands the oracle the exchanges it has not judged yet.
pub(crate) fn observe_auth(ctx: &mut Ctx<'_>) {
    if let Some(auth) = &ctx.auth {
        let seen = auth.snapshot();
        ctx.vars.set("auth", seen);
    }
    crate::auth::feed(ctx);
}

/// Sends the request that opens a case (initialize, or at 2026-07-28
/// server/discover) and waits for its answer: the result or error object.
/// Silence is an error blamed on the host, not a failure (the probe got an
/// answer to this very request, so a slow start or an overloaded machine is
/// the likelier cause); anything else but an answer fails `unanswered`.
pub(crate) async fn opening_request(
    ctx: &mut Ctx<'_>,
    msg: &Message,
    id: &Id,
    unanswered: &'static Requirement,
) -> Result<Result<Value, mcpspec_wire::ErrorObject>, Stop> {
    let method = match msg {
        Message::Request(r) => r.method.clone(),
        other => other.describe(),
    };
    let seen = ctx.conn.violations().len();
    ctx.conn
        .send(msg)
        .await
        .map_err(|e| Stop::Error(Blame::Target, e))?;
    let within = ctx.cfg.step_timeout;
    let answer = ctx
        .conn
        .wait_for_prompt(within, |m| is_response_to(m, id))
        .await;
    if let (Err(WaitError::Invalid), Some(cause)) = (&answer, broken_since(ctx, seen)) {
        // What the target sent broke a rule the oracle has recorded: that
        // is the one finding, and the answer it kept from us no second
        // violation. The case is blocked by it, or failed by it when it is
        // the scenario's own rule.
        if ctx.owns(cause) {
            return Err(Stop::Failed);
        }
        return Err(Stop::Blocked {
            by: cause.id.to_owned(),
            level: cause.level,
        });
    }
    match answer.map(|r| r.msg) {
        Ok(Message::Response(r)) => Ok(r.outcome),
        Ok(other) => {
            // `wait_for` only hands back what the predicate accepted: a response.
            ctx.fail(
                None,
                vec![format!("a response to {method}")],
                other.describe(),
            );
            Err(Stop::Failed)
        }
        Err(WaitError::Timeout) => Err(Stop::Error(
            Blame::Target,
            format!(
                "no answer to {method} within {}ms (after a start-up allowance of {}ms), \
                 although the probe got one: the target is slow to start or the host is \
                 overloaded; try a longer --startup-timeout or --timeout, or fewer --jobs",
                within.as_millis(),
                ctx.cfg.startup_timeout.as_millis()
            ),
        )),
        Err(e) => {
            // Refused in a form the oracle judged (a 200 with text/plain), or
            // ended by an exit the oracle judges: that is the one finding.
            if let Some(stop) = steps::unreadable_stop(ctx, &e) {
                return Err(stop);
            }
            ctx.fail_as(
                None,
                unanswered.id,
                Level::Must,
                vec![format!(
                    "a response to {method} within {}ms",
                    within.as_millis()
                )],
                steps::wait_error_text(&e),
            );
            Err(Stop::Failed)
        }
    }
}

/// The gravest rule the target broke after the `seen`th recorded violation
/// (the first of that level): why a wait ended with
/// [`WaitError::Invalid`]. A MAY note is no cause.
fn broken_since(ctx: &Ctx<'_>, seen: usize) -> Option<&'static Requirement> {
    let since = ctx.conn.violations().get(seen..)?;
    let gravest = since.iter().map(|v| v.requirement.level).max()?;
    since
        .iter()
        .map(|v| v.requirement)
        .find(|r| r.level == gravest && r.level != Level::May)
}

/// The client side of the initialize handshake for `initialized` scenarios.
async fn handshake(ctx: &mut Ctx<'_>) -> Result<(), Stop> {
    let version = ctx.version.as_str();
    let id = ctx.conn.next_id();
    let init = Message::request(
        id.clone(),
        "initialize",
        Some(json!({
            "protocolVersion": version,
            "capabilities": ctx.scenario.client_capabilities,
            "clientInfo": { "name": "mcpspec", "version": env!("CARGO_PKG_VERSION") },
        })),
    );
    let result = match opening_request(ctx, &init, &id, &ids::JSONRPC_REQUEST_ANSWERED).await? {
        Ok(v) => v,
        Err(e) => {
            ctx.fail(
                None,
                vec![format!(
                    "a result for initialize with protocolVersion {version:?}"
                )],
                format!("error {} {:?}", e.code, e.message),
            );
            return Err(Stop::Failed);
        }
    };
    let answered = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if answered != version {
        return Err(Stop::NotApplicable(format!(
            "the target does not offer {version} (it answered {answered:?})"
        )));
    }
    bind_opening(ctx, Arc::new(result))?;
    let initialized = Message::notification("notifications/initialized", None);
    ctx.conn
        .send(&initialized)
        .await
        .map_err(|e| Stop::Error(Blame::Target, e))
}

/// Binds what the opening exchange taught (`init`, `capabilities`,
/// `transport`) and checks the scenario's gates against it.
pub(crate) fn bind_opening(ctx: &mut Ctx<'_>, result: Arc<Value>) -> Result<(), Stop> {
    let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
    bind_transport(ctx);
    // Bound before the gates: a shared target's next case needs them even
    // when this case's gate is unmet (`crate::shared`). Shared, not copied:
    // every case on a shared target binds the same result.
    ctx.vars.set_shared("init", result);
    ctx.vars.set("capabilities", caps.clone());
    check_requires(ctx, &caps)
}

/// The scenario's gates, once the target's capabilities are known.
pub(crate) fn check_requires(ctx: &mut Ctx<'_>, caps: &Value) -> Result<(), Stop> {
    if ctx.scenario.requires.http_session && ctx.conn.connection_ref().session_id().is_none() {
        return Err(Stop::NotApplicable(
            "the server issued no Mcp-Session-Id (sessions are optional, and so are their rules)"
                .to_owned(),
        ));
    }
    for path in &ctx.scenario.requires.capabilities {
        if !has_capability(caps, path) {
            return Err(Stop::NotApplicable(format!(
                "the target does not declare the `{path}` capability"
            )));
        }
    }
    Ok(())
}

pub fn is_response_to(m: &Message, id: &Id) -> bool {
    matches!(m, Message::Response(r) if r.id.as_ref() == Some(id))
}

/// A dotted capability path is declared when every segment exists and the
/// value is neither `null` nor `false`.
pub fn has_capability(caps: &Value, path: &str) -> bool {
    let mut v = caps;
    for seg in path.split('.') {
        match v.get(seg) {
            Some(next) => v = next,
            None => return false,
        }
    }
    !matches!(v, Value::Null | Value::Bool(false))
}

#[cfg(test)]
mod tests {
    use super::verdict::decide;
    use super::*;

    #[test]
    fn requirements_named_by_the_runner_are_catalogued() {
        // Named by string in conn.rs until it moves onto the oracle (the
        // rest of the runner names requirements by `ids`).
        for id in ["stdio.stdout-only-mcp", "stdio.newline-delimited"] {
            assert!(
                mcpspec_engine::lookup(id).is_some(),
                "{id} is not catalogued"
            );
        }
    }

    fn note(level: Level) -> Finding {
        Finding {
            requirement: "ping.respond".into(),
            level,
            spec_url: String::new(),
            summary: String::new(),
            expected: vec![],
            actual: String::new(),
            location: None,
            source: FindingSource::Oracle,
        }
    }

    #[test]
    fn broken_rules_decide_before_the_stop_reason() {
        let na = || Some(Stop::NotApplicable("none".into()));
        let err = || Some(Stop::Error(Blame::Scenario, "unbound".into()));
        assert_eq!(decide(na(), &[note(Level::Must)]), Outcome::Fail);
        assert_eq!(decide(err(), &[note(Level::Should)]), Outcome::Warn);
        assert!(matches!(
            decide(na(), &[note(Level::May)]),
            Outcome::NotApplicable { .. }
        ));
        assert!(matches!(
            decide(err(), &[note(Level::May)]),
            Outcome::Error { .. }
        ));
        assert_eq!(decide(None, &[note(Level::May)]), Outcome::Pass);
    }

    /// A case blocked by a rule is blocked while it broke none of its own
    /// (a MAY note is none); beside one, every finding weighs, the cause's
    /// too: a blocking MUST beside an own SHOULD is a failure, not a warning.
    #[test]
    fn a_block_weighs_beside_a_rule_of_the_cases_own() {
        let finding = |req: &str, level| Finding {
            requirement: req.into(),
            ..note(level)
        };
        let cause = finding("jsonrpc.request.answered", Level::Must);
        let blocked = || {
            Some(Stop::Blocked {
                by: "jsonrpc.request.answered".into(),
                level: Level::Must,
            })
        };
        let only = decide(blocked(), std::slice::from_ref(&cause));
        assert!(matches!(only, Outcome::Blocked { .. }), "{only:?}");
        let noted = decide(blocked(), &[cause.clone(), finding("own", Level::May)]);
        assert!(matches!(noted, Outcome::Blocked { .. }), "{noted:?}");
        let own = finding("jsonrpc.robustness.survives-invalid", Level::Should);
        assert_eq!(decide(blocked(), &[own.clone(), cause]), Outcome::Fail);
        let should = || {
            Some(Stop::Blocked {
                by: "x".into(),
                level: Level::Should,
            })
        };
        let cause = finding("x", Level::Should);
        assert_eq!(decide(should(), &[cause, own]), Outcome::Warn);
    }

    #[test]
    fn capability_paths() {
        let caps = json!({"tools": {}, "resources": {"subscribe": true, "listChanged": false}});
        assert!(has_capability(&caps, "tools"));
        assert!(has_capability(&caps, "resources.subscribe"));
        assert!(!has_capability(&caps, "resources.listChanged"));
        assert!(!has_capability(&caps, "prompts"));
        assert!(!has_capability(&Value::Null, "tools"));
    }
}
