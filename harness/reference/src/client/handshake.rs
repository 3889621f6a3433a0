//! The handshake of the sessions before 2026-07-28: the reference client's
//! initialize request (and what its faults add to it), and how it takes the
//! answer: the version it accepts, the server's capabilities, the
//! notifications/initialized that starts the workflow.

use mcpspec_engine::Version;
use mcpspec_wire::{ErrorObject, Message};
use serde_json::{json, Value};

use super::fault::ClientFault;
use super::workflow::Plan;
use super::{Out, Phase, Purpose, ReferenceClient, CLIENT_NAME, CLIENT_VERSIONS};
use crate::Output;

impl ReferenceClient {
    /// The initialize request (and what faults add).
    pub(super) fn send_initialize(&mut self, now_ms: u64, out: &mut Out) {
        self.phase = Phase::Initializing;
        let mut params = json!({
            "protocolVersion": self.offered.as_str(),
            "capabilities": self.declared.capabilities(),
        });
        if !self.has(ClientFault::BadInitialize) {
            params["clientInfo"] =
                json!({ "name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") });
        }
        let id = self.request(now_ms, "initialize", Some(params), Purpose::Initialize, out);
        self.initialize_id = id;
        out.log(format!(
            "initialize sent, offering protocol version {}",
            self.offered
        ));
        if self.has(ClientFault::CancelInitialize) {
            let params = json!({ "requestId": id, "reason": "changed my mind" });
            out.send(&Message::notification(
                "notifications/cancelled",
                Some(params),
            ));
        }
        if self.has(ClientFault::EarlyRequest) {
            self.request(now_ms, "tools/list", None, Purpose::Early, out);
        }
    }

    pub(super) fn on_initialize_answer(
        &mut self,
        now_ms: u64,
        outcome: Result<Value, ErrorObject>,
        out: &mut Out,
    ) {
        let result = match outcome {
            Ok(result) => result,
            Err(e) => {
                out.log(format!(
                    "initialize failed: error {} ({})",
                    e.code, e.message
                ));
                self.exit(1, out);
                return;
            }
        };
        let Some(named) = result.get("protocolVersion").and_then(Value::as_str) else {
            out.log("the initialize result has no protocolVersion string; giving up");
            self.exit(1, out);
            return;
        };
        let supported = named
            .parse::<Version>()
            .ok()
            .filter(|v| CLIENT_VERSIONS.contains(v));
        let version = match supported {
            Some(v) => v,
            None if self.has(ClientFault::AcceptUnsupportedVersion) => {
                out.log(format!(
                    "the server chose protocol version {named:?}, which this client does not support; going on anyway"
                ));
                self.offered
            }
            None => {
                out.log(format!(
                    "the server chose protocol version {named:?}, which this client does not support; disconnecting"
                ));
                self.exit(0, out);
                return;
            }
        };
        self.negotiated = Some(version);
        let (capabilities, names) = server_capabilities(&result, "initialize", out);
        out.log(format!(
            "initialized: protocol version {version}, server capabilities [{names}]"
        ));
        self.workflow.plan(&capabilities, Plan::default());
        self.phase = Phase::Running;
        if !self.has(ClientFault::SkipInitialized) {
            out.send(&Message::notification("notifications/initialized", None));
        }
        if self.has(ClientFault::StdinNoise) {
            out.0.push(Output::Write(
                b"mcpspec-reference-client is ready\n".to_vec(),
            ));
        }
        self.advance(now_ms, out);
    }
}

/// The server's capabilities from an initialize or server/discover result
/// (none, logged, when it has no capabilities object), and their names.
pub(super) fn server_capabilities(
    result: &Value,
    answer_to: &str,
    out: &mut Out,
) -> (Value, String) {
    let capabilities = match result.get("capabilities") {
        Some(c @ Value::Object(_)) => c.clone(),
        _ => {
            out.log(format!(
                "the {answer_to} result has no capabilities object; assuming none"
            ));
            json!({})
        }
    };
    let names: Vec<&str> = capabilities
        .as_object()
        .map(|c| c.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let names = names.join(", ");
    (capabilities, names)
}
