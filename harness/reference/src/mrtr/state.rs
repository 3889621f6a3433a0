//! `requestState` of the input-required fixtures: a payload the server can
//! trust on the retry because it carries a tag only this process can make.
//!
//! The state is `<payload>.<tag>`: the payload is URL-safe base64 of a JSON
//! object (the tool, the round, what earlier rounds learned); the tag is a
//! keyed SipHash of the payload (std's `RandomState`, random keys drawn once
//! per process), in hex. Enough for a reference server whose state only
//! steers a test tool; a production server would use an HMAC or AEAD. The
//! `input-required-state-unverified` fault skips the tag check.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

use serde_json::Value;

use crate::b64;

/// The process's key: one `RandomState`, so every server of the process
/// (the HTTP driver may build several) verifies what another signed.
fn key() -> &'static RandomState {
    static KEY: OnceLock<RandomState> = OnceLock::new();
    KEY.get_or_init(RandomState::new)
}

fn tag(payload: &str) -> String {
    let mut h = key().build_hasher();
    h.write(payload.as_bytes());
    format!("{:016x}", h.finish())
}

/// The state carrying `payload`.
pub(crate) fn seal(payload: &Value) -> String {
    let body = b64::encode_url(payload.to_string().as_bytes());
    let t = tag(&body);
    format!("{body}.{t}")
}

/// The payload of `state`; `None` when it is malformed or, with `verify`,
/// when its tag is not this process's.
pub(crate) fn open(state: &str, verify: bool) -> Option<Value> {
    let (body, t) = state.rsplit_once('.')?;
    if verify && tag(body) != t {
        return None;
    }
    let bytes = b64::decode_url(body)?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_sealed_state_opens_and_a_changed_one_does_not() {
        let payload = json!({ "tool": "t", "round": 1 });
        let state = seal(&payload);
        assert_eq!(open(&state, true), Some(payload.clone()));
        let tampered = format!("{state}-TAMPERED");
        assert_eq!(open(&tampered, true), None);
        // Unverified, the body still decodes: the fault's behaviour.
        let body = state.rsplit_once('.').map(|(b, _)| b).unwrap_or_default();
        let forged = format!("{body}.0000000000000000");
        assert_eq!(open(&forged, false), Some(payload));
        assert_eq!(open("no-dot", true), None);
    }
}
