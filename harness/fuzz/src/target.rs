//! The fuzzing target is the transport crate's [`Target`] (a command over
//! stdio, a Streamable HTTP endpoint or a legacy HTTP+SSE stream); what the
//! fuzzer adds is how an input's bytes reach it ([`framing`]).

use std::time::Duration;

pub use mcpspec_transport::Target;

use crate::input::Framing;

/// How long a legacy SSE connection waits for its `endpoint` event.
pub const SSE_STARTUP: Duration = Duration::from_secs(10);

/// How an input's bytes reach the target: ndjson lines over stdio, one POST
/// body each over HTTP.
pub fn framing(target: &Target) -> Framing {
    match target {
        // A client under test reaches the harness through the stdio shim.
        Target::Stdio(_) | Target::Client(_) => Framing::Ndjson,
        Target::Http { .. } => Framing::HttpBody { streamable: true },
        Target::Sse { .. } => Framing::HttpBody { streamable: false },
    }
}
