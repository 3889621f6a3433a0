//! The token endpoint of the scripted authorization server: a code
//! redeemed (once per authorization), or a refresh token the script issued,
//! earns an access token granted the scope asked for at authorization; with
//! `refresh_token: issued`, a refresh token too.

use mcpspec_transport::{GateReply, GateRequest};
use serde_json::json;

use super::{first, form, ScriptedAuth, Seen};

impl ScriptedAuth {
    pub(super) fn token(&self, r: &GateRequest<'_>, seen: &mut Seen) -> GateReply {
        let form = form(&String::from_utf8_lossy(r.body));
        if first(&form, "grant_type") == Some("refresh_token") {
            return self.refresh(&form, seen);
        }
        let code = first(&form, "code").map(str::to_owned);
        let redeems = code.as_deref().and_then(|c| {
            seen.authorizations
                .iter()
                .position(|a| a.code.as_deref() == Some(c))
        });
        let scope = redeems
            .and_then(|i| seen.authorizations[i].param("scope"))
            .map(str::to_owned);
        seen.tokens += 1;
        if redeems.is_none() {
            return GateReply::json(
                400,
                &json!({ "error": "invalid_grant", "error_description": "unknown authorization code" }),
            );
        }
        self.issue(seen, scope)
    }

    /// A refresh (RFC 6749 §6): a refresh token the script issued gets a
    /// new access token for the same scope (and a new refresh token).
    fn refresh(&self, form: &[(String, String)], seen: &mut Seen) -> GateReply {
        seen.tokens += 1;
        let known = first(form, "refresh_token")
            .and_then(|t| seen.refresh.iter().find(|(r, _)| r == t))
            .map(|(_, scope)| scope.clone());
        match known {
            Some(scope) => self.issue(seen, scope),
            None => GateReply::json(
                400,
                &json!({ "error": "invalid_grant", "error_description": "unknown refresh token" }),
            ),
        }
    }

    /// The token response: a new access token granted `scope`, with a
    /// refresh token when the script issues them.
    fn issue(&self, seen: &mut Seen, scope: Option<String>) -> GateReply {
        let token = format!("mcpspec-token-{}", seen.issued.len() + 1);
        seen.issued.push(token.clone());
        seen.granted.push(scope.clone());
        let mut out = json!({ "access_token": token, "token_type": "Bearer", "expires_in": 3600 });
        if self.script.refresh_token == "issued" {
            let refresh = format!("mcpspec-refresh-{}", seen.refresh.len() + 1);
            out["refresh_token"] = json!(refresh);
            seen.refresh.push((refresh, scope.clone()));
        }
        if let Some(s) = scope {
            out["scope"] = json!(s);
        }
        GateReply::json(200, &out).with_header("cache-control", "no-store")
    }
}
