//! Running mcpspec inside `cargo test`, as an MCP server's repository would:
//! here the server is mcpspec's own reference server, served in-process over
//! Streamable HTTP on a free loopback port, and the suite tests it through
//! its URL — one libtest-mimic trial per case.
//!
//! `cargo test -p mcpspec-testing --example reference_http` runs it (this
//! crate's manifest sets `test = true`, so plain `cargo test` does too);
//! `… -- --list` lists the case ids, `… -- ping` runs the ping cases.
//!
//! The selection (the lifecycle scenarios at two versions) keeps the run to
//! a few seconds; drop `filter` and `versions` for the whole suite.

use mcpspec_reference_http::{serve, HttpServerConfig, TcpListener, MCP_PATH};
use mcpspec_testing::{Suite, Version};

fn main() {
    // The server under test gets a runtime of its own, on its own thread;
    // the suite has another (see `mcpspec_testing`'s "Threads").
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime for the server");
    let listener = runtime
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("a free loopback port");
    let addr = listener.local_addr().expect("the bound address");
    runtime.spawn(serve(listener, HttpServerConfig::default()));

    Suite::http(format!("http://{addr}{MCP_PATH}"))
        .filter("server/lifecycle/")
        .versions([Version::V2025_06_18, Version::V2025_11_25])
        .run_main()
}
