//! # mcpspec-runner — plays scenarios against a target
//!
//! ```text
//!  scenarios ──plan──► cases ──run──► (probe versions) ──► case tasks (slowest first)
//!                                                            │
//!                 reporters ◄── Event stream ◄───────────────┘
//! ```
//!
//! - [`plan`]: scenarios × versions → cases, filtered by id prefix or glob.
//! - [`run`]: the version probe and the parallel run; emits [`Event`]s.
//! - [`schedule`]: what a case holds while it runs (a start slot only while
//!   its target starts, a live slot), and which case starts next.
//! - [`case`] / [`steps`]: one case — fresh target process, handshake, steps.
//! - [`shared`]: cases that may share a stdio target, played one after
//!   another on one process and session (a failure re-run alone).
//! - [`conn`]: transport + oracle + inbox + transcript for one case.
//! - [`judged`]: traffic judged outside a scenario (`mcpspec judge`, the
//!   proxy) as the same run events, a case per connection and side.
//! - [`auth`]: a client case's protected mode (the scripted authorization
//!   server); [`server_auth`]: a server case's authorization gate,
//!   discovery and metadata checks.
//!
//! The runner judges nothing itself. Every frame, HTTP exchange, SSE event
//! and exit of the peer — and everything the harness sends — is put to the
//! one judge (`mcpspec_oracle::Oracle`, fed by [`conn`]); its violations
//! become the case's oracle findings. What the runner adds are the
//! scenario's own expectations: the answer or request a step waits for, its
//! matchers and timeouts, and the handshake it opens a case with, each
//! failing with the requirement the scenario (or the handshake) names.
//!
//! One exception, to be moved behind the oracle: the authorization rules
//! (issue #16) are still decided here, from what the scripted authorization
//! server saw ([`auth`]'s checks, read by scenario `assert` steps) and from
//! the metadata documents a server case fetched (`server_auth::judge`),
//! on the engine's sans-IO OAuth primitives.
//!
//! What a case comes to — outcomes, findings, transcript lines, the summary
//! and its exit code — and the [`Event`] stream are crate `mcpspec-model`'s,
//! re-exported here ([`outcome`], [`event`]) so the runner's own code reads
//! them as before. The runner never formats output: reporters (crate
//! `mcpspec-report`, which depends on the model and not on the runner)
//! consume [`Event`]s.

pub mod auth;
pub mod canary;
pub mod case;
pub mod client;
pub mod conn;
pub mod http;
pub mod judged;
pub mod plan;
pub mod resume;
pub mod run;
pub mod schedule;
pub mod server_auth;
pub mod shared;
pub mod stateless;
pub mod steps;
pub mod target;

/// Outcomes, findings, transcript lines and the run's summary
/// (crate `mcpspec-model`).
pub mod outcome {
    pub use mcpspec_model::outcome::*;
}

/// The event stream reporters consume (crate `mcpspec-model`).
pub mod event {
    pub use mcpspec_model::event::*;
}

pub use case::CaseConfig;
pub use event::{Event, Reporter};
pub use outcome::{Blame, CaseResult, Finding, FindingSource, Outcome, Summary, TranscriptLine};
pub use plan::{plan, Case, Partition, Selection};
pub use run::{run, FailFast, Retries, RunConfig};
pub use server_auth::AuthTokens;
pub use target::{transport_kind, Target};
