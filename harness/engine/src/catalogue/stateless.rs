//! The stateless protocol of 2026-07-28: no handshake; `server/discover`
//! advertises versions and capabilities; every request carries its protocol
//! version and client capabilities in `params._meta`; results carry a
//! `resultType`; server-to-client requests travel inside an
//! `InputRequiredResult`; named errors -32020 (header mismatch), -32021
//! (missing client capability) and -32022 (unsupported version) carry their
//! details in `data`; `subscriptions/listen` replaces the GET stream and
//! `resources/subscribe`.

use crate::level::Level::{May, Must, Should};
use crate::version::Version::*;

use super::why;

entries! {
    // ── server/discover ──────────────────────────────────────────────────
    STATELESS_DISCOVER_IMPLEMENTED = req!("stateless.discover.implemented", Must, Server, V2026_07_28, None, "server/discover",
        "A server implements server/discover and answers it with a result."),
    STATELESS_DISCOVER_RESULT_SHAPE = req!("stateless.discover.result-shape", Must, Server, V2026_07_28, None, "server/discover",
        "The server/discover result lists supportedVersions (strings), capabilities, cacheScope (public or private), a non-negative integer ttlMs and resultType (members the schema requires)."),
    STATELESS_DISCOVER_OPTIONAL_FOR_CLIENTS = req!("stateless.discover.optional-for-clients", May, Client, V2026_07_28, None, "server/discover",
        "Clients may call server/discover but need not: the version can be settled inline through each request's _meta."),
    // ── per-request _meta ────────────────────────────────────────────────
    STATELESS_META_REQUIRED_KEYS = req!("stateless.meta.required-keys", Must, Client, V2026_07_28, None, "basic#meta",
        "Every request carries params._meta with io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object; empty means no optional capabilities)."),
    STATELESS_META_CLIENT_INFO = req!("stateless.meta.client-info", Should, Client, V2026_07_28, None, "basic#meta",
        "Every request carries io.modelcontextprotocol/clientInfo (name and version) in its _meta unless the client is configured not to."),
    STATELESS_META_CLIENT_INFO_UNTRUSTED = req!("stateless.meta.client-info-untrusted", Should, Server, V2026_07_28, None, "basic#meta",
        "A server neither changes its behaviour nor bases security decisions on the self-reported clientInfo.",
        excluded = why::INTERNAL),
    STATELESS_CAPABILITY_NO_INFERENCE = req!("stateless.capability.no-inference", Must, Server, V2026_07_28, None, "basic#meta",
        "A server judges each request by the client capabilities in that request's _meta, never by capabilities declared on earlier requests."),
    // ── versions and named errors ────────────────────────────────────────
    STATELESS_VERSION_UNSUPPORTED = req!("stateless.version.unsupported", Must, Server, V2026_07_28, None, "basic/lifecycle#version-negotiation",
        "A request naming a protocol version the server does not support earns error -32022 (UnsupportedProtocolVersionError) whose data lists the requested version and the supported ones."),
    STATELESS_CAPABILITY_MISSING = req!("stateless.capability.missing", Must, Server, V2026_07_28, None, "basic/lifecycle#capability-negotiation",
        "A request that needs a client capability its _meta does not declare earns error -32021 (MissingRequiredClientCapabilityError) whose data names the requiredCapabilities (the schema defines this error; its keyword is on the HTTP status)."),
    STATELESS_CLIENT_RETRY_SUPPORTED = req!("stateless.client.retry-supported", Should, Client, V2026_07_28, None, "basic/lifecycle#version-negotiation",
        "A client that receives -32022 retries with a version from the error's supported list that it also supports."),
    STATELESS_CLIENT_VERSION_FROM_SUPPORTED = req!("stateless.client.version-from-supported", Should, Client, V2026_07_28, None, "server/discover",
        "After server/discover, a client names in later requests' _meta a version from the result's supportedVersions (the schema's advice, in lower case)."),
    STATELESS_CLIENT_ERA_CACHED = req!("stateless.client.era-cached", Should, Client, V2026_07_28, None, "basic/versioning#backward-compatibility-with-initialization-based-versions",
        "Once a server has answered as a 2026-07-28 server (a result, or a named error such as -32022), a dual-era client keeps to the stateless protocol with it and does not fall back to initialize: the era belongs to the server, and the client caches it."),
    STATELESS_META_MISSING_REJECTED = req!("stateless.meta.missing-rejected", Should, Server, V2026_07_28, None, "basic#meta",
        "A request whose _meta lacks the protocol version or the client capabilities is refused with an error (-32602: the params miss members the schema requires), not served under a guessed version."),
    STATELESS_REMOVED_METHODS = req!("stateless.removed-methods", Should, Server, V2026_07_28, None, "basic#messages",
        "A request for a method 2026-07-28 no longer has (ping, logging/setLevel, resources/subscribe and unsubscribe), sent with this version's _meta, earns -32601: the server judges it by the version the request names."),
    STATELESS_NEGOTIATION_HANDSHAKE_FALLBACK = req!("stateless.negotiation.handshake-fallback", Should, Server, V2026_07_28, None, "basic/versioning#backward-compatibility-with-initialization-based-versions",
        "A server that lists a handshake-era version in server/discover also answers initialize for it as that era does, so that clients of both eras reach it (they fall back to initialize when discover fails)."),
    STATELESS_REMOVED_NOT_SENT = req!("stateless.removed.not-sent", Must, Both, V2026_07_28, None, "schema",
        "A peer speaking 2026-07-28 sends none of the methods this version dropped: ping, logging/setLevel, resources/subscribe and unsubscribe, the tasks methods, notifications/initialized, notifications/roots/list_changed, notifications/tasks/status and notifications/elicitation/complete (initialize only as a dual-era fallback). Derived from the schema's method unions; no keyword."),
    // ── error codes ──────────────────────────────────────────────────────
    STATELESS_ERROR_UNSUPPORTED_VERSION_DATA = req!("stateless.error.unsupported-version-data", Must, Server, V2026_07_28, None, "schema#unsupportedprotocolversionerror",
        "An UnsupportedProtocolVersionError (-32022) has data naming the version the request asked for (a string) and the versions the server does support (an array of strings, which cannot include the rejected one)."),
    STATELESS_ERROR_MISSING_CAPABILITY_DATA = req!("stateless.error.missing-capability-data", Must, Server, V2026_07_28, None, "schema#missingrequiredclientcapabilityerror",
        "A MissingRequiredClientCapabilityError (-32021) has data.requiredCapabilities: an object naming the client capabilities the request needs."),
    STATELESS_ERROR_RESERVED_RANGE = req!("stateless.error.reserved-range", Must, Both, V2026_07_28, None, "basic#error-codes",
        "Codes from -32020 to -32099 belong to the specification: an implementation emits only those the version defines (-32020, -32021, -32022), each with its defined meaning."),
    STATELESS_ERROR_RETIRED_CODES = req!("stateless.error.retired-codes", Must, Both, V2026_07_28, None, "basic#error-codes",
        "An implementation of 2026-07-28 emits neither -32002 (resource not found, replaced by -32602) nor -32042 (URL elicitation required): codes of earlier versions stay reserved."),
    // ── results ──────────────────────────────────────────────────────────
    STATELESS_RESULT_RESULT_TYPE = req!("stateless.result.result-type", Must, Server, V2026_07_28, None, "basic#responses",
        "Every result carries resultType: complete, or input_required when the server needs more input first."),
    STATELESS_RESULT_ABSENT_TYPE_COMPLETE = req!("stateless.result.absent-type-complete", Must, Client, V2026_07_28, None, "basic#responses",
        "A client treats a result without resultType (from a server speaking an older version) as complete."),
    STATELESS_RESULT_SERVER_INFO = req!("stateless.result.server-info", Should, Server, V2026_07_28, None, "basic#meta",
        "Every result carries io.modelcontextprotocol/serverInfo (name and version) in its _meta unless the server is configured not to."),
    STATELESS_RESULT_CACHE_SCOPE = req!("stateless.result.cache-scope", Must, Client, V2026_07_28, None, "server/discover",
        "A cached result marked private is never shared across authorization contexts.",
        excluded = "caching across authorization contexts concerns clients and intermediaries and is not observable over the wire"),
    STATELESS_RESULT_TTL = req!("stateless.result.ttl", Should, Client, V2026_07_28, None, "server/discover",
        "A client treats a cacheable result as fresh for ttlMs milliseconds, and as stale at once when ttlMs is 0.",
        excluded = why::INTERNAL),
    STATELESS_RESULT_CACHING_HINTS = req!("stateless.result.caching-hints", Must, Server, V2026_07_28, None, "server/utilities/caching#cacheable-results",
        "A complete result of server/discover, tools/list, prompts/list, resources/list, resources/templates/list or resources/read carries the caching hints: ttlMs, an integer of at least 0, and cacheScope, public or private."),
    // ── multi round-trip requests (server asks, client answers) ──────────
    STATELESS_INPUT_REQUIRED_SHAPE = req!("stateless.input-required.shape", Must, Server, V2026_07_28, None, "basic#responses",
        "An input_required result carries inputRequests, requestState, or both."),
    STATELESS_SERVER_NO_REQUESTS = req!("stateless.server.no-requests", Must, Server, V2026_07_28, None, "basic#messages",
        "A server sends no JSON-RPC requests of its own: sampling, roots and elicitation are asked for inside an input_required result (the schema defines no server-to-client request; derived, no keyword)."),
    STATELESS_CANCEL_LISTEN_ONLY = req!("stateless.cancel.listen-only", Must, Server, V2026_07_28, None, "schema#cancellednotification",
        "A server sends notifications/cancelled only to end a subscriptions/listen stream (on stdio), naming that listen request; it never cancels any other request."),
    // ── subscriptions/listen ─────────────────────────────────────────────
    STATELESS_SUBSCRIPTIONS_REQUESTED_ONLY = req!("stateless.subscriptions.requested-only", Must, Server, V2026_07_28, None, "basic/utilities/subscriptions",
        "On a subscriptions/listen stream a server sends only the notification types the client opted in to."),
    STATELESS_SUBSCRIPTIONS_ACKNOWLEDGE_FIRST = req!("stateless.subscriptions.acknowledge-first", Must, Server, V2026_07_28, None, "basic/utilities/subscriptions",
        "notifications/subscriptions/acknowledged is the first message carrying a subscription's id; nothing is sent on the subscription before it."),
    STATELESS_SUBSCRIPTIONS_ID_ON_NOTIFICATIONS = req!("stateless.subscriptions.id-on-notifications", Must, Server, V2026_07_28, None, "basic/utilities/subscriptions",
        "Every notification delivered on a subscriptions/listen stream carries io.modelcontextprotocol/subscriptionId: the id of the listen request."),
    STATELESS_SUBSCRIPTIONS_ACKNOWLEDGED_SUBSET = req!("stateless.subscriptions.acknowledged-subset", Must, Server, V2026_07_28, None, "basic/utilities/subscriptions",
        "The acknowledgement lists only notification types the server will honour, a subset of those requested (the schema's definition; no keyword)."),
}
