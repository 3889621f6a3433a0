//! How a fuzz session feeds the one oracle ([`mcpspec_oracle::Oracle`]),
//! exactly as the runner feeds it: every byte the fuzzer sends
//! ([`Observed::SentBytes`]: inputs, sync pings, the handshake, answers to
//! the target's requests), each POST as it starts ([`Observed::Posted`]),
//! and every transport event ([`Observed::Received`]). Nothing is judged
//! here: the violations go to the session's [`crate::oracle::Judge`].
//!
//! The oracle judges at one version. A fuzz session learns its version in
//! the handshake (a server may answer with another than the one asked for;
//! a client is answered with the one it asks for), so the feed keeps what
//! it observed until the version is settled ([`Feed::settle`]) and, if the
//! version differs, replays it to a fresh oracle of the settled version.
//!
//! [`Observed::End`] is not fed: what a target that went away still owes
//! is fuzz policy (the `alive` and `unanswered` oracles know which answers
//! an input owes and which it merely allows).

use mcpspec_engine::{Role, Version, Violation};
use mcpspec_oracle::{Observed, Oracle};
use mcpspec_transport::{Event, Transport, Via};

/// An observation kept for a replay.
#[derive(Debug)]
enum Kept {
    SentBytes(u64, Vec<u8>),
    Posted(u64, Vec<u8>),
    Received(u64, Via, Event),
}

/// The oracle of one fuzz session.
#[derive(Debug)]
pub struct Feed {
    judged: Role,
    transport: Transport,
    oracle: Oracle,
    /// Until the version is settled: what was observed.
    kept: Option<Vec<Kept>>,
}

impl Feed {
    /// A feed judging a peer playing `judged` over `transport`, at
    /// `version` until the handshake settles it.
    pub fn new(judged: Role, version: Version, transport: Transport) -> Self {
        Feed {
            judged,
            transport,
            oracle: Oracle::new(judged, version, transport),
            kept: Some(Vec::new()),
        }
    }

    /// This side sent `bytes` (one or more lines, or a POST body).
    pub fn sent(&mut self, at_ms: u64, bytes: &[u8]) -> Vec<Violation> {
        if let Some(kept) = &mut self.kept {
            kept.push(Kept::SentBytes(at_ms, bytes.to_vec()));
        }
        self.oracle.observe(at_ms, Observed::SentBytes(bytes))
    }

    /// This side started a POST with `body`.
    pub fn posted(&mut self, at_ms: u64, body: &[u8]) -> Vec<Violation> {
        if let Some(kept) = &mut self.kept {
            kept.push(Kept::Posted(at_ms, body.to_vec()));
        }
        self.oracle.observe(at_ms, Observed::Posted(body))
    }

    /// The transport saw `event` of the target's.
    pub fn received(&mut self, at_ms: u64, via: Via, event: &Event) -> Vec<Violation> {
        if let Some(kept) = &mut self.kept {
            kept.push(Kept::Received(at_ms, via, event.clone()));
        }
        self.oracle
            .observe(at_ms, Observed::Received { via, event })
    }

    /// The handshake settled on `version`: from now on the oracle judges
    /// at it. What came before was judged already (at the version asked
    /// for), so a replay's violations are not reported twice.
    pub fn settle(&mut self, version: Version) {
        let Some(kept) = self.kept.take() else { return };
        if version == self.oracle.version() {
            return;
        }
        let mut oracle = Oracle::new(self.judged, version, self.transport);
        for k in &kept {
            let _ = match k {
                Kept::SentBytes(at, b) => oracle.observe(*at, Observed::SentBytes(b)),
                Kept::Posted(at, b) => oracle.observe(*at, Observed::Posted(b)),
                Kept::Received(at, via, event) => {
                    oracle.observe(*at, Observed::Received { via: *via, event })
                }
            };
        }
        self.oracle = oracle;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_wire::Frame;

    fn frame(text: &str) -> Event {
        Event::Frame(Frame {
            bytes: text.as_bytes().to_vec(),
            line: 1,
            crlf: false,
        })
    }

    #[test]
    fn a_settled_version_keeps_what_was_sent_before() {
        let mut feed = Feed::new(Role::Server, Version::V2025_06_18, Transport::Stdio);
        feed.sent(
            0,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
        );
        feed.settle(Version::V2025_03_26);
        // The request sent before the rebuild is still known…
        let ok = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        assert!(feed.received(1, Via::Stdio, &frame(ok)).is_empty());
        // …and the settled version judges: 2025-03-26 has batches.
        feed.sent(2, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let batch = r#"[{"jsonrpc":"2.0","id":2,"result":{}}]"#;
        assert!(feed.received(3, Via::Stdio, &frame(batch)).is_empty());
        let again = feed.received(4, Via::Stdio, &frame(ok));
        assert_eq!(again[0].requirement.id, "jsonrpc.response.once");
    }
}
