//! A target process spoken to over stdio.
//!
//! [`StdioProcess::spawn`] starts the command in its own process group with
//! stdin, stdout and stderr piped. Three background tasks turn the process
//! into a stream of [`Event`]s on one channel, in order:
//!
//! ```text
//!  stdout ──► NdjsonDecoder ──► Event::Frame / Event::FrameError ─┐
//!  stderr ──► lines ──────────► Event::Stderr ────────────────────┼──► mpsc ──► recv()
//!  wait() ──► (after stdout and stderr EOF, or 500 ms) ──► Event::Exited
//! ```
//!
//! `Exited` comes after the last stdout frame and the last stderr line (the
//! exit watcher waits for both to close, bounded, because a grandchild may
//! hold them open), so a crashing target's last words are read before its
//! exit is reported. Dropping
//! the [`StdioProcess`] kills the whole process group, so a target that
//! spawned helpers (`npx`, shells) leaves nothing behind; if mcpspec is
//! killed before the drop (SIGKILL), the `watchdog` kills the group.

use std::io;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mcpspec_wire::NdjsonDecoder;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, Notify};
use tokio::time::Instant;

pub use crate::event::{Event, Stamped, Via};
use crate::inflight::Inflight;

/// How to start a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    pub program: String,
    pub args: Vec<String>,
}

impl CommandSpec {
    pub fn new(
        program: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        CommandSpec {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }

    /// The command as a shell-like line, for messages.
    pub fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| {
                if a.is_empty() || a.contains(char::is_whitespace) {
                    format!("{a:?}")
                } else {
                    a.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The process could not be started.
#[derive(Debug, thiserror::Error)]
#[error("failed to start `{command}`: {source}")]
pub struct SpawnError {
    pub command: String,
    #[source]
    pub source: io::Error,
}

/// A running target process.
#[derive(Debug)]
pub struct StdioProcess {
    stdin: Option<ChildStdin>,
    events: mpsc::Receiver<Stamped>,
    pid: Option<u32>,
    started: Instant,
    exited: bool,
    /// The stdout reader's hold on frames read but not yet sent on.
    inflight: Inflight,
}

const STDERR_LINE_MAX: usize = 4096;

/// The first size of a stdout read buffer. A run keeps dozens of targets
/// waiting at once, most of whose lines are short: a buffer starts small
/// and doubles while reads fill it, up to [`READ_MAX`] (issue #18: a 64 KiB
/// buffer per target was a fifth of a stdio run's heap).
const READ_MIN: usize = 4 * 1024;
/// The largest stdout read buffer.
const READ_MAX: usize = 64 * 1024;
/// The buffer of a stderr reader (or an observed stdout): lines are cut at
/// [`STDERR_LINE_MAX`] anyway, and most targets write little there.
const LINES_BUF: usize = 2 * 1024;

impl StdioProcess {
    /// Starts `spec` with piped stdio in a new process group. `max_line` is
    /// the framing limit for stdout lines.
    pub fn spawn(spec: &CommandSpec, max_line: usize) -> Result<Self, SpawnError> {
        Self::start(spec, max_line, false)
    }

    /// Starts a process whose stdio is *not* its MCP channel (a client under
    /// test, which reaches the harness through the shim or over HTTP): stdin
    /// is empty, and each stdout line is reported as [`Event::Stdout`].
    pub fn spawn_observed(spec: &CommandSpec) -> Result<Self, SpawnError> {
        Self::start(spec, STDERR_LINE_MAX, true)
    }

    fn start(spec: &CommandSpec, max_line: usize, observed: bool) -> Result<Self, SpawnError> {
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .stdin(if observed {
                Stdio::null()
            } else {
                Stdio::piped()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        // Killed by the watchdog if mcpspec is killed before the drop (SIGKILL).
        let mut child = crate::watchdog::spawn(&mut cmd).map_err(|source| SpawnError {
            command: spec.display(),
            source,
        })?;
        let started = Instant::now();
        let pid = child.id();
        let (tx, rx) = mpsc::channel(1024);
        let inflight = Inflight::default();
        let stdout_closed = Arc::new(Notify::new());

        match child.stdout.take() {
            Some(stdout) if observed => {
                let tx = tx.clone();
                let closed = stdout_closed.clone();
                tokio::spawn(async move {
                    forward_lines(stdout, started, Event::Stdout, &tx).await;
                    closed.notify_one();
                });
            }
            Some(stdout) => {
                let tx = tx.clone();
                let closed = stdout_closed.clone();
                let inflight = inflight.clone();
                tokio::spawn(async move {
                    if forward_frames(stdout, started, max_line, &tx, &inflight).await {
                        closed.notify_one();
                    }
                });
            }
            None => stdout_closed.notify_one(),
        }

        let stderr_closed = Arc::new(Notify::new());
        match child.stderr.take() {
            Some(stderr) => {
                let tx = tx.clone();
                let closed = stderr_closed.clone();
                tokio::spawn(async move {
                    forward_lines(stderr, started, Event::Stderr, &tx).await;
                    closed.notify_one();
                });
            }
            None => stderr_closed.notify_one(),
        }

        let stdin = child.stdin.take();
        tokio::spawn(async move {
            let status = child.wait().await;
            // Let stdout and stderr drain so that Exited follows the last
            // frame and the last words.
            let _ = tokio::time::timeout(Duration::from_millis(500), async {
                stdout_closed.notified().await;
                stderr_closed.notified().await;
            })
            .await;
            let (code, signal) = match status {
                Ok(s) => (s.code(), exit_signal(&s)),
                Err(_) => (None, None),
            };
            let _ = tx
                .send(Stamped {
                    at: started.elapsed(),
                    via: Via::Stdio,
                    event: Event::Exited { code, signal },
                })
                .await;
        });

        Ok(StdioProcess {
            stdin,
            events: rx,
            pid,
            started,
            exited: false,
            inflight,
        })
    }

    /// The child's process id (also its process group's), while the OS
    /// reported one at spawn.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Time since the process was started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Writes bytes to the target's stdin and flushes.
    pub async fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "stdin already closed"))?;
        stdin.write_all(bytes).await?;
        stdin.flush().await
    }

    /// Closes the target's stdin (the stdio way to end a session).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next event; `None` once the process has exited and every event was read.
    pub async fn recv(&mut self) -> Option<Stamped> {
        let e = self.events.recv().await;
        if let Some(Stamped {
            event: Event::Exited { .. },
            ..
        }) = &e
        {
            self.exited = true;
        }
        e
    }

    /// True once `Exited` has been received.
    pub fn has_exited(&self) -> bool {
        self.exited
    }

    /// True while the stdout reader holds frames it has read but not sent
    /// on yet (see `inflight`).
    pub fn delivering(&self) -> bool {
        self.inflight.any()
    }

    /// Kills the whole process group now.
    pub fn kill(&mut self) {
        self.stdin = None;
        if let Some(pid) = self.pid.take() {
            kill_group(pid);
        }
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Decodes `from` as ndjson and reports each frame (or framing error) via
/// [`Via::Stdio`] until EOF: true then, false when the receiver is gone.
pub(crate) async fn forward_frames(
    mut from: impl tokio::io::AsyncRead + Unpin,
    started: Instant,
    max_line: usize,
    tx: &mpsc::Sender<Stamped>,
    inflight: &Inflight,
) -> bool {
    let mut decoder = NdjsonDecoder::new(max_line);
    let mut buf = vec![0u8; READ_MIN];
    loop {
        let n = from.read(&mut buf).await.unwrap_or(0);
        // Every frame of this read is sent on before the connection may end
        // (see `inflight`); the guard drops before the next read.
        let _delivering = inflight.enter();
        if n == 0 {
            decoder.finish();
        } else {
            decoder.push(&buf[..n]);
        }
        while let Some(item) = decoder.next() {
            let event = match item {
                Ok(f) => Event::Frame(f),
                Err(e) => Event::FrameError(e),
            };
            let stamped = Stamped {
                at: started.elapsed(),
                via: Via::Stdio,
                event,
            };
            if tx.send(stamped).await.is_err() {
                return false;
            }
        }
        if n == 0 {
            return true;
        }
        if n == buf.len() && buf.len() < READ_MAX {
            // More may be waiting: read more at a time.
            buf.resize(buf.len() * 2, 0);
        }
    }
}

/// Reports each line of `from` (cut to 4 KiB) as `event(line)` until EOF.
async fn forward_lines(
    from: impl tokio::io::AsyncRead + Unpin,
    started: Instant,
    event: fn(String) -> Event,
    tx: &mpsc::Sender<Stamped>,
) {
    let mut reader = BufReader::with_capacity(LINES_BUF, from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let cut = line.len().min(STDERR_LINE_MAX);
                let text = String::from_utf8_lossy(&line[..cut])
                    .trim_end_matches(['\r', '\n'])
                    .to_owned();
                let stamped = Stamped {
                    at: started.elapsed(),
                    via: Via::Stdio,
                    event: event(text),
                };
                if tx.send(stamped).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn kill_group(pid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) with a negative pid signals the process group we created
    // with process_group(0) at spawn; it has no memory-safety preconditions.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    crate::watchdog::unwatch(pid);
}

fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn collect(p: &mut StdioProcess) -> Vec<Event> {
        let mut out = Vec::new();
        while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(5), p.recv()).await {
            let done = matches!(e.event, Event::Exited { .. });
            out.push(e.event);
            if done {
                break;
            }
        }
        out
    }

    #[tokio::test]
    async fn frames_then_stderr_then_exit_in_order() {
        let spec = CommandSpec::new(
            "sh",
            [
                "-c",
                "printf '{\"a\":1}\\n'; echo oops >&2; printf '{\"b\"'; exit 3",
            ],
        );
        let mut p = StdioProcess::spawn(&spec, 1024).expect("sh starts");
        let events = collect(&mut p).await;
        let frames: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::Frame(f) => Some(f.text().to_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(frames, ["{\"a\":1}"]);
        assert!(events
            .iter()
            .any(|e| matches!(e, Event::Stderr(s) if s == "oops")));
        assert!(events
            .iter()
            .any(|e| matches!(e, Event::FrameError(f) if f.kind == mcpspec_wire::FrameErrorKind::Truncated)));
        assert!(matches!(
            events.last(),
            Some(Event::Exited { code: Some(3), .. })
        ));
    }

    #[tokio::test]
    async fn a_line_longer_than_the_read_buffer_arrives_whole() {
        // Far past READ_MIN and READ_MAX: the buffer grows, the decoder joins.
        let long = format!("{{\"x\":\"{}\"}}", "y".repeat(300 * 1024));
        let mut p = StdioProcess::spawn(&CommandSpec::new("cat", Vec::<String>::new()), 1 << 20)
            .expect("cat starts");
        p.send(format!("{long}\n{{\"z\":1}}\n").as_bytes())
            .await
            .expect("write");
        p.close_input();
        let frames: Vec<String> = collect(&mut p)
            .await
            .into_iter()
            .filter_map(|e| match e {
                Event::Frame(f) => Some(f.text().to_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(frames, [long, "{\"z\":1}".to_owned()]);
    }

    #[tokio::test]
    async fn echo_round_trip_and_close_input() {
        let mut p = StdioProcess::spawn(&CommandSpec::new("cat", Vec::<String>::new()), 1024)
            .expect("cat starts");
        p.send(b"{\"x\":2}\n").await.expect("write");
        let first = tokio::time::timeout(Duration::from_secs(5), p.recv())
            .await
            .expect("in time")
            .expect("event");
        assert!(matches!(first.event, Event::Frame(ref f) if f.text() == "{\"x\":2}"));
        p.close_input();
        let events = collect(&mut p).await;
        assert!(matches!(
            events.last(),
            Some(Event::Exited { code: Some(0), .. })
        ));
    }

    #[tokio::test]
    async fn drop_kills_the_process_group() {
        // The shell starts a grandchild sleeper and prints its pid; dropping
        // the process must kill the grandchild too.
        let spec = CommandSpec::new("sh", ["-c", "sleep 30 & echo $! ; wait"]);
        let mut p = StdioProcess::spawn(&spec, 1024).expect("sh starts");
        let first = tokio::time::timeout(Duration::from_secs(5), p.recv())
            .await
            .expect("in time")
            .expect("event");
        let Event::Frame(f) = first.event else {
            panic!("expected the pid line, got {first:?}");
        };
        let pid: u32 = f.text().trim().parse().expect("a pid");
        drop(p);
        let gone = |pid: u32| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| {
                    s.split(") ")
                        .nth(1)
                        .is_some_and(|rest| rest.starts_with('Z'))
                })
                .unwrap_or(true)
        };
        for _ in 0..100 {
            if gone(pid) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("grandchild {pid} survived the drop");
    }

    #[test]
    fn display_quotes_arguments_with_spaces() {
        let spec = CommandSpec::new("node", ["a b.js", "x"]);
        assert_eq!(spec.display(), "node \"a b.js\" x");
    }
}
