//! `subscriptions/listen` (2026-07-28) over stdio: the acknowledgement
//! comes first and names the honoured subset, resource updates carry the
//! subscription id, nothing unrequested is sent, the request stays open
//! until the client cancels it or closes stdin. Every message the server
//! writes here is validated against the 2026-07-28 schema.

use crate::support::{exit_code, json_lines, meta, split_response, Client};
use mcpspec_engine::{Role, Version};
use mcpspec_reference::offer::COUNTER_URI;
use mcpspec_reference::{Config, ReferenceServer};
use mcpspec_schema::schemas;
use serde_json::{json, Value};

const ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
const ACK: &str = "notifications/subscriptions/acknowledged";
const UPDATED: &str = "notifications/resources/updated";

fn listen_request(id: Value, filter: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "subscriptions/listen",
        "params": { "notifications": filter, "_meta": meta("2026-07-28", json!({})) }
    })
}

/// Every line is a schema-valid 2026-07-28 server notification.
fn notifications_conform(lines: &[Value]) {
    let s = schemas(Version::V2026_07_28);
    for l in lines {
        let method = l["method"]
            .as_str()
            .unwrap_or_else(|| panic!("not a notification: {l}"));
        assert!(l.get("id").is_none(), "{l}");
        let v = s.check_notification(Role::Server, method, l);
        assert!(v.is_empty(), "{l}\n{v:#?}");
    }
}

#[test]
fn acknowledgement_comes_first_with_the_id_and_honoured_subset() {
    let mut c = Client::new(&[]);
    let filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": false,
        "resourceSubscriptions": [COUNTER_URI, "mcpspec://static/1", "mcpspec://nowhere"]
    });
    let lines = c.send(listen_request(json!("sub-1"), filter));
    notifications_conform(&lines);
    assert_eq!(
        lines.len(),
        1,
        "only the acknowledgement, no response: {lines:?}"
    );
    let ack = &lines[0];
    assert_eq!(ack["method"], ACK);
    assert_eq!(ack["params"]["_meta"][ID_KEY], "sub-1");
    // The lists never change, so list_changed types are left out; an
    // unknown URI is left out too.
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "resourceSubscriptions": [COUNTER_URI, "mcpspec://static/1"] })
    );
}

#[test]
fn counter_updates_carry_the_subscription_id_every_period() {
    let mut c = Client::new(&[]);
    c.send(listen_request(
        json!(7),
        json!({ "resourceSubscriptions": [COUNTER_URI] }),
    ));
    let lines = c.advance(1000);
    notifications_conform(&lines);
    assert_eq!(lines.len(), 4, "one update per 250 ms: {lines:?}");
    for l in &lines {
        assert_eq!(l["method"], UPDATED);
        assert_eq!(l["params"]["uri"], COUNTER_URI);
        assert_eq!(
            l["params"]["_meta"][ID_KEY], 7,
            "the id keeps its JSON type"
        );
    }
}

#[test]
fn only_requested_types_are_sent() {
    let mut c = Client::new(&[]);
    let lines = c.send(listen_request(
        json!(500),
        json!({ "toolsListChanged": true, "resourceSubscriptions": ["mcpspec://static/2"] }),
    ));
    assert_eq!(
        lines[0]["params"]["notifications"],
        json!({ "resourceSubscriptions": ["mcpspec://static/2"] })
    );
    assert!(
        c.advance(2000).is_empty(),
        "a static resource never changes"
    );
    // Calls and reads on the same connection send nothing on the stream.
    let (resp, rest) = c.request(
        "resources/read",
        Some(json!({ "uri": COUNTER_URI, "_meta": meta("2026-07-28", json!({})) })),
    );
    assert!(resp.get("result").is_some(), "{resp}");
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn two_streams_are_independent() {
    let mut c = Client::new(&[]);
    c.send(listen_request(
        json!(1),
        json!({ "resourceSubscriptions": [COUNTER_URI] }),
    ));
    c.send(listen_request(
        json!(2),
        json!({ "toolsListChanged": true }),
    ));
    c.send(listen_request(
        json!(3),
        json!({ "resourceSubscriptions": [COUNTER_URI] }),
    ));
    let ids: Vec<Value> = c
        .advance(250)
        .iter()
        .map(|l| l["params"]["_meta"][ID_KEY].clone())
        .collect();
    assert_eq!(ids, vec![json!(1), json!(3)]);
}

#[test]
fn cancelling_ends_the_stream_without_a_response() {
    let mut c = Client::new(&[]);
    c.send(listen_request(
        json!(5),
        json!({ "resourceSubscriptions": [COUNTER_URI] }),
    ));
    assert_eq!(c.advance(300).len(), 1);
    let out = c.notify("notifications/cancelled", Some(json!({ "requestId": 5 })));
    assert!(out.is_empty(), "{out:?}");
    assert!(
        c.advance(2000).is_empty(),
        "no updates, no result after the cancel"
    );
    assert_eq!(c.server.next_deadline(), None, "the counter timer stopped");
    // The id is free again.
    let lines = c.send(listen_request(json!(5), json!({})));
    assert_eq!(lines[0]["method"], ACK);
}

#[test]
fn the_request_stays_open_until_eof() {
    let mut c = Client::new(&[]);
    c.send(listen_request(
        json!(1),
        json!({ "resourceSubscriptions": [COUNTER_URI] }),
    ));
    c.advance(600);
    let out = c.server.on_eof(600);
    assert_eq!(exit_code(&out), Some(0));
    assert!(
        json_lines(&out).is_empty(),
        "an abrupt close carries no result"
    );
}

#[test]
fn malformed_filters_and_reused_ids_are_refused() {
    let mut c = Client::new(&[]);
    for params in [
        json!({}),
        json!({ "notifications": true }),
        json!({ "notifications": { "toolsListChanged": "yes" } }),
        json!({ "notifications": { "resourceSubscriptions": COUNTER_URI } }),
        json!({ "notifications": { "resourceSubscriptions": [1] } }),
    ] {
        let mut params = params;
        params["_meta"] = meta("2026-07-28", json!({}));
        let (resp, rest) = c.request("subscriptions/listen", Some(params.clone()));
        assert_eq!(resp["error"]["code"], -32602, "{params}: {resp}");
        assert!(rest.is_empty(), "no acknowledgement for a refused listen");
    }
    c.send(listen_request(json!(40), json!({})));
    let lines = c.send(listen_request(json!(40), json!({})));
    let (resp, rest) = split_response(lines, &json!(40));
    assert_eq!(resp["error"]["code"], -32600, "{resp}");
    assert!(rest.is_empty());
}

#[test]
fn handshake_era_and_http_servers_do_not_offer_it() {
    // Without 2026-07-28 _meta, in an initialized 2025-11-25 session.
    let mut c = Client::ready("2025-11-25", &[]);
    assert_eq!(
        c.code("subscriptions/listen", json!({ "notifications": {} })),
        -32601
    );
    // The HTTP driver's server refuses it (its SSE stream is not built).
    let mut server = ReferenceServer::new(Config::default()).expecting_stateless();
    let line = format!("{}\n", listen_request(json!(1), json!({})));
    let mut decoder = mcpspec_wire::NdjsonDecoder::new(1 << 20);
    decoder.push(line.as_bytes());
    let frame = decoder.next().unwrap();
    let lines = json_lines(&server.on_frame(0, frame));
    assert_eq!(lines[0]["error"]["code"], -32601, "{lines:?}");
    let discover = format!(
        "{}\n",
        json!({ "jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": { "_meta": meta("2026-07-28", json!({})) } })
    );
    decoder.push(discover.as_bytes());
    let lines = json_lines(&server.on_frame(0, decoder.next().unwrap()));
    assert_eq!(lines[0]["result"]["capabilities"]["resources"], json!({}));
}

#[test]
fn discover_declares_resource_subscriptions_over_stdio() {
    let r = Client::new(&[]).stateless("server/discover", json!({}));
    assert_eq!(r["result"]["capabilities"]["resources"]["subscribe"], true);
}

#[test]
fn handshake_subscribers_still_get_untagged_updates() {
    let mut c = Client::ready("2025-06-18", &[]);
    c.ok("resources/subscribe", json!({ "uri": COUNTER_URI }));
    let at = c.now;
    let lines = c.advance(at + 250);
    assert_eq!(lines.len(), 1);
    assert!(lines[0]["params"].get("_meta").is_none(), "{lines:?}");
    // A listen on the same connection adds a tagged copy.
    c.send(listen_request(
        json!(99),
        json!({ "resourceSubscriptions": [COUNTER_URI] }),
    ));
    let lines = c.advance(at + 500);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0]["params"].get("_meta").is_none());
    assert_eq!(lines[1]["params"]["_meta"][ID_KEY], 99);
}
