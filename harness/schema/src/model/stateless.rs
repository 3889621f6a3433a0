//! 2026-07-28 additions: the stateless protocol.
//!
//! No handshake: each request carries the protocol version, client capabilities and
//! client info in `params._meta` (`RequestMetaObject`), and `server/discover` tells what a
//! server supports. Results name their `resultType`; a server that needs input from the
//! client answers `InputRequiredResult` instead of sending requests. Notifications flow
//! over `subscriptions/listen`. Capability and metadata values are restricted JSON
//! (`JSONValue`: objects, arrays, strings, integers and booleans). Some errors are named
//! and their codes fixed.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v5 = V2026_07_28;
    let mut defs = vec![
        def(
            "JSONValue",
            Ty::Union(vec![
                (Span::ALL, rf("JSONObject")),
                (Span::ALL, arr(rf("JSONValue"))),
                (Span::ALL, Ty::Types(&["string", "integer", "boolean"])),
            ]),
        ),
        def("JSONObject", map(rf("JSONValue"))),
        def("JSONArray", arr(rf("JSONValue"))),
        def("MetaObject", obj([])),
        def(
            "RequestMetaObject",
            obj([
                req(
                    "io.modelcontextprotocol/clientCapabilities",
                    rf("ClientCapabilities"),
                ),
                opt("io.modelcontextprotocol/clientInfo", rf("Implementation")),
                opt("io.modelcontextprotocol/logLevel", rf("LoggingLevel")),
                req("io.modelcontextprotocol/protocolVersion", Ty::Str),
                opt("progressToken", rf("ProgressToken")),
            ]),
        ),
        def(
            "ResultMetaObject",
            obj([opt(
                "io.modelcontextprotocol/serverInfo",
                rf("Implementation"),
            )]),
        ),
        def(
            "NotificationMetaObject",
            obj([opt(
                "io.modelcontextprotocol/subscriptionId",
                rf("RequestId"),
            )]),
        ),
        def("ResultType", Ty::Str),
        def("CacheableResult", {
            let mut fields = vec![result_meta(), result_type()];
            fields.extend(cacheable());
            obj(fields)
        }),
        def(
            "DiscoverRequest",
            request("server/discover", req("params", rf("RequestParams"))),
        ),
        def("DiscoverResult", {
            let mut fields = vec![
                result_meta(),
                req("capabilities", rf("ServerCapabilities")),
                opt("instructions", Ty::Str),
                result_type(),
                req("supportedVersions", arr(Ty::Str)),
            ];
            fields.extend(cacheable());
            obj(fields)
        }),
        result_response("DiscoverResultResponse", rf("DiscoverResult")),
        def(
            "InputRequest",
            any_of(&["CreateMessageRequest", "ListRootsRequest", "ElicitRequest"]),
        ),
        def("InputRequests", map(rf("InputRequest"))),
        def(
            "InputResponse",
            any_of(&["CreateMessageResult", "ListRootsResult", "ElicitResult"]),
        ),
        def("InputResponses", map(rf("InputResponse"))),
        def(
            "InputRequiredResult",
            obj([
                result_meta(),
                opt("inputRequests", rf("InputRequests")),
                opt("requestState", Ty::Str),
                result_type(),
            ]),
        ),
        def("InputResponseRequestParams", {
            let mut fields = vec![request_meta()];
            fields.extend(input_echo());
            obj(fields)
        }),
        def(
            "SubscriptionFilter",
            obj([
                opt("promptsListChanged", Ty::Bool),
                opt("resourceSubscriptions", arr(Ty::Str)),
                opt("resourcesListChanged", Ty::Bool),
                opt("toolsListChanged", Ty::Bool),
            ]),
        ),
        def(
            "SubscriptionsListenRequest",
            request(
                "subscriptions/listen",
                req("params", rf("SubscriptionsListenRequestParams")),
            ),
        ),
        def(
            "SubscriptionsListenRequestParams",
            obj([
                request_meta(),
                req("notifications", rf("SubscriptionFilter")),
            ]),
        ),
        def(
            "SubscriptionsListenResult",
            obj([
                req("_meta", rf("SubscriptionsListenResultMetaObject")),
                result_type(),
            ]),
        ),
        def(
            "SubscriptionsListenResultMetaObject",
            obj([
                opt("io.modelcontextprotocol/serverInfo", rf("Implementation")),
                req("io.modelcontextprotocol/subscriptionId", rf("RequestId")),
            ]),
        ),
        result_response(
            "SubscriptionsListenResultResponse",
            rf("SubscriptionsListenResult"),
        ),
        def(
            "SubscriptionsAcknowledgedNotification",
            notification(
                "notifications/subscriptions/acknowledged",
                req("params", rf("SubscriptionsAcknowledgedNotificationParams")),
            ),
        ),
        def(
            "SubscriptionsAcknowledgedNotificationParams",
            obj([
                notification_meta(),
                req("notifications", rf("SubscriptionFilter")),
            ]),
        ),
        def("ParseError", error_object(-32700)),
        def("InvalidRequestError", error_object(-32600)),
        def("MethodNotFoundError", error_object(-32601)),
        def("InvalidParamsError", error_object(-32602)),
        def("InternalError", error_object(-32603)),
        def("HeaderMismatchError", error_response(-32020, None)),
        def(
            "MissingRequiredClientCapabilityError",
            error_response(
                -32021,
                Some(obj([req("requiredCapabilities", rf("ClientCapabilities"))])),
            ),
        ),
        def(
            "UnsupportedProtocolVersionError",
            error_response(
                -32022,
                Some(obj([
                    req("requested", Ty::Str),
                    req("supported", arr(Ty::Str)),
                ])),
            ),
        ),
    ];
    for d in &mut defs {
        d.span = only(v5);
    }
    // 2025-11-25's named error: a URL elicitation must happen before the request can go on.
    defs.push(
        def(
            "URLElicitationRequiredError",
            error_response(
                -32042,
                Some(open([req(
                    "elicitations",
                    arr(rf("ElicitRequestURLParams")),
                )])),
            ),
        )
        .only(V2025_11_25),
    );
    defs
}

/// A JSON-RPC error object with a fixed `code`.
fn error_object(code: i64) -> Ty {
    obj([
        req("code", Ty::Code(code)),
        opt("data", Ty::Any),
        req("message", Ty::Str),
    ])
}

/// An error response whose error has a fixed `code` and, if given, required `data`.
fn error_response(code: i64, data: Option<Ty>) -> Ty {
    let mut specific = vec![req("code", Ty::Code(code))];
    if let Some(data) = data {
        specific.push(req("data", data));
    }
    obj([
        req("jsonrpc", Ty::Const("2.0")),
        opt("id", rf("RequestId")),
        req("error", Ty::AllOf(vec![rf("Error"), obj(specific)])),
    ])
}
