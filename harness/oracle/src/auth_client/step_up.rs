//! Scope challenges (2025-11-25 on, `basic/authorization#scope-selection-strategy`
//! and `#step-up-authorization-flow`): the scopes a challenge of the MCP
//! endpoint names (a 401, or a 403 `insufficient_scope`) are what the
//! current request needs, whatever `scopes_supported` says.
//!
//! - `auth.scope.challenge-authoritative`: an authorization request made
//!   after a challenge that named scopes asks for every one of them (more
//!   may come with them). The challenge that counts is the last one the MCP
//!   endpoint sent before the authorization request.
//! - `auth.step-up.union` (2026-07-28, SHOULD): an authorization request
//!   made after a 403 `insufficient_scope` also asks for the scopes the
//!   client asked for before, so that it keeps what it was granted.
//! - `auth.step-up.retry-limit` (2025-11-25 on, SHOULD): authorizations
//!   end when they keep failing. An authorization request is counted when
//!   no request to the MCP endpoint was let through since the last one (the
//!   script answered it itself: 401, 403); the fourth in a row is reported.

use mcpspec_engine::ids;
use mcpspec_engine::oauth::challenge::BearerChallenge;
use mcpspec_wire::event::HttpRecord;

use super::{pairs, param, Found};

/// The last scope challenge of the MCP endpoint.
#[derive(Debug)]
struct Challenge {
    status: u16,
    insufficient: bool,
    scope: Option<String>,
}

/// The challenges seen and the scopes asked for.
#[derive(Debug, Default)]
pub(super) struct Challenges {
    last: Option<Challenge>,
    /// The scope of the last authorization request (`None` before any).
    asked: Option<String>,
    authorizations: usize,
    /// Authorization requests since an MCP request was last let through.
    unavailing: usize,
    retries_reported: bool,
}

/// Authorizations in a row, none followed by an MCP request let through,
/// that a client with a retry limit does not go beyond.
const RETRY_LIMIT: usize = 3;

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

impl Challenges {
    /// An answer of the MCP endpoint: a 401 or 403 with a Bearer challenge
    /// replaces the last challenge.
    pub(super) fn mcp_answer(&mut self, record: &HttpRecord) {
        if record.status.is_none() {
            self.unavailing = 0; // let through to the MCP server
        }
        let Some(status) = record.status.filter(|s| matches!(s, 401 | 403)) else {
            return;
        };
        let Some(header) = record.response_header("www-authenticate") else {
            return;
        };
        let Ok(c) = BearerChallenge::parse(header) else {
            return;
        };
        self.last = Some(Challenge {
            status,
            insufficient: c.error.as_deref() == Some("insufficient_scope"),
            scope: c.scope.filter(|s| !s.trim().is_empty()),
        });
    }

    /// An authorization request (`record`'s query holds its parameters).
    pub(super) fn authorization(&mut self, record: &HttpRecord) -> Vec<Found> {
        self.authorizations += 1;
        let n = self.authorizations;
        let query = record.target.split_once('?').map_or("", |(_, q)| q);
        let params = pairs(query);
        let got = param(&params, "scope").unwrap_or_default().to_owned();
        let asked = words(&got);
        let mut out: Vec<Found> = Vec::new();
        self.unavailing += 1;
        if self.unavailing > RETRY_LIMIT && !self.retries_reported {
            self.retries_reported = true;
            out.push((
                &ids::AUTH_STEP_UP_RETRY_LIMIT,
                format!(
                    "authorization request {n} is the {}th in a row with no request to the MCP endpoint let through in between: the client does not limit its retries (at most {RETRY_LIMIT})",
                    RETRY_LIMIT + 1
                ),
            ));
        }
        if let Some(c) = &self.last {
            let what = if c.insufficient {
                format!("the {} insufficient_scope challenge", c.status)
            } else {
                format!("the {} challenge", c.status)
            };
            if let Some(scope) = &c.scope {
                let missing: Vec<&str> = words(scope)
                    .into_iter()
                    .filter(|s| !asked.contains(s))
                    .collect();
                if !missing.is_empty() {
                    out.push((
                        &ids::AUTH_SCOPE_CHALLENGE_AUTHORITATIVE,
                        format!(
                            "authorization request {n} asked for scope {got:?} after {what} named {scope:?}: {} missing",
                            missing.join(" ")
                        ),
                    ));
                }
            }
            if c.insufficient {
                let before = self.asked.clone().unwrap_or_default();
                let dropped: Vec<&str> = words(&before)
                    .into_iter()
                    .filter(|s| !asked.contains(s))
                    .collect();
                if !dropped.is_empty() {
                    out.push((
                        &ids::AUTH_STEP_UP_UNION,
                        format!(
                            "authorization request {n}, a step-up after {what}, asked for scope {got:?}, dropping {} that the previous request asked for ({before:?})",
                            dropped.join(" ")
                        ),
                    ));
                }
            }
        }
        self.asked = Some(got);
        out
    }
}
