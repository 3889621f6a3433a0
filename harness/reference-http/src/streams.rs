//! The SSE streams of one Streamable HTTP session, with event ids and replay.
//!
//! Stream 0 is the standalone stream a client opens with GET; streams 1, 2, …
//! are opened by POSTed requests whose answer is not a single JSON body.
//! Every event of stream `k` gets the id `k-n` (n = 1, 2, … within the
//! stream), so ids are unique across the session and name their stream:
//!
//! ```text
//!   POST stream k:  open(waiting ids) ─► push … ─► last waiting id answered ─► finished
//!                                                   (live connection dropped: body ends)
//!   GET stream 0:   messages pushed while no GET is open are kept and sent
//!                   when one opens; a second GET takes over from the first
//!   GET + Last-Event-ID k-n: replay stream k after n, then (unless finished)
//!                   go on live on it — never another stream's events
//! ```
//!
//! Events are kept (at most [`MAX_EVENTS`] per stream, [`MAX_FINISHED`]
//! finished streams) so that a client whose connection broke can resume.
//! What one round (one POST, one timer) pushes to a live stream goes out in
//! one write when the round settles ([`Streams::settle`]): an answer and
//! what follows it (the `duplicate-response` fault's copy) reach the client
//! together, not as two writes a client may read either side of its end.
//! At 2025-11-25 a POST stream opens with a priming event (`id: k-1`,
//! `retry`, empty `data`): a client can resume from it before any message
//! came ([`Flags::prime`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;

use crate::sse::{self, EventTx};

/// The standalone GET stream.
pub(crate) const GET_STREAM: u64 = 0;
/// Events kept per stream for replay.
const MAX_EVENTS: usize = 1024;
/// Finished POST streams kept for replay.
const MAX_FINISHED: usize = 64;

#[derive(Debug, Default)]
struct Stream {
    /// (sequence number, encoded event), oldest first.
    events: VecDeque<(u64, Bytes)>,
    next_seq: u64,
    /// Highest sequence number handed to a live connection.
    delivered: u64,
    live: Option<EventTx>,
    /// Events of this round for the live connection, sent on settling:
    /// (highest sequence number, their encodings).
    outbox: Option<(u64, Vec<u8>)>,
    /// Request ids (JSON text) still to be answered on this stream.
    waiting: BTreeSet<String>,
    finished: bool,
}

impl Stream {
    fn is_live(&self) -> bool {
        self.live.as_ref().is_some_and(|tx| !tx.is_closed())
    }
}

/// The `retry` (milliseconds) of a priming event.
pub(crate) const PRIMING_RETRY_MS: u64 = 500;

/// How a session's streams behave (the faults among them break a rule).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Flags {
    /// `http-event-ids-per-stream`: ids are `n`, not `k-n`.
    pub(crate) per_stream_ids: bool,
    /// `http-sse-stays-open`: finished POST streams keep their connection.
    pub(crate) stays_open: bool,
    /// `http-resume-cross-replay`: a resumption replays every POST stream.
    pub(crate) cross_replay: bool,
}

/// All streams of a session.
#[derive(Debug)]
pub(crate) struct Streams {
    map: BTreeMap<u64, Stream>,
    next: u64,
    /// `http-event-ids-per-stream`: ids are `n`, not `k-n`.
    per_stream_ids: bool,
    /// `http-sse-stays-open`: finished POST streams keep their connection.
    stays_open: bool,
    /// `http-resume-cross-replay`: see [`Flags::cross_replay`].
    cross_replay: bool,
    /// The server's count of open POST stream bodies (see `sse`).
    open_posts: Arc<AtomicUsize>,
    /// Request id (JSON text) → the stream that will carry its response.
    pending: HashMap<String, u64>,
    /// Progress token (JSON text) → the stream of the request it belongs to.
    tokens: HashMap<String, u64>,
}

impl Streams {
    pub(crate) fn new(flags: Flags, open_posts: Arc<AtomicUsize>) -> Self {
        let mut map = BTreeMap::new();
        map.insert(GET_STREAM, Stream::default());
        Streams {
            map,
            next: 1,
            per_stream_ids: flags.per_stream_ids,
            stays_open: flags.stays_open,
            cross_replay: flags.cross_replay,
            open_posts,
            pending: HashMap::new(),
            tokens: HashMap::new(),
        }
    }

    /// Opens a POST stream that waits for `waiting` and carries progress for
    /// `tokens`, first a priming event when `prime`; returns it and the SSE
    /// response for the POST.
    pub(crate) fn open(
        &mut self,
        waiting: BTreeSet<String>,
        tokens: &[String],
        prime: bool,
    ) -> (u64, Response) {
        let k = self.next;
        self.next += 1;
        for id in &waiting {
            self.pending.insert(id.clone(), k);
        }
        for t in tokens {
            self.tokens.insert(t.clone(), k);
        }
        let (tx, resp) = sse::post_channel(&self.open_posts);
        self.map.insert(
            k,
            Stream {
                live: Some(tx),
                waiting,
                ..Stream::default()
            },
        );
        if prime {
            self.append(k, |id| sse::priming(id, PRIMING_RETRY_MS));
        }
        self.evict();
        (k, resp)
    }

    /// How many POST stream bodies counted with this session's counter are open.
    pub(crate) fn open_posts_now(&self) -> usize {
        self.open_posts.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The stream waiting for the response with this id; it waits no more.
    pub(crate) fn take_pending(&mut self, id: &str) -> Option<u64> {
        let k = self.pending.remove(id)?;
        if let Some(s) = self.map.get_mut(&k) {
            s.waiting.remove(id);
        }
        Some(k)
    }

    /// The unfinished stream of the request that supplied this progress token.
    pub(crate) fn token_stream(&self, token: &str) -> Option<u64> {
        let k = *self.tokens.get(token)?;
        self.map.get(&k).filter(|s| !s.finished).map(|_| k)
    }

    /// A connection is reading the GET stream.
    pub(crate) fn get_is_live(&self) -> bool {
        self.map.get(&GET_STREAM).is_some_and(Stream::is_live)
    }

    fn event_id(&self, k: u64, seq: u64) -> String {
        if self.per_stream_ids {
            seq.to_string()
        } else {
            format!("{k}-{seq}")
        }
    }

    /// Appends a message to stream `k`, sent when the round settles if a
    /// connection is live.
    pub(crate) fn push(&mut self, k: u64, data: &str) {
        self.append(k, |id| sse::event(Some(id), "message", data));
    }

    /// Appends the event `encode` makes of its id to stream `k`, and to the
    /// round's write if a connection is live.
    fn append(&mut self, k: u64, encode: impl FnOnce(&str) -> Bytes) {
        let Some(seq) = self.map.get_mut(&k).map(|s| {
            s.next_seq += 1;
            s.next_seq
        }) else {
            return; // evicted long ago
        };
        let bytes = encode(&self.event_id(k, seq));
        let Some(s) = self.map.get_mut(&k) else {
            return;
        };
        s.events.push_back((seq, bytes.clone()));
        if s.events.len() > MAX_EVENTS {
            s.events.pop_front();
        }
        if s.live.is_some() {
            let (last, out) = s.outbox.get_or_insert_with(|| (seq, Vec::new()));
            *last = seq;
            out.extend_from_slice(&bytes);
        }
    }

    /// Sends each live stream's events of this round, in one write each.
    fn flush(&mut self) {
        for s in self.map.values_mut() {
            let Some((last, out)) = s.outbox.take() else {
                continue;
            };
            if let Some(tx) = &s.live {
                if tx.send(Bytes::from(out)).is_ok() {
                    s.delivered = last;
                } else {
                    s.live = None; // the client went away; kept for replay
                }
            }
        }
    }

    /// Ends a round: sends what it pushed, then finishes every POST stream
    /// that waits for nothing more (its connection is dropped, which ends
    /// the response body after what was sent).
    pub(crate) fn settle(&mut self) {
        self.flush();
        let done: Vec<u64> = self
            .map
            .iter()
            .filter(|(&k, s)| k != GET_STREAM && !s.finished && s.waiting.is_empty())
            .map(|(&k, _)| k)
            .collect();
        for k in done {
            self.tokens.retain(|_, v| *v != k);
            if let Some(s) = self.map.get_mut(&k) {
                s.finished = true;
                if !self.stays_open {
                    s.live = None;
                }
            }
        }
    }

    /// A GET without `Last-Event-ID`: the standalone stream, starting with
    /// what was kept for it and not yet sent. A connection already on it is
    /// let go (its body ends): a client that reconnects is not refused
    /// because the server has not yet noticed that the old connection broke.
    pub(crate) fn attach_get(&mut self) -> Response {
        self.flush();
        let s = self.map.entry(GET_STREAM).or_default();
        let (tx, resp) = sse::channel();
        let after = s.delivered;
        Self::replay(s, &tx, after);
        s.live = Some(tx);
        resp
    }

    /// A GET with `Last-Event-ID`: replays the stream that id names after
    /// it, then stays live on it unless it is finished. `None` when the id
    /// names no stream of this session.
    pub(crate) fn resume(&mut self, last_event_id: &str) -> Option<Response> {
        self.flush();
        let (k, n) = self.parse_event_id(last_event_id.trim())?;
        let s = self.map.get_mut(&k)?;
        let (tx, resp) = sse::channel();
        Self::replay(s, &tx, n);
        if !s.finished || (self.stays_open && k != GET_STREAM) {
            s.live = Some(tx.clone());
        }
        if self.cross_replay {
            // The fault: every other POST stream's events follow.
            for (_, other) in self
                .map
                .iter_mut()
                .filter(|(&j, _)| j != k && j != GET_STREAM)
            {
                Self::replay(other, &tx, 0);
            }
        }
        Some(resp)
    }

    fn parse_event_id(&self, id: &str) -> Option<(u64, u64)> {
        if self.per_stream_ids {
            return Some((GET_STREAM, id.parse().ok()?));
        }
        let (k, n) = id.split_once('-')?;
        Some((k.parse().ok()?, n.parse().ok()?))
    }

    /// Sends the kept events after sequence number `after`.
    fn replay(s: &mut Stream, tx: &EventTx, after: u64) {
        for (seq, bytes) in s.events.iter().filter(|(seq, _)| *seq > after) {
            if tx.send(bytes.clone()).is_err() {
                return;
            }
            s.delivered = s.delivered.max(*seq);
        }
    }

    /// Forgets the oldest finished streams beyond [`MAX_FINISHED`].
    fn evict(&mut self) {
        let finished: Vec<u64> = self
            .map
            .iter()
            .filter(|(_, s)| s.finished && !s.is_live())
            .map(|(&k, _)| k)
            .collect();
        let excess = finished.len().saturating_sub(MAX_FINISHED);
        for k in finished.into_iter().take(excess) {
            self.map.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(k: &[&str]) -> BTreeSet<String> {
        k.iter().map(|s| (*s).to_owned()).collect()
    }

    #[tokio::test] // the SSE bodies' keep-alive timers need a runtime
    async fn post_streams_finish_when_answered() {
        let mut s = Streams::new(Flags::default(), Arc::default());
        let (k, _resp) = s.open(ids(&["1"]), &["\"t\"".to_owned()], false);
        assert_eq!(k, 1);
        assert_eq!(s.token_stream("\"t\""), Some(1));
        s.push(k, "{}");
        assert_eq!(s.take_pending("1"), Some(1));
        s.settle();
        assert_eq!(s.token_stream("\"t\""), None);
        assert!(s.map[&1].finished && s.map[&1].live.is_none());
        assert_eq!(s.map[&1].events.len(), 1);
        assert!(s.map[&1].events[0].1.starts_with(b"id: 1-1\n"));
    }

    /// #18 CI: the `duplicate-response` fault's copy went out in a write of
    /// its own, and a client that ended its session in between never saw it.
    #[tokio::test] // the SSE bodies' keep-alive timers need a runtime
    async fn a_rounds_events_go_out_in_one_write() {
        let mut s = Streams::new(Flags::default(), Arc::default());
        let (k, _resp) = s.open(ids(&["1"]), &[], true);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        if let Some(stream) = s.map.get_mut(&k) {
            stream.live = Some(tx);
        }
        s.push(k, "{\"a\":1}");
        s.push(k, "{\"a\":1}");
        assert!(
            rx.try_recv().is_err(),
            "nothing is sent before the round settles"
        );
        assert_eq!(s.take_pending("1"), Some(k));
        s.settle();
        let write = rx.try_recv().expect("one write");
        let text = String::from_utf8_lossy(&write);
        assert!(
            text.contains(&format!("id: {k}-1\n"))
                && text.contains(&format!("id: {k}-2\n"))
                && text.contains(&format!("id: {k}-3\n")),
            "{text}"
        );
        assert!(rx.try_recv().is_err(), "and no second write");
        assert_eq!(s.map[&k].delivered, 3);
    }

    #[tokio::test] // the SSE bodies' keep-alive timers need a runtime
    async fn get_stream_keeps_messages_until_opened() {
        let mut s = Streams::new(Flags::default(), Arc::default());
        s.push(GET_STREAM, "{\"a\":1}");
        assert!(!s.get_is_live());
        let _resp = s.attach_get();
        assert!(s.get_is_live());
        assert_eq!(s.map[&GET_STREAM].delivered, 1);
        let _again = s.attach_get();
        assert!(s.get_is_live());
        assert!(s.resume("7-1").is_none());
        assert!(s.resume("nonsense").is_none());
        assert!(s.resume("0-0").is_some());
    }

    #[tokio::test] // the SSE bodies' keep-alive timers need a runtime
    async fn per_stream_ids_repeat() {
        let mut s = Streams::new(
            Flags {
                per_stream_ids: true,
                ..Flags::default()
            },
            Arc::default(),
        );
        let (a, _ra) = s.open(ids(&["1"]), &[], false);
        let (b, _rb) = s.open(ids(&["2"]), &[], false);
        s.push(a, "{}");
        s.push(b, "{}");
        assert_eq!(s.map[&a].events[0].1, s.map[&b].events[0].1);
    }

    #[tokio::test] // the SSE bodies' keep-alive timers need a runtime
    async fn priming_comes_first_and_resumes() {
        let mut s = Streams::new(Flags::default(), Arc::default());
        let (k, _resp) = s.open(ids(&["1"]), &[], true);
        s.push(k, "{\"a\":1}");
        let first = &s.map[&k].events[0].1;
        assert_eq!(
            first,
            &Bytes::from(format!("id: {k}-1\nretry: {PRIMING_RETRY_MS}\ndata: \n\n"))
        );
        assert!(s.map[&k].events[1]
            .1
            .starts_with(format!("id: {k}-2\n").as_bytes()));
        assert!(s.resume(&format!("{k}-1")).is_some());
    }
}
