//! An authorization server migration: after a clean flow with the script's
//! authorization server, the MCP endpoint answers 401 again and the
//! Protected Resource Metadata names a second one. A client that
//! registers again there draws nothing; one that takes the first one's
//! credentials along draws `auth.credentials.*`.

use mcpspec_engine::oauth::discovery::authorization_server_metadata_urls;
use mcpspec_engine::Version;
use mcpspec_wire::event::HttpRecord;
use serde_json::json;

use super::tests::{at, clean, edit, judge, record, script, set_param, ORIGIN};
use super::AuthEndpoint as E;

const NEXT: &str = "/oauth-next";

/// How the client treats its credentials at the second authorization server.
#[derive(Clone, Copy)]
enum Second {
    /// Registers again and uses what it got.
    Registers,
    /// Authorizes and redeems with the first one's client id.
    ReusesClientId,
    /// Registers again but authenticates at the token endpoint with the
    /// first one's client id and secret (Basic).
    ReusesSecret,
}

/// The clean flow (with a client secret), then the migration and a second
/// flow at `ORIGIN/oauth-next`.
fn migrated(v: Version, second: Second) -> Vec<String> {
    let s = script(v);
    let mut f = clean(v);
    at(&mut f, E::Registration).body =
        json!({"client_id": "c1", "client_secret": "secret-1"}).to_string();
    // The first PRM names the first authorization server.
    at(&mut f, E::ProtectedResourceMetadata).body = json!({
        "resource": s.server_url, "authorization_servers": [s.issuer]
    })
    .to_string();
    let next = format!("{ORIGIN}{NEXT}");
    let mut refused = record("POST", "/mcp", Some(401));
    refused.request_headers = vec![("authorization".into(), "Bearer t1".into())];
    f.push((E::Mcp, refused));
    let mut prm = at(&mut f, E::ProtectedResourceMetadata).clone();
    prm.body =
        json!({"resource": s.server_url, "authorization_servers": [next.clone()]}).to_string();
    f.push((E::ProtectedResourceMetadata, prm));
    let asm = &authorization_server_metadata_urls(v, &next).expect("order")[0].url;
    let mut meta = record("GET", asm.strip_prefix(ORIGIN).unwrap_or(asm), Some(200));
    meta.body = json!({"issuer": next}).to_string();
    f.push((E::AuthorizationServerMetadata, meta));
    let client = match second {
        Second::ReusesClientId => "c1",
        _ => "c2",
    };
    if !matches!(second, Second::ReusesClientId) {
        let mut reg = at(&mut f, E::Registration).clone();
        reg.target = format!("{NEXT}/register");
        reg.body = json!({"client_id": "c2", "client_secret": "secret-2"}).to_string();
        f.push((E::Registration, reg));
    }
    let mut auth = at(&mut f, E::Authorization).clone();
    auth.target = auth.target.replacen("/oauth/", &format!("{NEXT}/"), 1);
    edit(&mut auth, set_param("client_id", client));
    auth.response_headers = vec![(
        "location".into(),
        format!("http://127.0.0.1:9/cb?code=k2&state=s1&iss={next}"),
    )];
    f.push((E::Authorization, auth));
    let mut token = at(&mut f, E::Token).clone();
    token.target = format!("{NEXT}/token");
    edit(&mut token, |p| {
        p.retain(|(k, _)| k != "code" && k != "client_id");
        p.push(("code".into(), "k2".into()));
    });
    match second {
        Second::ReusesSecret => {
            // c1:secret-1, Basic.
            token.request_headers = vec![("authorization".into(), "Basic YzE6c2VjcmV0LTE=".into())];
        }
        _ => token.request_body = format!("{}&client_id={client}", token.request_body),
    }
    token.body = json!({"access_token": "t2", "token_type": "Bearer"}).to_string();
    f.push((E::Token, token));
    let mut mcp = record("POST", "/mcp", None);
    mcp.request_headers = vec![("authorization".into(), "Bearer t2".into())];
    f.push((E::Mcp, mcp));
    let mut s = s;
    // Client secrets are advertised (the Basic pair of the fault).
    s.token_auth_methods = vec!["none".into(), "client_secret_basic".into()];
    judge(v, &s, &f)
}

/// Traffic breaking `id` (the `breaking` of [`super::tests`]).
pub(super) fn breaking(id: &str) -> Option<Vec<String>> {
    let v = Version::V2026_07_28;
    match id {
        "auth.credentials.reregister" => Some(migrated(v, Second::ReusesClientId)),
        "auth.credentials.per-authorization-server" => Some(migrated(v, Second::ReusesSecret)),
        _ => None,
    }
}

#[test]
fn a_client_that_registers_again_after_a_migration_draws_nothing() {
    for v in [
        Version::V2025_06_18,
        Version::V2025_11_25,
        Version::V2026_07_28,
    ] {
        assert_eq!(migrated(v, Second::Registers), Vec::<String>::new(), "{v}");
    }
}

#[test]
fn credentials_taken_to_the_next_authorization_server_are_reported() {
    let v = Version::V2026_07_28;
    let reused = migrated(v, Second::ReusesClientId);
    assert!(
        reused.contains(&"auth.credentials.reregister".to_owned()),
        "{reused:?}"
    );
    assert!(
        reused.contains(&"auth.credentials.per-authorization-server".to_owned()),
        "{reused:?}"
    );
    let secret = migrated(v, Second::ReusesSecret);
    assert_eq!(
        secret,
        vec!["auth.credentials.per-authorization-server".to_owned()]
    );
    // Not a rule before 2026-07-28.
    assert!(!migrated(Version::V2025_11_25, Second::ReusesClientId)
        .iter()
        .any(|f| f.starts_with("auth.credentials")));
}

#[test]
fn a_prm_naming_the_same_authorization_server_is_no_migration() {
    let mut creds = super::credentials::Credentials::new("http://a/oauth");
    let mut r = HttpRecord {
        body: json!({"authorization_servers": ["http://a/oauth"]}).to_string(),
        ..HttpRecord::default()
    };
    assert_eq!(creds.prm_served(&r), None);
    r.body = json!({"authorization_servers": ["http://a/oauth-next"]}).to_string();
    assert_eq!(creds.prm_served(&r).as_deref(), Some("http://a/oauth-next"));
}
