//! What each [`Fault`] is: its name, the rule it breaks (level, requirement,
//! section), what the faulty server does, and over which transports. One
//! entry per fault; the accessors of [`Fault`] read them.

use mcpspec_engine::{ids, Level, Requirement};

use super::{Fault, Transport};

/// The static description of a fault.
pub(super) struct Info {
    pub(super) name: &'static str,
    pub(super) level: Level,
    pub(super) requirement: &'static Requirement,
    pub(super) section: &'static str,
    pub(super) description: &'static str,
    pub(super) transports: &'static [Transport],
    /// Seen only by `mcpspec fuzz`'s oracles (memory growth), not by a
    /// scenario run: the scenario self-validation leaves it out.
    pub(super) fuzz_only: bool,
}

impl Info {
    const fn fuzz_only(self) -> Info {
        Info {
            fuzz_only: true,
            ..self
        }
    }

    /// Restricts the fault to the transports whose rule it breaks.
    pub(super) const fn only(self, transports: &'static [Transport]) -> Info {
        Info { transports, ..self }
    }
}

const STDIO: &[Transport] = &[Transport::Stdio];
pub(super) const HTTP: &[Transport] = &[Transport::StreamableHttp];
const SSE: &[Transport] = &[Transport::LegacySse];

pub(super) const fn info(
    name: &'static str,
    level: Level,
    requirement: &'static Requirement,
    section: &'static str,
    description: &'static str,
) -> Info {
    Info {
        name,
        level,
        requirement,
        section,
        description,
        transports: Transport::ALL,
        fuzz_only: false,
    }
}

impl Fault {
    /// The fault's entry.
    pub(super) fn info(self) -> Info {
        use Level::{Must, Should};
        match self {
            Fault::AnswerNotification => info(
                "answer-notification", Must, &ids::JSONRPC_NOTIFICATION_NO_RESPONSE, "basic#notifications",
                "answers every notification (e.g. notifications/initialized) with a result whose id is null",
            ),
            Fault::UnknownMethodCode => info(
                "unknown-method-code", Should, &ids::JSONRPC_ERROR_METHOD_NOT_FOUND, "basic#responses",
                "reports an unknown method with -32600 (invalid request) instead of -32601 (method not found, JSON-RPC 2.0 section 5.1)",
            ),
            Fault::EchoUnsupportedVersion => info(
                "echo-unsupported-version", Must, &ids::LIFECYCLE_VERSION_SUPPORTED_ALTERNATIVE, "basic/lifecycle#version-negotiation",
                "echoes the protocolVersion value the client sends verbatim, whatever it is (an unsupported version, an empty string, a number), instead of offering a version it supports",
            ),
            Fault::InvalidCursorAccepted => info(
                "invalid-cursor-accepted", Should, &ids::PAGINATION_INVALID_CURSOR, "server/utilities/pagination#error-handling",
                "answers a list request with an invalid cursor with the first page instead of a -32602 error",
            ),
            Fault::PaginationLoop => info(
                "pagination-loop", Should, &ids::PAGINATION_CURSOR_TERMINATES, "server/utilities/pagination#implementation-guidelines",
                "gives the last page of every list a nextCursor that leads back to the first page, so paging never ends",
            ),
            Fault::PaginationDuplicates => info(
                "pagination-duplicates", Should, &ids::PAGINATION_CURSOR_NO_DUPLICATES, "server/utilities/pagination#implementation-guidelines",
                "starts every page after the first with the previous page's last item again",
            ),
            Fault::IgnoreCancellation => info(
                "ignore-cancellation", Should, &ids::CANCELLATION_NO_RESPONSE, "basic/utilities/cancellation#behavior-requirements",
                "keeps working on a cancelled request and still sends its response",
            ),
            Fault::ProgressAfterResponse => info(
                "progress-after-response", Must, &ids::PROGRESS_TOKEN_ACTIVE, "basic/utilities/progress#behavior-requirements",
                "sends one more progress notification for a token after the request has been answered",
            ),
            Fault::ProgressNotIncreasing => info(
                "progress-not-increasing", Must, &ids::PROGRESS_INCREASING, "basic/utilities/progress#progress-flow",
                "repeats the first progress notification, so the progress value does not increase",
            ),
            Fault::WrongProgressToken => info(
                "wrong-progress-token", Must, &ids::PROGRESS_TOKEN_ACTIVE, "basic/utilities/progress#behavior-requirements",
                "sends progress notifications under a token the client never supplied",
            ),
            Fault::DropJsonrpc => info(
                "drop-jsonrpc", Must, &ids::JSONRPC_MESSAGE_VALID, "basic#messages",
                "omits the \"jsonrpc\": \"2.0\" member from its responses",
            ),
            Fault::StringifyIds => info(
                "stringify-ids", Must, &ids::JSONRPC_RESPONSE_ID_MATCHES, "basic#responses",
                "answers requests with integer ids using the id as a string (1 becomes \"1\")",
            ),
            Fault::StdoutNoise => info(
                "stdout-noise", Must, &ids::STDIO_STDOUT_ONLY_MCP, "basic/transports#stdio",
                "writes a non-JSON line (\"server started\") to stdout after the initialize response",
            ).only(STDIO),
            Fault::EmbeddedNewlines => info(
                "embedded-newlines", Must, &ids::STDIO_NEWLINE_DELIMITED, "basic/transports#stdio",
                "pretty-prints its messages over several lines instead of one line each",
            ).only(STDIO),
            Fault::ExitOnMalformed => info(
                "exit-on-malformed", Should, &ids::JSONRPC_ERROR_PARSE_ERROR, "basic#responses",
                "exits with status 1 on unparseable JSON instead of answering with a -32700 parse error (JSON-RPC 2.0 section 5.1)",
            ),
            Fault::ParseErrorId => info(
                "parse-error-id", Must, &ids::JSONRPC_ERROR_NULL_ID, "basic#responses",
                "gives parse-error responses the id 0 instead of null, although no id could be read (JSON-RPC 2.0 section 5)",
            ),
            Fault::InvalidParamsCode => info(
                "invalid-params-code", Should, &ids::JSONRPC_ERROR_INVALID_PARAMS, "server/tools#error-handling",
                "reports invalid params (unknown tool or prompt, missing argument, bad cursor or log level) with -32603 instead of -32602",
            ),
            Fault::ResourceNotFoundCode => info(
                "resource-not-found-code", Should, &ids::RESOURCES_READ_NOT_FOUND, "server/resources#error-handling",
                "reports an unknown resource URI with -32603 instead of -32002 (resource not found)",
            ),
            Fault::RejectEarlyPing => info(
                "reject-early-ping", Should, &ids::LIFECYCLE_SERVER_PING_BEFORE_INIT, "basic/lifecycle#initialization",
                "answers a ping sent before initialize with an error instead of an empty result",
            ),
            Fault::PingNonEmpty => info(
                "ping-non-empty", Must, &ids::PING_RESPOND, "basic/utilities/ping#behavior-requirements",
                "answers ping with {\"ok\":true} instead of an empty result",
            ),
            Fault::MissingServerInfo => info(
                "missing-server-info", Must, &ids::LIFECYCLE_INITIALIZE_RESULT_SHAPE, "basic/lifecycle#initialization",
                "leaves the required serverInfo member out of the initialize result",
            ),
            Fault::CapabilitiesNotObject => info(
                "capabilities-not-object", Must, &ids::LIFECYCLE_INITIALIZE_CAPABILITIES_SHAPE, "basic/lifecycle#capability-negotiation",
                "declares the tools capability as `true` instead of an object in the initialize result (tools are still served)",
            ),
            Fault::LogBelowLevel => info(
                "log-below-level", Should, &ids::LOGGING_SET_LEVEL_FILTER, "server/utilities/logging#setting-log-level",
                "after logging/setLevel, still sends log messages less severe than the level set",
            ),
            Fault::UndeclaredLogging => info(
                "undeclared-logging", Must, &ids::LOGGING_CAPABILITY_DECLARED, "server/utilities/logging#capabilities",
                "sends notifications/message without declaring the logging capability",
            ),
            Fault::NoBatch => info(
                "no-batch", Must, &ids::JSONRPC_BATCH_RECEIVE, "basic#batching",
                "under 2025-03-26, rejects every JSON-RPC batch with a single -32600 error",
            ),
            Fault::HangOnCall => info(
                "hang-on-call", Must, &ids::JSONRPC_REQUEST_ANSWERED, "basic#responses",
                "never answers tools/call (the server stays alive and answers everything else)",
            ),
            Fault::ExitOnCall => info(
                "exit-on-call", Must, &ids::JSONRPC_REQUEST_ANSWERED, "basic#responses",
                "exits with status 1 when it receives tools/call, leaving the request unanswered",
            ),
            Fault::DuplicateResponse => info(
                "duplicate-response", Must, &ids::JSONRPC_RESPONSE_ONCE, "basic#responses",
                "answers every tools/call twice",
            ),
            Fault::StructuredMismatch => info(
                "structured-mismatch", Must, &ids::TOOLS_OUTPUT_SCHEMA_CONFORM, "server/tools#output-schema",
                "from 2025-06-18 on, the structured tool's structuredContent does not conform to its declared outputSchema",
            ),
            Fault::EarlyRequest => info(
                "early-request", Should, &ids::LIFECYCLE_SERVER_NO_REQUESTS_BEFORE_INITIALIZED, "basic/lifecycle#initialization",
                "sends roots/list right after the initialize response, before notifications/initialized (only to clients that declared roots)",
            ),
            Fault::BlobRawBytes => info(
                "blob-raw-bytes", Must, &ids::RESOURCES_SECURITY_BINARY_ENCODED, "server/resources#security-considerations",
                "puts the raw bytes of binary contents (resources/read, embedded resources) into `blob` as a string instead of base64-encoding them",
            ),
            Fault::ReadWrongUri => info(
                "read-wrong-uri", Should, &ids::RESOURCES_READ_CONTENTS_URI, "server/resources#reading-resources",
                "labels the contents of resources/read with another URI (the requested one plus \"#contents\") instead of the URI that was read",
            ),
            Fault::RelativeResourceUri => info(
                "relative-resource-uri", Must, &ids::RESOURCES_URI_RFC3986, "server/resources#common-uri-schemes",
                "lists (and serves) one more resource under the relative reference \"notes.txt\", which has no scheme and so is not a URI (RFC 3986)",
            ),
            Fault::DuplicateToolName => info(
                "duplicate-tool-name", Should, &ids::TOOLS_LIST_UNIQUE_NAMES, "server/tools#tool",
                "lists a second tool named echo (with another description) at the end of tools/list",
            ),
            Fault::ToolNameFormat => info(
                "tool-name-format", Should, &ids::TOOLS_NAME_FORMAT, "server/tools#tool-names",
                "from 2025-11-25 on, lists and serves the add tool as \"add numbers\", a name with a space",
            ),
            Fault::ToolAnnotationStrings => info(
                "tool-annotation-strings", Must, &ids::TOOLS_ANNOTATIONS_SHAPE, "server/tools#tool",
                "from 2025-03-26 on, gives the idempotentHint tool annotation as the string \"true\" instead of a boolean",
            ),
            Fault::TitleNotString => info(
                "title-not-string", Must, &ids::TOOLS_TITLE_TYPE, "server/tools#tool",
                "from 2025-06-18 on, gives each tool's title as a localised object ({\"en\": ...}) instead of a string",
            ),
            Fault::TextContentKey => info(
                "text-content-key", Must, &ids::TOOLS_CALL_RESULT_SHAPE, "server/tools#text-content",
                "puts the text of every text content item of a tool result under `content` instead of `text`",
            ),
            Fault::RequireArguments => info(
                "require-arguments", Should, &ids::TOOLS_CALL_ARGUMENTS_OPTIONAL, "server/tools#calling-tools",
                "rejects a tools/call without an `arguments` member with -32602, although the member is optional",
            ),
            Fault::ImageDataUrl => info(
                "image-data-url", Must, &ids::CONTENT_IMAGE_BASE64, "server/prompts#image-content",
                "gives image content as a data: URL (\"data:image/png;base64,...\") instead of bare base64 data",
            ),
            Fault::AudioMissingMimeType => info(
                "audio-missing-mime-type", Must, &ids::CONTENT_AUDIO_BASE64, "server/prompts#audio-content",
                "leaves the required mimeType out of audio content items",
            ),
            Fault::EmbeddedResourceFlat => info(
                "embedded-resource-flat", Must, &ids::CONTENT_RESOURCE_EMBEDDED, "server/prompts#embedded-resources",
                "puts an embedded resource's uri, mimeType and text directly on the content item instead of in its `resource` member",
            ),
            Fault::ResourceLinkNoName => info(
                "resource-link-no-name", Must, &ids::CONTENT_RESOURCE_LINK_SHAPE, "server/tools#resource-links",
                "from 2025-06-18 on, leaves the required name out of resource_link content items",
            ),
            Fault::AnnotationPriorityRange => info(
                "annotation-priority-range", Must, &ids::CONTENT_ANNOTATIONS_SHAPE, "server/resources#annotations",
                "gives content annotations a priority on a 1-to-10 scale (8) instead of a number from 0 to 1",
            ),
            Fault::ContentTypeTooNew => info(
                "content-type-too-new", Must, &ids::CONTENT_TYPE_KNOWN, "server/prompts#promptmessage",
                "includes content types the negotiated version does not define: audio under 2024-11-05, resource_link before 2025-06-18",
            ),
            Fault::CancelAll => info(
                "cancel-all", Must, &ids::JSONRPC_REQUEST_ANSWERED, "basic/utilities/cancellation#behavior-requirements",
                "on notifications/cancelled, drops every request in flight, not only the one named, so the others are never answered",
            ),
            Fault::ProgressAfterCancel => info(
                "progress-after-cancel", Should, &ids::CANCELLATION_STOP_PROCESSING, "basic/utilities/cancellation#behavior-requirements",
                "keeps working on a cancelled request, sending its progress notifications to the end (only the response is withheld)",
            ),
            Fault::AnswerCancelled => info(
                "answer-cancelled", Should, &ids::CANCELLATION_NO_RESPONSE, "basic/utilities/cancellation#behavior-requirements",
                "answers a cancelled request at once with an error (-32800, \"Request cancelled\") instead of sending nothing for it",
            ),
            Fault::RejectMeta => info(
                "reject-meta", Should, &ids::PROGRESS_TOKEN_ACCEPTED, "basic/utilities/progress#progress-flow",
                "rejects list requests whose params carry `_meta` (such as a progressToken) with -32602 instead of answering them",
            ),
            Fault::StructuredNoText => info(
                "structured-no-text", Should, &ids::TOOLS_STRUCTURED_TEXT_FALLBACK, "server/tools#structured-content",
                "from 2025-06-18 on, returns structuredContent with an empty content array instead of also serialising it in a text block",
            ),
            // ── 2026-07-28 (stateless) ────────────────────────────────────
            Fault::StatelessMissingMetaAccepted => info(
                "stateless-missing-meta-accepted", Must, &ids::STATELESS_META_MISSING_REJECTED, "basic#meta",
                "serves a request that carries no _meta at all (before any initialize), or whose _meta lacks io.modelcontextprotocol/protocolVersion or io.modelcontextprotocol/clientCapabilities, as a 2026-07-28 request with no client capabilities (a normal result) instead of rejecting it (-32602 for an incomplete _meta; -32600 \"send initialize first\" for no _meta at all over stdio)",
            ),
            Fault::StatelessUnsupportedVersionWrongCode => info(
                "stateless-unsupported-version-wrong-code", Must, &ids::STATELESS_VERSION_UNSUPPORTED, "basic/lifecycle#version-negotiation",
                "answers a request whose _meta names a protocol version it does not support (e.g. \"1999-01-01\") with -32602 (same data) instead of -32022",
            ),
            Fault::StatelessUnsupportedVersionNoData => info(
                "stateless-unsupported-version-no-data", Must, &ids::STATELESS_VERSION_UNSUPPORTED, "basic/lifecycle#version-negotiation",
                "answers a request whose _meta names an unsupported protocol version with -32022 but without data (no requested, no supported list)",
            ),
            Fault::DiscoverMissingSupportedVersions => info(
                "discover-missing-supported-versions", Must, &ids::STATELESS_DISCOVER_RESULT_SHAPE, "server/discover",
                "leaves the required supportedVersions member out of the server/discover result (everything else is there)",
            ),
            Fault::StatelessResultTypeMissing => info(
                "stateless-result-type-missing", Must, &ids::STATELESS_RESULT_RESULT_TYPE, "basic#responses",
                "leaves resultType out of every complete result to a 2026-07-28 request (discover, lists, tools/call, prompts/get, …; an input_required result keeps it)",
            ),
            Fault::StatelessCapabilityInferred => info(
                "stateless-capability-inferred", Must, &ids::STATELESS_CAPABILITY_NO_INFERENCE, "basic#meta",
                "remembers client capabilities declared on earlier 2026-07-28 requests: after one request declaring roots, a tools/call of the roots tool whose own _meta declares no roots gets an input_required result instead of -32021",
            ),
            Fault::StatelessResourceNotFoundEmpty => info(
                "stateless-resource-not-found-empty", Must, &ids::RESOURCES_READ_NOT_FOUND_INVALID_PARAMS, "server/resources#error-handling",
                "answers a 2026-07-28 resources/read of a URI it does not know with a result whose contents array is empty instead of error -32602",
            ),
            Fault::StatelessRemovedMethodAnswered => info(
                "stateless-removed-method-answered", Should, &ids::STATELESS_REMOVED_METHODS, "basic#messages",
                "answers ping sent with 2026-07-28 _meta with a result ({\"resultType\":\"complete\"}) instead of -32601, although 2026-07-28 has no ping",
            ),
            // subscriptions/listen: served over stdio only (see `listen`).
            Fault::ListenNoAck => info(
                "listen-no-ack", Must, &ids::STATELESS_SUBSCRIPTIONS_ACKNOWLEDGE_FIRST, "basic/utilities/subscriptions",
                "opens subscriptions/listen streams without sending notifications/subscriptions/acknowledged, and delivers their notifications all the same",
            ).only(STDIO),
            Fault::ListenUnrequested => info(
                "listen-unrequested", Must, &ids::STATELESS_SUBSCRIPTIONS_REQUESTED_ONLY, "basic/utilities/subscriptions",
                "delivers the counter's notifications/resources/updated on every subscriptions/listen stream, whether or not the client listed that URI in resourceSubscriptions",
            ).only(STDIO),
            Fault::ListenNoSubscriptionId => info(
                "listen-no-subscription-id", Must, &ids::STATELESS_SUBSCRIPTIONS_ID_ON_NOTIFICATIONS, "basic/utilities/subscriptions",
                "leaves io.modelcontextprotocol/subscriptionId out of the _meta of the notifications it delivers on a subscriptions/listen stream (the acknowledgement keeps it)",
            ).only(STDIO),
            Fault::ListenAckSuperset => info(
                "listen-ack-superset", Must, &ids::STATELESS_SUBSCRIPTIONS_ACKNOWLEDGED_SUBSET, "basic/utilities/subscriptions",
                "acknowledges every list_changed notification type on a subscriptions/listen stream, including types the client did not request",
            ).only(STDIO),
            // ── input-required fixtures (`mrtr`) ──────────────────────────
            Fault::InputRequiredOnList => info(
                "input-required-on-list", Must, &ids::STATELESS_INPUT_REQUIRED_SUPPORTED_REQUESTS, "basic/patterns/mrtr#supported-requests",
                "answers a 2026-07-28 prompts/list with an input_required result (a requestState and nothing else) instead of the listing, although only prompts/get, resources/read and tools/call may ask for input",
            ),
            Fault::InputRequiredUndeclared => info(
                "input-required-undeclared", Must, &ids::STATELESS_INPUT_REQUIRED_DECLARED_CAPABILITIES, "basic/patterns/mrtr#server-requirements-basic-workflow",
                "its input-required fixtures ask for elicitation, sampling and roots whatever the request's clientCapabilities declare (no -32021; test_input_required_result_capabilities asks for all three)",
            ),
            Fault::InputRequiredStateUnverified => info(
                "input-required-state-unverified", Must, &ids::STATELESS_INPUT_REQUIRED_STATE_INTEGRITY, "basic/patterns/mrtr#server-requirements-basic-workflow",
                "trusts the requestState its fixtures get back without checking its tag or which tool issued it: an altered state completes the call",
            ),
            Fault::InputRequiredMissingError => info(
                "input-required-missing-error", Should, &ids::STATELESS_INPUT_REQUIRED_MISSING_REREQUESTED, "basic/patterns/mrtr#error-handling",
                "answers a retry whose inputResponses lack an answer it asked for with -32602 instead of asking for it again in a new input_required result",
            ),
            Fault::InputRequiredExtraRejected => info(
                "input-required-extra-rejected", Should, &ids::STATELESS_INPUT_REQUIRED_IGNORE_EXTRA, "basic/patterns/mrtr#error-handling",
                "rejects with -32602 a retry whose inputResponses carry keys it did not ask for, instead of ignoring them",
            ),
            Fault::InputRequiredUnvalidated => info(
                "input-required-unvalidated", Should, &ids::STATELESS_INPUT_REQUIRED_VALIDATE_RESPONSES, "basic/patterns/mrtr#error-handling",
                "does not validate inputResponses: an answer of the wrong shape (a number for an elicitation result) completes the call, and a non-object inputResponses counts as no answer",
            ),
            Fault::InputRequiredRetryIgnored => info(
                "input-required-retry-ignored", Must, &ids::STATELESS_INPUT_REQUIRED_RETRY_COMPLETES, "basic/patterns/mrtr#basic-workflow",
                "ignores the inputResponses and requestState of a retried fixture call: every retry is asked the first round's input again, so none completes",
            ),
            Fault::InputRequiredResultTypeMissing => info(
                "input-required-result-type-missing", Must, &ids::STATELESS_RESULT_RESULT_TYPE, "basic#responses",
                "leaves resultType out of the input_required results of its fixtures (complete results keep theirs)",
            ),
            // ── Streamable HTTP (`/mcp`) ──────────────────────────────────
            Fault::HttpUnknownSession400 => info(
                "http-unknown-session-400", Must, &ids::HTTP_SESSION_TERMINATED_404, "basic/transports#session-management",
                "answers a request carrying an unknown or ended Mcp-Session-Id with HTTP 400 instead of 404",
            ).only(HTTP),
            Fault::HttpSessionIdSpace => info(
                "http-session-id-space", Must, &ids::HTTP_SESSION_ID_VISIBLE_ASCII, "basic/transports#session-management",
                "issues session ids that contain a space (\"mcp session <hex>\"), which is not visible ASCII (0x21 to 0x7E)",
            ).only(HTTP),
            Fault::HttpMissingSessionAccepted => info(
                "http-missing-session-accepted", Should, &ids::HTTP_SESSION_MISSING_400, "basic/transports#session-management",
                "serves a POST without Mcp-Session-Id (other than initialize) with 200, from a fresh uninitialised server, instead of answering HTTP 400",
            ).only(HTTP),
            Fault::HttpForeignOriginAccepted => info(
                "http-foreign-origin-accepted", Must, &ids::HTTP_SECURITY_ORIGIN, "basic/transports#security-warning",
                "does not check the Origin header: a request from a foreign origin (e.g. http://evil.example) is served instead of answered with HTTP 403",
            ).only(HTTP),
            Fault::ToolInputUnvalidated => info(
                "tool-input-unvalidated", Must, &ids::TOOLS_SECURITY_VALIDATE_INPUTS, "server/tools#security-considerations",
                "acts on tool arguments that do not fit the tool's input schema (a missing required argument, a wrong type): the call succeeds (no isError, no error) with an empty stand-in value",
            ),
            Fault::ResourceUriUnvalidated => info(
                "resource-uri-unvalidated", Must, &ids::RESOURCES_SECURITY_VALIDATE_URIS, "server/resources#security-considerations",
                "does not validate resource URIs: resources/read of a string that is no URI (no scheme, e.g. `not a uri`) returns an empty text content instead of an error",
            ),
            Fault::ToolsListRefused => info(
                "tools-list-refused", Must, &ids::TOOLS_LIST_CURRENT_SET, "server/tools#capabilities",
                "at 2026-07-28 declares tools but answers tools/list with a -32603 error instead of the tools currently available",
            ),
            Fault::PromptsListRefused => info(
                "prompts-list-refused", Must, &ids::PROMPTS_LIST_CURRENT_SET, "server/prompts#capabilities",
                "at 2026-07-28 declares prompts but answers prompts/list with a -32603 error instead of the prompts currently available",
            ),
            Fault::ResourcesListRefused => info(
                "resources-list-refused", Must, &ids::RESOURCES_LIST_CURRENT_SET, "server/resources#capabilities",
                "at 2026-07-28 declares resources but answers resources/list with a -32603 error instead of the resources currently available",
            ),
            Fault::LateCancelWedges => info(
                "late-cancel-wedges", Must, &ids::CANCELLATION_RACE_GRACEFUL, "basic/utilities/cancellation#timing-considerations",
                "stops answering requests after a notifications/cancelled that names a request it has already answered (as when the cancellation crosses the response in flight)",
            ),
            Fault::InputRequiredDeclineFails => info(
                "input-required-decline-fails", Must, &ids::ELICITATION_SERVER_HANDLES_REFUSAL, "client/elicitation#error-handling",
                "answers a 2026-07-28 retry whose elicitation answer is decline or cancel with an internal error (-32603) instead of finishing the request",
            ),
            Fault::StatelessClientInfoRequired => info(
                "stateless-client-info-required", Should, &ids::STATELESS_META_CLIENT_INFO_UNTRUSTED, "basic#meta",
                "refuses a 2026-07-28 request whose _meta lacks the optional io.modelcontextprotocol/clientInfo with -32602, as if it were malformed",
            ),
            Fault::HttpDeleteIgnored => info(
                "http-delete-ignored", Must, &ids::HTTP_SESSION_TERMINATED_404, "basic/transports#session-management",
                "answers DELETE with 200 but keeps the session: later requests with its id are still served instead of answered with HTTP 404",
            ).only(HTTP),
            Fault::HttpNotification200 => info(
                "http-notification-200", Must, &ids::HTTP_POST_ACCEPTED_202, "basic/transports#sending-messages-to-the-server",
                "answers a POSTed notification or response with HTTP 200 (empty body) instead of 202 Accepted",
            ).only(HTTP),
            Fault::HttpProtocolVersionNotChecked => info(
                "http-protocol-version-not-checked", Must, &ids::HTTP_HEADER_PROTOCOL_VERSION_INVALID, "basic/transports#protocol-version-header",
                "in sessions at 2025-06-18 or later, serves requests whose MCP-Protocol-Version header is invalid or unsupported instead of answering HTTP 400",
            ).only(HTTP),
            Fault::HttpMalformedNoErrorBody => info(
                "http-malformed-no-error-body", Should, &ids::JSONRPC_ERROR_PARSE_ERROR, "basic#responses",
                "answers a POST body that is not JSON with HTTP 400 and an empty body instead of a -32700 parse error (JSON-RPC 2.0 section 5.1)",
            ).only(HTTP),
            Fault::HttpResponseOnGetStream => info(
                "http-response-on-get-stream", Must, &ids::HTTP_GET_NO_RESPONSES, "basic/transports#listening-for-messages-from-the-server",
                "while a GET stream is open, sends the responses to POSTed requests on it (the POST gets an SSE stream that closes without the response)",
            ).only(HTTP),
            Fault::HttpEventIdsPerStream => info(
                "http-event-ids-per-stream", Must, &ids::HTTP_RESUME_EVENT_ID_UNIQUE, "basic/transports#resumability-and-redelivery",
                "numbers SSE event ids per stream (1, 2, ... on every stream), so two streams of a session carry the same ids",
            ).only(HTTP),
            Fault::HttpSseStaysOpen => info(
                "http-sse-stays-open", Should, &ids::HTTP_SSE_CLOSE_AFTER_RESPONSE, "basic/transports#sending-messages-to-the-server",
                "keeps a POST's SSE stream open after sending the response, until the session ends",
            ).only(HTTP),
            Fault::HttpResponseTextPlain => info(
                "http-response-text-plain", Must, &ids::HTTP_POST_REQUEST_CONTENT_TYPE, "basic/transports#sending-messages-to-the-server",
                "answers a POSTed request with its JSON response under Content-Type text/plain instead of application/json",
            ).only(HTTP),
            Fault::HttpAcceptNotChecked => info(
                "http-accept-not-checked", Should, &ids::HTTP_POST_ACCEPT_REJECTED, "basic/transports#sending-messages-to-the-server",
                "serves a POST whose Accept header lists neither application/json nor text/event-stream (answering in JSON) instead of refusing it with HTTP 406",
            ).only(HTTP),
            Fault::HttpContentTypeNotChecked => info(
                "http-content-type-not-checked", Should, &ids::HTTP_POST_CONTENT_TYPE_REJECTED, "basic/transports#sending-messages-to-the-server",
                "processes a POST whose Content-Type is not application/json (e.g. text/plain) instead of refusing it with HTTP 415",
            ).only(HTTP),
            Fault::HttpHeaderMetaMismatchAccepted => info(
                "http-header-meta-mismatch-accepted", Must, &ids::HTTP_HEADER_MISMATCH_REJECTED, "basic/transports#protocol-version-header",
                "serves a 2026-07-28 POST whose MCP-Protocol-Version header is missing or differs from the body's _meta protocolVersion, or whose Mcp-Method header names another method than the body (HTTP 200, a normal result), instead of answering HTTP 400 with error -32020",
            ).only(HTTP),
            Fault::HttpNamedErrorStatus200 => info(
                "http-named-error-status-200", Must, &ids::HTTP_STATUS_NAMED_ERRORS, "basic/transports#sending-messages-to-the-server",
                "sends the 2026-07-28 named errors -32020, -32021 and -32022 with HTTP status 200 instead of 400 (the JSON-RPC body is unchanged)",
            ).only(HTTP),
            Fault::HttpGet404 => info(
                "http-get-404", Must, &ids::HTTP_GET_SSE_OR_405, "basic/transports#listening-for-messages-from-the-server",
                "answers a GET to the MCP endpoint with HTTP 404 instead of an SSE stream or 405 Method Not Allowed",
            ).only(HTTP),
            Fault::HttpProtocolVersionRequired => info(
                "http-protocol-version-required", Should, &ids::HTTP_HEADER_PROTOCOL_VERSION_DEFAULT, "basic/transports#protocol-version-header",
                "in sessions at 2025-06-18 or later, refuses a request without MCP-Protocol-Version with HTTP 400 instead of assuming a version",
            ).only(HTTP),
            Fault::HttpMalformed200 => info(
                "http-malformed-200", Should, &ids::HTTP_POST_MALFORMED_400, "basic/transports#sending-messages-to-the-server",
                "answers a POST body that is not a JSON-RPC message (not JSON, or empty) with HTTP 200 instead of 400 (the parse error body is unchanged)",
            ).only(HTTP),
            // ── legacy HTTP+SSE (`/sse`) ──────────────────────────────────
            Fault::SseEndpointNotFirst => info(
                "sse-endpoint-not-first", Must, &ids::SSE_ENDPOINT_EVENT, "basic/transports#http-with-sse",
                "sends a message event (a ping request) on the SSE stream before the endpoint event",
            ).only(SSE),
            Fault::SseForeignOriginAccepted => info(
                "sse-foreign-origin-accepted", Must, &ids::SSE_SECURITY_ORIGIN, "basic/transports#security-warning",
                "does not check the Origin header of the legacy transport: a GET of the SSE stream or a POST from a foreign origin (e.g. http://evil.example) is served instead of refused with HTTP 403",
            ).only(SSE),
            Fault::SseUnknownSessionHang => info(
                "sse-unknown-session-hang", Should, &ids::SSE_UNKNOWN_SESSION_REJECTED, "basic/transports#http-with-sse",
                "never answers a POST to the message endpoint naming an unknown sessionId (the connection stays open) instead of rejecting it with HTTP 404",
            ).only(SSE),
            Fault::SseAnswerInPostBody => info(
                "sse-answer-in-post-body", Must, &ids::SSE_MESSAGE_EVENT, "basic/transports#http-with-sse",
                "returns the immediate answer to a POSTed request in the POST's HTTP response body (200, application/json) instead of as a message event on the SSE stream",
            ).only(SSE),
            Fault::LeakOnMalformed => info(
                "leak-on-malformed", Should, &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID, "basic#messages",
                "keeps 256 KiB of memory for every unparseable line it answers, so that a stream of malformed input makes it grow without bound (only the fuzzer's memory oracle sees it)",
            ).only(STDIO).fuzz_only(),
            // ── the fixture profile: each breaks the official conformance
            // fixture's contract (a `fixture.*` profile rule, not the spec's).
            Fault::FixtureSimpleTextEmpty => info(
                "fixture-simple-text-empty", Must, &ids::FIXTURE_TOOLS_SIMPLE_TEXT, "server/tools#calling-tools",
                "fixture tool test_simple_text returns an empty content array",
            ),
            Fault::FixtureImageMissing => info(
                "fixture-image-missing", Must, &ids::FIXTURE_TOOLS_IMAGE, "server/tools#image-content",
                "fixture tools test_image_content and test_multiple_content_types leave their image item out (only text remains)",
            ),
            Fault::FixtureAudioMime => info(
                "fixture-audio-mime", Must, &ids::FIXTURE_TOOLS_AUDIO, "server/tools#audio-content",
                "fixture tool test_audio_content labels its WAV clip audio/mpeg instead of audio/wav",
            ),
            Fault::FixtureResourceMimeMissing => info(
                "fixture-resource-mime-missing", Must, &ids::FIXTURE_TOOLS_EMBEDDED_RESOURCE, "server/tools#embedded-resources",
                "leaves mimeType out of the fixture's test_embedded_resource resource and of test://static-text and test://static-binary contents (optional in the schema, required by the fixture)",
            ),
            Fault::FixtureErrorAsProtocolError => info(
                "fixture-error-as-protocol-error", Must, &ids::FIXTURE_TOOLS_ERROR, "server/tools#error-handling",
                "fixture tool test_error_handling fails with a JSON-RPC error -32603 instead of a result with isError true",
            ),
            Fault::FixtureProgressSilent => info(
                "fixture-progress-silent", Must, &ids::FIXTURE_TOOLS_PROGRESS, "basic/utilities/progress",
                "fixture tool test_tool_with_progress answers at once, without progress notifications, even when given a progress token",
            ),
            Fault::FixtureLoggingSilent => info(
                "fixture-logging-silent", Must, &ids::FIXTURE_TOOLS_LOGGING, "server/utilities/logging",
                "fixture tool test_tool_with_logging logs nothing of its own while it runs",
            ),
            Fault::FixtureClientRequestsSkipped => info(
                "fixture-client-requests-skipped", Must, &ids::FIXTURE_TOOLS_SAMPLING, "client/sampling",
                "fixture tools test_sampling and test_elicitation* answer at once without sending sampling/createMessage or elicitation/create to a client that declared the capability",
            ),
            Fault::FixtureElicitationSchemaPlain => info(
                "fixture-elicitation-schema-plain", Must, &ids::FIXTURE_TOOLS_ELICITATION_DEFAULTS, "client/elicitation#supported-schema-types",
                "the fixture's elicitation forms lose their SEP-1034 defaults, and its SEP-1330 titled enums become plain enums (no titles)",
            ),
            Fault::FixtureSchemaStripped => info(
                "fixture-schema-stripped", Must, &ids::FIXTURE_TOOLS_JSON_SCHEMA_2020_12, "basic#json-schema-usage",
                "lists fixture tool json_schema_2020_12_tool with a plain object inputSchema: $schema, $defs, $anchor, allOf/anyOf, if/then/else and additionalProperties stripped",
            ),
            Fault::FixturePromptContentMissing => info(
                "fixture-prompt-content-missing", Must, &ids::FIXTURE_PROMPTS_SIMPLE, "server/prompts#getting-a-prompt",
                "fixture prompt test_simple_prompt has no messages, and test_prompt_with_image and test_prompt_with_embedded_resource give text instead of their image and resource",
            ),
            Fault::FixtureArgumentsIgnored => info(
                "fixture-arguments-ignored", Must, &ids::FIXTURE_PROMPTS_ARGUMENTS, "server/prompts#getting-a-prompt",
                "fixture prompt test_prompt_with_arguments leaves arg2 out of its text, and reads of test://template/{id}/data do not mention the id",
            ),
            Fault::FixtureCompletionRefused => info(
                "fixture-completion-refused", Must, &ids::FIXTURE_COMPLETION_PROMPT_ARGUMENT, "server/utilities/completion",
                "answers completion/complete for the fixture prompt test_prompt_with_arguments with error -32602 instead of a result",
            ),
            Fault::HttpMethodHeaderOptional => info(
                "http-method-header-optional", Must, &ids::HTTP_HEADER_ROUTING_REJECTED, "basic/transports/streamable-http#server-validation",
                "serves a 2026-07-28 POSTed request that carries no Mcp-Method header instead of answering HTTP 400 with error -32020",
            ).only(HTTP),
            Fault::HttpMethodHeaderCaseInsensitive => info(
                "http-method-header-case-insensitive", Must, &ids::HTTP_HEADER_ROUTING_REJECTED, "basic/transports/streamable-http#case-sensitivity",
                "compares the Mcp-Method header with the body's method ignoring ASCII case (serves Mcp-Method: TOOLS/LIST for tools/list) instead of rejecting the differing value with HTTP 400 and error -32020",
            ).only(HTTP),
            Fault::HttpNameHeaderUnchecked => info(
                "http-name-header-unchecked", Must, &ids::HTTP_HEADER_ROUTING_REJECTED, "basic/transports/streamable-http#server-validation",
                "never checks Mcp-Name: serves a 2026-07-28 tools/call, prompts/get or resources/read whose Mcp-Name is missing or names another tool, prompt or resource than the body",
            ).only(HTTP),
            Fault::HttpNameHeaderNotDecoded => info(
                "http-name-header-not-decoded", Must, &ids::HTTP_HEADER_ROUTING_REJECTED, "basic/transports/streamable-http#value-encoding",
                "compares an Mcp-Name in the Base64 sentinel form (=?base64?...?=) with the body without decoding it, so a correctly encoded name is refused with HTTP 400 and error -32020",
            ).only(HTTP),
            Fault::HttpMethodNotFound200 => info(
                "http-method-not-found-200", Must, &ids::HTTP_STATUS_METHOD_NOT_FOUND_404, "basic/transports/streamable-http#protocol-version-header",
                "answers a 2026-07-28 request for a method it does not implement (an unknown method, or one the version removed such as ping) with HTTP 200 instead of 404 (the -32601 body is unchanged)",
            ).only(HTTP),
            Fault::HttpMetaInvalid200 => info(
                "http-meta-invalid-200", Must, &ids::HTTP_STATUS_META_INVALID_400, "basic#meta",
                "answers a 2026-07-28 request whose _meta lacks protocolVersion or clientCapabilities with HTTP 200 instead of 400 (the -32602 body is unchanged)",
            ).only(HTTP),
            Fault::StatelessCacheHintsMissing => info(
                "stateless-cache-hints-missing", Must, &ids::STATELESS_RESULT_CACHING_HINTS, "server/utilities/caching#cacheable-results",
                "leaves ttlMs and cacheScope out of its 2026-07-28 resources/templates/list and resources/read results (the lists and discover keep them)",
            ),
            Fault::ToolsListOrderVaries => info(
                "tools-list-order-varies", Should, &ids::TOOLS_LIST_DETERMINISTIC_ORDER, "server/tools#listing-tools",
                "lists its (unchanged) tools in an order that depends on the request: the tools of each tools/list page come in reverse order when the request id is odd",
            ),
            Fault::InputErrorAsProtocolError => info(
                "input-error-as-protocol-error", Should, &ids::TOOLS_CALL_INPUT_VALIDATION, "server/tools#error-handling",
                "from 2025-11-25 (2026-07-28 included), reports tool arguments that fail the input schema as a -32602 JSON-RPC error instead of a tool execution error (a result with isError true), as versions up to 2025-06-18 allowed",
            ),
            // ── what messages say (the oracle's every-message content rules)
            Fault::NotificationWithId => info(
                "notification-with-id", Must, &ids::JSONRPC_NOTIFICATION_NO_ID, "basic#notifications",
                "gives every notification it sends (progress, log messages, list changes) an id member, as if it were a request",
            ),
            Fault::TemplateNotRfc6570 => info(
                "template-not-rfc6570", Must, &ids::RESOURCES_TEMPLATES_RFC6570, "server/resources#resource-templates",
                "lists one more resource template whose uriTemplate (mcpspec://broken/{id) is not an RFC 6570 template: its expression is never closed",
            ),
            Fault::ToolSchemaInvalid => info(
                "tool-schema-invalid", Must, &ids::TOOLS_INPUT_SCHEMA_VALID, "server/tools#tool",
                "lists one more tool (invalid_schema) whose inputSchema is no valid JSON Schema: its property n has minimum \"zero\", not a number",
            ),
            Fault::MetaKeyMalformed => info(
                "meta-key-malformed", Must, &ids::META_KEY_FORMAT, "basic#meta",
                "adds to every tools/list result a _meta key (\"mcpspec dev/note\") that breaks the key format: a space in its prefix",
            ),
            Fault::PageScopeVaries => info(
                "page-scope-varies", Must, &ids::CACHING_SERVER_SCOPE_CONSISTENT_PAGES, "server/utilities/caching#interaction-with-pagination",
                "under 2026-07-28, marks every list page reached through a cursor cacheScope private, while the first page of the same list is public",
            ),
            Fault::SamplingToolsUngated => info(
                "sampling-tools-ungated", Must, &ids::SAMPLING_TOOLS_SERVER_GATED, "client/sampling#tools-in-sampling",
                "fixture tool test_sampling offers the client a tool (get_weather) in its sampling/createMessage although the client did not declare sampling.tools",
            ),
            Fault::ElicitationUrlUndeclared => info(
                "elicitation-url-undeclared", Must, &ids::ELICITATION_URL_CAPABILITY, "client/elicitation#capabilities",
                "fixture tool test_elicitation asks in URL mode (a link to open) although the client did not declare elicitation.url",
            ),
            Fault::HttpParamHeaderUnchecked => info(
                "http-param-header-unchecked", Must, &ids::HTTP_HEADER_PARAM_VALIDATED, "basic/transports/streamable-http#server-behavior-for-custom-headers",
                "never checks Mcp-Param-* headers: serves a 2026-07-28 tools/call of region_echo whose Mcp-Param-Region is missing, malformed or differs from the body's region",
            ).only(HTTP),
            Fault::HttpParamHeaderNotDecoded => info(
                "http-param-header-not-decoded", Must, &ids::HTTP_HEADER_SERVER_DECODES, "basic/transports/streamable-http#value-encoding",
                "compares an Mcp-Param-* value in the Base64 sentinel form (=?base64?...?=) with the body without decoding it, so a correctly encoded value is refused with HTTP 400 and error -32020",
            ).only(HTTP),
            // 2025-11-25 tasks: judged only under `--extension tasks`.
            Fault::TaskPlainResult => info(
                "task-plain-result", Must, &ids::TASKS_CREATE_RESULT, "basic/utilities/tasks#result-retrieval",
                "at 2025-11-25, answers a task-augmented tools/call of its task tool with the tool's plain CallToolResult instead of a CreateTaskResult",
            ),
            Fault::TaskStatusStuck => info(
                "task-status-stuck", Must, &ids::TASKS_STATUS_LIFECYCLE, "basic/utilities/tasks#task-status-lifecycle",
                "at 2025-11-25, reports a completed task as working in tasks/get and tasks/list, even after tasks/result has returned its result",
            ),
            Fault::TaskResultNoRelatedTask => info(
                "task-result-no-related-task", Must, &ids::TASKS_RELATED_TASK_META, "basic/utilities/tasks#associating-task-related-messages",
                "at 2025-11-25, leaves the io.modelcontextprotocol/related-task metadata out of its tasks/result responses",
            ),
            Fault::TaskUnknownIdInternalError => info(
                "task-unknown-id-internal-error", Must, &ids::TASKS_ERRORS, "basic/utilities/tasks#protocol-errors",
                "at 2025-11-25, answers tasks/get, tasks/result and tasks/cancel for an unknown taskId with -32603 instead of -32602",
            ),
            Fault::TaskCancelTerminalAccepted => info(
                "task-cancel-terminal-accepted", Must, &ids::TASKS_ERRORS, "basic/utilities/tasks#task-cancellation",
                "at 2025-11-25, answers tasks/cancel of a completed task with the task instead of -32602",
            ),
            Fault::TaskRequiredRunsPlain => info(
                "task-required-runs-plain", Must, &ids::TASKS_TOOL_LEVEL_REQUIRED_ERROR, "basic/utilities/tasks#tool-level-negotiation",
                "at 2025-11-25, runs a plain (not task-augmented) call of its tool whose taskSupport is required instead of answering -32601",
            ),
            Fault::TasksListMissing => info(
                "tasks-list-missing", Must, &ids::TASKS_LIST_CONSISTENT, "basic/utilities/tasks#task-listing",
                "at 2025-11-25, answers tasks/list with an empty list although it has tasks that tasks/get returns",
            ),
            Fault::TaskForbiddenAccepted => info(
                "task-forbidden-accepted", Should, &ids::TASKS_TOOL_LEVEL_FORBIDDEN_ERROR, "basic/utilities/tasks#tool-level-negotiation",
                "at 2025-11-25, creates a task for a task-augmented call of a tool without taskSupport instead of answering -32601",
            ),
            Fault::HttpNoPrimingEvent => info(
                "http-no-priming-event", Should, &ids::HTTP_SSE_PRIMING_EVENT, "basic/transports#sending-messages-to-the-server",
                "at 2025-11-25, opens a POST's SSE stream without the priming event (an event id with empty data), starting with the first message instead",
            ).only(HTTP),
            Fault::HttpResumeCrossReplay => info(
                "http-resume-cross-replay", Must, &ids::HTTP_RESUME_NO_CROSS_REPLAY, "basic/transports#resumability-and-redelivery",
                "on a GET with Last-Event-ID, replays after the named stream's events those of every other POST stream of the session too",
            ).only(HTTP),
            Fault::HttpConcurrentPostRefused => info(
                "http-concurrent-post-refused", Must, &ids::HTTP_POST_REQUEST_CONTENT_TYPE, "basic/transports#sending-messages-to-the-server",
                "refuses a POSTed tools/call with HTTP 409 Conflict while the SSE stream of another POSTed request is still open (one stream at a time)",
            ).only(HTTP),
            Fault::HttpForeignProgressOnStream => info(
                "http-foreign-progress-on-stream", Must, &ids::HTTP_SSE_NOTIFICATIONS_RELATED, "basic/transports/streamable-http#receiving-messages",
                "at 2026-07-28, opens every POST's SSE stream with a progress notification for a token no request of that POST supplied",
            ).only(HTTP),
            // ── authorization: the entries are in `table_auth.rs` ──
            f => f.auth_info(),
        }
    }
}
