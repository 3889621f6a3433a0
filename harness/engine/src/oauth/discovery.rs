//! Where a client looks for metadata, per version (`basic/authorization`):
//!
//! | version | Protected Resource Metadata (RFC 9728) | authorization server metadata |
//! |---|---|---|
//! | 2025-03-26 | none | `/.well-known/oauth-authorization-server` at the authorization base URL (the server URL without its path); if absent, the default endpoints `/authorize`, `/token`, `/register` |
//! | 2025-06-18 | the `resource_metadata` URL of the 401 challenge | RFC 8414 with path insertion |
//! | 2025-11-25, 2026-07-28 | the challenge's URL if present, else the well-known URI with the MCP endpoint's path inserted, then at the root | issuer with a path: RFC 8414 insertion, OpenID insertion, OpenID appending; without: RFC 8414, then OpenID |
//!
//! 2025-06-18 names no fallback when the challenge lacks `resource_metadata`
//! (its servers must send it); [`protected_resource_metadata_urls`] then
//! gives RFC 9728 §3.1's construction (path insertion, then the root), as the
//! later versions do.

use super::resource::{parse_http, ResourceError};
use crate::version::Version;
use url::Url;

const PRM: &str = "/.well-known/oauth-protected-resource";
const OAUTH: &str = "/.well-known/oauth-authorization-server";
const OPENID: &str = "/.well-known/openid-configuration";

/// Which metadata format a well-known URL serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataKind {
    /// RFC 8414 OAuth 2.0 Authorization Server Metadata.
    OAuth,
    /// OpenID Connect Discovery 1.0.
    OpenId,
}

/// One place to look for authorization server metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataUrl {
    pub url: String,
    pub kind: MetadataKind,
}

/// `scheme://host[:port]` of a parsed URL.
fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The URL's path without its trailing slash (`""` for the root).
fn path_of(url: &Url) -> &str {
    url.path().trim_end_matches('/')
}

/// The Protected Resource Metadata URLs a client of `version` tries, in
/// order, for the MCP server at `server_url`, given the `resource_metadata`
/// of the server's 401 challenge (if any). Empty before 2025-06-18.
pub fn protected_resource_metadata_urls(
    version: Version,
    server_url: &str,
    challenge_url: Option<&str>,
) -> Result<Vec<String>, ResourceError> {
    if version < Version::V2025_06_18 {
        return Ok(Vec::new());
    }
    if let Some(advertised) = challenge_url {
        return Ok(vec![advertised.to_owned()]);
    }
    let url = parse_http(server_url)?;
    let root = format!("{}{PRM}", origin(&url));
    let path = path_of(&url);
    Ok(if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{}{PRM}{path}", origin(&url)), root]
    })
}

/// The authorization server metadata URLs a client of `version` tries, in
/// order. From 2025-06-18 `issuer` is an authorization server named by the
/// Protected Resource Metadata; at 2025-03-26 it is the MCP server URL, whose
/// path is discarded (the authorization base URL).
pub fn authorization_server_metadata_urls(
    version: Version,
    issuer: &str,
) -> Result<Vec<MetadataUrl>, ResourceError> {
    let url = parse_http(issuer)?;
    let o = origin(&url);
    let path = path_of(&url);
    let at = |url: String, kind| MetadataUrl { url, kind };
    Ok(match version {
        Version::V2024_11_05 => Vec::new(),
        Version::V2025_03_26 => vec![at(format!("{o}{OAUTH}"), MetadataKind::OAuth)],
        Version::V2025_06_18 => vec![at(format!("{o}{OAUTH}{path}"), MetadataKind::OAuth)],
        Version::V2025_11_25 | Version::V2026_07_28 if path.is_empty() => vec![
            at(format!("{o}{OAUTH}"), MetadataKind::OAuth),
            at(format!("{o}{OPENID}"), MetadataKind::OpenId),
        ],
        Version::V2025_11_25 | Version::V2026_07_28 => vec![
            at(format!("{o}{OAUTH}{path}"), MetadataKind::OAuth),
            at(format!("{o}{OPENID}{path}"), MetadataKind::OpenId),
            at(format!("{o}{path}{OPENID}"), MetadataKind::OpenId),
        ],
    })
}

/// The 2025-03-26 default endpoints, used when the authorization base URL
/// serves no metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultEndpoints {
    pub authorization: String,
    pub token: String,
    pub registration: String,
}

/// The authorization base URL of 2025-03-26: the MCP server URL without its
/// path (`https://api.example.com/v1/mcp` → `https://api.example.com`).
pub fn authorization_base_url(server_url: &str) -> Result<String, ResourceError> {
    Ok(origin(&parse_http(server_url)?))
}

/// The 2025-03-26 fallback endpoints relative to the authorization base URL.
pub fn default_endpoints(server_url: &str) -> Result<DefaultEndpoints, ResourceError> {
    let base = authorization_base_url(server_url)?;
    Ok(DefaultEndpoints {
        authorization: format!("{base}/authorize"),
        token: format!("{base}/token"),
        registration: format!("{base}/register"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Version::*;

    fn urls(v: Version, issuer: &str) -> Vec<(String, MetadataKind)> {
        authorization_server_metadata_urls(v, issuer)
            .expect("valid")
            .into_iter()
            .map(|m| (m.url, m.kind))
            .collect()
    }

    #[test]
    fn protected_resource_metadata_per_version() {
        let server = "https://example.com/public/mcp";
        assert_eq!(
            protected_resource_metadata_urls(V2025_03_26, server, None),
            Ok(vec![])
        );
        let advertised = "https://example.com/meta";
        for v in [V2025_06_18, V2025_11_25, V2026_07_28] {
            assert_eq!(
                protected_resource_metadata_urls(v, server, Some(advertised)),
                Ok(vec![advertised.to_owned()])
            );
            assert_eq!(
                protected_resource_metadata_urls(v, server, None),
                Ok(vec![
                    "https://example.com/.well-known/oauth-protected-resource/public/mcp"
                        .to_owned(),
                    "https://example.com/.well-known/oauth-protected-resource".to_owned(),
                ])
            );
        }
        assert_eq!(
            protected_resource_metadata_urls(V2025_11_25, "http://127.0.0.1:9/", None),
            Ok(vec![
                "http://127.0.0.1:9/.well-known/oauth-protected-resource".to_owned()
            ])
        );
    }

    #[test]
    fn authorization_server_metadata_per_version() {
        use MetadataKind::*;
        let s = |x: &str| x.to_owned();
        assert_eq!(
            urls(V2025_03_26, "https://api.example.com/v1/mcp"),
            [(
                s("https://api.example.com/.well-known/oauth-authorization-server"),
                OAuth
            )]
        );
        assert_eq!(
            urls(V2025_06_18, "https://auth.example.com/tenant1/"),
            [(
                s("https://auth.example.com/.well-known/oauth-authorization-server/tenant1"),
                OAuth
            )]
        );
        assert_eq!(
            urls(V2025_11_25, "https://auth.example.com/tenant1"),
            [
                (
                    s("https://auth.example.com/.well-known/oauth-authorization-server/tenant1"),
                    OAuth
                ),
                (
                    s("https://auth.example.com/.well-known/openid-configuration/tenant1"),
                    OpenId
                ),
                (
                    s("https://auth.example.com/tenant1/.well-known/openid-configuration"),
                    OpenId
                ),
            ]
        );
        assert_eq!(
            urls(V2026_07_28, "https://auth.example.com"),
            [
                (
                    s("https://auth.example.com/.well-known/oauth-authorization-server"),
                    OAuth
                ),
                (
                    s("https://auth.example.com/.well-known/openid-configuration"),
                    OpenId
                ),
            ]
        );
        assert!(urls(V2024_11_05, "https://auth.example.com").is_empty());
    }

    #[test]
    fn the_2025_03_26_fallbacks() {
        assert_eq!(
            default_endpoints("https://api.example.com/v1/mcp"),
            Ok(DefaultEndpoints {
                authorization: "https://api.example.com/authorize".into(),
                token: "https://api.example.com/token".into(),
                registration: "https://api.example.com/register".into(),
            })
        );
        assert_eq!(
            authorization_base_url("http://127.0.0.1:8080/mcp").as_deref(),
            Ok("http://127.0.0.1:8080")
        );
    }
}
