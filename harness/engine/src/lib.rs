//! # mcpspec-engine — the sans-IO MCP protocol engine
//!
//! The "reference MCP engine": protocol knowledge with no I/O and no clocks.
//! Time enters as an argument (milliseconds since the session started).
//!
//! - [`version`]: the five protocol versions and what each changes.
//! - [`level`]: MUST / SHOULD / MAY, and roles.
//! - [`requirement`] / [`catalogue`]: the normative statements mcpspec checks,
//!   will check, or knowingly leaves out, one file per area of the spec.
//! - [`extension`]: the opt-in extensions (tasks, skills) whose rules run
//!   only when asked for and count apart from the core totals.
//! - [`ids`]: every requirement as a named static (`ids::PING_RESPOND`), the
//!   only way code names one; [`lookup`] is for ids read from data.
//! - [`session`]: per-session state for either role — lifecycle, request-id
//!   bookkeeping per direction, progress tokens — that says whether a
//!   message is allowed here and, if not, which requirement it breaks. The
//!   one judge (`mcpspec-oracle`) feeds it every message and adds the schema
//!   and transport rules. The version decides the lifecycle: 2026-07-28 is judged by the
//!   stateless rules (`session/stateless.rs`).
//! - [`oauth`]: sans-IO OAuth primitives for the authorization rules of HTTP
//!   transports (challenges, PKCE, resource URIs, discovery URLs, metadata checks).
//! - [`param_headers`]: SEP-2243 `x-mcp-header` annotations and the
//!   `Mcp-Param-*` header values they give (validity, encoding, decoding).
//!
//! The built-in reference server (crate `mcpspec-reference`) and the oracle
//! (crate `mcpspec-oracle`) are both thin layers over this crate.

pub mod catalogue;
pub mod extension;
pub mod fuzzing;
pub mod level;
pub mod oauth;
pub mod param_headers;
pub mod requirement;
pub mod session;
pub mod version;

pub use catalogue::ids;
pub use extension::{Extension, EXTENSIONS};
pub use level::{Level, Role};
pub use requirement::{lookup, Binds, Requirement};
pub use session::{Direction, Session, Violation};
pub use version::{Lifecycle, UnknownVersion, Version};
