//! The scripted authorization server, driven request by request as a
//! client would, and what the oracle makes of the records it hands over.

#![allow(clippy::unwrap_used)]

use super::*;
use mcpspec_engine::oauth::pkce;

const ORIGIN: &str = "http://127.0.0.1:4000";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

fn get(auth: &ScriptedAuth, path: &str, query: Option<&str>) -> GateReply {
    ask(auth, "GET", path, query, vec![], b"")
}

fn ask(
    auth: &ScriptedAuth,
    method: &str,
    path: &str,
    query: Option<&str>,
    headers: Vec<(String, String)>,
    body: &[u8],
) -> GateReply {
    auth.answer(&GateRequest {
        method,
        path,
        query,
        headers,
        body,
        origin: ORIGIN,
    })
    .expect("the gate answers")
}

/// The ids the case's oracle reports once `auth` hands it what it saw.
fn judged(auth: &ScriptedAuth, version: Version) -> Vec<String> {
    let mut oracle = mcpspec_oracle::Oracle::new(
        mcpspec_engine::Role::Client,
        version,
        mcpspec_wire::event::Transport::Http,
    );
    let (script, exchanges) = auth.drain();
    let mut found = Vec::new();
    if let Some(script) = &script {
        found.extend(oracle.observe(0, mcpspec_oracle::Observed::AuthScript(script)));
    }
    for (_, endpoint, record) in &exchanges {
        found.extend(oracle.observe(
            0,
            mcpspec_oracle::Observed::AuthExchange {
                endpoint: *endpoint,
                record,
            },
        ));
    }
    found
        .into_iter()
        .map(|v| v.requirement.id.to_owned())
        .collect()
}

fn json_of(r: &GateReply) -> Value {
    serde_json::from_slice(&r.body).unwrap()
}

/// Runs the whole flow as a clean client of `version` would, with
/// `tweak` applied to the authorization request's parameters; returns the
/// ids the oracle reports.
fn flow(version: Version, tweak: impl Fn(&mut Vec<(&str, String)>)) -> Vec<String> {
    let auth = ScriptedAuth::new(AuthScript::default(), version);
    let refused = ask(&auth, "POST", "/mcp", None, vec![], b"{}");
    assert_eq!(refused.status, 401);
    let (_, challenge) = refused
        .headers
        .iter()
        .find(|(n, _)| n == "www-authenticate")
        .unwrap();
    let parsed = BearerChallenge::parse(challenge).unwrap();
    let issuer = if version >= Version::V2025_06_18 {
        let prm_url = parsed.resource_metadata.unwrap();
        let prm_path = prm_url.strip_prefix(ORIGIN).unwrap();
        let prm = json_of(&get(&auth, prm_path, None));
        assert_eq!(prm["resource"], format!("{ORIGIN}/mcp"));
        prm["authorization_servers"][0].as_str().unwrap().to_owned()
    } else {
        ORIGIN.to_owned()
    };
    let path = issuer.strip_prefix(ORIGIN).unwrap();
    let meta = json_of(&get(
        &auth,
        &format!("/.well-known/oauth-authorization-server{path}"),
        None,
    ));
    assert_eq!(meta["issuer"], issuer);
    let reg = ask(
        &auth,
        "POST",
        &format!("{path}/register"),
        None,
        vec![],
        br#"{"redirect_uris":["http://127.0.0.1:9/cb"],"application_type":"native"}"#,
    );
    let client_id = json_of(&reg)["client_id"].as_str().unwrap().to_owned();
    let mut params: Vec<(&str, String)> = vec![
        ("response_type", "code".into()),
        ("client_id", client_id.clone()),
        ("redirect_uri", "http://127.0.0.1:9/cb".into()),
        ("code_challenge", pkce::s256_challenge(VERIFIER)),
        ("code_challenge_method", "S256".into()),
        ("state", "st4te".into()),
        ("resource", format!("{ORIGIN}/mcp")),
        ("scope", SCOPES_SUPPORTED.join(" ")),
    ];
    tweak(&mut params);
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let back = get(&auth, &format!("{path}/authorize"), Some(&query));
    assert_eq!(back.status, 302);
    let location = &back.headers[0].1;
    let code = form(location.split_once('?').unwrap().1)
        .into_iter()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1;
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", "http://127.0.0.1:9/cb"),
            ("client_id", &client_id),
            ("code_verifier", VERIFIER),
            ("resource", &format!("{ORIGIN}/mcp")),
        ])
        .finish();
    let token = ask(
        &auth,
        "POST",
        &format!("{path}/token"),
        None,
        vec![],
        body.as_bytes(),
    );
    let token = json_of(&token)["access_token"].as_str().unwrap().to_owned();
    let bearer = vec![("authorization".to_owned(), format!("Bearer {token}"))];
    assert!(auth
        .answer(&GateRequest {
            method: "POST",
            path: "/mcp",
            query: None,
            headers: bearer,
            body: b"{}",
            origin: ORIGIN,
        })
        .is_none());
    judged(&auth, version)
}

#[test]
fn a_clean_flow_draws_no_violation_at_any_version() {
    for v in [
        Version::V2025_03_26,
        Version::V2025_06_18,
        Version::V2025_11_25,
        Version::V2026_07_28,
    ] {
        assert_eq!(flow(v, |_| {}), Vec::<String>::new(), "{v}");
    }
}

#[test]
fn each_broken_rule_reaches_the_oracle() {
    let plain = flow(Version::V2025_11_25, |p| {
        p.retain(|(k, _)| *k != "code_challenge_method");
        p.push(("code_challenge_method", "plain".into()));
    });
    // The verifier still hashes to the S256 challenge sent as `plain`: no match.
    assert_eq!(plain, ["auth.pkce.s256", "auth.pkce"]);
    let no_resource = flow(Version::V2025_06_18, |p| {
        p.retain(|(k, _)| *k != "resource")
    });
    assert_eq!(
        no_resource,
        ["auth.resource-indicators", "auth.resource.always"]
    );
    let no_state = flow(Version::V2025_06_18, |p| p.retain(|(k, _)| *k != "state"));
    assert_eq!(no_state, ["auth.state"]);
    let wrong_scope = flow(Version::V2025_11_25, |p| {
        p.retain(|(k, _)| *k != "scope");
    });
    assert_eq!(wrong_scope, ["auth.scope.selection"]);
    let made_up = flow(Version::V2026_07_28, |p| {
        p.retain(|(k, _)| *k != "client_id");
        p.push(("client_id", "made-up".into()));
    });
    assert_eq!(made_up, ["auth.registration.client-id"]);
}

#[test]
fn a_registration_without_application_type_is_reported() {
    let v = Version::V2026_07_28;
    let auth = ScriptedAuth::new(AuthScript::default(), v);
    let reg = ask(
        &auth,
        "POST",
        "/oauth/register",
        None,
        vec![],
        br#"{"redirect_uris":[]}"#,
    );
    assert_eq!(reg.status, 201);
    let found = judged(&auth, v);
    assert!(
        found.iter().any(|f| f == "auth.dcr.application-type"),
        "{found:?}"
    );
}

#[test]
fn a_mismatched_metadata_issuer_is_served_when_scripted() {
    let script = AuthScript {
        as_issuer: "mismatch".into(),
        ..AuthScript::default()
    };
    let auth = ScriptedAuth::new(script, Version::V2026_07_28);
    let meta = json_of(&get(
        &auth,
        "/.well-known/oauth-authorization-server/oauth",
        None,
    ));
    assert_eq!(meta["issuer"], format!("{ORIGIN}/another-issuer"));
}

#[test]
fn a_token_in_the_query_is_let_through_and_reported() {
    let v = Version::V2025_06_18;
    let auth = ScriptedAuth::new(AuthScript::default(), v);
    auth.seen().issued.push("t1".into());
    assert!(auth
        .answer(&GateRequest {
            method: "POST",
            path: "/mcp",
            query: Some("access_token=t1"),
            headers: vec![],
            body: b"{}",
            origin: ORIGIN,
        })
        .is_none());
    assert_eq!(auth.snapshot()["query_token"], 1);
    // The record keeps the query, which the oracle judges on every request.
    let (_, exchanges) = auth.drain();
    assert_eq!(exchanges[0].2.target, "/mcp?access_token=t1");
}

#[test]
fn discovery_out_of_order_is_reported_and_a_new_search_starts_over() {
    let v = Version::V2025_11_25;
    let auth = ScriptedAuth::new(
        AuthScript {
            as_metadata: "openid_only".into(),
            ..AuthScript::default()
        },
        v,
    );
    // RFC 8414 insertion (404 here), then OpenID insertion (served): in order.
    assert_eq!(
        get(&auth, "/.well-known/oauth-authorization-server/oauth", None).status,
        404
    );
    let openid = get(&auth, "/.well-known/openid-configuration/oauth", None);
    assert_eq!(openid.status, 200);
    // What OpenID Connect Discovery requires beyond RFC 8414, and the key
    // set it names, served.
    let doc: serde_json::Value = serde_json::from_slice(&openid.body).unwrap();
    assert_eq!(
        doc["subject_types_supported"],
        serde_json::json!(["public"])
    );
    assert!(
        doc["id_token_signing_alg_values_supported"].is_array(),
        "{doc}"
    );
    assert_eq!(doc["jwks_uri"], format!("{ORIGIN}/oauth/jwks"));
    assert_eq!(get(&auth, "/oauth/jwks", None).status, 200);
    // A second search starts over at the first URL.
    get(&auth, "/.well-known/oauth-authorization-server/oauth", None);
    assert_eq!(judged(&auth, v), Vec::<String>::new());
    // Going straight to the appended form skips two.
    let auth = ScriptedAuth::new(AuthScript::default(), v);
    get(&auth, "/oauth/.well-known/openid-configuration", None);
    assert_eq!(judged(&auth, v), ["auth.as-metadata.discovery-order"]);
}

#[test]
fn the_authorization_response_follows_the_script() {
    let script = AuthScript {
        iss: "wrong".into(),
        state: "altered".into(),
        ..AuthScript::default()
    };
    let auth = ScriptedAuth::new(script, Version::V2026_07_28);
    let back = get(
        &auth,
        "/oauth/authorize",
        Some("redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb&state=s1"),
    );
    let location = &back.headers[0].1;
    let params = form(location.split_once('?').unwrap().1);
    assert_eq!(first(&params, "state"), Some("s1-altered"));
    assert_eq!(
        first(&params, "iss"),
        Some(format!("{ORIGIN}/another-issuer").as_str())
    );
    // Before 2026-07-28 no iss is sent.
    let auth = ScriptedAuth::new(AuthScript::default(), Version::V2025_11_25);
    let back = get(
        &auth,
        "/oauth/authorize",
        Some("redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb"),
    );
    assert!(!back.headers[0].1.contains("iss="));
}

/// An authorization for `scope` and the token request redeeming its code:
/// the token response.
fn grant(auth: &ScriptedAuth, scope: &str) -> Value {
    let query = format!(
        "redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb&state=s1&scope={}",
        scope.replace(' ', "+")
    );
    let back = get(auth, "/oauth/authorize", Some(&query));
    let location = &back.headers[0].1;
    let params = form(location.split_once('?').unwrap().1);
    let code = first(&params, "code").unwrap().to_owned();
    let body = format!("grant_type=authorization_code&code={code}");
    json_of(&ask(
        auth,
        "POST",
        "/oauth/token",
        None,
        vec![],
        body.as_bytes(),
    ))
}

fn mcp_with(auth: &ScriptedAuth, token: &str) -> Option<GateReply> {
    auth.answer(&GateRequest {
        method: "POST",
        path: "/mcp",
        query: None,
        headers: vec![("authorization".into(), format!("Bearer {token}"))],
        body: b"{}",
        origin: ORIGIN,
    })
}

#[test]
fn a_token_without_the_step_up_scope_is_answered_403_insufficient_scope() {
    let script = AuthScript {
        scope: Some("mcp:read".into()),
        step_up: Some("mcp:admin".into()),
        ..AuthScript::default()
    };
    let auth = ScriptedAuth::new(script, Version::V2026_07_28);
    assert_eq!(ask(&auth, "POST", "/mcp", None, vec![], b"{}").status, 401);
    let first_token = grant(&auth, "mcp:read");
    let refused = mcp_with(&auth, first_token["access_token"].as_str().unwrap()).unwrap();
    assert_eq!(refused.status, 403);
    let (_, header) = refused
        .headers
        .iter()
        .find(|(n, _)| n == "www-authenticate")
        .unwrap();
    let c = BearerChallenge::parse(header).unwrap();
    assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
    assert_eq!(c.scope.as_deref(), Some("mcp:admin"));
    assert!(c.resource_metadata.is_some());
    let second = grant(&auth, "mcp:read mcp:admin");
    assert!(mcp_with(&auth, second["access_token"].as_str().unwrap()).is_none());
    assert_eq!(auth.snapshot()["insufficient_scope"], 1);
    // Without step_up the first token goes through.
    let auth = ScriptedAuth::new(AuthScript::default(), Version::V2026_07_28);
    let t = grant(&auth, "mcp:read");
    assert!(mcp_with(&auth, t["access_token"].as_str().unwrap()).is_none());
}

#[test]
fn refresh_tokens_are_issued_only_when_scripted_and_redeemed_for_a_new_token() {
    let auth = ScriptedAuth::new(AuthScript::default(), Version::V2026_07_28);
    assert!(grant(&auth, "mcp:read").get("refresh_token").is_none());
    let script = AuthScript {
        refresh_token: "issued".into(),
        ..AuthScript::default()
    };
    let auth = ScriptedAuth::new(script, Version::V2026_07_28);
    let first_grant = grant(&auth, "mcp:read");
    let refresh = first_grant["refresh_token"].as_str().unwrap().to_owned();
    let body = format!("grant_type=refresh_token&refresh_token={refresh}");
    let renewed = json_of(&ask(
        &auth,
        "POST",
        "/oauth/token",
        None,
        vec![],
        body.as_bytes(),
    ));
    assert_ne!(renewed["access_token"], first_grant["access_token"]);
    assert_eq!(renewed["scope"], "mcp:read");
    assert!(mcp_with(&auth, renewed["access_token"].as_str().unwrap()).is_none());
    let unknown = ask(
        &auth,
        "POST",
        "/oauth/token",
        None,
        vec![],
        b"grant_type=refresh_token&refresh_token=made-up",
    );
    assert_eq!(unknown.status, 400);
}

#[test]
fn a_migration_moves_the_server_to_a_second_authorization_server_once_a_token_was_used() {
    let script = AuthScript {
        migration: "after_token".into(),
        token_auth: "client_secret_post".into(),
        ..AuthScript::default()
    };
    let auth = ScriptedAuth::new(script, Version::V2026_07_28);
    let prm = "/.well-known/oauth-protected-resource/mcp";
    let servers =
        |auth: &ScriptedAuth| json_of(&get(auth, prm, None))["authorization_servers"].clone();
    assert_eq!(mcp_with(&auth, "none").unwrap().status, 401);
    assert_eq!(servers(&auth), json!([format!("{ORIGIN}/oauth")]));
    let first = ask(&auth, "POST", "/oauth/register", None, vec![], b"{}");
    assert_eq!(json_of(&first)["client_secret"], CLIENT_SECRET);
    let token = grant(&auth, "mcp:read")["access_token"].clone();
    let token = token.as_str().unwrap();
    // The first use goes through; from then on the token is the old
    // authorization server's, and the metadata names the next one.
    assert!(mcp_with(&auth, token).is_none());
    assert_eq!(mcp_with(&auth, token).unwrap().status, 401);
    assert_eq!(servers(&auth), json!([format!("{ORIGIN}/oauth-next")]));
    assert_eq!(auth.snapshot()["migrated"], json!(true));
    let meta = json_of(&get(
        &auth,
        "/.well-known/oauth-authorization-server/oauth-next",
        None,
    ));
    assert_eq!(meta["issuer"], format!("{ORIGIN}/oauth-next"));
    assert_eq!(
        meta["registration_endpoint"],
        format!("{ORIGIN}/oauth-next/register")
    );
    let second = ask(&auth, "POST", "/oauth-next/register", None, vec![], b"{}");
    assert_eq!(second.status, 201);
    assert_eq!(json_of(&second)["client_secret"], NEXT_CLIENT_SECRET);
    assert_ne!(json_of(&second)["client_id"], json_of(&first)["client_id"]);
    let query = "redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb&state=s2";
    let back = get(&auth, "/oauth-next/authorize", Some(query));
    assert_eq!(back.status, 302);
    assert!(
        back.headers[0].1.contains("oauth-next"),
        "iss of the next issuer"
    );
    // Without the script option there is no second authorization server.
    let plain = ScriptedAuth::new(AuthScript::default(), Version::V2026_07_28);
    assert_eq!(
        get(
            &plain,
            "/.well-known/oauth-authorization-server/oauth-next",
            None
        )
        .status,
        404
    );
}

#[test]
fn scopes_supported_omitted_leaves_it_out_of_both_documents_and_the_oracle_script() {
    let script = AuthScript {
        scopes_supported: "omitted".into(),
        ..AuthScript::default()
    };
    let auth = ScriptedAuth::new(script, Version::V2025_11_25);
    let prm = json_of(&get(
        &auth,
        "/.well-known/oauth-protected-resource/mcp",
        None,
    ));
    assert!(prm.get("scopes_supported").is_none(), "{prm}");
    assert_eq!(
        prm["authorization_servers"],
        json!([format!("{ORIGIN}/oauth")])
    );
    let meta = json_of(&get(
        &auth,
        "/.well-known/oauth-authorization-server/oauth",
        None,
    ));
    assert!(meta.get("scopes_supported").is_none(), "{meta}");
    let (told, _) = auth.drain();
    assert_eq!(told.unwrap().scopes_supported, Vec::<String>::new());
    let listed = ScriptedAuth::new(AuthScript::default(), Version::V2025_11_25);
    let prm = json_of(&get(
        &listed,
        "/.well-known/oauth-protected-resource/mcp",
        None,
    ));
    assert_eq!(prm["scopes_supported"], json!(SCOPES_SUPPORTED));
}

#[test]
fn a_preregistered_client_gets_credentials_and_no_registration_endpoint() {
    let script = AuthScript {
        registration: "preregistered".into(),
        cimd: "supported".into(),
        token_auth: "client_secret_basic".into(),
        ..AuthScript::default()
    };
    let auth = ScriptedAuth::new(script, Version::V2025_11_25);
    let (id, secret) = auth.client_credentials().unwrap();
    assert_eq!(id, PREREGISTERED_CLIENT_ID);
    assert_eq!(secret, PREREGISTERED_CLIENT_SECRET);
    assert_eq!(ask(&auth, "POST", "/mcp", None, vec![], b"{}").status, 401);
    let meta = json_of(&get(
        &auth,
        "/.well-known/oauth-authorization-server/oauth",
        None,
    ));
    assert!(meta.get("registration_endpoint").is_none(), "{meta}");
    assert_eq!(meta["client_id_metadata_document_supported"], json!(true));
    // Public clients named by a document URL authenticate with none.
    assert_eq!(
        meta["token_endpoint_auth_methods_supported"],
        json!(["client_secret_basic", "none"])
    );
    // A registration is not served, and the oracle says the credentials
    // handed over went unused.
    let refused = ask(&auth, "POST", "/oauth/register", None, vec![], b"{}");
    assert_eq!(refused.status, 404);
    assert!(judged(&auth, Version::V2025_11_25).contains(&"auth.preregistration.option".to_owned()));
    // Every other script hands out nothing, and serves no document support.
    let plain = ScriptedAuth::new(AuthScript::default(), Version::V2025_11_25);
    assert!(plain.client_credentials().is_none());
    assert_eq!(ask(&plain, "POST", "/mcp", None, vec![], b"{}").status, 401);
    let meta = json_of(&get(
        &plain,
        "/.well-known/oauth-authorization-server/oauth",
        None,
    ));
    assert!(meta.get("client_id_metadata_document_supported").is_none());
    assert_eq!(
        meta["registration_endpoint"],
        format!("{ORIGIN}/oauth/register")
    );
}
