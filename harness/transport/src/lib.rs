//! # mcpspec-transport — moving bytes to and from a target (tokio)
//!
//! The only layer below the runner that does I/O. Each transport yields the
//! wire layer's frames with timestamps and provenance, and never judges
//! messages (it only peeks at response ids to know when a cut stream must
//! be resumed).
//!
//! - [`stdio`]: a child process over stdin/stdout, in its own process group,
//!   stderr captured, killed (group-wide) when dropped — and, on Linux, by
//!   a watchdog process when mcpspec itself is killed (`watchdog`).
//! - [`streamable`]: Streamable HTTP client (2025-03-26 onward), JSON and
//!   SSE responses, session ids, the protocol-version header, the GET
//!   stream, resumption with `Last-Event-ID`, DELETE.
//! - [`legacy`]: the 2024-11-05 HTTP+SSE client (`endpoint` event, POSTs,
//!   answers on the stream).
//! - [`limit`]: [`limit::ConnLimit`], the per-target connection limit
//!   that backs off when the target refuses (`--max-connections`).
//! - [`raw`]: exact HTTP exchanges for transport-specific scenario steps.
//! - [`connection`]: [`Connection`], the three behind one interface.
//! - [`target`]: [`Target`], what a run tests and how to connect to it.
//! - `inflight`: what readers have taken off the wire but not yet
//!   handed on, which the runner lets them deliver before a case ends.
//! - [`event`]: what they all report — [`Stamped`] [`Event`]s with [`Via`],
//!   and [`HttpRecord`]s with credentials redacted.
//!
//! SSE bodies are decoded by `mcpspec_wire::sse` (not a third-party SSE
//! crate): the decoder is fuzzed for chunking invariance and keeps each
//! event's raw bytes for transcripts. reqwest is built without any TLS
//! stack: targets are `http://` (loopback by default).

mod client;
pub mod connection;
pub mod event;
mod inflight;
pub mod legacy;
pub mod limit;
mod order;
pub mod peer;
pub mod proxy;
pub mod raw;
pub mod serve;
pub mod stdio;
pub mod streamable;
pub mod target;
mod watchdog;

pub use client::{HttpOptions, SharedClient, TransportError};
pub use connection::Connection;
pub use event::{Event, HttpRecord, Stamped, Transport, Via, REDACTED};
pub use legacy::LegacySseSession;
pub use peer::ClientPeer;
pub use raw::{HeaderMode, RawRequest, RawResponse, ReadUntil, RAW_BODY_MAX};
pub use serve::{Gate, GateReply, GateRequest, HttpPeer, ServeKind};
pub use stdio::{CommandSpec, SpawnError, StdioProcess};
pub use streamable::{HttpMisbehaviour, HttpSession, ParamTools};
pub use target::{ClientCommand, Target};
