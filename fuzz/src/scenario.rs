//! Invariant checker for the scenario loader, [`mcpspec_scenario::parse`].
//!
//! Any text: no panic, and an error always points at a place inside the file
//! — `line` between 1 and one past the last line, `column` between 1 and one
//! past the end of that line (in characters) — names the file it was given,
//! says something, and quotes the line it points at. Lines are counted the
//! way YAML counts them (`\n`, `\r\n` or a lone `\r` ends a line). Bytes that
//! are not UTF-8 never reach the loader (its input is `&str`).

/// The file label passed to the loader, expected back in every error.
const LABEL: &str = "fuzz/scenario.yaml";

/// Fuzz check: [`mcpspec_scenario::parse`] on arbitrary text.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Err(e) = mcpspec_scenario::parse(LABEL, text) else {
        return;
    };
    assert_eq!(e.file, LABEL, "error names another file");
    assert!(!e.message.trim().is_empty(), "error without a message");
    let rendered = e.to_string();
    assert!(rendered.starts_with(LABEL), "rendered error: {rendered}");

    let lines = yaml_lines(text);
    assert!(
        e.line >= 1 && e.line <= lines.len() + 1,
        "error at line {} of a {}-line file: {}",
        e.line,
        lines.len(),
        e.message
    );
    let line_text = lines.get(e.line - 1).copied().unwrap_or("");
    let width = line_text.chars().count();
    assert!(
        e.column >= 1 && e.column <= width + 1,
        "error at {}:{} but line {} has {width} characters: {}",
        e.line,
        e.column,
        e.line,
        e.message
    );
}

/// The lines of `text` as YAML sees them, without their breaks.
fn yaml_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['\n', '\r']) {
            Some(i) => {
                lines.push(&rest[..i]);
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
            }
            None => {
                lines.push(rest);
                rest = "";
            }
        }
    }
    lines
}
