//! Loading a scenario file, in passes (STYLE.md "load in passes"):
//!
//! 1. **parse** — YAML text → [`Node`] tree with positions ([`crate::yaml`]);
//! 2. **build and validate** — the tree → the typed model, checking the
//!    contract of `scenarios/README.md` node by node, so every error points
//!    at the offending node ([`reader`], [`steps`], [`crate::matcher`]),
//!    requirement ids included: each is in the engine's catalogue and
//!    applies to a version it runs at ([`requirements`]);
//! 3. **resolve** — `handshake`/`all` → concrete versions and transports,
//!    defaults filled in, cross-step references checked: labels named by
//!    `response_to`, and variables ([`scope`]).
//!
//! Checks that need more than one file (id ↔ path, duplicate ids) live in
//! [`crate::corpus`].

mod http;
mod iterate;
pub(crate) mod keys;
pub(crate) mod reader;
mod requirements;
mod scope;
mod steps;
mod waits;

use crate::error::ScenarioError;
use crate::model::{Requires, Scenario, SessionMode, Source, TransportKind};
use crate::yaml::{Kind, Node, Pos};
use mcpspec_engine::{Level, Version};
use reader::Ctx;

/// Parse and validate one scenario file. `path_label` names it in errors and
/// in [`Scenario::source`]. The id is checked for form, not against the
/// path (that is [`crate::load_dir`]'s job).
pub fn parse(path_label: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let ctx = Ctx::new(path_label, text);
    let root = ctx.parse_yaml()?;
    let s = scenario(&ctx, &root)?;
    scope::check(&s, text)?;
    Ok(s)
}

fn scenario(ctx: &Ctx, root: &Node) -> Result<Scenario, ScenarioError> {
    let mut f = ctx.map(root, "a scenario file")?;
    let what = "the scenario";

    let id_node = f.require(ctx, "id", what)?;
    let id = ctx.str(id_node, "`id`")?;
    check_id(id).map_err(|m| ctx.err(id_node.at, m))?;

    let title_node = f.require(ctx, "title", what)?;
    let title = ctx.nonempty_str(title_node, "`title`")?.trim();
    if title.contains('\n') {
        return Err(ctx.err(title_node.at, "`title` must be one line"));
    }

    let req_node = f.require(ctx, "requirements", what)?;
    let named = requirement_list(ctx, req_node)?;

    let level = level(ctx, f.require(ctx, "level", what)?)?;

    let versions = match f.take("versions") {
        Some(n) => versions(ctx, n)?,
        None => keys::VERSION_SETS[0].1.to_vec(),
    };
    let transports = match f.take("transports") {
        Some(n) => transports(ctx, n)?,
        None => TransportKind::ALL.to_vec(),
    };
    let session = match f.take("session") {
        None => SessionMode::ALL[0],
        Some(n) => session(ctx, n)?,
    };
    let requires_at = f.key_at("requires");
    let requires = match f.take("requires") {
        None => Requires::default(),
        Some(n) => {
            let r = requires(ctx, n)?;
            // `auth` is learnt over HTTP, not from a handshake: fresh is fine.
            let negotiated = !r.capabilities.is_empty() || r.http_session;
            if session == SessionMode::Fresh && negotiated {
                return Err(ctx.err(
                    requires_at.unwrap_or(n.at),
                    "`requires` cannot be used with `session: fresh` (nothing is negotiated before the steps; only `requires.auth` is learnt over HTTP)",
                ));
            }
            r
        }
    };
    let client_capabilities = match f.take("client_capabilities") {
        None => serde_json::Value::Object(serde_json::Map::new()),
        Some(n) => client_capabilities(ctx, id, n)?,
    };
    let extension = f.take("extension").map(|n| extension(ctx, n)).transpose()?;
    let auth_at = f.key_at("auth");
    let auth = f.take("auth").map(|n| auth(ctx, id, n)).transpose()?;
    let timeout = f
        .take("timeout")
        .map(|n| ctx.duration(n, "`timeout`"))
        .transpose()?;
    let isolate = f
        .take("isolate")
        .map(|n| ctx.bool(n, "`isolate`"))
        .transpose()?
        .unwrap_or(false);
    let notes = f
        .take("notes")
        .map(|n| ctx.str(n, "`notes`").map(|s| s.trim_end().to_owned()))
        .transpose()?;

    let steps_node = f.require(ctx, "steps", what)?;
    f.finish(ctx, "the scenario", &keys::TOP.names())?;
    for (id, at) in &named {
        requirements::check(ctx, *at, id, &versions, extension)?;
    }
    let requirements = named.into_iter().map(|(id, _)| id.to_owned()).collect();
    let step_nodes = ctx.seq(steps_node, "`steps`")?;
    if step_nodes.is_empty() {
        return Err(ctx.err(steps_node.at, "`steps` needs at least one step"));
    }
    let mut labels = Vec::new();
    let steps = step_nodes
        .iter()
        .map(|n| steps::step(ctx, n, &versions, extension, &mut labels))
        .collect::<Result<Vec<_>, _>>()?;
    check_http_only(ctx, &steps, &transports, &requires, requires_at)?;
    check_role(ctx, id, &steps)?;
    if let (Some(_), Some(at)) = (&auth, auth_at) {
        if transports != [TransportKind::Http] {
            return Err(ctx.err(
                at,
                "`auth` protects the Streamable HTTP endpoint: the scenario must say `transports: [http]`",
            ));
        }
    }

    Ok(Scenario {
        id: id.to_owned(),
        title: title.to_owned(),
        requirements,
        level,
        versions,
        transports,
        session,
        requires,
        client_capabilities,
        extension,
        auth,
        timeout,
        isolate,
        notes,
        steps,
        source: Source {
            path: ctx.file.to_owned(),
            line: root.at.line,
            column: root.at.column,
        },
        id_at: ctx.loc(id_node.at),
    })
}

/// `server/...` or `client/...`: lowercase `[a-z0-9-]` segments joined by `/`.
fn check_id(id: &str) -> Result<(), String> {
    let segments: Vec<&str> = id.split('/').collect();
    let bad_segment = segments.iter().find(|s| {
        s.is_empty()
            || !s
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    });
    if let Some(s) = bad_segment {
        return Err(format!(
            "invalid id {id:?}: segment {s:?} must be non-empty lowercase letters, digits and `-`"
        ));
    }
    if segments.len() < 2 || !keys::ID_ROLES.contains(&segments[0]) {
        return Err(format!(
            "invalid id {id:?}: it starts with `server/` or `client/` and names the scenario below it"
        ));
    }
    Ok(())
}

/// The ids of `requirements:`, each with where it is written (checked
/// against the catalogue once the scenario's versions are known).
fn requirement_list<'n>(ctx: &Ctx, node: &'n Node) -> Result<Vec<(&'n str, Pos)>, ScenarioError> {
    let items = ctx.seq(node, "`requirements` (requirement ids from the catalogue)")?;
    if items.is_empty() {
        return Err(ctx.err(node.at, "`requirements` needs at least one requirement id"));
    }
    let mut out: Vec<(&str, Pos)> = Vec::new();
    for item in items {
        let id = ctx.nonempty_str(item, "a requirement id")?;
        if out.iter().any(|(o, _)| *o == id) {
            return Err(ctx.err(item.at, format!("requirement {id:?} is listed twice")));
        }
        out.push((id, item.at));
    }
    Ok(out)
}

/// `extension:` — the name of a known opt-in extension.
fn extension(ctx: &Ctx, node: &Node) -> Result<&'static str, ScenarioError> {
    let known = mcpspec_engine::extension::known();
    let text = ctx.str(node, &format!("`extension` ({known})"))?;
    mcpspec_engine::extension::extension(text)
        .map(|e| e.name)
        .ok_or_else(|| {
            ctx.err(
                node.at,
                format!("unknown extension {text:?} (known: {known})"),
            )
        })
}

fn session(ctx: &Ctx, node: &Node) -> Result<SessionMode, ScenarioError> {
    let names: Vec<&str> = SessionMode::ALL.iter().map(|m| m.as_str()).collect();
    let expected = keys::one_of(&names);
    let text = ctx.str(node, &format!("`session` ({expected})"))?;
    SessionMode::ALL
        .into_iter()
        .find(|m| m.as_str() == text)
        .ok_or_else(|| {
            ctx.err(
                node.at,
                format!("unknown session {text:?} (expected {expected})"),
            )
        })
}

pub(crate) fn level(ctx: &Ctx, node: &Node) -> Result<Level, ScenarioError> {
    let names: Vec<&str> = keys::LEVELS.iter().map(|l| l.as_str()).collect();
    let expected = format!("`level` must be {}", keys::one_of(&names));
    match &node.kind {
        Kind::String(s) => keys::LEVELS
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| ctx.err(node.at, format!("{expected}, found {s:?}"))),
        other => Err(ctx.err(node.at, format!("{expected}, found {}", other.describe()))),
    }
}

/// `handshake` | `all` | a version | a list of versions.
pub(crate) fn versions(ctx: &Ctx, node: &Node) -> Result<Vec<Version>, ScenarioError> {
    let one = |n: &Node| -> Result<Version, ScenarioError> {
        let text = ctx.str(n, "a protocol version")?;
        text.parse::<Version>()
            .map_err(|e| ctx.err(n.at, e.to_string()))
    };
    let keyword = |s: &str| keys::VERSION_SETS.iter().find(|(k, _)| *k == s);
    match &node.kind {
        Kind::String(s) => match keyword(s) {
            Some((_, set)) => Ok(set.to_vec()),
            None => Ok(vec![one(node)?]),
        },
        Kind::Seq(items) => {
            if items.is_empty() {
                return Err(ctx.err(node.at, "`versions` needs at least one version"));
            }
            let mut out = Vec::new();
            for item in items {
                let v = one(item)?;
                if out.contains(&v) {
                    return Err(ctx.err(item.at, format!("version {v} is listed twice")));
                }
                out.push(v);
            }
            Ok(out)
        }
        other => Err(ctx.err(
            node.at,
            format!(
                "`versions` must be handshake, all or a list of versions, found {}",
                other.describe()
            ),
        )),
    }
}

fn transports(ctx: &Ctx, node: &Node) -> Result<Vec<TransportKind>, ScenarioError> {
    if matches!(&node.kind, Kind::String(s) if s == keys::ALL_TRANSPORTS) {
        return Ok(TransportKind::ALL.to_vec());
    }
    let names = keys::transport_names();
    let items = ctx.seq(
        node,
        &format!(
            "`transports` ({}, or a list of {})",
            keys::ALL_TRANSPORTS,
            names.join(", ")
        ),
    )?;
    if items.is_empty() {
        return Err(ctx.err(node.at, "`transports` needs at least one transport"));
    }
    let mut out = Vec::new();
    for item in items {
        let name = ctx.str(item, "a transport")?;
        let Some(t) = TransportKind::ALL.into_iter().find(|t| t.as_str() == name) else {
            return Err(ctx.err(
                item.at,
                format!(
                    "unknown transport {name:?} (expected {})",
                    keys::one_of(&names)
                ),
            ));
        };
        if out.contains(&t) {
            return Err(ctx.err(item.at, format!("transport {t} is listed twice")));
        }
        out.push(t);
    }
    Ok(out)
}

/// `http` steps and `requires.http_session` make sense only over HTTP.
fn check_http_only(
    ctx: &Ctx,
    steps: &[crate::model::Step],
    transports: &[TransportKind],
    requires: &Requires,
    requires_at: Option<crate::yaml::Pos>,
) -> Result<(), ScenarioError> {
    let stdio = transports.contains(&TransportKind::Stdio);
    if let Some(step) = steps.iter().find(|s| s.key() == "http") {
        if stdio {
            let at = crate::yaml::Pos {
                line: step.at.line,
                column: step.at.column,
            };
            return Err(ctx.err(
                at,
                "an `http` step runs only over HTTP: give the scenario `transports: [http]`, `[sse]` or `[http, sse]`",
            ));
        }
    }
    let cuts = |s: &&crate::model::Step| matches!(&s.kind, crate::model::StepKind::Reply(r) if r.cut_stream.is_some());
    if let Some(step) = steps.iter().find(cuts) {
        if transports != [TransportKind::Http] {
            let at = crate::yaml::Pos {
                line: step.at.line,
                column: step.at.column,
            };
            return Err(ctx.err(
                at,
                "`reply.cut_stream` cuts a Streamable HTTP response stream: give the scenario `transports: [http]`",
            ));
        }
    }
    if requires.auth.is_some() && transports != [TransportKind::Http] {
        return Err(ctx.err(
            requires_at.unwrap_or(crate::yaml::Pos { line: 1, column: 1 }),
            "`requires.auth` is about a Streamable HTTP server's authorization: give the scenario `transports: [http]`",
        ));
    }
    if requires.http_session && transports != [TransportKind::Http] {
        return Err(ctx.err(
            requires_at.unwrap_or(crate::yaml::Pos { line: 1, column: 1 }),
            "`requires.http_session` is about Streamable HTTP sessions: give the scenario `transports: [http]`",
        ));
    }
    Ok(())
}

/// Steps that make sense for one role only: the harness answers a client's
/// requests (`reply`) only when it plays the server, and explores a
/// server's listings (`discover`, `repeat_until`) or builds HTTP requests
/// (`http`) only when it plays the client.
fn check_role(ctx: &Ctx, id: &str, steps: &[crate::model::Step]) -> Result<(), ScenarioError> {
    use crate::model::{ReplyAnswer, Selector, StepKind};
    let client = id.starts_with("client/");
    for step in steps {
        let wrong = match &step.kind {
            StepKind::Reply(r) if !client && r.cut_stream.is_some() => Some(
                "`reply.cut_stream` cuts the harness's own response stream: only client scenarios (`client/...`) serve one",
            ),
            StepKind::Reply(r) if !client && matches!(r.answer, ReplyAnswer::Fixture) => Some(
                "`reply` without `result` or `error` answers as the harness's fixture server: only client scenarios (`client/...`) have one; give the answer",
            ),
            StepKind::Discover(_) | StepKind::RepeatUntil(_) | StepKind::Http(_) if client => Some(
                "this step explores a server: client scenarios (`client/...`) cannot use it",
            ),
            StepKind::ExpectNoFetch(_) if !client => Some(
                "`expect_no_fetch` judges what a client fetches: only client scenarios (`client/...`) have a canary URL",
            ),
            StepKind::Expect(e)
                if !client && matches!(&e.selector, Selector::Request(m) if m == Selector::ANY_METHOD) =>
            {
                Some("`request: \"*\"` (any request) is for client scenarios (`client/...`)")
            }
            _ => None,
        };
        if let Some(msg) = wrong {
            let at = crate::yaml::Pos {
                line: step.at.line,
                column: step.at.column,
            };
            return Err(ctx.err(at, msg));
        }
    }
    Ok(())
}

/// `client_capabilities`: a map, declared by the harness as the client of a
/// server under test (so only in `server/...` scenarios).
fn client_capabilities(
    ctx: &Ctx,
    id: &str,
    node: &Node,
) -> Result<serde_json::Value, ScenarioError> {
    if id.starts_with("client/") {
        return Err(ctx.err(
            node.at,
            "`client_capabilities` is what the harness declares as a client: only server scenarios (`server/...`) have it",
        ));
    }
    match node.to_json() {
        v @ serde_json::Value::Object(_) => Ok(v),
        _ => Err(ctx.err(
            node.at,
            format!(
                "`client_capabilities` must be a map (capability name → object), not {}",
                node.kind.describe()
            ),
        )),
    }
}

/// `auth`: the protected mode of a client scenario.
fn auth(ctx: &Ctx, id: &str, node: &Node) -> Result<crate::AuthScript, ScenarioError> {
    if !id.starts_with("client/") {
        return Err(ctx.err(
            node.at,
            "`auth` scripts the authorization server a client under test meets: only client scenarios (`client/...`) have it",
        ));
    }
    let mut f = ctx.map(node, "`auth`")?;
    let mut script = crate::AuthScript::default();
    use crate::AuthScript as A;
    let slots: [(&str, &[&str], &mut String); 15] = [
        (
            "metadata_hint",
            A::METADATA_HINT_CHOICES,
            &mut script.metadata_hint,
        ),
        (
            "prm_resource",
            A::PRM_RESOURCE_CHOICES,
            &mut script.prm_resource,
        ),
        ("iss", A::ISS_CHOICES, &mut script.iss),
        (
            "iss_support",
            A::ISS_SUPPORT_CHOICES,
            &mut script.iss_support,
        ),
        ("state", A::STATE_CHOICES, &mut script.state),
        ("token_auth", A::TOKEN_AUTH_CHOICES, &mut script.token_auth),
        (
            "as_metadata",
            A::AS_METADATA_CHOICES,
            &mut script.as_metadata,
        ),
        ("token_use", A::TOKEN_USE_CHOICES, &mut script.token_use),
        ("as_issuer", A::AS_ISSUER_CHOICES, &mut script.as_issuer),
        ("as_pkce", A::AS_PKCE_CHOICES, &mut script.as_pkce),
        (
            "refresh_token",
            A::REFRESH_TOKEN_CHOICES,
            &mut script.refresh_token,
        ),
        (
            "registration",
            A::REGISTRATION_CHOICES,
            &mut script.registration,
        ),
        ("cimd", A::CIMD_CHOICES, &mut script.cimd),
        ("migration", A::MIGRATION_CHOICES, &mut script.migration),
        (
            "scopes_supported",
            A::SCOPES_SUPPORTED_CHOICES,
            &mut script.scopes_supported,
        ),
    ];
    for (key, choices, slot) in slots {
        if let Some(n) = f.take(key) {
            let word = ctx.str(n, "a word")?;
            if !choices.contains(&word) {
                return Err(ctx.err(
                    n.at,
                    format!(
                        "`auth.{key}` must be one of {}, not {word:?}",
                        choices.join(", ")
                    ),
                ));
            }
            *slot = word.to_owned();
        }
    }
    script.scope = f
        .take("scope")
        .map(|n| ctx.nonempty_str(n, "`auth.scope`").map(str::to_owned))
        .transpose()?;
    script.step_up = f
        .take("step_up")
        .map(|n| ctx.nonempty_str(n, "`auth.step_up`").map(str::to_owned))
        .transpose()?;
    f.finish(ctx, "`auth`", &keys::AUTH.names())?;
    Ok(script)
}

fn requires(ctx: &Ctx, node: &Node) -> Result<Requires, ScenarioError> {
    let mut f = ctx.map(node, "`requires`")?;
    let mut capabilities = Vec::new();
    if let Some(n) = f.take("capabilities") {
        for item in ctx.seq(n, "`requires.capabilities` (dotted capability paths)")? {
            let path = ctx.nonempty_str(item, "a capability path")?;
            if path.split('.').any(str::is_empty) {
                return Err(ctx.err(item.at, format!("invalid capability path {path:?}")));
            }
            capabilities.push(path.to_owned());
        }
    }
    let http_session = f
        .take("http_session")
        .map(|n| ctx.bool(n, "`requires.http_session`"))
        .transpose()?
        .unwrap_or(false);
    let auth = match f.take("auth") {
        None => None,
        Some(n) => {
            let word = ctx.nonempty_str(n, "`requires.auth`")?;
            let gate = crate::model::AuthGate::ALL
                .into_iter()
                .find(|g| g.as_str() == word);
            match gate {
                Some(g) => Some(g),
                None => {
                    return Err(ctx.err(
                        n.at,
                        format!(
                            "`requires.auth` is protected, token or other_audience, not {word:?}"
                        ),
                    ))
                }
            }
        }
    };
    f.finish(ctx, "`requires`", &keys::REQUIRES.names())?;
    Ok(Requires {
        capabilities,
        http_session,
        auth,
    })
}

#[cfg(test)]
mod tests {
    use super::check_id;

    #[test]
    fn ids() {
        assert!(check_id("server/lifecycle/init-1").is_ok());
        assert!(check_id("client/roots").is_ok());
        for bad in [
            "server",
            "Server/x",
            "server//x",
            "other/x",
            "server/x_y",
            "server/x/",
        ] {
            assert!(check_id(bad).is_err(), "{bad}");
        }
    }
}
