//! Ctrl-C and `SIGTERM` during `mcpspec server`.
//!
//! ```text
//! signal 1 (SIGINT/SIGTERM) ──► Stop ──► runner: no new case, running ones
//!                                        cancelled (targets killed), reporters
//!                                        finish → exit 130 (SIGINT) / 143 (SIGTERM)
//!                                        (Exit::Interrupted / Exit::Terminated)
//! signal 2 ───────────────────────────► exit at once, same code
//! ```
//!
//! The exit code is the shell's convention, 128 + the signal number: an
//! interrupted run has no verdict (neither 0 nor 1 would be true), and
//! wrappers and CI systems already read 130 and 143 as "stopped".
//! Targets run in process groups of their own, so the terminal's Ctrl-C
//! reaches only mcpspec; the runner kills them as it drops their cases.

use std::future::Future;

use mcpspec_model::Exit;
use mcpspec_runner::run::Stop;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::oneshot;

/// Starts watching for `SIGINT` and `SIGTERM` (from now on they no longer
/// kill the process): the returned future completes at the first one; a
/// second one exits the process at once. Must be called inside the runtime.
pub fn watch() -> std::io::Result<impl Future<Output = Stop>> {
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let (reason, exit) = tokio::select! {
            _ = int.recv() => ("SIGINT", Exit::Interrupted),
            _ = term.recv() => ("SIGTERM", Exit::Terminated),
        };
        let _ = tx.send(Stop {
            reason: reason.to_owned(),
            exit,
        });
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        // The running cases were aborted at the first signal, so their
        // targets are normally gone already; only report writing is cut.
        eprintln!("\ninterrupted again: exiting at once");
        std::process::exit(i32::from(exit));
    });
    Ok(async move {
        match rx.await {
            Ok(stop) => stop,
            // The watcher never drops its sender without sending.
            Err(_) => std::future::pending().await,
        }
    })
}
