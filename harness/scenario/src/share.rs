//! Which scenarios may share a stdio target with other cases
//! ([`Scenario::may_share`]), and the ids a case sends of its own choosing
//! ([`Scenario::fixed_ids`], which the runner keeps from repeating on a
//! shared session); the runner's `shared` module plays them, and
//! `scenarios/README.md` ("Sharing a target process") documents the rule.

use serde_json::Value;

use crate::model::{RawBytes, RawStep, Scenario, Selector, SessionMode, StepKind};

/// The requests a scenario may send and still share a session
/// ([`Scenario::may_share`]): they read, and leave no state in the session
/// that a later request could see. `tools/call` is among them: a tool that
/// changes the server's state is the exception a scenario marks with
/// `isolate: true` (and a case that fails on a shared session is run again
/// alone before its failure counts). A method the corpus invents (its name
/// holds `mcpspec`, which no specification method does) is refused as
/// unknown and leaves nothing either.
pub const SHAREABLE_METHODS: &[&str] = &[
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "server/discover",
];

/// The notifications a shared scenario may send: a cancellation (with no
/// `sleep` in the scenario, it cancels a request already answered, or one
/// nobody issued: the session goes on as before), and invented ones.
const SHAREABLE_NOTIFICATIONS: &[&str] = &["notifications/cancelled"];

/// The runner numbers its own requests from 1 on a session; a chosen id
/// in that range could repeat one an earlier case used on a shared session.
const RUNNER_IDS: u64 = 1 << 32;

/// A method name no version of the specification defines: the corpus
/// names what it invents with `mcpspec`.
fn invented(method: &str) -> bool {
    method.contains("mcpspec")
}

/// A request's id: the runner's, or a literal one the runner never numbers.
fn id_ok(id: &Option<crate::Template>) -> bool {
    match id {
        None => true,
        Some(t) => t.variables().is_empty() && id_apart(t.value()),
    }
}

/// A chosen id that can never be one the runner numbers.
fn id_apart(id: &Value) -> bool {
    !matches!(id.as_u64(), Some(n) if n < RUNNER_IDS)
}

/// The JSON texts a raw line would be read as, when it is one whole line
/// without templates: `None` when it is not (a split write, several lines,
/// `${..}`), else the ids it carries (none when it is no JSON).
fn raw_line_ids(raw: &RawStep) -> Option<Vec<Value>> {
    let mut bytes = match &raw.bytes {
        RawBytes::Text(text) if !text.contains("${") => text.as_bytes().to_vec(),
        RawBytes::Text(_) => return None,
        RawBytes::Hex(bytes) => bytes.clone(),
    };
    if raw.newline {
        bytes.push(b'\n');
    }
    let newlines = bytes.iter().filter(|b| **b == b'\n').count();
    if newlines != 1 || bytes.last() != Some(&b'\n') {
        return None;
    }
    let ids = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Array(items)) => items.iter().filter_map(|i| i.get("id").cloned()).collect(),
        Ok(v) => v.get("id").cloned().into_iter().collect(),
        Err(_) => Vec::new(),
    };
    Some(ids)
}

impl Scenario {
    /// Whether a case of this scenario may run on a target process and an
    /// initialised session it shares with other cases of the same version
    /// (stdio servers; `mcpspec server --isolate` turns sharing off).
    ///
    /// Inferred conservatively, so that no file has to opt in: only an
    /// `initialized` server scenario, not of an extension, with no
    /// `client_capabilities` of its own (the shared handshake declares
    /// none) and not marked `isolate: true`, whose every step leaves the
    /// session as it found it:
    ///
    /// - `send` of a method in [`SHAREABLE_METHODS`] or an invented one,
    ///   with the runner's id or a literal one the runner never numbers
    ///   (the runner also keeps one case's chosen ids from repeating
    ///   another's on the session: [`Scenario::fixed_ids`]); `discover` and
    ///   `repeat_until` over those methods;
    /// - `notify` of a cancellation or an invented notification;
    /// - `raw`: one whole line, no templates, whose ids (if it has any) the
    ///   runner never numbers (invalid requests, parse errors, CRLF);
    /// - `expect` of a response (`response_to`, `id`), `expect_silence`,
    ///   `assert`, `assume`.
    ///
    /// Anything that is about the handshake or the session's state (logging
    /// level, subscriptions, a second initialize, `notifications/initialized`),
    /// about the process (shutdown, exit, split writes), about notifications
    /// or requests the target sends, about time (`sleep`: an in-flight
    /// cancellation), or about traffic beside the session (`http`) needs a
    /// process of its own.
    pub fn may_share(&self) -> bool {
        let method_ok = |m: &str| SHAREABLE_METHODS.contains(&m) || invented(m);
        self.plays_on_a_shared_session()
            && self.steps.iter().all(|s| match &s.kind {
                StepKind::Send(send) => id_ok(&send.id) && method_ok(&send.method),
                StepKind::Discover(d) => method_ok(&d.list),
                StepKind::RepeatUntil(r) => method_ok(&r.send.method),
                StepKind::Notify { method, .. } => {
                    SHAREABLE_NOTIFICATIONS.contains(&method.as_str()) || invented(method)
                }
                StepKind::Raw(raw) => raw_line_ids(raw).is_some_and(|ids| ids.iter().all(id_apart)),
                StepKind::Expect(e) => {
                    matches!(e.selector, Selector::ResponseTo(_) | Selector::Id(_))
                }
                StepKind::ExpectSilence { .. } | StepKind::Assert { .. } => true,
                StepKind::Assume { .. } => true,
                _ => false,
            })
    }

    /// Whether a case of this scenario, which may not [share](Self::may_share)
    /// a session, may still *take* one: play on a target and an initialised
    /// session that shareable cases used before it (and left as they found
    /// it), after which the target is ended, never handed on.
    ///
    /// What such a case may do beyond a shareable one is change the
    /// session's state (any request but `initialize`, any notification but
    /// `notifications/initialized`) and take its time (`sleep`: an
    /// in-flight cancellation); what it may look at is still only answers
    /// to its own requests (by id) and silence, never a notification or
    /// request the target sends: one an earlier case caused could arrive
    /// late and be taken for this case's. A session that shareable cases
    /// used is then, for this case, as a fresh one: their requests changed
    /// nothing, each was answered, and what arrives late can only make the
    /// case fail, after which it is run again alone (the runner's rule for
    /// a case on a target another case used).
    pub fn may_take(&self) -> bool {
        let method_ok = |m: &str| m != "initialize";
        self.plays_on_a_shared_session()
            && self.steps.iter().all(|s| match &s.kind {
                StepKind::Send(send) => id_ok(&send.id) && method_ok(&send.method),
                StepKind::Discover(d) => method_ok(&d.list),
                StepKind::RepeatUntil(r) => method_ok(&r.send.method),
                StepKind::Notify { method, .. } => method != "notifications/initialized",
                StepKind::Raw(raw) => raw_line_ids(raw).is_some_and(|ids| ids.iter().all(id_apart)),
                StepKind::Expect(e) => {
                    matches!(e.selector, Selector::ResponseTo(_) | Selector::Id(_))
                }
                StepKind::ExpectSilence { .. } | StepKind::Assert { .. } => true,
                StepKind::Assume { .. } | StepKind::Sleep(_) => true,
                _ => false,
            })
    }

    /// What both [`Self::may_share`] and [`Self::may_take`] need of the
    /// scenario as a whole: an initialised server session that declares no
    /// client capabilities (the shared handshake declares none), no
    /// extension or authorization, not `isolate: true`.
    fn plays_on_a_shared_session(&self) -> bool {
        self.session == SessionMode::Initialized
            && !self.isolate
            && self.extension.is_none()
            && self.auth.is_none()
            && self.requires.auth.is_none()
            && self.role() == mcpspec_engine::Role::Server
            && self
                .client_capabilities
                .as_object()
                .is_none_or(|m| m.is_empty())
    }

    /// The ids this scenario's requests carry of its own choosing (literal
    /// `id:`s, ids in `raw` lines), as JSON texts: on a shared session the
    /// runner does not play a case whose ids an earlier case there used.
    pub fn fixed_ids(&self) -> Vec<String> {
        let mut out = Vec::new();
        for step in &self.steps {
            match &step.kind {
                StepKind::Send(send) => out.extend(send.id.as_ref().map(|t| t.value().to_string())),
                StepKind::Raw(raw) => {
                    out.extend(
                        raw_line_ids(raw)
                            .into_iter()
                            .flatten()
                            .map(|v| v.to_string()),
                    );
                }
                _ => {}
            }
        }
        out
    }
}
