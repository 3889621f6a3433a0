//! The oracles, as a pure judge: told what was sent (as [`Expect`]s) and
//! every frame that came back, it returns [`Verdict`]s. Liveness (the
//! process, the sync ping) and memory are watched by the driver, which turns
//! them into verdicts of the same shape.
//!
//! | oracle         | trips when                                                    | requirement (level)                          |
//! |----------------|---------------------------------------------------------------|----------------------------------------------|
//! | `alive`        | the target exits or is killed by a signal                     | `jsonrpc.robustness.survives-invalid` (SHOULD); `jsonrpc.request.answered` (MUST) when a valid request was pending |
//! | `ping`         | the sync ping is not answered within the timeout, or answered with an error | `ping.respond` (MUST); before initialize `lifecycle.server.ping-before-init` (SHOULD) |
//! | `stdout`       | a line is not JSON / not JSON-RPC / not UTF-8, an answer to an id nobody sent, a second answer, an array answer to no batch | `stdio.stdout-only-mcp`, `jsonrpc.message.valid`, `stdio.newline-delimited`, `jsonrpc.response.id-matches`, `jsonrpc.response.once`, `jsonrpc.batch.absent` (MUST) |
//! | `error-class`  | malformed input answered with a success result, or an error of another class | `jsonrpc.error.invalid-request`, `…invalid-params`, `…method-not-found` (SHOULD) |
//! | `notification` | a null-id answer no unreadable input explains follows input made of notifications, or a null-id result follows input with a notification | `jsonrpc.notification.no-response` (MUST) |
//! | `unanswered`   | a valid request stays unanswered for the timeout (progress on its token restarts the clock) | `jsonrpc.request.answered` (MUST) |
//! | `memory`       | resident memory grows past the bound (stdio only: the process is ours) | `jsonrpc.robustness.survives-invalid` (SHOULD) |
//! | `output`       | over HTTP, what `stdout` checks, for JSON bodies and SSE messages (no ndjson rules; not UTF-8: `jsonrpc.message.utf8`) | `jsonrpc.message.valid`, `jsonrpc.response.*`, `jsonrpc.batch.absent` (MUST) |
//! | `http`         | an input POST's status or body breaks the transport rules (see [`crate::http`]) | `http.post.*`, `sse.message-event` |
//!
//! Over HTTP `alive` trips when the server refuses or resets a connection,
//! answers a POST of the driver's own with 404, or ends the legacy stream;
//! an HTTP 4xx refusing a POST allows one error with a null id and settles
//! what that POST's requests were owed as errors ([`Judge::refused`]).
//!
//! What is *not* a finding: an error with a null id after unreadable input
//! (one per unreadable line), silence after malformed input (JSON-RPC's
//! answer to it is a SHOULD, and MCP clients are forbidden to send it), any
//! answer (result or error) to a schema-valid request, a late answer to a
//! cancelled request, and an error that echoes an unusable id we sent.
//!
//! Findings are deduplicated by oracle and message kind ([`Verdict::subject`]
//! when set, else the kind of the input, [`crate::minimize::kind_of`]): for
//! `stdout` and `notification` the kind is what was wrong with the output
//! (`output: result_without_id`), for `unanswered` (and `alive` with a request
//! pending) the request's method, for `error-class` the malformed method.

use std::collections::HashMap;

use mcpspec_engine::{ids, Requirement, Version};
use mcpspec_transport::Event;
use mcpspec_wire::{classify, FrameErrorKind, Id, Inbound, Invalid, Message, Response};
use serde_json::Value;

use crate::expect::{Expect, Want};
pub use crate::verdict::{Oracle, Verdict};

#[derive(Debug, Clone)]
struct Owed {
    /// Order of sending, across execs.
    seq: u64,
    exec: u64,
    method: String,
    error: Option<Want>,
    token: Option<String>,
    batch: bool,
    deadline_ms: u64,
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
    version: Version,
    /// Stdio or HTTP: which oracle names what came back, and in what words.
    http: bool,
    timeout_ms: u64,
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
    pub fn new(version: Version, timeout_ms: u64) -> Self {
        Judge {
            version,
            http: false,
            timeout_ms,
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
        self.notifications_only = !expects.is_empty()
            && expects
                .iter()
                .all(|e| matches!(e, Expect::Notification { .. } | Expect::Cancel { .. }));
        for e in expects {
            match e {
                Expect::Owed {
                    id,
                    method,
                    error,
                    token,
                    batch,
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
                                batch: *batch,
                                deadline_ms: now_ms + self.timeout_ms,
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

    /// The oracle for what came back.
    fn output(&self) -> Oracle {
        if self.http {
            Oracle::Output
        } else {
            Oracle::Stdout
        }
    }

    /// How one received message is called in details.
    fn unit(&self) -> &'static str {
        if self.http {
            "message"
        } else {
            "stdout line"
        }
    }

    /// The version, once the handshake has settled it.
    pub fn set_version(&mut self, version: Version) {
        self.version = version;
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

    /// The method of the oldest request still owed an answer: when the
    /// target dies, the one it most likely died on.
    pub fn oldest_owed(&self) -> Option<&str> {
        self.owed
            .values()
            .min_by_key(|o| o.seq)
            .map(|o| o.method.as_str())
    }

    /// The methods of the requests still owed an answer.
    pub fn owed_methods(&self) -> impl Iterator<Item = &str> {
        self.owed.values().map(|o| o.method.as_str())
    }

    /// A progress notification from the target: the request under `token`
    /// is being worked on, so its clock restarts.
    pub fn progress(&mut self, token: &Value, now_ms: u64) {
        let text = token.to_string();
        for o in self.owed.values_mut() {
            if o.token.as_deref() == Some(text.as_str()) {
                o.deadline_ms = now_ms + self.timeout_ms;
            }
        }
    }

    /// Owed requests past their deadline at `now_ms`. Each is reported once;
    /// a later answer is then accepted.
    pub fn overdue(&mut self, now_ms: u64) -> Vec<Verdict> {
        let late: Vec<Id> = self
            .owed
            .iter()
            .filter(|(_, o)| o.deadline_ms <= now_ms)
            .map(|(id, _)| id.clone())
            .collect();
        let mut out = Vec::new();
        for id in late {
            if let Some(o) = self.owed.remove(&id) {
                out.push(
                    Verdict::new(
                        Oracle::Unanswered,
                        &ids::JSONRPC_REQUEST_ANSWERED,
                        format!(
                            "{} (id {id}) was not answered within {} ms",
                            o.method, self.timeout_ms
                        ),
                        Some(o.exec),
                    )
                    .about(if o.batch {
                        "request in a batch".to_owned()
                    } else {
                        format!("request {}", o.method)
                    }),
                );
                self.allow(id, o.exec, None);
            }
        }
        out.sort_by_key(|v| v.exec);
        out
    }

    /// The earliest deadline of an owed request, if any.
    pub fn next_deadline(&self) -> Option<u64> {
        self.owed.values().map(|o| o.deadline_ms).min()
    }

    /// Whether a valid request was still owed (for the `alive` oracle's requirement).
    pub fn anything_owed(&self) -> bool {
        !self.owed.is_empty()
    }

    /// Judges one received event (a stdout line, an HTTP body, an SSE
    /// message). Frames the driver consumed itself (its own pings, requests
    /// from the target) never reach the judge.
    pub fn received(&mut self, event: &Event) -> Vec<Verdict> {
        let mut out = Vec::new();
        match event {
            Event::FrameError(e) => {
                if !matches!(e.kind, FrameErrorKind::Oversize { .. }) {
                    let requirement = if self.http {
                        &ids::JSONRPC_MESSAGE_UTF8
                    } else {
                        &ids::STDIO_NEWLINE_DELIMITED
                    };
                    out.push(self.verdict(self.output(), requirement, e.to_string()));
                }
            }
            Event::Frame(f) => {
                if self.echo(&f.bytes, &mut out) {
                    return out;
                }
                match classify(&f.bytes) {
                    Err(inv) => out.push(self.invalid(&inv, f.text())),
                    Ok(Inbound::Single(msg)) => self.message(&msg, &mut out),
                    Ok(Inbound::Batch(items)) => {
                        if !self.batch_sent && !self.version.has_batches() {
                            out.push(self.verdict(
                                self.output(),
                                &ids::JSONRPC_BATCH_ABSENT,
                                format!(
                                    "the target sent a JSON array, which {} does not have",
                                    self.version
                                ),
                            ));
                        }
                        for item in items {
                            match item {
                                Ok(msg) => self.message(&msg, &mut out),
                                Err(inv) => out.push(self.invalid(&inv, f.text())),
                            }
                        }
                    }
                }
            }
            Event::Stderr(_) | Event::Stdout(_) | Event::Exited { .. } => {}
            // HTTP exchanges are judged by `crate::http`; SSE framing by
            // `mcpspec server`'s scenarios; the end of a session by the driver.
            Event::Http(_) | Event::SseEvent { .. } | Event::SseError(_) | Event::Closed(_) => {}
        }
        out
    }

    /// A verdict about the target's output: its message kind is what was
    /// wrong with the output, whatever the input was.
    fn verdict(
        &self,
        oracle: Oracle,
        requirement: &'static Requirement,
        detail: String,
    ) -> Verdict {
        let subject = match oracle {
            Oracle::Notification => "notification answered".to_owned(),
            _ => format!("output breaking {}", requirement.id),
        };
        Verdict::new(oracle, requirement, detail, self.last_exec).about(subject)
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
            out.push(Verdict::new(
                Oracle::ErrorClass,
                &ids::JSONRPC_ERROR_INVALID_REQUEST,
                format!("a request with the unusable id {id} was answered with a success result"),
                Some(exec),
            ));
        }
        true
    }

    fn invalid(&self, inv: &Invalid, text: &str) -> Verdict {
        let shown: String = text.chars().take(200).collect();
        if inv.kind.is_parse_error() {
            let requirement = if self.http {
                &ids::JSONRPC_MESSAGE_VALID
            } else {
                &ids::STDIO_STDOUT_ONLY_MCP
            };
            return self.verdict(
                self.output(),
                requirement,
                format!("{} is not JSON ({}): {shown}", self.unit(), inv.kind),
            );
        }
        if matches!(inv.kind, mcpspec_wire::InvalidKind::ResultWithoutId) && self.had_notification {
            return self.verdict(
                Oracle::Notification,
                &ids::JSONRPC_NOTIFICATION_NO_RESPONSE,
                format!("a notification was answered with a result with a null id: {shown}"),
            );
        }
        self.verdict(
            self.output(),
            &ids::JSONRPC_MESSAGE_VALID,
            format!(
                "{} is not a valid JSON-RPC message ({}): {shown}",
                self.unit(),
                inv.kind
            ),
        )
        .about(format!("output: {}", inv.kind.name()))
    }

    fn message(&mut self, msg: &Message, out: &mut Vec<Verdict>) {
        if let Message::Response(r) = msg {
            self.response(r, out);
        }
        // Requests and notifications from the target are the driver's business.
    }

    fn response(&mut self, r: &Response, out: &mut Vec<Verdict>) {
        let Some(id) = &r.id else {
            // Only an error may come without an id (classify rejects a result).
            if self.null_allowance > 0 {
                self.null_allowance -= 1;
            } else if self.notifications_only {
                out.push(self.verdict(
                    Oracle::Notification,
                    &ids::JSONRPC_NOTIFICATION_NO_RESPONSE,
                    format!(
                        "a notification was answered ({})",
                        Message::Response(r.clone()).describe()
                    ),
                ));
            } else {
                out.push(self.verdict(
                    self.output(),
                    &ids::JSONRPC_RESPONSE_ID_MATCHES,
                    format!(
                        "{} although every input had a readable id or was a notification",
                        Message::Response(r.clone()).describe()
                    ),
                ));
            }
            return;
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
        } else if self.answered.contains_key(id) {
            out.push(self.verdict(
                self.output(),
                &ids::JSONRPC_RESPONSE_ONCE,
                format!("a second response to id {id}"),
            ));
            return;
        } else {
            out.push(self.verdict(
                self.output(),
                &ids::JSONRPC_RESPONSE_ID_MATCHES,
                format!("a response to id {id}, which no request carried"),
            ));
            return;
        };
        self.answered.insert(id.clone(), what.clone());
        let Some(want) = want else {
            return;
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
        if let (Some(subject), Some(v)) = (subject, out.get_mut(before)) {
            v.subject = Some(subject);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::{INVALID_PARAMS, INVALID_REQUEST};
    use mcpspec_engine::Level as ReqLevel;
    use mcpspec_wire::Frame;

    fn frame(text: &str) -> Event {
        Event::Frame(Frame {
            bytes: text.as_bytes().to_vec(),
            line: 1,
            crlf: false,
        })
    }

    fn owed(id: i64, error: Option<Want>) -> Expect {
        Expect::Owed {
            id: Id::from(id),
            method: "tools/call".into(),
            error,
            token: Some("\"t\"".into()),
            batch: false,
        }
    }

    fn judge() -> Judge {
        Judge::new(Version::V2025_06_18, 1000)
    }

    #[test]
    fn answers_to_valid_requests_pass_and_doubles_trip() {
        let mut j = judge();
        j.sent(0, &[owed(1, None)], 0);
        assert!(j
            .received(&frame(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#))
            .is_empty());
        let v = j.received(&frame(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert_eq!(v[0].requirement.id, "jsonrpc.response.once");
        let v = j.received(&frame(r#"{"jsonrpc":"2.0","id":77,"result":{}}"#));
        assert_eq!(v[0].requirement.id, "jsonrpc.response.id-matches");
    }

    #[test]
    fn malformed_input_must_not_succeed_nor_earn_another_class() {
        let mut j = judge();
        j.sent(
            3,
            &[owed(1, Some(INVALID_PARAMS)), owed(2, Some(INVALID_PARAMS))],
            0,
        );
        let v = j.received(&frame(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert_eq!((v[0].oracle, v[0].exec), (Oracle::ErrorClass, Some(3)));
        assert_eq!(v[0].level(), ReqLevel::Should);
        let v = j.received(&frame(
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"x"}}"#,
        ));
        assert_eq!(v[0].oracle, Oracle::ErrorClass);
        j.sent(
            4,
            &[
                Expect::NullIdError,
                Expect::MayAnswer {
                    id: Id::from(5),
                    error: Some(INVALID_REQUEST),
                },
            ],
            0,
        );
        assert!(j
            .received(&frame(
                r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"x"}}"#
            ))
            .is_empty());
    }

    #[test]
    fn null_id_errors_are_allowed_once_per_unreadable_line() {
        let mut j = judge();
        j.sent(0, &[Expect::NullIdError], 0);
        let err = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#;
        assert!(j.received(&frame(err)).is_empty());
        assert_eq!(j.received(&frame(err))[0].oracle, Oracle::Stdout);
    }

    #[test]
    fn answered_notifications_trip() {
        let mut j = judge();
        j.sent(
            0,
            &[Expect::Notification {
                method: "notifications/initialized".into(),
            }],
            0,
        );
        let v = j.received(&frame(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#));
        assert_eq!(v[0].oracle, Oracle::Notification);
        assert_eq!(v[0].level(), ReqLevel::Must);
    }

    #[test]
    fn unanswered_requests_trip_after_the_timeout_unless_progressing_or_cancelled() {
        let mut j = judge();
        j.sent(0, &[owed(1, None), owed(2, None)], 0);
        j.sent(1, &[Expect::Cancel { id: Id::from(2) }], 10);
        j.progress(&Value::from("t"), 900);
        assert!(j.overdue(1500).is_empty());
        let v = j.overdue(1900);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].oracle, Oracle::Unanswered);
        // Late answers are accepted once reported, and the cancelled one may still come.
        assert!(j
            .received(&frame(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#))
            .is_empty());
        assert!(j
            .received(&frame(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#))
            .is_empty());
    }

    #[test]
    fn echoed_unusable_ids_and_junk_stdout() {
        let mut j = judge();
        j.sent(
            0,
            &[
                Expect::NullIdError,
                Expect::Echo {
                    id: serde_json::json!(1.5),
                },
            ],
            0,
        );
        assert!(j
            .received(&frame(
                r#"{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600,"message":"x"}}"#
            ))
            .is_empty());
        assert_eq!(
            j.received(&frame("server started"))[0].requirement.id,
            "stdio.stdout-only-mcp"
        );
        let v = j.received(&frame(r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#));
        assert_eq!(v[0].requirement.id, "jsonrpc.batch.absent");
    }
}
