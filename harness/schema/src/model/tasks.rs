//! Tasks (2025-11-25 only): a request may be run as a task (`params.task`), answered at
//! once with a `CreateTaskResult`, then polled (`tasks/get`), fetched (`tasks/result`),
//! listed or cancelled, with status notifications. Either side may be the receiver.

use super::common::*;
use super::dsl::*;
use mcpspec_engine::Version::*;

pub fn defs() -> Vec<Def> {
    let task_id = || req("params", obj([req("taskId", Ty::Str)]));
    let task_result = || Ty::AllOf(vec![rf("Result"), rf("Task")]);
    vec![
        def("TaskMetadata", obj([opt("ttl", Ty::Int)])),
        def("RelatedTaskMetadata", obj([req("taskId", Ty::Str)])),
        def(
            "TaskStatus",
            Ty::Enum(&[
                "cancelled",
                "completed",
                "failed",
                "input_required",
                "working",
            ]),
        ),
        def(
            "Task",
            obj([
                req("createdAt", Ty::Str),
                req("lastUpdatedAt", Ty::Str),
                opt("pollInterval", Ty::Int),
                req("status", rf("TaskStatus")),
                opt("statusMessage", Ty::Str),
                req("taskId", Ty::Str),
                req("ttl", Ty::Types(&["integer", "null"])),
            ]),
        ),
        def(
            "TaskAugmentedRequestParams",
            obj([request_meta(), opt("task", rf("TaskMetadata"))]),
        ),
        def(
            "CreateTaskResult",
            obj([result_meta(), req("task", rf("Task"))]),
        ),
        def("GetTaskRequest", request("tasks/get", task_id())),
        def("GetTaskResult", task_result()),
        def("GetTaskPayloadRequest", request("tasks/result", task_id())),
        def("GetTaskPayloadResult", rf("Result")),
        def("CancelTaskRequest", request("tasks/cancel", task_id())),
        def("CancelTaskResult", task_result()),
        def("ListTasksRequest", list_request("tasks/list")),
        def("ListTasksResult", list_result("tasks", "Task")),
        def(
            "TaskStatusNotification",
            notification(
                "notifications/tasks/status",
                req("params", rf("TaskStatusNotificationParams")),
            ),
        ),
        def(
            "TaskStatusNotificationParams",
            Ty::AllOf(vec![rf("NotificationParams"), rf("Task")]),
        ),
    ]
    .into_iter()
    .map(|d| d.only(V2025_11_25))
    .collect()
}
