//! The requirements checked on *every* message, not by naming them in a
//! scenario: the engine's session oracle ([`crate::session`]) judges each
//! message the target sends, and the runner's connection judges each line a
//! stdio target writes. Coverage counts such a requirement as covered for a
//! version when at least one case of that version runs (the oracle runs in
//! every case) over a transport the check applies to.
//!
//! Keep this list honest: an id belongs here only when the check runs on
//! every message of every case, not when a scenario must provoke it (those
//! scenarios name the id themselves). A test in `harness/cli/tests/`
//! verifies that each id still appears in the source of its checker.

/// Who performs an every-message check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checker {
    /// The engine's session oracle (`harness/engine/src/session.rs`).
    Session,
    /// The session oracle's stateless rules, 2026-07-28
    /// (`harness/engine/src/session/stateless.rs`).
    StatelessSession,
    /// The runner's stdio connection (`harness/runner/src/conn.rs`).
    StdioConnection,
    /// The runner's schema check (`harness/runner/src/schema.rs`).
    Schema,
    /// The session oracle playing the server: a client's lifecycle and
    /// cursors (`harness/engine/src/session/client_peer.rs`).
    ClientSession,
    /// The stateless rules a 2026-07-28 client is judged by, in the session
    /// oracle playing the server (`harness/engine/src/session/stateless.rs`).
    ClientStatelessSession,
    /// The runner's judgement of a client's HTTP requests
    /// (`harness/runner/src/conn/peer_http.rs`).
    ClientHttp,
}

impl Checker {
    /// How the check runs, for listings.
    pub fn describe(self) -> &'static str {
        match self {
            Checker::Session | Checker::StatelessSession => {
                "the session oracle judges every message the target sends"
            }
            Checker::StdioConnection => "the runner judges every line a stdio target writes",
            Checker::Schema => {
                "the runner checks every message the target sends against the version's schema"
            }
            Checker::ClientSession | Checker::ClientStatelessSession => {
                "the session oracle judges every message a client under test sends"
            }
            Checker::ClientHttp => "the runner judges every HTTP request a client under test makes",
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

    /// The source file that performs the check, relative to `harness/`.
    pub fn source(self) -> &'static str {
        match self {
            Checker::Session => "engine/src/session.rs",
            Checker::StatelessSession => "engine/src/session/stateless.rs",
            Checker::StdioConnection => "runner/src/conn.rs",
            Checker::Schema => "runner/src/schema.rs",
            Checker::ClientSession => "engine/src/session/client_peer.rs",
            Checker::ClientStatelessSession => "engine/src/session/stateless.rs",
            Checker::ClientHttp => "runner/src/conn/peer_http.rs",
        }
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
    // Judged in the runner's client-role sessions: rules binding servers
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
mod tests {
    use super::*;

    #[test]
    fn every_oracle_id_is_catalogued_and_checkable() {
        let mut seen = std::collections::HashSet::new();
        for c in ORACLE {
            assert!(seen.insert(c.id), "{} listed twice", c.id);
            let r = crate::lookup(c.id).unwrap_or_else(|| panic!("{} is not catalogued", c.id));
            assert!(
                r.excluded.is_none(),
                "{} is checked, so it cannot be excluded",
                c.id
            );
        }
    }

    #[test]
    fn session_oracle_ids_appear_in_the_session_source() {
        for (checker, src) in [
            (Checker::Session, include_str!("../session.rs")),
            (
                Checker::StatelessSession,
                include_str!("../session/stateless.rs"),
            ),
            (
                Checker::ClientSession,
                include_str!("../session/client_peer.rs"),
            ),
            (
                Checker::ClientStatelessSession,
                include_str!("../session/stateless.rs"),
            ),
        ] {
            for c in ORACLE.iter().filter(|c| c.by == checker) {
                assert!(
                    src.contains(&format!("ids::{}", super::super::static_name(c.id))),
                    "{} is listed as checked by {}, which never names it",
                    c.id,
                    checker.source()
                );
            }
        }
    }
}
