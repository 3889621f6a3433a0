//! The demo authorization server of OAuth mode (issuer: the listener's
//! origin): RFC 8414 metadata, dynamic client registration (RFC 7591,
//! public clients), an authorize endpoint that approves at once, and a
//! token endpoint (`token.rs`).
//!
//! Errors follow OAuth 2.1: at the authorize endpoint, before the client and
//! redirect URI are known good, a 400 page; after, a redirect with `error`;
//! at the token and registration endpoints, 400 with a JSON `error` body.
//!
//! Faults: `auth-as-metadata-no-s256` advertises only `plain` in
//! `code_challenge_methods_supported`; `auth-as-metadata-missing` serves no
//! metadata (404); `auth-redirect-uri-prefix-match` accepts a redirect URI
//! that starts with a registered one; `auth-open-redirect` redirects an
//! unregistered redirect URI with an error; `auth-iss-not-advertised` drops
//! `authorization_response_iss_parameter_supported` (while still sending
//! `iss`); `auth-oidc-no-pkce` drops `code_challenge_methods_supported` from
//! the OpenID copy; `auth-plain-http-endpoint` advertises a revocation
//! endpoint over plain http off loopback. The token endpoint is `token.rs`.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::Response;
use bytes::Bytes;
use mcpspec_reference::Fault;
use serde_json::{json, Value};

use super::{json_response, lock, SCOPE};
use crate::App;

pub(crate) const METADATA_PATH: &str = "/.well-known/oauth-authorization-server";
pub(crate) const OPENID_PATH: &str = "/.well-known/openid-configuration";
pub(crate) const REGISTER_PATH: &str = "/register";
pub(crate) const AUTHORIZE_PATH: &str = "/authorize";
pub(crate) const TOKEN_PATH: &str = "/token";
pub(crate) const JWKS_PATH: &str = "/jwks";

/// A code the authorize endpoint handed out, and what redeeming it must match.
#[derive(Debug, Clone)]
pub(crate) struct Code {
    pub(super) client_id: String,
    pub(super) redirect_uri: String,
    pub(super) challenge: String,
    /// The resource the token will be for.
    pub(super) resource: String,
}

/// 128 random bits as hex: tokens, codes, client ids.
pub(crate) fn random_token() -> String {
    crate::ids::session_id(false)
}

/// Outside OAuth mode these endpoints do not exist.
fn not_found() -> Response {
    json_response(StatusCode::NOT_FOUND, &json!({ "error": "not_found" }))
}

pub(super) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    json_response(
        status,
        &json!({ "error": error, "error_description": description }),
    )
}

/// The metadata document, as RFC 8414 §2 and OpenID Connect Discovery §3
/// both read it (`openid`: the OpenID Connect discovery copy).
fn metadata_doc(app: &App, origin: &str, openid: bool) -> Value {
    let o = origin;
    let methods = if app.has(Fault::AuthAsMetadataNoS256) {
        json!(["plain"])
    } else {
        json!(["S256"])
    };
    let mut doc = json!({
        "issuer": o,
        "authorization_endpoint": format!("{o}{AUTHORIZE_PATH}"),
        "token_endpoint": format!("{o}{TOKEN_PATH}"),
        "registration_endpoint": format!("{o}{REGISTER_PATH}"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": methods,
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": [SCOPE],
        "authorization_response_iss_parameter_supported": true,
    });
    let Value::Object(m) = &mut doc else {
        return doc;
    };
    if openid {
        // OpenID Connect Discovery 1.0 §3 requires these too (an SDK client
        // refuses the document without them); the demo issues no ID token,
        // so its key set is empty.
        m.insert("jwks_uri".into(), json!(format!("{o}{JWKS_PATH}")));
        m.insert("subject_types_supported".into(), json!(["public"]));
        m.insert(
            "id_token_signing_alg_values_supported".into(),
            json!(["RS256"]),
        );
    }
    if app.has(Fault::AuthIssNotAdvertised) {
        m.remove("authorization_response_iss_parameter_supported");
    }
    if openid && app.has(Fault::AuthOidcNoPkce) {
        m.remove("code_challenge_methods_supported");
    }
    if app.has(Fault::AuthPlainHttpEndpoint) {
        m.insert("revocation_endpoint".into(), json!(PLAIN_HTTP_REVOCATION));
    }
    doc
}

/// Where `auth-plain-http-endpoint` says tokens are revoked: plain http on a
/// host that is not loopback (nothing is ever sent there).
const PLAIN_HTTP_REVOCATION: &str = "http://auth.mcpspec.example/revoke";

/// The authorization server metadata (RFC 8414 §2).
pub(crate) async fn metadata(State(app): State<App>) -> Response {
    let Some(auth) = app.auth() else {
        return not_found();
    };
    if app.has(Fault::AuthAsMetadataMissing) {
        return oauth_error(StatusCode::NOT_FOUND, "not_found", "no metadata here");
    }
    json_response(StatusCode::OK, &metadata_doc(&app, &auth.origin, false))
}

/// The same metadata at the OpenID Connect discovery URL (an issuer without
/// a path: `/.well-known/openid-configuration`), where 2025-11-25 clients
/// look when RFC 8414's is not served.
pub(crate) async fn openid_configuration(State(app): State<App>) -> Response {
    let Some(auth) = app.auth() else {
        return not_found();
    };
    json_response(StatusCode::OK, &metadata_doc(&app, &auth.origin, true))
}

/// The key set the OpenID document names: empty (no ID token is issued).
pub(crate) async fn jwks(State(app): State<App>) -> Response {
    if app.auth().is_none() {
        return not_found();
    }
    json_response(StatusCode::OK, &json!({ "keys": [] }))
}

/// Dynamic client registration (RFC 7591 §3): public clients only.
pub(crate) async fn register(State(app): State<App>, body: Bytes) -> Response {
    let Some(auth) = app.auth() else {
        return not_found();
    };
    let meta: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let uris: Vec<String> = meta
        .get("redirect_uris")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if uris.is_empty() {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris must list at least one URI",
        );
    }
    let client_id = random_token();
    lock(&auth.clients).insert(client_id.clone(), uris.clone());
    let mut doc = meta;
    if let Value::Object(m) = &mut doc {
        m.insert("client_id".into(), json!(client_id));
        m.insert("redirect_uris".into(), json!(uris));
        m.insert("token_endpoint_auth_method".into(), json!("none"));
        m.insert(
            "grant_types".into(),
            json!(["authorization_code", "refresh_token"]),
        );
        m.insert("response_types".into(), json!(["code"]));
    }
    json_response(StatusCode::CREATED, &doc)
}

pub(super) fn form(bytes: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(bytes).into_owned().collect()
}

/// The authorize endpoint: approves at once and redirects with a code.
pub(crate) async fn authorize(State(app): State<App>, uri: Uri) -> Response {
    let Some(auth) = app.auth() else {
        return not_found();
    };
    let q = form(uri.query().unwrap_or("").as_bytes());
    let get = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
    let client_id = get("client_id");
    let redirect_uri = get("redirect_uri");
    // Redirect URIs compare exactly (OAuth 2.1 §7.12.2), unless the fault.
    let prefix = app.has(Fault::AuthRedirectUriPrefixMatch);
    let known = lock(&auth.clients).get(client_id).is_some_and(|uris| {
        uris.iter()
            .any(|u| u == redirect_uri || (prefix && redirect_uri.starts_with(u.as_str())))
    });
    if !known {
        if app.has(Fault::AuthOpenRedirect) {
            if let Ok(mut elsewhere) = url::Url::parse(redirect_uri) {
                elsewhere
                    .query_pairs_mut()
                    .append_pair("error", "invalid_request");
                return redirect(&elsewhere);
            }
        }
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "unknown client_id, or a redirect_uri it did not register",
        );
    }
    let mut back = match url::Url::parse(redirect_uri) {
        Ok(u) => u,
        Err(_) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "bad redirect_uri",
            )
        }
    };
    let resource = if get("resource").is_empty() {
        auth.resource()
    } else {
        get("resource").to_owned()
    };
    let refusal = if get("response_type") != "code" {
        Some(("unsupported_response_type", "only response_type=code"))
    } else if get("code_challenge").is_empty() || get("code_challenge_method") != "S256" {
        Some((
            "invalid_request",
            "PKCE with code_challenge_method=S256 is required",
        ))
    } else if resource != auth.resource() && resource != auth.other_resource() {
        Some((
            "invalid_target",
            "the resource is not served by this authorization server",
        ))
    } else {
        None
    };
    {
        let mut pairs = back.query_pairs_mut();
        match refusal {
            Some((error, description)) => {
                pairs.append_pair("error", error);
                pairs.append_pair("error_description", description);
            }
            None => {
                let code = random_token();
                lock(&auth.codes).insert(
                    code.clone(),
                    Code {
                        client_id: client_id.to_owned(),
                        redirect_uri: redirect_uri.to_owned(),
                        challenge: get("code_challenge").to_owned(),
                        resource,
                    },
                );
                pairs.append_pair("code", &code);
            }
        }
        if !get("state").is_empty() {
            pairs.append_pair("state", get("state"));
        }
        pairs.append_pair("iss", &auth.origin);
    }
    redirect(&back)
}

/// 302 Found to `to`.
fn redirect(to: &url::Url) -> Response {
    let mut response = crate::checks::empty(StatusCode::FOUND);
    if let Ok(v) = HeaderValue::from_str(to.as_str()) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    response
}
