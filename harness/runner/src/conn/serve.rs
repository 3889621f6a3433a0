//! The connection of a client case: the harness plays the server.
//!
//! What differs from a server case: the engine's session judges a *client*
//! (`Role::Server` is our side), received requests that the steps do not
//! hold are answered by the [`Fixture`] (its lines are written by the next
//! `pump`), and a client that goes away while the harness holds one of its
//! requests is remembered — it gave up a request it was still waiting for,
//! which no clean client does.

use std::time::Duration;

use mcpspec_engine::{Role, Session, Version};
use mcpspec_transport::Connection;
use mcpspec_wire::{classify, Inbound, Message};
use tokio::time::Instant;

use super::fixture::Fixture;
use super::Conn;

impl Conn {
    /// A connection to a freshly started client under test, served at
    /// `version` (the fixture answers what the steps do not hold).
    pub fn serving(proc: Connection, version: Version, startup: Duration) -> Self {
        let mut conn = Conn::new(proc, version, startup);
        conn.own = Role::Server;
        conn.session = Session::new(Role::Server, Some(version));
        conn.fixture = Some(Fixture::new(version));
        conn
    }

    /// The harness's role in this case.
    pub fn own_role(&self) -> Role {
        self.own
    }

    /// Requests of these methods (`*`: any) are left in the inbox for the
    /// steps; the fixture answers the rest.
    ///
    /// Requests already waiting in the inbox that are no longer held are
    /// answered now (a client must not wait on a hold nobody will reply to).
    pub async fn hold(&mut self, methods: Vec<String>) {
        let now = self.now_ms();
        let Some(f) = &mut self.fixture else {
            return;
        };
        f.hold(methods);
        let mut released = Vec::new();
        self.inbox.retain(|r| match &r.msg {
            Message::Request(req) if !f.holds(&req.method) => {
                released.push(req.clone());
                false
            }
            _ => true,
        });
        for req in released {
            let lines = f.answer(now, &req);
            self.outbox.extend(lines);
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

    /// How the client went away while one of its requests was held, if it did.
    pub fn gone_while_holding(&self) -> Option<&str> {
        self.gone_while_holding.as_deref()
    }

    /// Answers the client's request `msg` as the fixture would (for a
    /// `reply` without an answer of its own, and the runner's handshake).
    pub async fn answer_with_fixture(&mut self, msg: &Message) {
        let now = self.now_ms();
        if let (Some(f), Message::Request(r)) = (&mut self.fixture, msg) {
            let lines = f.answer(now, r);
            self.outbox.extend(lines);
        }
        self.flush_outbox().await;
    }

    /// Client cases: routes a received message past the fixture. Returns
    /// true when the fixture answered it (a request no step holds).
    pub(super) fn serve(&mut self, at_ms: u64, msg: &Message) -> bool {
        let Some(f) = &mut self.fixture else {
            return false;
        };
        match msg {
            Message::Request(r) if !f.holds(&r.method) => {
                let lines = f.answer(at_ms, r);
                self.outbox.extend(lines);
                true
            }
            Message::Notification(_) => {
                let lines = f.notice(at_ms, msg);
                self.outbox.extend(lines);
                false
            }
            _ => false,
        }
    }

    /// When the fixture's next timer is due, as an instant.
    pub(super) fn fixture_deadline(&self) -> Option<Instant> {
        let due = self.fixture.as_ref()?.next_deadline()?;
        let wait = due.saturating_sub(self.now_ms());
        Some(Instant::now() + Duration::from_millis(wait))
    }

    pub(super) fn fixture_tick(&mut self) {
        let now = self.now_ms();
        if let Some(f) = &mut self.fixture {
            let lines = f.tick(now);
            self.outbox.extend(lines);
        }
    }

    /// Writes what the fixture produced, each line recorded like any
    /// message the harness sends. A client that is gone gets nothing.
    pub(super) async fn flush_outbox(&mut self) {
        while !self.outbox.is_empty() {
            let line = self.outbox.remove(0);
            if self.exit.is_some() {
                self.outbox.clear();
                return;
            }
            let now = self.now_ms();
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            if let Ok(Inbound::Single(m)) = classify(body) {
                self.session.outbound(&m, now);
            } else {
                self.note_outbound(&line, now);
            }
            self.push_frame(now, ">>", String::from_utf8_lossy(body).into_owned(), body);
            if let Err(e) = self.write(&line).await {
                self.note(format!("not delivered ({e})"));
            }
        }
    }

    /// The client went away (`how`): remember it if a request of its was held.
    pub(super) fn note_gone(&mut self, how: &str) {
        if self.own != Role::Server || self.gone_while_holding.is_some() {
            return;
        }
        let mut held: Vec<String> = self
            .session
            .peer_requests_pending()
            .map(|(id, method)| format!("{method} (id {id})"))
            .collect();
        if held.is_empty() {
            return;
        }
        held.sort();
        self.gone_while_holding = Some(format!(
            "{how} while the harness held its request {} unanswered",
            held.join(", ")
        ));
    }
}
