//! `mcpspec coverage`: per protocol version, how many MUSTs and SHOULDs of
//! the requirement catalogue the scenario corpus covers (see
//! [`crate::requirements`] for what "covered" means), with the excluded and
//! not-yet-covered counts, for both roles or one (`--role`). `--json` prints exactly
//! `{"<version>": {"must_covered", "must_total", "should_covered", "should_total", "excluded"}}`.

use std::fmt::Write as _;

use mcpspec_engine::{Binds, Version};
use mcpspec_model::Exit;
use serde_json::{Map, Value};

use crate::cli::{CoverageArgs, CoverageRole};
use crate::requirements::{emit, rows, Coverage};
use crate::server::load_corpus;

pub fn run(args: CoverageArgs) -> Exit {
    let scenarios = match load_corpus(&args.scenarios) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(crate::cli::Against::Official) = args.against {
        return crate::parity::run(&scenarios, args.json, args.markdown);
    }
    let versions = if args.spec_version.is_empty() {
        Version::ALL.to_vec()
    } else {
        args.spec_version.clone()
    };
    let role = args.role;
    let per_version: Vec<(Version, Coverage)> = versions
        .iter()
        .map(|v| {
            let mut rows = rows(*v, &scenarios);
            rows.retain(|r| binds(r.req.binds, role));
            (*v, Coverage::of(&rows))
        })
        .collect();
    if args.json {
        let doc: Map<String, Value> = per_version
            .iter()
            .map(|(v, c)| (v.as_str().to_owned(), c.to_json()))
            .collect();
        return match serde_json::to_string_pretty(&Value::Object(doc)) {
            Ok(text) => emit(&(text + "\n")),
            Err(e) => {
                eprintln!("error: failed to print JSON: {e}");
                Exit::Usage
            }
        };
    }
    // Writing to a `String` cannot fail, hence the ignored results.
    let mut out = String::new();
    match role {
        Some(CoverageRole::Server) => {
            out.push_str("server requirements (and those binding either side)\n")
        }
        Some(CoverageRole::Client) => {
            out.push_str("client requirements (and those binding either side)\n")
        }
        None => {}
    }
    let _ = writeln!(
        out,
        "{:<12}  {:>10}  {:>10}  {:>10}  {:>8}  {:>15}",
        "version", "MUST", "SHOULD", "MAY", "excluded", "not yet covered"
    );
    for (v, c) in &per_version {
        let _ = writeln!(
            out,
            "{:<12}  {:>10}  {:>10}  {:>10}  {:>8}  {:>15}",
            v.as_str(),
            ratio(c.must_covered, c.must_total),
            ratio(c.should_covered, c.should_total),
            ratio(c.may_covered, c.may_total),
            c.excluded,
            c.not_yet_covered()
        );
    }
    let _ = writeln!(
        out,
        "\ncovered / total; excluded requirements are in no total. \
         `mcpspec list --requirements --spec-version V` shows each one."
    );
    emit(&out)
}

/// Whether a requirement binding `binds` counts for `role` (`None`: both
/// roles together); rules for either sender count for both.
fn binds(binds: Binds, role: Option<CoverageRole>) -> bool {
    match (role, binds) {
        (None, _) | (_, Binds::Both) => true,
        (Some(CoverageRole::Server), b) => b == Binds::Server,
        (Some(CoverageRole::Client), b) => b == Binds::Client,
    }
}

fn ratio(covered: usize, total: usize) -> String {
    format!("{covered}/{total}")
}
