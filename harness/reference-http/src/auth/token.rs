//! The token endpoint of the demo authorization server (OAuth 2.1 §3.2):
//! the authorization code grant (PKCE S256 and the `resource` of the
//! authorization request checked) and the refresh token grant.
//!
//! Clients are public, so refresh tokens rotate (OAuth 2.1 §4.3.1): a
//! refresh answers with a new refresh token, and the one it used stops
//! working. Fault: `auth-refresh-not-rotated` answers with the same refresh
//! token, which keeps working.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use mcpspec_engine::oauth::pkce;
use mcpspec_reference::Fault;
use serde_json::json;

use super::issuer::{form, oauth_error};
use super::{json_response, lock, Auth, SCOPE};
use crate::App;

/// What a refresh token stands for.
#[derive(Debug, Clone)]
pub(crate) struct Refresh {
    client_id: String,
    /// The resource its access tokens are for.
    audience: String,
}

/// An access token and a refresh token for `audience`, as the token
/// endpoint answers them.
fn grant(auth: &Auth, client_id: &str, audience: String, refresh: Option<String>) -> Response {
    let token = auth.issue(audience.clone());
    let refresh = refresh.unwrap_or_else(super::random_token);
    lock(&auth.refresh).insert(
        refresh.clone(),
        Refresh {
            client_id: client_id.to_owned(),
            audience,
        },
    );
    json_response(
        StatusCode::OK,
        &json!({
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": super::TOKEN_LIFETIME.as_secs(),
            "refresh_token": refresh,
            "scope": SCOPE,
        }),
    )
}

/// The token endpoint.
pub(crate) async fn token(State(app): State<App>, body: Bytes) -> Response {
    let Some(auth) = app.auth() else {
        return oauth_error(StatusCode::NOT_FOUND, "not_found", "no token endpoint");
    };
    let f = form(&body);
    let get = |k: &str| f.get(k).map(String::as_str).unwrap_or("");
    match get("grant_type") {
        "authorization_code" => {}
        "refresh_token" => return refresh(&app, auth, get("refresh_token"), get("client_id")),
        _ => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "only authorization_code and refresh_token",
            )
        }
    }
    // A code is good once: taken out whatever happens next.
    let Some(code) = lock(&auth.codes).remove(get("code")) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "unknown or used code",
        );
    };
    let invalid = |why: &str| oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why);
    if code.client_id != get("client_id") || code.redirect_uri != get("redirect_uri") {
        return invalid("client_id or redirect_uri differ from the authorization request");
    }
    if pkce::verify_s256(get("code_verifier"), &code.challenge).is_err() {
        return invalid("code_verifier does not match the code_challenge (S256)");
    }
    if !get("resource").is_empty() && get("resource") != code.resource {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_target",
            "resource differs from the authorization request",
        );
    }
    grant(auth, &code.client_id, code.resource, None)
}

/// The refresh token grant (OAuth 2.1 §4.3): a public client names itself
/// with `client_id`; the refresh token is used up unless the fault.
fn refresh(app: &App, auth: &Auth, token: &str, client_id: &str) -> Response {
    let keep = app.has(Fault::AuthRefreshNotRotated);
    let found = {
        let mut all = lock(&auth.refresh);
        match all.get(token) {
            Some(r) if r.client_id == client_id => {
                if keep {
                    all.get(token).cloned()
                } else {
                    all.remove(token)
                }
            }
            _ => None,
        }
    };
    let Some(r) = found else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "unknown or used refresh token, or issued to another client",
        );
    };
    grant(
        auth,
        &r.client_id,
        r.audience,
        keep.then(|| token.to_owned()),
    )
}
