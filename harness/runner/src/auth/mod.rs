//! The protected mode of a client case (`auth:` in the scenario): the
//! scripted server's MCP endpoint refuses requests without a token it
//! issued, and the same origin plays the authorization server the client
//! must go through first. It is a [`Gate`] in front of the serving
//! transport; the steps read what it saw through `${auth}` ([`ScriptedAuth::snapshot`],
//! refreshed before every step) and judge it with `assert`.
//!
//! ```text
//!  client ─POST /mcp──────────────► 401  WWW-Authenticate: Bearer resource_metadata=…, scope=…
//!         ─GET PRM (RFC 9728)─────► { resource, authorization_servers: [ISSUER] }   (2025-06-18 →)
//!         ─GET AS metadata────────► { issuer, endpoints, S256, auth methods }       (RFC 8414 / OIDC)
//!         ─POST ISSUER/register───► 201 { client_id[, client_secret] }              (RFC 7591)
//!         ─GET ISSUER/authorize───► 302 redirect_uri?code&state[&iss]               (approved at once)
//!         ─POST ISSUER/token──────► 200 { access_token, token_type: Bearer }
//!         ─POST /mcp + Bearer─────► through to the scripted MCP server
//!                                   (`step_up`: 403 insufficient_scope until the token has that scope)
//!         ─POST ISSUER/token──────► (grant_type=refresh_token) a new access token
//! ```
//!
//! `refresh_token: issued` adds a refresh token to every token response;
//! by default none is issued (a client must not count on one).
//! `registration: refused_redirect` answers every registration 400
//! `invalid_redirect_uri`; `registration: preregistered` offers none (no
//! `registration_endpoint`, a registration request gets 404) and hands the
//! client static credentials instead, through `{client_id}` and
//! `{client_secret}` in its command line ([`Gate::client_credentials`]);
//! `cimd: supported` advertises `client_id_metadata_document_supported`, and
//! the authorization endpoint takes a URL as `client_id` as it is (the
//! document is never fetched: it lives at an https URL, beyond loopback);
//! `iss_support: unadvertised` leaves the iss support flag out of the
//! metadata, and `iss: normalized` sends the issuer with a trailing slash.
//!
//! Paths ([`Layout`]): from 2025-06-18 the issuer is `ORIGIN/oauth` (a
//! path, so that path insertion is exercised), its metadata is served at
//! every well-known URI (RFC 8414 insertion, OpenID insertion and
//! appending; `as_metadata: openid_only` serves the OpenID ones alone), the
//! Protected Resource Metadata at the URI the challenge names and at the
//! well-known ones. At 2025-03-26 the authorization base URL is the origin:
//! metadata at `/.well-known/oauth-authorization-server`, endpoints
//! `/authorize`, `/token`, `/register`.
//!
//! The script is lenient on purpose: a token request without PKCE, without
//! `resource`, or with a token in the query still gets its token and its
//! way to the MCP server, so that the case goes on and the oracle reports
//! the rule broken, rather than the case ending in an error. It refuses only
//! what it cannot go on with (an unknown code, a malformed registration).
//!
//! The script judges nothing. Every request it sees, with its answer, is
//! kept as an HTTP record of the endpoint it reached; the runner hands them
//! to the case's oracle ([`ScriptedAuth::drain`]: `Observed::AuthScript`
//! once, then `Observed::AuthExchange` each), which judges the client's
//! authorization (`mcpspec_oracle::auth_client`).

mod layout;
mod token;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use mcpspec_engine::oauth::challenge::BearerChallenge;
use mcpspec_engine::oauth::pkce;
use mcpspec_engine::Version;
use mcpspec_oracle::AuthEndpoint;
use mcpspec_scenario::AuthScript;
use mcpspec_transport::{Gate, GateReply, GateRequest};
use mcpspec_wire::event::HttpRecord;
use serde_json::{json, Map, Value};

pub use layout::Layout;

/// Scopes the Protected Resource Metadata and the AS metadata list.
pub const SCOPES_SUPPORTED: &[&str] = &["mcp:read", "mcp:write"];
/// The client secret registrations get when a secret-based method is
/// scripted (at the authorization server a migration moves to, the second).
const CLIENT_SECRET: &str = "mcpspec-client-secret";
const NEXT_CLIENT_SECRET: &str = "mcpspec-client-secret-next";
/// The static credentials of `registration: preregistered`.
const PREREGISTERED_CLIENT_ID: &str = "mcpspec-preregistered-client";
const PREREGISTERED_CLIENT_SECRET: &str = "mcpspec-preregistered-secret";

/// The scripted authorization server of one client case.
#[derive(Debug)]
pub struct ScriptedAuth {
    script: AuthScript,
    version: Version,
    state: Mutex<Seen>,
}

/// One authorization request, as received.
#[derive(Debug, Clone, Default)]
pub(crate) struct Authorization {
    pub params: Vec<(String, String)>,
    pub code: Option<String>,
}

impl Authorization {
    pub fn param(&self, name: &str) -> Option<&str> {
        first(&self.params, name)
    }
}

/// Everything the gate saw, in order.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub layout: Option<Layout>,
    /// `METHOD path[?query]` of every request the gate looked at.
    pub requests: Vec<String>,
    /// Full URLs of the metadata documents requested, in order, and
    /// whether a document was served there.
    pub prm_fetches: Vec<(String, bool)>,
    pub as_fetches: Vec<(String, bool)>,
    pub registrations: Vec<Value>,
    pub authorizations: Vec<Authorization>,
    /// Token requests.
    pub tokens: usize,
    /// Tokens issued, each with the scope granted (that of the
    /// authorization it redeemed).
    pub issued: Vec<String>,
    pub granted: Vec<Option<String>>,
    /// Refresh tokens issued (`refresh_token: issued`), and the scope each
    /// carries over.
    pub refresh: Vec<(String, Option<String>)>,
    /// MCP requests answered 403 `insufficient_scope` (`step_up`).
    pub insufficient: u64,
    /// MCP requests refused with 401.
    pub unauthorized: u64,
    /// MCP requests let through with a token in the Authorization header.
    pub bearer: u64,
    /// MCP requests with a token in the query string.
    pub query_token: u64,
    /// Every request, its endpoint and the script's answer, not yet handed
    /// to the oracle; when it arrived.
    pub exchanges: Vec<(Instant, AuthEndpoint, HttpRecord)>,
    /// The oracle was told the script ([`ScriptedAuth::drain`]).
    pub told: bool,
    /// `migration: after_token`, once it happened: how many tokens were
    /// issued before (those are refused from then on).
    pub migrated_at: Option<usize>,
}

fn first<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn form(text: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

impl ScriptedAuth {
    pub fn new(script: AuthScript, version: Version) -> Arc<ScriptedAuth> {
        Arc::new(ScriptedAuth {
            script,
            version,
            state: Mutex::new(Seen::default()),
        })
    }

    fn seen(&self) -> MutexGuard<'_, Seen> {
        // Each request updates the record in one go; a panic elsewhere must
        // not take the case's record with it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `${auth}`: what the gate saw (counts and URLs; the oracle judges).
    pub fn snapshot(&self) -> Value {
        let seen = self.seen();
        let mut out = Map::new();
        if let Some(l) = &seen.layout {
            out.insert("issuer".into(), json!(l.issuer));
            out.insert("resource".into(), json!(l.server_url));
        }
        out.insert("requests".into(), json!(seen.requests));
        let urls = |f: &[(String, bool)]| f.iter().map(|(u, _)| u.clone()).collect::<Vec<_>>();
        out.insert("prm_fetches".into(), json!(urls(&seen.prm_fetches)));
        out.insert("as_fetches".into(), json!(urls(&seen.as_fetches)));
        out.insert("registrations".into(), json!(seen.registrations.len()));
        out.insert("authorizations".into(), json!(seen.authorizations.len()));
        let client_ids: Vec<&str> = seen
            .authorizations
            .iter()
            .filter_map(|a| a.param("client_id"))
            .collect();
        out.insert("client_ids".into(), json!(client_ids));
        out.insert("tokens".into(), json!(seen.tokens));
        out.insert("unauthorized".into(), json!(seen.unauthorized));
        out.insert("insufficient_scope".into(), json!(seen.insufficient));
        out.insert("bearer".into(), json!(seen.bearer));
        out.insert("query_token".into(), json!(seen.query_token));
        out.insert("migrated".into(), json!(seen.migrated_at.is_some()));
        Value::Object(out)
    }

    /// Why the client does not implement authorization, when it does not:
    /// it was refused with 401 and then asked for no metadata, registration,
    /// authorization or token, and never showed a token (authorization is
    /// optional, `basic/authorization`). `None` once it tried any of it.
    pub fn untried(&self) -> Option<String> {
        let seen = self.seen();
        let tried = !seen.prm_fetches.is_empty()
            || !seen.as_fetches.is_empty()
            || !seen.registrations.is_empty()
            || !seen.authorizations.is_empty()
            || seen.tokens > 0
            || seen.bearer > 0
            || seen.query_token > 0;
        (seen.unauthorized > 0 && !tried).then(|| {
            format!(
                "the client does not implement authorization (optional): after {} 401 answer(s) \
                 it asked for no metadata, registration or token",
                seen.unauthorized
            )
        })
    }

    /// What the oracle must know of the script (once: the first time after
    /// the first request fixed the layout), and the requests not yet handed over, each with how
    /// long ago it arrived.
    pub fn drain(
        &self,
    ) -> (
        Option<mcpspec_oracle::AuthScript>,
        Vec<(Duration, AuthEndpoint, HttpRecord)>,
    ) {
        let mut seen = self.seen();
        let untold = !seen.told;
        let script = seen
            .layout
            .as_ref()
            .filter(|_| untold)
            .map(|l| mcpspec_oracle::AuthScript {
                origin: l.origin.clone(),
                server_url: l.server_url.clone(),
                issuer: l.issuer.clone(),
                resource_metadata: self.names_prm().then(|| l.prm_advertised.clone()),
                challenge_scope: self.script.scope.clone(),
                scopes_supported: self.scopes().iter().map(|s| (*s).to_owned()).collect(),
                token_auth_methods: self.token_auth_methods(),
                pkce_advertised: self.script.as_pkce != "absent",
                iss_advertised: self.advertises_iss(),
                cimd_advertised: self.script.cimd == "supported",
                preregistered: self
                    .preregistered()
                    .then(|| PREREGISTERED_CLIENT_ID.to_owned()),
            });
        seen.told |= script.is_some();
        let exchanges = std::mem::take(&mut seen.exchanges)
            .into_iter()
            .map(|(at, e, r)| (at.elapsed(), e, r))
            .collect();
        (script, exchanges)
    }

    /// The `scopes_supported` of both metadata documents (none with
    /// `scopes_supported: omitted`).
    fn scopes(&self) -> &'static [&'static str] {
        if self.script.scopes_supported == "omitted" {
            &[]
        } else {
            SCOPES_SUPPORTED
        }
    }

    /// The token endpoint's client authentication methods: the script's,
    /// and `none` too where client ID metadata documents are supported (a
    /// client named by its document's URL is a public client).
    fn token_auth_methods(&self) -> Vec<String> {
        let mut methods = vec![self.script.token_auth.clone()];
        if self.script.cimd == "supported" && self.script.token_auth != "none" {
            methods.push("none".to_owned());
        }
        methods
    }

    /// Whether the client was registered beforehand (no dynamic
    /// registration; static credentials handed to it).
    fn preregistered(&self) -> bool {
        self.script.registration == "preregistered"
    }

    /// Whether the 401 names the Protected Resource Metadata URL.
    fn names_prm(&self) -> bool {
        self.version >= Version::V2025_06_18 && self.script.metadata_hint == "challenge"
    }

    /// The 401 challenge of the MCP endpoint.
    fn challenge(&self, layout: &Layout) -> String {
        let mut c = BearerChallenge::default();
        if self.names_prm() {
            c.resource_metadata = Some(layout.prm_advertised.clone());
        }
        c.scope.clone_from(&self.script.scope);
        c.to_string()
    }

    fn mcp(&self, r: &GateRequest<'_>, seen: &mut Seen, layout: &Layout) -> Option<GateReply> {
        let header_token = r
            .header("authorization")
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(str::trim);
        let query_token = r
            .query
            .map(form)
            .and_then(|q| first(&q, "access_token").map(str::to_owned));
        if query_token.is_some() {
            seen.query_token += 1;
        }
        let refused = self.script.token_use == "refused";
        // After a migration only the second authorization server's tokens.
        let from = seen.migrated_at.unwrap_or(0);
        let valid = |t: &str| !refused && seen.issued[from..].iter().any(|i| i == t);
        if let Some(t) = header_token.filter(|t| valid(t)) {
            seen.bearer += 1;
            if self.script.migration == "after_token" && seen.migrated_at.is_none() {
                seen.migrated_at = Some(seen.issued.len());
            }
            return self.step_up(seen, t, layout);
        }
        if query_token.as_deref().is_some_and(valid) {
            // Lenient: the oracle reports the token in the query.
            return None;
        }
        seen.unauthorized += 1;
        let body =
            json!({ "error": "invalid_token", "error_description": "a bearer token is required" });
        Some(GateReply::json(401, &body).with_header("www-authenticate", &self.challenge(layout)))
    }

    /// `step_up`: a 403 `insufficient_scope` challenge naming the scope the
    /// script demands, when the token `t` (one the script issued) was not
    /// granted it; `None` lets the request through.
    fn step_up(&self, seen: &mut Seen, t: &str, layout: &Layout) -> Option<GateReply> {
        let needed = self.script.step_up.as_deref()?;
        let i = seen.issued.iter().position(|i| i == t)?;
        let granted = seen.granted.get(i).cloned().flatten().unwrap_or_default();
        let has = |s: &str| granted.split_whitespace().any(|g| g == s);
        if needed.split_whitespace().all(has) {
            return None;
        }
        seen.insufficient += 1;
        let mut c = BearerChallenge {
            error: Some("insufficient_scope".into()),
            scope: Some(needed.to_owned()),
            ..BearerChallenge::default()
        };
        if self.names_prm() {
            c.resource_metadata = Some(layout.prm_advertised.clone());
        }
        let body = json!({ "error": "insufficient_scope", "error_description": format!("this request needs scope {needed}") });
        Some(GateReply::json(403, &body).with_header("www-authenticate", &c.to_string()))
    }

    fn prm(&self, layout: &Layout, migrated: bool) -> GateReply {
        let resource = if self.script.prm_resource == "mismatch" {
            layout.other_resource.clone()
        } else {
            layout.server_url.clone()
        };
        let server = if migrated {
            &layout.next_issuer
        } else {
            &layout.issuer
        };
        let mut doc = json!({
            "resource": resource,
            "authorization_servers": [server],
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes().is_empty() {
            doc["scopes_supported"] = json!(self.scopes());
        }
        GateReply::json(200, &doc)
    }

    /// The authorization server metadata; served at an OpenID Connect
    /// discovery URL (`openid`), also the members OpenID Connect Discovery
    /// 1.0 §3 requires (an SDK refuses the document without them).
    fn as_metadata(&self, layout: &Layout, openid: bool) -> GateReply {
        let issuer = if self.script.as_issuer == "mismatch" {
            &layout.wrong_issuer
        } else {
            &layout.issuer
        };
        let mut doc = json!({
            "issuer": issuer,
            "authorization_endpoint": layout.authorize,
            "token_endpoint": layout.token,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": self.token_auth_methods(),
        });
        if !self.preregistered() {
            doc["registration_endpoint"] = json!(layout.register);
        }
        if self.script.cimd == "supported" {
            doc["client_id_metadata_document_supported"] = json!(true);
        }
        if !self.scopes().is_empty() {
            doc["scopes_supported"] = json!(self.scopes());
        }
        if self.script.as_pkce != "absent" {
            doc["code_challenge_methods_supported"] = json!([pkce::S256]);
        }
        if self.advertises_iss() {
            doc["authorization_response_iss_parameter_supported"] = json!(true);
        }
        if openid {
            doc["jwks_uri"] = json!(layout.jwks);
            doc["subject_types_supported"] = json!(["public"]);
            doc["id_token_signing_alg_values_supported"] = json!(["RS256"]);
        }
        GateReply::json(200, &doc)
    }

    /// Whether authorization responses carry `iss` (RFC 9207): in cases at
    /// 2026-07-28, whose clients must check it.
    fn sends_iss(&self) -> bool {
        self.version >= Version::V2026_07_28
    }

    /// Whether the metadata advertises that it does (`iss_support`).
    fn advertises_iss(&self) -> bool {
        self.sends_iss() && self.script.iss_support != "unadvertised"
    }

    fn register(&self, r: &GateRequest<'_>, seen: &mut Seen, secret: &str) -> GateReply {
        let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(r.body) else {
            return GateReply::json(
                400,
                &json!({ "error": "invalid_client_metadata", "error_description": "the body must be a JSON object" }),
            );
        };
        seen.registrations.push(Value::Object(body.clone()));
        if self.preregistered() {
            // Not offered: the metadata names no registration endpoint.
            return not_found();
        }
        if self.script.registration == "refused_redirect" {
            return GateReply::json(
                400,
                &json!({ "error": "invalid_redirect_uri", "error_description": "this authorization server accepts none of these redirect URIs for this application_type" }),
            );
        }
        let n = seen.registrations.len();
        let client_id = format!("mcpspec-client-{n}");
        let mut out = body;
        out.insert("client_id".into(), json!(client_id));
        out.insert(
            "token_endpoint_auth_method".into(),
            json!(self.script.token_auth),
        );
        if self.script.token_auth != "none" {
            out.insert("client_secret".into(), json!(secret));
        }
        GateReply::json(201, &Value::Object(out))
    }

    fn authorize(&self, r: &GateRequest<'_>, seen: &mut Seen, layout: &Layout) -> GateReply {
        let params = r.query.map(form).unwrap_or_default();
        let mut auth = Authorization { params, code: None };
        let Some(redirect) = auth.param("redirect_uri").map(str::to_owned) else {
            seen.authorizations.push(auth);
            return GateReply::json(
                400,
                &json!({ "error": "invalid_request", "error_description": "redirect_uri is required" }),
            );
        };
        let code = format!("mcpspec-code-{}", seen.authorizations.len() + 1);
        let mut back: Vec<(String, String)> = vec![("code".into(), code.clone())];
        if let Some(state) = auth.param("state") {
            let state = if self.script.state == "altered" {
                format!("{state}-altered")
            } else {
                state.to_owned()
            };
            back.push(("state".into(), state));
        }
        if self.sends_iss() {
            match self.script.iss.as_str() {
                "wrong" => back.push(("iss".into(), layout.wrong_issuer.clone())),
                "normalized" => back.push(("iss".into(), format!("{}/", layout.issuer))),
                "absent" => {}
                _ => back.push(("iss".into(), layout.issuer.clone())),
            }
        }
        auth.code = Some(code);
        seen.authorizations.push(auth);
        let query: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(back)
            .finish();
        let sep = if redirect.contains('?') { '&' } else { '?' };
        GateReply {
            status: 302,
            headers: vec![("location".into(), format!("{redirect}{sep}{query}"))],
            body: Vec::new(),
        }
    }
}

impl Gate for ScriptedAuth {
    fn answer(&self, r: &GateRequest<'_>) -> Option<GateReply> {
        let mut seen = self.seen();
        let (endpoint, reply) = self.route(r, &mut seen);
        let record = record_of(r, reply.as_ref());
        seen.exchanges.push((Instant::now(), endpoint, record));
        reply
    }

    fn client_credentials(&self) -> Option<(String, String)> {
        self.preregistered().then(|| {
            (
                PREREGISTERED_CLIENT_ID.to_owned(),
                PREREGISTERED_CLIENT_SECRET.to_owned(),
            )
        })
    }
}

/// The request and the script's answer (none: let through), as the
/// oracle reads it: headers unredacted, body whole.
fn record_of(r: &GateRequest<'_>, reply: Option<&GateReply>) -> HttpRecord {
    HttpRecord {
        method: r.method.to_owned(),
        target: match r.query {
            Some(q) => format!("{}?{q}", r.path),
            None => r.path.to_owned(),
        },
        request_headers: r.headers.clone(),
        request_body: String::from_utf8_lossy(r.body).into_owned(),
        status: reply.map(|a| a.status),
        response_headers: reply.map(|a| a.headers.clone()).unwrap_or_default(),
        body: reply
            .map(|a| String::from_utf8_lossy(&a.body).into_owned())
            .unwrap_or_default(),
        error: None,
    }
}

impl ScriptedAuth {
    /// The endpoint `r` reached and the script's answer to it.
    fn route(&self, r: &GateRequest<'_>, seen: &mut Seen) -> (AuthEndpoint, Option<GateReply>) {
        let layout = seen
            .layout
            .get_or_insert_with(|| Layout::new(r.origin, self.version, &self.script))
            .clone();
        let line = match r.query {
            Some(q) => format!("{} {}?{q}", r.method, r.path),
            None => format!("{} {}", r.method, r.path),
        };
        seen.requests.push(line);
        let url = format!("{}{}", r.origin, r.path);
        if r.path == layout.mcp_path {
            return (AuthEndpoint::Mcp, self.mcp(r, seen, &layout));
        }
        let get = r.method == "GET";
        if get && Layout::is_prm(r.path) {
            // No Protected Resource Metadata before 2025-06-18.
            let served = self.version >= Version::V2025_06_18 && layout.prm_urls.contains(&url);
            seen.prm_fetches.push((url, served));
            let reply = if served {
                self.prm(&layout, seen.migrated_at.is_some())
            } else {
                not_found()
            };
            return (AuthEndpoint::ProtectedResourceMetadata, Some(reply));
        }
        // The authorization servers: the script's, and the one a migration
        // moves to (scripted only with `migration: after_token`).
        let next = (self.script.migration == "after_token").then(|| layout.next());
        let servers = [(&layout, CLIENT_SECRET)]
            .into_iter()
            .chain(next.as_ref().map(|n| (n, NEXT_CLIENT_SECRET)));
        if get && Layout::is_as_metadata(r.path) {
            let openid = url.contains(OPENID_WELL_KNOWN);
            let server = servers
                .into_iter()
                .find(|(l, _)| l.serves_as_metadata(&url));
            seen.as_fetches.push((url, server.is_some()));
            let reply = match server {
                Some((l, _)) => self.as_metadata(l, openid),
                None => not_found(),
            };
            return (AuthEndpoint::AuthorizationServerMetadata, Some(reply));
        }
        for (l, secret) in servers {
            if url == l.register && r.method == "POST" {
                return (
                    AuthEndpoint::Registration,
                    Some(self.register(r, seen, secret)),
                );
            }
            if url == l.authorize && get {
                let reply = self.authorize(r, seen, l);
                return (AuthEndpoint::Authorization, Some(reply));
            }
            if url == l.token && r.method == "POST" {
                return (AuthEndpoint::Token, Some(self.token(r, seen)));
            }
            if url == l.jwks && get {
                // The key set an OpenID document names: empty (no ID token is issued).
                return (
                    AuthEndpoint::Other,
                    Some(GateReply::json(200, &json!({ "keys": [] }))),
                );
            }
        }
        (AuthEndpoint::Other, Some(not_found()))
    }
}

/// Hands the oracle what the case's scripted authorization server saw
/// since the last time: what it advertises first, then each request the
/// client made to it (the oracle judges the client's authorization).
pub(crate) fn feed(ctx: &mut crate::case::Ctx<'_>) {
    let Some(auth) = &ctx.auth else {
        return;
    };
    let (script, exchanges) = auth.drain();
    if let Some(script) = &script {
        let ago = exchanges
            .first()
            .map(|(ago, _, _)| *ago)
            .unwrap_or_default();
        ctx.conn
            .observe_auth(ago, mcpspec_oracle::Observed::AuthScript(script));
    }
    for (ago, endpoint, record) in &exchanges {
        let observed = mcpspec_oracle::Observed::AuthExchange {
            endpoint: *endpoint,
            record,
        };
        ctx.conn.observe_auth(*ago, observed);
    }
}

/// The well-known path segment of OpenID Connect discovery.
const OPENID_WELL_KNOWN: &str = "/.well-known/openid-configuration";

fn not_found() -> GateReply {
    GateReply::json(404, &json!({ "error": "not_found" }))
}

#[cfg(test)]
mod tests;
