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
//! | `auth.dcr.redirect-rejection` | 2026-07-28 → | registration | a request a registration refused (400) is not sent again unchanged |
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
//! | `auth.scope.challenge-authoritative` | 2025-11-25 → | authorization | it asks for every scope the MCP endpoint's last challenge (401, or 403 `insufficient_scope`) named ([`step_up`]) |
//! | `auth.step-up.union` | 2026-07-28 → | authorization, after a 403 `insufficient_scope` | it also asks for the scopes of the previous authorization request |
//! | `auth.step-up.retry-limit` | 2025-11-25 → | authorization | no more than 3 authorization requests in a row that no MCP request let through follows |
//! | `auth.refresh.confidential` | 2026-07-28 → | every request after a refresh token was issued | the refresh token goes to the token endpoint alone ([`tokens`]) |
//! | `auth.refresh.not-assumed` | 2026-07-28 → | the end of the case | an access token issued without a refresh token was presented to the MCP endpoint |
//! | `auth.credentials.reregister` | 2026-07-28 → | authorization | the `client_id` is not one another authorization server's registration issued ([`credentials`]) |
//! | `auth.credentials.per-authorization-server` | 2026-07-28 → | token | no client id, secret or refresh token another authorization server issued |
//! | `auth.cimd.https-url` | 2025-11-25 → | authorization, token | a URL-shaped `client_id` is an https URL with a path ([`client_id`]) |
//! | `auth.cimd.check-support` | 2025-11-25 → | authorization | a URL-shaped `client_id` only where the metadata advertised `client_id_metadata_document_supported` |
//! | `auth.cimd.supported` | 2025-11-25 → | registration | no dynamic registration where the metadata advertised client ID metadata documents |
//! | `auth.preregistration.option` | 2025-11-25 → | registration, authorization | static credentials handed to the client are the ones it uses |
//!
//! A Protected Resource Metadata document that names an authorization
//! server other than the one the client was using (a migration) makes that
//! one the issuer every later request is judged against: its metadata is
//! sought afresh in the version's order, its `issuer` and `iss` are the ones
//! expected.
//!
//! Nothing is judged before it happens: a client that redeems no code is
//! not judged on its verifier, one that never authorizes on nothing of the
//! flow (the runner makes such a case not applicable). The scenarios provoke
//! the flow and `assume` it got far enough for their rules to be judged.

mod client_id;
mod credentials;
mod discovery;
mod flow;
#[cfg(test)]
mod migration_tests;
mod query;
mod refusal;
mod step_up;
#[cfg(test)]
pub(crate) mod tests;
mod tokens;

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
    /// Whether the metadata advertises `client_id_metadata_document_supported`.
    pub cimd_advertised: bool,
    /// The client id of the static credentials the client was handed
    /// (pre-registration; no dynamic registration is offered then).
    pub preregistered: Option<String>,
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
    challenges: step_up::Challenges,
    tokens: tokens::Tokens,
    credentials: credentials::Credentials,
    client_ids: client_id::ClientIds,
}

impl State {
    /// The script of the case: judging starts here.
    pub(crate) fn script(&mut self, version: Version, script: &AuthScript) {
        self.discovery = discovery::State::new(version, script);
        self.credentials = credentials::Credentials::new(&script.issuer);
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
        let Some(script) = &mut self.script else {
            return;
        };
        let url = format!(
            "{}{}",
            script.origin,
            record.target.split('?').next().unwrap_or_default()
        );
        let served = record.status.is_some_and(|s| (200..300).contains(&s));
        if served && endpoint == AuthEndpoint::ProtectedResourceMetadata {
            // A migration: the metadata now names another authorization server.
            if let Some(next) = self.credentials.prm_served(record) {
                self.discovery.migrate(version, &next);
                script.issuer = next;
            }
        }
        let script = &*script;
        let mut found: Vec<Found> = Vec::new();
        found.extend(self.tokens.leak(endpoint, record));
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
                found.extend(self.credentials.judge(endpoint, &url, record));
                found.extend(self.client_ids.judge(script, endpoint, record));
                match endpoint {
                    AuthEndpoint::Authorization => {
                        found.extend(self.challenges.authorization(record));
                    }
                    AuthEndpoint::Token => self.tokens.token_response(record, at_ms),
                    _ => {}
                }
            }
            AuthEndpoint::Mcp => {
                found.extend(self.flow.mcp(record));
                self.tokens.mcp(record);
                self.challenges.mcp_answer(record);
            }
            AuthEndpoint::Other => {}
        }
        stamp(version, at_ms, found, out);
    }

    /// The case is over: what the client should have done by now
    /// (`auth.refresh.not-assumed`, [`tokens`]).
    pub(crate) fn end(&mut self, version: Version, at_ms: u64, out: &mut Vec<Violation>) {
        if self.script.is_none() {
            return;
        }
        stamp(
            version,
            at_ms,
            self.tokens.end(at_ms).into_iter().collect(),
            out,
        );
    }
}

/// The violations of `found` whose rule the version has.
fn stamp(version: Version, at_ms: u64, found: Vec<Found>, out: &mut Vec<Violation>) {
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

/// The `name=value` pairs of a query string or a form body, decoded.
pub(super) fn pairs(text: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The client id and secret a token request authenticates with: the HTTP
/// Basic pair, else the form's `client_id` and `client_secret`. RFC 6749
/// §2.3.1 form-encodes each half of the Basic pair (a metadata document
/// URL as client id comes percent-encoded), so each is decoded.
pub(super) fn token_client(record: &HttpRecord) -> (Option<String>, Option<String>) {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    let form = pairs(&record.request_body);
    let basic = record
        .request_header("authorization")
        .and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("basic").then_some(rest.trim())
        })
        .and_then(|b| STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let (basic_id, basic_secret) = match basic.as_deref().and_then(|b| b.split_once(':')) {
        Some((i, s)) => (Some(form_decoded(i)), Some(form_decoded(s))),
        None => (None, None),
    };
    let id = basic_id.or_else(|| param(&form, "client_id").map(str::to_owned));
    let secret = basic_secret.or_else(|| param(&form, "client_secret").map(str::to_owned));
    (id, secret)
}

/// `text` with its `application/x-www-form-urlencoded` escapes undone.
fn form_decoded(text: &str) -> String {
    url::form_urlencoded::parse(format!("v={text}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The first value of `name` among `pairs`.
pub(super) fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}
