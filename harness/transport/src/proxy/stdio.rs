//! `mcpspec proxy -- SERVER_CMD ARGS…`: the host starts the proxy instead of
//! its server; the proxy starts the server and relays both byte streams.
//!
//! ```text
//!  host stdin ──read──► decoder: Tap (Peer::Client) ──write──► server stdin
//!  host stdout ◄─write── decoder: Tap (Peer::Server) ◄──read── server stdout
//!  host stderr ◄─────────── copied as is ◄──────────────────── server stderr
//! ```
//!
//! Every chunk is written on exactly as it was read (flushed at once); the
//! wire crate's [`NdjsonDecoder`] splits a copy into lines for the taps.
//!
//! How it ends ([`Ending`]):
//!
//! | event | then |
//! |---|---|
//! | the host closes stdin | the server's stdin is closed; it has [`StdioOptions::grace`] to exit, then `SIGTERM` to its process group, then `SIGKILL` one second later |
//! | the server exits | its last output is relayed (bounded: a grandchild may hold stdout), the rest of its group killed; the caller detaches stdout ([`detach_stdout`]) |
//! | the caller's `stop` future completes (Ctrl-C, `--duration`) | the server's stdin is closed, its group gets `SIGTERM`, `SIGKILL` one second later |
//!
//! The server runs in a process group of its own, registered with the
//! transport's watchdog: if mcpspec is killed, the group dies too.

use std::future::Future;
use std::process::Stdio;
use std::time::Duration;

use mcpspec_wire::event::{Event, Via};
use mcpspec_wire::NdjsonDecoder;
use tokio::io::{duplex, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{Peer, Tap, Tapped, Tapper};
use crate::stdio::{CommandSpec, SpawnError};

/// How the stdio proxy behaves.
#[derive(Debug, Clone)]
pub struct StdioOptions {
    /// The framing limit of one line (longer lines are relayed, and tapped
    /// as [`Tap::Unframed`]).
    pub max_line: usize,
    /// How long the server has to exit after its stdin was closed.
    pub grace: Duration,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            max_line: mcpspec_wire::DEFAULT_MAX_LINE,
            grace: Duration::from_secs(2),
        }
    }
}

/// Why the relay ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The host closed its stdin; how the server then went.
    HostClosed { server: String },
    /// The server exited on its own.
    ServerExited { server: String },
    /// The caller stopped the relay; how the server then went.
    Stopped { server: String },
}

impl Ending {
    /// One line for the user.
    pub fn describe(&self) -> String {
        match self {
            Ending::HostClosed { server } => format!("the client closed stdin; {server}"),
            Ending::ServerExited { server } => server.clone(),
            Ending::Stopped { server } => format!("stopped; {server}"),
        }
    }
}

/// A running stdio relay.
#[derive(Debug)]
pub struct StdioProxy {
    /// What crossed, in order; closed once the relay has ended.
    pub taps: mpsc::Receiver<Tapped>,
    /// Completes when the relay has ended and the server is gone.
    pub ended: JoinHandle<Ending>,
    /// The server's process id (and process group's).
    pub pid: Option<u32>,
}

/// Starts `spec` and relays between it and the host's streams until the
/// host or the server goes away, or `stop` completes.
pub fn start<I, O, E, S>(
    spec: &CommandSpec,
    host_in: I,
    host_out: O,
    host_err: E,
    options: StdioOptions,
    stop: S,
) -> Result<StdioProxy, SpawnError>
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
    E: AsyncWrite + Unpin + Send + 'static,
    S: Future<Output = ()> + Send + 'static,
{
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    // Registered with the watchdog by the child itself, before its exec.
    let mut child = crate::watchdog::spawn(&mut cmd).map_err(|source| SpawnError {
        command: spec.display(),
        source,
    })?;
    let pid = child.id();
    let (tapper, taps) = Tapper::new();
    let (Some(server_in), Some(server_out), Some(server_err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        // Piped above: tokio always hands the three ends out once.
        kill_group(pid, libc::SIGKILL);
        return Err(SpawnError {
            command: spec.display(),
            source: std::io::Error::other("the server's stdio was not piped"),
        });
    };
    let max = options.max_line;
    let up = tokio::spawn(pump(Peer::Client, host_in, server_in, max, tapper.clone()));
    let down = tokio::spawn(pump(
        Peer::Server,
        server_out,
        host_out,
        max,
        tapper.clone(),
    ));
    let mut err = tokio::spawn(async move {
        let mut from = server_err;
        let mut to = host_err;
        let _ = tokio::io::copy(&mut from, &mut to).await;
        let _ = to.flush().await;
    });
    let ended = tokio::spawn(async move {
        let ending = supervise(&mut child, pid, up, down, &options, &tapper, stop).await;
        // Whatever the group still holds (helpers the server started) goes too.
        kill_group(pid, libc::SIGKILL);
        let _ = tokio::time::timeout(Duration::from_millis(200), &mut err).await;
        err.abort();
        ending
    });
    Ok(StdioProxy { taps, ended, pid })
}

/// Waits for the first of: the host closing stdin, the server exiting, a
/// stop; then ends the server and taps how each side went.
async fn supervise(
    child: &mut Child,
    pid: Option<u32>,
    mut up: JoinHandle<PumpEnd>,
    mut down: JoinHandle<PumpEnd>,
    options: &StdioOptions,
    tapper: &Tapper,
    stop: impl Future<Output = ()>,
) -> Ending {
    tokio::pin!(stop);
    let mut up_done = false;
    loop {
        tokio::select! {
            status = child.wait() => {
                // Relay the server's last words before saying it went.
                let _ = tokio::time::timeout(Duration::from_millis(500), &mut down).await;
                let server = gone(tapper, status.ok()).await;
                up.abort();
                return Ending::ServerExited { server };
            }
            end = &mut up, if !up_done => {
                up_done = true;
                if matches!(end, Ok(PumpEnd::SourceEnded)) {
                    let how = "the client closed its stdin".to_owned();
                    tapper.tap(0, Tap::Gone { side: Peer::Client, via: Via::Stdio, event: Event::Closed(how) }).await;
                    // The server's stdin is closed (the pump dropped it): it
                    // has the grace to exit before it is made to.
                    let server = end_server(child, pid, &mut down, options.grace, tapper).await;
                    return Ending::HostClosed { server };
                }
                // The server's stdin broke: it is exiting; wait for that.
            }
            () = &mut stop => {
                up.abort();
                let server = end_server(child, pid, &mut down, Duration::ZERO, tapper).await;
                return Ending::Stopped { server };
            }
        }
    }
}

/// Gives the server `grace` to exit, then `SIGTERM`, then `SIGKILL`; taps
/// its exit. Returns how it went.
async fn end_server(
    child: &mut Child,
    pid: Option<u32>,
    down: &mut JoinHandle<PumpEnd>,
    grace: Duration,
    tapper: &Tapper,
) -> String {
    let mut how = "";
    let mut status = tokio::time::timeout(grace, child.wait()).await.ok();
    if status.is_none() {
        kill_group(pid, libc::SIGTERM);
        how = " after SIGTERM";
        status = tokio::time::timeout(Duration::from_secs(1), child.wait())
            .await
            .ok();
    }
    if status.is_none() {
        kill_group(pid, libc::SIGKILL);
        how = " after SIGKILL";
        status = Some(child.wait().await);
    }
    let _ = tokio::time::timeout(Duration::from_millis(500), down).await;
    let server = gone(tapper, status.and_then(Result::ok)).await;
    format!("{server}{how}")
}

/// Taps the server's exit; returns it as text.
async fn gone(tapper: &Tapper, status: Option<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    let (code, signal) = status.map_or((None, None), |s| (s.code(), s.signal()));
    let how = match (code, signal) {
        (Some(c), _) => format!("the server exited with code {c}"),
        (None, Some(s)) => format!("the server was killed by signal {s}"),
        (None, None) => "the server exited".to_owned(),
    };
    let event = Event::Exited { code, signal };
    tapper
        .tap(
            0,
            Tap::Gone {
                side: Peer::Server,
                via: Via::Stdio,
                event,
            },
        )
        .await;
    how
}

/// How one direction of the relay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PumpEnd {
    /// The reading side reached its end of file (or failed).
    SourceEnded,
    /// The writing side would take no more.
    SinkFailed,
}

/// Relays `src` to `dst` chunk by chunk, tapping the lines of `from`
/// before each chunk is passed on. Closes `dst` when `src` ends.
async fn pump(
    from: Peer,
    mut src: impl AsyncRead + Unpin,
    mut dst: impl AsyncWrite + Unpin,
    max_line: usize,
    tapper: Tapper,
) -> PumpEnd {
    let mut decoder = NdjsonDecoder::new(max_line);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = src.read(&mut buf).await.unwrap_or(0);
        if n == 0 {
            decoder.finish();
        } else {
            decoder.push(&buf[..n]);
        }
        while let Some(item) = decoder.next() {
            let tap = match item {
                Ok(frame) => Tap::Message {
                    from,
                    via: Via::Stdio,
                    bytes: frame.bytes,
                    crlf: frame.crlf,
                },
                Err(error) => Tap::Unframed {
                    from,
                    via: Via::Stdio,
                    error,
                },
            };
            tapper.tap(0, tap).await;
        }
        if n == 0 {
            let _ = dst.shutdown().await;
            return PumpEnd::SourceEnded;
        }
        if dst.write_all(&buf[..n]).await.is_err() || dst.flush().await.is_err() {
            return PumpEnd::SinkFailed;
        }
    }
}

fn kill_group(pid: Option<u32>, signal: libc::c_int) {
    let Some(pgid) = pid.and_then(|p| libc::pid_t::try_from(p).ok()) else {
        return;
    };
    // SAFETY: kill(2) of the process group created with process_group(0)
    // at spawn; no memory-safety preconditions.
    unsafe {
        libc::kill(-pgid, signal);
    }
    if signal == libc::SIGKILL {
        if let Some(pid) = pid {
            crate::watchdog::unwatch(pid);
        }
    }
}

/// This process's own stdin, stdout and stderr as async streams, moved by
/// plain threads (the workspace's tokio has no `io-std`; its own stdin is a
/// blocking thread too). The stdin thread is detached: a read blocked on an
/// idle stdin must not hold up the exit.
#[derive(Debug)]
pub struct HostStdio {
    pub stdin: DuplexStream,
    pub stdout: DuplexStream,
    pub stderr: DuplexStream,
    /// One message per writer thread once it has written everything.
    written: std::sync::mpsc::Receiver<()>,
}

/// Bytes in flight between a thread and the relay, per stream.
const HOST_BUFFER: usize = 256 * 1024;

impl HostStdio {
    /// Starts the threads; must be called inside the runtime.
    pub fn start() -> std::io::Result<HostStdio> {
        use std::io::{Read, Write};
        let handle = tokio::runtime::Handle::current();
        let (stdin, mut feed) = duplex(HOST_BUFFER);
        let h = handle.clone();
        std::thread::Builder::new()
            .name("proxy-stdin".into())
            .spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                let mut input = std::io::stdin().lock();
                loop {
                    let n = match input.read(&mut buf) {
                        Ok(n) => n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(_) => 0,
                    };
                    if n == 0 || h.block_on(feed.write_all(&buf[..n])).is_err() {
                        return; // dropping `feed` is the end of file
                    }
                }
            })?;
        let (done, written) = std::sync::mpsc::channel();
        let writer = |name: &str, to: fn() -> Box<dyn Write>| {
            let (pipe, mut drain) = duplex(HOST_BUFFER);
            let h = handle.clone();
            let done = done.clone();
            std::thread::Builder::new()
                .name(name.into())
                .spawn(move || {
                    let mut buf = vec![0u8; 64 * 1024];
                    let mut out = to();
                    loop {
                        let n = h.block_on(drain.read(&mut buf)).unwrap_or(0);
                        if n == 0 || out.write_all(&buf[..n]).and_then(|()| out.flush()).is_err() {
                            break;
                        }
                    }
                    let _ = done.send(());
                })
                .map(|_| pipe)
        };
        let stdout = writer("proxy-stdout", || Box::new(std::io::stdout()))?;
        let stderr = writer("proxy-stderr", || Box::new(std::io::stderr()))?;
        Ok(HostStdio {
            stdin,
            stdout,
            stderr,
            written,
        })
    }

    /// The three streams for [`start`], and what waits for the writers.
    pub fn split(self) -> (DuplexStream, DuplexStream, DuplexStream, HostWritten) {
        (
            self.stdin,
            self.stdout,
            self.stderr,
            HostWritten(self.written),
        )
    }
}

/// Waits for the host's stdout and stderr to be written out.
#[derive(Debug)]
pub struct HostWritten(std::sync::mpsc::Receiver<()>);

impl HostWritten {
    /// Blocks until both writer threads are done (their streams were
    /// closed by the relay), at most `within`.
    pub fn wait(self, within: Duration) {
        let until = std::time::Instant::now() + within;
        for _ in 0..2 {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if self.0.recv_timeout(left).is_err() {
                return;
            }
        }
    }
}

/// Points this process's stdout at `/dev/null`, closing the pipe to the
/// host (which then reads end of file) while file descriptor 1 stays
/// valid for the rest of the run. Call once the relay has ended.
pub fn detach_stdout() {
    // SAFETY: open(2) of a constant C string; dup2(2) onto descriptor 1,
    // which nothing else in the process writes to after the relay; close(2)
    // of the descriptor just opened.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 1);
            libc::close(null);
        }
    }
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
