use std::time::Duration;

use tokio::io::{duplex, AsyncReadExt, AsyncWriteExt, DuplexStream};

use super::*;

/// Starts `cmd` behind the relay; returns the host's ends (what it writes
/// to the server, what it reads back, the server's stderr) and the relay.
fn relay(
    cmd: &str,
    stop: impl Future<Output = ()> + Send + 'static,
) -> (DuplexStream, DuplexStream, DuplexStream, StdioProxy) {
    let (host_w, proxy_in) = duplex(1 << 16);
    let (proxy_out, host_r) = duplex(1 << 16);
    let (proxy_err, host_e) = duplex(1 << 16);
    let options = StdioOptions {
        max_line: 64,
        grace: Duration::from_millis(300),
    };
    let spec = CommandSpec::new("sh", ["-c", cmd]);
    let proxy = start(&spec, proxy_in, proxy_out, proxy_err, options, stop).expect("sh starts");
    (host_w, host_r, host_e, proxy)
}

async fn drain(mut proxy: StdioProxy) -> (Vec<Tap>, Ending) {
    let mut taps = Vec::new();
    let collect = async {
        while let Some(t) = proxy.taps.recv().await {
            taps.push(t.tap);
        }
    };
    tokio::time::timeout(Duration::from_secs(10), collect)
        .await
        .expect("the relay ends");
    let ending = proxy.ended.await.expect("supervisor runs");
    (taps, ending)
}

async fn read_all(mut r: DuplexStream) -> Vec<u8> {
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), r.read_to_end(&mut out))
        .await
        .expect("in time")
        .expect("read");
    out
}

fn messages(taps: &[Tap], who: Peer) -> Vec<String> {
    taps.iter()
        .filter_map(|t| match t {
            Tap::Message { from, bytes, .. } if *from == who => {
                Some(String::from_utf8_lossy(bytes).into_owned())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn bytes_pass_unchanged_and_lines_are_tapped_from_each_side() {
    let (mut host_w, host_r, host_e, proxy) =
        relay("echo started >&2; cat", std::future::pending());
    // Chunks that split a line, a CRLF line, a blank line: relayed as is.
    let sent: &[&[u8]] = &[b"{\"a\":", b"1}\n{\"b\":2}\r\n\n", b"{\"c\":3}\n"];
    for chunk in sent {
        host_w.write_all(chunk).await.expect("write");
    }
    drop(host_w); // the host closes stdin: cat ends
    let out = read_all(host_r).await;
    let err = read_all(host_e).await;
    let (taps, ending) = drain(proxy).await;
    assert_eq!(out, sent.concat());
    assert_eq!(err, b"started\n");
    let want = ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"];
    assert_eq!(messages(&taps, Peer::Client), want);
    assert_eq!(messages(&taps, Peer::Server), want);
    // Each client line is tapped before the echo of it.
    let order: Vec<Peer> = taps
        .iter()
        .filter_map(|t| match t {
            Tap::Message { from, .. } => Some(*from),
            _ => None,
        })
        .collect();
    let first_server = order.iter().position(|p| *p == Peer::Server);
    assert!(first_server.is_some_and(|i| i > 0), "{order:?}");
    assert_eq!(
        ending,
        Ending::HostClosed {
            server: "the server exited with code 0".into()
        }
    );
    assert!(matches!(
        taps.last(),
        Some(Tap::Gone {
            side: Peer::Server,
            ..
        })
    ));
}

#[tokio::test]
async fn a_server_that_exits_ends_the_relay_and_its_last_line_is_unframed() {
    let (_host_w, host_r, _host_e, proxy) = relay(
        "printf '{\"x\":1}\\n{\"cut'; exit 3",
        std::future::pending(),
    );
    let out = read_all(host_r).await;
    let (taps, ending) = drain(proxy).await;
    assert_eq!(out, b"{\"x\":1}\n{\"cut");
    assert_eq!(
        ending,
        Ending::ServerExited {
            server: "the server exited with code 3".into()
        }
    );
    assert!(taps.iter().any(|t| matches!(
        t,
        Tap::Unframed { from: Peer::Server, error, .. }
            if error.kind == mcpspec_wire::FrameErrorKind::Truncated
    )));
}

#[tokio::test]
async fn a_server_that_ignores_stdin_closing_and_sigterm_is_killed() {
    let (host_w, _host_r, _host_e, proxy) = relay(
        "trap '' TERM; while :; do sleep 1; done",
        std::future::pending(),
    );
    let pid = proxy.pid.expect("a pid");
    drop(host_w);
    let (_, ending) = drain(proxy).await;
    assert_eq!(
        ending,
        Ending::HostClosed {
            server: "the server was killed by signal 9 after SIGKILL".into()
        }
    );
    assert!(std::fs::metadata(format!("/proc/{pid}")).is_err());
}

#[tokio::test]
async fn stop_ends_the_server() {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let stop = async move {
        let _ = stop_rx.await;
    };
    let (_host_w, _host_r, _host_e, proxy) = relay("sleep 30", stop);
    let _ = stop_tx.send(());
    let (_, ending) = drain(proxy).await;
    assert_eq!(
        ending,
        Ending::Stopped {
            server: "the server was killed by signal 15 after SIGTERM".into()
        }
    );
}
