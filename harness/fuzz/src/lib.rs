//! # mcpspec-fuzz — black-box fuzzing of a live MCP server (or client)
//!
//! `mcpspec fuzz server` drives one target — a process over stdio, a
//! Streamable HTTP endpoint or a legacy HTTP+SSE server ([`target`]) — with
//! seeded, generated input, and after every input checks, with a ping, that
//! the target is still alive and still speaks JSON-RPC correctly. Findings are
//! deduplicated, minimised by delta debugging over the input sequence, and
//! saved as reproducers that `mcpspec replay` runs again.
//!
//! ```text
//!   gen (seeded, pure) ─► Input ─► expect::derive ─► Expect ──────────────────────┐
//!                           │                                                      ▼
//!                           └──► driver (Connection) ─► bytes both ways, POSTs, events
//!                                   │                       │
//!                                   │                       ▼ feed
//!                                   │      mcpspec_oracle::Oracle (the one judge) ─► violations
//!                                   │                       │
//!                                   │                       ▼
//!                                   │      oracle::Judge (fuzz policy: what inputs owe and allow) ─► Verdict
//!                                   │ ping sync, exit / session gone, RSS ────────────────────────► Verdict
//!                                   │ an owed answer waited for to --max-wait ─► cancelled, a timeout note (no verdict)
//!   run: sessions, restarts, dedup ─► minimize (ddmin, fresh process) ─► repro (file)
//! ```
//!
//! Whether the target broke a rule of the protocol is decided by the one
//! oracle (`mcpspec-oracle`), exactly as for `mcpspec server` and `mcpspec
//! client`; the fuzz crate only adds fuzz policy on top: which answers an
//! input is owed and with which error class, what fuzzed input allows
//! beyond a strict reading, liveness and memory. The table in [`oracle`]
//! says which verdict is whose.
//!
//! ```sh
//! mcpspec fuzz server --seed 7 --duration 30s -- node build/index.js
//! mcpspec fuzz server --level bytes --level json --runs 100000 --json out.json
//! mcpspec fuzz server --url http://127.0.0.1:3000/mcp --duration 30s
//! mcpspec fuzz server --sse-url http://127.0.0.1:3000/sse --duration 30s
//! mcpspec replay reports/fuzz/<run>/001-alive-unparsable.json [-- CMD ...]
//! ```
//!
//! - **Deterministic**: an input depends only on the seed, its exec index,
//!   the lifecycle phase and what the target lists; the same seed against
//!   the same target behaviour sends the same bytes.
//! - **At the target's speed**: over stdio up to `--window` inputs are in
//!   flight, each followed by its own `ping`; only input whose answers are
//!   told by id shares a window, a session that ends in one is played again
//!   one input at a time to find the input it ended on, and minimisation
//!   and replay go one input at a time (`driver/pipe.rs`).
//! - **One session while the target answers**: each input is followed by a
//!   `ping`, the liveness check and sync point; a fresh session starts after
//!   the target crashed, stopped answering or grew (`alive`, `ping`,
//!   `memory`) and every [`run::SESSION_EXECS`] execs (or
//!   [`run::SESSION_BYTES`] of input), each but the first
//!   with 0–8 inputs before `initialize`. Any other finding is recorded and
//!   the session goes on.
//! - **Root causes, not symptoms**: a finding is keyed by oracle and cause
//!   (`invalid params answered with error -32603`) where the oracle names
//!   one, else by the kind of message: one bug seen with ten methods is one
//!   finding, counted, with the methods it was seen with and one reproducer.
//! - **A slow answer is not a missing one**: an owed answer is waited for
//!   while the target shows signs of life (a ping answered, progress), up
//!   to `--max-wait`; one still missing then is a timeout note of the run,
//!   not a finding ([`oracle::wait`]).
//! - **No false findings by construction**: what may be demanded of the
//!   target is derived from the bytes actually sent ([`expect`]); input
//!   that parsers may read differently is owed nothing; the rule of each oracle,
//!   with its requirement id and level, is in [`oracle`].
//! - **Over HTTP** an input is one POST body ([`post`]: how bodies are read,
//!   what ndjson-only mutations become), the sync ping its own POST; each
//!   POST's exchange is judged by the oracle; a refused or reset connection, a
//!   404 or the end of the legacy stream is the "process died" analogue, a
//!   new session the restart, and a server that cannot be reached ends the
//!   run. RSS growth is watched over stdio only (the process is ours).
//! - **Scope**: servers of the handshake versions (2024-11-05 to
//!   2025-11-25) over all three transports; clients of those versions over
//!   stdio ([`client`]: `mcpspec fuzz client -- CMD {server}`, the harness
//!   playing the server, inputs sent server→client). Not yet: the
//!   stateless 2026-07-28 (no ping to synchronise on; `server/discover`
//!   would be the sync request), clients over HTTP.
//!
//! Modules, in reading order: [`rng`], [`input`], [`gen`] (one module per
//! level), [`expect`] (with [`post`] for HTTP bodies), [`feed`] (the one
//! oracle, fed), [`oracle`] (fuzz policy, with [`verdict`]), [`target`],
//! [`driver`] (with [`memory`]),
//! [`minimize`], [`repro`], [`history`], [`run`] (the loop, its configuration
//! and summary);
//! then [`client`], which reuses them to fuzz clients.

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod client;
pub mod driver;
pub mod expect;
pub mod feed;
pub mod gen;
pub mod history;
pub mod input;
pub mod memory;
pub mod minimize;
pub mod oracle;
pub mod post;
pub mod repro;
pub mod rng;
pub mod run;
pub mod target;
pub mod verdict;

pub use input::{Framing, Hint, Input, Level};
pub use oracle::{Oracle, Verdict};
pub use repro::{ReproError, Reproducer};
pub use run::{fuzz, replay, Config, Finding, ReplayOutcome, RunError, Summary, TimeoutNote};
pub use target::Target;
