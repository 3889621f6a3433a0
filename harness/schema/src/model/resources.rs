//! Resources: listing resources and templates, reading one, subscribing to updates, and
//! the notifications a server sends about them.
//!
//! Resource subscriptions (`resources/subscribe`) exist up to 2025-11-25; 2026-07-28
//! replaced them with `subscriptions/listen` (see `stateless`).

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v3 = V2025_06_18;
    let v4 = V2025_11_25;
    let v5 = V2026_07_28;
    vec![
        def("ListResourcesRequest", list_request("resources/list")),
        def("ListResourcesResult", list_result("resources", "Resource")),
        result_response("ListResourcesResultResponse", rf("ListResourcesResult")),
        def(
            "ListResourceTemplatesRequest",
            list_request("resources/templates/list"),
        ),
        def(
            "ListResourceTemplatesResult",
            list_result("resourceTemplates", "ResourceTemplate"),
        ),
        result_response(
            "ListResourceTemplatesResultResponse",
            rf("ListResourceTemplatesResult"),
        ),
        def(
            "Resource",
            obj([
                meta().since(v3),
                opt("annotations", rf("Annotations")),
                opt("description", Ty::Str),
                opt("icons", arr(rf("Icon"))).since(v4),
                opt("mimeType", Ty::Str),
                req("name", Ty::Str),
                opt("size", Ty::Int),
                opt("title", Ty::Str).since(v3),
                req("uri", Ty::Format("uri")),
            ]),
        ),
        def(
            "ResourceTemplate",
            obj([
                meta().since(v3),
                opt("annotations", rf("Annotations")),
                opt("description", Ty::Str),
                opt("icons", arr(rf("Icon"))).since(v4),
                opt("mimeType", Ty::Str),
                req("name", Ty::Str),
                opt("title", Ty::Str).since(v3),
                req("uriTemplate", Ty::Format("uri-template")),
            ]),
        ),
        def(
            "ReadResourceRequest",
            request(
                "resources/read",
                req("params", rf("ReadResourceRequestParams")),
            ),
        ),
        def("ReadResourceRequestParams", {
            let mut fields = vec![request_meta(), req("uri", Ty::Format("uri"))];
            fields.extend(input_echo());
            obj(fields)
        })
        .since(v4),
        def("ResourceRequestParams", uri_params()).since(v4),
        def("ReadResourceResult", {
            let mut fields = vec![
                result_meta(),
                req(
                    "contents",
                    arr(any_of(&["TextResourceContents", "BlobResourceContents"])),
                ),
                result_type(),
            ];
            fields.extend(cacheable());
            obj(fields)
        }),
        result_response(
            "ReadResourceResultResponse",
            any_of(&["InputRequiredResult", "ReadResourceResult"]),
        ),
        def(
            "SubscribeRequest",
            request(
                "resources/subscribe",
                req("params", rf("SubscribeRequestParams")),
            ),
        )
        .until(v5),
        def("SubscribeRequestParams", uri_params()).only(v4),
        def(
            "UnsubscribeRequest",
            request(
                "resources/unsubscribe",
                req("params", rf("UnsubscribeRequestParams")),
            ),
        )
        .until(v5),
        def("UnsubscribeRequestParams", uri_params()).only(v4),
        def(
            "ResourceListChangedNotification",
            notification(
                "notifications/resources/list_changed",
                opt("params", rf("NotificationParams")),
            ),
        ),
        def(
            "ResourceUpdatedNotification",
            notification(
                "notifications/resources/updated",
                req("params", rf("ResourceUpdatedNotificationParams")),
            ),
        ),
        def(
            "ResourceUpdatedNotificationParams",
            obj([notification_meta(), req("uri", Ty::Format("uri"))]),
        )
        .since(v4),
        def("ResourceReference", resource_reference()).until(v3),
        def("ResourceTemplateReference", resource_reference()).since(v3),
    ]
}

/// `{"_meta": …, "uri": …}`: the params of a request about one resource.
fn uri_params() -> Ty {
    obj([request_meta(), req("uri", Ty::Format("uri"))])
}

/// A completion reference to a resource template.
fn resource_reference() -> Ty {
    obj([
        req("type", Ty::Const("ref/resource")),
        req("uri", Ty::Format("uri-template")),
    ])
}
