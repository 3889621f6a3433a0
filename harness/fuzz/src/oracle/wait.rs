//! How long an owed answer is waited for, and what the end of the wait is.
//!
//! A slow answer is not a missing one. MCP sets no deadline for answering a
//! request: its timeouts are the *sender's* (basic/lifecycle, "Timeouts": a
//! sender SHOULD put a timeout on its requests, SHOULD then cancel and stop
//! waiting, MAY restart the clock on progress, and SHOULD enforce a maximum
//! regardless), and long-running requests are what progress notifications
//! are for. So the fuzzer, as the sender, does what those rules say:
//!
//! | while an answer is owed                                   | then                                              |
//! |-----------------------------------------------------------|---------------------------------------------------|
//! | any frame of the target's (a ping answered, progress, …)   | it is alive: the request may take `--timeout` more |
//! | progress under the request's own token                     | the same, and the note says it progressed          |
//! | `--timeout` without a sign of life                         | the driver asks with a ping ([`Judge::quiet`]): unanswered, that is the `ping` oracle's MUST |
//! | `--max-wait` since it was sent ([`Judge::overdue`])        | a [`TimedOut`] note, not a finding; the driver sends `notifications/cancelled` and stops waiting; a late answer is still accepted once |
//! | the run's `--duration` spent, and a `--timeout` more ([`Judge::abandon`]) | the same note, with the shorter wait: the budget is kept, however long `--max-wait` is |
//!
//! A request that is *shown* to go unanswered stays a finding: the target
//! exits or ends the session with it pending (`alive`, `jsonrpc.request.answered`,
//! MUST). A timeout proves nothing of the kind, and the specification has no
//! rule on how long an answer may take, so it is reported as a note of the
//! run (method, how often, how long, whether progress came), never at a level.

use std::time::Duration;

use mcpspec_wire::{Id, Message};
use serde_json::{json, Value};

use super::Judge;

/// The most an owed answer is waited for by default.
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(60);

/// A request still unanswered when its wait ended: a note, not a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedOut {
    pub id: Id,
    pub method: String,
    /// The exec that sent it (`None`: a request of the driver's own).
    pub exec: Option<u64>,
    /// How long it was waited for.
    pub waited_ms: u64,
    /// Progress came under its token meanwhile.
    pub progressed: bool,
}

impl TimedOut {
    /// What the sender sends when it stops waiting (basic/lifecycle,
    /// "Timeouts"): `notifications/cancelled` for the request — none for
    /// `initialize`, which must not be cancelled.
    pub fn cancellation(&self) -> Option<Message> {
        (self.method != "initialize").then(|| {
            Message::notification(
                "notifications/cancelled",
                Some(json!({
                    "requestId": self.id.to_value(),
                    "reason": format!("mcpspec fuzz: no answer within {} ms (--max-wait)", self.waited_ms),
                })),
            )
        })
    }
}

impl Judge {
    /// Waits for owed answers at most `max_wait_ms` (from when each was
    /// sent), however alive the target is.
    pub fn max_wait(mut self, max_wait_ms: u64) -> Self {
        self.max_wait_ms = max_wait_ms;
        self
    }

    /// A progress notification from the target: the request under `token`
    /// is being worked on.
    pub fn progress(&mut self, token: &Value, now_ms: u64) {
        let text = token.to_string();
        for o in self.owed.values_mut() {
            if o.token.as_deref() == Some(text.as_str()) {
                o.progressed = true;
                o.deadline_ms = o.deadline_ms.max(now_ms + self.timeout_ms);
            }
        }
    }

    /// A sign of life from the target at `now_ms` (any frame, an answered
    /// ping): every owed request may take another timeout.
    pub fn alive(&mut self, now_ms: u64) {
        for o in self.owed.values_mut() {
            o.deadline_ms = o.deadline_ms.max(now_ms + self.timeout_ms);
        }
    }

    /// Whether the target has been silent for a timeout while an answer is
    /// owed (and not yet waited for to the end): time to check it is alive.
    pub fn quiet(&self, now_ms: u64) -> bool {
        self.owed
            .values()
            .any(|o| o.deadline_ms <= now_ms && now_ms < self.bound(o.sent_ms))
    }

    /// Owed requests waited for to the bound at `now_ms`: no longer owed
    /// (a later answer is accepted once), each reported once as a note.
    pub fn overdue(&mut self, now_ms: u64) -> Vec<TimedOut> {
        let late: Vec<Id> = self
            .owed
            .iter()
            .filter(|(_, o)| self.bound(o.sent_ms) <= now_ms)
            .map(|(id, _)| id.clone())
            .collect();
        self.stop_waiting(late, now_ms)
    }

    /// Every request still owed at `now_ms`, its wait cut short because the
    /// run's budget is spent: no longer owed (a later answer is accepted
    /// once), each reported as a note with how long it was waited for.
    pub fn abandon(&mut self, now_ms: u64) -> Vec<TimedOut> {
        let all: Vec<Id> = self.owed.keys().cloned().collect();
        self.stop_waiting(all, now_ms)
    }

    fn stop_waiting(&mut self, mut late: Vec<Id>, now_ms: u64) -> Vec<TimedOut> {
        late.sort_by_key(|id| self.owed.get(id).map(|o| o.seq));
        let mut out = Vec::new();
        for id in late {
            if let Some(o) = self.owed.remove(&id) {
                out.push(TimedOut {
                    id: id.clone(),
                    method: o.method,
                    exec: Some(o.exec),
                    waited_ms: now_ms.saturating_sub(o.sent_ms),
                    progressed: o.progressed,
                });
                self.allow(id, o.exec, o.error);
            }
        }
        out
    }

    /// When the driver should look again: the earliest moment a sign of
    /// life is due or a wait reaches its bound.
    pub fn next_deadline(&self) -> Option<u64> {
        self.owed
            .values()
            .map(|o| o.deadline_ms.min(self.bound(o.sent_ms)))
            .min()
    }

    fn bound(&self, sent_ms: u64) -> u64 {
        sent_ms.saturating_add(self.max_wait_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Judge;
    use crate::expect::Expect;
    use mcpspec_transport::Via;
    use mcpspec_wire::Id;
    use serde_json::Value;

    fn owed(id: i64, token: Option<&str>) -> Expect {
        Expect::Owed {
            id: Id::from(id),
            method: "tools/call".into(),
            error: None,
            token: token.map(|t| format!("{t:?}")),
            batch: false,
        }
    }

    #[test]
    fn a_slow_answer_from_a_live_target_is_waited_for_up_to_the_bound() {
        let mut j = Judge::new(1000).max_wait(10_000);
        j.sent(0, &[owed(1, None)], 0);
        // Silent for a timeout: check it is alive, nothing more.
        assert!(!j.quiet(999) && j.quiet(1000));
        assert!(j.overdue(1000).is_empty());
        // Alive (a ping answered): it may take another timeout.
        j.alive(1200);
        assert!(!j.quiet(2100) && j.quiet(2200));
        assert_eq!(j.next_deadline(), Some(2200));
        // However alive, the wait ends at the bound: a note, not a verdict.
        j.alive(9500);
        assert_eq!(j.next_deadline(), Some(10_000));
        let t = j.overdue(10_000);
        assert_eq!(
            (t.len(), t[0].waited_ms, t[0].progressed),
            (1, 10_000, false)
        );
        assert_eq!(j.owed(), 0);
        assert!(!j.quiet(20_000));
        // A late answer is accepted once.
        let late = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        assert!(j.frame(Via::Stdio, late, Vec::new()).is_empty());
    }

    #[test]
    fn a_spent_budget_abandons_every_wait_as_a_note() {
        let mut j = Judge::new(1000).max_wait(60_000);
        j.sent(0, &[owed(1, None)], 0);
        j.sent(1, &[owed(2, None)], 500);
        assert!(j.overdue(3000).is_empty());
        let t = j.abandon(3000);
        assert_eq!(
            t.iter().map(|t| t.waited_ms).collect::<Vec<_>>(),
            [3000, 2500]
        );
        assert_eq!((j.owed(), j.next_deadline()), (0, None));
        let late = br#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
        assert!(j.frame(Via::Stdio, late, Vec::new()).is_empty());
    }

    #[test]
    fn progress_under_the_token_keeps_a_request_waited_for_and_is_noted() {
        let mut j = Judge::new(1000).max_wait(5000);
        j.sent(0, &[owed(1, Some("t")), owed(2, None)], 0);
        j.progress(&Value::from("t"), 900);
        // Request 1 progressed; request 2 did not, and needs a sign of life.
        assert!(j.quiet(1000));
        j.alive(1000);
        let answer = br#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
        assert!(j.frame(Via::Stdio, answer, Vec::new()).is_empty());
        j.progress(&Value::from("t"), 1800);
        assert!(!j.quiet(2700));
        let t = j.overdue(5000);
        assert_eq!(t[0].id, Id::from(1));
        assert!(t[0].progressed);
    }
}
