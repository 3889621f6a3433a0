//! `mcpspec review DIR [--accept | --reject]`: the pending snapshots
//! (`.snap.new`) under a `--snapshots` directory, each with its diff from
//! the stored snapshot; `--accept` makes them the stored ones, `--reject`
//! removes them. `cargo insta review --workspace-root DIR` does the same
//! interactively. Exit 0, or 2 when a file cannot be read or moved.

use std::path::PathBuf;

use clap::Args;
use mcpspec_model::Exit;
use mcpspec_report::snapshot;
use mcpspec_report::textdiff::{self, ColorChoice};

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The snapshot directory (as given to `mcpspec server --snapshots`)
    pub dir: PathBuf,
    /// Accept every pending snapshot (`x.snap.new` becomes `x.snap`)
    #[arg(long, conflicts_with = "reject")]
    pub accept: bool,
    /// Reject every pending snapshot (`x.snap.new` is removed)
    #[arg(long)]
    pub reject: bool,
    /// Colour the diffs: auto (a terminal, unless NO_COLOR is set), always, never
    #[arg(long, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
}

pub fn run(args: ReviewArgs) -> Exit {
    if !args.dir.is_dir() {
        eprintln!("error: {} is not a directory", args.dir.display());
        return Exit::Usage;
    }
    let pending = match snapshot::pending(&args.dir) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let color = args.color.for_stdout();
    let mut out = String::new();
    for p in &pending {
        let id = snapshot::case_id_of(&args.dir, p).unwrap_or_else(|| p.display().to_string());
        let stored_path = PathBuf::from(p.to_string_lossy().trim_end_matches(".new"));
        let read = |path: &std::path::Path| snapshot::read(path);
        let new = match read(p) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        };
        let (stored, what) = if stored_path.exists() {
            match read(&stored_path) {
                Ok(t) => (t, "changed"),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Exit::Usage;
                }
            }
        } else {
            (String::new(), "new")
        };
        if args.accept {
            match snapshot::accept(p) {
                Ok(_) => out.push_str(&format!("accepted ({what}): {id}\n")),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Exit::Usage;
                }
            }
        } else if args.reject {
            match snapshot::reject(p) {
                Ok(()) => out.push_str(&format!("rejected ({what}): {id}\n")),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Exit::Usage;
                }
            }
        } else {
            out.push_str(&format!("pending ({what}): {id}\n"));
            out.push_str(&textdiff::unified(
                &stored,
                &new,
                &format!("stored ({})", stored_path.display()),
                &format!("new ({})", p.display()),
                3,
                color,
            ));
        }
    }
    let verb = if args.accept {
        "accepted"
    } else if args.reject {
        "rejected"
    } else {
        "pending"
    };
    out.push_str(&format!("{} snapshot(s) {verb}\n", pending.len()));
    if !args.accept && !args.reject && !pending.is_empty() {
        out.push_str(&format!(
            "accept with `mcpspec review {0} --accept` (or reject with --reject); \
             `cargo insta review --workspace-root {0}` reviews one by one\n",
            args.dir.display()
        ));
    }
    crate::requirements::emit(&out)
}
