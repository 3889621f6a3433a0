//! The run's target is the transport crate's [`Target`]; what the runner
//! adds is which scenarios apply to it: those of its transport.

use mcpspec_scenario::TransportKind;
pub use mcpspec_transport::Target;
use mcpspec_transport::Transport;

/// The transport a target speaks: the scenarios whose `transports` list it
/// apply.
pub fn transport_kind(target: &Target) -> TransportKind {
    match target {
        Target::Stdio(_) => TransportKind::Stdio,
        Target::Http { .. } => TransportKind::Http,
        Target::Sse { .. } => TransportKind::Sse,
        Target::Client(c) => match c.kind() {
            Transport::Http => TransportKind::Http,
            Transport::Sse => TransportKind::Sse,
            Transport::Stdio => TransportKind::Stdio,
        },
    }
}
