//! A tiny MCP server on the Rust SDK (rmcp 3.11), for the conformance matrix of reports/:
//! two tools (echo, add), served over stdio (`rmcp-matrix-server stdio`) or Streamable HTTP
//! (`rmcp-matrix-server http`: binds 127.0.0.1 on a free port, prints `listening on URL` as its
//! first line, serves `/mcp` until killed). Written the way the SDK's own examples write a server
//! (`#[tool_router]`, `ServerHandler::get_info`), nothing tuned for the harness.

use rmcp::{
    handler::server::wrapper::Parameters,
    model::{Implementation, ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt,
};
use std::io::Write;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoRequest {
    /// The text to return.
    message: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddRequest {
    /// The left operand.
    a: i64,
    /// The right operand.
    b: i64,
}

/// `#[tool_handler]` routes `tools/list` and `tools/call` through the `tool_router()` that
/// `#[tool_router]` generates, so the handler keeps no state.
#[derive(Debug, Clone, Default)]
struct Matrix;

#[tool_router]
impl Matrix {
    #[tool(description = "Returns the given message unchanged")]
    fn echo(&self, Parameters(EchoRequest { message }): Parameters<EchoRequest>) -> String {
        message
    }

    #[tool(description = "Adds two integers")]
    fn add(&self, Parameters(AddRequest { a, b }): Parameters<AddRequest>) -> String {
        a.saturating_add(b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Matrix {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-matrix-server", "0.0.0"))
            .with_instructions("Two tools: echo and add")
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        Some("stdio") => {
            let server = Matrix.serve(rmcp::transport::stdio()).await?;
            server.waiting().await?;
        }
        Some("http") => {
            use rmcp::transport::streamable_http_server::{
                session::local::LocalSessionManager, StreamableHttpServerConfig,
                StreamableHttpService,
            };
            let service: StreamableHttpService<Matrix, LocalSessionManager> =
                StreamableHttpService::new(
                    || Ok(Matrix),
                    Default::default(),
                    StreamableHttpServerConfig::default(),
                );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            println!("listening on http://{}/mcp", listener.local_addr()?);
            std::io::stdout().flush()?;
            axum::serve(listener, router).await?;
        }
        _ => {
            eprintln!("usage: rmcp-matrix-server stdio|http");
            std::process::exit(2);
        }
    }
    Ok(())
}
