//! Cutting a POST's response stream before its answer, and serving the
//! client's resumption of it (Streamable HTTP, 2025-03-26 … 2025-11-25:
//! `basic/transports#resumability-and-redelivery`).
//!
//! ```text
//!   HttpPeer::cut_stream(id, retry) ─► POST n's stream: `id: n-k`, `retry: R`, empty data ─► ends
//!                                      (its unanswered requests move to Inner::cut[n])
//!   send(answer to id) ──────────────► parked in cut[n] (no stream carries it yet)
//!   GET + Last-Event-ID: n-k ────────► a new stream for POST n: parked answers, then it ends
//!                                      once nothing more is owed on it
//! ```
//!
//! Only a GET whose `Last-Event-ID` is the last event id of a cut stream
//! resumes it; any other GET is an ordinary standing stream, which never
//! carries a response. The peer judges nothing: the runner reports the cut
//! to the oracle with the time [`Cut::at`] on the peer's own clock, the one
//! its records are stamped with.

use std::collections::HashSet;
use std::time::Duration;

use mcpspec_wire::Id;

use super::sse::SseBody;
use super::state::{response_ids, Inner, Outlet};

/// What [`super::HttpPeer::cut_stream`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The POST whose response stream was cut (`Via::Post(post)`).
    pub post: u64,
    /// The id of the priming event, the last the stream carried.
    pub last_event_id: String,
    /// The `retry` the priming event carried, in milliseconds.
    pub retry_ms: Option<u64>,
    /// When the stream was ended, on the peer's clock.
    pub at: Duration,
}

/// A response stream cut before its answer, awaiting the client's GET.
#[derive(Debug)]
pub(super) struct CutStream {
    pub(super) last_event_id: String,
    /// Ids of its requests not answered yet (parked answers included).
    waiting: HashSet<Id>,
    /// Answers sent while no resumed stream was open.
    parked: Vec<Vec<u8>>,
    /// The resumed stream, once the client came back.
    resumed: Option<Outlet>,
}

impl Inner {
    /// Ends POST `id`'s response stream after a priming event (an event id,
    /// `retry` when given, empty data). Errs when no open POST stream awaits
    /// an answer to `id`.
    pub(super) fn cut_stream(&mut self, id: &Id, retry_ms: Option<u64>) -> Result<Cut, String> {
        self.post_streams.retain(|_, s| s.outlet.is_open());
        let n = self
            .post_streams
            .iter()
            .find(|(_, s)| s.waiting.contains(id))
            .map(|(n, _)| *n)
            .ok_or_else(|| {
                format!("no open response stream awaits an answer to {id}: the client closed it, or it was answered")
            })?;
        let Some(mut stream) = self.post_streams.remove(&n) else {
            return Err(format!("the response stream of POST #{n} is gone"));
        };
        let last_event_id = stream
            .outlet
            .prime(retry_ms)
            .ok_or_else(|| format!("the client closed the response stream of POST #{n}"))?;
        // Dropping the outlet ends the body once the priming event is sent.
        self.cut.insert(
            n,
            CutStream {
                last_event_id: last_event_id.clone(),
                waiting: stream.waiting,
                parked: Vec::new(),
                resumed: None,
            },
        );
        Ok(Cut {
            post: n,
            last_event_id,
            retry_ms,
            at: Duration::ZERO,
        })
    }

    /// An answer owed on a cut stream: sent on its resumed stream, else
    /// parked. `None` when it answers nothing a cut stream owes.
    pub(super) fn answer_cut(&mut self, bytes: &[u8]) -> Option<Result<(), String>> {
        let ids = response_ids(bytes);
        let (&n, stream) = self
            .cut
            .iter_mut()
            .find(|(_, s)| ids.iter().any(|id| s.waiting.contains(id)))?;
        for id in &ids {
            stream.waiting.remove(id);
        }
        let sent = stream.resumed.as_mut().is_some_and(|o| o.push(bytes));
        if !sent {
            stream.resumed = None;
            stream.parked.push(bytes.to_vec());
        } else if stream.waiting.is_empty() {
            // Dropping the resumed outlet ends it once the answer is sent.
            self.cut.remove(&n);
        }
        Some(Ok(()))
    }

    /// A GET naming `last_event_id`: the resumed stream of the cut stream it
    /// names, its parked answers queued; `None` when it names none.
    pub(super) fn resume(&mut self, last_event_id: &str) -> Option<SseBody> {
        let (&n, stream) = self
            .cut
            .iter_mut()
            .find(|(_, s)| s.last_event_id == last_event_id)?;
        let (tx, body) = SseBody::channel(None);
        let mut outlet = Outlet::continuing(tx, n, &stream.last_event_id);
        for bytes in stream.parked.drain(..) {
            outlet.push(&bytes);
        }
        self.resumptions.insert(n);
        if stream.waiting.is_empty() {
            // Everything owed is queued: the stream ends after it.
            self.cut.remove(&n);
        } else {
            stream.resumed = Some(outlet);
        }
        Some(body)
    }
}
