//! The typed scenario model: what the runner plays.
//!
//! Everything here is already resolved and validated: `versions: handshake`
//! is a list of [`Version`]s, durations are [`Duration`]s, matchers are
//! compiled. See `scenarios/README.md` for what each piece means.

use crate::bindings::Bindings;
use crate::error::Location;
use crate::matcher::Matcher;
use crate::template::{render_str, Template, TemplateError};
use mcpspec_engine::{Level, Version};
use std::time::Duration;

/// The default hard limit for a whole case when `timeout` is not given.
pub const DEFAULT_CASE_TIMEOUT: Duration = Duration::from_secs(30);

/// One scenario file.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    pub requirements: Vec<String>,
    pub level: Level,
    /// Resolved: `handshake` → [`Version::HANDSHAKE`], `all` → [`Version::ALL`].
    pub versions: Vec<Version>,
    /// Resolved: `all` → stdio, http, sse.
    pub transports: Vec<TransportKind>,
    pub session: SessionMode,
    pub requires: Requires,
    /// What the harness declares as the client's capabilities when it plays
    /// the client of a server under test (`{}` when not given): in
    /// `initialize`, and in the `_meta` of every 2026-07-28 request.
    pub client_capabilities: serde_json::Value,
    /// `Some(name)`: the scenario judges the rules of an opt-in extension
    /// ([`mcpspec_engine::extension`]); its cases run only when the user
    /// asks for that extension, and it names only that extension's rules.
    pub extension: Option<&'static str>,
    /// Client scenarios over Streamable HTTP: the scripted server is
    /// protected and plays an authorization server as this script says.
    pub auth: Option<AuthScript>,
    pub timeout: Option<Duration>,
    /// `isolate: true`: every case gets a target process of its own, even
    /// where [`Scenario::may_share`] would let it share one (for what the
    /// loader cannot see: a tool call that changes the server's state).
    pub isolate: bool,
    pub notes: Option<String>,
    pub steps: Vec<Step>,
    pub source: Source,
    /// Where the `id` value is written (for "id does not match the path" errors).
    pub id_at: Location,
}

impl Scenario {
    /// Whether the runner serves a canary URL for the case (bound as
    /// `${canary.url}`): when a step judges it (`expect_no_fetch`).
    pub fn uses_canary(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s.kind, StepKind::ExpectNoFetch(_)))
    }

    /// Every requirement id this scenario cites: its own, then step overrides
    /// (each once, in order of appearance).
    pub fn requirement_ids(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let all = self
            .requirements
            .iter()
            .chain(self.steps.iter().filter_map(|s| s.requirement.as_ref()));
        for id in all {
            if !out.contains(id) {
                out.push(id.clone());
            }
        }
        out
    }

    /// The case id for one version: `<scenario id>@<version>`.
    pub fn case_id(&self, version: Version) -> String {
        format!("{}@{}", self.id, version)
    }

    /// `timeout`, or [`DEFAULT_CASE_TIMEOUT`].
    pub fn timeout_or_default(&self) -> Duration {
        self.timeout.unwrap_or(DEFAULT_CASE_TIMEOUT)
    }

    /// `client` or `server`: the first segment of the id.
    pub fn role(&self) -> mcpspec_engine::Role {
        if self.id.starts_with("client/") {
            mcpspec_engine::Role::Client
        } else {
            mcpspec_engine::Role::Server
        }
    }
}

/// Where a scenario came from: its file (label) and the document start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// `scenarios/server/x.yaml` for a file, `<embedded>/server/x.yaml` for
    /// one built into the binary.
    pub path: String,
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportKind {
    Stdio,
    Http,
    Sse,
}

impl TransportKind {
    pub const ALL: [TransportKind; 3] = [
        TransportKind::Stdio,
        TransportKind::Http,
        TransportKind::Sse,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::Sse => "sse",
        }
    }
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the session starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionMode {
    /// The runner performs the handshake before the steps.
    Initialized,
    /// Nothing has been sent when the steps start.
    Fresh,
}

impl SessionMode {
    /// Every mode; the first is the default.
    pub const ALL: [SessionMode; 2] = [SessionMode::Initialized, SessionMode::Fresh];

    /// The mode as `session:` writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            SessionMode::Initialized => "initialized",
            SessionMode::Fresh => "fresh",
        }
    }
}

/// `auth:` — a client case's protected mode: how the runner's scripted
/// authorization server behaves (see `scenarios/README.md`,
/// "Authorization"). Each field is one of its `…_CHOICES`; the first is the
/// default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthScript {
    /// Whether the 401 names the Protected Resource Metadata URL
    /// (`challenge`) or leaves the client to the well-known URIs.
    pub metadata_hint: String,
    /// The `scope` of the 401 challenge, if any.
    pub scope: Option<String>,
    /// The `resource` of the Protected Resource Metadata: the server's
    /// canonical URI, or another server's (`mismatch`).
    pub prm_resource: String,
    /// The `iss` of the authorization response: the issuer's, another
    /// one's (`wrong`), the issuer's with a trailing slash (`normalized`:
    /// equal only after normalization), or none.
    pub iss: String,
    /// Whether the metadata advertises
    /// `authorization_response_iss_parameter_supported` (2026-07-28 cases).
    pub iss_support: String,
    /// The `state` of the authorization response: the client's, or altered.
    pub state: String,
    /// The token endpoint's client authentication method (advertised, and
    /// registered).
    pub token_auth: String,
    /// Where the authorization server metadata is served: at every
    /// well-known URI (`all`), or at the OpenID Connect ones only.
    pub as_metadata: String,
    /// Whether the MCP endpoint takes the tokens it issued (`accepted`), or
    /// answers 401 to every request whatever it carries (`refused`: a
    /// client must stop retrying).
    pub token_use: String,
    /// The `issuer` the authorization server metadata names: its own, or
    /// another (`mismatch`: a client must not use the document).
    pub as_issuer: String,
    /// Whether the authorization server metadata lists
    /// `code_challenge_methods_supported` (`s256`), or leaves it out
    /// (`absent`: a client must not authorize, 2025-11-25 on).
    pub as_pkce: String,
    /// Whether the token endpoint issues a refresh token with each access
    /// token (`issued`), or none (`withheld`: a client must go on without).
    pub refresh_token: String,
    /// Whether dynamic registration succeeds (`accepted`), refuses every
    /// request over its redirect URIs (`refused_redirect`: 400
    /// `invalid_redirect_uri`, as an OpenID authorization server may), or is
    /// not offered because the client was registered beforehand
    /// (`preregistered`: no `registration_endpoint`; the client's command
    /// line gets the static credentials through `{client_id}` and
    /// `{client_secret}`).
    pub registration: String,
    /// Whether the authorization server metadata advertises
    /// `client_id_metadata_document_supported` (`supported`), or not.
    pub cimd: String,
    /// Whether the authorization server stays (`none`), or is replaced
    /// once the client used a token (`after_token`): the MCP endpoint then
    /// refuses the first authorization server's tokens with 401 and the
    /// Protected Resource Metadata names a second one, on its own path.
    pub migration: String,
    /// Whether the Protected Resource Metadata and the authorization server
    /// metadata list `scopes_supported` (`listed`), or leave it out
    /// (`omitted`: with no scope in the challenge either, a client asks for
    /// no scope).
    pub scopes_supported: String,
    /// A scope the MCP endpoint demands of every request once the client
    /// holds a token: a token granted without it is answered 403 with an
    /// `insufficient_scope` challenge naming it (step-up authorization).
    pub step_up: Option<String>,
}

impl AuthScript {
    pub const METADATA_HINT_CHOICES: &'static [&'static str] = &["challenge", "well_known"];
    pub const PRM_RESOURCE_CHOICES: &'static [&'static str] = &["canonical", "mismatch"];
    pub const ISS_CHOICES: &'static [&'static str] = &["correct", "wrong", "absent", "normalized"];
    pub const ISS_SUPPORT_CHOICES: &'static [&'static str] = &["advertised", "unadvertised"];
    pub const STATE_CHOICES: &'static [&'static str] = &["echo", "altered"];
    pub const TOKEN_AUTH_CHOICES: &'static [&'static str] =
        &["none", "client_secret_basic", "client_secret_post"];
    pub const AS_METADATA_CHOICES: &'static [&'static str] = &["all", "openid_only"];
    pub const TOKEN_USE_CHOICES: &'static [&'static str] = &["accepted", "refused"];
    pub const AS_ISSUER_CHOICES: &'static [&'static str] = &["correct", "mismatch"];
    pub const AS_PKCE_CHOICES: &'static [&'static str] = &["s256", "absent"];
    pub const REFRESH_TOKEN_CHOICES: &'static [&'static str] = &["withheld", "issued"];
    pub const REGISTRATION_CHOICES: &'static [&'static str] =
        &["accepted", "refused_redirect", "preregistered"];
    pub const CIMD_CHOICES: &'static [&'static str] = &["unsupported", "supported"];
    pub const MIGRATION_CHOICES: &'static [&'static str] = &["none", "after_token"];
    pub const SCOPES_SUPPORTED_CHOICES: &'static [&'static str] = &["listed", "omitted"];
}

impl Default for AuthScript {
    fn default() -> Self {
        AuthScript {
            metadata_hint: Self::METADATA_HINT_CHOICES[0].to_owned(),
            scope: None,
            prm_resource: Self::PRM_RESOURCE_CHOICES[0].to_owned(),
            iss: Self::ISS_CHOICES[0].to_owned(),
            iss_support: Self::ISS_SUPPORT_CHOICES[0].to_owned(),
            state: Self::STATE_CHOICES[0].to_owned(),
            token_auth: Self::TOKEN_AUTH_CHOICES[0].to_owned(),
            as_metadata: Self::AS_METADATA_CHOICES[0].to_owned(),
            token_use: Self::TOKEN_USE_CHOICES[0].to_owned(),
            as_issuer: Self::AS_ISSUER_CHOICES[0].to_owned(),
            as_pkce: Self::AS_PKCE_CHOICES[0].to_owned(),
            refresh_token: Self::REFRESH_TOKEN_CHOICES[0].to_owned(),
            registration: Self::REGISTRATION_CHOICES[0].to_owned(),
            cimd: Self::CIMD_CHOICES[0].to_owned(),
            migration: Self::MIGRATION_CHOICES[0].to_owned(),
            scopes_supported: Self::SCOPES_SUPPORTED_CHOICES[0].to_owned(),
            step_up: None,
        }
    }
}

/// Gates: when unmet, the case is not applicable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requires {
    /// Dotted paths into the server's capabilities (`resources.subscribe`).
    pub capabilities: Vec<String>,
    /// Streamable HTTP: the server issued an `Mcp-Session-Id` at initialize
    /// (issuing one is optional, so session rules apply only then).
    pub http_session: bool,
    /// Authorization (Streamable HTTP): the target must be a protected
    /// resource, and the run may have to hold a token.
    pub auth: Option<AuthGate>,
}

/// `requires.auth`: what an authorization scenario needs of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthGate {
    /// The target is protected: the run was given `--auth-token`, or a
    /// POST without credentials is answered 401.
    Protected,
    /// The run holds a token the target accepts (`--auth-token`).
    Token,
    /// The run also holds a token issued for another resource
    /// (`--auth-token-other-audience`).
    OtherAudience,
}

impl AuthGate {
    /// Every gate, as `requires.auth` writes it.
    pub const ALL: [AuthGate; 3] = [
        AuthGate::Protected,
        AuthGate::Token,
        AuthGate::OtherAudience,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            AuthGate::Protected => "protected",
            AuthGate::Token => "token",
            AuthGate::OtherAudience => "other_audience",
        }
    }
}

/// One step, with its optional overrides.
#[derive(Debug, Clone)]
pub struct Step {
    pub kind: StepKind,
    pub level: Option<Level>,
    pub requirement: Option<String>,
    /// Run this step only for these versions (`None`: every version).
    pub versions: Option<Vec<Version>>,
    pub note: Option<String>,
    /// Why a timed step (`sleep`, `expect_silence`, `expect_no_fetch`) waits
    /// as long as it does; the loader requires it on those.
    pub why: Option<String>,
    pub at: Location,
}

impl Step {
    /// Whether this step runs in a case of `version`.
    pub fn applies_to(&self, version: Version) -> bool {
        self.versions
            .as_ref()
            .is_none_or(|vs| vs.contains(&version))
    }

    /// The step key, as written: `send`, `raw`, `expect`, ….
    pub fn key(&self) -> &'static str {
        self.kind.key()
    }
}

#[derive(Debug, Clone)]
pub enum StepKind {
    Send(SendStep),
    Notify {
        method: String,
        params: Option<Template>,
    },
    Raw(RawStep),
    Expect(Expectation),
    /// Nothing may arrive for `duration`: no response or request (`all`:
    /// no message at all); or, with `notification`, no notification of that
    /// method whose params match `params`.
    ExpectSilence {
        duration: Duration,
        all: bool,
        notification: Option<String>,
        params: Option<Matcher>,
    },
    RepeatUntil(RepeatUntil),
    Discover(Discover),
    Sleep(Duration),
    /// Client scenarios: wait this long, then no request may have reached
    /// the case's canary URL (`${canary.url}`, served by the runner on
    /// 127.0.0.1 for a scenario with this step) since the case began.
    ExpectNoFetch(Duration),
    Disconnect,
    ExpectExit {
        within: Duration,
    },
    /// `value` must match `matches`. With `within`, the step waits up to
    /// that long for it to (client scenarios with `auth:`: `${auth}` is
    /// what changes while it waits) and ends as soon as it does.
    Assert {
        value: Template,
        matches: Matcher,
        within: Option<Duration>,
    },
    /// Like `assert`, but a mismatch makes the case not applicable (with
    /// `reason`) instead of failing it: for behaviour the spec leaves open
    /// (a server MAY answer 405), later steps judge only the other branch.
    /// `within` waits for the value as `assert`'s does, so that the steps
    /// after it are timed from the moment the case's premise held.
    Assume {
        value: Template,
        matches: Matcher,
        reason: String,
        within: Option<Duration>,
    },
    Http(HttpStep),
    /// Client scenarios: answer a request the client sent (taken by an
    /// `expect: { request }` step labelled `to`).
    Reply(Reply),
}

impl StepKind {
    /// The step key, as written.
    pub fn key(&self) -> &'static str {
        match self {
            StepKind::Send(_) => "send",
            StepKind::Notify { .. } => "notify",
            StepKind::Raw(RawStep {
                bytes: RawBytes::Hex(_),
                ..
            }) => "raw_hex",
            StepKind::Raw(_) => "raw",
            StepKind::Expect(_) => "expect",
            StepKind::ExpectSilence { .. } => "expect_silence",
            StepKind::RepeatUntil(_) => "repeat_until",
            StepKind::Discover(_) => "discover",
            StepKind::Sleep(_) => "sleep",
            StepKind::ExpectNoFetch(_) => "expect_no_fetch",
            StepKind::Disconnect => "disconnect",
            StepKind::ExpectExit { .. } => "expect_exit",
            StepKind::Assert { .. } => "assert",
            StepKind::Assume { .. } => "assume",
            StepKind::Http(_) => "http",
            StepKind::Reply(_) => "reply",
        }
    }
}

/// `send`: a request from the harness.
#[derive(Debug, Clone)]
pub struct SendStep {
    pub method: String,
    pub params: Option<Template>,
    /// `None`: the runner's next integer id.
    pub id: Option<Template>,
    /// `as:` — binds `<label>.id` and `<label>.response`.
    pub label: Option<String>,
    /// `lasts:` — the request cannot be answered on its own sooner than
    /// this after it is sent (a slow call of this length); told to the
    /// oracle, which judges an earlier answer to it, once it is cancelled,
    /// as the cancellation's doing.
    pub lasts: Option<Duration>,
    pub expect: Option<ResponseExpect>,
}

/// `raw` / `raw_hex`: exact bytes.
#[derive(Debug, Clone)]
pub struct RawStep {
    pub bytes: RawBytes,
    /// Append `\n` (default: true for `raw`, false for `raw_hex`).
    pub newline: bool,
    pub expect: Option<ResponseExpect>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawBytes {
    /// Text; may contain `${..}` (formatted in, strings unquoted).
    Text(String),
    Hex(Vec<u8>),
}

impl RawStep {
    /// The bytes to write, `${..}` substituted and the newline appended.
    pub fn render(&self, b: &Bindings) -> Result<Vec<u8>, TemplateError> {
        let mut bytes = match &self.bytes {
            RawBytes::Text(text) => render_str(text, b)?.into_bytes(),
            RawBytes::Hex(bytes) => bytes.clone(),
        };
        if self.newline {
            bytes.push(b'\n');
        }
        Ok(bytes)
    }
}

/// What the response to a `send` or `raw` must be.
#[derive(Debug, Clone)]
pub struct ResponseExpect {
    /// Only for `raw`: the id of the response (may be `null`).
    pub id: Option<Template>,
    pub result: Option<Matcher>,
    pub error: Option<Matcher>,
    /// `None`: the run's default timeout.
    pub within: Option<Duration>,
}

/// `expect`: wait for a message from the target.
#[derive(Debug, Clone)]
pub struct Expectation {
    pub selector: Selector,
    /// `as:` (with a `request` selector): binds `<label>.id`, `.method`,
    /// `.params`, and names the request for `reply`.
    pub label: Option<String>,
    pub result: Option<Matcher>,
    pub error: Option<Matcher>,
    pub params: Option<Matcher>,
    pub within: Option<Duration>,
    /// `owed: true` (client cases): the client owes this request — an
    /// earlier step showed it does the thing and the rule demands the
    /// request — so its absence, or the client leaving first, fails the
    /// step instead of making the rest of the case not applicable.
    pub owed: bool,
}

/// Which message an `expect` takes from the inbox.
#[derive(Debug, Clone, PartialEq)]
pub enum Selector {
    /// The response to a labelled `send`.
    ResponseTo(String),
    /// A response with this id (may be `null`).
    Id(serde_json::Value),
    /// A notification with this method.
    Notification(String),
    /// A request from the target with this method (`*`: any method).
    Request(String),
}

impl Selector {
    /// `request: "*"`: any request.
    pub const ANY_METHOD: &'static str = "*";
}

/// `reply`: how the harness answers a request the client sent.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The label of the `expect` step that took the request.
    pub to: String,
    pub answer: ReplyAnswer,
    /// `cut_stream`: the answer goes on the client's resumption of the
    /// request's response stream, which the harness first cuts.
    pub cut_stream: Option<CutStream>,
}

/// `reply.cut_stream` (client scenarios over Streamable HTTP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutStream {
    /// The priming event's `retry` (none: no `retry` field).
    pub retry: Option<Duration>,
    /// How long after `retry` the client has to resume the stream.
    pub resume_within: Duration,
}

impl CutStream {
    /// `resume_within` when the scenario gives none.
    pub const DEFAULT_RESUME_WITHIN: Duration = Duration::from_secs(5);
}

/// What `reply` answers with.
#[derive(Debug, Clone)]
pub enum ReplyAnswer {
    /// Whatever the harness's fixture server answers.
    Fixture,
    /// This result.
    Result(Template),
    /// This error object.
    Error(Template),
}

/// `repeat_until`: follow a cursor.
#[derive(Debug, Clone)]
pub struct RepeatUntil {
    pub send: SendSpec,
    pub expect: ResponseExpect,
    /// Stop when this binding is not made by an iteration.
    pub until_unbound: String,
    /// More iterations than this: a failure (the target loops).
    pub max: u32,
    pub unique_by: Option<UniqueBy>,
}

/// The request a `repeat_until` sends each iteration.
#[derive(Debug, Clone)]
pub struct SendSpec {
    pub method: String,
    pub params: Option<Template>,
}

/// Items of the list `list` must not repeat their `key` member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniqueBy {
    pub list: String,
    pub key: String,
}

/// `discover`: list the target's own tools, resources, prompts.
#[derive(Debug, Clone)]
pub struct Discover {
    /// `tools/list`, `resources/list`, `resources/templates/list` or `prompts/list`.
    pub list: String,
    /// Binds every (matching) item over all pages.
    pub into: String,
    /// `where:` — keep only items matching this.
    pub filter: Option<Matcher>,
    /// Fewer matching items → not applicable (default 1).
    pub require: usize,
    /// `header_param:` (tools/list only) — keep only tools with a valid
    /// SEP-2243 `x-mcp-header` annotation on a top-level string parameter,
    /// and bind this variable to `{ tool, property, header }` of the first.
    pub header_param: Option<String>,
}

impl Discover {
    /// The list methods `discover` accepts.
    pub const LISTS: [&'static str; 4] = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ];

    /// The member of the list result that holds the items (`tools`, `resources`,
    /// `resourceTemplates`, `prompts`).
    pub fn items_member(&self) -> &'static str {
        match self.list.as_str() {
            "tools/list" => "tools",
            "resources/templates/list" => "resourceTemplates",
            "prompts/list" => "prompts",
            _ => "resources",
        }
    }
}

/// `http`: one HTTP exchange the scenario builds itself, for the rules of
/// the HTTP transports (statuses, headers, SSE framing). Only in scenarios
/// whose `transports` are `http` and/or `sse`.
#[derive(Debug, Clone)]
pub struct HttpStep {
    /// `POST` unless given.
    pub method: String,
    pub url: HttpUrl,
    /// The `Mcp-Session-Id` header.
    pub session: HeaderMode,
    /// The `MCP-Protocol-Version` header.
    pub protocol_version: HeaderMode,
    /// Header overrides, in order; `None` removes the header.
    pub headers: Vec<(String, Option<String>)>,
    pub body: Option<HttpBody>,
    /// How long an SSE response is read (`None`: the runner's default).
    pub read_for: Option<Duration>,
    /// A GET that stays open as the session's standing stream: what the
    /// target sends on it joins the case's messages (tagged with the stream).
    pub keep_open: bool,
    /// `as:` — binds `<label>.response` to the response object.
    pub label: Option<String>,
    /// The response object must match this (see `scenarios/README.md`).
    pub expect: Option<Matcher>,
    /// `judge:` — the response body is an authorization metadata document,
    /// checked rule by rule (each defect a finding naming its rule).
    pub judge: Option<MetadataDoc>,
}

/// An authorization metadata document an `http` step can judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataDoc {
    /// Protected Resource Metadata (RFC 9728) of the server under test.
    ProtectedResource,
    /// Authorization server metadata (RFC 8414 / OpenID Connect Discovery)
    /// of the issuer the run discovered (`${auth.issuer}`).
    AuthorizationServer,
}

impl MetadataDoc {
    pub const ALL: [MetadataDoc; 2] = [
        MetadataDoc::ProtectedResource,
        MetadataDoc::AuthorizationServer,
    ];

    /// As `judge:` writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            MetadataDoc::ProtectedResource => "protected_resource_metadata",
            MetadataDoc::AuthorizationServer => "authorization_server_metadata",
        }
    }
}

/// Where an `http` step sends its request.
#[derive(Debug, Clone)]
pub enum HttpUrl {
    /// The MCP endpoint: `--url`, or the legacy POST endpoint the server
    /// announced.
    Endpoint,
    /// The legacy SSE stream URL (`--sse-url`); for Streamable HTTP the endpoint.
    Stream,
    /// The endpoint with its session replaced by one the server never issued
    /// (legacy SSE: the announced endpoint's query values / last segment).
    UnknownSession,
    /// A path or URL, relative to the endpoint; may contain `${..}`.
    Path(String),
}

impl HttpUrl {
    /// The keywords of `url`, and what each means.
    pub const KEYWORDS: [&'static str; 3] = ["endpoint", "stream", "unknown_session"];
}

/// How an `http` step sets a protocol header.
#[derive(Debug, Clone)]
pub enum HeaderMode {
    /// As a conformant client would (the session's value, if any).
    Auto,
    /// Not sent.
    Omit,
    /// This value (may contain `${..}`).
    Value(String),
}

/// The body of an `http` step.
#[derive(Debug, Clone)]
pub enum HttpBody {
    /// A JSON value; its strings are templates.
    Json(Template),
    /// Exact text; may contain `${..}` (formatted in, strings unquoted).
    Text(String),
}
