//! Lifecycle of the handshake versions (2024-11-05 … 2025-11-25): the
//! `initialize` request and result, `notifications/initialized`, version and
//! capability negotiation, the operation phase, timeouts and shutdown.
//! 2026-07-28 has no handshake; its rules are in [`super::stateless`].

use crate::level::Level::{May, Must, Should};
use crate::version::Version::*;

entries! {
    // ── initialization ───────────────────────────────────────────────────
    LIFECYCLE_INITIALIZE_FIRST = req!("lifecycle.initialize.first", Must, Client, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#initialization",
        "The initialize exchange is the first interaction of a connection: the client starts with an initialize request."),
    LIFECYCLE_INITIALIZE_REQUEST_SHAPE = req!("lifecycle.initialize.request-shape", Must, Client, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#initialization",
        "The initialize request carries the protocol version the client supports, its capabilities and clientInfo (name and version)."),
    LIFECYCLE_INITIALIZE_RESULT_SHAPE = req!("lifecycle.initialize.result-shape", Must, Server, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#initialization",
        "The initialize result carries a protocolVersion string, a capabilities object and serverInfo with a name and a version."),
    LIFECYCLE_INITIALIZE_CAPABILITIES_SHAPE = req!("lifecycle.initialize.capabilities-shape", Must, Server, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#capability-negotiation",
        "Each declared server capability is an object; its flags (listChanged, subscribe) are booleans."),
    LIFECYCLE_CLIENT_INITIALIZED_NOTIFICATION = req!("lifecycle.client.initialized-notification", Must, Client, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#initialization",
        "Once the server has answered initialize successfully, the client sends notifications/initialized."),
    LIFECYCLE_CLIENT_NO_REQUESTS_BEFORE_RESPONSE = req!("lifecycle.client.no-requests-before-response", Should, Client, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#initialization",
        "Until the server has answered initialize, the client sends no requests other than pings."),
    LIFECYCLE_SERVER_NO_REQUESTS_BEFORE_INITIALIZED = req!("lifecycle.server.no-requests-before-initialized", Should, Server, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#initialization",
        "Before notifications/initialized, a server sends no requests other than ping and logging."),
    LIFECYCLE_SERVER_PING_BEFORE_INIT = req!("lifecycle.server.ping-before-init", Should, Server, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#initialization",
        "Pings are allowed before the handshake completes, so a server answers them even before notifications/initialized."),
    LIFECYCLE_INITIALIZE_INSTRUCTIONS = req!("lifecycle.initialize.instructions", May, Server, V2025_03_26, Some(V2025_11_25), "basic/lifecycle#initialization",
        "The initialize result may carry instructions: a string describing how to use the server."),
    // ── version negotiation ──────────────────────────────────────────────
    LIFECYCLE_VERSION_CLIENT_SUPPORTED = req!("lifecycle.version.client-supported", Must, Client, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#version-negotiation",
        "The version a client puts in initialize is one it supports."),
    LIFECYCLE_VERSION_CLIENT_LATEST = req!("lifecycle.version.client-latest", Should, Client, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#version-negotiation",
        "The version a client puts in initialize is the newest it supports."),
    LIFECYCLE_VERSION_SAME_VERSION = req!("lifecycle.version.same-version", Must, Server, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#version-negotiation",
        "When the server supports the protocol version the client asked for, its initialize result names exactly that version."),
    LIFECYCLE_VERSION_SUPPORTED_ALTERNATIVE = req!("lifecycle.version.supported-alternative", Must, Server, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#version-negotiation",
        "When the server does not support the requested version it answers with another version it does support (or an error), never by echoing the unsupported one."),
    LIFECYCLE_VERSION_LATEST_ALTERNATIVE = req!("lifecycle.version.latest-alternative", Should, Server, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#version-negotiation",
        "The alternative version a server offers is the newest one it supports."),
    LIFECYCLE_VERSION_CLIENT_DISCONNECT = req!("lifecycle.version.client-disconnect", Should, Client, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#version-negotiation",
        "A client that does not support the version in the initialize result disconnects (the schema's comment on protocolVersion puts it as a MUST)."),
    // ── operation ────────────────────────────────────────────────────────
    LIFECYCLE_OPERATION_NEGOTIATED_ONLY_ADVISED = req!("lifecycle.operation.negotiated-only-advised", Should, Both, V2024_11_05, Some(V2025_03_26), "basic/lifecycle#operation",
        "During operation both sides keep to the negotiated protocol version and use only capabilities both declared."),
    LIFECYCLE_OPERATION_NEGOTIATED_ONLY = req!("lifecycle.operation.negotiated-only", Must, Both, V2025_06_18, Some(V2025_11_25), "basic/lifecycle#operation",
        "During operation both sides keep to the negotiated protocol version and use only capabilities both declared (a MUST from 2025-06-18; a SHOULD before)."),
    // ── timeouts ─────────────────────────────────────────────────────────
    LIFECYCLE_TIMEOUT_ESTABLISH = req!("lifecycle.timeout.establish", Should, Both, V2024_11_05, None, "basic/lifecycle#timeouts",
        "A sender puts a timeout on every request it sends, so a peer that never answers cannot hang it."),
    LIFECYCLE_TIMEOUT_CANCEL = req!("lifecycle.timeout.cancel", Should, Both, V2024_11_05, None, "basic/lifecycle#timeouts",
        "When a request times out, its sender sends notifications/cancelled for it and stops waiting."),
    LIFECYCLE_TIMEOUT_MAXIMUM = req!("lifecycle.timeout.maximum", Should, Both, V2024_11_05, None, "basic/lifecycle#timeouts",
        "A maximum timeout holds even when progress notifications keep arriving."),
    LIFECYCLE_TIMEOUT_PROGRESS_RESET = req!("lifecycle.timeout.progress-reset", May, Both, V2024_11_05, None, "basic/lifecycle#timeouts",
        "A progress notification for a request may restart its timeout clock."),
    // ── shutdown ─────────────────────────────────────────────────────────
    LIFECYCLE_SHUTDOWN_CLIENT_STDIO = req!("lifecycle.shutdown.client-stdio", Should, Client, V2024_11_05, None, "basic/lifecycle#stdio",
        "Over stdio a client shuts down by closing the server's stdin, waiting for it to exit, then escalating to SIGTERM and SIGKILL."),
    LIFECYCLE_SHUTDOWN_SERVER_STDIO = req!("lifecycle.shutdown.server-stdio", May, Server, V2024_11_05, None, "basic/lifecycle#stdio",
        "Over stdio a server may end the connection itself by closing its stdout and exiting."),
    // ── spec-keywords (#15): entries that bold keywords of the spec map to; see schema/spec-keywords ──
    LIFECYCLE_CAPABILITIES_RESPECTED = req!("lifecycle.capabilities.respected", Should, Both, V2024_11_05, None, "server/prompts#implementation-considerations",
        "Both sides respect the negotiated capabilities in the prompt feature (no prompts requests to a server that did not declare prompts)."),
    LIFECYCLE_TIMEOUT_CONFIGURABLE = req!("lifecycle.timeout.configurable", Should, Both, V2025_03_26, None, "basic/lifecycle#timeouts",
        "SDKs let request timeouts be configured per request.",
        excluded = "configuration of an SDK, not behaviour in one session"),
    LIFECYCLE_ERROR_HANDLING_PREPARED = req!("lifecycle.error-handling.prepared", Should, Both, V2024_11_05, Some(V2025_11_25), "basic/lifecycle#error-handling",
        "Implementations cope with a protocol version mismatch, a failed capability negotiation and request timeouts without hanging or crashing."),
    LIFECYCLE_INITIALIZE_NOT_BATCHED = req!("lifecycle.initialize.not-batched", Must, Client, V2025_03_26, Some(V2025_03_26), "basic/lifecycle#initialization",
        "The initialize request is never part of a JSON-RPC batch."),
}
