//! Where the scripted authorization server puts things, for one case: the
//! MCP endpoint, the issuer, the metadata URLs and the endpoints (see the
//! table in [`super`]).

use mcpspec_engine::oauth::discovery::{authorization_server_metadata_urls, MetadataKind};
use mcpspec_engine::Version;
use mcpspec_scenario::AuthScript;

const PRM: &str = "/.well-known/oauth-protected-resource";
const OAUTH: &str = "/.well-known/oauth-authorization-server";
const OPENID: &str = "/.well-known/openid-configuration";

/// URLs of one case's protected server and authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// `http://127.0.0.1:PORT`.
    pub origin: String,
    pub mcp_path: String,
    /// The MCP endpoint's URL (its canonical resource URI).
    pub server_url: String,
    /// Another server's URI (`prm_resource: mismatch`).
    pub other_resource: String,
    pub issuer: String,
    /// An issuer that is not this one (`iss: wrong`).
    pub wrong_issuer: String,
    /// The Protected Resource Metadata URL the 401 names.
    pub prm_advertised: String,
    /// Every URL the Protected Resource Metadata is served at.
    pub prm_urls: Vec<String>,
    /// The URLs the AS metadata is served at.
    pub as_urls: Vec<String>,
    pub authorize: String,
    pub token: String,
    pub register: String,
    /// The (empty) key set the OpenID document names.
    pub jwks: String,
    /// The authorization server a migration (`migration: after_token`)
    /// moves to: `ORIGIN/oauth-next`, with its own metadata URLs and
    /// endpoints.
    pub next_issuer: String,
    pub next_as_urls: Vec<String>,
}

impl Layout {
    pub fn new(origin: &str, version: Version, script: &AuthScript) -> Layout {
        let mcp_path = mcpspec_wire::event::MCP_PATH.to_owned();
        let issuer = if version >= Version::V2025_06_18 {
            format!("{origin}/oauth")
        } else {
            // 2025-03-26: the authorization base URL is the server's origin.
            origin.to_owned()
        };
        let as_urls = metadata_urls(&issuer, script);
        let next_issuer = format!("{origin}/oauth-next");
        let prm_advertised = format!("{origin}{PRM}{mcp_path}");
        Layout {
            server_url: format!("{origin}{mcp_path}"),
            other_resource: format!("{origin}/another-server{mcp_path}"),
            wrong_issuer: format!("{origin}/another-issuer"),
            prm_urls: vec![prm_advertised.clone(), format!("{origin}{PRM}")],
            prm_advertised,
            as_urls,
            authorize: format!("{issuer}/authorize"),
            token: format!("{issuer}/token"),
            register: format!("{issuer}/register"),
            jwks: format!("{issuer}/jwks"),
            next_as_urls: metadata_urls(&next_issuer, script),
            next_issuer,
            issuer,
            mcp_path,
            origin: origin.to_owned(),
        }
    }

    /// The layout of the authorization server a migration moves to: this
    /// one with the issuer, its metadata URLs and its endpoints replaced.
    pub fn next(&self) -> Layout {
        let issuer = &self.next_issuer;
        Layout {
            issuer: issuer.clone(),
            as_urls: self.next_as_urls.clone(),
            authorize: format!("{issuer}/authorize"),
            token: format!("{issuer}/token"),
            register: format!("{issuer}/register"),
            jwks: format!("{issuer}/jwks"),
            ..self.clone()
        }
    }

    /// A Protected Resource Metadata path (served or not).
    pub fn is_prm(path: &str) -> bool {
        path.starts_with(PRM)
    }

    /// An authorization server metadata path (served or not).
    pub fn is_as_metadata(path: &str) -> bool {
        path.starts_with(OAUTH) || path.starts_with(OPENID) || path.ends_with(OPENID)
    }

    /// Whether the AS metadata is served at `url`.
    pub fn serves_as_metadata(&self, url: &str) -> bool {
        self.as_urls.iter().any(|u| u == url)
    }
}

/// Every well-known form of `issuer`'s metadata, whatever the version
/// prescribes: a client that looks where it should finds it at its first
/// try; `as_metadata: openid_only` leaves the RFC 8414 ones out.
fn metadata_urls(issuer: &str, script: &AuthScript) -> Vec<String> {
    let all = [Version::V2025_11_25, Version::V2025_03_26]
        .into_iter()
        .filter_map(|v| authorization_server_metadata_urls(v, issuer).ok())
        .flatten();
    let mut as_urls: Vec<String> = Vec::new();
    for u in all {
        let keep = script.as_metadata != "openid_only" || u.kind == MetadataKind::OpenId;
        if keep && !as_urls.contains(&u.url) {
            as_urls.push(u.url);
        }
    }
    as_urls
}
