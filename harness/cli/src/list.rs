//! `mcpspec list`: the cases a run would play, for humans or as JSON.

use serde_json::json;

use crate::cli::ListArgs;
use crate::server::{select_cases, EXIT_OK};

pub fn run(args: ListArgs) -> u8 {
    let cases = match select_cases(&args.select, "", None) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if args.json {
        let items: Vec<_> = cases
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "scenario": c.scenario.id,
                    "title": c.scenario.title,
                    "version": c.version.as_str(),
                    "versions": c.scenario.versions.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
                    "transports": c.scenario.transports.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
                    "level": c.scenario.level.as_str(),
                    "requirements": c.scenario.requirement_ids(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&items).unwrap_or_default()
        );
    } else {
        for c in &cases {
            println!("{}: {} [{}]", c.id, c.scenario.title, c.scenario.level);
        }
        println!("{} cases", cases.len());
    }
    EXIT_OK
}
