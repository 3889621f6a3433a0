//! Load shedding (`--shed-above N`): a busy server's honest answer. While
//! N POSTs to `/mcp` are being served (until their response head), another
//! is answered `503 Service Unavailable` with `Retry-After: 0` and is not
//! handed to any session: it was never processed, so the client may send
//! it again. GET streams and DELETEs are never shed.
//!
//! It stands for a real server under load, so that a harness can show it
//! backs off instead of turning a slow target into failures (issue #18).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// POSTs in flight, and how many are served at once.
#[derive(Debug)]
pub(crate) struct Shed {
    above: usize,
    in_flight: AtomicUsize,
    shed: AtomicUsize,
}

impl Shed {
    pub(crate) fn new(above: usize) -> Arc<Self> {
        Arc::new(Shed {
            above: above.max(1),
            in_flight: AtomicUsize::new(0),
            shed: AtomicUsize::new(0),
        })
    }
}

/// Gives back the in-flight count when the POST's response head is ready
/// (or its handler was dropped).
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(crate) async fn layer(State(shed): State<Arc<Shed>>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let before = shed.in_flight.fetch_add(1, Ordering::SeqCst);
    let _held = InFlight(&shed.in_flight);
    if before >= shed.above {
        let n = shed.shed.fetch_add(1, Ordering::SeqCst) + 1;
        if n == 1 || n.is_power_of_two() {
            eprintln!(
                "mcpspec-reference: shed {n} POST(s) with 503 (more than {} at once)",
                shed.above
            );
        }
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "0")],
        )
            .into_response();
    }
    next.run(req).await
}
