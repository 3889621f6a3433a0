use super::*;
use serde_json::json;

fn rules(defects: &[Defect]) -> Vec<&'static str> {
    defects.iter().map(|d| d.rule.id).collect()
}

const SERVER: &str = "http://127.0.0.1:3000/mcp";

#[test]
fn a_good_protected_resource_metadata_document_passes() {
    let doc = json!({
        "resource": "http://127.0.0.1:3000/mcp",
        "authorization_servers": ["http://127.0.0.1:3001"],
        "scopes_supported": ["mcp:read"],
    });
    assert_eq!(check_protected_resource_metadata(&doc, SERVER), []);
    let parent =
        json!({"resource": "http://127.0.0.1:3000", "authorization_servers": ["http://a"]});
    assert_eq!(check_protected_resource_metadata(&parent, SERVER), []);
}

#[test]
fn protected_resource_metadata_defects_name_their_rule() {
    let prm = ids::AUTH_PROTECTED_RESOURCE_METADATA.id;
    let servers = ids::AUTH_PRM_AUTHORIZATION_SERVERS.id;
    assert_eq!(
        rules(&check_protected_resource_metadata(&json!([]), SERVER)),
        [prm]
    );
    assert_eq!(
        rules(&check_protected_resource_metadata(&json!({}), SERVER)),
        [prm, servers]
    );
    let other = json!({"resource": "http://127.0.0.1:3000/other", "authorization_servers": []});
    let d = check_protected_resource_metadata(&other, SERVER);
    assert_eq!(rules(&d), [prm, servers]);
    assert!(d[0].detail.contains("/other"), "{}", d[0].detail);
    let bad = json!({"resource": SERVER, "authorization_servers": ["not a url", 3], "scopes_supported": "a b"});
    assert_eq!(
        rules(&check_protected_resource_metadata(&bad, SERVER)),
        [servers, servers, prm]
    );
}

fn as_doc(issuer: &str) -> Value {
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "jwks_uri": format!("{issuer}/jwks"),
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    })
}

#[test]
fn a_good_authorization_server_metadata_document_passes() {
    let issuer = "http://127.0.0.1:3001";
    for v in [
        Version::V2025_03_26,
        Version::V2025_06_18,
        Version::V2025_11_25,
        Version::V2026_07_28,
    ] {
        for kind in [MetadataKind::OAuth, MetadataKind::OpenId] {
            assert_eq!(
                check_authorization_server_metadata(v, &as_doc(issuer), issuer, kind),
                [],
                "{v}"
            );
        }
    }
    assert!(supports_s256(&as_doc(issuer)));
}

#[test]
fn authorization_server_metadata_defects_name_their_rule() {
    let issuer = "http://127.0.0.1:3001";
    let mut doc = as_doc("https://attacker.example");
    doc["code_challenge_methods_supported"] = json!(["plain"]);
    doc["authorization_response_iss_parameter_supported"] = json!("yes");
    let provided = ids::AUTH_AS_METADATA_PROVIDED.id;
    let d = check_authorization_server_metadata(
        Version::V2025_11_25,
        &doc,
        issuer,
        MetadataKind::OAuth,
    );
    assert_eq!(
        rules(&d),
        [provided, provided, ids::AUTH_OAUTH21_IMPLEMENTED.id]
    );
    assert!(d[0].detail.contains("attacker"), "{}", d[0].detail);
    let d = check_authorization_server_metadata(
        Version::V2026_07_28,
        &doc,
        issuer,
        MetadataKind::OpenId,
    );
    assert_eq!(
        d.last().map(|d| d.rule.id),
        Some(ids::AUTH_PKCE_OIDC_ADVERTISE.id)
    );
    // 2025-03-26: serving metadata is a SHOULD, and the issuer is not compared
    // (the MCP server URL stands for it).
    let d = check_authorization_server_metadata(
        Version::V2025_03_26,
        &json!({"issuer": "x"}),
        issuer,
        MetadataKind::OAuth,
    );
    assert!(
        rules(&d).starts_with(&[ids::AUTH_AS_METADATA_SUPPORTED.id; 3]),
        "{d:?}"
    );
    assert_eq!(d.len(), 4, "{d:?}");
}

#[test]
fn plain_http_endpoints_are_judged_off_loopback_only() {
    for host in [
        "http://127.0.0.1:3001",
        "http://localhost:3001",
        "http://[::1]:3001",
    ] {
        let d = check_authorization_server_metadata(
            Version::V2025_11_25,
            &as_doc(host),
            host,
            MetadataKind::OAuth,
        );
        assert!(d.is_empty(), "{host}: {d:?}");
    }
    let issuer = "http://auth.example";
    let d = check_authorization_server_metadata(
        Version::V2025_06_18,
        &as_doc(issuer),
        issuer,
        MetadataKind::OAuth,
    );
    assert_eq!(rules(&d), [ids::AUTH_HTTPS.id; 5], "{d:?}");
    assert!(d[1].detail.contains("authorization_endpoint"), "{d:?}");
    // One endpoint elsewhere over plain http is enough.
    let issuer = "http://127.0.0.1:3001";
    let mut doc = as_doc(issuer);
    doc["token_endpoint"] = json!("http://tokens.example/token");
    let d = check_authorization_server_metadata(
        Version::V2026_07_28,
        &doc,
        issuer,
        MetadataKind::OAuth,
    );
    assert_eq!(rules(&d), [ids::AUTH_HTTPS.id], "{d:?}");
}

#[test]
fn an_openid_document_needs_what_openid_discovery_requires() {
    let issuer = "http://127.0.0.1:3001";
    let mut doc = as_doc(issuer);
    for field in [
        "jwks_uri",
        "subject_types_supported",
        "id_token_signing_alg_values_supported",
    ] {
        doc.as_object_mut().unwrap().remove(field);
    }
    // RFC 8414 metadata needs none of them.
    let oauth = check_authorization_server_metadata(
        Version::V2025_11_25,
        &doc,
        issuer,
        MetadataKind::OAuth,
    );
    assert!(oauth.is_empty(), "{oauth:?}");
    let d = check_authorization_server_metadata(
        Version::V2025_11_25,
        &doc,
        issuer,
        MetadataKind::OpenId,
    );
    assert_eq!(rules(&d), [ids::AUTH_AS_METADATA_PROVIDED.id; 3], "{d:?}");
    assert!(d[0].detail.contains("jwks_uri"), "{d:?}");
}
