//! The fuzz policy: what an input is owed, and which of the one oracle's
//! violations stand for fuzzed input. The driver feeds every observation to
//! an [`mcpspec_oracle::Oracle`] (which decides whether the target broke a
//! rule of the protocol) and hands what comes back, with each frame, to the
//! session's [`Judge`], which knows what was sent as [`Expect`]s: it turns
//! the oracle's violations into [`Verdict`]s, adds the verdicts only the
//! fuzzer can give (an owed answer missing, the wrong error class), and
//! lifts the oracle's verdict where fuzzed input allows more than a
//! scenario does (`Judge::allows`). Liveness (the process, the sync ping)
//! and memory are watched by the driver, which turns them into verdicts of
//! the same shape.
//!
//! | oracle         | trips when                                                    | requirement (level)                          | decided by |
//! |----------------|---------------------------------------------------------------|----------------------------------------------|------------|
//! | `stdout`       | anything the one oracle finds in what came back over stdio: not JSON-RPC, not ndjson, an answer to an id nobody sent, a second answer, an array where the version has no batches, a schema violation, a lifecycle rule broken… | `stdio.stdout-only-mcp`, `stdio.newline-delimited`, `jsonrpc.*`, `schema.message.conforms`, … | `mcpspec_oracle` |
//! | `output`       | the same over HTTP (JSON bodies and SSE messages)             | as `stdout`, with `jsonrpc.message.utf8`, `http.get.no-responses`, … | `mcpspec_oracle` |
//! | `http`         | an input POST's status breaks the transport rules: a 5xx for broken input, a notification POST not answered 202, a request answered with another content type, an answer in a legacy POST's body | `http.post.malformed-400`, `jsonrpc.robustness.survives-invalid` (SHOULD); `http.post.accepted-202`, `http.post.request-content-type`, `sse.message-event` (MUST) | `mcpspec_oracle`; a 5xx for a request owed an error: fuzz policy |
//! | `notification` | the oracle's unexplained answer follows input made of notifications (or a null-id result, input with one) | `jsonrpc.notification.no-response` (MUST) | fuzz policy (which input the answer follows) |
//! | `error-class`  | malformed input answered with a success result, or an error of another class | `jsonrpc.error.invalid-request`, `…invalid-params`, `…method-not-found` (SHOULD) | fuzz policy ([`crate::expect`]) |
//! | `unanswered`   | no longer trips: a valid request still unanswered at `--max-wait` while the target is alive is a *timeout note* of the run, not a finding ([`wait`]: MCP sets no deadline for an answer) | — | fuzz policy |
//! | `alive`        | the target exits or is killed by a signal                     | `jsonrpc.robustness.survives-invalid` (SHOULD); `jsonrpc.request.answered` (MUST) when a valid request was pending | fuzz policy (the driver) |
//! | `ping`         | the sync ping is not answered within the timeout, or answered with an error | `ping.respond` (MUST); before initialize `lifecycle.server.ping-before-init` (SHOULD) | fuzz policy (the driver) |
//! | `memory`       | resident memory grows past the bound (stdio only: the process is ours) | `jsonrpc.robustness.survives-invalid` (SHOULD) | fuzz policy (the driver) |
//!
//! Over HTTP `alive` trips when the server refuses or resets a connection,
//! answers a POST of the driver's own with 404, or ends the legacy stream;
//! an HTTP 4xx refusing a POST allows one error with a null id and settles
//! what that POST's requests were owed as errors ([`Judge::refused`]).
//!
//! What fuzzed input allows beyond the oracle's reading (`Judge::allows`):
//! an answer to an id a lenient reader finds (a BOM, a NUL, lossy UTF-8,
//! the first JSON value of a body), to an id the input reused, to any id of
//! ambiguous input; an error with a null id after unreadable or ambiguous
//! input, or with a refusal; an error that echoes an unusable id we sent;
//! an array answering an array; a late answer to a request the input
//! cancelled; and anything about an ambiguous input's POST. Silence after
//! malformed input is no finding either (JSON-RPC's answer to it is a
//! SHOULD, and MCP clients are forbidden to send it): nothing is owed.
//!
//! Findings are deduplicated by oracle and cause ([`Verdict::cause`]) where
//! the verdict names one, else by oracle and message kind
//! ([`Verdict::subject`] when set, else the kind of the input,
//! [`crate::minimize::kind_of`]); each finding lists the kinds it was seen
//! with. For `error-class` the cause is the class of input and what it
//! earned (`invalid params answered with error -32603`: one bug across
//! methods, the malformed method the kind it was seen with), for an `http`
//! 5xx owed an error the status; for `stdout`, `output` and `notification`
//! the kind is what was wrong with the output (`output: result_without_id`),
//! for `alive` with a request pending the request's method, for the other
//! `http` verdicts the rule broken (a 5xx: the kind of the input).

use std::collections::HashMap;

use mcpspec_engine::{ids, Violation};
use mcpspec_transport::{HttpRecord, Via};
use mcpspec_wire::{classify, Id, Inbound, Message, Response};
use serde_json::Value;

use crate::expect::{notifications_only, Expect, Want};
use crate::post::Shape;
pub use crate::verdict::{Oracle, Verdict};
pub use wait::{TimedOut, DEFAULT_MAX_WAIT};

pub mod wait;

#[derive(Debug, Clone)]
struct Owed {
    /// Order of sending, across execs.
    seq: u64,
    exec: u64,
    method: String,
    error: Option<Want>,
    token: Option<String>,
    /// When it was sent.
    sent_ms: u64,
    /// By when the target must show a sign of life (else the driver checks).
    deadline_ms: u64,
    /// Progress came under its token.
    progressed: bool,
}

#[derive(Debug, Clone)]
struct Allowed {
    exec: u64,
    remaining: u32,
    error: Option<Want>,
}

/// The pure oracle state of one session.
#[derive(Debug)]
pub struct Judge {
    /// Stdio or HTTP: which oracle names what came back, and in what words.
    http: bool,
    /// How long the target may be silent while an answer is owed.
    timeout_ms: u64,
    /// The most an owed answer is waited for ([`wait`]).
    max_wait_ms: u64,
    owed: HashMap<Id, Owed>,
    allowed: HashMap<Id, Allowed>,
    /// Requests answered, with their methods.
    answered: HashMap<Id, String>,
    echoes: Vec<(Value, u64)>,
    null_allowance: u64,
    batch_sent: bool,
    last_exec: Option<u64>,
    /// The last input consisted of notifications only.
    notifications_only: bool,
    /// The last input contained a notification.
    had_notification: bool,
    sent_seq: u64,
}

impl Judge {
    /// A judge that waits for owed answers as [`wait`] says, up to
    /// [`DEFAULT_MAX_WAIT`] (see [`Judge::max_wait`]).
    pub fn new(timeout_ms: u64) -> Self {
        Judge {
            http: false,
            timeout_ms,
            max_wait_ms: u64::try_from(DEFAULT_MAX_WAIT.as_millis()).unwrap_or(u64::MAX),
            owed: HashMap::new(),
            allowed: HashMap::new(),
            answered: HashMap::new(),
            echoes: Vec::new(),
            null_allowance: 0,
            batch_sent: false,
            last_exec: None,
            notifications_only: false,
            had_notification: false,
            sent_seq: 0,
        }
    }

    /// Records what exec `exec` sent at `now_ms`.
    pub fn sent(&mut self, exec: u64, expects: &[Expect], now_ms: u64) {
        self.last_exec = Some(exec);
        self.had_notification = expects
            .iter()
            .any(|e| matches!(e, Expect::Notification { .. }));
        self.notifications_only = notifications_only(expects);
        for e in expects {
            match e {
                Expect::Owed {
                    id,
                    method,
                    error,
                    token,
                    ..
                } => {
                    if self.owed.contains_key(id) || self.answered.contains_key(id) {
                        // A reused id: whatever comes, once more, is fine.
                        self.allow(id.clone(), exec, None);
                    } else {
                        self.sent_seq += 1;
                        self.owed.insert(
                            id.clone(),
                            Owed {
                                seq: self.sent_seq,
                                exec,
                                method: method.clone(),
                                error: *error,
                                token: token.clone(),
                                sent_ms: now_ms,
                                deadline_ms: now_ms + self.timeout_ms,
                                progressed: false,
                            },
                        );
                    }
                }
                Expect::MayAnswer { id, error } => self.allow(id.clone(), exec, *error),
                Expect::Echo { id } => self.echoes.push((id.clone(), exec)),
                Expect::NullIdError => self.null_allowance += 1,
                Expect::Notification { .. } => {}
                Expect::Cancel { id } => {
                    if let Some(o) = self.owed.remove(id) {
                        self.allow(id.clone(), o.exec, o.error);
                    }
                }
                Expect::Batch => self.batch_sent = true,
            }
        }
    }

    fn allow(&mut self, id: Id, exec: u64, error: Option<Want>) {
        let a = self.allowed.entry(id).or_insert(Allowed {
            exec,
            remaining: 0,
            error,
        });
        a.remaining += 1;
        if error.is_none() {
            a.error = None;
        }
    }

    /// Judges what came back over HTTP (JSON bodies and SSE messages):
    /// oracle `output` instead of `stdout`, and no ndjson rules.
    pub fn over_http(mut self) -> Self {
        self.http = true;
        self
    }

    /// An HTTP 4xx refused a POST: one error with a null id may come with
    /// it (the transport's rule for input it cannot accept), and the owed
    /// requests of that POST that were owed an error have had their refusal.
    pub fn refused(&mut self, ids: &[Id]) {
        self.null_allowance += 1;
        for id in ids {
            if self.owed.get(id).is_some_and(|o| o.error.is_some()) {
                if let Some(o) = self.owed.remove(id) {
                    self.allow(id.clone(), o.exec, o.error);
                }
            }
        }
    }

    /// The driver sent `notifications/initialized`: until the next input,
    /// an answer is an answer to a notification.
    pub fn handshake_notification(&mut self) {
        self.last_exec = None;
        self.notifications_only = true;
        self.had_notification = true;
    }

    /// Requests still owed an answer.
    pub fn owed(&self) -> usize {
        self.owed.len()
    }

    /// Whether a request with `id` is still owed an answer.
    pub fn is_owed(&self, id: &Id) -> bool {
        self.owed.contains_key(id)
    }

    /// The method of the oldest request still owed an answer: when the
    /// target dies, the one it most likely died on.
    pub fn oldest_owed(&self) -> Option<&str> {
        self.oldest_owed_upto(None)
    }

    /// Whether a valid request was still owed (for the `alive` oracle's requirement).
    pub fn anything_owed(&self) -> bool {
        !self.owed.is_empty()
    }

    /// [`Judge::oldest_owed`] among the requests of execs up to `upto`
    /// (all when `None`): with inputs in flight, those after the one the
    /// target was reading had not reached it.
    pub fn oldest_owed_upto(&self, upto: Option<u64>) -> Option<&str> {
        self.owed
            .values()
            .filter(|o| upto.is_none_or(|u| o.exec <= u))
            .min_by_key(|o| o.seq)
            .map(|o| o.method.as_str())
    }

    /// Inputs are in flight, and the target is at exec `exec` (the oldest
    /// whose sync ping has not come back): what it writes now, not tied
    /// to a request by id, is that exec's.
    pub fn reading(&mut self, exec: u64) {
        self.last_exec = Some(exec);
    }

    /// Judges one frame of the target's (a stdout line, an HTTP body, an SSE
    /// message), with what the one oracle found in it (`found`): answers
    /// are matched against what the inputs owe, and the oracle's violations
    /// stand unless fuzzed input allows what they name. Frames the driver
    /// consumes itself (its own answers, requests from the target) come
    /// here too: they owe the fuzzer nothing, but the oracle judges them.
    pub fn frame(&mut self, via: Via, bytes: &[u8], found: Vec<Violation>) -> Vec<Verdict> {
        let mut out = Vec::new();
        if self.echo(bytes, &mut out) {
            return out; // the error echoes an unusable id of ours: allowed
        }
        let mut allowed = 0;
        let mut null_result = false;
        let mut subject = None;
        let responses: Vec<Response> = match classify(bytes) {
            Ok(Inbound::Single(Message::Response(r))) => vec![r],
            Ok(Inbound::Batch(items)) => items
                .into_iter()
                .filter_map(|m| match m {
                    Ok(Message::Response(r)) => Some(r),
                    _ => None,
                })
                .collect(),
            Err(inv) => {
                null_result = inv.kind == mcpspec_wire::InvalidKind::ResultWithoutId;
                if !inv.kind.is_parse_error() {
                    subject = Some(format!("output: {}", inv.kind.name()));
                }
                Vec::new()
            }
            Ok(_) => Vec::new(),
        };
        for r in &responses {
            allowed += usize::from(self.response(r, &mut out));
        }
        for v in found {
            if self.allows(&v, &mut allowed) {
                continue;
            }
            let verdict = match self.notification_answered(&v, null_result) {
                Some(n) => n,
                None => self.output(via, v, subject.clone()),
            };
            out.push(verdict);
        }
        out
    }

    /// Judges what the oracle found in an event that is not a frame (a
    /// frame error, an SSE event or error): it stands as found.
    pub fn event(&mut self, via: Via, found: Vec<Violation>) -> Vec<Verdict> {
        found
            .into_iter()
            .map(|v| self.output(via, v, None))
            .collect()
    }

    /// Judges the exchange of an input's POST (`exec`, read as `shape`),
    /// with what the oracle found in it. An ambiguous body is owed nothing,
    /// so nothing about its exchange stands; a server error for a request
    /// the input owed an error is a finding only the fuzzer can give (the
    /// oracle does not know the request is broken).
    /// (`shape`: `None` for a POST of the driver's own.)
    pub fn exchange(
        &self,
        shape: Option<Shape>,
        record: &HttpRecord,
        exec: Option<u64>,
        found: Vec<Violation>,
    ) -> Vec<Verdict> {
        if shape == Some(Shape::Ambiguous) {
            return Vec::new();
        }
        let mut out: Vec<Verdict> = found
            .into_iter()
            .map(|v| {
                let subject = if v.requirement == &ids::HTTP_POST_ACCEPTED_202 {
                    Some("notification POST not answered with 202")
                } else if v.requirement == &ids::HTTP_POST_REQUEST_CONTENT_TYPE {
                    Some("request answered with another content type")
                } else {
                    None // a 5xx: the kind of the input
                };
                let verdict = Verdict::new(Oracle::Http, v.requirement, v.detail, exec);
                match subject {
                    Some(s) => verdict.about(s.to_owned()),
                    None => verdict,
                }
            })
            .collect();
        let status = record.status.unwrap_or(0);
        if status >= 500 && shape == Some(Shape::Requests { owed_error: true }) {
            out.push(
                Verdict::new(
                    Oracle::Http,
                    &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
                    format!("a request owed an error was answered with HTTP {status} (a server error on client input)"),
                    exec,
                )
                .because(format!("HTTP {status} for a request owed an error")),
            );
        }
        out
    }

    /// Fuzz policy: whether fuzzed input allows what the oracle found
    /// (`allowed`: answers in the frame the inputs allowed that the oracle
    /// may not know of, each lifting one verdict on ids). The oracle reads
    /// what was sent strictly, as a scenario's peer would; a fuzzer's input
    /// may be read otherwise by a correct target (see the module docs).
    fn allows(&self, v: &Violation, allowed: &mut usize) -> bool {
        let r = v.requirement;
        let on_ids = [
            &ids::JSONRPC_RESPONSE_ID_MATCHES,
            &ids::JSONRPC_RESPONSE_ONCE,
            // An error with an id after input the oracle could not read (a
            // split write the target read whole, say).
            &ids::JSONRPC_ERROR_NULL_ID,
        ];
        if on_ids.contains(&r) && *allowed > 0 {
            *allowed -= 1;
            true
        } else if r == &ids::JSONRPC_BATCH_ABSENT {
            // An array was sent: arrays are the target's reply to it.
            self.batch_sent
        } else {
            // Inputs cancel their own requests at once: the answer may have
            // been on its way, however late it arrives.
            r == &ids::CANCELLATION_NO_RESPONSE
        }
    }

    /// Fuzz policy: an answer nobody asked for, after input made of
    /// notifications (or a result with a null id, after input with one),
    /// is the answer to a notification.
    fn notification_answered(&self, v: &Violation, null_result: bool) -> Option<Verdict> {
        let to_notification = if v.requirement == &ids::JSONRPC_RESPONSE_ID_MATCHES {
            self.notifications_only && v.detail.contains("null id")
        } else if v.requirement == &ids::JSONRPC_MESSAGE_VALID {
            null_result && self.had_notification
        } else {
            false
        };
        to_notification.then(|| {
            Verdict::new(
                Oracle::Notification,
                &ids::JSONRPC_NOTIFICATION_NO_RESPONSE,
                format!("a notification was answered: {}", v.detail),
                self.last_exec,
            )
            .about("notification answered".to_owned())
        })
    }

    /// A violation about what came back: `stdout` over stdio, `output`
    /// over HTTP, `http` for an answer in a legacy POST's body.
    fn output(&self, via: Via, v: Violation, subject: Option<String>) -> Verdict {
        let requirement = v.requirement;
        if requirement == &ids::SSE_MESSAGE_EVENT && matches!(via, Via::Post(_)) {
            return Verdict::new(Oracle::Http, requirement, v.detail, self.last_exec)
                .about("answer in the POST body".to_owned());
        }
        let oracle = if self.http {
            Oracle::Output
        } else {
            Oracle::Stdout
        };
        let subject = subject
            .filter(|_| requirement == &ids::JSONRPC_MESSAGE_VALID)
            .unwrap_or_else(|| format!("output breaking {}", requirement.id));
        Verdict::new(oracle, requirement, v.detail, self.last_exec).about(subject)
    }

    /// An answer echoing an unusable id we sent: fine as an error.
    fn echo(&mut self, bytes: &[u8], out: &mut Vec<Verdict>) -> bool {
        if self.echoes.is_empty() {
            return false;
        }
        let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(bytes) else {
            return false;
        };
        let Some(id) = obj.get("id") else {
            return false;
        };
        if obj.contains_key("method") {
            return false;
        }
        let Some(i) = self.echoes.iter().position(|(v, _)| v == id) else {
            return false;
        };
        let (_, exec) = self.echoes.remove(i);
        if obj.contains_key("result") {
            out.push(
                Verdict::new(
                    Oracle::ErrorClass,
                    &ids::JSONRPC_ERROR_INVALID_REQUEST,
                    format!(
                        "a request with the unusable id {id} was answered with a success result"
                    ),
                    Some(exec),
                )
                .because("an unusable id answered with a success result".to_owned()),
            );
        }
        true
    }

    /// Matches an answer against what the inputs owe and allow; true when
    /// an input allowed it (the oracle may not know the id: see
    /// `Judge::allows`). A wrong error class is a verdict.
    fn response(&mut self, r: &Response, out: &mut Vec<Verdict>) -> bool {
        let Some(id) = &r.id else {
            // Only an error may come without an id (classify rejects a result).
            if self.null_allowance > 0 {
                self.null_allowance -= 1;
                return true;
            }
            return false; // the oracle's to judge
        };
        let (exec, want, what) = if let Some(o) = self.owed.remove(id) {
            (o.exec, o.error, o.method)
        } else if let Some(a) = self.allowed.get_mut(id) {
            a.remaining = a.remaining.saturating_sub(1);
            let found = (a.exec, a.error, String::from("input"));
            if a.remaining == 0 {
                self.allowed.remove(id);
            }
            found
        } else {
            return false; // a second answer, or to an id nobody sent: the oracle's
        };
        self.answered.insert(id.clone(), what.clone());
        let Some(want) = want else {
            return true;
        };
        let subject = if want.requirement == &ids::JSONRPC_ERROR_METHOD_NOT_FOUND {
            Some("unknown method".to_owned())
        } else {
            (what != "input").then(|| format!("malformed {what}"))
        };
        let before = out.len();
        match &r.outcome {
            Ok(_) => out.push(Verdict::new(
                Oracle::ErrorClass,
                want.requirement,
                format!("malformed {what} (id {id}) was answered with a success result"),
                Some(exec),
            )),
            Err(e) if !want.codes.is_empty() && !want.codes.contains(&e.code) => {
                out.push(Verdict::new(
                    Oracle::ErrorClass,
                    want.requirement,
                    format!(
                        "malformed {what} (id {id}) earned error {}, expected {:?}",
                        e.code, want.codes
                    ),
                    Some(exec),
                ))
            }
            Err(_) => {}
        }
        if let Some(v) = out.get_mut(before) {
            v.subject = subject;
            v.cause = Some(wrong_class(want, &r.outcome));
        }
        true
    }
}

/// The shape of a wrong answer to input owed an error, whatever method it
/// was seen with: the class of input and what it earned (one SDK bug that
/// answers -32603 for every malformed request is one cause).
fn wrong_class(want: Want, outcome: &Result<Value, mcpspec_wire::ErrorObject>) -> String {
    let class = if want.requirement == &ids::JSONRPC_ERROR_INVALID_PARAMS {
        "invalid params".to_owned()
    } else if want.requirement == &ids::JSONRPC_ERROR_METHOD_NOT_FOUND {
        "an unknown method".to_owned()
    } else if want.requirement == &ids::JSONRPC_ERROR_INVALID_REQUEST {
        "an invalid request".to_owned()
    } else {
        format!("input owed an error ({})", want.requirement.id)
    };
    match outcome {
        Ok(_) => format!("{class} answered with a success result"),
        Err(e) => format!("{class} answered with error {}", e.code),
    }
}

#[cfg(test)]
mod tests;
