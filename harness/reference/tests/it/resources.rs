//! Resources: reading, templates, subscriptions and update notifications.

use crate::support::{methods, Client};
use serde_json::json;

#[test]
fn read_text_blob_and_templated_resources() {
    let mut c = Client::ready("2025-06-18", &[]);
    let r = c.ok("resources/read", json!({ "uri": "mcpspec://static/3" }));
    assert_eq!(r["contents"][0]["uri"], "mcpspec://static/3");
    assert!(r["contents"][0]["text"].as_str().unwrap().contains('3'));
    let b = c.ok("resources/read", json!({ "uri": "mcpspec://blob" }));
    assert_eq!(b["contents"][0]["mimeType"], "application/octet-stream");
    assert_eq!(
        b["contents"][0]["blob"],
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    );
    let t = c.ok("resources/read", json!({ "uri": "mcpspec://items/17" }));
    assert_eq!(t["contents"][0]["text"], "Item 17");
    let p = c.ok(
        "resources/read",
        json!({ "uri": "mcpspec://users/grace/profile" }),
    );
    let profile: serde_json::Value =
        serde_json::from_str(p["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(profile["name"], "grace");
}

#[test]
fn unknown_resources_are_resource_not_found_with_the_uri() {
    let mut c = Client::ready("2025-06-18", &[]);
    for method in [
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        let (resp, _) = c.request(method, Some(json!({ "uri": "mcpspec://nope" })));
        assert_eq!(resp["error"]["code"], -32002, "{method}");
        assert_eq!(resp["error"]["data"]["uri"], "mcpspec://nope");
        assert_eq!(c.code(method, json!({})), -32602, "{method} without uri");
    }
}

#[test]
fn the_counter_changes_every_250_ms() {
    let mut c = Client::ready("2025-06-18", &[]);
    let read = |c: &mut Client| {
        c.ok("resources/read", json!({ "uri": "mcpspec://counter" }))["contents"][0]["text"].clone()
    };
    let first = read(&mut c);
    c.advance(250);
    assert_ne!(read(&mut c), first);
}

#[test]
fn subscribers_get_updates_until_they_unsubscribe() {
    let mut c = Client::ready("2025-06-18", &[]);
    assert_eq!(
        c.server.next_deadline(),
        None,
        "no timer without subscribers"
    );
    c.advance(100);
    assert_eq!(
        c.ok("resources/subscribe", json!({ "uri": "mcpspec://counter" })),
        json!({})
    );
    let out = c.advance(1000);
    assert_eq!(out.len(), 4, "at 250, 500, 750 and 1000: {out:?}");
    for n in &out {
        assert_eq!(n["method"], "notifications/resources/updated");
        assert_eq!(n["params"]["uri"], "mcpspec://counter");
    }
    // Subscribing to a static resource adds no notifications.
    c.ok(
        "resources/subscribe",
        json!({ "uri": "mcpspec://static/1" }),
    );
    assert_eq!(c.advance(1250).len(), 1);
    assert_eq!(
        c.ok(
            "resources/unsubscribe",
            json!({ "uri": "mcpspec://counter" })
        ),
        json!({})
    );
    assert!(c.advance(5000).is_empty());
    assert_eq!(c.server.next_deadline(), None);
}

#[test]
fn updates_interleave_with_a_slow_call() {
    let mut c = Client::ready("2025-06-18", &[]);
    c.ok("resources/subscribe", json!({ "uri": "mcpspec://counter" }));
    c.send(crate::support::slow_call(9, 0.6, 2, Some(json!("s"))));
    let out = c.advance(600);
    assert_eq!(
        methods(&out),
        [
            "notifications/resources/updated",
            "notifications/progress",
            "notifications/resources/updated",
            "notifications/progress",
        ]
    );
    assert_eq!(out[4]["id"], 9);
}

#[test]
fn templates_are_listed() {
    let mut c = Client::ready("2025-06-18", &[]);
    let (templates, _) = c.list_all("resources/templates/list", "resourceTemplates");
    let uris: Vec<_> = templates
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "mcpspec://items/{id}",
            "mcpspec://users/{name}/profile",
            "mcpspec://echo/{text}",
            "test://template/{id}/data"
        ]
    );
}
