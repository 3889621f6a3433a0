//! `reply: { cut_stream }` in client cases over Streamable HTTP: after the
//! harness cut the response stream of the request it answers
//! ([`crate::client::reply`]), the client has `retry + resume_within` to
//! come back with a GET whose `Last-Event-ID` names the stream's last event,
//! on which the answer then goes out.
//!
//! ```text
//!   cut (priming event: id, retry; stream ends) ─► answer parked ─► wait ─► GET + Last-Event-ID ─► answer
//!                                                                    └─ none in time: http.resume.last-event-id (SHOULD)
//! ```
//!
//! How soon the client came back is the oracle's to judge
//! (`http.sse.client-respects-retry`, from the cut it was told of); this
//! step judges only that it resumed, and with the right `Last-Event-ID`:
//! a client SHOULD resume with a GET naming the last event it received
//! (`basic/transports#resumability-and-redelivery`). A 2026-07-28 case
//! waits for nothing: that version has no resumption, and the client
//! re-issues the request instead, which the scenario's next steps take.

use mcpspec_engine::{ids, Level, Lifecycle};
use mcpspec_scenario::{CutStream, Step};
use mcpspec_transport::serve::Cut;
use tokio::time::Instant;

use crate::case::{Ctx, Stop};
use crate::steps::checked;

/// Waits for the client to resume the cut stream; a client that does not
/// (in time, or with the right `Last-Event-ID`) breaks the SHOULD.
pub async fn await_resumption(
    ctx: &mut Ctx<'_>,
    at: Option<(usize, &Step)>,
    cut: &Cut,
    how: &CutStream,
) -> Result<(), Stop> {
    if ctx.version.lifecycle() == Lifecycle::Stateless {
        return Ok(());
    }
    let allowed = how.retry.unwrap_or_default() + how.resume_within;
    let deadline = Instant::now() + allowed;
    while !ctx.conn.resumed(cut.post) && Instant::now() < deadline {
        if !ctx.conn.pump(deadline).await && ctx.conn.exit().is_some() {
            break;
        }
    }
    if ctx.conn.resumed(cut.post) {
        return Ok(());
    }
    let since = u64::try_from(cut.at.as_millis()).unwrap_or(u64::MAX);
    let gets = ctx.conn.gets_since(since);
    let mut actual = if gets.is_empty() {
        format!("no GET within {} ms of the cut", allowed.as_millis())
    } else {
        format!("no GET naming it: {}", gets.join("; "))
    };
    if let Some(how) = ctx.conn.exit() {
        actual.push_str(&format!(" ({how})"));
    }
    let rule = &ids::HTTP_RESUME_LAST_EVENT_ID;
    let level = ctx.fail_as(
        at,
        rule.id,
        Level::Should,
        vec![format!(
            "a GET with Last-Event-ID: {} (the last event of the response stream of POST #{}, which the harness ended before its answer) within {} ms",
            cut.last_event_id,
            cut.post,
            allowed.as_millis()
        )],
        actual,
    );
    checked(level)
}
