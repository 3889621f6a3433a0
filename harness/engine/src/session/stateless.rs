//! The session's rules for the stateless protocol (2026-07-28).
//!
//! There is no handshake: each request names its version and the client's
//! capabilities in `params._meta`, results carry `resultType`, and several
//! methods of the handshake versions are gone. What each role is judged on
//! (the peer's messages only, like everything in [`super`]):
//!
//! | peer   | message                    | rule                                         |
//! |--------|----------------------------|----------------------------------------------|
//! | server | any request                | `stateless.server.no-requests`               |
//! | server | removed notification       | `stateless.removed.not-sent`                 |
//! | server | cancel of a non-listen id  | `stateless.cancel.listen-only`               |
//! | server | log message not opted in   | `logging.meta-level.opt-in`                  |
//! | server | result without resultType  | `stateless.result.result-type`               |
//! | server | input_required result      | `stateless.input-required.*` (see [`input_required`]) |
//! | server | cacheable result without ttlMs / cacheScope | `stateless.result.caching-hints` |
//! | server | -32022 / -32021 data       | `stateless.error.*-data`                     |
//! | server | undefined reserved code    | `stateless.error.reserved-range`, `…retired-codes` |
//! | client | request without its _meta  | `stateless.meta.required-keys`               |
//! | client | removed method             | `stateless.removed.not-sent`                 |
//! | client | initialize after a modern answer | `stateless.client.era-cached`          |
//! | client | version it was told is unsupported | `stateless.client.retry-supported`, `…version-from-supported` |
//!
//! A result is held to `resultType` only when its request named a stateless
//! version in `_meta`: a dual-era server may answer a request without it by
//! an older version's rules. Error codes are judged for requests that carry
//! a `_meta` version (and for errors with a null id).
//!
//! A dual-era peer may fall back to `initialize` (a client probing with
//! `server/discover`, answered by anything but a modern error). That is not
//! a violation until this side has answered as a modern server; once the
//! `initialize` succeeds with a handshake version the session takes that
//! version and the handshake rules apply from `Initialized` on.

use std::collections::HashSet;

use mcpspec_wire::{ErrorObject, Id, Notification, Request, Response};
use serde_json::Value;

use super::{Phase, Session};
use crate::catalogue::ids;
use crate::level::Role;
use crate::requirement::Requirement;
use crate::version::{Lifecycle, Version};

/// `_meta` key: the request's protocol version.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for the request.
pub(super) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the lowest log level the client wants for the request.
pub(super) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// Client requests of 2025-11-25 that 2026-07-28 no longer has
/// (`initialize` has a rule of its own: a dual-era client may fall back to it).
const REMOVED_CLIENT_REQUESTS: &[&str] = &[
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
];
/// Client notifications of 2025-11-25 that 2026-07-28 no longer has
/// (its clients send only `notifications/cancelled`).
const REMOVED_CLIENT_NOTIFICATIONS: &[&str] = &[
    "notifications/initialized",
    "notifications/roots/list_changed",
    "notifications/tasks/status",
];
/// Server notifications of 2025-11-25 that 2026-07-28 no longer has.
const REMOVED_SERVER_NOTIFICATIONS: &[&str] = &[
    "notifications/tasks/status",
    "notifications/elicitation/complete",
];
/// Server requests of the handshake versions (none exists in 2026-07-28).
const REMOVED_SERVER_REQUESTS: &[&str] = &[
    "ping",
    "roots/list",
    "sampling/createMessage",
    "elicitation/create",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
];
/// Log levels, least severe first.
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// What the stateless rules remember.
#[derive(Debug, Default)]
pub(super) struct State {
    /// An `initialize` (sent or received) of a fallback handshake, unanswered.
    fallback: Option<Id>,
    /// `subscriptions/listen` requests this side sent.
    listens: HashSet<Id>,
    /// Server role: this side answered as a modern server (a result, or a
    /// modern named error), so the client knows the era.
    answered_modern: bool,
    /// Server role: the versions this side told the client it supports.
    told: Option<Told>,
}

#[derive(Debug)]
struct Told {
    versions: Vec<String>,
    /// By a `server/discover` result (else by a -32022 error).
    by_discover: bool,
}

impl Session {
    /// Records a request this side sends (any era).
    pub(super) fn stateless_outbound_request(&mut self, r: &Request) {
        if !self.is_stateless() {
            return;
        }
        match r.method.as_str() {
            "initialize" => self.stateless.fallback = Some(r.id.clone()),
            "subscriptions/listen" => {
                self.stateless.listens.insert(r.id.clone());
            }
            _ => {}
        }
    }

    /// Server role: records this side's answer to the peer's request
    /// `method`, in a stateless session.
    pub(super) fn stateless_answered(&mut self, r: &Response, method: Option<&str>) {
        if !self.is_stateless() {
            return;
        }
        if r.id.is_some() && r.id == self.stateless.fallback {
            self.stateless.fallback = None;
            if let Ok(result) = &r.outcome {
                self.fall_back(result);
            }
            return;
        }
        match &r.outcome {
            Ok(result) => {
                if method.is_some_and(|m| m != "initialize") {
                    self.stateless.answered_modern = true;
                }
                if method == Some("server/discover") {
                    if let Some(versions) = strings(result.get("supportedVersions")) {
                        self.stateless.told = Some(Told {
                            versions,
                            by_discover: true,
                        });
                    }
                }
            }
            Err(e) => {
                if matches!(e.code, -32022..=-32020) {
                    self.stateless.answered_modern = true;
                }
                let supported = e.data.as_ref().and_then(|d| strings(d.get("supported")));
                if let (-32022, Some(versions)) = (e.code, supported) {
                    self.stateless.told = Some(Told {
                        versions,
                        by_discover: false,
                    });
                }
            }
        }
    }

    /// A successful fallback `initialize`: a handshake version takes the
    /// session to that version's lifecycle, from `Initialized` on.
    fn fall_back(&mut self, result: &Value) {
        let named = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<Version>().ok());
        if let Some(v) = named.filter(|v| v.lifecycle() == Lifecycle::Handshake) {
            self.version = Some(v);
            self.phase = Phase::Initialized;
        }
        if self.own == Role::Client {
            self.negotiated_capabilities = result.get("capabilities").cloned();
        }
    }

    /// Judges a request the peer sent, in a stateless session.
    pub(super) fn stateless_inbound_request(
        &mut self,
        r: &Request,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) {
        let method = r.method.as_str();
        if self.own == Role::Client {
            let removed = if REMOVED_SERVER_REQUESTS.contains(&method) {
                ", a method 2026-07-28 removed"
            } else {
                ""
            };
            flag(
                &ids::STATELESS_SERVER_NO_REQUESTS,
                format!("server sent request {method} (id {}){removed}; in 2026-07-28 a server asks for input inside an input_required result", r.id),
            );
            return;
        }
        if method == "initialize" {
            if self.stateless.answered_modern {
                flag(
                    &ids::STATELESS_CLIENT_ERA_CACHED,
                    "client fell back to initialize after this server had already answered it as a 2026-07-28 server".to_owned(),
                );
            }
            self.stateless.fallback = Some(r.id.clone());
            return;
        }
        if REMOVED_CLIENT_REQUESTS.contains(&method) {
            flag(
                &ids::STATELESS_REMOVED_NOT_SENT,
                format!("client sent {method}, which 2026-07-28 removed"),
            );
            return;
        }
        let meta = r.params.as_ref().and_then(|p| p.get("_meta"));
        let Some(meta) = meta else {
            flag(
                &ids::STATELESS_META_REQUIRED_KEYS,
                format!("request {method} (id {}) has no params._meta", r.id),
            );
            return;
        };
        let version = meta.get(PROTOCOL_VERSION);
        let mut missing = Vec::new();
        if !version.is_some_and(Value::is_string) {
            missing.push(format!("{PROTOCOL_VERSION} (a string)"));
        }
        if !meta.get(CLIENT_CAPABILITIES).is_some_and(Value::is_object) {
            missing.push(format!("{CLIENT_CAPABILITIES} (an object)"));
        }
        if !missing.is_empty() {
            flag(
                &ids::STATELESS_META_REQUIRED_KEYS,
                format!(
                    "request {method} (id {}) lacks {} in its _meta",
                    r.id,
                    missing.join(" and ")
                ),
            );
        }
        let (Some(version), Some(told)) = (version.and_then(Value::as_str), &self.stateless.told)
        else {
            return;
        };
        if !told.versions.iter().any(|v| v == version) {
            let (id, how) = if told.by_discover {
                (
                    &ids::STATELESS_CLIENT_VERSION_FROM_SUPPORTED,
                    "server/discover",
                )
            } else {
                (&ids::STATELESS_CLIENT_RETRY_SUPPORTED, "the -32022 error")
            };
            flag(
                id,
                format!(
                    "request {method} names version {version}, but {how} listed only {}",
                    told.versions.join(", ")
                ),
            );
        }
    }

    /// Judges a notification the peer sent, in a stateless session. True
    /// when it is judged in full (nothing else applies to a removed method).
    pub(super) fn stateless_inbound_notification(
        &mut self,
        n: &Notification,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) -> bool {
        let method = n.method.as_str();
        let removed = match self.own {
            Role::Client => REMOVED_SERVER_NOTIFICATIONS,
            Role::Server => REMOVED_CLIENT_NOTIFICATIONS,
        };
        if removed.contains(&method) {
            flag(
                &ids::STATELESS_REMOVED_NOT_SENT,
                format!(
                    "{} sent {method}, which 2026-07-28 removed",
                    self.own.peer()
                ),
            );
            return true;
        }
        if self.own == Role::Server {
            return false;
        }
        match method {
            "notifications/cancelled" => {
                let target = n.params.as_ref().and_then(|p| p.get("requestId"));
                let listen = super::request_id_param(n.params.as_ref())
                    .is_some_and(|id| self.stateless.listens.contains(&id));
                if !listen {
                    let what = target.map_or_else(|| "no request".to_owned(), ToString::to_string);
                    flag(
                        &ids::STATELESS_CANCEL_LISTEN_ONLY,
                        format!("server sent notifications/cancelled for {what}, which is not a subscriptions/listen request"),
                    );
                }
                true
            }
            "notifications/message" => {
                self.judge_log_opt_in(n.params.as_ref(), flag);
                false
            }
            _ => false,
        }
    }

    /// A log message needs a request in progress that asked for logs at its
    /// level or below.
    fn judge_log_opt_in(
        &self,
        params: Option<&Value>,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) {
        let lowest = self
            .sent_pending
            .values()
            .flat_map(|p| std::iter::successors(Some(p), |p| p.earlier.as_deref()))
            .filter_map(|p| p.log_level.as_deref())
            .filter_map(level_rank)
            .min();
        let Some(lowest) = lowest else {
            flag(
                &ids::LOGGING_META_LEVEL_OPT_IN,
                format!("notifications/message although no request in progress set {LOG_LEVEL}"),
            );
            return;
        };
        let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
        if let Some((level, rank)) = level.and_then(|l| Some((l, level_rank(l)?))) {
            if rank < lowest {
                flag(
                    &ids::LOGGING_META_LEVEL_OPT_IN,
                    format!(
                        "notifications/message at level {level}, below every level requested (the lowest is {})",
                        LOG_LEVELS[lowest]
                    ),
                );
            }
        }
    }

    /// Client role: judges a response before the session's bookkeeping (its
    /// request is still pending), in a stateless session.
    pub(super) fn stateless_inbound_response(
        &mut self,
        r: &Response,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) {
        if !self.is_stateless() {
            return;
        }
        if r.id.is_some() && r.id == self.stateless.fallback {
            self.stateless.fallback = None;
            if let Ok(result) = &r.outcome {
                self.fall_back(result);
            }
            return; // an initialize result is judged by the handshake rules
        }
        let pending = r.id.as_ref().and_then(|id| self.sent_pending.get(id));
        // Two requests outstanding with this id: the answer may be either's.
        if pending.is_some_and(|p| p.shared_id()) {
            return;
        }
        let (method, requested, capabilities) = match pending {
            Some(p) => (
                p.method.clone(),
                p.meta_version.clone(),
                p.client_capabilities.clone(),
            ),
            None if r.id.is_none() => (String::new(), None, None),
            None => return, // unmatched: the JSON-RPC rules flag it
        };
        match &r.outcome {
            Ok(result) => {
                let stateless_request = requested
                    .as_deref()
                    .and_then(|v| v.parse::<Version>().ok())
                    .is_some_and(|v| v.lifecycle() == Lifecycle::Stateless);
                if stateless_request {
                    input_required::judge(&method, capabilities.as_ref(), result, flag);
                    if let Some(missing) = caching_hints_missing(&method, result) {
                        flag(
                            &ids::STATELESS_RESULT_CACHING_HINTS,
                            format!("complete result of {method} {missing}"),
                        );
                    }
                    if method == "tools/list" {
                        for why in invalid_header_annotations(result) {
                            flag(&ids::TOOLS_X_MCP_HEADER_VALID, why);
                        }
                    }
                    match result.get("resultType") {
                        Some(Value::String(_)) => {}
                        Some(other) => flag(
                            &ids::STATELESS_RESULT_RESULT_TYPE,
                            format!("result of {method} has resultType {other}, not a string"),
                        ),
                        None => flag(
                            &ids::STATELESS_RESULT_RESULT_TYPE,
                            format!("result of {method} lacks resultType"),
                        ),
                    }
                }
                if method == "server/discover" {
                    if let Some(c) = result.get("capabilities").filter(|c| c.is_object()) {
                        self.negotiated_capabilities = Some(c.clone());
                    }
                }
            }
            Err(e) => {
                if requested.is_some() || r.id.is_none() {
                    judge_error(e, &method, requested.as_deref(), flag);
                }
            }
        }
    }
}

/// Why each listed tool's `x-mcp-header` annotations break the SEP-2243
/// rules (`crate::param_headers`), one line per invalid tool.
fn invalid_header_annotations(result: &Value) -> Vec<String> {
    let Some(Value::Array(tools)) = result.get("tools") else {
        return Vec::new();
    };
    tools
        .iter()
        .filter_map(|tool| {
            let why = crate::param_headers::annotations(tool.get("inputSchema")?).err()?;
            let name = tool
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("(unnamed)");
            Some(format!("tools/list lists tool {name:?} whose {why}"))
        })
        .collect()
}

/// Methods whose complete results carry caching hints
/// (`server/utilities/caching#cacheable-results`).
const CACHEABLE: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// What a complete result of a cacheable `method` lacks of its caching
/// hints (`ttlMs` an integer >= 0, `cacheScope` public or private), if
/// anything. An `input_required` result is not cacheable; a result with
/// another or no `resultType` is the result-type rule's business.
fn caching_hints_missing(method: &str, result: &Value) -> Option<String> {
    if !CACHEABLE.contains(&method) || result.get("resultType") != Some(&Value::from("complete")) {
        return None;
    }
    let ttl = match result.get("ttlMs") {
        None => Some("has no ttlMs".to_owned()),
        Some(v) if v.as_u64().is_some() => None,
        Some(v) => Some(format!("has ttlMs {v}, not an integer >= 0")),
    };
    let scope = match result.get("cacheScope") {
        None => Some("has no cacheScope".to_owned()),
        Some(Value::String(s)) if s == "public" || s == "private" => None,
        Some(v) => Some(format!("has cacheScope {v}, not public or private")),
    };
    match (ttl, scope) {
        (None, None) => None,
        (Some(a), Some(b)) => Some(format!("{a} and {b}")),
        (Some(a), None) | (None, Some(a)) => Some(a),
    }
}

/// The error-code rules of 2026-07-28 for an error answering `method`,
/// whose request named `requested` in its `_meta`.
fn judge_error(
    e: &ErrorObject,
    method: &str,
    requested: Option<&str>,
    flag: &mut impl FnMut(&'static Requirement, String),
) {
    let what = if method.is_empty() {
        format!("error {}", e.code)
    } else {
        format!("error {} answering {method}", e.code)
    };
    let data = e.data.as_ref();
    match e.code {
        -32022 => {
            let mut wrong = Vec::new();
            let named = data.and_then(|d| d.get("requested"));
            match named.map(|n| (n, n.as_str())) {
                None => wrong.push("has no data.requested".to_owned()),
                Some((n, None)) => wrong.push(format!("has data.requested {n}, not a string")),
                Some((_, Some(n))) => {
                    if requested.is_some_and(|r| r != n) {
                        wrong.push(format!(
                            "names {n} as requested, but the request named {}",
                            requested.unwrap_or_default()
                        ));
                    }
                }
            }
            match strings(data.and_then(|d| d.get("supported"))) {
                None => wrong.push("has no data.supported array of strings".to_owned()),
                Some(list) => {
                    if let Some(r) = requested.filter(|r| list.iter().any(|v| v == r)) {
                        wrong.push(format!("lists the rejected version {r} as supported"));
                    }
                }
            }
            if !wrong.is_empty() {
                flag(
                    &ids::STATELESS_ERROR_UNSUPPORTED_VERSION_DATA,
                    format!("{what} {}", wrong.join(" and ")),
                );
            }
        }
        -32021 => {
            let caps = data.and_then(|d| d.get("requiredCapabilities"));
            if !caps.is_some_and(Value::is_object) {
                flag(
                    &ids::STATELESS_ERROR_MISSING_CAPABILITY_DATA,
                    format!("{what} has no data.requiredCapabilities object"),
                );
            }
        }
        -32020 => {}
        -32002 | -32042 => flag(
            &ids::STATELESS_ERROR_RETIRED_CODES,
            format!("{what}: a code of earlier versions that 2026-07-28 implementations no longer emit"),
        ),
        -32099..=-32023 => flag(
            &ids::STATELESS_ERROR_RESERVED_RANGE,
            format!("{what}: the code lies in the range the specification reserves for itself, and 2026-07-28 does not define it"),
        ),
        _ => {}
    }
}

/// An array of strings, or `None` when `v` is anything else.
fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

fn level_rank(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|l| *l == level)
}

mod input_required;

#[cfg(test)]
mod tests;
