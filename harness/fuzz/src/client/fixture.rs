//! The server a fuzzed client talks to: the reference server
//! (`mcpspec-reference`, sans-IO) answers the client's requests so that its
//! own workflow runs, except the one request the harness holds.
//!
//! ```text
//!  server/discover ─► -32601 (the fuzzer speaks the handshake versions; a dual-era client falls back)
//!  initialize      ─► the reference server's result, at the version the fuzzer chose
//!  first ordinary request (not initialize, server/discover or ping) ─► held: never answered
//!  every other request ─► the reference server's answer;  notifications ─► seen by it
//!  its timers (slow tools, subscriptions) ─► [`Fixture::tick`]
//! ```
//!
//! Holding is what keeps a client connected: a client that runs one
//! request and exits waits for its answer instead, and one process serves
//! many inputs.

use mcpspec_engine::Version;
use mcpspec_reference::{Config, Output, ReferenceServer};
use mcpspec_wire::{Id, Message, Request};
use serde_json::Value;

/// The reference server behind a fuzzed client, and the request it holds.
pub struct Fixture {
    server: ReferenceServer,
    held: Option<(Id, String)>,
}

impl std::fmt::Debug for Fixture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fixture")
            .field("held", &self.held)
            .finish_non_exhaustive()
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Fixture::new()
    }
}

/// What the fixture does with a request of the client.
#[derive(Debug, PartialEq, Eq)]
pub enum Served {
    /// Answered: these lines go to the client.
    Lines(Vec<Vec<u8>>),
    /// Held: never answered.
    Held,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture {
            server: ReferenceServer::new(Config::default()),
            held: None,
        }
    }

    /// The request held, with its method.
    pub fn held(&self) -> Option<(&Id, &str)> {
        self.held.as_ref().map(|(id, m)| (id, m.as_str()))
    }

    /// Answers the client's `initialize` at `version` (what the reference
    /// server answers when that version is asked for).
    pub fn initialize(&mut self, now_ms: u64, r: &Request, version: Version) -> Vec<Vec<u8>> {
        let mut req = r.clone();
        match &mut req.params {
            Some(Value::Object(p)) => {
                p.insert("protocolVersion".to_owned(), Value::from(version.as_str()));
            }
            _ => {
                req.params = Some(serde_json::json!({
                    "protocolVersion": version.as_str(),
                    "capabilities": {},
                    "clientInfo": { "name": "unnamed", "version": "0" }
                }));
            }
        }
        self.feed(now_ms, &Message::Request(req))
    }

    /// Serves a request of the client (not its `initialize`): holds the
    /// first ordinary one, answers the others.
    pub fn serve(&mut self, now_ms: u64, r: &Request) -> Served {
        if r.method == "server/discover" {
            let err = Message::error(
                Some(r.id.clone()),
                -32601,
                "Method not found: server/discover (mcpspec fuzz client speaks the initialize handshake)",
                None,
            );
            return Served::Lines(vec![line_of(&err)]);
        }
        if self.held.is_none() && ordinary(&r.method) {
            self.held = Some((r.id.clone(), r.method.clone()));
            return Served::Held;
        }
        Served::Lines(self.feed(now_ms, &Message::Request(r.clone())))
    }

    /// A notification of the client: the reference server sees it. Returns
    /// true when it cancels the held request (the client gave up on it).
    pub fn notice(&mut self, now_ms: u64, msg: &Message) -> (Vec<Vec<u8>>, bool) {
        let mut gave_up = false;
        if let (Message::Notification(n), Some((held, _))) = (msg, &self.held) {
            let named = n
                .params
                .as_ref()
                .and_then(|p| p.get("requestId"))
                .is_some_and(|id| *id == held.to_value());
            if n.method == "notifications/cancelled" && named {
                self.held = None;
                gave_up = true;
            }
        }
        (self.feed(now_ms, msg), gave_up)
    }

    /// Timers due by `now_ms` (the reference server's slow tools, updates).
    pub fn tick(&mut self, now_ms: u64) -> Vec<Vec<u8>> {
        Output::lines(self.server.on_tick(now_ms))
    }

    pub fn next_deadline(&self) -> Option<u64> {
        self.server.next_deadline()
    }

    fn feed(&mut self, now_ms: u64, msg: &Message) -> Vec<Vec<u8>> {
        Output::lines(self.server.on_parsed(now_ms, msg.clone()))
    }
}

/// A request the fixture may hold: not part of the opening, not a ping.
fn ordinary(method: &str) -> bool {
    !matches!(method, "initialize" | "server/discover" | "ping")
}

fn line_of(msg: &Message) -> Vec<u8> {
    let mut line = msg.to_json().into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(id: i64, method: &str, params: Value) -> Request {
        match Message::request(Id::from(id), method, Some(params)) {
            Message::Request(r) => r,
            _ => unreachable!("Message::request builds a request"),
        }
    }

    fn text(lines: &[Vec<u8>]) -> String {
        String::from_utf8_lossy(&lines.concat()).into_owned()
    }

    #[test]
    fn answers_the_opening_holds_the_first_ordinary_request_and_serves_the_rest() {
        let mut f = Fixture::new();
        let Served::Lines(l) = f.serve(0, &request(1, "server/discover", json!({}))) else {
            panic!("discover is answered");
        };
        assert!(text(&l).contains("-32601"));
        let init = request(
            2,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        );
        let l = f.initialize(1, &init, Version::V2025_06_18);
        assert!(
            text(&l).contains("\"protocolVersion\":\"2025-06-18\""),
            "{}",
            text(&l)
        );
        let (_, gave_up) = f.notice(2, &Message::notification("notifications/initialized", None));
        assert!(!gave_up);
        assert!(matches!(
            f.serve(3, &request(3, "ping", json!({}))),
            Served::Lines(_)
        ));
        assert_eq!(
            f.serve(4, &request(4, "tools/list", json!({}))),
            Served::Held
        );
        assert_eq!(f.held().map(|(_, m)| m), Some("tools/list"));
        let Served::Lines(l) = f.serve(5, &request(5, "tools/list", json!({}))) else {
            panic!("only one request is held");
        };
        assert!(text(&l).contains("\"tools\""), "{}", text(&l));
        let cancel = Message::notification(
            "notifications/cancelled",
            Some(json!({ "requestId": 4, "reason": "timeout" })),
        );
        assert!(f.notice(6, &cancel).1);
        assert!(f.held().is_none());
    }
}
