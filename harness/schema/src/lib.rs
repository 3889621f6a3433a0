//! MCP message schemas, written by mcpspec from the specification.
//!
//! - [`model`]: MCP's message types across all five versions, described once in a small
//!   Rust DSL, one file per area.
//! - [`document`]: the JSON Schema 2020-12 document of a version, generated from the
//!   model. Its `$defs` have exactly the definition names of that version's official
//!   schema, and validate the same messages (the differential test in
//!   `tests/differential.rs` checks that).
//! - [`schemas`]: the documents compiled once per version, with the method table, for
//!   checking each message the runner receives ([`VersionSchemas::check_request`] and
//!   friends, returning [`Violation`]s).
//!
//! # The committed documents
//!
//! `schema/mcp/<version>.schema.json` at the repository root are `document(version)`,
//! pretty-printed. `tests/committed.rs` fails when they are stale; regenerate them with
//!
//! ```sh
//! MCPSPEC_BLESS=1 cargo test -p mcpspec-schema --test committed
//! ```
//!
//! # Coverage
//!
//! Every definition of every official schema is modelled: requests, notifications,
//! results, their params, capabilities, content, the JSON-RPC envelopes, and also the
//! role unions (`ClientRequest`, …), bases (`Request`, `Result`, `PaginatedResult`, …)
//! and 2026-07-28's named errors and response wrappers. None is left out.

pub mod methods;
pub mod model;

mod generate;
mod validate;

pub use generate::{document, document_text, DIALECT};
pub use methods::{Alternative, Kind, Method, Senders};
pub use validate::{schemas, VersionSchemas, Violation};
