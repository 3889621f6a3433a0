//! # mcpspec-runner — plays scenarios against a target
//!
//! ```text
//!  scenarios ──plan──► cases ──run──► (probe versions) ──► case tasks (≤ jobs)
//!                                                            │
//!                 reporters ◄── Event stream ◄───────────────┘
//! ```
//!
//! - [`plan`]: scenarios × versions → cases, filtered by id prefix or glob.
//! - [`run`]: the version probe and the parallel scheduler; emits [`Event`]s.
//! - [`case`] / [`steps`]: one case — fresh target process, handshake, steps.
//! - [`conn`]: transport + oracle + inbox + transcript for one case.
//! - [`outcome`]: outcomes, findings, summary and exit codes.
//!
//! The runner never formats output: reporters (crate `mcpspec-report`)
//! consume [`Event`]s.

pub mod case;
pub mod client;
pub mod conn;
pub mod event;
pub mod http;
pub mod outcome;
pub mod plan;
pub mod run;
pub mod stateless;
pub mod steps;
pub mod target;

pub use case::CaseConfig;
pub use event::{Event, Reporter};
pub use outcome::{Blame, CaseResult, Finding, FindingSource, Outcome, Summary, TranscriptLine};
pub use plan::{plan, Case, Selection};
pub use run::{run, RunConfig};
pub use target::{transport_kind, Target};
