//! The fixture server behind a client case: the reference server
//! (`mcpspec-reference`, sans-IO) answers every request of the client that
//! the scenario does not hold for itself, so the client's own workflow runs
//! (listings, calls, reads) while the steps do what the scenario says.
//!
//! Which requests are *held* (left in the inbox for an `expect: { request }`
//! step and a `reply`) is decided per step by the case: the methods of the
//! `expect: { request }` steps still to come, `*` for any. Everything else
//! is answered at once, here.
//!
//! The fixture speaks the case's version: the client's `initialize`
//! reaches it with `protocolVersion` set to that version (the case's
//! counter-offer, when the client asked for another). In a handshake-era
//! case a `server/discover` (a 2026-07-28 client's opening) is answered
//! with -32601, so a dual-era client falls back to `initialize`.

use mcpspec_engine::{Lifecycle, Version};
use mcpspec_reference::{Config, Output, ReferenceServer};
use mcpspec_scenario::Selector;
use mcpspec_wire::{Message, Request};
use serde_json::Value;

pub struct Fixture {
    server: ReferenceServer,
    version: Version,
    held: Vec<String>,
}

impl std::fmt::Debug for Fixture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fixture")
            .field("version", &self.version)
            .field("held", &self.held)
            .finish_non_exhaustive()
    }
}

impl Fixture {
    pub fn new(version: Version) -> Fixture {
        Fixture {
            server: ReferenceServer::new(Config::default()),
            version,
            held: Vec::new(),
        }
    }

    /// Requests of these methods (`*`: any) are left to the steps.
    pub fn hold(&mut self, methods: Vec<String>) {
        self.held = methods;
    }

    /// Whether a request of `method` is left to the steps. A
    /// `server/discover` probe is only when a step names it (`*` does not
    /// take it): otherwise the harness answers it as the case's version
    /// does, and a dual-era client moves on to `initialize`.
    pub fn holds(&self, method: &str) -> bool {
        self.held
            .iter()
            .any(|m| m == method || (m == Selector::ANY_METHOD && method != "server/discover"))
    }

    /// The fixture's answer (and whatever else it sends) to the client's
    /// request `r`, as lines to write.
    pub fn answer(&mut self, now_ms: u64, r: &Request) -> Vec<Vec<u8>> {
        if r.method == "server/discover" && self.version.lifecycle() != Lifecycle::Stateless {
            let err = Message::error(
                Some(r.id.clone()),
                -32601,
                "Method not found: server/discover (this case speaks a handshake-era version)",
                None,
            );
            return vec![line_of(&err)];
        }
        let mut req = r.clone();
        if req.method == "initialize" {
            if let Some(Value::Object(p)) = &mut req.params {
                p.insert(
                    "protocolVersion".to_owned(),
                    Value::from(self.version.as_str()),
                );
            }
        }
        self.feed(now_ms, &Message::Request(req))
    }

    /// Lets the fixture see a notification of the client (initialized,
    /// cancelled, …); returns what it sends in turn.
    pub fn notice(&mut self, now_ms: u64, msg: &Message) -> Vec<Vec<u8>> {
        self.feed(now_ms, msg)
    }

    /// Timers (the slow tool's progress, resource updates) due by `now_ms`.
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
        match Message::request(mcpspec_wire::Id::from(id), method, Some(params)) {
            Message::Request(r) => r,
            _ => unreachable!("Message::request builds a request"),
        }
    }

    #[test]
    fn answers_initialize_with_the_case_version_and_then_serves() {
        let mut f = Fixture::new(Version::V2025_06_18);
        let init = request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        );
        let out = f.answer(0, &init);
        let text = String::from_utf8(out.concat()).expect("utf-8");
        assert!(
            text.contains("\"protocolVersion\":\"2025-06-18\""),
            "{text}"
        );
        let n = Message::notification("notifications/initialized", None);
        f.notice(1, &n);
        let out = f.answer(2, &request(2, "tools/list", json!({})));
        let text = String::from_utf8(out.concat()).expect("utf-8");
        assert!(text.contains("\"tools\""), "{text}");
    }

    #[test]
    fn discover_is_unknown_in_a_handshake_case_and_holds_match_methods() {
        let mut f = Fixture::new(Version::V2025_11_25);
        let out = f.answer(0, &request(1, "server/discover", json!({})));
        assert!(String::from_utf8_lossy(&out.concat()).contains("-32601"));
        f.hold(vec!["tools/call".into()]);
        assert!(f.holds("tools/call") && !f.holds("ping"));
        f.hold(vec!["*".into()]);
        assert!(f.holds("ping"));
        assert!(!f.holds("server/discover"));
        // Only a step that names the probe holds it.
        f.hold(vec!["server/discover".into(), "*".into()]);
        assert!(f.holds("server/discover"));
    }
}
