//! Authorization (from 2025-03-26): OAuth for HTTP transports, on the pages
//! `basic/authorization` (2026-07-28 splits it into an overview and the
//! sub-pages `authorization-server-discovery`, `client-registration` and
//! `security-considerations`; entries say where a rule moved with `moved`).
//!
//! Three files: this one holds the rules that bind both sides or neither in
//! particular; [`super::auth_client`] the client's, [`super::auth_server`]
//! the MCP server's and its authorization server's (an authorization server's
//! rule binds Server and says "authorization server" in its summary). Every
//! entry is [`crate::Requirement::authorization`], so coverage counts them
//! apart from the core totals. Entries are live unless no black box on the
//! wire can judge them; the exclusions say why. The pure OAuth pieces that
//! judge them (challenges, PKCE, resource URIs, discovery URLs, metadata
//! checks) are [`crate::oauth`].

use crate::level::Level::{May, Must, Should};
use crate::version::Version::*;

use super::why;

/// Why an umbrella sentence ("follow OAuth 2.1's security considerations") is not
/// an entry of its own to judge.
const UMBRELLA: &str = "an umbrella over OAuth 2.1's security considerations: the parts a black box can judge (PKCE, redirect URIs, audience, HTTPS, state) are auth.* entries of their own, the rest happens inside implementations";

entries! {
    AUTH_STDIO_ENVIRONMENT = req!("auth.stdio.environment", Should, Both, V2025_03_26, None, "basic/authorization#protocol-requirements",
        "Implementations over stdio do not follow the HTTP authorization flow; they take credentials from the environment.",
        excluded = "credentials taken from the environment never cross the wire, and over stdio there is no HTTP exchange in which an OAuth flow could show"),
    AUTH_HTTP_CONFORM = req!("auth.http.conform", Should, Both, V2025_03_26, None, "basic/authorization#protocol-requirements",
        "HTTP implementations that support authorization follow the MCP authorization specification.",
        excluded = "an umbrella over the whole page: conformance is judged rule by rule by the other auth.* entries"),
    AUTH_ALTERNATIVE_TRANSPORTS = req!("auth.alternative-transports", Must, Both, V2025_03_26, None, "basic/authorization#protocol-requirements",
        "Implementations over transports other than HTTP and stdio follow the established security practice of their protocol.",
        excluded = why::CUSTOM_TRANSPORT),
    AUTH_SECURITY_BEST_PRACTICES = req!("auth.security.best-practices", Must, Both, V2025_03_26, None, "basic/authorization#implementation-requirements",
        "Implementations follow OAuth 2.1's security considerations (§7) and, from 2026-07-28, the page's own security considerations.",
        excluded = UMBRELLA,
        moved = &[(V2025_06_18, "basic/authorization#security-considerations"), (V2026_07_28, "basic/authorization/security-considerations")]),
    AUTH_TOKEN_STORAGE = req!("auth.token.storage", Must, Both, V2025_03_26, None, "basic/authorization#security-considerations",
        "Clients (from 2025-06-18 servers too) store tokens securely, following OAuth best practice.",
        excluded = "how a client or server stores tokens happens inside it and never shows on the wire",
        moved = &[(V2025_06_18, "basic/authorization#token-theft"), (V2026_07_28, "basic/authorization/security-considerations#token-theft")]),
    AUTH_DCR_SUPPORTED = req!("auth.dcr.supported", Should, Both, V2025_03_26, Some(V2025_06_18), "basic/authorization#dynamic-client-registration",
        "Clients and authorization servers support OAuth 2.0 Dynamic Client Registration (RFC 7591), so a client gets a client ID without user interaction."),
    AUTH_DCR_OPTIONAL = req!("auth.dcr.optional", May, Both, V2025_11_25, None, "basic/authorization#overview",
        "Clients and authorization servers may support Dynamic Client Registration (RFC 7591), kept for authorization servers without client ID metadata documents."),
    AUTH_CIMD_SUPPORTED = req!("auth.cimd.supported", Should, Both, V2025_11_25, None, "basic/authorization#client-id-metadata-documents",
        "Clients and authorization servers support OAuth Client ID Metadata Documents: an https URL as client_id, naming the client's metadata.",
        moved = &[(V2026_07_28, "basic/authorization/client-registration#client-id-metadata-documents")]),
    AUTH_LEGACY_BASE_URL = req!("auth.legacy.base-url", Must, Both, V2025_03_26, Some(V2025_03_26), "basic/authorization#authorization-base-url",
        "The authorization base URL is the MCP server URL with its path discarded; the authorization server metadata is at /.well-known/oauth-authorization-server under it."),
    AUTH_RESOURCE_NO_TRAILING_SLASH = req!("auth.resource.no-trailing-slash", Should, Both, V2025_06_18, None, "basic/authorization#canonical-server-uri",
        "Resource URIs are written without a trailing slash unless the slash is significant to the resource."),
    AUTH_RESOURCE_ACCEPT_UPPERCASE = req!("auth.resource.accept-uppercase", Should, Both, V2025_06_18, None, "basic/authorization#canonical-server-uri",
        "Implementations accept uppercase scheme and host in resource URIs, though the canonical form is lowercase."),
}
