//! Refresh tokens (2026-07-28, `basic/authorization#refresh-tokens`),
//! judged from what the token endpoint issued:
//!
//! - `auth.refresh.confidential`: a refresh token goes to the token
//!   endpoint and nowhere else. Every later request to any other scripted
//!   endpoint (the MCP endpoint, metadata, registration, authorization, a
//!   404) is searched for it: its target (raw and decoded), its headers, its
//!   body. Reported once.
//! - `auth.refresh.not-assumed`: a client must not count on a refresh
//!   token. When the last token response gave an access token and no
//!   refresh token, the client goes on with that access token: by the end
//!   of the case some request to the MCP endpoint presented it (the
//!   `Authorization` header, or, already reported as its own rule, the
//!   query string). A client that stops there was counting on a refresh
//!   token it did not get. A token issued less than [`GRACE_MS`] before
//!   the end is not judged: the case may have ended before a slow client's
//!   next request.

use mcpspec_engine::ids;
use mcpspec_wire::event::HttpRecord;
use serde_json::Value;

use super::{pairs, param, AuthEndpoint, Found};

/// How long before the end of the case an access token must have been
/// issued for its non-use to be judged.
pub(super) const GRACE_MS: u64 = 2_000;

/// What the token endpoint issued so far.
#[derive(Debug, Default)]
pub(super) struct Tokens {
    /// Every refresh token issued.
    refresh: Vec<String>,
    token_responses: usize,
    /// The last token response's access token, when it came without a
    /// refresh token and no MCP request has presented it yet: which token
    /// request issued it, and when.
    unused: Option<(String, usize, u64)>,
    leaked: bool,
}

/// The access token a request to the MCP endpoint presents, if any.
fn presented(record: &HttpRecord) -> Option<String> {
    let header = record.request_header("authorization").and_then(|v| {
        let (scheme, token) = v.split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim().to_owned())
    });
    header.or_else(|| {
        let query = record.target.split_once('?')?.1;
        param(&pairs(query), "access_token").map(str::to_owned)
    })
}

impl Tokens {
    /// `auth.refresh.confidential` on a request to `endpoint`: the first
    /// request, other than a token request, that carries a refresh token.
    pub(super) fn leak(&mut self, endpoint: AuthEndpoint, record: &HttpRecord) -> Option<Found> {
        if self.leaked || endpoint == AuthEndpoint::Token || self.refresh.is_empty() {
            return None;
        }
        let decoded = record
            .target
            .split_once('?')
            .map(|(_, q)| pairs(q))
            .unwrap_or_default();
        let carries = |t: &str| {
            record.target.contains(t)
                || decoded.iter().any(|(k, v)| k.contains(t) || v.contains(t))
                || record.request_headers.iter().any(|(_, v)| v.contains(t))
                || record.request_body.contains(t)
        };
        let token = self.refresh.iter().find(|t| carries(t))?;
        self.leaked = true;
        let path = record.target.split('?').next().unwrap_or_default();
        Some((
            &ids::AUTH_REFRESH_CONFIDENTIAL,
            format!(
                "{} {path} ({}) carried the refresh token {token:?}, which belongs to the token endpoint alone",
                record.method,
                endpoint_name(endpoint)
            ),
        ))
    }

    /// A token request and its answer: what it issued.
    pub(super) fn token_response(&mut self, record: &HttpRecord, at_ms: u64) {
        self.token_responses += 1;
        if record.status != Some(200) {
            return;
        }
        let Ok(Value::Object(body)) = serde_json::from_str::<Value>(&record.body) else {
            return;
        };
        let member = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
        if let Some(r) = member("refresh_token") {
            self.refresh.push(r);
            self.unused = None;
        } else if let Some(access) = member("access_token") {
            self.unused = Some((access, self.token_responses, at_ms));
        }
    }

    /// A request to the MCP endpoint.
    pub(super) fn mcp(&mut self, record: &HttpRecord) {
        let shown = presented(record);
        if shown.is_some() && shown.as_deref() == self.unused.as_ref().map(|(t, _, _)| t.as_str()) {
            self.unused = None;
        }
    }

    /// The end of the case: `auth.refresh.not-assumed`.
    pub(super) fn end(&self, at_ms: u64) -> Option<Found> {
        let (_, n, issued_at) = self.unused.as_ref()?;
        let waited = at_ms.saturating_sub(*issued_at);
        (waited >= GRACE_MS).then(|| {
            (
                &ids::AUTH_REFRESH_NOT_ASSUMED,
                format!(
                    "token request {n} issued an access token without a refresh token, and in the {waited} ms before the case ended no request to the MCP endpoint presented that access token: the client did not go on without a refresh token"
                ),
            )
        })
    }
}

fn endpoint_name(endpoint: AuthEndpoint) -> &'static str {
    match endpoint {
        AuthEndpoint::Mcp => "the MCP endpoint",
        AuthEndpoint::ProtectedResourceMetadata => "Protected Resource Metadata",
        AuthEndpoint::AuthorizationServerMetadata => "authorization server metadata",
        AuthEndpoint::Registration => "the registration endpoint",
        AuthEndpoint::Authorization => "the authorization endpoint",
        AuthEndpoint::Token => "the token endpoint",
        AuthEndpoint::Other => "an unknown URL",
    }
}
