//! The protocol versions mcpspec knows, and what each one changes.
//!
//! Everything version-dependent is a method on [`Version`], so code asks
//! "does this version have batches?" rather than comparing dates. The version
//! decides the lifecycle: the first four use the `initialize` handshake, while
//! 2026-07-28 is stateless (`server/discover`, per-request `_meta`).

use std::fmt;
use std::str::FromStr;

/// An MCP protocol revision. Ordered by date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
}

/// How a session starts and what carries session state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// `initialize` request, result, `notifications/initialized`.
    Handshake,
    /// No handshake; each request carries its version in `params._meta`.
    Stateless,
}

impl Version {
    /// Every version, oldest first.
    pub const ALL: [Version; 5] = [
        Version::V2024_11_05,
        Version::V2025_03_26,
        Version::V2025_06_18,
        Version::V2025_11_25,
        Version::V2026_07_28,
    ];

    /// The versions that use the `initialize` handshake.
    pub const HANDSHAKE: [Version; 4] = [
        Version::V2024_11_05,
        Version::V2025_03_26,
        Version::V2025_06_18,
        Version::V2025_11_25,
    ];

    /// The newest handshake-era version (what a client offers by default).
    pub const LATEST_HANDSHAKE: Version = Version::V2025_11_25;

    pub fn as_str(self) -> &'static str {
        match self {
            Version::V2024_11_05 => "2024-11-05",
            Version::V2025_03_26 => "2025-03-26",
            Version::V2025_06_18 => "2025-06-18",
            Version::V2025_11_25 => "2025-11-25",
            Version::V2026_07_28 => "2026-07-28",
        }
    }

    pub fn lifecycle(self) -> Lifecycle {
        match self {
            Version::V2026_07_28 => Lifecycle::Stateless,
            _ => Lifecycle::Handshake,
        }
    }

    /// JSON-RPC batches: receivers MUST accept them in 2025-03-26 only
    /// (added in 2025-03-26, removed in 2025-06-18).
    pub fn has_batches(self) -> bool {
        self == Version::V2025_03_26
    }

    /// Streamable HTTP replaced HTTP+SSE in 2025-03-26.
    pub fn has_streamable_http(self) -> bool {
        self >= Version::V2025_03_26
    }

    /// The `MCP-Protocol-Version` HTTP header exists from 2025-06-18 on.
    pub fn has_protocol_version_header(self) -> bool {
        self >= Version::V2025_06_18
    }

    /// `completion/complete` and the `completions` capability exist from 2025-03-26 on
    /// (in 2024-11-05 completion existed without a capability).
    pub fn has_completions_capability(self) -> bool {
        self >= Version::V2025_03_26
    }

    /// Error responses may omit `id` (JSONRPCErrorResponse id optional) from 2025-11-25 on.
    pub fn error_id_optional(self) -> bool {
        self >= Version::V2025_11_25
    }

    /// Base URL of this version's specification, without a trailing slash.
    pub fn spec_base(self) -> String {
        format!(
            "https://modelcontextprotocol.io/specification/{}",
            self.as_str()
        )
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text is not one of the known versions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version {0:?} (known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)")]
pub struct UnknownVersion(pub String);

impl FromStr for Version {
    type Err = UnknownVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_order() {
        for v in Version::ALL {
            assert_eq!(v.as_str().parse::<Version>(), Ok(v));
        }
        assert!("2025-01-01".parse::<Version>().is_err());
        assert!(Version::V2024_11_05 < Version::V2026_07_28);
        assert_eq!(Version::ALL.iter().filter(|v| v.has_batches()).count(), 1);
    }
}
