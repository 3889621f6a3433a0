//! 2025-11-25 tasks (mcpspec's opt-in extension `tasks`): the clean
//! server's task lifecycle, and one detector per `task*` fault.

use crate::support::Client;
use mcpspec_reference::Fault;
use serde_json::{json, Value};

const V: &str = "2025-11-25";

/// A task-augmented call of the task tool; the whole response.
fn create(c: &mut Client, duration: f64) -> Value {
    c.request(
        "tools/call",
        Some(json!({
            "name": "background",
            "arguments": { "duration": duration },
            "task": { "ttl": 60000 }
        })),
    )
    .0
}

/// The id of a task created by a task-augmented call (`None`: no task
/// was created, as under `task-plain-result`).
fn task_id(c: &mut Client, duration: f64) -> Option<String> {
    create(c, duration)["result"]["task"]["taskId"]
        .as_str()
        .map(str::to_owned)
}

#[test]
fn tasks_exist_at_2025_11_25_only() {
    let mut c = Client::new(&[]);
    let caps = c.init(V)["result"]["capabilities"].clone();
    assert_eq!(caps["tasks"]["requests"]["tools"]["call"], json!({}));
    let tools = Client::ready(V, &[]).list_all("tools/list", "tools").0;
    let tool = tools.iter().find(|t| t["name"] == "background").unwrap();
    assert_eq!(tool["execution"]["taskSupport"], "required");
    // Before 2025-11-25 the reference has no tasks.
    for old in ["2025-06-18", "2024-11-05"] {
        let mut c = Client::new(&[]);
        assert!(c.init(old)["result"]["capabilities"].get("tasks").is_none());
        let mut c = Client::ready(old, &[]);
        assert_eq!(c.code("tasks/list", json!({})), -32601);
    }
}

#[test]
fn a_task_runs_from_working_to_completed_and_gives_its_result() {
    let mut c = Client::ready(V, &[]);
    let created = create(&mut c, 1.0);
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 60000);
    assert!(task["createdAt"]
        .as_str()
        .unwrap()
        .starts_with("2025-11-25T"));
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(
        c.ok("tasks/get", json!({ "taskId": id }))["status"],
        "working"
    );
    // tasks/result on a working task is held until the task ends.
    let (held, _) = c.request("tasks/result", Some(json!({ "taskId": id })));
    assert_eq!(held, Value::Null, "answered early: {held}");
    let out = c.advance(1_000);
    let result = out.iter().find(|l| l.get("result").is_some()).unwrap();
    assert_eq!(result["result"]["content"][0]["type"], "text");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let got = c.ok("tasks/get", json!({ "taskId": id }));
    assert_eq!(got["status"], "completed");
    assert_eq!(c.code("tasks/cancel", json!({ "taskId": id })), -32602);
    let listed = c.list_all("tasks/list", "tasks").0;
    assert!(listed.iter().any(|t| t["taskId"] == id.as_str()));
}

#[test]
fn a_cancelled_task_stays_cancelled_and_lists_page() {
    let mut c = Client::ready(V, &[]);
    let ids: Vec<String> = (0..3).map(|_| task_id(&mut c, 5.0).unwrap()).collect();
    let cancelled = c.ok("tasks/cancel", json!({ "taskId": ids[0] }));
    assert_eq!(cancelled["status"], "cancelled");
    c.advance(10_000);
    assert_eq!(
        c.ok("tasks/get", json!({ "taskId": ids[0] }))["status"],
        "cancelled"
    );
    assert_eq!(
        c.ok("tasks/get", json!({ "taskId": ids[1] }))["status"],
        "completed"
    );
    let (listed, pages) = c.list_all("tasks/list", "tasks");
    assert_eq!((listed.len(), pages), (3, 2));
    assert_eq!(c.code("tasks/list", json!({ "cursor": "nope" })), -32602);
}

#[test]
fn tool_level_negotiation_is_enforced() {
    let mut c = Client::ready(V, &[]);
    let plain = json!({ "name": "background", "arguments": {} });
    assert_eq!(c.code("tools/call", plain), -32601);
    let echo = json!({ "name": "echo", "arguments": { "message": "x" }, "task": {} });
    assert_eq!(c.code("tools/call", echo), -32601);
    assert_eq!(c.code("tasks/get", json!({ "taskId": "nope" })), -32602);
    // Malformed params of a task method are invalid params, not an unknown method.
    for m in ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"] {
        assert_eq!(c.code(m, json!([1])), -32602, "{m}");
    }
    assert_eq!(c.code("tasks/result", json!({ "taskId": 7 })), -32602);
}

pub fn plain_result(f: &[Fault]) -> bool {
    let created = create(&mut Client::ready(V, f), 0.1);
    created["result"].get("task").is_none()
}

pub fn status_stuck(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let Some(id) = task_id(&mut c, 0.1) else {
        return false;
    };
    c.advance(1_000);
    c.ok("tasks/get", json!({ "taskId": id }))["status"] == "working"
}

pub fn result_no_related_task(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let Some(id) = task_id(&mut c, 0.0) else {
        return false;
    };
    let result = c.ok("tasks/result", json!({ "taskId": id }));
    result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] != id.as_str()
}

pub fn unknown_id_internal_error(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    ["tasks/get", "tasks/result", "tasks/cancel"]
        .iter()
        .any(|m| c.code(m, json!({ "taskId": "no-such-task" })) != -32602)
}

pub fn cancel_terminal_accepted(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let Some(id) = task_id(&mut c, 0.0) else {
        return false;
    };
    let (answer, _) = c.request("tasks/cancel", Some(json!({ "taskId": id })));
    answer.get("result").is_some()
}

pub fn required_runs_plain(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let (answer, _) = c.request(
        "tools/call",
        Some(json!({ "name": "background", "arguments": {} })),
    );
    answer.get("result").is_some()
}

pub fn list_missing(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let Some(id) = task_id(&mut c, 0.1) else {
        return false;
    };
    let listed = c.list_all("tasks/list", "tasks").0;
    !listed.iter().any(|t| t["taskId"] == id.as_str())
}

pub fn forbidden_accepted(f: &[Fault]) -> bool {
    let mut c = Client::ready(V, f);
    let (answer, _) = c.request(
        "tools/call",
        Some(json!({ "name": "echo", "arguments": { "message": "x" }, "task": {} })),
    );
    answer["result"].get("task").is_some()
}
