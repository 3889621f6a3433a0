//! The session's bytes on their way out, and each POST's exchange coming
//! back: the one oracle is told of every POST as it starts and of every
//! byte once delivered; a recorded exchange goes, with what the oracle
//! found in it, to the judge, and a POST of the driver's own that cannot
//! reach the server, or is answered 404, ends the session.

use mcpspec_engine::Violation;
use mcpspec_transport::HttpRecord;
use mcpspec_wire::Id;
use tokio::time::Instant;

use super::Session;
use crate::oracle::Verdict;
use crate::post::Shape;

/// What one HTTP POST of the session carried, until its exchange is recorded.
#[derive(Debug, Clone)]
pub(super) enum Sent {
    /// The driver's own (the handshake, the sync ping, an answer).
    Own,
    /// A notification of the handshake, or an input's body: judged.
    Judged {
        exec: Option<u64>,
        shape: Shape,
        /// The requests it carried (refused together by a 4xx).
        ids: Vec<Id>,
    },
}

impl Session {
    /// Writes bytes (stdio) or POSTs one body exactly (HTTP: the transport
    /// strips the `\r\n` added here); returns the POST's number.
    /// The oracle is told of the POST as it starts, and of the bytes once
    /// delivered (observing what this side sends never yields a violation).
    pub(super) async fn write(&mut self, bytes: &[u8], sent: Sent) -> Result<u64, ()> {
        let now = self.now_ms();
        if !self.framing.is_http() {
            self.conn.send(bytes).await.map_err(|_| ())?;
            let _ = self.feed.sent(now, bytes);
            return Ok(0);
        }
        let mut body = bytes.to_vec();
        body.extend_from_slice(b"\r\n");
        let _ = self.feed.posted(now, &body);
        match self.conn.send(&body).await {
            Ok(()) => {
                let _ = self.feed.sent(now, bytes);
                self.posts += 1;
                self.pending.insert(self.posts, sent);
                Ok(self.posts)
            }
            Err(_) => Err(()),
        }
    }

    /// HTTP: handles events until POST `n` has been recorded or `deadline`.
    pub(super) async fn await_record(
        &mut self,
        n: u64,
        deadline: Instant,
        verdicts: &mut Vec<Verdict>,
    ) {
        while self.pending.contains_key(&n) && self.pump(deadline, verdicts).await {}
    }

    /// HTTP: the exchange of POST `n` was recorded.
    pub(super) fn recorded(
        &mut self,
        n: u64,
        record: &HttpRecord,
        found: Vec<Violation>,
        verdicts: &mut Vec<Verdict>,
    ) {
        let Some(sent) = self.pending.remove(&n) else {
            return;
        };
        match &sent {
            Sent::Own => verdicts.extend(self.judge.exchange(None, record, None, found)),
            Sent::Judged { exec, shape, .. } => {
                verdicts.extend(self.judge.exchange(Some(*shape), record, *exec, found));
            }
        }
        match (sent, record.status) {
            (Sent::Own, None) => {
                let error = record.error.clone().unwrap_or_default();
                // A POST that got no headers in time is the ping oracle's.
                if !error.starts_with("no response headers") {
                    let how = format!("the server could not be reached ({error})");
                    self.ended(how, true, verdicts);
                }
            }
            (Sent::Own, Some(404)) => {
                let how = "the server ended the session (a POST of the driver's own → HTTP 404)";
                self.ended(how.to_owned(), false, verdicts);
            }
            (Sent::Own, Some(s)) if s >= 400 => self.own_refused = Some(s),
            (Sent::Own, Some(_)) => {}
            (Sent::Judged { ids, .. }, _) => {
                if record.status.is_some_and(|s| (400..500).contains(&s)) {
                    self.judge.refused(&ids);
                }
            }
        }
    }
}
