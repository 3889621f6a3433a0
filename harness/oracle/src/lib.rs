//! # mcpspec-oracle — the one judge
//!
//! Every verdict that a peer broke a rule of the protocol is decided here and
//! nowhere else. The oracle is sans-IO: it is told what crossed a connection
//! ([`Observed`]) and when (milliseconds since the connection started), and
//! answers with the [`Violation`]s the judged peer committed. It reads no
//! socket and no clock, so every feeder gets the same verdict for the same
//! traffic.
//!
//! ```text
//!  bytes ──► wire (frames, messages, HTTP records, SSE events)
//!                 │
//!                 ▼
//!   Observed ──► Oracle::observe(at, observed) ──► Vec<Violation> ──► findings
//!                 │   engine Session (ids, lifecycle, stateless rules)
//!                 │   schema (each message against its version's definition)
//!                 │   transport rules (stdio lines, HTTP exchanges, SSE)
//!                 ▲
//!   fed by: runner (scenario cases, both roles) · reference self-checks
//!           · black-box fuzzers (`mcpspec fuzz`) · both sides at once ([`Pair`]): `mcpspec judge`, proxy
//! ```
//!
//! An [`Oracle`] judges one connection from one side: it knows the role of
//! the peer it judges, the version the connection runs at and the transport.
//! What this side sends is observed too (never judged): a later answer is
//! only judged against the requests it answers.
//!
//! Where each rule lives:
//!
//! | module | rules |
//! |---|---|
//! | [`frames`] | every frame the peer sends: JSON-RPC validity, stdio's only-MCP and newline rules, batches, ids, lifecycle and the stateless rules (through the engine's [`Session`]), answers owed when the peer goes away |
//! | [`schema`] | every message against its version's schema definition, reported under the rule that is that definition where there is one |
//! | `content` | what a message says beyond its schema: capabilities declared before use, progress tokens, cancellations, `_meta` keys, JSON Schemas and URI templates inside results, sampling conversations |
//! | [`server_http`] | a server's HTTP answers: POST status and content type, refusals, responses on the GET stream, SSE event ids, the legacy transport's message events |
//! | [`client_http`] | a client's HTTP requests: Accept, the endpoint, one message per POST, the session echo, the protocol-version header |
//! | [`pair`] | no rule of its own: both sides of one connection judged at once (two oracles), for recorded or relayed traffic |
//! | [`auth_client`] | a client's authorization: no access token in the query string of any HTTP request; in a scripted flow ([`Observed::AuthScript`], [`Observed::AuthExchange`]), each request to the authorization server and the protected endpoint (PKCE, `resource`, `state`, discovery order, scopes, client authentication, the Bearer token) |
//!
//! An answer to a request this side cancelled is judged from when the peer
//! *had* the cancellation, not from when it was sent: over stdio the write,
//! for a client over HTTP the response head of the POST that carried it
//! ([`server_http`] tells the session). What this side knows of the
//! request's length ([`Observed::Lasts`]) decides an answer that came too
//! soon to be anything but the cancellation's doing. An answer that may
//! have crossed the cancellation is neither a violation nor a pass: it is
//! [`Oracle::undecided`] (the rules: `mcpspec_engine::session::cancellation`).
//!
//! Requirement ids and levels come from the engine's catalogue
//! ([`mcpspec_engine::catalogue`]); [`ORACLE`] lists the requirements judged
//! on every message, by which part, for coverage.

use mcpspec_engine::session::{Delivery, Undecided};
use mcpspec_engine::{Requirement, Role, Session, Version};
use mcpspec_wire::event::{Event, HttpRecord, Transport, Via};
use mcpspec_wire::{Id, Message};

pub mod auth_client;
pub mod checks;
pub mod client_http;
mod content;
pub mod frames;
pub mod pair;
pub mod schema;
pub mod server_http;
mod split;

pub use auth_client::{AuthEndpoint, AuthScript};
pub use checks::{Checker, OracleCheck, ORACLE};
pub use mcpspec_engine::Violation;
pub use pair::{Pair, PairViolation, Side, Traffic};
pub use server_http::Refusal;

/// One thing a judge can see on a connection.
#[derive(Debug, Clone, Copy)]
pub enum Observed<'a> {
    /// This side delivered a message (a line on stdio, a POST body, a reply
    /// to a client). Recorded so that the peer's answers can be matched.
    Sent(&'a Message),
    /// This side delivered exact bytes: one or more lines, each read as the
    /// peer will read it (a valid request is owed an answer; unreadable input
    /// may be answered by an error with a null id).
    SentBytes(&'a [u8]),
    /// This side started POST number *n* of the session (the n-th
    /// `Posted`) with `body`, whether or not it is delivered: the requests it
    /// carries are settled by its exchange (an HTTP refusal leaves them
    /// without an answer). Only judging a server over HTTP.
    Posted(&'a [u8]),
    /// The transport saw something of the peer: a frame (valid or not), an
    /// HTTP exchange, an SSE event or error, stderr, an exit, a closed stream.
    Received { via: Via, event: &'a Event },
    /// Serving a client over HTTP: the session id this side's endpoint holds
    /// live now (`None`: none issued, or it ended). Observed before the
    /// records it applies to.
    LiveSession(Option<&'a str>),
    /// Serving a client over Streamable HTTP: this side ended the response
    /// stream of POST `post` before its answer, the last event carrying
    /// `last_event_id` (and `retry_ms`). `at` is when it ended, on the clock
    /// of the HTTP records.
    StreamCut {
        post: u64,
        last_event_id: &'a str,
        retry_ms: Option<u64>,
    },
    /// Judging a client's authorization: what this side's scripted
    /// authorization server advertises ([`auth_client`]). Told once, before
    /// the first [`Observed::AuthExchange`].
    AuthScript(&'a AuthScript),
    /// Judging a client's authorization: one request the client made to a
    /// scripted `endpoint`, with the script's answer (no status when the
    /// script let an MCP request through). Headers are unredacted: the
    /// tokens are this side's own.
    AuthExchange {
        endpoint: AuthEndpoint,
        record: &'a HttpRecord,
    },
    /// This side's request `id`, sent just before, cannot be answered on
    /// its own sooner than `at_least_ms` after it was sent (a scenario's
    /// slow call): an earlier answer, once it is cancelled, was the
    /// cancellation's doing (`cancellation.no-response`).
    Lasts { id: &'a Id, at_least_ms: u64 },
    /// The connection is about to be ended by this side: what the peer
    /// still owes is judged now.
    End,
}

/// The one judge of one connection, seen from one side.
#[derive(Debug)]
pub struct Oracle {
    /// The role of the peer under judgement.
    judged: Role,
    /// The version the connection runs at.
    version: Version,
    transport: Transport,
    /// This side's session in the engine: lifecycle, ids, stateless rules.
    session: Session,
    /// The rules on what messages say, beyond the schema.
    content: content::State,
    server_http: server_http::State,
    client_http: client_http::State,
    auth_client: auth_client::State,
    /// How the peer went away, once it has.
    gone: Option<String>,
    /// See [`Oracle::walked_away_from`].
    walked_away: Option<String>,
    /// A message the peer broke across stdio lines, until its last line
    /// ([`split`]).
    split: Option<split::Split>,
    /// See [`Oracle::unreadable`] and [`Oracle::unreadable_rule`].
    unreadable: u64,
    unreadable_rule: Option<&'static Requirement>,
}

impl Oracle {
    /// A judge of a peer playing `judged`, at `version`, over `transport`.
    pub fn new(judged: Role, version: Version, transport: Transport) -> Self {
        let own = match judged {
            Role::Server => Role::Client,
            _ => Role::Server,
        };
        let mut session = Session::new(own, Some(version));
        if judged == Role::Server && transport != Transport::Stdio {
            // A client's cancellation reaches the server with its POST's
            // response head (see `received`), not when it was sent.
            session.set_delivery(Delivery::Reported);
        }
        Oracle {
            judged,
            version,
            transport,
            session,
            content: content::State::default(),
            server_http: server_http::State::default(),
            client_http: client_http::State::default(),
            auth_client: auth_client::State::default(),
            gone: None,
            walked_away: None,
            split: None,
            unreadable: 0,
            unreadable_rule: None,
        }
    }

    /// Judges one observation made `at_ms` after the connection started.
    pub fn observe(&mut self, at_ms: u64, observed: Observed<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        match observed {
            Observed::Sent(msg) => self.sent(msg, at_ms),
            Observed::SentBytes(bytes) => self.sent_bytes(bytes, at_ms),
            Observed::Posted(body) => self.server_http.posted(body, self.version),
            Observed::Received { via, event } => self.received(at_ms, via, event, &mut out),
            Observed::LiveSession(id) => self.client_http.live(id),
            Observed::StreamCut {
                post,
                last_event_id,
                retry_ms,
            } => self
                .client_http
                .cuts
                .cut(post, last_event_id, retry_ms, at_ms),
            Observed::AuthScript(script) => self.auth_client.script(self.version, script),
            Observed::AuthExchange { endpoint, record } => {
                if self.judged == Role::Client {
                    self.auth_client
                        .exchange(self.version, at_ms, endpoint, record, &mut out);
                }
            }
            Observed::Lasts { id, at_least_ms } => self.session.lasts(id, at_least_ms),
            Observed::End => {
                self.end(at_ms, &mut out);
                if self.judged == Role::Client {
                    self.auth_client.end(self.version, at_ms, &mut out);
                }
            }
        }
        out
    }

    /// The version the connection runs at.
    pub fn version(&self) -> Version {
        self.version
    }

    /// This side's session: what is pending, negotiated, declared.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The rules the traffic left undecided since they were last taken (an
    /// answer that may have crossed its cancellation): judged neither way.
    pub fn undecided(&self) -> &[Undecided] {
        self.session.undecided()
    }

    /// Takes what [`Oracle::undecided`] lists.
    pub fn take_undecided(&mut self) -> Vec<Undecided> {
        self.session.take_undecided()
    }

    /// How many frames of the peer's could not be taken as a message, or as
    /// an answer, so far: not JSON-RPC, a message broken across lines
    /// (counted once), not UTF-8, over the harness's line limit, invalid
    /// JSON-RPC, a response with an id no request carried (not a null one),
    /// a notification with an id, an HTTP answer accepted (2xx) in a type
    /// that carries none. An answer awaited since may have been one of them.
    pub fn unreadable(&self) -> u64 {
        self.unreadable
    }

    /// The rule the last of [`Oracle::unreadable`]'s frames broke (`None`
    /// when it broke none: a line over the harness's own limit).
    pub fn unreadable_rule(&self) -> Option<&'static Requirement> {
        self.unreadable_rule
    }

    /// Counts one frame that could not be taken, which broke `rule`.
    pub(crate) fn unread(&mut self, rule: Option<&'static Requirement>) {
        self.unreadable += 1;
        self.unreadable_rule = rule;
    }

    /// How the peer went away, once it has (an exit, a closed stream).
    pub fn gone(&self) -> Option<&str> {
        self.gone.as_deref()
    }

    /// A judged client that went away while one of its own requests was
    /// still unanswered by this side (which no clean client does: it gave
    /// up a request it was waiting for): how.
    pub fn walked_away_from(&self) -> Option<&str> {
        self.walked_away.as_deref()
    }

    fn walked_away(&mut self, how: &str) {
        if self.judged != Role::Client || self.walked_away.is_some() {
            return;
        }
        if let Some(held) = listed(self.session.peer_requests_pending()) {
            self.walked_away = Some(format!(
                "{how} while the harness held its request {held} unanswered"
            ));
        }
    }

    /// If an answer satisfying `pred` will never come because the POST that
    /// carried its request was refused: how it was refused. (A stand-in
    /// error response for each refused id is put to the predicate, which
    /// only ever asks for answers by id.)
    pub fn refused_for(&self, pred: impl Fn(&Message) -> bool) -> Option<Refusal> {
        self.server_http.refused_for(pred)
    }

    fn received(&mut self, at_ms: u64, via: Via, event: &Event, out: &mut Vec<Violation>) {
        match event {
            Event::Frame(frame) => self.frame(at_ms, via, frame, out),
            Event::FrameError(err) => self.frame_error(at_ms, via, err, out),
            // Not MCP traffic: a process may log what it likes.
            Event::Stderr(_) | Event::Stdout(_) => {}
            Event::Exited { code, signal } => {
                let how = match (code, signal) {
                    (Some(c), _) => format!("the target exited with code {c}"),
                    (None, Some(s)) => format!("the target was killed by signal {s}"),
                    (None, None) => "the target exited".to_owned(),
                };
                // An exit is the last word on how the peer went away.
                self.walked_away(&how);
                self.gone = Some(how);
                self.session.close();
            }
            Event::Closed(how) => {
                if self.gone.is_none() {
                    self.walked_away(how);
                    self.gone = Some(how.clone());
                    self.session.close();
                }
            }
            Event::Http(record) => match self.judged {
                Role::Client => self.client_request(at_ms, via, record, out),
                _ => {
                    self.server_http.exchange(
                        at_ms,
                        via,
                        record,
                        self.transport == Transport::Http,
                        self.version,
                        out,
                    );
                    if let Some(rule) = self.server_http.unanswerable.take() {
                        self.unread(Some(rule));
                    }
                    for id in self.server_http.cancellations_accepted(via) {
                        self.session.cancellation_delivered(id, at_ms);
                    }
                }
            },
            Event::SseEvent { id, .. } => {
                self.server_http
                    .sse_event(at_ms, via, id.as_deref(), self.version, out)
            }
            Event::SseError(err) => server_http::sse_error(at_ms, via, err, out),
        }
    }
}

/// Requests as a detail lists them, sorted: `ping (id 3), tools/list (id
/// 2)`; `None` when there are none.
fn listed<'a>(requests: impl Iterator<Item = (&'a Id, &'a str)>) -> Option<String> {
    let mut all: Vec<String> = requests
        .map(|(id, method)| format!("{method} (id {id})"))
        .collect();
    all.sort();
    (!all.is_empty()).then(|| all.join(", "))
}
