//! The requirements the oracle judges on *every* message, not by a scenario
//! naming them: coverage (`mcpspec coverage`, `mcpspec list
//! --requirements`) counts such a requirement as covered for a version when
//! at least one case of that version runs over a transport and in a role
//! where the check applies.
//!
//! Keep this list honest: an id belongs here only when the oracle judges it
//! on every message of every case, not when a scenario must provoke it (those
//! scenarios name the id themselves). The tests below prove each entry: for
//! every listed requirement, some traffic makes the oracle report it.

use mcpspec_engine::{ids, Requirement};

/// Who performs an every-message check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checker {
    /// The engine's session, fed every message ([`crate::frames`]).
    Session,
    /// The session's stateless rules, 2026-07-28.
    StatelessSession,
    /// The stdio rules of [`crate::frames`]: every line a stdio peer writes.
    StdioConnection,
    /// [`crate::schema`]: every message against its version's schema.
    Schema,
    /// The session judging a client: its lifecycle and cursors.
    ClientSession,
    /// The stateless rules a 2026-07-28 client is judged by.
    ClientStatelessSession,
    /// [`crate::client_http`]: every HTTP request a client under test makes.
    ClientHttp,
    /// [`crate::auth_client`]: every request of a client's authorization
    /// flow, in cases that script a protected server (`auth:`).
    ClientAuth,
    /// [`crate::server_http`] and the HTTP rules of [`crate::frames`]:
    /// every HTTP answer, body and SSE event of a server under test.
    ServerHttp,
}

impl Checker {
    /// How the check runs, for listings.
    pub fn describe(self) -> &'static str {
        match self {
            Checker::Session | Checker::StatelessSession => {
                "the oracle judges every message the target sends"
            }
            Checker::StdioConnection => "the oracle judges every line a stdio target writes",
            Checker::Schema => {
                "the oracle checks every message the target sends against the version's schema"
            }
            Checker::ClientSession | Checker::ClientStatelessSession => {
                "the oracle judges every message a client under test sends"
            }
            Checker::ClientHttp => "the oracle judges every HTTP request a client under test makes",
            Checker::ClientAuth => {
                "the oracle judges every request of a client's authorization flow against a scripted protected server"
            }
            Checker::ServerHttp => {
                "the oracle judges every HTTP answer and SSE event a server under test sends"
            }
        }
    }

    /// Whether the check runs only in client cases (the harness serving).
    pub fn client_only(self) -> bool {
        matches!(
            self,
            Checker::ClientSession
                | Checker::ClientStatelessSession
                | Checker::ClientHttp
                | Checker::ClientAuth
        )
    }

    /// Whether the check runs only in server cases (the harness the client).
    pub fn server_only(self) -> bool {
        matches!(self, Checker::ServerHttp)
    }

    /// Whether the check runs only over the HTTP transports.
    pub fn http_only(self) -> bool {
        matches!(
            self,
            Checker::ClientHttp | Checker::ClientAuth | Checker::ServerHttp
        )
    }

    /// Whether the check runs only in client cases that script a protected
    /// server (`auth:`).
    pub fn auth_only(self) -> bool {
        matches!(self, Checker::ClientAuth)
    }

    /// Whether the check runs only over stdio.
    pub fn stdio_only(self) -> bool {
        matches!(self, Checker::StdioConnection)
    }
}

/// An every-message check: the requirement and who checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OracleCheck {
    pub requirement: &'static Requirement,
    pub by: Checker,
}

impl OracleCheck {
    /// The requirement's id.
    pub fn id(&self) -> &'static str {
        self.requirement.id
    }
}

const fn session(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::Session,
    }
}

const fn stateless(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::StatelessSession,
    }
}

const fn client(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::ClientSession,
    }
}

const fn client_stateless(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::ClientStatelessSession,
    }
}

const fn client_http(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::ClientHttp,
    }
}

const fn client_auth(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::ClientAuth,
    }
}

const fn server_http(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::ServerHttp,
    }
}

const fn schema(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::Schema,
    }
}

const fn stdio(requirement: &'static Requirement) -> OracleCheck {
    OracleCheck {
        requirement,
        by: Checker::StdioConnection,
    }
}

/// Every requirement checked on every message.
pub static ORACLE: &[OracleCheck] = &[
    session(&ids::JSONRPC_MESSAGE_VALID),
    session(&ids::JSONRPC_REQUEST_ID_TYPE),
    session(&ids::JSONRPC_REQUEST_ID_UNIQUE),
    session(&ids::JSONRPC_RESPONSE_ID_MATCHES),
    session(&ids::JSONRPC_RESPONSE_ONCE),
    session(&ids::JSONRPC_BATCH_ABSENT),
    session(&ids::LIFECYCLE_SERVER_NO_REQUESTS_BEFORE_INITIALIZED),
    session(&ids::LOGGING_CAPABILITY_DECLARED),
    session(&ids::PROGRESS_TOKEN_ACTIVE),
    session(&ids::PROGRESS_INCREASING),
    // Judged when the peer is a server: rules binding servers
    // (or both sides). The client-binding ones follow, judged in client cases.
    stateless(&ids::STATELESS_SERVER_NO_REQUESTS),
    stateless(&ids::STATELESS_REMOVED_NOT_SENT),
    stateless(&ids::STATELESS_CANCEL_LISTEN_ONLY),
    stateless(&ids::STATELESS_RESULT_RESULT_TYPE),
    stateless(&ids::STATELESS_RESULT_CACHING_HINTS),
    stateless(&ids::STATELESS_ERROR_UNSUPPORTED_VERSION_DATA),
    stateless(&ids::STATELESS_ERROR_MISSING_CAPABILITY_DATA),
    stateless(&ids::STATELESS_ERROR_RESERVED_RANGE),
    stateless(&ids::STATELESS_ERROR_RETIRED_CODES),
    stateless(&ids::LOGGING_META_LEVEL_OPT_IN),
    stateless(&ids::STATELESS_INPUT_REQUIRED_SHAPE),
    stateless(&ids::STATELESS_INPUT_REQUIRED_SUPPORTED_REQUESTS),
    stateless(&ids::STATELESS_INPUT_REQUIRED_REQUEST_KINDS),
    stateless(&ids::STATELESS_INPUT_REQUIRED_DECLARED_CAPABILITIES),
    stateless(&ids::TOOLS_X_MCP_HEADER_VALID),
    client(&ids::LIFECYCLE_INITIALIZE_FIRST),
    client(&ids::LIFECYCLE_CLIENT_NO_REQUESTS_BEFORE_RESPONSE),
    client(&ids::LIFECYCLE_CLIENT_INITIALIZED_NOTIFICATION),
    client(&ids::CANCELLATION_INITIALIZE_NOT_CANCELLED),
    client(&ids::PAGINATION_CLIENT_OPAQUE_CURSOR),
    client_stateless(&ids::STATELESS_META_REQUIRED_KEYS),
    client_stateless(&ids::STATELESS_CLIENT_ERA_CACHED),
    client_stateless(&ids::STATELESS_CLIENT_RETRY_SUPPORTED),
    client_stateless(&ids::STATELESS_CLIENT_VERSION_FROM_SUPPORTED),
    client_http(&ids::HTTP_POST_ACCEPT),
    client_http(&ids::HTTP_GET_ACCEPT),
    client_http(&ids::HTTP_POST_CLIENT_POST),
    client_http(&ids::HTTP_POST_SINGLE_MESSAGE),
    client_http(&ids::HTTP_SESSION_CLIENT_ECHO),
    client_http(&ids::HTTP_HEADER_PROTOCOL_VERSION),
    client_http(&ids::HTTP_HEADER_PROTOCOL_VERSION_NEGOTIATED),
    client_http(&ids::HTTP_HEADER_VERSION_MATCHES_META),
    client_http(&ids::HTTP_HEADER_METHOD),
    client_http(&ids::HTTP_HEADER_PARAM_MIRROR),
    client_http(&ids::HTTP_HEADER_VALUE_ENCODING),
    client_http(&ids::HTTP_HEADER_CLIENT_REJECTS_INVALID_TOOLS),
    client_http(&ids::SSE_CLIENT_POST),
    client_http(&ids::AUTH_NO_TOKEN_IN_QUERY),
    // Every POST of a case carries requests or notifications (the handshake
    // has both), and every answer and SSE event is read; the rules a case
    // must provoke (a 5xx for broken input, responses on the GET stream)
    // are named by their scenarios instead.
    server_http(&ids::HTTP_POST_REQUEST_CONTENT_TYPE),
    server_http(&ids::HTTP_POST_ACCEPTED_202),
    server_http(&ids::HTTP_RESUME_EVENT_ID_UNIQUE),
    server_http(&ids::HTTP_SSE_NOTIFICATIONS_RELATED),
    server_http(&ids::SSE_MESSAGE_EVENT),
    server_http(&ids::JSONRPC_MESSAGE_UTF8),
    stdio(&ids::STDIO_STDOUT_ONLY_MCP),
    stdio(&ids::STDIO_NEWLINE_DELIMITED),
    schema(&ids::SCHEMA_MESSAGE_CONFORMS),
    // The rules that are the schema's own definition of a message: a
    // message of theirs failing the schema is reported under them
    // (`crate::schema`, its table of specific rules).
    schema(&ids::TOOLS_CALL_RESULT_SHAPE),
    schema(&ids::COMPLETION_COMPLETE_RESULT_SHAPE),
    schema(&ids::LOGGING_MESSAGE_SHAPE),
    schema(&ids::ELICITATION_REQUEST_SHAPE),
    schema(&ids::ELICITATION_SCHEMA_FLAT),
    schema(&ids::SAMPLING_MESSAGES_SHAPE),
    schema(&ids::ELICITATION_URL_REQUIRED_ERROR),
    schema(&ids::ROOTS_LIST_RESULT_SHAPE),
    schema(&ids::SAMPLING_RESULT_SHAPE),
    schema(&ids::ELICITATION_RESPONSE_ACTION),
    // What a message says beyond its schema (`crate::content`), both roles
    // or a server's; then a client's.
    session(&ids::JSONRPC_NOTIFICATION_NO_ID),
    session(&ids::PROGRESS_TOKEN_TYPE),
    session(&ids::PROGRESS_TOKEN_UNIQUE),
    session(&ids::CANCELLATION_SAME_DIRECTION),
    session(&ids::META_KEY_FORMAT),
    session(&ids::EXTENSIONS_IDENTIFIER_FORMAT),
    session(&ids::SCHEMA_JSON_SCHEMA_VALID),
    session(&ids::TOOLS_INPUT_SCHEMA_VALID),
    session(&ids::SAMPLING_TOOL_RESULT_MATCHES_USE),
    session(&ids::SAMPLING_TOOL_RESULT_ONLY_RESULTS),
    session(&ids::TOOLS_CAPABILITY_DECLARED),
    session(&ids::RESOURCES_CAPABILITY_DECLARED),
    session(&ids::PROMPTS_CAPABILITY_DECLARED),
    session(&ids::COMPLETION_CAPABILITY_DECLARED),
    session(&ids::SAMPLING_SERVER_CAPABILITY_REQUIRED),
    session(&ids::SAMPLING_TOOLS_SERVER_GATED),
    session(&ids::ELICITATION_SERVER_CAPABILITY_REQUIRED),
    session(&ids::ELICITATION_URL_CAPABILITY),
    session(&ids::RESOURCES_TEMPLATES_RFC6570),
    session(&ids::CACHING_SERVER_SCOPE_CONSISTENT_PAGES),
    client(&ids::ROOTS_CAPABILITY_DECLARED),
    client(&ids::ROOTS_URI_FILE),
    client(&ids::SAMPLING_CAPABILITY_DECLARED),
    client(&ids::ELICITATION_CAPABILITY_DECLARED),
    client(&ids::LIFECYCLE_INITIALIZE_NOT_BATCHED),
    client_stateless(&ids::STDIO_CLIENT_NO_RESPONSES),
    client_http(&ids::HTTP_POST_CLIENT_NO_RESPONSES),
    client_http(&ids::HTTP_POST_BATCH_BODY),
    stdio(&ids::STDIO_CLIENT_STDIN_ONLY_MCP),
    // A client's authorization flow, request by request (`crate::auth_client`).
    client_auth(&ids::AUTH_PKCE),
    client_auth(&ids::AUTH_PKCE_S256),
    client_auth(&ids::AUTH_PKCE_VERIFY_SUPPORT),
    client_auth(&ids::AUTH_RESOURCE_INDICATORS),
    client_auth(&ids::AUTH_RESOURCE_ALWAYS),
    client_auth(&ids::AUTH_RESOURCE_CANONICAL),
    client_auth(&ids::AUTH_STATE),
    client_auth(&ids::AUTH_REGISTRATION_CLIENT_ID),
    client_auth(&ids::AUTH_DCR_APPLICATION_TYPE),
    client_auth(&ids::AUTH_DCR_REDIRECT_REJECTION),
    client_auth(&ids::AUTH_CREDENTIALS_PER_AUTHORIZATION_SERVER),
    client_auth(&ids::AUTH_CREDENTIALS_REREGISTER),
    client_auth(&ids::AUTH_REDIRECT_URI_LOCALHOST_OR_HTTPS),
    client_auth(&ids::AUTH_REDIRECT_URI_REGISTERED),
    client_auth(&ids::AUTH_SCOPE_SELECTION),
    client_auth(&ids::AUTH_TOKEN_ENDPOINT_AUTH_METHOD),
    client_auth(&ids::AUTH_BEARER_HEADER),
    client_auth(&ids::AUTH_TOKEN_OWN_AUTHORIZATION_SERVER),
    client_auth(&ids::AUTH_WWW_AUTHENTICATE_PARSE),
    client_auth(&ids::AUTH_PRM_DISCOVERY_ORDER),
    client_auth(&ids::AUTH_PRM_CLIENT_DISCOVERY),
    client_auth(&ids::AUTH_AS_METADATA_DISCOVERY_ORDER),
    client_auth(&ids::AUTH_AS_METADATA_CLIENT),
    client_auth(&ids::AUTH_LEGACY_METADATA_FIRST),
    client_auth(&ids::AUTH_PRM_RESOURCE_MATCH),
    client_auth(&ids::AUTH_AS_METADATA_ISSUER_VALIDATE),
    client_auth(&ids::AUTH_ISSUER_VALIDATE),
    client_auth(&ids::AUTH_SCOPE_CHALLENGE_AUTHORITATIVE),
    client_auth(&ids::AUTH_STEP_UP_UNION),
    client_auth(&ids::AUTH_STEP_UP_RETRY_LIMIT),
    client_auth(&ids::AUTH_REFRESH_CONFIDENTIAL),
    client_auth(&ids::AUTH_REFRESH_NOT_ASSUMED),
];

/// The every-message check of a requirement, if it has one.
pub fn check_of(id: &str) -> Option<&'static OracleCheck> {
    ORACLE.iter().find(|c| c.requirement.id == id)
}

#[cfg(test)]
mod tests;
