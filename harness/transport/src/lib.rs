//! # mcpspec-transport — moving bytes to and from a target (tokio)
//!
//! The only layer below the runner that does I/O. Each transport yields the
//! wire layer's frames with timestamps, and never interprets messages.
//!
//! - [`stdio`]: a child process over stdin/stdout, in its own process group,
//!   stderr captured, killed (group-wide) when dropped.
//!
//! Streamable HTTP and legacy HTTP+SSE come next (see DESIGN.md).

pub mod stdio;

pub use stdio::{CommandSpec, Event, SpawnError, Stamped, StdioProcess};
