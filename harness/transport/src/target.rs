//! [`Target`]: what a run tests, and how each case (or fuzzing session)
//! reaches it — a command spoken to over stdio (one process each time), a
//! Streamable HTTP endpoint, or a legacy HTTP+SSE stream URL (one MCP session
//! each time). The runner, the fuzzer and `replay` all connect through it.

use std::time::Duration;

use crate::{CommandSpec, Connection, HttpOptions, HttpSession, LegacySseSession, StdioProcess};

#[derive(Debug, Clone)]
pub enum Target {
    /// `-- CMD ARGS…`
    Stdio(CommandSpec),
    /// `--url URL`
    Http { url: String, options: HttpOptions },
    /// `--sse-url URL`
    Sse { url: String, options: HttpOptions },
}

impl Target {
    /// A target from the command line's choices: `--url`, else `--sse-url`,
    /// else the command. URLs must be `http://` (no TLS is built in); every
    /// HTTP request carries `headers`.
    pub fn choose(
        url: Option<&str>,
        sse_url: Option<&str>,
        headers: &[(String, String)],
        command: impl FnOnce() -> Result<CommandSpec, String>,
    ) -> Result<Target, String> {
        let options = || HttpOptions {
            headers: headers.to_vec(),
            ..HttpOptions::default()
        };
        match (url, sse_url) {
            (Some(url), _) => Ok(Target::Http {
                url: http_url(url)?,
                options: options(),
            }),
            (None, Some(url)) => Ok(Target::Sse {
                url: http_url(url)?,
                options: options(),
            }),
            (None, None) => command().map(Target::Stdio),
        }
    }

    /// `stdio`, `http` or `sse` (as transcripts and reproducers name it).
    pub fn transport(&self) -> &'static str {
        match self {
            Target::Stdio(_) => "stdio",
            Target::Http { .. } => "http",
            Target::Sse { .. } => "sse",
        }
    }

    /// The URL of an HTTP target.
    pub fn url(&self) -> Option<&str> {
        match self {
            Target::Stdio(_) => None,
            Target::Http { url, .. } | Target::Sse { url, .. } => Some(url),
        }
    }

    /// The command line or the URL, for messages and reports.
    pub fn display(&self) -> String {
        match self {
            Target::Stdio(cmd) => cmd.display(),
            Target::Http { url, .. } => format!("{url} (Streamable HTTP)"),
            Target::Sse { url, .. } => format!("{url} (legacy HTTP+SSE)"),
        }
    }

    /// A fresh connection: a new process, a new Streamable HTTP session (no
    /// traffic until the first message), or a new legacy SSE stream, which
    /// waits up to `startup` for its `endpoint` event.
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

/// `url` if it is an `http://` URL; otherwise why it cannot be used.
fn http_url(url: &str) -> Result<String, String> {
    if url.starts_with("http://") {
        Ok(url.to_owned())
    } else if url.starts_with("https://") {
        Err(format!(
            "{url}: https is not supported (mcpspec is built without TLS); reach the server over http:// on loopback"
        ))
    } else {
        Err(format!("{url}: not an http:// URL"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_wins_and_must_be_plain_http() {
        let cmd = || Ok(CommandSpec::new("server", Vec::<String>::new()));
        let h = vec![("Authorization".to_owned(), "Bearer x".to_owned())];
        let t = Target::choose(Some("http://127.0.0.1:1/mcp"), None, &h, cmd).expect("http");
        assert_eq!(t.transport(), "http");
        assert!(matches!(&t, Target::Http { options, .. } if options.headers == h));
        let t = Target::choose(None, Some("http://127.0.0.1:1/sse"), &[], cmd).expect("sse");
        assert_eq!(t.transport(), "sse");
        assert_eq!(t.url(), Some("http://127.0.0.1:1/sse"));
        let t = Target::choose(None, None, &[], cmd).expect("stdio");
        assert_eq!(t.display(), "server");
        let e = Target::choose(Some("https://x/mcp"), None, &[], cmd).expect_err("https");
        assert!(e.contains("without TLS"), "{e}");
        assert!(Target::choose(None, Some("ftp://x"), &[], cmd).is_err());
    }
}
