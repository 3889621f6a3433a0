//! Pipelining over stdio: a window of inputs in flight, each followed by
//! its own sync ping, so the target works on one input while the driver
//! writes and judges the next (the fuzzer runs at the target's speed, not
//! at one round trip per input).
//!
//! ```text
//!  send(exec, input):  pipelinable?  ── no ──► settle the window, then exec alone (Session::exec)
//!                          │ yes
//!                          ▼
//!       input bytes + ping "mcpspec-ping-k" in one write; (exec, ping id) queued
//!       what has arrived meanwhile is judged; while the window is full the
//!       oldest ping is waited for (--timeout from when its wait starts)
//! ```
//!
//! Pipelining must not change what is found. Answers are told by id (the
//! judge keeps what each exec owes and allows, by id and count), so most
//! input can share a window; what the judge tells by *what was sent last*
//! cannot, and is sent alone once the window has settled: input with a
//! notification or a cancellation (an answer to a notification is known
//! as one only by the input before it), split writes (their point is the
//! target reading part of a line), a request with an unusable id (a
//! float, `null`: readers differ on which request such an id names) or an
//! integer id written as a float (`-0.0`: answered as `0`, perhaps after
//! its ping, so a later `-0.0` in flight would take that answer), a
//! request reusing an id still owed or used by an input in flight (the one
//! oracle matches answers to requests by id, and would judge one request's
//! answer as another's), and anything before `initialize` (where a ping
//! need not be answered). Lines over 16 KiB go alone too: a huge line
//! would hold up the window. Input that parsers read differently
//! (`Hint::Ambiguous`: duplicate keys, lone surrogates, JSON5-isms, deep
//! nesting) shares a window like any other: nothing is owed for it, every
//! id a reading could find is one it may be answered with (told by id, and
//! kept apart from the ids in flight like an exact input's), an id no
//! reading can use sends it alone (as above), and what it earns without an
//! id (a null-id error) is the exec being read's, as for a malformed line;
//! a target that chokes on it (exits, stops answering) ends the window,
//! which is then played again one input at a time (below).
//!
//! With inputs in flight, the target is *reading* the oldest whose sync
//! ping has not come back ([`Session::reading`]; a stdio server reads its
//! lines in order): output not tied to a request by id is that exec's. A
//! target may answer a ping before it is done with the input before it, so
//! when the session ends (the target exits, a ping goes unanswered) with
//! inputs in flight after that one, the run plays the session's inputs
//! again one at a time in a fresh process and reports what ends that run
//! ([`Session::ended_in_window`]); only if nothing does do the window's
//! verdicts stand (the exit needed the timing; the reproducer then says
//! it did not reproduce). Minimisation and `replay` run one input at a
//! time ([`Session::exec`]), so a reproducer never depends on the window.

use std::collections::VecDeque;

use mcpspec_engine::ids;
use mcpspec_wire::{Id, Message};
use tokio::time::Instant;

use super::http::Sent;
use super::{attribute, Session};
use crate::expect::Expect;
use crate::input::Input;
use crate::oracle::{Oracle, Verdict};

/// Inputs in flight by default (1: one at a time, each waiting for its ping).
pub const DEFAULT_WINDOW: usize = 16;

/// The longest input that shares a window (a huge line goes alone).
const WINDOW_INPUT_MAX: usize = 16 << 10;

/// The inputs in flight: each exec with the id of the ping that followed it.
#[derive(Debug, Default)]
pub(super) struct Window {
    /// The most inputs in flight (0 or 1: no pipelining).
    pub size: usize,
    /// Each exec in flight, the id of its ping, and the ids its input used.
    pub inflight: VecDeque<(u64, Id, Vec<String>)>,
    /// The last exec sent.
    pub last: Option<u64>,
    /// The session ended (or a ping went unanswered) while more than one
    /// input could have been the cause.
    pub ambiguous: bool,
}

impl Session {
    /// Sets how many inputs may be in flight at once (1: none pipelined).
    pub fn set_window(&mut self, size: usize) {
        self.window.size = size;
    }

    /// Whether `input` (with `expects` derived from it) may go while others
    /// are in flight: see the module docs.
    pub fn pipelinable(&self, input: &Input, expects: &[Expect]) -> bool {
        self.window.size > 1
            && !self.framing.is_http()
            && self.initialized
            && self.exit.is_none()
            && input.splits.is_empty()
            && input.bytes.len() <= WINDOW_INPUT_MAX
            && !self
                .window
                .inflight
                .iter()
                .any(|(_, _, used)| ids_of(expects).iter().any(|id| used.contains(id)))
            && expects.iter().all(|e| match e {
                Expect::Owed { id, .. } => !self.judge.is_owed(id),
                // An integer id written as a float (`-0.0`) is answered with
                // the id another reader makes of it (`0`), maybe after its
                // ping: a later request with that id in flight would take
                // the answer for its own. Such input goes alone, in order.
                Expect::MayAnswer { id, .. } => !id.written_as_float(),
                Expect::NullIdError | Expect::Batch => true,
                // An unusable id (a float, null…): readers differ on which
                // request it names, so its answer is told by order alone.
                Expect::Echo { .. } => false,
                Expect::Notification { .. } | Expect::Cancel { .. } => false,
            })
    }

    /// Whether the session ended (its exit, an unanswered ping) while
    /// inputs were in flight before the last one sent: the window cannot
    /// say which input it ended on (a target may answer a ping before it
    /// is done with the input before it), so the run finds out by sending
    /// the session's inputs again one at a time.
    pub fn ended_in_window(&self) -> bool {
        self.window.ambiguous
    }

    /// Notes whether an end of the session now is ambiguous.
    pub(super) fn note_end(&mut self) {
        if self.reading().is_some_and(|r| Some(r) != self.window.last) {
            self.window.ambiguous = true;
        }
    }

    /// The exec the target is reading while inputs are in flight: the
    /// oldest whose sync ping has not come back (`None`: nothing in flight).
    pub(super) fn reading(&self) -> Option<u64> {
        self.window
            .inflight
            .iter()
            .find(|(_, id, _)| matches!(self.own.get(id), Some(None)))
            .map(|(exec, ..)| *exec)
    }

    /// Sends one input and returns what tripped meanwhile: pipelined when
    /// [`Session::pipelinable`], else alone once the window has settled.
    pub async fn send(&mut self, exec: u64, input: &Input, expects: &[Expect]) -> Vec<Verdict> {
        self.window.last = Some(exec);
        if !self.pipelinable(input, expects) {
            let mut verdicts = self.settle().await;
            if self.exit.is_some() || verdicts.iter().any(|v| v.oracle.ends_session()) {
                return verdicts;
            }
            verdicts.extend(self.exec(exec, input, expects).await);
            return verdicts;
        }
        let now = self.now_ms();
        self.judge.sent(exec, expects, now);
        let id = self.own_id("ping");
        let mut bytes = input.wire_bytes();
        bytes.extend_from_slice(
            Message::request(id.clone(), "ping", None)
                .to_json()
                .as_bytes(),
        );
        bytes.push(b'\n');
        let mut verdicts = Vec::new();
        if self.write(&bytes, Sent::Own).await.is_err() {
            self.settle_exit(&mut verdicts).await;
            return attribute(verdicts, exec);
        }
        self.window.inflight.push_back((exec, id, ids_of(expects)));
        // What has come back already is judged now, without waiting.
        while self.pump_ready(&mut verdicts).await {}
        while self.window.inflight.len() >= self.window.size && self.exit.is_none() {
            self.settle_oldest(&mut verdicts).await;
            if verdicts.iter().any(|v| v.oracle.ends_session()) {
                break;
            }
        }
        self.finish_round(verdicts, exec).await
    }

    /// Waits for every ping in flight (or the session's end); returns what
    /// tripped, attributed to the last input sent.
    pub async fn settle(&mut self) -> Vec<Verdict> {
        let Some(last) = self.window.inflight.back().map(|(e, ..)| *e) else {
            return Vec::new();
        };
        let mut verdicts = Vec::new();
        while !self.window.inflight.is_empty() && self.exit.is_none() {
            self.settle_oldest(&mut verdicts).await;
            if verdicts.iter().any(|v| v.oracle.ends_session()) {
                break;
            }
        }
        self.finish_round(verdicts, last).await
    }

    /// Owed requests at their bound are given up, and verdicts the driver
    /// saw while waiting for its own answers join; unattributed ones are
    /// `exec`'s.
    async fn finish_round(&mut self, mut verdicts: Vec<Verdict>, exec: u64) -> Vec<Verdict> {
        if self.exit.is_none() {
            self.expire(&mut verdicts).await;
        }
        verdicts.append(&mut self.carry);
        attribute(verdicts, exec)
    }

    /// Waits for the oldest ping in flight: answered, refused (the `ping`
    /// oracle), or not within the timeout from now (the `ping` oracle, for
    /// the exec it followed).
    async fn settle_oldest(&mut self, verdicts: &mut Vec<Verdict>) {
        let Some((exec, id, _)) = self.window.inflight.pop_front() else {
            return;
        };
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(Some(answer)) = self.own.get(&id) {
                let refused = match answer {
                    Message::Response(r) => r.error().map(|e| e.code),
                    _ => None,
                };
                self.own.remove(&id);
                if let Some(code) = refused {
                    let mut v = self.ping_refused(code);
                    v.exec = Some(exec);
                    verdicts.push(v);
                }
                return;
            }
            if !self.pump(deadline, verdicts).await {
                // Inputs after it were sent too: any of them may be the cause.
                if self.exit.is_none() && Some(exec) != self.window.last {
                    self.window.ambiguous = true;
                }
                self.own.remove(&id);
                if self.exit.is_none() {
                    verdicts.push(Verdict::new(
                        Oracle::Ping,
                        &ids::PING_RESPOND,
                        format!(
                            "the sync ping was not answered (within {} ms)",
                            self.timeout.as_millis()
                        ),
                        Some(exec),
                    ));
                }
                return;
            }
        }
    }
}

/// The request ids an input uses (as JSON text): an id in flight twice
/// would leave the one oracle, which matches answers to requests by id,
/// unable to tell whose answer came, so such an input waits its turn.
fn ids_of(expects: &[Expect]) -> Vec<String> {
    expects
        .iter()
        .filter_map(|e| match e {
            Expect::Owed { id, .. } | Expect::MayAnswer { id, .. } | Expect::Cancel { id } => {
                Some(id.to_value().to_string())
            }
            Expect::Echo { id } => Some(id.to_string()),
            _ => None,
        })
        .collect()
}
