//! The demo authorization server beyond the code flow: refresh tokens
//! rotated, the OpenID Connect discovery copy of its metadata, and one
//! detector per fault of those rules (each absent when the server is clean).

use mcpspec_engine::oauth::pkce;
use mcpspec_reference::Fault;
use serde_json::{json, Value};

use crate::auth::{form, grant_for, mcp, param, REDIRECT, VERIFIER};
use crate::support::*;

/// A refresh at the token endpoint: status and body.
async fn refresh(addr: std::net::SocketAddr, client_id: &str, token: &str) -> (u16, Value) {
    let body = form(&[
        ("grant_type", "refresh_token"),
        ("refresh_token", token),
        ("client_id", client_id),
    ]);
    let r = Req::post("/token")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body.as_bytes())
        .send(addr)
        .await;
    (r.status, r.json())
}

#[tokio::test]
async fn http_auth_refresh_not_rotated() {
    for (faults, rotated) in [(vec![], true), (vec![Fault::AuthRefreshNotRotated], false)] {
        let s = start_auth(&faults).await;
        let (client_id, tok) = grant_for(s.addr, &mcp(s.addr)).await;
        let first = tok["refresh_token"]
            .as_str()
            .expect("a refresh token")
            .to_owned();
        let (status, next) = refresh(s.addr, &client_id, &first).await;
        assert_eq!(status, 200, "{faults:?}: {next}");
        assert!(next["access_token"].is_string(), "{next}");
        let second = next["refresh_token"].as_str().unwrap().to_owned();
        assert_eq!(second != first, rotated, "{faults:?}");
        // The used refresh token works again only under the fault.
        let (again, body) = refresh(s.addr, &client_id, &first).await;
        assert_eq!(again == 200, !rotated, "{faults:?}: {again} {body}");
        if rotated {
            assert_eq!(body["error"], "invalid_grant");
        }
        // Another client cannot use it.
        let (foreign, _) = refresh(s.addr, "someone-else", &second).await;
        assert_eq!(foreign, 400, "{faults:?}");
    }
}

#[tokio::test]
async fn http_auth_open_redirect() {
    for (faults, redirected) in [(vec![], false), (vec![Fault::AuthOpenRedirect], true)] {
        let s = start_auth(&faults).await;
        let reg = Req::post("/register")
            .json(&json!({ "redirect_uris": [REDIRECT] }))
            .send(s.addr)
            .await
            .json();
        let unregistered = "http://127.0.0.1:9/never-registered";
        let query = form(&[
            ("response_type", "code"),
            ("client_id", reg["client_id"].as_str().unwrap()),
            ("redirect_uri", unregistered),
            ("code_challenge", &pkce::s256_challenge(VERIFIER)),
            ("code_challenge_method", "S256"),
        ]);
        let r = Req::get(&format!("/authorize?{query}")).send(s.addr).await;
        let there = r
            .header("location")
            .is_some_and(|l| l.starts_with(unregistered));
        assert_eq!(
            there,
            redirected,
            "{faults:?}: {} {:?}",
            r.status,
            r.header("location")
        );
        if !redirected {
            assert_eq!(r.status, 400);
        }
    }
}

#[tokio::test]
async fn http_auth_iss_not_advertised() {
    for (faults, advertised) in [(vec![], true), (vec![Fault::AuthIssNotAdvertised], false)] {
        let s = start_auth(&faults).await;
        for path in [
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ] {
            let doc = Req::get(path).send(s.addr).await.json();
            assert_eq!(
                doc["authorization_response_iss_parameter_supported"] == json!(true),
                advertised,
                "{faults:?} {path}: {doc}"
            );
        }
        // The authorization response carries iss either way.
        let reg = Req::post("/register")
            .json(&json!({ "redirect_uris": [REDIRECT] }))
            .send(s.addr)
            .await
            .json();
        let query = form(&[
            ("response_type", "code"),
            ("client_id", reg["client_id"].as_str().unwrap()),
            ("redirect_uri", REDIRECT),
            ("code_challenge", &pkce::s256_challenge(VERIFIER)),
            ("code_challenge_method", "S256"),
        ]);
        let r = Req::get(&format!("/authorize?{query}")).send(s.addr).await;
        let location = r.header("location").unwrap_or_default().to_owned();
        assert!(param(&location, "iss").is_some(), "{location}");
    }
}

#[tokio::test]
async fn http_auth_oidc_no_pkce() {
    for (faults, listed) in [(vec![], true), (vec![Fault::AuthOidcNoPkce], false)] {
        let s = start_auth(&faults).await;
        let oidc = Req::get("/.well-known/openid-configuration")
            .send(s.addr)
            .await;
        assert_eq!(oidc.status, 200);
        let doc = oidc.json();
        assert_eq!(doc["issuer"], format!("http://{}", s.addr));
        // What OpenID Connect Discovery requires beyond RFC 8414.
        assert_eq!(doc["subject_types_supported"], json!(["public"]));
        assert!(doc["id_token_signing_alg_values_supported"].is_array());
        let jwks = doc["jwks_uri"]
            .as_str()
            .unwrap()
            .replace(&format!("http://{}", s.addr), "");
        assert_eq!(
            Req::get(&jwks).send(s.addr).await.json(),
            json!({ "keys": [] })
        );
        assert_eq!(
            doc.get("code_challenge_methods_supported").is_some(),
            listed,
            "{faults:?}: {doc}"
        );
        // The RFC 8414 document keeps S256 under the fault.
        let oauth = Req::get("/.well-known/oauth-authorization-server")
            .send(s.addr)
            .await
            .json();
        assert_eq!(oauth["code_challenge_methods_supported"], json!(["S256"]));
    }
}

#[tokio::test]
async fn http_auth_plain_http_endpoint() {
    use mcpspec_engine::oauth::metadata::plain_http_off_loopback;
    for (faults, plain) in [(vec![], false), (vec![Fault::AuthPlainHttpEndpoint], true)] {
        let s = start_auth(&faults).await;
        let doc = Req::get("/.well-known/oauth-authorization-server")
            .send(s.addr)
            .await
            .json();
        let any = doc
            .as_object()
            .unwrap()
            .values()
            .any(|v| plain_http_off_loopback(Some(v)));
        assert_eq!(any, plain, "{faults:?}: {doc}");
    }
}
