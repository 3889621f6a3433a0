//! A clean authorization flow draws no violation at any version; each
//! broken one draws its rule. [`breaking`] also proves the `ORACLE` entries
//! of this module (`crate::checks`).

use mcpspec_engine::oauth::discovery::authorization_server_metadata_urls;
use mcpspec_engine::oauth::pkce::s256_challenge;
use mcpspec_engine::{Role, Version};
use mcpspec_wire::event::{HttpRecord, Transport};
use serde_json::json;

use super::{pairs, AuthEndpoint as E, AuthScript};
use crate::{Observed, Oracle};

pub(super) const ORIGIN: &str = "http://127.0.0.1:4000";
const VERIFIER: &str = "a-verifier-of-forty-three-characters-or-more-0123";
const VERSIONS: [Version; 4] = [
    Version::V2025_03_26,
    Version::V2025_06_18,
    Version::V2025_11_25,
    Version::V2026_07_28,
];

fn issuer(v: Version) -> String {
    if v >= Version::V2025_06_18 {
        format!("{ORIGIN}/oauth")
    } else {
        ORIGIN.to_owned()
    }
}

pub(super) fn script(v: Version) -> AuthScript {
    AuthScript {
        origin: ORIGIN.into(),
        server_url: format!("{ORIGIN}/mcp"),
        issuer: issuer(v),
        resource_metadata: Some(format!("{ORIGIN}/.well-known/oauth-protected-resource/mcp")),
        challenge_scope: None,
        scopes_supported: vec!["mcp:read".into(), "mcp:write".into()],
        token_auth_methods: vec!["none".into()],
        pkce_advertised: true,
        iss_advertised: v >= Version::V2026_07_28,
        cimd_advertised: false,
        preregistered: None,
    }
}

pub(super) fn record(method: &str, target: &str, status: Option<u16>) -> HttpRecord {
    HttpRecord {
        method: method.into(),
        target: target.into(),
        status,
        ..HttpRecord::default()
    }
}

fn path(url: &str) -> String {
    url.strip_prefix(ORIGIN).unwrap_or(url).to_owned()
}

fn query(params: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish()
}

/// The requests of a clean flow at `v`, with the script's answers.
pub(super) fn clean(v: Version) -> Vec<(E, HttpRecord)> {
    let s = script(v);
    let mut out = vec![(E::Mcp, record("POST", "/mcp", Some(401)))];
    if v >= Version::V2025_06_18 {
        let prm = path(s.resource_metadata.as_deref().unwrap_or_default());
        out.push((E::ProtectedResourceMetadata, record("GET", &prm, Some(200))));
    }
    let asm = &authorization_server_metadata_urls(v, &s.issuer).expect("order")[0].url;
    out.push((
        E::AuthorizationServerMetadata,
        record("GET", &path(asm), Some(200)),
    ));
    let mut reg = record("POST", "/oauth/register", Some(201));
    reg.request_body =
        json!({"application_type": "native", "redirect_uris": ["http://127.0.0.1:9/cb"]})
            .to_string();
    reg.body = json!({"client_id": "c1"}).to_string();
    out.push((E::Registration, reg));
    let challenge = s256_challenge(VERIFIER);
    let resource = s.server_url.clone();
    let authorize = query(&[
        ("response_type", "code"),
        ("client_id", "c1"),
        ("redirect_uri", "http://127.0.0.1:9/cb"),
        ("code_challenge", &challenge),
        ("code_challenge_method", "S256"),
        ("state", "s1"),
        ("resource", &resource),
        ("scope", "mcp:read mcp:write"),
    ]);
    let mut auth = record("GET", &format!("/oauth/authorize?{authorize}"), Some(302));
    let back = if v >= Version::V2026_07_28 {
        format!("http://127.0.0.1:9/cb?code=k1&state=s1&iss={}", issuer(v))
    } else {
        "http://127.0.0.1:9/cb?code=k1&state=s1".to_owned()
    };
    auth.response_headers = vec![("location".into(), back)];
    out.push((E::Authorization, auth));
    let mut token = record("POST", "/oauth/token", Some(200));
    token.request_body = query(&[
        ("grant_type", "authorization_code"),
        ("code", "k1"),
        ("code_verifier", VERIFIER),
        ("client_id", "c1"),
        ("redirect_uri", "http://127.0.0.1:9/cb"),
        ("resource", &resource),
    ]);
    token.body = json!({"access_token": "t1", "token_type": "Bearer"}).to_string();
    out.push((E::Token, token));
    let mut mcp = record("POST", "/mcp", None);
    mcp.request_headers = vec![("authorization".into(), "Bearer t1".into())];
    out.push((E::Mcp, mcp));
    out
}

/// The ids the oracle reports for `flow` under `script` at `v`.
pub(super) fn judge(v: Version, script: &AuthScript, flow: &[(E, HttpRecord)]) -> Vec<String> {
    let mut oracle = Oracle::new(Role::Client, v, Transport::Http);
    let mut found = oracle.observe(0, Observed::AuthScript(script));
    for (endpoint, record) in flow {
        found.extend(oracle.observe(
            0,
            Observed::AuthExchange {
                endpoint: *endpoint,
                record,
            },
        ));
    }
    // The case ends well after the flow (a token's non-use is judged only
    // after a grace period).
    found.extend(oracle.observe(super::tokens::GRACE_MS, Observed::End));
    found
        .into_iter()
        .map(|f| f.requirement.id.to_owned())
        .collect()
}

/// The record of the first request to `endpoint`.
pub(super) fn at(flow: &mut [(E, HttpRecord)], endpoint: E) -> &mut HttpRecord {
    &mut flow
        .iter_mut()
        .find(|(e, _)| *e == endpoint)
        .expect("the flow has it")
        .1
}

/// Rewrites the query (authorization) or form body (token) of a request.
pub(super) fn edit(r: &mut HttpRecord, change: impl Fn(&mut Vec<(String, String)>)) {
    let (base, text) = match r.target.split_once('?') {
        Some((b, q)) => (Some(b.to_owned()), q.to_owned()),
        None => (None, r.request_body.clone()),
    };
    let mut p = pairs(&text);
    change(&mut p);
    let text = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(p)
        .finish();
    match base {
        Some(b) => r.target = format!("{b}?{text}"),
        None => r.request_body = text,
    }
}

fn drop_param(name: &'static str) -> impl Fn(&mut Vec<(String, String)>) {
    move |p| p.retain(|(k, _)| k != name)
}

pub(super) fn set_param(
    name: &'static str,
    value: &'static str,
) -> impl Fn(&mut Vec<(String, String)>) {
    move |p| {
        p.retain(|(k, _)| k != name);
        p.push((name.to_owned(), value.to_owned()));
    }
}

/// The ids reported for the clean flow at `v` after `change`.
fn broken(
    v: Version,
    change: impl FnOnce(&mut Vec<(E, HttpRecord)>, &mut AuthScript),
) -> Vec<String> {
    let mut s = script(v);
    let mut flow = clean(v);
    change(&mut flow, &mut s);
    judge(v, &s, &flow)
}

/// The clean flow, then a 403 `insufficient_scope` challenge naming
/// `mcp:admin` and a second authorization request asking for `scope`.
fn step_up(f: &mut Vec<(E, HttpRecord)>, scope: &'static str) {
    let mut refused = record("POST", "/mcp", Some(403));
    refused.request_headers = vec![("authorization".into(), "Bearer t1".into())];
    refused.response_headers = vec![(
        "www-authenticate".into(),
        r#"Bearer error="insufficient_scope", scope="mcp:admin""#.into(),
    )];
    f.push((E::Mcp, refused));
    let mut again = at(f, E::Authorization).clone();
    edit(&mut again, set_param("scope", scope));
    f.push((E::Authorization, again));
}

/// The token response of the clean flow with a refresh token.
fn with_refresh(f: &mut [(E, HttpRecord)]) {
    at(f, E::Token).body =
        json!({"access_token": "t1", "token_type": "Bearer", "refresh_token": "r1"}).to_string();
}

/// Traffic breaking requirement `id`, judged at the latest version: the
/// ids reported (`None`: no such traffic here).
pub(crate) fn breaking(id: &str) -> Option<Vec<String>> {
    let v = Version::V2026_07_28;
    let found = match id {
        "auth.pkce" => broken(v, |f, _| {
            edit(at(f, E::Token), drop_param("code_verifier"));
        }),
        "auth.pkce.s256" => broken(v, |f, _| {
            edit(
                at(f, E::Authorization),
                set_param("code_challenge_method", "plain"),
            );
        }),
        "auth.resource-indicators" | "auth.resource.always" => broken(v, |f, _| {
            edit(at(f, E::Authorization), drop_param("resource"));
        }),
        "auth.resource.canonical" => broken(v, |f, _| {
            edit(
                at(f, E::Token),
                set_param("resource", "http://127.0.0.1:4000/other"),
            );
        }),
        "auth.state" => broken(v, |f, _| {
            edit(at(f, E::Authorization), drop_param("state"));
        }),
        "auth.registration.client-id" => broken(v, |f, _| {
            edit(at(f, E::Authorization), set_param("client_id", "made-up"));
        }),
        "auth.dcr.application-type" => broken(v, |f, _| {
            at(f, E::Registration).request_body = json!({"redirect_uris": []}).to_string();
        }),
        "auth.redirect-uri.localhost-or-https" => broken(v, |f, _| {
            at(f, E::Registration).request_body =
                json!({"application_type": "web", "redirect_uris": ["http://client.example/cb"]})
                    .to_string();
        }),
        "auth.redirect-uri.registered" => broken(v, |f, _| {
            edit(
                at(f, E::Authorization),
                set_param("redirect_uri", "http://127.0.0.1:9/other"),
            );
        }),
        "auth.issuer.validate" => broken(v, |f, _| {
            at(f, E::Authorization).response_headers = vec![(
                "location".into(),
                "http://127.0.0.1:9/cb?code=k1&state=s1".into(),
            )];
        }),
        "auth.prm.resource-match" => broken(v, |f, _| {
            at(f, E::ProtectedResourceMetadata).body =
                json!({"resource": "http://127.0.0.1:4000/another/mcp"}).to_string();
        }),
        "auth.as-metadata.issuer-validate" => broken(v, |f, _| {
            at(f, E::AuthorizationServerMetadata).body =
                json!({"issuer": "http://127.0.0.1:4000/another-issuer"}).to_string();
        }),
        "auth.pkce.verify-support" => broken(v, |_, s| s.pkce_advertised = false),
        "auth.scope.selection" => broken(v, |f, _| {
            edit(at(f, E::Authorization), drop_param("scope"));
        }),
        "auth.token-endpoint.auth-method" => broken(v, |f, _| {
            edit(at(f, E::Token), set_param("client_secret", "s"));
        }),
        "auth.bearer-header" => broken(v, |f, _| {
            f.last_mut().expect("mcp").1.request_headers.clear();
        }),
        "auth.token.own-authorization-server" => broken(v, |f, _| {
            f.last_mut().expect("mcp").1.request_headers =
                vec![("authorization".into(), "Bearer from-elsewhere".into())];
        }),
        "auth.www-authenticate.parse" | "auth.prm.discovery-order" => broken(v, |f, _| {
            at(f, E::ProtectedResourceMetadata).target =
                "/.well-known/oauth-protected-resource".into();
        }),
        "auth.prm.client-discovery" => broken(v, |f, _| {
            f.retain(|(e, _)| *e != E::ProtectedResourceMetadata);
        }),
        "auth.as-metadata.discovery-order" => broken(v, |f, _| {
            at(f, E::AuthorizationServerMetadata).target =
                "/.well-known/openid-configuration/oauth".into();
        }),
        "auth.as-metadata.client" => broken(v, |f, _| {
            f.retain(|(e, _)| *e != E::AuthorizationServerMetadata);
        }),
        "auth.legacy.metadata-first" => broken(Version::V2025_03_26, |f, _| {
            f.retain(|(e, _)| *e != E::AuthorizationServerMetadata);
        }),
        "auth.scope.challenge-authoritative" => broken(v, |f, _| {
            step_up(f, "mcp:read mcp:write");
        }),
        "auth.step-up.union" => broken(v, |f, _| step_up(f, "mcp:admin")),
        "auth.dcr.redirect-rejection" => broken(v, |f, _| {
            let reg = at(f, E::Registration);
            reg.status = Some(400);
            reg.body = json!({"error": "invalid_redirect_uri"}).to_string();
            let again = reg.clone();
            f.insert(3, (E::Registration, again));
        }),
        "auth.step-up.retry-limit" => broken(v, |f, _| {
            // Every token refused with 401, and the client authorizes again.
            f.last_mut().expect("mcp").1.status = Some(401);
            for _ in 0..3 {
                let again = at(f, E::Authorization).clone();
                f.push((E::Authorization, again));
                let mut refused = record("POST", "/mcp", Some(401));
                refused.request_headers = vec![("authorization".into(), "Bearer t1".into())];
                f.push((E::Mcp, refused));
            }
        }),
        "auth.refresh.confidential" => broken(v, |f, _| {
            with_refresh(f);
            f.last_mut().expect("mcp").1.target = "/mcp?refresh_token=r1".into();
        }),
        "auth.refresh.not-assumed" => broken(v, |f, _| {
            f.pop(); // the MCP request with the access token
        }),
        _ => return super::migration_tests::breaking(id),
    };
    Some(found)
}

#[test]
fn a_clean_flow_draws_nothing_at_any_version() {
    for v in VERSIONS {
        assert_eq!(judge(v, &script(v), &clean(v)), Vec::<String>::new(), "{v}");
        // Without resource_metadata: the well-known URI under the path first.
        let mut s = script(v);
        s.resource_metadata = None;
        assert_eq!(
            judge(v, &s, &clean(v)),
            Vec::<String>::new(),
            "{v} well-known"
        );
    }
}

#[test]
fn each_broken_flow_draws_its_rule() {
    let ids = [
        "auth.pkce",
        "auth.pkce.s256",
        "auth.pkce.verify-support",
        "auth.issuer.validate",
        "auth.prm.resource-match",
        "auth.as-metadata.issuer-validate",
        "auth.resource-indicators",
        "auth.resource.always",
        "auth.resource.canonical",
        "auth.state",
        "auth.registration.client-id",
        "auth.dcr.application-type",
        "auth.redirect-uri.localhost-or-https",
        "auth.redirect-uri.registered",
        "auth.scope.selection",
        "auth.token-endpoint.auth-method",
        "auth.bearer-header",
        "auth.token.own-authorization-server",
        "auth.www-authenticate.parse",
        "auth.prm.discovery-order",
        "auth.prm.client-discovery",
        "auth.as-metadata.discovery-order",
        "auth.as-metadata.client",
        "auth.legacy.metadata-first",
        "auth.scope.challenge-authoritative",
        "auth.step-up.union",
        "auth.step-up.retry-limit",
        "auth.dcr.redirect-rejection",
        "auth.refresh.confidential",
        "auth.refresh.not-assumed",
        "auth.credentials.reregister",
        "auth.credentials.per-authorization-server",
    ];
    for id in ids {
        let found = breaking(id).expect("traffic");
        assert!(found.iter().any(|f| f == id), "{id}: found {found:?}");
    }
}

#[test]
fn rules_are_judged_only_at_the_versions_that_have_them() {
    // No S256 rule before 2025-11-25, no resource before 2025-06-18.
    let v = Version::V2025_06_18;
    let found = broken(v, |f, _| {
        edit(
            at(f, E::Authorization),
            set_param("code_challenge_method", "plain"),
        );
    });
    // The verifier (equal to an S256 challenge) no longer matches as plain.
    assert!(!found.iter().any(|f| f == "auth.pkce.s256"), "{found:?}");
    let v = Version::V2025_03_26;
    let found = broken(v, |f, _| edit(at(f, E::Token), drop_param("resource")));
    assert_eq!(found, Vec::<String>::new());
    // Registration's client id and application_type are 2026-07-28 rules.
    let found = broken(Version::V2025_11_25, |f, _| {
        at(f, E::Registration).request_body =
            json!({"redirect_uris": ["http://127.0.0.1:9/cb"]}).to_string();
        edit(at(f, E::Authorization), set_param("client_id", "made-up"));
    });
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_verifier_that_does_not_match_and_a_redeemed_altered_state_are_reported() {
    let v = Version::V2025_11_25;
    let found = broken(v, |f, _| {
        edit(
            at(f, E::Token),
            set_param("code_verifier", "x".repeat(43).leak()),
        );
    });
    assert_eq!(found, vec!["auth.pkce"]);
    let found = broken(v, |f, _| {
        at(f, E::Authorization).response_headers = vec![(
            "location".into(),
            "http://127.0.0.1:9/cb?code=k1&state=other".into(),
        )];
    });
    assert_eq!(found, vec!["auth.state"]);
}

#[test]
fn a_token_shown_before_the_flow_must_be_the_servers_own_too() {
    let v = Version::V2025_06_18;
    let found = broken(v, |f, _| {
        f[0].1.request_headers = vec![("authorization".into(), "Bearer stale".into())];
    });
    assert_eq!(found, vec!["auth.token.own-authorization-server"]);
    // No token at all before the flow is how it starts.
    assert_eq!(broken(v, |_, _| {}), Vec::<String>::new());
}

#[test]
fn loopback_and_https_redirect_uris_pass_and_others_do_not() {
    for ok in [
        "http://localhost:8080/cb",
        "http://127.0.0.1/cb",
        "http://[::1]:3/cb",
        "https://app.example/cb",
    ] {
        assert!(super::flow::localhost_or_https("r", ok).is_none(), "{ok}");
    }
    for bad in [
        "http://app.example/cb",
        "http://10.0.0.1/cb",
        "myapp:/cb",
        "not a url",
    ] {
        assert!(super::flow::localhost_or_https("r", bad).is_some(), "{bad}");
    }
}

#[test]
fn a_search_that_fails_over_to_the_next_url_keeps_the_order() {
    // OpenID only: RFC 8414 insertion (404), then OpenID insertion (served).
    let v = Version::V2025_11_25;
    let found = broken(v, |f, s| {
        s.resource_metadata = None;
        let k = f
            .iter()
            .position(|(e, _)| *e == E::ProtectedResourceMetadata)
            .expect("prm");
        f[k].1.target = "/.well-known/oauth-protected-resource/mcp".into();
        let asm = f
            .iter()
            .position(|(e, _)| *e == E::AuthorizationServerMetadata)
            .expect("asm");
        f[asm].1.status = Some(404);
        let served = record("GET", "/.well-known/openid-configuration/oauth", Some(200));
        f.insert(asm + 1, (E::AuthorizationServerMetadata, served));
    });
    assert_eq!(found, Vec::<String>::new());
    // Starting at the OpenID URI breaks it, once.
    let found = broken(v, |f, _| {
        at(f, E::AuthorizationServerMetadata).target =
            "/.well-known/openid-configuration/oauth".into();
    });
    assert_eq!(found, vec!["auth.as-metadata.discovery-order"]);
}

#[test]
fn nothing_is_judged_before_the_script_is_told_or_before_it_happens() {
    let v = Version::V2026_07_28;
    let mut oracle = Oracle::new(Role::Client, v, Transport::Http);
    let flow = clean(v);
    let (e, r) = &flow[4];
    let mut bad = r.clone();
    edit(&mut bad, drop_param("code_challenge"));
    assert!(oracle
        .observe(
            0,
            Observed::AuthExchange {
                endpoint: *e,
                record: &bad
            }
        )
        .is_empty());
    // A flow that stops after authorizing is judged on what it did only.
    let found = broken(v, |f, _| f.truncate(5));
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_step_up_that_keeps_its_scopes_and_adds_the_challenged_ones_draws_nothing() {
    let v = Version::V2026_07_28;
    assert_eq!(
        broken(v, |f, _| step_up(f, "mcp:write mcp:admin mcp:read")),
        Vec::<String>::new()
    );
    // The 401's scope counts too: asked for, it draws nothing; left out, the rule.
    let with_scope = |scope: &'static str| {
        broken(v, move |f, s| {
            s.challenge_scope = Some("mcp:read".into());
            at(f, E::Mcp).response_headers = vec![(
                "www-authenticate".into(),
                r#"Bearer scope="mcp:read""#.into(),
            )];
            edit(at(f, E::Authorization), set_param("scope", scope));
        })
    };
    assert_eq!(with_scope("mcp:read"), Vec::<String>::new());
    assert!(with_scope("mcp:write")
        .iter()
        .any(|id| id == "auth.scope.challenge-authoritative"));
    // Before 2025-11-25 there is no such rule.
    assert!(!broken(Version::V2025_06_18, |f, _| step_up(f, "mcp:read"))
        .iter()
        .any(|id| id == "auth.scope.challenge-authoritative"));
}

#[test]
fn a_refresh_token_may_go_to_the_token_endpoint_and_spares_the_access_token_its_use() {
    let v = Version::V2026_07_28;
    // Issued, and sent back to the token endpoint only: nothing.
    let found = broken(v, |f, _| {
        with_refresh(f);
        let mut refresh = record("POST", "/oauth/token", Some(200));
        refresh.request_body = query(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", "r1"),
            ("client_id", "c1"),
            ("resource", "http://127.0.0.1:4000/mcp"),
        ]);
        refresh.body = json!({"access_token": "t2", "token_type": "Bearer"}).to_string();
        f.push((E::Token, refresh));
        let mut mcp = record("POST", "/mcp", None);
        mcp.request_headers = vec![("authorization".into(), "Bearer t2".into())];
        f.push((E::Mcp, mcp));
    });
    assert_eq!(found, Vec::<String>::new());
    // With a refresh token in hand the client may stop without using the
    // access token; a refresh token in a header elsewhere is a leak.
    let found = broken(v, |f, _| {
        with_refresh(f);
        f.last_mut().expect("mcp").1.request_headers =
            vec![("authorization".into(), "Bearer r1".into())];
    });
    assert!(
        found.iter().any(|id| id == "auth.refresh.confidential"),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|id| id == "auth.refresh.not-assumed"),
        "{found:?}"
    );
    // Both rules are 2026-07-28's.
    let found = broken(Version::V2025_11_25, |f, _| {
        f.pop();
    });
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn three_authorizations_in_a_row_are_allowed_and_one_let_through_starts_the_count_again() {
    let v = Version::V2025_11_25;
    let retries = |n: usize, through_after: Option<usize>| {
        broken(v, move |f, _| {
            f.last_mut().expect("mcp").1.status = Some(401);
            for i in 0..n {
                let again = at(f, E::Authorization).clone();
                f.push((E::Authorization, again));
                let mut mcp = record("POST", "/mcp", Some(401));
                if through_after == Some(i) {
                    mcp.status = None;
                }
                mcp.request_headers = vec![("authorization".into(), "Bearer t1".into())];
                f.push((E::Mcp, mcp));
            }
        })
        .contains(&"auth.step-up.retry-limit".to_owned())
    };
    assert!(!retries(2, None));
    assert!(retries(3, None));
    assert!(!retries(3, Some(0)));
    assert!(retries(5, Some(0)));
}

#[test]
fn a_refused_registration_may_be_adjusted_but_not_repeated() {
    let v = Version::V2026_07_28;
    let found = |adjust: bool| {
        broken(v, move |f, _| {
            let reg = at(f, E::Registration);
            let mut refused = reg.clone();
            refused.status = Some(400);
            refused.body = json!({"error": "invalid_redirect_uri"}).to_string();
            if adjust {
                refused.request_body =
                    json!({"application_type": "web", "redirect_uris": ["https://client.example/cb"]})
                        .to_string();
            }
            f.insert(3, (E::Registration, refused));
        })
    };
    assert_eq!(found(true), Vec::<String>::new());
    assert!(found(false).contains(&"auth.dcr.redirect-rejection".to_owned()));
}

#[test]
fn an_access_token_issued_just_before_the_end_is_not_yet_judged() {
    let v = Version::V2026_07_28;
    let s = script(v);
    let mut flow = clean(v);
    flow.pop(); // the MCP request with the access token never comes
    let ends_at = |end_ms: u64| {
        let mut oracle = Oracle::new(Role::Client, v, Transport::Http);
        let mut found = oracle.observe(0, Observed::AuthScript(&s));
        for (endpoint, record) in &flow {
            let at = if *endpoint == E::Token { 1_000 } else { 0 };
            found.extend(oracle.observe(
                at,
                Observed::AuthExchange {
                    endpoint: *endpoint,
                    record,
                },
            ));
        }
        found.extend(oracle.observe(end_ms, Observed::End));
        found
            .iter()
            .any(|f| f.requirement.id == "auth.refresh.not-assumed")
    };
    assert!(!ends_at(1_500));
    assert!(ends_at(3_000));
}
