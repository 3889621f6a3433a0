//! The connection of a client case: the harness plays the server.
//!
//! What differs from a server case: the engine's session judges a *client*
//! (`Role::Server` is our side), received requests that the steps do not
//! hold are answered by the [`Fixture`] (its lines are written by the next
//! `pump`); the oracle remembers a client that goes away while the harness
//! holds one of its requests — it gave up a request it was still waiting
//! for, which no clean client does.

use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_transport::Connection;
use mcpspec_wire::Message;
use tokio::time::Instant;

use super::fixture::Fixture;
use super::{Conn, Side};

/// Serving a client over HTTP: how long a message waits for a stream the
/// client opens.
pub(super) const NO_STREAM_GRACE: Duration = Duration::from_secs(2);

/// What the serving side keeps of its own.
#[derive(Debug)]
pub(super) struct ServerSide {
    /// Answers the client's requests the steps do not hold.
    fixture: Fixture,
    /// Lines the fixture produced, written by the next `pump`.
    outbox: Vec<Vec<u8>>,
    /// The client's GETs (Streamable HTTP): when, and the `Last-Event-ID`
    /// each named.
    gets: Vec<(u64, Option<String>)>,
}

impl Conn {
    /// A connection to a freshly started client under test, served at
    /// `version` (the fixture answers what the steps do not hold).
    pub fn serving(proc: Connection, version: Version, startup: Duration) -> Self {
        let side = ServerSide {
            fixture: Fixture::new(version),
            outbox: Vec::new(),
            gets: Vec::new(),
        };
        Conn::open(proc, version, startup, Side::Server(Box::new(side)))
    }

    fn server_side(&mut self) -> Option<&mut ServerSide> {
        match &mut self.side {
            Side::Server(s) => Some(s),
            Side::Client(_) => None,
        }
    }

    /// Requests of these methods (`*`: any) are left in the inbox for the
    /// steps; the fixture answers the rest.
    ///
    /// Requests already waiting in the inbox that are no longer held are
    /// answered now (a client must not wait on a hold nobody will reply to).
    pub async fn hold(&mut self, methods: Vec<String>) {
        let now = self.now_ms();
        let Side::Server(side) = &mut self.side else {
            return;
        };
        side.fixture.hold(methods);
        let mut released = Vec::new();
        self.inbox.retain(|r| match &r.msg {
            Message::Request(req) if !side.fixture.holds(&req.method) => {
                released.push(req.clone());
                false
            }
            _ => true,
        });
        for req in released {
            let lines = side.fixture.answer(now, &req);
            side.outbox.extend(lines);
        }
        self.flush_outbox().await;
    }

    /// Waits up to `within` for a message satisfying `pred` and returns a
    /// copy, leaving it in the inbox for the steps.
    pub async fn wait_present(
        &mut self,
        within: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<Message, super::WaitError> {
        let i = self.wait_index(within, pred).await?;
        Ok(self.inbox[i].msg.clone())
    }

    /// Streamable HTTP: ends the response stream awaiting an answer to `id`
    /// after a priming event with `retry` ([`mcpspec_transport::HttpPeer::cut_stream`]),
    /// and tells the oracle when, on the clock of the client's records.
    pub fn cut_stream(
        &mut self,
        id: &mcpspec_wire::Id,
        retry: Option<Duration>,
    ) -> Result<mcpspec_transport::serve::Cut, String> {
        let retry_ms = retry.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let cut = self
            .proc
            .cut_stream(id, retry_ms)
            .map_err(|e| e.to_string())?;
        let at = u64::try_from(cut.at.as_millis()).unwrap_or(u64::MAX);
        let retry_text =
            retry_ms.map_or_else(|| "no retry".to_owned(), |r| format!("retry {r} ms"));
        self.transcript.line(
            at,
            "--",
            format!(
                "the harness ended the response stream of POST #{} after event {:?} ({retry_text}), before its answer",
                cut.post, cut.last_event_id
            ),
        );
        self.observe(
            at,
            super::Observed::StreamCut {
                post: cut.post,
                last_event_id: &cut.last_event_id,
                retry_ms,
            },
        );
        Ok(cut)
    }

    /// Whether the client resumed the cut stream of POST `n`.
    pub fn resumed(&self, n: u64) -> bool {
        self.proc.resumed(n)
    }

    /// The client's GETs from `at_ms` on, described (`GET at 1520 ms,
    /// Last-Event-ID: 3-1`).
    pub fn gets_since(&self, at_ms: u64) -> Vec<String> {
        let Side::Server(side) = &self.side else {
            return Vec::new();
        };
        side.gets
            .iter()
            .filter(|(at, _)| *at >= at_ms)
            .map(|(at, last)| match last {
                Some(id) => format!("GET at {at} ms, Last-Event-ID: {id}"),
                None => format!("GET at {at} ms, without Last-Event-ID"),
            })
            .collect()
    }

    /// Notes a request record of the client's (its GETs are kept).
    pub(super) fn served_record(&mut self, at_ms: u64, record: &mcpspec_transport::HttpRecord) {
        if let Side::Server(side) = &mut self.side {
            if record.method == "GET" {
                let last = record.request_header("last-event-id").map(str::to_owned);
                side.gets.push((at_ms, last));
            }
        }
    }

    /// How the client went away while one of its requests was held, if it
    /// did (the oracle saw it go).
    pub fn gone_while_holding(&self) -> Option<&str> {
        self.oracle.walked_away_from()
    }

    /// Answers the client's request `msg` as the fixture would (for a
    /// `reply` without an answer of its own, and the runner's handshake).
    pub async fn answer_with_fixture(&mut self, msg: &Message) {
        let now = self.now_ms();
        if let (Some(side), Message::Request(r)) = (self.server_side(), msg) {
            let lines = side.fixture.answer(now, r);
            side.outbox.extend(lines);
        }
        self.flush_outbox().await;
    }

    /// Client cases: routes a received message past the fixture. Returns
    /// true when the fixture answered it (a request no step holds).
    pub(super) fn serve(&mut self, at_ms: u64, msg: &Message) -> bool {
        let Some(side) = self.server_side() else {
            return false;
        };
        match msg {
            Message::Request(r) if !side.fixture.holds(&r.method) => {
                let lines = side.fixture.answer(at_ms, r);
                side.outbox.extend(lines);
                true
            }
            Message::Notification(_) => {
                let lines = side.fixture.notice(at_ms, msg);
                side.outbox.extend(lines);
                false
            }
            _ => false,
        }
    }

    /// When the fixture's next timer is due, as an instant.
    pub(super) fn fixture_deadline(&self) -> Option<Instant> {
        let Side::Server(side) = &self.side else {
            return None;
        };
        let due = side.fixture.next_deadline()?;
        let wait = due.saturating_sub(self.now_ms());
        Some(Instant::now() + Duration::from_millis(wait))
    }

    pub(super) fn fixture_tick(&mut self) {
        let now = self.now_ms();
        if let Some(side) = self.server_side() {
            let lines = side.fixture.tick(now);
            side.outbox.extend(lines);
        }
    }

    /// Writes what the fixture produced, each line recorded like any
    /// message the harness sends. A client that is gone gets nothing.
    pub(super) async fn flush_outbox(&mut self) {
        loop {
            let gone = self.exit.is_some();
            let Some(side) = self.server_side() else {
                return;
            };
            if side.outbox.is_empty() {
                return;
            }
            if gone {
                side.outbox.clear();
                return;
            }
            let line = side.outbox.remove(0);
            let now = self.now_ms();
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            self.note_outbound(&line, now);
            self.transcript
                .frame(now, ">>", String::from_utf8_lossy(body).into_owned(), body);
            if let Err(e) = self.write(&line).await {
                self.note(format!("not delivered ({e})"));
            }
        }
    }
}
