//! Prompts: listing prompt templates, getting one filled in, and the list-changed
//! notification.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v3 = V2025_06_18;
    let v4 = V2025_11_25;
    vec![
        def("ListPromptsRequest", list_request("prompts/list")),
        def("ListPromptsResult", list_result("prompts", "Prompt")),
        result_response("ListPromptsResultResponse", rf("ListPromptsResult")),
        def(
            "Prompt",
            obj([
                meta().since(v3),
                opt("arguments", arr(rf("PromptArgument"))),
                opt("description", Ty::Str),
                opt("icons", arr(rf("Icon"))).since(v4),
                req("name", Ty::Str),
                opt("title", Ty::Str).since(v3),
            ]),
        ),
        def(
            "PromptArgument",
            obj([
                opt("description", Ty::Str),
                req("name", Ty::Str),
                opt("required", Ty::Bool),
                opt("title", Ty::Str).since(v3),
            ]),
        ),
        def(
            "PromptMessage",
            obj([req("content", rf("ContentBlock")), req("role", rf("Role"))]),
        ),
        def(
            "PromptReference",
            obj([
                req("name", Ty::Str),
                opt("title", Ty::Str).since(v3),
                req("type", Ty::Const("ref/prompt")),
            ]),
        ),
        def(
            "GetPromptRequest",
            request("prompts/get", req("params", rf("GetPromptRequestParams"))),
        ),
        def("GetPromptRequestParams", {
            let mut fields = vec![
                request_meta(),
                opt("arguments", map(Ty::Str)),
                req("name", Ty::Str),
            ];
            fields.extend(input_echo());
            obj(fields)
        })
        .since(v4),
        def(
            "GetPromptResult",
            obj([
                result_meta(),
                opt("description", Ty::Str),
                req("messages", arr(rf("PromptMessage"))),
                result_type(),
            ]),
        ),
        result_response(
            "GetPromptResultResponse",
            any_of(&["InputRequiredResult", "GetPromptResult"]),
        ),
        def(
            "PromptListChangedNotification",
            notification(
                "notifications/prompts/list_changed",
                opt("params", rf("NotificationParams")),
            ),
        ),
    ]
}
