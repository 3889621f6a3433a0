//! The exit codes of the `mcpspec` binary, in one place.
//!
//! ```text
//!  Summary::exit_code ──┐                        (runner's totals: 0, 1, 2, 3)
//!  Tally::exit_code ────┤ (report: the baseline)
//!  Ctrl-C / SIGTERM ────┼──► Exit ──► std::process::ExitCode
//!  every CLI command ───┘        └──► --help and the README's table (meaning)
//! ```
//!
//! Every command returns an [`Exit`]; nothing else names a number. The
//! help text ([`Exit::help`]) and the README's table ([`Exit::markdown_table`],
//! checked by a test) are drawn from [`Exit::meaning`], so the documentation
//! cannot drift from the codes. The interrupted codes follow the shells'
//! convention, 128 + the signal number, which CI systems read as "stopped".

use std::fmt;

/// The widest line of [`Exit::help`].
pub const HELP_WIDTH: usize = 100;
/// Where a meaning starts on its lines of [`Exit::help`].
const HELP_INDENT: usize = 7;

/// How a `mcpspec` command ends: its process exit code.
///
/// When several apply, a run reports the most serious: usage or scenario
/// errors (2) over failures (1) over a target that could not be run (3).
/// Failures win over 3 because they are verdicts: a case that could not run
/// beside cases that failed does not hide them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Exit {
    /// 0: conforming; nothing found, reproduced or different.
    Success = 0,
    /// 1: conformance failures, fuzzing findings, a reproduced finding, a
    /// difference.
    Failures = 1,
    /// 2: the command line, a configuration, input or scenario file is at
    /// fault, or mcpspec itself (a harness error, a report not written).
    Usage = 2,
    /// 3: the target could not be run or reached (it did not start, or
    /// completed no handshake), a case could not run because of it, or the
    /// run judged nothing (every case not applicable); nothing failed.
    TargetUnavailable = 3,
    /// 130 (128 + 2): stopped by Ctrl-C (`SIGINT`).
    Interrupted = 130,
    /// 143 (128 + 15): stopped by `SIGTERM`.
    Terminated = 143,
}

impl Exit {
    /// Every code, in increasing order.
    pub const ALL: [Exit; 6] = [
        Exit::Success,
        Exit::Failures,
        Exit::Usage,
        Exit::TargetUnavailable,
        Exit::Interrupted,
        Exit::Terminated,
    ];

    /// The process exit code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// What the code means, per command where they differ (one line, for
    /// `--help` and the README).
    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Success => {
                "conforming: cases ran at a version the target negotiated and none failed \
                 (warnings allowed unless `--strict`); fuzz: no findings; replay: not \
                 reproduced, or the same answers; diff: the same"
            }
            Exit::Failures => {
                "conformance failures, even when other cases could not run (warnings too \
                 under `--strict`, and a stale `--expected-failures` entry); fuzz: findings; \
                 replay: reproduced, or different answers; diff: different"
            }
            Exit::Usage => {
                "usage, configuration, input or scenario-file error, or a harness \
                 error (also when a report cannot be written)"
            }
            Exit::TargetUnavailable => {
                "nothing failed, but the target could not be run: it did not start, \
                 completed no handshake at any version, a case could not run because of it, \
                 or the run judged nothing (every case not applicable) (a client: it never \
                 connected; reference client: the server could not be started or reached)"
            }
            Exit::Interrupted => {
                "server, client: stopped by Ctrl-C (SIGINT; 128 + 2); reports are still \
                 written for the finished cases, which make no verdict; a second Ctrl-C \
                 exits at once"
            }
            Exit::Terminated => "server, client: stopped by SIGTERM (128 + 15), as for Ctrl-C",
        }
    }

    /// The exit codes as `--help` shows them: a heading, then each code
    /// with its meaning, wrapped at [`HELP_WIDTH`] columns under the
    /// meaning's first word (no newline at the end).
    pub fn help() -> String {
        let mut text = String::from("Exit codes:");
        for exit in Exit::ALL {
            let mut line = format!("  {:<4}", exit.code());
            for word in exit.meaning().split(' ') {
                if line.len() + 1 + word.len() > HELP_WIDTH && line.len() > HELP_INDENT {
                    text.push('\n');
                    text.push_str(&line);
                    line = " ".repeat(HELP_INDENT - 1);
                }
                line.push(' ');
                line.push_str(word);
            }
            text.push('\n');
            text.push_str(&line);
        }
        text
    }

    /// The exit codes as the README's table (Markdown), one row per code.
    pub fn markdown_table() -> String {
        let mut text = String::from("| exit code | meaning |\n|---|---|\n");
        for exit in Exit::ALL {
            text.push_str(&format!("| {} | {} |\n", exit.code(), exit.meaning()));
        }
        text
    }
}

/// The number, as a shell prints `$?`.
impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}

/// For `std::process::exit` and for reports, which carry the code as a number.
impl From<Exit> for i32 {
    fn from(exit: Exit) -> Self {
        i32::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_the_documented_numbers() {
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 130, 143]);
        assert_eq!(i32::from(Exit::Interrupted), 128 + 2);
        assert_eq!(i32::from(Exit::Terminated), 128 + 15);
        assert_eq!(Exit::TargetUnavailable.to_string(), "3");
    }

    /// The help text carries every code once, in order, with its meaning
    /// (wrapped), within [`HELP_WIDTH`]; the Markdown table has a row each.
    #[test]
    fn the_help_and_the_table_list_every_code_once() {
        let help = Exit::help();
        let mut words = String::from("Exit codes:");
        for exit in Exit::ALL {
            assert!(!exit.meaning().contains(['\n', '|']));
            words.push_str(&format!(" {} {}", exit.code(), exit.meaning()));
        }
        let unwrapped: Vec<&str> = help.split_whitespace().collect();
        assert_eq!(unwrapped.join(" "), words);
        for line in help.lines() {
            assert!(line.len() <= HELP_WIDTH, "too wide: {line:?}");
            // A code starts a line, else the line continues a meaning.
            let code = line.get(2..HELP_INDENT).map(str::trim_end);
            let starts = Exit::ALL
                .iter()
                .any(|e| code == Some(&e.code().to_string()));
            assert!(
                line == "Exit codes:" || starts || line.starts_with(&" ".repeat(HELP_INDENT)),
                "{line:?}"
            );
        }
        let table = Exit::markdown_table();
        for exit in Exit::ALL {
            let row = format!("| {} | {} |\n", exit.code(), exit.meaning());
            assert_eq!(table.matches(&row).count(), 1, "{table}");
        }
        assert_eq!(table.lines().count(), 2 + Exit::ALL.len());
    }

    /// The README's table is the enum's: a code added, removed or
    /// reworded here must be documented there (paste the table printed).
    #[test]
    fn the_readme_documents_exactly_these_codes() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
        let readme = std::fs::read_to_string(path).expect("read README.md");
        let table = Exit::markdown_table();
        assert!(
            readme.contains(&table),
            "README.md's exit-code table differs from mcpspec_model::Exit; it must read:\n\n{table}"
        );
        // And no other table of exit codes remains beside it.
        assert_eq!(readme.matches("| exit code |").count(), 1);
    }
}
