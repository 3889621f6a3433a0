//! `mcpspec report merge DIR... --out DIR`: one compatibility matrix
//! (`matrix.html`, `matrix.md`) from several report directories
//! (`mcpspec_report::matrix`). Exit 0, or 2 when a directory has no
//! readable report.json or the output cannot be written.
//!
//! `mcpspec report combine DIR... --out DIR`: the shards of one run
//! (`--partition`) joined into the report directory the unsharded run would
//! have written (`mcpspec_report::combine`). Exit: the combined run's code
//! (0, 1 or 3, as that run would have exited), or 2 when the directories are
//! not the shards of one run or cannot be read or written.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use mcpspec_model::Exit;
use mcpspec_report::dir::write_atomic;
use mcpspec_report::matrix::{self, Implementation};

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge report directories into one compatibility matrix (implementations × cases)
    Merge(MergeArgs),
    /// Combine the report directories of one run's shards (--partition K/N, all N of them) into
    /// one report directory, equal to the unsharded run's; exits with that run's code
    Combine(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Report directories (written by `mcpspec server --report-dir`): one per implementation
    /// (merge), one per shard (combine)
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write: matrix.html and matrix.md (merge), the report directory (combine);
    /// created if missing
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(command: ReportCommand) -> Exit {
    match command {
        ReportCommand::Merge(args) => merge(args),
        ReportCommand::Combine(args) => combine(args),
    }
}

fn combine(args: MergeArgs) -> Exit {
    match mcpspec_report::combine::combine(&args.dirs, args.out.clone()) {
        Ok(c) => {
            println!(
                "combined {} shard(s), {} case(s): {}",
                c.shards,
                c.cases,
                args.out.join("index.html").display()
            );
            c.exit
        }
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Usage
        }
    }
}

fn merge(args: MergeArgs) -> Exit {
    let mut impls = Vec::new();
    for dir in &args.dirs {
        match Implementation::load(dir) {
            Ok(i) => impls.push(i),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        }
    }
    matrix::assign_names(&mut impls);
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("error: failed to create {}: {e}", args.out.display());
        return Exit::Usage;
    }
    for (name, text) in [
        ("matrix.md", matrix::markdown(&impls)),
        ("matrix.html", matrix::html(&impls)),
    ] {
        let path = args.out.join(name);
        if let Err(e) = write_atomic(&path, text.as_bytes()) {
            eprintln!("error: failed to write {}: {e}", path.display());
            return Exit::Usage;
        }
    }
    let names: Vec<&str> = impls.iter().map(|i| i.name.as_str()).collect();
    println!(
        "matrix of {} ({}): {}",
        impls.len(),
        names.join(", "),
        args.out.join("matrix.html").display()
    );
    Exit::Success
}
