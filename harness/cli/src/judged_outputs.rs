//! The outputs of a run of judged connections, shared by `mcpspec judge`
//! and `mcpspec proxy`: the reporters the user asked for (a human report,
//! `--json`, `--sarif`, `--report-dir`) fed through
//! [`mcpspec_runner::judged::report`], their write errors, and the exit
//! code (the run's, or 2 when an output could not be written).

use std::path::PathBuf;

use mcpspec_model::Exit;
use mcpspec_report::{HumanReporter, JsonReporter, ReportDir, SarifReporter};
use mcpspec_runner::judged::{report, JudgedConnection};
use mcpspec_runner::Reporter;

/// Where the outputs go.
pub struct Outputs {
    /// The human report (none: quiet).
    pub human: Option<HumanReporter>,
    pub json: Option<PathBuf>,
    pub sarif: Option<PathBuf>,
    pub report_dir: Option<PathBuf>,
    /// Say where the report directory is on stderr (stdout may be the MCP
    /// channel) rather than stdout.
    pub notes_to_stderr: bool,
}

/// Reports `connections` as a run against `target`; the exit code.
pub fn write(target: &str, connections: &[JudgedConnection], outputs: Outputs) -> Exit {
    let Outputs {
        mut human,
        json,
        sarif,
        report_dir,
        notes_to_stderr,
    } = outputs;
    let mut report_dir = match report_dir {
        Some(dir) => match ReportDir::create(dir, false, None) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        },
        None => None,
    };
    let mut json = json.map(|p| JsonReporter::new(p, false, None));
    let mut sarif = sarif.map(|p| SarifReporter::new(p, false, None));
    let summary = {
        let mut reporters: Vec<&mut dyn Reporter> = Vec::new();
        if let Some(h) = human.as_mut() {
            reporters.push(h);
        }
        if let Some(j) = json.as_mut() {
            reporters.push(j);
        }
        if let Some(s) = sarif.as_mut() {
            reporters.push(s);
        }
        if let Some(d) = report_dir.as_mut() {
            reporters.push(d);
        }
        report(target, connections, &mut reporters)
    };
    let mut errors: Vec<String> = Vec::new();
    errors.extend(json.and_then(|j| j.error));
    errors.extend(sarif.and_then(|s| s.error));
    if let Some(d) = &report_dir {
        errors.extend(d.errors.iter().cloned());
        if d.errors.is_empty() {
            let line = format!("reports: {}", d.path().join("index.html").display());
            if notes_to_stderr {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
    }
    for e in &errors {
        eprintln!("error: {e}");
    }
    if !errors.is_empty() {
        return Exit::Usage;
    }
    summary.exit_code(false)
}
