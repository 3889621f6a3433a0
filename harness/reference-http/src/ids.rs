//! Session ids: 128 bits from the operating system's CSPRNG (`getrandom`,
//! which the workspace already builds), as 32 lowercase hex digits — visible
//! ASCII, globally unique and unguessable (`http.session.id-secure`).
//!
//! Should the OS source fail, the id falls back to std's randomly keyed
//! `RandomState` hasher over the time and a counter: still unique and hard
//! to guess for a test server, and the server keeps working.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh session id; `with_space` (the `http-session-id-space` fault)
/// makes it `mcp session <hex>`.
pub(crate) fn session_id(with_space: bool) -> String {
    let hex = random_hex();
    if with_space {
        format!("mcp session {hex}")
    } else {
        hex
    }
}

fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        bytes = fallback();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn fallback() -> [u8; 16] {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut out = [0u8; 16];
    for half in out.chunks_mut(8) {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(n);
        h.write_u128(nanos);
        half.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_visible_ascii_and_distinct() {
        let a = session_id(false);
        let b = session_id(false);
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)));
        assert!(session_id(true).contains(' '));
        assert_ne!(fallback(), fallback());
    }
}
