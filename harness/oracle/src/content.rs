//! What a message *says*, beyond its schema: the rules the oracle judges on
//! every message of the peer whose cause the version's schema cannot see
//! (a capability used before it was declared, a token reused, an invalid
//! JSON Schema inside a valid tool). Each is judged only against what the
//! peer did and what it was told on this connection:
//!
//! | peer | message | rule |
//! |---|---|---|
//! | either | a request whose method is a notification's | `jsonrpc.notification.no-id` |
//! | either | a request's `_meta.progressToken` not a string or integer | `progress.token.type` |
//! | either | a progress token of its own still-active request reused | `progress.token.unique` |
//! | either | a cancellation naming no request it sent | `cancellation.same-direction` |
//! | either | a `_meta` key breaking the key format (2025-06-18 on) | `meta.key.format` |
//! | either | an extension identifier without a prefix or well-formed key (2026-07-28) | `extensions.identifier-format` |
//! | server | a result to a method of a capability it did not declare | `tools.`/`resources.`/`prompts.`/`completion.capability.declared` |
//! | server | sampling or elicitation the harness did not declare | `sampling.server.capability-required`, `sampling.tools.server-gated`, `elicitation.server.capability-required`, `elicitation.url.capability` |
//! | server | tool results in a sampling request out of order or mixed | `sampling.tool-result.matches-use`, `…only-results` |
//! | server | a tool's inputSchema, outputSchema or an elicitation's requestedSchema that its dialect's meta-schema rejects | `tools.input-schema.valid`, `schema.json-schema.valid` |
//! | server | a `uriTemplate` that is not an RFC 6570 template | `resources.templates.rfc6570` |
//! | server | a page of a list with another `cacheScope` than the page before (2026-07-28) | `caching.server.scope-consistent-pages` |
//! | client | a result to roots, sampling or elicitation it did not declare | `roots.`/`sampling.`/`elicitation.capability.declared` |
//! | client | a root that is not a `file://` URI | `roots.uri.file` |
//!
//! Shapes the schema defines are the schema check's ([`crate::schema`]):
//! nothing here repeats them (a token of a type the schema forbids is this
//! module's, and the schema check leaves it, see `ENCODED_ELSEWHERE`).

use std::collections::{HashMap, HashSet};

use mcpspec_engine::ids;
use mcpspec_engine::{Requirement, Role, Session, Version, Violation};
use mcpspec_wire::{Id, Message, Request, Response};
use serde_json::Value;

/// `_meta` key: a 2026-07-28 client's capabilities for the request.
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

mod json_schema;
mod meta;
mod rfc6570;
mod sampling;

/// What the content rules remember of one connection.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The capabilities this side declared in its `initialize` request
    /// (judging a server).
    own_declared: Option<Value>,
    /// The capabilities a judged client declared in its `initialize`.
    client_declared: Option<Value>,
    /// Progress tokens of the peer's requests this side has not answered:
    /// token JSON text to request id.
    peer_tokens: HashMap<String, Id>,
    /// Ids of every request the peer sent.
    peer_requests: HashSet<Id>,
    /// This side's list requests with a cursor: id to cursor.
    cursor_of: HashMap<Id, String>,
    /// The `cacheScope` of the page each `nextCursor` came with.
    scope_of_cursor: HashMap<String, Value>,
    /// This side's 2026-07-28 requests: the client capabilities each
    /// carried in `_meta`.
    request_caps: HashMap<Id, Value>,
    /// Serving a 2026-07-28 client: the method of each input request this
    /// side asked for, by its key (the latest under each key).
    asked: HashMap<String, String>,
}

/// Collects violations with one time stamp.
struct Out<'a> {
    list: &'a mut Vec<Violation>,
    at_ms: u64,
    version: Version,
}

impl Out<'_> {
    /// Reports `detail` under `rule` when the rule is part of the version.
    fn flag(&mut self, rule: &'static Requirement, detail: String) {
        if rule.applies_to(self.version) {
            self.list.push(Violation {
                requirement: rule,
                detail,
                at_ms: self.at_ms,
            });
        }
    }
}

impl State {
    /// A message this side sent.
    pub(crate) fn outbound(&mut self, msg: &Message) {
        match msg {
            Message::Request(r) => {
                if r.method == "initialize" {
                    self.own_declared = param(r, "capabilities").cloned();
                }
                if let Some(caps) = param(r, "_meta").and_then(|m| m.get(CLIENT_CAPABILITIES)) {
                    self.request_caps.insert(r.id.clone(), caps.clone());
                }
                if let Some(cursor) = param(r, "cursor").and_then(Value::as_str) {
                    self.cursor_of.insert(r.id.clone(), cursor.to_owned());
                }
            }
            Message::Response(r) => {
                if let Some(id) = &r.id {
                    self.peer_tokens.retain(|_, of| of != id);
                }
                let asked = r.outcome.as_ref().ok().and_then(|v| v.get("inputRequests"));
                for (key, request) in asked.and_then(Value::as_object).into_iter().flatten() {
                    if let Some(method) = request.get("method").and_then(Value::as_str) {
                        self.asked.insert(key.clone(), method.to_owned());
                    }
                }
            }
            Message::Notification(_) => {}
        }
    }

    /// The input requests this side asked for, by key.
    pub(crate) fn asked(&self) -> &HashMap<String, String> {
        &self.asked
    }

    /// Judges a message of the peer's, playing `judged`. Must run before
    /// the session absorbs it (an answer's request is then still pending).
    pub(crate) fn inbound(
        &mut self,
        session: &Session,
        version: Version,
        judged: Role,
        msg: &Message,
        at_ms: u64,
    ) -> Vec<Violation> {
        let mut list = Vec::new();
        let mut out = Out {
            list: &mut list,
            at_ms,
            version,
        };
        meta::judge(&msg.to_value(), &mut out);
        match msg {
            Message::Request(r) => self.request(r, judged, &mut out),
            Message::Notification(n) => {
                if n.method == "notifications/cancelled" {
                    self.cancelled(n.params.as_ref(), session, judged, &mut out);
                }
            }
            Message::Response(r) => {
                let method = r.id.as_ref().and_then(|id| session.sent_method(id));
                if let (Some(method), Ok(result)) = (method, &r.outcome) {
                    match judged {
                        Role::Server => self.server_result(r, method, result, session, &mut out),
                        _ => Self::client_result(
                            method,
                            result,
                            self.client_declared.as_ref(),
                            &mut out,
                        ),
                    }
                }
            }
        }
        list
    }

    fn request(&mut self, r: &Request, judged: Role, out: &mut Out<'_>) {
        self.peer_requests.insert(r.id.clone());
        if r.method.starts_with("notifications/") {
            out.flag(
                &ids::JSONRPC_NOTIFICATION_NO_ID,
                format!(
                    "{} carries an id ({}), which no notification has",
                    r.method, r.id
                ),
            );
        }
        if r.method == "initialize" && judged == Role::Client {
            self.client_declared = param(r, "capabilities").cloned();
            meta::extensions(param(r, "capabilities"), out);
        }
        let request_caps = param(r, "_meta").and_then(|m| m.get(CLIENT_CAPABILITIES));
        if let Some(caps) = request_caps {
            meta::extensions(Some(caps), out);
        }
        // 2026-07-28: a retry carries the client's answers to the input
        // requests this side asked for, each under its key.
        let answers = param(r, "inputResponses").and_then(Value::as_object);
        for (key, answer) in answers.into_iter().flatten() {
            if let Some(method) = self.asked.get(key) {
                Self::client_result(method, answer, request_caps, out);
            }
        }
        if let Some(token) = param(r, "_meta").and_then(|m| m.get("progressToken")) {
            if !(token.is_string() || token.is_i64() || token.is_u64()) {
                out.flag(
                    &ids::PROGRESS_TOKEN_TYPE,
                    format!(
                        "{} names progress token {token}, neither a string nor an integer",
                        r.method
                    ),
                );
            }
            let key = token.to_string();
            if let Some(active) = self.peer_tokens.get(&key) {
                out.flag(
                    &ids::PROGRESS_TOKEN_UNIQUE,
                    format!(
                        "{} (id {}) reuses progress token {key} of its request {active}, still active",
                        r.method, r.id
                    ),
                );
            } else {
                self.peer_tokens.insert(key, r.id.clone());
            }
        }
        if judged == Role::Server {
            sampling::server_request(r, self.own_declared.as_ref(), true, out);
        }
    }

    fn cancelled(
        &self,
        params: Option<&Value>,
        session: &Session,
        judged: Role,
        out: &mut Out<'_>,
    ) {
        // A 2026-07-28 server cancels nothing but its own listen streams:
        // `stateless.cancel.listen-only` judges that.
        if judged == Role::Server && session.is_stateless() {
            return;
        }
        let Some(target) = params.and_then(|p| p.get("requestId")) else {
            return;
        };
        let Some(id) = Id::from_value(target) else {
            return; // the schema judges the type
        };
        if !self.peer_requests.contains(&id) {
            out.flag(
                &ids::CANCELLATION_SAME_DIRECTION,
                format!("notifications/cancelled names request {id}, which the peer never sent (only its own requests are its to cancel)"),
            );
        }
    }

    fn server_result(
        &mut self,
        r: &Response,
        method: &str,
        result: &Value,
        session: &Session,
        out: &mut Out<'_>,
    ) {
        if let Some(caps) = session.peer_capabilities() {
            capability_used(method, result, caps, out);
        }
        // 2026-07-28: the requests the server asks the client for, judged
        // against the capabilities the asking request carried.
        let asked = result.get("inputRequests").and_then(Value::as_object);
        let declared = r.id.as_ref().and_then(|id| self.request_caps.get(id));
        for (key, item) in asked.into_iter().flatten() {
            let Some(inner) = item.get("method").and_then(Value::as_str) else {
                continue;
            };
            let embedded = Request {
                id: Id::from(key.as_str()),
                method: inner.to_owned(),
                params: item.get("params").cloned(),
            };
            sampling::server_request(&embedded, declared, false, out);
        }
        if method == "server/discover" || method == "initialize" {
            meta::extensions(result.get("capabilities"), out);
        }
        match method {
            "tools/list" => json_schema::tools(result, out),
            "resources/templates/list" => rfc6570::templates(result, out),
            _ => {}
        }
        if method.ends_with("/list") {
            self.pages(r, method, result, out);
        }
    }

    /// `caching.server.scope-consistent-pages`: the page a cursor leads to
    /// carries the scope of the page that gave the cursor.
    fn pages(&mut self, r: &Response, method: &str, result: &Value, out: &mut Out<'_>) {
        let scope = result.get("cacheScope");
        let asked = r.id.as_ref().and_then(|id| self.cursor_of.remove(id));
        if let (Some(cursor), Some(scope)) = (&asked, scope) {
            if let Some(before) = self.scope_of_cursor.get(cursor) {
                if before != scope {
                    out.flag(
                        &ids::CACHING_SERVER_SCOPE_CONSISTENT_PAGES,
                        format!("{method} page for cursor {cursor:?} has cacheScope {scope}, the page before {before}"),
                    );
                }
            }
        }
        if let (Some(next), Some(scope)) = (result.get("nextCursor").and_then(Value::as_str), scope)
        {
            self.scope_of_cursor.insert(next.to_owned(), scope.clone());
        }
    }

    /// A client's answer to this side's `method`, judged against what it
    /// `declared` (its initialize's capabilities, or at 2026-07-28 those
    /// of the request that carried the answer).
    fn client_result(method: &str, result: &Value, declared: Option<&Value>, out: &mut Out<'_>) {
        let (capability, rule): (&str, &'static Requirement) = match method {
            "roots/list" => ("roots", &ids::ROOTS_CAPABILITY_DECLARED),
            "sampling/createMessage" => ("sampling", &ids::SAMPLING_CAPABILITY_DECLARED),
            "elicitation/create" => ("elicitation", &ids::ELICITATION_CAPABILITY_DECLARED),
            _ => return,
        };
        if let Some(declared) = declared {
            if !declares(declared, capability) {
                out.flag(
                    rule,
                    format!("the client answered {method} with a result, but declared no {capability} capability"),
                );
            }
        }
        if method == "roots/list" {
            roots_are_files(result, out);
        }
    }
}

/// The capability each server method belongs to, with its rule.
const SERVER_METHODS: &[(&str, &str, &Requirement)] = &[
    ("tools/list", "tools", &ids::TOOLS_CAPABILITY_DECLARED),
    ("tools/call", "tools", &ids::TOOLS_CAPABILITY_DECLARED),
    (
        "resources/list",
        "resources",
        &ids::RESOURCES_CAPABILITY_DECLARED,
    ),
    (
        "resources/read",
        "resources",
        &ids::RESOURCES_CAPABILITY_DECLARED,
    ),
    (
        "resources/templates/list",
        "resources",
        &ids::RESOURCES_CAPABILITY_DECLARED,
    ),
    ("prompts/list", "prompts", &ids::PROMPTS_CAPABILITY_DECLARED),
    ("prompts/get", "prompts", &ids::PROMPTS_CAPABILITY_DECLARED),
    (
        "completion/complete",
        "completions",
        &ids::COMPLETION_CAPABILITY_DECLARED,
    ),
];

/// A server that serves a method of a capability offers it, and must have
/// declared it. An empty list offers nothing, so it is let pass.
fn capability_used(method: &str, result: &Value, caps: &Value, out: &mut Out<'_>) {
    let Some((_, capability, rule)) = SERVER_METHODS.iter().find(|(m, ..)| *m == method) else {
        return;
    };
    let empty_list = result
        .as_object()
        .is_some_and(|o| o.values().any(|v| v.as_array().is_some_and(Vec::is_empty)))
        && method.ends_with("/list");
    if !empty_list && !declares(caps, capability) {
        out.flag(
            rule,
            format!("the server answered {method} with a result, but declared no {capability} capability"),
        );
    }
}

/// Whether `caps` declares `name` (present and not `null` or `false`).
fn declares(caps: &Value, name: &str) -> bool {
    caps.get(name)
        .is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)))
}

/// `roots.uri.file`: every root's uri is a `file://` URI.
fn roots_are_files(result: &Value, out: &mut Out<'_>) {
    let roots = result.get("roots").and_then(Value::as_array);
    for (i, root) in roots.into_iter().flatten().enumerate() {
        if let Some(uri) = root.get("uri").and_then(Value::as_str) {
            if !uri.starts_with("file://") {
                out.flag(
                    &ids::ROOTS_URI_FILE,
                    format!("root {i} has uri {uri:?}, not a file:// URI"),
                );
            }
        }
    }
}

/// A request's parameter `name`.
fn param<'a>(r: &'a Request, name: &str) -> Option<&'a Value> {
    r.params.as_ref()?.get(name)
}

#[cfg(test)]
mod tests;
