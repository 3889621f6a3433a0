//! The reference client's 2026-07-28 side: the stateless protocol, where
//! there is no handshake and every request stands on its own.
//!
//! | moment                                        | what the client does                                    |
//! |-----------------------------------------------|---------------------------------------------------------|
//! | start                                         | `server/discover` (with discovery off: the workflow at once, assuming tools, resources and prompts) |
//! | discover result listing 2026-07-28            | plans the [`super::workflow`] from its `capabilities` (no ping, subscriptions or logging/setLevel) |
//! | -32022 whose `data.supported` lists 2026-07-28 (discover or a workflow request) | sends the request again, once per session (`stateless.client.retry-supported`) |
//! | discover result without 2026-07-28, or another -32022 | disconnects (Exit 0): no version in common, and the server answered as a 2026-07-28 server, so no fallback (`stateless.client.era-cached`) |
//! | discover -32020 or -32021                     | gives up (Exit 1)                                       |
//! | discover -32601, or another plain error       | falls back: `initialize` with the newest handshake version, a handshake session from then on |
//! | every request                                 | `params._meta`: protocolVersion 2026-07-28, clientCapabilities (what it declares), clientInfo |
//! | a result with `resultType: input_required`    | answers each `inputRequests` entry as it answers a server's request (`answers`), then retries the request with `inputResponses` and the `requestState` |
//!
//! A result without `resultType` counts as complete; one with a
//! `resultType` other than `complete` or `input_required` is invalid (the
//! request fails, the workflow goes on; the `unknown-result-type-accepted`
//! fault takes one carrying inputRequests for input_required). An input the client
//! cannot give (a capability it did not declare, an unknown method) skips
//! the request; the workflow goes on. The 2026-07-28 faults act here:
//! `missing-meta-version` and `missing-client-capabilities` (on every
//! request after `server/discover`, so the session still opens),
//! `sends-removed-method` (in the plan), `fallback-after-discover` and
//! `retry-unlisted-version` (the retried request and every one after it
//! name 2025-11-25, which the -32022 did not list), and
//! `fallback-only-method-not-found` (a discover error other than -32601
//! ends the session instead of the fallback).

use mcpspec_engine::Version;
use mcpspec_wire::{ErrorObject, Id, Request};
use serde_json::{json, Map, Value};

use super::answers::{self, Declared};
use super::fault::ClientFault;
use super::handshake::server_capabilities;
use super::workflow::{label, Call, Job, Plan, MAX_INPUT_ROUNDS};
use super::{Out, Phase, Purpose, ReferenceClient, CLIENT_NAME, STATELESS_VERSION};
use crate::error::{NAMED_ERRORS, UNSUPPORTED_PROTOCOL_VERSION};
use crate::stateless::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};

/// `_meta` key: the client's self-description (a SHOULD on every request).
const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// The method that opens a stateless session.
const DISCOVER: &str = "server/discover";

impl ReferenceClient {
    /// True for a result that asks for more input before it completes (the
    /// `result-type-inferred` fault: also one without resultType that
    /// carries inputRequests, which is complete).
    pub(super) fn needs_input(&self, result: &Value) -> bool {
        let asks = result.get("inputRequests").is_some();
        match result.get("resultType") {
            Some(t) if t == "input_required" => true,
            Some(t) if t == "complete" => false,
            // The `unknown-result-type-accepted` fault: an unrecognized
            // type that carries inputRequests is taken for input_required.
            Some(_) => self.has(ClientFault::UnknownResultTypeAccepted) && asks,
            None => self.has(ClientFault::ResultTypeInferred) && asks,
        }
    }

    /// A result whose `resultType` is neither a core value nor one of an
    /// extension this client advertised (it advertises none) is invalid
    /// (`stateless.result.type-unrecognized-invalid`): the line to log,
    /// or `None` for a result the client takes.
    pub(super) fn invalid_result_type(&self, result: &Value) -> Option<String> {
        let t = result.get("resultType")?;
        if t == "complete" || t == "input_required" {
            return None;
        }
        Some(format!(
            "resultType {t} is neither complete nor input_required (and this client advertises no extension): an invalid result"
        ))
    }

    /// Opens a stateless session: `server/discover`, or the workflow at once.
    pub(super) fn start_stateless(&mut self, now_ms: u64, out: &mut Out) {
        if !self.discover {
            out.log(format!(
                "skipping server/discover (configured so): protocol version {STATELESS_VERSION}, \
                 assuming the server offers tools, resources and prompts; running statelessly"
            ));
            let assumed = json!({ "tools": {}, "resources": {}, "prompts": {} });
            self.run_stateless(now_ms, &assumed, out);
            return;
        }
        self.phase = Phase::Discovering;
        self.request(now_ms, DISCOVER, None, Purpose::Discover, out);
        out.log(format!(
            "server/discover sent (protocol version {STATELESS_VERSION}, no initialize)"
        ));
    }

    /// The session is open: plans the workflow and starts it.
    fn run_stateless(&mut self, now_ms: u64, capabilities: &Value, out: &mut Out) {
        self.negotiated = Some(STATELESS_VERSION);
        let plan = Plan {
            stateless: true,
            removed_methods: self.has(ClientFault::SendsRemovedMethod),
            header_rules: !self.has(ClientFault::KeepsInvalidHeaderTools),
        };
        self.workflow.plan(capabilities, plan);
        self.phase = Phase::Running;
        self.advance(now_ms, out);
    }

    /// A -32022 whose `data.supported` lists the version this client speaks
    /// earns one more `server/discover` (`stateless.client.retry-supported`).
    fn may_retry_version(&self, e: &ErrorObject) -> bool {
        let listed = e
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|s| s.iter().any(|v| v == STATELESS_VERSION.as_str()));
        listed && !self.version_retried
    }

    /// The answer to `server/discover` (see the module table).
    pub(super) fn on_discover_answer(
        &mut self,
        now_ms: u64,
        outcome: Result<Value, ErrorObject>,
        out: &mut Out,
    ) {
        let result = match outcome {
            Ok(result) => result,
            Err(e) if e.code == UNSUPPORTED_PROTOCOL_VERSION && self.may_retry_version(&e) => {
                self.version_retried = true;
                self.request(now_ms, DISCOVER, None, Purpose::Discover, out);
                out.log(format!(
                    "server/discover: error {} ({}), listing {STATELESS_VERSION} as supported; \
                     sending server/discover again (once)",
                    e.code, e.message
                ));
                return;
            }
            Err(e) if e.code == UNSUPPORTED_PROTOCOL_VERSION => {
                out.log(format!(
                    "server/discover: error {} ({}): the server does not speak {STATELESS_VERSION}, \
                     and it answered as a {STATELESS_VERSION} server, so no fallback; disconnecting",
                    e.code, e.message
                ));
                self.exit(0, out);
                return;
            }
            Err(e)
                if NAMED_ERRORS.contains(&e.code)
                    || (self.has(ClientFault::FallbackOnlyMethodNotFound) && e.code != -32601) =>
            {
                out.log(format!(
                    "server/discover failed: error {} ({}); giving up",
                    e.code, e.message
                ));
                self.exit(1, out);
                return;
            }
            Err(e) => {
                out.log(format!(
                    "server/discover: error {} ({}): a server without {STATELESS_VERSION}; \
                     falling back to initialize with {}",
                    e.code,
                    e.message,
                    Version::LATEST_HANDSHAKE
                ));
                self.fall_back(now_ms, out);
                return;
            }
        };
        if self.has(ClientFault::FallbackAfterDiscover) {
            out.log(format!(
                "server/discover answered; falling back to initialize with {} all the same \
                 (fault fallback-after-discover)",
                Version::LATEST_HANDSHAKE
            ));
            self.fall_back(now_ms, out);
            return;
        }
        if self.has(ClientFault::StrayResponse) {
            out.send(&mcpspec_wire::Message::result(Id::from(0), json!({})));
        }
        let versions: Option<Vec<&str>> = result
            .get("supportedVersions")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).collect());
        match &versions {
            Some(list) if !list.contains(&STATELESS_VERSION.as_str()) => {
                out.log(format!(
                    "server/discover lists protocol versions [{}], not {STATELESS_VERSION}; disconnecting",
                    list.join(", ")
                ));
                self.exit(0, out);
                return;
            }
            Some(_) => {}
            None => out.log(format!(
                "the server/discover result has no supportedVersions array; going on with {STATELESS_VERSION}"
            )),
        }
        let (capabilities, names) = server_capabilities(&result, "server/discover", out);
        out.log(format!(
            "discovered: protocol version {STATELESS_VERSION} (the server supports [{}]), \
             server capabilities [{names}]; running statelessly: no initialize, _meta on every request",
            versions.unwrap_or_default().join(", "),
        ));
        self.run_stateless(now_ms, &capabilities, out);
    }

    /// Gives up the stateless protocol: `initialize` with the newest
    /// handshake version, a handshake session from then on.
    fn fall_back(&mut self, now_ms: u64, out: &mut Out) {
        self.stateless = false;
        self.offered = Version::LATEST_HANDSHAKE;
        self.declared = Declared::for_version(self.offered, self.faults, self.bare);
        self.send_initialize(now_ms, out);
    }

    /// `params` with the request's `_meta`: version, capabilities, clientInfo
    /// (members already there, such as a progressToken, are kept).
    pub(super) fn stamp_meta(&self, method: &str, params: Option<Value>) -> Value {
        let mut params = match params {
            None => Map::new(),
            Some(Value::Object(p)) => p,
            // Params that are no object cannot carry _meta (the workflow
            // sends none such).
            Some(other) => return other,
        };
        let after_discover = method != DISCOVER;
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            // The faulty retry names a version the -32022 did not list.
            let version = if self.version_retried && self.has(ClientFault::RetryUnlistedVersion) {
                Version::LATEST_HANDSHAKE
            } else {
                STATELESS_VERSION
            };
            if !(after_discover && self.has(ClientFault::MissingMetaVersion)) {
                meta.insert(PROTOCOL_VERSION.into(), json!(version.as_str()));
            }
            if !(after_discover && self.has(ClientFault::MissingClientCapabilities)) {
                meta.insert(CLIENT_CAPABILITIES.into(), self.declared.capabilities());
            }
            meta.insert(
                CLIENT_INFO.into(),
                json!({ "name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") }),
            );
        }
        Value::Object(params)
    }

    /// A -32022 to a workflow request that lists this client's version:
    /// the request goes again, once per session; `Some(line)` for the log.
    pub(super) fn retry_after_unsupported(
        &mut self,
        job: &Job,
        call: &Call,
        e: &ErrorObject,
    ) -> Option<String> {
        if !self.stateless || e.code != UNSUPPORTED_PROTOCOL_VERSION || !self.may_retry_version(e) {
            return None;
        }
        self.version_retried = true;
        self.workflow.retry(job, call.clone());
        Some(format!(
            "{}: error {} ({}), listing {STATELESS_VERSION} as supported; sending it again (once)",
            label(job, call),
            e.code,
            e.message
        ))
    }

    /// A job's result asks for input: answers what it asks and queues the
    /// retry, or skips the job. Returns a line for the log.
    pub(super) fn on_input_required(&mut self, job: &Job, call: &Call, result: &Value) -> String {
        let round = match job {
            Job::Retry { round, .. } => *round,
            _ => 0,
        };
        if round >= MAX_INPUT_ROUNDS {
            let why = format!("still input_required after {round} retries");
            return self.workflow.on_skipped(job, call, &why);
        }
        let requests = match result.get("inputRequests") {
            None => None,
            Some(Value::Object(r)) => Some(r),
            Some(other) => {
                let why = format!("inputRequests is not an object ({other})");
                return self.workflow.on_skipped(job, call, &why);
            }
        };
        let state = match result.get("requestState") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                let why = format!("requestState is not a string ({other})");
                return self.workflow.on_skipped(job, call, &why);
            }
        };
        if requests.is_none() && state.is_none() {
            let why = "an input_required result with neither inputRequests nor requestState";
            return self.workflow.on_skipped(job, call, why);
        }
        let mut responses = Map::new();
        let mut asked = Vec::new();
        for (key, input) in requests.into_iter().flatten() {
            match self.answer_input(key, input) {
                Ok((method, answer)) => {
                    responses.insert(key.clone(), answer);
                    asked.push(method);
                }
                Err(why) => return self.workflow.on_skipped(job, call, &why),
            }
        }
        let mut params = match &call.params {
            Some(Value::Object(p)) => p.clone(),
            _ => Map::new(),
        };
        params.remove("inputResponses");
        params.remove("requestState");
        if !responses.is_empty() {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        if self.has(ClientFault::RetryStateLeaked) {
            self.leaked_state.clone_from(&state);
        }
        let state = match state {
            Some(s) if self.has(ClientFault::RetryStateAltered) => Some(format!("{s}x")),
            None if self.has(ClientFault::RetryStateInvented) => Some("mcpspec-invented".into()),
            other => other,
        };
        if let Some(state) = state {
            params.insert("requestState".into(), Value::String(state));
        }
        let line = format!(
            "{}: input_required ({}); retrying with the input",
            label(job, call),
            if asked.is_empty() {
                "requestState only".to_owned()
            } else {
                asked.join(", ")
            }
        );
        let retry = Call {
            method: call.method,
            params: Some(Value::Object(params)),
        };
        self.workflow.retry(job, retry);
        line
    }

    /// The `retry-state-leaked` fault: a request of the workflow other than
    /// a retry gets the last requestState too.
    pub(super) fn leak_state(&self, purpose: &Purpose, params: &mut Value) {
        let (Some(state), Purpose::Job(job, _)) = (&self.leaked_state, purpose) else {
            return;
        };
        if !matches!(job, Job::Retry { .. }) {
            params["requestState"] = Value::String(state.clone());
        }
    }

    /// The answer to one entry of `inputRequests`: its method and result,
    /// or why the client cannot give it.
    fn answer_input(&self, key: &str, input: &Value) -> Result<(String, Value), String> {
        let Some(method) = input.get("method").and_then(Value::as_str) else {
            return Err(format!("input request {key:?} names no method"));
        };
        let request = Request {
            id: Id::from(key),
            method: method.to_owned(),
            params: input.get("params").cloned(),
        };
        match answers::answer(&request, STATELESS_VERSION, self.declared, self.faults) {
            Some(Ok(result)) => Ok((method.to_owned(), result)),
            Some(Err(e)) => Err(format!(
                "the server asks for {method}, which this client cannot give (error {}: {})",
                e.code, e.message
            )),
            None => Err(format!(
                "the server asks for {method}, which this client leaves unanswered"
            )),
        }
    }
}
