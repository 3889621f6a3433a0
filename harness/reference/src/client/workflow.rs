//! What the reference client asks of a server once initialized: a queue of
//! [`Job`]s, planned from the server's declared capabilities, sent one at a
//! time (each waits for its answer, or its timeout, before the next).
//!
//! ```text
//!   ping ─► tools/list (every page) ─► tools/call each tool (not task-only ones)
//!        ─► resources/list (every page) ─► resources/templates/list (every page)
//!        ─► resources/read each resource ─► subscribe + unsubscribe the first
//!        ─► prompts/list (every page) ─► prompts/get each prompt
//!        ─► logging/setLevel "info"                     (each step only when declared)
//! ```
//!
//! Under 2026-07-28 ([`Plan::stateless`]) the methods that version removed
//! are left out: no ping, no subscribe and unsubscribe, no logging/setLevel
//! (the `sends-removed-method` fault puts ping and logging/setLevel back).
//! A request answered `input_required` is retried ([`Job::Retry`], a new
//! request id) with the client's `inputResponses` and the server's
//! `requestState`, at most [`MAX_INPUT_ROUNDS`] times; one the client
//! cannot answer is skipped ([`Workflow::on_skipped`]).
//!
//! Pages are followed by pushing the next page's job to the front of the
//! queue with the `nextCursor` passed back verbatim (the `tamper-cursor`
//! fault appends "x"); a result without `nextCursor` ends the listing, an
//! empty-string one is a cursor like any other (the `empty-cursor-ends`
//! fault stops there), and so is one after a page shorter than the first
//! (the `fixed-page-size` fault stops there).
//! "Each listed X" steps are placeholders ([`Step`]) expanded when they
//! reach the front of the queue, so they see every page. A listing that fails, times out,
//! repeats a cursor or exceeds [`MAX_PAGES`] ends there; the workflow goes on.

use std::collections::{HashMap, HashSet, VecDeque};

use mcpspec_wire::ErrorObject;

use crate::cursor::ListKind;
use serde_json::{json, Map, Value};

/// Pages followed per listing at most, so a server whose cursors never end
/// cannot keep the client busy forever.
pub(crate) const MAX_PAGES: u32 = 100;

/// Retries of one request answered `input_required` at most, so a server
/// that keeps asking cannot keep the client busy forever.
pub(crate) const MAX_INPUT_ROUNDS: u32 = 4;

/// How a session's workflow is planned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// 2026-07-28: without the methods it removed.
    pub stateless: bool,
    /// The `sends-removed-method` fault: ping and logging/setLevel anyway.
    pub removed_methods: bool,
    /// Drop listed tools whose `x-mcp-header` annotations are invalid
    /// (2026-07-28, unless `http-keeps-invalid-header-tools`; see `param_tools`).
    pub header_rules: bool,
}

/// The faults of following pages, off by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Paging {
    /// `tamper-cursor`: each nextCursor goes back with "x" appended.
    pub tamper: bool,
    /// `empty-cursor-ends`: an empty-string nextCursor ends the listing.
    pub empty_cursor_ends: bool,
    /// `fixed-page-size`: a page shorter than the first ends the listing.
    pub fixed_page_size: bool,
}

/// An entry of the queue: a job, or a placeholder for the jobs that
/// depend on a listing, expanded once the listing is complete.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Job(Job),
    /// A `CallTool` for each listed tool.
    CallListedTools,
    /// A `Read` for each listed resource, then subscribe and unsubscribe
    /// the first one when the server offers subscriptions.
    ReadListedResources,
    /// A `GetPrompt` for each listed prompt.
    GetListedPrompts,
}

/// One request of the workflow.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Job {
    Ping,
    List {
        kind: ListKind,
        cursor: Option<String>,
        page: u32,
    },
    CallTool {
        name: String,
        arguments: Value,
    },
    Read {
        uri: String,
    },
    Subscribe {
        uri: String,
    },
    Unsubscribe {
        uri: String,
    },
    GetPrompt {
        name: String,
        arguments: Map<String, Value>,
    },
    SetLevel,
    /// `of` again after an `input_required` result: `call` carries the
    /// client's `inputResponses` (and the server's `requestState`);
    /// `round` counts the retries of `of` so far (1 for the first).
    Retry {
        of: Box<Job>,
        call: Call,
        round: u32,
    },
}

/// A request to send for a job.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub method: &'static str,
    pub params: Option<Value>,
}

/// Counts for the closing summary.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    tools_called: usize,
    resources_read: usize,
    prompts_got: usize,
    errors: usize,
    unanswered: usize,
    skipped: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Workflow {
    queue: VecDeque<Step>,
    tools: Vec<Value>,
    resources: Vec<String>,
    templates: usize,
    prompts: Vec<Value>,
    subscribe: bool,
    cursors: HashSet<(ListKind, String)>,
    /// How many items the first page of each listing held.
    first_page_len: HashMap<ListKind, usize>,
    progress_tokens: u64,
    tally: Tally,
    header_rules: bool,
    /// The kept tools' valid `x-mcp-header` annotations.
    pub(crate) param_tools: super::param_tools::ParamTools,
}

impl Workflow {
    /// Plans the workflow from the `capabilities` of the initialize (or
    /// `server/discover`) result.
    pub(crate) fn plan(&mut self, capabilities: &Value, plan: Plan) {
        let has = |name: &str| capabilities.get(name).is_some_and(|c| !c.is_null());
        let removed = !plan.stateless || plan.removed_methods;
        self.header_rules = plan.header_rules;
        let first_page = |kind| {
            Step::Job(Job::List {
                kind,
                cursor: None,
                page: 1,
            })
        };
        let q = &mut self.queue;
        if removed {
            q.push_back(Step::Job(Job::Ping));
        }
        if has("tools") {
            q.push_back(first_page(ListKind::Tools));
            q.push_back(Step::CallListedTools);
        }
        if has("resources") {
            self.subscribe = !plan.stateless
                && capabilities["resources"].get("subscribe") == Some(&Value::Bool(true));
            q.push_back(first_page(ListKind::Resources));
            q.push_back(first_page(ListKind::Templates));
            q.push_back(Step::ReadListedResources);
        }
        if has("prompts") {
            q.push_back(first_page(ListKind::Prompts));
            q.push_back(Step::GetListedPrompts);
        }
        if has("logging") && removed {
            q.push_back(Step::Job(Job::SetLevel));
        }
        // `completions`: nothing to do without a prompt or template argument
        // worth completing.
    }

    /// The next job and its request, placeholders expanded; `None` when the
    /// workflow is done.
    pub(crate) fn next(&mut self) -> Option<(Job, Call)> {
        loop {
            let step = self.queue.pop_front()?;
            let expanded: Vec<Job> = match step {
                Step::CallListedTools => self.tools.iter().filter_map(tool_call).collect(),
                Step::ReadListedResources => {
                    let mut jobs: Vec<Job> = self
                        .resources
                        .iter()
                        .map(|uri| Job::Read { uri: uri.clone() })
                        .collect();
                    if let (true, Some(uri)) = (self.subscribe, self.resources.first()) {
                        jobs.push(Job::Subscribe { uri: uri.clone() });
                        jobs.push(Job::Unsubscribe { uri: uri.clone() });
                    }
                    jobs
                }
                Step::GetListedPrompts => self.prompts.iter().filter_map(prompt_get).collect(),
                Step::Job(job) => {
                    let call = self.call(&job);
                    return Some((job, call));
                }
            };
            self.push_front(expanded);
        }
    }

    fn push_front(&mut self, jobs: Vec<Job>) {
        for job in jobs.into_iter().rev() {
            self.queue.push_front(Step::Job(job));
        }
    }

    fn call(&mut self, job: &Job) -> Call {
        let (method, params) = match job {
            Job::Ping => ("ping", None),
            Job::List { kind, cursor, .. } => (
                kind.method(),
                cursor.as_ref().map(|c| json!({ "cursor": c })),
            ),
            Job::CallTool { name, arguments } => {
                self.progress_tokens += 1;
                let token = format!("mcpspec-reference-client-{}", self.progress_tokens);
                (
                    "tools/call",
                    Some(json!({
                        "name": name,
                        "arguments": arguments,
                        "_meta": { "progressToken": token },
                    })),
                )
            }
            Job::Read { uri } => ("resources/read", Some(json!({ "uri": uri }))),
            Job::Subscribe { uri } => ("resources/subscribe", Some(json!({ "uri": uri }))),
            Job::Unsubscribe { uri } => ("resources/unsubscribe", Some(json!({ "uri": uri }))),
            Job::GetPrompt { name, arguments } => {
                let mut params = json!({ "name": name });
                if !arguments.is_empty() {
                    params["arguments"] = Value::Object(arguments.clone());
                }
                ("prompts/get", Some(params))
            }
            Job::SetLevel => ("logging/setLevel", Some(json!({ "level": "info" }))),
            Job::Retry { call, .. } => return call.clone(),
        };
        Call { method, params }
    }

    /// Sends `job` again next, as `call` (see [`Job::Retry`]).
    pub(crate) fn retry(&mut self, job: &Job, call: Call) {
        let (of, round) = match job {
            Job::Retry { of, round, .. } => (of.clone(), round + 1),
            other => (Box::new(other.clone()), 1),
        };
        self.queue
            .push_front(Step::Job(Job::Retry { of, call, round }));
    }

    /// A job the client gives up on without an error answer (it cannot
    /// give the input the server asked for).
    pub(crate) fn on_skipped(&mut self, job: &Job, call: &Call, why: &str) -> String {
        self.tally.skipped += 1;
        format!("{}: {why}; skipping it", label(job, call))
    }

    /// A job's result arrived; returns a line for the log. `paging`: the
    /// faults of following pages.
    pub(crate) fn on_result(&mut self, job: &Job, result: &Value, paging: Paging) -> String {
        match job {
            Job::List { kind, page, .. } => self.on_page(*kind, *page, result, paging),
            Job::CallTool { name, .. } => {
                self.tally.tools_called += 1;
                if result.get("isError") == Some(&Value::Bool(true)) {
                    format!("tools/call {name}: a tool error (isError: true)")
                } else {
                    format!("tools/call {name}: ok")
                }
            }
            Job::Read { uri } => {
                self.tally.resources_read += 1;
                let n = result
                    .get("contents")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                format!("resources/read {uri}: {n} content item(s)")
            }
            Job::Subscribe { uri } => format!("resources/subscribe {uri}: ok"),
            Job::Unsubscribe { uri } => format!("resources/unsubscribe {uri}: ok"),
            Job::GetPrompt { name, .. } => {
                self.tally.prompts_got += 1;
                let n = result
                    .get("messages")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                format!("prompts/get {name}: {n} message(s)")
            }
            Job::Ping => "ping: ok".to_owned(),
            Job::SetLevel => "logging/setLevel info: ok".to_owned(),
            Job::Retry { of, round, .. } => {
                let line = self.on_result(of, result, paging);
                format!("{line} (retry {round}, with the input asked for)")
            }
        }
    }

    /// A job's request was answered with an error; the workflow goes on.
    pub(crate) fn on_error(&mut self, job: &Job, call: &Call, error: &ErrorObject) -> String {
        self.tally.errors += 1;
        format!(
            "{}: error {} ({}); going on",
            label(job, call),
            error.code,
            error.message
        )
    }

    /// A job's request got a result the client takes as invalid.
    pub(crate) fn on_invalid(&mut self, job: &Job, call: &Call, why: &str) -> String {
        self.tally.errors += 1;
        format!("{}: {why}; going on", label(job, call))
    }

    /// A job's request got no answer in time (or the server cancelled it).
    pub(crate) fn on_unanswered(&mut self, job: &Job, call: &Call, why: &str) -> String {
        self.tally.unanswered += 1;
        format!("{}: {why}; going on", label(job, call))
    }

    fn on_page(&mut self, kind: ListKind, page: u32, result: &Value, paging: Paging) -> String {
        let items = match result.get(kind.items_key()) {
            Some(Value::Array(items)) => items.as_slice(),
            _ => &[],
        };
        let mut dropped = String::new();
        match kind {
            ListKind::Tools => {
                let (kept, warnings) =
                    super::param_tools::keep(items, self.header_rules, &mut self.param_tools);
                for w in warnings {
                    dropped.push_str("; ");
                    dropped.push_str(&w);
                }
                self.tools.extend(kept);
            }
            ListKind::Resources => self.resources.extend(
                items
                    .iter()
                    .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_owned)),
            ),
            ListKind::Templates => self.templates += items.len(),
            ListKind::Prompts => self.prompts.extend(items.iter().cloned()),
        }
        let head = format!(
            "{} page {page}: {} {}{dropped}",
            kind.method(),
            items.len(),
            kind.items_key()
        );
        let first_len = *self.first_page_len.entry(kind).or_insert(items.len());
        if paging.fixed_page_size && items.len() < first_len {
            return format!("{head}, fewer than the first page's {first_len}: last page");
        }
        let cursor = match result.get("nextCursor") {
            None | Some(Value::Null) => return format!("{head}, last page"),
            Some(Value::String(c)) if c.is_empty() && paging.empty_cursor_ends => {
                return format!("{head}, an empty nextCursor: last page")
            }
            Some(Value::String(c)) => c,
            Some(other) => {
                return format!("{head}; nextCursor is not a string ({other}): stopping")
            }
        };
        if !self.cursors.insert((kind, cursor.clone())) {
            return format!("{head}; nextCursor {cursor:?} was seen before: stopping");
        }
        if page >= MAX_PAGES {
            return format!("{head}; {MAX_PAGES} pages read: stopping");
        }
        let cursor = if paging.tamper {
            format!("{cursor}x")
        } else {
            cursor.clone()
        };
        self.queue.push_front(Step::Job(Job::List {
            kind,
            cursor: Some(cursor),
            page: page + 1,
        }));
        format!("{head}, more to come")
    }

    /// The closing line of the workflow.
    pub(crate) fn summary(&self) -> String {
        let t = self.tally;
        format!(
            "workflow done: {} tool(s) listed, {} called; {} resource(s) listed, {} read; \
             {} template(s) listed; {} prompt(s) listed, {} got; {} error answer(s), {} unanswered, \
             {} skipped",
            self.tools.len(),
            t.tools_called,
            self.resources.len(),
            t.resources_read,
            self.templates,
            self.prompts.len(),
            t.prompts_got,
            t.errors,
            t.unanswered,
            t.skipped
        )
    }
}

/// The network URIs (`http://`, `https://`) among the `$ref`s of the
/// inputSchema of each tool a tools/list page lists (what the
/// `deref-network-ref` fault fetches); none for any other result.
pub(crate) fn network_refs(job: &Job, result: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    if r.starts_with("http://") || r.starts_with("https://") {
                        out.push(r.clone());
                    }
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Job::List {
        kind: ListKind::Tools,
        ..
    } = job
    {
        for tool in result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(schema) = tool.get("inputSchema") {
                walk(schema, &mut out);
            }
        }
    }
    out
}

/// How a job is named in the log: its method and, where there is one, its target.
pub(crate) fn label(job: &Job, call: &Call) -> String {
    match job {
        Job::Retry { of, .. } => label(of, call),
        Job::CallTool { name, .. } | Job::GetPrompt { name, .. } => {
            format!("{} {name}", call.method)
        }
        Job::Read { uri } | Job::Subscribe { uri } | Job::Unsubscribe { uri } => {
            format!("{} {uri}", call.method)
        }
        Job::List { page, .. } => format!("{} page {page}", call.method),
        _ => call.method.to_owned(),
    }
}

/// A `tools/call` for a listed tool (none when the entry has no name).
/// None for a tool that runs only as a task (2025-11-25
/// `execution.taskSupport: "required"`): this client does not use tasks, and
/// calling such a tool without one is what the specification forbids.
fn tool_call(tool: &Value) -> Option<Job> {
    let name = tool.get("name")?.as_str()?.to_owned();
    if tool.pointer("/execution/taskSupport") == Some(&Value::from("required")) {
        return None;
    }
    Some(Job::CallTool {
        name,
        arguments: Value::Object(arguments_for(tool.get("inputSchema"))),
    })
}

/// A `prompts/get` for a listed prompt, every required argument "x".
fn prompt_get(prompt: &Value) -> Option<Job> {
    let name = prompt.get("name")?.as_str()?.to_owned();
    let arguments = prompt
        .get("arguments")
        .and_then(Value::as_array)
        .map(|args| {
            args.iter()
                .filter(|a| a.get("required") == Some(&Value::Bool(true)))
                .filter_map(|a| a.get("name")?.as_str())
                .map(|n| (n.to_owned(), Value::from("x")))
                .collect()
        })
        .unwrap_or_default();
    Some(Job::GetPrompt { name, arguments })
}

/// Arguments for a tool: each required property of its input schema gets
/// a plain value of its type (the first `enum` value when there is one).
pub(crate) fn arguments_for(schema: Option<&Value>) -> Map<String, Value> {
    let Some(schema) = schema else {
        return Map::new();
    };
    let properties = schema.get("properties");
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(|name| {
                    let prop = properties.and_then(|p| p.get(name));
                    (name.to_owned(), value_for(prop))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn value_for(prop: Option<&Value>) -> Value {
    let Some(prop) = prop else {
        return Value::from("x");
    };
    if let Some(first) = prop
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let types: Vec<&str> = match prop.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    types
        .iter()
        .find_map(|t| match *t {
            "string" => Some(Value::from("x")),
            "number" | "integer" => Some(Value::from(1)),
            "boolean" => Some(Value::Bool(true)),
            "array" => Some(json!([])),
            "object" => Some(json!({})),
            _ => None,
        })
        .unwrap_or_else(|| Value::from("x"))
}

#[cfg(test)]
#[path = "workflow_tests.rs"]
mod tests;
