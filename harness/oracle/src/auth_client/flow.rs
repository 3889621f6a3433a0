//! The requests of the flow itself, each judged when it arrives:
//! registration, authorization, token, and the MCP requests that carry (or
//! should carry) the token. What the script answered is read from the
//! exchange: the client ids registration issued, the code and `state` of
//! each authorization response (its redirect), the tokens issued.

use mcpspec_engine::ids;
use mcpspec_engine::oauth::flow::{check_iss, initial_scope};
use mcpspec_engine::oauth::pkce;
use mcpspec_engine::oauth::resource::names_server;
use mcpspec_wire::event::HttpRecord;
use serde_json::Value;

use super::{pairs, param, AuthEndpoint, AuthScript, Found};

/// One authorization request and what the script answered.
#[derive(Debug)]
struct Authorization {
    params: Vec<(String, String)>,
    /// The code of the redirect, if the script issued one.
    code: Option<String>,
    /// The `state` the redirect carried back.
    state_back: Option<String>,
    /// The `iss` the redirect carried back.
    iss_back: Option<String>,
}

impl Authorization {
    fn param(&self, name: &str) -> Option<&str> {
        param(&self.params, name)
    }
}

/// The flow so far.
#[derive(Debug, Default)]
pub(super) struct Flow {
    authorizations: Vec<Authorization>,
    tokens_requested: usize,
    /// Client ids the registration endpoint issued.
    client_ids: Vec<String>,
    /// Redirect URIs registered.
    redirect_uris: Vec<String>,
    /// Registration requests refused (400), as sent.
    refused: Vec<Value>,
    refused_again: bool,
    /// Access tokens the token endpoint issued.
    issued: Vec<String>,
    mcp_requests: usize,
}

/// The JSON object of a body, if it is one.
fn json(text: &str) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_str(text) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    }
}

impl Flow {
    pub(super) fn judge(
        &mut self,
        script: &AuthScript,
        endpoint: AuthEndpoint,
        record: &HttpRecord,
    ) -> Vec<Found> {
        match endpoint {
            AuthEndpoint::Registration => self.registration(record),
            AuthEndpoint::Authorization => self.authorization(script, record),
            AuthEndpoint::Token => self.token(script, record),
            _ => Vec::new(),
        }
    }

    /// `auth.dcr.application-type`, `auth.dcr.redirect-rejection` (the
    /// request a registration refused, sent again unchanged); keeps the
    /// client id issued.
    fn registration(&mut self, record: &HttpRecord) -> Vec<Found> {
        let mut out: Vec<Found> = Vec::new();
        let sent = serde_json::from_str::<Value>(&record.request_body).ok();
        let repeated = sent.as_ref().is_some_and(|s| self.refused.contains(s));
        if repeated && !self.refused_again {
            self.refused_again = true;
            out.push((
                &ids::AUTH_DCR_REDIRECT_REJECTION,
                "the client sent again, unchanged, a registration request the authorization server had refused (400): it neither stopped nor adjusted its application_type or redirect URIs".to_owned(),
            ));
        }
        if let Some(sent) = sent.filter(|_| record.status == Some(400)) {
            self.refused.push(sent);
        }
        if let Some(body) = json(&record.request_body) {
            let uris = body.get("redirect_uris").and_then(Value::as_array);
            for uri in uris.into_iter().flatten().filter_map(Value::as_str) {
                out.extend(localhost_or_https("the registration request", uri));
                self.redirect_uris.push(uri.to_owned());
            }
            match body.get("application_type").and_then(Value::as_str) {
                Some("native" | "web") => {}
                other => out.push((
                    &ids::AUTH_DCR_APPLICATION_TYPE,
                    format!("the registration request has application_type {other:?}, not native or web"),
                )),
            }
        }
        let issued = json(&record.body).and_then(|b| {
            b.get("client_id")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        if let Some(id) = issued.filter(|_| record.status.is_some_and(|s| s < 300)) {
            self.client_ids.push(id);
        }
        out
    }

    fn authorization(&mut self, script: &AuthScript, record: &HttpRecord) -> Vec<Found> {
        let query = record.target.split_once('?').map_or("", |(_, q)| q);
        let params = pairs(query);
        let n = self.authorizations.len() + 1;
        let what = format!("authorization request {n}");
        let mut out: Vec<Found> = Vec::new();
        if !script.pkce_advertised {
            out.push((
                &ids::AUTH_PKCE_VERIFY_SUPPORT,
                format!("{what} was made though the authorization server metadata lists no code_challenge_methods_supported (no PKCE support)"),
            ));
        }
        let challenge = param(&params, "code_challenge").filter(|c| !c.is_empty());
        match challenge {
            None => out.push((&ids::AUTH_PKCE, format!("{what} has no code_challenge"))),
            Some(c) => {
                if let Err(e) = pkce::check_challenge(param(&params, "code_challenge_method"), c) {
                    out.push((&ids::AUTH_PKCE_S256, format!("{what}: {e}")));
                }
            }
        }
        out.extend(resource(script, &what, param(&params, "resource")));
        if param(&params, "state").is_none_or(str::is_empty) {
            out.push((&ids::AUTH_STATE, format!("{what} has no state")));
        }
        // A client id comes from a registration, from the static
        // credentials the client was handed, or is a metadata document URL
        // (judged in `client_id`).
        let client_id = param(&params, "client_id");
        let obtained = |id: &str| {
            self.client_ids.iter().any(|c| c == id)
                || script.preregistered.as_deref() == Some(id)
                || super::client_id::url_shaped(id)
        };
        if !client_id.is_some_and(obtained) {
            out.push((
                &ids::AUTH_REGISTRATION_CLIENT_ID,
                format!("{what} names client_id {client_id:?}, which neither registration nor the static credentials issued, and which is no metadata document URL"),
            ));
        }
        if n == 1 {
            out.extend(scope(script, param(&params, "scope")));
        }
        if let Some(uri) = param(&params, "redirect_uri") {
            out.extend(localhost_or_https(&what, uri));
            // Judged against what registration recorded, when the client
            // registered (the script offers no other way to register URIs).
            if !self.client_ids.is_empty() && !self.redirect_uris.iter().any(|r| r == uri) {
                out.push((
                    &ids::AUTH_REDIRECT_URI_REGISTERED,
                    format!(
                        "{what} names redirect_uri {uri:?}, which no registration request listed ({})",
                        self.redirect_uris.join(", ")
                    ),
                ));
            }
        }
        let back = record
            .response_header("location")
            .and_then(|l| url::Url::parse(l).ok())
            .map(|u| pairs(u.query().unwrap_or_default()))
            .unwrap_or_default();
        self.authorizations.push(Authorization {
            params,
            code: param(&back, "code").map(str::to_owned),
            state_back: param(&back, "state").map(str::to_owned),
            iss_back: param(&back, "iss").map(str::to_owned),
        });
        out
    }

    fn token(&mut self, script: &AuthScript, record: &HttpRecord) -> Vec<Found> {
        self.tokens_requested += 1;
        let what = format!("token request {}", self.tokens_requested);
        let form = pairs(&record.request_body);
        let mut out: Vec<Found> = Vec::new();
        let basic = record
            .request_header("authorization")
            .is_some_and(|v| v.len() > 6 && v[..6].eq_ignore_ascii_case("basic "));
        let method = if basic {
            "client_secret_basic"
        } else if param(&form, "client_secret").is_some() {
            "client_secret_post"
        } else {
            "none"
        };
        // A client named by a document URL the metadata did not advertise
        // support for is a public client where the server expected none:
        // that cause is reported once, as `auth.cimd.check-support`.
        let unadvertised_document = !script.cimd_advertised
            && super::token_client(record)
                .0
                .is_some_and(|id| super::client_id::url_shaped(&id));
        if !unadvertised_document && !script.token_auth_methods.iter().any(|m| m == method) {
            out.push((
                &ids::AUTH_TOKEN_ENDPOINT_AUTH_METHOD,
                format!(
                    "{what} authenticated the client with {method}; the metadata advertised {}",
                    script.token_auth_methods.join(", ")
                ),
            ));
        }
        out.extend(resource(script, &what, param(&form, "resource")));
        let code = param(&form, "code");
        let redeemed = code.and_then(|c| {
            self.authorizations
                .iter()
                .find(|a| a.code.as_deref() == Some(c))
        });
        if let Some(a) = redeemed {
            out.extend(verifier(&what, a, param(&form, "code_verifier")));
            if let Err(e) = check_iss(a.iss_back.as_deref(), &script.issuer, script.iss_advertised)
            {
                out.push((
                    &ids::AUTH_ISSUER_VALIDATE,
                    format!("{what} redeemed the code of an authorization response it should have refused: {e}"),
                ));
            }
            let sent = a.param("state");
            if sent.is_some() && a.state_back.as_deref() != sent {
                out.push((
                    &ids::AUTH_STATE,
                    format!(
                        "{what} redeemed a code whose authorization response carried state {:?}, not the {sent:?} the client sent",
                        a.state_back
                    ),
                ));
            }
        }
        let issued = json(&record.body).and_then(|b| {
            b.get("access_token")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        if let Some(t) = issued.filter(|_| record.status == Some(200)) {
            self.issued.push(t);
        }
        out
    }

    /// A request to the MCP endpoint: any Bearer token it carries is one
    /// the script issued (the server's only authorization server, fresh
    /// for the case), and once a token was issued it carries one in the
    /// Authorization header.
    pub(super) fn mcp(&mut self, record: &HttpRecord) -> Vec<Found> {
        self.mcp_requests += 1;
        let what = format!(
            "{} {} (MCP request {} of the flow)",
            record.method,
            record.target.split('?').next().unwrap_or_default(),
            self.mcp_requests
        );
        let bearer = record.request_header("authorization").and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
        match bearer {
            None if !self.issued.is_empty() => vec![(
                &ids::AUTH_BEARER_HEADER,
                format!("{what} carried no Authorization: Bearer header, after the token endpoint issued a token"),
            )],
            Some(t) if !self.issued.iter().any(|i| i == t) => vec![(
                &ids::AUTH_TOKEN_OWN_AUTHORIZATION_SERVER,
                format!("{what} carried a Bearer token the server's authorization server never issued"),
            )],
            _ => Vec::new(),
        }
    }
}

/// `auth.resource-indicators`, `auth.resource.always` (the script's metadata
/// never advertises resource indicators) and `auth.resource.canonical`.
fn resource(script: &AuthScript, what: &str, value: Option<&str>) -> Vec<Found> {
    match value {
        None => {
            let detail = format!("{what} has no resource parameter");
            vec![
                (&ids::AUTH_RESOURCE_INDICATORS, detail.clone()),
                (&ids::AUTH_RESOURCE_ALWAYS, detail),
            ]
        }
        Some(r) if !names_server(r, &script.server_url) => vec![(
            &ids::AUTH_RESOURCE_CANONICAL,
            format!(
                "{what} names resource {r:?}, not the MCP server's canonical URI {:?}",
                script.server_url
            ),
        )],
        Some(_) => Vec::new(),
    }
}

/// `auth.redirect-uri.localhost-or-https`: an https URL, or an http URL on
/// the loopback interface (`localhost`, 127.0.0.0/8, `[::1]`).
pub(super) fn localhost_or_https(what: &str, uri: &str) -> Option<Found> {
    let ok = url::Url::parse(uri).is_ok_and(|u| match (u.scheme(), u.host()) {
        ("https", Some(_)) => true,
        ("http", Some(url::Host::Domain(d))) => d.eq_ignore_ascii_case("localhost"),
        ("http", Some(url::Host::Ipv4(a))) => a.is_loopback(),
        ("http", Some(url::Host::Ipv6(a))) => a.is_loopback(),
        _ => false,
    });
    (!ok).then(|| {
        (
            &ids::AUTH_REDIRECT_URI_LOCALHOST_OR_HTTPS,
            format!("{what} names redirect_uri {uri:?}, neither a localhost URL nor an https one"),
        )
    })
}

/// `auth.pkce` on a token request: the verifier of the challenge `a` sent.
fn verifier(what: &str, a: &Authorization, verifier: Option<&str>) -> Option<Found> {
    let Some(challenge) = a.param("code_challenge").filter(|c| !c.is_empty()) else {
        return None; // no challenge: reported on the authorization request
    };
    let Some(verifier) = verifier else {
        return Some((&ids::AUTH_PKCE, format!("{what} has no code_verifier")));
    };
    let matches = match a.param("code_challenge_method") {
        Some(pkce::S256) => pkce::verify_s256(verifier, challenge).is_ok(),
        // `plain`, also when the method is left out (RFC 7636 §4.3).
        _ => verifier == challenge,
    };
    (!matches).then(|| {
        (
            &ids::AUTH_PKCE,
            format!("{what}: the code_verifier does not match the code_challenge of the code it redeems"),
        )
    })
}

/// `auth.scope.selection` on the first authorization request: the
/// challenge's scope, else every scope of `scopes_supported` (compared as
/// sets of words).
fn scope(script: &AuthScript, got: Option<&str>) -> Option<Found> {
    let want = initial_scope(
        script.challenge_scope.as_deref(),
        Some(&script.scopes_supported),
    );
    fn words(s: Option<&str>) -> Vec<&str> {
        let mut w: Vec<&str> = s.unwrap_or_default().split_whitespace().collect();
        w.sort_unstable();
        w.dedup();
        w
    }
    if words(got) == words(want.as_deref()) {
        return None;
    }
    let Some(wanted) = want else {
        return Some((
            &ids::AUTH_SCOPE_SELECTION,
            format!("the first authorization request asked for scope {got:?}; with no scope in the 401 challenge and no scopes_supported in the Protected Resource Metadata it leaves scope out"),
        ));
    };
    let want = Some(wanted);
    let source = if script.challenge_scope.is_some() {
        "the 401 challenge's scope"
    } else {
        "the metadata's scopes_supported"
    };
    Some((
        &ids::AUTH_SCOPE_SELECTION,
        format!("the first authorization request asked for scope {got:?}; {source} is {want:?}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_no_scope_defined_anywhere_the_first_request_carries_none() {
        let script = AuthScript::default();
        assert_eq!(scope(&script, None), None);
        assert_eq!(scope(&script, Some("")), None);
        let found = scope(&script, Some("mcp:all")).expect("a made-up scope");
        assert_eq!(found.0.id, "auth.scope.selection");
        assert!(found.1.contains("leaves scope out"), "{}", found.1);
        // With scopes_supported listed, leaving scope out is the violation.
        let listed = AuthScript {
            scopes_supported: vec!["mcp:read".into()],
            ..AuthScript::default()
        };
        assert!(scope(&listed, None).is_some());
        assert_eq!(scope(&listed, Some("mcp:read")), None);
    }
}
