//! What is fuzzed and how each session reaches it: a command spoken to over
//! stdio (one process per session), a Streamable HTTP endpoint, or a legacy
//! HTTP+SSE stream URL (one MCP session per fuzzing session either way).
//!
//! This mirrors `mcpspec_runner::Target` rather than depending on the runner
//! (which would bring the scenario layer into the fuzzer for one enum); both
//! build their [`Connection`] from the transport crate's public API.

use std::time::Duration;

use mcpspec_transport::{
    CommandSpec, Connection, HttpOptions, HttpSession, LegacySseSession, StdioProcess,
};

use crate::input::Framing;

/// The target of a fuzzing run or a replay.
#[derive(Debug, Clone)]
pub enum Target {
    /// `mcpspec fuzz server -- CMD ARGS…`
    Stdio(CommandSpec),
    /// `mcpspec fuzz server --url URL`
    Http { url: String, options: HttpOptions },
    /// `mcpspec fuzz server --sse-url URL`
    Sse { url: String, options: HttpOptions },
}

/// How long a legacy SSE connection waits for its `endpoint` event.
const SSE_STARTUP: Duration = Duration::from_secs(10);

impl Target {
    /// `stdio`, `http` or `sse` (as in reproducers and transcripts).
    pub fn transport(&self) -> &'static str {
        match self {
            Target::Stdio(_) => "stdio",
            Target::Http { .. } => "http",
            Target::Sse { .. } => "sse",
        }
    }

    /// How an input's bytes reach the target.
    pub fn framing(&self) -> Framing {
        match self {
            Target::Stdio(_) => Framing::Ndjson,
            Target::Http { .. } => Framing::HttpBody { streamable: true },
            Target::Sse { .. } => Framing::HttpBody { streamable: false },
        }
    }

    /// The URL of an HTTP target.
    pub fn url(&self) -> Option<&str> {
        match self {
            Target::Stdio(_) => None,
            Target::Http { url, .. } | Target::Sse { url, .. } => Some(url),
        }
    }

    /// The command line or the URL, for messages.
    pub fn display(&self) -> String {
        match self {
            Target::Stdio(cmd) => cmd.display(),
            Target::Http { url, .. } => format!("{url} (Streamable HTTP)"),
            Target::Sse { url, .. } => format!("{url} (legacy HTTP+SSE)"),
        }
    }

    /// A fresh connection: a new process, a new Streamable HTTP session (no
    /// traffic until the first POST), or a new legacy SSE stream (waits for
    /// its `endpoint` event).
    pub async fn connect(&self, max_line: usize) -> Result<Connection, String> {
        match self {
            Target::Stdio(cmd) => StdioProcess::spawn(cmd, max_line)
                .map(Connection::from)
                .map_err(|e| e.to_string()),
            Target::Http { url, options } => HttpSession::connect(url, options.clone())
                .map(Connection::from)
                .map_err(|e| e.to_string()),
            Target::Sse { url, options } => {
                LegacySseSession::connect(url, options.clone(), SSE_STARTUP)
                    .await
                    .map(Connection::from)
                    .map_err(|e| e.to_string())
            }
        }
    }
}
