//! The driver's own requests (`initialize`, its lists, the sync ping):
//! sent, and waited for — the handshake with the start-up timeout, the sync
//! ping for `--timeout` (an unanswered or refused ping is the `ping`
//! oracle's), a list as long as any owed answer (`--max-wait`, then a note).

use mcpspec_engine::ids;
use mcpspec_wire::{Id, Message};
use serde_json::Value;
use tokio::time::Instant;

use super::http::Sent;
use super::{Session, BROKEN_ANSWER_QUIET, PING_BEFORE_INIT, REFUSED_QUIET, STARTUP_TIMEOUT};
use crate::oracle::{Oracle, TimedOut, Verdict};

impl Session {
    pub(super) fn own_id(&mut self, what: &str) -> Id {
        self.seq += 1;
        let id = Id::String(format!("mcpspec-{what}-{}", self.seq));
        self.own.insert(id.clone(), None);
        id
    }

    /// Sends a request of the driver's own and waits for its answer.
    pub(super) async fn call(
        &mut self,
        what: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<Message, Vec<Verdict>> {
        self.call_after(&[], what, method, params).await
    }

    /// Like [`Session::call`], with `prefix` written in the same write (one
    /// system call for an input and its sync ping; stdio only).
    pub(super) async fn call_after(
        &mut self,
        prefix: &[u8],
        what: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<Message, Vec<Verdict>> {
        let id = self.own_id(what);
        let mut bytes = prefix.to_vec();
        bytes.extend_from_slice(
            Message::request(id.clone(), method, params)
                .to_json()
                .as_bytes(),
        );
        if !self.framing.is_http() {
            bytes.push(b'\n');
        }
        let mut verdicts = Vec::new();
        self.own_refused = None;
        if self.write(&bytes, Sent::Own).await.is_err() {
            self.settle_exit(&mut verdicts).await;
        }
        // A target may take a while to start (`npx`, a JIT): the first
        // answer gets more time than the others. The sync ping is owed a
        // prompt answer; the driver's own lists are waited for as long as
        // any owed answer (a slow answer is not a missing one).
        let within = match method {
            "initialize" => self.timeout.max(STARTUP_TIMEOUT),
            "ping" => self.timeout,
            _ => self.timeout.max(self.max_wait),
        };
        let mut deadline = Instant::now() + within;
        let mut shortened = false;
        loop {
            // The handshake is answered at once: once the target has written
            // something broken and then stays quiet, that was its answer.
            if method == "initialize" && !shortened && !verdicts.is_empty() {
                shortened = true;
                deadline = deadline.min(Instant::now() + BROKEN_ANSWER_QUIET);
            }
            // A refused POST brings its answer in its body, or none.
            if self.own_refused.is_some() && !shortened {
                shortened = true;
                deadline = deadline.min(Instant::now() + REFUSED_QUIET);
            }
            if let Some(Some(m)) = self.own.get(&id) {
                let m = m.clone();
                self.own.remove(&id);
                self.carry.append(&mut verdicts);
                return Ok(m);
            }
            if self.exit.is_some() {
                return Err(verdicts);
            }
            if !self.pump(deadline, &mut verdicts).await {
                self.own.remove(&id);
                if self.exit.is_some() {
                    return Err(verdicts);
                }
                let how = match self.own_refused {
                    Some(status) => format!("its POST was refused with HTTP {status}"),
                    None => format!("within {} ms", within.as_millis()),
                };
                if method != "ping" && method != "initialize" && self.own_refused.is_none() {
                    // Waited for to the end: a note, and no answer to use.
                    let t = TimedOut {
                        id,
                        method: method.to_owned(),
                        exec: None,
                        waited_ms: u64::try_from(within.as_millis()).unwrap_or(u64::MAX),
                        progressed: false,
                    };
                    self.give_up(t, &mut verdicts).await;
                    return Err(verdicts);
                }
                let v = if method == "ping" && !self.initialized {
                    // Before initialize, answering ping is a SHOULD.
                    Verdict::new(
                        Oracle::Ping,
                        &ids::LIFECYCLE_SERVER_PING_BEFORE_INIT,
                        format!("a ping before initialize was not answered ({how})"),
                        None,
                    )
                    .about(PING_BEFORE_INIT.to_owned())
                } else if method == "ping" {
                    Verdict::new(
                        Oracle::Ping,
                        &ids::PING_RESPOND,
                        format!("the sync ping was not answered ({how})"),
                        None,
                    )
                } else {
                    Verdict::new(
                        Oracle::Unanswered,
                        &ids::JSONRPC_REQUEST_ANSWERED,
                        format!("{method} was not answered ({how})"),
                        None,
                    )
                };
                verdicts.push(v);
                return Err(verdicts);
            }
        }
    }

    /// The sync ping was answered with an error: alive, but not as the
    /// specification wants (an empty result).
    pub(super) fn ping_refused(&self, code: i64) -> Verdict {
        let detail = format!("the sync ping was answered with error {code}");
        if self.initialized {
            Verdict::new(Oracle::Ping, &ids::PING_RESPOND, detail, None)
                .about("ping answered with an error".to_owned())
        } else {
            Verdict::new(
                Oracle::Ping,
                &ids::LIFECYCLE_SERVER_PING_BEFORE_INIT,
                format!("{detail} before initialize"),
                None,
            )
            .about(PING_BEFORE_INIT.to_owned())
        }
    }
}
