//! Checks of the two metadata documents of authorization discovery, each
//! defect naming the requirement it breaks:
//!
//! - Protected Resource Metadata (RFC 9728 §2, from 2025-06-18), served by
//!   the MCP server: `resource` present and naming the server,
//!   `authorization_servers` a non-empty array of http(s) URLs,
//!   `scopes_supported` (if present) an array of strings.
//! - Authorization server metadata (RFC 8414 §2, or OpenID Connect Discovery
//!   1.0), served by an authorization server: `issuer` identical to the
//!   issuer the well-known URL was built from (RFC 8414 §3.3), the
//!   authorization and token endpoints and `response_types_supported`
//!   present (in an OpenID document also `jwks_uri`, `subject_types_supported`
//!   and `id_token_signing_alg_values_supported`, which OpenID Connect
//!   Discovery requires), endpoint fields http(s) URLs, and `code_challenge_methods_supported`
//!   listing `S256` (clients refuse to proceed without it from 2025-11-25),
//!   and the issuer and endpoints served over `https` (`auth.https`) unless
//!   their host is a loopback one (see [`plain_http_off_loopback`]).
//!
//! Which requirement a defect names depends on the version: at 2025-03-26
//! serving metadata at all is a SHOULD of the MCP server.

use super::discovery::MetadataKind;
use super::pkce::S256;
use super::resource::{covers_server, parse_http};
use crate::ids;
use crate::requirement::Requirement;
use crate::version::Version;
use serde_json::Value;

/// One way a metadata document breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defect {
    /// The rule it breaks.
    pub rule: &'static Requirement,
    /// What is wrong, as a lowercase fragment naming the field.
    pub detail: String,
}

fn defect(rule: &'static Requirement, detail: impl Into<String>) -> Defect {
    Defect {
        rule,
        detail: detail.into(),
    }
}

/// Whether `v` is a string holding an absolute http(s) URL.
fn is_http_url(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str)
        .is_some_and(|u| parse_http(u).is_ok())
}

/// Whether `v` is an `http:` URL (not `https:`) whose host is not a
/// loopback one. OAuth 2.1 §1.5 wants TLS on every endpoint of an
/// authorization server; on `localhost`, `127.0.0.0/8` or `::1` mcpspec
/// tests a development set-up, whose TLS belongs to the deployment, so only
/// a plain-HTTP endpoint elsewhere is judged.
pub fn plain_http_off_loopback(v: Option<&Value>) -> bool {
    let Some(url) = v.and_then(Value::as_str).and_then(|u| parse_http(u).ok()) else {
        return false;
    };
    if url.scheme() != "http" {
        return false;
    }
    match url.host() {
        Some(url::Host::Domain(d)) => !d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => !ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => !ip.is_loopback(),
        None => false,
    }
}

fn is_string_array(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
}

/// Checks a Protected Resource Metadata document served for the MCP server at
/// `server_url`. The document's `resource` must cover the server (equal, or
/// a parent path of it on the same origin: see [`covers_server`]).
pub fn check_protected_resource_metadata(doc: &Value, server_url: &str) -> Vec<Defect> {
    let prm = &ids::AUTH_PROTECTED_RESOURCE_METADATA;
    let servers = &ids::AUTH_PRM_AUTHORIZATION_SERVERS;
    let Some(obj) = doc.as_object() else {
        return vec![defect(prm, "the document is not a JSON object")];
    };
    let mut out = Vec::new();
    match obj.get("resource") {
        None => out.push(defect(prm, "`resource` is missing")),
        Some(Value::String(r)) if !covers_server(r, server_url) => out.push(defect(
            prm,
            format!("`resource` {r:?} does not name the server at {server_url}"),
        )),
        Some(Value::String(_)) => {}
        Some(_) => out.push(defect(prm, "`resource` is not a string")),
    }
    match obj.get("authorization_servers") {
        None => out.push(defect(servers, "`authorization_servers` is missing")),
        Some(Value::Array(a)) if a.is_empty() => {
            out.push(defect(servers, "`authorization_servers` is empty"))
        }
        Some(Value::Array(a)) => {
            for s in a {
                if !is_http_url(Some(s)) {
                    out.push(defect(
                        servers,
                        format!("`authorization_servers` holds {s}, not an http(s) URL"),
                    ));
                }
            }
        }
        Some(_) => out.push(defect(servers, "`authorization_servers` is not an array")),
    }
    if obj
        .get("scopes_supported")
        .is_some_and(|s| !is_string_array(s))
    {
        out.push(defect(prm, "`scopes_supported` is not an array of strings"));
    }
    out
}

/// Whether an authorization server metadata document lists `S256` in
/// `code_challenge_methods_supported`.
pub fn supports_s256(doc: &Value) -> bool {
    doc.get("code_challenge_methods_supported")
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|m| m == S256))
}

/// The rule an authorization server breaks by serving defective metadata.
fn as_metadata_rule(version: Version) -> &'static Requirement {
    if version <= Version::V2025_03_26 {
        &ids::AUTH_AS_METADATA_SUPPORTED
    } else {
        &ids::AUTH_AS_METADATA_PROVIDED
    }
}

/// Checks an authorization server metadata document fetched from a URL built
/// from `issuer` (as [`super::discovery::authorization_server_metadata_urls`]
/// builds it), in the format `kind`.
pub fn check_authorization_server_metadata(
    version: Version,
    doc: &Value,
    issuer: &str,
    kind: MetadataKind,
) -> Vec<Defect> {
    let rule = as_metadata_rule(version);
    let Some(obj) = doc.as_object() else {
        return vec![defect(rule, "the document is not a JSON object")];
    };
    let mut out = Vec::new();
    // 2025-03-26 has the MCP server URL stand for the issuer; its path is discarded.
    match obj.get("issuer").and_then(Value::as_str) {
        None => out.push(defect(rule, "`issuer` is missing or not a string")),
        Some(found) if version > Version::V2025_03_26 && found != issuer => out.push(defect(
            rule,
            format!("`issuer` {found:?} differs from the issuer {issuer:?} the URL was built from"),
        )),
        Some(_) => {}
    }
    for field in ["authorization_endpoint", "token_endpoint"] {
        if !is_http_url(obj.get(field)) {
            out.push(defect(
                rule,
                format!("`{field}` is missing or not an http(s) URL"),
            ));
        }
    }
    for field in ["registration_endpoint", "jwks_uri"] {
        if obj.get(field).is_some_and(|u| !is_http_url(Some(u))) {
            out.push(defect(rule, format!("`{field}` is not an http(s) URL")));
        }
    }
    for field in [
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "registration_endpoint",
        "revocation_endpoint",
        "introspection_endpoint",
        "jwks_uri",
        "userinfo_endpoint",
    ] {
        if plain_http_off_loopback(obj.get(field)) && ids::AUTH_HTTPS.applies_to(version) {
            out.push(defect(
                &ids::AUTH_HTTPS,
                format!("`{field}` is served over plain http, not https"),
            ));
        }
    }
    if !obj
        .get("response_types_supported")
        .is_some_and(is_string_array)
    {
        out.push(defect(
            rule,
            "`response_types_supported` is missing or not an array of strings",
        ));
    }
    for field in [
        "scopes_supported",
        "grant_types_supported",
        "token_endpoint_auth_methods_supported",
    ] {
        if obj.get(field).is_some_and(|v| !is_string_array(v)) {
            out.push(defect(
                rule,
                format!("`{field}` is not an array of strings"),
            ));
        }
    }
    for field in [
        "authorization_response_iss_parameter_supported",
        "client_id_metadata_document_supported",
    ] {
        if obj.get(field).is_some_and(|v| !v.is_boolean()) {
            out.push(defect(rule, format!("`{field}` is not a boolean")));
        }
    }
    if kind == MetadataKind::OpenId {
        // OpenID Connect Discovery 1.0 §3 requires these beyond RFC 8414.
        if !is_http_url(obj.get("jwks_uri")) {
            out.push(defect(
                rule,
                "`jwks_uri` is missing or not an http(s) URL (OpenID Connect Discovery requires it)",
            ));
        }
        for field in [
            "subject_types_supported",
            "id_token_signing_alg_values_supported",
        ] {
            if !obj.get(field).is_some_and(is_string_array) {
                out.push(defect(
                    rule,
                    format!("`{field}` is missing or not an array of strings (OpenID Connect Discovery requires it)"),
                ));
            }
        }
    }
    if !supports_s256(doc) {
        let pkce = if kind == MetadataKind::OpenId && version >= Version::V2025_11_25 {
            &ids::AUTH_PKCE_OIDC_ADVERTISE
        } else {
            &ids::AUTH_OAUTH21_IMPLEMENTED
        };
        out.push(defect(
            pkce,
            "`code_challenge_methods_supported` does not list S256",
        ));
    }
    out
}

#[cfg(test)]
#[path = "metadata_tests.rs"]
mod tests;
