//! Issue 14, item 13: the runner and the fuzzer judge a legacy HTTP+SSE
//! server alike when it refuses a POST it cannot read with HTTP 400 and a
//! JSON-RPC error body (id null) instead of answering on its stream, as
//! SDK servers do. That POST carried no message, so there is nothing to
//! answer on the stream, and the refusal is no protocol message sent
//! outside it: no case fails at `sse.message-event`, and the fuzzer finds
//! nothing.
//!
//! The reference legacy server answers such POSTs with 202 and a -32700
//! message event, so the test puts a small HTTP proxy in front of it (on
//! 127.0.0.1) that refuses every unreadable POST itself — not JSON:
//! -32700; JSON but not a message whose id can be read: -32600 — and
//! passes everything else through.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpspec_wire::{classify, Inbound};
use support::{findings, fuzz, mcpspec, HttpReference};

/// The refusing proxy: `url` is its legacy SSE endpoint; `refused` counts
/// the POSTs it refused itself.
struct Proxy {
    url: String,
    refused: Arc<AtomicUsize>,
}

impl Proxy {
    fn start(upstream: &str) -> Proxy {
        let upstream = upstream
            .strip_prefix("http://")
            .expect("an http:// base")
            .to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!(
            "http://{}/sse",
            listener.local_addr().expect("local address")
        );
        let refused = Arc::new(AtomicUsize::new(0));
        let count = refused.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (up, count) = (upstream.clone(), count.clone());
                std::thread::spawn(move || {
                    let _ = serve(conn, &up, &count);
                });
            }
        });
        Proxy { url, refused }
    }
}

/// One client connection: requests one after another (keep-alive).
fn serve(conn: TcpStream, upstream: &str, refused: &AtomicUsize) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut out = conn;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line)? == 0 {
            return Ok(());
        }
        let mut parts = request_line.split_whitespace();
        let (method, path) = (
            parts.next().unwrap_or("").to_owned(),
            parts.next().unwrap_or("/").to_owned(),
        );
        let mut length = 0;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            if header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        if method == "GET" {
            // The event stream: the connection is the stream's from now on.
            let mut up = TcpStream::connect(upstream)?;
            write!(
                up,
                "GET {path} HTTP/1.1\r\nHost: {upstream}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
            )?;
            std::io::copy(&mut up, &mut out)?;
            return Ok(());
        }
        if let Some(error) = refusal(&body) {
            refused.fetch_add(1, Ordering::Relaxed);
            write!(
                out,
                "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{error}",
                error.len()
            )?;
            continue;
        }
        let mut up = TcpStream::connect(upstream)?;
        write!(
            up,
            "{method} {path} HTTP/1.1\r\nHost: {upstream}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
        )?;
        up.write_all(&body)?;
        let (status, content_type, answer) = response(up)?;
        let content_type = content_type
            .map(|c| format!("Content-Type: {c}\r\n"))
            .unwrap_or_default();
        write!(
            out,
            "HTTP/1.1 {status}\r\n{content_type}Content-Length: {}\r\n\r\n",
            answer.len()
        )?;
        out.write_all(&answer)?;
    }
}

/// The error body the proxy refuses `body` with, if no message can be read from it.
fn refusal(body: &[u8]) -> Option<&'static str> {
    match classify(body) {
        Err(e) if e.kind.is_parse_error() => {
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
        }
        Err(e) if e.id.is_none() => Some(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
        ),
        Ok(Inbound::Batch(_)) | Ok(Inbound::Single(_)) | Err(_) => None,
    }
}

/// An upstream response read to its end (`Connection: close`): status
/// line, content type and body (chunks joined).
fn response(up: TcpStream) -> std::io::Result<(String, Option<String>, Vec<u8>)> {
    let mut reader = BufReader::new(up);
    let mut status = String::new();
    reader.read_line(&mut status)?;
    let status = status
        .split_once(' ')
        .map_or("502 Bad Gateway", |(_, s)| s.trim())
        .to_owned();
    let (mut content_type, mut chunked) = (None, false);
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim().to_owned();
            if name.eq_ignore_ascii_case("content-type") {
                content_type = Some(value);
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            }
        }
    }
    let mut body = Vec::new();
    if !chunked {
        reader.read_to_end(&mut body)?;
        return Ok((status, content_type, body));
    }
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            return Ok((status, content_type, body));
        }
        let mut chunk = vec![0; size + 2]; // the chunk and its CRLF
        reader.read_exact(&mut chunk)?;
        body.extend_from_slice(&chunk[..size]);
    }
}

/// The cases that send a POST no message can be read from: the runner
/// passes them all, judging the 400 a refusal, not an answer outside the
/// stream.
#[test]
fn the_runner_passes_a_legacy_server_that_refuses_unreadable_posts() {
    let server = HttpReference::start(&[]);
    let proxy = Proxy::start(&server.base);
    let run = mcpspec(
        &[
            "server",
            "--sse-url",
            &proxy.url,
            "--spec-version",
            "2024-11-05",
            "--filter",
            "server/jsonrpc/parse-error/*",
            "--filter",
            "server/jsonrpc/invalid-request/*",
        ],
        Duration::from_secs(120),
    );
    let refused = proxy.refused.load(Ordering::Relaxed);
    assert!(refused >= 8, "the proxy refused only {refused} POSTs");
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(" 0 failed"), "{}", run.stdout);
    assert!(!run.stdout.contains("sse.message-event"), "{}", run.stdout);
}

/// The fuzzer, through the same oracle, agrees.
#[test]
fn the_fuzzer_accepts_a_legacy_server_that_refuses_unreadable_posts() {
    let server = HttpReference::start(&[]);
    let proxy = Proxy::start(&server.base);
    let (run, doc, _) = fuzz(
        "legacy-refusal",
        "server",
        &[
            "--sse-url",
            &proxy.url,
            "--runs",
            "400",
            "--level",
            "bytes",
            "--level",
            "json",
            "--level",
            "jsonrpc",
        ],
        Duration::from_secs(180),
    );
    let refused = proxy.refused.load(Ordering::Relaxed);
    assert!(refused >= 20, "the proxy refused only {refused} POSTs");
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(findings(&doc).is_empty(), "{doc}");
}
