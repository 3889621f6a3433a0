//! Fault switches: each one makes the reference server break exactly one rule
//! of the specification, deliberately, while everything else stays correct.
//!
//! They exist so that the harness can prove it is able to fail (DESIGN.md, "The
//! harness must be able to fail"): every scenario must catch at least one fault,
//! and the clean server must pass everything. A fault is only listed here when
//! the behaviour it switches on is a genuine violation of a citable MUST or
//! SHOULD; see [`Fault::requirement`] and [`Fault::section`]. The `fixture-*`
//! faults are the exception that proves it: each breaks the contract of the
//! official conformance suite's fixture server (a `fixture.*` rule of the
//! catalogue's fixture profile), which the fixture scenarios judge.
//!
//! Each fault names the catalogued requirement it breaks by its typed id
//! (`mcpspec_engine::ids`); sections are relative to
//! `https://modelcontextprotocol.io/specification/<version>/`. Rules that come
//! from JSON-RPC 2.0 itself cite the MCP section that makes JSON-RPC 2.0
//! binding and name the JSON-RPC section in the description.
//!
//! Each fault also says over which [`Transport`]s its violation exists
//! ([`Fault::transports`]): stdio-framing faults only over stdio, HTTP faults
//! (named `http-*` and `sse-*`) only over Streamable HTTP or legacy HTTP+SSE,
//! protocol faults everywhere. The sans-IO [`crate::ReferenceServer`]
//! carries out every fault that applies to stdio and ignores the HTTP ones;
//! the HTTP driver, `mcpspec-reference-http`, carries those out and hands
//! the rest to the sans-IO server.
//!
//! This module holds the switches and their set; `table` holds what each one
//! is (one entry per fault).

use mcpspec_engine::{Level, Requirement};
use std::fmt;

/// The entry of each fault (`Fault::info`): name, rule, description, transports.
mod table;
mod table_auth;

/// A transport a fault can be committed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transport {
    /// Newline-delimited JSON on stdin and stdout.
    Stdio,
    /// Streamable HTTP (2025-03-26 on), the reference's `/mcp` endpoint.
    StreamableHttp,
    /// The 2024-11-05 HTTP+SSE transport, the reference's `/sse` endpoint.
    LegacySse,
}

impl Transport {
    pub const ALL: &'static [Transport] = &[
        Transport::Stdio,
        Transport::StreamableHttp,
        Transport::LegacySse,
    ];

    /// Short name, as `--list-faults` prints it: `stdio`, `http`, `sse`.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::StreamableHttp => "http",
            Transport::LegacySse => "sse",
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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
    AnswerCancelled,
    RejectMeta,
    StructuredNoText,
    // ── 2026-07-28 (stateless): the sans-IO server applies these (the
    // `listen-*` ones over stdio only: the HTTP driver refuses the method).
    StatelessMissingMetaAccepted,
    StatelessUnsupportedVersionWrongCode,
    StatelessUnsupportedVersionNoData,
    DiscoverMissingSupportedVersions,
    StatelessResultTypeMissing,
    StatelessCapabilityInferred,
    StatelessResourceNotFoundEmpty,
    StatelessRemovedMethodAnswered,
    ListenNoAck,
    ListenUnrequested,
    ListenNoSubscriptionId,
    ListenAckSuperset,
    // ── 2026-07-28 input-required fixtures (`mrtr`)
    InputRequiredOnList,
    InputRequiredUndeclared,
    InputRequiredStateUnverified,
    InputRequiredMissingError,
    InputRequiredExtraRejected,
    InputRequiredUnvalidated,
    InputRequiredRetryIgnored,
    InputRequiredResultTypeMissing,
    // ── HTTP layer: the sans-IO server ignores these; `mcpspec-reference-http` applies them.
    HttpUnknownSession400,
    HttpSessionIdSpace,
    HttpMissingSessionAccepted,
    HttpForeignOriginAccepted,
    ToolInputUnvalidated,
    ResourceUriUnvalidated,
    ToolsListRefused,
    PromptsListRefused,
    ResourcesListRefused,
    LateCancelWedges,
    InputRequiredDeclineFails,
    StatelessClientInfoRequired,
    HttpDeleteIgnored,
    HttpNotification200,
    HttpProtocolVersionNotChecked,
    HttpMalformedNoErrorBody,
    HttpResponseOnGetStream,
    HttpEventIdsPerStream,
    HttpSseStaysOpen,
    HttpResponseTextPlain,
    HttpAcceptNotChecked,
    HttpContentTypeNotChecked,
    HttpHeaderMetaMismatchAccepted,
    HttpNamedErrorStatus200,
    HttpGet404,
    HttpProtocolVersionRequired,
    HttpMalformed200,
    SseEndpointNotFirst,
    SseForeignOriginAccepted,
    SseUnknownSessionHang,
    SseAnswerInPostBody,
    LeakOnMalformed,
    // ── the fixture profile (the official conformance fixture's names) ──
    FixtureSimpleTextEmpty,
    FixtureImageMissing,
    FixtureAudioMime,
    FixtureResourceMimeMissing,
    FixtureErrorAsProtocolError,
    FixtureProgressSilent,
    FixtureLoggingSilent,
    FixtureClientRequestsSkipped,
    FixtureElicitationSchemaPlain,
    FixtureSchemaStripped,
    FixturePromptContentMissing,
    FixtureArgumentsIgnored,
    FixtureCompletionRefused,
    // ── SEP-2243 routing headers (2026-07-28, Streamable HTTP) ──────────
    HttpMethodHeaderOptional,
    HttpMethodHeaderCaseInsensitive,
    HttpNameHeaderUnchecked,
    HttpNameHeaderNotDecoded,
    // ── 2026-07-28 statuses over HTTP ──────────────────────────────────
    HttpMethodNotFound200,
    HttpMetaInvalid200,
    // ── 2026-07-28 caching hints ────────────────────────────────────────
    StatelessCacheHintsMissing,
    ToolsListOrderVaries,
    InputErrorAsProtocolError,
    // ── what messages say, judged by the oracle on every message ────────
    NotificationWithId,
    TemplateNotRfc6570,
    ToolSchemaInvalid,
    MetaKeyMalformed,
    PageScopeVaries,
    SamplingToolsUngated,
    ElicitationUrlUndeclared,
    // ── SEP-2243 custom headers (x-mcp-header, Mcp-Param-*) ─────────────
    HttpParamHeaderUnchecked,
    HttpParamHeaderNotDecoded,
    // ── 2025-11-25 tasks (the opt-in extension `tasks`) ─────────────────
    TaskPlainResult,
    TaskStatusStuck,
    TaskResultNoRelatedTask,
    TaskUnknownIdInternalError,
    TaskCancelTerminalAccepted,
    TaskRequiredRunsPlain,
    TasksListMissing,
    TaskForbiddenAccepted,
    // ── SSE streams: priming, resumption, concurrency (Streamable HTTP) ──
    HttpNoPrimingEvent,
    HttpResumeCrossReplay,
    HttpConcurrentPostRefused,
    HttpForeignProgressOnStream,
    // ── authorization: OAuth mode of `mcpspec-reference-http` (`--auth`) ──
    AuthNoChallenge,
    AuthChallengeNoResourceMetadata,
    AuthInvalidTokenAccepted,
    AuthOtherAudienceAccepted,
    AuthPrmResourceMismatch,
    AuthPrmNoAuthorizationServers,
    AuthAsMetadataNoS256,
    AuthChallengeNoScope,
    AuthMissingTokenAccepted,
    AuthPrmMissing,
    AuthAsMetadataMissing,
    AuthRedirectUriPrefixMatch,
    AuthOpenRedirect,
    AuthRefreshNotRotated,
    AuthIssNotAdvertised,
    AuthOidcNoPkce,
    AuthPlainHttpEndpoint,
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
        Fault::AnswerCancelled,
        Fault::RejectMeta,
        Fault::StructuredNoText,
        Fault::StatelessMissingMetaAccepted,
        Fault::StatelessUnsupportedVersionWrongCode,
        Fault::StatelessUnsupportedVersionNoData,
        Fault::DiscoverMissingSupportedVersions,
        Fault::StatelessResultTypeMissing,
        Fault::StatelessCapabilityInferred,
        Fault::StatelessResourceNotFoundEmpty,
        Fault::StatelessRemovedMethodAnswered,
        Fault::ListenNoAck,
        Fault::ListenUnrequested,
        Fault::ListenNoSubscriptionId,
        Fault::ListenAckSuperset,
        Fault::InputRequiredOnList,
        Fault::InputRequiredUndeclared,
        Fault::InputRequiredStateUnverified,
        Fault::InputRequiredMissingError,
        Fault::InputRequiredExtraRejected,
        Fault::InputRequiredUnvalidated,
        Fault::InputRequiredRetryIgnored,
        Fault::InputRequiredResultTypeMissing,
        Fault::HttpUnknownSession400,
        Fault::HttpSessionIdSpace,
        Fault::HttpMissingSessionAccepted,
        Fault::HttpForeignOriginAccepted,
        Fault::ToolInputUnvalidated,
        Fault::ResourceUriUnvalidated,
        Fault::ToolsListRefused,
        Fault::PromptsListRefused,
        Fault::ResourcesListRefused,
        Fault::LateCancelWedges,
        Fault::InputRequiredDeclineFails,
        Fault::StatelessClientInfoRequired,
        Fault::HttpDeleteIgnored,
        Fault::HttpNotification200,
        Fault::HttpProtocolVersionNotChecked,
        Fault::HttpMalformedNoErrorBody,
        Fault::HttpResponseOnGetStream,
        Fault::HttpEventIdsPerStream,
        Fault::HttpSseStaysOpen,
        Fault::HttpResponseTextPlain,
        Fault::HttpAcceptNotChecked,
        Fault::HttpContentTypeNotChecked,
        Fault::HttpHeaderMetaMismatchAccepted,
        Fault::HttpNamedErrorStatus200,
        Fault::HttpGet404,
        Fault::HttpProtocolVersionRequired,
        Fault::HttpMalformed200,
        Fault::SseEndpointNotFirst,
        Fault::SseForeignOriginAccepted,
        Fault::SseUnknownSessionHang,
        Fault::SseAnswerInPostBody,
        Fault::LeakOnMalformed,
        Fault::FixtureSimpleTextEmpty,
        Fault::FixtureImageMissing,
        Fault::FixtureAudioMime,
        Fault::FixtureResourceMimeMissing,
        Fault::FixtureErrorAsProtocolError,
        Fault::FixtureProgressSilent,
        Fault::FixtureLoggingSilent,
        Fault::FixtureClientRequestsSkipped,
        Fault::FixtureElicitationSchemaPlain,
        Fault::FixtureSchemaStripped,
        Fault::FixturePromptContentMissing,
        Fault::FixtureArgumentsIgnored,
        Fault::FixtureCompletionRefused,
        Fault::HttpMethodHeaderOptional,
        Fault::HttpMethodHeaderCaseInsensitive,
        Fault::HttpNameHeaderUnchecked,
        Fault::HttpNameHeaderNotDecoded,
        Fault::HttpMethodNotFound200,
        Fault::HttpMetaInvalid200,
        Fault::StatelessCacheHintsMissing,
        Fault::ToolsListOrderVaries,
        Fault::InputErrorAsProtocolError,
        Fault::NotificationWithId,
        Fault::TemplateNotRfc6570,
        Fault::ToolSchemaInvalid,
        Fault::MetaKeyMalformed,
        Fault::PageScopeVaries,
        Fault::SamplingToolsUngated,
        Fault::ElicitationUrlUndeclared,
        Fault::HttpParamHeaderUnchecked,
        Fault::HttpParamHeaderNotDecoded,
        Fault::TaskPlainResult,
        Fault::TaskStatusStuck,
        Fault::TaskResultNoRelatedTask,
        Fault::TaskUnknownIdInternalError,
        Fault::TaskCancelTerminalAccepted,
        Fault::TaskRequiredRunsPlain,
        Fault::TasksListMissing,
        Fault::TaskForbiddenAccepted,
        Fault::HttpNoPrimingEvent,
        Fault::HttpResumeCrossReplay,
        Fault::HttpConcurrentPostRefused,
        Fault::HttpForeignProgressOnStream,
        Fault::AuthNoChallenge,
        Fault::AuthChallengeNoResourceMetadata,
        Fault::AuthInvalidTokenAccepted,
        Fault::AuthOtherAudienceAccepted,
        Fault::AuthPrmResourceMismatch,
        Fault::AuthPrmNoAuthorizationServers,
        Fault::AuthAsMetadataNoS256,
        Fault::AuthChallengeNoScope,
        Fault::AuthMissingTokenAccepted,
        Fault::AuthPrmMissing,
        Fault::AuthAsMetadataMissing,
        Fault::AuthRedirectUriPrefixMatch,
        Fault::AuthOpenRedirect,
        Fault::AuthRefreshNotRotated,
        Fault::AuthIssNotAdvertised,
        Fault::AuthOidcNoPkce,
        Fault::AuthPlainHttpEndpoint,
    ];

    /// Kebab-case name, as given to `--fault`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// One line saying what the server does wrong.
    pub fn description(self) -> &'static str {
        self.info().description
    }

    /// The requirement the fault breaks.
    pub fn requirement(self) -> &'static Requirement {
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

    /// The transports over which the fault's violation exists; a
    /// self-validation run tries the fault over these only.
    pub fn transports(self) -> &'static [Transport] {
        self.info().transports
    }

    pub fn applies_to(self, transport: Transport) -> bool {
        self.transports().contains(&transport)
    }

    /// True for a fault only the fuzzer's oracles see (memory growth).
    pub fn is_fuzz_only(self) -> bool {
        self.info().fuzz_only
    }

    /// True for faults of one transport's own rules (stdio framing, HTTP
    /// statuses and headers), false for protocol faults that apply over
    /// every transport.
    pub fn is_transport_layer(self) -> bool {
        self.transports().len() < Transport::ALL.len()
    }

    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// The fault's word in a [`FaultSet`] and its bit there.
    fn bit(self) -> (usize, u64) {
        let n = self as usize;
        (n / 64, 1 << (n % 64))
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Words in a [`FaultSet`]: room for `64 * FAULT_WORDS` faults.
const FAULT_WORDS: usize = 4;

/// A set of faults, cheap to copy: a fixed bitset with one bit per fault.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FaultSet([u64; FAULT_WORDS]);

impl FaultSet {
    pub(crate) fn new(faults: &[Fault]) -> Self {
        let mut words = [0; FAULT_WORDS];
        for f in faults {
            let (word, bit) = f.bit();
            words[word] |= bit;
        }
        FaultSet(words)
    }

    pub(crate) fn has(self, fault: Fault) -> bool {
        let (word, bit) = fault.bit();
        self.0[word] & bit != 0
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
        assert!(
            Fault::ALL.len() <= 64 * FAULT_WORDS,
            "FaultSet holds 64 * FAULT_WORDS faults"
        );
        for &f in Fault::ALL {
            assert!(seen.insert(f.name()), "duplicate fault name {}", f.name());
            assert!(f
                .name()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            assert_eq!(Fault::from_name(f.name()), Some(f));
            assert!(!f.description().is_empty() && !f.section().is_empty());
            assert_ne!(f.level(), Level::May, "a MAY cannot be violated");
            assert!(!f.transports().is_empty());
            let http_only = f.name().starts_with("http-") || f.name().starts_with("sse-");
            assert_eq!(
                !f.applies_to(Transport::Stdio),
                http_only,
                "{f}: HTTP faults are named http-* or sse-*"
            );
        }
        assert_eq!(Fault::from_name("no-such-fault"), None);
    }

    #[test]
    fn transports_are_marked_honestly() {
        assert_eq!(Fault::StdoutNoise.transports(), &[Transport::Stdio]);
        assert_eq!(Fault::EmbeddedNewlines.transports(), &[Transport::Stdio]);
        assert_eq!(Fault::NoBatch.transports(), Transport::ALL);
        assert!(!Fault::NoBatch.is_transport_layer());
        assert!(Fault::HttpDeleteIgnored.applies_to(Transport::StreamableHttp));
        assert!(!Fault::HttpDeleteIgnored.applies_to(Transport::LegacySse));
        assert_eq!(
            Fault::SseEndpointNotFirst.transports(),
            &[Transport::LegacySse]
        );
        let last = *Fault::ALL.last().unwrap();
        assert!(FaultSet::new(&[last]).has(last), "the highest bit fits");
    }

    #[test]
    fn fault_set_membership() {
        let set = FaultSet::new(&[Fault::NoBatch, Fault::EarlyRequest]);
        assert!(set.has(Fault::NoBatch) && set.has(Fault::EarlyRequest));
        assert!(!set.has(Fault::DropJsonrpc));
        assert!(!FaultSet::default().has(Fault::AnswerNotification));
    }
}
