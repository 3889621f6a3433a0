//! Fuzzes the command given as arguments and prints the summary as JSON:
//! `cargo run --release -p mcpspec-fuzz --example fuzz_command -- SEED RUNS CMD ARGS...`.
//! `LEVELS=bytes,mcp` picks levels, `VERSION=2025-03-26` the protocol version. The user-facing command is `mcpspec fuzz server`.

use std::time::Duration;

use mcpspec_fuzz::{fuzz, Config};
use mcpspec_transport::CommandSpec;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: fuzz_command SEED RUNS CMD [ARGS...]");
        std::process::exit(2);
    }
    let seed = args[0].parse().unwrap_or(1);
    let runs = args[1].parse().unwrap_or(10_000);
    let cfg = Config {
        target: mcpspec_fuzz::Target::Stdio(CommandSpec::new(
            args[2].clone(),
            args[3..].iter().cloned(),
        )),
        seed,
        runs: Some(runs),
        duration: None,
        levels: std::env::var("LEVELS")
            .ok()
            .map(|l| l.split(',').filter_map(|x| x.parse().ok()).collect())
            .unwrap_or_default(),
        version: std::env::var("VERSION")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(mcpspec_engine::Version::LATEST_HANDSHAKE),
        timeout: Duration::from_secs(2),
        max_wait: mcpspec_fuzz::oracle::DEFAULT_MAX_WAIT,
        report_dir: std::env::temp_dir().join(format!("mcpspec-fuzz-example-{seed}")),
        max_line: mcpspec_wire::DEFAULT_MAX_LINE,
        minimize_budget: Duration::from_secs(20),
        rss_growth_kib: 512 * 1024,
        window: mcpspec_fuzz::driver::DEFAULT_WINDOW,
    };
    match fuzz(&cfg, &mut |p| {
        eprintln!(
            "{} execs, {:.0} execs/s, {} findings",
            p.execs, p.execs_per_sec, p.findings
        )
    })
    .await
    {
        Ok(s) => println!("{}", serde_json::to_string_pretty(&s).unwrap_or_default()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(3);
        }
    }
}
