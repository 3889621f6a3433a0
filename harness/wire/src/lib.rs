//! # mcpspec-wire — bytes ⇄ frames ⇄ JSON-RPC messages
//!
//! The lowest layer of mcpspec. It knows nothing about MCP methods, sessions or
//! time, and it performs no I/O: callers push bytes in and pull frames and
//! messages out.
//!
//! ```text
//!   bytes ──► framing::NdjsonDecoder ──► Frame (raw line, kept verbatim)
//!                                          │
//!                                          ▼
//!                            jsonrpc::classify(&frame.bytes)
//!                                          │
//!                     Ok(Inbound::Single(Message) | Inbound::Batch(..))
//!                     Err(Invalid { kind, id })   ← says *why*, precisely
//! ```
//!
//! [`event`] holds what a transport observes (frames per stream, HTTP
//! exchange records, SSE events, exits) as plain data, for the oracle.
//!
//! Design rules (see STYLE.md §3): wire types are classified by hand, never with
//! `#[serde(untagged)]`, so that "id is null" and "method is not a string" are
//! distinct, reportable errors; every frame keeps its raw bytes so transcripts
//! and findings show exactly what crossed the wire.

pub mod event;
pub mod framing;
pub mod fuzzing;
pub mod jsonrpc;
pub mod sse;

pub use framing::{
    encode_line, Frame, FrameError, FrameErrorKind, NdjsonDecoder, DEFAULT_MAX_LINE,
};
pub use jsonrpc::{
    classify, classify_value, ErrorObject, Id, Inbound, Invalid, InvalidKind, JsonType, Message,
    Notification, Request, Response,
};
pub use sse::{SseDecoder, SseError, SseErrorKind, SseEvent, DEFAULT_MAX_EVENT};
