//! OAuth primitives for the authorization rules of HTTP transports
//! (`basic/authorization` from 2025-03-26): pure functions over strings and
//! JSON, no I/O, no clocks. The pieces that judge a peer's authorization
//! (oracle checks, scenarios), the reference server's OAuth mode and the
//! reference client's `--auth` flow all build on these, so each rule lives in
//! one place.
//!
//! - [`challenge`]: `WWW-Authenticate` challenges (RFC 7235 / RFC 6750 §3,
//!   `resource_metadata` of RFC 9728 §5.1): parse and format.
//! - [`pkce`]: PKCE (RFC 7636) — the S256 challenge of a verifier, its
//!   verification, and the verifier's length and charset rules.
//! - [`resource`]: the canonical resource URI of an MCP server URL (RFC 8707 §2
//!   and the spec's "Canonical Server URI"), and whether a `resource` value
//!   names a server.
//! - [`discovery`]: the well-known URLs, in the version's order, where a
//!   client looks for Protected Resource Metadata (RFC 9728) and authorization
//!   server metadata (RFC 8414, OpenID Connect Discovery); the 2025-03-26
//!   authorization base URL and its default endpoints.
//! - [`metadata`]: checks of a Protected Resource Metadata document and of an
//!   authorization server metadata document, each defect naming the
//!   requirement it breaks.
//! - [`flow`]: the client-side decisions the spec prescribes — scope selection
//!   and step-up (2025-11-25 on), `iss` validation of an authorization
//!   response (RFC 9207, 2026-07-28).

pub mod challenge;
pub mod discovery;
pub mod flow;
pub mod metadata;
pub mod pkce;
pub mod resource;

pub use challenge::{BearerChallenge, Challenge, ChallengeError};
pub use discovery::{MetadataKind, MetadataUrl};
pub use metadata::Defect;
pub use resource::ResourceError;
