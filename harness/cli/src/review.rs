//! `mcpspec review DIR [--filter PATTERN]... [--accept | --reject]`: the
//! pending snapshots (`.snap.new`) under a `--snapshots` directory, as
//! `cargo insta review` does it.
//!
//! - On a terminal (stdin and stdout), without `--accept`/`--reject`: one
//!   snapshot at a time, its diff from the stored one (cut after
//!   `--diff-lines`), and a question: accept (a), reject (r), skip (s),
//!   accept all remaining (A), quit (q). [`review_each`] is that loop, over
//!   any reader and writer, so that tests can script it.
//! - `--accept` / `--reject`: applied to every pending snapshot that
//!   matches, without showing them.
//! - Neither, and not on a terminal: a list of what is pending (the diff
//!   only when one snapshot matches); nothing changes.
//!
//! Each ends with one summary line, `n accepted, n rejected, n skipped`.
//! `--filter` has the syntax of `mcpspec server --filter` (prefix or glob
//! over case ids). Accepting makes `x.snap.new` the stored `x.snap`;
//! rejecting removes it. Exit 0, or 2 when a file cannot be read or moved
//! or a filter is not a valid glob.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use mcpspec_model::Exit;
use mcpspec_report::snapshot::{self, CaseFilter};
use mcpspec_report::textdiff::{self, ColorChoice};

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The snapshot directory (as given to `mcpspec server --snapshots`)
    pub dir: PathBuf,
    /// Only snapshots whose case id starts with this prefix or matches this glob (repeatable;
    /// as `mcpspec server --filter`)
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Accept every matching pending snapshot (`x.snap.new` becomes `x.snap`)
    #[arg(long, conflicts_with = "reject")]
    pub accept: bool,
    /// Reject every matching pending snapshot (`x.snap.new` is removed)
    #[arg(long)]
    pub reject: bool,
    /// Colour the diffs: auto (a terminal, unless NO_COLOR is set), always, never
    #[arg(long, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
    /// Longest diff shown for one snapshot, in lines; the rest is counted (0: no limit)
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub diff_lines: usize,
}

/// One pending snapshot.
#[derive(Debug, Clone)]
pub struct Pending {
    pub id: String,
    /// `x.snap.new`.
    pub pending: PathBuf,
    /// `x.snap`, which may not exist yet (a new snapshot).
    pub stored: PathBuf,
}

impl Pending {
    fn is_new(&self) -> bool {
        !self.stored.exists()
    }

    fn what(&self) -> &'static str {
        if self.is_new() {
            "new"
        } else {
            "changed"
        }
    }

    /// The stored and the pending content.
    fn contents(&self) -> Result<(String, String), String> {
        let new = snapshot::read(&self.pending)?;
        let stored = if self.is_new() {
            String::new()
        } else {
            snapshot::read(&self.stored)?
        };
        Ok((stored, new))
    }

    /// The diff from stored to pending, cut after `max_lines`.
    fn diff(&self, color: bool, max_lines: usize) -> Result<String, String> {
        let (stored, new) = self.contents()?;
        let old_name = if self.is_new() {
            "stored (none)".to_owned()
        } else {
            format!("stored ({})", self.stored.display())
        };
        let diff = textdiff::unified(
            &stored,
            &new,
            &old_name,
            &format!("new ({})", self.pending.display()),
            3,
            color,
        );
        Ok(textdiff::cut(&diff, max_lines, "--diff-lines 0 shows all"))
    }

    fn accept(&self) -> Result<(), String> {
        snapshot::accept(&self.pending).map(|_| ())
    }

    fn reject(&self) -> Result<(), String> {
        snapshot::reject(&self.pending)
    }
}

/// What a review did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub accepted: usize,
    pub rejected: usize,
    pub skipped: usize,
}

impl Tally {
    fn line(&self) -> String {
        format!(
            "{} accepted, {} rejected, {} skipped",
            self.accepted, self.rejected, self.skipped
        )
    }
}

/// How diffs are shown.
#[derive(Debug, Clone, Copy)]
pub struct Show {
    pub color: bool,
    pub diff_lines: usize,
}

/// An answer to "accept this snapshot?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Accept,
    Reject,
    Skip,
    AcceptAll,
    Quit,
}

impl Answer {
    fn parse(line: &str) -> Option<Answer> {
        match line.trim() {
            "a" | "accept" => Some(Answer::Accept),
            "r" | "reject" => Some(Answer::Reject),
            "s" | "skip" => Some(Answer::Skip),
            "A" | "accept all" => Some(Answer::AcceptAll),
            "q" | "quit" => Some(Answer::Quit),
            _ => None,
        }
    }
}

const PROMPT: &str =
    "accept (a), reject (r), skip (s), accept all remaining (A), quit (q; the rest is skipped)? ";

/// The interactive review: for each snapshot, its diff on `out` and the
/// question, answered by a line of `input` (asked again until it is one of
/// the answers; the end of `input` quits).
pub fn review_each(
    items: &[Pending],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    show: Show,
) -> Result<Tally, String> {
    let io = |e: std::io::Error| format!("failed to write to the terminal: {e}");
    let mut tally = Tally::default();
    let mut accept_rest = false;
    for (i, item) in items.iter().enumerate() {
        if accept_rest {
            item.accept()?;
            tally.accepted += 1;
            continue;
        }
        writeln!(
            out,
            "\n[{}/{}] {}: {}",
            i + 1,
            items.len(),
            item.what(),
            item.id
        )
        .map_err(io)?;
        write!(out, "{}", item.diff(show.color, show.diff_lines)?).map_err(io)?;
        let answer = loop {
            write!(out, "{PROMPT}").map_err(io)?;
            out.flush().map_err(io)?;
            let mut line = String::new();
            let read = input
                .read_line(&mut line)
                .map_err(|e| format!("failed to read the answer: {e}"))?;
            if read == 0 {
                writeln!(out).map_err(io)?;
                break Answer::Quit;
            }
            if let Some(answer) = Answer::parse(&line) {
                break answer;
            }
            writeln!(out, "{:?} is not an answer", line.trim()).map_err(io)?;
        };
        match answer {
            Answer::Accept => {
                item.accept()?;
                tally.accepted += 1;
            }
            Answer::AcceptAll => {
                item.accept()?;
                tally.accepted += 1;
                accept_rest = true;
            }
            Answer::Reject => {
                item.reject()?;
                tally.rejected += 1;
            }
            Answer::Skip => tally.skipped += 1,
            Answer::Quit => {
                tally.skipped += items.len() - i;
                break;
            }
        }
    }
    Ok(tally)
}

/// The pending snapshots under `dir` that `filter` selects, and how many
/// are pending in all.
pub fn collect(dir: &Path, filter: &CaseFilter) -> Result<(Vec<Pending>, usize), String> {
    let all = snapshot::pending(dir)?;
    let total = all.len();
    let items = all
        .into_iter()
        .filter_map(|p| {
            let id = snapshot::case_id_of(dir, &p)?;
            let stored = PathBuf::from(p.to_string_lossy().trim_end_matches(".new"));
            filter.matches(&id).then_some(Pending {
                id,
                pending: p,
                stored,
            })
        })
        .collect();
    Ok((items, total))
}

/// Pending snapshots listed at most, when not on a terminal.
const LISTED: usize = 50;

/// Not on a terminal, no --accept / --reject: what is pending.
fn list(items: &[Pending], show: Show, out: &mut String) -> Result<(), String> {
    for item in items.iter().take(LISTED) {
        let (stored, new) = item.contents()?;
        let (removed, added) = textdiff::counts(&stored, &new);
        out.push_str(&format!(
            "pending ({}): {} (-{removed} +{added} lines)\n",
            item.what(),
            item.id
        ));
    }
    if items.len() > LISTED {
        out.push_str(&format!(
            "… and {} more (narrow them with --filter)\n",
            items.len() - LISTED
        ));
    }
    if let [one] = items {
        out.push_str(&one.diff(show.color, show.diff_lines)?);
    }
    Ok(())
}

pub fn run(args: ReviewArgs) -> Exit {
    match review(&args) {
        Ok(text) => crate::requirements::emit(&text),
        Err(e) => {
            eprintln!("error: {e}");
            Exit::Usage
        }
    }
}

fn review(args: &ReviewArgs) -> Result<String, String> {
    if !args.dir.is_dir() {
        return Err(format!("{} is not a directory", args.dir.display()));
    }
    let filter = CaseFilter::new(&args.filter)?;
    let (items, total) = collect(&args.dir, &filter)?;
    let dir = args.dir.display();
    if items.is_empty() {
        return Ok(if total == 0 {
            format!("no pending snapshot in {dir}\n")
        } else {
            format!("none of the {total} pending snapshots in {dir} matches the filter\n")
        });
    }
    let show = Show {
        color: args.color.for_stdout(),
        diff_lines: args.diff_lines,
    };
    let mut out = String::new();
    let tally = if args.accept || args.reject {
        for item in &items {
            if args.accept {
                item.accept()?;
            } else {
                item.reject()?;
            }
        }
        Tally {
            accepted: if args.accept { items.len() } else { 0 },
            rejected: if args.reject { items.len() } else { 0 },
            skipped: 0,
        }
    } else if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let stdout = std::io::stdout();
        let mut term = stdout.lock();
        let tally = review_each(&items, &mut std::io::stdin().lock(), &mut term, show)?;
        out.push('\n');
        tally
    } else {
        list(&items, show, &mut out)?;
        out.push_str(
            "not a terminal: nothing changed; review one at a time on a terminal, or use \
             --accept / --reject (with --filter to choose)\n",
        );
        Tally {
            skipped: items.len(),
            ..Tally::default()
        }
    };
    let still = total - tally.accepted - tally.rejected;
    out.push_str(&tally.line());
    if still > 0 {
        out.push_str(&format!("; {still} still pending (`mcpspec review {dir}`)"));
    }
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot directory with three pending snapshots: `a` changed (its
    /// stored version differs), `b` and `c` new.
    fn fixture(name: &str) -> (PathBuf, Vec<Pending>) {
        let dir =
            std::env::temp_dir().join(format!("mcpspec-review-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |id: &str, content: &str, pending: bool| {
            let snap = snapshot::snap_path(&dir, id);
            let path = if pending {
                snapshot::pending_path(&snap)
            } else {
                snap
            };
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, snapshot::render(id, content)).unwrap();
        };
        write("server/a@2025-06-18", "one\ntwo\n", false);
        write("server/a@2025-06-18", "one\nTWO\n", true);
        write("server/b@2025-06-18", "bee\n", true);
        write("server/c@2025-06-18", "sea\n", true);
        let (items, total) = collect(&dir, &CaseFilter::default()).unwrap();
        assert_eq!(total, 3);
        (dir, items)
    }

    fn scripted(items: &[Pending], answers: &str) -> (Tally, String) {
        let mut out = Vec::new();
        let show = Show {
            color: false,
            diff_lines: 200,
        };
        let tally = review_each(items, &mut answers.as_bytes(), &mut out, show).unwrap();
        (tally, String::from_utf8(out).unwrap())
    }

    fn pending_ids(dir: &Path) -> Vec<String> {
        let (items, _) = collect(dir, &CaseFilter::default()).unwrap();
        items.into_iter().map(|p| p.id).collect()
    }

    #[test]
    fn accept_reject_skip_one_at_a_time() {
        let (dir, items) = fixture("ars");
        // A wrong answer is asked again.
        let (tally, out) = scripted(&items, "x\na\nr\ns\n");
        assert_eq!(
            tally,
            Tally {
                accepted: 1,
                rejected: 1,
                skipped: 1
            }
        );
        assert!(
            out.contains("[1/3] changed: server/a@2025-06-18\n"),
            "{out}"
        );
        assert!(out.contains("-two\n+TWO\n"), "{out}");
        assert!(out.contains("\"x\" is not an answer"), "{out}");
        assert!(out.contains("[2/3] new: server/b@2025-06-18\n"), "{out}");
        assert!(out.contains("+bee\n"), "{out}");
        assert_eq!(out.matches(PROMPT).count(), 4, "{out}");
        // a was accepted, b rejected (gone, never stored), c skipped.
        let a = snapshot::snap_path(&dir, "server/a@2025-06-18");
        assert_eq!(snapshot::read(&a).unwrap(), "one\nTWO");
        assert!(!snapshot::snap_path(&dir, "server/b@2025-06-18").exists());
        assert_eq!(pending_ids(&dir), ["server/c@2025-06-18"]);
    }

    #[test]
    fn accept_all_remaining_and_quit() {
        let (dir, items) = fixture("all");
        let (tally, out) = scripted(&items, "s\nA\n");
        assert_eq!(
            tally,
            Tally {
                accepted: 2,
                rejected: 0,
                skipped: 1
            }
        );
        // The remaining one was accepted without being shown.
        assert!(!out.contains("[3/3]"), "{out}");
        assert_eq!(pending_ids(&dir), ["server/a@2025-06-18"]);

        let (dir, items) = fixture("quit");
        let (tally, out) = scripted(&items, "r\nq\n");
        assert_eq!(
            tally,
            Tally {
                accepted: 0,
                rejected: 1,
                skipped: 2
            }
        );
        assert!(!out.contains("[3/3]"), "{out}");
        assert_eq!(pending_ids(&dir).len(), 2);

        // The end of the input quits too.
        let (dir, items) = fixture("eof");
        let (tally, _) = scripted(&items, "a\n");
        assert_eq!((tally.accepted, tally.skipped), (1, 2));
        assert_eq!(pending_ids(&dir).len(), 2);
    }

    /// `review --filter` selects exactly the cases `server --filter` runs.
    #[test]
    fn filters_select_what_server_filters_select() {
        let scenarios = crate::server::load_corpus(&[]).unwrap();
        let everything =
            mcpspec_runner::plan(&scenarios, &mcpspec_runner::Selection::default()).unwrap();
        for pattern in [
            "server/lifecycle/",
            "server/lifecycle/ping/operating@2025-06-18",
            "server/*/invalid-cursor",
            "server/tools/**",
            "*@2024-11-05",
            "client/{pagination,roots}/*",
            "server/cancellation/*/ignored",
        ] {
            let patterns = vec![pattern.to_owned()];
            let sel = mcpspec_runner::Selection {
                filters: patterns.clone(),
                ..Default::default()
            };
            let by_runner: Vec<_> = mcpspec_runner::plan(&scenarios, &sel)
                .unwrap()
                .into_iter()
                .map(|c| c.id)
                .collect();
            let filter = CaseFilter::new(&patterns).unwrap();
            let by_review: Vec<_> = everything
                .iter()
                .filter(|c| filter.matches(&c.id))
                .map(|c| c.id.clone())
                .collect();
            assert!(!by_runner.is_empty(), "{pattern} selects nothing");
            assert_eq!(by_review, by_runner, "{pattern}");
        }
    }

    #[test]
    fn a_long_diff_is_cut_with_a_count() {
        let (_dir, items) = fixture("cut");
        let mut out = Vec::new();
        let show = Show {
            color: false,
            diff_lines: 4,
        };
        review_each(&items[..1], &mut "s\n".as_bytes(), &mut out, show).unwrap();
        let out = String::from_utf8(out).unwrap();
        // --- +++ @@ and one line shown; " one" is shown, -two +TWO are not.
        assert!(
            out.contains("\n… 2 more lines of diff not shown; --diff-lines 0 shows all\n"),
            "{out}"
        );
        assert!(!out.contains("+TWO"), "{out}");
    }
}
