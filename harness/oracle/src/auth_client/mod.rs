//! A client's authorization (OAuth 2.1), judged on what it asks of the
//! authorization server and the protected MCP server.
//!
//! Two feeds reach this module. Every HTTP request a client makes is judged
//! for a token in its query string ([`query`], through `crate::client_http`).
//! In a case that scripts a protected server (the runner's scripted
//! authorization server, client scenarios with `auth:`), the feeder also
//! tells the oracle what the script advertises ([`Observed::AuthScript`],
//! once, before the flow) and hands it every request the client made to a
//! scripted endpoint with the script's answer ([`Observed::AuthExchange`],
//! headers unredacted: the tokens are the harness's own). Each request is
//! judged when it arrives, against what came before it:
//!
//! | rule | versions | judged on | what is checked |
//! |---|---|---|---|
//! | `auth.no-token-in-query` | 2025-03-26 → | every HTTP request | no `access_token` in the URI query string |
//! | `auth.pkce` | 2025-03-26 → | authorization, token | a `code_challenge`; the token request's `code_verifier` matches the challenge of the code it redeems |
//! | `auth.pkce.s256` | 2025-11-25 → | authorization | the method is S256 and the challenge a base64url SHA-256 |
//! | `auth.pkce.verify-support` | 2025-11-25 → | authorization | the metadata listed `code_challenge_methods_supported` (without it a client must not authorize) |
//! | `auth.resource-indicators`, `auth.resource.always` | 2025-06-18 → | authorization, token | a `resource` parameter (the metadata never advertises support for it) |
//! | `auth.resource.canonical` | 2025-06-18 → | authorization, token | the `resource` names the MCP server (its canonical URI) |
//! | `auth.state` | 2025-06-18 → | authorization, token | a `state`; no code redeemed from a response whose `state` differs |
//! | `auth.registration.client-id` | 2026-07-28 → | authorization | the `client_id` is one registration issued |
//! | `auth.dcr.application-type` | 2026-07-28 → | registration | `application_type` is `native` or `web` |
//! | `auth.redirect-uri.localhost-or-https` | 2025-03-26 → | registration, authorization | every redirect URI is a localhost URL or an https one |
//! | `auth.redirect-uri.registered` | 2025-06-18 → | authorization, after a registration | the `redirect_uri` is one the client registered |
//! | `auth.scope.selection` | 2025-11-25 → | first authorization | the challenge's scope, else the metadata's `scopes_supported` |
//! | `auth.token-endpoint.auth-method` | 2025-03-26 → | token | the client authenticates by an advertised method |
//! | `auth.bearer-header` | 2025-03-26 → | MCP, once a token was issued | the request carries `Authorization: Bearer` |
//! | `auth.token.own-authorization-server` | 2025-06-18 → | MCP | the Bearer token is one the scripted authorization server issued |
//! | `auth.www-authenticate.parse` | 2025-06-18 → | PRM fetch | the first fetch goes to the URL the 401's `resource_metadata` named |
//! | `auth.prm.discovery-order` (2025-06-18: `auth.prm.client-discovery`) | 2025-06-18 → | PRM fetch | the version's order ([`discovery`]) |
//! | `auth.prm.client-discovery` | 2025-06-18 → | registration, authorization, token | Protected Resource Metadata was fetched first |
//! | `auth.as-metadata.discovery-order` (2025-06-18: `auth.as-metadata.client`, 2025-03-26: `auth.legacy.metadata-first`) | 2025-03-26 → | AS metadata fetch | the version's order |
//! | `auth.as-metadata.client` (2025-03-26: and `auth.legacy.metadata-first`) | 2025-03-26 → | registration, authorization, token | authorization server metadata was fetched first |
//! | `auth.prm.resource-match` | 2025-06-18 → | authorization, token | the Protected Resource Metadata last served named this server ([`refusal`]) |
//! | `auth.as-metadata.issuer-validate` | 2026-07-28 → | registration, authorization, token | the authorization server metadata last served named the issuer its URL was built from |
//! | `auth.issuer.validate` | 2026-07-28 → | token | the code redeemed came with the recorded issuer as `iss` (or none, when not advertised; RFC 9207) |
//!
//! Nothing is judged before it happens: a client that redeems no code is
//! not judged on its verifier, one that never authorizes on nothing of the
//! flow (the runner makes such a case not applicable). The scenarios provoke
//! the flow and `assume` it got far enough for their rules to be judged.

mod discovery;
mod flow;
mod query;
mod refusal;
#[cfg(test)]
pub(crate) mod tests;

use mcpspec_engine::{Requirement, Version, Violation};
use mcpspec_wire::event::HttpRecord;

pub(crate) use query::query_token;

/// What the scripted authorization server of a case advertises: what the
/// oracle judges the client's requests against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthScript {
    /// Where the scripted endpoints are served (`http://127.0.0.1:PORT`); a
    /// request's URL is this and its target.
    pub origin: String,
    /// The MCP endpoint's URL: the canonical resource URI.
    pub server_url: String,
    /// The authorization server's issuer (the Protected Resource Metadata
    /// names it; at 2025-03-26 the authorization base URL).
    pub issuer: String,
    /// The Protected Resource Metadata URL the 401 names (`resource_metadata`);
    /// `None` when it names none.
    pub resource_metadata: Option<String>,
    /// The 401's `scope`, if any.
    pub challenge_scope: Option<String>,
    /// The Protected Resource Metadata's `scopes_supported`.
    pub scopes_supported: Vec<String>,
    /// The metadata's `token_endpoint_auth_methods_supported`.
    pub token_auth_methods: Vec<String>,
    /// Whether the metadata lists `code_challenge_methods_supported`.
    pub pkce_advertised: bool,
    /// Whether the metadata advertises
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub iss_advertised: bool,
}

/// Which scripted endpoint a request reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthEndpoint {
    /// The protected MCP endpoint (answered 401 by the script, or let through).
    Mcp,
    /// A Protected Resource Metadata URL (RFC 9728), served or not.
    ProtectedResourceMetadata,
    /// An authorization server metadata URL (RFC 8414, OpenID), served or not.
    AuthorizationServerMetadata,
    /// Dynamic client registration (RFC 7591).
    Registration,
    /// The authorization endpoint.
    Authorization,
    /// The token endpoint.
    Token,
    /// Anything else the script answered (404).
    Other,
}

/// One broken rule, before it is stamped.
pub(super) type Found = (&'static Requirement, String);

/// The authorization flow seen so far.
#[derive(Debug, Default)]
pub(crate) struct State {
    script: Option<AuthScript>,
    discovery: discovery::State,
    flow: flow::Flow,
    refusals: refusal::Refusals,
}

impl State {
    /// The script of the case: judging starts here.
    pub(crate) fn script(&mut self, version: Version, script: &AuthScript) {
        self.discovery = discovery::State::new(version, script);
        self.script = Some(script.clone());
    }

    /// Judges one request the client made to a scripted endpoint.
    pub(crate) fn exchange(
        &mut self,
        version: Version,
        at_ms: u64,
        endpoint: AuthEndpoint,
        record: &HttpRecord,
        out: &mut Vec<Violation>,
    ) {
        let Some(script) = &self.script else {
            return;
        };
        let url = format!(
            "{}{}",
            script.origin,
            record.target.split('?').next().unwrap_or_default()
        );
        let served = record.status.is_some_and(|s| (200..300).contains(&s));
        let mut found: Vec<Found> = Vec::new();
        match endpoint {
            AuthEndpoint::ProtectedResourceMetadata => {
                found.extend(self.discovery.prm_fetch(version, &url, served));
                if served {
                    self.refusals.served(script, endpoint, record);
                }
            }
            AuthEndpoint::AuthorizationServerMetadata => {
                found.extend(self.discovery.as_fetch(version, &url, served));
                if served {
                    self.refusals.served(script, endpoint, record);
                }
            }
            AuthEndpoint::Registration | AuthEndpoint::Authorization | AuthEndpoint::Token => {
                found.extend(self.discovery.before_endpoints(version, endpoint));
                found.extend(self.refusals.reached(endpoint));
                found.extend(self.flow.judge(script, endpoint, record));
            }
            AuthEndpoint::Mcp => found.extend(self.flow.mcp(record)),
            AuthEndpoint::Other => {}
        }
        out.extend(
            found
                .into_iter()
                .filter(|(id, _)| id.applies_to(version))
                .map(|(requirement, detail)| Violation {
                    requirement,
                    detail,
                    at_ms,
                }),
        );
    }
}

/// The `name=value` pairs of a query string or a form body, decoded.
pub(super) fn pairs(text: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The first value of `name` among `pairs`.
pub(super) fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}
