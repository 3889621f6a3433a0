//! The client under test, seen from the harness that plays its server.
//!
//! A [`ClientPeer`] is the client's process (started with
//! [`StdioProcess::spawn_observed`]: its own stdout and stderr are only
//! logged) plus the link its MCP messages travel on:
//!
//! ```text
//!  client ──spawns──► mcpspec shim --connect 127.0.0.1:PORT ──TCP──► SocketLink ─┐
//!     │                (relays its stdin/stdout)                                 ├─► recv()
//!     └── stdout/stderr lines, exit ─────────────────────────────────────────────┘
//! ```
//!
//! Over stdio the client speaks to the shim, which the harness's
//! `{server}` placeholder expanded to; the shim relays every byte to a
//! one-connection listener on loopback. Frames arrive `via` [`Via::Stdio`].
//! Over HTTP (`{url}`, `{sse_url}`) the link is an [`HttpPeer`]: the
//! harness's own Streamable HTTP or legacy HTTP+SSE endpoint on loopback.
//! The process's exit is held back until the link has ended (or half a
//! second passed), so that the client's last messages are read before it.

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::client::TransportError;
use crate::event::{Event, Stamped, Transport, Via};
use crate::inflight::Inflight;
use crate::serve::{HttpPeer, ServeKind};
use crate::stdio::{forward_frames, CommandSpec, SpawnError, StdioProcess};

/// How long the client's exit waits for its link to end.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// A client process and the link its messages travel on.
#[derive(Debug)]
pub struct ClientPeer {
    process: StdioProcess,
    link: Link,
    started: Instant,
    /// How much later than `started` the process's own clock began: its
    /// events are shifted by this, so that both sources share one clock.
    offset: Duration,
    /// The process's `Exited`, held until the link ends or the grace passes.
    exit_pending: Option<(Stamped, Instant)>,
    process_done: bool,
    exited: bool,
}

impl ClientPeer {
    /// Listens on 127.0.0.1 (a free port), then starts the client with
    /// `command(shim argv)`: the caller puts the shim's argv where the
    /// client expects its server command.
    pub async fn start_stdio(
        shim: &CommandSpec,
        command: impl FnOnce(Vec<String>) -> CommandSpec,
        max_line: usize,
    ) -> Result<ClientPeer, String> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| format!("could not listen on 127.0.0.1 for the shim: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("could not read the shim listener's address: {e}"))?;
        let mut argv = vec![shim.program.clone()];
        argv.extend(shim.args.iter().cloned());
        argv.extend(["--connect".to_owned(), addr.to_string()]);
        let spec = command(argv);
        let started = Instant::now();
        let link = Link::Socket(SocketLink::listen(listener, started, max_line));
        Self::spawn(&spec, link, started)
    }

    /// Serves `kind` on 127.0.0.1 (a free port), `gate` in front if given,
    /// then starts the client with `command(url)`.
    pub async fn start_http(
        kind: ServeKind,
        command: impl FnOnce(&str) -> CommandSpec,
        max_line: usize,
        gate: Option<std::sync::Arc<dyn crate::serve::Gate>>,
    ) -> Result<ClientPeer, String> {
        let started = Instant::now();
        let peer = HttpPeer::bind_gated(kind, max_line, gate)
            .await
            .map_err(|e| format!("could not serve HTTP on 127.0.0.1 for the client: {e}"))?;
        let spec = command(peer.url());
        Self::spawn(&spec, Link::Http(Box::new(peer)), started)
    }

    fn spawn(spec: &CommandSpec, link: Link, started: Instant) -> Result<ClientPeer, String> {
        let process = StdioProcess::spawn_observed(spec).map_err(|e: SpawnError| e.to_string())?;
        let offset = started.elapsed().saturating_sub(process.elapsed());
        Ok(ClientPeer {
            process,
            link,
            started,
            offset,
            exit_pending: None,
            process_done: false,
            exited: false,
        })
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Sends one message's bytes to the client.
    pub async fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        self.link.send(bytes).await
    }

    /// The next event: the client's messages, its output lines, the link's
    /// end and the process's exit.
    pub async fn recv(&mut self) -> Option<Stamped> {
        loop {
            if let Some((_, deadline)) = &self.exit_pending {
                if self.link.done() || Instant::now() >= *deadline {
                    self.exited = true;
                    return self.exit_pending.take().map(|(ev, _)| ev);
                }
            }
            if self.process_done && self.link.done() {
                return None;
            }
            let grace = self.exit_pending.as_ref().map(|(_, d)| *d);
            tokio::select! {
                ev = self.process.recv(), if !self.process_done && self.exit_pending.is_none() => match ev {
                    Some(mut ev) => {
                        ev.at += self.offset;
                        if matches!(ev.event, Event::Exited { .. }) {
                            self.exit_pending = Some((ev, Instant::now() + EXIT_GRACE));
                        } else {
                            return Some(ev);
                        }
                    }
                    None => self.process_done = true,
                },
                ev = self.link.recv(), if !self.link.done() => {
                    if let Some(ev) = ev {
                        return Some(ev);
                    }
                }
                () = sleep_until_opt(grace), if grace.is_some() => {}
            }
        }
    }

    /// Ends the server's side of the link: the shim sees end of input and
    /// closes the client's.
    pub fn close_input(&mut self) {
        match &mut self.link {
            Link::Socket(s) => {
                s.writer = None;
                s.writer_rx = None;
            }
            Link::Http(h) => h.close(),
        }
    }

    /// Kills the client's process group and drops the link.
    pub fn kill(&mut self) {
        self.close_input();
        if let Link::Socket(s) = &self.link {
            s.task.abort();
        }
        self.process.kill();
    }

    /// `stdio`, `http` or `sse`: how the client reaches the harness.
    pub fn transport(&self) -> &'static str {
        self.kind().as_str()
    }

    /// How the client reaches the harness.
    pub fn kind(&self) -> Transport {
        match &self.link {
            Link::Socket(_) => Transport::Stdio,
            Link::Http(h) => match h.kind() {
                ServeKind::Streamable => Transport::Http,
                ServeKind::LegacySse => Transport::Sse,
            },
        }
    }

    /// The Streamable HTTP session id the harness issued, if any.
    pub fn session_id(&self) -> Option<String> {
        match &self.link {
            Link::Http(h) => h.session_id(),
            Link::Socket(_) => None,
        }
    }

    /// Streamable HTTP: cuts the response stream that awaits an answer to
    /// `id` ([`HttpPeer::cut_stream`]); `at` is on the clock of the HTTP
    /// records.
    pub fn cut_stream(
        &mut self,
        id: &mcpspec_wire::Id,
        retry_ms: Option<u64>,
    ) -> Result<crate::serve::Cut, TransportError> {
        match &mut self.link {
            Link::Http(h) if h.kind() == ServeKind::Streamable => {
                // On the link's clock, which stamps its records too.
                h.cut_stream(id, retry_ms)
            }
            _ => Err(TransportError::NoStream(
                "only a Streamable HTTP response stream can be cut".to_owned(),
            )),
        }
    }

    /// Whether the client resumed the cut stream of POST `n`.
    pub fn resumed(&self, n: u64) -> bool {
        matches!(&self.link, Link::Http(h) if h.resumed(n))
    }

    /// True once the client's process has exited (and that was reported).
    pub fn has_exited(&self) -> bool {
        self.exited
    }

    /// True while the link's reader holds the client's frames not yet sent
    /// on (see `inflight`).
    pub fn delivering(&self) -> bool {
        self.link.delivering()
    }
}

impl Drop for ClientPeer {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// How the client's messages reach the harness.
#[derive(Debug)]
enum Link {
    Socket(SocketLink),
    Http(Box<HttpPeer>),
}

impl Link {
    fn done(&self) -> bool {
        match self {
            Link::Socket(s) => s.done,
            Link::Http(h) => h.has_exited(),
        }
    }

    /// The link's reader holds frames not yet sent on.
    fn delivering(&self) -> bool {
        match self {
            Link::Socket(s) => s.inflight.any(),
            Link::Http(h) => h.delivering(),
        }
    }

    async fn recv(&mut self) -> Option<Stamped> {
        match self {
            Link::Socket(s) => s.recv().await,
            Link::Http(h) => h.recv().await,
        }
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        match self {
            Link::Socket(s) => s.send(bytes).await,
            Link::Http(h) => h.send(bytes).await,
        }
    }
}

/// The shim's one connection: frames in, bytes out.
#[derive(Debug)]
struct SocketLink {
    events: mpsc::Receiver<Stamped>,
    writer: Option<OwnedWriteHalf>,
    writer_rx: Option<oneshot::Receiver<OwnedWriteHalf>>,
    task: JoinHandle<()>,
    done: bool,
    /// The reader's hold on frames read but not yet sent on.
    inflight: Inflight,
}

impl SocketLink {
    /// Accepts the first connection on `listener` (later ones are refused by
    /// dropping the listener) and reads ndjson frames from it.
    fn listen(listener: TcpListener, started: Instant, max_line: usize) -> SocketLink {
        let (tx, events) = mpsc::channel(1024);
        let (wtx, writer_rx) = oneshot::channel();
        let inflight = Inflight::default();
        let reading = inflight.clone();
        let task = tokio::spawn(async move {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            drop(listener);
            let (read, write) = stream.into_split();
            let _ = wtx.send(write);
            if forward_frames(read, started, max_line, &tx, &reading).await {
                let _ = tx
                    .send(Stamped {
                        at: started.elapsed(),
                        via: Via::Stdio,
                        event: Event::Closed(
                            "the client closed its connection (the server's stdin ended)"
                                .to_owned(),
                        ),
                    })
                    .await;
            }
        });
        SocketLink {
            events,
            writer: None,
            writer_rx: Some(writer_rx),
            task,
            done: false,
            inflight,
        }
    }

    async fn recv(&mut self) -> Option<Stamped> {
        let ev = self.events.recv().await;
        if ev.is_none() {
            self.done = true;
        }
        ev
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        if self.writer.is_none() {
            if let Some(rx) = &mut self.writer_rx {
                if let Ok(w) = rx.try_recv() {
                    self.writer = Some(w);
                    self.writer_rx = None;
                }
            }
        }
        let Some(w) = &mut self.writer else {
            return Err(TransportError::Closed);
        };
        w.write_all(bytes).await?;
        w.flush().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// A stand-in shim: `sh -c` connecting with bash's /dev/tcp is not
    /// portable, so the test plays the shim itself over a TCP stream.
    #[tokio::test]
    async fn frames_flow_both_ways_and_exit_follows_the_link() {
        let shim = CommandSpec::new("true", Vec::<String>::new());
        let (addr_tx, addr_rx) = oneshot::channel::<String>();
        let mut addr_tx = Some(addr_tx);
        let mut peer = ClientPeer::start_stdio(
            &shim,
            |argv| {
                let addr = argv.last().cloned().unwrap_or_default();
                if let Some(tx) = addr_tx.take() {
                    let _ = tx.send(addr);
                }
                CommandSpec::new("sh", ["-c", "echo hello; sleep 1"])
            },
            4096,
        )
        .await
        .expect("starts");
        let addr = addr_rx.await.expect("address");
        let mut stream = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connects");
        stream
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n")
            .await
            .expect("write");
        let mut saw_frame = false;
        let mut saw_stdout = false;
        let deadline = Instant::now() + Duration::from_secs(5);
        while !(saw_frame && saw_stdout) && Instant::now() < deadline {
            match tokio::time::timeout(Duration::from_secs(5), peer.recv()).await {
                Ok(Some(ev)) => match ev.event {
                    Event::Frame(f) => saw_frame = f.text().contains("\"x\""),
                    Event::Stdout(line) => saw_stdout = line == "hello",
                    _ => {}
                },
                _ => break,
            }
        }
        assert!(saw_frame && saw_stdout);
        peer.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"y\"}\n")
            .await
            .expect("send");
        let mut buf = vec![0u8; 64];
        let n = stream.read(&mut buf).await.expect("read");
        assert!(String::from_utf8_lossy(&buf[..n]).contains("\"y\""));
        drop(stream);
        let mut closed = false;
        while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_secs(5), peer.recv()).await {
            match ev.event {
                Event::Closed(_) => closed = true,
                Event::Exited { .. } => {
                    assert!(closed, "the link's end comes before the exit");
                    return;
                }
                _ => {}
            }
        }
        panic!("no exit reported");
    }
}
