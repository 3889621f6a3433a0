//! OAuth mode: the protected endpoint, its metadata, the demo authorization
//! server's flow (register → authorize → token, PKCE S256, resource
//! indicators), and one detector per `http-auth-*` fault (each absent when
//! the server is clean).

use std::net::SocketAddr;

use mcpspec_engine::oauth::pkce;
use mcpspec_engine::oauth::BearerChallenge;
use mcpspec_reference::Fault;
use serde_json::{json, Value};

use crate::support::*;

pub const VERIFIER: &str = "mcpspec-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz";
pub const REDIRECT: &str = "http://127.0.0.1:9/callback";

fn initialize() -> Value {
    request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "t", "version": "1" },
        }),
    )
}

pub fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// A query parameter of a URL.
pub fn param(url: &str, name: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The whole flow a client performs; the token for `resource`.
pub async fn token_for(addr: SocketAddr, resource: &str) -> String {
    let (_, tok) = grant_for(addr, resource).await;
    tok["access_token"].as_str().unwrap().to_owned()
}

/// The whole flow a client performs: its client id and the token
/// endpoint's answer (access and refresh token) for `resource`.
pub async fn grant_for(addr: SocketAddr, resource: &str) -> (String, Value) {
    let reg = Req::post("/register")
        .json(&json!({ "redirect_uris": [REDIRECT], "client_name": "t" }))
        .send(addr)
        .await;
    assert_eq!(reg.status, 201, "{}", reg.text());
    let client_id = reg.json()["client_id"].as_str().unwrap().to_owned();
    let query = form(&[
        ("response_type", "code"),
        ("client_id", &client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", &pkce::s256_challenge(VERIFIER)),
        ("code_challenge_method", "S256"),
        ("state", "s1"),
        ("resource", resource),
    ]);
    let auth = Req::get(&format!("/authorize?{query}")).send(addr).await;
    assert_eq!(auth.status, 302, "{}", auth.text());
    let location = auth.header("location").unwrap().to_owned();
    assert_eq!(param(&location, "state").as_deref(), Some("s1"));
    assert_eq!(
        param(&location, "iss"),
        Some(format!("http://{addr}")),
        "RFC 9207 iss"
    );
    let code = param(&location, "code").unwrap_or_else(|| panic!("no code in {location}"));
    let body = form(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("client_id", &client_id),
        ("redirect_uri", REDIRECT),
        ("code_verifier", VERIFIER),
        ("resource", resource),
    ]);
    let tok = Req::post("/token")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body.as_bytes())
        .send(addr)
        .await;
    assert_eq!(tok.status, 200, "{}", tok.text());
    assert_eq!(tok.json()["token_type"], "Bearer");
    (client_id, tok.json())
}

pub fn mcp(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

fn other(addr: SocketAddr) -> String {
    format!("http://{addr}/other")
}

async fn initialize_with(addr: SocketAddr, token: Option<&str>) -> Resp {
    let mut req = Req::post("/mcp").json(&initialize());
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    req.send(addr).await
}

/// The Bearer challenge of a response (panics when it has none).
fn challenge(r: &Resp) -> BearerChallenge {
    let header = r
        .header("www-authenticate")
        .expect("a WWW-Authenticate header");
    BearerChallenge::parse(header).expect("a Bearer challenge")
}

#[tokio::test]
async fn clean_oauth_mode_protects_and_discovers() {
    let s = start_auth(&[]).await;
    let a = s.addr;
    let none = initialize_with(a, None).await;
    assert_eq!(none.status, 401);
    let c = challenge(&none);
    assert_eq!(
        c.resource_metadata,
        Some(format!(
            "http://{a}/.well-known/oauth-protected-resource/mcp"
        ))
    );
    assert_eq!(c.scope.as_deref(), Some("mcp:tools"));
    let bad = initialize_with(a, Some("not-a-token")).await;
    assert_eq!(bad.status, 401);
    assert_eq!(challenge(&bad).error.as_deref(), Some("invalid_token"));

    let prm = Req::get("/.well-known/oauth-protected-resource/mcp")
        .send(a)
        .await
        .json();
    assert_eq!(prm["resource"], mcp(a));
    assert_eq!(prm["authorization_servers"], json!([format!("http://{a}")]));
    let root = Req::get("/.well-known/oauth-protected-resource")
        .send(a)
        .await
        .json();
    assert_eq!(root, prm);
    let meta = Req::get("/.well-known/oauth-authorization-server")
        .send(a)
        .await
        .json();
    assert_eq!(meta["issuer"], format!("http://{a}"));
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));

    let token = token_for(a, &mcp(a)).await;
    assert_eq!(initialize_with(a, Some(&token)).await.status, 200);
    let elsewhere = token_for(a, &other(a)).await;
    let refused = initialize_with(a, Some(&elsewhere)).await;
    assert_eq!(refused.status, 401);
    assert_eq!(challenge(&refused).error.as_deref(), Some("invalid_token"));
}

#[tokio::test]
async fn the_token_endpoint_wants_the_pkce_verifier() {
    let s = start_auth(&[]).await;
    let a = s.addr;
    let reg = Req::post("/register")
        .json(&json!({ "redirect_uris": [REDIRECT] }))
        .send(a)
        .await
        .json();
    let client_id = reg["client_id"].as_str().unwrap();
    let query = form(&[
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", &pkce::s256_challenge(VERIFIER)),
        ("code_challenge_method", "S256"),
    ]);
    let auth = Req::get(&format!("/authorize?{query}")).send(a).await;
    let code = param(auth.header("location").unwrap(), "code").unwrap();
    let body = form(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        (
            "code_verifier",
            "a-different-verifier-0123456789-abcdefghijklmnop",
        ),
    ]);
    let tok = Req::post("/token")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body.as_bytes())
        .send(a)
        .await;
    assert_eq!(tok.status, 400);
    assert_eq!(tok.json()["error"], "invalid_grant");
    // Without PKCE the authorize endpoint refuses (in the redirect).
    let plain = form(&[
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
    ]);
    let refused = Req::get(&format!("/authorize?{plain}")).send(a).await;
    let location = refused.header("location").unwrap();
    assert_eq!(param(location, "error").as_deref(), Some("invalid_request"));
    assert_eq!(param(location, "code"), None);
}

#[tokio::test]
async fn without_oauth_mode_nothing_is_protected() {
    let s = start(&[]).await;
    assert_eq!(initialize_with(s.addr, None).await.status, 200);
    let prm = Req::get("/.well-known/oauth-protected-resource/mcp")
        .send(s.addr)
        .await;
    assert_eq!(prm.status, 404);
}

#[tokio::test]
async fn http_auth_no_challenge() {
    for (faults, want) in [(vec![], true), (vec![Fault::AuthNoChallenge], false)] {
        let s = start_auth(&faults).await;
        let r = initialize_with(s.addr, None).await;
        assert_eq!(r.status, 401);
        assert_eq!(r.header("www-authenticate").is_some(), want, "{faults:?}");
    }
}

#[tokio::test]
async fn http_auth_challenge_no_resource_metadata() {
    for (faults, want) in [
        (vec![], true),
        (vec![Fault::AuthChallengeNoResourceMetadata], false),
    ] {
        let s = start_auth(&faults).await;
        let r = initialize_with(s.addr, None).await;
        assert_eq!(
            challenge(&r).resource_metadata.is_some(),
            want,
            "{faults:?}"
        );
    }
}

#[tokio::test]
async fn http_auth_invalid_token_accepted() {
    for (faults, want) in [(vec![], 401), (vec![Fault::AuthInvalidTokenAccepted], 200)] {
        let s = start_auth(&faults).await;
        let r = initialize_with(s.addr, Some("never-issued")).await;
        assert_eq!(r.status, want, "{faults:?}");
        // A missing token is refused either way.
        assert_eq!(initialize_with(s.addr, None).await.status, 401);
    }
}

#[tokio::test]
async fn http_auth_other_audience_accepted() {
    for (faults, want) in [(vec![], 401), (vec![Fault::AuthOtherAudienceAccepted], 200)] {
        let s = start_auth(&faults).await;
        let token = token_for(s.addr, &other(s.addr)).await;
        let r = initialize_with(s.addr, Some(&token)).await;
        assert_eq!(r.status, want, "{faults:?}");
        assert_eq!(
            initialize_with(s.addr, Some("never-issued")).await.status,
            401
        );
    }
}

#[tokio::test]
async fn http_auth_prm_resource_mismatch() {
    for (faults, mismatched) in [
        (vec![], false),
        (vec![Fault::AuthPrmResourceMismatch], true),
    ] {
        let s = start_auth(&faults).await;
        let prm = Req::get("/.well-known/oauth-protected-resource/mcp")
            .send(s.addr)
            .await
            .json();
        assert_eq!(
            prm["resource"] != json!(mcp(s.addr)),
            mismatched,
            "{faults:?}"
        );
    }
}

#[tokio::test]
async fn http_auth_prm_no_authorization_servers() {
    for (faults, want) in [
        (vec![], true),
        (vec![Fault::AuthPrmNoAuthorizationServers], false),
    ] {
        let s = start_auth(&faults).await;
        let prm = Req::get("/.well-known/oauth-protected-resource/mcp")
            .send(s.addr)
            .await
            .json();
        assert_eq!(
            prm.get("authorization_servers").is_some(),
            want,
            "{faults:?}"
        );
        assert_eq!(prm["resource"], mcp(s.addr));
    }
}

#[tokio::test]
async fn http_auth_as_metadata_no_s256() {
    for (faults, want) in [(vec![], true), (vec![Fault::AuthAsMetadataNoS256], false)] {
        let s = start_auth(&faults).await;
        let meta = Req::get("/.well-known/oauth-authorization-server")
            .send(s.addr)
            .await
            .json();
        let s256 = meta["code_challenge_methods_supported"]
            .as_array()
            .unwrap()
            .contains(&json!("S256"));
        assert_eq!(s256, want, "{faults:?}");
    }
}

#[tokio::test]
async fn http_auth_challenge_no_scope() {
    for (faults, want) in [(vec![], true), (vec![Fault::AuthChallengeNoScope], false)] {
        let s = start_auth(&faults).await;
        let r = initialize_with(s.addr, None).await;
        assert_eq!(challenge(&r).scope.is_some(), want, "{faults:?}");
        assert!(challenge(&r).resource_metadata.is_some());
    }
}

#[tokio::test]
async fn http_auth_missing_token_accepted() {
    for (faults, want) in [(vec![], 401), (vec![Fault::AuthMissingTokenAccepted], 200)] {
        let s = start_auth(&faults).await;
        assert_eq!(
            initialize_with(s.addr, None).await.status,
            want,
            "{faults:?}"
        );
        // A token that is present is still checked.
        assert_eq!(
            initialize_with(s.addr, Some("never-issued")).await.status,
            401
        );
    }
}

#[tokio::test]
async fn http_auth_prm_missing() {
    for (faults, want) in [(vec![], 200), (vec![Fault::AuthPrmMissing], 404)] {
        let s = start_auth(&faults).await;
        for path in [
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
        ] {
            assert_eq!(
                Req::get(path).send(s.addr).await.status,
                want,
                "{faults:?} {path}"
            );
        }
        // The challenge still names the (now missing) document.
        let r = initialize_with(s.addr, None).await;
        assert!(challenge(&r).resource_metadata.is_some());
    }
}

#[tokio::test]
async fn http_auth_as_metadata_missing() {
    for (faults, want) in [(vec![], 200), (vec![Fault::AuthAsMetadataMissing], 404)] {
        let s = start_auth(&faults).await;
        let r = Req::get("/.well-known/oauth-authorization-server")
            .send(s.addr)
            .await;
        assert_eq!(r.status, want, "{faults:?}");
        // The flow itself still works.
        let token = token_for(s.addr, &mcp(s.addr)).await;
        assert_eq!(initialize_with(s.addr, Some(&token)).await.status, 200);
    }
}

#[tokio::test]
async fn http_auth_redirect_uri_prefix_match() {
    for (faults, redirected) in [
        (vec![], false),
        (vec![Fault::AuthRedirectUriPrefixMatch], true),
    ] {
        let s = start_auth(&faults).await;
        let reg = Req::post("/register")
            .json(&json!({ "redirect_uris": [REDIRECT] }))
            .send(s.addr)
            .await
            .json();
        let elsewhere = format!("{REDIRECT}-elsewhere");
        let query = form(&[
            ("response_type", "code"),
            ("client_id", reg["client_id"].as_str().unwrap()),
            ("redirect_uri", &elsewhere),
            ("code_challenge", &pkce::s256_challenge(VERIFIER)),
            ("code_challenge_method", "S256"),
        ]);
        let r = Req::get(&format!("/authorize?{query}")).send(s.addr).await;
        let to_elsewhere = r
            .header("location")
            .is_some_and(|l| l.starts_with(&elsewhere));
        assert_eq!(
            to_elsewhere,
            redirected,
            "{faults:?}: {} {:?}",
            r.status,
            r.header("location")
        );
    }
}
