//! `mcpspec judge FILE…`: recorded MCP traffic judged offline, both sides
//! at once, by the same oracle a live run uses, into the same reports.
//!
//! ```text
//!  FILE ──read (lines: transcript | plain log; har)──► Recording (Traffic in order)
//!       ──► Pair (two oracles: the server's rules, the client's) ──► violations by side
//!       ──► JudgedConnection ──► run events ──► human, --json, --sarif, --report-dir
//! ```
//!
//! Each file is one connection and two cases, `judge/<name>/server` and
//! `judge/<name>/client` (`<name>`: the case id of a transcript under a
//! `transcripts/` directory, else the file name). The formats are read in
//! [`lines`] (mcpspec transcripts and the documented plain JSON-lines log)
//! and [`har`] (HAR 1.2); `--format` overrides the guess (`.har` or a JSON
//! document with `log.entries` is HAR; JSON lines whose first record has
//! `direction` are a plain log, `dir` a transcript).
//!
//! Exit 0 when nothing broke a MUST, 1 when something did, 2 for a file
//! that cannot be read (the message names the file and the line or HAR
//! entry), 3 when nothing was judged (no file held a message).

mod har;
mod lines;

use std::path::{Path, PathBuf};

use clap::Args;
use mcpspec_engine::{Role, Version};
use mcpspec_model::Exit;
use mcpspec_oracle::pair::{Pair, Traffic};
use mcpspec_report::HumanReporter;
use mcpspec_runner::judged::{transcript_line, JudgedConnection};
use mcpspec_wire::event::Transport;

use crate::judged_outputs::{self, Outputs};

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// Recorded traffic: mcpspec transcripts (DIR/transcripts/<case>.jsonl), plain JSON-lines
    /// logs of {"direction", "message"} records, or HAR files
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The files' format (default: guessed from each file)
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Transcripts: the role the recorded target played (default: the case id's first segment)
    #[arg(long, value_enum)]
    pub role: Option<RoleArg>,
    /// The protocol version to judge at (default: the transcript's case version, else the one
    /// the initialize or _meta exchange settles)
    #[arg(long = "spec-version", value_name = "VERSION")]
    pub spec_version: Option<Version>,
    /// Write the results as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the findings as SARIF 2.1.0 to FILE
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write report.json, junit.xml, summary.md, index.html, sarif.json and transcripts to DIR
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Show every case and finding
    #[arg(short, long)]
    pub verbose: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// mcpspec's own transcripts (`--report-dir DIR/transcripts/*.jsonl`)
    Transcript,
    /// Plain JSON lines: {"direction": "client->server"|"server->client", "message": {...}}
    Jsonl,
    /// HTTP archive (HAR 1.2) of Streamable HTTP or legacy HTTP+SSE traffic
    Har,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RoleArg {
    Server,
    Client,
}

/// One recorded connection, ready to judge.
pub struct Recording {
    pub transport: Transport,
    /// The version the recording names (a transcript's case version).
    pub version: Option<Version>,
    pub traffic: Vec<(u64, Traffic)>,
}

/// `mcpspec judge`.
pub fn run(args: JudgeArgs) -> Exit {
    let role = args.role.map(|r| match r {
        RoleArg::Server => Role::Server,
        RoleArg::Client => Role::Client,
    });
    let mut connections: Vec<JudgedConnection> = Vec::new();
    for file in &args.files {
        let (case, recordings) = match load(file, args.format, role) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                return Exit::Usage;
            }
        };
        for (session, recording) in recordings {
            let mut name = match session {
                Some(id) => format!("judge/{case}/session-{id}"),
                None => format!("judge/{case}"),
            };
            if connections.iter().any(|c| c.name == name) {
                name = format!("{name}#{}", connections.len() + 1);
            }
            connections.push(judge(name, recording, args.spec_version));
        }
    }
    let target = args
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    judged_outputs::write(
        &format!("recorded traffic: {target}"),
        &connections,
        Outputs {
            human: Some(HumanReporter::stdout(args.verbose)),
            json: args.json.clone(),
            sarif: args.sarif.clone(),
            report_dir: args.report_dir.clone(),
            notes_to_stderr: false,
        },
    )
}

/// Judges one recording as connection `name`.
fn judge(name: String, recording: Recording, version: Option<Version>) -> JudgedConnection {
    let mut pair = Pair::new(recording.transport, version.or(recording.version));
    let mut violations = Vec::new();
    let mut transcript = Vec::new();
    let mut last = 0;
    for (at, traffic) in recording.traffic {
        transcript.push(transcript_line(at, &traffic));
        violations.extend(pair.observe(at, traffic));
        last = last.max(at);
    }
    violations.extend(pair.end(last));
    let mut conn = match JudgedConnection::of(name.clone(), &pair, violations) {
        Some(c) => c,
        // `end` settles the version: this cannot happen; judge nothing rather than panic.
        None => JudgedConnection {
            name,
            version: Version::LATEST_HANDSHAKE,
            transport: recording.transport,
            violations: Vec::new(),
            messages: (0, 0),
            transcript: Vec::new(),
            duration: Default::default(),
        },
    };
    conn.transcript = transcript;
    conn.duration = std::time::Duration::from_millis(last);
    conn
}

/// A file's case name and its connections (a HAR may hold several
/// sessions, each named by its id).
type Loaded = (String, Vec<(Option<String>, Recording)>);

/// Reads `file`.
fn load(file: &Path, format: Option<Format>, role: Option<Role>) -> Result<Loaded, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
    let case = case_id(file);
    let har_like = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("har"))
        || (text.trim_start().starts_with('{')
            && serde_json::from_str::<serde_json::Value>(&text)
                .is_ok_and(|v| v.get("log").is_some_and(|l| l.get("entries").is_some())));
    let format = format.unwrap_or(if har_like { Format::Har } else { Format::Jsonl });
    let name = case.clone().unwrap_or_else(|| {
        file.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let recording = match format {
        Format::Har => {
            let doc: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| format!("not a HAR file: line {}: {e}", e.line()))?;
            return Ok((name, har::read(&doc)?));
        }
        Format::Transcript | Format::Jsonl => {
            let records = lines::objects(&text)?;
            // An empty transcript (a case that sent nothing) judges nothing.
            let empty_case = records.is_empty() && case.is_some();
            if format == Format::Transcript || empty_case || lines::is_transcript(&records) {
                lines::transcript(&records, case.as_deref(), role)?
            } else {
                lines::plain(&records)?
            }
        }
    };
    Ok((name, vec![(None, recording)]))
}

/// The case id of a transcript under a `transcripts/` directory.
fn case_id(file: &Path) -> Option<String> {
    let parts: Vec<String> = file
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let at = parts.iter().rposition(|p| p == "transcripts")?;
    mcpspec_report::transcript::case_id_of(&parts[at + 1..].join("/"))
}
