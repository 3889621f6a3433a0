//! Both sides of one connection judged at once: what a real client and a
//! real server said to each other, recorded (`mcpspec judge`) or relayed
//! (`mcpspec proxy`).
//!
//! A [`Pair`] holds two [`Oracle`]s and decides nothing itself: each
//! observation ([`Traffic`]) is routed to both, as each side would have
//! seen it, and every violation comes back tagged with the [`Side`] that
//! committed it.
//!
//! ```text
//!                         judging the server            judging the client
//!  client message     ──► Sent/SentBytes (+Posted)       Received Frame
//!  server message     ──► Received Frame                 Sent/SentBytes
//!  HTTP exchange      ──► Received Http                  LiveSession, Received Http, then the POST's body
//!  unframed bytes    ──► Received FrameError            (judging the sender; the other: SentBytes)
//!  SSE event / error  ──► Received SseEvent / SseError   —
//!  a side went away   ──► to the oracle judging that side (Exited / Closed)
//!  end                ──► End                            End
//! ```
//!
//! Order matters as it does for the runner: over HTTP, feed a POST's body
//! ([`Traffic::Message`] from the client on `Via::Post(n)`) before its
//! exchange's record ([`Traffic::Http`]), and the response's SSE events and
//! messages after it. The client-judging oracle wants the record first (it
//! judges the request's headers before its body, as the serving transport
//! reports them): the pair holds the body until the record comes (or the
//! end).
//!
//! The session the client-judging oracle holds is the server's: its live
//! `Mcp-Session-Id` is the one the server issued in a response header, and
//! ends with a DELETE the server accepted. (The legacy transport's session
//! lives in the harness's own endpoint URI, which real servers name as they
//! like: it is left unknown, so the legacy endpoint rule is not applied.)
//!
//! The version: given, or learnt from the traffic. Until it is known the
//! pair buffers what it is told; the answer to `initialize` naming a known
//! version, or a request naming its version in `_meta` (2026-07-28), settles
//! it; at the end an unsettled connection is judged at the version the
//! client asked for, else the newest handshake version
//! ([`Pair::version_source`] says which).

use std::collections::BTreeMap;
use std::fmt;

use mcpspec_engine::session::META_PROTOCOL_VERSION;
use mcpspec_engine::{Role, Version, Violation};
use mcpspec_wire::event::{Event, HttpRecord, Transport, Via};
use mcpspec_wire::{classify, Frame, FrameError, FrameErrorKind, Id, Inbound, Message};
use serde_json::Value;

use crate::{Observed, Oracle};

/// One side of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Client,
    Server,
}

impl Side {
    /// `client` or `server`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }

    /// The role a peer on this side plays.
    pub fn role(self) -> Role {
        match self {
            Side::Client => Role::Client,
            Side::Server => Role::Server,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A violation and the side that committed it.
#[derive(Debug, Clone, PartialEq)]
pub struct PairViolation {
    pub side: Side,
    pub violation: Violation,
}

/// One thing seen on the connection, owned (it may wait for the version).
#[derive(Debug, Clone)]
pub enum Traffic {
    /// `from` sent one message on `via`: a stdio line (without its newline;
    /// bytes holding several lines are several frames, as in a raw write),
    /// a POST body (client), a JSON response body or the data of
    /// one SSE `message` event (server). Bytes need not be valid.
    Message {
        from: Side,
        via: Via,
        bytes: Vec<u8>,
    },
    /// `from` sent something on `via` that could not be read as a message
    /// frame (a stdio line that broke the framing, a body not UTF-8).
    Unframed {
        from: Side,
        via: Via,
        error: FrameError,
    },
    /// One HTTP exchange (the client's request, the server's answer).
    Http { via: Via, record: HttpRecord },
    /// The server's event stream on `via`: an [`Event::SseEvent`] (its data
    /// follows as a message) or an [`Event::SseError`].
    Sse { via: Via, event: Event },
    /// `side` went away: an [`Event::Exited`] or [`Event::Closed`].
    Gone { side: Side, via: Via, event: Event },
}

/// Where the version the pair judges at came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionSource {
    /// Given by the caller.
    Given,
    /// The answer to `initialize`, or a request's `_meta`.
    Negotiated,
    /// Never settled: the version the client asked for in `initialize`.
    Asked,
    /// Never settled nor asked: the newest handshake version.
    Default,
}

/// The two judges of one connection.
#[derive(Debug)]
pub struct Pair {
    transport: Transport,
    /// Both judges, once the version is known.
    judges: Option<Judges>,
    source: Option<VersionSource>,
    /// What came before the version was known.
    held: Vec<(u64, Traffic)>,
    /// The client's `initialize`: its id and the version it asked for.
    asked: Option<(Id, Option<String>)>,
    /// Messages seen from each side: (client, server).
    messages: (usize, usize),
    ended: bool,
}

#[derive(Debug)]
struct Judges {
    /// Judges the server (plays the client).
    server: Oracle,
    /// Judges the client (plays the server).
    client: Oracle,
    /// Client POST bodies waiting for their record, by POST number.
    bodies: BTreeMap<u64, Vec<u8>>,
    /// The session the server issued and has not ended.
    live: Option<String>,
    /// Frame numbers so far, per sender: (client, server).
    lines: (u64, u64),
}

impl Pair {
    /// A judge of a connection over `transport`, at `version` if known
    /// (else learnt from the traffic).
    pub fn new(transport: Transport, version: Option<Version>) -> Self {
        Pair {
            transport,
            judges: version.map(|v| Judges::new(transport, v)),
            source: version.map(|_| VersionSource::Given),
            held: Vec::new(),
            asked: None,
            messages: (0, 0),
            ended: false,
        }
    }

    /// The version judged at, once known.
    pub fn version(&self) -> Option<Version> {
        self.judges.as_ref().map(|j| j.server.version())
    }

    /// Where the version came from, once known.
    pub fn version_source(&self) -> Option<VersionSource> {
        self.source
    }

    /// The transport judged.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// How many messages `side` sent (a side that sent none was not judged
    /// on anything it says).
    pub fn messages(&self, side: Side) -> usize {
        match side {
            Side::Client => self.messages.0,
            Side::Server => self.messages.1,
        }
    }

    /// The oracle judging `side`, once the version is known.
    pub fn oracle(&self, side: Side) -> Option<&Oracle> {
        self.judges.as_ref().map(|j| match side {
            Side::Client => &j.client,
            Side::Server => &j.server,
        })
    }

    /// Judges one observation made `at_ms` after the connection started.
    pub fn observe(&mut self, at_ms: u64, traffic: Traffic) -> Vec<PairViolation> {
        if let Traffic::Message { from, bytes, .. } = &traffic {
            match from {
                Side::Client => self.messages.0 += 1,
                Side::Server => self.messages.1 += 1,
            }
            if self.judges.is_none() {
                if let Some(v) = self.learn(*from, bytes) {
                    self.settle(v, VersionSource::Negotiated);
                }
            }
        }
        let mut out = Vec::new();
        match &mut self.judges {
            Some(j) => {
                // What was held is judged first, in its order.
                for (at, held) in std::mem::take(&mut self.held) {
                    j.route(at, &held, &mut out);
                }
                j.route(at_ms, &traffic, &mut out);
            }
            None => self.held.push((at_ms, traffic)),
        }
        out
    }

    /// The connection is over: what each side still owes is judged (an
    /// unsettled version is settled now, see the module doc).
    pub fn end(&mut self, at_ms: u64) -> Vec<PairViolation> {
        if self.ended {
            return Vec::new();
        }
        self.ended = true;
        if self.judges.is_none() {
            let asked = self
                .asked
                .as_ref()
                .and_then(|(_, v)| v.as_deref())
                .and_then(|v| v.parse::<Version>().ok());
            match asked {
                Some(v) => self.settle(v, VersionSource::Asked),
                None => self.settle(Version::LATEST_HANDSHAKE, VersionSource::Default),
            }
        }
        let mut out = Vec::new();
        if let Some(j) = &mut self.judges {
            for (at, held) in std::mem::take(&mut self.held) {
                j.route(at, &held, &mut out);
            }
            j.end(at_ms, &mut out);
        }
        out
    }

    fn settle(&mut self, v: Version, source: VersionSource) {
        self.judges = Some(Judges::new(self.transport, v));
        self.source = Some(source);
    }

    /// The version `bytes` from `from` settles, if any.
    fn learn(&mut self, from: Side, bytes: &[u8]) -> Option<Version> {
        for msg in messages(bytes) {
            match (from, &msg) {
                (Side::Client, Message::Request(r)) if r.method == "initialize" => {
                    let asked = r
                        .params
                        .as_ref()
                        .and_then(|p| p.get("protocolVersion"))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    self.asked = Some((r.id.clone(), asked));
                }
                (Side::Client, Message::Request(r)) if self.asked.is_none() => {
                    let meta = r
                        .params
                        .as_ref()
                        .and_then(|p| p.get("_meta"))
                        .and_then(|m| m.get(META_PROTOCOL_VERSION))
                        .and_then(Value::as_str)
                        .and_then(|v| v.parse::<Version>().ok());
                    if meta.is_some() {
                        return meta;
                    }
                }
                (Side::Server, Message::Response(r)) => {
                    let init = self.asked.as_ref().map(|(id, _)| id);
                    if r.id.is_some() && r.id.as_ref() == init {
                        let named = r
                            .outcome
                            .as_ref()
                            .ok()
                            .and_then(|v| v.get("protocolVersion"))
                            .and_then(Value::as_str)
                            .and_then(|v| v.parse::<Version>().ok());
                        if named.is_some() {
                            return named;
                        }
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// The readable messages of `bytes` (a batch's readable members).
fn messages(bytes: &[u8]) -> Vec<Message> {
    match classify(bytes) {
        Ok(Inbound::Single(m)) => vec![m],
        Ok(Inbound::Batch(items)) => items.into_iter().flatten().collect(),
        Err(_) => Vec::new(),
    }
}

impl Judges {
    fn new(transport: Transport, v: Version) -> Self {
        Judges {
            server: Oracle::new(Role::Server, v, transport),
            client: Oracle::new(Role::Client, v, transport),
            bodies: BTreeMap::new(),
            live: None,
            lines: (0, 0),
        }
    }

    fn route(&mut self, at: u64, traffic: &Traffic, out: &mut Vec<PairViolation>) {
        let http = self.server.transport != Transport::Stdio;
        match traffic {
            Traffic::Message { from, via, bytes } => match from {
                Side::Client => {
                    if http && via.post().is_some() {
                        self.server.observe(at, Observed::Posted(bytes));
                    }
                    sent(&mut self.server, at, bytes);
                    match via {
                        Via::Post(n) if http => {
                            self.bodies.insert(*n, bytes.clone());
                        }
                        _ => self.frames(at, Side::Client, *via, bytes, out),
                    }
                }
                Side::Server => {
                    self.frames(at, Side::Server, *via, bytes, out);
                    sent(&mut self.client, at, bytes);
                }
            },
            Traffic::Unframed { from, via, error } => {
                let event = Event::FrameError(error.clone());
                let seen = Observed::Received {
                    via: *via,
                    event: &event,
                };
                let (judge, other) = match from {
                    Side::Client => (&mut self.client, &mut self.server),
                    Side::Server => (&mut self.server, &mut self.client),
                };
                tag(*from, judge.observe(at, seen), out);
                if std::str::from_utf8(&error.bytes).is_ok() {
                    sent(other, at, &error.bytes);
                }
            }
            Traffic::Http { via, record } => {
                let event = Event::Http(Box::new(record.clone()));
                let seen = Observed::Received {
                    via: *via,
                    event: &event,
                };
                tag(Side::Server, self.server.observe(at, seen), out);
                self.follow_session(record);
                let live = Observed::LiveSession(self.live.as_deref());
                tag(Side::Client, self.client.observe(at, live), out);
                tag(Side::Client, self.client.observe(at, seen), out);
                if let Some(n) = via.post() {
                    self.body(at, n, out);
                }
            }
            Traffic::Sse { via, event } => {
                let seen = Observed::Received { via: *via, event };
                tag(Side::Server, self.server.observe(at, seen), out);
            }
            Traffic::Gone { side, via, event } => {
                let seen = Observed::Received { via: *via, event };
                match side {
                    Side::Server => tag(Side::Server, self.server.observe(at, seen), out),
                    Side::Client => tag(Side::Client, self.client.observe(at, seen), out),
                }
            }
        }
    }

    /// `from`'s bytes as the frames its judge receives: on stdio one per
    /// line (blank lines are no frames), elsewhere the whole body.
    fn frames(
        &mut self,
        at: u64,
        from: Side,
        via: Via,
        bytes: &[u8],
        out: &mut Vec<PairViolation>,
    ) {
        let lines: Vec<&[u8]> = if via == Via::Stdio {
            bytes
                .split(|&b| b == b'\n')
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                .collect()
        } else {
            vec![bytes]
        };
        for line in lines {
            let (count, judge) = match from {
                Side::Client => (&mut self.lines.0, &mut self.client),
                Side::Server => (&mut self.lines.1, &mut self.server),
            };
            *count += 1;
            let event = frame_event(line, *count);
            let seen = Observed::Received { via, event: &event };
            tag(from, judge.observe(at, seen), out);
        }
    }

    /// The held body of POST `n`, now that its record was judged.
    fn body(&mut self, at: u64, n: u64, out: &mut Vec<PairViolation>) {
        if let Some(bytes) = self.bodies.remove(&n) {
            self.lines.0 += 1;
            let event = frame_event(&bytes, self.lines.0);
            let seen = Observed::Received {
                via: Via::Post(n),
                event: &event,
            };
            tag(Side::Client, self.client.observe(at, seen), out);
        }
    }

    /// The server's session, as its answers set it: issued in a response
    /// header, ended by a DELETE it accepted. (Streamable HTTP only.)
    fn follow_session(&mut self, record: &HttpRecord) {
        if self.server.transport != Transport::Http {
            return;
        }
        let ok = record.status.is_some_and(|s| (200..300).contains(&s));
        if record.method == "DELETE" && ok {
            self.live = None;
        } else if let (true, Some(id)) = (ok, record.response_header("mcp-session-id")) {
            self.live = Some(id.to_owned());
        }
    }

    fn end(&mut self, at: u64, out: &mut Vec<PairViolation>) {
        let held: Vec<u64> = self.bodies.keys().copied().collect();
        for n in held {
            self.body(at, n, out);
        }
        tag(Side::Server, self.server.observe(at, Observed::End), out);
        tag(Side::Client, self.client.observe(at, Observed::End), out);
    }
}

/// What one side sent, told to the oracle that plays that side: stdio
/// lines as the peer reads them; a multi-line HTTP body (pretty-printed
/// JSON) as the messages it holds.
fn sent(oracle: &mut Oracle, at: u64, bytes: &[u8]) {
    if oracle.transport == Transport::Stdio || !bytes.contains(&b'\n') {
        oracle.observe(at, Observed::SentBytes(bytes));
        return;
    }
    match classify(bytes) {
        Ok(_) => {
            for msg in messages(bytes) {
                oracle.observe(at, Observed::Sent(&msg));
            }
        }
        Err(_) => {
            let flat: Vec<u8> = bytes
                .iter()
                .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
                .collect();
            oracle.observe(at, Observed::SentBytes(&flat));
        }
    }
}

/// A message's bytes as the transport reports them: a frame, or a frame
/// error when they are not UTF-8.
fn frame_event(bytes: &[u8], line: u64) -> Event {
    match std::str::from_utf8(bytes) {
        Ok(_) => Event::Frame(Frame {
            bytes: bytes.to_vec(),
            line,
            crlf: false,
        }),
        Err(e) => Event::FrameError(FrameError {
            kind: FrameErrorKind::InvalidUtf8 {
                valid_up_to: e.valid_up_to(),
            },
            line,
            bytes: bytes.to_vec(),
        }),
    }
}

fn tag(side: Side, found: Vec<Violation>, out: &mut Vec<PairViolation>) {
    out.extend(
        found
            .into_iter()
            .map(|violation| PairViolation { side, violation }),
    );
}

#[cfg(test)]
mod tests;
