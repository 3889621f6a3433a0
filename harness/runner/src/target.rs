//! What the run tests, and how each case reaches it: a command spoken to
//! over stdio (started afresh per case), a Streamable HTTP endpoint, or a
//! legacy HTTP+SSE stream URL (one new MCP session per case either way).

use std::time::Duration;

use mcpspec_scenario::TransportKind;
use mcpspec_transport::{
    CommandSpec, Connection, HttpOptions, HttpSession, LegacySseSession, StdioProcess,
};

#[derive(Debug, Clone)]
pub enum Target {
    /// `mcpspec server -- CMD ARGS…`
    Stdio(CommandSpec),
    /// `mcpspec server --url URL`
    Http { url: String, options: HttpOptions },
    /// `mcpspec server --sse-url URL`
    Sse { url: String, options: HttpOptions },
}

impl Target {
    /// The transport the target speaks: which scenarios apply.
    pub fn kind(&self) -> TransportKind {
        match self {
            Target::Stdio(_) => TransportKind::Stdio,
            Target::Http { .. } => TransportKind::Http,
            Target::Sse { .. } => TransportKind::Sse,
        }
    }

    /// The target for messages and reports: the command line or the URL.
    pub fn display(&self) -> String {
        match self {
            Target::Stdio(cmd) => cmd.display(),
            Target::Http { url, .. } => url.clone(),
            Target::Sse { url, .. } => format!("{url} (legacy HTTP+SSE)"),
        }
    }

    /// A fresh connection for one case (or probe). A legacy SSE connection
    /// waits up to `startup` for the `endpoint` event; Streamable HTTP sends
    /// nothing until the first message.
    pub async fn connect(&self, max_line: usize, startup: Duration) -> Result<Connection, String> {
        match self {
            Target::Stdio(cmd) => StdioProcess::spawn(cmd, max_line)
                .map(Connection::from)
                .map_err(|e| e.to_string()),
            Target::Http { url, options } => HttpSession::connect(url, options.clone())
                .map(Connection::from)
                .map_err(|e| e.to_string()),
            Target::Sse { url, options } => {
                LegacySseSession::connect(url, options.clone(), startup)
                    .await
                    .map(Connection::from)
                    .map_err(|e| e.to_string())
            }
        }
    }
}
