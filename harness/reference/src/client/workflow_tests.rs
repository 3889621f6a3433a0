//! Unit tests of the reference client's workflow (queue, pages, retries).

use super::*;

const TAMPER: Paging = Paging {
    tamper: true,
    empty_cursor_ends: false,
    fixed_page_size: false,
};

/// The first tools/list page of a workflow planned for tools alone.
fn tools_listing() -> (Workflow, Job) {
    let mut w = Workflow::default();
    w.plan(&json!({ "tools": {} }), Plan::default());
    assert_eq!(w.next().map(|(j, _)| j), Some(Job::Ping));
    let (job, _) = w.next().expect("first page");
    (w, job)
}

fn tool(name: &str) -> Value {
    json!({ "name": name, "inputSchema": { "type": "object" } })
}

#[test]
fn an_empty_cursor_is_followed_unless_the_fault_ends_there() {
    let page = json!({ "tools": [tool("a")], "nextCursor": "" });
    let (mut w, job) = tools_listing();
    assert!(w
        .on_result(&job, &page, Paging::default())
        .contains("more to come"));
    let (_, call) = w.next().expect("second page");
    assert_eq!(call.params, Some(json!({ "cursor": "" })));
    let (mut w, job) = tools_listing();
    let faulty = Paging {
        empty_cursor_ends: true,
        ..Paging::default()
    };
    assert!(w.on_result(&job, &page, faulty).contains("last page"));
    assert_eq!(w.next().map(|(_, c)| c.method), Some("tools/call"));
}

#[test]
fn a_short_page_with_a_cursor_is_followed_unless_the_fault_assumes_a_size() {
    let first = json!({ "tools": [tool("a"), tool("b")], "nextCursor": "p2" });
    let short = json!({ "tools": [tool("c")], "nextCursor": "p3" });
    for (fixed, follows) in [(false, true), (true, false)] {
        let paging = Paging {
            fixed_page_size: fixed,
            ..Paging::default()
        };
        let (mut w, job) = tools_listing();
        assert!(w.on_result(&job, &first, paging).contains("more to come"));
        let (job, _) = w.next().expect("second page");
        let line = w.on_result(&job, &short, paging);
        assert_eq!(line.contains("more to come"), follows, "{line}");
        let next = w.next().map(|(_, c)| (c.method, c.params));
        let third = ("tools/list", Some(json!({ "cursor": "p3" })));
        assert_eq!(next == Some(third), follows);
    }
}

#[test]
fn arguments_follow_the_required_properties_of_the_schema() {
    let schema = json!({
        "type": "object",
        "properties": {
            "s": { "type": "string" }, "n": { "type": "number" }, "i": { "type": "integer" },
            "b": { "type": "boolean" }, "a": { "type": "array" }, "o": { "type": "object" },
            "e": { "type": "string", "enum": ["red", "green"] },
            "u": { "type": ["null", "integer"] }, "optional": { "type": "string" }
        },
        "required": ["s", "n", "i", "b", "a", "o", "e", "u", "undeclared"]
    });
    let args = arguments_for(Some(&schema));
    assert_eq!(
        Value::Object(args),
        json!({ "s": "x", "n": 1, "i": 1, "b": true, "a": [], "o": {}, "e": "red",
                "u": 1, "undeclared": "x" })
    );
    assert!(arguments_for(None).is_empty());
    assert!(arguments_for(Some(&json!({ "type": "object" }))).is_empty());
}

#[test]
fn the_plan_follows_the_declared_capabilities() {
    let mut w = Workflow::default();
    w.plan(
        &json!({ "prompts": {}, "logging": {}, "completions": {} }),
        Plan::default(),
    );
    let methods: Vec<&str> = std::iter::from_fn(|| w.next().map(|(_, c)| c.method)).collect();
    // No prompts were listed (no answer was given), so none is fetched.
    assert_eq!(methods, ["ping", "prompts/list", "logging/setLevel"]);
}

#[test]
fn the_stateless_plan_leaves_out_the_removed_methods_unless_the_fault_sends_them() {
    let caps = json!({ "resources": { "subscribe": true }, "logging": {} });
    // Every job in turn, resources/list answered with one resource.
    let sent = |plan: Plan| {
        let mut w = Workflow::default();
        w.plan(&caps, plan);
        let mut methods = Vec::new();
        while let Some((job, call)) = w.next() {
            if call.method == "resources/list" {
                w.on_result(
                    &job,
                    &json!({ "resources": [{ "uri": "a:1" }] }),
                    Paging::default(),
                );
            }
            methods.push(call.method);
        }
        methods
    };
    let stateless = Plan {
        stateless: true,
        removed_methods: false,
        header_rules: true,
    };
    assert_eq!(
        sent(stateless),
        [
            "resources/list",
            "resources/templates/list",
            "resources/read"
        ]
    );
    let faulty = Plan {
        removed_methods: true,
        ..stateless
    };
    assert_eq!(
        sent(faulty),
        [
            "ping",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "logging/setLevel"
        ]
    );
    assert_eq!(
        sent(Plan::default()),
        [
            "ping",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "resources/subscribe",
            "resources/unsubscribe",
            "logging/setLevel"
        ]
    );
}

#[test]
fn a_retry_counts_its_rounds_and_reports_as_its_job() {
    let mut w = Workflow::default();
    let job = Job::CallTool {
        name: "t".into(),
        arguments: json!({}),
    };
    let call = Call {
        method: "tools/call",
        params: Some(json!({ "name": "t", "inputResponses": {} })),
    };
    w.retry(&job, call.clone());
    let (first, sent) = w.next().expect("the retry");
    assert_eq!(sent, call);
    assert!(matches!(first, Job::Retry { round: 1, .. }));
    w.retry(&first, call.clone());
    let (second, _) = w.next().expect("the second retry");
    assert!(matches!(second, Job::Retry { round: 2, .. }));
    let line = w.on_result(&second, &json!({ "content": [] }), Paging::default());
    assert!(line.starts_with("tools/call t: ok (retry 2"), "{line}");
    assert!(w.summary().contains("1 called"));
    assert!(w
        .on_skipped(&second, &call, "why")
        .ends_with("why; skipping it"));
    assert!(w.summary().ends_with("1 skipped"));
}

#[test]
fn pages_are_followed_with_the_cursor_verbatim_and_listed_items_used() {
    let mut w = Workflow::default();
    w.plan(&json!({ "tools": {} }), Plan::default());
    assert_eq!(w.next().map(|(j, _)| j), Some(Job::Ping));
    let (job, call) = w.next().expect("first page");
    assert_eq!((call.method, call.params), ("tools/list", None));
    let page1 = json!({ "tools": [{ "name": "a", "inputSchema": { "type": "object" } }],
                        "nextCursor": "c1" });
    assert!(w
        .on_result(&job, &page1, Paging::default())
        .contains("more to come"));
    let (job, call) = w.next().expect("second page");
    assert_eq!(call.params, Some(json!({ "cursor": "c1" })));
    let page2 = json!({ "tools": [{ "name": "b",
        "inputSchema": { "type": "object", "properties": { "m": { "type": "string" } },
                         "required": ["m"] } }] });
    assert!(w
        .on_result(&job, &page2, Paging::default())
        .contains("last page"));
    let calls: Vec<Call> = std::iter::from_fn(|| w.next().map(|(_, c)| c)).collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0].params.as_ref().map(|p| &p["name"]),
        Some(&json!("a"))
    );
    let b = calls[1].params.clone().unwrap_or_default();
    assert_eq!(b["arguments"], json!({ "m": "x" }));
    let tokens: HashSet<String> = calls
        .iter()
        .filter_map(|c| {
            c.params.as_ref()?["_meta"]["progressToken"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(tokens.len(), 2, "each call has its own progress token");
}

#[test]
fn a_tampered_or_repeated_cursor() {
    let mut w = Workflow::default();
    w.plan(&json!({ "prompts": {} }), Plan::default());
    w.next();
    let (job, _) = w.next().expect("first page");
    w.on_result(&job, &json!({ "prompts": [], "nextCursor": "abc" }), TAMPER);
    let (job, call) = w.next().expect("second page");
    assert_eq!(call.params, Some(json!({ "cursor": "abcx" })));
    // A server that hands out the same cursor again is not followed twice.
    let line = w.on_result(&job, &json!({ "prompts": [], "nextCursor": "abc" }), TAMPER);
    assert!(line.contains("seen before"), "{line}");
    assert!(w.next().is_none());
}

#[test]
fn resources_are_read_then_the_first_subscribed_and_unsubscribed() {
    let mut w = Workflow::default();
    w.plan(
        &json!({ "resources": { "subscribe": true } }),
        Plan::default(),
    );
    w.next();
    let (job, _) = w.next().expect("resources/list");
    w.on_result(
        &job,
        &json!({ "resources": [{ "uri": "a:1" }, { "uri": "a:2" }] }),
        Paging::default(),
    );
    let (job, call) = w.next().expect("templates");
    assert_eq!(call.method, "resources/templates/list");
    w.on_result(&job, &json!({ "resourceTemplates": [] }), Paging::default());
    let rest: Vec<(&str, Value)> = std::iter::from_fn(|| w.next())
        .map(|(_, c)| (c.method, c.params.unwrap_or_default()["uri"].clone()))
        .collect();
    assert_eq!(
        rest,
        [
            ("resources/read", json!("a:1")),
            ("resources/read", json!("a:2")),
            ("resources/subscribe", json!("a:1")),
            ("resources/unsubscribe", json!("a:1")),
        ]
    );
}

#[test]
fn network_refs_are_found_only_in_listed_tool_schemas() {
    let (_, job) = tools_listing();
    let page = json!({ "tools": [{ "name": "t", "inputSchema": {
        "type": "object",
        "$defs": { "id": { "type": "string" } },
        "properties": {
            "id": { "$ref": "#/$defs/id" },
            "p": { "$ref": "http://127.0.0.1:9/x.json" },
            "q": { "items": { "$ref": "https://example.com/q.json" } }
        }
    } }] });
    let mut refs = network_refs(&job, &page);
    refs.sort();
    assert_eq!(
        refs,
        ["http://127.0.0.1:9/x.json", "https://example.com/q.json"]
    );
    assert!(network_refs(&Job::Ping, &page).is_empty());
}
