//! How the reference client answers the server's requests — at once, at
//! any point of the session, the initialize exchange included.
//!
//! | method                   | answer                                                  |
//! |--------------------------|---------------------------------------------------------|
//! | `ping`                   | `{}`                                                    |
//! | `roots/list`             | one root, `file:///tmp/mcpspec-reference-root`          |
//! | `sampling/createMessage` | a canned assistant text; -32602 for `tools`/`toolChoice`|
//! |                          | (2025-11-25 on: `sampling.tools` is not declared) or    |
//! |                          | params without `messages` / `maxTokens`                 |
//! | `elicitation/create`     | `{action: "decline"}` (2025-06-18 on; before: -32601);  |
//! |                          | from 2025-11-25 -32602 for a mode other than form (no   |
//! |                          | `mode` is a form)                                       |
//! | anything else            | -32601                                                  |
//!
//! Under 2026-07-28 the same answers fill the `inputResponses` of a retried
//! request (the server asks inside an `input_required` result instead).
//!
//! A method whose capability the client did not declare is -32601 too. The
//! answer faults (`ignore-ping`, `malformed-roots`, `roots-not-file`,
//! `undeclared-sampling`, `malformed-sampling`, `elicitation-bad-action`,
//! `unknown-request-success`, `no-response-to-unknown`, `url-elicitation-answered`,
//! `elicitation-mode-required`) are applied here.

use mcpspec_engine::Version;
use mcpspec_wire::Request;
use serde_json::{json, Value};

use super::fault::{ClientFault, ClientFaults};
use crate::error::RpcError;

/// The one root the client offers.
pub const ROOT_URI: &str = "file:///tmp/mcpspec-reference-root";
pub const ROOT_NAME: &str = "reference root";
/// The `model` of every sampling result.
pub const SAMPLING_MODEL: &str = "mcpspec-reference-model";

/// The client capabilities of a session (what initialize declared).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared {
    pub roots: bool,
    /// `roots.listChanged`: handshake versions only (2026-07-28 removed
    /// `notifications/roots/list_changed`).
    pub roots_list_changed: bool,
    pub sampling: bool,
    pub elicitation: bool,
}

impl Declared {
    /// What the client declares when it offers `version`: everything it
    /// can, or (`bare`) nothing at all, a configuration as valid as the other.
    pub(crate) fn for_version(version: Version, faults: ClientFaults, bare: bool) -> Self {
        Declared {
            roots: !bare,
            roots_list_changed: version < Version::V2026_07_28,
            sampling: !bare && !faults.has(ClientFault::UndeclaredSampling),
            elicitation: !bare && version >= Version::V2025_06_18,
        }
    }

    /// The `capabilities` member of the initialize request (under
    /// 2026-07-28: the `clientCapabilities` of every request's `_meta`).
    pub(crate) fn capabilities(self) -> Value {
        let mut caps = json!({});
        if self.roots && self.roots_list_changed {
            caps["roots"] = json!({ "listChanged": true });
        } else if self.roots {
            caps["roots"] = json!({});
        }
        if self.sampling {
            caps["sampling"] = json!({});
        }
        if self.elicitation {
            caps["elicitation"] = json!({});
        }
        caps
    }
}

/// The answer to a request from the server: `None` means no answer at all
/// (only faults do that). `version` is the session's version (the offered
/// one until the initialize result says otherwise).
pub(crate) fn answer(
    req: &Request,
    version: Version,
    declared: Declared,
    faults: ClientFaults,
) -> Option<Result<Value, RpcError>> {
    let params = req.params.as_ref();
    match req.method.as_str() {
        "ping" if faults.has(ClientFault::IgnorePing) => None,
        "ping" => Some(Ok(json!({}))),
        "roots/list" if declared.roots => Some(Ok(roots(faults))),
        // The fault answers although the capability was left out.
        "sampling/createMessage"
            if declared.sampling || faults.has(ClientFault::UndeclaredSampling) =>
        {
            Some(sampling(params, version, faults))
        }
        "elicitation/create" if declared.elicitation && version >= Version::V2025_06_18 => {
            Some(elicitation(params, version, faults))
        }
        _ if faults.has(ClientFault::NoResponseToUnknown) => None,
        _ if faults.has(ClientFault::UnknownRequestSuccess) => Some(Ok(json!({}))),
        method => Some(Err(RpcError::method_not_found(method))),
    }
}

/// The name of the first tool a sampling request offers.
fn first_tool(params: &serde_json::Map<String, Value>) -> String {
    params
        .get("tools")
        .and_then(|t| t.get(0))
        .and_then(|t| t.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("tool")
        .to_owned()
}

/// An elicitation the client declared: declined (a form, the one mode it
/// declares — `elicitation: {}` means form only); from 2025-11-25, when
/// modes exist, a request without `mode` is a form
/// (`elicitation.client.mode-default-form`) and one in another mode is
/// refused with -32602 (`elicitation.client.unsupported-mode-error`).
fn elicitation(
    params: Option<&Value>,
    version: Version,
    faults: ClientFaults,
) -> Result<Value, RpcError> {
    let mode = params.and_then(|p| p.get("mode"));
    if version >= Version::V2025_11_25 {
        match mode.and_then(Value::as_str) {
            None if mode.is_none() && faults.has(ClientFault::ElicitationModeRequired) => {
                return Err(RpcError::invalid_params(
                    "elicitation/create: mode is missing",
                ));
            }
            None | Some("form") if faults.has(ClientFault::FormModeRefused) => {
                return Err(RpcError::invalid_params(
                    "elicitation/create: this client shows no forms",
                ));
            }
            None if mode.is_none() => {}
            Some("form") => {}
            Some("url") if faults.has(ClientFault::UrlElicitationAnswered) => {}
            _ => {
                return Err(RpcError::invalid_params(format!(
                    "elicitation/create: mode {} is not one this client declared (it supports form only)",
                    mode.map_or_else(|| "null".to_owned(), Value::to_string)
                )));
            }
        }
    }
    let action = if faults.has(ClientFault::ElicitationBadAction) {
        "maybe"
    } else {
        "decline"
    };
    Ok(json!({ "action": action }))
}

fn roots(faults: ClientFaults) -> Value {
    let root = if faults.has(ClientFault::MalformedRoots) {
        json!({ "name": "no uri" })
    } else if faults.has(ClientFault::RootsNotFile) {
        json!({ "uri": "https://example.com/root", "name": ROOT_NAME })
    } else {
        json!({ "uri": ROOT_URI, "name": ROOT_NAME })
    };
    json!({ "roots": [root] })
}

fn sampling(
    params: Option<&Value>,
    version: Version,
    faults: ClientFaults,
) -> Result<Value, RpcError> {
    let Some(Value::Object(params)) = params else {
        return Err(RpcError::invalid_params(
            "sampling/createMessage needs params with messages and maxTokens",
        ));
    };
    if !params.get("messages").is_some_and(Value::is_array) {
        return Err(RpcError::invalid_params(
            "sampling/createMessage: messages must be an array",
        ));
    }
    if !params.get("maxTokens").is_some_and(Value::is_number) {
        return Err(RpcError::invalid_params(
            "sampling/createMessage: maxTokens must be a number",
        ));
    }
    if version >= Version::V2025_11_25 {
        let offered = ["tools", "toolChoice"]
            .into_iter()
            .find(|m| params.contains_key(*m));
        if let (Some("tools"), true) = (offered, faults.has(ClientFault::UndeclaredToolUse)) {
            return Ok(json!({
                "role": "assistant",
                "content": [{ "type": "tool_use", "id": "call-1", "name": first_tool(params), "input": {} }],
                "model": SAMPLING_MODEL,
                "stopReason": "toolUse",
            }));
        }
        if let Some(member) = offered {
            return Err(RpcError::invalid_params(format!(
                "sampling/createMessage: {member} needs the sampling.tools capability, which this client did not declare"
            )));
        }
    }
    let mut result = json!({
        "role": "assistant",
        "content": { "type": "text", "text": "A canned answer from the mcpspec reference client." },
        "model": SAMPLING_MODEL,
        "stopReason": "endTurn",
    });
    if faults.has(ClientFault::MalformedSampling) {
        if let Value::Object(r) = &mut result {
            r.remove("model");
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_wire::Id;

    fn req(method: &str, params: Option<Value>) -> Request {
        Request {
            id: Id::from(9),
            method: method.to_owned(),
            params,
        }
    }

    fn clean(
        method: &str,
        params: Option<Value>,
        version: Version,
    ) -> Option<Result<Value, RpcError>> {
        let faults = ClientFaults::default();
        answer(
            &req(method, params),
            version,
            Declared::for_version(version, faults, false),
            faults,
        )
    }

    fn code(answer: Option<Result<Value, RpcError>>) -> Option<i64> {
        answer.and_then(|a| a.err()).map(|e| e.code)
    }

    #[test]
    fn capabilities_per_version() {
        let none = ClientFaults::default();
        let old = Declared::for_version(Version::V2025_03_26, none, false).capabilities();
        assert_eq!(
            old,
            json!({ "roots": { "listChanged": true }, "sampling": {} })
        );
        let new = Declared::for_version(Version::V2025_06_18, none, false).capabilities();
        assert_eq!(new["elicitation"], json!({}));
        let faulty = ClientFaults::new(&[ClientFault::UndeclaredSampling]);
        let caps = Declared::for_version(Version::V2025_11_25, faulty, false).capabilities();
        assert!(caps.get("sampling").is_none());
        let stateless = Declared::for_version(Version::V2026_07_28, none, false).capabilities();
        assert_eq!(
            stateless,
            json!({ "roots": {}, "sampling": {}, "elicitation": {} })
        );
    }

    #[test]
    fn sampling_answers_and_refuses_tools() {
        let v = Version::V2025_11_25;
        let ok = json!({ "messages": [], "maxTokens": 10 });
        let result = clean("sampling/createMessage", Some(ok), v).and_then(Result::ok);
        assert_eq!(
            result.as_ref().map(|r| &r["model"]),
            Some(&json!(SAMPLING_MODEL))
        );
        let tools = json!({ "messages": [], "maxTokens": 10, "tools": [] });
        assert_eq!(
            code(clean("sampling/createMessage", Some(tools.clone()), v)),
            Some(-32602)
        );
        let choice = json!({ "messages": [], "maxTokens": 10, "toolChoice": { "mode": "auto" } });
        assert_eq!(
            code(clean("sampling/createMessage", Some(choice), v)),
            Some(-32602)
        );
        // Before 2025-11-25 `tools` is no member of the request: ignored.
        let older = clean("sampling/createMessage", Some(tools), Version::V2025_06_18);
        assert!(matches!(older, Some(Ok(_))));
        assert_eq!(
            code(clean("sampling/createMessage", Some(json!({})), v)),
            Some(-32602)
        );
    }

    #[test]
    fn elicitation_only_from_2025_06_18() {
        let e =
            json!({ "message": "?", "requestedSchema": { "type": "object", "properties": {} } });
        let new = clean("elicitation/create", Some(e.clone()), Version::V2025_06_18);
        assert_eq!(
            new.and_then(Result::ok),
            Some(json!({ "action": "decline" }))
        );
        assert_eq!(
            code(clean("elicitation/create", Some(e), Version::V2025_03_26)),
            Some(-32601)
        );
    }

    #[test]
    fn elicitation_modes_from_2025_11_25() {
        let v = Version::V2025_11_25;
        let form =
            json!({ "message": "?", "requestedSchema": { "type": "object", "properties": {} } });
        let mut url = json!({ "mode": "url", "message": "?", "url": "https://example.com/x", "elicitationId": "e1" });
        let declined = Some(json!({ "action": "decline" }));
        assert_eq!(
            clean("elicitation/create", Some(form.clone()), v).and_then(Result::ok),
            declined
        );
        let mut explicit = form.clone();
        explicit["mode"] = json!("form");
        assert_eq!(
            clean("elicitation/create", Some(explicit), v).and_then(Result::ok),
            declined
        );
        assert_eq!(
            code(clean("elicitation/create", Some(url.clone()), v)),
            Some(-32602)
        );
        // Before 2025-11-25 there are no modes: the member is ignored.
        assert_eq!(
            clean(
                "elicitation/create",
                Some(url.clone()),
                Version::V2025_06_18
            )
            .and_then(Result::ok),
            declined
        );
        let d = Declared::for_version(v, ClientFaults::default(), false);
        let r = req("elicitation/create", Some(url.clone()));
        let answered = ClientFaults::new(&[ClientFault::UrlElicitationAnswered]);
        assert_eq!(answer(&r, v, d, answered).and_then(Result::ok), declined);
        let required = ClientFaults::new(&[ClientFault::ElicitationModeRequired]);
        assert_eq!(
            code(answer(
                &req("elicitation/create", Some(form)),
                v,
                d,
                required
            )),
            Some(-32602)
        );
        url["mode"] = json!("telepathy");
        assert_eq!(
            code(clean("elicitation/create", Some(url), v)),
            Some(-32602)
        );
    }

    #[test]
    fn unknown_methods_and_their_faults() {
        let v = Version::V2025_11_25;
        assert_eq!(code(clean("tools/list", None, v)), Some(-32601));
        let r = req("x/y", None);
        let success = ClientFaults::new(&[ClientFault::UnknownRequestSuccess]);
        let silent = ClientFaults::new(&[ClientFault::NoResponseToUnknown]);
        let d = Declared::for_version(v, ClientFaults::default(), false);
        assert_eq!(
            answer(&r, v, d, success).and_then(Result::ok),
            Some(json!({}))
        );
        assert!(answer(&r, v, d, silent).is_none());
        // Undeclared sampling is an unknown method to the clean client.
        let undeclared = Declared {
            roots: true,
            roots_list_changed: true,
            sampling: false,
            elicitation: true,
        };
        let s = req(
            "sampling/createMessage",
            Some(json!({ "messages": [], "maxTokens": 1 })),
        );
        assert_eq!(
            code(answer(&s, v, undeclared, ClientFaults::default())),
            Some(-32601)
        );
    }

    #[test]
    fn a_bare_client_declares_nothing_and_answers_minus_32601() {
        let v = Version::V2025_11_25;
        let bare = Declared::for_version(v, ClientFaults::default(), true);
        assert_eq!(bare.capabilities(), json!({}));
        for method in ["roots/list", "sampling/createMessage", "elicitation/create"] {
            let r = req(method, Some(json!({ "messages": [], "maxTokens": 1 })));
            assert_eq!(
                code(answer(&r, v, bare, ClientFaults::default())),
                Some(-32601),
                "{method}"
            );
        }
    }

    #[test]
    fn offered_tools_are_refused_or_used_only_by_the_fault() {
        let v = Version::V2025_11_25;
        let d = Declared::for_version(v, ClientFaults::default(), false);
        let s = req(
            "sampling/createMessage",
            Some(
                json!({ "messages": [], "maxTokens": 1, "tools": [{ "name": "t", "inputSchema": {} }] }),
            ),
        );
        assert_eq!(
            code(answer(&s, v, d, ClientFaults::default())),
            Some(-32602)
        );
        let faulty = ClientFaults::new(&[ClientFault::UndeclaredToolUse]);
        let used = answer(&s, v, d, faulty)
            .and_then(Result::ok)
            .expect("a result");
        assert_eq!(used["stopReason"], "toolUse");
        assert_eq!(used["content"][0]["name"], "t");
    }

    #[test]
    fn roots_and_their_faults() {
        let v = Version::V2025_11_25;
        let ok = clean("roots/list", None, v).and_then(Result::ok);
        assert_eq!(
            ok,
            Some(json!({ "roots": [{ "uri": ROOT_URI, "name": ROOT_NAME }] }))
        );
        let d = Declared::for_version(v, ClientFaults::default(), false);
        let r = req("roots/list", None);
        let bad = answer(&r, v, d, ClientFaults::new(&[ClientFault::MalformedRoots]));
        assert_eq!(
            bad.and_then(Result::ok),
            Some(json!({ "roots": [{ "name": "no uri" }] }))
        );
        let web = answer(&r, v, d, ClientFaults::new(&[ClientFault::RootsNotFile]));
        assert_eq!(
            web.and_then(Result::ok)
                .map(|r| r["roots"][0]["uri"].clone()),
            Some(json!("https://example.com/root"))
        );
    }
}
