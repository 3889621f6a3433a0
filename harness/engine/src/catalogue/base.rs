//! Base protocol: the JSON-RPC 2.0 message rules MCP builds on — message
//! kinds, request ids, answers and error codes, batching (2025-03-26 only),
//! `_meta` keys, JSON Schema dialects, and conformance to each version's schema.

use crate::level::Level::{May, Must, Should};
use crate::version::Version::*;

use super::why;

entries! {
    // ── messages ─────────────────────────────────────────────────────────
    JSONRPC_MESSAGE_VALID = req!("jsonrpc.message.valid", Must, Both, V2024_11_05, None, "basic#messages",
        "Every message is a JSON-RPC 2.0 request, notification or response (jsonrpc \"2.0\", well-typed members)."),
    SCHEMA_MESSAGE_CONFORMS = req!("schema.message.conforms", Must, Both, V2024_11_05, None, "basic#schema",
        "Every message conforms to the definition the version's schema gives for its method and direction (the TypeScript schema is the authoritative definition of MCP messages)."),
    JSONRPC_MESSAGE_UTF8 = req!("jsonrpc.message.utf8", Must, Both, V2025_03_26, None, "basic/transports",
        "Messages are encoded as UTF-8."),
    // ── requests ─────────────────────────────────────────────────────────
    JSONRPC_REQUEST_ID_TYPE = req!("jsonrpc.request.id-type", Must, Both, V2024_11_05, None, "basic#requests",
        "A request id is a string or an integer, never null."),
    JSONRPC_REQUEST_ID_UNIQUE = req!("jsonrpc.request.id-unique", Must, Both, V2024_11_05, None, "basic#requests",
        "A sender never reuses a request id within the same session."),
    JSONRPC_REQUEST_ANSWERED = req!("jsonrpc.request.answered", Must, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#response_object",
        "Every request with a usable id is eventually answered, with a result or an error (JSON-RPC 2.0 leaves no request unanswered)."),
    // ── responses ────────────────────────────────────────────────────────
    JSONRPC_RESPONSE_ID_MATCHES = req!("jsonrpc.response.id-matches", Must, Both, V2024_11_05, None, "basic#responses",
        "A response carries the id of the request it answers."),
    JSONRPC_RESPONSE_ONCE = req!("jsonrpc.response.once", Must, Both, V2024_11_05, None, "basic#responses",
        "Each request gets exactly one response: a result or an error, never both, never two."),
    // ── notifications ────────────────────────────────────────────────────
    JSONRPC_NOTIFICATION_NO_ID = req!("jsonrpc.notification.no-id", Must, Both, V2024_11_05, None, "basic#notifications",
        "A notification carries no id member."),
    JSONRPC_NOTIFICATION_NO_RESPONSE = req!("jsonrpc.notification.no-response", Must, Both, V2024_11_05, None, "basic#notifications",
        "A notification is never answered."),
    // ── batching ─────────────────────────────────────────────────────────
    JSONRPC_BATCH_RECEIVE = req!("jsonrpc.batch.receive", Must, Both, V2025_03_26, Some(V2025_03_26), "basic#batching",
        "Implementations accept JSON-RPC batches (arrays of requests and notifications)."),
    JSONRPC_BATCH_SEND = req!("jsonrpc.batch.send", May, Both, V2025_03_26, Some(V2025_03_26), "basic#batching",
        "Implementations may send JSON-RPC batches; they need not."),
    JSONRPC_BATCH_ABSENT = req!("jsonrpc.batch.absent", Must, Both, V2024_11_05, None, "basic#messages",
        "Outside 2025-03-26 a message is a single JSON-RPC object; batches are not part of the protocol (the schema defines none).",
        not_in = &[V2025_03_26]),
    // ── errors ───────────────────────────────────────────────────────────
    JSONRPC_ERROR_SHAPE = req!("jsonrpc.error.shape", Must, Both, V2024_11_05, None, "basic#responses",
        "An error response carries an error object with an integer code and a string message."),
    JSONRPC_ERROR_MESSAGE_CONCISE = req!("jsonrpc.error.message-concise", Should, Both, V2024_11_05, None, "basic#responses",
        "An error message is a short, single sentence (the schema's advice on Error.message).",
        excluded = why::WORDING),
    JSONRPC_ERROR_NULL_ID = req!("jsonrpc.error.null-id", Must, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "An error about input whose id could not be read (unparsable JSON, unusable id) carries a null id, never a guessed one."),
    JSONRPC_ERROR_PARSE_ERROR = req!("jsonrpc.error.parse-error", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "Bytes that are not valid JSON earn a -32700 parse error with a null id (the JSON-RPC 2.0 error table); MCP forbids clients to send them, so the reply is not mandated."),
    JSONRPC_ERROR_INVALID_REQUEST = req!("jsonrpc.error.invalid-request", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A JSON value that is not a valid request object (bad id, method or jsonrpc member, unstructured params) earns a -32600 error."),
    JSONRPC_ERROR_METHOD_NOT_FOUND = req!("jsonrpc.error.method-not-found", Should, Both, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A request for a method the receiver (server or client) does not implement earns a -32601 error."),
    JSONRPC_ERROR_INVALID_PARAMS = req!("jsonrpc.error.invalid-params", Should, Server, V2024_11_05, None, "https://www.jsonrpc.org/specification#error_object",
        "A request whose params do not fit the method (missing or mistyped members) earns a -32602 error."),
    JSONRPC_ROBUSTNESS_SURVIVES_INVALID = req!("jsonrpc.robustness.survives-invalid", Should, Both, V2024_11_05, None, "basic#messages",
        "After unreadable or invalid input the receiver (server or client) keeps the connection open and goes on answering valid requests (derived from JSON-RPC error handling; no MCP keyword)."),
    // ── _meta ────────────────────────────────────────────────────────────
    META_KEY_FORMAT = req!("meta.key.format", Must, Both, V2025_06_18, None, "basic#meta",
        "Every _meta key is well formed: an optional prefix of dot-separated labels (each starting with a letter, ending with a letter or digit) followed by '/', then a name that, unless empty, starts and ends with a letter or digit."),
    META_KEY_REVERSE_DNS = req!("meta.key.reverse-dns", Should, Both, V2025_06_18, None, "basic#meta",
        "Implementations write their own _meta prefixes in reverse DNS notation (com.example/, not example.com/)."),
    META_KEY_RESERVED_PREFIX = req!("meta.key.reserved-prefix", Must, Both, V2025_06_18, None, "basic#meta",
        "Keys under a prefix whose second label is modelcontextprotocol or mcp are reserved for MCP; implementations make no assumptions about the values at reserved keys.",
        excluded = why::INTERNAL),
    // ── JSON Schema dialects ─────────────────────────────────────────────
    SCHEMA_JSON_SCHEMA_DEFAULT_DIALECT = req!("schema.json-schema.default-dialect", Must, Both, V2025_11_25, None, "basic#json-schema-usage",
        "A JSON Schema in MCP (tool input and output schemas, elicitation schemas) without a $schema member is read as JSON Schema 2020-12, which every implementation supports."),
    SCHEMA_JSON_SCHEMA_UNSUPPORTED_DIALECT = req!("schema.json-schema.unsupported-dialect", Must, Both, V2025_11_25, None, "basic#json-schema-usage",
        "A schema declaring a dialect the implementation does not support is handled gracefully, with an error saying the dialect is unsupported."),
    SCHEMA_JSON_SCHEMA_DOCUMENT_DIALECTS = req!("schema.json-schema.document-dialects", Should, Both, V2025_11_25, None, "basic#json-schema-usage",
        "Implementations document which schema dialects they support beyond 2020-12.",
        excluded = "documentation of an implementation, not wire behaviour"),
}
