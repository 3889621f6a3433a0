//! `mcpspec report combine DIR… --out DIR`: the report directories of the
//! shards of one run (`--partition hash:K/N` or `count:K/N`) joined into the
//! report directory the unsharded run would have written.
//!
//! ```text
//!  DIR₁/report.json + transcripts ─┐   checked: same target, strictness, baseline and
//!  DIR₂/report.json + transcripts ─┼─► partition scheme; every shard 1..N once; no case
//!  …                               │   in two shards
//!                                  └─► the run's events replayed (probes, each case with
//!                                      its transcript, the totals) into a fresh
//!                                      `ReportDir`: report.json, junit.xml, summary.md,
//!                                      index.html, sarif.json, badge.json, transcripts
//! ```
//!
//! Everything a report says is recomputed from the cases, as in one run: the
//! totals, the rollup, the baseline's verdicts and the exit code. What
//! differs is only time: the combined run started when the first shard did
//! and took as long as the slowest one. A shard that was cut short makes the
//! combined report incomplete (`"complete": false`), never silently whole.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mcpspec_engine::{Level, Version};
use mcpspec_model::{
    Blame, CaseResult, Event, Exit, Finding, FindingSource, Outcome, Reporter, Summary,
    TranscriptLine,
};
use serde_json::Value;

use crate::baseline::{Baseline, Entry};
use crate::log::parse_rfc3339;
use crate::model::{
    BlameName, CaseEntry, FindingEntry, LevelName, OutcomeName, Report, SourceName,
};
use crate::ReportDir;

/// One shard's report directory, read.
struct Shard {
    dir: PathBuf,
    report: Report,
}

fn read_shard(dir: &Path) -> Result<Shard, String> {
    let path = dir.join("report.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let report: Report =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Shard {
        dir: dir.to_owned(),
        report,
    })
}

/// `hash:2/3` → (`hash`, 2, 3).
fn partition_of(shard: &Shard) -> Result<(String, u64, u64), String> {
    let p = shard.report.run.partition.as_deref().ok_or_else(|| {
        format!(
            "{}: not a shard (the run had no --partition)",
            shard.dir.display()
        )
    })?;
    let parsed = p.split_once(':').and_then(|(kind, rest)| {
        let (k, n) = rest.split_once('/')?;
        Some((kind.to_owned(), k.parse().ok()?, n.parse().ok()?))
    });
    parsed.ok_or_else(|| format!("{}: unreadable partition {p:?}", shard.dir.display()))
}

/// The checks that make the shards one run; the error names the culprit.
fn check(shards: &[Shard]) -> Result<(), String> {
    let first = &shards[0];
    let (kind, _, of) = partition_of(first)?;
    let mut seen = BTreeSet::new();
    let mut cases = BTreeMap::new();
    for s in shards {
        let (k_kind, k, k_of) = partition_of(s)?;
        if (k_kind.as_str(), k_of) != (kind.as_str(), of) {
            return Err(format!(
                "{}: shard {k_kind}:{k}/{k_of} is not of the same partition as {} ({kind}:…/{of})",
                s.dir.display(),
                first.dir.display()
            ));
        }
        if !seen.insert(k) {
            return Err(format!("shard {kind}:{k}/{of} is given twice"));
        }
        let (a, b) = (&first.report.run, &s.report.run);
        let same_baseline = match (&first.report.baseline, &s.report.baseline) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                let key = |e: &crate::model::BaselineEntry| {
                    (e.pattern.clone(), e.reason.clone(), e.origin.clone())
                };
                x.entries.iter().map(key).eq(y.entries.iter().map(key))
            }
            _ => false,
        };
        for (what, same) in [
            ("target", a.target == b.target),
            ("--strict", a.strict == b.strict),
            ("--expected-failures", same_baseline),
            ("report format", first.report.format == s.report.format),
        ] {
            if !same {
                return Err(format!(
                    "{} and {}: the shards differ in {what}; they are not one run",
                    first.dir.display(),
                    s.dir.display()
                ));
            }
        }
        for r in &s.report.results {
            if let Some(other) = cases.insert(r.id.clone(), s.dir.clone()) {
                return Err(format!(
                    "case {} is in {} and in {}",
                    r.id,
                    other.display(),
                    s.dir.display()
                ));
            }
        }
    }
    let missing: Vec<String> = (1..=of)
        .filter(|k| !seen.contains(k))
        .map(|k| format!("{kind}:{k}/{of}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing shard(s): {}", missing.join(", ")));
    }
    Ok(())
}

fn level(l: LevelName) -> Level {
    match l {
        LevelName::Must => Level::Must,
        LevelName::Should => Level::Should,
        LevelName::May => Level::May,
    }
}

fn finding(f: &FindingEntry) -> Finding {
    Finding {
        requirement: f.requirement.clone(),
        level: level(f.level),
        spec_url: f.spec_url.clone(),
        summary: f.summary.clone(),
        expected: f.expected.clone(),
        actual: f.actual.clone(),
        location: f.location.clone(),
        source: match f.source {
            Some(SourceName::Oracle) => FindingSource::Oracle,
            Some(SourceName::Step) | None => FindingSource::Step,
        },
    }
}

fn outcome(e: &CaseEntry, findings: &[Finding]) -> Outcome {
    match e.outcome {
        OutcomeName::Pass => Outcome::Pass,
        OutcomeName::Fail => Outcome::Fail,
        OutcomeName::Warn => Outcome::Warn,
        OutcomeName::NotApplicable => Outcome::NotApplicable {
            reason: e.message.clone(),
        },
        OutcomeName::Blocked => {
            let by = e.blocked_by.clone().unwrap_or_default();
            let level = findings
                .iter()
                .find(|f| f.requirement == by)
                .map(|f| f.level)
                .or_else(|| mcpspec_engine::lookup(&by).map(|r| r.level))
                .unwrap_or(Level::Must);
            Outcome::Blocked { by, level }
        }
        OutcomeName::Error => {
            let blame = match e.blame {
                Some(BlameName::Scenario) => Blame::Scenario,
                Some(BlameName::Harness) => Blame::Harness,
                Some(BlameName::Target) | None => Blame::Target,
            };
            let prefix = format!("{} at fault: ", blame.as_str());
            let message = e
                .message
                .strip_prefix(&prefix)
                .unwrap_or(&e.message)
                .to_owned();
            Outcome::Error { blame, message }
        }
    }
}

/// An earlier attempt's outcome from its name alone (the report keeps no
/// more of it): the final result's own details when the names agree.
fn bare(name: OutcomeName, last: &CaseResult) -> Outcome {
    match name {
        OutcomeName::Pass => Outcome::Pass,
        OutcomeName::Fail => Outcome::Fail,
        OutcomeName::Warn => Outcome::Warn,
        _ if crate::model::outcome_name(&last.outcome) == name => last.outcome.clone(),
        OutcomeName::NotApplicable => Outcome::NotApplicable {
            reason: String::new(),
        },
        OutcomeName::Blocked => Outcome::Blocked {
            by: String::new(),
            level: Level::Must,
        },
        OutcomeName::Error => Outcome::Error {
            blame: Blame::Target,
            message: String::new(),
        },
    }
}

/// The names transcripts use, as the static strings the model holds.
fn known(value: &str, names: &[&'static str]) -> Option<&'static str> {
    names.iter().copied().find(|n| *n == value)
}

/// A transcript file read back into lines.
fn transcript(path: &Path) -> Result<Vec<TranscriptLine>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let bad = |what: &str| format!("{}:{}: {what}", path.display(), n + 1);
        let rec: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let field = |k: &str| rec.get(k).and_then(Value::as_str);
        let dir = field("dir")
            .and_then(|d| known(d, &[">>", "<<", "!!", "--"]))
            .ok_or_else(|| bad("no known `dir`"))?;
        let transport = field("transport")
            .and_then(|t| known(t, &["stdio", "http", "sse"]))
            .ok_or_else(|| bad("no known `transport`"))?;
        let raw = match (field("raw"), field("raw_base64")) {
            (Some(text), _) => Some(text.as_bytes().to_vec()),
            (None, Some(b64)) => Some(crate::transcript::base64_decode(b64).map_err(|e| bad(&e))?),
            (None, None) => None,
        };
        lines.push(TranscriptLine {
            at_ms: rec.get("at_ms").and_then(Value::as_u64).unwrap_or(0),
            dir,
            text: field("text").unwrap_or_default().to_owned(),
            transport,
            raw,
        });
    }
    Ok(lines)
}

fn case(shard: &Shard, e: &CaseEntry) -> Result<CaseResult, String> {
    let findings: Vec<Finding> = e.findings.iter().map(finding).collect();
    let version: Version = e
        .version
        .parse()
        .map_err(|err| format!("{}: case {}: {err}", shard.dir.display(), e.id))?;
    let transcript = match &e.transcript {
        Some(rel) => transcript(&shard.dir.join(rel))?,
        None => Vec::new(),
    };
    Ok(CaseResult {
        id: e.id.clone(),
        scenario: e.scenario.clone(),
        title: e.title.clone(),
        version,
        level: level(e.level),
        requirements: e.requirements.clone(),
        outcome: outcome(e, &findings),
        findings,
        duration: Duration::from_millis(e.duration_ms),
        transcript,
    })
}

/// What `combine` wrote.
pub struct Combined {
    pub shards: usize,
    pub cases: usize,
    /// The exit code the combined run comes to.
    pub exit: Exit,
}

/// Joins the shards' report directories `dirs` into `out`.
pub fn combine(dirs: &[PathBuf], out: PathBuf) -> Result<Combined, String> {
    let shards: Vec<Shard> = dirs
        .iter()
        .map(|d| read_shard(d))
        .collect::<Result<_, _>>()?;
    if shards.is_empty() {
        return Err("no shard given".to_owned());
    }
    check(&shards)?;
    let first = &shards[0].report;
    let baseline = match &first.baseline {
        Some(b) => Some(Arc::new(Baseline {
            file: b.file.clone(),
            entries: b
                .entries
                .iter()
                .map(|e| {
                    let entry = Entry::new(e.pattern.clone(), e.reason.clone(), e.origin.clone())?;
                    if e.flaky {
                        entry.into_flaky()
                    } else {
                        Ok(entry)
                    }
                })
                .collect::<Result<_, _>>()?,
        })),
        None => None,
    };
    let mut dir = ReportDir::create(out, first.run.strict, baseline)?;
    dir.event(&Event::RunStarted {
        target: first.run.target.clone(),
        cases: shards.iter().map(|s| s.report.run.planned).sum(),
        jobs: shards.iter().map(|s| s.report.run.jobs).max().unwrap_or(1),
    });
    // The run started with its first shard (`RunStarted` said "now").
    if let Some(start) = shards
        .iter()
        .filter_map(|s| parse_rfc3339(&s.report.run.started_at))
        .min()
    {
        dir.log_mut().started_at = start;
    }
    // Every shard probed the same target; a version any shard found offered is.
    let mut probes: BTreeMap<&str, (bool, &str)> = BTreeMap::new();
    for p in shards.iter().flat_map(|s| &s.report.probes) {
        let e = probes
            .entry(p.version.as_str())
            .or_insert((p.supported, &p.detail));
        if p.supported && !e.0 {
            *e = (true, &p.detail);
        }
    }
    for (version, (supported, detail)) in probes {
        let version: Version = version.parse().map_err(|e| format!("a probe: {e}"))?;
        dir.event(&Event::Probe {
            version,
            supported,
            detail: detail.to_owned(),
        });
    }
    let mut entries: Vec<(&Shard, &CaseEntry)> = shards
        .iter()
        .flat_map(|s| s.report.results.iter().map(move |r| (s, r)))
        .collect();
    entries.sort_by(|a, b| a.1.id.cmp(&b.1.id));
    let mut summary = Summary::default();
    for (shard, entry) in &entries {
        let result = case(shard, entry)?;
        if !entry.attempts.is_empty() {
            // Earlier attempts keep only their outcome (what report.json says).
            let mut attempts: Vec<Outcome> =
                entry.attempts.iter().map(|a| bare(*a, &result)).collect();
            if let Some(last) = attempts.last_mut() {
                *last = result.outcome.clone();
            }
            dir.event(&Event::Retried {
                id: result.id.clone(),
                attempts,
            });
        }
        summary.add(&result.outcome);
        dir.event(&Event::CaseFinished(Box::new(result)));
    }
    if entries.is_empty() {
        summary.unavailable = shards.iter().find_map(|s| s.report.run.unavailable.clone());
    }
    if let Some(run) = shards
        .iter()
        .map(|s| &s.report.run)
        .find(|r| r.interrupted_by.is_some())
    {
        let exit = if run.exit_code == i32::from(Exit::Terminated) {
            Exit::Terminated
        } else {
            Exit::Interrupted
        };
        dir.event(&Event::Interrupted {
            reason: run.interrupted_by.clone().unwrap_or_default(),
            exit,
        });
    }
    let wall = shards
        .iter()
        .map(|s| s.report.run.wall_ms)
        .max()
        .unwrap_or(0);
    if shards
        .iter()
        .all(|s| s.report.complete || s.report.interrupted)
    {
        dir.event(&Event::RunFinished {
            summary,
            wall: Duration::from_millis(wall),
            strict: first.run.strict,
        });
    } else {
        // A shard was cut short: what it has, marked incomplete.
        dir.write_reports();
    }
    if !dir.errors.is_empty() {
        return Err(dir.errors.join("; "));
    }
    Ok(Combined {
        shards: shards.len(),
        cases: entries.len(),
        exit: dir.log_mut().exit_code(),
    })
}
