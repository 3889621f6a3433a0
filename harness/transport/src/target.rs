//! [`Target`]: what a run tests, and how each case (or fuzzing session)
//! reaches it — a command spoken to over stdio (one process each time), a
//! Streamable HTTP endpoint, or a legacy HTTP+SSE stream URL (one MCP session
//! each time). The runner, the fuzzer and `replay` all connect through it.

use std::time::Duration;

use crate::serve::ServeKind;
use crate::{
    ClientPeer, CommandSpec, Connection, HttpOptions, HttpSession, LegacySseSession, StdioProcess,
    Transport,
};

#[derive(Debug, Clone)]
pub enum Target {
    /// `-- CMD ARGS…`
    Stdio(CommandSpec),
    /// `--url URL`
    Http { url: String, options: HttpOptions },
    /// `--sse-url URL`
    Sse { url: String, options: HttpOptions },
    /// `mcpspec client -- CMD …`: a client under test, which the harness
    /// serves; each connection starts it anew.
    Client(ClientCommand),
}

/// A client's command line, with the placeholders that say how it reaches
/// the harness: `{server}` (the argv of the stdio shim), `{url}` (Streamable
/// HTTP) or `{sse_url}` (legacy HTTP+SSE). With none, the shim's argv is
/// appended. `{client_id}` and `{client_secret}` take the static client
/// credentials of a case whose authorization server registered the client
/// beforehand ([`crate::serve::Gate::client_credentials`]), and expand to
/// nothing in every other case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCommand {
    pub command: CommandSpec,
    /// The shim's program and leading arguments (`mcpspec shim`); the
    /// harness adds `--connect ADDR`.
    pub shim: CommandSpec,
}

impl ClientCommand {
    pub const SERVER: &'static str = "{server}";
    pub const URL: &'static str = "{url}";
    pub const SSE_URL: &'static str = "{sse_url}";
    pub const CLIENT_ID: &'static str = "{client_id}";
    pub const CLIENT_SECRET: &'static str = "{client_secret}";

    /// Whether the command line can take static client credentials (it
    /// names `{client_id}`).
    pub fn takes_client_id(&self) -> bool {
        std::iter::once(&self.command.program)
            .chain(&self.command.args)
            .any(|a| a.contains(Self::CLIENT_ID))
    }

    /// `stdio`, `http` or `sse`: which placeholder the command uses.
    pub fn transport(&self) -> &'static str {
        self.kind().as_str()
    }

    /// The transport the command's placeholder asks for.
    pub fn kind(&self) -> Transport {
        let uses = |p: &str| {
            std::iter::once(&self.command.program)
                .chain(&self.command.args)
                .any(|a| a.contains(p))
        };
        if uses(Self::URL) {
            Transport::Http
        } else if uses(Self::SSE_URL) {
            Transport::Sse
        } else {
            Transport::Stdio
        }
    }

    /// The command with `{server}` replaced by `server` (a whole argument
    /// becomes several; inside a longer argument, the shell-quoted command
    /// line), `{url}` and `{sse_url}` by `url`, `{client_id}` and
    /// `{client_secret}` by `credentials` (or nothing). With no transport
    /// placeholder at all, `server` is appended.
    pub fn expand(
        &self,
        server: &[String],
        url: Option<&str>,
        credentials: Option<&(String, String)>,
    ) -> CommandSpec {
        let (id, secret) = credentials.map_or(("", ""), |(i, s)| (i.as_str(), s.as_str()));
        let line = CommandSpec::new(
            server.first().cloned().unwrap_or_default(),
            server.iter().skip(1).cloned(),
        )
        .display();
        let subst = |a: &str| {
            let mut a = a
                .replace(Self::SERVER, &line)
                .replace(Self::CLIENT_ID, id)
                .replace(Self::CLIENT_SECRET, secret);
            if let Some(url) = url {
                a = a.replace(Self::URL, url).replace(Self::SSE_URL, url);
            }
            a
        };
        let mut placed = false;
        let mut argv: Vec<String> = Vec::new();
        for a in std::iter::once(&self.command.program).chain(&self.command.args) {
            if a == Self::SERVER {
                argv.extend(server.iter().cloned());
                placed = true;
            } else {
                placed |= [Self::SERVER, Self::URL, Self::SSE_URL]
                    .iter()
                    .any(|p| a.contains(p));
                argv.push(subst(a));
            }
        }
        if !placed {
            argv.extend(server.iter().cloned());
        }
        let program = argv.remove(0);
        CommandSpec::new(program, argv)
    }
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
        self.kind().as_str()
    }

    /// The transport the target is reached over.
    pub fn kind(&self) -> Transport {
        match self {
            Target::Stdio(_) => Transport::Stdio,
            Target::Http { .. } => Transport::Http,
            Target::Sse { .. } => Transport::Sse,
            Target::Client(c) => c.kind(),
        }
    }

    /// The URL of an HTTP target.
    pub fn url(&self) -> Option<&str> {
        match self {
            Target::Stdio(_) | Target::Client(_) => None,
            Target::Http { url, .. } | Target::Sse { url, .. } => Some(url),
        }
    }

    /// The command line or the URL, for messages and reports.
    pub fn display(&self) -> String {
        match self {
            Target::Stdio(cmd) => cmd.display(),
            Target::Http { url, .. } => format!("{url} (Streamable HTTP)"),
            Target::Sse { url, .. } => format!("{url} (legacy HTTP+SSE)"),
            Target::Client(c) => format!("{} (client)", c.command.display()),
        }
    }

    /// A fresh connection: a new process, a new Streamable HTTP session (no
    /// traffic until the first message), or a new legacy SSE stream, which
    /// waits up to `startup` for its `endpoint` event.
    pub async fn connect(&self, max_line: usize, startup: Duration) -> Result<Connection, String> {
        self.connect_gated(max_line, startup, None).await
    }

    /// As [`Target::connect`]; a client under test served over Streamable
    /// HTTP gets `gate` in front of the scripted server's endpoints (the
    /// runner's protected mode; ignored for the other targets).
    pub async fn connect_gated(
        &self,
        max_line: usize,
        startup: Duration,
        gate: Option<std::sync::Arc<dyn crate::serve::Gate>>,
    ) -> Result<Connection, String> {
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
            Target::Client(c) => match c.kind() {
                Transport::Stdio => {
                    ClientPeer::start_stdio(&c.shim, |argv| c.expand(&argv, None, None), max_line)
                        .await
                        .map(|p| Connection::Peer(Box::new(p)))
                }
                kind => {
                    let kind = if kind == Transport::Sse {
                        ServeKind::LegacySse
                    } else {
                        ServeKind::Streamable
                    };
                    let gate = gate.filter(|_| kind == ServeKind::Streamable);
                    let credentials = gate.as_ref().and_then(|g| g.client_credentials());
                    let expand = |url: &str| c.expand(&[], Some(url), credentials.as_ref());
                    ClientPeer::start_http(kind, expand, max_line, gate)
                        .await
                        .map(|p| Connection::Peer(Box::new(p)))
                }
            },
        }
    }

    /// True for a client under test (the harness plays the server).
    pub fn is_client(&self) -> bool {
        matches!(self, Target::Client(_))
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

    fn client(args: &[&str]) -> ClientCommand {
        ClientCommand {
            command: CommandSpec::new(args[0], args[1..].iter().copied()),
            shim: CommandSpec::new("mcpspec", ["shim"]),
        }
    }

    #[test]
    fn placeholders_expand_or_the_server_is_appended() {
        let shim: Vec<String> = ["/bin/mcpspec", "shim", "--connect", "127.0.0.1:9"]
            .map(String::from)
            .to_vec();
        let c = client(&["node", "c.js", "{server}", "--x"]);
        assert_eq!(c.transport(), "stdio");
        let e = c.expand(&shim, None, None);
        assert_eq!(e.program, "node");
        assert_eq!(
            e.args,
            [
                "c.js",
                "/bin/mcpspec",
                "shim",
                "--connect",
                "127.0.0.1:9",
                "--x"
            ]
        );
        let e = client(&["sh", "-c", "run {server}"]).expand(&shim, None, None);
        assert_eq!(
            e.args,
            ["-c", "run /bin/mcpspec shim --connect 127.0.0.1:9"]
        );
        let e = client(&["inspector", "--cli"]).expand(&shim, None, None);
        assert_eq!(e.args[1..], shim[..]);
        let c = client(&["c", "--url", "{url}"]);
        assert_eq!(c.transport(), "http");
        let e = c.expand(&[], Some("http://127.0.0.1:1/mcp"), None);
        assert_eq!(e.args, ["--url", "http://127.0.0.1:1/mcp"]);
        assert_eq!(client(&["c", "{sse_url}"]).transport(), "sse");
    }

    #[test]
    fn client_credentials_expand_when_handed_and_to_nothing_otherwise() {
        let c = client(&[
            "c",
            "--url",
            "{url}",
            "--client-id",
            "{client_id}",
            "--secret={client_secret}",
        ]);
        assert!(c.takes_client_id());
        assert!(!client(&["c", "--url", "{url}"]).takes_client_id());
        let url = Some("http://127.0.0.1:1/mcp");
        let handed = ("id-1".to_owned(), "s3cret".to_owned());
        let e = c.expand(&[], url, Some(&handed));
        assert_eq!(
            e.args,
            [
                "--url",
                "http://127.0.0.1:1/mcp",
                "--client-id",
                "id-1",
                "--secret=s3cret"
            ]
        );
        let e = c.expand(&[], url, None);
        assert_eq!(e.args[2..], ["--client-id", "", "--secret="]);
    }

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
