//! Test support: the server in-process on 127.0.0.1:0, and a small raw HTTP/1.1
//! client over TCP (so that tests see exact statuses, headers and bytes, and
//! can read SSE streams event by event). Every wait is bounded.

use std::net::SocketAddr;
use std::time::Duration;

use mcpspec_reference::{Config, Fault};
use mcpspec_reference_http::{serve_with_shutdown, HttpServerConfig, TcpListener};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::time::timeout;

/// Longest any single wait may take.
pub const WAIT: Duration = Duration::from_secs(5);

pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// A running server; stopped when dropped.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

pub async fn start(faults: &[Fault]) -> Server {
    start_with(faults, false).await
}

/// The server in OAuth mode (`auth` module of the crate).
pub async fn start_auth(faults: &[Fault]) -> Server {
    start_with(faults, true).await
}

async fn start_with(faults: &[Fault], auth: bool) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = oneshot::channel::<()>();
    let mut cfg = HttpServerConfig::new(Config {
        page_size: 2,
        faults: faults.to_vec(),
    });
    if auth {
        cfg = cfg.with_auth();
    }
    tokio::spawn(serve_with_shutdown(listener, cfg, async move {
        let _ = stopped.await;
    }));
    Server {
        addr,
        stop: Some(stop),
    }
}

/// One HTTP request.
#[derive(Debug, Clone)]
pub struct Req {
    method: &'static str,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Req {
    fn new(method: &'static str, path: &str) -> Self {
        Req {
            method,
            path: path.to_owned(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// POST with `Accept` listing both types and `Content-Type: application/json`.
    pub fn post(path: &str) -> Self {
        Req::new("POST", path)
            .header("Accept", ACCEPT_BOTH)
            .header("Content-Type", "application/json")
    }

    pub fn get(path: &str) -> Self {
        Req::new("GET", path).header("Accept", "text/event-stream")
    }

    pub fn delete(path: &str) -> Self {
        Req::new("DELETE", path)
    }

    /// Sets a header (replacing one of the same name).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self = self.without(name);
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    pub fn session(self, id: &str) -> Self {
        self.header("Mcp-Session-Id", id)
    }

    /// The body, and the routing headers a 2026-07-28 client sends with it
    /// (`Mcp-Method`, and `Mcp-Name` where the method has a target) unless
    /// already set; servers ignore them in sessions of earlier versions.
    pub fn json(mut self, v: &Value) -> Self {
        self.body = v.to_string().into_bytes();
        let has = |r: &Req, n: &str| r.headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n));
        if let (Some(method), true) = (v["method"].as_str(), v.get("id").is_some()) {
            if !has(&self, "Mcp-Method") {
                self = self.header("Mcp-Method", method);
            }
            let target = match method {
                "tools/call" | "prompts/get" => v["params"]["name"].as_str(),
                "resources/read" => v["params"]["uri"].as_str(),
                _ => None,
            };
            if let (Some(t), false) = (target, has(&self, "Mcp-Name")) {
                self = self.header("Mcp-Name", t);
            }
        }
        self
    }

    pub fn body(mut self, b: &[u8]) -> Self {
        self.body = b.to_vec();
        self
    }

    fn bytes(&self, addr: SocketAddr) -> Vec<u8> {
        let mut head = format!(
            "{} {} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n",
            self.method, self.path
        );
        for (n, v) in &self.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", self.body.len()));
        let mut out = head.into_bytes();
        out.extend_from_slice(&self.body);
        out
    }

    /// Sends the request and reads the whole response.
    pub async fn send(&self, addr: SocketAddr) -> Resp {
        let mut conn = self.open(addr).await;
        let mut body = Vec::new();
        while let Some(chunk) = conn.chunk().await {
            body.extend_from_slice(&chunk);
        }
        Resp {
            status: conn.status,
            headers: conn.headers,
            body,
        }
    }

    /// True if not a byte of response arrives within `wait`.
    pub async fn unanswered_for(&self, addr: SocketAddr, wait: Duration) -> bool {
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        tcp.write_all(&self.bytes(addr)).await.expect("write");
        let mut byte = [0u8; 1];
        timeout(wait, tcp.read(&mut byte)).await.is_err()
    }

    /// Sends the request and reads the status line and headers only.
    pub async fn open(&self, addr: SocketAddr) -> Conn {
        let fut = async {
            let mut tcp = TcpStream::connect(addr).await.expect("connect");
            tcp.write_all(&self.bytes(addr)).await.expect("write");
            Conn::read_head(BufReader::new(tcp)).await
        };
        timeout(WAIT, fut).await.expect("response head in time")
    }
}

/// A complete response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.text()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    /// All SSE events of a complete `text/event-stream` body.
    pub fn events(&self) -> Vec<Event> {
        let mut buf = self.body.clone();
        let mut out = Vec::new();
        while let Some(e) = take_event(&mut buf) {
            out.push(e);
        }
        out
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// One SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: Option<String>,
    pub event: String,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|e| panic!("event data is not JSON ({e}): {self:?}"))
    }
}

/// Takes the first complete event out of `buf` (comments skipped).
fn take_event(buf: &mut Vec<u8>) -> Option<Event> {
    loop {
        let end = buf.windows(2).position(|w| w == b"\n\n")?;
        let block: Vec<u8> = buf.drain(..end + 2).collect();
        let text = String::from_utf8_lossy(&block);
        let mut e = Event {
            id: None,
            event: "message".to_owned(),
            data: String::new(),
        };
        let mut has_data = false;
        for line in text.lines() {
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => e.id = Some(value.to_owned()),
                "event" => e.event = value.to_owned(),
                "data" => {
                    if has_data {
                        e.data.push('\n');
                    }
                    e.data.push_str(value);
                    has_data = true;
                }
                _ => {} // comments
            }
        }
        if has_data || e.id.is_some() {
            return Some(e);
        }
    }
}

/// An open response whose body is read bit by bit.
pub struct Conn {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
    chunked: bool,
    remaining: Option<usize>,
    done: bool,
    buf: Vec<u8>,
}

impl Conn {
    async fn read_head(mut reader: BufReader<TcpStream>) -> Conn {
        let mut line = String::new();
        reader.read_line(&mut line).await.expect("status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {line:?}"));
        let mut headers = Vec::new();
        loop {
            line.clear();
            reader.read_line(&mut line).await.expect("header line");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((n, v)) = l.split_once(':') {
                headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
        }
        let chunked = header(&headers, "transfer-encoding").is_some_and(|v| v.contains("chunked"));
        let remaining = header(&headers, "content-length").and_then(|v| v.parse().ok());
        Conn {
            status,
            headers,
            reader,
            chunked,
            remaining,
            done: false,
            buf: Vec::new(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The next piece of the body; `None` at its end. Bounded by [`WAIT`].
    pub async fn chunk(&mut self) -> Option<Vec<u8>> {
        timeout(WAIT, self.chunk_unbounded())
            .await
            .expect("body data in time")
    }

    async fn chunk_unbounded(&mut self) -> Option<Vec<u8>> {
        if self.done {
            return None;
        }
        if self.chunked {
            let mut line = String::new();
            if self.reader.read_line(&mut line).await.ok()? == 0 {
                self.done = true;
                return None;
            }
            let size = usize::from_str_radix(line.trim(), 16).expect("chunk size");
            let mut data = vec![0; size + 2];
            self.reader.read_exact(&mut data).await.ok()?;
            data.truncate(size);
            if size == 0 {
                self.done = true;
                return None;
            }
            return Some(data);
        }
        if let Some(n) = self.remaining {
            let mut data = vec![0; n];
            self.reader.read_exact(&mut data).await.ok()?;
            self.done = true;
            return if n == 0 { None } else { Some(data) };
        }
        let mut data = vec![0; 4096];
        let n = self.reader.read(&mut data).await.ok()?;
        if n == 0 {
            self.done = true;
            return None;
        }
        data.truncate(n);
        Some(data)
    }

    /// The next SSE event, or `None` when the stream ended. Panics after `wait`.
    pub async fn event_within(&mut self, wait: Duration) -> Option<Event> {
        timeout(wait, async {
            loop {
                if let Some(e) = take_event(&mut self.buf) {
                    return Some(e);
                }
                let chunk = self.chunk_unbounded().await?;
                self.buf.extend_from_slice(&chunk);
            }
        })
        .await
        .expect("an SSE event (or the end of the stream) in time")
    }

    pub async fn event(&mut self) -> Option<Event> {
        self.event_within(WAIT).await
    }

    /// True if nothing (no event, no end) arrives within `wait`.
    pub async fn silent_for(&mut self, wait: Duration) -> bool {
        let fut = async {
            loop {
                if take_event(&mut self.buf).is_some() {
                    return;
                }
                match self.chunk_unbounded().await {
                    Some(c) => self.buf.extend_from_slice(&c),
                    None => return,
                }
            }
        };
        timeout(wait, fut).await.is_err()
    }
}

// ── MCP helpers ──────────────────────────────────────────────────────────

pub fn request(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

pub fn notification(method: &str) -> Value {
    json!({ "jsonrpc": "2.0", "method": method })
}

pub fn initialize(version: &str) -> Value {
    request(
        0,
        "initialize",
        json!({ "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }),
    )
}

/// A `slow` tool call with a progress token.
pub fn slow(id: i64, duration_s: f64, steps: u64, token: &str) -> Value {
    request(
        id,
        "tools/call",
        json!({ "name": "slow", "arguments": { "duration": duration_s, "steps": steps },
                "_meta": { "progressToken": token } }),
    )
}

/// Initializes a Streamable HTTP session at `version`; returns its id.
pub async fn session(addr: SocketAddr, version: &str) -> String {
    let r = Req::post("/mcp")
        .json(&initialize(version))
        .send(addr)
        .await;
    assert_eq!(r.status, 200, "initialize: {}", r.text());
    let id = r
        .header("mcp-session-id")
        .expect("Mcp-Session-Id")
        .to_owned();
    let r = mcp(&id, version)
        .json(&notification("notifications/initialized"))
        .send(addr)
        .await;
    assert_eq!(r.status, 202);
    id
}

/// A POST to `/mcp` within a session, with the version header.
pub fn mcp(session: &str, version: &str) -> Req {
    Req::post("/mcp")
        .session(session)
        .header("MCP-Protocol-Version", version)
}

/// Opens a legacy session: the stream, and the POST path from its endpoint event.
pub async fn legacy(addr: SocketAddr) -> (Conn, String) {
    let mut stream = Req::get("/sse").open(addr).await;
    assert_eq!(stream.status, 200);
    let e = stream.event().await.expect("endpoint event");
    assert_eq!(e.event, "endpoint", "{e:?}");
    (stream, e.data)
}
