//! The reference client's OAuth flow (`mcpspec reference client --url`):
//! when the server answers 401, the client authorizes as the version's
//! `basic/authorization` page says, then reconnects with the token. The
//! decisions come from the engine's OAuth primitives
//! (`mcpspec_engine::oauth`); this module only does the HTTP.
//!
//! ```text
//!   401 + WWW-Authenticate ─► PRM (challenge URL, else well-known; 2025-06-18 →)
//!     ─► AS metadata (the version's order; 2025-03-26: base URL, else default endpoints)
//!     ─► client id: static credentials if given (--client-id), else its client ID
//!        metadata document URL if the metadata advertises support, else register (RFC 7591)
//!     ─► authorize (PKCE S256, state, resource, scope)
//!     ─► the redirect: state and (2026-07-28) iss checked ─► token ─► Bearer
//! ```
//!
//! The browser step is played by the client itself: the authorization
//! request is a GET whose 302 is read, not followed (the harness's
//! authorization server approves at once). Each auth fault of the client
//! breaks one rule here ([`AuthFaults`]).

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use mcpspec_engine::oauth::challenge::BearerChallenge;
use mcpspec_engine::oauth::discovery::{
    authorization_base_url, authorization_server_metadata_urls, default_endpoints,
    protected_resource_metadata_urls, MetadataKind,
};
use mcpspec_engine::oauth::flow::{check_iss, initial_scope, step_up_scope};
use mcpspec_engine::oauth::pkce::{s256_challenge, S256};
use mcpspec_engine::oauth::resource::{canonical_resource, names_server};
use mcpspec_engine::Version;
use mcpspec_reference::client::CLIENT_NAME;
use mcpspec_transport::Target;
use serde_json::{json, Value};

mod faults;

pub use faults::{AuthFaults, FOREIGN_TOKEN};

/// Time one HTTP request of the flow may take.
const REQUEST_WAIT: Duration = Duration::from_secs(5);

/// The client ID metadata document URL the reference client names itself
/// by where the authorization server supports it. Nothing serves it (the
/// `.invalid` name never resolves): mcpspec's scripted authorization server
/// takes the URL as it is, and the document could only be read over https.
pub const CLIENT_METADATA_URL: &str =
    "https://client.mcpspec.invalid/reference-client/metadata.json";

/// How the client identifies itself, as configured (`--client-id`,
/// `--client-secret`, `--client-metadata-url`).
#[derive(Debug, Clone, Default)]
pub struct Identity {
    /// Static credentials from a pre-registration: client id and secret.
    pub preregistered: Option<(String, Option<String>)>,
    /// The URL of its client ID metadata document.
    pub metadata_url: String,
}

/// One client's authorization state across its 401s.
#[derive(Debug)]
pub struct AuthFlow {
    version: Version,
    server_url: String,
    faults: AuthFaults,
    identity: Identity,
    http: reqwest::Client,
    /// The scope of the last authorization request: a step-up asks for it
    /// again, with the challenged scopes.
    asked: Option<String>,
    /// The first registration's client id, secret and method: kept only
    /// for the `auth-reuses-credentials` fault (the clean client registers
    /// with the authorization server at hand each time it authorizes, so
    /// its credentials are never another server's).
    first_registration: Option<(String, Option<String>, String)>,
}

/// The strings of a JSON array member (`None` when it is no array).
fn strings(member: Option<&Value>) -> Option<Vec<String>> {
    member.and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

/// What the flow gives: the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token(pub String);

/// A token response: the access token and, when the authorization server
/// issued one, a refresh token (kept for the token endpoint alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub access: Token,
    pub refresh: Option<String>,
}

impl AuthFlow {
    pub fn new(
        version: Version,
        server_url: &str,
        faults: AuthFaults,
        identity: Identity,
    ) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(REQUEST_WAIT)
            .build()
            .map_err(|e| format!("could not build the OAuth HTTP client: {e}"))?;
        Ok(AuthFlow {
            version,
            server_url: server_url.to_owned(),
            faults,
            identity,
            http,
            asked: None,
            first_registration: None,
        })
    }

    pub fn faults(&self) -> AuthFaults {
        self.faults
    }

    /// Authorizes after a 401 (or a 403 `insufficient_scope`: step-up)
    /// whose `WWW-Authenticate` was `challenge`.
    pub async fn authorize(&mut self, challenge: Option<&str>) -> Result<Grant, String> {
        let challenge = challenge
            .and_then(|c| BearerChallenge::parse(c).ok())
            .unwrap_or_default();
        let v = self.version;
        let found = if v >= Version::V2025_06_18 {
            self.protected_resource(&challenge).await?
        } else {
            None
        };
        // No Protected Resource Metadata: a server of 2025-03-26, whose
        // authorization base URL is its own origin.
        let (issuer, scopes_supported) = match found {
            Some(found) => found,
            None => (
                authorization_base_url(&self.server_url).map_err(|e| e.to_string())?,
                None,
            ),
        };
        let meta = self.metadata(&issuer).await?;
        // 2025-11-25: without code_challenge_methods_supported the
        // authorization server does not support PKCE; do not go on.
        let pkce_listed = meta
            .as_ref()
            .is_some_and(|m| m.get("code_challenge_methods_supported").is_some());
        if v >= Version::V2025_11_25 && !pkce_listed && !self.faults.ignores_pkce_support {
            return Err(
                "the authorization server metadata lists no code_challenge_methods_supported: refusing to authorize without PKCE"
                    .to_owned(),
            );
        }
        let endpoint = |name: &str, fallback: String| {
            meta.as_ref()
                .and_then(|m| m.get(name))
                .and_then(Value::as_str)
                .map_or(fallback, str::to_owned)
        };
        let defaults = default_endpoints(&self.server_url).map_err(|e| e.to_string())?;
        let authorize_url = endpoint("authorization_endpoint", defaults.authorization);
        let token_url = endpoint("token_endpoint", defaults.token);
        let register_url = endpoint("registration_endpoint", defaults.registration);
        let advertised = strings(
            meta.as_ref()
                .and_then(|m| m.get("token_endpoint_auth_methods_supported")),
        )
        .unwrap_or_default();
        let method = ["none", "client_secret_basic", "client_secret_post"]
            .into_iter()
            .find(|m| advertised.iter().any(|a| a == m))
            .unwrap_or("client_secret_basic");
        let kept = self
            .first_registration
            .clone()
            .filter(|_| self.faults.reuses_credentials);
        // Pre-registered credentials first, then a metadata document where
        // the metadata says it is supported, then dynamic registration.
        let preregistered = self
            .identity
            .preregistered
            .clone()
            .filter(|_| !self.faults.ignores_preregistration);
        let cimd = meta
            .as_ref()
            .and_then(|m| m.get("client_id_metadata_document_supported"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let cimd = (cimd && !self.faults.ignores_cimd) || self.faults.cimd_unadvertised;
        let (client_id, secret, method) = if self.faults.unregistered_client_id {
            (CLIENT_NAME.to_owned(), None, method.to_owned())
        } else if let Some(kept) = kept {
            kept
        } else if let Some((id, secret)) = preregistered {
            // A confidential client authenticates with its secret where a
            // method for one is advertised.
            let method = ["client_secret_basic", "client_secret_post"]
                .into_iter()
                .find(|m| secret.is_some() && advertised.iter().any(|a| a == m))
                .unwrap_or(method);
            (id, secret, method.to_owned())
        } else if cimd {
            // A public client named by its document's URL.
            (
                self.faults.metadata_url(&self.identity.metadata_url),
                None,
                "none".to_owned(),
            )
        } else {
            let mut registered = self.register(&register_url, method).await;
            for _ in 0..2 {
                if registered.is_ok() || !self.faults.repeats_refused_registration {
                    break;
                }
                registered = self.register(&register_url, method).await;
            }
            let registered = registered?;
            self.first_registration.get_or_insert(registered.clone());
            registered
        };
        // The fault: a method the metadata does not offer.
        let method = match (self.faults.wrong_token_auth, method.as_str()) {
            (false, _) => method,
            (true, "client_secret_post") => "client_secret_basic".to_owned(),
            (true, _) => "client_secret_post".to_owned(),
        };
        let verifier = random_hex(32);
        let state = random_hex(16);
        let step_up = challenge.error.as_deref() == Some("insufficient_scope");
        let scope = if self.faults.no_scope {
            None
        } else if step_up && v >= Version::V2025_11_25 {
            // The challenged scopes are what the request needs; those asked
            // for before are kept (the step-up flow's union).
            let challenged = challenge.scope.clone().unwrap_or_default();
            let before = self.asked.clone().unwrap_or_default();
            let scope = if self.faults.ignores_challenge_scope {
                before
            } else if self.faults.step_up_drops_scopes {
                challenged
            } else {
                step_up_scope(&before, &challenged)
            };
            Some(scope).filter(|s| !s.is_empty())
        } else if v >= Version::V2025_11_25 {
            initial_scope(challenge.scope.as_deref(), scopes_supported.as_deref())
                .or_else(|| self.faults.default_scope().map(str::to_owned))
        } else {
            challenge.scope.clone()
        };
        self.asked.clone_from(&scope);
        let resource = (v >= Version::V2025_06_18 && !self.faults.no_resource)
            .then(|| canonical_resource(&self.server_url))
            .transpose()
            .map_err(|e| e.to_string())?;
        let mut query: Vec<(&str, String)> = vec![
            ("response_type", "code".into()),
            ("client_id", client_id.clone()),
            ("redirect_uri", self.faults.authorize_redirect_uri().into()),
            ("state", state.clone()),
        ];
        if self.faults.plain_pkce {
            query.push(("code_challenge", verifier.clone()));
            query.push(("code_challenge_method", "plain".into()));
        } else if !self.faults.no_pkce {
            query.push(("code_challenge", s256_challenge(&verifier)));
            query.push(("code_challenge_method", S256.into()));
        }
        if let Some(r) = &resource {
            query.push(("resource", r.clone()));
        }
        if let Some(s) = &scope {
            query.push(("scope", s.clone()));
        }
        let back = self.redirect(&authorize_url, &query).await?;
        let got = |name: &str| {
            back.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if let Some(e) = got("error") {
            return Err(format!("the authorization server refused: {e}"));
        }
        if !self.faults.ignores_state && got("state") != Some(state.as_str()) {
            return Err(format!(
                "the authorization response's state {:?} is not the one sent: refusing it",
                got("state")
            ));
        }
        if v >= Version::V2026_07_28 && !self.faults.ignores_iss {
            let supported = meta
                .as_ref()
                .and_then(|m| m.get("authorization_response_iss_parameter_supported"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            check_iss(got("iss"), &issuer, supported || self.faults.requires_iss)
                .map_err(|e| format!("refusing the authorization response: {e}"))?;
        }
        let code = got("code").ok_or("the authorization response has no code")?;
        let mut form: Vec<(&str, String)> = vec![
            ("grant_type", "authorization_code".into()),
            ("code", code.to_owned()),
            ("redirect_uri", self.faults.authorize_redirect_uri().into()),
        ];
        if !self.faults.no_pkce {
            form.push(("code_verifier", verifier));
        }
        if let Some(r) = resource {
            form.push(("resource", r));
        }
        let basic = method == "client_secret_basic";
        if !basic {
            form.push(("client_id", client_id.clone()));
        }
        if method == "client_secret_post" {
            form.push(("client_secret", secret.clone().unwrap_or_default()));
        }
        let mut req = self
            .http
            .post(&token_url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode(&form));
        if basic {
            let pair = format!("{client_id}:{}", secret.unwrap_or_default());
            req = req.header("authorization", format!("Basic {}", STANDARD.encode(pair)));
        }
        let answer = json_of(req.send().await, "the token request").await?;
        let access = answer
            .get("access_token")
            .and_then(Value::as_str)
            .map(|t| Token(t.to_owned()))
            .ok_or_else(|| format!("the token response has no access_token: {answer}"))?;
        let refresh = answer
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if refresh.is_none() && self.faults.needs_refresh_token {
            return Err(
                "the token response carries no refresh token: giving up (the access token alone will not do)"
                    .to_owned(),
            );
        }
        Ok(Grant { access, refresh })
    }

    /// The Protected Resource Metadata: its authorization server (checked
    /// against the server's URI) and `scopes_supported`; `None` when there
    /// is none at any URL the version names.
    async fn protected_resource(
        &self,
        challenge: &BearerChallenge,
    ) -> Result<Option<(String, Option<Vec<String>>)>, String> {
        let hint = challenge
            .resource_metadata
            .as_deref()
            .filter(|_| !self.faults.prm_root_first);
        let mut urls = protected_resource_metadata_urls(self.version, &self.server_url, hint)
            .map_err(|e| e.to_string())?;
        if self.faults.prm_root_first {
            urls.reverse();
        }
        for url in &urls {
            let Some(doc) = self.document(url).await else {
                continue;
            };
            let resource = doc
                .get("resource")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !names_server(resource, &self.server_url) && !self.faults.accepts_resource_mismatch {
                return Err(format!(
                    "the Protected Resource Metadata at {url} is for {resource:?}, not {}: refusing it",
                    self.server_url
                ));
            }
            let issuer = doc
                .get("authorization_servers")
                .and_then(|a| a.get(0))
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{url} names no authorization server"))?;
            let scopes = strings(doc.get("scopes_supported"));
            return Ok(Some((issuer.to_owned(), scopes)));
        }
        eprintln!(
            "{CLIENT_NAME}: no Protected Resource Metadata at {}: taking the server for a 2025-03-26 one",
            urls.join(", ")
        );
        Ok(None)
    }

    /// The authorization server metadata, sought in the version's order
    /// (`None`: none found; 2025-03-26 falls back to default endpoints).
    async fn metadata(&self, issuer: &str) -> Result<Option<Value>, String> {
        let mut urls =
            authorization_server_metadata_urls(self.version, issuer).map_err(|e| e.to_string())?;
        if self.faults.openid_first {
            urls.sort_by_key(|u| u.kind != MetadataKind::OpenId);
        }
        if self.faults.no_openid {
            urls.retain(|u| u.kind != MetadataKind::OpenId);
        }
        for u in &urls {
            let Some(doc) = self.document(&u.url).await else {
                continue;
            };
            // RFC 8414 §3.3: the document is for the issuer it was fetched for.
            let named = doc.get("issuer").and_then(Value::as_str);
            if named != Some(issuer) && !self.faults.ignores_metadata_issuer {
                return Err(format!(
                    "the metadata at {} names issuer {named:?}, not {issuer:?}: refusing it",
                    u.url
                ));
            }
            return Ok(Some(doc));
        }
        if issuer == authorization_base_url(&self.server_url).map_err(|e| e.to_string())? {
            // The 2025-03-26 fallback: the default endpoints.
            return Ok(None);
        }
        let tried: Vec<&str> = urls.iter().map(|u| u.url.as_str()).collect();
        Err(format!(
            "no authorization server metadata at {}",
            tried.join(", ")
        ))
    }

    /// A JSON document at `url`, if one is served there.
    async fn document(&self, url: &str) -> Option<Value> {
        let r = self.http.get(url).send().await.ok()?;
        if !r.status().is_success() {
            return None;
        }
        serde_json::from_slice(&r.bytes().await.ok()?).ok()
    }

    /// Dynamic client registration: client id, secret, and the method the
    /// server settled on.
    async fn register(
        &self,
        url: &str,
        method: &str,
    ) -> Result<(String, Option<String>, String), String> {
        let mut body = json!({
            "client_name": CLIENT_NAME,
            "redirect_uris": [self.faults.registered_redirect_uri()],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
        });
        if !self.faults.no_application_type {
            // A command-line client with a loopback redirect URI.
            body["application_type"] = json!("native");
        }
        let r = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await;
        let doc = json_of(r, "the registration request").await?;
        let id = doc
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("the registration response has no client_id: {doc}"))?;
        let secret = doc
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let method = doc
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .unwrap_or(method);
        Ok((id.to_owned(), secret, method.to_owned()))
    }

    /// The authorization request; returns the redirect's query parameters.
    async fn redirect(
        &self,
        url: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<(String, String)>, String> {
        let sep = if url.contains('?') { '&' } else { '?' };
        let r = self
            .http
            .get(format!("{url}{sep}{}", encode(query)))
            .send()
            .await
            .map_err(|e| format!("the authorization request failed: {e}"))?;
        let location = r
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| {
                format!(
                    "the authorization request got {} without a redirect",
                    r.status()
                )
            })?;
        let parsed = url::Url::parse(location)
            .map_err(|e| format!("the redirect {location:?} is not a URL: {e}"))?;
        Ok(parsed
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect())
    }
}

/// How many times the client authorizes for one run before it gives up on
/// a server that keeps answering 401.
pub const MAX_AUTHORIZATIONS: u32 = 2;

/// The target with the access token: in the `Authorization` header, or
/// (the `auth-token-in-query` fault) in the query string.
pub fn with_token(target: Target, token: &Token, in_query: bool) -> Target {
    let Target::Http { url, mut options } = target else {
        return target;
    };
    options
        .headers
        .retain(|(n, _)| !n.eq_ignore_ascii_case("authorization"));
    if in_query {
        let base = url.split('?').next().unwrap_or(&url).to_owned();
        let url = format!("{base}?access_token={}", token.0);
        return Target::Http { url, options };
    }
    options
        .headers
        .push(("authorization".to_owned(), format!("Bearer {}", token.0)));
    Target::Http { url, options }
}

/// The target with the access token of `grant`, as [`with_token`]; with
/// the `auth-refresh-token-leaked` fault, its refresh token in the MCP
/// endpoint's query string as well.
pub fn with_grant(target: Target, grant: &Grant, faults: AuthFaults) -> Target {
    let target = with_token(target, &grant.access, faults.token_in_query);
    let Some(refresh) = grant
        .refresh
        .as_deref()
        .filter(|_| faults.refresh_token_leaked)
    else {
        return target;
    };
    let Target::Http { url, options } = target else {
        return target;
    };
    let sep = if url.contains('?') { '&' } else { '?' };
    let url = format!(
        "{url}{sep}{}",
        encode(&[("refresh_token", refresh.to_owned())])
    );
    Target::Http { url, options }
}

fn encode(pairs: &[(&str, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
        .finish()
}

async fn json_of(
    r: Result<reqwest::Response, reqwest::Error>,
    what: &str,
) -> Result<Value, String> {
    let r = r.map_err(|e| format!("{what} failed: {e}"))?;
    let status = r.status();
    let bytes = r.bytes().await.map_err(|e| format!("{what} failed: {e}"))?;
    if !status.is_success() {
        return Err(format!(
            "{what} got {status}: {}",
            String::from_utf8_lossy(&bytes)
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("{what}: the answer is not JSON: {e}"))
}

/// `n` random bytes as lower-case hex (PKCE verifiers, states: unreserved
/// characters only).
fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    if getrandom::fill(&mut bytes).is_err() {
        // No system randomness: a per-process hash of the clock (the
        // harness's authorization server needs no secrecy, only a value).
        use std::hash::{BuildHasher, Hasher};
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            let word = h.finish().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether an answer of the MCP endpoint calls for (re-)authorization: a
/// 401, or a 403 whose challenge says `insufficient_scope` (step-up).
pub fn calls_for_authorization(status: Option<u16>, challenge: Option<&str>) -> bool {
    match status {
        Some(401) => true,
        Some(403) => challenge
            .and_then(|c| BearerChallenge::parse(c).ok())
            .is_some_and(|c| c.error.as_deref() == Some("insufficient_scope")),
        _ => false,
    }
}
