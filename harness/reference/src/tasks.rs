//! Tasks as the 2025-11-25 specification has them (experimental there, so
//! judged by mcpspec's opt-in extension `tasks`): the reference server
//! declares `tasks.list`, `tasks.cancel` and `tasks.requests.tools.call` at
//! 2025-11-25 only, and offers one tool that runs only as a task.
//!
//! ```text
//!  tools/call background {duration}  ─► -32601 (taskSupport is required)
//!  tools/call background + task{ttl} ─► CreateTaskResult {task: working}
//!        tasks/get     ─► working until created + duration, then completed
//!        tasks/result  ─► held until the task is terminal, then the tool's
//!                         CallToolResult with _meta related-task
//!        tasks/cancel  ─► cancelled (a terminal task: -32602)
//!        tasks/list    ─► every task, pages of PAGE
//!  tools/call echo + task            ─► -32601 (no taskSupport: forbidden)
//!  unknown taskId                    ─► -32602
//! ```
//!
//! Time is the server's `now_ms` (sans-IO); the timestamps are ISO 8601,
//! counted from 2025-11-25T00:00:00Z at the server's start.

use mcpspec_engine::Version;
use mcpspec_wire::{Id, Request};
use serde_json::{json, Map, Value};

use crate::error::{RpcError, INTERNAL_ERROR, METHOD_NOT_FOUND};
use crate::fault::Fault;
use crate::outbox::Outbox;
use crate::server::{ReferenceServer, Reply};

/// The tool that runs only as a task.
pub(crate) const TOOL: &str = "background";
/// Its run time when `duration` is not given, in milliseconds.
const DEFAULT_DURATION_MS: u64 = 300;
/// Longest run accepted, in seconds.
const MAX_DURATION_S: f64 = 60.0;
/// How often a requestor is asked to poll, in milliseconds.
const POLL_INTERVAL_MS: u64 = 100;
/// Tasks per `tasks/list` page.
const PAGE: usize = 2;
/// The metadata key tying a message to its task.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// 2025-11-25T00:00:00Z in seconds since the Unix epoch: time zero.
const EPOCH_S: u64 = 1_764_028_800;

/// Whether `version` has the reference's tasks (2025-11-25 only).
pub(crate) fn offered(version: Version) -> bool {
    version == Version::V2025_11_25
}

/// The methods of 2025-11-25 tasks.
pub(crate) const METHODS: [&str; 4] = ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];

/// Whether `method` is one of [`METHODS`].
pub(crate) fn is_method(method: &str) -> bool {
    METHODS.contains(&method)
}

/// The `tasks` server capability.
pub(crate) fn capability() -> Value {
    json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
}

/// The `tools/list` entry of [`TOOL`].
pub(crate) fn definition() -> Value {
    json!({
        "name": TOOL,
        "title": "Background job",
        "description": "Runs only as a task (execution.taskSupport required): completes after `duration` seconds with a text result.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "duration": { "type": "number", "description": "Seconds until the task completes.", "default": 0.3, "minimum": 0, "maximum": MAX_DURATION_S }
            }
        },
        "execution": { "taskSupport": "required" },
        "annotations": { "title": "Background job", "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false }
    })
}

/// One task.
#[derive(Debug, Clone)]
pub(crate) struct Task {
    id: String,
    created_ms: u64,
    duration_ms: u64,
    ttl: Option<u64>,
    cancelled_ms: Option<u64>,
    result: Value,
}

impl Task {
    fn done_ms(&self) -> u64 {
        self.created_ms.saturating_add(self.duration_ms)
    }

    fn status(&self, now_ms: u64) -> (&'static str, u64) {
        match self.cancelled_ms {
            Some(at) => ("cancelled", at),
            None if now_ms >= self.done_ms() => ("completed", self.done_ms()),
            None => ("working", self.created_ms),
        }
    }

    fn terminal(&self, now_ms: u64) -> bool {
        self.status(now_ms).0 != "working"
    }

    fn to_json(&self, now_ms: u64, stuck: bool) -> Value {
        let (status, updated) = self.status(now_ms);
        let (status, updated) = if stuck && status == "completed" {
            ("working", self.created_ms)
        } else {
            (status, updated)
        };
        json!({
            "taskId": self.id,
            "status": status,
            "createdAt": timestamp(self.created_ms),
            "lastUpdatedAt": timestamp(updated),
            "ttl": self.ttl,
            "pollInterval": POLL_INTERVAL_MS,
        })
    }
}

/// The server's tasks, and the `tasks/result` requests waiting on them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tasks {
    tasks: Vec<Task>,
    created: u64,
    waiting: Vec<Waiting>,
}

/// A `tasks/result` held until its task is terminal.
#[derive(Debug, Clone)]
struct Waiting {
    id: Id,
    task: String,
    batch: Option<u64>,
}

impl Tasks {
    /// When a held `tasks/result` can next be answered.
    pub(crate) fn deadline(&self) -> Option<u64> {
        self.waiting
            .iter()
            .filter_map(|w| self.find(&w.task).map(Task::done_ms))
            .min()
    }

    fn find(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }
}

impl ReferenceServer {
    /// `tools/call` of [`TOOL`], or any call carrying `task`, at a version
    /// with tasks; `None`: an ordinary call.
    pub(crate) fn task_call(
        &mut self,
        now_ms: u64,
        version: Version,
        name: &str,
        params: &Map<String, Value>,
    ) -> Option<Result<Value, RpcError>> {
        if !offered(version) || self.scope.is_some() {
            return None;
        }
        let task = params.get("task");
        if name != TOOL {
            return match task {
                Some(_) if self.faults.has(Fault::TaskForbiddenAccepted) => {
                    Some(Ok(self.create(now_ms, name, params, 0)))
                }
                Some(_) => Some(Err(RpcError::new(
                    METHOD_NOT_FOUND,
                    format!("tool {name} does not run as a task (no execution.taskSupport)"),
                ))),
                None => None,
            };
        }
        let duration_ms = match params.get("arguments").and_then(|a| a.get("duration")) {
            None | Some(Value::Null) => DEFAULT_DURATION_MS,
            Some(d) => match d.as_f64() {
                Some(s) if (0.0..=MAX_DURATION_S).contains(&s) => (s * 1000.0).round() as u64,
                _ => {
                    return Some(Ok(crate::tools::text_result(
                        format!("duration must be a number of seconds in 0..={MAX_DURATION_S}"),
                        true,
                    )))
                }
            },
        };
        match task {
            Some(Value::Object(_)) if self.faults.has(Fault::TaskPlainResult) => {
                Some(Ok(result_of(duration_ms)))
            }
            Some(Value::Object(_)) => Some(Ok(self.create(now_ms, name, params, duration_ms))),
            Some(_) => Some(Err(RpcError::invalid_params("task must be an object"))),
            None if self.faults.has(Fault::TaskRequiredRunsPlain) => {
                Some(Ok(result_of(duration_ms)))
            }
            None => Some(Err(RpcError::new(METHOD_NOT_FOUND, format!(
                "tool {TOOL} runs only as a task (execution.taskSupport is required): add params.task"
            )))),
        }
    }

    fn create(
        &mut self,
        now_ms: u64,
        name: &str,
        params: &Map<String, Value>,
        duration_ms: u64,
    ) -> Value {
        self.tasks.created += 1;
        let id = format!("task-{}-{now_ms}", self.tasks.created);
        let ttl = params
            .get("task")
            .and_then(|t| t.get("ttl"))
            .and_then(Value::as_u64);
        let result = if name == TOOL {
            result_of(duration_ms)
        } else {
            crate::tools::text_result(format!("tool {name} ran as a task"), false)
        };
        let task = Task {
            id,
            created_ms: now_ms,
            duration_ms,
            ttl,
            cancelled_ms: None,
            result,
        };
        let created = json!({ "task": task.to_json(now_ms, false) });
        self.tasks.tasks.push(task);
        created
    }

    /// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` at a
    /// version with tasks; `None` for any other request.
    pub(crate) fn task_request(
        &mut self,
        now_ms: u64,
        version: Version,
        req: &Request,
        params: &Map<String, Value>,
        batch: Option<u64>,
    ) -> Option<Reply> {
        if !offered(version) || self.scope.is_some() || !is_method(&req.method) {
            return None;
        }
        let stuck = self.faults.has(Fault::TaskStatusStuck);
        if req.method == "tasks/list" {
            return Some(Reply::Now(self.list_tasks(now_ms, params, stuck)));
        }
        let id = match params.get("taskId") {
            Some(Value::String(id)) => id.clone(),
            _ => {
                return Some(Reply::Now(Err(RpcError::invalid_params(format!(
                    "{} requires taskId (a string)",
                    req.method
                )))))
            }
        };
        let Some(index) = self.tasks.tasks.iter().position(|t| t.id == id) else {
            let e = if self.faults.has(Fault::TaskUnknownIdInternalError) {
                RpcError::new(
                    INTERNAL_ERROR,
                    format!("task store lookup failed for {id:?}"),
                )
            } else {
                RpcError::invalid_params(format!("unknown taskId {id:?}"))
                    .with_data(json!({ "taskId": id }))
            };
            return Some(Reply::Now(Err(e)));
        };
        let task = &mut self.tasks.tasks[index];
        Some(match req.method.as_str() {
            "tasks/get" => Reply::Now(Ok(task.to_json(now_ms, stuck))),
            "tasks/cancel" if task.terminal(now_ms) => {
                if self.faults.has(Fault::TaskCancelTerminalAccepted) {
                    Reply::Now(Ok(task.to_json(now_ms, stuck)))
                } else {
                    Reply::Now(Err(RpcError::invalid_params(format!(
                        "task {id:?} is already {} and cannot be cancelled",
                        task.status(now_ms).0
                    ))))
                }
            }
            "tasks/cancel" => {
                task.cancelled_ms = Some(now_ms);
                let mut answer = task.to_json(now_ms, stuck);
                answer["statusMessage"] = Value::from("The task was cancelled by request.");
                Reply::Now(Ok(answer))
            }
            _ if task.terminal(now_ms) => Reply::Now(Ok(self.final_result(index))),
            _ => {
                self.tasks.waiting.push(Waiting {
                    id: req.id.clone(),
                    task: id,
                    batch,
                });
                Reply::Deferred
            }
        })
    }

    /// What `tasks/result` answers for the terminal task at `index`.
    fn final_result(&self, index: usize) -> Value {
        let task = &self.tasks.tasks[index];
        let mut result = if task.cancelled_ms.is_some() {
            crate::tools::text_result("the task was cancelled before it completed", true)
        } else {
            task.result.clone()
        };
        if !self.faults.has(Fault::TaskResultNoRelatedTask) {
            result["_meta"] = json!({ RELATED_TASK: { "taskId": task.id } });
        }
        result
    }

    fn list_tasks(
        &self,
        now_ms: u64,
        params: &Map<String, Value>,
        stuck: bool,
    ) -> Result<Value, RpcError> {
        let all: Vec<Value> = if self.faults.has(Fault::TasksListMissing) {
            Vec::new()
        } else {
            self.tasks
                .tasks
                .iter()
                .map(|t| t.to_json(now_ms, stuck))
                .collect()
        };
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match c.strip_prefix("tasks:").and_then(|n| n.parse().ok()) {
                Some(n) if n <= all.len() => n,
                _ => return Err(RpcError::invalid_params(format!("invalid cursor: {c:?}"))),
            },
            Some(_) => return Err(RpcError::invalid_params("cursor must be a string")),
        };
        let end = (start + PAGE).min(all.len());
        let mut page = json!({ "tasks": all[start..end] });
        if end < all.len() {
            page["nextCursor"] = Value::from(format!("tasks:{end}"));
        }
        Ok(page)
    }

    /// Answers the held `tasks/result` requests whose task is terminal by `now_ms`.
    pub(crate) fn run_task_timers(&mut self, now_ms: u64, out: &mut Outbox) {
        let waiting = std::mem::take(&mut self.tasks.waiting);
        for w in waiting {
            let index = self.tasks.tasks.iter().position(|t| t.id == w.task);
            match index.filter(|&i| self.tasks.tasks[i].terminal(now_ms)) {
                Some(i) => {
                    let msg = self.response(w.id.clone(), Ok(self.final_result(i)));
                    self.deliver(w.batch, &w.id, msg, out);
                }
                None => self.tasks.waiting.push(w),
            }
        }
    }
}

/// The `background` tool's result after `duration_ms`.
fn result_of(duration_ms: u64) -> Value {
    crate::tools::text_result(format!("background job done after {duration_ms} ms"), false)
}

/// `ms` after time zero as ISO 8601 (UTC, milliseconds).
fn timestamp(ms: u64) -> String {
    let secs = EPOCH_S + ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

/// The Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_count_from_the_version_date() {
        assert_eq!(timestamp(0), "2025-11-25T00:00:00.000Z");
        assert_eq!(timestamp(1_500), "2025-11-25T00:00:01.500Z");
        assert_eq!(timestamp(7 * 86_400_000), "2025-12-02T00:00:00.000Z");
        assert_eq!(timestamp(40 * 86_400_000), "2026-01-04T00:00:00.000Z");
    }
}
