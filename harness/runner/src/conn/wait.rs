//! Waiting for the peer: for a message in the inbox, for its exit, or for
//! whatever is already there. Until the target has written its first line,
//! a wait lasts at least until its start-up allowance ends (start-up time is
//! not response time); a wait ends early when the oracle knows the awaited
//! answer will not come (its POST was refused), when the peer went away, or
//! when it flooded the case with violations.

use std::time::Duration;

use mcpspec_wire::Message;
use tokio::time::Instant;

use super::{Conn, Received, WaitError};

/// Events [`Conn::drain_ready`] takes at most.
const DRAIN_MAX: usize = 4096;
/// Longest [`Conn::drain_ready`] waits for a reader that holds received
/// bytes to send their events on. Sending them takes microseconds; a
/// reader is slower only when its thread is not running (a loaded
/// machine) or the target floods.
const SETTLE_MAX: Duration = Duration::from_millis(200);
/// One wait for such a reader's next event.
const SETTLE_POLL: Duration = Duration::from_millis(2);

impl Conn {
    /// A wait's deadline: `base`, or the end of the start-up allowance while
    /// the target has not written a line yet (re-evaluated as lines arrive,
    /// so the first line ends the extension).
    pub(super) fn extended(&self, base: Instant) -> Instant {
        if self.frames == 0 {
            base.max(self.startup_until)
        } else {
            base
        }
    }

    /// Messages received that no step has taken (yet).
    pub fn unconsumed(&self) -> usize {
        self.inbox.len()
    }

    /// Removes and returns the first unconsumed message satisfying `pred`.
    pub fn take(&mut self, pred: impl Fn(&Message) -> bool) -> Option<Received> {
        let i = self.inbox.iter().position(|r| pred(&r.msg))?;
        Some(self.inbox.remove(i))
    }

    /// Waits up to `within` for a message satisfying `pred`, and consumes it.
    /// Until the target has written its first line, the wait lasts at least
    /// until its start-up allowance ends: an interpreter that takes seconds
    /// to start is slow to start, not slow to answer.
    pub async fn wait_for(
        &mut self,
        within: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<Received, WaitError> {
        let i = self.wait_index(within, pred).await?;
        Ok(self.inbox.remove(i))
    }

    /// Waits (as [`Conn::wait_for`]) until a message satisfying `pred` is in
    /// the inbox; its position there.
    pub(super) async fn wait_index(
        &mut self,
        within: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<usize, WaitError> {
        let base = Instant::now() + within;
        loop {
            let deadline = self.extended(base);
            if let Some(i) = self.inbox.iter().position(|r| pred(&r.msg)) {
                return Ok(i);
            }
            if let Some(how) = self.oracle.refused_for(&pred) {
                return Err(WaitError::Refused(how));
            }
            if let Some(how) = &self.exit {
                return Err(WaitError::Exited(how.clone()));
            }
            if self.flooded {
                return Err(WaitError::Invalid);
            }
            // Past the deadline the wait ends, even while events keep coming
            // (a target that floods must not hold a wait forever).
            self.pump(deadline).await;
            if Instant::now() >= deadline {
                return self
                    .inbox
                    .iter()
                    .position(|r| pred(&r.msg))
                    .ok_or(WaitError::Timeout);
            }
        }
    }

    /// Receives every event already waiting, without waiting for more (at
    /// most [`DRAIN_MAX`]: a flooding target always has more waiting).
    /// "Waiting" includes what a reader has already taken off the wire and
    /// not yet sent on (the transport's `inflight`): a second answer
    /// that came in one write with the first is judged in the case whose
    /// first answer it followed, even when the runner got the first before
    /// the reader sent the second (bounded by [`SETTLE_MAX`]).
    pub async fn drain_ready(&mut self) {
        self.drain_settled(|c| c.proc.delivering(), SETTLE_MAX)
            .await;
    }

    /// Receives what is waiting (as [`Conn::drain_ready`]); while nothing
    /// is but `busy` says more is on its way, waits for it, up to `max`.
    async fn drain_settled(&mut self, busy: impl Fn(&Conn) -> bool, max: Duration) {
        let settle_by = Instant::now() + max;
        for _ in 0..DRAIN_MAX {
            if self.pump(Instant::now()).await {
                continue;
            }
            let now = Instant::now();
            if !busy(self) || now >= settle_by || self.exit.is_some() || self.flooded {
                break;
            }
            self.pump((now + SETTLE_POLL).min(settle_by)).await;
        }
    }

    /// Like [`Conn::wait_for`], for an answer that is due at once (the
    /// handshake): once the target has broken a rule while we wait and then
    /// stays quiet for `QUIET`, the broken message was its answer, and
    /// waiting on would only burn the timeout. Ends with
    /// [`WaitError::Invalid`] then.
    pub async fn wait_for_prompt(
        &mut self,
        within: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<Received, WaitError> {
        const QUIET: Duration = Duration::from_millis(250);
        let before = self.violation_count();
        let base = Instant::now() + within;
        loop {
            let slice = self
                .extended(base)
                .saturating_duration_since(Instant::now())
                .min(QUIET);
            match self.wait_for(slice, &pred).await {
                Err(WaitError::Timeout) if Instant::now() < self.extended(base) => {
                    if self.violation_count() > before {
                        return Err(WaitError::Invalid);
                    }
                }
                other => return other,
            }
        }
    }

    /// Where the order of arrival stands now: [`Conn::drain_after`] takes
    /// only what arrives later. Arrival order, not milliseconds: a message
    /// that came just before a step began (in the same millisecond) is not
    /// the step's.
    pub fn mark(&self) -> u64 {
        self.arrived
    }

    /// Absorbs events for `d`, whatever they are, unless a message that
    /// arrives after `mark` satisfies `pred`: then the wait ends with its
    /// arrival (true). Nothing is consumed.
    pub async fn idle_unless(
        &mut self,
        d: Duration,
        mark: u64,
        pred: impl Fn(&Message) -> bool,
    ) -> bool {
        let deadline = Instant::now() + d;
        // Each message is looked at once: the inbox is in arrival order, so
        // what is new since the last look sits at its end.
        let mut looked = mark;
        loop {
            let mut new = self.inbox.iter().rev().take_while(|r| r.seq >= looked);
            if new.any(|r| pred(&r.msg)) {
                return true;
            }
            looked = self.arrived;
            if Instant::now() >= deadline {
                return false;
            }
            if !self.pump(deadline).await && (self.exit.is_some() || self.flooded) {
                tokio::time::sleep_until(deadline).await;
            }
        }
    }

    /// Messages that arrived after `mark` and satisfy `pred`, consumed.
    pub fn drain_after(&mut self, mark: u64, pred: impl Fn(&Message) -> bool) -> Vec<Received> {
        let (hit, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.inbox)
            .into_iter()
            .partition(|r| r.seq >= mark && pred(&r.msg));
        self.inbox = keep;
        hit
    }

    /// Waits up to `within` for the target to exit.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        while self.exit.is_none() && !self.flooded {
            self.pump(deadline).await;
            if Instant::now() >= deadline {
                break;
            }
        }
        self.exit.clone()
    }
}

#[cfg(test)]
mod tests {
    use mcpspec_transport::{CommandSpec, StdioProcess};

    use super::*;

    fn target(script: &str) -> Conn {
        let spec = CommandSpec::new("sh", vec!["-c".to_owned(), script.to_owned()]);
        let proc = StdioProcess::spawn(&spec, 1 << 20).expect("sh starts");
        Conn::new(
            proc,
            mcpspec_engine::Version::ALL[0],
            Duration::from_secs(5),
        )
    }

    fn is_b(m: &Message) -> bool {
        matches!(m, Message::Notification(n) if n.method == "b")
    }

    /// While nothing is waiting but more is on its way, the drain waits
    /// for it.
    #[tokio::test]
    async fn a_drain_waits_while_more_is_on_its_way() {
        let mut conn = target(
            r#"echo '{"jsonrpc":"2.0","method":"a"}'; read x; echo '{"jsonrpc":"2.0","method":"b"}'; exec sleep 5"#,
        );
        conn.wait_for(Duration::from_secs(5), |_| true)
            .await
            .expect("the first line");
        conn.proc.send(b"go\n").await.expect("stdin open");
        // `b` is written only now: a drain that did not wait would miss it.
        conn.drain_settled(
            |c| !c.inbox.iter().any(|r| is_b(&r.msg)),
            Duration::from_secs(10),
        )
        .await;
        assert!(
            conn.take(is_b).is_some(),
            "the drain returned before `b` came"
        );
        conn.proc.kill();
    }

    /// Lines the target writes at once: more than the transport's channel
    /// holds (1024), fewer bytes than a pipe holds (64 KiB).
    const LINES: usize = 1500;

    /// A reader holds what it read until it has sent it on (here: waiting
    /// for room in the channel), and the drain leaves no reader holding
    /// lines: every line written is taken.
    #[tokio::test]
    async fn drain_ready_takes_what_a_reader_already_holds() {
        let dir = std::env::temp_dir().join(format!("mcpspec-drain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("lines");
        let line = "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n";
        std::fs::write(&file, line.repeat(LINES)).expect("lines written");
        let mut conn = target(&format!("cat '{}'; exec sleep 5", file.display()));
        // Blocks the runtime (the reader cannot run): every line is in the
        // pipe before the first read.
        std::thread::sleep(Duration::from_millis(500));
        conn.wait_for(Duration::from_secs(5), |_| true)
            .await
            .expect("a first line");
        assert!(conn.proc.delivering(), "the reader holds lines it read");
        conn.drain_ready().await;
        let taken = 1 + conn.unconsumed();
        assert!(
            !conn.proc.delivering(),
            "drain_ready left a reader holding lines ({taken} taken)"
        );
        assert_eq!(taken, LINES, "every line written was taken");
        conn.proc.kill();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
