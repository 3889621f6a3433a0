//! Traffic judged outside a scenario — a recorded connection (`mcpspec
//! judge`) or a relayed one (`mcpspec proxy`) — as the run events every
//! reporter already reads.
//!
//! ```text
//!  Pair (two oracles) ──► JudgedConnection ──► cases: <name>/server, <name>/client
//!                                                  │
//!  report(target, connections, reporters) ──► RunStarted, CaseStarted/CaseFinished…, RunFinished ──► Summary
//! ```
//!
//! One case per connection and side: `<name>/server` holds what the server
//! broke, `<name>/client` what the client broke. Its findings are the
//! oracle's (`FindingSource::Oracle`, requirement id, level, spec link at
//! the connection's version) and each names the side in its `location`.
//! A side that sent no message was judged on nothing it said: its case is
//! not applicable, never a pass, and a run of such cases exits 3 like any
//! run that judged nothing ([`Summary::exit_code`]).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use mcpspec_engine::{Level, Version};
use mcpspec_oracle::pair::{Pair, PairViolation, Side, Traffic};
use mcpspec_wire::event::{Transport, Via};

use crate::case::oracle_findings;
use crate::event::{Event, Reporter};
use crate::outcome::{outcome_of, CaseResult, Outcome, Summary, TranscriptLine};

/// One connection, judged from both sides.
#[derive(Debug, Clone)]
pub struct JudgedConnection {
    /// The prefix of its case ids: `judge/session.jsonl`, `proxy/3`.
    pub name: String,
    pub version: Version,
    pub transport: Transport,
    /// Every violation the pair reported, in order.
    pub violations: Vec<PairViolation>,
    /// Messages each side sent: (client, server).
    pub messages: (usize, usize),
    /// What crossed the connection, for the transcripts.
    pub transcript: Vec<TranscriptLine>,
    pub duration: Duration,
}

impl JudgedConnection {
    /// What `pair` judged (call [`Pair::end`] first, keeping its
    /// violations with the others); `None` while the version is unknown.
    pub fn of(name: String, pair: &Pair, violations: Vec<PairViolation>) -> Option<Self> {
        Some(JudgedConnection {
            name,
            version: pair.version()?,
            transport: pair.transport(),
            violations,
            messages: (pair.messages(Side::Client), pair.messages(Side::Server)),
            transcript: Vec::new(),
            duration: Duration::ZERO,
        })
    }

    /// The case id of `side`'s case: `<name>/server`.
    pub fn case_id(&self, side: Side) -> String {
        format!("{}/{}", self.name, side.as_str())
    }

    /// Its two cases, the server's first.
    pub fn cases(&self) -> Vec<CaseResult> {
        [Side::Server, Side::Client]
            .into_iter()
            .map(|side| self.case(side))
            .collect()
    }

    fn case(&self, side: Side) -> CaseResult {
        let sent = match side {
            Side::Client => self.messages.0,
            Side::Server => self.messages.1,
        };
        let broken = self
            .violations
            .iter()
            .filter(|v| v.side == side)
            .map(|v| &v.violation);
        let mut findings = oracle_findings(broken, self.version);
        findings.sort_by(|a, b| {
            b.level
                .cmp(&a.level)
                .then(a.requirement.cmp(&b.requirement))
        });
        for f in &mut findings {
            f.location = Some(format!("{}: broken by the {side}", self.name));
        }
        let outcome = if sent == 0 && findings.is_empty() {
            Outcome::NotApplicable {
                reason: format!("the {side} sent no message: nothing it said was judged"),
            }
        } else {
            outcome_of(&findings)
        };
        let requirements: BTreeSet<String> =
            findings.iter().map(|f| f.requirement.clone()).collect();
        CaseResult {
            id: self.case_id(side),
            scenario: self.name.clone(),
            title: format!(
                "the {side}'s side of {} ({}, {})",
                self.name, self.transport, self.version
            ),
            version: self.version,
            level: Level::Must,
            requirements: requirements.into_iter().collect(),
            outcome,
            findings,
            duration: self.duration,
            transcript: self.transcript.clone(),
        }
    }
}

/// One observation as a transcript line. The transcript reads from the
/// client's seat: `>>` the client sent it, `<<` the server did, `--` an
/// HTTP exchange, SSE event or how a side went away.
pub fn transcript_line(at_ms: u64, traffic: &Traffic) -> TranscriptLine {
    let via = match traffic {
        Traffic::Message { via, .. }
        | Traffic::Unframed { via, .. }
        | Traffic::Http { via, .. }
        | Traffic::Sse { via, .. }
        | Traffic::Gone { via, .. } => *via,
    };
    let transport = if via == Via::Stdio { "stdio" } else { "http" };
    let (dir, text, raw) = match traffic {
        Traffic::Message { from, via, bytes } => {
            let dir = match from {
                Side::Client => ">>",
                Side::Server => "<<",
            };
            let mut text = String::from_utf8_lossy(bytes).into_owned();
            if *via != Via::Stdio {
                text = format!("{text} [{via}]");
            }
            (dir, text, Some(bytes.clone()))
        }
        Traffic::Unframed { from, via, error } => (
            if *from == Side::Client { ">>" } else { "<<" },
            format!("[framing] {error} [{via}]"),
            Some(error.bytes.clone()),
        ),
        Traffic::Http { via, record } => ("--", format!("{} [{via}]", record.summary()), None),
        Traffic::Sse { via, event } => ("--", format!("{} [{via}]", describe(event)), None),
        Traffic::Gone { side, event, .. } => {
            ("--", format!("the {side}: {}", describe(event)), None)
        }
    };
    TranscriptLine {
        at_ms,
        dir,
        text: cut(text),
        transport,
        raw,
    }
}

/// An SSE event or how a side went away, as the runner's notes say it.
fn describe(event: &mcpspec_wire::event::Event) -> String {
    use mcpspec_wire::event::Event;
    match event {
        Event::SseEvent {
            event,
            id,
            data_len,
            ..
        } => {
            let id = id
                .as_deref()
                .map(|i| format!(" id {i:?}"))
                .unwrap_or_default();
            format!("sse event `{event}`{id}, {data_len} bytes of data")
        }
        Event::SseError(err) => format!("[sse] {err}"),
        Event::Exited { code: Some(c), .. } => format!("exited with code {c}"),
        Event::Exited {
            signal: Some(s), ..
        } => format!("killed by signal {s}"),
        Event::Exited { .. } => "exited".to_owned(),
        Event::Closed(how) => how.clone(),
        other => format!("{other:?}"),
    }
}

/// A transcript line's text, cut as the runner's are.
fn cut(mut text: String) -> String {
    const MAX: usize = 2000;
    if text.len() > MAX {
        let mut end = MAX;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// Sends the connections' cases to `reporters` as one run against
/// `target` and returns its totals (their [`Summary::exit_code`] is the
/// verdict: 1 when a MUST was broken).
pub fn report(
    target: &str,
    connections: &[JudgedConnection],
    reporters: &mut [&mut dyn Reporter],
) -> Summary {
    let started = Instant::now();
    let mut send = |event: Event| {
        for r in reporters.iter_mut() {
            r.event(&event);
        }
    };
    send(Event::RunStarted {
        target: target.to_owned(),
        cases: connections.len() * 2,
        jobs: 1,
    });
    let mut summary = Summary::default();
    for case in connections.iter().flat_map(JudgedConnection::cases) {
        send(Event::CaseStarted {
            id: case.id.clone(),
        });
        summary.add(&case.outcome);
        send(Event::CaseFinished(Box::new(case)));
    }
    send(Event::RunFinished {
        summary: summary.clone(),
        wall: started.elapsed(),
        strict: false,
    });
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_model::Exit;

    fn message(from: Side, text: &str) -> Traffic {
        Traffic::Message {
            from,
            via: Via::Stdio,
            bytes: text.as_bytes().to_vec(),
        }
    }

    fn judged(traffic: Vec<Traffic>) -> JudgedConnection {
        let mut pair = Pair::new(Transport::Stdio, None);
        let mut found = Vec::new();
        for (at, t) in traffic.into_iter().enumerate() {
            found.extend(pair.observe(at as u64, t));
        }
        found.extend(pair.end(100));
        JudgedConnection::of("judge/t.jsonl".into(), &pair, found).expect("settled at the end")
    }

    struct Collect(Vec<Event>);
    impl Reporter for Collect {
        fn event(&mut self, event: &Event) {
            self.0.push(event.clone());
        }
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    const RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;

    #[test]
    fn each_side_is_a_case_and_a_broken_must_fails_the_run() {
        let conn = judged(vec![
            message(Side::Client, INIT),
            message(Side::Server, RESULT),
            message(Side::Server, r#"{"jsonrpc":"2.0","id":42,"result":{}}"#),
        ]);
        let mut c = Collect(Vec::new());
        let summary = report("t.jsonl", &[conn], &mut [&mut c]);
        assert_eq!(summary.exit_code(false), Exit::Failures);
        let cases: Vec<CaseResult> =
            c.0.iter()
                .filter_map(|e| match e {
                    Event::CaseFinished(r) => Some((**r).clone()),
                    _ => None,
                })
                .collect();
        assert_eq!(cases[0].id, "judge/t.jsonl/server");
        assert_eq!(cases[0].outcome, Outcome::Fail);
        let f = &cases[0].findings[0];
        assert_eq!(f.requirement, "jsonrpc.response.id-matches");
        assert!(f.spec_url.contains("2025-06-18"), "{}", f.spec_url);
        assert!(f.location.as_deref().unwrap().contains("server"));
        assert_eq!(cases[1].id, "judge/t.jsonl/client");
        assert_eq!(cases[1].outcome, Outcome::Pass);
        assert!(matches!(c.0.last(), Some(Event::RunFinished { .. })));
    }

    #[test]
    fn a_side_that_said_nothing_is_not_a_pass() {
        let conn = judged(vec![message(Side::Client, INIT)]);
        let mut c = Collect(Vec::new());
        let summary = report("t.jsonl", std::slice::from_ref(&conn), &mut [&mut c]);
        assert!(matches!(
            conn.cases()[0].outcome,
            Outcome::NotApplicable { .. }
        ));
        assert_eq!(conn.cases()[1].outcome, Outcome::Pass);
        assert_eq!(summary.exit_code(false), Exit::Success);
        let silent = judged(vec![]);
        let summary = report("t.jsonl", &[silent], &mut [&mut c]);
        assert_eq!(summary.exit_code(false), Exit::TargetUnavailable);
    }
}
