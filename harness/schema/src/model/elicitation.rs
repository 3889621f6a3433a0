//! Elicitation (from 2025-06-18): a server asks the user, through the client, for
//! structured input described by a restricted JSON Schema (`PrimitiveSchemaDefinition`),
//! or (from 2025-11-25) to visit a URL.
//!
//! The enum schemas were one `EnumSchema` in 2025-06-18 and became single/multi-select,
//! titled/untitled variants (plus the legacy `enumNames` form) in 2025-11-25.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let v3 = V2025_06_18;
    let v4 = V2025_11_25;
    let v5 = V2026_07_28;
    vec![
        def(
            "ElicitRequest",
            input_request(
                "elicitation/create",
                req("params", rf("ElicitRequestParams")),
            ),
        )
        .since(v3),
        def(
            "ElicitRequestParams",
            versioned([
                (
                    only(v3),
                    obj([
                        req("message", Ty::Str),
                        req("requestedSchema", requested_schema()),
                    ]),
                ),
                (
                    since(v4),
                    any_of(&["ElicitRequestFormParams", "ElicitRequestURLParams"]),
                ),
            ]),
        )
        .since(v4),
        def(
            "ElicitRequestFormParams",
            obj([
                request_meta().until(v5),
                req("message", Ty::Str),
                opt("mode", Ty::Const("form")),
                req("requestedSchema", requested_schema()),
                opt("task", rf("TaskMetadata")).only(v4),
            ]),
        )
        .since(v4),
        def(
            "ElicitRequestURLParams",
            obj([
                request_meta().until(v5),
                req("elicitationId", Ty::Str).only(v4),
                req("message", Ty::Str),
                req("mode", Ty::Const("url")),
                opt("task", rf("TaskMetadata")).only(v4),
                req("url", Ty::Format("uri")),
            ]),
        )
        .since(v4),
        def(
            "ElicitResult",
            obj([
                opt("_meta", any_obj()).until(v5),
                req("action", Ty::Enum(&["accept", "cancel", "decline"])),
                opt(
                    "content",
                    map(versioned([
                        (only(v3), primitive_value()),
                        (
                            since(v4),
                            Ty::Union(vec![
                                (Span::ALL, arr(Ty::Str)),
                                (Span::ALL, primitive_value()),
                            ]),
                        ),
                    ])),
                ),
            ]),
        )
        .since(v3),
        def(
            "ElicitationCompleteNotification",
            notification(
                "notifications/elicitation/complete",
                req("params", obj([req("elicitationId", Ty::Str)])),
            ),
        )
        .only(v4),
        def(
            "PrimitiveSchemaDefinition",
            union(&[
                ("StringSchema", Span::ALL),
                ("NumberSchema", Span::ALL),
                ("BooleanSchema", Span::ALL),
                ("EnumSchema", only(v3)),
                ("UntitledSingleSelectEnumSchema", since(v4)),
                ("TitledSingleSelectEnumSchema", since(v4)),
                ("UntitledMultiSelectEnumSchema", since(v4)),
                ("TitledMultiSelectEnumSchema", since(v4)),
                ("LegacyTitledEnumSchema", since(v4)),
            ]),
        )
        .since(v3),
        def(
            "StringSchema",
            obj(described([
                opt("default", Ty::Str).since(v4),
                opt("format", Ty::Enum(&["date", "date-time", "email", "uri"])),
                opt("maxLength", Ty::Int),
                opt("minLength", Ty::Int),
                req("type", Ty::Const("string")),
            ])),
        )
        .since(v3),
        def(
            "NumberSchema",
            obj(described([
                opt("default", Ty::Num).since(v4),
                opt("maximum", Ty::Num),
                opt("minimum", Ty::Num),
                req("type", Ty::Enum(&["integer", "number"])),
            ])),
        )
        .since(v3),
        def(
            "BooleanSchema",
            obj(described([
                opt("default", Ty::Bool),
                req("type", Ty::Const("boolean")),
            ])),
        )
        .since(v3),
        def(
            "EnumSchema",
            versioned([
                (only(v3), legacy_enum(false)),
                (
                    since(v4),
                    any_of(&[
                        "UntitledSingleSelectEnumSchema",
                        "TitledSingleSelectEnumSchema",
                        "UntitledMultiSelectEnumSchema",
                        "TitledMultiSelectEnumSchema",
                        "LegacyTitledEnumSchema",
                    ]),
                ),
            ]),
        )
        .since(v3),
        def(
            "SingleSelectEnumSchema",
            any_of(&[
                "UntitledSingleSelectEnumSchema",
                "TitledSingleSelectEnumSchema",
            ]),
        )
        .since(v4),
        def(
            "MultiSelectEnumSchema",
            any_of(&[
                "UntitledMultiSelectEnumSchema",
                "TitledMultiSelectEnumSchema",
            ]),
        )
        .since(v4),
        def(
            "UntitledSingleSelectEnumSchema",
            obj(described([
                opt("default", Ty::Str),
                req("enum", arr(Ty::Str)),
                req("type", Ty::Const("string")),
            ])),
        )
        .since(v4),
        def(
            "TitledSingleSelectEnumSchema",
            obj(described([
                opt("default", Ty::Str),
                req("oneOf", arr(titled_const())),
                req("type", Ty::Const("string")),
            ])),
        )
        .since(v4),
        def(
            "UntitledMultiSelectEnumSchema",
            obj(multi_select(obj([
                req("enum", arr(Ty::Str)),
                req("type", Ty::Const("string")),
            ]))),
        )
        .since(v4),
        def(
            "TitledMultiSelectEnumSchema",
            obj(multi_select(obj([req("anyOf", arr(titled_const()))]))),
        )
        .since(v4),
        def("LegacyTitledEnumSchema", legacy_enum(true)).since(v4),
    ]
}

/// `requestedSchema`: a flat object schema whose properties are primitive schemas.
fn requested_schema() -> Ty {
    obj([
        opt("$schema", Ty::Str).since(V2025_11_25),
        req("properties", map(rf("PrimitiveSchemaDefinition"))),
        opt("required", arr(Ty::Str)),
        req("type", Ty::Const("object")),
    ])
}

/// A string, integer or boolean answer.
fn primitive_value() -> Ty {
    Ty::Types(&["string", "integer", "boolean"])
}

/// `own` plus the optional `title` and `description` every primitive schema has.
fn described<const N: usize>(own: [Field; N]) -> Vec<Field> {
    let mut fields = vec![opt("description", Ty::Str), opt("title", Ty::Str)];
    fields.extend(own);
    fields
}

/// `{"const": value, "title": label}`.
fn titled_const() -> Ty {
    obj([req("const", Ty::Str), req("title", Ty::Str)])
}

/// An array-of-strings schema whose `items` is `items`.
fn multi_select(items: Ty) -> Vec<Field> {
    described([
        opt("default", arr(Ty::Str)),
        req("items", items),
        opt("maxItems", Ty::Int),
        opt("minItems", Ty::Int),
        req("type", Ty::Const("array")),
    ])
}

/// A string enum with optional display names (`enumNames`); `with_default` from 2025-11-25.
fn legacy_enum(with_default: bool) -> Ty {
    let mut fields = described([
        req("enum", arr(Ty::Str)),
        opt("enumNames", arr(Ty::Str)),
        req("type", Ty::Const("string")),
    ]);
    if with_default {
        fields.push(opt("default", Ty::Str));
    }
    obj(fields)
}
