//! The keys of a scenario file's own maps: the top level, `requires` and
//! `auth` (the steps' maps are in `super::steps`).

use super::*;
use crate::model::SessionMode;

pub(crate) static TOP: MapDef = MapDef {
    keys: &[
        req(
            "id",
            "The scenario id: the file path below scenarios/ without .yaml; stable forever",
            Shape::ScenarioId,
        ),
        req(
            "title",
            "What the scenario checks, one line",
            Shape::OneLine,
        ),
        req(
            "requirements",
            "Requirement ids from the engine's requirement catalogue",
            Shape::RequirementIds,
        ),
        req("level", LEVEL_DOC, Shape::Level),
        opt(
            "versions",
            "Protocol versions to run for: handshake (default), all, a version or a list",
            Shape::Versions,
        ),
        opt(
            "transports",
            "The transports the scenario applies to: all (default) or a list",
            Shape::Transports,
        ),
        opt(
            "session",
            "initialized (default: the runner performs the handshake) or fresh (nothing sent)",
            Shape::Session,
        ),
        opt(
            "requires",
            "Gates: when unmet, the case is not applicable",
            Shape::Map(&REQUIRES),
        ),
        opt(
            "client_capabilities",
            "Server scenarios: the capabilities the harness declares as the client (initialize, 2026-07-28 _meta); default {}",
            Shape::Object,
        ),
        opt(
            "extension",
            "An opt-in extension (tasks, skills): the cases run only under --extension NAME",
            Shape::Extension,
        ),
        opt(
            "auth",
            "Client scenarios over Streamable HTTP: the scripted server is protected; how its authorization server behaves",
            Shape::Map(&AUTH),
        ),
        opt(
            "timeout",
            "Hard limit for the whole case (default 30s)",
            Shape::Duration,
        ),
        opt(
            "isolate",
            "true: every case gets a target process of its own (default: the runner infers which cases may share one)",
            Shape::Bool,
        ),
        opt("notes", "Why the scenario is shaped this way", Shape::Text),
        req("steps", "The steps, in order (at least one)", Shape::Steps),
    ],
    // `requires.auth` is learnt over HTTP, not negotiated: fresh allows it.
    rules: &[Rule::ExcludesMembers {
        key: "session",
        when: Lit::Str(SessionMode::Fresh.as_str()),
        map: "requires",
        members: &["capabilities", "http_session"],
    }],
};

pub(crate) static REQUIRES: MapDef = MapDef::new(&[
    opt(
        "capabilities",
        "Dotted paths into the server's capabilities (tools, resources.subscribe)",
        Shape::CapabilityPaths,
    ),
    opt(
        "http_session",
        "Streamable HTTP: the server issued an Mcp-Session-Id at initialize",
        Shape::Bool,
    ),
    opt(
        "auth",
        "Authorization: protected (the target wants a token), token (the run holds one: --auth-token), other_audience (and one for another resource)",
        Shape::AuthGate,
    ),
]);

pub(crate) static AUTH: MapDef = MapDef::new(&[
    opt(
        "metadata_hint",
        "challenge (default: the 401 names the Protected Resource Metadata URL) or well_known (it does not)",
        Shape::OneOf(crate::AuthScript::METADATA_HINT_CHOICES),
    ),
    opt("scope", "The scope of the 401 challenge", Shape::NonEmpty),
    opt(
        "prm_resource",
        "canonical (default: the metadata's resource is the server's URI) or mismatch",
        Shape::OneOf(crate::AuthScript::PRM_RESOURCE_CHOICES),
    ),
    opt(
        "iss",
        "correct (default), wrong, absent or normalized (the issuer with a trailing slash): the iss of the authorization response",
        Shape::OneOf(crate::AuthScript::ISS_CHOICES),
    ),
    opt(
        "iss_support",
        "advertised (default) or unadvertised: whether the metadata advertises authorization_response_iss_parameter_supported (2026-07-28)",
        Shape::OneOf(crate::AuthScript::ISS_SUPPORT_CHOICES),
    ),
    opt(
        "state",
        "echo (default) or altered: the state of the authorization response",
        Shape::OneOf(crate::AuthScript::STATE_CHOICES),
    ),
    opt(
        "token_auth",
        "none (default), client_secret_basic or client_secret_post: the token endpoint's client authentication",
        Shape::OneOf(crate::AuthScript::TOKEN_AUTH_CHOICES),
    ),
    opt(
        "as_metadata",
        "all (default: every well-known URI) or openid_only: where the authorization server metadata is served",
        Shape::OneOf(crate::AuthScript::AS_METADATA_CHOICES),
    ),
    opt(
        "token_use",
        "accepted (default) or refused: the MCP endpoint answers 401 whatever token a request carries",
        Shape::OneOf(crate::AuthScript::TOKEN_USE_CHOICES),
    ),
    opt(
        "as_issuer",
        "correct (default) or mismatch: the issuer the authorization server metadata names",
        Shape::OneOf(crate::AuthScript::AS_ISSUER_CHOICES),
    ),
    opt(
        "as_pkce",
        "s256 (default) or absent: whether the authorization server metadata lists code_challenge_methods_supported",
        Shape::OneOf(crate::AuthScript::AS_PKCE_CHOICES),
    ),
    opt(
        "refresh_token",
        "withheld (default) or issued: whether the token endpoint issues a refresh token with the access token",
        Shape::OneOf(crate::AuthScript::REFRESH_TOKEN_CHOICES),
    ),
    opt(
        "registration",
        "accepted (default); refused_redirect: dynamic registration refuses every request with 400 invalid_redirect_uri; preregistered: no dynamic registration, the client gets static credentials through {client_id} and {client_secret} in its command line (a case whose command has no {client_id} is not applicable)",
        Shape::OneOf(crate::AuthScript::REGISTRATION_CHOICES),
    ),
    opt(
        "cimd",
        "unsupported (default) or supported: whether the authorization server metadata advertises client_id_metadata_document_supported (client ID metadata documents)",
        Shape::OneOf(crate::AuthScript::CIMD_CHOICES),
    ),
    opt(
        "migration",
        "none (default) or after_token: once the client used a token, its tokens are refused with 401 and the Protected Resource Metadata names a second authorization server",
        Shape::OneOf(crate::AuthScript::MIGRATION_CHOICES),
    ),
    opt(
        "scopes_supported",
        "listed (default) or omitted: whether the Protected Resource Metadata and the authorization server metadata list scopes_supported",
        Shape::OneOf(crate::AuthScript::SCOPES_SUPPORTED_CHOICES),
    ),
    opt(
        "step_up",
        "A scope every MCP request needs once the client holds a token: a token without it is answered 403 insufficient_scope naming it",
        Shape::NonEmpty,
    ),
]);
