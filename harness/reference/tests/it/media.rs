//! Content beyond plain text (the `media` prompt), tool titles and
//! annotations, and behaviour the content and listing faults depend on.

use crate::fault_detectors::{is_base64, media};
use crate::support::{slow_call, Client, VERSIONS};
use serde_json::{json, Value};

#[test]
fn the_media_prompt_offers_what_each_version_defines() {
    let types = |v| -> Vec<String> {
        media(v, &[])
            .iter()
            .map(|b| b["type"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        types("2024-11-05"),
        ["text", "image", "resource", "resource"]
    );
    assert_eq!(
        types("2025-03-26"),
        ["text", "image", "audio", "resource", "resource"]
    );
    for v in ["2025-06-18", "2025-11-25"] {
        assert_eq!(
            types(v),
            [
                "text",
                "image",
                "audio",
                "resource",
                "resource",
                "resource_link"
            ]
        );
    }
}

#[test]
fn media_blocks_are_well_formed() {
    for v in VERSIONS {
        for b in media(v, &[]) {
            match b["type"].as_str().unwrap() {
                "image" | "audio" => {
                    assert!(is_base64(b["data"].as_str().unwrap()), "{b}");
                    assert!(b["mimeType"].is_string());
                }
                "resource" => {
                    let r = &b["resource"];
                    assert!(r["uri"].is_string());
                    assert!(r["text"].is_string() || is_base64(r["blob"].as_str().unwrap()));
                }
                "resource_link" => assert!(b["name"].is_string() && b["uri"].is_string()),
                _ => assert!(b["text"].is_string()),
            }
            if let Some(a) = b.get("annotations") {
                let p = a["priority"].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&p));
                for who in a["audience"].as_array().unwrap() {
                    assert!(who == "user" || who == "assistant");
                }
            }
        }
    }
    // The media prompt comes first, so that clients looking for a prompt
    // without arguments find it.
    let mut c = Client::ready("2025-06-18", &[]);
    assert_eq!(
        c.ok("prompts/list", json!({}))["prompts"][0]["name"],
        "media"
    );
    let m = c.ok("prompts/get", json!({ "name": "media" }));
    let messages = m["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["role"], "assistant");
}

#[test]
fn tools_have_titles_and_annotations_where_the_version_has_them() {
    for v in VERSIONS {
        let mut c = Client::ready(v, &[]);
        let (tools, _) = c.list_all("tools/list", "tools");
        // The reference's own tools; the conformance fixture's that follow
        // them carry neither (the official fixture has none).
        let (own, rest) = tools.split_at(5);
        // 2025-11-25's task-only tool (extension `tasks`) is the
        // reference's own, after the fixture's, with a title and annotations.
        let (task_only, fixture): (Vec<&Value>, Vec<&Value>) =
            rest.iter().partition(|t| t["name"] == "background");
        assert_eq!(task_only.len(), usize::from(v == "2025-11-25"), "{v}");
        assert!(task_only
            .iter()
            .all(|t| t["title"].is_string() && t["annotations"]["readOnlyHint"] == true));
        assert!(fixture
            .iter()
            .all(|t| t.get("title").is_none() && t.get("annotations").is_none()));
        for t in own {
            assert_eq!(t["title"].is_string(), v >= "2025-06-18", "{v} {t}");
            if v >= "2025-03-26" {
                let a = &t["annotations"];
                assert_eq!(a["readOnlyHint"], true);
                assert_eq!(a["idempotentHint"], true);
                assert_eq!(a["openWorldHint"], false);
                assert!(a["title"].is_string());
            } else {
                assert!(t.get("annotations").is_none());
            }
        }
    }
}

#[test]
fn structured_results_also_carry_the_json_as_text() {
    let mut c = Client::ready("2025-06-18", &[]);
    let r = c.ok(
        "tools/call",
        json!({ "name": "structured", "arguments": { "text": "a b" } }),
    );
    let text: serde_json::Value =
        serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, r["structuredContent"]);
}

#[test]
fn arguments_and_meta_are_optional() {
    let mut c = Client::ready("2025-06-18", &[]);
    let r = c.ok("tools/call", json!({ "name": "fail" }));
    assert_eq!(r["isError"], true);
    for method in ["tools/list", "resources/list", "prompts/list"] {
        c.ok(
            method,
            json!({ "_meta": { "progressToken": "t", "io.example/x": 1 } }),
        );
    }
}

#[test]
fn cancelling_one_call_leaves_the_others_running() {
    let mut c = Client::ready("2025-06-18", &[]);
    c.send(slow_call(5, 1.0, 4, Some(json!("five"))));
    c.send(slow_call(6, 1.0, 4, Some(json!("six"))));
    c.advance(300);
    c.notify("notifications/cancelled", Some(json!({ "requestId": 5 })));
    let later = c.advance(5000);
    assert!(later.iter().any(|l| l["id"] == 6));
    assert!(!later.iter().any(|l| l["id"] == 5));
    assert!(!later.iter().any(|l| l["params"]["progressToken"] == "five"));
}
