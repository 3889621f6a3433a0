//! Shapes shared by many definitions: JSON-RPC framing of requests, notifications and
//! responses, the `_meta` members, and the result members of 2026-07-28.
//!
//! Up to 2025-06-18 the official request and notification definitions describe only
//! `method` and `params`; from 2025-11-25 on they also carry `jsonrpc` and `id`. The
//! helpers here encode that once, so each area file states only what is its own.

use super::dsl::*;
use mcpspec_engine::Version::*;

/// `{"jsonrpc": "2.0", "id": …, "method": METHOD, "params": …}`; `jsonrpc` and `id`
/// belong to the definition from 2025-11-25 on.
pub fn request(method: &'static str, params: Field) -> Ty {
    obj([
        req("jsonrpc", Ty::Const("2.0")).since(V2025_11_25),
        req("id", rf("RequestId")).since(V2025_11_25),
        req("method", Ty::Const(method)),
        params,
    ])
}

/// A request that 2026-07-28 no longer sends on its own but embeds in an
/// `InputRequiredResult` (sampling, roots, elicitation): `jsonrpc` and `id` only in 2025-11-25.
pub fn input_request(method: &'static str, params: Field) -> Ty {
    obj([
        req("jsonrpc", Ty::Const("2.0")).only(V2025_11_25),
        req("id", rf("RequestId")).only(V2025_11_25),
        req("method", Ty::Const(method)),
        params,
    ])
}

/// `{"jsonrpc": "2.0", "method": METHOD, "params": …}`; `jsonrpc` from 2025-11-25 on.
pub fn notification(method: &'static str, params: Field) -> Ty {
    obj([
        req("jsonrpc", Ty::Const("2.0")).since(V2025_11_25),
        req("method", Ty::Const(method)),
        params,
    ])
}

/// A list request: optional pagination params (required in 2026-07-28, for their `_meta`).
pub fn list_request(method: &'static str) -> Ty {
    request(
        method,
        opt("params", rf("PaginatedRequestParams")).required_in(only(V2026_07_28)),
    )
}

/// 2026-07-28's `<X>ResultResponse`: a successful response whose `result` is `result`.
pub fn result_response(name: &'static str, result: Ty) -> Def {
    def(
        name,
        obj([
            req("jsonrpc", Ty::Const("2.0")),
            req("id", rf("RequestId")),
            req("result", result),
        ]),
    )
    .only(V2026_07_28)
}

/// A `_meta` member of a data object (content, tools, resources…): any object, and from
/// 2026-07-28 on a `MetaObject`.
pub fn meta() -> Field {
    opt(
        "_meta",
        versioned([
            (until(V2026_07_28), any_obj()),
            (since(V2026_07_28), rf("MetaObject")),
        ]),
    )
}

/// The `_meta` member of a result: any object, from 2026-07-28 on a `ResultMetaObject`.
pub fn result_meta() -> Field {
    opt(
        "_meta",
        versioned([
            (until(V2026_07_28), any_obj()),
            (since(V2026_07_28), rf("ResultMetaObject")),
        ]),
    )
}

/// The `_meta` member of request params, declared from 2025-11-25 on: an object whose
/// `progressToken` is a `ProgressToken`; in 2026-07-28 a required `RequestMetaObject`.
pub fn request_meta() -> Field {
    opt(
        "_meta",
        versioned([
            (until(V2026_07_28), progress_meta()),
            (since(V2026_07_28), rf("RequestMetaObject")),
        ]),
    )
    .since(V2025_11_25)
    .required_in(only(V2026_07_28))
}

/// `{"progressToken": ProgressToken, …}`.
pub fn progress_meta() -> Ty {
    open([opt("progressToken", rf("ProgressToken"))])
}

/// The `_meta` member of notification params, declared from 2025-11-25 on.
pub fn notification_meta() -> Field {
    opt(
        "_meta",
        versioned([
            (until(V2026_07_28), any_obj()),
            (since(V2026_07_28), rf("NotificationMetaObject")),
        ]),
    )
    .since(V2025_11_25)
}

/// 2026-07-28: every result names its `resultType`.
pub fn result_type() -> Field {
    req("resultType", Ty::Str).since(V2026_07_28)
}

/// 2026-07-28: cacheable results carry a scope and a time to live.
pub fn cacheable() -> [Field; 2] {
    [
        req("cacheScope", Ty::Enum(&["private", "public"])).since(V2026_07_28),
        req("ttlMs", Ty::NonNegInt).since(V2026_07_28),
    ]
}

/// 2026-07-28: params of a request the server may answer with `InputRequiredResult`
/// echo the collected input back.
pub fn input_echo() -> [Field; 2] {
    [
        opt("inputResponses", rf("InputResponses")).since(V2026_07_28),
        opt("requestState", Ty::Str).since(V2026_07_28),
    ]
}

/// A capability flag object: any object, from 2026-07-28 on any `JSONObject`.
pub fn flag() -> Ty {
    versioned([
        (until(V2026_07_28), any_obj()),
        (since(V2026_07_28), rf("JSONObject")),
    ])
}

/// `{"listChanged": boolean}`.
pub fn list_changed() -> Ty {
    obj([opt("listChanged", Ty::Bool)])
}

/// A page of `items` (each a `item`), cacheable from 2026-07-28 on.
pub fn list_result(items: &'static str, item: &'static str) -> Ty {
    let mut fields = vec![
        result_meta(),
        opt("nextCursor", rf("Cursor")),
        req(items, arr(rf(item))),
        result_type(),
    ];
    fields.extend(cacheable());
    obj(fields)
}
