//! Logging and argument completion: `logging/setLevel` and `notifications/message`
//! (the eight syslog levels), and `completion/complete` for prompt arguments and
//! resource-template variables.
//!
//! `logging/setLevel` exists up to 2025-11-25; in 2026-07-28 the level travels in each
//! request's `_meta` instead.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v3 = V2025_06_18;
    let v4 = V2025_11_25;
    vec![
        def(
            "LoggingLevel",
            Ty::Enum(&[
                "alert",
                "critical",
                "debug",
                "emergency",
                "error",
                "info",
                "notice",
                "warning",
            ]),
        ),
        def(
            "SetLevelRequest",
            request(
                "logging/setLevel",
                req("params", rf("SetLevelRequestParams")),
            ),
        )
        .until(V2026_07_28),
        def(
            "SetLevelRequestParams",
            obj([request_meta(), req("level", rf("LoggingLevel"))]),
        )
        .only(v4),
        def(
            "LoggingMessageNotification",
            notification(
                "notifications/message",
                req("params", rf("LoggingMessageNotificationParams")),
            ),
        ),
        def(
            "LoggingMessageNotificationParams",
            obj([
                notification_meta(),
                req("data", Ty::Any),
                req("level", rf("LoggingLevel")),
                opt("logger", Ty::Str),
            ]),
        )
        .since(v4),
        def(
            "CompleteRequest",
            request(
                "completion/complete",
                req("params", rf("CompleteRequestParams")),
            ),
        ),
        def(
            "CompleteRequestParams",
            obj([
                request_meta(),
                req(
                    "argument",
                    obj([req("name", Ty::Str), req("value", Ty::Str)]),
                ),
                opt("context", obj([opt("arguments", map(Ty::Str))])).since(v3),
                req(
                    "ref",
                    union(&[
                        ("PromptReference", Span::ALL),
                        ("ResourceReference", until(v3)),
                        ("ResourceTemplateReference", since(v3)),
                    ]),
                ),
            ]),
        )
        .since(v4),
        def(
            "CompleteResult",
            obj([
                result_meta(),
                req(
                    "completion",
                    obj([
                        opt("hasMore", Ty::Bool),
                        opt("total", Ty::Int),
                        req(
                            "values",
                            versioned([
                                (until(V2026_07_28), arr(Ty::Str)),
                                (since(V2026_07_28), Ty::ArrayMax(Box::new(Ty::Str), 100)),
                            ]),
                        ),
                    ]),
                ),
                result_type(),
            ]),
        ),
        result_response("CompleteResultResponse", rf("CompleteResult")),
    ]
}
