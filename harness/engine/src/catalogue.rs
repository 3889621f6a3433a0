//! The requirement catalogue: every normative statement mcpspec checks or
//! knowingly leaves out. Paraphrased in our own words, linked to the spec.
//!
//! Ids are `area.topic.rule`, stable forever. Sections are relative to
//! `https://modelcontextprotocol.io/specification/<version>/`.

use crate::level::Level::{Must, Should};
use crate::requirement::{Binds, Requirement};
use crate::version::Version::*;

macro_rules! req {
    ($id:literal, $level:expr, $binds:ident, $since:expr, $until:expr, $section:literal, $summary:literal) => {
        Requirement {
            id: $id,
            level: $level,
            binds: Binds::$binds,
            summary: $summary,
            section: $section,
            since: $since,
            until: $until,
        }
    };
}

pub static CATALOGUE: &[Requirement] = &[
    // ── base protocol: JSON-RPC messages ────────────────────────────────
    req!("jsonrpc.message.valid", Must, Both, V2024_11_05, None, "basic#messages",
        "Every message is a JSON-RPC 2.0 request, notification or response (jsonrpc \"2.0\", well-typed members)."),
    req!("jsonrpc.request.id-type", Must, Both, V2024_11_05, None, "basic#requests",
        "A request id is a string or an integer, never null."),
    req!("jsonrpc.request.id-unique", Must, Both, V2024_11_05, None, "basic#requests",
        "A sender never reuses a request id within the same session."),
    req!("jsonrpc.response.id-matches", Must, Both, V2024_11_05, None, "basic#responses",
        "A response carries the id of the request it answers."),
    req!("jsonrpc.response.once", Must, Both, V2024_11_05, None, "basic#responses",
        "Each request gets exactly one response: a result or an error, never both, never two."),
    req!("jsonrpc.notification.no-response", Must, Both, V2024_11_05, None, "basic#notifications",
        "A notification is never answered."),
    req!("jsonrpc.batch.receive", Must, Both, V2025_03_26, Some(V2025_03_26), "basic#batching",
        "Implementations accept JSON-RPC batches (arrays of requests and notifications)."),
    req!("jsonrpc.batch.absent", Must, Both, V2024_11_05, None, "basic#messages",
        "Outside 2025-03-26 a message is a single JSON-RPC object; batches are not part of the protocol."),
    // ── stdio transport ──────────────────────────────────────────────────
    req!("stdio.newline-delimited", Must, Both, V2024_11_05, None, "basic/transports#stdio",
        "Over stdio each message is one line of UTF-8 JSON; messages contain no embedded newlines."),
    req!("stdio.stdout-only-mcp", Must, Server, V2024_11_05, None, "basic/transports#stdio",
        "A server writes nothing to stdout that is not a valid MCP message."),
    // ── lifecycle ────────────────────────────────────────────────────────
    req!("lifecycle.server.no-requests-before-initialized", Should, Server, V2024_11_05, None, "basic/lifecycle#initialization",
        "Before notifications/initialized, a server sends no requests other than ping and logging."),
    // ── utilities ────────────────────────────────────────────────────────
    req!("ping.respond", Must, Both, V2024_11_05, None, "basic/utilities/ping#behavior-requirements",
        "A ping is answered promptly with an empty result."),
    req!("progress.token-active", Must, Both, V2024_11_05, None, "basic/utilities/progress#behavior-requirements",
        "Progress notifications only name tokens supplied in an active request; they stop once the request completes."),
    req!("progress.increasing", Must, Both, V2024_11_05, None, "basic/utilities/progress#behavior-requirements",
        "The progress value increases with each notification for a token."),
    req!("cancellation.no-response", Should, Both, V2024_11_05, None, "basic/utilities/cancellation#behavior-requirements",
        "After a cancellation notification, the receiver does not send a response for the cancelled request."),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for r in CATALOGUE {
            assert!(seen.insert(r.id), "duplicate requirement id {}", r.id);
            assert!(
                r.id.split('.').count() >= 2
                    && r.id.chars().all(|c| c.is_ascii_lowercase()
                        || c.is_ascii_digit()
                        || c == '.'
                        || c == '-'),
                "malformed id {}",
                r.id
            );
            assert!(
                !r.summary.is_empty() && !r.section.is_empty(),
                "{} lacks text",
                r.id
            );
            assert!(
                r.until.is_none_or(|u| u >= r.since),
                "{} has an empty range",
                r.id
            );
        }
    }
}
