//! Every `mcpspec …` command in README.md's shell blocks is run, against
//! the built binary and the embedded reference server and client, so that
//! the README cannot drift from what mcpspec does.
//!
//! **What a command must do.** Exit with the code its comment names
//! (`# exits 1`, `# exit 0: fixed`), 0 when it names none; and select
//! something: `list` must not print "0 cases", `review` must find a pending
//! snapshot (a `server` or `client` filter that matches nothing already
//! exits 2). A ```text block right after a one-command shell block is that
//! command's output: each of its lines but `...` must appear, in order.
//!
//! **Skipped.** A block preceded by `<!-- readme-test: skip `frag`, …
//! (reason) -->` skips its commands containing one of the fragments (a
//! server or client of the reader's own, npm); each skip is printed with
//! its reason.
//!
//! **Stand-ins.** The README speaks of the reader's setup; the test
//! substitutes, in each argument:
//!
//! | README | run as |
//! |---|---|
//! | `mcpspec` | this build's binary |
//! | `./my-server`, `./my-server-fixed` | `mcpspec reference server` |
//! | `http://127.0.0.1:3000/…` | the reference HTTP server, started for the test |
//! | `… --http 127.0.0.1:8931 … &` | started in the background on a free port; later `127.0.0.1:8931` is that port |
//! | `FILE` | a fuzzing reproducer (below) |
//! | `fuzz … --duration 60s` (or no budget) | `--duration 2s` |
//!
//! Commands run in a scratch directory (for `snaps/`, `reports/…`), with
//! `CI` unset (as a developer runs them: under CI=true a missing snapshot
//! fails), `NO_COLOR` set and stdin empty (not a terminal). Before them the
//! directory gets what the README assumes exists: `reports/a` and
//! `reports/b` (two runs of the ping cases) and
//! `reports/fuzz/run1/001-alive-unparsable.json` (from fuzzing the reference
//! server with its `exit-on-malformed` fault). Commands run in parallel,
//! except that a command using what an earlier one of its block made (a
//! background server's address, a snapshots or report directory, a scenario
//! file written with `--out`) runs after it; each command is bounded in time.

#[path = "readme/parse.rs"]
mod parse;
mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use parse::{blocks, expected_exit, selects_nothing, split, Block};
use support::{temp_dir, BIN};

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
/// Longest a README command may take (the longest are full runs of the suite).
const LIMIT: Duration = Duration::from_secs(240);
/// Commands (or ordered blocks) run at once. A full run of the suite against
/// the reference mostly waits (its scenarios pause), so several overlap well.
const PARALLEL: usize = 6;
/// A case of `reports/a` (the README replays its transcript).
const CASE_ID: &str = "server/lifecycle/ping/operating@2025-06-18";

/// What the stand-ins stand for.
struct Setup {
    dir: PathBuf,
    /// `127.0.0.1:PORT` of the reference HTTP server.
    http: String,
    reproducer: PathBuf,
}

/// The README's argv with the stand-ins replaced; `background` is an
/// address to substitute for `127.0.0.1:8931` once known.
fn substitute(words: &[String], setup: &Setup, background: Option<&str>) -> Vec<String> {
    let mut argv = Vec::new();
    for w in words {
        match w.as_str() {
            "mcpspec" => argv.push(BIN.to_owned()),
            "./my-server" | "./my-server-fixed" => {
                argv.extend([BIN.to_owned(), "reference".into(), "server".into()]);
            }
            "FILE" => argv.push(setup.reproducer.display().to_string()),
            _ => {
                let mut w = w.replace("127.0.0.1:3000", &setup.http);
                if let Some(addr) = background {
                    w = w.replace("127.0.0.1:8931", addr);
                }
                argv.push(w);
            }
        }
    }
    // Fuzzing budgets: seconds, not minutes.
    if argv.get(1).is_some_and(|a| a == "fuzz") {
        let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
        match argv[..end].iter().position(|a| a == "--duration") {
            Some(i) => argv[i + 1] = "2s".into(),
            None if !argv[..end].iter().any(|a| a == "--runs") => {
                argv.splice(end..end, ["--duration".to_owned(), "2s".to_owned()]);
            }
            None => {}
        }
    }
    argv
}

fn command(argv: &[String], dir: &Path) -> Command {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .current_dir(dir)
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    cmd
}

/// Runs `argv` to its end (bounded): exit code (None: killed) and output.
fn run(argv: &[String], dir: &Path, limit: Duration) -> (Option<i32>, String) {
    static RUNS: Mutex<usize> = Mutex::new(0);
    let n = {
        let mut runs = RUNS.lock().expect("lock");
        *runs += 1;
        *runs
    };
    let out = dir.join(format!(".out-{n}"));
    let file = std::fs::File::create(&out).expect("output file");
    let mut child = command(argv, dir)
        .stdout(file.try_clone().expect("output file"))
        .stderr(file)
        .spawn()
        .unwrap_or_else(|e| panic!("{argv:?} does not start: {e}"));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    (status, std::fs::read_to_string(&out).unwrap_or_default())
}

/// A reference HTTP server started with `argv`, and its `127.0.0.1:PORT`
/// from its first stdout line; killed when dropped.
struct Background {
    child: Child,
    addr: String,
}

impl Background {
    fn start(argv: &[String], dir: &Path) -> Result<Self, String> {
        let mut child = command(argv, dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{argv:?} does not start: {e}"))?;
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut first = String::new();
            let mut reader = BufReader::new(stdout);
            let _ = reader.read_line(&mut first);
            let _ = tx.send(first);
            // Keep reading so that the server never blocks on a full pipe.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let mut bg = Background {
            child,
            addr: String::new(),
        };
        let first = rx
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| format!("{argv:?} printed no address within 30s"))?;
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| c == '/' || c.is_whitespace()).next())
            .ok_or_else(|| format!("no address in {first:?}"))?;
        addr.clone_into(&mut bg.addr);
        Ok(bg)
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Checks one block; problems are appended to `failures`, skips to `notes`.
fn check_block(block: &Block, setup: &Setup, failures: &mut Vec<String>, notes: &mut Vec<String>) {
    let mut backgrounds: Vec<Background> = Vec::new();
    for ex in &block.examples {
        let at = format!("README.md:{}: `{}`", ex.line, ex.text);
        if let Some(reason) = &ex.skip {
            notes.push(format!("skipped {at}: {reason}"));
            continue;
        }
        let (words, comment, background) = split(&ex.text);
        let known = backgrounds.last().map(|b| b.addr.as_str());
        if background {
            let words: Vec<String> = words
                .iter()
                .map(|w| w.replace("127.0.0.1:8931", "127.0.0.1:0"))
                .collect();
            match Background::start(&substitute(&words, setup, None), &setup.dir) {
                Ok(bg) => backgrounds.push(bg),
                Err(e) => failures.push(format!("{at}: {e}")),
            }
            continue;
        }
        let argv = substitute(&words, setup, known);
        let started = Instant::now();
        let (code, output) = run(&argv, &setup.dir, LIMIT);
        let took = started.elapsed().as_secs_f64();
        let want = expected_exit(&comment);
        let tail: String = {
            let lines: Vec<&str> = output.lines().collect();
            lines[lines.len().saturating_sub(25)..].join("\n")
        };
        let mut problem = |what: String| {
            failures.push(format!(
                "{at}\n  ran: {}\n  {what} (after {took:.1}s); output ends:\n{tail}",
                argv.join(" ")
            ));
        };
        if code != Some(want) {
            problem(match code {
                Some(c) => format!("exited {c}, the README says {want}"),
                None => format!("still running after {}s", LIMIT.as_secs()),
            });
            continue;
        }
        if let Some(what) = selects_nothing(&argv, &output) {
            problem(what.to_owned());
        }
        if let Some((line, expected)) = &block.output {
            let mut rest = output.as_str();
            for want in expected {
                match rest.find(want.as_str()) {
                    Some(i) => rest = &rest[i + want.len()..],
                    None => {
                        problem(format!(
                            "the output shown at README.md:{line} has a line it does not print \
                             (in that order): {want:?}"
                        ));
                        break;
                    }
                }
            }
        }
        notes.push(format!("ran {at} in {took:.1}s"));
    }
}

/// What the README assumes exists before its commands.
fn prepare(dir: &Path) -> (PathBuf, Background) {
    let argv = |args: &[&str]| -> Vec<String> {
        std::iter::once(BIN)
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect()
    };
    for report in ["reports/a", "reports/b"] {
        let (code, out) = run(
            &argv(&[
                "server",
                "--filter",
                "server/lifecycle/ping/",
                "--spec-version",
                "2025-06-18",
                "--report-dir",
                report,
            ]),
            dir,
            Duration::from_secs(60),
        );
        assert_eq!(code, Some(0), "setup of {report}:\n{out}");
    }
    assert!(
        dir.join("reports/a/transcripts")
            .join(format!("{CASE_ID}.jsonl"))
            .exists(),
        "reports/a lacks {CASE_ID}"
    );
    let (code, out) = run(
        &argv(&[
            "fuzz",
            "server",
            "--seed",
            "1",
            "--level",
            "json",
            "--runs",
            "300",
            "--report-dir",
            "setup-fuzz",
            "--",
            BIN,
            "reference",
            "server",
            "--fault",
            "exit-on-malformed",
        ]),
        dir,
        Duration::from_secs(120),
    );
    assert_eq!(code, Some(1), "setup fuzzing finds nothing:\n{out}");
    let found = std::fs::read_dir(dir.join("setup-fuzz"))
        .expect("setup-fuzz written")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("-alive-unparsable.json"))
        .unwrap_or_else(|| panic!("setup fuzzing wrote no alive-unparsable reproducer:\n{out}"));
    let reproducer = dir.join("reports/fuzz/run1/001-alive-unparsable.json");
    std::fs::create_dir_all(reproducer.parent().expect("parent")).expect("reports/fuzz/run1");
    std::fs::copy(&found, &reproducer).expect("reproducer copied");
    let http = Background::start(
        &argv(&["reference", "server", "--http", "127.0.0.1:0"]),
        dir,
    )
    .expect("the reference HTTP server starts");
    (reproducer, http)
}

/// What a command makes that a later command of its block may use: a
/// background server's address, or the paths it writes (a snapshots or
/// report directory, a scenario file, a JSON or SARIF report).
fn made(words: &[String], background: bool) -> Vec<&String> {
    let flags: &[&str] = if background {
        &["--http"]
    } else {
        &["--snapshots", "--report-dir", "--out", "--json", "--sarif"]
    };
    words
        .windows(2)
        .filter(|pair| flags.contains(&pair[0].as_str()))
        .map(|pair| &pair[1])
        .collect()
}

/// Whether argument `word` uses `key`, something an earlier command made:
/// it names it or something inside it (`reports/r/transcripts/…` for
/// `reports/r`), or a directory holding it (`regress` for
/// `regress/server/regress/ids.yaml`).
fn uses(word: &str, key: &str) -> bool {
    word.contains(key)
        || key
            .strip_prefix(word.trim_end_matches('/'))
            .is_some_and(|rest| rest.starts_with('/'))
}

#[test]
fn every_readme_example_runs_as_documented() {
    let readme = std::fs::read_to_string(README).expect("README.md");
    let blocks = blocks(&readme);
    let total: usize = blocks.iter().map(|b| b.examples.len()).sum();
    let skipped: usize = blocks
        .iter()
        .flat_map(|b| &b.examples)
        .filter(|e| e.skip.is_some())
        .count();
    // The README has dozens of examples; finding few means the parser broke.
    assert!(total >= 40, "only {total} examples found: {blocks:#?}");
    assert!(
        skipped * 4 <= total,
        "{skipped} of {total} examples are skipped: keep skips to the few that need the network"
    );
    assert!(
        blocks.iter().any(|b| b.output.is_some()),
        "the sample failure output is not found after its command"
    );

    let dir = temp_dir("readme");
    let (reproducer, http) = prepare(&dir);
    let setup = Setup {
        dir: dir.clone(),
        http: http.addr.clone(),
        reproducer,
    };
    // PARALLEL at a time: each command on its own, except that a command
    // using what an earlier one of its block made (see `made` and `uses`)
    // follows it.
    let mut units: Vec<Block> = Vec::new();
    for b in blocks {
        let mut anchors: Vec<(String, usize)> = Vec::new();
        for e in b.examples {
            let (words, _, background) = split(&e.text);
            let after = anchors
                .iter()
                .find(|(key, _)| words.iter().any(|w| uses(w, key)))
                .map(|&(_, unit)| unit);
            let unit = after.unwrap_or_else(|| {
                units.push(Block {
                    examples: Vec::new(),
                    output: b.output.clone(),
                });
                units.len() - 1
            });
            for key in made(&words, background) {
                anchors.push((key.clone(), unit));
            }
            units[unit].examples.push(e);
        }
    }
    units.sort_by_key(|b| std::cmp::Reverse(b.examples.len()));
    let queue = Mutex::new(units.iter());
    let failures = Mutex::new(Vec::new());
    let notes = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| loop {
                let Some(block) = queue.lock().expect("lock").next() else {
                    return;
                };
                let (mut f, mut n) = (Vec::new(), Vec::new());
                check_block(block, &setup, &mut f, &mut n);
                failures.lock().expect("lock").append(&mut f);
                notes.lock().expect("lock").append(&mut n);
            });
        }
    });
    drop(http);
    let mut notes = notes.into_inner().expect("notes");
    notes.sort();
    for note in &notes {
        println!("{note}");
    }
    let failures = failures.into_inner().expect("failures");
    assert!(
        failures.is_empty(),
        "{} README example(s) do not do what the README says:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_command_follows_the_one_that_made_what_it_uses() {
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let run = words("mcpspec server --report-dir reports/r --json out.json -- x");
    assert_eq!(made(&run, false), ["reports/r", "out.json"]);
    assert!(uses("reports/r/transcripts/a.jsonl", "reports/r"));
    assert!(uses("out.json", "out.json"));
    let scenario = words("mcpspec scenario from-transcript t.jsonl --out regress/server/ids.yaml");
    assert_eq!(made(&scenario, false), ["regress/server/ids.yaml"]);
    assert!(uses("regress", "regress/server/ids.yaml"));
    assert!(uses("regress/", "regress/server/ids.yaml"));
    // A sibling or a name sharing a prefix is not a use.
    assert!(!uses("reports/a", "reports/r"));
    assert!(!uses("reg", "regress/server/ids.yaml"));
    assert!(!uses("/", "reports/r"));
    let server = words("mcpspec reference server --http 127.0.0.1:8931 --report-dir d");
    assert_eq!(made(&server, true), ["127.0.0.1:8931"]);
    assert!(uses("http://127.0.0.1:8931/mcp", "127.0.0.1:8931"));
}

#[test]
fn stand_ins_replace_the_readers_setup() {
    let setup = Setup {
        dir: PathBuf::from("."),
        http: "127.0.0.1:5555".into(),
        reproducer: PathBuf::from("r.json"),
    };
    let argv = substitute(
        &split("mcpspec fuzz server --json f.json -- ./my-server").0,
        &setup,
        None,
    );
    assert_eq!(
        argv,
        [
            BIN,
            "fuzz",
            "server",
            "--json",
            "f.json",
            "--duration",
            "2s",
            "--",
            BIN,
            "reference",
            "server"
        ]
    );
    let argv = substitute(
        &split("mcpspec replay FILE --url http://127.0.0.1:3000/mcp").0,
        &setup,
        None,
    );
    assert_eq!(
        argv,
        [
            BIN,
            "replay",
            "r.json",
            "--url",
            "http://127.0.0.1:5555/mcp"
        ]
    );
}
