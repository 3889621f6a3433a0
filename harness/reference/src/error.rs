//! JSON-RPC errors the server answers with, and the codes it uses.
//!
//! | code   | when                                                              |
//! |--------|-------------------------------------------------------------------|
//! | -32700 | unparseable JSON, invalid UTF-8, an oversize or truncated line    |
//! | -32600 | invalid JSON-RPC; a batch where batches are not allowed; a known  |
//! |        | method other than ping before `initialize`; a second `initialize`;|
//! |        | a request reusing the id of one still in flight                   |
//! | -32601 | unknown method                                                    |
//! | -32602 | invalid params: wrong types, missing members, unknown tool,       |
//! |        | prompt or completion reference, invalid cursor, unknown log level |
//! | -32002 | unknown resource URI (`resources/read`, `subscribe`, `unsubscribe`)|
//! | -32603 | internal error (never expected from the clean server)             |
//! | -32020 | (HTTP driver) 2026-07-28: MCP-Protocol-Version header ≠ `_meta`    |
//! | -32021 | 2026-07-28: the request needs a client capability its `_meta`    |
//! |        | does not declare (`data.requiredCapabilities`)                     |
//! | -32022 | 2026-07-28: `_meta` names an unsupported protocol version         |
//! |        | (`data: { requested, supported }`)                                 |
//!
//! Faults that change a code (`unknown-method-code`, `invalid-params-code`,
//! `resource-not-found-code`) are applied in one place, [`RpcError::with_faults`],
//! so handlers always state the correct code.

use mcpspec_engine::{Lifecycle, Version};
use serde_json::Value;

use crate::fault::{Fault, FaultSet};

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;
/// 2026-07-28 `HeaderMismatchError`: HTTP headers disagree with the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28 `MissingRequiredClientCapabilityError`.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// 2026-07-28 `UnsupportedProtocolVersionError`.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// The errors 2026-07-28 names, which go out over HTTP with status 400.
pub const NAMED_ERRORS: [i64; 3] = [
    HEADER_MISMATCH,
    MISSING_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
];

/// An error answer, before it is given an id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, message)
    }

    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    pub(crate) fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("method not found: {method}"))
            .with_data(serde_json::json!({ "method": method }))
    }

    pub(crate) fn resource_not_found(uri: &str) -> Self {
        Self::new(RESOURCE_NOT_FOUND, format!("resource not found: {uri}"))
            .with_data(serde_json::json!({ "uri": uri }))
    }

    /// A resource that does not exist, as `version` names it: -32002 up to
    /// 2025-11-25; from 2026-07-28 on, -32602 (Invalid Params), which that
    /// version requires (with the URI in `data`, as its example shows).
    /// The `resource-not-found-code` fault answers -32603 instead, at every
    /// version.
    pub(crate) fn resource_not_found_at(uri: &str, version: Version, faults: FaultSet) -> Self {
        if version.lifecycle() != Lifecycle::Stateless {
            return Self::resource_not_found(uri);
        }
        let code = if faults.has(Fault::ResourceNotFoundCode) {
            INTERNAL_ERROR
        } else {
            INVALID_PARAMS
        };
        Self::new(code, format!("resource not found: {uri}"))
            .with_data(serde_json::json!({ "uri": uri }))
    }

    /// The error as the faulty server would send it.
    pub(crate) fn with_faults(mut self, faults: FaultSet) -> Self {
        let wrong = match self.code {
            METHOD_NOT_FOUND if faults.has(Fault::UnknownMethodCode) => Some(INVALID_REQUEST),
            INVALID_PARAMS if faults.has(Fault::InvalidParamsCode) => Some(INTERNAL_ERROR),
            RESOURCE_NOT_FOUND if faults.has(Fault::ResourceNotFoundCode) => Some(INTERNAL_ERROR),
            _ => None,
        };
        if let Some(code) = wrong {
            self.code = code;
        }
        self
    }
}
