//! A tiny HTTP/1.1 server for the transport tests: 127.0.0.1, port 0, one
//! request per connection (`Connection: close`), replies chosen by a
//! closure, every request recorded. Dropped with the test: its task aborts.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub target: String,
    /// Lowercased names.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub enum Reply {
    /// Status, headers, body (sent with Content-Length).
    Full(u16, Vec<(String, String)>, Vec<u8>),
    /// Status, headers, then body chunks as they come; closed when the
    /// sender is dropped.
    Stream(u16, Vec<(String, String)>, mpsc::UnboundedReceiver<Vec<u8>>),
    /// Read the request, never answer; note when the client hangs up.
    Never,
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

pub struct Server {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<Request>>>,
    /// Requests whose client hung up while waiting for an answer.
    pub hung_up: Arc<Mutex<u32>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    pub async fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let hung_up = Arc::new(Mutex::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let (reqs, hung) = (requests.clone(), hung_up.clone());
        let task = tokio::spawn(async move {
            let mut conns = tokio::task::JoinSet::new();
            while let Ok((sock, _)) = listener.accept().await {
                let (handler, reqs, hung) = (handler.clone(), reqs.clone(), hung.clone());
                conns.spawn(async move {
                    let _ = serve(sock, handler, reqs, hung).await;
                });
            }
        });
        Server {
            port,
            requests,
            hung_up,
            task,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("lock").clone()
    }

    /// Waits (bounded) until `n` requests arrived.
    pub async fn wait_requests(&self, n: usize) -> Vec<Request> {
        for _ in 0..200 {
            let r = self.requests();
            if r.len() >= n {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("expected {n} requests, got {:?}", self.requests());
    }
}

async fn serve(
    mut sock: TcpStream,
    handler: Arc<Handler>,
    reqs: Arc<Mutex<Vec<Request>>>,
    hung: Arc<Mutex<u32>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let method = first.next().unwrap_or("").to_owned();
    let target = first.next().unwrap_or("").to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let request = Request {
        method,
        target,
        headers,
        body,
    };
    reqs.lock().expect("lock").push(request.clone());
    match handler(&request) {
        Reply::Full(status, headers, body) => {
            let mut out = head_of(status, &headers);
            out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
            sock.write_all(out.as_bytes()).await?;
            sock.write_all(&body).await?;
        }
        Reply::Stream(status, headers, mut rx) => {
            let mut out = head_of(status, &headers);
            out.push_str("\r\n");
            sock.write_all(out.as_bytes()).await?;
            while let Some(bytes) = rx.recv().await {
                sock.write_all(&bytes).await?;
                sock.flush().await?;
            }
        }
        Reply::Never => {
            // EOF (or an error) means the client gave up on us.
            let _ = sock.read(&mut chunk).await;
            *hung.lock().expect("lock") += 1;
        }
    }
    sock.shutdown().await
}

fn head_of(status: u16, headers: &[(String, String)]) -> String {
    let mut out = format!("HTTP/1.1 {status} X\r\nconnection: close\r\n");
    for (n, v) in headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    out
}

/// Header list helper: `h(&[("content-type", "application/json")])`.
pub fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

pub fn json(body: &str) -> Reply {
    Reply::Full(200, h(&[("content-type", "application/json")]), body.into())
}

/// An SSE reply with these chunks, closed after the last one.
pub fn sse(chunks: &[&str]) -> Reply {
    let (tx, rx) = mpsc::unbounded_channel();
    for c in chunks {
        let _ = tx.send(c.as_bytes().to_vec());
    }
    Reply::Stream(200, h(&[("content-type", "text/event-stream")]), rx)
}
