//! The input-required fixtures of 2026-07-28 (multi round-trip requests,
//! `basic/patterns/mrtr`): tools and a prompt that ask the client for input
//! inside an `input_required` result and complete when the request is
//! retried with it. They answer to the names the official conformance
//! suite's fixture servers use, so its scenarios and mcpspec's run against
//! the reference alike.
//!
//! | name (`test_input_required_result_…`) | asks (key: kind)                                  | requestState |
//! |---------------------------------------|---------------------------------------------------|--------------|
//! | `elicitation`                         | `user_name`: elicitation                          | no           |
//! | `sampling`                            | `capital_question`: sampling                      | no           |
//! | `list_roots`                          | `client_roots`: roots                             | no           |
//! | `request_state`, `tampered_state`     | `confirm`: elicitation                            | yes, checked |
//! | `multiple_inputs`                     | `user_name`, `greeting`, `client_roots`: all three | yes         |
//! | `multi_round`                         | `step1`, then `step2`: elicitation                | yes, per round |
//! | `capabilities`                        | one of each kind the request declares             | no           |
//! | prompt `prompt`                       | `user_context`: elicitation                       | no           |
//!
//! Every retry is judged afresh (nothing is kept between requests):
//!
//! - `inputResponses` that is not an object, or an answer of the wrong shape
//!   for what was asked, is -32602;
//! - an answer missing is asked for again (a new `input_required` result);
//! - answers nobody asked for are ignored;
//! - a `requestState` whose tag does not verify, or that another tool
//!   issued, is -32602 (see [`state`]);
//! - a request whose `_meta` lacks a capability the tool needs is -32021.

mod answers;
mod state;

use serde_json::{json, Map, Value};

use crate::error::{RpcError, MISSING_CLIENT_CAPABILITY};
use crate::fault::{Fault, FaultSet};
use answers::{elicited, root_uris, sampled, Ask, Kind};

const PREFIX: &str = "test_input_required_result_";

/// The fixture tools, in list order.
pub(crate) const TOOLS: [&str; 8] = [
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_tampered_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_capabilities",
];

/// The fixture prompt.
pub(crate) const PROMPT: &str = "test_input_required_result_prompt";

/// `tools/list` entries of the fixture tools (2026-07-28 only).
pub(crate) fn tool_definitions() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|name| {
            let what = name.trim_start_matches(PREFIX).replace('_', " ");
            json!({
                "name": name,
                "description": format!("Input-required fixture ({what}): asks the client for input in an input_required result, completes on the retry."),
                "inputSchema": { "type": "object", "properties": {} }
            })
        })
        .collect()
}

/// The `prompts/list` entry of the fixture prompt (2026-07-28 only).
pub(crate) fn prompt_definition() -> Value {
    json!({
        "name": PROMPT,
        "description": "Input-required fixture: asks the client for context (elicitation) before it is given."
    })
}

/// One fixture request being served.
struct Serve<'a> {
    name: &'a str,
    params: &'a Map<String, Value>,
    caps: &'a Map<String, Value>,
    faults: FaultSet,
}

/// What the retry brought for a set of asks.
enum Gathered {
    /// Every ask answered, by key.
    All(Map<String, Value>),
    /// Not yet: ask for these (again).
    Ask(Vec<Ask>),
}

impl Serve<'_> {
    fn has(&self, f: Fault) -> bool {
        self.faults.has(f)
    }

    /// The request's `inputResponses`, checked to be an object.
    fn responses(&self) -> Result<Option<Map<String, Value>>, RpcError> {
        if self.has(Fault::InputRequiredRetryIgnored) {
            return Ok(None);
        }
        match self.params.get("inputResponses") {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m.clone())),
            // The fault: anything goes, and counts as no answer at all.
            Some(_) if self.has(Fault::InputRequiredUnvalidated) => Ok(Some(Map::new())),
            Some(other) => Err(RpcError::invalid_params(format!(
                "inputResponses must be an object mapping the keys of inputRequests to their answers, not {other}"
            ))),
        }
    }

    /// The payload of the request's `requestState`, if it carries one.
    fn state(&self) -> Result<Option<Value>, RpcError> {
        if self.has(Fault::InputRequiredRetryIgnored) {
            return Ok(None);
        }
        let Some(given) = self.params.get("requestState") else {
            return Ok(None);
        };
        let verify = !self.has(Fault::InputRequiredStateUnverified);
        let payload = given
            .as_str()
            .and_then(|s| state::open(s, verify))
            .filter(|p| !verify || p.get("tool").and_then(Value::as_str) == Some(self.name));
        payload.map(Some).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "requestState failed verification: it was altered, or {} did not issue it",
                self.name
            ))
        })
    }

    /// Reads the answers to `asks` from `responses`.
    fn gather(
        &self,
        asks: Vec<Ask>,
        responses: Option<Map<String, Value>>,
    ) -> Result<Gathered, RpcError> {
        let Some(responses) = responses else {
            return Ok(Gathered::Ask(asks));
        };
        if self.has(Fault::InputRequiredExtraRejected) {
            if let Some(k) = responses.keys().find(|k| !asks.iter().any(|a| a.key == *k)) {
                return Err(RpcError::invalid_params(format!(
                    "inputResponses has {k:?}, which {} did not ask for",
                    self.name
                )));
            }
        }
        let mut got = Map::new();
        let mut missing = Vec::new();
        for ask in asks {
            match responses.get(ask.key) {
                None => missing.push(ask),
                Some(answer) => {
                    let bad = ask.kind.invalid(answer);
                    if let Some(why) = bad.filter(|_| !self.has(Fault::InputRequiredUnvalidated)) {
                        return Err(RpcError::invalid_params(format!(
                            "inputResponses.{} is {why}; {} asked for {}",
                            ask.key,
                            self.name,
                            ask.kind.method()
                        )));
                    }
                    let refused = answer.get("action").and_then(Value::as_str) != Some("accept");
                    if self.has(Fault::InputRequiredDeclineFails)
                        && matches!(ask.kind, Kind::Elicit)
                        && refused
                    {
                        // The fault: a declined or cancelled elicitation breaks the request.
                        return Err(RpcError::new(
                            -32603,
                            format!(
                                "{}: the elicitation {} was not accepted",
                                self.name, ask.key
                            ),
                        ));
                    }
                    got.insert(ask.key.to_owned(), answer.clone());
                }
            }
        }
        if missing.is_empty() {
            return Ok(Gathered::All(got));
        }
        if self.has(Fault::InputRequiredMissingError) {
            let keys: Vec<&str> = missing.iter().map(|a| a.key).collect();
            return Err(RpcError::invalid_params(format!(
                "inputResponses lacks {}",
                keys.join(", ")
            )));
        }
        Ok(Gathered::Ask(missing))
    }

    /// Refuses a request that cannot be asked `kinds` (-32021).
    fn need(&self, kinds: &[Kind]) -> Result<(), RpcError> {
        if self.has(Fault::InputRequiredUndeclared) {
            return Ok(());
        }
        let missing: Map<String, Value> = kinds
            .iter()
            .filter(|k| !self.caps.contains_key(k.capability()))
            .map(|k| (k.capability().to_owned(), json!({})))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let names: Vec<&String> = missing.keys().collect();
        Err(RpcError::new(
            MISSING_CLIENT_CAPABILITY,
            format!(
                "{} asks the client for input this request's clientCapabilities do not declare: {names:?}",
                self.name
            ),
        )
        .with_data(json!({ "requiredCapabilities": missing })))
    }

    /// The `input_required` result asking `asks`, with `state` if given.
    fn ask(&self, asks: &[Ask], state: Option<Value>) -> Value {
        let requests: Map<String, Value> = asks
            .iter()
            .map(|a| (a.key.to_owned(), a.request()))
            .collect();
        let mut result = json!({ "inputRequests": requests });
        if !self.has(Fault::InputRequiredResultTypeMissing) {
            result["resultType"] = json!("input_required");
        }
        if let Some(mut payload) = state {
            payload["tool"] = json!(self.name);
            result["requestState"] = json!(state::seal(&payload));
        }
        result
    }

    /// A one-round fixture: asks `asks`, then completes with `done`.
    fn one_round(
        &self,
        asks: Vec<Ask>,
        stateful: bool,
        done: impl FnOnce(&Map<String, Value>) -> String,
    ) -> Result<Value, RpcError> {
        let kinds: Vec<Kind> = asks.iter().map(|a| a.kind).collect();
        self.need(&kinds)?;
        let state = if stateful { self.state()? } else { None };
        let fresh = || stateful.then(|| json!({ "round": 1 }));
        // A stateful tool's answers count only together with its state.
        let responses = self.responses()?.filter(|_| !stateful || state.is_some());
        match self.gather(asks, responses)? {
            Gathered::Ask(asks) => Ok(self.ask(&asks, fresh())),
            Gathered::All(got) => Ok(crate::tools::text_result(done(&got), false)),
        }
    }

    fn multi_round(&self) -> Result<Value, RpcError> {
        self.need(&[Kind::Elicit])?;
        let step1 = || Ask::elicit("step1", "Step 1: what is your name?", "name", "string");
        let step2 = || {
            Ask::elicit(
                "step2",
                "Step 2: what is your favourite colour?",
                "color",
                "string",
            )
        };
        let state = self.state()?;
        let responses = self.responses()?;
        let name = state
            .as_ref()
            .filter(|s| s.get("round") == Some(&json!(2)))
            .and_then(|s| s.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        match name {
            // Round 1: the name (answers without a state start here too).
            None => match self.gather(vec![step1()], responses)? {
                Gathered::Ask(asks) => Ok(self.ask(&asks, Some(json!({ "round": 1 })))),
                Gathered::All(got) => {
                    let name = elicited(&got["step1"], "name");
                    Ok(self.ask(&[step2()], Some(json!({ "round": 2, "name": name }))))
                }
            },
            Some(name) => match self.gather(vec![step2()], responses)? {
                Gathered::Ask(asks) => {
                    Ok(self.ask(&asks, Some(json!({ "round": 2, "name": name }))))
                }
                Gathered::All(got) => {
                    let color = elicited(&got["step2"], "color");
                    Ok(crate::tools::text_result(
                        format!("{name}'s favourite colour is {color}"),
                        false,
                    ))
                }
            },
        }
    }

    fn capabilities(&self) -> Result<Value, RpcError> {
        let all = [
            Ask::sample("sampled", "Say hello.", 20),
            Ask::elicit("elicited", "What is your name?", "name", "string"),
            Ask::roots("listed_roots"),
        ];
        let asks: Vec<Ask> = all
            .into_iter()
            .filter(|a| {
                self.has(Fault::InputRequiredUndeclared)
                    || self.caps.contains_key(a.kind.capability())
            })
            .collect();
        if asks.is_empty() {
            return Ok(crate::tools::text_result(
                "this request declares none of sampling, elicitation and roots: nothing to ask",
                false,
            ));
        }
        self.one_round(asks, false, |got| {
            let keys: Vec<&str> = got.keys().map(String::as_str).collect();
            format!("answers received for: {}", keys.join(", "))
        })
    }

    fn tool(&self) -> Result<Value, RpcError> {
        let name_ask = || Ask::elicit("user_name", "What is your name?", "name", "string");
        let confirm = || Ask::elicit("confirm", "Please confirm", "ok", "boolean");
        match self.name.trim_start_matches(PREFIX) {
            "elicitation" => self.one_round(vec![name_ask()], false, |got| {
                format!("Hello, {}!", elicited(&got["user_name"], "name"))
            }),
            "sampling" => self.one_round(
                vec![Ask::sample(
                    "capital_question",
                    "What is the capital of France?",
                    100,
                )],
                false,
                |got| format!("The model answered: {}", sampled(&got["capital_question"])),
            ),
            "list_roots" => self.one_round(vec![Ask::roots("client_roots")], false, |got| {
                format!("roots: {}", root_uris(&got["client_roots"]))
            }),
            "request_state" | "tampered_state" => self.one_round(vec![confirm()], true, |got| {
                format!("state-ok: confirmed {}", elicited(&got["confirm"], "ok"))
            }),
            "multiple_inputs" => self.one_round(
                vec![
                    name_ask(),
                    Ask::sample("greeting", "Generate a greeting", 50),
                    Ask::roots("client_roots"),
                ],
                true,
                |got| {
                    format!(
                        "Hello, {}! greeting: {}; roots: {}",
                        elicited(&got["user_name"], "name"),
                        sampled(&got["greeting"]),
                        root_uris(&got["client_roots"])
                    )
                },
            ),
            "multi_round" => self.multi_round(),
            _ => self.capabilities(),
        }
    }
}

/// Serves `tools/call` of a fixture tool; `None` when `name` is not one.
pub(crate) fn call_tool(
    name: &str,
    params: &Map<String, Value>,
    caps: &Map<String, Value>,
    faults: FaultSet,
) -> Option<Result<Value, RpcError>> {
    TOOLS.contains(&name).then(|| {
        Serve {
            name,
            params,
            caps,
            faults,
        }
        .tool()
    })
}

/// Serves `prompts/get` of the fixture prompt; `None` for other prompts.
pub(crate) fn get_prompt(
    params: &Map<String, Value>,
    caps: &Map<String, Value>,
    faults: FaultSet,
) -> Option<Result<Value, RpcError>> {
    if params.get("name").and_then(Value::as_str) != Some(PROMPT) {
        return None;
    }
    let s = Serve {
        name: PROMPT,
        params,
        caps,
        faults,
    };
    let ask = Ask::elicit(
        "user_context",
        "What context should the prompt use?",
        "context",
        "string",
    );
    Some(s.need(&[Kind::Elicit]).and_then(|()| {
        match s.gather(vec![ask], s.responses()?)? {
            Gathered::Ask(asks) => Ok(s.ask(&asks, None)),
            Gathered::All(got) => {
                let context = elicited(&got["user_context"], "context");
                Ok(json!({
                    "description": "A prompt built from the context the client gave",
                    "messages": [{
                        "role": "user",
                        "content": { "type": "text", "text": format!("Answer with this context in mind: {context}") }
                    }]
                }))
            }
        }
    }))
}

/// The `input-required-on-list` fault's answer to `prompts/list`: an
/// `input_required` result, which a listing may never be.
pub(crate) fn list_asks_for_input() -> Value {
    json!({
        "resultType": "input_required",
        "requestState": state::seal(&json!({ "tool": "prompts/list" })),
    })
}
