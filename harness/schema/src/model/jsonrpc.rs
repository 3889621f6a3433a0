//! JSON-RPC 2.0 envelopes and the generic bases every MCP message builds on.
//!
//! `JSONRPCMessage` is any single message (and, in 2025-03-26, a batch). The generic
//! `Request`, `Notification` and `Result` say what any method's message looks like;
//! request ids and progress tokens are strings or integers. 2025-11-25 split the response
//! into `JSONRPCResultResponse` and `JSONRPCErrorResponse` (whose `id` became optional)
//! and named the error object `Error`.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let jsonrpc = || req("jsonrpc", Ty::Const("2.0"));
    vec![
        def("RequestId", Ty::Types(&["string", "integer"])),
        def("ProgressToken", Ty::Types(&["string", "integer"])),
        def("Cursor", Ty::Str),
        def(
            "JSONRPCMessage",
            versioned([
                (
                    until(V2025_11_25),
                    union(&[
                        ("JSONRPCRequest", Span::ALL),
                        ("JSONRPCNotification", Span::ALL),
                        ("JSONRPCBatchRequest", only(V2025_03_26)),
                        ("JSONRPCResponse", Span::ALL),
                        ("JSONRPCError", Span::ALL),
                        ("JSONRPCBatchResponse", only(V2025_03_26)),
                    ]),
                ),
                (
                    since(V2025_11_25),
                    any_of(&[
                        "JSONRPCRequest",
                        "JSONRPCNotification",
                        "JSONRPCResultResponse",
                        "JSONRPCErrorResponse",
                    ]),
                ),
            ]),
        ),
        def(
            "JSONRPCBatchRequest",
            arr(any_of(&["JSONRPCRequest", "JSONRPCNotification"])),
        )
        .only(V2025_03_26),
        def(
            "JSONRPCBatchResponse",
            arr(any_of(&["JSONRPCResponse", "JSONRPCError"])),
        )
        .only(V2025_03_26),
        def(
            "JSONRPCRequest",
            obj([
                jsonrpc(),
                req("id", rf("RequestId")),
                req("method", Ty::Str),
                opt("params", generic_request_params()),
            ]),
        ),
        def(
            "JSONRPCNotification",
            obj([
                jsonrpc(),
                req("method", Ty::Str),
                opt("params", generic_notification_params()),
            ]),
        ),
        def(
            "JSONRPCResponse",
            versioned([
                (
                    until(V2025_11_25),
                    obj([
                        jsonrpc(),
                        req("id", rf("RequestId")),
                        req("result", rf("Result")),
                    ]),
                ),
                (
                    since(V2025_11_25),
                    any_of(&["JSONRPCResultResponse", "JSONRPCErrorResponse"]),
                ),
            ]),
        ),
        def(
            "JSONRPCResultResponse",
            obj([
                jsonrpc(),
                req("id", rf("RequestId")),
                req("result", rf("Result")),
            ]),
        )
        .since(V2025_11_25),
        def(
            "JSONRPCError",
            obj([
                jsonrpc(),
                req("id", rf("RequestId")),
                req("error", rf("Error")),
            ]),
        )
        .until(V2025_11_25),
        def(
            "JSONRPCErrorResponse",
            obj([
                jsonrpc(),
                opt("id", rf("RequestId")),
                req("error", rf("Error")),
            ]),
        )
        .since(V2025_11_25),
        def(
            "Error",
            obj([
                req("code", Ty::Int),
                req("message", Ty::Str),
                opt("data", Ty::Any),
            ]),
        )
        .since(V2025_11_25),
        def(
            "Request",
            obj([
                req("method", Ty::Str),
                opt("params", generic_request_params()),
            ]),
        ),
        def(
            "Notification",
            obj([
                req("method", Ty::Str),
                opt("params", generic_notification_params()),
            ]),
        ),
        def(
            "Result",
            open([result_meta(), req("resultType", Ty::Str).since(V2026_07_28)]),
        ),
        def("EmptyResult", rf("Result")),
        def(
            "RequestParams",
            obj([opt(
                "_meta",
                versioned([
                    (until(V2026_07_28), progress_meta()),
                    (since(V2026_07_28), rf("RequestMetaObject")),
                ]),
            )
            .required_in(only(V2026_07_28))]),
        )
        .since(V2025_11_25),
        def("NotificationParams", obj([notification_meta_any()])).since(V2025_11_25),
        def(
            "PaginatedRequest",
            obj([
                req("jsonrpc", Ty::Const("2.0")).since(V2025_11_25),
                req("id", rf("RequestId")).since(V2025_11_25),
                req("method", Ty::Str),
                opt("params", rf("PaginatedRequestParams")).required_in(only(V2026_07_28)),
            ]),
        ),
        def(
            "PaginatedRequestParams",
            obj([request_meta(), opt("cursor", rf("Cursor"))]),
        )
        .since(V2025_11_25),
        def(
            "PaginatedResult",
            obj([
                result_meta(),
                opt("nextCursor", rf("Cursor")),
                result_type(),
            ]),
        ),
    ]
}

/// `params` of any request: up to 2025-06-18 an object whose `_meta.progressToken` is a
/// `ProgressToken`; from 2025-11-25 on any object.
fn generic_request_params() -> Ty {
    versioned([
        (until(V2025_11_25), rf("RequestParams")),
        (since(V2025_11_25), any_obj()),
    ])
}

/// `params` of any notification: up to 2025-06-18 an object whose `_meta` is an object;
/// from 2025-11-25 on any object.
fn generic_notification_params() -> Ty {
    versioned([
        (until(V2025_11_25), rf("NotificationParams")),
        (since(V2025_11_25), any_obj()),
    ])
}

/// `NotificationParams._meta`: in every version (the definition is inlined before 2025-11-25).
fn notification_meta_any() -> Field {
    opt(
        "_meta",
        versioned([
            (until(V2026_07_28), any_obj()),
            (since(V2026_07_28), rf("NotificationMetaObject")),
        ]),
    )
}
