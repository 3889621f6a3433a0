//! 2026-07-28, the stateless protocol, beside the handshake-era versions.
//!
//! There is no `initialize` in 2026-07-28: each request carries its protocol
//! version and the client's capabilities in `params._meta`, and is judged by
//! that `_meta` alone. One connection may mix eras: a request is **stateless**
//! when
//!
//! - its `_meta` names a protocol version that is not a handshake-era one
//!   (`io.modelcontextprotocol/protocolVersion`: `2026-07-28`, an unknown
//!   version, or a non-string), or has `clientCapabilities` but no version;
//! - it is `server/discover` (a 2026-07-28 method, whatever its `_meta`);
//! - the driver said so ([`crate::ReferenceServer::expect_stateless`]: the
//!   HTTP driver, for a POST whose `MCP-Protocol-Version` header is 2026-07-28).
//!
//! Everything else (no `_meta`, or `_meta` naming 2024-11-05 … 2025-11-25)
//! follows the handshake lifecycle of `server`, as before.
//!
//! A stateless request is checked in this order:
//!
//! | check                                                   | answer                                        |
//! |---------------------------------------------------------|-----------------------------------------------|
//! | params or `_meta` not an object, or `_meta` missing     | -32602                                        |
//! | protocolVersion missing or not a string                 | -32602                                        |
//! | protocolVersion not 2026-07-28 (discover: not one of the five) | -32022 `{requested, supported}`        |
//! | clientCapabilities missing or not an object             | -32602                                        |
//! | logLevel present but not a level                        | -32602                                        |
//! | method not in 2026-07-28 (initialize, ping, logging/setLevel, resources/(un)subscribe, …) | -32601 |
//! | `subscriptions/listen` when driven over HTTP (`expect_stateless`) | -32601 |
//! | `roots` tool without `roots` in this request's capabilities | -32021 `{requiredCapabilities: {roots: {}}}` |
//!
//! The schema makes `_meta`, its protocolVersion and clientCapabilities
//! required on every request (`RequestParams`, `RequestMetaObject`) and names
//! no error for their absence, so it is JSON-RPC's invalid params (-32602).
//!
//! Results get `resultType` (`"complete"` unless already `"input_required"`),
//! `_meta["io.modelcontextprotocol/serverInfo"]`, and, for the cacheable ones
//! (discover, the four lists, `resources/read`), `cacheScope: "public"` and
//! `ttlMs` (lists and discover 60 s; reads 0, as the counter changes).

use mcpspec_engine::Version;
use mcpspec_wire::Request;
use serde_json::{json, Map, Value};

use crate::error::{RpcError, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION};
use crate::fault::{Fault, FaultSet};
use crate::log_level::LogLevel;
use crate::outbox::Outbox;
use crate::server::{ReferenceServer, Reply, SERVER_NAME, SUPPORTED_VERSIONS};

pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The one stateless version.
pub(crate) const STATELESS: Version = Version::V2026_07_28;

/// Request methods of 2026-07-28 this server serves: the schema's
/// `ClientRequest` union (`subscriptions/listen` over stdio only; see `listen`).
pub(crate) const METHODS: [&str; 10] = [
    "server/discover",
    crate::listen::METHOD,
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// How long list and discover results stay fresh.
const LIST_TTL_MS: u64 = 60_000;

/// What one stateless request declared in its `_meta`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    pub log_level: Option<LogLevel>,
    pub capabilities: Map<String, Value>,
}

/// True when `req` is judged by 2026-07-28's rules (see the module docs).
pub(crate) fn is_stateless(req: &Request, expect: bool, faults: FaultSet, fresh: bool) -> bool {
    if req.method == "server/discover" {
        return true;
    }
    let meta = req
        .params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    if let Some(meta) = meta {
        match meta.get(PROTOCOL_VERSION) {
            Some(Value::String(v)) => return !is_handshake(v),
            Some(_) => return true,
            None if meta.contains_key(CLIENT_CAPABILITIES) => return true,
            None => {}
        }
    }
    expect
        || (fresh
            && faults.has(Fault::StatelessMissingMetaAccepted)
            && !matches!(req.method.as_str(), "initialize" | "ping"))
}

fn is_handshake(v: &str) -> bool {
    v.parse::<Version>()
        .is_ok_and(|v| Version::HANDSHAKE.contains(&v))
}

fn missing(what: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "a 2026-07-28 request carries params._meta with {PROTOCOL_VERSION} and \
         {CLIENT_CAPABILITIES}; {what}"
    ))
}

/// -32022 with the requested and supported versions (faults may spoil it).
fn unsupported(requested: &str, faults: FaultSet) -> RpcError {
    let supported: Vec<&str> = SUPPORTED_VERSIONS.iter().map(|v| v.as_str()).collect();
    let mut e = RpcError::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!("unsupported protocol version {requested:?}"),
    );
    if !faults.has(Fault::StatelessUnsupportedVersionNoData) {
        e = e.with_data(json!({ "requested": requested, "supported": supported }));
    }
    if faults.has(Fault::StatelessUnsupportedVersionWrongCode) {
        e.code = crate::error::INVALID_PARAMS;
    }
    e
}

/// Reads and checks the request's `_meta` (see the table in the module docs).
fn scope_of(req: &Request, faults: FaultSet) -> Result<Scope, RpcError> {
    let lenient = faults.has(Fault::StatelessMissingMetaAccepted);
    let params = crate::handlers::params_object(req.params.as_ref())?;
    let meta = match params.get("_meta") {
        Some(Value::Object(m)) => m.clone(),
        None if lenient => Map::new(),
        None => return Err(missing("this one has no _meta")),
        Some(_) => return Err(RpcError::invalid_params("params._meta must be an object")),
    };
    match meta.get(PROTOCOL_VERSION) {
        None if lenient => {}
        None => return Err(missing(&format!("this one has no {PROTOCOL_VERSION}"))),
        Some(Value::String(v)) => {
            let ok = match v.parse::<Version>() {
                Ok(STATELESS) => true,
                // discover tells any client what it may use.
                Ok(v) => req.method == "server/discover" && SUPPORTED_VERSIONS.contains(&v),
                Err(_) => false,
            };
            if !ok {
                return Err(unsupported(v, faults));
            }
        }
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "{PROTOCOL_VERSION} must be a string"
            )))
        }
    }
    let capabilities = match meta.get(CLIENT_CAPABILITIES) {
        Some(Value::Object(c)) => c.clone(),
        None if lenient => Map::new(),
        None => return Err(missing(&format!("this one has no {CLIENT_CAPABILITIES}"))),
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "{CLIENT_CAPABILITIES} must be an object"
            )))
        }
    };
    if faults.has(Fault::StatelessClientInfoRequired)
        && !meta.contains_key("io.modelcontextprotocol/clientInfo")
    {
        // The fault: an optional, self-reported field decides whether to serve.
        return Err(missing(
            "this one has no io.modelcontextprotocol/clientInfo",
        ));
    }
    let log_level = match meta.get(LOG_LEVEL) {
        None => None,
        Some(Value::String(l)) => Some(LogLevel::parse(l).ok_or_else(|| {
            RpcError::invalid_params(format!("unknown log level: {l:?}"))
                .with_data(json!({ "level": l }))
        })?),
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "{LOG_LEVEL} must be a string"
            )))
        }
    };
    Ok(Scope {
        log_level,
        capabilities,
    })
}

impl ReferenceServer {
    /// Serves one stateless request.
    pub(crate) fn on_stateless(
        &mut self,
        now_ms: u64,
        req: &Request,
        batch: Option<u64>,
        out: &mut Outbox,
    ) -> Reply {
        let mut scope = match scope_of(req, self.faults) {
            Ok(s) => s,
            Err(e) => return Reply::Now(Err(e)),
        };
        if self.faults.has(Fault::StatelessCapabilityInferred) {
            // The fault: what earlier requests declared still counts.
            for (k, v) in &scope.capabilities {
                self.remembered_capabilities.insert(k.clone(), v.clone());
            }
            scope.capabilities = self.remembered_capabilities.clone();
        }
        let method = req.method.as_str();
        let listen = method == crate::listen::METHOD;
        // Over HTTP a listen stream is an SSE response the HTTP driver does
        // not implement: it is refused there as an unknown method.
        if !METHODS.contains(&method) || (listen && self.expect_stateless) {
            if method == "ping" && self.faults.has(Fault::StatelessRemovedMethodAnswered) {
                return Reply::Now(Ok(self.stateless_result(method, json!({}))));
            }
            return Reply::Now(Err(RpcError::method_not_found(method).with_data(
                json!({ "method": method, "protocolVersion": STATELESS.as_str() }),
            )));
        }
        if method == "server/discover" {
            return Reply::Now(Ok(self.stateless_result(method, self.discover())));
        }
        if listen {
            // No response while the stream is open: see `listen`.
            return self.listen(now_ms, req, out);
        }
        if method == "prompts/list" && self.faults.has(Fault::InputRequiredOnList) {
            let asks = crate::mrtr::list_asks_for_input();
            return Reply::Now(Ok(self.stateless_result(method, asks)));
        }
        self.scope = Some(scope);
        let reply = self.dispatch(now_ms, STATELESS, req, batch, out);
        self.scope = None;
        match reply {
            Reply::Now(Ok(v)) => {
                let mut v = self.stateless_result(method, v);
                let paged = req
                    .params
                    .as_ref()
                    .is_some_and(|p| p.get("cursor").is_some());
                if paged && self.faults.has(Fault::PageScopeVaries) && v.get("cacheScope").is_some()
                {
                    v["cacheScope"] = json!("private");
                }
                Reply::Now(Ok(v))
            }
            other => other,
        }
    }

    /// The `server/discover` result, before [`Self::stateless_result`].
    fn discover(&self) -> Value {
        // Resource updates are delivered on subscriptions/listen streams,
        // which only the stdio server offers.
        let resources = if self.expect_stateless {
            json!({})
        } else {
            json!({ "subscribe": true })
        };
        let mut caps = json!({
            "tools": {},
            "resources": resources,
            "prompts": {},
            "completions": {},
        });
        if !self.faults.has(Fault::UndeclaredLogging) {
            caps["logging"] = json!({});
        }
        let mut result = json!({
            "capabilities": caps,
            "instructions": crate::server::INSTRUCTIONS,
        });
        if !self.faults.has(Fault::DiscoverMissingSupportedVersions) {
            let versions: Vec<&str> = SUPPORTED_VERSIONS.iter().map(|v| v.as_str()).collect();
            result["supportedVersions"] = json!(versions);
        }
        result
    }

    /// What every 2026-07-28 result carries, added to `result`.
    pub(crate) fn stateless_result(&self, method: &str, mut result: Value) -> Value {
        let Value::Object(obj) = &mut result else {
            return result;
        };
        // The input-required fault leaves an input_required result without
        // one (the only results carrying inputRequests or requestState).
        let asks = obj.contains_key("inputRequests") || obj.contains_key("requestState");
        let left_out = self.faults.has(Fault::StatelessResultTypeMissing)
            || (asks && self.faults.has(Fault::InputRequiredResultTypeMissing));
        if !obj.contains_key("resultType") && !left_out {
            obj.insert("resultType".into(), json!("complete"));
        }
        let ttl = match method {
            "server/discover"
            | "tools/list"
            | "resources/list"
            | "resources/templates/list"
            | "prompts/list" => Some(LIST_TTL_MS),
            "resources/read" => Some(0),
            _ => None,
        };
        let ttl = ttl.filter(|_| {
            !(self.faults.has(Fault::StatelessCacheHintsMissing)
                && matches!(method, "resources/templates/list" | "resources/read"))
        });
        if let Some(ttl) = ttl {
            obj.insert("cacheScope".into(), json!("public"));
            obj.insert("ttlMs".into(), json!(ttl));
        }
        let info = json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") });
        match obj.get_mut("_meta") {
            Some(Value::Object(meta)) => {
                meta.insert(SERVER_INFO.into(), info);
            }
            _ => {
                obj.insert("_meta".into(), json!({ SERVER_INFO: info }));
            }
        }
        result
    }

    /// The capabilities of the stateless request being served.
    pub(crate) fn request_capabilities(&self) -> Option<&Map<String, Value>> {
        self.scope.as_ref().map(|s| &s.capabilities)
    }
}

/// The 2026-07-28 `roots` tool: needs the `roots` client capability; asks
/// for the roots in an `input_required` result, and lists them once the
/// retried call carries `inputResponses.roots`.
pub(crate) mod roots {
    use super::*;

    pub(crate) const NAME: &str = "roots";

    pub(crate) fn definition() -> Value {
        json!({
            "name": NAME,
            "title": "List the client's roots",
            "description": "Asks the client for its roots (needs the roots client capability) and lists their URIs.",
            "inputSchema": { "type": "object", "properties": {} },
            "annotations": {
                "title": "List the client's roots",
                "readOnlyHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            }
        })
    }

    pub(crate) fn call(
        params: &Map<String, Value>,
        capabilities: &Map<String, Value>,
    ) -> Result<Value, RpcError> {
        if !capabilities.contains_key("roots") {
            return Err(RpcError::new(
                MISSING_CLIENT_CAPABILITY,
                "the roots tool needs the roots client capability, which this request does not declare",
            )
            .with_data(json!({ "requiredCapabilities": { "roots": {} } })));
        }
        let Some(responses) = params.get("inputResponses") else {
            return Ok(json!({
                "resultType": "input_required",
                "inputRequests": { NAME: { "method": "roots/list" } },
            }));
        };
        let uris = responses
            .get(NAME)
            .and_then(|r| r.get("roots"))
            .and_then(Value::as_array)
            .and_then(|roots| {
                roots
                    .iter()
                    .map(|r| r.get("uri").and_then(Value::as_str))
                    .collect::<Option<Vec<&str>>>()
            })
            .ok_or_else(|| {
                RpcError::invalid_params(
                    "inputResponses.roots must be a roots/list result: { roots: [{ uri }] }",
                )
            })?;
        let text = if uris.is_empty() {
            "the client has no roots".to_owned()
        } else {
            format!("roots: {}", uris.join(", "))
        };
        Ok(crate::tools::text_result(text, false))
    }
}
