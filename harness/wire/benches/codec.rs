//! The wire codec's throughput against the anchor, `serde_json::from_slice::<Value>`
//! on the same frames (issue #18): a stream of typical MCP messages (a
//! handshake, lists, calls with arguments, progress, errors) is decoded into
//! frames by `NdjsonDecoder` (in 64 KiB pushes, as a transport reads) and
//! each frame classified by `classify`; the anchor splits the same bytes at
//! `\n` and parses each line into a `serde_json::Value`. Best of five rounds
//! each; prints MB/s for both and their ratio.
//!
//! `cargo bench -p mcpspec-wire --bench codec` (bench/speed.sh runs it too).

use std::time::{Duration, Instant};

use mcpspec_wire::{classify, NdjsonDecoder};

const MESSAGES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"bench","version":"1.0.0"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"serverInfo":{"name":"srv","version":"2.1.0"},"instructions":"Use the tools."}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"eyJwYWdlIjoyfQ=="}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"Echoes back the input","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}},{"name":"add","description":"Adds two numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},"annotations":{"readOnlyHint":true}}],"nextCursor":"eyJwYWdlIjozfQ=="}}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1.5,"b":-2e3},"_meta":{"progressToken":"p-3"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-3","progress":0.5,"total":1,"message":"half way"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"The sum of 1.5 and -2000 is -1998.5. \u00e9\u4e2d\ud83d\ude00"}],"structuredContent":{"sum":-1998.5},"isError":false}}"#,
    r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: unknown tool","data":{"name":"nope"}}}"#,
    r#"{"jsonrpc":"2.0","id":"r-5","method":"resources/read","params":{"uri":"file:///project/src/main.rs"}}"#,
];

/// About 8 MB of newline-delimited messages.
fn stream() -> Vec<u8> {
    let mut out = Vec::new();
    while out.len() < 8 << 20 {
        for m in MESSAGES {
            out.extend_from_slice(m.as_bytes());
            out.push(b'\n');
        }
    }
    out
}

fn codec(bytes: &[u8]) -> usize {
    let mut d = NdjsonDecoder::new(1 << 20);
    let mut n = 0;
    for chunk in bytes.chunks(64 << 10) {
        d.push(chunk);
        while let Some(frame) = d.next() {
            let frame = frame.expect("valid frames");
            n += usize::from(classify(&frame.bytes).is_ok());
        }
    }
    d.finish();
    n
}

fn anchor(bytes: &[u8]) -> usize {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .filter(|l| serde_json::from_slice::<serde_json::Value>(l).is_ok())
        .count()
}

fn best(bytes: &[u8], f: fn(&[u8]) -> usize) -> (Duration, usize) {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            let n = std::hint::black_box(f(std::hint::black_box(bytes)));
            (t.elapsed(), n)
        })
        .min()
        .expect("five rounds")
}

fn main() {
    let bytes = stream();
    let mb = bytes.len() as f64 / 1e6;
    let (ours, n_ours) = best(&bytes, codec);
    let (theirs, n_theirs) = best(&bytes, anchor);
    assert_eq!(n_ours, n_theirs, "both read every message");
    let rate = |d: Duration| mb / d.as_secs_f64();
    println!(
        "wire codec: {:.0} MB/s (NdjsonDecoder + classify) vs {:.0} MB/s (split + serde_json::from_slice::<Value>) over {mb:.1} MB, {n_ours} frames: ratio {:.2}",
        rate(ours),
        rate(theirs),
        rate(ours) / rate(theirs)
    );
}
