//! A per-target connection limit that backs off (`--max-connections`).
//!
//! The runner holds one [`ConnPermit`] per live HTTP session against the
//! target (one case); the HTTP client tells the limit how the target
//! answers. A refused connection or a 429/503 ([`ConnLimit::overloaded`])
//! halves the limit (at most once per [`COOL_DOWN`], so one burst of
//! refusals counts once); answers that come ([`ConnLimit::answered`]) raise
//! it by one per limit's worth of them, back up to the maximum: additive
//! increase, multiplicative decrease, as TCP does. Sessions already open
//! are not cut when the limit drops: new ones wait until enough have ended.
//!
//! The POST (or a scenario's raw exchange) that was refused is sent again
//! after a pause ([`ConnLimit::retry_after`]), so a slow target is not
//! turned into failures by the harness; see `streamable::post` and
//! `HttpSession::exchange`. A 429/503 says the request was not processed
//! (RFC 9110 §15.6.4), so sending it again changes nothing the oracle
//! judges; no scenario expects either status. The legacy HTTP+SSE client
//! does not retry: its cases are bounded by the limit, nothing more.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// The shortest time between two halvings of the limit.
pub const COOL_DOWN: Duration = Duration::from_millis(100);
/// How often one refused POST is sent again before the refusal stands.
pub const RETRIES: u32 = 8;
/// The longest pause before a retry (a `Retry-After` asking for more is
/// capped: a case has its own timeout).
pub const RETRY_MAX: Duration = Duration::from_secs(2);
/// `--max-connections`' default. A case over HTTP that waits (a silence
/// window, a slow call) costs the target a session and the harness its
/// connection's buffers. At 64 the suite's cases that wait half a second
/// or more queued behind one another; since windows whose verdict is
/// settled end early, fewer live cases keep the run at its critical path.
/// bench/speed.sh's HTTP line against server-everything (medians of three
/// runs, the same build): at 128, 2.69 s wall (1.04 × its longest case)
/// and 25.6 MB peak RSS; at 96, 2.58 s (1.13 ×) and 23.1 MB. A busy target
/// is met by the back-off below, not by a low ceiling.
pub const DEFAULT_MAX: usize = 96;

#[derive(Debug)]
pub struct ConnLimit {
    max: usize,
    state: Mutex<State>,
    freed: Notify,
}

#[derive(Debug)]
struct State {
    limit: usize,
    in_use: usize,
    /// Answers since the limit last rose.
    answered: usize,
    last_cut: Option<Instant>,
    /// Every halving, for the run's record and the tests.
    cuts: u64,
    /// Whether the target ever answered.
    reached: bool,
}

/// One live session's share of the limit; given back when dropped.
#[derive(Debug)]
pub struct ConnPermit(Arc<ConnLimit>);

impl Drop for ConnPermit {
    fn drop(&mut self) {
        if let Ok(mut s) = self.0.state.lock() {
            s.in_use = s.in_use.saturating_sub(1);
        }
        self.0.freed.notify_waiters();
    }
}

impl ConnLimit {
    pub fn new(max: usize) -> Arc<Self> {
        let max = max.max(1);
        Arc::new(ConnLimit {
            max,
            state: Mutex::new(State {
                limit: max,
                in_use: 0,
                answered: 0,
                last_cut: None,
                cuts: 0,
                reached: false,
            }),
            freed: Notify::new(),
        })
    }

    /// The ceiling (`--max-connections`).
    pub fn max(&self) -> usize {
        self.max
    }

    /// The limit now (between 1 and [`ConnLimit::max`]).
    pub fn current(&self) -> usize {
        self.state.lock().map_or(1, |s| s.limit)
    }

    /// Whether the target has answered at all (a refused connection before
    /// that says it is down, not busy).
    pub fn reached(&self) -> bool {
        self.state.lock().is_ok_and(|s| s.reached)
    }

    /// How often the limit was halved.
    pub fn cuts(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.cuts)
    }

    /// Waits until fewer sessions than the limit are live.
    pub async fn acquire(self: &Arc<Self>) -> ConnPermit {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so a release in between wakes it.
            freed.as_mut().enable();
            {
                let mut s = match self.state.lock() {
                    Ok(s) => s,
                    Err(poisoned) => poisoned.into_inner(),
                };
                if s.in_use < s.limit {
                    s.in_use += 1;
                    return ConnPermit(Arc::clone(self));
                }
            }
            freed.await;
        }
    }

    /// The target refused a connection or answered 429/503: halve the limit.
    pub fn overloaded(&self) {
        if let Ok(mut s) = self.state.lock() {
            let now = Instant::now();
            if s.last_cut
                .is_some_and(|t| now.duration_since(t) < COOL_DOWN)
            {
                return;
            }
            s.limit = (s.limit / 2).max(1);
            s.answered = 0;
            s.last_cut = Some(now);
            s.cuts += 1;
        }
    }

    /// The target answered (any status but 429/503): one step back up.
    pub fn answered(&self) {
        let mut raised = false;
        if let Ok(mut s) = self.state.lock() {
            s.reached = true;
            if s.limit < self.max {
                s.answered += 1;
                if s.answered >= s.limit {
                    s.limit += 1;
                    s.answered = 0;
                    raised = true;
                }
            }
        }
        if raised {
            self.freed.notify_waiters();
        }
    }

    /// The pause before sending refused request number `attempt` (0-based)
    /// again: 50 ms doubling, or longer when `Retry-After` asks for more
    /// (`Retry-After: 0` is no reason to hammer a busy target), at most
    /// [`RETRY_MAX`]; then up to a quarter more, so that the sessions
    /// refused together do not come back together.
    pub fn retry_after(attempt: u32, asked: Option<Duration>) -> Duration {
        let backoff = Duration::from_millis(50) * 2u32.saturating_pow(attempt.min(10));
        let base = asked.map_or(backoff, |a| a.max(backoff)).min(RETRY_MAX);
        base + base.mul_f64(jitter() / 4.0)
    }
}

/// When a POST's outcome is a refusal worth sending again (the connection
/// refused, or 429/503) and `attempt` retries are not yet spent: the pause
/// before the next (what `Retry-After` asks, in seconds, capped). A refused
/// connection counts only once the target has answered in this run: one
/// that never did is down, not busy, and is said so at once.
pub(crate) fn refused_post(
    limit: &ConnLimit,
    sent: &Result<Result<reqwest::Response, reqwest::Error>, tokio::time::error::Elapsed>,
    attempt: u32,
) -> Option<Duration> {
    if attempt >= RETRIES {
        return None;
    }
    match sent {
        Ok(Ok(resp)) if is_refusal(resp.status().as_u16()) => {
            let asked = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(retry_after_secs);
            Some(ConnLimit::retry_after(attempt, asked))
        }
        Ok(Err(e)) if e.is_connect() && !e.is_timeout() && limit.reached() => {
            Some(ConnLimit::retry_after(attempt, None))
        }
        _ => None,
    }
}

/// After a raw exchange's `answer` (status, `Retry-After`; `None`: no
/// answer came): when it was a refusal worth sending again, tells `limit`,
/// waits the pause and says so (true); else counts the answer (false).
pub(crate) async fn wait_if_busy(
    limit: Option<&ConnLimit>,
    answer: Option<(u16, Option<&str>)>,
    attempt: u32,
) -> bool {
    let (Some(limit), Some((status, asked))) = (limit, answer) else {
        return false;
    };
    if !is_refusal(status) || attempt >= RETRIES {
        limit.answered();
        return false;
    }
    limit.overloaded();
    let asked = asked.and_then(retry_after_secs);
    tokio::time::sleep(ConnLimit::retry_after(attempt, asked)).await;
    true
}

/// A `Retry-After` given in seconds (an HTTP date is not honoured: the
/// doubling pause stands).
pub(crate) fn retry_after_secs(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// A number in [0, 1) that differs from call to call (no need for a good
/// random source: it only spreads retries apart).
fn jitter() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::from(d.subsec_nanos()));
    // A multiplicative hash of both (Knuth's constant), its top 53 bits.
    let h = (n ^ nanos).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether an HTTP status says "too busy, try again": 429 or 503.
pub fn is_refusal(status: u16) -> bool {
    matches!(status, 429 | 503)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn halves_on_refusal_and_recovers_on_answers() {
        let l = ConnLimit::new(8);
        l.overloaded();
        assert_eq!(l.current(), 4);
        // A burst of refusals counts once.
        l.overloaded();
        assert_eq!(l.current(), 4);
        for _ in 0..4 {
            l.answered();
        }
        assert_eq!(l.current(), 5);
        for _ in 0..100 {
            l.answered();
        }
        assert_eq!(l.current(), 8);
        assert_eq!(l.cuts(), 1);
    }

    #[tokio::test]
    async fn waits_while_the_limit_is_reached() {
        let l = ConnLimit::new(1);
        let held = l.acquire().await;
        let l2 = Arc::clone(&l);
        let waiter = tokio::spawn(async move { l2.acquire().await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !waiter.is_finished(),
            "a second session got past a limit of 1"
        );
        drop(held);
        let got = tokio::time::timeout(Duration::from_secs(5), waiter).await;
        assert!(matches!(got, Ok(Ok(_))), "the freed slot was not handed on");
    }

    #[test]
    fn retry_pauses_grow_and_are_capped() {
        let within = |d: Duration, base: Duration| d >= base && d <= base + base / 4;
        let ms = Duration::from_millis;
        assert!(within(ConnLimit::retry_after(0, None), ms(50)));
        assert!(within(ConnLimit::retry_after(2, None), ms(200)));
        assert!(within(ConnLimit::retry_after(9, None), RETRY_MAX));
        assert!(within(ConnLimit::retry_after(0, Some(ms(0))), ms(50)));
        assert!(within(ConnLimit::retry_after(0, Some(ms(1000))), ms(1000)));
        assert!(within(
            ConnLimit::retry_after(0, Some(Duration::from_secs(60))),
            RETRY_MAX
        ));
    }
}
