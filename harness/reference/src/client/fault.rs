//! Fault switches of the reference client: each one makes it break exactly
//! one rule of the specification, on purpose, while everything else stays
//! correct — so that mcpspec's *client* scenarios can prove they are able to
//! fail (the clean client must pass them all, each fault must be caught).
//!
//! The faults are one table, [`TABLE`]: name (as given to `--fault`), the
//! level and the catalogued rule broken (`mcpspec_engine::ids`; a unit test
//! checks the catalogue gives it that level), the
//! transports over which the violation exists, and what the client does
//! wrong.
//!
//! A fault acts only where its rule does: the handshake faults in a session
//! opened with `initialize`, the 2026-07-28 ones (`missing-meta-version` …
//! `fallback-after-discover`) in a stateless session, so under
//! `--spec-version 2026-07-28`; the catalogue entry of the requirement gives
//! the versions. The `http-*` faults and `header-meta-mismatch` break header
//! rules of Streamable HTTP: the sans-IO client only reports them
//! ([`ClientFault::transports`]) and its driver switches the transport's
//! misbehaviour on once the session is open, so the opening exchange stays
//! clean and the session goes on.

use std::fmt;

use mcpspec_engine::{ids, Level, Requirement};

use crate::fault::Transport;

/// One deliberate spec violation of the reference client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientFault {
    SkipInitialized,
    EarlyRequest,
    ReuseIds,
    CancelInitialize,
    BadInitialize,
    IgnorePing,
    MalformedRoots,
    RootsNotFile,
    UndeclaredSampling,
    MalformedSampling,
    ElicitationBadAction,
    UnknownRequestSuccess,
    AnswerNotifications,
    AcceptUnsupportedVersion,
    CrashOnMalformed,
    StdinNoise,
    NoBatch,
    TamperCursor,
    NoResponseToUnknown,
    UndeclaredToolUse,
    MissingMetaVersion,
    MissingClientCapabilities,
    SendsRemovedMethod,
    FallbackAfterDiscover,
    HeaderMetaMismatch,
    HttpBadAccept,
    HttpBadGetAccept,
    HttpNoSessionEcho,
    HttpNoVersionHeader,
    RetryStateAltered,
    RetryStateInvented,
    RetryStateLeaked,
    ResultTypeInferred,
    HttpNoRoutingHeaders,
    RetryUnlistedVersion,
    BatchedInitialize,
    StrayResponse,
    HttpNoParamHeaders,
    HttpPlainParamHeaders,
    KeepsInvalidHeaderTools,
    UnknownResultTypeAccepted,
    UrlElicitationAnswered,
    ElicitationModeRequired,
    CrashOnUnknownComplete,
    EmptyCursorEnds,
    FixedPageSize,
    FallbackOnlyMethodNotFound,
    DerefNetworkRef,
    FormModeRefused,
    HttpResumeIgnoresRetry,
    HttpResumeWithoutLastEventId,
    HttpNoResume,
    // ── authorization (#16): the OAuth flow of `reference_auth` (cli) ───
    AuthNoPkce,
    AuthPlainPkce,
    AuthNoResource,
    AuthTokenInQuery,
    AuthIgnoresIss,
    AuthIgnoresState,
    AuthAcceptsResourceMismatch,
    AuthWrongTokenAuth,
    AuthNoScope,
    AuthLoopsOn401,
    AuthOpenidFirst,
    AuthPrmRootFirst,
    AuthUnregisteredClientId,
    AuthNoApplicationType,
    AuthIgnoresMetadataIssuer,
    AuthNoOpenid,
    AuthPlainHttpRedirect,
    AuthUnregisteredRedirect,
    AuthForeignToken,
    AuthIgnoresPkceSupport,
    AuthRefreshTokenLeaked,
    AuthNeedsRefreshToken,
    AuthIgnoresChallengeScope,
    AuthStepUpDropsScopes,
    AuthRequiresIss,
    AuthRepeatsRefusedRegistration,
    AuthReusesCredentials,
    AuthScopeWhenUndefined,
    AuthCimdHttpUrl,
    AuthCimdUnadvertised,
    AuthIgnoresCimd,
    AuthIgnoresPreregistration,
}

/// One row of [`TABLE`].
#[derive(Debug)]
pub struct FaultEntry {
    pub fault: ClientFault,
    /// Kebab-case name, as given to `--fault`.
    pub name: &'static str,
    /// How binding the broken rule is (the catalogue's level).
    pub level: Level,
    /// The rule broken.
    pub requirement: &'static Requirement,
    /// The transports over which the violation exists (the rule's own).
    pub transports: &'static [Transport],
    /// What the faulty client does.
    pub description: &'static str,
}

impl FaultEntry {
    /// Restricts the fault to Streamable HTTP, whose header rule it breaks.
    const fn http_only(self) -> FaultEntry {
        FaultEntry {
            transports: HTTP,
            ..self
        }
    }
}

const HTTP: &[Transport] = &[Transport::StreamableHttp];

const fn row(
    fault: ClientFault,
    name: &'static str,
    level: Level,
    requirement: &'static Requirement,
    description: &'static str,
) -> FaultEntry {
    FaultEntry {
        fault,
        name,
        level,
        requirement,
        transports: Transport::ALL,
        description,
    }
}

use ClientFault as F;
use Level::{Must, Should};

/// Every fault, in the order `--list-faults` prints them (and in the order
/// of the enum: `TABLE[f as usize].fault == f`).
pub const TABLE: [FaultEntry; 84] = [
    row(F::SkipInitialized, "skip-initialized", Must, &ids::LIFECYCLE_CLIENT_INITIALIZED_NOTIFICATION,
        "never sends notifications/initialized after the initialize result"),
    row(F::EarlyRequest, "early-request", Should, &ids::LIFECYCLE_CLIENT_NO_REQUESTS_BEFORE_RESPONSE,
        "sends tools/list right after initialize, before the initialize result arrived (and waits for both answers)"),
    row(F::ReuseIds, "reuse-ids", Must, &ids::JSONRPC_REQUEST_ID_UNIQUE,
        "sends its first ping with the id of the initialize request (1)"),
    row(F::CancelInitialize, "cancel-initialize", Must, &ids::CANCELLATION_INITIALIZE_NOT_CANCELLED,
        "sends notifications/cancelled for the initialize request right after sending it"),
    row(F::BadInitialize, "bad-initialize", Must, &ids::LIFECYCLE_INITIALIZE_REQUEST_SHAPE,
        "sends initialize without clientInfo"),
    row(F::IgnorePing, "ignore-ping", Must, &ids::PING_RESPOND,
        "never answers the server's ping"),
    row(F::MalformedRoots, "malformed-roots", Must, &ids::ROOTS_LIST_RESULT_SHAPE,
        "answers roots/list with a root that has no uri ({roots: [{name: \"no uri\"}]})"),
    row(F::RootsNotFile, "roots-not-file", Must, &ids::ROOTS_URI_FILE,
        "answers roots/list with the root https://example.com/root, not a file:// URI"),
    row(F::UndeclaredSampling, "undeclared-sampling", Must, &ids::SAMPLING_CAPABILITY_DECLARED,
        "does not declare the sampling capability, yet answers sampling/createMessage with a result"),
    row(F::MalformedSampling, "malformed-sampling", Must, &ids::SAMPLING_RESULT_SHAPE,
        "answers sampling/createMessage with a result that has no model"),
    row(F::ElicitationBadAction, "elicitation-bad-action", Must, &ids::ELICITATION_RESPONSE_ACTION,
        "answers elicitation/create with {action: \"maybe\"}"),
    row(F::UnknownRequestSuccess, "unknown-request-success", Should, &ids::JSONRPC_ERROR_METHOD_NOT_FOUND,
        "answers a request for an unknown method with an empty result instead of -32601"),
    row(F::AnswerNotifications, "answer-notifications", Must, &ids::JSONRPC_NOTIFICATION_NO_RESPONSE,
        "answers every notification from the server with the response {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}"),
    row(F::AcceptUnsupportedVersion, "accept-unsupported-version", Should, &ids::LIFECYCLE_VERSION_CLIENT_DISCONNECT,
        "goes on with a session whose initialize result names a protocol version it does not support"),
    row(F::CrashOnMalformed, "crash-on-malformed", Must, &ids::JSONRPC_MESSAGE_VALID,
        "exits with status 1 on a line from the server that is not valid JSON-RPC instead of ignoring it"),
    row(F::StdinNoise, "stdin-noise", Must, &ids::STDIO_CLIENT_STDIN_ONLY_MCP,
        "writes a non-JSON line to the server right after notifications/initialized"),
    row(F::NoBatch, "no-batch", Must, &ids::JSONRPC_BATCH_RECEIVE,
        "under 2025-03-26, ignores every JSON-RPC batch from the server (answers none of its requests)"),
    row(F::TamperCursor, "tamper-cursor", Must, &ids::PAGINATION_CLIENT_OPAQUE_CURSOR,
        "passes each nextCursor back with \"x\" appended instead of verbatim"),
    row(F::NoResponseToUnknown, "no-response-to-unknown", Must, &ids::JSONRPC_REQUEST_ANSWERED,
        "never answers a request for an unknown method (instead of -32601)"),
    row(F::UndeclaredToolUse, "undeclared-tool-use", Must, &ids::SAMPLING_TOOLS_CAPABILITY,
        "from 2025-11-25, answers a sampling/createMessage that offers tools (at 2026-07-28: an input request) with a tool_use, although it did not declare sampling.tools"),
    // ── 2026-07-28, the stateless protocol ──────────────────────────────
    row(F::MissingMetaVersion, "missing-meta-version", Must, &ids::STATELESS_META_REQUIRED_KEYS,
        "under 2026-07-28, leaves io.modelcontextprotocol/protocolVersion out of the _meta of every request after server/discover"),
    row(F::MissingClientCapabilities, "missing-client-capabilities", Must, &ids::STATELESS_META_REQUIRED_KEYS,
        "under 2026-07-28, leaves io.modelcontextprotocol/clientCapabilities out of the _meta of every request after server/discover"),
    row(F::SendsRemovedMethod, "sends-removed-method", Must, &ids::STATELESS_REMOVED_NOT_SENT,
        "under 2026-07-28, sends ping after server/discover, and logging/setLevel when the server declares logging (methods 2026-07-28 removed)"),
    row(F::FallbackAfterDiscover, "fallback-after-discover", Should, &ids::STATELESS_CLIENT_ERA_CACHED,
        "under 2026-07-28, falls back to initialize (and the handshake session) although server/discover succeeded"),
    row(F::HeaderMetaMismatch, "header-meta-mismatch", Must, &ids::HTTP_HEADER_VERSION_MATCHES_META,
        "under 2026-07-28, sends MCP-Protocol-Version 2025-11-25 with every request after server/discover, whose _meta names 2026-07-28").http_only(),
    // ── Streamable HTTP headers (the transport's misbehaviour) ───────────
    row(F::HttpBadAccept, "http-bad-accept", Must, &ids::HTTP_POST_ACCEPT,
        "once the session is open, POSTs with Accept: application/json only (without text/event-stream)").http_only(),
    row(F::HttpBadGetAccept, "http-bad-get-accept", Must, &ids::HTTP_GET_ACCEPT,
        "opens its GET stream with Accept: application/json instead of text/event-stream").http_only(),
    row(F::HttpNoSessionEcho, "http-no-session-echo", Must, &ids::HTTP_SESSION_CLIENT_ECHO,
        "once initialized, never sends back the Mcp-Session-Id the server issued").http_only(),
    row(F::HttpNoVersionHeader, "http-no-version-header", Must, &ids::HTTP_HEADER_PROTOCOL_VERSION,
        "from 2025-06-18, sends no MCP-Protocol-Version header on the requests after initialize (2026-07-28: after server/discover)").http_only(),
    // ── 2026-07-28 multi round-trip requests (the retry) ────────────────
    row(F::RetryStateAltered, "retry-state-altered", Must, &ids::STATELESS_CLIENT_REQUEST_STATE_ECHOED,
        "under 2026-07-28, retries a request answered input_required with the result's requestState plus \"x\" appended, not the exact value"),
    row(F::RetryStateInvented, "retry-state-invented", Must, &ids::STATELESS_CLIENT_REQUEST_STATE_ECHOED,
        "under 2026-07-28, retries a request answered input_required without a requestState with one of its own (\"mcpspec-invented\")"),
    row(F::RetryStateLeaked, "retry-state-leaked", Must, &ids::STATELESS_CLIENT_INPUT_ISOLATED,
        "under 2026-07-28, sends the last requestState a server gave it with every later request of its workflow, not only the retry it belongs to"),
    row(F::ResultTypeInferred, "result-type-inferred", Must, &ids::STATELESS_RESULT_ABSENT_TYPE_COMPLETE,
        "under 2026-07-28, takes a result without resultType that carries inputRequests for input_required (answers it and retries the request) instead of complete"),
    row(F::HttpNoRoutingHeaders, "http-no-routing-headers", Must, &ids::HTTP_HEADER_METHOD,
        "under 2026-07-28, sends no Mcp-Method (nor Mcp-Name) header on the requests after server/discover").http_only(),
    row(F::RetryUnlistedVersion, "retry-unlisted-version", Should, &ids::STATELESS_CLIENT_RETRY_SUPPORTED,
        "under 2026-07-28, after a -32022 that lists 2026-07-28 as supported, retries the request (and goes on) naming 2025-11-25 in _meta, a version the error did not list"),
    // ── what a client's messages say (the oracle's every-message rules) ──
    row(F::BatchedInitialize, "batched-initialize", Must, &ids::LIFECYCLE_INITIALIZE_NOT_BATCHED,
        "sends its initialize request inside a JSON-RPC batch of one (2025-03-26 forbids batching initialize; from 2025-06-18 there are no batches at all)"),
    row(F::StrayResponse, "stray-response", Must, &ids::STDIO_CLIENT_NO_RESPONSES,
        "under 2026-07-28, writes a JSON-RPC response ({\"id\": 0, \"result\": {}}) right after server/discover, though no request asked for one (over HTTP it POSTs it: http.post.client-no-responses)"),
    row(F::HttpNoParamHeaders, "http-no-param-headers", Must, &ids::HTTP_HEADER_PARAM_MIRROR,
        "under 2026-07-28, sends no Mcp-Param-* header on tools/call of a tool whose parameters carry x-mcp-header").http_only(),
    row(F::HttpPlainParamHeaders, "http-plain-param-headers", Must, &ids::HTTP_HEADER_VALUE_ENCODING,
        "under 2026-07-28, sends Mcp-Param-* values as they are, never in the Base64 sentinel form (non-ASCII text, surrounding spaces), leaving out values no header can carry").http_only(),
    row(F::KeepsInvalidHeaderTools, "http-keeps-invalid-header-tools", Must, &ids::HTTP_HEADER_CLIENT_REJECTS_INVALID_TOOLS,
        "under 2026-07-28 over Streamable HTTP, keeps (and calls) listed tools whose x-mcp-header annotations break the rules instead of dropping them").http_only(),
    // ── clientside (#15): result types and elicitation modes ────────────
    row(F::UnknownResultTypeAccepted, "unknown-result-type-accepted", Must, &ids::STATELESS_RESULT_TYPE_UNRECOGNIZED_INVALID,
        "under 2026-07-28, takes a result whose resultType it does not recognize but that carries inputRequests for input_required (answers them and retries) instead of as invalid"),
    row(F::UrlElicitationAnswered, "url-elicitation-answered", Must, &ids::ELICITATION_CLIENT_UNSUPPORTED_MODE_ERROR,
        "from 2025-11-25, answers an elicitation/create in url mode, which it did not declare, with {action: \"decline\"} instead of -32602"),
    row(F::ElicitationModeRequired, "elicitation-mode-required", Must, &ids::ELICITATION_CLIENT_MODE_DEFAULT_FORM,
        "from 2025-11-25, answers an elicitation/create without a mode with -32602 instead of taking it as a form"),
    row(F::CrashOnUnknownComplete, "crash-on-unknown-complete", Must, &ids::ELICITATION_CLIENT_IGNORE_UNKNOWN_COMPLETE,
        "from 2025-11-25, exits with status 1 on a notifications/elicitation/complete naming an elicitation it never saw instead of ignoring it"),
    // ── clientside (#15): pagination ─────────────────────────────────────
    row(F::EmptyCursorEnds, "empty-cursor-ends", Must, &ids::PAGINATION_CLIENT_EMPTY_CURSOR_CONTINUES,
        "takes an empty-string nextCursor for the end of a listing instead of following it"),
    row(F::FixedPageSize, "fixed-page-size", Must, &ids::PAGINATION_CLIENT_PAGE_SIZE,
        "takes a page that holds fewer items than the listing's first page for the last one, although it has a nextCursor"),
    row(F::FallbackOnlyMethodNotFound, "fallback-only-method-not-found", Must, &ids::STATELESS_CLIENT_FALLBACK_ANY_ERROR,
        "under 2026-07-28, falls back to initialize only when server/discover is answered -32601; any other plain error ends the session (exit 1)"),
    // ── clientside (#15): JSON Schema $ref ───────────────────────────────
    row(F::DerefNetworkRef, "deref-network-ref", Must, &ids::SCHEMA_REF_NO_NETWORK_DEREFERENCE,
        "fetches (HTTP GET) every http:// $ref in the inputSchema of each tool it lists"),
    row(F::FormModeRefused, "form-mode-refused", Must, &ids::ELICITATION_CAPABILITY_MODE,
        "from 2025-11-25, declares elicitation (an empty object: form mode) yet answers every form-mode elicitation/create with -32602, so it supports no mode at all"),
    // ── clientsse (#15): resuming a response stream the server cut ──────
    row(F::HttpResumeIgnoresRetry, "http-resume-ignores-retry", Must, &ids::HTTP_SSE_CLIENT_RESPECTS_RETRY,
        "resumes a response stream the server ended before its answer at once, whatever retry its last event carried").http_only(),
    row(F::HttpResumeWithoutLastEventId, "http-resume-without-last-event-id", Should, &ids::HTTP_RESUME_LAST_EVENT_ID,
        "resumes a response stream the server ended before its answer with a GET that carries no Last-Event-ID").http_only(),
    row(F::HttpNoResume, "http-no-resume", Should, &ids::HTTP_RESUME_LAST_EVENT_ID,
        "never resumes a response stream the server ended before its answer (no GET with Last-Event-ID)").http_only(),
    // ── authorization (#16): carried out by the driver's OAuth flow ──────
    row(F::AuthNoPkce, "auth-no-pkce", Must, &ids::AUTH_PKCE,
        "authorizes without PKCE: no code_challenge in the authorization request, no code_verifier in the token request").http_only(),
    row(F::AuthPlainPkce, "auth-plain-pkce", Must, &ids::AUTH_PKCE_S256,
        "uses the plain PKCE method (the verifier itself as the challenge) instead of S256").http_only(),
    row(F::AuthNoResource, "auth-no-resource", Must, &ids::AUTH_RESOURCE_INDICATORS,
        "from 2025-06-18, leaves the resource parameter out of its authorization and token requests").http_only(),
    row(F::AuthTokenInQuery, "auth-token-in-query", Must, &ids::AUTH_NO_TOKEN_IN_QUERY,
        "sends its access token as the access_token query parameter of the MCP endpoint instead of the Authorization header").http_only(),
    row(F::AuthIgnoresIss, "auth-ignores-iss", Must, &ids::AUTH_ISSUER_VALIDATE,
        "under 2026-07-28, redeems the code of an authorization response whatever its iss (wrong or missing)").http_only(),
    row(F::AuthIgnoresState, "auth-ignores-state", Should, &ids::AUTH_STATE,
        "redeems the code of an authorization response whose state is not the one it sent").http_only(),
    row(F::AuthAcceptsResourceMismatch, "auth-accepts-resource-mismatch", Must, &ids::AUTH_PRM_RESOURCE_MATCH,
        "uses Protected Resource Metadata whose resource names another server").http_only(),
    row(F::AuthWrongTokenAuth, "auth-wrong-token-auth", Must, &ids::AUTH_TOKEN_ENDPOINT_AUTH_METHOD,
        "authenticates at the token endpoint with a method the metadata does not offer: client_secret_basic where client_secret_post is offered, client_secret_post otherwise").http_only(),
    row(F::AuthNoScope, "auth-no-scope", Should, &ids::AUTH_SCOPE_SELECTION,
        "from 2025-11-25, leaves the scope parameter out of its first authorization request, whatever the challenge and scopes_supported name").http_only(),
    row(F::AuthLoopsOn401, "auth-retries-forever", Should, &ids::AUTH_STEP_UP_RETRY_LIMIT,
        "authorizes again after every 401, without limit, instead of giving up after two").http_only(),
    row(F::AuthOpenidFirst, "auth-openid-first", Must, &ids::AUTH_AS_METADATA_DISCOVERY_ORDER,
        "looks for authorization server metadata at the OpenID Connect URIs before the RFC 8414 ones").http_only(),
    row(F::AuthPrmRootFirst, "auth-prm-root-first", Must, &ids::AUTH_PRM_DISCOVERY_ORDER,
        "looks for Protected Resource Metadata at the root well-known URI first, ignoring the 401's resource_metadata").http_only(),
    row(F::AuthUnregisteredClientId, "auth-unregistered-client-id", Must, &ids::AUTH_REGISTRATION_CLIENT_ID,
        "authorizes with a client_id it made up instead of registering first").http_only(),
    row(F::AuthNoApplicationType, "auth-no-application-type", Must, &ids::AUTH_DCR_APPLICATION_TYPE,
        "leaves application_type out of its dynamic client registration request").http_only(),
    row(F::AuthIgnoresMetadataIssuer, "auth-ignores-metadata-issuer", Must, &ids::AUTH_AS_METADATA_ISSUER_VALIDATE,
        "uses authorization server metadata whose issuer is not the issuer it fetched it for").http_only(),
    row(F::AuthNoOpenid, "auth-no-openid", Must, &ids::AUTH_AS_METADATA_OPENID,
        "looks for authorization server metadata at the RFC 8414 URIs only, never at the OpenID Connect ones").http_only(),
    row(F::AuthPlainHttpRedirect, "auth-plain-http-redirect", Must, &ids::AUTH_REDIRECT_URI_LOCALHOST_OR_HTTPS,
        "registers and authorizes with a plain-http redirect URI on a remote host (neither localhost nor https)").http_only(),
    row(F::AuthUnregisteredRedirect, "auth-unregistered-redirect", Must, &ids::AUTH_REDIRECT_URI_REGISTERED,
        "authorizes with a redirect URI other than the one it registered").http_only(),
    row(F::AuthForeignToken, "auth-foreign-token", Must, &ids::AUTH_TOKEN_OWN_AUTHORIZATION_SERVER,
        "from 2025-06-18, shows the server a Bearer token it holds for another server on its first request, before authorizing").http_only(),
    row(F::AuthIgnoresPkceSupport, "auth-ignores-pkce-support", Must, &ids::AUTH_PKCE_VERIFY_SUPPORT,
        "from 2025-11-25, authorizes though the authorization server metadata lists no code_challenge_methods_supported").http_only(),
    row(F::AuthRefreshTokenLeaked, "auth-refresh-token-leaked", Must, &ids::AUTH_REFRESH_CONFIDENTIAL,
        "sends the refresh token it was issued to the MCP endpoint too (a refresh_token query parameter), not to the token endpoint alone").http_only(),
    row(F::AuthNeedsRefreshToken, "auth-needs-refresh-token", Must, &ids::AUTH_REFRESH_NOT_ASSUMED,
        "gives up when the token response carries no refresh token, never using the access token it got").http_only(),
    row(F::AuthIgnoresChallengeScope, "auth-ignores-challenge-scope", Must, &ids::AUTH_SCOPE_CHALLENGE_AUTHORITATIVE,
        "re-authorizes after a 403 insufficient_scope asking for the scope it asked for before, without the challenged one").http_only(),
    row(F::AuthStepUpDropsScopes, "auth-step-up-drops-scopes", Should, &ids::AUTH_STEP_UP_UNION,
        "re-authorizes after a 403 insufficient_scope asking for the challenged scope alone, dropping those it asked for before").http_only(),
    row(F::AuthRequiresIss, "auth-requires-iss", Must, &ids::AUTH_ISSUER_VALIDATE,
        "at 2026-07-28, refuses an authorization response without iss even when the metadata does not advertise iss support (RFC 9207 says proceed)").http_only(),
    row(F::AuthRepeatsRefusedRegistration, "auth-repeats-refused-registration", Must, &ids::AUTH_DCR_REDIRECT_REJECTION,
        "sends a dynamic registration request the authorization server refused again, unchanged, twice more before giving up").http_only(),
    row(F::AuthReusesCredentials, "auth-reuses-credentials", Must, &ids::AUTH_CREDENTIALS_REREGISTER,
        "keeps the client id and secret of its first registration and presents them to whatever authorization server the metadata names later, instead of registering again").http_only(),
    row(F::AuthScopeWhenUndefined, "auth-scope-when-undefined", Should, &ids::AUTH_SCOPE_SELECTION,
        "from 2025-11-25, asks for a scope of its own (mcp:all) when neither the challenge nor the Protected Resource Metadata defines any, instead of leaving scope out").http_only(),
    row(F::AuthCimdHttpUrl, "auth-cimd-http-url", Must, &ids::AUTH_CIMD_HTTPS_URL,
        "names itself by a client ID metadata document URL over plain http, not https").http_only(),
    row(F::AuthCimdUnadvertised, "auth-cimd-unadvertised", Should, &ids::AUTH_CIMD_CHECK_SUPPORT,
        "uses its client ID metadata document URL as client_id without checking that the authorization server metadata advertises client_id_metadata_document_supported").http_only(),
    row(F::AuthIgnoresCimd, "auth-ignores-cimd", Should, &ids::AUTH_CIMD_SUPPORTED,
        "registers dynamically even where the authorization server advertises client ID metadata documents").http_only(),
    row(F::AuthIgnoresPreregistration, "auth-ignores-preregistration", Should, &ids::AUTH_PREREGISTRATION_OPTION,
        "leaves the static credentials it was given (--client-id, --client-secret) unused and names itself some other way").http_only(),
];

impl ClientFault {
    /// Every fault, in table order.
    pub fn all() -> impl Iterator<Item = ClientFault> {
        TABLE.iter().map(|e| e.fault)
    }

    pub fn entry(self) -> &'static FaultEntry {
        &TABLE[self as usize]
    }

    /// Kebab-case name, as given to `--fault`.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The rule the fault breaks.
    pub fn requirement(self) -> &'static Requirement {
        self.entry().requirement
    }

    pub fn level(self) -> Level {
        self.entry().level
    }

    pub fn description(self) -> &'static str {
        self.entry().description
    }

    /// The transports over which the fault's violation exists; a
    /// self-validation run tries the fault over these only.
    pub fn transports(self) -> &'static [Transport] {
        self.entry().transports
    }

    pub fn applies_to(self, transport: Transport) -> bool {
        self.transports().contains(&transport)
    }

    pub fn from_name(name: &str) -> Option<ClientFault> {
        TABLE.iter().find(|e| e.name == name).map(|e| e.fault)
    }

    /// The word of [`ClientFaults`] holding the fault, and its bit there.
    fn bit(self) -> (usize, u64) {
        let i = self as usize;
        (i / 64, 1 << (i % 64))
    }
}

impl fmt::Display for ClientFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Words of [`ClientFaults`]: room for 128 faults.
const FAULT_WORDS: usize = 2;

/// A set of client faults, cheap to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClientFaults([u64; FAULT_WORDS]);

impl ClientFaults {
    pub(crate) fn new(faults: &[ClientFault]) -> Self {
        let mut words = [0; FAULT_WORDS];
        for f in faults {
            let (w, bit) = f.bit();
            words[w] |= bit;
        }
        ClientFaults(words)
    }

    pub(crate) fn has(self, fault: ClientFault) -> bool {
        let (w, bit) = fault.bit();
        self.0[w] & bit != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn table_is_in_enum_order_with_unique_kebab_names() {
        let mut names = HashSet::new();
        for (i, e) in TABLE.iter().enumerate() {
            assert_eq!(e.fault as usize, i, "{} is out of order", e.name);
            assert!(names.insert(e.name), "duplicate name {}", e.name);
            assert!(e.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert_eq!(ClientFault::from_name(e.name), Some(e.fault));
            assert!(!e.description.is_empty());
            assert!(!e.transports.is_empty());
            // Exactly the HTTP header faults are restricted to HTTP.
            let http = e.name.starts_with("http-")
                || e.name.starts_with("auth-")
                || e.fault == ClientFault::HeaderMetaMismatch;
            assert_eq!(e.transports == HTTP, http, "{}", e.name);
            assert_eq!(e.fault.applies_to(Transport::Stdio), !http);
        }
        assert!(
            TABLE.len() <= 64 * FAULT_WORDS,
            "ClientFaults holds {FAULT_WORDS} words"
        );
        assert_eq!(ClientFault::from_name("nope"), None);
    }

    #[test]
    fn every_requirement_is_at_the_stated_level() {
        for e in &TABLE {
            let id = e.requirement.id;
            assert_eq!(e.requirement.level, e.level, "{}: level of {id}", e.name);
        }
    }

    #[test]
    fn fault_set_membership() {
        let set = ClientFaults::new(&[ClientFault::NoBatch, ClientFault::NoResponseToUnknown]);
        assert!(set.has(ClientFault::NoBatch) && set.has(ClientFault::NoResponseToUnknown));
        assert!(!set.has(ClientFault::SkipInitialized));
        assert!(!ClientFaults::default().has(ClientFault::NoBatch));
        // Past the first word.
        let late = ClientFaults::new(&[ClientFault::AuthNoOpenid]);
        assert!(late.has(ClientFault::AuthNoOpenid) && !late.has(ClientFault::SkipInitialized));
    }
}
