//! Credentials per authorization server (2026-07-28,
//! `basic/authorization/client-registration#authorization-server-binding`):
//! what one authorization server issued (a client id and secret at
//! registration, a refresh token at its token endpoint) is for that
//! authorization server alone. When the Protected Resource Metadata comes
//! to name another authorization server (a migration), the client
//! registers again there instead of presenting what the first one issued.
//!
//! - `auth.credentials.reregister`: an authorization request to one
//!   authorization server names a `client_id` that another one's
//!   registration issued, and this one's never did.
//! - `auth.credentials.per-authorization-server`: a token request to one
//!   authorization server authenticates with (or redeems) a client id,
//!   client secret or refresh token another one issued.
//!
//! Which authorization server a request reached is read from its URL: the
//! longest issuer it lies under, among the script's issuer and every one a
//! served Protected Resource Metadata named (the scripted endpoints sit
//! under their issuer). A credential no known registration issued is not
//! judged here (`auth.registration.client-id` is).

use mcpspec_engine::ids;
use mcpspec_wire::event::HttpRecord;
use serde_json::Value;

use super::{pairs, param, token_client, AuthEndpoint, Found};

/// What each authorization server issued.
#[derive(Debug, Default)]
pub(super) struct Credentials {
    /// The script's issuer, then each other one a PRM named.
    issuers: Vec<String>,
    /// (issuer, client id, client secret) of each successful registration.
    registered: Vec<(String, String, Option<String>)>,
    /// (issuer, refresh token) of each token response that carried one.
    refresh: Vec<(String, String)>,
    /// `reregister`, `per-authorization-server`: reported once each.
    reported: (bool, bool),
}

impl Credentials {
    pub(super) fn new(issuer: &str) -> Credentials {
        Credentials {
            issuers: vec![issuer.to_owned()],
            ..Credentials::default()
        }
    }

    /// A Protected Resource Metadata document was served: the
    /// authorization server it names when that is one not met before (the
    /// client must now go there).
    pub(super) fn prm_served(&mut self, record: &HttpRecord) -> Option<String> {
        let doc: Value = serde_json::from_str(&record.body).ok()?;
        let named: Vec<&str> = doc
            .get("authorization_servers")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let current = self.issuers.last()?;
        if named.iter().any(|n| n == current) {
            return None;
        }
        let next = (*named.first()?).to_owned();
        if !self.issuers.contains(&next) {
            self.issuers.push(next.clone());
        }
        Some(next)
    }

    /// The issuer whose endpoint `url` is.
    fn issuer_of(&self, url: &str) -> Option<&str> {
        self.issuers
            .iter()
            .filter(|i| url == i.as_str() || url.starts_with(&format!("{i}/")))
            .max_by_key(|i| i.len())
            .map(String::as_str)
    }

    /// Which other authorization server issued `credential` (found by
    /// `issued`), when `at` issued no such credential itself.
    fn foreign<'a>(
        &'a self,
        at: &str,
        issued: impl Fn(&'a (String, String, Option<String>)) -> bool,
    ) -> Option<&'a str> {
        let mine = self.registered.iter().any(|r| r.0 == at && issued(r));
        if mine {
            return None;
        }
        self.registered
            .iter()
            .find(|r| r.0 != at && issued(r))
            .map(|r| r.0.as_str())
    }

    /// Judges a request to the registration, authorization or token
    /// endpoint at `url`, and keeps what it issued.
    pub(super) fn judge(
        &mut self,
        endpoint: AuthEndpoint,
        url: &str,
        record: &HttpRecord,
    ) -> Vec<Found> {
        let Some(at) = self.issuer_of(url).map(str::to_owned) else {
            return Vec::new();
        };
        let ok = record.status.is_some_and(|s| (200..300).contains(&s));
        let body: Option<Value> = serde_json::from_str(&record.body).ok();
        let member = |name: &str| {
            body.as_ref()
                .and_then(|b| b.get(name))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match endpoint {
            AuthEndpoint::Registration => {
                if let Some(id) = member("client_id").filter(|_| ok) {
                    self.registered.push((at, id, member("client_secret")));
                }
                Vec::new()
            }
            AuthEndpoint::Authorization => self.authorization(&at, record),
            AuthEndpoint::Token => {
                let out = self.token(&at, record);
                if let Some(r) = member("refresh_token").filter(|_| ok) {
                    self.refresh.push((at, r));
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// `auth.credentials.reregister`.
    fn authorization(&mut self, at: &str, record: &HttpRecord) -> Vec<Found> {
        if self.reported.0 {
            return Vec::new();
        }
        let query = record.target.split_once('?').map_or("", |(_, q)| q);
        let params = pairs(query);
        let Some(id) = param(&params, "client_id") else {
            return Vec::new();
        };
        let Some(other) = self.foreign(at, |r| r.1 == id).map(str::to_owned) else {
            return Vec::new();
        };
        self.reported.0 = true;
        vec![(
            &ids::AUTH_CREDENTIALS_REREGISTER,
            format!(
                "the authorization request to {at} names client_id {id:?}, which the registration of {other} issued: the client did not register again with the authorization server the metadata now names"
            ),
        )]
    }

    /// `auth.credentials.per-authorization-server`.
    fn token(&mut self, at: &str, record: &HttpRecord) -> Vec<Found> {
        if self.reported.1 {
            return Vec::new();
        }
        let form = pairs(&record.request_body);
        let (id, secret) = token_client(record);
        let mut why: Option<String> = None;
        if let Some(id) = &id {
            if let Some(other) = self.foreign(at, |r| &r.1 == id) {
                why = Some(format!("client_id {id:?}, which {other} issued"));
            }
        }
        if let Some(secret) = secret.as_deref().filter(|_| why.is_none()) {
            let from_other = self.foreign(at, |r| r.2.as_deref() == Some(secret));
            if let Some(other) = from_other {
                why = Some(format!("the client secret {other} issued"));
            }
        }
        let refresh = param(&form, "refresh_token").filter(|_| why.is_none());
        if let Some(r) = refresh {
            let mine = self.refresh.iter().any(|(i, t)| i == at && t == r);
            let other = self.refresh.iter().find(|(i, t)| i != at && t == r);
            if let Some((other, _)) = other.filter(|_| !mine) {
                why = Some(format!("a refresh token {other} issued"));
            }
        }
        let Some(why) = why else {
            return Vec::new();
        };
        self.reported.1 = true;
        vec![(
            &ids::AUTH_CREDENTIALS_PER_AUTHORIZATION_SERVER,
            format!(
                "the token request to {at} presents {why}: credentials of one authorization server were taken to another"
            ),
        )]
    }
}
