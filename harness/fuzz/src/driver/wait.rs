//! Waiting for owed answers ([`crate::oracle::wait`] says how long): the
//! sync ping after each input, which also tells the judge the target is
//! alive; the end of a wait (a note, a cancellation); and the drain at the
//! end of a run, which asks a silent target with a ping whether it is
//! still there before waiting on.

use std::time::Duration;

use mcpspec_wire::Message;
use tokio::time::Instant;

use super::http::Sent;
use super::{attribute, Session};
use crate::oracle::{TimedOut, Verdict};
use crate::post::Shape;

impl Session {
    /// The sync ping (after `prefix`, in the same write), then the owed
    /// requests waited for to the end.
    pub(super) async fn sync(
        &mut self,
        mut verdicts: Vec<Verdict>,
        prefix: &[u8],
        exec: u64,
    ) -> Vec<Verdict> {
        match self.call_after(prefix, "ping", "ping", None).await {
            Err(v) => verdicts.extend(v),
            Ok(Message::Response(r)) => {
                if let Err(e) = &r.outcome {
                    verdicts.push(self.ping_refused(e.code));
                }
            }
            Ok(_) => {}
        }
        verdicts.append(&mut self.carry);
        self.expire(&mut verdicts).await;
        attribute(verdicts, exec)
    }

    /// Owed requests waited for to the bound: noted, cancelled, and no
    /// longer waited for.
    pub(super) async fn expire(&mut self, verdicts: &mut Vec<Verdict>) {
        let now = self.now_ms();
        for t in self.judge.overdue(now) {
            self.give_up(t, verdicts).await;
        }
    }

    /// Stops waiting for a request, as a sender should: with a cancellation.
    pub(super) async fn give_up(&mut self, t: TimedOut, verdicts: &mut Vec<Verdict>) {
        if let Some(cancel) = t.cancellation() {
            let mut line = cancel.to_json();
            if self.framing.is_http() {
                let sent = Sent::Judged {
                    exec: t.exec,
                    shape: Shape::Quiet,
                    ids: Vec::new(),
                };
                if let Ok(n) = self.write(line.as_bytes(), sent).await {
                    let deadline = Instant::now() + self.timeout;
                    self.await_record(n, deadline, verdicts).await;
                }
            } else {
                line.push('\n');
                let _ = self.write(line.as_bytes(), Sent::Own).await;
            }
        }
        self.timed_out.push(t);
    }

    /// Waits for every owed answer: as long as the target shows signs of
    /// life (asked with a ping when it is silent for a timeout), up to the
    /// bound; returns what tripped.
    pub async fn drain(&mut self) -> Vec<Verdict> {
        self.drain_until(None).await
    }

    /// [`Session::drain`], but waiting no later than `cutoff` (the end of a
    /// run's `--duration`, and a timeout of grace): what is still owed then
    /// is given up as at `--max-wait` (noted, cancelled), so an unanswered
    /// request cannot stretch the run by `--max-wait`.
    pub async fn drain_until(&mut self, cutoff: Option<Instant>) -> Vec<Verdict> {
        let mut verdicts = self.settle().await;
        while self.judge.owed() > 0 && self.exit.is_none() {
            self.expire(&mut verdicts).await;
            let Some(due) = self.judge.next_deadline() else {
                break;
            };
            let wait = Duration::from_millis(due.saturating_sub(self.now_ms()) + 1);
            let mut deadline = Instant::now() + wait;
            if let Some(c) = cutoff {
                deadline = deadline.min(c);
            }
            while self.pump(deadline, &mut verdicts).await && self.judge.owed() > 0 {}
            if cutoff.is_some_and(|c| Instant::now() >= c) {
                let now = self.now_ms();
                for t in self.judge.abandon(now) {
                    self.give_up(t, &mut verdicts).await;
                }
                break;
            }
            if self.exit.is_none() && self.judge.quiet(self.now_ms()) {
                // Silent for a timeout: still there? (Its answer is a frame: alive.)
                match self.call("ping", "ping", None).await {
                    Ok(Message::Response(r)) if r.is_error() => {
                        let code = r.error().map_or(0, |e| e.code);
                        verdicts.push(self.ping_refused(code));
                        break;
                    }
                    Ok(_) => {}
                    Err(v) => {
                        verdicts.extend(v);
                        break;
                    }
                }
            }
        }
        self.expire(&mut verdicts).await;
        verdicts
    }

    /// The requests waited for to the end without an answer since the
    /// last call: notes of the run, not findings.
    pub fn take_timeouts(&mut self) -> Vec<TimedOut> {
        std::mem::take(&mut self.timed_out)
    }
}
