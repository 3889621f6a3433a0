//! What the peer's connections and its owner share: the session, the open
//! SSE streams, and the routing of the scripted server's messages onto them.
//!
//! ```text
//!   send(bytes) ─► a response whose request an open POST stream awaits ─► that stream
//!              │   (the stream ends once it awaits nothing more)
//!              ├─► else the most recent open POST stream
//!              ├─► else the standing stream (Streamable: GET; legacy: the SSE stream)
//!              └─► else an error: nothing can carry it
//! ```
//!
//! Legacy HTTP+SSE has no POST streams: everything goes on its one stream.
//! Streams whose client went away are pruned as they are found closed.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use mcpspec_wire::{classify, Id, Inbound, Message};
use tokio::sync::watch;

use super::sse::{self, Outbox};
use super::ServeKind;
use crate::client::Emitter;

/// State shared by the peer and its connection tasks.
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) kind: ServeKind,
    pub(super) port: u16,
    /// Bound on one POST body, in bytes.
    pub(super) max_line: usize,
    pub(super) emitter: Emitter,
    /// Turns true when the peer closes: stop accepting, let connections go.
    pub(super) stop: watch::Sender<bool>,
    /// Sees every request first (the runner's protected mode), if set.
    pub(super) gate: Option<std::sync::Arc<dyn super::gate::Gate>>,
    inner: Mutex<Inner>,
}

impl Shared {
    pub(super) fn new(
        kind: ServeKind,
        port: u16,
        max_line: usize,
        emitter: Emitter,
        gate: Option<std::sync::Arc<dyn super::gate::Gate>>,
    ) -> Self {
        Shared {
            kind,
            port,
            max_line,
            emitter,
            stop: watch::Sender::new(false),
            gate,
            inner: Mutex::new(Inner::default()),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        // The state stays consistent between statements; a panic elsewhere
        // while holding the lock must not take the peer down with it.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The mutable part of [`Shared`].
#[derive(Debug, Default)]
pub(super) struct Inner {
    /// POSTs received (every one, rejected ones too): `Via::Post(n)`.
    pub(super) posts: u64,
    /// Requests with other methods: `Via::Raw(n)`.
    pub(super) others: u64,
    /// The peer was closed by its owner.
    pub(super) closed: bool,
    /// The live session id, once issued.
    pub(super) session: Option<String>,
    /// Session ids that ended (DELETE, legacy stream closed, replaced).
    pub(super) ended: HashSet<String>,
    /// Open POST response streams by POST number.
    pub(super) post_streams: BTreeMap<u64, PostStream>,
    /// Streamable: the GET stream; legacy: the SSE stream.
    pub(super) standing: Option<Outlet>,
    /// Response streams cut before their answer, by POST number
    /// ([`super::resume`]).
    pub(super) cut: BTreeMap<u64, super::resume::CutStream>,
    /// POSTs whose cut stream a GET with `Last-Event-ID` resumed.
    pub(super) resumptions: std::collections::BTreeSet<u64>,
}

/// How a request's session id compares with the live session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Ok,
    /// A session is live and the request names none: 400.
    Missing,
    /// The id is not the live session's (ended, replaced, never issued): 404.
    Unknown,
}

impl Inner {
    /// Checks a request's session id. Before any session was issued (or
    /// after it ended) a request without one is fine: 2026-07-28 clients
    /// have no session, and a client may start over.
    pub(super) fn verdict(&self, id: Option<&str>) -> Verdict {
        match (id, &self.session) {
            (Some(id), Some(live)) if id == live => Verdict::Ok,
            (Some(_), _) => Verdict::Unknown,
            (None, Some(_)) => Verdict::Missing,
            (None, None) => Verdict::Ok,
        }
    }

    /// Starts a new session (the old one, if any, ends) and returns its id.
    pub(super) fn new_session(&mut self) -> String {
        let id = session_id();
        if let Some(old) = self.session.replace(id.clone()) {
            self.ended.insert(old);
        }
        id
    }

    /// Ends the live session and every stream.
    pub(super) fn end_session(&mut self) {
        if let Some(old) = self.session.take() {
            self.ended.insert(old);
        }
        self.post_streams.clear();
        self.standing = None;
        self.cut.clear();
    }

    /// Whether the standing stream has a client reading it.
    pub(super) fn standing_open(&self) -> bool {
        self.standing.as_ref().is_some_and(Outlet::is_open)
    }

    /// Puts one message on the stream it belongs to (see the module docs).
    pub(super) fn deliver(&mut self, kind: ServeKind, bytes: &[u8]) -> Result<(), String> {
        if kind == ServeKind::Streamable {
            if let Some(done) = self.answer_cut(bytes) {
                return done;
            }
            if let Some(done) = self.answer(bytes) {
                return done;
            }
            self.post_streams.retain(|_, s| s.outlet.is_open());
            if let Some(stream) = self.post_streams.values_mut().next_back() {
                if stream.outlet.push(bytes) {
                    return Ok(());
                }
            }
        }
        let pushed = self.standing.as_mut().map(|outlet| outlet.push(bytes));
        match pushed {
            Some(true) => Ok(()),
            Some(false) => {
                self.standing = None;
                Err(match kind {
                    ServeKind::Streamable => "the client closed its GET stream, and no POST stream is open".into(),
                    ServeKind::LegacySse => "the client closed the SSE stream".into(),
                })
            }
            None => Err(match kind {
                ServeKind::Streamable => {
                    "no stream is open to carry it (no POST stream awaits an answer, no GET stream is open)".into()
                }
                ServeKind::LegacySse => "no SSE stream is open".into(),
            }),
        }
    }

    /// Sends a response on the POST stream that awaits it; `None` when no
    /// stream awaits any id the message answers.
    fn answer(&mut self, bytes: &[u8]) -> Option<Result<(), String>> {
        let ids = response_ids(bytes);
        let n = self
            .post_streams
            .iter()
            .find(|(_, s)| ids.iter().any(|id| s.waiting.contains(id)))
            .map(|(n, _)| *n)?;
        let stream = self.post_streams.get_mut(&n)?;
        for id in &ids {
            stream.waiting.remove(id);
        }
        let sent = stream.outlet.push(bytes);
        if !sent || stream.waiting.is_empty() {
            // Dropping the sender ends the body once what is queued is sent.
            self.post_streams.remove(&n);
        }
        Some(if sent {
            Ok(())
        } else {
            Err(format!(
                "the client closed the response stream of POST #{n}"
            ))
        })
    }
}

/// The response stream of one POST that carried requests.
#[derive(Debug)]
pub(super) struct PostStream {
    pub(super) outlet: Outlet,
    /// Ids of the requests it carried that are not answered yet.
    pub(super) waiting: HashSet<Id>,
}

/// The sending side of one SSE stream.
#[derive(Debug)]
pub(super) struct Outlet {
    tx: Outbox,
    /// Event ids are `label-seq`; `None`: no ids (legacy).
    label: Option<u64>,
    seq: u64,
}

impl Outlet {
    pub(super) fn new(tx: Outbox, label: Option<u64>) -> Self {
        Outlet { tx, label, seq: 0 }
    }

    /// Queues one `message` event; false once the client went away.
    pub(super) fn push(&mut self, bytes: &[u8]) -> bool {
        self.seq += 1;
        let id = self.label.map(|k| format!("{k}-{}", self.seq));
        self.tx
            .send(sse::encode(id.as_deref(), "message", bytes))
            .is_ok()
    }

    /// The outlet of a resumed stream: POST `n`'s ids, counting on from
    /// `last` (`n-k`).
    pub(super) fn continuing(tx: Outbox, n: u64, last: &str) -> Self {
        let seq = last
            .rsplit_once('-')
            .and_then(|(_, k)| k.parse().ok())
            .unwrap_or(0);
        Outlet {
            tx,
            label: Some(n),
            seq,
        }
    }

    /// Queues a priming event (the next event id, `retry` when given, empty
    /// data) and returns its id; `None` once the client went away.
    pub(super) fn prime(&mut self, retry_ms: Option<u64>) -> Option<String> {
        self.seq += 1;
        let id = format!("{}-{}", self.label.unwrap_or(0), self.seq);
        let mut text = format!("id: {id}\n");
        if let Some(ms) = retry_ms {
            text.push_str(&format!("retry: {ms}\n"));
        }
        text.push_str("data: \n\n");
        self.tx.send(text.into()).ok().map(|()| id)
    }

    /// Queues any event (the legacy `endpoint` event).
    pub(super) fn push_event(&mut self, event: &str, data: &[u8]) -> bool {
        self.tx.send(sse::encode(None, event, data)).is_ok()
    }

    pub(super) fn is_open(&self) -> bool {
        !self.tx.is_closed()
    }
}

/// The ids a message (or batch) of responses answers.
pub(super) fn response_ids(bytes: &[u8]) -> Vec<Id> {
    let id_of = |m: &Message| match m {
        Message::Response(r) => r.id.clone(),
        _ => None,
    };
    match classify(bytes) {
        Ok(Inbound::Single(m)) => id_of(&m).into_iter().collect(),
        Ok(Inbound::Batch(items)) => items.iter().flatten().filter_map(id_of).collect(),
        Err(_) => Vec::new(),
    }
}

/// A fresh session id: 128 bits from the operating system's CSPRNG as 32
/// hex digits (visible ASCII, as the spec requires of `Mcp-Session-Id`).
/// Should that source fail, std's randomly keyed hasher over the time
/// stands in: unique and hard enough to guess for a test peer.
pub(super) fn session_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        use std::hash::{BuildHasher, Hasher};
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for half in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(nanos);
            half.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::sse::SseBody;

    fn outlet(
        label: Option<u64>,
    ) -> (
        Outlet,
        tokio::sync::mpsc::UnboundedReceiver<hyper::body::Bytes>,
    ) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        (Outlet::new(tx, label), rx)
    }

    fn text(b: &hyper::body::Bytes) -> &str {
        std::str::from_utf8(b).unwrap_or("<not UTF-8>")
    }

    #[test]
    fn session_ids_are_visible_ascii_and_distinct() {
        let (a, b) = (session_id(), session_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)));
    }

    #[test]
    fn verdicts_follow_the_live_session() {
        let mut inner = Inner::default();
        assert_eq!(inner.verdict(None), Verdict::Ok);
        assert_eq!(inner.verdict(Some("x")), Verdict::Unknown);
        let id = inner.new_session();
        assert_eq!(inner.verdict(Some(&id)), Verdict::Ok);
        assert_eq!(inner.verdict(None), Verdict::Missing);
        inner.end_session();
        assert_eq!(inner.verdict(Some(&id)), Verdict::Unknown);
        assert!(inner.ended.contains(&id));
    }

    #[test]
    fn responses_go_to_the_stream_that_awaits_them() {
        let mut inner = Inner::default();
        let (a, mut rx_a) = outlet(Some(1));
        let (b, mut rx_b) = outlet(Some(2));
        inner.post_streams.insert(
            1,
            PostStream {
                outlet: a,
                waiting: [Id::from(7)].into(),
            },
        );
        inner.post_streams.insert(
            2,
            PostStream {
                outlet: b,
                waiting: [Id::from("x")].into(),
            },
        );
        // A notification goes on the most recent open POST stream.
        let note = br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#;
        inner
            .deliver(ServeKind::Streamable, note)
            .expect("POST #2 is open");
        assert!(text(&rx_b.try_recv().expect("on #2")).starts_with("id: 2-1\n"));
        // The answer to 7 goes on POST #1, which then ends.
        let answer = br#"{"jsonrpc":"2.0","id":7,"result":{}}"#;
        inner
            .deliver(ServeKind::Streamable, answer)
            .expect("POST #1 awaits 7");
        assert!(text(&rx_a.try_recv().expect("on #1")).contains(r#""id":7"#));
        assert!(!inner.post_streams.contains_key(&1));
        assert!(rx_a.try_recv().is_err(), "the stream ended");
        // Once #2 is answered, nothing can carry a notification.
        inner
            .deliver(
                ServeKind::Streamable,
                br#"{"jsonrpc":"2.0","id":"x","result":{}}"#,
            )
            .expect("POST #2 awaits x");
        let err = inner
            .deliver(ServeKind::Streamable, note)
            .expect_err("no stream");
        assert!(err.contains("no stream is open"), "{err}");
        // A standing GET stream takes it.
        let (g, mut rx_g) = outlet(Some(0));
        inner.standing = Some(g);
        inner
            .deliver(ServeKind::Streamable, note)
            .expect("GET is open");
        assert!(text(&rx_g.try_recv().expect("on GET")).starts_with("id: 0-1\n"));
    }

    #[tokio::test]
    async fn a_stream_whose_client_left_is_pruned() {
        let mut inner = Inner::default();
        let (tx, body) = SseBody::channel(None);
        inner.standing = Some(Outlet::new(tx, None));
        assert!(inner.standing_open());
        drop(body);
        assert!(!inner.standing_open());
        let err = inner
            .deliver(ServeKind::LegacySse, b"{}")
            .expect_err("the stream is gone");
        assert_eq!(err, "the client closed the SSE stream");
        assert!(inner.standing.is_none());
    }
}
