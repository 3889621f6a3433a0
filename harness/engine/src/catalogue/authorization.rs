//! Authorization (from 2025-03-26): OAuth for HTTP transports. mcpspec drives
//! targets over stdio, where the spec has credentials come from the
//! environment, so every entry here is excluded; they are listed so that the
//! catalogue accounts for the whole specification.

use crate::level::Level::{Must, Should};
use crate::version::Version::*;

use super::why;

entries! {
    AUTH_STDIO_ENVIRONMENT = req!("auth.stdio.environment", Should, Both, V2025_03_26, None, "basic/authorization#introduction",
        "Implementations over stdio do not follow the HTTP authorization flow; they take credentials from the environment.",
        excluded = why::AUTH),
    AUTH_HTTP_CONFORM = req!("auth.http.conform", Should, Both, V2025_03_26, None, "basic/authorization#introduction",
        "HTTP implementations that support authorization follow the MCP authorization specification.",
        excluded = why::AUTH),
    AUTH_BEARER_HEADER = req!("auth.bearer-header", Must, Client, V2025_03_26, None, "basic/authorization#access-token-usage",
        "A client sends its access token in the Authorization: Bearer header of every HTTP request.",
        excluded = why::AUTH),
    AUTH_NO_TOKEN_IN_QUERY = req!("auth.no-token-in-query", Must, Client, V2025_03_26, None, "basic/authorization#access-token-usage",
        "Access tokens never appear in the URI query string.",
        excluded = why::AUTH),
    AUTH_PKCE = req!("auth.pkce", Must, Client, V2025_03_26, None, "basic/authorization#authorization-code-protection",
        "Clients use PKCE in the authorization code flow.",
        excluded = why::AUTH),
    AUTH_INVALID_TOKEN_401 = req!("auth.invalid-token-401", Must, Server, V2025_03_26, None, "basic/authorization#error-handling",
        "An invalid or expired access token earns HTTP 401.",
        excluded = why::AUTH),
    AUTH_PROTECTED_RESOURCE_METADATA = req!("auth.protected-resource-metadata", Must, Server, V2025_06_18, None, "basic/authorization#authorization-server-discovery",
        "A server publishes OAuth 2.0 Protected Resource Metadata (RFC 9728) naming its authorization servers.",
        excluded = why::AUTH),
    AUTH_RESOURCE_INDICATORS = req!("auth.resource-indicators", Must, Client, V2025_06_18, None, "basic/authorization#resource-parameter-implementation",
        "Clients name the MCP server in the resource parameter of authorization and token requests (RFC 8707).",
        excluded = why::AUTH),
    AUTH_AUDIENCE = req!("auth.audience", Must, Server, V2025_06_18, None, "basic/authorization#token-handling",
        "A server accepts only tokens issued for itself (audience validation).",
        excluded = why::AUTH),
    AUTH_NO_PASSTHROUGH = req!("auth.no-passthrough", Must, Server, V2025_06_18, None, "basic/authorization#access-token-privilege-restriction",
        "A server never passes the client's token through to upstream services.",
        excluded = why::AUTH),
    // ── spec-keywords (#15): entries that bold keywords of the spec map to; see schema/spec-keywords ──
    AUTH_ISSUER_ISS_PARAMETER = req!("auth.issuer.iss-parameter", Should, Server, V2026_07_28, None, "changelog#minor-changes",
        "An authorization server includes the iss parameter in its authorization responses (RFC 9207).",
        excluded = why::AUTH),
    AUTH_ISSUER_VALIDATE = req!("auth.issuer.validate", Must, Client, V2026_07_28, None, "changelog#minor-changes",
        "A client checks a present iss against the recorded issuer before redeeming a code, keys stored credentials by issuer and never reuses them with another authorization server.",
        excluded = why::AUTH),
}
