//! When an answer to a request this side cancelled breaks
//! `cancellation.no-response`, and when it may have crossed the
//! cancellation on its way (the race the spec allows:
//! basic/utilities/cancellation#timing-considerations).
//!
//! Two moments decide it. Neither is the moment the cancellation was
//! *sent*: over HTTP a cancellation travels on its own POST, which a busy
//! server may take up seconds after the call's answer left.
//!
//! - **Delivery**: from when the peer has the cancellation. Over stdio, and
//!   when this side is the server, that is the write. A client over HTTP
//!   learns it from the response head of the POST that carried it
//!   ([`Session::cancellation_delivered`]); until then it is unknown.
//! - **The natural end**, when this side knows one: the request cannot be
//!   answered on its own sooner (a scenario's slow call, which runs two
//!   seconds: [`Session::lasts`]).
//!
//! | the answer arrives | verdict |
//! |---|---|
//! | before the cancellation was sent (and was read before it) | undecided: nothing to judge |
//! | before the cancellation was sent (read after it) | undecided: they crossed |
//! | before the natural end | a violation: only the cancellation can have ended it early |
//! | later than [`CROSSING_MS`] after delivery | a violation: the peer had the cancellation and answered anyway |
//! | otherwise (delivery unknown, or not long before) | undecided: it may have crossed the cancellation ([`Undecided`]) |
//!
//! Wherever the answer leaves `cancellation.no-response` undecided, it
//! leaves `cancellation.stop-processing` undecided too ([`nothing_to_stop`]):
//! the request may have been done before the cancellation reached the peer,
//! so what the peer did after it (progress going on, say) tells nothing of
//! whether it stops cancelled work. A silence window timed from the
//! cancellation's delivery would otherwise pass on a call already over.

use crate::catalogue::ids;
use crate::requirement::Requirement;

/// An answer arriving within this many milliseconds of the cancellation's
/// delivery may have left the peer before the cancellation reached it (or
/// been under way inside it): it is not judged.
const CROSSING_MS: u64 = 500;

/// A rule the traffic could not decide, with why: no violation, and no
/// pass either. A case whose own requirement is left undecided did not
/// judge it.
#[derive(Debug, Clone, PartialEq)]
pub struct Undecided {
    pub requirement: &'static Requirement,
    /// What happened, in a sentence fragment.
    pub detail: String,
    pub at_ms: u64,
}

/// This side's cancellation of one of its requests.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cancel {
    /// When it was sent.
    pub sent_ms: u64,
    /// From when the peer has it, once known.
    pub delivered_ms: Option<u64>,
}

/// How an answer to a cancelled request is judged.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    Violation(String),
    Undecided(String),
}

/// The requirement these verdicts are about.
pub(super) const RULE: &Requirement = &ids::CANCELLATION_NO_RESPONSE;

/// The rule a cancellation that may have come too late leaves undecided
/// beside [`RULE`].
const STOP: &Requirement = &ids::CANCELLATION_STOP_PROCESSING;

/// Judges an answer arriving at `now` to a request cancelled as `cancel`,
/// which could not have ended on its own before `natural_end` (when known).
/// `what` names the request: `tools/call (id 3)`.
pub(super) fn judge(cancel: Cancel, natural_end: Option<u64>, now: u64, what: &str) -> Verdict {
    let sent = cancel.sent_ms;
    if now < sent {
        // Read after the cancellation went, but it had arrived before.
        return Verdict::Undecided(format!(
            "{what} was answered at {now}ms, before its cancellation was sent (at {sent}ms)"
        ));
    }
    if let Some(end) = natural_end.filter(|end| now < *end) {
        return Verdict::Violation(format!(
            "{what} was answered {}ms after its cancellation was sent, before it could have \
             ended on its own (not before {end}ms): the answer was the cancellation's doing",
            now.saturating_sub(sent)
        ));
    }
    match cancel.delivered_ms {
        Some(at) if now >= at + CROSSING_MS => Verdict::Violation(format!(
            "{what} was answered {}ms after its cancellation reached the peer (at {at}ms)",
            now - at
        )),
        Some(at) => Verdict::Undecided(format!(
            "{what} was answered {}ms after its cancellation reached the peer (at {at}ms), \
             within the {CROSSING_MS}ms an answer already on its way may take: it may have \
             crossed the cancellation",
            now.saturating_sub(at)
        )),
        None => Verdict::Undecided(format!(
            "{what} was answered before its cancellation (sent at {sent}ms) was known to \
             have reached the peer: they may have crossed"
        )),
    }
}

/// A cancellation of request `id` that this side sent after the answer
/// had come: neither rule had anything left to judge.
pub(super) fn after_the_answer(id: &mcpspec_wire::Id, now: u64) -> [Undecided; 2] {
    let detail = format!("request {id} was cancelled after its answer had come: nothing to judge");
    [
        Undecided {
            requirement: RULE,
            detail: detail.clone(),
            at_ms: now,
        },
        Undecided {
            requirement: STOP,
            detail,
            at_ms: now,
        },
    ]
}

/// `what`, answered at `now` in a way [`judge`] leaves undecided, may have
/// been done before its cancellation reached the peer: whether the peer
/// stops cancelled work is not judged on it either.
pub(super) fn nothing_to_stop(what: &str, now: u64) -> Undecided {
    Undecided {
        requirement: STOP,
        detail: format!(
            "{what} was answered at {now}ms, perhaps before its cancellation reached the peer: \
             nothing may have been left to stop"
        ),
        at_ms: now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cancel(sent_ms: u64, delivered_ms: Option<u64>) -> Cancel {
        Cancel {
            sent_ms,
            delivered_ms,
        }
    }

    fn violation(v: &Verdict) -> bool {
        matches!(v, Verdict::Violation(_))
    }

    #[test]
    fn an_answer_before_the_natural_end_is_the_cancellations_doing() {
        // Cancelled at 300 ms, answered at once: the call lasts until 2 s.
        let v = judge(cancel(300, None), Some(2000), 310, "tools/call (id 2)");
        assert!(violation(&v), "{v:?}");
        // Without a known natural end the same answer may have crossed.
        let v = judge(cancel(300, Some(300)), None, 310, "tools/call (id 2)");
        assert!(!violation(&v), "{v:?}");
        // An answer that arrived before the cancellation went, read only
        // after it, did not end the call early: it crossed.
        let v = judge(cancel(300, Some(300)), Some(2000), 120, "tools/call (id 2)");
        assert!(matches!(v, Verdict::Undecided(_)), "{v:?}");
    }

    #[test]
    fn the_crossing_window_opens_at_delivery_not_at_sending() {
        // Sent at 353 ms, its POST accepted at 2858 ms; the call's own
        // answer left at its natural end (2 s): a crossing, not a violation.
        let v = judge(
            cancel(353, Some(2858)),
            Some(2000),
            2218,
            "tools/call (id 2)",
        );
        assert!(matches!(v, Verdict::Undecided(_)), "{v:?}");
        // The same answer while delivery is still unknown: undecided too.
        let v = judge(cancel(353, None), Some(2000), 2218, "tools/call (id 2)");
        assert!(matches!(v, Verdict::Undecided(_)), "{v:?}");
        // Delivered at 300 ms: an answer at 2 s ignored it.
        let v = judge(
            cancel(300, Some(300)),
            Some(2000),
            2003,
            "tools/call (id 2)",
        );
        assert!(violation(&v), "{v:?}");
        // The window's edge belongs to the violation.
        let v = judge(cancel(0, Some(100)), None, 100 + CROSSING_MS, "ping (id 1)");
        assert!(violation(&v), "{v:?}");
        let v = judge(cancel(0, Some(100)), None, 99 + CROSSING_MS, "ping (id 1)");
        assert!(!violation(&v), "{v:?}");
    }
}
