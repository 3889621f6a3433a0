//! Session lifecycle and utilities: `initialize` and its capabilities, `ping`,
//! cancellation and progress, and who an implementation is (`Implementation`, icons).
//!
//! The handshake (`InitializeRequest`, `InitializeResult`, `notifications/initialized`)
//! exists up to 2025-11-25; 2026-07-28 is stateless and replaces it with
//! `server/discover` (see `stateless`). Capability objects grew per version: elicitation
//! (2025-06-18), tasks (2025-11-25 only), extensions (2026-07-28).

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    vec![
        def(
            "InitializeRequest",
            request("initialize", req("params", rf("InitializeRequestParams"))),
        )
        .until(V2026_07_28),
        def(
            "InitializeRequestParams",
            obj([
                request_meta(),
                req("capabilities", rf("ClientCapabilities")),
                req("clientInfo", rf("Implementation")),
                req("protocolVersion", Ty::Str),
            ]),
        )
        .only(V2025_11_25),
        def(
            "InitializeResult",
            obj([
                result_meta(),
                req("capabilities", rf("ServerCapabilities")),
                opt("instructions", Ty::Str),
                req("protocolVersion", Ty::Str),
                req("serverInfo", rf("Implementation")),
            ]),
        )
        .until(V2026_07_28),
        def(
            "InitializedNotification",
            notification(
                "notifications/initialized",
                opt("params", rf("NotificationParams")),
            ),
        )
        .until(V2026_07_28),
        def(
            "PingRequest",
            request("ping", opt("params", rf("RequestParams"))),
        )
        .until(V2026_07_28),
        def(
            "CancelledNotification",
            notification(
                "notifications/cancelled",
                req("params", rf("CancelledNotificationParams")),
            ),
        ),
        def(
            "CancelledNotificationParams",
            obj([
                notification_meta(),
                opt("reason", Ty::Str),
                // 2025-11-25 made `requestId` optional (task cancellation names no request).
                req("requestId", rf("RequestId")).required_in(not_v4()),
            ]),
        )
        .since(V2025_11_25),
        def(
            "ProgressNotification",
            notification(
                "notifications/progress",
                req("params", rf("ProgressNotificationParams")),
            ),
        ),
        def(
            "ProgressNotificationParams",
            obj([
                notification_meta(),
                opt("message", Ty::Str).since(V2025_03_26),
                req("progress", Ty::Num),
                req("progressToken", rf("ProgressToken")),
                opt("total", Ty::Num),
            ]),
        )
        .since(V2025_11_25),
        def("ClientCapabilities", client_capabilities()),
        def("ServerCapabilities", server_capabilities()),
        def(
            "Implementation",
            obj([
                opt("description", Ty::Str).since(V2025_11_25),
                opt("icons", arr(rf("Icon"))).since(V2025_11_25),
                req("name", Ty::Str),
                opt("title", Ty::Str).since(V2025_06_18),
                req("version", Ty::Str),
                opt("websiteUrl", Ty::Format("uri")).since(V2025_11_25),
            ]),
        ),
        def(
            "BaseMetadata",
            obj([req("name", Ty::Str), opt("title", Ty::Str)]),
        )
        .since(V2025_06_18),
        def(
            "Icon",
            obj([
                opt("mimeType", Ty::Str),
                opt("sizes", arr(Ty::Str)),
                req("src", Ty::Format("uri")),
                opt("theme", Ty::Enum(&["dark", "light"])),
            ]),
        )
        .since(V2025_11_25),
        def("Icons", obj([opt("icons", arr(rf("Icon")))])).since(V2025_11_25),
    ]
}

/// Every version except 2025-11-25.
fn not_v4() -> Span {
    until(V2025_11_25).or(since(V2026_07_28))
}

fn client_capabilities() -> Ty {
    let v4 = V2025_11_25;
    obj([
        opt("experimental", map(flag())),
        opt(
            "roots",
            versioned([
                (until(V2026_07_28), list_changed()),
                (since(V2026_07_28), obj([])),
            ]),
        ),
        opt(
            "sampling",
            versioned([
                (until(v4), any_obj()),
                (
                    since(v4),
                    obj([opt("context", flag()), opt("tools", flag())]),
                ),
            ]),
        ),
        opt(
            "elicitation",
            versioned([
                (until(v4), any_obj()),
                (since(v4), obj([opt("form", flag()), opt("url", flag())])),
            ]),
        )
        .since(V2025_06_18),
        opt(
            "tasks",
            obj([
                opt("cancel", flag()),
                opt("list", flag()),
                opt(
                    "requests",
                    obj([
                        opt("elicitation", obj([opt("create", flag())])),
                        opt("sampling", obj([opt("createMessage", flag())])),
                    ]),
                ),
            ]),
        )
        .only(v4),
        opt("extensions", map(flag())).since(V2026_07_28),
    ])
}

fn server_capabilities() -> Ty {
    obj([
        opt("experimental", map(flag())),
        opt("logging", flag()),
        opt("completions", flag()).since(V2025_03_26),
        opt("prompts", list_changed()),
        opt(
            "resources",
            obj([opt("listChanged", Ty::Bool), opt("subscribe", Ty::Bool)]),
        ),
        opt("tools", list_changed()),
        opt(
            "tasks",
            obj([
                opt("cancel", flag()),
                opt("list", flag()),
                opt("requests", obj([opt("tools", obj([opt("call", flag())]))])),
            ]),
        )
        .only(V2025_11_25),
        opt("extensions", map(flag())).since(V2026_07_28),
    ])
}
