//! `mcpspec diff A B`: compares two transcripts (`.jsonl`) or two report
//! directories case by case, on the normalised form
//! (`mcpspec_report::compare`), and prints unified diffs.
//!
//! Exit 0 when they are the same, 1 when they differ, 2 for a usage or
//! input error (a path missing, a file and a directory, a file that is not
//! a transcript, a bad `--redactions` file).

use std::path::{Path, PathBuf};

use clap::Args;
use mcpspec_model::Exit;
use mcpspec_report::compare::{self, Style};
use mcpspec_report::textdiff::ColorChoice;
use mcpspec_report::Redactions;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// A transcript (.jsonl) or a report directory (--report-dir)
    pub a: PathBuf,
    /// The same kind of thing as A
    pub b: PathBuf,
    /// Extra redaction rules (YAML `paths:` / `patterns:` → placeholder)
    #[arg(long, value_name = "FILE")]
    pub redactions: Option<PathBuf>,
    /// Unchanged lines shown around each change
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub context: usize,
    /// Colour the diffs: auto (a terminal, unless NO_COLOR is set), always, never
    #[arg(long, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
}

/// The built-in redactions plus `file`'s; prints the error (exit 2).
pub fn load_redactions(file: Option<&Path>) -> Result<Redactions, Exit> {
    match file {
        None => Ok(Redactions::builtin()),
        Some(p) => Redactions::load(p).map_err(|e| {
            eprintln!("error: {e}");
            Exit::Usage
        }),
    }
}

pub fn run(args: DiffArgs) -> Exit {
    let rules = match load_redactions(args.redactions.as_deref()) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let style = Style {
        context: args.context,
        color: args.color.for_stdout(),
    };
    for p in [&args.a, &args.b] {
        if !p.exists() {
            eprintln!("error: {} does not exist", p.display());
            return Exit::Usage;
        }
    }
    let (text, differs) = match (args.a.is_dir(), args.b.is_dir()) {
        (true, true) => match compare::dirs(&args.a, &args.b, &rules, style) {
            Ok(d) => (d.text.clone(), d.differs()),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        },
        (false, false) => match compare::files(&args.a, &args.b, &rules, style) {
            Ok(diff) if diff.is_empty() => {
                ("same: the normalised transcripts are equal\n".into(), false)
            }
            Ok(diff) => (diff, true),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        },
        _ => {
            eprintln!(
                "error: compare two transcripts or two report directories, not a file with a directory"
            );
            return Exit::Usage;
        }
    };
    match crate::requirements::emit(&text) {
        Exit::Success if differs => Exit::Failures,
        exit => exit,
    }
}
