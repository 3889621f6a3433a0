//! # mcpspec-model — what a run comes to, as reporters read it
//!
//! ```text
//!  runner (scenarios, tokio) ──► Event stream ──► reporters (crate mcpspec-report)
//!                                  │                 human, JSON, JUnit, Markdown, HTML
//!                                  └─ CaseResult: Outcome, Findings, TranscriptLines
//! ```
//!
//! The vocabulary shared by the side that produces results (the runner) and
//! the side that presents them (the reporters, `mcpspec diff`, `review`,
//! `report merge`): plain data and the rules that follow from it alone, no
//! I/O. It depends on the engine only for [`Level`](mcpspec_engine::Level)
//! and [`Version`](mcpspec_engine::Version), so a reporter builds without
//! tokio, hyper or reqwest.
//!
//! - [`outcome`]: a case's [`Outcome`], the [`Finding`]s behind it, its
//!   [`TranscriptLine`]s, and the run's [`Summary`] with the exit code it
//!   comes to.
//! - [`event`]: the [`Event`] stream and the [`Reporter`] trait.
//! - [`exit`]: the binary's exit codes, [`Exit`], and their documentation.

pub mod event;
pub mod exit;
pub mod outcome;

pub use event::{Event, Reporter};
pub use exit::Exit;
pub use outcome::{
    outcome_of, Blame, CaseResult, Finding, FindingSource, Outcome, Summary, TranscriptLine,
};
