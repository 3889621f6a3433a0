//! `mcpspec report merge DIR... --out DIR`: one compatibility matrix
//! (`matrix.html`, `matrix.md`) from several report directories
//! (`mcpspec_report::matrix`). Exit 0, or 2 when a directory has no
//! readable report.json or the output cannot be written.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use mcpspec_model::Exit;
use mcpspec_report::dir::write_atomic;
use mcpspec_report::matrix::{self, Implementation};

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge report directories into one compatibility matrix (implementations × cases)
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Report directories (written by `mcpspec server --report-dir`), one per implementation
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write matrix.html and matrix.md (created if missing)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(command: ReportCommand) -> Exit {
    let ReportCommand::Merge(args) = command;
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
