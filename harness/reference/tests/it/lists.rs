//! Pagination of every list method.

use crate::support::Client;
use mcpspec_reference::Config;
use serde_json::{json, Value};

/// Each list at 2025-06-18: the reference's own items (5 tools, 7
/// resources, 3 templates, 5 prompts), then the conformance fixture's (10
/// tools, 3 resources, 1 template, 4 prompts).
const LISTS: [(&str, &str, usize); 4] = [
    ("tools/list", "tools", 15),
    ("resources/list", "resources", 10),
    ("resources/templates/list", "resourceTemplates", 4),
    ("prompts/list", "prompts", 9),
];

#[test]
fn every_list_pages_to_the_end_without_repeats() {
    for (method, key, count) in LISTS {
        let mut c = Client::ready("2025-06-18", &[]);
        let (items, pages) = c.list_all(method, key);
        assert_eq!(items.len(), count, "{method}");
        assert_eq!(pages, count.div_ceil(2), "{method}: page size 2");
        let mut names: Vec<_> = items
            .iter()
            .map(|i| {
                i.get("name")
                    .or(i.get("uri"))
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect();
        names.dedup();
        assert_eq!(names.len(), count, "{method}: no duplicates");
    }
}

#[test]
fn page_size_comes_from_the_config() {
    let mut c = Client::with_config(Config {
        page_size: 100,
        faults: vec![],
    });
    c.init("2025-11-25");
    let r = c.ok("resources/list", json!({}));
    assert_eq!(r["resources"].as_array().unwrap().len(), 10);
    assert!(r.get("nextCursor").is_none());
    let mut c = Client::with_config(Config {
        page_size: 1,
        faults: vec![],
    });
    c.init("2025-11-25");
    // 2025-11-25 adds the task-only `background` tool (extension `tasks`).
    assert_eq!(c.list_all("tools/list", "tools").1, 19);
}

#[test]
fn invalid_cursors_are_invalid_params() {
    for (method, _, _) in LISTS {
        let mut c = Client::ready("2025-06-18", &[]);
        for cursor in ["", "garbage", "dC4yLjAwMDAwMDAw", "AAAA"] {
            assert_eq!(
                c.code(method, json!({ "cursor": cursor })),
                -32602,
                "{method} {cursor:?}"
            );
        }
    }
}

#[test]
fn a_cursor_from_another_list_is_rejected() {
    let mut c = Client::ready("2025-06-18", &[]);
    let next = c.ok("tools/list", json!({}))["nextCursor"].clone();
    assert!(next.is_string());
    assert_eq!(c.code("prompts/list", json!({ "cursor": next })), -32602);
    assert!(c.ok("tools/list", json!({ "cursor": next }))["tools"].is_array());
}
