//! Requirement levels (RFC 2119 keywords as the MCP specification uses them)
//! and the roles a requirement binds.

use std::fmt;
use std::str::FromStr;

/// How binding a requirement is. A broken MUST is a failure; a broken SHOULD
/// is a warning (a failure under `--strict`); a MAY is informational.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    May,
    Should,
    Must,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::May => "may",
        }
    }
    /// The RFC 2119 keyword, upper case.
    pub fn keyword(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

impl FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "must" => Ok(Level::Must),
            "should" => Ok(Level::Should),
            "may" => Ok(Level::May),
            _ => Err(format!(
                "unknown level {s:?} (expected must, should or may)"
            )),
        }
    }
}

/// Which side of the connection a requirement or scenario is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Server,
    Client,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }
    pub fn peer(self) -> Role {
        match self {
            Role::Server => Role::Client,
            Role::Client => Role::Server,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
