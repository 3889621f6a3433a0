//! `mcpspec coverage`: per protocol version, how many MUSTs and SHOULDs of
//! the requirement catalogue the scenario corpus covers (see
//! [`crate::requirements`] for what "covered" means), with the excluded and
//! not-yet-covered counts, for both roles or one (`--role`). `--json` prints exactly
//! `{"<version>": {"must_covered", "must_total", "should_covered", "should_total", "excluded"}}`,
//! and where a version has rules of an opt-in extension (tasks, skills) also
//! `"extensions": {"<name>": {the same five counts}}`, and where it has
//! authorization rules (OAuth over HTTP, from 2025-03-26) `"authorization":
//! {the same five counts}` — neither is ever in the core counts. The text
//! prints each apart, under the core table: a block per extension and the
//! block "authorization (HTTP)".

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
    let per_version: Vec<PerVersion> = versions
        .iter()
        .map(|v| {
            let mut rows = rows(*v, &scenarios);
            rows.retain(|r| binds(r.req.binds, role));
            PerVersion {
                version: *v,
                core: Coverage::of(&rows),
                extensions: Coverage::of_extensions(&rows),
                authorization: Coverage::of_authorization(&rows),
            }
        })
        .collect();
    if args.json {
        return match serde_json::to_string_pretty(&to_json(&per_version)) {
            Ok(text) => emit(&(text + "\n")),
            Err(e) => {
                eprintln!("error: failed to print JSON: {e}");
                Exit::Usage
            }
        };
    }
    emit(&render(&per_version, role))
}

/// One version's figures: the core, each extension's, the authorization pages'.
pub(crate) struct PerVersion {
    pub version: Version,
    pub core: Coverage,
    pub extensions: Vec<(&'static str, Coverage)>,
    pub authorization: Option<Coverage>,
}

/// The `--json` document.
fn to_json(per_version: &[PerVersion]) -> Value {
    let doc: Map<String, Value> = per_version
        .iter()
        .map(|p| {
            let mut counts = p.core.to_json();
            if !p.extensions.is_empty() {
                let each: Map<String, Value> = p
                    .extensions
                    .iter()
                    .map(|(name, c)| ((*name).to_owned(), c.to_json()))
                    .collect();
                counts["extensions"] = Value::Object(each);
            }
            if let Some(auth) = p.authorization {
                counts["authorization"] = auth.to_json();
            }
            (p.version.as_str().to_owned(), counts)
        })
        .collect();
    Value::Object(doc)
}

/// The text table: the core figures, then each extension's and the
/// authorization pages', apart.
fn render(per_version: &[PerVersion], role: Option<CoverageRole>) -> String {
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
        "{:<18}  {:>10}  {:>10}  {:>10}  {:>8}  {:>15}",
        "version", "MUST", "SHOULD", "MAY", "excluded", "not yet covered"
    );
    let row = |out: &mut String, label: &str, c: &Coverage| {
        let _ = writeln!(
            out,
            "{:<18}  {:>10}  {:>10}  {:>10}  {:>8}  {:>15}",
            label,
            ratio(c.must_covered, c.must_total),
            ratio(c.should_covered, c.should_total),
            ratio(c.may_covered, c.may_total),
            c.excluded,
            c.not_yet_covered()
        );
    };
    for p in per_version {
        row(&mut out, p.version.as_str(), &p.core);
    }
    let extensions: Vec<(&Version, &str, &Coverage)> = per_version
        .iter()
        .flat_map(|p| {
            p.extensions
                .iter()
                .map(move |(name, c)| (&p.version, *name, c))
        })
        .collect();
    if !extensions.is_empty() {
        let _ = writeln!(
            out,
            "\nopt-in extensions (run with --extension NAME; not in the totals above)"
        );
        for (v, name, c) in extensions {
            row(&mut out, &format!("{v} {name}"), c);
        }
    }
    let authorization: Vec<(&Version, &Coverage)> = per_version
        .iter()
        .filter_map(|p| Some((&p.version, p.authorization.as_ref()?)))
        .collect();
    if !authorization.is_empty() {
        let _ = writeln!(
            out,
            "\nauthorization (HTTP): OAuth rules of the authorization pages (not in the totals above)"
        );
        for (v, c) in authorization {
            row(&mut out, v.as_str(), c);
        }
    }
    let _ = writeln!(
        out,
        "\ncovered / total; excluded requirements are in no total. \
         `mcpspec list --requirements --spec-version V` shows each one."
    );
    out
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

#[cfg(test)]
#[path = "coverage_tests.rs"]
mod tests;
