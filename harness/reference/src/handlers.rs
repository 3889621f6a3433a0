//! Method handlers for an initialized session: listing (with pagination),
//! tools, resources, prompts, logging and completion.
//!
//! Each handler validates its `params` (-32602 on anything malformed) and
//! returns a [`Reply`]. Side messages — log notifications — are written to the
//! outbox before the response, so a client sees "calling tool echo" before
//! the echo.

use mcpspec_engine::Version;
use mcpspec_wire::{Message, Request};
use serde_json::{json, Map, Value};

use crate::cursor::{self, ListKind};
use crate::error::RpcError;
use crate::fault::{Fault, FaultSet};
use crate::log_level::LogLevel;
use crate::outbox::Outbox;
use crate::server::{ReferenceServer, Reply, SERVER_NAME};
use crate::tools::{self, ToolRun};
use crate::{prompts, resources};

/// Every request method the server implements.
pub(crate) const METHODS: [&str; 13] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "logging/setLevel",
    "completion/complete",
];

pub(crate) fn is_known(method: &str) -> bool {
    METHODS.contains(&method)
}

/// Most completion values one answer may carry (the protocol's limit).
const MAX_COMPLETIONS: usize = 100;

/// `params` as an object: absent means empty; anything but an object is -32602.
pub(crate) fn params_object(params: Option<&Value>) -> Result<Map<String, Value>, RpcError> {
    match params {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(RpcError::invalid_params("params must be an object")),
    }
}

/// A required string member of `params`.
fn required_str<'p>(
    params: &'p Map<String, Value>,
    key: &str,
    method: &str,
) -> Result<&'p str, RpcError> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(RpcError::invalid_params(format!(
            "{method} requires {key} (a string)"
        ))),
    }
}

impl ReferenceServer {
    pub(crate) fn dispatch(
        &mut self,
        now_ms: u64,
        version: Version,
        req: &Request,
        batch: Option<u64>,
        out: &mut Outbox,
    ) -> Reply {
        let params = match params_object(req.params.as_ref()) {
            Ok(p) => p,
            Err(e) => {
                let known = is_known(&req.method)
                    || (crate::tasks::offered(version) && crate::tasks::is_method(&req.method));
                return Reply::Now(Err(if known {
                    e
                } else {
                    RpcError::method_not_found(&req.method)
                }));
            }
        };
        let refused = match req.method.as_str() {
            "tools/list" => Some(Fault::ToolsListRefused),
            "prompts/list" => Some(Fault::PromptsListRefused),
            "resources/list" => Some(Fault::ResourcesListRefused),
            _ => None,
        };
        if version >= Version::V2026_07_28 && refused.is_some_and(|f| self.faults.has(f)) {
            // The `*-list-refused` faults: a declared list method answered with an error.
            let message = format!("{} is unavailable", req.method);
            return Reply::Now(Err(RpcError::new(-32603, message)));
        }
        if let Some(reply) = self.task_request(now_ms, version, req, &params, batch) {
            return reply;
        }
        if req.method.ends_with("/list") {
            // Something for a client that asked for debug logs to see.
            self.log(out, LogLevel::Debug, json!({ "event": req.method }));
        }
        let result = match req.method.as_str() {
            "tools/list" => {
                let defs = tools::definitions(version, self.faults);
                let mut page = self.list(ListKind::Tools, defs, &params);
                // Each page keeps its tools, in an order that depends on
                // the request id (so paging stays sound, and HTTP's
                // one-request sessions vary too): odd ids reversed.
                let odd = match req.id.to_value() {
                    Value::Number(n) => n.as_u64().unwrap_or(0) % 2 == 1,
                    other => other.to_string().len() % 2 == 1,
                };
                if self.faults.has(Fault::MetaKeyMalformed) {
                    if let Ok(Value::Object(page)) = &mut page {
                        page.insert("_meta".into(), json!({ "mcpspec dev/note": "listed" }));
                    }
                }
                if self.faults.has(Fault::ToolsListOrderVaries) && odd {
                    if let Ok(Value::Object(page)) = &mut page {
                        if let Some(Value::Array(tools)) = page.get_mut("tools") {
                            tools.reverse();
                        }
                    }
                }
                page
            }
            "tools/call" => return self.call_tool(now_ms, version, req, &params, batch, out),
            "resources/list" => {
                let mut all = resources::definitions(self.faults);
                all.extend(crate::fixtures::library::resource_definitions());
                self.list(ListKind::Resources, all, &params)
            }
            "resources/templates/list" => {
                let mut all = resources::templates();
                all.extend(crate::fixtures::library::template_definitions());
                if self.faults.has(Fault::TemplateNotRfc6570) {
                    all.push(json!({ "uriTemplate": "mcpspec://broken/{id", "name": "broken" }));
                }
                self.list(ListKind::Templates, all, &params)
            }
            "resources/read" => self.read_resource(&params, now_ms, version),
            "resources/subscribe" => self.subscribe(&params, now_ms, true),
            "resources/unsubscribe" => self.subscribe(&params, now_ms, false),
            "prompts/list" => {
                let mut all = prompts::definitions();
                all.extend(crate::fixtures::library::prompt_definitions());
                if version >= Version::V2026_07_28 {
                    all.push(crate::mrtr::prompt_definition());
                }
                self.list(ListKind::Prompts, all, &params)
            }
            "prompts/get" => self.get_prompt(&params, version),
            "logging/setLevel" => self.set_level(&params),
            "completion/complete" => complete(&params, self.faults),
            other => Err(RpcError::method_not_found(other)),
        };
        Reply::Now(result)
    }

    /// One page of a list; `key` names the array member of the result.
    fn list(
        &self,
        kind: ListKind,
        items: Vec<Value>,
        params: &Map<String, Value>,
    ) -> Result<Value, RpcError> {
        let key = match kind {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        };
        // Under 2026-07-28 every request carries `_meta`; the fault is about
        // the optional `_meta` of the handshake-era versions.
        if self.faults.has(Fault::RejectMeta)
            && params.contains_key("_meta")
            && self.scope.is_none()
        {
            return Err(RpcError::invalid_params(format!(
                "unexpected member _meta in {key} request params"
            )));
        }
        let offset = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match cursor::decode(kind, c, items.len()) {
                Some(offset) => offset,
                None if self.faults.has(Fault::InvalidCursorAccepted) => 0,
                None => {
                    return Err(RpcError::invalid_params(format!("invalid cursor: {c:?}"))
                        .with_data(json!({ "cursor": c })))
                }
            },
            Some(_) => return Err(RpcError::invalid_params("cursor must be a string")),
        };
        let mut page = cursor::page(kind, offset, items.len(), self.page_size);
        if self.faults.has(Fault::PaginationDuplicates) && page.start > 0 {
            page.start -= 1;
        }
        if self.faults.has(Fault::PaginationLoop) && page.next.is_none() {
            page.next = Some(cursor::encode(kind, 0));
        }
        let mut result = Map::new();
        result.insert(
            key.into(),
            Value::from(items[page.start..page.end].to_vec()),
        );
        if let Some(next) = page.next {
            result.insert("nextCursor".into(), Value::from(next));
        }
        Ok(Value::Object(result))
    }

    fn call_tool(
        &mut self,
        now_ms: u64,
        version: Version,
        req: &Request,
        params: &Map<String, Value>,
        batch: Option<u64>,
        out: &mut Outbox,
    ) -> Reply {
        let name = match required_str(params, "name", "tools/call") {
            Ok(n) => n,
            Err(e) => return Reply::Now(Err(e)),
        };
        if let Some(r) = self.task_call(now_ms, version, name, params) {
            return Reply::Now(r);
        }
        let args = match params.get("arguments") {
            None if self.faults.has(Fault::RequireArguments) => {
                return Reply::Now(Err(RpcError::invalid_params(
                    "tools/call requires arguments (an object)",
                )))
            }
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return Reply::Now(Err(RpcError::invalid_params(
                    "tools/call: arguments must be an object",
                )))
            }
        };
        let token = match params.get("_meta").map(|m| m.get("progressToken")) {
            None | Some(None) => None,
            Some(Some(t @ Value::String(_))) => Some(t.clone()),
            Some(Some(t @ Value::Number(n))) if !n.is_f64() => Some(t.clone()),
            Some(Some(_)) => {
                return Reply::Now(Err(RpcError::invalid_params(
                    "progressToken must be a string or an integer",
                )))
            }
        };
        if let Some(caps) = self.request_capabilities() {
            if name == crate::stateless::roots::NAME {
                return Reply::Now(crate::stateless::roots::call(params, caps));
            }
            if let Some(r) = crate::mrtr::call_tool(name, params, caps, self.faults) {
                return Reply::Now(r);
            }
        }
        if self.faults.has(Fault::HangOnCall) {
            out.stderr(format!(
                "{SERVER_NAME}: never answering tools/call {name} (fault hang-on-call)"
            ));
            return Reply::Never;
        }
        if self.faults.has(Fault::ExitOnCall) {
            out.stderr(format!(
                "{SERVER_NAME}: exiting on tools/call {name} (fault exit-on-call)"
            ));
            out.exit(1);
            return Reply::Never;
        }
        self.log(
            out,
            LogLevel::Debug,
            json!({ "event": "tools/call", "tool": name, "arguments": args }),
        );
        self.log(out, LogLevel::Info, json!(format!("calling tool {name}")));
        let caps = self
            .request_capabilities()
            .cloned()
            .unwrap_or_else(|| self.client_capabilities.clone());
        let run = crate::fixtures::run_tool(name, &args, version, self.faults, &caps)
            .unwrap_or_else(|| tools::run(name, &args, version, self.faults));
        match run {
            Err(e) => Reply::Now(Err(e)),
            Ok(ToolRun::Logged { messages, result }) => {
                for n in 1..=messages {
                    self.log(
                        out,
                        LogLevel::Info,
                        json!(format!("{name}: message {n} of {messages}")),
                    );
                }
                Reply::Now(Ok(result))
            }
            Ok(ToolRun::Ask(ask)) => {
                self.send_ask(ask, req.id.clone(), batch, out);
                Reply::Deferred
            }
            Ok(ToolRun::Done(mut result)) => {
                tools::apply_result_faults(&mut result, self.faults);
                if result.get("isError") == Some(&Value::Bool(true)) {
                    self.log(
                        out,
                        LogLevel::Warning,
                        json!(format!("tool {name} reported an error")),
                    );
                }
                Reply::Now(Ok(result))
            }
            Ok(ToolRun::Slow { duration_ms, steps }) => {
                self.start_slow(
                    req.id.clone(),
                    token,
                    now_ms,
                    duration_ms,
                    steps,
                    batch,
                    version,
                );
                Reply::Deferred
            }
        }
    }

    /// Sends `notifications/message` if `level` passes the client's threshold:
    /// the one `logging/setLevel` set, or under 2026-07-28 the request's own
    /// `io.modelcontextprotocol/logLevel` (none: no log messages).
    pub(crate) fn log(&self, out: &mut Outbox, level: LogLevel, data: Value) {
        let set = match &self.scope {
            Some(scope) => scope.log_level,
            None => self.log_level,
        };
        let threshold = match set {
            Some(l) => l,
            // Without a declared capability nobody asked for logs; the
            // `undeclared-logging` fault sends them anyway, from info up.
            None if self.faults.has(Fault::UndeclaredLogging) => LogLevel::Info,
            None => return,
        };
        if level >= threshold || self.faults.has(Fault::LogBelowLevel) {
            out.send(&Message::notification(
                "notifications/message",
                Some(json!({ "level": level.as_str(), "logger": SERVER_NAME, "data": data })),
            ));
        }
    }

    fn set_level(&mut self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let level = required_str(params, "level", "logging/setLevel")?;
        let level = LogLevel::parse(level).ok_or_else(|| {
            RpcError::invalid_params(format!("unknown log level: {level:?}"))
                .with_data(json!({ "level": level }))
        })?;
        self.log_level = Some(level);
        Ok(json!({}))
    }

    fn subscribe(
        &mut self,
        params: &Map<String, Value>,
        now_ms: u64,
        on: bool,
    ) -> Result<Value, RpcError> {
        let method = if on {
            "resources/subscribe"
        } else {
            "resources/unsubscribe"
        };
        let uri = required_str(params, "uri", method)?;
        if resources::read(uri, now_ms, self.faults).is_none() {
            return Err(RpcError::resource_not_found(uri));
        }
        if on {
            self.subscriptions.insert(uri.to_owned());
        } else {
            self.subscriptions.remove(uri);
        }
        self.update_counter_timer(now_ms);
        Ok(json!({}))
    }
}

impl ReferenceServer {
    fn read_resource(
        &self,
        params: &Map<String, Value>,
        now_ms: u64,
        version: Version,
    ) -> Result<Value, RpcError> {
        let uri = required_str(params, "uri", "resources/read")?;
        let found = resources::read(uri, now_ms, self.faults);
        if found.is_none()
            && version.lifecycle() == mcpspec_engine::Lifecycle::Stateless
            && self.faults.has(Fault::StatelessResourceNotFoundEmpty)
        {
            return Ok(json!({ "contents": [] }));
        }
        let mut contents =
            found.ok_or_else(|| RpcError::resource_not_found_at(uri, version, self.faults))?;
        if self.faults.has(Fault::ReadWrongUri) {
            contents["uri"] = Value::from(format!("{uri}#contents"));
        }
        Ok(json!({ "contents": [contents] }))
    }

    fn get_prompt(&self, params: &Map<String, Value>, version: Version) -> Result<Value, RpcError> {
        let name = required_str(params, "name", "prompts/get")?;
        if let Some(caps) = self.request_capabilities() {
            if let Some(r) = crate::mrtr::get_prompt(params, caps, self.faults) {
                return r;
            }
        }
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "prompts/get: arguments must be an object",
                ))
            }
        };
        crate::fixtures::library::get_prompt(name, &args, self.faults)
            .unwrap_or_else(|| prompts::get(name, &args, version, self.faults))
    }
}

fn complete(params: &Map<String, Value>, faults: FaultSet) -> Result<Value, RpcError> {
    let Some(Value::Object(reference)) = params.get("ref") else {
        return Err(RpcError::invalid_params(
            "completion/complete requires ref (an object)",
        ));
    };
    let Some(Value::Object(argument)) = params.get("argument") else {
        return Err(RpcError::invalid_params(
            "completion/complete requires argument (an object)",
        ));
    };
    let arg_name = required_str(argument, "name", "completion/complete argument")?;
    let value = required_str(argument, "value", "completion/complete argument")?;
    let candidates = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = required_str(reference, "name", "completion/complete ref/prompt")?;
            match crate::fixtures::library::complete_prompt(name, arg_name, faults) {
                Some(candidates) => candidates?,
                None => prompts::complete(name, arg_name)
                    .ok_or_else(|| RpcError::invalid_params(format!("unknown prompt: {name}")))?,
            }
        }
        Some("ref/resource") => {
            let uri = required_str(reference, "uri", "completion/complete ref/resource")?;
            match resources::complete(uri, arg_name) {
                Some(c) => c,
                // A plain resource has no arguments to complete.
                None if resources::read(uri, 0, FaultSet::default()).is_some() => Vec::new(),
                None => {
                    return Err(RpcError::invalid_params(format!(
                        "unknown resource or template: {uri}"
                    )))
                }
            }
        }
        other => {
            return Err(RpcError::invalid_params(format!(
                "unknown completion reference type: {}",
                other.unwrap_or("(missing)")
            )))
        }
    };
    let prefix = value.to_lowercase();
    let values: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.to_lowercase().starts_with(&prefix))
        .take(MAX_COMPLETIONS)
        .collect();
    Ok(json!({
        "completion": { "values": values, "total": values.len(), "hasMore": false }
    }))
}
