//! Client features: roots, sampling and elicitation (from 2025-06-18), plus
//! icons (2025-11-25). From 2026-07-28 the server asks for them inside an
//! `InputRequiredResult` instead of sending its own requests.

use crate::level::Level::{May, Must, Should};
use crate::requirement::Requirement;
use crate::version::Version::*;

use super::why;

pub static ENTRIES: &[Requirement] = &[
    // ── roots ────────────────────────────────────────────────────────────
    req!("roots.capability.declared", Must, Client, V2024_11_05, None, "client/roots#capabilities",
        "A client that offers roots declares the roots capability."),
    req!("roots.list.result-shape", Must, Client, V2024_11_05, None, "client/roots#listing-roots",
        "A roots/list result has a roots array; each root has a uri and an optional name (the schema's definition)."),
    req!("roots.uri.file", Must, Client, V2024_11_05, None, "client/roots#root",
        "A root's uri is a file:// URI."),
    req!("roots.list-changed.notify", Must, Client, V2024_11_05, Some(V2025_11_25), "client/roots#root-list-changes",
        "A client that declared roots.listChanged sends notifications/roots/list_changed when its roots change."),
    req!("roots.error.unsupported", Should, Client, V2024_11_05, None, "client/roots#error-handling",
        "A client without roots support answers roots/list with -32601 (method not found)."),
    req!("roots.security.client", Must, Client, V2024_11_05, None, "client/roots#security-considerations",
        "A client exposes only roots the user permits, validates root URIs against path traversal and controls access.",
        excluded = why::UI),
    req!("roots.server.respect-boundaries", Should, Server, V2024_11_05, None, "client/roots#security-considerations",
        "A server stays within the roots it was given and copes with roots that become unavailable.",
        excluded = why::INTERNAL),
    // ── sampling ─────────────────────────────────────────────────────────
    req!("sampling.capability.declared", Must, Client, V2024_11_05, None, "client/sampling#capabilities",
        "A client that offers sampling declares the sampling capability."),
    req!("sampling.result-shape", Must, Client, V2024_11_05, None, "client/sampling#creating-messages",
        "A sampling/createMessage result carries role, a content item and the model name (the schema's definition)."),
    req!("sampling.human-in-the-loop", Should, Client, V2024_11_05, None, "client/sampling#user-interaction-model",
        "A human can review and deny sampling requests and review the generated answer.",
        excluded = why::UI),
    req!("sampling.hints.in-order", Must, Client, V2024_11_05, None, "client/sampling#model-preferences",
        "A client evaluates model hints in order, taking the first match.",
        excluded = why::INTERNAL),
    req!("sampling.error.rejected", Should, Client, V2024_11_05, None, "client/sampling#error-handling",
        "A client answers a sampling request the user rejected, or one it cannot serve, with a JSON-RPC error."),
    req!("sampling.tools.capability", Must, Client, V2025_11_25, None, "client/sampling#tools-in-sampling",
        "A client receives tool-enabled sampling only when it declared sampling.tools: one that did not never answers a createMessage with tool use (a tool_use content block, stopReason toolUse); refusing it with an error is allowed."),
    req!("sampling.include-context.declared", Should, Server, V2025_11_25, None, "client/sampling#capabilities",
        "A server uses includeContext values other than none only when the client declared sampling.context."),
    req!("sampling.tool-result.matches-use", Must, Both, V2025_11_25, None, "client/sampling#tools-in-sampling",
        "Each tool result in a sampling conversation names, in toolUseId, a tool use that came earlier."),
    req!("sampling.server.capability-required", Must, Server, V2025_06_18, None, "client/sampling#capabilities",
        "A server sends sampling/createMessage only to clients that declared sampling (the lifecycle rule to use only negotiated capabilities, a MUST from 2025-06-18)."),
    // ── elicitation ──────────────────────────────────────────────────────
    req!("elicitation.capability.declared", Must, Client, V2025_06_18, None, "client/elicitation#capabilities",
        "A client that offers elicitation declares the elicitation capability."),
    req!("elicitation.server.capability-required", Must, Server, V2025_06_18, None, "client/elicitation#capabilities",
        "A server sends elicitation/create only to clients that declared elicitation (the lifecycle rule to use only negotiated capabilities)."),
    req!("elicitation.schema.flat", Must, Server, V2025_06_18, None, "client/elicitation#requested-schema",
        "A form elicitation's requestedSchema is a flat object whose properties are primitive (string, number, integer, boolean, enum) (the schema's restriction; no keyword)."),
    req!("elicitation.response.action", Must, Client, V2025_06_18, None, "client/elicitation#response-actions",
        "An elicitation result carries action accept, decline or cancel; content accompanies accept only (the schema's definition)."),
    req!("elicitation.no-sensitive-information", Must, Server, V2025_06_18, None, "client/elicitation#security-considerations",
        "A server never asks for sensitive information (passwords, tokens) through a form elicitation.",
        excluded = "whether requested information is sensitive is not decidable by a harness"),
    req!("elicitation.client.ui", Should, Client, V2025_06_18, None, "client/elicitation#user-interaction-model",
        "The application shows which server asks, lets the user review and change answers, and always offers decline and cancel.",
        excluded = why::UI),
    req!("elicitation.client.validate", Should, Client, V2025_06_18, None, "client/elicitation#security-considerations",
        "A client validates the user's answer against the requested schema before returning it."),
    req!("elicitation.url.capability", Must, Server, V2025_11_25, None, "client/elicitation#capabilities",
        "A server sends URL-mode elicitations only to clients that declared elicitation.url (an empty elicitation capability means form mode only)."),
    req!("elicitation.url.no-prefetch", Must, Client, V2025_11_25, None, "client/elicitation#url-mode-elicitation",
        "A client does not open or pre-fetch an elicitation URL without the user's consent.",
        excluded = why::UI),
    req!("elicitation.url.opaque-id", Must, Client, V2025_11_25, None, "client/elicitation#url-mode-elicitation",
        "A client treats elicitationId as an opaque value.",
        excluded = why::INTERNAL),
    // ── icons ────────────────────────────────────────────────────────────
    req!("icons.client.formats", Must, Client, V2025_11_25, None, "basic#icons",
        "A client that renders icons supports PNG and JPEG (and should support SVG and WebP, taking care with SVG).",
        excluded = why::UI),
    req!("icons.sources.trusted", Should, Client, V2025_11_25, None, "basic#icons",
        "Consumers fetch icons only from the peer's own or otherwise trusted origins.",
        excluded = why::UI),
    req!("icons.optional", May, Server, V2025_11_25, None, "basic#icons",
        "Tools, resources, prompts and implementations may carry icons."),
];
