//! Authorization of a Streamable HTTP server under test (`requires.auth`):
//! the gate that decides whether a case applies, the discovery that binds
//! where the server's metadata is, and the rule-by-rule check of a metadata
//! document an `http` step fetched (`judge:`).
//!
//! The gate and the discovery judge nothing: they only learn, the way a
//! client would, what the scenario's own steps then fetch and judge.
//!
//! - **Gate.** `protected`: the run holds a token (`--auth-token`, the
//!   user's word that the server is protected), or a POST without
//!   credentials is answered 401; otherwise the case is not applicable.
//!   `token` and `other_audience` also need the tokens themselves.
//! - **Bindings.** `auth.token`, `auth.other_audience_token` (when given);
//!   `auth.resource` (the canonical URI of `--url`); `auth.challenge` (the
//!   parsed `WWW-Authenticate: Bearer` challenge of that unauthenticated
//!   POST, or null); from 2025-06-18 `auth.prm_url` (the challenge's
//!   `resource_metadata`, else the first well-known URL that serves a
//!   document, else the first one); `auth.issuer` (the first of the PRM's
//!   `authorization_servers`; at 2025-03-26 the authorization base URL) and
//!   `auth.as_metadata_url` (the first of the version's well-known URLs for
//!   it that serves a document, else the first); `auth.openid_metadata_url`
//!   (the first OpenID Connect discovery URL of the version that serves a
//!   document; unbound when none does).
//!
//! The URLs, the challenge parser and the document checks are the engine's
//! sans-IO primitives (`mcpspec_engine::oauth`): one rule, one place.

use std::time::Duration;

use mcpspec_engine::oauth::{self, BearerChallenge, MetadataKind};
use mcpspec_engine::{Lifecycle, Version};
use mcpspec_scenario::{AuthGate, HttpStep, HttpUrl, MetadataDoc, Step};
use mcpspec_transport::{Connection, HeaderMode, RawRequest, RawResponse};
use serde_json::{json, Value};

use crate::case::{Ctx, Stop};
use crate::outcome::Blame;

/// The well-known path segment of OpenID Connect discovery.
const OPENID_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// The tokens the user gave the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthTokens {
    /// `--auth-token`: a token the server accepts (sent on every request).
    pub token: Option<String>,
    /// `--auth-token-other-audience`: a valid token issued for another resource.
    pub other_audience: Option<String>,
}

/// What the challenge of a response says, as the `challenge` member of an
/// `http` step's response object: null without `WWW-Authenticate`;
/// `{ "malformed": why }` when it holds no readable `Bearer` challenge.
pub fn challenge_object(www_authenticate: Option<&str>) -> Value {
    let Some(header) = www_authenticate else {
        return Value::Null;
    };
    match BearerChallenge::parse(header) {
        Ok(c) => {
            let mut o = serde_json::Map::new();
            o.insert("scheme".into(), json!("Bearer"));
            let members = [
                ("realm", &c.realm),
                ("resource_metadata", &c.resource_metadata),
                ("scope", &c.scope),
                ("error", &c.error),
                ("error_description", &c.error_description),
                ("error_uri", &c.error_uri),
            ];
            for (name, value) in members {
                if let Some(v) = value {
                    o.insert(name.into(), json!(v));
                }
            }
            Value::Object(o)
        }
        Err(e) => json!({ "malformed": e.to_string() }),
    }
}

/// The server's URL (`--url`); `None` over any other transport.
fn server_url(ctx: &Ctx<'_>) -> Option<String> {
    match ctx.conn.connection_ref() {
        Connection::Http(s) => Some(s.url().to_owned()),
        _ => None,
    }
}

/// One exchange, bounded: `None` when it failed or timed out.
async fn fetch(ctx: &mut Ctx<'_>, req: RawRequest) -> Option<RawResponse> {
    let limit = ctx.cfg.step_timeout + Duration::from_millis(500);
    match tokio::time::timeout(limit, ctx.conn.connection().exchange(req)).await {
        Ok(Some(Ok(r))) => Some(r),
        _ => None,
    }
}

/// A GET of a metadata document: `Some(doc)` when answered 200 with JSON.
async fn get_document(ctx: &mut Ctx<'_>, url: &str) -> Option<Value> {
    let mut req = RawRequest::new("GET")
        .header("Accept", "application/json")
        .without("Authorization");
    req.url = Some(url.to_owned());
    req.session_id = HeaderMode::Omit;
    req.protocol_version = HeaderMode::Omit;
    let r = fetch(ctx, req).await?;
    (r.status == 200)
        .then(|| serde_json::from_slice::<Value>(&r.body).ok())
        .flatten()
        .filter(Value::is_object)
}

/// The first URL that serves a document, else the first URL.
async fn first_serving(ctx: &mut Ctx<'_>, urls: &[String]) -> Option<(usize, Option<Value>)> {
    for (i, url) in urls.iter().enumerate() {
        if let Some(doc) = get_document(ctx, url).await {
            return Some((i, Some(doc)));
        }
    }
    (!urls.is_empty()).then_some((0, None))
}

/// The gate of `requires.auth`, and the discovery bindings (module docs).
pub(crate) async fn gate(ctx: &mut Ctx<'_>, gate: AuthGate) -> Result<(), Stop> {
    let tokens = ctx.cfg.auth.clone();
    let Some(url) = server_url(ctx) else {
        return Err(Stop::Error(
            Blame::Scenario,
            "`requires.auth` is about Streamable HTTP servers (the loader should have refused this)"
                .to_owned(),
        ));
    };
    // An opening request without credentials; the server's answer before
    // any session exists says whether it is protected.
    let body = json!({
        "jsonrpc": "2.0", "id": "mcpspec-auth-probe", "method": "initialize",
        "params": {
            "protocolVersion": ctx.version.as_str(), "capabilities": {},
            "clientInfo": { "name": "mcpspec-auth-probe", "version": env!("CARGO_PKG_VERSION") },
        },
    });
    let mut req = RawRequest::new("POST").without("Authorization");
    req.session_id = HeaderMode::Omit;
    req.body = body.to_string().into_bytes();
    if ctx.version.lifecycle() == Lifecycle::Stateless {
        req.headers.push(("Mcp-Method".into(), "initialize".into()));
    }
    let Some(probe) = fetch(ctx, req).await else {
        return Err(Stop::Error(
            Blame::Target,
            "no answer to a POST without credentials".to_owned(),
        ));
    };
    if probe.status != 401 && tokens.token.is_none() {
        return Err(Stop::NotApplicable(format!(
            "the server answered a POST without credentials with HTTP {}: it is not a protected resource \
             (give --auth-token if it is)",
            probe.status
        )));
    }
    let missing = match gate {
        AuthGate::Protected => None,
        AuthGate::Token => tokens.token.is_none().then_some("--auth-token"),
        AuthGate::OtherAudience => {
            if tokens.token.is_none() {
                Some("--auth-token")
            } else {
                tokens
                    .other_audience
                    .is_none()
                    .then_some("--auth-token-other-audience")
            }
        }
    };
    // Protected, but the case needs what the run does not hold.
    if let Some(flag) = missing {
        return Err(Stop::NotApplicable(format!(
            "the run holds no token for this case: give {flag}"
        )));
    }
    bind(ctx, &tokens, &url, &probe).await;
    Ok(())
}

async fn bind(ctx: &mut Ctx<'_>, tokens: &AuthTokens, url: &str, probe: &RawResponse) {
    let mut auth = serde_json::Map::new();
    if let Some(t) = &tokens.token {
        auth.insert("token".into(), json!(t));
    }
    if let Some(t) = &tokens.other_audience {
        auth.insert("other_audience_token".into(), json!(t));
    }
    let resource = oauth::resource::canonical_resource(url).unwrap_or_else(|_| url.to_owned());
    auth.insert("resource".into(), json!(resource));
    let challenge = challenge_object(probe.header("www-authenticate"));
    let advertised = challenge
        .get("resource_metadata")
        .and_then(Value::as_str)
        .map(str::to_owned);
    auth.insert("challenge".into(), challenge);
    let version = ctx.version;
    let issuer = if version >= Version::V2025_06_18 {
        let urls =
            oauth::discovery::protected_resource_metadata_urls(version, url, advertised.as_deref())
                .unwrap_or_default();
        match first_serving(ctx, &urls).await {
            Some((i, doc)) => {
                auth.insert("prm_url".into(), json!(urls[i]));
                doc.as_ref()
                    .and_then(|d| d.get("authorization_servers"))
                    .and_then(|a| a.get(0))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }
            None => None,
        }
    } else {
        oauth::discovery::authorization_base_url(url).ok()
    };
    if let Some(issuer) = issuer {
        let candidates = oauth::discovery::authorization_server_metadata_urls(version, &issuer)
            .unwrap_or_default();
        let urls: Vec<String> = candidates.iter().map(|c| c.url.clone()).collect();
        if let Some((i, _)) = first_serving(ctx, &urls).await {
            auth.insert("as_metadata_url".into(), json!(urls[i]));
            let kind = match candidates[i].kind {
                MetadataKind::OAuth => "oauth",
                MetadataKind::OpenId => "openid",
            };
            auth.insert("as_metadata_kind".into(), json!(kind));
        }
        // OpenID Connect discovery, where the version names it and one of
        // its URLs serves a document (whichever came first above).
        for c in candidates.iter().filter(|c| c.kind == MetadataKind::OpenId) {
            if get_document(ctx, &c.url).await.is_some() {
                auth.insert("openid_metadata_url".into(), json!(c.url));
                break;
            }
        }
        auth.insert("issuer".into(), json!(issuer));
    }
    ctx.vars.set("auth", Value::Object(auth));
}

/// Not applicable: the step goes to the authorization server's metadata
/// (`judge: authorization_server_metadata`, or a URL built on
/// `${auth.as_metadata_url}`), but discovery found no authorization server
/// — the Protected Resource Metadata cases judge why; or to its OpenID
/// Connect discovery document (`${auth.openid_metadata_url}`), which it
/// does not serve (a choice: one of the two documents is enough).
pub(crate) fn undiscovered(ctx: &Ctx<'_>, h: &HttpStep) -> Option<Stop> {
    let uses = |var: &str| matches!(&h.url, HttpUrl::Path(p) if p.contains(var));
    if uses("${auth.openid_metadata_url}") && ctx.vars.get("auth.openid_metadata_url").is_none() {
        return Some(Stop::NotApplicable(
            "the authorization server serves no OpenID Connect discovery document at the URLs \
             the version names (serving RFC 8414 metadata alone is allowed)"
                .to_owned(),
        ));
    }
    let needs =
        uses("${auth.as_metadata_url}") || h.judge == Some(MetadataDoc::AuthorizationServer);
    (needs && ctx.vars.get("auth.as_metadata_url").is_none()).then(|| {
        Stop::NotApplicable(
            "no authorization server metadata was discovered: the Protected Resource Metadata \
             names no authorization server, or is not served (its own cases judge that)"
                .to_owned(),
        )
    })
}

/// Checks the body of an `http` step's 2xx response, fetched from `url`, as
/// the metadata document `doc`: each defect is a finding naming the rule it
/// breaks. Authorization server metadata fetched from an OpenID Connect
/// discovery URL is read as OpenID metadata.
pub(crate) fn judge(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    doc: MetadataDoc,
    url: Option<&str>,
    response: &Value,
) -> Result<(), Stop> {
    // A document that was not served is the step's `expect` to judge (its
    // status): there is nothing to check rule by rule.
    let served = response
        .get("status")
        .and_then(Value::as_u64)
        .is_some_and(|s| (200..300).contains(&s));
    if !served {
        return Ok(());
    }
    let body = response.get("body").cloned().unwrap_or(Value::Null);
    let defects = match doc {
        MetadataDoc::ProtectedResource => {
            let Some(url) = server_url(ctx) else {
                return Ok(());
            };
            oauth::metadata::check_protected_resource_metadata(&body, &url)
        }
        MetadataDoc::AuthorizationServer => {
            let issuer = ctx.vars.get("auth.issuer").and_then(Value::as_str);
            let Some(issuer) = issuer.map(str::to_owned) else {
                return Err(Stop::NotApplicable(
                    "no authorization server was discovered (see the Protected Resource Metadata cases)"
                        .to_owned(),
                ));
            };
            let openid = url.is_some_and(|u| u.contains(OPENID_WELL_KNOWN))
                || ctx
                    .vars
                    .get("auth.as_metadata_kind")
                    .and_then(Value::as_str)
                    == Some("openid");
            let kind = if openid {
                MetadataKind::OpenId
            } else {
                MetadataKind::OAuth
            };
            oauth::metadata::check_authorization_server_metadata(ctx.version, &body, &issuer, kind)
        }
    };
    for d in defects {
        ctx.fail_as(
            at,
            d.rule.id,
            d.rule.level,
            vec![d.rule.summary.to_owned()],
            d.detail,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_become_objects() {
        assert_eq!(challenge_object(None), Value::Null);
        assert_eq!(
            challenge_object(Some(
                r#"Bearer error="invalid_token", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope="a b""#
            )),
            json!({
                "scheme": "Bearer",
                "error": "invalid_token",
                "resource_metadata": "http://h/.well-known/oauth-protected-resource/mcp",
                "scope": "a b",
            })
        );
        let basic = challenge_object(Some(r#"Basic realm="x""#));
        assert!(basic["malformed"].is_string(), "{basic}");
        assert!(challenge_object(Some("Bearer realm=\"unterminated"))["malformed"].is_string());
    }
}
