//! # mcpspec-reference — the built-in reference MCP server, sans-IO
//!
//! A complete, small MCP server that the harness tests against itself: run
//! clean it must pass every scenario; run with a [`Fault`] switched on it
//! breaks exactly one rule of the specification, and some scenario must
//! notice. It performs no I/O and reads no clock — a driver (the `mcpspec`
//! binary's `reference` module, over tokio and stdio) feeds it frames and the
//! time, and carries out the [`Output`]s:
//!
//! ```text
//!   stdin ─► NdjsonDecoder ─► on_frame(now, frame) ─┐
//!   timer at next_deadline() ─► on_tick(now) ───────┼─► Vec<Output>: Write(line) → stdout
//!   stdin EOF ─► on_eof(now) ───────────────────────┘          Stderr(text) → stderr
//!                                                              Exit(code)   → exit
//! ```
//!
//! Modules, in reading order:
//! - [`server`]: entry points, lifecycle, JSON-RPC errors, batches.
//! - `handlers`: the MCP methods (lists, tools, resources, prompts, logging, completion).
//! - `timers`: the `slow` tool's progress and completion, counter updates, cancellation.
//! - `tools`, `resources`, `prompts`: what the server offers; `content`: the
//!   non-text content blocks of the `media` prompt.
//! - `fixtures`: the official conformance fixture's names (`test_simple_text`,
//!   `test://static-text`, …), listed after the reference's own; `fixtures::asks`
//!   sends `sampling/createMessage` and `elicitation/create` mid-call.
//! - `cursor` (with `b64`): opaque, checksummed pagination cursors.
//! - `stateless`: 2026-07-28 — which requests it judges, `_meta` checks,
//!   `server/discover`, result members, the `roots` tool (-32021).
//! - `mrtr`: 2026-07-28 input-required fixtures (the official
//!   `test_input_required_result_*` tools and prompt): ask in an
//!   `input_required` result, complete on the retry, check the requestState.
//! - `listen`: 2026-07-28 `subscriptions/listen` streams over stdio
//!   (acknowledgement, tagged resource updates, cancellation).
//! - [`fault`]: the fault switches and the rule each one breaks.
//! - `outbox`: how messages become stdout lines (and where output faults apply).
//! - [`client`]: the reference MCP *client* — the counterpart, with its own
//!   fault switches ([`client::ClientFault`]), driven by `mcpspec reference
//!   client` to validate mcpspec's client scenarios.
//!
//! Versions: 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 are negotiated
//! with `initialize`; an `initialize` asking for any other version (2026-07-28
//! included, which has no handshake) is answered with 2025-11-25
//! ([`server::FALLBACK_VERSION`]). The stateless 2026-07-28 is spoken beside
//! them: a request whose `_meta` names it is served on its own, judged by its
//! own `_meta`, whether or not the connection ever initialized (`stateless`).
//! Version-dependent shapes are decided by comparing
//! [`mcpspec_engine::Version`]s, never by string.

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod b64;
pub mod client;
mod content;
mod cursor;
mod error;
pub mod fault;
mod fixtures;
mod handlers;
mod listen;
mod log_level;
mod mrtr;
mod outbox;
mod prompts;
mod resources;
pub mod server;
mod stateless;
mod tasks;
mod timers;
mod tools;

pub use error::{
    HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, NAMED_ERRORS, UNSUPPORTED_PROTOCOL_VERSION,
};
pub use fault::{Fault, Transport};
pub use log_level::LogLevel;
pub use server::{ReferenceServer, FALLBACK_VERSION, HANDSHAKE_VERSIONS, SUPPORTED_VERSIONS};

/// How to run the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Items per page of every paginated list (0 is treated as 1).
    pub page_size: usize,
    /// Deliberate spec violations to commit.
    pub faults: Vec<Fault>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            page_size: 2,
            faults: Vec::new(),
        }
    }
}

/// One thing the driver must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Exact bytes for stdout: normally one JSON line ending in `\n`.
    Write(Vec<u8>),
    /// A diagnostic line for stderr (without its newline).
    Stderr(String),
    /// Exit the process with this status; nothing more will be produced.
    Exit(i32),
}

impl Output {
    /// The lines among `outputs`, for a driver that only relays what the
    /// server writes (its diagnostics and exit are its own business).
    pub fn lines(outputs: Vec<Output>) -> Vec<Vec<u8>> {
        outputs
            .into_iter()
            .filter_map(|o| match o {
                Output::Write(bytes) => Some(bytes),
                Output::Stderr(_) | Output::Exit(_) => None,
            })
            .collect()
    }
}

/// Names of the tools, resources' URIs and prompts the server offers, for
/// drivers and tests that want to refer to them.
pub mod offer {
    /// Tool names, in list order.
    pub const TOOLS: [&str; 5] = crate::tools::NAMES;
    /// The resource whose content changes every [`COUNTER_PERIOD_MS`].
    pub const COUNTER_URI: &str = crate::resources::COUNTER_URI;
    pub const COUNTER_PERIOD_MS: u64 = crate::resources::COUNTER_PERIOD_MS;
    /// Every request method the server implements (handshake-era versions).
    pub const METHODS: [&str; 13] = crate::handlers::METHODS;
    /// Every request method it answers under 2026-07-28.
    pub const STATELESS_METHODS: [&str; 10] = crate::stateless::METHODS;
    /// The 2026-07-28-only tool with an `x-mcp-header` parameter (SEP-2243).
    pub const HEADER_PARAM_TOOL: &str = crate::tools::REGION_ECHO;
    /// A tool's `inputSchema` as listed at a version (for `Mcp-Param-*` checks).
    pub use crate::tools::input_schema;
    /// The 2026-07-28-only tool that needs the `roots` client capability.
    pub const ROOTS_TOOL: &str = crate::stateless::roots::NAME;
    /// The 2026-07-28-only input-required fixture tools (official names).
    pub const INPUT_REQUIRED_TOOLS: [&str; 8] = crate::mrtr::TOOLS;
    /// The 2026-07-28-only input-required fixture prompt.
    pub const INPUT_REQUIRED_PROMPT: &str = crate::mrtr::PROMPT;
}
