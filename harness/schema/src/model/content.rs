//! Content: what tools return, prompts hold and sampling exchanges.
//!
//! Text, image and (from 2025-03-26) audio blocks, embedded resources and (from
//! 2025-06-18) resource links, gathered as `ContentBlock`; resource contents (text or
//! base64 blob); annotations (`Annotated` in 2024-11-05, `Annotations` after). 2025-11-25
//! added tool-use and tool-result blocks for sampling with tools.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v3 = V2025_06_18;
    vec![
        def("Role", Ty::Enum(&["assistant", "user"])),
        def(
            "Annotations",
            obj([
                opt("audience", arr(rf("Role"))),
                opt("lastModified", Ty::Str).since(v3),
                opt("priority", Ty::Unit),
            ]),
        )
        .since(V2025_03_26),
        def("Annotated", obj([opt("annotations", rf("Annotations"))])).only(V2024_11_05),
        def(
            "TextContent",
            obj([
                meta().since(v3),
                opt("annotations", rf("Annotations")),
                req("text", Ty::Str),
                req("type", Ty::Const("text")),
            ]),
        ),
        def("ImageContent", binary_content("image")),
        def("AudioContent", binary_content("audio")).since(V2025_03_26),
        def(
            "ResourceLink",
            obj([
                meta(),
                opt("annotations", rf("Annotations")),
                opt("description", Ty::Str),
                opt("icons", arr(rf("Icon"))).since(V2025_11_25),
                opt("mimeType", Ty::Str),
                req("name", Ty::Str),
                opt("size", Ty::Int),
                opt("title", Ty::Str),
                req("type", Ty::Const("resource_link")),
                req("uri", Ty::Format("uri")),
            ]),
        )
        .since(v3),
        def(
            "EmbeddedResource",
            obj([
                meta().since(v3),
                opt("annotations", rf("Annotations")),
                req(
                    "resource",
                    any_of(&["TextResourceContents", "BlobResourceContents"]),
                ),
                req("type", Ty::Const("resource")),
            ]),
        ),
        def(
            "ContentBlock",
            union(&[
                ("TextContent", Span::ALL),
                ("ImageContent", Span::ALL),
                ("AudioContent", since(V2025_03_26)),
                ("ResourceLink", since(v3)),
                ("EmbeddedResource", Span::ALL),
            ]),
        )
        .since(v3),
        def("ResourceContents", obj(resource_contents([]))),
        def(
            "TextResourceContents",
            obj(resource_contents([req("text", Ty::Str)])),
        ),
        def(
            "BlobResourceContents",
            obj(resource_contents([req("blob", Ty::Format("byte"))])),
        ),
        def(
            "SamplingMessageContentBlock",
            any_of(&[
                "TextContent",
                "ImageContent",
                "AudioContent",
                "ToolUseContent",
                "ToolResultContent",
            ]),
        )
        .since(V2025_11_25),
        def(
            "ToolUseContent",
            obj([
                meta(),
                req("id", Ty::Str),
                req("input", any_obj()),
                req("name", Ty::Str),
                req("type", Ty::Const("tool_use")),
            ]),
        )
        .since(V2025_11_25),
        def(
            "ToolResultContent",
            obj([
                meta(),
                req("content", arr(rf("ContentBlock"))),
                opt("isError", Ty::Bool),
                opt("structuredContent", structured_content()),
                req("toolUseId", Ty::Str),
                req("type", Ty::Const("tool_result")),
            ]),
        )
        .since(V2025_11_25),
    ]
}

/// Image or audio: base64 `data` and its `mimeType`.
fn binary_content(kind: &'static str) -> Ty {
    obj([
        meta().since(V2025_06_18),
        opt("annotations", rf("Annotations")),
        req("data", Ty::Format("byte")),
        req("mimeType", Ty::Str),
        req("type", Ty::Const(kind)),
    ])
}

fn resource_contents<const N: usize>(own: [Field; N]) -> Vec<Field> {
    let mut fields = vec![
        meta().since(V2025_06_18),
        opt("mimeType", Ty::Str),
        req("uri", Ty::Format("uri")),
    ];
    fields.extend(own);
    fields
}

/// Structured tool output: an object up to 2025-11-25, any JSON value from 2026-07-28 on.
pub fn structured_content() -> Ty {
    versioned([
        (until(V2026_07_28), any_obj()),
        (since(V2026_07_28), Ty::Any),
    ])
}
