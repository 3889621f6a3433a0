//! The proxy's taps, judged as they come: each connection (stdio: one; HTTP:
//! one per session) gets a two-sided judge ([`Pair`]); each violation is
//! printed at once on stderr, naming the side that broke the rule, and kept
//! for the end-of-run outputs ([`Judging::connections`], the shared
//! `mcpspec_runner::judged` path to every reporter), with a transcript of
//! what crossed (the first [`TRANSCRIPT_MAX`] lines of each connection).

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_oracle::pair::{Pair, PairViolation, Side, Traffic};
use mcpspec_runner::judged::{transcript_line, JudgedConnection};
use mcpspec_runner::TranscriptLine;
use mcpspec_transport::proxy::{Peer, Tap, Tapped};
use mcpspec_wire::event::Transport;

/// Transcript lines kept per connection (a long session keeps its start).
pub const TRANSCRIPT_MAX: usize = 10_000;

/// What is kept of one connection besides its judge.
#[derive(Debug, Default)]
struct Kept {
    transcript: Vec<TranscriptLine>,
    /// Lines not kept past [`TRANSCRIPT_MAX`].
    dropped: usize,
    first_ms: Option<u64>,
    last_ms: u64,
}

/// Every connection's judge, and what they found.
#[derive(Debug)]
pub struct Judging {
    transport: Transport,
    version: Option<Version>,
    quiet: bool,
    pairs: BTreeMap<u64, Pair>,
    kept: BTreeMap<u64, Kept>,
    /// Violations per connection, in the order they were found.
    found: BTreeMap<u64, Vec<PairViolation>>,
    /// Time of the latest tap (ms), for the end.
    last_ms: u64,
}

impl Judging {
    pub fn new(transport: Transport, version: Option<Version>, quiet: bool) -> Self {
        Judging {
            transport,
            version,
            quiet,
            pairs: BTreeMap::new(),
            kept: BTreeMap::new(),
            found: BTreeMap::new(),
            last_ms: 0,
        }
    }

    /// Judges one tap.
    pub fn take(&mut self, tapped: Tapped) {
        let at = u64::try_from(tapped.at.as_millis()).unwrap_or(u64::MAX);
        self.last_ms = self.last_ms.max(at);
        let (transport, version) = (self.transport, self.version);
        let pair = self
            .pairs
            .entry(tapped.conn)
            .or_insert_with(|| Pair::new(transport, version));
        let traffic = traffic(tapped.tap);
        let kept = self.kept.entry(tapped.conn).or_default();
        kept.first_ms.get_or_insert(at);
        kept.last_ms = at;
        if kept.transcript.len() < TRANSCRIPT_MAX {
            kept.transcript.push(transcript_line(at, &traffic));
        } else {
            kept.dropped += 1;
        }
        let found = pair.observe(at, traffic);
        self.keep(tapped.conn, found);
    }

    /// The connection `conn` is over: what each side still owes is judged.
    pub fn end_conn(&mut self, conn: u64) {
        let at = self.last_ms;
        if let Some(pair) = self.pairs.get_mut(&conn) {
            let found = pair.end(at);
            self.keep(conn, found);
        }
    }

    /// Every connection is over.
    pub fn end(&mut self) {
        let conns: Vec<u64> = self.pairs.keys().copied().collect();
        for conn in conns {
            self.end_conn(conn);
        }
    }

    /// Every connection as the reporters take it, named `proxy/stdio` or `proxy/session-<n>` (call
    /// [`Judging::end`] first).
    pub fn connections(&mut self) -> Vec<JudgedConnection> {
        let mut out = Vec::new();
        for (conn, pair) in &self.pairs {
            let found = self.found.get(conn).cloned().unwrap_or_default();
            let name = match self.transport {
                Transport::Stdio => "proxy/stdio".to_owned(),
                _ => format!("proxy/session-{conn}"),
            };
            let Some(mut judged) = JudgedConnection::of(name, pair, found) else {
                continue;
            };
            if let Some(kept) = self.kept.remove(conn) {
                judged.transcript = kept.transcript;
                if kept.dropped > 0 {
                    judged.transcript.push(TranscriptLine {
                        at_ms: kept.last_ms,
                        dir: "--",
                        text: format!("{} more line(s) not kept", kept.dropped),
                        transport: self.transport.as_str(),
                        raw: None,
                    });
                }
                let first = kept.first_ms.unwrap_or(kept.last_ms);
                judged.duration = Duration::from_millis(kept.last_ms - first);
            }
            out.push(judged);
        }
        out
    }

    /// What was found, by connection.
    pub fn found(&self) -> &BTreeMap<u64, Vec<PairViolation>> {
        &self.found
    }

    /// How many violations were found.
    pub fn count(&self) -> usize {
        self.found.values().map(Vec::len).sum()
    }

    fn keep(&mut self, conn: u64, found: Vec<PairViolation>) {
        if found.is_empty() {
            return;
        }
        if !self.quiet {
            let mut err = std::io::stderr().lock();
            for v in &found {
                let _ = writeln!(err, "{}", live_line(conn, self.transport, v));
            }
        }
        self.found.entry(conn).or_default().extend(found);
    }
}

/// `mcpspec proxy: server broke MUST lifecycle.x (session 2): detail`.
pub fn live_line(conn: u64, transport: Transport, v: &PairViolation) -> String {
    let r = v.violation.requirement;
    let conn = match transport {
        Transport::Stdio => String::new(),
        _ => format!(" [session {conn}]"),
    };
    format!(
        "mcpspec proxy: {} broke {} {}{conn} at {} ms: {}",
        v.side,
        r.level.as_str().to_uppercase(),
        r.id,
        v.violation.at_ms,
        v.violation.detail
    )
}

fn side(peer: Peer) -> Side {
    match peer {
        Peer::Client => Side::Client,
        Peer::Server => Side::Server,
    }
}

/// A tap as the two-sided judge takes it.
fn traffic(tap: Tap) -> Traffic {
    match tap {
        Tap::Message {
            from, via, bytes, ..
        } => Traffic::Message {
            from: side(from),
            via,
            bytes,
        },
        Tap::Unframed { from, via, error } => Traffic::Unframed {
            from: side(from),
            via,
            error,
        },
        Tap::Http { via, record } => Traffic::Http { via, record },
        Tap::Sse { via, event } => Traffic::Sse { via, event },
        Tap::Gone {
            side: peer,
            via,
            event,
        } => Traffic::Gone {
            side: side(peer),
            via,
            event,
        },
    }
}
