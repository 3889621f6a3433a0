//! OAuth mode (`mcpspec reference server --http ADDR --auth`): the
//! Streamable HTTP endpoint becomes a protected resource, and the same
//! listener serves the authorization server that issues its tokens.
//!
//! ```text
//!   POST/GET/DELETE /mcp ── guard ──► the MCP endpoint (`streamable`)
//!       no or unknown token, or a token for another resource: 401 with
//!       WWW-Authenticate: Bearer resource_metadata="…", scope="…"
//!   GET /.well-known/oauth-protected-resource/mcp   Protected Resource
//!   GET /.well-known/oauth-protected-resource       Metadata (RFC 9728)
//!   GET /.well-known/oauth-authorization-server     AS metadata (RFC 8414) ┐
//!   GET /.well-known/openid-configuration  GET /jwks  the same (OpenID)      │ `issuer`
//!   POST /register   GET /authorize   POST /token                          ┘ `issuer`, `token`
//! ```
//!
//! The authorization server is a demo one, as SDK example servers ship:
//! clients register dynamically (RFC 7591, public clients only), the
//! authorize endpoint approves at once (no login page) and redirects with
//! `code`, `state` and `iss`, and the token endpoint redeems a code only
//! with the PKCE S256 verifier, answering with an access token and a
//! refresh token (rotated on every refresh: clients are public). The `resource` parameter (RFC 8707) picks
//! the token's audience among the two resources this server knows: the MCP
//! endpoint `{origin}/mcp` and `{origin}/other` (a resource that is not the
//! MCP server, whose tokens the MCP endpoint must refuse). Tokens are opaque
//! random strings kept in memory for an hour.
//!
//! Only Streamable HTTP is protected: the legacy HTTP+SSE transport belongs
//! to 2024-11-05, which has no authorization.
//!
//! Faults (one rule each): `auth-no-challenge`,
//! `auth-challenge-no-resource-metadata`, `auth-invalid-token-accepted`,
//! `auth-other-audience-accepted`, `auth-prm-resource-mismatch`,
//! `auth-prm-no-authorization-servers`, `auth-as-metadata-no-s256`,
//! `auth-challenge-no-scope`, `auth-missing-token-accepted`,
//! `auth-prm-missing`, `auth-as-metadata-missing`,
//! `auth-redirect-uri-prefix-match`, `auth-open-redirect`,
//! `auth-refresh-not-rotated`, `auth-iss-not-advertised`, `auth-oidc-no-pkce`,
//! `auth-plain-http-endpoint` (each named `http-auth-*`).

mod issuer;
mod token;

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use mcpspec_reference::Fault;
use serde_json::{json, Value};

use crate::App;

pub(crate) use issuer::random_token;

/// Where the Protected Resource Metadata of `/mcp` lives (RFC 9728 §3.1:
/// the well-known prefix inserted before the resource's path).
pub const PRM_PATH: &str = "/.well-known/oauth-protected-resource/mcp";
/// The same document at the origin's root (where 2025-11-25 clients look next).
pub const PRM_ROOT_PATH: &str = "/.well-known/oauth-protected-resource";
/// Path of the second resource the authorization server issues tokens for.
pub const OTHER_RESOURCE_PATH: &str = "/other";
/// The scope every token for the MCP endpoint carries (and the challenge names).
pub const SCOPE: &str = "mcp:tools";
/// How long a token lives.
const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);

/// A token the authorization server issued.
#[derive(Debug, Clone)]
struct Grant {
    /// The resource it was issued for (`resource` of the request).
    audience: String,
    expires: Instant,
}

/// The state of OAuth mode: the origin and what the authorization server issued.
#[derive(Debug)]
pub(crate) struct Auth {
    /// `http://IP:PORT`, as the listener is bound.
    origin: String,
    tokens: Mutex<HashMap<String, Grant>>,
    /// Pending authorization codes → what redeeming one must match.
    codes: Mutex<HashMap<String, issuer::Code>>,
    /// Registered clients → their redirect URIs.
    clients: Mutex<HashMap<String, Vec<String>>>,
    /// Live refresh tokens → what they stand for.
    refresh: Mutex<HashMap<String, token::Refresh>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain maps behind; keep going.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Auth {
    pub(crate) fn new(origin: String) -> Self {
        Auth {
            origin,
            tokens: Mutex::default(),
            codes: Mutex::default(),
            clients: Mutex::default(),
            refresh: Mutex::default(),
        }
    }

    /// The MCP endpoint's canonical resource URI.
    pub(crate) fn resource(&self) -> String {
        format!("{}{}", self.origin, crate::MCP_PATH)
    }

    fn other_resource(&self) -> String {
        format!("{}{OTHER_RESOURCE_PATH}", self.origin)
    }

    fn prm_url(&self) -> String {
        format!("{}{PRM_PATH}", self.origin)
    }

    fn issue(&self, audience: String) -> String {
        let token = random_token();
        let grant = Grant {
            audience,
            expires: Instant::now() + TOKEN_LIFETIME,
        };
        lock(&self.tokens).insert(token.clone(), grant);
        token
    }

    /// The audience of a live token.
    fn audience_of(&self, token: &str) -> Option<String> {
        let tokens = lock(&self.tokens);
        let grant = tokens.get(token)?;
        (grant.expires > Instant::now()).then(|| grant.audience.clone())
    }
}

/// The routes OAuth mode adds (metadata documents and the authorization server).
pub(crate) fn routes() -> Router<App> {
    Router::new()
        .route(PRM_PATH, get(protected_resource_metadata))
        .route(PRM_ROOT_PATH, get(protected_resource_metadata))
        .route(issuer::METADATA_PATH, get(issuer::metadata))
        .route(issuer::REGISTER_PATH, post(issuer::register))
        .route(issuer::AUTHORIZE_PATH, get(issuer::authorize))
        .route(issuer::OPENID_PATH, get(issuer::openid_configuration))
        .route(issuer::JWKS_PATH, get(issuer::jwks))
        .route(issuer::TOKEN_PATH, post(token::token))
}

/// Why a request's token is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Refusal {
    /// No `Authorization: Bearer` credentials at all.
    Missing,
    /// A token that is unknown, expired, or for another resource.
    Invalid(&'static str),
}

/// Lets a request through to the MCP endpoint only with a live token
/// issued for it; answers 401 with a challenge otherwise.
pub(crate) async fn guard(State(app): State<App>, req: Request, next: Next) -> Response {
    let Some(auth) = app.auth() else {
        return next.run(req).await;
    };
    match check(&app, auth, req.headers().get(header::AUTHORIZATION)) {
        Ok(()) => next.run(req).await,
        Err(refusal) => unauthorized(&app, auth, &refusal),
    }
}

fn check(app: &App, auth: &Auth, value: Option<&HeaderValue>) -> Result<(), Refusal> {
    let token = value
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        return if app.has(Fault::AuthMissingTokenAccepted) {
            Ok(())
        } else {
            Err(Refusal::Missing)
        };
    };
    if app.has(Fault::AuthInvalidTokenAccepted) {
        return Ok(());
    }
    let audience = auth
        .audience_of(token)
        .ok_or(Refusal::Invalid("the access token is unknown or expired"))?;
    if audience != auth.resource() && !app.has(Fault::AuthOtherAudienceAccepted) {
        return Err(Refusal::Invalid(
            "the access token was issued for another resource",
        ));
    }
    Ok(())
}

/// 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3, RFC 9728 §5.1).
fn unauthorized(app: &App, auth: &Auth, refusal: &Refusal) -> Response {
    let mut params = Vec::new();
    if let Refusal::Invalid(why) = refusal {
        params.push("error=\"invalid_token\"".to_owned());
        params.push(format!("error_description=\"{why}\""));
    }
    if !app.has(Fault::AuthChallengeNoResourceMetadata) {
        params.push(format!("resource_metadata=\"{}\"", auth.prm_url()));
    }
    if !app.has(Fault::AuthChallengeNoScope) {
        params.push(format!("scope=\"{SCOPE}\""));
    }
    let body = json!({ "error": match refusal {
        Refusal::Missing => "unauthorized",
        Refusal::Invalid(_) => "invalid_token",
    }});
    let mut response = json_response(StatusCode::UNAUTHORIZED, &body);
    if !app.has(Fault::AuthNoChallenge) {
        let challenge = format!("Bearer {}", params.join(", "));
        if let Ok(v) = HeaderValue::from_str(&challenge) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
    }
    response
}

/// The Protected Resource Metadata of the MCP endpoint (RFC 9728 §2).
async fn protected_resource_metadata(State(app): State<App>) -> Response {
    let Some(auth) = app.auth().filter(|_| !app.has(Fault::AuthPrmMissing)) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let resource = if app.has(Fault::AuthPrmResourceMismatch) {
        auth.other_resource()
    } else {
        auth.resource()
    };
    let mut doc = json!({
        "resource": resource,
        "authorization_servers": [auth.origin.clone()],
        "scopes_supported": [SCOPE],
        "bearer_methods_supported": ["header"],
        "resource_name": "mcpspec reference server",
    });
    if app.has(Fault::AuthPrmNoAuthorizationServers) {
        if let Value::Object(m) = &mut doc {
            m.remove("authorization_servers");
        }
    }
    json_response(StatusCode::OK, &doc)
}

/// A JSON document answer.
pub(crate) fn json_response(status: StatusCode, doc: &Value) -> Response {
    crate::checks::json_response(status, doc.to_string().into_bytes(), crate::checks::JSON)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_expire_and_name_their_audience() {
        let auth = Auth::new("http://127.0.0.1:1".into());
        let t = auth.issue(auth.resource());
        assert_eq!(auth.audience_of(&t), Some("http://127.0.0.1:1/mcp".into()));
        assert_eq!(auth.audience_of("nope"), None);
        lock(&auth.tokens).get_mut(&t).unwrap().expires = Instant::now();
        assert_eq!(auth.audience_of(&t), None);
    }
}
