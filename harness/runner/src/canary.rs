//! The canary URL of a client case: a tiny HTTP endpoint on 127.0.0.1 that
//! the runner serves for a scenario with an `expect_no_fetch` step, so that
//! the scenario can hand the client a network URI (`${canary.url}`, say as
//! the `$ref` of a tool's inputSchema) and judge that the client never
//! fetched it (`schema.ref.no-network-dereference`).
//!
//! ```text
//!   case start ─► Canary::start (127.0.0.1:0, a thread) ─► ${canary.url}
//!   any request ─► recorded (its request line), answered 200 with a small schema
//!   expect_no_fetch: D ─► idle D ─► judge: a request recorded → the step fails
//!   case end ─► Canary dropped: the thread stops within POLL, the port closes
//! ```
//!
//! The endpoint answers anything it is sent, on any path, so that a client
//! that does fetch gets a plausible schema and goes on (its fetch is what is
//! judged, not what it makes of the answer). It is bounded: each connection
//! is read for at most [`READ_LIMIT`] bytes and [`READ_WAIT`], and the
//! thread ends with the case.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::json;

use crate::case::{Ctx, Stop};
use crate::steps::checked;
use mcpspec_scenario::Step;

/// The path the canary URL names (any path is answered and recorded).
pub const CANARY_PATH: &str = "/mcpspec-canary/profile-schema.json";
/// How often the thread looks for a connection or the end of the case.
const POLL: Duration = Duration::from_millis(20);
/// How long one connection is read for its request head.
const READ_WAIT: Duration = Duration::from_millis(500);
/// How much of a request is read.
const READ_LIMIT: usize = 8 * 1024;
/// What a fetch gets: a 2020-12 schema, as a real profile schema would be.
const BODY: &str = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"displayName":{"type":"string"}}}"#;

/// A running canary endpoint; dropping it stops it.
#[derive(Debug)]
pub struct Canary {
    url: String,
    hits: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Canary {
    /// Listens on 127.0.0.1 (a port the system picks) in a thread of its own.
    pub fn start() -> std::io::Result<Canary> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let url = format!("http://{}{CANARY_PATH}", listener.local_addr()?);
        let hits = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, s) = (Arc::clone(&hits), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("mcpspec-canary".to_owned())
            .spawn(move || serve(&listener, &h, &s))?;
        Ok(Canary {
            url,
            hits,
            stop,
            thread: Some(thread),
        })
    }

    /// The URL to hand the client.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The request lines received so far (`GET /path HTTP/1.1`, or what
    /// came of one).
    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().map(|h| h.clone()).unwrap_or_default()
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(listener: &TcpListener, hits: &Mutex<Vec<String>>, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                // Recorded before the answer goes out: whoever reads the
                // answer to its end finds the request already counted.
                let line = request_line(&mut stream);
                if let Ok(mut h) = hits.lock() {
                    h.push(line);
                }
                answer(stream);
            }
            Err(_) => std::thread::sleep(POLL),
        }
    }
}

/// Reads the request head (bounded) and returns its request line.
fn request_line(stream: &mut TcpStream) -> String {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(READ_WAIT));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while buf.len() < READ_LIMIT && !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf);
    let line = head.lines().next().unwrap_or("").trim().to_owned();
    if line.is_empty() {
        "(a connection without a request line)".to_owned()
    } else {
        line
    }
}

/// Answers 200 with [`BODY`] and closes the connection.
fn answer(mut stream: TcpStream) {
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/schema+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = stream.write_all(reply.as_bytes());
}

/// Binds `${canary}` (`canary.url`) for a scenario that judges it.
pub fn bind(ctx: &mut Ctx<'_>, canary: &Canary) {
    ctx.vars.set("canary", json!({ "url": canary.url() }));
}

/// `expect_no_fetch`: no request may have reached the canary so far.
pub fn judge(ctx: &mut Ctx<'_>, at: Option<(usize, &Step)>) -> Result<(), Stop> {
    let Some(canary) = &ctx.canary else {
        return Err(Stop::Error(
            crate::outcome::Blame::Harness,
            "`expect_no_fetch` without a canary endpoint (it could not be started)".to_owned(),
        ));
    };
    let url = canary.url().to_owned();
    let hits = canary.hits();
    if hits.is_empty() {
        ctx.conn.note(format!("the canary {url} was not fetched"));
        return Ok(());
    }
    let level = ctx.fail(
        at,
        vec![format!(
            "no request to {url} (a network URI the client was given)"
        )],
        format!("{} request(s): {}", hits.len(), hits.join("; ")),
    );
    checked(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_each_request_answers_a_schema_and_stops_when_dropped() {
        let canary = Canary::start().expect("canary");
        assert!(canary.url().starts_with("http://127.0.0.1:"));
        assert!(canary.hits().is_empty());
        let addr = canary
            .url()
            .trim_start_matches("http://")
            .split('/')
            .next()
            .expect("host:port")
            .to_owned();
        let mut s = TcpStream::connect(&addr).expect("connect");
        s.write_all(b"GET /mcpspec-canary/profile-schema.json HTTP/1.1\r\nHost: x\r\n\r\n")
            .expect("write");
        let mut reply = String::new();
        s.read_to_string(&mut reply).expect("read");
        assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
        assert!(reply.ends_with(BODY));
        assert_eq!(
            canary.hits(),
            ["GET /mcpspec-canary/profile-schema.json HTTP/1.1"]
        );
        drop(canary);
        // Its port is free again: binding it succeeds. (Not at once, maybe:
        // a process another test spawns at the same moment holds a copy of
        // every descriptor from its fork until its exec closes them.)
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while let Err(e) = std::net::TcpListener::bind(&addr) {
            assert!(
                std::time::Instant::now() < deadline,
                "the canary's port is still taken: {e}"
            );
            std::thread::sleep(POLL);
        }
    }
}
