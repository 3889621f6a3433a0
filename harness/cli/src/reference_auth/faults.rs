//! The reference client's auth faults (`auth-*`), one rule each: which
//! parameter of the flow each one bends (see [`super`]).

use mcpspec_reference::client::ClientFault;

/// Where the authorization server is told to send the user back; never
/// listened on (the client reads the redirect itself).
const REDIRECT_URI: &str = "http://127.0.0.1:1/mcpspec-callback";

/// The auth faults the client commits, one rule each.
#[derive(Debug, Clone, Copy, Default)]
pub struct AuthFaults {
    pub no_pkce: bool,
    pub plain_pkce: bool,
    pub no_resource: bool,
    pub token_in_query: bool,
    pub ignores_iss: bool,
    pub ignores_state: bool,
    pub accepts_resource_mismatch: bool,
    pub wrong_token_auth: bool,
    pub no_scope: bool,
    pub loops_on_401: bool,
    pub openid_first: bool,
    pub prm_root_first: bool,
    pub unregistered_client_id: bool,
    pub no_application_type: bool,
    pub ignores_metadata_issuer: bool,
    pub no_openid: bool,
    pub plain_http_redirect: bool,
    pub unregistered_redirect: bool,
    pub foreign_token: bool,
    pub ignores_pkce_support: bool,
    pub refresh_token_leaked: bool,
    pub needs_refresh_token: bool,
    pub ignores_challenge_scope: bool,
    pub step_up_drops_scopes: bool,
    pub requires_iss: bool,
    pub repeats_refused_registration: bool,
    pub reuses_credentials: bool,
    pub scope_when_undefined: bool,
    pub cimd_http_url: bool,
    pub cimd_unadvertised: bool,
    pub ignores_cimd: bool,
    pub ignores_preregistration: bool,
}

/// The `auth-foreign-token` fault's token: one no authorization server of
/// the server under test issued.
pub const FOREIGN_TOKEN: &str = "a-token-issued-for-another-server";
/// The scope the `auth-scope-when-undefined` fault makes up.
const DEFAULT_SCOPE: &str = "mcp:all";
/// The `auth-plain-http-redirect` fault's redirect URI: plain http, remote.
const PLAIN_HTTP_REDIRECT_URI: &str = "http://mcpspec-client.example/callback";
/// The `auth-unregistered-redirect` fault's authorization redirect URI.
const OTHER_REDIRECT_URI: &str = "http://127.0.0.1:1/mcpspec-other-callback";

impl AuthFaults {
    /// The redirect URI the client registers.
    pub(super) fn registered_redirect_uri(&self) -> &'static str {
        if self.plain_http_redirect {
            PLAIN_HTTP_REDIRECT_URI
        } else {
            REDIRECT_URI
        }
    }

    /// The redirect URI of its authorization and token requests.
    pub(super) fn authorize_redirect_uri(&self) -> &'static str {
        if self.unregistered_redirect {
            OTHER_REDIRECT_URI
        } else {
            self.registered_redirect_uri()
        }
    }

    /// The client ID metadata document URL it names itself by: `url`, or
    /// (the `auth-cimd-http-url` fault) the same over plain http.
    pub(super) fn metadata_url(&self, url: &str) -> String {
        match url.strip_prefix("https://") {
            Some(rest) if self.cimd_http_url => format!("http://{rest}"),
            _ => url.to_owned(),
        }
    }

    /// The scope the `auth-scope-when-undefined` fault asks for when
    /// neither the challenge nor the metadata defines one.
    pub(super) fn default_scope(&self) -> Option<&'static str> {
        self.scope_when_undefined.then_some(DEFAULT_SCOPE)
    }

    pub fn of(faults: &[ClientFault]) -> AuthFaults {
        let has = |f| faults.contains(&f);
        AuthFaults {
            no_pkce: has(ClientFault::AuthNoPkce),
            plain_pkce: has(ClientFault::AuthPlainPkce),
            no_resource: has(ClientFault::AuthNoResource),
            token_in_query: has(ClientFault::AuthTokenInQuery),
            ignores_iss: has(ClientFault::AuthIgnoresIss),
            ignores_state: has(ClientFault::AuthIgnoresState),
            accepts_resource_mismatch: has(ClientFault::AuthAcceptsResourceMismatch),
            wrong_token_auth: has(ClientFault::AuthWrongTokenAuth),
            no_scope: has(ClientFault::AuthNoScope),
            loops_on_401: has(ClientFault::AuthLoopsOn401),
            openid_first: has(ClientFault::AuthOpenidFirst),
            prm_root_first: has(ClientFault::AuthPrmRootFirst),
            unregistered_client_id: has(ClientFault::AuthUnregisteredClientId),
            no_application_type: has(ClientFault::AuthNoApplicationType),
            ignores_metadata_issuer: has(ClientFault::AuthIgnoresMetadataIssuer),
            no_openid: has(ClientFault::AuthNoOpenid),
            plain_http_redirect: has(ClientFault::AuthPlainHttpRedirect),
            unregistered_redirect: has(ClientFault::AuthUnregisteredRedirect),
            foreign_token: has(ClientFault::AuthForeignToken),
            ignores_pkce_support: has(ClientFault::AuthIgnoresPkceSupport),
            refresh_token_leaked: has(ClientFault::AuthRefreshTokenLeaked),
            needs_refresh_token: has(ClientFault::AuthNeedsRefreshToken),
            ignores_challenge_scope: has(ClientFault::AuthIgnoresChallengeScope),
            step_up_drops_scopes: has(ClientFault::AuthStepUpDropsScopes),
            requires_iss: has(ClientFault::AuthRequiresIss),
            repeats_refused_registration: has(ClientFault::AuthRepeatsRefusedRegistration),
            reuses_credentials: has(ClientFault::AuthReusesCredentials),
            scope_when_undefined: has(ClientFault::AuthScopeWhenUndefined),
            cimd_http_url: has(ClientFault::AuthCimdHttpUrl),
            cimd_unadvertised: has(ClientFault::AuthCimdUnadvertised),
            ignores_cimd: has(ClientFault::AuthIgnoresCimd),
            ignores_preregistration: has(ClientFault::AuthIgnoresPreregistration),
        }
    }
}
