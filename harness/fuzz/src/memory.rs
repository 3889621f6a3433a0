//! The target's resident memory: reading `VmRSS` from `/proc/<pid>/status`
//! (the pid is the transport's), and the `memory` verdict when growth passes
//! the bound.

use mcpspec_engine::ids;

use crate::oracle::{Oracle, Verdict};

/// The default of [`crate::driver::SessionConfig::rss_growth_kib`]: 512 MiB.
pub const DEFAULT_RSS_GROWTH_KIB: u64 = 512 * 1024;

/// The message kind of memory findings: growth is about the session, not one input.
pub const MEMORY_GROWTH: &str = "memory growth";

/// The `memory` verdict when `now` exceeds `base` by more than `limit` KiB.
pub fn memory_verdict(base: u64, now: u64, limit: u64, exec: Option<u64>) -> Option<Verdict> {
    (now > base.saturating_add(limit)).then(|| {
        Verdict::new(
            Oracle::Memory,
            &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
            format!("resident memory grew from {base} KiB to {now} KiB"),
            exec,
        )
        .about(MEMORY_GROWTH.to_owned())
    })
}

/// Resident memory of `pid` in KiB (`VmRSS` of `/proc/<pid>/status`).
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_growth_trips_only_past_the_bound() {
        assert!(memory_verdict(1000, 1500, 512, Some(3)).is_none());
        let v = memory_verdict(1000, 1600, 512, Some(3)).unwrap();
        assert_eq!((v.oracle, v.exec), (Oracle::Memory, Some(3)));
        assert_eq!(v.subject.as_deref(), Some(MEMORY_GROWTH));
    }

    #[test]
    fn rss_of_this_process_is_readable() {
        assert!(rss_kib(std::process::id()).is_some_and(|k| k > 0));
        assert!(rss_kib(u32::MAX).is_none());
    }
}
