//! Unified diffs (`similar`) of normalised transcripts and snapshots, with
//! optional ANSI colours, and the `--color auto|always|never` choice.

use std::io::IsTerminal;

use similar::{ChangeTag, TextDiff};

/// `--color`: `auto` colours a terminal unless `NO_COLOR` is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether stdout gets colours.
    pub fn for_stdout(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

impl std::str::FromStr for ColorChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(ColorChoice::Auto),
            "always" => Ok(ColorChoice::Always),
            "never" => Ok(ColorChoice::Never),
            _ => Err(format!("invalid colour choice {s:?} (auto, always, never)")),
        }
    }
}

fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

fn with_newline(s: &str) -> String {
    if s.is_empty() || s.ends_with('\n') {
        s.to_owned()
    } else {
        format!("{s}\n")
    }
}

/// The unified diff from `old` to `new` (`--- old_name`, `+++ new_name`,
/// `context` lines around each change); empty when they are equal.
pub fn unified(
    old: &str,
    new: &str,
    old_name: &str,
    new_name: &str,
    context: usize,
    color: bool,
) -> String {
    let (old, new) = (with_newline(old), with_newline(new));
    if old == new {
        return String::new();
    }
    let diff = TextDiff::from_lines(&old, &new);
    let mut out = String::new();
    out.push_str(&paint(color, "1", &format!("--- {old_name}")));
    out.push('\n');
    out.push_str(&paint(color, "1", &format!("+++ {new_name}")));
    out.push('\n');
    let mut udiff = diff.unified_diff();
    udiff.context_radius(context);
    for hunk in udiff.iter_hunks() {
        out.push_str(&paint(color, "36", &hunk.header().to_string()));
        out.push('\n');
        for change in hunk.iter_changes() {
            let line = change.to_string_lossy();
            let line = line.strip_suffix('\n').unwrap_or(&line);
            let (sign, code) = match change.tag() {
                ChangeTag::Delete => ('-', "31"),
                ChangeTag::Insert => ('+', "32"),
                ChangeTag::Equal => (' ', ""),
            };
            let text = format!("{sign}{line}");
            if code.is_empty() {
                out.push_str(&text);
            } else {
                out.push_str(&paint(color, code, &text));
            }
            out.push('\n');
        }
    }
    out
}

/// `diff` cut to its first `max_lines` lines (none cut when `max_lines` is
/// 0), then one line saying how many were omitted and `how_to_see` (e.g.
/// the command that shows them all).
pub fn cut(diff: &str, max_lines: usize, how_to_see: &str) -> String {
    let total = diff.lines().count();
    if max_lines == 0 || total <= max_lines {
        return diff.to_owned();
    }
    let mut out: String = diff
        .lines()
        .take(max_lines)
        .flat_map(|l| [l, "\n"])
        .collect();
    let omitted = total - max_lines;
    out.push_str(&format!(
        "… {omitted} more line{} of diff not shown{}{how_to_see}\n",
        if omitted == 1 { "" } else { "s" },
        if how_to_see.is_empty() { "" } else { "; " },
    ));
    out
}

/// Lines removed and added.
pub fn counts(old: &str, new: &str) -> (usize, usize) {
    let (old, new) = (with_newline(old), with_newline(new));
    let diff = TextDiff::from_lines(&old, &new);
    let mut removed = 0;
    let mut added = 0;
    for c in diff.iter_all_changes() {
        match c.tag() {
            ChangeTag::Delete => removed += 1,
            ChangeTag::Insert => added += 1,
            ChangeTag::Equal => {}
        }
    }
    (removed, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a\nb\n", "a\nb", "x", "y", 3, true), "");
    }

    #[test]
    fn a_changed_line_shows_as_minus_and_plus_with_context() {
        let d = unified("a\nb\nc\n", "a\nB\nc\n", "old", "new", 1, false);
        assert_eq!(d, "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
        let colored = unified("a\n", "b\n", "old", "new", 1, true);
        assert!(colored.contains("\x1b[31m-a\x1b[0m") && colored.contains("\x1b[32m+b\x1b[0m"));
        assert_eq!(counts("a\nb\n", "a\nc\nd\n"), (1, 2));
    }

    #[test]
    fn long_diffs_are_cut_with_a_count_of_what_was_left_out() {
        let diff = "a\nb\nc\nd\n";
        assert_eq!(cut(diff, 4, "see x"), diff);
        assert_eq!(cut(diff, 0, "see x"), diff);
        assert_eq!(
            cut(diff, 3, ""),
            "a\nb\nc\n… 1 more line of diff not shown\n"
        );
        assert_eq!(
            cut(diff, 1, "`mcpspec review`"),
            "a\n… 3 more lines of diff not shown; `mcpspec review`\n"
        );
    }
}
