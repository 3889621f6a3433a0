//! Which connection an HTTP request belongs to, and its [`Via`] there.
//!
//! | request | connection |
//! |---|---|
//! | with `Mcp-Session-Id` the server issued | that session's |
//! | with an `Mcp-Session-Id` never issued | a new one, named by it |
//! | POST of `initialize`, no session id | a new one (named once the answer issues an id) |
//! | other, no session id | the latest connection opened without one (a new one if none) |
//!
//! Within a connection POSTs are numbered from 1 (`Via::Post(n)`), as the
//! judge numbers them; a GET is `Via::Get`, unless its `Last-Event-ID` is
//! the id of an event seen on the stream of POST `n` ([`Sessions::event_id`]):
//! then it resumes that stream, `Via::Resumed(n)` (the answers it carries
//! belong there, not on the standing GET stream); a DELETE is
//! `Via::Delete`, any other method `Via::Raw(n)`.
//!
//! The legacy HTTP+SSE transport: each GET of the stream opens a connection
//! (`Via::Legacy`, [`Sessions::open_stream`]); the `endpoint` event on it
//! names the URI its POSTs go to ([`Sessions::endpoint`]), and a request to
//! exactly that path and query belongs to it.

use std::collections::HashMap;

use mcpspec_wire::event::Via;
use mcpspec_wire::{classify, Inbound, Message};

#[derive(Debug, Default)]
pub(crate) struct Sessions {
    by_id: HashMap<String, u64>,
    /// The latest connection opened without a session id.
    sessionless: Option<u64>,
    /// Connections so far (the latest's number).
    count: u64,
    /// POSTs and other requests so far, per connection.
    posts: HashMap<u64, u64>,
    others: HashMap<u64, u64>,
    /// Legacy endpoints (path and query) and their connections.
    endpoints: HashMap<String, u64>,
    /// SSE event ids seen on POST streams: (connection, id) → POST number.
    event_ids: HashMap<(u64, String), u64>,
}

/// Event ids remembered at most (then forgotten all at once: a resumption
/// after that is taken for the GET stream's).
const EVENT_IDS_MAX: usize = 100_000;

impl Sessions {
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    fn open(&mut self) -> u64 {
        self.count += 1;
        self.count
    }

    /// A new legacy SSE stream: its connection.
    pub(crate) fn open_stream(&mut self) -> u64 {
        self.open()
    }

    /// The legacy stream of `conn` named `target` (path and query) its
    /// endpoint.
    pub(crate) fn endpoint(&mut self, conn: u64, target: String) {
        self.endpoints.insert(target, conn);
    }

    /// An event with `id` came on `via` of `conn`.
    pub(crate) fn event_id(&mut self, conn: u64, via: Via, id: &str) {
        let Some(n) = via.post() else { return };
        if self.event_ids.len() >= EVENT_IDS_MAX {
            self.event_ids.clear();
        }
        self.event_ids.insert((conn, id.to_owned()), n);
    }

    /// Whether `target` is a legacy endpoint a stream named.
    pub(crate) fn is_endpoint(&self, target: &str) -> bool {
        self.endpoints.contains_key(target)
    }

    /// The connection and via of a request to `target` (path and query).
    pub(crate) fn route(
        &mut self,
        method: &str,
        target: &str,
        session: Option<&str>,
        last_event_id: Option<&str>,
        body: &[u8],
    ) -> (u64, Via) {
        let conn = match session {
            _ if self.endpoints.contains_key(target) => self.endpoints[target],
            Some(id) => match self.by_id.get(id) {
                Some(&c) => c,
                None => {
                    let c = self.open();
                    self.by_id.insert(id.to_owned(), c);
                    c
                }
            },
            None if method == "POST" && initializes(body) => {
                let c = self.open();
                self.sessionless = Some(c);
                c
            }
            None => match self.sessionless {
                Some(c) => c,
                None => {
                    let c = self.open();
                    self.sessionless = Some(c);
                    c
                }
            },
        };
        let via = match method {
            "POST" => {
                let n = self.posts.entry(conn).or_default();
                *n += 1;
                Via::Post(*n)
            }
            "GET" => {
                match last_event_id.and_then(|id| self.event_ids.get(&(conn, id.to_owned()))) {
                    Some(&n) => Via::Resumed(n),
                    None => Via::Get,
                }
            }
            "DELETE" => Via::Delete,
            _ => {
                let n = self.others.entry(conn).or_default();
                *n += 1;
                Via::Raw(*n)
            }
        };
        (conn, via)
    }

    /// The server's answer on `conn` carried session id `id`.
    pub(crate) fn issued(&mut self, conn: u64, id: &str) {
        self.by_id.entry(id.to_owned()).or_insert(conn);
    }
}

/// Whether a body is (or holds) an `initialize` request.
fn initializes(body: &[u8]) -> bool {
    let is = |m: &Message| matches!(m, Message::Request(r) if r.method == "initialize");
    match classify(body) {
        Ok(Inbound::Single(m)) => is(&m),
        Ok(Inbound::Batch(items)) => items.iter().flatten().any(is),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INIT: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    const PING: &[u8] = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;

    #[test]
    fn two_clients_are_two_connections_each_numbering_its_posts() {
        let mut s = Sessions::default();
        assert_eq!(s.route("POST", "/mcp", None, None, INIT), (1, Via::Post(1)));
        s.issued(1, "a");
        assert_eq!(s.route("POST", "/mcp", None, None, INIT), (2, Via::Post(1)));
        s.issued(2, "b");
        assert_eq!(
            s.route("POST", "/mcp", Some("a"), None, PING),
            (1, Via::Post(2))
        );
        assert_eq!(s.route("GET", "/mcp", Some("b"), None, b""), (2, Via::Get));
        assert_eq!(
            s.route("POST", "/mcp", Some("b"), None, PING),
            (2, Via::Post(2))
        );
        assert_eq!(
            s.route("DELETE", "/mcp", Some("a"), None, b""),
            (1, Via::Delete)
        );
        assert_eq!(
            s.route("POST", "/mcp", Some("zzz"), None, PING),
            (3, Via::Post(1))
        );
    }

    #[test]
    fn without_session_ids_requests_follow_the_latest_initialize() {
        let mut s = Sessions::default();
        assert_eq!(s.route("POST", "/mcp", None, None, PING), (1, Via::Post(1)));
        assert_eq!(s.route("POST", "/mcp", None, None, INIT), (2, Via::Post(1)));
        assert_eq!(s.route("POST", "/mcp", None, None, PING), (2, Via::Post(2)));
        assert_eq!(s.count(), 2);
    }

    #[test]
    fn a_get_resuming_a_post_stream_is_that_streams() {
        let mut s = Sessions::default();
        assert_eq!(s.route("POST", "/mcp", None, None, INIT), (1, Via::Post(1)));
        s.issued(1, "a");
        assert_eq!(
            s.route("POST", "/mcp", Some("a"), None, PING),
            (1, Via::Post(2))
        );
        s.event_id(1, Via::Post(2), "ev-7");
        s.event_id(1, Via::Get, "ev-9");
        let get = |s: &mut Sessions, id| s.route("GET", "/mcp", Some("a"), Some(id), b"");
        assert_eq!(get(&mut s, "ev-7"), (1, Via::Resumed(2)));
        assert_eq!(get(&mut s, "ev-9"), (1, Via::Get));
        assert_eq!(get(&mut s, "unknown"), (1, Via::Get));
    }

    #[test]
    fn legacy_posts_follow_the_endpoint_their_stream_named() {
        let mut s = Sessions::default();
        let a = s.open_stream();
        let b = s.open_stream();
        s.endpoint(a, "/messages?sessionId=a".into());
        s.endpoint(b, "/messages?sessionId=b".into());
        assert_eq!(
            s.route("POST", "/messages?sessionId=b", None, None, PING),
            (b, Via::Post(1))
        );
        assert_eq!(
            s.route("POST", "/messages?sessionId=a", None, None, PING),
            (a, Via::Post(1))
        );
        assert_eq!(
            s.route("POST", "/messages?sessionId=b", None, None, PING),
            (b, Via::Post(2))
        );
    }
}
