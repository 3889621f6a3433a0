//! Fault switches of the reference client: each one makes it break exactly
//! one rule of the specification, on purpose, while everything else stays
//! correct — so that mcpspec's *client* scenarios can prove they are able to
//! fail (the clean client must pass them all, each fault must be caught).
//!
//! The faults are one table, [`TABLE`]: name (as given to `--fault`), the
//! level and catalogue id of the rule broken (`mcpspec_engine::catalogue`;
//! a unit test checks every id exists there with that level), the
//! transports over which the violation exists, and what the client does
//! wrong.
//!
//! A fault acts only where its rule does: the handshake faults in a session
//! opened with `initialize`, the 2026-07-28 ones (`missing-meta-version` …
//! `fallback-after-discover`) in a stateless session, so under
//! `--spec-version 2026-07-28`; the catalogue entry of the requirement gives
//! the versions. The `http-*` faults and `header-meta-mismatch` break header
//! rules of Streamable HTTP: the sans-IO client only reports them
//! ([`ClientFault::transports`]) and its driver switches the transport's
//! misbehaviour on once the session is open, so the opening exchange stays
//! clean and the session goes on.

use std::fmt;

use mcpspec_engine::Level;

use crate::fault::Transport;

/// One deliberate spec violation of the reference client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientFault {
    SkipInitialized,
    EarlyRequest,
    ReuseIds,
    CancelInitialize,
    BadInitialize,
    IgnorePing,
    MalformedRoots,
    RootsNotFile,
    UndeclaredSampling,
    MalformedSampling,
    ElicitationBadAction,
    UnknownRequestSuccess,
    AnswerNotifications,
    AcceptUnsupportedVersion,
    CrashOnMalformed,
    StdinNoise,
    NoBatch,
    TamperCursor,
    NoResponseToUnknown,
    UndeclaredToolUse,
    MissingMetaVersion,
    MissingClientCapabilities,
    SendsRemovedMethod,
    FallbackAfterDiscover,
    HeaderMetaMismatch,
    HttpBadAccept,
    HttpBadGetAccept,
    HttpNoSessionEcho,
    HttpNoVersionHeader,
}

/// One row of [`TABLE`].
#[derive(Debug)]
pub struct FaultEntry {
    pub fault: ClientFault,
    /// Kebab-case name, as given to `--fault`.
    pub name: &'static str,
    /// How binding the broken rule is (the catalogue's level).
    pub level: Level,
    /// Catalogue id of the rule broken.
    pub requirement: &'static str,
    /// The transports over which the violation exists (the rule's own).
    pub transports: &'static [Transport],
    /// What the faulty client does.
    pub description: &'static str,
}

impl FaultEntry {
    /// Restricts the fault to Streamable HTTP, whose header rule it breaks.
    const fn http_only(self) -> FaultEntry {
        FaultEntry {
            transports: HTTP,
            ..self
        }
    }
}

const HTTP: &[Transport] = &[Transport::StreamableHttp];

const fn row(
    fault: ClientFault,
    name: &'static str,
    level: Level,
    requirement: &'static str,
    description: &'static str,
) -> FaultEntry {
    FaultEntry {
        fault,
        name,
        level,
        requirement,
        transports: Transport::ALL,
        description,
    }
}

use ClientFault as F;
use Level::{Must, Should};

/// Every fault, in the order `--list-faults` prints them (and in the order
/// of the enum: `TABLE[f as usize].fault == f`).
pub const TABLE: [FaultEntry; 29] = [
    row(F::SkipInitialized, "skip-initialized", Must, "lifecycle.client.initialized-notification",
        "never sends notifications/initialized after the initialize result"),
    row(F::EarlyRequest, "early-request", Should, "lifecycle.client.no-requests-before-response",
        "sends tools/list right after initialize, before the initialize result arrived (and waits for both answers)"),
    row(F::ReuseIds, "reuse-ids", Must, "jsonrpc.request.id-unique",
        "sends its first ping with the id of the initialize request (1)"),
    row(F::CancelInitialize, "cancel-initialize", Must, "cancellation.initialize-not-cancelled",
        "sends notifications/cancelled for the initialize request right after sending it"),
    row(F::BadInitialize, "bad-initialize", Must, "lifecycle.initialize.request-shape",
        "sends initialize without clientInfo"),
    row(F::IgnorePing, "ignore-ping", Must, "ping.respond",
        "never answers the server's ping"),
    row(F::MalformedRoots, "malformed-roots", Must, "roots.list.result-shape",
        "answers roots/list with a root that has no uri ({roots: [{name: \"no uri\"}]})"),
    row(F::RootsNotFile, "roots-not-file", Must, "roots.uri.file",
        "answers roots/list with the root https://example.com/root, not a file:// URI"),
    row(F::UndeclaredSampling, "undeclared-sampling", Must, "sampling.capability.declared",
        "does not declare the sampling capability, yet answers sampling/createMessage with a result"),
    row(F::MalformedSampling, "malformed-sampling", Must, "sampling.result-shape",
        "answers sampling/createMessage with a result that has no model"),
    row(F::ElicitationBadAction, "elicitation-bad-action", Must, "elicitation.response.action",
        "answers elicitation/create with {action: \"maybe\"}"),
    row(F::UnknownRequestSuccess, "unknown-request-success", Should, "jsonrpc.error.method-not-found",
        "answers a request for an unknown method with an empty result instead of -32601"),
    row(F::AnswerNotifications, "answer-notifications", Must, "jsonrpc.notification.no-response",
        "answers every notification from the server with the response {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}"),
    row(F::AcceptUnsupportedVersion, "accept-unsupported-version", Should, "lifecycle.version.client-disconnect",
        "goes on with a session whose initialize result names a protocol version it does not support"),
    row(F::CrashOnMalformed, "crash-on-malformed", Must, "jsonrpc.message.valid",
        "exits with status 1 on a line from the server that is not valid JSON-RPC instead of ignoring it"),
    row(F::StdinNoise, "stdin-noise", Must, "stdio.client.stdin-only-mcp",
        "writes a non-JSON line to the server right after notifications/initialized"),
    row(F::NoBatch, "no-batch", Must, "jsonrpc.batch.receive",
        "under 2025-03-26, ignores every JSON-RPC batch from the server (answers none of its requests)"),
    row(F::TamperCursor, "tamper-cursor", Must, "pagination.client.opaque-cursor",
        "passes each nextCursor back with \"x\" appended instead of verbatim"),
    row(F::NoResponseToUnknown, "no-response-to-unknown", Must, "jsonrpc.request.answered",
        "never answers a request for an unknown method (instead of -32601)"),
    row(F::UndeclaredToolUse, "undeclared-tool-use", Must, "sampling.tools.capability",
        "under 2025-11-25, answers a sampling/createMessage that offers tools with a tool_use, although it did not declare sampling.tools"),
    // ── 2026-07-28, the stateless protocol ──────────────────────────────
    row(F::MissingMetaVersion, "missing-meta-version", Must, "stateless.meta.required-keys",
        "under 2026-07-28, leaves io.modelcontextprotocol/protocolVersion out of the _meta of every request after server/discover"),
    row(F::MissingClientCapabilities, "missing-client-capabilities", Must, "stateless.meta.required-keys",
        "under 2026-07-28, leaves io.modelcontextprotocol/clientCapabilities out of the _meta of every request after server/discover"),
    row(F::SendsRemovedMethod, "sends-removed-method", Must, "stateless.removed.not-sent",
        "under 2026-07-28, sends ping after server/discover, and logging/setLevel when the server declares logging (methods 2026-07-28 removed)"),
    row(F::FallbackAfterDiscover, "fallback-after-discover", Should, "stateless.client.era-cached",
        "under 2026-07-28, falls back to initialize (and the handshake session) although server/discover succeeded"),
    row(F::HeaderMetaMismatch, "header-meta-mismatch", Must, "http.header.version-matches-meta",
        "under 2026-07-28, sends MCP-Protocol-Version 2025-11-25 with every request after server/discover, whose _meta names 2026-07-28").http_only(),
    // ── Streamable HTTP headers (the transport's misbehaviour) ───────────
    row(F::HttpBadAccept, "http-bad-accept", Must, "http.post.accept",
        "once the session is open, POSTs with Accept: application/json only (without text/event-stream)").http_only(),
    row(F::HttpBadGetAccept, "http-bad-get-accept", Must, "http.get.accept",
        "opens its GET stream with Accept: application/json instead of text/event-stream").http_only(),
    row(F::HttpNoSessionEcho, "http-no-session-echo", Must, "http.session.client-echo",
        "once initialized, never sends back the Mcp-Session-Id the server issued").http_only(),
    row(F::HttpNoVersionHeader, "http-no-version-header", Must, "http.header.protocol-version",
        "from 2025-06-18, sends no MCP-Protocol-Version header on the requests after initialize (2026-07-28: after server/discover)").http_only(),
];

impl ClientFault {
    /// Every fault, in table order.
    pub fn all() -> impl Iterator<Item = ClientFault> {
        TABLE.iter().map(|e| e.fault)
    }

    pub fn entry(self) -> &'static FaultEntry {
        &TABLE[self as usize]
    }

    /// Kebab-case name, as given to `--fault`.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// Catalogue id of the rule the fault breaks.
    pub fn requirement(self) -> &'static str {
        self.entry().requirement
    }

    pub fn level(self) -> Level {
        self.entry().level
    }

    pub fn description(self) -> &'static str {
        self.entry().description
    }

    /// The transports over which the fault's violation exists; a
    /// self-validation run tries the fault over these only.
    pub fn transports(self) -> &'static [Transport] {
        self.entry().transports
    }

    pub fn applies_to(self, transport: Transport) -> bool {
        self.transports().contains(&transport)
    }

    pub fn from_name(name: &str) -> Option<ClientFault> {
        TABLE.iter().find(|e| e.name == name).map(|e| e.fault)
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for ClientFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of client faults, cheap to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClientFaults(u32);

impl ClientFaults {
    pub(crate) fn new(faults: &[ClientFault]) -> Self {
        ClientFaults(faults.iter().fold(0, |acc, f| acc | f.bit()))
    }

    pub(crate) fn has(self, fault: ClientFault) -> bool {
        self.0 & fault.bit() != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn table_is_in_enum_order_with_unique_kebab_names() {
        let mut names = HashSet::new();
        for (i, e) in TABLE.iter().enumerate() {
            assert_eq!(e.fault as usize, i, "{} is out of order", e.name);
            assert!(names.insert(e.name), "duplicate name {}", e.name);
            assert!(e.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert_eq!(ClientFault::from_name(e.name), Some(e.fault));
            assert!(!e.description.is_empty());
            assert!(!e.transports.is_empty());
            // Exactly the HTTP header faults are restricted to HTTP.
            let http = e.name.starts_with("http-") || e.fault == ClientFault::HeaderMetaMismatch;
            assert_eq!(e.transports == HTTP, http, "{}", e.name);
            assert_eq!(e.fault.applies_to(Transport::Stdio), !http);
        }
        assert!(TABLE.len() <= 32, "ClientFaults is a u32 bitset");
        assert_eq!(ClientFault::from_name("nope"), None);
    }

    #[test]
    fn every_requirement_is_in_the_catalogue_at_the_stated_level() {
        for e in &TABLE {
            let req = mcpspec_engine::lookup(e.requirement)
                .unwrap_or_else(|| panic!("{}: unknown requirement {}", e.name, e.requirement));
            assert_eq!(req.level, e.level, "{}: level of {}", e.name, e.requirement);
        }
    }

    #[test]
    fn fault_set_membership() {
        let set = ClientFaults::new(&[ClientFault::NoBatch, ClientFault::NoResponseToUnknown]);
        assert!(set.has(ClientFault::NoBatch) && set.has(ClientFault::NoResponseToUnknown));
        assert!(!set.has(ClientFault::SkipInitialized));
        assert!(!ClientFaults::default().has(ClientFault::NoBatch));
    }
}
