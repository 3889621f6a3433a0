//! The order taps reach the judge in, over the legacy HTTP+SSE transport.
//!
//! A legacy server answers a POST on its SSE stream, often before the
//! POST's own `202` has come back. Relayed as they come, the judge would see
//! the answer before the exchange that carried the request (it judges a
//! client's POST body once its record is known), and take the request for
//! unanswered. So while a POST of a connection is in flight, what its
//! stream says is held (the bytes still go to the client at once) and
//! tapped right after that POST's record:
//!
//! ```text
//!  POST body ─► post_started ─► … stream events: held … ─► record tapped ─► post_done ─► held events tapped
//! ```
//!
//! Streamable HTTP answers a POST in its own response, after its record:
//! nothing is held there (no POST is ever marked started).

use std::collections::HashMap;

use tokio::sync::Mutex;

use super::{Tap, Tapper};

#[derive(Debug)]
pub(crate) struct Order {
    tapper: Tapper,
    /// Per connection: POSTs in flight, and the stream's taps held meanwhile.
    held: Mutex<HashMap<u64, (usize, Vec<Tap>)>>,
}

impl Order {
    pub(crate) fn new(tapper: Tapper) -> Self {
        Order {
            tapper,
            held: Mutex::new(HashMap::new()),
        }
    }

    /// Taps at once (an exchange's own taps).
    pub(crate) async fn tap(&self, conn: u64, tap: Tap) {
        self.tapper.tap(conn, tap).await;
    }

    /// A POST of `conn` (legacy transport) is about to be tapped and sent.
    pub(crate) async fn post_started(&self, conn: u64) {
        self.held.lock().await.entry(conn).or_default().0 += 1;
    }

    /// That POST's record was tapped: what its stream said meanwhile follows.
    pub(crate) async fn post_done(&self, conn: u64) {
        let mut held = self.held.lock().await;
        let Some(entry) = held.get_mut(&conn) else {
            return;
        };
        entry.0 = entry.0.saturating_sub(1);
        if entry.0 == 0 {
            // Tapped under the lock: a new stream event waits behind them.
            for tap in std::mem::take(&mut entry.1) {
                self.tapper.tap(conn, tap).await;
            }
        }
    }

    /// A tap of `conn`'s stream: held while a POST of it is in flight.
    pub(crate) async fn stream_tap(&self, conn: u64, tap: Tap) {
        let mut held = self.held.lock().await;
        match held.get_mut(&conn) {
            Some((inflight, queue)) if *inflight > 0 => queue.push(tap),
            _ => self.tapper.tap(conn, tap).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_wire::event::{Event, Via};

    fn note(text: &str) -> Tap {
        Tap::Gone {
            side: super::super::Peer::Server,
            via: Via::Legacy,
            event: Event::Closed(text.to_owned()),
        }
    }

    fn text(t: &Tap) -> String {
        match t {
            Tap::Gone {
                event: Event::Closed(s),
                ..
            } => s.clone(),
            other => format!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn stream_taps_wait_for_the_record_of_the_post_in_flight() {
        let (tapper, mut rx) = Tapper::new();
        let order = Order::new(tapper);
        order.stream_tap(1, note("before")).await;
        order.post_started(1).await;
        order.tap(1, note("body")).await;
        order.stream_tap(1, note("answer")).await;
        order.stream_tap(2, note("other connection")).await;
        order.tap(1, note("record")).await;
        order.post_done(1).await;
        order.stream_tap(1, note("after")).await;
        drop(order);
        let mut seen = Vec::new();
        while let Some(t) = rx.recv().await {
            seen.push(text(&t.tap));
        }
        assert_eq!(
            seen,
            [
                "before",
                "body",
                "other connection",
                "record",
                "answer",
                "after"
            ]
        );
    }
}
