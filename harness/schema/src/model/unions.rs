//! The role unions: every request, notification and result a client or a server may
//! send, per version (`ClientRequest`, `ServerNotification`, …).
//!
//! The validation API does not use these (it knows the method, so it checks against the
//! one definition for it); they are here because the official schemas have them, and a
//! message can be checked against "anything a server may send".

use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let all = Span::ALL;
    let v4 = V2025_11_25;
    let v5 = V2026_07_28;
    let tasks = only(v4);
    let handshake = until(v5);
    vec![
        def(
            "ClientRequest",
            union(&[
                ("InitializeRequest", handshake),
                ("PingRequest", handshake),
                ("DiscoverRequest", only(v5)),
                ("ListResourcesRequest", all),
                ("ListResourceTemplatesRequest", all),
                ("ReadResourceRequest", all),
                ("SubscribeRequest", handshake),
                ("UnsubscribeRequest", handshake),
                ("SubscriptionsListenRequest", only(v5)),
                ("ListPromptsRequest", all),
                ("GetPromptRequest", all),
                ("ListToolsRequest", all),
                ("CallToolRequest", all),
                ("GetTaskRequest", tasks),
                ("GetTaskPayloadRequest", tasks),
                ("CancelTaskRequest", tasks),
                ("ListTasksRequest", tasks),
                ("SetLevelRequest", handshake),
                ("CompleteRequest", all),
            ]),
        ),
        def(
            "ServerRequest",
            union(&[
                ("PingRequest", all),
                ("GetTaskRequest", tasks),
                ("GetTaskPayloadRequest", tasks),
                ("CancelTaskRequest", tasks),
                ("ListTasksRequest", tasks),
                ("CreateMessageRequest", all),
                ("ListRootsRequest", all),
                ("ElicitRequest", since(V2025_06_18)),
            ]),
        )
        .until(v5),
        def(
            "ClientNotification",
            union(&[
                ("CancelledNotification", all),
                ("InitializedNotification", handshake),
                ("ProgressNotification", handshake),
                ("TaskStatusNotification", tasks),
                ("RootsListChangedNotification", handshake),
            ]),
        ),
        def(
            "ServerNotification",
            union(&[
                ("CancelledNotification", all),
                ("ProgressNotification", all),
                ("ResourceListChangedNotification", all),
                ("SubscriptionsAcknowledgedNotification", only(v5)),
                ("ResourceUpdatedNotification", all),
                ("PromptListChangedNotification", all),
                ("ToolListChangedNotification", all),
                ("TaskStatusNotification", tasks),
                ("LoggingMessageNotification", all),
                ("ElicitationCompleteNotification", tasks),
            ]),
        ),
        def(
            "ClientResult",
            union(&[
                ("Result", all),
                ("GetTaskResult", tasks),
                ("GetTaskPayloadResult", tasks),
                ("CancelTaskResult", tasks),
                ("ListTasksResult", tasks),
                ("CreateMessageResult", handshake),
                ("ListRootsResult", handshake),
                ("ElicitResult", between(V2025_06_18, v5)),
            ]),
        ),
        def(
            "ServerResult",
            union(&[
                ("Result", all),
                ("InputRequiredResult", only(v5)),
                ("InitializeResult", handshake),
                ("DiscoverResult", only(v5)),
                ("ListResourcesResult", all),
                ("ListResourceTemplatesResult", all),
                ("ReadResourceResult", all),
                ("SubscriptionsListenResult", only(v5)),
                ("ListPromptsResult", all),
                ("GetPromptResult", all),
                ("ListToolsResult", all),
                ("CallToolResult", all),
                ("GetTaskResult", tasks),
                ("GetTaskPayloadResult", tasks),
                ("CancelTaskResult", tasks),
                ("ListTasksResult", tasks),
                ("CompleteResult", all),
            ]),
        ),
    ]
}
