//! Base protocol: the JSON-RPC 2.0 message rules MCP builds on — message
//! kinds, request ids, answers and error codes, batching (2025-03-26 only),
//! `_meta` keys, JSON Schema dialects, and conformance to each version's schema.

use crate::level::Level::{May, Must, Should};
use crate::requirement::Requirement;
use crate::version::Version::*;

use super::why;

pub static ENTRIES: &[Requirement] = &[
    // ── messages ─────────────────────────────────────────────────────────
    req!("jsonrpc.message.valid", Must, Both, V2024_11_05, None, "basic#messages",
        "Every message is a JSON-RPC 2.0 request, notification or response (jsonrpc \"2.0\", well-typed members)."),
    req!("schema.message.conforms", Must, Both, V2024_11_05, None, "basic#schema",
        "Every message conforms to the definition the version's schema gives for its method and direction (the TypeScript schema is the authoritative definition of MCP messages)."),
    req!("jsonrpc.message.utf8", Must, Both, V2025_03_26, None, "basic/transports",
        "Messages are encoded as UTF-8."),
    // ── requests ─────────────────────────────────────────────────────────
    req!("jsonrpc.request.id-type", Must, Both, V2024_11_05, None, "basic#requests",
        "A request id is a string or an integer, never null."),
    req!("jsonrpc.request.id-unique", Must, Both, V2024_11_05, None, "basic#requests",
        "A sender never reuses a request id within the same session."),
    req!("jsonrpc.request.answered", Must, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#response_object",
        "Every request with a usable id is eventually answered, with a result or an error (JSON-RPC 2.0 leaves no request unanswered)."),
    // ── responses ────────────────────────────────────────────────────────
    req!("jsonrpc.response.id-matches", Must, Both, V2024_11_05, None, "basic#responses",
        "A response carries the id of the request it answers."),
    req!("jsonrpc.response.once", Must, Both, V2024_11_05, None, "basic#responses",
        "Each request gets exactly one response: a result or an error, never both, never two."),
    // ── notifications ────────────────────────────────────────────────────
    req!("jsonrpc.notification.no-id", Must, Both, V2024_11_05, None, "basic#notifications",
        "A notification carries no id member."),
    req!("jsonrpc.notification.no-response", Must, Both, V2024_11_05, None, "basic#notifications",
        "A notification is never answered."),
    // ── batching ─────────────────────────────────────────────────────────
    req!("jsonrpc.batch.receive", Must, Both, V2025_03_26, Some(V2025_03_26), "basic#batching",
        "Implementations accept JSON-RPC batches (arrays of requests and notifications)."),
    req!("jsonrpc.batch.send", May, Both, V2025_03_26, Some(V2025_03_26), "basic#batching",
        "Implementations may send JSON-RPC batches; they need not."),
    req!("jsonrpc.batch.absent", Must, Both, V2024_11_05, None, "basic#messages",
        "Outside 2025-03-26 a message is a single JSON-RPC object; batches are not part of the protocol (the schema defines none).",
        not_in = &[V2025_03_26]),
    // ── errors ───────────────────────────────────────────────────────────
    req!("jsonrpc.error.shape", Must, Both, V2024_11_05, None, "basic#responses",
        "An error response carries an error object with an integer code and a string message."),
    req!("jsonrpc.error.message-concise", Should, Both, V2024_11_05, None, "basic#responses",
        "An error message is a short, single sentence (the schema's advice on Error.message).",
        excluded = why::WORDING),
    req!("jsonrpc.error.null-id", Must, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "An error about input whose id could not be read (unparsable JSON, unusable id) carries a null id, never a guessed one."),
    req!("jsonrpc.error.parse-error", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "Bytes that are not valid JSON earn a -32700 parse error with a null id (the JSON-RPC 2.0 error table); MCP forbids clients to send them, so the reply is not mandated."),
    req!("jsonrpc.error.invalid-request", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A JSON value that is not a valid request object (bad id, method or jsonrpc member, unstructured params) earns a -32600 error."),
    req!("jsonrpc.error.method-not-found", Should, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A request for a method the receiver (server or client) does not implement earns a -32601 error."),
    req!("jsonrpc.error.invalid-params", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A request whose params do not fit the method (missing or mistyped members) earns a -32602 error."),
    req!("jsonrpc.robustness.survives-invalid", Should, Both, V2024_11_05, None, "basic#messages",
        "After unreadable or invalid input the receiver (server or client) keeps the connection open and goes on answering valid requests (derived from JSON-RPC error handling; no MCP keyword)."),
    // ── _meta ────────────────────────────────────────────────────────────
    req!("meta.key.format", Must, Both, V2025_06_18, None, "basic#meta",
        "Every _meta key is well formed: an optional prefix of dot-separated labels (each starting with a letter, ending with a letter or digit) followed by '/', then a name that, unless empty, starts and ends with a letter or digit."),
    req!("meta.key.reverse-dns", Should, Both, V2025_06_18, None, "basic#meta",
        "Implementations write their own _meta prefixes in reverse DNS notation (com.example/, not example.com/)."),
    req!("meta.key.reserved-prefix", Must, Both, V2025_06_18, None, "basic#meta",
        "Keys under a prefix whose second label is modelcontextprotocol or mcp are reserved for MCP; implementations make no assumptions about the values at reserved keys.",
        excluded = why::INTERNAL),
    // ── JSON Schema dialects ─────────────────────────────────────────────
    req!("schema.json-schema.default-dialect", Must, Both, V2025_11_25, None, "basic#json-schema-usage",
        "A JSON Schema in MCP (tool input and output schemas, elicitation schemas) without a $schema member is read as JSON Schema 2020-12, which every implementation supports."),
    req!("schema.json-schema.unsupported-dialect", Must, Both, V2025_11_25, None, "basic#json-schema-usage",
        "A schema declaring a dialect the implementation does not support is handled gracefully, with an error saying the dialect is unsupported."),
    req!("schema.json-schema.document-dialects", Should, Both, V2025_11_25, None, "basic#json-schema-usage",
        "Implementations document which schema dialects they support beyond 2020-12.",
        excluded = "documentation of an implementation, not wire behaviour"),
];
