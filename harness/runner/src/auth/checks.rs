//! The rules the scripted authorization server can judge from what it saw
//! (`${auth.checks.<rule>}`: `ok`, or what was wrong). Each is version-aware
//! and rests on the engine's OAuth primitives, so the reference client
//! and this judge read the spec the same way.
//!
//! | check | versions | ok when |
//! |---|---|---|
//! | `pkce` | all | every authorization request has a `code_challenge`, and every token request a `code_verifier` matching the challenge of the code it redeems |
//! | `pkce_s256` | all | every authorization request's method is S256 (its challenge a base64url SHA-256) |
//! | `resource` | 2025-06-18 → | every authorization and token request has a `resource` parameter |
//! | `resource_canonical` | 2025-06-18 → | each `resource` sent names the MCP server (its canonical URI) |
//! | `state` | all | every authorization request carries a `state` |
//! | `bearer` | all | the token reached the MCP endpoint in the `Authorization` header |
//! | `no_query_token` | all | no MCP request carried the token in the query string (and one carried it) |
//! | `token_auth` | all | every token request authenticated the client as the metadata advertised |
//! | `client_id` | all | every authorization request names a client id that registration issued |
//! | `application_type` | all | every registration request states `application_type` (`native` or `web`) |
//! | `prm_discovery` | 2025-06-18 → | the Protected Resource Metadata was first sought where the version says (the URL the 401 names, else the well-known URIs in order) |
//! | `as_discovery` | all | the authorization server metadata was sought in the version's order |
//! | `scope` | 2025-11-25 → | the first authorization request asked for the challenge's scope, else for the metadata's `scopes_supported` |
//!
//! A check with nothing to judge yet says so (`no token request`): never `ok`.

use mcpspec_engine::oauth::discovery::{
    authorization_server_metadata_urls, protected_resource_metadata_urls,
};
use mcpspec_engine::oauth::flow::initial_scope;
use mcpspec_engine::oauth::pkce;
use mcpspec_engine::oauth::resource::names_server;
use mcpspec_engine::Version;
use mcpspec_scenario::AuthScript;
use serde_json::{Map, Value};

use super::{Layout, Seen, SCOPES_SUPPORTED};

const OK: &str = "ok";

pub(crate) fn judge(script: &AuthScript, version: Version, seen: &Seen) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(layout) = &seen.layout else {
        return out;
    };
    let mut put = |name: &str, verdict: Result<(), String>| {
        out.insert(
            name.to_owned(),
            Value::from(verdict.err().unwrap_or_else(|| OK.to_owned())),
        );
    };
    put("pkce", pkce_check(seen));
    put("pkce_s256", pkce_s256(seen));
    if version >= Version::V2025_06_18 {
        put("resource", resource(seen));
        put("resource_canonical", resource_canonical(seen, layout));
        put(
            "prm_discovery",
            prm_discovery(script, version, seen, layout),
        );
    }
    put("state", state(seen));
    put("bearer", bearer(seen));
    put("no_query_token", no_query_token(seen));
    put("token_auth", token_auth(script, seen));
    put("client_id", client_id(seen));
    put("application_type", application_type(seen));
    put("as_discovery", as_discovery(version, seen, layout));
    if version >= Version::V2025_11_25 {
        put("scope", scope(script, seen));
    }
    out
}

fn any_authorization(seen: &Seen) -> Result<(), String> {
    if seen.authorizations.is_empty() {
        return Err("no authorization request was made".to_owned());
    }
    Ok(())
}

fn any_token(seen: &Seen) -> Result<(), String> {
    if seen.tokens.is_empty() {
        return Err("no token request was made".to_owned());
    }
    Ok(())
}

fn pkce_check(seen: &Seen) -> Result<(), String> {
    any_authorization(seen)?;
    for (i, a) in seen.authorizations.iter().enumerate() {
        if a.param("code_challenge").is_none_or(str::is_empty) {
            return Err(format!(
                "authorization request {} has no code_challenge",
                i + 1
            ));
        }
    }
    any_token(seen)?;
    for (i, t) in seen.tokens.iter().enumerate() {
        let Some(a) = t.redeems.map(|k| &seen.authorizations[k]) else {
            continue; // an unknown code: refused, nothing to compare
        };
        let Some(verifier) = t.param("code_verifier") else {
            return Err(format!("token request {} has no code_verifier", i + 1));
        };
        let challenge = a.param("code_challenge").unwrap_or_default();
        let matches = match a.param("code_challenge_method") {
            Some(pkce::S256) => pkce::verify_s256(verifier, challenge).is_ok(),
            // `plain` (also when the method is left out, RFC 7636 §4.3).
            _ => verifier == challenge,
        };
        if !matches {
            return Err(format!(
                "token request {}: the code_verifier does not match the code_challenge of the code it redeems",
                i + 1
            ));
        }
    }
    Ok(())
}

fn pkce_s256(seen: &Seen) -> Result<(), String> {
    any_authorization(seen)?;
    for (i, a) in seen.authorizations.iter().enumerate() {
        let challenge = a.param("code_challenge").unwrap_or_default();
        pkce::check_challenge(a.param("code_challenge_method"), challenge)
            .map_err(|e| format!("authorization request {}: {e}", i + 1))?;
    }
    Ok(())
}

/// Every authorization and token request, labelled, with its `resource`.
fn resources(seen: &Seen) -> Result<Vec<(String, Option<&str>)>, String> {
    any_authorization(seen)?;
    any_token(seen)?;
    let mut out: Vec<(String, Option<&str>)> = Vec::new();
    for (i, a) in seen.authorizations.iter().enumerate() {
        out.push((
            format!("authorization request {}", i + 1),
            a.param("resource"),
        ));
    }
    for (i, t) in seen.tokens.iter().enumerate() {
        out.push((format!("token request {}", i + 1), t.param("resource")));
    }
    Ok(out)
}

fn resource(seen: &Seen) -> Result<(), String> {
    match resources(seen)?.into_iter().find(|(_, r)| r.is_none()) {
        Some((what, _)) => Err(format!("{what} has no resource parameter")),
        None => Ok(()),
    }
}

fn resource_canonical(seen: &Seen, layout: &Layout) -> Result<(), String> {
    for (what, value) in resources(seen)? {
        match value {
            Some(r) if !names_server(r, &layout.server_url) => {
                return Err(format!(
                    "{what} names resource {r:?}, not the MCP server's canonical URI {:?}",
                    layout.server_url
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn state(seen: &Seen) -> Result<(), String> {
    any_authorization(seen)?;
    for (i, a) in seen.authorizations.iter().enumerate() {
        if a.param("state").is_none_or(str::is_empty) {
            return Err(format!("authorization request {} has no state", i + 1));
        }
    }
    Ok(())
}

fn bearer(seen: &Seen) -> Result<(), String> {
    if seen.bearer == 0 {
        return Err(
            "no MCP request carried an issued token in the Authorization header".to_owned(),
        );
    }
    Ok(())
}

fn no_query_token(seen: &Seen) -> Result<(), String> {
    if seen.query_token > 0 {
        return Err(format!(
            "{} MCP request(s) carried the access token in the query string",
            seen.query_token
        ));
    }
    if seen.bearer == 0 {
        return Err("no MCP request carried an issued token at all".to_owned());
    }
    Ok(())
}

fn token_auth(script: &AuthScript, seen: &Seen) -> Result<(), String> {
    any_token(seen)?;
    for (i, t) in seen.tokens.iter().enumerate() {
        if t.client_auth != script.token_auth {
            return Err(format!(
                "token request {} authenticated the client with {}; the metadata advertised {} only",
                i + 1,
                t.client_auth,
                script.token_auth
            ));
        }
    }
    Ok(())
}

fn client_id(seen: &Seen) -> Result<(), String> {
    any_authorization(seen)?;
    for (i, a) in seen.authorizations.iter().enumerate() {
        let id = a.param("client_id");
        if !id.is_some_and(|id| seen.client_ids.iter().any(|c| c == id)) {
            return Err(format!(
                "authorization request {} names client_id {id:?}, which registration never issued",
                i + 1
            ));
        }
    }
    Ok(())
}

fn application_type(seen: &Seen) -> Result<(), String> {
    if seen.registrations.is_empty() {
        return Err("no registration request was made".to_owned());
    }
    for (i, r) in seen.registrations.iter().enumerate() {
        match r.get("application_type").and_then(Value::as_str) {
            Some("native" | "web") => {}
            other => {
                return Err(format!(
                    "registration request {} has application_type {other:?}, not native or web",
                    i + 1
                ))
            }
        }
    }
    Ok(())
}

/// The fetches must follow `order`: each search tries the URLs in turn
/// until one serves the document; the next search starts over.
fn in_order(what: &str, fetches: &[(String, bool)], order: &[String]) -> Result<(), String> {
    if fetches.is_empty() {
        return Err(format!("no {what} was requested"));
    }
    let mut k = 0;
    for (n, (got, served)) in fetches.iter().enumerate() {
        match order.get(k) {
            Some(want) if want == got => {}
            Some(want) => {
                return Err(format!(
                "{what} request {} went to {got}; the version's order has {want} there (order: {})",
                n + 1,
                order.join(", ")
            ))
            }
            None => {
                return Err(format!(
                    "{what} request {} went to {got}, beyond the version's order ({})",
                    n + 1,
                    order.join(", ")
                ))
            }
        }
        k = if *served { 0 } else { k + 1 };
    }
    Ok(())
}

fn prm_discovery(
    script: &AuthScript,
    version: Version,
    seen: &Seen,
    layout: &Layout,
) -> Result<(), String> {
    let hint = (script.metadata_hint == "challenge").then_some(layout.prm_advertised.as_str());
    let order = protected_resource_metadata_urls(version, &layout.server_url, hint)
        .map_err(|e| format!("the harness could not build the discovery order: {e}"))?;
    in_order("Protected Resource Metadata", &seen.prm_fetches, &order)
}

fn as_discovery(version: Version, seen: &Seen, layout: &Layout) -> Result<(), String> {
    let order: Vec<String> = authorization_server_metadata_urls(version, &layout.issuer)
        .map_err(|e| format!("the harness could not build the discovery order: {e}"))?
        .into_iter()
        .map(|u| u.url)
        .collect();
    in_order("authorization server metadata", &seen.as_fetches, &order)
}

fn scope(script: &AuthScript, seen: &Seen) -> Result<(), String> {
    any_authorization(seen)?;
    let supported: Vec<String> = SCOPES_SUPPORTED.iter().map(|s| (*s).to_owned()).collect();
    let want = initial_scope(script.scope.as_deref(), Some(&supported));
    let got = seen.authorizations[0].param("scope");
    let words = |s: Option<&str>| {
        let mut w: Vec<String> = s
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        w.sort();
        w
    };
    if words(got) == words(want.as_deref()) {
        return Ok(());
    }
    let source = if script.scope.is_some() {
        "the 401 challenge's scope"
    } else {
        "the metadata's scopes_supported"
    };
    Err(format!(
        "the first authorization request asked for scope {got:?}; {source} is {want:?}"
    ))
}
