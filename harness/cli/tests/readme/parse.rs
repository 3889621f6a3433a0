//! Reading README.md for `readme.rs`: its shell blocks and their
//! `mcpspec` commands, skip markers, the output shown after a command, and
//! the words, comment and expected exit code of a shell line.

/// One `mcpspec …` line of a shell block.
#[derive(Debug, Clone)]
pub struct Example {
    /// 1-based line in README.md.
    pub line: usize,
    pub text: String,
    /// Why it is not run, if it is not.
    pub skip: Option<String>,
}

/// A shell block with its commands, and the output the README shows for it.
#[derive(Debug, Clone)]
pub struct Block {
    pub examples: Vec<Example>,
    pub output: Option<(usize, Vec<String>)>,
}

/// The shell blocks of `readme` that hold `mcpspec` commands.
pub fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out: Vec<Block> = Vec::new();
    let mut skip: Option<(Vec<String>, String)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(rest) = line.strip_prefix("<!-- readme-test: skip ") {
            let rest = rest.trim_end_matches("-->").trim();
            let (frags, reason) = rest.split_once('(').unwrap_or((rest, ""));
            let frags = frags
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect();
            let reason = reason.trim_end().trim_end_matches(')').to_owned();
            skip = Some((frags, reason));
            i += 1;
            continue;
        }
        let Some(lang) = line.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let start = i;
        i += 1;
        let mut body = Vec::new();
        while i < lines.len() && !lines[i].trim().starts_with("```") {
            body.push((i + 1, lines[i]));
            i += 1;
        }
        i += 1;
        let this_skip = skip.take();
        if lang == "text" {
            // The output of the one command of the block just before?
            let follows = out.last_mut().filter(|b| {
                b.examples.len() == 1
                    && b.output.is_none()
                    && lines[b.examples[0].line..start]
                        .iter()
                        .all(|l| l.trim().is_empty() || l.trim() == "```")
            });
            if let Some(b) = follows {
                let expected = body
                    .iter()
                    .map(|(_, l)| l.trim_end().to_owned())
                    .filter(|l| l.trim() != "...")
                    .collect();
                b.output = Some((start + 1, expected));
            }
            continue;
        }
        if !matches!(lang, "sh" | "bash" | "console" | "") {
            continue;
        }
        let examples: Vec<Example> = body
            .iter()
            .filter(|(_, l)| l.trim_start().starts_with("mcpspec "))
            .map(|&(n, l)| Example {
                line: n,
                text: l.trim().to_owned(),
                skip: this_skip.as_ref().and_then(|(frags, reason)| {
                    frags
                        .iter()
                        .any(|f| l.contains(f.as_str()))
                        .then(|| reason.clone())
                }),
            })
            .collect();
        if !examples.is_empty() {
            out.push(Block {
                examples,
                output: None,
            });
        }
    }
    out
}

/// A shell line's words (quotes removed), its comment, and whether it ends in `&`.
pub fn split(line: &str) -> (Vec<String>, String, bool) {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    let mut comment = String::new();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == c {
                        break;
                    }
                    w.push(q);
                }
            }
            '#' if word.is_none() => {
                comment = chars.collect();
                break;
            }
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    let background = words.last().is_some_and(|w| w == "&");
    if background {
        words.pop();
    }
    (words, comment.trim().to_owned(), background)
}

/// The exit code a comment names (`exits 1`, `exit 0: fixed`), else 0.
pub fn expected_exit(comment: &str) -> i32 {
    let words: Vec<&str> = comment.split_whitespace().collect();
    words
        .windows(2)
        .find(|w| w[0] == "exits" || w[0] == "exit")
        .and_then(|w| {
            w[1].trim_end_matches(|c: char| !c.is_ascii_digit())
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Why a command's output shows it selected nothing, if it does (`server`
/// and `client` exit 2 then, which the exit code check catches).
pub fn selects_nothing(argv: &[String], output: &str) -> Option<&'static str> {
    match argv.get(1).map(String::as_str) {
        Some("list") if output.lines().last() == Some("0 cases") => {
            Some("its filter selects no case")
        }
        Some("review")
            if output.contains("no pending snapshot") || output.contains("none of the") =>
        {
            Some("it selects no pending snapshot")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
<!-- readme-test: skip `node ` (your own) -->
```sh
mcpspec server -- node x.js
mcpspec list   # what would run
```

```sh
mcpspec server --filter a  # exits 1
```

```text
FAIL a
  ...
```
";

    #[test]
    fn the_readme_parser_reads_words_comments_skips_and_outputs() {
        let (words, comment, bg) =
            split("mcpspec server --filter 'server/*/x' -H 'A: b c' -- ./my-server  # exits 1");
        assert_eq!(
            words,
            [
                "mcpspec",
                "server",
                "--filter",
                "server/*/x",
                "-H",
                "A: b c",
                "--",
                "./my-server"
            ]
        );
        assert_eq!(comment, "exits 1");
        assert!(!bg);
        assert_eq!(expected_exit(&comment), 1);
        assert_eq!(expected_exit("exit 0: fixed"), 0);
        assert_eq!(expected_exit("a SHOULD: warns, exits 1 under --strict"), 1);
        assert_eq!(expected_exit("what would run"), 0);
        let (words, _, bg) = split("mcpspec reference server --http 127.0.0.1:8931 &");
        assert!(bg);
        assert_eq!(words.last().map(String::as_str), Some("127.0.0.1:8931"));

        let list = ["mcpspec".to_owned(), "list".to_owned()];
        assert!(selects_nothing(&list, "0 cases\n").is_some());
        assert!(selects_nothing(&list, "a@1: A [MUST]\n1 case\n").is_none());
        let review = ["mcpspec".to_owned(), "review".to_owned()];
        assert!(
            selects_nothing(&review, "none of the 3 pending snapshots in d matches\n").is_some()
        );
        assert!(selects_nothing(&review, "no pending snapshot in d\n").is_some());
        assert!(selects_nothing(&review, "1 accepted, 0 rejected, 0 skipped\n").is_none());

        let readme = SAMPLE;
        let b = blocks(readme);
        assert_eq!(b.len(), 2, "{b:#?}");
        assert_eq!(b[0].examples[0].skip.as_deref(), Some("your own"));
        assert_eq!(b[0].examples[1].skip, None);
        assert_eq!(b[0].examples[1].line, 4);
        assert_eq!(b[1].output, Some((11, vec!["FAIL a".to_owned()])));
    }
}
