//! `mcpspec list`: the cases a run would play, or (`--requirements`) the
//! requirement catalogue per version with what covers each entry; for humans
//! or as JSON. The JSON of `--requirements` is one object per version,
//! `{"version", "requirements": [...]}`, exactly the committed data files
//! `schema/requirements/<version>.json`.

use std::fmt::Write as _;

use mcpspec_engine::Version;
use mcpspec_model::Exit;
use serde_json::{json, Value};

use crate::cli::ListArgs;
use crate::requirements::{emit, rows, Row, Status};
use crate::server::{load_corpus, select_cases};

pub fn run(args: ListArgs) -> Exit {
    if args.requirements {
        return requirements(&args);
    }
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
        print_json(&Value::Array(items))
    } else {
        let mut text = String::new();
        for c in &cases {
            let _ = writeln!(
                text,
                "{}: {} [{}]",
                c.id, c.scenario.title, c.scenario.level
            );
        }
        let plural = if cases.len() == 1 { "" } else { "s" };
        let _ = writeln!(text, "{} case{plural}", cases.len());
        emit(&text)
    }
}

/// The JSON document of one version: the data file's content.
pub fn version_document(version: Version, rows: &[Row]) -> Value {
    json!({
        "version": version.as_str(),
        "requirements": rows.iter().map(|r| r.to_json(version)).collect::<Vec<_>>(),
    })
}

fn requirements(args: &ListArgs) -> Exit {
    let scenarios = match load_corpus(&args.select.scenarios) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let versions = if args.select.spec_version.is_empty() {
        Version::ALL.to_vec()
    } else {
        args.select.spec_version.clone()
    };
    let filters = &args.select.filter;
    let selected = |row: &Row| {
        filters.is_empty() || filters.iter().any(|f| row.req.id.starts_with(f.as_str()))
    };
    let per_version: Vec<(Version, Vec<Row>)> = versions
        .iter()
        .map(|v| {
            (
                *v,
                rows(*v, &scenarios)
                    .into_iter()
                    .filter(|r| selected(r))
                    .collect(),
            )
        })
        .collect();
    if per_version.iter().all(|(_, rows)| rows.is_empty()) {
        eprintln!("error: no requirement matches the filters");
        return Exit::Usage;
    }
    if args.json {
        let docs: Vec<Value> = per_version
            .iter()
            .map(|(v, rows)| version_document(*v, rows))
            .collect();
        return print_json(&Value::Array(docs));
    }
    let mut text = String::new();
    for (v, rows) in &per_version {
        human(&mut text, *v, rows);
    }
    emit(&text)
}

/// One version, grouped by area of the specification. (Writing to a
/// `String` cannot fail, hence the ignored results.)
fn human(out: &mut String, version: Version, rows: &[Row]) {
    let _ = writeln!(out, "══ {version} — {} requirements ══", rows.len());
    let mut area = "";
    for row in rows {
        if row.area.key != area {
            area = row.area.key;
            let _ = writeln!(out, "\n── {}", row.area.title);
        }
        let r = row.req;
        let _ = writeln!(
            out,
            "{:<6} {:<6} {}",
            r.level.keyword(),
            r.binds.as_str(),
            r.id
        );
        let _ = writeln!(out, "       {}", r.summary);
        let _ = writeln!(out, "       {}", r.url(version));
        if let Some(name) = r.extension {
            let _ = writeln!(
                out,
                "       extension: {name} (opt-in: --extension {name}; not in the core totals)"
            );
        }
        match row.status() {
            Status::Excluded(why) => {
                let _ = writeln!(out, "       excluded: {why}");
            }
            Status::NotYetCovered => {
                let _ = writeln!(out, "       not yet covered");
            }
            Status::Covered => {
                if let Some(check) = row.oracle {
                    let _ = writeln!(out, "       oracle: {}", check.by.describe());
                }
                for s in &row.scenarios {
                    let _ = writeln!(out, "       scenario: {s}");
                }
            }
        }
    }
    out.push('\n');
}

fn print_json(value: &Value) -> Exit {
    match serde_json::to_string_pretty(value) {
        Ok(text) => emit(&(text + "\n")),
        Err(e) => {
            eprintln!("error: failed to print JSON: {e}");
            Exit::Usage
        }
    }
}
