//! Documents a client must refuse, judged by what it does next: Protected
//! Resource Metadata whose `resource` is another server
//! (`auth.prm.resource-match`: it must not go on to authorize) and
//! authorization server metadata whose `issuer` is not the one the client
//! built the URL from (`auth.as-metadata.issuer-validate`: it must not use
//! the endpoints). The documents are read from the script's answers; a
//! later good document clears a bad one.

use mcpspec_engine::ids;
use mcpspec_engine::oauth::resource::names_server;
use mcpspec_wire::event::HttpRecord;
use serde_json::Value;

use super::{AuthEndpoint, AuthScript, Found};

/// The last document of each kind the client was served, when bad: why.
#[derive(Debug, Default)]
pub(super) struct Refusals {
    prm: Option<String>,
    asm: Option<String>,
    reported: (bool, bool),
}

/// A string member of a served JSON document.
fn member(record: &HttpRecord, name: &str) -> Option<String> {
    let doc: Value = serde_json::from_str(&record.body).ok()?;
    doc.get(name).and_then(Value::as_str).map(str::to_owned)
}

impl Refusals {
    /// A metadata document was served (`record` answered 2xx).
    pub(super) fn served(
        &mut self,
        script: &AuthScript,
        endpoint: AuthEndpoint,
        record: &HttpRecord,
    ) {
        match endpoint {
            AuthEndpoint::ProtectedResourceMetadata => {
                let resource = member(record, "resource");
                self.prm = match resource {
                    Some(r) if !names_server(&r, &script.server_url) => Some(format!(
                        "the Protected Resource Metadata names resource {r:?}, not this server ({})",
                        script.server_url
                    )),
                    _ => None,
                };
            }
            AuthEndpoint::AuthorizationServerMetadata => {
                let issuer = member(record, "issuer");
                self.asm = match issuer {
                    Some(i) if i != script.issuer => Some(format!(
                        "the authorization server metadata names issuer {i:?}, not {:?}, which its URL was built from",
                        script.issuer
                    )),
                    _ => None,
                };
            }
            _ => {}
        }
    }

    /// The client reached `endpoint` of the authorization server.
    pub(super) fn reached(&mut self, endpoint: AuthEndpoint) -> Vec<Found> {
        let mut out: Vec<Found> = Vec::new();
        let what = match endpoint {
            AuthEndpoint::Registration => "registered with",
            AuthEndpoint::Authorization => "sent an authorization request to",
            _ => "sent a token request to",
        };
        if let Some(why) = self.asm.as_deref().filter(|_| !self.reported.1) {
            self.reported.1 = true;
            out.push((
                &ids::AUTH_AS_METADATA_ISSUER_VALIDATE,
                format!("the client {what} the authorization server though {why}"),
            ));
        }
        let authorizing = matches!(endpoint, AuthEndpoint::Authorization | AuthEndpoint::Token);
        if let Some(why) = self
            .prm
            .as_deref()
            .filter(|_| authorizing && !self.reported.0)
        {
            self.reported.0 = true;
            out.push((
                &ids::AUTH_PRM_RESOURCE_MATCH,
                format!("the client {what} the authorization server though {why}"),
            ));
        }
        out
    }
}
