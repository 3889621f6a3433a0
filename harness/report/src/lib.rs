//! # mcpspec-report — reporters over the runner's event stream
//!
//! ```text
//!  runner ──► mcpspec_model::Event ──► reporters (this crate) ──► terminal, files
//!             (crate mcpspec-model)
//! ```
//!
//! Reporters see nothing but [`mcpspec_model::Event`]s: they never reach
//! into the runner, the engine or the target. This crate depends on the
//! model crate, not on the runner, so it (and `mcpspec diff`, `review`,
//! `report merge`) builds without tokio, hyper or reqwest
//! (`tests/no_async_stack.rs` keeps it so).
//!
//! - [`human`]: a line per problem case as it finishes (`--status-level`),
//!   then the problems in detail, at most a few per broken requirement
//!   (requirement, level, spec link, Expected / Actual, transcript excerpt),
//!   the rollup of broken requirements, and the closing
//!   `N passed, N failed, …` line with the wall time.
//! - [`rollup`]: root causes: each broken requirement once across the
//!   run, with its failed, warned and blocked cases; every report uses it.
//! - [`json`]: `--json FILE`, the report document, written once the run finishes.
//! - [`sarif`]: `--sarif FILE`, SARIF 2.1.0 for code-scanning services.
//! - [`dir`]: `--report-dir DIR`: [`model`] (report.json and its schema),
//!   [`junit`], [`markdown`] (summary.md), [`html`] (index.html), [`sarif`]
//!   (sarif.json), [`badge`] (badge.json, a shields.io endpoint) and
//!   [`transcript`] files.
//! - [`baseline`]: `--expected-failures`: expected failures and stale
//!   expectations, and the exit code they come to; [`log`] applies it as
//!   events arrive, so that every reporter judges a case alike.
//!
//! Transcripts compared (not reporters: they read files or a case's lines):
//!
//! - [`redact`] and [`normalize`]: the normalised form of a transcript,
//!   volatile values replaced by named placeholders.
//! - [`snapshot`]: `--snapshots DIR` files in insta's format, pending
//!   `.snap.new` files, accept and reject.
//! - [`textdiff`]: unified diffs (`similar`), coloured or not.
//! - [`compare`]: `mcpspec diff` of two transcripts or report directories.
//! - [`matrix`]: `mcpspec report merge`, the compatibility matrix.
//! - [`combine`]: `mcpspec report combine`, the shards of one run
//!   (`--partition`) joined into its report directory.

pub mod badge;
pub mod baseline;
pub mod combine;
pub mod compare;
pub mod dir;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod log;
pub mod markdown;
pub mod matrix;
pub mod model;
pub mod normalize;
pub mod redact;
pub mod rollup;
pub mod sarif;
pub mod snapshot;
pub mod textdiff;
pub mod transcript;

pub use baseline::{Baseline, Entry, Expectation, Tally, Verdict};
pub use dir::ReportDir;
pub use human::HumanReporter;
pub use json::JsonReporter;
pub use model::{report_schema, report_schema_text, Report, SCHEMA_PATH};
pub use redact::Redactions;
pub use sarif::SarifReporter;
