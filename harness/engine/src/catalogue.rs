//! The requirement catalogue: every normative statement mcpspec checks or
//! knowingly leaves out. Paraphrased in our own words, linked to the spec.
//!
//! Ids are `area.topic.rule`, stable forever. Sections are relative to
//! `https://modelcontextprotocol.io/specification/<version>/`, except rules
//! MCP inherits from JSON-RPC 2.0 itself, which link jsonrpc.org absolutely.

use crate::level::Level::{May, Must, Should};
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
    // ── base protocol: answering and error codes ─────────────────────────
    req!("jsonrpc.request.answered", Must, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#response_object",
        "Every request with a usable id is eventually answered, with a result or an error (JSON-RPC 2.0 leaves no request unanswered)."),
    req!("jsonrpc.error.shape", Must, Both, V2024_11_05, None, "basic#responses",
        "An error response carries an error object with an integer code and a string message."),
    req!("jsonrpc.error.null-id", Must, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "An error about input whose id could not be read (unparsable JSON, unusable id) carries a null id, never a guessed one."),
    req!("jsonrpc.error.parse-error", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "Bytes that are not valid JSON earn a -32700 parse error with a null id (the JSON-RPC 2.0 error table); MCP forbids clients to send them, so the reply is not mandated."),
    req!("jsonrpc.error.invalid-request", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A JSON value that is not a valid request object (bad id, method or jsonrpc member, unstructured params) earns a -32600 error."),
    req!("jsonrpc.error.method-not-found", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A request for a method the server does not implement earns a -32601 error."),
    req!("jsonrpc.error.invalid-params", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A request whose params do not fit the method (missing or mistyped members) earns a -32602 error."),
    req!("jsonrpc.robustness.survives-invalid", Should, Server, V2024_11_05, None, "basic#messages",
        "After unreadable or invalid input the server keeps the connection open and goes on serving valid requests (derived from JSON-RPC error handling; no MCP keyword)."),
    // ── stdio transport: framing tolerance and shutdown ──────────────────
    req!("stdio.framing.blank-lines", May, Server, V2024_11_05, None, "basic/transports#stdio",
        "An empty line between messages is skipped rather than treated as fatal (robustness; the spec is silent)."),
    req!("stdio.framing.crlf", May, Server, V2024_11_05, None, "basic/transports#stdio",
        "A message line ending in CRLF is accepted (JSON allows the trailing CR as whitespace; the spec only says newline-delimited)."),
    req!("stdio.shutdown.exit-on-eof", May, Server, V2024_11_05, None, "basic/lifecycle#shutdown",
        "When the client closes the server's stdin, the server exits on its own (clients escalate to signals when it does not)."),
    // ── lifecycle: initialize and version negotiation ────────────────────
    req!("lifecycle.initialize.result-shape", Must, Server, V2024_11_05, None, "basic/lifecycle#initialization",
        "The initialize result carries a protocolVersion string, a capabilities object and serverInfo with a name and a version."),
    req!("lifecycle.initialize.capabilities-shape", Must, Server, V2024_11_05, None, "basic/lifecycle#capability-negotiation",
        "Each declared server capability is an object; its flags (listChanged, subscribe) are booleans."),
    req!("lifecycle.server.ping-before-init", Should, Server, V2024_11_05, None, "basic/lifecycle#initialization",
        "Pings are allowed before the handshake completes, so a server answers them even before notifications/initialized."),
    req!("lifecycle.version.same-version", Must, Server, V2024_11_05, None, "basic/lifecycle#version-negotiation",
        "When the server supports the protocol version the client asked for, its initialize result names exactly that version."),
    req!("lifecycle.version.supported-alternative", Must, Server, V2024_11_05, None, "basic/lifecycle#version-negotiation",
        "When the server does not support the requested version it answers with another version it does support (or an error), never by echoing the unsupported one."),
    req!("lifecycle.version.latest-alternative", Should, Server, V2024_11_05, None, "basic/lifecycle#version-negotiation",
        "The alternative version a server offers is the newest one it supports."),
    // ── cancellation ─────────────────────────────────────────────────────
    req!("cancellation.invalid-ignored", Should, Both, V2024_11_05, None, "basic/utilities/cancellation#error-handling",
        "A cancellation naming an unknown or already finished request is ignored; the connection carries on unaffected."),
    req!("cancellation.initialize-not-cancelled", Must, Client, V2024_11_05, None, "basic/utilities/cancellation#behavior-requirements",
        "Clients never cancel their initialize request."),
    // ── progress ─────────────────────────────────────────────────────────
    req!("progress.notification.shape", Must, Both, V2024_11_05, None, "basic/utilities/progress#progress-flow",
        "A progress notification names the request's progressToken and a numeric progress, with an optional numeric total (and, from 2025-03-26, an optional message string)."),
    req!("progress.optional", May, Both, V2024_11_05, None, "basic/utilities/progress#behavior-requirements",
        "A receiver of a progress token may send no progress notifications at all, or as few as it likes."),
    // ── pagination ───────────────────────────────────────────────────────
    req!("pagination.next-cursor.type", Must, Server, V2024_11_05, None, "server/utilities/pagination#response-format",
        "A paginated result's nextCursor, when present, is an opaque string."),
    req!("pagination.cursor.terminates", Should, Server, V2024_11_05, None, "server/utilities/pagination#implementation-guidelines",
        "Following nextCursor reaches a last page without one: cursors are stable positions, not an endless loop."),
    req!("pagination.cursor.no-duplicates", Should, Server, V2024_11_05, None, "server/utilities/pagination#implementation-guidelines",
        "Walking all pages yields each item once; pages do not repeat items (names and URIs identify items uniquely)."),
    req!("pagination.invalid-cursor", Should, Server, V2024_11_05, None, "server/utilities/pagination#error-handling",
        "A cursor the server never issued earns a -32602 invalid-params error."),
    // ── logging ──────────────────────────────────────────────────────────
    req!("logging.capability.declared", Must, Server, V2024_11_05, None, "server/utilities/logging#capabilities",
        "A server that emits log message notifications declares the logging capability."),
    req!("logging.set-level.result", Must, Server, V2024_11_05, None, "server/utilities/logging#setting-log-level",
        "A server declaring logging answers logging/setLevel with an empty result."),
    req!("logging.set-level.filter", Should, Server, V2024_11_05, None, "server/utilities/logging#setting-log-level",
        "After logging/setLevel the server sends only log messages at that severity or more severe."),
    req!("logging.invalid-level", Should, Server, V2024_11_05, None, "server/utilities/logging#error-handling",
        "An unknown log level in logging/setLevel earns a -32602 error."),
    req!("logging.message.shape", Must, Server, V2024_11_05, None, "server/utilities/logging#log-message-notifications",
        "A notifications/message carries one of the eight syslog level names and a data member, with an optional string logger."),
    // ── resources ────────────────────────────────────────────────────────
    req!("resources.list.result-shape", Must, Server, V2024_11_05, None, "server/resources#listing-resources",
        "resources/list returns a resources array whose items have a uri and a name string."),
    req!("resources.read.result-shape", Must, Server, V2024_11_05, None, "server/resources#reading-resources",
        "resources/read returns a contents array; each item has a uri and either text or base64 blob content."),
    req!("resources.read.not-found", Should, Server, V2024_11_05, Some(V2025_11_25), "server/resources#error-handling",
        "Reading a resource that does not exist earns a JSON-RPC error with code -32002."),
    req!("resources.templates.result-shape", Must, Server, V2024_11_05, None, "server/resources#resource-templates",
        "resources/templates/list returns a resourceTemplates array whose items have a uriTemplate and a name string."),
    req!("resources.subscribe.result", Must, Server, V2024_11_05, None, "server/resources#subscriptions",
        "A server declaring resources.subscribe answers resources/subscribe and resources/unsubscribe with empty results."),
    req!("resources.subscribe.updated", May, Server, V2024_11_05, None, "server/resources#subscriptions",
        "After a subscription, a change to the resource is announced with notifications/resources/updated naming its uri."),
    // ── tools ────────────────────────────────────────────────────────────
    req!("tools.list.result-shape", Must, Server, V2024_11_05, None, "server/tools#listing-tools",
        "tools/list returns a tools array; each tool has a name string and an inputSchema object of type \"object\"."),
    req!("tools.call.result-shape", Must, Server, V2024_11_05, None, "server/tools#tool-result",
        "A tools/call result has a content array of typed items and an optional boolean isError."),
    req!("tools.call.unknown-tool", Should, Server, V2024_11_05, None, "server/tools#error-handling",
        "Calling a tool the server does not have is a protocol error: a JSON-RPC error (the spec shows -32602), not a result."),
    req!("tools.call.error-reporting", Should, Server, V2024_11_05, None, "server/tools#error-handling",
        "A failing tool call is reported either as a JSON-RPC error or as a result with isError true, never as a plain success."),
    req!("tools.call.input-validation", Should, Server, V2025_11_25, None, "server/tools#error-handling",
        "Arguments that fail the tool's input schema are reported as a tool execution error (a result with isError true), so a model can correct itself."),
    req!("tools.output-schema.type-object", Must, Server, V2025_06_18, None, "server/tools#output-schema",
        "A tool's outputSchema, when present, is a JSON Schema whose type is \"object\"."),
    req!("tools.output-schema.conform", Must, Server, V2025_06_18, None, "server/tools#output-schema",
        "When a tool declares an outputSchema, its structuredContent conforms to that schema."),
    req!("tools.output-schema.structured", Must, Server, V2025_06_18, None, "server/tools#output-schema",
        "A tool that declares an outputSchema returns a structuredContent object in its successful results."),
    // ── prompts ──────────────────────────────────────────────────────────
    req!("prompts.list.result-shape", Must, Server, V2024_11_05, None, "server/prompts#listing-prompts",
        "prompts/list returns a prompts array; each prompt has a name string and optional arguments, each with a name and an optional boolean required."),
    req!("prompts.get.result-shape", Must, Server, V2024_11_05, None, "server/prompts#getting-a-prompt",
        "prompts/get returns a messages array; each message has role user or assistant and a typed content item."),
    req!("prompts.get.invalid-name", Should, Server, V2024_11_05, None, "server/prompts#error-handling",
        "Asking for a prompt that does not exist earns a -32602 error."),
    req!("prompts.get.missing-argument", Should, Server, V2024_11_05, None, "server/prompts#error-handling",
        "Omitting a required prompt argument earns a -32602 error."),
    // ── completion ───────────────────────────────────────────────────────
    req!("completion.complete.result-shape", Must, Server, V2024_11_05, None, "server/utilities/completion#completion-results",
        "completion/complete returns a completion object with a values array of strings, an optional integer total and an optional boolean hasMore."),
    req!("completion.complete.max-values", Should, Server, V2024_11_05, None, "server/utilities/completion#completion-results",
        "A completion result lists at most 100 values."),
    req!("completion.complete.invalid-ref", Should, Server, V2024_11_05, None, "server/utilities/completion#error-handling",
        "A completion request naming a prompt that does not exist earns a -32602 error."),
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
