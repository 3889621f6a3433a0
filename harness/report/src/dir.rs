//! `--report-dir DIR`: everything about a run, as files.
//!
//! ```text
//! DIR/report.json          the report document (schema/report.schema.json)
//! DIR/junit.xml            JUnit XML, a test case per case
//! DIR/summary.md           for a CI step summary
//! DIR/index.html           the self-contained report page
//! DIR/sarif.json           SARIF 2.1.0, for code-scanning services
//! DIR/badge.json           a shields.io endpoint document (the verdict as a badge)
//! DIR/transcripts/<case id>.jsonl   one per case (naming: see `transcript`)
//! ```
//!
//! The directory is created if missing. Each transcript is written when its
//! case finishes; the six reports when the run finishes, or, when the
//! reporter is dropped before that (the run was cut short), with what it
//! has (`"complete": false`). An interrupted run (`Event::Interrupted`,
//! Ctrl-C) writes them at its `RunFinished` with the finished cases,
//! `"interrupted": true`, and says so in summary.md, junit.xml and
//! index.html. Every file is written to a temporary name in its directory
//! and renamed into place: a reader never sees half a file. Until the page
//! is written, the transcripts it embeds wait on disk, not in memory
//! (`spill`: a temporary file in the directory, unlinked at once where the
//! platform allows it).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcpspec_model::{Event, Reporter};

use crate::baseline::Baseline;
use crate::log::RunLog;
use crate::{badge, html, junit, markdown, model, sarif, transcript};

mod spill;

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] for content written piece by piece: `fill` writes into
/// the temporary file (buffered), which is renamed into place only if it
/// succeeded.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|file| {
        let mut w = BufWriter::new(file);
        fill(&mut w)?;
        w.flush()
    });
    written
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

pub struct ReportDir {
    dir: PathBuf,
    log: RunLog,
    /// The finished cases' transcripts for index.html, on disk until then.
    page_transcripts: spill::Spill,
    /// Case ids whose transcript file was written, and its relative path.
    written: std::collections::HashMap<String, String>,
    finished: bool,
    /// Problems writing, for the CLI to report (exit 2).
    pub errors: Vec<String>,
}

impl ReportDir {
    /// Creates `dir` (and its parents) if missing.
    pub fn create(
        dir: PathBuf,
        strict: bool,
        baseline: Option<Arc<Baseline>>,
    ) -> Result<Self, String> {
        std::fs::create_dir_all(dir.join("transcripts")).map_err(|e| {
            format!(
                "failed to create the report directory {}: {e}",
                dir.display()
            )
        })?;
        Ok(ReportDir {
            page_transcripts: spill::Spill::new(&dir),
            dir,
            log: RunLog::new(strict, baseline),
            written: std::collections::HashMap::new(),
            finished: false,
            errors: Vec::new(),
        })
    }

    fn write(&mut self, rel: &str, bytes: &[u8]) -> bool {
        self.write_with(rel, |w| w.write_all(bytes))
    }

    fn write_with(
        &mut self,
        rel: &str,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> bool {
        let path = self.dir.join(rel);
        let result = match path.parent() {
            Some(parent) => std::fs::create_dir_all(parent),
            None => Ok(()),
        }
        .and_then(|()| write_atomic_with(&path, fill));
        match result {
            Ok(()) => true,
            Err(e) => {
                self.errors
                    .push(format!("failed to write {}: {e}", path.display()));
                false
            }
        }
    }

    /// Writes report.json, junit.xml, summary.md, index.html, sarif.json and
    /// badge.json from what the log holds now.
    pub fn write_reports(&mut self) {
        let written = self.written.clone();
        let report = model::build(&self.log, &|id| written.get(id).cloned());
        self.write_with("report.json", |w| {
            serde_json::to_writer_pretty(&mut *w, &report)?;
            w.write_all(b"\n")
        });
        match junit::render(&self.log) {
            Ok(xml) => {
                self.write("junit.xml", xml.as_bytes());
            }
            Err(e) => self.errors.push(e),
        }
        let md = markdown::render(&self.log, markdown::LIMIT);
        self.write("summary.md", md.as_bytes());
        // The page embeds every transcript: read back one case at a time
        // as it is written, never held whole.
        let page_transcripts = std::mem::take(&mut self.page_transcripts);
        self.write_with("index.html", |w| html::write(w, &report, &page_transcripts));
        self.page_transcripts = page_transcripts;
        for (name, doc) in [
            ("sarif.json", sarif::render(&self.log)),
            ("badge.json", badge::render(&self.log)),
        ] {
            match serde_json::to_string_pretty(&doc) {
                Ok(text) => {
                    self.write(name, format!("{text}\n").as_bytes());
                }
                Err(e) => self.errors.push(format!("failed to encode {name}: {e}")),
            }
        }
        self.finished = true;
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The run as recorded so far: `--partition` names the shard here, and
    /// `report combine` restores the run's start.
    pub fn log_mut(&mut self) -> &mut RunLog {
        &mut self.log
    }
}

impl Reporter for ReportDir {
    fn event(&mut self, event: &Event) {
        self.log.observe(event);
        if let Event::CaseFinished(r) = event {
            self.page_transcripts.push(&r.id, &r.transcript);
            let rel = format!("transcripts/{}", transcript::file_name(&r.id));
            if self.write(&rel, transcript::jsonl(&r.transcript).as_bytes()) {
                self.written.insert(r.id.clone(), rel);
            }
        }
        if matches!(event, Event::RunFinished { .. }) {
            self.write_reports();
        }
    }
}

impl Drop for ReportDir {
    /// A run cut short still leaves its reports.
    fn drop(&mut self) {
        if !self.finished {
            self.write_reports();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_engine::{Level, Version};
    use mcpspec_model::{CaseResult, Exit, Outcome};
    use serde_json::Value;
    use std::time::Duration;

    fn passed(id: &str) -> Event {
        Event::CaseFinished(Box::new(CaseResult {
            id: format!("{id}@2025-06-18"),
            scenario: id.into(),
            title: String::new(),
            version: Version::V2025_06_18,
            level: Level::Must,
            requirements: Vec::new(),
            outcome: Outcome::Pass,
            findings: Vec::new(),
            duration: Duration::ZERO,
            transcript: Vec::new(),
        }))
    }

    #[test]
    fn an_interrupted_run_says_so_in_every_report() {
        let dir = std::env::temp_dir().join(format!("mcpspec-dir-{}-int", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut reports = ReportDir::create(dir.clone(), false, None).unwrap();
        reports.event(&Event::RunStarted {
            target: "t".into(),
            cases: 3,
            jobs: 1,
        });
        reports.event(&passed("server/x"));
        reports.event(&Event::Interrupted {
            reason: "SIGINT".into(),
            exit: Exit::Interrupted,
        });
        let mut summary = mcpspec_model::Summary::default();
        summary.add(&Outcome::Pass);
        reports.event(&Event::RunFinished {
            summary,
            wall: Duration::from_millis(5),
            strict: false,
        });
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        let report: Value = serde_json::from_str(&read("report.json")).unwrap();
        assert_eq!(report["interrupted"], true);
        assert_eq!(report["complete"], false);
        assert_eq!(report["run"]["interrupted_by"], "SIGINT");
        assert_eq!(report["run"]["exit_code"], 130);
        assert_eq!(report["results"].as_array().map(Vec::len), Some(1));
        let md = read("summary.md");
        assert!(md.starts_with("## mcpspec: interrupted (exit 130)"), "{md}");
        assert!(md.contains("**Interrupted** (SIGINT): 1 of 3 planned cases finished"));
        assert!(read("junit.xml").contains(r#"name="interrupted" value="SIGINT""#));
        assert!(read("index.html").contains("Interrupted (SIGINT): 1 of 3 planned cases finished"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_run_cut_short_still_leaves_its_reports() {
        let dir = std::env::temp_dir().join(format!("mcpspec-dir-{}-cut", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        {
            let mut reports = ReportDir::create(dir.join("a/b"), false, None).unwrap();
            reports.event(&Event::RunStarted {
                target: "t".into(),
                cases: 2,
                jobs: 1,
            });
            reports.event(&Event::CaseFinished(Box::new(CaseResult {
                id: "server/x@2025-06-18".into(),
                scenario: "server/x".into(),
                title: String::new(),
                version: Version::V2025_06_18,
                level: Level::Must,
                requirements: Vec::new(),
                outcome: Outcome::Pass,
                findings: Vec::new(),
                duration: Duration::ZERO,
                transcript: Vec::new(),
            })));
            assert!(dir
                .join("a/b/transcripts/server/x@2025-06-18.jsonl")
                .exists());
            assert!(!dir.join("a/b/report.json").exists());
        } // dropped before RunFinished
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("a/b/report.json")).unwrap())
                .unwrap();
        assert_eq!(report["complete"], false);
        assert_eq!(report["run"]["planned"], 2);
        assert_eq!(report["results"].as_array().map(Vec::len), Some(1));
        for f in ["junit.xml", "summary.md", "index.html"] {
            assert!(dir.join("a/b").join(f).exists(), "{f}");
        }
        let leftovers: Vec<_> = std::fs::read_dir(dir.join("a/b"))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "no temporary files left");
    }
}
