//! Delayed work, driven by `now_ms` alone: the `slow` tool's progress steps
//! and completion, counter-change notifications for subscribers, and batches
//! that wait for a deferred answer.
//!
//! ```text
//!  slow call (duration D, N steps), started at t0:
//!    t0 + D·1/N  progress 1/N ─┐
//!    t0 + D·2/N  progress 2/N  │ only with a progressToken
//!    …                         │
//!    t0 + D      progress N/N ─┘ then the response
//!  notifications/cancelled {requestId} at any point: dropped, never answered
//!  (faults: `cancel-all` drops every call in flight; `progress-after-cancel`
//!  keeps reporting progress and only withholds the response)
//!
//!  counter: while mcpspec://counter is subscribed, one
//!    notifications/resources/updated at each 250 ms boundary: untagged for
//!    resources/subscribe, and one per subscriptions/listen stream that
//!    honours the URI, tagged with its id (`listen`)
//! ```
//!
//! Events are handled in time order; when the driver is late, a slow call
//! catches up step by step, while counter changes are coalesced into one
//! notification.

use mcpspec_engine::Version;
use mcpspec_wire::{Id, Message};
use serde_json::{json, Value};

use crate::fault::Fault;
use crate::outbox::Outbox;
use crate::resources::{COUNTER_PERIOD_MS, COUNTER_URI};
use crate::server::{ReferenceServer, SERVER_NAME};
use crate::tools;

/// An in-flight call of the `slow` tool.
#[derive(Debug, Clone)]
pub(crate) struct SlowCall {
    pub id: Id,
    pub token: Option<Value>,
    pub version: Version,
    pub start_ms: u64,
    pub duration_ms: u64,
    pub steps: u64,
    /// Progress steps already reported.
    pub done: u64,
    /// The batch waiting for this answer, if it came in one.
    pub batch: Option<u64>,
    /// Cancelled, but still running (the `progress-after-cancel` fault):
    /// progress goes on, the response is never sent.
    pub cancelled: bool,
}

impl SlowCall {
    /// When the next step (or, with no steps, the completion) is due.
    fn next_at(&self) -> u64 {
        if self.steps == 0 {
            return self.start_ms.saturating_add(self.duration_ms);
        }
        // duration ≤ 60 000 ms and steps ≤ 100: no overflow.
        self.start_ms + self.duration_ms * (self.done + 1) / self.steps
    }
}

/// A batch whose array is held back until its deferred answers are in.
#[derive(Debug, Clone)]
pub(crate) struct PendingBatch {
    pub id: u64,
    pub entries: Vec<Message>,
    pub waiting: Vec<Id>,
}

impl ReferenceServer {
    #[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
    pub(crate) fn start_slow(
        &mut self,
        id: Id,
        token: Option<Value>,
        now_ms: u64,
        duration_ms: u64,
        steps: u64,
        batch: Option<u64>,
        version: Version,
    ) {
        self.calls.push(SlowCall {
            id,
            token,
            version,
            start_ms: now_ms,
            duration_ms,
            steps,
            done: 0,
            batch,
            cancelled: false,
        });
    }

    pub(crate) fn timers_deadline(&self) -> Option<u64> {
        self.calls
            .iter()
            .map(SlowCall::next_at)
            .chain(self.counter_next)
            .min()
    }

    /// Starts or stops counter notifications to match the subscriptions
    /// (`resources/subscribe`, and `subscriptions/listen` streams).
    pub(crate) fn update_counter_timer(&mut self, now_ms: u64) {
        if self.subscriptions.contains(COUNTER_URI) || self.listened(COUNTER_URI) {
            if self.counter_next.is_none() {
                self.counter_next = Some(next_boundary(now_ms));
            }
        } else {
            self.counter_next = None;
        }
    }

    pub(crate) fn run_timers(&mut self, now_ms: u64, out: &mut Outbox) {
        while let Some(due) = self.timers_deadline().filter(|t| *t <= now_ms) {
            if self.counter_next == Some(due) {
                if self.subscriptions.contains(COUNTER_URI) {
                    out.send(&Message::notification(
                        "notifications/resources/updated",
                        Some(json!({ "uri": COUNTER_URI })),
                    ));
                }
                self.deliver_update(COUNTER_URI, out);
                self.counter_next = Some(next_boundary(now_ms));
                continue;
            }
            let Some(index) = self.calls.iter().position(|c| c.next_at() == due) else {
                break; // unreachable: `due` came from one of the calls
            };
            self.step(index, out);
        }
    }

    /// One event of call `index`: a progress step, and the answer after the last.
    fn step(&mut self, index: usize, out: &mut Outbox) {
        let call = &mut self.calls[index];
        if call.steps > 0 {
            call.done += 1;
            let call = call.clone();
            if let Some(token) = &call.token {
                let copies = if call.done == 1 && self.faults.has(Fault::ProgressNotIncreasing) {
                    2
                } else {
                    1
                };
                for _ in 0..copies {
                    out.send(&self.progress(&call, token, call.done));
                }
            }
            if call.done < call.steps {
                return;
            }
        }
        let call = self.calls.remove(index);
        if call.cancelled {
            return;
        }
        let mut result = tools::slow_result(call.duration_ms, call.steps);
        tools::apply_result_faults(&mut result, self.faults);
        if call.version >= Version::V2026_07_28 {
            result = self.stateless_result("tools/call", result);
        }
        let result = Ok(result);
        for _ in 0..self.copies("tools/call") {
            self.deliver(
                call.batch,
                &call.id,
                self.response(call.id.clone(), result.clone()),
                out,
            );
        }
        if let (Some(token), true) = (&call.token, self.faults.has(Fault::ProgressAfterResponse)) {
            out.send(&self.progress(&call, token, call.steps + 1));
        }
    }

    fn progress(&self, call: &SlowCall, token: &Value, progress: u64) -> Message {
        let token = if self.faults.has(Fault::WrongProgressToken) {
            let text = token
                .as_str()
                .map_or_else(|| token.to_string(), str::to_owned);
            Value::String(format!("{text}-not-yours"))
        } else {
            token.clone()
        };
        let mut params = json!({ "progressToken": token, "progress": progress });
        // The late step of `progress-after-response` is past the total;
        // leaving the total out keeps that notification otherwise valid.
        if progress <= call.steps {
            params["total"] = Value::from(call.steps);
        }
        if call.version >= Version::V2025_03_26 {
            params["message"] = Value::from(format!("step {progress} of {}", call.steps));
        }
        Message::notification("notifications/progress", Some(params))
    }

    /// Sends a deferred answer, or files it with its batch.
    pub(crate) fn deliver(&mut self, batch: Option<u64>, id: &Id, msg: Message, out: &mut Outbox) {
        let Some(b) = batch.and_then(|b| self.batches.iter().position(|p| p.id == b)) else {
            out.send(&msg);
            return;
        };
        self.batches[b].entries.push(msg);
        self.batches[b].waiting.retain(|w| w != id);
        self.flush_batch(b, out);
    }

    /// Sends batch `b` once nothing in it is awaited any more.
    fn flush_batch(&mut self, b: usize, out: &mut Outbox) {
        if self.batches[b].waiting.is_empty() {
            let batch = self.batches.remove(b);
            if !batch.entries.is_empty() {
                out.send_batch(&batch.entries);
            }
        }
    }

    /// `notifications/cancelled`: drop the call (or end the listen stream);
    /// it is never answered.
    pub(crate) fn cancel(&mut self, now_ms: u64, params: Option<&Value>, out: &mut Outbox) {
        let id = match params.and_then(|p| p.get("requestId")) {
            Some(Value::String(s)) => Id::String(s.clone()),
            Some(Value::Number(n)) if !n.is_f64() => Id::Number(n.clone()),
            _ => {
                out.stderr(format!(
                    "{SERVER_NAME}: ignoring a cancellation without a usable requestId"
                ));
                return;
            }
        };
        if self.end_listen(&id, now_ms) {
            out.stderr(format!(
                "{SERVER_NAME}: subscription {id} ended by the client"
            ));
            return;
        }
        if let Some(batch) = self.drop_ask(&id) {
            out.stderr(format!(
                "{SERVER_NAME}: call {id} cancelled while it waited for the client"
            ));
            self.release_from_batch(batch, &id, out);
            return;
        }
        let Some(index) = self.calls.iter().position(|c| c.id == id && !c.cancelled) else {
            // Unknown, already answered, or not cancellable (initialize): ignore.
            if self.faults.has(Fault::LateCancelWedges) {
                out.stderr(format!(
                    "{SERVER_NAME}: cancellation of {id}, which is not in flight: answering nothing from now on (fault late-cancel-wedges)"
                ));
                self.wedged = true;
                return;
            }
            out.stderr(format!(
                "{SERVER_NAME}: ignoring cancellation of {id}: not in flight"
            ));
            return;
        };
        if self.faults.has(Fault::IgnoreCancellation) {
            out.stderr(format!(
                "{SERVER_NAME}: ignoring cancellation of {id} (fault ignore-cancellation)"
            ));
            return;
        }
        if self.faults.has(Fault::AnswerCancelled) {
            out.stderr(format!(
                "{SERVER_NAME}: answering cancelled request {id} with an error (fault answer-cancelled)"
            ));
            let call = self.calls.remove(index);
            let answer = Message::error(Some(id.clone()), -32800, "Request cancelled", None);
            self.deliver(call.batch, &id, answer, out);
            return;
        }
        if self.faults.has(Fault::ProgressAfterCancel) {
            out.stderr(format!(
                "{SERVER_NAME}: withholding the response to {id} but working on (fault progress-after-cancel)"
            ));
            self.calls[index].cancelled = true;
            let batch = self.calls[index].batch;
            self.release_from_batch(batch, &id, out);
            return;
        }
        let dropped: Vec<SlowCall> = if self.faults.has(Fault::CancelAll) {
            out.stderr(format!(
                "{SERVER_NAME}: dropping every request in flight on cancellation of {id} (fault cancel-all)"
            ));
            std::mem::take(&mut self.calls)
        } else {
            vec![self.calls.remove(index)]
        };
        for call in dropped {
            out.stderr(format!("{SERVER_NAME}: cancelled request {}", call.id));
            self.release_from_batch(call.batch, &call.id, out);
        }
    }

    /// A batch no longer waits for the answer to `id`, which will not come.
    fn release_from_batch(&mut self, batch: Option<u64>, id: &Id, out: &mut Outbox) {
        if let Some(b) = batch.and_then(|b| self.batches.iter().position(|p| p.id == b)) {
            self.batches[b].waiting.retain(|w| w != id);
            self.flush_batch(b, out);
        }
    }
}

/// The first counter change strictly after `now_ms`.
fn next_boundary(now_ms: u64) -> u64 {
    (now_ms / COUNTER_PERIOD_MS + 1) * COUNTER_PERIOD_MS
}
