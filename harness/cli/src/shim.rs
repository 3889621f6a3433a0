//! `mcpspec shim --connect ADDR`: what `{server}` expands to in `mcpspec
//! client`. The client under test starts it as its MCP server over stdio;
//! the shim relays the client's messages (its stdin) to the harness over a
//! loopback TCP connection, and the harness's messages back to its stdout.
//!
//! Everything it needs is in argv (SDK clients give the servers they start
//! a filtered environment). Either direction ending ends the shim: the
//! client closing our stdin is the client ending the session; the harness
//! closing the connection is the server going away, which the client sees
//! as end of input. Plain threads: the shim must start fast and stay small.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use mcpspec_model::Exit;

use crate::cli::ShimArgs;

pub fn run(args: &ShimArgs) -> Exit {
    let stream = match TcpStream::connect_timeout(&args.connect, Duration::from_secs(10)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "mcpspec shim: cannot reach the harness at {}: {e}",
                args.connect
            );
            return Exit::TargetUnavailable;
        }
    };
    let _ = stream.set_nodelay(true);
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let up = match stream.try_clone() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mcpspec shim: {e}");
            return Exit::TargetUnavailable;
        }
    };
    let tx = done_tx.clone();
    // Threads are detached: the process ends when either direction does.
    let spawned = std::thread::Builder::new()
        .name("shim-up".into())
        .spawn(move || {
            relay(std::io::stdin().lock(), &up);
            let _ = up.shutdown(Shutdown::Write);
            let _ = tx.send(());
        })
        .and_then(|_| {
            let down = stream;
            std::thread::Builder::new()
                .name("shim-down".into())
                .spawn(move || {
                    relay(&down, std::io::stdout().lock());
                    let _ = done_tx.send(());
                })
        });
    if let Err(e) = spawned {
        eprintln!("mcpspec shim: cannot start its relay threads: {e}");
        return Exit::TargetUnavailable;
    }
    let _ = done_rx.recv();
    Exit::Success
}

/// Copies `from` to `to`, flushing after every read, until either ends.
fn relay(mut from: impl Read, mut to: impl Write) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
            return;
        }
    }
}
