//! Fault switches: each one makes the reference server break exactly one rule
//! of the specification, deliberately, while everything else stays correct.
//!
//! They exist so that the harness can prove it is able to fail (DESIGN.md, "The
//! harness must be able to fail"): every scenario must catch at least one fault,
//! and the clean server must pass everything. A fault is only listed here when
//! the behaviour it switches on is a genuine violation of a citable MUST or
//! SHOULD; see [`Fault::requirement`] and [`Fault::section`].
//!
//! Requirement ids follow the catalogue style of `mcpspec_engine::catalogue`
//! (`area.topic.rule`); sections are relative to
//! `https://modelcontextprotocol.io/specification/<version>/`. Rules that come
//! from JSON-RPC 2.0 itself cite the MCP section that makes JSON-RPC 2.0
//! binding and name the JSON-RPC section in the description.

use mcpspec_engine::Level;
use std::fmt;

/// One deliberate spec violation of the reference server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    AnswerNotification,
    UnknownMethodCode,
    EchoUnsupportedVersion,
    InvalidCursorAccepted,
    PaginationLoop,
    PaginationDuplicates,
    IgnoreCancellation,
    ProgressAfterResponse,
    ProgressNotIncreasing,
    WrongProgressToken,
    DropJsonrpc,
    StringifyIds,
    StdoutNoise,
    EmbeddedNewlines,
    ExitOnMalformed,
    ParseErrorId,
    InvalidParamsCode,
    ResourceNotFoundCode,
    RejectEarlyPing,
    PingNonEmpty,
    MissingServerInfo,
    CapabilitiesNotObject,
    LogBelowLevel,
    UndeclaredLogging,
    NoBatch,
    HangOnCall,
    ExitOnCall,
    DuplicateResponse,
    StructuredMismatch,
    EarlyRequest,
    BlobRawBytes,
    ReadWrongUri,
    RelativeResourceUri,
    DuplicateToolName,
    ToolNameFormat,
    ToolAnnotationStrings,
    TitleNotString,
    TextContentKey,
    RequireArguments,
    ImageDataUrl,
    AudioMissingMimeType,
    EmbeddedResourceFlat,
    ResourceLinkNoName,
    AnnotationPriorityRange,
    ContentTypeTooNew,
    CancelAll,
    ProgressAfterCancel,
    RejectMeta,
    StructuredNoText,
}

/// The static description of a fault.
struct Info {
    name: &'static str,
    level: Level,
    requirement: &'static str,
    section: &'static str,
    description: &'static str,
}

const fn info(
    name: &'static str,
    level: Level,
    requirement: &'static str,
    section: &'static str,
    description: &'static str,
) -> Info {
    Info {
        name,
        level,
        requirement,
        section,
        description,
    }
}

impl Fault {
    /// Every fault, in the order `--list-faults` prints them.
    pub const ALL: &'static [Fault] = &[
        Fault::AnswerNotification,
        Fault::UnknownMethodCode,
        Fault::EchoUnsupportedVersion,
        Fault::InvalidCursorAccepted,
        Fault::PaginationLoop,
        Fault::PaginationDuplicates,
        Fault::IgnoreCancellation,
        Fault::ProgressAfterResponse,
        Fault::ProgressNotIncreasing,
        Fault::WrongProgressToken,
        Fault::DropJsonrpc,
        Fault::StringifyIds,
        Fault::StdoutNoise,
        Fault::EmbeddedNewlines,
        Fault::ExitOnMalformed,
        Fault::ParseErrorId,
        Fault::InvalidParamsCode,
        Fault::ResourceNotFoundCode,
        Fault::RejectEarlyPing,
        Fault::PingNonEmpty,
        Fault::MissingServerInfo,
        Fault::CapabilitiesNotObject,
        Fault::LogBelowLevel,
        Fault::UndeclaredLogging,
        Fault::NoBatch,
        Fault::HangOnCall,
        Fault::ExitOnCall,
        Fault::DuplicateResponse,
        Fault::StructuredMismatch,
        Fault::EarlyRequest,
        Fault::BlobRawBytes,
        Fault::ReadWrongUri,
        Fault::RelativeResourceUri,
        Fault::DuplicateToolName,
        Fault::ToolNameFormat,
        Fault::ToolAnnotationStrings,
        Fault::TitleNotString,
        Fault::TextContentKey,
        Fault::RequireArguments,
        Fault::ImageDataUrl,
        Fault::AudioMissingMimeType,
        Fault::EmbeddedResourceFlat,
        Fault::ResourceLinkNoName,
        Fault::AnnotationPriorityRange,
        Fault::ContentTypeTooNew,
        Fault::CancelAll,
        Fault::ProgressAfterCancel,
        Fault::RejectMeta,
        Fault::StructuredNoText,
    ];

    fn info(self) -> Info {
        use Level::{Must, Should};
        match self {
            Fault::AnswerNotification => info(
                "answer-notification", Must, "jsonrpc.notification.no-response", "basic#notifications",
                "answers every notification (e.g. notifications/initialized) with a result whose id is null",
            ),
            Fault::UnknownMethodCode => info(
                "unknown-method-code", Should, "jsonrpc.error.method-not-found", "basic#responses",
                "reports an unknown method with -32600 (invalid request) instead of -32601 (method not found, JSON-RPC 2.0 section 5.1)",
            ),
            Fault::EchoUnsupportedVersion => info(
                "echo-unsupported-version", Must, "lifecycle.version.supported-alternative", "basic/lifecycle#version-negotiation",
                "echoes the protocolVersion value the client sends verbatim, whatever it is (an unsupported version, an empty string, a number), instead of offering a version it supports",
            ),
            Fault::InvalidCursorAccepted => info(
                "invalid-cursor-accepted", Should, "pagination.invalid-cursor", "server/utilities/pagination#error-handling",
                "answers a list request with an invalid cursor with the first page instead of a -32602 error",
            ),
            Fault::PaginationLoop => info(
                "pagination-loop", Should, "pagination.cursor.terminates", "server/utilities/pagination#implementation-guidelines",
                "gives the last page of every list a nextCursor that leads back to the first page, so paging never ends",
            ),
            Fault::PaginationDuplicates => info(
                "pagination-duplicates", Should, "pagination.cursor.no-duplicates", "server/utilities/pagination#implementation-guidelines",
                "starts every page after the first with the previous page's last item again",
            ),
            Fault::IgnoreCancellation => info(
                "ignore-cancellation", Should, "cancellation.no-response", "basic/utilities/cancellation#behavior-requirements",
                "keeps working on a cancelled request and still sends its response",
            ),
            Fault::ProgressAfterResponse => info(
                "progress-after-response", Must, "progress.token-active", "basic/utilities/progress#behavior-requirements",
                "sends one more progress notification for a token after the request has been answered",
            ),
            Fault::ProgressNotIncreasing => info(
                "progress-not-increasing", Must, "progress.increasing", "basic/utilities/progress#progress-flow",
                "repeats the first progress notification, so the progress value does not increase",
            ),
            Fault::WrongProgressToken => info(
                "wrong-progress-token", Must, "progress.token-active", "basic/utilities/progress#behavior-requirements",
                "sends progress notifications under a token the client never supplied",
            ),
            Fault::DropJsonrpc => info(
                "drop-jsonrpc", Must, "jsonrpc.message.valid", "basic#messages",
                "omits the \"jsonrpc\": \"2.0\" member from its responses",
            ),
            Fault::StringifyIds => info(
                "stringify-ids", Must, "jsonrpc.response.id-matches", "basic#responses",
                "answers requests with integer ids using the id as a string (1 becomes \"1\")",
            ),
            Fault::StdoutNoise => info(
                "stdout-noise", Must, "stdio.stdout-only-mcp", "basic/transports#stdio",
                "writes a non-JSON line (\"server started\") to stdout after the initialize response",
            ),
            Fault::EmbeddedNewlines => info(
                "embedded-newlines", Must, "stdio.newline-delimited", "basic/transports#stdio",
                "pretty-prints its messages over several lines instead of one line each",
            ),
            Fault::ExitOnMalformed => info(
                "exit-on-malformed", Should, "jsonrpc.error.parse-error", "basic#responses",
                "exits with status 1 on unparseable JSON instead of answering with a -32700 parse error (JSON-RPC 2.0 section 5.1)",
            ),
            Fault::ParseErrorId => info(
                "parse-error-id", Must, "jsonrpc.error.null-id", "basic#responses",
                "gives parse-error responses the id 0 instead of null, although no id could be read (JSON-RPC 2.0 section 5)",
            ),
            Fault::InvalidParamsCode => info(
                "invalid-params-code", Should, "jsonrpc.error.invalid-params", "server/tools#error-handling",
                "reports invalid params (unknown tool or prompt, missing argument, bad cursor or log level) with -32603 instead of -32602",
            ),
            Fault::ResourceNotFoundCode => info(
                "resource-not-found-code", Should, "resources.read.not-found", "server/resources#error-handling",
                "reports an unknown resource URI with -32603 instead of -32002 (resource not found)",
            ),
            Fault::RejectEarlyPing => info(
                "reject-early-ping", Should, "lifecycle.server.ping-before-init", "basic/lifecycle#initialization",
                "answers a ping sent before initialize with an error instead of an empty result",
            ),
            Fault::PingNonEmpty => info(
                "ping-non-empty", Must, "ping.respond", "basic/utilities/ping#behavior-requirements",
                "answers ping with {\"ok\":true} instead of an empty result",
            ),
            Fault::MissingServerInfo => info(
                "missing-server-info", Must, "lifecycle.initialize.result-shape", "basic/lifecycle#initialization",
                "leaves the required serverInfo member out of the initialize result",
            ),
            Fault::CapabilitiesNotObject => info(
                "capabilities-not-object", Must, "lifecycle.initialize.capabilities-shape", "basic/lifecycle#capability-negotiation",
                "declares the tools capability as `true` instead of an object in the initialize result (tools are still served)",
            ),
            Fault::LogBelowLevel => info(
                "log-below-level", Should, "logging.set-level.filter", "server/utilities/logging#setting-log-level",
                "after logging/setLevel, still sends log messages less severe than the level set",
            ),
            Fault::UndeclaredLogging => info(
                "undeclared-logging", Must, "logging.capability.declared", "server/utilities/logging#capabilities",
                "sends notifications/message without declaring the logging capability",
            ),
            Fault::NoBatch => info(
                "no-batch", Must, "jsonrpc.batch.receive", "basic#batching",
                "under 2025-03-26, rejects every JSON-RPC batch with a single -32600 error",
            ),
            Fault::HangOnCall => info(
                "hang-on-call", Must, "jsonrpc.request.answered", "basic#responses",
                "never answers tools/call (the server stays alive and answers everything else)",
            ),
            Fault::ExitOnCall => info(
                "exit-on-call", Must, "jsonrpc.request.answered", "basic#responses",
                "exits with status 1 when it receives tools/call, leaving the request unanswered",
            ),
            Fault::DuplicateResponse => info(
                "duplicate-response", Must, "jsonrpc.response.once", "basic#responses",
                "answers every tools/call twice",
            ),
            Fault::StructuredMismatch => info(
                "structured-mismatch", Must, "tools.output-schema.conform", "server/tools#output-schema",
                "from 2025-06-18 on, the structured tool's structuredContent does not conform to its declared outputSchema",
            ),
            Fault::EarlyRequest => info(
                "early-request", Should, "lifecycle.server.no-requests-before-initialized", "basic/lifecycle#initialization",
                "sends roots/list right after the initialize response, before notifications/initialized (only to clients that declared roots)",
            ),
            Fault::BlobRawBytes => info(
                "blob-raw-bytes", Must, "resources.security.binary-encoded", "server/resources#security-considerations",
                "puts the raw bytes of binary contents (resources/read, embedded resources) into `blob` as a string instead of base64-encoding them",
            ),
            Fault::ReadWrongUri => info(
                "read-wrong-uri", Should, "resources.read.contents-uri", "server/resources#reading-resources",
                "labels the contents of resources/read with another URI (the requested one plus \"#contents\") instead of the URI that was read",
            ),
            Fault::RelativeResourceUri => info(
                "relative-resource-uri", Must, "resources.uri.rfc3986", "server/resources#common-uri-schemes",
                "lists (and serves) one more resource under the relative reference \"notes.txt\", which has no scheme and so is not a URI (RFC 3986)",
            ),
            Fault::DuplicateToolName => info(
                "duplicate-tool-name", Should, "tools.list.unique-names", "server/tools#tool",
                "lists a second tool named echo (with another description) at the end of tools/list",
            ),
            Fault::ToolNameFormat => info(
                "tool-name-format", Should, "tools.name.format", "server/tools#tool-names",
                "from 2025-11-25 on, lists and serves the add tool as \"add numbers\", a name with a space",
            ),
            Fault::ToolAnnotationStrings => info(
                "tool-annotation-strings", Must, "tools.annotations.shape", "server/tools#tool",
                "from 2025-03-26 on, gives the idempotentHint tool annotation as the string \"true\" instead of a boolean",
            ),
            Fault::TitleNotString => info(
                "title-not-string", Must, "tools.title.type", "server/tools#tool",
                "from 2025-06-18 on, gives each tool's title as a localised object ({\"en\": ...}) instead of a string",
            ),
            Fault::TextContentKey => info(
                "text-content-key", Must, "tools.call.result-shape", "server/tools#text-content",
                "puts the text of every text content item of a tool result under `content` instead of `text`",
            ),
            Fault::RequireArguments => info(
                "require-arguments", Should, "tools.call.arguments-optional", "server/tools#calling-tools",
                "rejects a tools/call without an `arguments` member with -32602, although the member is optional",
            ),
            Fault::ImageDataUrl => info(
                "image-data-url", Must, "content.image.base64", "server/prompts#image-content",
                "gives image content as a data: URL (\"data:image/png;base64,...\") instead of bare base64 data",
            ),
            Fault::AudioMissingMimeType => info(
                "audio-missing-mime-type", Must, "content.audio.base64", "server/prompts#audio-content",
                "leaves the required mimeType out of audio content items",
            ),
            Fault::EmbeddedResourceFlat => info(
                "embedded-resource-flat", Must, "content.resource.embedded", "server/prompts#embedded-resources",
                "puts an embedded resource's uri, mimeType and text directly on the content item instead of in its `resource` member",
            ),
            Fault::ResourceLinkNoName => info(
                "resource-link-no-name", Must, "content.resource-link.shape", "server/tools#resource-links",
                "from 2025-06-18 on, leaves the required name out of resource_link content items",
            ),
            Fault::AnnotationPriorityRange => info(
                "annotation-priority-range", Must, "content.annotations.shape", "server/resources#annotations",
                "gives content annotations a priority on a 1-to-10 scale (8) instead of a number from 0 to 1",
            ),
            Fault::ContentTypeTooNew => info(
                "content-type-too-new", Must, "content.type.known", "server/prompts#promptmessage",
                "includes content types the negotiated version does not define: audio under 2024-11-05, resource_link before 2025-06-18",
            ),
            Fault::CancelAll => info(
                "cancel-all", Must, "jsonrpc.request.answered", "basic/utilities/cancellation#behavior-requirements",
                "on notifications/cancelled, drops every request in flight, not only the one named, so the others are never answered",
            ),
            Fault::ProgressAfterCancel => info(
                "progress-after-cancel", Should, "cancellation.stop-processing", "basic/utilities/cancellation#behavior-requirements",
                "keeps working on a cancelled request, sending its progress notifications to the end (only the response is withheld)",
            ),
            Fault::RejectMeta => info(
                "reject-meta", Should, "progress.token.accepted", "basic/utilities/progress#progress-flow",
                "rejects list requests whose params carry `_meta` (such as a progressToken) with -32602 instead of answering them",
            ),
            Fault::StructuredNoText => info(
                "structured-no-text", Should, "tools.structured.text-fallback", "server/tools#structured-content",
                "from 2025-06-18 on, returns structuredContent with an empty content array instead of also serialising it in a text block",
            ),
        }
    }

    /// Kebab-case name, as given to `--fault`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// One line saying what the server does wrong.
    pub fn description(self) -> &'static str {
        self.info().description
    }

    /// Catalogue-style id of the requirement the fault breaks.
    pub fn requirement(self) -> &'static str {
        self.info().requirement
    }

    /// Page and anchor of the rule, relative to a version's specification root.
    pub fn section(self) -> &'static str {
        self.info().section
    }

    /// How binding the broken rule is: a MUST fault must make the harness
    /// fail, a SHOULD fault must make it warn.
    pub fn level(self) -> Level {
        self.info().level
    }

    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.iter().copied().find(|f| f.name() == name)
    }

    fn bit(self) -> u64 {
        1 << (self as u32)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of faults, cheap to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FaultSet(u64);

impl FaultSet {
    pub(crate) fn new(faults: &[Fault]) -> Self {
        FaultSet(faults.iter().fold(0, |acc, f| acc | f.bit()))
    }

    pub(crate) fn has(self, fault: Fault) -> bool {
        self.0 & fault.bit() != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let mut seen = HashSet::new();
        assert!(Fault::ALL.len() >= 16);
        assert!(Fault::ALL.len() <= 64, "FaultSet is a u64 bitset");
        for &f in Fault::ALL {
            assert!(seen.insert(f.name()), "duplicate fault name {}", f.name());
            assert!(f.name().chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert_eq!(Fault::from_name(f.name()), Some(f));
            assert!(f.requirement().split('.').count() >= 2);
            assert!(!f.description().is_empty() && !f.section().is_empty());
            assert_ne!(f.level(), Level::May, "a MAY cannot be violated");
        }
        assert_eq!(Fault::from_name("no-such-fault"), None);
    }

    #[test]
    fn fault_set_membership() {
        let set = FaultSet::new(&[Fault::NoBatch, Fault::EarlyRequest]);
        assert!(set.has(Fault::NoBatch) && set.has(Fault::EarlyRequest));
        assert!(!set.has(Fault::DropJsonrpc));
        assert!(!FaultSet::default().has(Fault::AnswerNotification));
    }
}
