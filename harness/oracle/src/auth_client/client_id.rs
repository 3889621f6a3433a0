//! How a client identifies itself to the authorization server: by a
//! client ID metadata document URL, by static (pre-registered) credentials,
//! or by dynamic registration (`basic/authorization#client-registration`
//! from 2025-11-25; the client-registration page at 2026-07-28).
//!
//! | rule | level | judged on | broken when |
//! |---|---|---|---|
//! | `auth.cimd.https-url` | MUST | authorization, token | a URL-shaped `client_id` is not an https URL with a path (no fragment, no dot segments) |
//! | `auth.cimd.check-support` | SHOULD | authorization | a URL-shaped `client_id` goes to an authorization server whose metadata did not advertise `client_id_metadata_document_supported` |
//! | `auth.cimd.supported` | SHOULD | registration | the client registers dynamically although the metadata advertised client ID metadata documents |
//! | `auth.preregistration.option` | SHOULD | registration, authorization | the client was handed static credentials and registers, or authorizes under another `client_id` |
//!
//! A `client_id` is URL-shaped when it parses as an absolute URL with a
//! host: dynamic registration and pre-registration give opaque strings.
//! The document itself (`auth.cimd.document`) is not read: it lives at an
//! https URL, which the loopback harness neither serves nor reaches.
//!
//! Each rule is reported once per case: one cause, one finding (the client
//! that ignored its static credentials at registration is not reported
//! again at authorization).

use mcpspec_engine::{ids, Requirement};
use mcpspec_wire::event::HttpRecord;

use super::{pairs, param, token_client, AuthEndpoint, AuthScript, Found};

/// Rules already reported in this case.
#[derive(Debug, Default)]
pub(super) struct ClientIds {
    reported: Vec<&'static Requirement>,
}

impl ClientIds {
    pub(super) fn judge(
        &mut self,
        script: &AuthScript,
        endpoint: AuthEndpoint,
        record: &HttpRecord,
    ) -> Vec<Found> {
        let mut found: Vec<Found> = Vec::new();
        match endpoint {
            AuthEndpoint::Registration => {
                if script.preregistered.is_some() {
                    found.push((
                        &ids::AUTH_PREREGISTRATION_OPTION,
                        "the client was handed static credentials (a pre-registered client_id and secret) and sent a dynamic registration request instead of using them".to_owned(),
                    ));
                } else if script.cimd_advertised {
                    found.push((
                        &ids::AUTH_CIMD_SUPPORTED,
                        "the authorization server metadata advertised client_id_metadata_document_supported, and the client registered dynamically instead of using a client ID metadata document URL as its client_id".to_owned(),
                    ));
                }
            }
            AuthEndpoint::Authorization => {
                let query = record.target.split_once('?').map_or("", |(_, q)| q);
                let params = pairs(query);
                let id = param(&params, "client_id").unwrap_or_default();
                found.extend(https_url("the authorization request", id));
                if url_shaped(id) && !script.cimd_advertised {
                    found.push((
                        &ids::AUTH_CIMD_CHECK_SUPPORT,
                        format!("the authorization request uses the URL {id:?} as client_id, but the authorization server metadata did not advertise client_id_metadata_document_supported"),
                    ));
                }
                if let Some(given) = script.preregistered.as_deref().filter(|g| *g != id) {
                    found.push((
                        &ids::AUTH_PREREGISTRATION_OPTION,
                        format!("the client was handed the pre-registered client_id {given:?} and authorized as {id:?} instead"),
                    ));
                }
            }
            AuthEndpoint::Token => {
                let (id, _) = token_client(record);
                found.extend(https_url(
                    "the token request",
                    id.as_deref().unwrap_or_default(),
                ));
            }
            _ => {}
        }
        found.retain(|(r, _)| !self.reported.contains(r));
        self.reported.extend(found.iter().map(|(r, _)| *r));
        found
    }
}

/// Whether `id` is a URL (absolute, with a host), as a client ID metadata
/// document's client_id is.
pub(super) fn url_shaped(id: &str) -> bool {
    url::Url::parse(id).is_ok_and(|u| u.has_host())
}

/// `auth.cimd.https-url` for the `client_id` of `what`, when it is a URL.
fn https_url(what: &str, id: &str) -> Option<Found> {
    let url = url::Url::parse(id).ok().filter(url::Url::has_host)?;
    let path = id
        .split_once("://")
        .map(|(_, rest)| rest.find('/').map_or("", |i| &rest[i..]))
        .unwrap_or_default();
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let dot = path.split('/').any(|seg| seg == "." || seg == "..");
    let why = if url.scheme() != "https" {
        Some(format!("its scheme is {}, not https", url.scheme()))
    } else if path.len() <= 1 {
        Some("it has no path".to_owned())
    } else if dot {
        Some("its path has a . or .. segment".to_owned())
    } else if url.fragment().is_some() {
        Some("it has a fragment".to_owned())
    } else {
        None
    };
    why.map(|why| {
        (
            &ids::AUTH_CIMD_HTTPS_URL,
            format!(
                "{what} uses {id:?} as its client ID metadata document URL (client_id), and {why}"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(cimd: bool, preregistered: Option<&str>) -> AuthScript {
        AuthScript {
            cimd_advertised: cimd,
            preregistered: preregistered.map(str::to_owned),
            ..AuthScript::default()
        }
    }

    fn authorize(id: &str) -> HttpRecord {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("client_id", id)
            .finish();
        HttpRecord {
            method: "GET".into(),
            target: format!("/oauth/authorize?{q}"),
            ..HttpRecord::default()
        }
    }

    fn register() -> HttpRecord {
        HttpRecord {
            method: "POST".into(),
            target: "/oauth/register".into(),
            request_body: "{}".into(),
            ..HttpRecord::default()
        }
    }

    fn rules(found: &[Found]) -> Vec<&'static str> {
        found.iter().map(|(r, _)| r.id).collect()
    }

    #[test]
    fn a_metadata_document_url_must_be_https_with_a_path() {
        for bad in [
            "http://client.example/metadata.json",
            "https://client.example",
            "https://client.example/",
            "https://client.example/a/../metadata.json",
            "https://client.example/metadata.json#x",
        ] {
            assert_eq!(
                https_url("r", bad).map(|f| f.0.id),
                Some("auth.cimd.https-url"),
                "{bad}"
            );
        }
        for fine in [
            "https://client.example/metadata.json",
            "mcpspec-client-1",
            "",
            "urn:x:y",
        ] {
            assert!(https_url("r", fine).is_none(), "{fine}");
        }
    }

    #[test]
    fn a_url_client_id_is_judged_against_what_the_metadata_advertised() {
        let url = "https://client.example/metadata.json";
        let mut ids = ClientIds::default();
        assert!(ids
            .judge(
                &script(true, None),
                AuthEndpoint::Authorization,
                &authorize(url)
            )
            .is_empty());
        let mut ids = ClientIds::default();
        let found = ids.judge(
            &script(false, None),
            AuthEndpoint::Authorization,
            &authorize(url),
        );
        assert_eq!(rules(&found), ["auth.cimd.check-support"]);
        // Once per case.
        let again = ids.judge(
            &script(false, None),
            AuthEndpoint::Authorization,
            &authorize(url),
        );
        assert!(again.is_empty());
        // A dynamic registration where a document was advertised.
        let mut ids = ClientIds::default();
        let found = ids.judge(&script(true, None), AuthEndpoint::Registration, &register());
        assert_eq!(rules(&found), ["auth.cimd.supported"]);
        let mut ids = ClientIds::default();
        assert!(ids
            .judge(
                &script(false, None),
                AuthEndpoint::Registration,
                &register()
            )
            .is_empty());
    }

    #[test]
    fn a_document_url_in_a_basic_pair_is_decoded_before_it_is_judged() {
        use base64::Engine as _;
        // RFC 6749 §2.3.1: each half of the pair is form-encoded.
        let pair = "http%3A%2F%2Fc.example%2Fm.json:";
        let basic = base64::engine::general_purpose::STANDARD.encode(pair);
        let token = HttpRecord {
            method: "POST".into(),
            target: "/oauth/token".into(),
            request_headers: vec![("authorization".into(), format!("Basic {basic}"))],
            ..HttpRecord::default()
        };
        let mut ids = ClientIds::default();
        let found = ids.judge(&script(true, None), AuthEndpoint::Token, &token);
        assert_eq!(rules(&found), ["auth.cimd.https-url"]);
    }

    #[test]
    fn static_credentials_handed_over_are_used_or_one_finding_says_so() {
        let s = script(true, Some("pre-1"));
        let mut ids = ClientIds::default();
        assert!(ids
            .judge(&s, AuthEndpoint::Authorization, &authorize("pre-1"))
            .is_empty());
        // Registering instead, then authorizing under the id it got: one finding.
        let mut ids = ClientIds::default();
        let found = ids.judge(&s, AuthEndpoint::Registration, &register());
        assert_eq!(rules(&found), ["auth.preregistration.option"]);
        assert!(ids
            .judge(&s, AuthEndpoint::Authorization, &authorize("dcr-1"))
            .is_empty());
        // A document URL instead of the static id (the metadata advertised it).
        let mut ids = ClientIds::default();
        let found = ids.judge(
            &s,
            AuthEndpoint::Authorization,
            &authorize("https://c.example/m.json"),
        );
        assert_eq!(rules(&found), ["auth.preregistration.option"]);
    }
}
