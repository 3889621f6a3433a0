//! Tools: listing them, their description (`Tool`, its input and output schemas and
//! annotations), calling one, and the list-changed notification.
//!
//! 2025-06-18 added structured output (`outputSchema`, `structuredContent`); 2025-11-25
//! added icons, task execution hints and tool choice for sampling; 2026-07-28 loosened the
//! input/output schema objects to any JSON Schema object and made results cacheable.

use super::common::*;
use super::content::structured_content;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v3 = V2025_06_18;
    let v4 = V2025_11_25;
    vec![
        def("ListToolsRequest", list_request("tools/list")),
        def("ListToolsResult", list_result("tools", "Tool")),
        result_response("ListToolsResultResponse", rf("ListToolsResult")),
        def(
            "Tool",
            obj([
                meta().since(v3),
                opt("annotations", rf("ToolAnnotations")).since(V2025_03_26),
                opt("description", Ty::Str),
                opt("execution", rf("ToolExecution")).only(v4),
                opt("icons", arr(rf("Icon"))).since(v4),
                req("inputSchema", tool_schema(true)),
                req("name", Ty::Str),
                opt("outputSchema", tool_schema(false)).since(v3),
                opt("title", Ty::Str).since(v3),
            ]),
        ),
        def(
            "ToolAnnotations",
            obj([
                opt("destructiveHint", Ty::Bool),
                opt("idempotentHint", Ty::Bool),
                opt("openWorldHint", Ty::Bool),
                opt("readOnlyHint", Ty::Bool),
                opt("title", Ty::Str),
            ]),
        )
        .since(V2025_03_26),
        def(
            "ToolExecution",
            obj([opt(
                "taskSupport",
                Ty::Enum(&["forbidden", "optional", "required"]),
            )]),
        )
        .only(v4),
        def(
            "ToolChoice",
            obj([opt("mode", Ty::Enum(&["auto", "none", "required"]))]),
        )
        .since(v4),
        def(
            "CallToolRequest",
            request("tools/call", req("params", rf("CallToolRequestParams"))),
        ),
        def("CallToolRequestParams", {
            let mut fields = vec![
                request_meta(),
                opt("arguments", any_obj()),
                req("name", Ty::Str),
                opt("task", rf("TaskMetadata")).only(v4),
            ];
            fields.extend(input_echo());
            obj(fields)
        })
        .since(v4),
        def(
            "CallToolResult",
            obj([
                result_meta(),
                req("content", arr(rf("ContentBlock"))),
                opt("isError", Ty::Bool),
                opt("structuredContent", structured_content()).since(v3),
                result_type(),
            ]),
        ),
        result_response(
            "CallToolResultResponse",
            any_of(&["InputRequiredResult", "CallToolResult"]),
        ),
        def(
            "ToolListChangedNotification",
            notification(
                "notifications/tools/list_changed",
                opt("params", rf("NotificationParams")),
            ),
        ),
    ]
}

/// A tool's `inputSchema` (`input`) or `outputSchema`: up to 2025-11-25 an object schema
/// with `type: "object"` and optional `properties` / `required`; from 2026-07-28 on any
/// JSON Schema object (the input one still says `type: "object"`).
fn tool_schema(input: bool) -> Ty {
    let mut loose = vec![opt("$schema", Ty::Str)];
    if input {
        loose.push(req("type", Ty::Const("object")));
    }
    versioned([
        (
            until(V2026_07_28),
            obj([
                opt("$schema", Ty::Str).since(V2025_11_25),
                opt("properties", map(any_obj())),
                opt("required", arr(Ty::Str)),
                req("type", Ty::Const("object")),
            ]),
        ),
        (since(V2026_07_28), open(loose)),
    ])
}
