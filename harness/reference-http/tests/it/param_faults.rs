//! The SEP-2243 custom-header faults (`Mcp-Param-*` for tools that mark
//! parameters with `x-mcp-header`): the clean server refuses a missing,
//! malformed or differing header with 400 and -32020 and decodes the Base64
//! sentinel form; each fault breaks one of those in the way a client sees.
//! (`faults.rs` checks that every HTTP fault has its test here or there.)

use mcpspec_reference::{offer, Fault};
use serde_json::{json, Value};

use crate::support::*;

/// A 2026-07-28 `tools/call` of the reference's annotated tool.
fn call(id: i64, region: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": offer::HEADER_PARAM_TOOL,
            "arguments": { "region": region },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
}

async fn post(s: &Server, body: &Value, param: Option<&str>) -> Resp {
    let mut r = Req::post("/mcp")
        .header("MCP-Protocol-Version", "2026-07-28")
        .json(body);
    if let Some(v) = param {
        r = r.header("Mcp-Param-Region", v);
    }
    r.send(s.addr).await
}

fn refused(r: &Resp) -> bool {
    r.status == 400 && r.json()["error"]["code"] == -32020
}

#[tokio::test]
async fn clean_server_checks_param_headers() {
    let s = start(&[]).await;
    let ok = post(&s, &call(1, json!("us-west1")), Some("us-west1")).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert!(ok.text().contains("region: us-west1"), "{}", ok.text());
    // Header names are case-insensitive.
    let r = Req::post("/mcp")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("MCP-METHOD", "tools/call")
        .header("MCP-NAME", offer::HEADER_PARAM_TOOL)
        .header("MCP-PARAM-REGION", "us-west1")
        .json(&call(2, json!("us-west1")))
        .send(s.addr)
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // No value in the body: no header owed.
    let absent = post(&s, &call(3, Value::Null), None).await;
    assert_eq!(absent.status, 200, "{}", absent.text());
    // A literal that only looks half like the sentinel is compared as it is.
    let lit = post(
        &s,
        &call(4, json!("=?base64?SGVsbG8=")),
        Some("=?base64?SGVsbG8="),
    )
    .await;
    assert_eq!(lit.status, 200, "{}", lit.text());
    for (why, header) in [
        ("missing", None),
        ("differs", Some("eu-west1")),
        ("bad padding", Some("=?base64?SGVsbG8?=")),
        ("bad alphabet", Some("=?base64?SGVs!!!bG8=?=")),
    ] {
        let r = post(&s, &call(5, json!("Hello")), header).await;
        assert!(refused(&r), "{why}: {} {}", r.status, r.text());
    }
}

#[tokio::test]
async fn http_param_header_unchecked() {
    for (faults, refuses) in [
        (vec![], true),
        (vec![Fault::HttpParamHeaderUnchecked], false),
    ] {
        let s = start(&faults).await;
        let missing = post(&s, &call(1, json!("us-west1")), None).await;
        assert_eq!(refused(&missing), refuses, "{faults:?}: {}", missing.text());
        let other = post(&s, &call(2, json!("us-west1")), Some("eu-west1")).await;
        assert_eq!(refused(&other), refuses, "{faults:?}: {}", other.text());
        // The routing headers are still checked.
        let name = post(&s, &call(3, json!("x")), Some("x")).await;
        assert_eq!(name.status, 200);
    }
}

#[tokio::test]
async fn http_param_header_not_decoded() {
    let faults = [Fault::HttpParamHeaderNotDecoded];
    for (faults, refuses) in [(&[][..], false), (&faults[..], true)] {
        let s = start(faults).await;
        // "Hello", Base64-encoded.
        let r = post(&s, &call(1, json!("Hello")), Some("=?base64?SGVsbG8=?=")).await;
        assert_eq!(refused(&r), refuses, "{faults:?}: {}", r.text());
        let plain = post(&s, &call(2, json!("Hello")), Some("Hello")).await;
        assert_eq!(plain.status, 200, "{faults:?}: a plain value still passes");
    }
}
