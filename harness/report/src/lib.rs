//! # mcpspec-report — reporters over the runner's event stream
//!
//! Reporters see nothing but [`mcpspec_runner::Event`]s: they never reach
//! into the runner, the engine or the target.
//!
//! - [`human`]: a line per case as it finishes, then the failures in detail
//!   (requirement, level, spec link, Expected / Actual, transcript excerpt),
//!   then the closing `N passed, N failed, …` line with the wall time.
//! - [`json`]: `--json FILE`, written once the run finishes.

pub mod human;
pub mod json;

pub use human::HumanReporter;
pub use json::JsonReporter;
