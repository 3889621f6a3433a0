//! Client features a server asks for: sampling (`sampling/createMessage`, model
//! preferences) and roots (`roots/list`, `notifications/roots/list_changed`).
//!
//! Up to 2025-11-25 these are requests the server sends. In 2026-07-28 the server no
//! longer sends requests: it answers with an `InputRequiredResult` whose `inputRequests`
//! embed these request shapes (without `jsonrpc` and `id`), and the client answers with
//! the matching results in the retried request's `inputResponses`.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v4 = V2025_11_25;
    let v5 = V2026_07_28;
    vec![
        def(
            "CreateMessageRequest",
            input_request(
                "sampling/createMessage",
                req("params", rf("CreateMessageRequestParams")),
            ),
        ),
        def(
            "CreateMessageRequestParams",
            obj([
                request_meta().until(v5),
                opt(
                    "includeContext",
                    Ty::Enum(&["allServers", "none", "thisServer"]),
                ),
                req("maxTokens", Ty::Int),
                req("messages", arr(rf("SamplingMessage"))),
                opt("metadata", flag()),
                opt("modelPreferences", rf("ModelPreferences")),
                opt("stopSequences", arr(Ty::Str)),
                opt("systemPrompt", Ty::Str),
                opt("task", rf("TaskMetadata")).only(v4),
                opt("temperature", Ty::Num),
                opt("toolChoice", rf("ToolChoice")).since(v4),
                opt("tools", arr(rf("Tool"))).since(v4),
            ]),
        )
        .since(v4),
        def(
            "CreateMessageResult",
            obj([
                meta(),
                req("content", sampling_content()),
                req("model", Ty::Str),
                req("role", rf("Role")),
                opt("stopReason", Ty::Str),
            ]),
        ),
        def(
            "SamplingMessage",
            obj([
                meta().since(v4),
                req("content", sampling_content()),
                req("role", rf("Role")),
            ]),
        ),
        def(
            "ModelPreferences",
            obj([
                opt("costPriority", Ty::Unit),
                opt("hints", arr(rf("ModelHint"))),
                opt("intelligencePriority", Ty::Unit),
                opt("speedPriority", Ty::Unit),
            ]),
        ),
        def("ModelHint", obj([opt("name", Ty::Str)])),
        def(
            "ListRootsRequest",
            input_request(
                "roots/list",
                opt(
                    "params",
                    versioned([
                        (until(v5), rf("RequestParams")),
                        (since(v5), obj([opt("_meta", rf("MetaObject"))])),
                    ]),
                ),
            ),
        ),
        def(
            "ListRootsResult",
            obj([
                opt("_meta", any_obj()).until(v5),
                req("roots", arr(rf("Root"))),
            ]),
        ),
        def(
            "Root",
            obj([
                meta().since(V2025_06_18),
                opt("name", Ty::Str),
                req("uri", Ty::Format("uri")),
            ]),
        ),
        def(
            "RootsListChangedNotification",
            notification(
                "notifications/roots/list_changed",
                opt("params", rf("NotificationParams")),
            ),
        )
        .until(v5),
    ]
}

/// What a sampling message holds: one text, image or audio block; from 2025-11-25 on also
/// a tool use, a tool result, or an array of such blocks.
fn sampling_content() -> Ty {
    Ty::Union(vec![
        (Span::ALL, rf("TextContent")),
        (Span::ALL, rf("ImageContent")),
        (since(V2025_03_26), rf("AudioContent")),
        (since(V2025_11_25), rf("ToolUseContent")),
        (since(V2025_11_25), rf("ToolResultContent")),
        (since(V2025_11_25), arr(rf("SamplingMessageContentBlock"))),
    ])
}
