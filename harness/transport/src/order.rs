//! Steps do not overtake the POSTs they follow.
//!
//! POSTs run in background tasks (their answers stream in as events), so a
//! scenario's raw exchange — a DELETE, a hand-made POST — could reach the
//! server before a POST the harness sent just before it (say its own
//! `notifications/initialized`), and the server would judge them out of
//! order. [`PostOrder`] counts the POSTs that stopped pending (their
//! response head arrived, they failed, or their task ended); a raw exchange
//! first waits, bounded, until every POST sent before it has.
//!
//! A notification is delivered when the server has accepted it: over HTTP,
//! when its own POST has its response head (the 202). [`Accepted`] waits for
//! that one POST only, never for a request's POST before it, whose head a
//! server may hold back until its answer is ready.
//!
//! Two POSTs travel on two connections, so a cancellation sent well after
//! its request can still reach the server first (a busy server saw a call's
//! POST 480 ms after it was sent, after the cancellation sent 300 ms in),
//! and a server rightly ignores a cancellation of a request it has not
//! seen. A request's POST has reached the server when its response head
//! arrives (a server that answers with an event stream opens it as it takes
//! the request up; the legacy transport's 202 comes at once; a JSON answer's
//! head comes only with the answer, so such waits are bounded): [`Heads`]
//! keeps each POST's [`Accepted`] by number, so that a notification naming
//! a request can wait for that request's POST first.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{oneshot, watch};

/// The count of POSTs that stopped pending, shared with their tasks.
#[derive(Debug, Clone)]
pub(crate) struct PostOrder {
    headed: Arc<watch::Sender<u64>>,
}

/// Held by a POST's task while it waits for its response head; counts the
/// POST as headed when dropped, on every path (an abort included), and
/// releases its [`Accepted`] (the sender's drop is the signal).
pub(crate) struct Pending {
    headed: Arc<watch::Sender<u64>>,
    _accepted: oneshot::Sender<()>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.headed.send_modify(|n| *n += 1);
    }
}

/// Resolves once one POST stopped pending (see [`Pending`]).
#[derive(Debug)]
pub(crate) struct Accepted(oneshot::Receiver<()>);

impl Accepted {
    /// Waits until the POST has its response head (or failed), at most
    /// `within`.
    pub(crate) async fn wait(self, within: Duration) {
        let _ = tokio::time::timeout(within, self.0).await;
    }

    /// Whether the POST has its response head (or failed) already.
    fn is_done(&mut self) -> bool {
        // Nothing is ever sent: the sender's drop (closed) is the signal.
        matches!(
            self.0.try_recv(),
            Err(oneshot::error::TryRecvError::Closed) | Ok(())
        )
    }
}

/// A session's POSTs still waiting for their response head, by number
/// (`Via::Post(n)`).
#[derive(Debug, Default)]
pub(crate) struct Heads(Vec<(u64, Accepted)>);

impl Heads {
    /// POST `n` was sent (those already headed are let go).
    pub(crate) fn push(&mut self, n: u64, accepted: Accepted) {
        self.0.retain_mut(|(_, a)| !a.is_done());
        self.0.push((n, accepted));
    }

    /// Waits until POST `n` has its response head, at most `within`; false
    /// when it had it already (or is unknown).
    pub(crate) async fn wait(&mut self, n: u64, within: Duration) -> bool {
        let Some(i) = self.0.iter().position(|(m, _)| *m == n) else {
            return false;
        };
        let (_, mut accepted) = self.0.swap_remove(i);
        if accepted.is_done() {
            return false;
        }
        accepted.wait(within).await;
        true
    }
}

impl PostOrder {
    pub(crate) fn new() -> Self {
        PostOrder {
            headed: Arc::new(watch::Sender::new(0)),
        }
    }

    /// A POST starts: its task drops the guard once its response head is
    /// in; the sender may wait for that with the [`Accepted`].
    pub(crate) fn pending(&self) -> (Pending, Accepted) {
        let (tx, rx) = oneshot::channel();
        let guard = Pending {
            headed: self.headed.clone(),
            _accepted: tx,
        };
        (guard, Accepted(rx))
    }

    /// Waits until `sent` POSTs have their response head, at most `within`
    /// (a server that holds a POST's head back does not hang the step).
    pub(crate) async fn after(&self, sent: u64, within: Duration) {
        let mut headed = self.headed.subscribe();
        let _ = tokio::time::timeout(within, headed.wait_for(|n| *n >= sent)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_step_waits_for_the_posts_before_it_and_no_longer() {
        let order = PostOrder::new();
        let (first, _) = order.pending();
        let (second, _) = order.pending();
        let waiter = {
            let order = order.clone();
            tokio::spawn(async move { order.after(2, Duration::from_secs(30)).await })
        };
        drop(first);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "one POST is still pending");
        drop(second);
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("released once both are headed")
            .expect("joined");
        // A POST that never gets its head holds a step only as long as allowed.
        let (_stuck, _) = order.pending();
        let started = tokio::time::Instant::now();
        order.after(3, Duration::from_millis(50)).await;
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn heads_wait_for_the_named_post_and_say_whether_they_had_to() {
        let order = PostOrder::new();
        let mut heads = Heads::default();
        let (first, accepted) = order.pending();
        heads.push(1, accepted);
        let (second, accepted) = order.pending();
        heads.push(2, accepted);
        drop(first);
        assert!(
            !heads.wait(1, Duration::from_secs(30)).await,
            "headed already"
        );
        let waiter = tokio::spawn(async move {
            let waited = heads.wait(2, Duration::from_secs(30)).await;
            (waited, heads)
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "POST 2 has no head yet");
        drop(second);
        let (waited, mut heads) = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("released by POST 2's head")
            .expect("joined");
        assert!(waited);
        assert!(
            !heads.wait(3, Duration::from_secs(30)).await,
            "no such POST"
        );
    }

    #[tokio::test]
    async fn a_notification_waits_for_its_own_post_only() {
        let order = PostOrder::new();
        // A request's POST whose head the server holds back.
        let (_held, _) = order.pending();
        let (notification, accepted) = order.pending();
        let waiter = tokio::spawn(accepted.wait(Duration::from_secs(30)));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "its POST is still pending");
        drop(notification);
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("released by its own POST, the held one notwithstanding")
            .expect("joined");
        // Bounded like every wait on the target.
        let (_stuck, accepted) = order.pending();
        let started = tokio::time::Instant::now();
        accepted.wait(Duration::from_millis(50)).await;
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
