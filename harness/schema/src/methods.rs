//! Which definition describes which message: the method table of each version.
//!
//! For every method a version has, who may send it (client, server or both), the
//! definition its request or notification is checked against, and for requests the
//! definition of the result. Two kinds of request may be answered by something else
//! than their usual result: in 2025-11-25 a request sent as a task (`params.task`) is
//! answered by a `CreateTaskResult`, and in 2026-07-28 `tools/call`, `prompts/get` and
//! `resources/read` may be answered by an `InputRequiredResult`. See [`Alternative`].

use mcpspec_engine::{Role, Version};

use crate::model::dsl::{only, since, until, Span};
use mcpspec_engine::Version::*;

/// Whether a method is a request (answered) or a notification (not answered).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Request,
    Notification,
}

/// Who may send a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Senders {
    Client,
    Server,
    Either,
}

impl Senders {
    pub fn includes(self, role: Role) -> bool {
        matches!(
            (self, role),
            (Senders::Either, _)
                | (Senders::Client, Role::Client)
                | (Senders::Server, Role::Server)
        )
    }
}

/// A result shape other than the method's usual result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alternative {
    /// Only the usual result.
    None,
    /// 2025-11-25: a result with a `task` member is a `CreateTaskResult`.
    Task,
    /// 2026-07-28: a result whose `resultType` is `"input_required"` is an `InputRequiredResult`.
    InputRequired,
}

/// One method of one version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    pub name: &'static str,
    pub kind: Kind,
    pub senders: Senders,
    /// The definition the whole request or notification message is checked against.
    pub definition: &'static str,
    /// The definition a request's `result` is checked against (`None` for notifications).
    pub result: Option<&'static str>,
    pub alternative: Alternative,
}

struct Row {
    span: Span,
    name: &'static str,
    senders: Senders,
    definition: &'static str,
    result: Option<&'static str>,
}

const fn rq(
    span: Span,
    name: &'static str,
    senders: Senders,
    definition: &'static str,
    result: &'static str,
) -> Row {
    Row {
        span,
        name,
        senders,
        definition,
        result: Some(result),
    }
}

const fn nt(span: Span, name: &'static str, senders: Senders, definition: &'static str) -> Row {
    Row {
        span,
        name,
        senders,
        definition,
        result: None,
    }
}

const ALL: Span = Span::ALL;
const HANDSHAKE: Span = until(V2026_07_28);
const TASKS: Span = only(V2025_11_25);
const STATELESS: Span = only(V2026_07_28);
use Senders::{Client, Either, Server};

#[rustfmt::skip]
const ROWS: &[Row] = &[
    rq(HANDSHAKE, "initialize", Client, "InitializeRequest", "InitializeResult"),
    rq(HANDSHAKE, "ping", Either, "PingRequest", "EmptyResult"),
    rq(STATELESS, "server/discover", Client, "DiscoverRequest", "DiscoverResult"),
    rq(ALL, "resources/list", Client, "ListResourcesRequest", "ListResourcesResult"),
    rq(ALL, "resources/templates/list", Client, "ListResourceTemplatesRequest", "ListResourceTemplatesResult"),
    rq(ALL, "resources/read", Client, "ReadResourceRequest", "ReadResourceResult"),
    rq(HANDSHAKE, "resources/subscribe", Client, "SubscribeRequest", "EmptyResult"),
    rq(HANDSHAKE, "resources/unsubscribe", Client, "UnsubscribeRequest", "EmptyResult"),
    rq(STATELESS, "subscriptions/listen", Client, "SubscriptionsListenRequest", "SubscriptionsListenResult"),
    rq(ALL, "prompts/list", Client, "ListPromptsRequest", "ListPromptsResult"),
    rq(ALL, "prompts/get", Client, "GetPromptRequest", "GetPromptResult"),
    rq(ALL, "tools/list", Client, "ListToolsRequest", "ListToolsResult"),
    rq(ALL, "tools/call", Client, "CallToolRequest", "CallToolResult"),
    rq(HANDSHAKE, "logging/setLevel", Client, "SetLevelRequest", "EmptyResult"),
    rq(ALL, "completion/complete", Client, "CompleteRequest", "CompleteResult"),
    rq(TASKS, "tasks/get", Either, "GetTaskRequest", "GetTaskResult"),
    rq(TASKS, "tasks/result", Either, "GetTaskPayloadRequest", "GetTaskPayloadResult"),
    rq(TASKS, "tasks/cancel", Either, "CancelTaskRequest", "CancelTaskResult"),
    rq(TASKS, "tasks/list", Either, "ListTasksRequest", "ListTasksResult"),
    rq(HANDSHAKE, "sampling/createMessage", Server, "CreateMessageRequest", "CreateMessageResult"),
    rq(HANDSHAKE, "roots/list", Server, "ListRootsRequest", "ListRootsResult"),
    rq(between_v3_v5(), "elicitation/create", Server, "ElicitRequest", "ElicitResult"),
    nt(HANDSHAKE, "notifications/initialized", Client, "InitializedNotification"),
    nt(ALL, "notifications/cancelled", Either, "CancelledNotification"),
    nt(ALL, "notifications/progress", Either, "ProgressNotification"),
    nt(HANDSHAKE, "notifications/roots/list_changed", Client, "RootsListChangedNotification"),
    nt(ALL, "notifications/resources/list_changed", Server, "ResourceListChangedNotification"),
    nt(ALL, "notifications/resources/updated", Server, "ResourceUpdatedNotification"),
    nt(ALL, "notifications/prompts/list_changed", Server, "PromptListChangedNotification"),
    nt(ALL, "notifications/tools/list_changed", Server, "ToolListChangedNotification"),
    nt(ALL, "notifications/message", Server, "LoggingMessageNotification"),
    nt(TASKS, "notifications/tasks/status", Either, "TaskStatusNotification"),
    nt(TASKS, "notifications/elicitation/complete", Server, "ElicitationCompleteNotification"),
    nt(STATELESS, "notifications/subscriptions/acknowledged", Server, "SubscriptionsAcknowledgedNotification"),
];

const fn between_v3_v5() -> Span {
    since(V2025_06_18).and(until(V2026_07_28))
}

/// The methods of `version`, in table order.
pub fn methods(version: Version) -> Vec<Method> {
    ROWS.iter()
        .filter(|r| r.span.contains(version))
        .map(|r| Method {
            name: r.name,
            kind: if r.result.is_some() {
                Kind::Request
            } else {
                Kind::Notification
            },
            senders: r.senders,
            definition: r.definition,
            result: r.result,
            alternative: alternative(version, r.name),
        })
        .collect()
}

fn alternative(version: Version, method: &str) -> Alternative {
    match (version, method) {
        (V2025_11_25, "tools/call" | "sampling/createMessage" | "elicitation/create") => {
            Alternative::Task
        }
        (V2026_07_28, "tools/call" | "prompts/get" | "resources/read") => {
            Alternative::InputRequired
        }
        _ => Alternative::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document;

    #[test]
    fn every_method_names_definitions_of_its_version() {
        for version in Version::ALL {
            let doc = document(version);
            for m in methods(version) {
                for def in std::iter::once(m.definition).chain(m.result) {
                    assert!(
                        doc["$defs"].get(def).is_some(),
                        "{}@{version}: {def}",
                        m.name
                    );
                }
                let method = doc["$defs"][m.definition]["properties"]["method"]["const"].as_str();
                assert_eq!(method, Some(m.name), "{}@{version}", m.definition);
            }
        }
    }
}
