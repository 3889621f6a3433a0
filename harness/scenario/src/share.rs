//! Which scenarios may share a stdio target with other cases
//! ([`Scenario::may_share`]); the runner's `shared` module plays them, and
//! `scenarios/README.md` ("Sharing a target process") documents the rule.

use crate::model::{Scenario, Selector, SessionMode, StepKind};

/// The requests a scenario may send and still share a session
/// ([`Scenario::may_share`]): they read, and leave no state in the session
/// that a later request could see. `tools/call` is among them: a tool that
/// changes the server's state is the exception a scenario marks with
/// `isolate: true` (and a case that fails on a shared session is run again
/// alone before its failure counts).
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
];

impl Scenario {
    /// Whether a case of this scenario may run on a target process and an
    /// initialised session it shares with other cases of the same version
    /// (stdio servers; `mcpspec server --isolate` turns sharing off).
    ///
    /// Inferred conservatively, so that no file has to opt in: only an
    /// `initialized` server scenario, not of an extension, with no
    /// `client_capabilities` of its own (the shared handshake declares
    /// none) and not marked `isolate: true`, whose every step is plain
    /// request and response on the operating session — `send` (with the
    /// runner's own ids: a chosen id could repeat one an earlier case used
    /// on the session) of a method in [`SHAREABLE_METHODS`], `discover` and
    /// `repeat_until` over those, `expect: { response_to }`, `assert`,
    /// `assume`. Anything that is about the handshake or the session's
    /// state (logging level, subscriptions, a second initialize), about the
    /// process (framing, shutdown, exit, stderr), about notifications or
    /// requests the target sends, about silence, timing or raw bytes, or
    /// about traffic the harness does not write itself (`raw`, `notify`,
    /// `http`) needs a process of its own.
    pub fn may_share(&self) -> bool {
        let method_ok = |m: &str| SHAREABLE_METHODS.contains(&m);
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
            && self.steps.iter().all(|s| match &s.kind {
                StepKind::Send(send) => send.id.is_none() && method_ok(&send.method),
                StepKind::Discover(d) => method_ok(&d.list),
                StepKind::RepeatUntil(r) => method_ok(&r.send.method),
                StepKind::Expect(e) => matches!(e.selector, Selector::ResponseTo(_)),
                StepKind::Assert { .. } | StepKind::Assume { .. } => true,
                _ => false,
            })
    }
}
