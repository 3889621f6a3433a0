//! The entries of the authorization faults (OAuth mode of the HTTP
//! reference, `--auth`): see `table.rs` for what an entry holds.

use mcpspec_engine::{ids, Level};

use super::table::{info, Info, HTTP};
use super::Fault;

impl Fault {
    /// The entry of an authorization fault.
    pub(super) fn auth_info(self) -> Info {
        use Level::{Must, Should};
        match self {
            Fault::AuthNoChallenge => info(
                "http-auth-no-challenge", Must, &ids::AUTH_TOKEN_ERROR_RESPONSE, "basic/authorization#token-handling",
                "in OAuth mode, answers a request without a valid token with HTTP 401 but no WWW-Authenticate challenge",
            ).only(HTTP),
            Fault::AuthChallengeNoResourceMetadata => info(
                "http-auth-challenge-no-resource-metadata", Must, &ids::AUTH_WWW_AUTHENTICATE_RESOURCE_METADATA, "basic/authorization#authorization-server-location",
                "in OAuth mode, leaves resource_metadata out of the WWW-Authenticate challenge of its 401 answers (from 2025-06-18 it names the Protected Resource Metadata URL)",
            ).only(HTTP),
            Fault::AuthInvalidTokenAccepted => info(
                "http-auth-invalid-token-accepted", Must, &ids::AUTH_INVALID_TOKEN_401, "basic/authorization#token-handling",
                "in OAuth mode, serves a request whose bearer token it never issued (a missing token still earns 401)",
            ).only(HTTP),
            Fault::AuthOtherAudienceAccepted => info(
                "http-auth-other-audience-accepted", Must, &ids::AUTH_AUDIENCE, "basic/authorization#token-handling",
                "in OAuth mode, serves a request whose token its authorization server issued for another resource",
            ).only(HTTP),
            Fault::AuthPrmResourceMismatch => info(
                "http-auth-prm-resource-mismatch", Must, &ids::AUTH_PROTECTED_RESOURCE_METADATA, "basic/authorization#authorization-server-location",
                "in OAuth mode, names another resource than its MCP endpoint in the resource member of its Protected Resource Metadata",
            ).only(HTTP),
            Fault::AuthPrmNoAuthorizationServers => info(
                "http-auth-prm-no-authorization-servers", Must, &ids::AUTH_PRM_AUTHORIZATION_SERVERS, "basic/authorization#authorization-server-location",
                "in OAuth mode, leaves authorization_servers out of its Protected Resource Metadata",
            ).only(HTTP),
            Fault::AuthAsMetadataNoS256 => info(
                "http-auth-as-metadata-no-s256", Must, &ids::AUTH_OAUTH21_IMPLEMENTED, "basic/authorization#authorization-code-protection",
                "in OAuth mode, its authorization server advertises only plain in code_challenge_methods_supported (no S256)",
            ).only(HTTP),
            Fault::AuthChallengeNoScope => info(
                "http-auth-challenge-no-scope", Should, &ids::AUTH_SCOPE_CHALLENGE, "basic/authorization#protected-resource-metadata-discovery-requirements",
                "in OAuth mode, leaves the scope parameter out of the WWW-Authenticate challenge of its 401 answers",
            ).only(HTTP),
            Fault::AuthMissingTokenAccepted => info(
                "http-auth-missing-token-accepted", Must, &ids::AUTH_ERROR_STATUS, "basic/authorization#error-handling",
                "in OAuth mode, serves a request that carries no Authorization header at all (a token that is present is still checked)",
            ).only(HTTP),
            Fault::AuthPrmMissing => info(
                "http-auth-prm-missing", Must, &ids::AUTH_PRM_DISCOVERABLE, "basic/authorization#protected-resource-metadata-discovery-requirements",
                "in OAuth mode, answers 404 at every Protected Resource Metadata URL, the one its challenge names included",
            ).only(HTTP),
            Fault::AuthAsMetadataMissing => info(
                "http-auth-as-metadata-missing", Must, &ids::AUTH_AS_METADATA_PROVIDED, "basic/authorization#overview",
                "in OAuth mode, its authorization server answers 404 at its metadata URL (RFC 8414)",
            ).only(HTTP),
            Fault::AuthRedirectUriPrefixMatch => info(
                "http-auth-redirect-uri-prefix-match", Must, &ids::AUTH_REDIRECT_URI_EXACT_MATCH, "basic/authorization#open-redirection",
                "in OAuth mode, its authorize endpoint accepts any redirect_uri that starts with a registered one, and redirects there",
            ).only(HTTP),
            Fault::AuthOpenRedirect => info(
                "http-auth-open-redirect", Must, &ids::AUTH_OPEN_REDIRECT_PRECAUTIONS, "basic/authorization#open-redirection",
                "in OAuth mode, its authorize endpoint answers a request naming a redirect_uri the client never registered with a redirect there (carrying an error) instead of an error page",
            ).only(HTTP),
            Fault::AuthRefreshNotRotated => info(
                "http-auth-refresh-not-rotated", Must, &ids::AUTH_REFRESH_ROTATE, "basic/authorization#token-theft",
                "in OAuth mode, its token endpoint answers a refresh with the same refresh token, which keeps working (public clients get no rotation)",
            ).only(HTTP),
            Fault::AuthIssNotAdvertised => info(
                "http-auth-iss-not-advertised", Must, &ids::AUTH_ISSUER_ADVERTISE, "basic/authorization#authorization-response-validation",
                "in OAuth mode, its authorization responses carry iss but its metadata leaves out authorization_response_iss_parameter_supported",
            ).only(HTTP),
            Fault::AuthOidcNoPkce => info(
                "http-auth-oidc-no-pkce", Must, &ids::AUTH_PKCE_OIDC_ADVERTISE, "basic/authorization#authorization-code-protection",
                "in OAuth mode, its OpenID Connect discovery document leaves out code_challenge_methods_supported (its RFC 8414 metadata still lists S256)",
            ).only(HTTP),
            Fault::AuthPlainHttpEndpoint => info(
                "http-auth-plain-http-endpoint", Must, &ids::AUTH_HTTPS, "basic/authorization#communication-security",
                "in OAuth mode, its authorization server metadata advertises a revocation endpoint over plain http on a host that is not loopback",
            ).only(HTTP),
            f => unreachable!("{f:?} is not an authorization fault: its entry is in table.rs"),
        }
    }
}
