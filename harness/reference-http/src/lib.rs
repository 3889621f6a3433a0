//! # mcpspec-reference-http — the reference MCP server over HTTP
//!
//! Serves the sans-IO [`mcpspec_reference::ReferenceServer`] over both HTTP
//! transports of MCP, one server instance per MCP session:
//!
//! ```text
//!   POST /mcp ─┐                      ┌─ one task per session (`session`):
//!   GET  /mcp ─┼─ checks (`checks`) ──┤   ReferenceServer::on_frame / on_tick
//!   DELETE /mcp┘  Origin, Accept, …   │   at next_deadline(); outputs routed to
//!                                     │   the POST's JSON body or SSE stream,
//!   GET  /sse ───── new legacy session┤   the GET stream, or the legacy stream
//!   POST /message?sessionId=… ────────┘   (`streams`)
//! ```
//!
//! - **Streamable HTTP** at `/mcp` (2025-03-26 and later), see `streamable`.
//! - **Legacy HTTP+SSE** at `/sse`, with its POST endpoint `/message`
//!   (2024-11-05), see `legacy`.
//! - **2026-07-28** POSTs to `/mcp` need no session: after the header
//!   checks of `stateless`, each is served by a session of its own.
//!
//! The HTTP faults of [`mcpspec_reference::Fault`] (those that do not apply to
//! stdio) are carried out here; every other fault is handed to the sans-IO
//! server. The server binds wherever its listener is bound: the caller picks
//! the address (loopback unless the user asked otherwise).
//!
//! - **OAuth mode** ([`HttpServerConfig::auth`]): `/mcp` is a protected
//!   resource and the same listener is its authorization server, see `auth`.
//!
//! Modules, in reading order: `streamable` and `legacy` (the endpoints),
//! `checks` (header rules and error bodies), `session` (the per-session task
//! and its routing), `stateless` (2026-07-28 POSTs), `messages` (what a body holds, what the server emitted), `streams` (SSE streams with event ids and replay), `sse`
//! (event encoding and response bodies), `ids` (session ids).

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod auth;
mod checks;
mod ids;
mod legacy;
mod messages;
mod routing;
mod session;
mod shed;
mod sse;
mod stateless;
mod streamable;
mod streams;

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::routing::{get, post};
use axum::Router;
use mcpspec_reference::{Config, Fault};
use tokio::sync::{mpsc, watch};

/// The listener type [`serve`] takes (tokio's), re-exported so that callers
/// need no tokio `net` feature of their own.
pub use tokio::net::TcpListener;

pub use crate::auth::{OTHER_RESOURCE_PATH, PRM_PATH, PRM_ROOT_PATH, SCOPE};

use crate::session::Cmd;

/// Path of the Streamable HTTP endpoint.
pub const MCP_PATH: &str = "/mcp";
/// Path of the legacy SSE endpoint.
pub const SSE_PATH: &str = "/sse";
/// Path of the legacy POST endpoint (announced in the `endpoint` event).
pub const MESSAGE_PATH: &str = "/message";

/// How to run the HTTP server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HttpServerConfig {
    /// Each session's sans-IO server is built from this; its `faults` may
    /// also hold HTTP faults, which this crate carries out.
    pub reference: Config,
    /// OAuth mode: `/mcp` wants a bearer token that the built-in
    /// authorization server issued for it (module `auth`).
    pub auth: bool,
    /// Load shedding: while this many POSTs to `/mcp` are being served,
    /// another is answered 503 (module `shed`). `None`: never.
    pub shed_above: Option<usize>,
}

impl HttpServerConfig {
    pub fn new(reference: Config) -> Self {
        HttpServerConfig {
            reference,
            auth: false,
            shed_above: None,
        }
    }

    /// The same, in OAuth mode.
    pub fn with_auth(self) -> Self {
        HttpServerConfig { auth: true, ..self }
    }
}

/// Serves until the listener fails; see [`serve_with_shutdown`].
pub async fn serve(listener: TcpListener, cfg: HttpServerConfig) -> io::Result<()> {
    serve_with_shutdown(listener, cfg, std::future::pending()).await
}

/// Serves until `shutdown` completes, then ends every session (their SSE
/// streams close, hanging requests are let go) and waits for the open
/// connections to finish.
pub async fn serve_with_shutdown(
    listener: TcpListener,
    cfg: HttpServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let origin = format!("http://{}", listener.local_addr()?);
    let shed_above = cfg.shed_above;
    let app = App::new(cfg, origin);
    let router = router(app.clone(), shed_above);
    let signal = async move {
        shutdown.await;
        app.close_all();
    };
    axum::serve(listener, router)
        .with_graceful_shutdown(signal)
        .await
}

fn router(app: App, shed_above: Option<usize>) -> Router {
    let mut mcp = post(streamable::post)
        .get(streamable::get)
        .delete(streamable::delete);
    if let Some(above) = shed_above {
        let shed = axum::middleware::from_fn_with_state(shed::Shed::new(above), shed::layer);
        mcp = mcp.route_layer(shed);
    }
    let mut router = Router::new();
    if app.auth().is_some() {
        let guard = axum::middleware::from_fn_with_state(app.clone(), auth::guard);
        router = router
            .route(MCP_PATH, mcp.route_layer(guard))
            .merge(auth::routes());
    } else {
        router = router.route(MCP_PATH, mcp);
    }
    router
        .route(SSE_PATH, get(legacy::open))
        .route(MESSAGE_PATH, post(legacy::post))
        .with_state(app)
}

/// State shared by every handler.
#[derive(Clone)]
pub(crate) struct App {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    /// OAuth mode's tokens and clients (`None`: no authorization).
    auth: Option<auth::Auth>,
    /// Streamable HTTP sessions by `Mcp-Session-Id`.
    sessions: Mutex<HashMap<String, mpsc::Sender<Cmd>>>,
    /// Legacy HTTP+SSE sessions by `sessionId`.
    legacy: Mutex<HashMap<String, mpsc::Sender<Cmd>>>,
    /// Turns true at shutdown (lets hanging requests go).
    closing: watch::Sender<bool>,
    /// POST stream bodies still open (read by `http-concurrent-post-refused`).
    open_posts: Arc<AtomicUsize>,
}

/// Which session table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    Streamable,
    Legacy,
}

impl App {
    fn new(cfg: HttpServerConfig, origin: String) -> Self {
        App {
            inner: Arc::new(Inner {
                config: cfg.reference,
                auth: cfg.auth.then(|| auth::Auth::new(origin)),
                sessions: Mutex::new(HashMap::new()),
                legacy: Mutex::new(HashMap::new()),
                closing: watch::Sender::new(false),
                open_posts: Arc::default(),
            }),
        }
    }

    /// OAuth mode's state, when the server runs in it.
    pub(crate) fn auth(&self) -> Option<&auth::Auth> {
        self.inner.auth.as_ref()
    }

    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The counter of open POST stream bodies, shared by every session.
    pub(crate) fn open_posts(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.inner.open_posts)
    }

    /// How many POST stream bodies are open now.
    pub(crate) fn open_post_streams(&self) -> usize {
        self.inner.open_posts.load(Ordering::SeqCst)
    }

    pub(crate) fn has(&self, fault: Fault) -> bool {
        self.inner.config.faults.contains(&fault)
    }

    fn table(&self, table: Table) -> MutexGuard<'_, HashMap<String, mpsc::Sender<Cmd>>> {
        let m = match table {
            Table::Streamable => &self.inner.sessions,
            Table::Legacy => &self.inner.legacy,
        };
        // A panic while holding this lock leaves a plain map behind; keep going.
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn lookup(&self, table: Table, id: &str) -> Option<mpsc::Sender<Cmd>> {
        self.table(table).get(id).cloned()
    }

    pub(crate) fn register(&self, table: Table, id: String, tx: mpsc::Sender<Cmd>) {
        if !*self.inner.closing.borrow() {
            self.table(table).insert(id, tx);
        }
    }

    pub(crate) fn unregister(&self, table: Table, id: &str) {
        self.table(table).remove(id);
    }

    /// Whether the server is shutting down.
    pub(crate) fn is_closing(&self) -> bool {
        *self.inner.closing.borrow()
    }

    /// Resolves at shutdown.
    pub(crate) async fn closed(&self) {
        let mut rx = self.inner.closing.subscribe();
        // Err: the sender is gone, which also means shutting down.
        let _ = rx.wait_for(|closing| *closing).await;
    }

    /// Ends every session: dropping their command senders ends their tasks.
    fn close_all(&self) {
        self.inner.closing.send_replace(true);
        self.table(Table::Streamable).clear();
        self.table(Table::Legacy).clear();
    }
}
