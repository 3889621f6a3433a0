//! `mcpspec coverage`: per protocol version, how many MUSTs and SHOULDs of
//! the requirement catalogue the scenario corpus covers (see
//! [`crate::requirements`] for what "covered" means), with the excluded and
//! not-yet-covered counts. `--json` prints exactly
//! `{"<version>": {"must_covered", "must_total", "should_covered", "should_total", "excluded"}}`.

use std::fmt::Write as _;

use mcpspec_engine::Version;
use mcpspec_model::Exit;
use serde_json::{Map, Value};

use crate::cli::CoverageArgs;
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
    let per_version: Vec<(Version, Coverage)> = versions
        .iter()
        .map(|v| (*v, Coverage::of(&rows(*v, &scenarios))))
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

fn ratio(covered: usize, total: usize) -> String {
    format!("{covered}/{total}")
}
