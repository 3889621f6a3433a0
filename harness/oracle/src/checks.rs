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
        }
    }

    /// Whether the check runs only in client cases (the harness serving).
    pub fn client_only(self) -> bool {
        matches!(
            self,
            Checker::ClientSession | Checker::ClientStatelessSession | Checker::ClientHttp
        )
    }

    /// Whether the check runs only over the HTTP transports.
    pub fn http_only(self) -> bool {
        matches!(self, Checker::ClientHttp)
    }

    /// Whether the check runs only over stdio.
    pub fn stdio_only(self) -> bool {
        matches!(self, Checker::StdioConnection)
    }
}

/// An every-message check: the requirement and who checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OracleCheck {
    pub id: &'static str,
    pub by: Checker,
}

const fn session(id: &'static str) -> OracleCheck {
    OracleCheck {
        id,
        by: Checker::Session,
    }
}

const fn stateless(id: &'static str) -> OracleCheck {
    OracleCheck {
        id,
        by: Checker::StatelessSession,
    }
}

const fn client(id: &'static str) -> OracleCheck {
    OracleCheck {
        id,
        by: Checker::ClientSession,
    }
}

const fn client_stateless(id: &'static str) -> OracleCheck {
    OracleCheck {
        id,
        by: Checker::ClientStatelessSession,
    }
}

const fn client_http(id: &'static str) -> OracleCheck {
    OracleCheck {
        id,
        by: Checker::ClientHttp,
    }
}

const fn stdio(id: &'static str) -> OracleCheck {
    OracleCheck {
        id,
        by: Checker::StdioConnection,
    }
}

/// Every requirement checked on every message.
pub static ORACLE: &[OracleCheck] = &[
    session("jsonrpc.message.valid"),
    session("jsonrpc.request.id-type"),
    session("jsonrpc.request.id-unique"),
    session("jsonrpc.response.id-matches"),
    session("jsonrpc.response.once"),
    session("jsonrpc.batch.absent"),
    session("lifecycle.server.no-requests-before-initialized"),
    session("logging.capability.declared"),
    session("progress.token-active"),
    session("progress.increasing"),
    // Judged when the peer is a server: rules binding servers
    // (or both sides). The client-binding ones follow, judged in client cases.
    stateless("stateless.server.no-requests"),
    stateless("stateless.removed.not-sent"),
    stateless("stateless.cancel.listen-only"),
    stateless("stateless.result.result-type"),
    stateless("stateless.error.unsupported-version-data"),
    stateless("stateless.error.missing-capability-data"),
    stateless("stateless.error.reserved-range"),
    stateless("stateless.error.retired-codes"),
    stateless("logging.meta-level.opt-in"),
    client("lifecycle.initialize.first"),
    client("lifecycle.client.no-requests-before-response"),
    client("lifecycle.client.initialized-notification"),
    client("cancellation.initialize-not-cancelled"),
    client("pagination.client.opaque-cursor"),
    client_stateless("stateless.meta.required-keys"),
    client_stateless("stateless.client.era-cached"),
    client_stateless("stateless.client.retry-supported"),
    client_stateless("stateless.client.version-from-supported"),
    client_http("http.post.accept"),
    client_http("http.get.accept"),
    client_http("http.post.client-post"),
    client_http("http.post.single-message"),
    client_http("http.session.client-echo"),
    client_http("http.header.protocol-version"),
    client_http("http.header.protocol-version-negotiated"),
    client_http("http.header.version-matches-meta"),
    client_http("sse.client-post"),
    stdio("stdio.stdout-only-mcp"),
    stdio("stdio.newline-delimited"),
    OracleCheck {
        id: "schema.message.conforms",
        by: Checker::Schema,
    },
];

/// The every-message check of a requirement, if it has one.
pub fn check_of(id: &str) -> Option<&'static OracleCheck> {
    ORACLE.iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests;
