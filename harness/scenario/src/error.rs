//! Scenario-file errors: where in which file, what is wrong, and the line it
//! is wrong on.
//!
//! Every error the loader reports is a [`ScenarioError`]: the scenario file is
//! at fault, never the target or the harness. Its `Display` reads like rustc:
//!
//! ```text
//! scenarios/server/x.yaml:7:5: error in scenario file: unknown step key `sned`
//!   |
//! 7 |   - sned: { method: ping }
//!   |     ^
//! ```

use std::fmt;

/// A place in a scenario file (1-based line and character column).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A scenario file is wrong: it does not parse, or it parses but breaks the
/// format contract in `scenarios/README.md`.
///
/// `line` and `column` are 1-based; both are 0 when the error concerns the
/// file as a whole (it could not be read, or it is in the wrong place).
/// `snippet` is the text of the offending line (empty when there is none).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub snippet: String,
}

impl ScenarioError {
    /// An error about the file as a whole, not a place in it.
    pub fn whole_file(file: &str, message: impl Into<String>) -> Self {
        ScenarioError {
            file: file.to_owned(),
            line: 0,
            column: 0,
            message: message.into(),
            snippet: String::new(),
        }
    }

    /// An error at `line:column` of `text` (the file's contents).
    pub fn at(
        file: &str,
        text: &str,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        let snippet = line
            .checked_sub(1)
            .and_then(|i| text.lines().nth(i))
            .unwrap_or("")
            .to_owned();
        ScenarioError {
            file: file.to_owned(),
            line,
            column,
            message: message.into(),
            snippet,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: error in scenario file: {}", self.file, self.message);
        }
        write!(
            f,
            "{}:{}:{}: error in scenario file: {}",
            self.file, self.line, self.column, self.message
        )?;
        if self.snippet.is_empty() {
            return Ok(());
        }
        let number = self.line.to_string();
        let gutter = " ".repeat(number.len());
        // Keep tabs in the caret line so the caret lines up under tabbed text.
        let pad: String = self
            .snippet
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(
            f,
            "\n{gutter} |\n{number} | {}\n{gutter} | {pad}^",
            self.snippet
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_and_caret() {
        let text = "id: x\nsteps:\n  - sned: {}\n";
        let e = ScenarioError::at("f.yaml", text, 3, 5, "unknown step key `sned`");
        assert_eq!(e.snippet, "  - sned: {}");
        assert_eq!(
            e.to_string(),
            "f.yaml:3:5: error in scenario file: unknown step key `sned`\n  |\n3 |   - sned: {}\n  |     ^"
        );
    }

    #[test]
    fn whole_file_has_no_snippet() {
        let e = ScenarioError::whole_file("f.yaml", "cannot read it");
        assert_eq!(
            e.to_string(),
            "f.yaml: error in scenario file: cannot read it"
        );
    }
}
