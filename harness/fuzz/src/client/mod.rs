//! # Fuzzing a live MCP **client** (`mcpspec fuzz client`)
//!
//! The harness plays the client's server over stdio: the client is started
//! with `{server}` expanded to `mcpspec shim --connect 127.0.0.1:PORT`
//! (the transport's [`crate::Target::Client`]), and every input is a
//! *server→client* message.
//!
//! ```text
//!  connect ─► client: [server/discover ─► -32601] initialize ─► fixture's result (the version it asked for)
//!             client: notifications/initialized, its first ordinary request ─► HELD (never answered)
//!  exec n:    input bytes ─► ping "mcpspec-ping-k" ─► wait for its answer      (the liveness oracle)
//!             meanwhile: the client's other requests ─► fixture (the reference server) answers
//!             every byte both ways ─► the one oracle (crate::feed) ─► violations ─┐
//!                        its answers to our inputs ─► oracle::Judge (fuzz policy) ◄─┘ ─► verdicts ─► client rules (expect)
//!  run:       sessions, dedup by (oracle, kind), minimise (fresh client per trial), reproducers, replay
//! ```
//!
//! - **The held request** keeps the client connected: a CLI client that lists
//!   tools and exits waits for its answer instead, so one process serves many
//!   inputs. A client that leaves while its request is held walked away from
//!   a request it still waits for, which no clean client does ([`driver`]).
//!   A client that cancels the held request itself (its own request timeout)
//!   is winding down: its session ends without a finding, and sessions are
//!   kept short ([`run::SESSION_EXECS`], `--session-time`) to stay under such
//!   timeouts.
//! - **Inputs** ([`gen`]): the server fuzzer's bytes, json and jsonrpc
//!   generators (their messages are client→server ones, which a client does
//!   not serve), and at the mcp level the requests and notifications a
//!   server sends: ping, roots/list, sampling/createMessage,
//!   elicitation/create, tasks/*, unknown methods, progress, log messages,
//!   list changes, resource updates, cancellations — valid, with edge
//!   values, and mutated.
//! - **What a client owes** ([`expect`]) is derived from the bytes, as for
//!   servers, then held to the client's rules: ping is answered with a
//!   result; a request it cannot serve (a method it does not implement, a
//!   capability it did not declare) earns an error; sampling and elicitation
//!   may wait for a human, so they are owed nothing within the timeout; a
//!   notification is never answered. Verdicts citing a rule that binds
//!   servers only are dropped.
//! - **Oracles**: the same table as for servers ([`crate::oracle`]):
//!   `alive` (the client exited, or closed its connection, while its
//!   request was held, while an input's request was owed, or with a failure
//!   status), `ping` (the sync ping unanswered or refused: `ping.respond`),
//!   `stdout` (what it writes is not JSON-RPC:
//!   `stdio.client.stdin-only-mcp`, `jsonrpc.message.valid`, …),
//!   `error-class`, `notification`. A request the client leaves
//!   unanswered up to `--max-wait` is cancelled and noted as a timeout, as
//!   for servers ([`crate::oracle::wait`]).
//! - **Deterministic**: an input depends only on the seed, its exec index
//!   and the version the session speaks; the same seed against the same
//!   client behaviour sends the same bytes in the same order (where fresh
//!   clients start depends on findings and on `--session-time`).
//! - **Scope**: stdio (`{server}`) and the initialize handshake versions; the
//!   inputs follow the handshake (none before `initialize` is answered).
//!   What the client's results contain (roots, sampling, elicitation
//!   shapes) is the client scenarios' business, not an oracle here.
//!
//! Modules, in reading order: [`gen`], [`expect`], [`fixture`], [`driver`],
//! [`minimize`], [`run`].

pub mod driver;
pub mod expect;
pub mod fixture;
pub mod gen;
pub mod minimize;
pub mod run;

pub use run::{fuzz_client, replay_client, reproducer_target, ClientFuzzConfig, TRANSPORT};
