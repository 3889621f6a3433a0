//! A scripted client for the sans-IO server: feeds lines, advances time,
//! and parses what comes out.

use mcpspec_reference::{Config, Fault, Output, ReferenceServer};
use mcpspec_wire::NdjsonDecoder;
use serde_json::{json, Value};

pub const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

pub struct Client {
    pub server: ReferenceServer,
    pub now: u64,
    next_id: i64,
    decoder: NdjsonDecoder,
}

impl Client {
    pub fn new(faults: &[Fault]) -> Self {
        Self::with_config(Config {
            faults: faults.to_vec(),
            ..Config::default()
        })
    }

    pub fn with_config(config: Config) -> Self {
        Client {
            server: ReferenceServer::new(config),
            now: 0,
            next_id: 0,
            decoder: NdjsonDecoder::new(1024 * 1024),
        }
    }

    /// A client that has completed the handshake for `version`.
    pub fn ready(version: &str, faults: &[Fault]) -> Self {
        let mut c = Client::new(faults);
        c.init(version);
        c.notify("notifications/initialized", None);
        c
    }

    /// Feeds raw bytes (any number of lines) and returns every output.
    pub fn bytes(&mut self, bytes: &[u8]) -> Vec<Output> {
        self.decoder.push(bytes);
        let mut out = Vec::new();
        while let Some(frame) = self.decoder.next() {
            out.extend(self.server.on_frame(self.now, frame));
        }
        out
    }

    /// Feeds one JSON value as a line; returns the JSON lines written.
    pub fn send(&mut self, v: Value) -> Vec<Value> {
        let line = format!("{v}\n");
        json_lines(&self.bytes(line.as_bytes()))
    }

    pub fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request; returns its response and everything else written.
    pub fn request(&mut self, method: &str, params: Option<Value>) -> (Value, Vec<Value>) {
        let id = self.id();
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if let Some(p) = params {
            msg["params"] = p;
        }
        let lines = self.send(msg);
        split_response(lines, &json!(id))
    }

    /// The result of a request that must succeed.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let (resp, _) = self.request(method, Some(params));
        assert!(resp.get("result").is_some(), "{method} failed: {resp}");
        resp["result"].clone()
    }

    /// The error code of a request that must fail.
    pub fn code(&mut self, method: &str, params: Value) -> i64 {
        let (resp, _) = self.request(method, Some(params));
        resp["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("{method} did not fail: {resp}"))
    }

    pub fn notify(&mut self, method: &str, params: Option<Value>) -> Vec<Value> {
        let mut msg = json!({ "jsonrpc": "2.0", "method": method });
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send(msg)
    }

    pub fn init(&mut self, version: &str) -> Value {
        let (resp, _) = self.request(
            "initialize",
            Some(json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": { "name": "mcpspec-test", "version": "0" }
            })),
        );
        resp
    }

    /// Advances the clock to `to`, firing every timer on the way.
    pub fn advance_raw(&mut self, to: u64) -> Vec<Output> {
        let mut out = Vec::new();
        while let Some(t) = self.server.next_deadline().filter(|t| *t <= to) {
            assert!(
                t >= self.now,
                "deadline {t} is in the past (now {})",
                self.now
            );
            self.now = t;
            out.extend(self.server.on_tick(t));
        }
        self.now = to;
        out
    }

    pub fn advance(&mut self, to: u64) -> Vec<Value> {
        json_lines(&self.advance_raw(to))
    }

    /// Every page of a list method, following `nextCursor` to the end.
    pub fn list_all(&mut self, method: &str, key: &str) -> (Vec<Value>, usize) {
        let mut items = Vec::new();
        let mut pages = 0;
        let mut params = json!({});
        loop {
            let result = self.ok(method, params);
            pages += 1;
            assert!(pages < 100, "{method} never ends");
            items.extend(result[key].as_array().unwrap().iter().cloned());
            match result.get("nextCursor") {
                Some(Value::String(c)) => params = json!({ "cursor": c }),
                None => return (items, pages),
                Some(other) => panic!("nextCursor is not a string: {other}"),
            }
        }
    }
}

/// The stdout writes, each parsed as one JSON line.
pub fn json_lines(outputs: &[Output]) -> Vec<Value> {
    writes(outputs)
        .iter()
        .map(|w| {
            assert!(
                w.ends_with('\n') && w.matches('\n').count() == 1,
                "not one line: {w:?}"
            );
            serde_json::from_str(w).unwrap_or_else(|e| panic!("not JSON ({e}): {w:?}"))
        })
        .collect()
}

/// The stdout writes as text.
pub fn writes(outputs: &[Output]) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Write(b) => Some(String::from_utf8(b.clone()).unwrap()),
            _ => None,
        })
        .collect()
}

pub fn exit_code(outputs: &[Output]) -> Option<i32> {
    outputs.iter().find_map(|o| match o {
        Output::Exit(c) => Some(*c),
        _ => None,
    })
}

/// Splits lines into the response with `id` and the rest.
pub fn split_response(lines: Vec<Value>, id: &Value) -> (Value, Vec<Value>) {
    let mut response = Value::Null;
    let mut rest = Vec::new();
    for l in lines {
        if l.get("method").is_none() && l.get("id") == Some(id) && response.is_null() {
            response = l;
        } else {
            rest.push(l);
        }
    }
    (response, rest)
}

pub fn methods(lines: &[Value]) -> Vec<&str> {
    lines.iter().filter_map(|l| l["method"].as_str()).collect()
}

/// The `slow` tool, as a request with an optional progress token.
pub fn slow_call(id: i64, duration: f64, steps: u64, token: Option<Value>) -> Value {
    let mut params =
        json!({ "name": "slow", "arguments": { "duration": duration, "steps": steps } });
    if let Some(t) = token {
        params["_meta"] = json!({ "progressToken": t });
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

/// The 2026-07-28 `_meta` of a request: a protocol version and client
/// capabilities.
pub fn meta(version: &str, caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": { "name": "mcpspec-test", "version": "0" }
    })
}

/// `params` with 2026-07-28 `_meta` (no capabilities) added.
pub fn at_2026(mut params: Value) -> Value {
    params["_meta"] = meta("2026-07-28", json!({}));
    params
}

impl Client {
    /// A 2026-07-28 request (no capabilities); returns the whole response.
    pub fn stateless(&mut self, method: &str, params: Value) -> Value {
        self.request(method, Some(at_2026(params))).0
    }
}
