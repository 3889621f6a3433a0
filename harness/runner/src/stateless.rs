//! How a 2026-07-28 case starts: there is no handshake. For `initialized`
//! scenarios the runner asks `server/discover` (the one request every
//! stateless server implements) and binds its result the way the handshake
//! binds the initialize result: `init` is the discover result,
//! `capabilities` its capabilities. A server that knows no
//! `server/discover` (-32601) speaks only the handshake era: its 2026-07-28
//! cases are not applicable, never failed.

use mcpspec_engine::{ids, Level};
use mcpspec_wire::{ErrorObject, Message};
use serde_json::{json, Value};

use crate::case::{bind_opening, is_response_to, opening_request, Ctx, Stop};
use crate::conn::{Conn, WaitError};
use crate::run::{unclear_or_unreadable, with_last_words, Offer};

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;
/// 2026-07-28's UnsupportedProtocolVersionError.
const UNSUPPORTED_VERSION: i64 = -32022;

/// What `server/discover` told about the case's version.
enum Discovered {
    Offered(Value),
    /// Why the version is not offered.
    NotOffered(String),
    /// An error that is no way of saying "not offered".
    Refused(ErrorObject),
}

fn judge(version: &str, outcome: Result<Value, ErrorObject>) -> Discovered {
    match outcome {
        Ok(result) => {
            // A result without a readable list still says the server speaks
            // the stateless protocol: the cases run, and the schema check
            // judges the malformed result; only a list without this version
            // says "not offered".
            let listed = result
                .get("supportedVersions")
                .and_then(Value::as_array)
                .is_none_or(|vs| vs.iter().any(|v| v == version));
            if listed {
                Discovered::Offered(result)
            } else {
                let supported = result
                    .get("supportedVersions")
                    .map_or_else(|| "none listed".to_owned(), Value::to_string);
                Discovered::NotOffered(format!(
                    "the target does not offer {version} (server/discover lists {supported})"
                ))
            }
        }
        Err(e) if e.code == METHOD_NOT_FOUND => Discovered::NotOffered(format!(
            "the target answers server/discover with {METHOD_NOT_FOUND}: it speaks only handshake-era versions"
        )),
        Err(e) if e.code == UNSUPPORTED_VERSION => Discovered::NotOffered(format!(
            "the target does not support {version} (server/discover answered {UNSUPPORTED_VERSION})"
        )),
        Err(e) => Discovered::Refused(e),
    }
}

fn discover_request(conn: &mut Conn) -> (mcpspec_wire::Id, Message) {
    let id = conn.next_id();
    // `_meta` (version, capabilities, clientInfo) is stamped by `Conn::send`.
    let msg = Message::request(id.clone(), "server/discover", Some(json!({})));
    (id, msg)
}

/// The start of an `initialized` 2026-07-28 case.
pub async fn discover(ctx: &mut Ctx<'_>) -> Result<(), Stop> {
    let version = ctx.version.as_str();
    let (id, msg) = discover_request(&mut ctx.conn);
    let outcome = opening_request(ctx, &msg, &id, &ids::STATELESS_DISCOVER_IMPLEMENTED).await?;
    match judge(version, outcome) {
        Discovered::Offered(result) => bind_opening(ctx, std::sync::Arc::new(result)),
        Discovered::NotOffered(reason) => Err(Stop::NotApplicable(reason)),
        Discovered::Refused(e) => {
            ctx.fail_as(
                None,
                ids::STATELESS_DISCOVER_IMPLEMENTED.id,
                Level::Must,
                vec!["a server/discover result".to_owned()],
                format!("error {} {:?}", e.code, e.message),
            );
            Err(Stop::Failed)
        }
    }
}

/// The probe of a stateless version: one `server/discover`.
pub async fn probe(conn: &mut Conn, version: &str, within: std::time::Duration) -> Offer {
    let (id, msg) = discover_request(conn);
    if let Err(e) = conn.send(&msg).await {
        return Offer::Broken(crate::run::unwritable(conn, "server/discover", e).await);
    }
    let answer = conn
        .wait_for_prompt(within, |m| is_response_to(m, &id))
        .await;
    match answer.map(|r| r.msg) {
        Ok(Message::Response(r)) => match judge(version, r.outcome) {
            Discovered::Offered(_) => Offer::Supported,
            Discovered::NotOffered(why) => Offer::Other(why),
            // A server of the handshake era refuses a request that comes
            // before initialize in its own way (-32600, -32000, …): it does
            // not speak this version, which is no failure of it.
            Discovered::Refused(e) => Offer::Other(format!(
                "server/discover answered error {} {:?}: the target speaks only handshake-era versions",
                e.code, e.message
            )),
        },
        Ok(other) => Offer::Broken(format!("unexpected {}", other.describe())),
        // Over HTTP the same refusal may come as a status (400 without a
        // session): not offered either. No response at all is no refusal:
        // nothing answered.
        Err(WaitError::Refused(refusal)) if refusal.status.is_none() => {
            Offer::Broken(format!("no answer to server/discover: {refusal}"))
        }
        Err(WaitError::Refused(refusal)) => Offer::Other(format!(
            "server/discover was refused ({refusal}): the target speaks only handshake-era versions"
        )),
        Err(WaitError::Exited(how)) => {
            Offer::Broken(format!("no answer to server/discover: {how}"))
        }
        Err(WaitError::Timeout | WaitError::Invalid) => {
            unclear_or_unreadable(conn, "server/discover").unwrap_or_else(|| {
                Offer::Broken(with_last_words(
                    format!("no answer to server/discover within {}ms", within.as_millis()),
                    conn,
                ))
            })
        }
    }
}
