//! Invariant checker for the `engine` fuzz target in `fuzz/` (and for the
//! corpus test that replays `fuzz/corpus/engine` on stable).
//!
//! [`engine`] turns arbitrary bytes into a script of messages crossing one
//! connection, plays it against a [`Session`] of each role, and checks what
//! the public API promises:
//!
//! - no panic, whatever arrives in whatever order;
//! - every [`Violation`] names a catalogued requirement (never
//!   `uncatalogued`) that binds the peer (or both sides), stamped with the
//!   time of the message that caused it;
//! - a request the peer owed (listed by [`Session::pending`]) is answered
//!   without a `jsonrpc.response.*` violation, and an answered id is never
//!   pending again until this side sends a request with that id anew; an
//!   answer to an id that no request of ours carried is always flagged;
//! - a request this side sends is pending until answered or cancelled;
//! - the lifecycle phase only moves forward (the ways back: a failed
//!   `initialize` returns to `BeforeInit`; a stateless session whose
//!   fallback `initialize` succeeds moves to `Initialized`), and a known
//!   version never changes, except by that fallback (from the stateless
//!   version to a handshake version);
//! - judgement is deterministic: the same script gives the same violations.
//!
//! Script layout (lines split at `\n`; [`script`] writes one):
//!
//! ```text
//!   2025-06-18                     header: the pinned version, `-` for none;
//!                                  other bytes pick one (arbitrary)
//!   >{"jsonrpc":"2.0",...}         a frame this side sends (classified; blank → outbound_blank)
//!   <{"jsonrpc":"2.0",...}         a frame the peer sends (batches and invalid frames too)
//!   <any other bytes>              an `arbitrary`-driven run of operations built
//!                                  from small pools: requests, answers to known
//!                                  and unknown ids, initialize/initialized,
//!                                  cancellations, progress, batches, close, time
//!   (empty line)                   ignored
//! ```
//!
//! Text frames make seeds readable (they come from the scenario files); the
//! generated lines let the fuzzer reach odd orders quickly.

use std::collections::{HashMap, HashSet};

use arbitrary::{Arbitrary, Unstructured};
use mcpspec_wire::{
    classify, ErrorObject, Id, Inbound, Invalid, InvalidKind, JsonType, Message, Response,
};
use serde_json::{json, Value};

use crate::catalogue::ids;
use crate::level::Role;
use crate::requirement::{lookup, Binds};
use crate::session::{Direction, Phase, Session, Violation};
use crate::version::{Lifecycle, Version};

/// Fuzz check: play the script in `data` against a session of each role.
pub fn engine(data: &[u8]) {
    let script = Script::parse(data);
    for role in [Role::Client, Role::Server] {
        let first = run(&script, role);
        let again = run(&script, role);
        assert_eq!(
            first, again,
            "the same script judged twice differently ({role:?})"
        );
    }
}

/// Writes an [`engine`] script: the header, then one line per frame
/// (`>` outbound, `<` inbound). Frames containing `\n` cannot be written as
/// one line and are left out.
pub fn script(version: Option<Version>, frames: &[(Direction, Vec<u8>)]) -> Vec<u8> {
    let mut out = version.map_or("-", Version::as_str).as_bytes().to_vec();
    for (direction, frame) in frames {
        if frame.contains(&b'\n') {
            continue;
        }
        out.push(b'\n');
        out.push(match direction {
            Direction::Outbound => b'>',
            Direction::Inbound => b'<',
        });
        out.extend_from_slice(frame);
    }
    out.push(b'\n');
    out
}

struct Script {
    version: Option<Version>,
    ops: Vec<Op>,
}

#[derive(Debug)]
enum Op {
    Frame(Direction, Vec<u8>),
    Gen(GenOp),
}

impl Script {
    fn parse(data: &[u8]) -> Self {
        let mut lines = data.split(|&b| b == b'\n');
        let header = lines.next().unwrap_or_default();
        let version = match std::str::from_utf8(header).map(str::trim) {
            Ok("-" | "") => None,
            Ok(text) if text.parse::<Version>().is_ok() => text.parse().ok(),
            _ => {
                let choices: Vec<Option<Version>> = std::iter::once(None)
                    .chain(Version::ALL.into_iter().map(Some))
                    .collect();
                Unstructured::new(header)
                    .choose(&choices)
                    .ok()
                    .copied()
                    .flatten()
            }
        };
        let mut ops = Vec::new();
        for line in lines {
            match line.split_first() {
                None => {}
                Some((b'>', rest)) => ops.push(Op::Frame(Direction::Outbound, rest.to_vec())),
                Some((b'<', rest)) => ops.push(Op::Frame(Direction::Inbound, rest.to_vec())),
                Some(_) => {
                    let mut u = Unstructured::new(line);
                    while !u.is_empty() {
                        let before = u.len();
                        match GenOp::arbitrary(&mut u) {
                            Ok(op) => ops.push(Op::Gen(op)),
                            Err(_) => break,
                        }
                        if u.len() == before {
                            break;
                        }
                    }
                }
            }
        }
        Script { version, ops }
    }
}

// ── generated operations, from small pools ──────────────────────────────────

#[derive(Debug, Arbitrary)]
enum GenOp {
    Send(Msg),
    Receive(Msg),
    /// This side sends bytes the peer cannot read (with a readable id or not).
    SendUnreadable(Option<PoolId>),
    SendBlank,
    ReceiveInvalid(Option<PoolId>),
    ReceiveBatch(Vec<Msg>),
    Close,
    Wait(u16),
}

#[derive(Debug, Arbitrary)]
enum Msg {
    Request {
        id: PoolId,
        method: Method,
        params: Params,
    },
    Notification {
        method: Method,
        params: Params,
    },
    Result {
        id: PoolId,
        empty: bool,
    },
    Error {
        id: Option<PoolId>,
        id_absent: bool,
        code: i16,
    },
    Initialize {
        id: PoolId,
        version: PoolVersion,
    },
    InitializeResult {
        id: PoolId,
        version: PoolVersion,
        logging: bool,
    },
    Initialized,
    Cancel {
        id: PoolId,
    },
    Progress {
        token: Token,
        progress: Progress,
    },
    Log,
}

/// Picks one of a fixed list of values.
macro_rules! pool {
    ($name:ident: $ty:ty = [$($item:expr),+ $(,)?]) => {
        #[derive(Debug)]
        struct $name($ty);
        impl<'a> Arbitrary<'a> for $name {
            fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
                let items: &[fn() -> $ty] = &[$(|| $item),+];
                Ok($name(u.choose(items)?()))
            }
        }
    };
}

pool!(PoolId: Id = [
    Id::from(0),
    Id::from(1),
    Id::from(2),
    Id::from(-1),
    Id::from("a"),
    Id::from("1"),
    Id::Number(u64::MAX.into()),
]);
pool!(Method: &'static str = [
    "ping",
    "initialize",
    "tools/list",
    "tools/call",
    "resources/read",
    "prompts/get",
    "sampling/createMessage",
    "roots/list",
    "logging/setLevel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "mcpspec/unknown",
]);
pool!(Token: Value = [json!("t"), json!("u"), json!(1), json!(1.5), json!(null), json!({"k": 1})]);
pool!(Progress: Option<Value> = [
    None,
    Some(json!(0)),
    Some(json!(0.5)),
    Some(json!(1)),
    Some(json!(2)),
    Some(json!(-1)),
    Some(json!("1")),
    Some(json!(1e300)),
]);
pool!(PoolVersion: &'static str = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "1999-01-01",
]);

#[derive(Debug, Arbitrary)]
enum Params {
    Absent,
    Empty,
    Array,
    ProgressToken(Token),
    RequestId(PoolId),
    ToolCall(Token),
}

impl Params {
    fn value(&self) -> Option<Value> {
        match self {
            Params::Absent => None,
            Params::Empty => Some(json!({})),
            Params::Array => Some(json!([])),
            Params::ProgressToken(t) => Some(json!({"_meta": {"progressToken": t.0}})),
            Params::RequestId(id) => Some(json!({"requestId": id.0.to_value()})),
            Params::ToolCall(t) => Some(json!({
                "name": "x", "arguments": {}, "_meta": {"progressToken": t.0}
            })),
        }
    }
}

impl Msg {
    fn build(&self) -> Message {
        match self {
            Msg::Request { id, method, params } => {
                Message::request(id.0.clone(), method.0, params.value())
            }
            Msg::Notification { method, params } => Message::notification(method.0, params.value()),
            Msg::Result { id, empty } => {
                let result = if *empty {
                    json!({})
                } else {
                    json!({"tools": []})
                };
                Message::result(id.0.clone(), result)
            }
            Msg::Error {
                id,
                id_absent,
                code,
            } => {
                let id = id.as_ref().map(|i| i.0.clone());
                Message::Response(Response {
                    id_absent: id.is_none() && *id_absent,
                    id,
                    outcome: Err(ErrorObject {
                        code: i64::from(*code),
                        message: "fuzz".to_owned(),
                        data: None,
                    }),
                })
            }
            Msg::Initialize { id, version } => Message::request(
                id.0.clone(),
                "initialize",
                Some(json!({
                    "protocolVersion": version.0,
                    "capabilities": {},
                    "clientInfo": {"name": "fuzz", "version": "0"}
                })),
            ),
            Msg::InitializeResult {
                id,
                version,
                logging,
            } => {
                let capabilities = if *logging {
                    json!({"logging": {}})
                } else {
                    json!({"tools": {}})
                };
                Message::result(
                    id.0.clone(),
                    json!({
                        "protocolVersion": version.0,
                        "capabilities": capabilities,
                        "serverInfo": {"name": "fuzz", "version": "0"}
                    }),
                )
            }
            Msg::Initialized => Message::notification("notifications/initialized", None),
            Msg::Cancel { id } => Message::notification(
                "notifications/cancelled",
                Some(json!({"requestId": id.0.to_value()})),
            ),
            Msg::Progress { token, progress } => {
                let mut params = json!({"progressToken": token.0});
                if let (Some(p), Value::Object(m)) = (&progress.0, &mut params) {
                    m.insert("progress".into(), p.clone());
                }
                Message::notification("notifications/progress", Some(params))
            }
            Msg::Log => Message::notification(
                "notifications/message",
                Some(json!({"level": "info", "data": "fuzz"})),
            ),
        }
    }
}

fn unreadable(id: Option<&PoolId>) -> Invalid {
    match id {
        // A request whose `method` is not a string: invalid, id readable.
        Some(id) => Invalid {
            kind: InvalidKind::MethodNotString(JsonType::Integer),
            id: Some(id.0.clone()),
        },
        // Bytes that stop in the middle of a JSON value.
        None => Invalid {
            kind: InvalidKind::IncompleteJson,
            id: None,
        },
    }
}

// ── playing a script ────────────────────────────────────────────────────────

/// What the checker knows independently of the session.
struct Player {
    s: Session,
    now: u64,
    /// Ids of requests this side sent (or unreadable messages with a readable id).
    sent: HashSet<Id>,
    /// Ids the peer answered, not re-sent since.
    answered: HashSet<Id>,
    /// Requests (or unreadable messages) sent with each id and not answered
    /// yet: two at once share the id, and an answer cannot say whose it is.
    outstanding: HashMap<Id, u32>,
    violations: Vec<Violation>,
}

fn run(script: &Script, role: Role) -> Vec<Violation> {
    let mut p = Player {
        s: Session::new(role, script.version),
        now: 0,
        sent: HashSet::new(),
        answered: HashSet::new(),
        outstanding: HashMap::new(),
        violations: Vec::new(),
    };
    for op in &script.ops {
        p.now += 1;
        let phase = p.s.phase().clone();
        let version = p.s.version();
        match op {
            Op::Frame(Direction::Outbound, bytes) => p.send_frame(bytes),
            Op::Frame(Direction::Inbound, bytes) => p.receive_frame(bytes),
            Op::Gen(op) => p.generated(op),
        }
        p.check_state(&phase, version);
    }
    p.violations
}

impl Player {
    fn send_frame(&mut self, bytes: &[u8]) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            self.s.outbound_blank();
            return;
        }
        match classify(bytes) {
            Ok(Inbound::Single(m)) => self.send(&m),
            Ok(Inbound::Batch(items)) => {
                for item in items {
                    match item {
                        Ok(m) => self.send(&m),
                        Err(invalid) => self.send_unreadable(&invalid),
                    }
                }
            }
            Err(invalid) => self.send_unreadable(&invalid),
        }
    }

    fn receive_frame(&mut self, bytes: &[u8]) {
        match classify(bytes) {
            Ok(Inbound::Single(m)) => self.receive(&m),
            Ok(Inbound::Batch(items)) => {
                self.batch();
                for item in items {
                    match item {
                        Ok(m) => self.receive(&m),
                        Err(invalid) => self.receive_invalid(&invalid),
                    }
                }
            }
            Err(invalid) => self.receive_invalid(&invalid),
        }
    }

    fn generated(&mut self, op: &GenOp) {
        match op {
            GenOp::Send(m) => self.send(&m.build()),
            GenOp::Receive(m) => self.receive(&m.build()),
            GenOp::SendUnreadable(id) => self.send_unreadable(&unreadable(id.as_ref())),
            GenOp::SendBlank => self.s.outbound_blank(),
            GenOp::ReceiveInvalid(id) => self.receive_invalid(&unreadable(id.as_ref())),
            GenOp::ReceiveBatch(items) => {
                self.batch();
                for m in items {
                    self.receive(&m.build());
                }
            }
            GenOp::Close => self.s.close(),
            GenOp::Wait(ms) => self.now += u64::from(*ms),
        }
    }

    fn send(&mut self, m: &Message) {
        self.s.outbound(m, self.now);
        if let Message::Request(r) = m {
            self.sent.insert(r.id.clone());
            self.answered.remove(&r.id);
            let count = self.outstanding.entry(r.id.clone()).or_default();
            *count += 1;
            assert!(
                self.s.pending().any(|(id, _)| *id == r.id),
                "request {} just sent is not pending",
                r.id
            );
            // An id another outstanding request has names neither method.
            let method = (*count == 1).then_some(r.method.as_str());
            assert_eq!(self.s.sent_method(&r.id), method, "id {}", r.id);
        }
    }

    fn send_unreadable(&mut self, invalid: &Invalid) {
        self.s.outbound_unreadable(invalid);
        if let Some(id) = &invalid.id {
            self.sent.insert(id.clone());
            self.answered.remove(id);
            *self.outstanding.entry(id.clone()).or_default() += 1;
        }
    }

    fn receive(&mut self, m: &Message) {
        let answered = match m {
            Message::Response(r) => r.id.clone(),
            _ => None,
        };
        let owed = answered
            .as_ref()
            .is_some_and(|id| self.s.pending().any(|(p, _)| p == id));
        let found = self.s.inbound(m, self.now);
        self.judged(&found);
        let Some(id) = answered else {
            return;
        };
        if owed {
            assert!(
                !found
                    .iter()
                    .any(|v| v.requirement.id.starts_with("jsonrpc.response.")),
                "the answer to pending request {id} was flagged: {found:?}"
            );
        }
        if !self.sent.contains(&id) {
            // An error about unreadable input with a guessed id is flagged
            // under the rule about that id.
            let unmatched = [
                ids::JSONRPC_RESPONSE_ID_MATCHES.id,
                ids::JSONRPC_ERROR_NULL_ID.id,
            ];
            assert!(
                found.iter().any(|v| unmatched.contains(&v.requirement.id)),
                "an answer to {id}, which no request carried, went unflagged"
            );
        }
        let left = self.outstanding.get_mut(&id).map_or(0, |n| {
            *n = n.saturating_sub(1);
            *n
        });
        if left > 0 {
            assert!(
                self.s.is_pending(&id) && self.s.sent_method(&id).is_none(),
                "{id}: one of two requests with it answered, the other not owed as ambiguous"
            );
            return;
        }
        assert!(
            !self.s.is_pending(&id),
            "{id} is still pending after its answer"
        );
        if self.sent.contains(&id) {
            self.answered.insert(id);
        }
    }

    fn receive_invalid(&mut self, invalid: &Invalid) {
        let v = self.s.inbound_invalid(invalid, self.now);
        self.judged(std::slice::from_ref(&v));
        assert_eq!(v.requirement.id, ids::JSONRPC_MESSAGE_VALID.id);
    }

    fn batch(&mut self) {
        let v = self.s.inbound_batch(self.now);
        if let Some(v) = &v {
            assert!(
                self.s.version().is_some_and(|ver| !ver.has_batches()),
                "batch flagged in a version that has batches (or none known)"
            );
            self.judged(std::slice::from_ref(v));
        }
    }

    /// Every violation names a catalogued requirement binding the peer.
    fn judged(&mut self, found: &[Violation]) {
        let peer = match self.s.own_role() {
            Role::Client => Binds::Server,
            Role::Server => Binds::Client,
        };
        for v in found {
            let id = v.requirement.id;
            assert!(
                lookup(id).is_some_and(|r| r == v.requirement),
                "violation names {id}, which is not in the catalogue"
            );
            assert!(
                matches!(v.requirement.binds, Binds::Both) || v.requirement.binds == peer,
                "{id} binds {:?}, not the peer ({peer:?})",
                v.requirement.binds
            );
            assert_eq!(v.at_ms, self.now, "{id} stamped with the wrong time");
            assert!(!v.detail.is_empty(), "{id} without detail");
        }
        self.violations.extend_from_slice(found);
    }

    /// State invariants after each operation.
    fn check_state(&self, before: &Phase, version: Option<Version>) {
        let after = self.s.phase();
        let failed_init =
            matches!(before, Phase::Initializing { .. }) && *after == Phase::BeforeInit;
        let fell_back = version.is_some_and(|v| v.lifecycle() == Lifecycle::Stateless)
            && self
                .s
                .version()
                .is_some_and(|v| v.lifecycle() == Lifecycle::Handshake)
            && *after == Phase::Initialized;
        assert!(
            rank(after) >= rank(before) || failed_init || fell_back,
            "phase moved back from {before:?} to {after:?}"
        );
        if let Some(v) = version {
            assert!(
                self.s.version() == Some(v) || fell_back,
                "the known version changed from {v} to {:?}",
                self.s.version()
            );
        }
        for (id, method) in self.s.pending() {
            assert!(
                !self.answered.contains(id),
                "pending() lists {id} ({method}), which was answered"
            );
            assert!(self.s.is_pending(id));
        }
        for id in &self.answered {
            assert!(!self.s.is_pending(id), "answered {id} is pending again");
        }
    }
}

fn rank(phase: &Phase) -> u8 {
    match phase {
        Phase::BeforeInit => 0,
        Phase::Initializing { .. } => 1,
        Phase::Initialized => 2,
        Phase::Operating => 3,
        Phase::Closed => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_script_reads_back() {
        let data = script(
            Some(Version::V2025_06_18),
            &[
                (
                    Direction::Outbound,
                    br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(),
                ),
                (
                    Direction::Inbound,
                    br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(),
                ),
                (Direction::Inbound, b"a\nb".to_vec()),
            ],
        );
        let s = Script::parse(&data);
        assert_eq!(s.version, Some(Version::V2025_06_18));
        assert_eq!(s.ops.len(), 2, "{:?}", s.ops);
        engine(&data);
    }

    #[test]
    fn generated_lines_are_played() {
        let s = Script::parse(b"-\n\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c");
        assert_eq!(s.version, None);
        assert!(!s.ops.is_empty());
        for seed in 0u8..=255 {
            let data: Vec<u8> = (0..64u8)
                .map(|i| i.wrapping_mul(seed).wrapping_add(seed))
                .collect();
            engine(&data);
        }
    }
}
