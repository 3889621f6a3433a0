//! [`RunLog`]: everything the event stream said about a run, kept for the
//! reporters that write once (report.json, JUnit, Markdown, HTML).
//!
//! It also applies the baseline as cases finish, so every report judges a
//! case the same way.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcpspec_engine::Version;
use mcpspec_model::{CaseResult, Event, Exit, Outcome, Summary, TranscriptLine};

use crate::baseline::{Baseline, Expectation, Tally};

/// What the probe said about one version.
#[derive(Debug, Clone)]
pub struct ProbeRecord {
    pub version: Version,
    pub supported: bool,
    pub detail: String,
}

/// A finished case and the baseline's judgement of it.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The result, its transcript cut to what the reports built from the
    /// log show ([`RunLog::observe`]).
    pub result: CaseResult,
    /// How many lines the whole transcript had.
    pub transcript_lines: usize,
    pub expectation: Option<Expectation>,
    /// Every attempt's outcome when the case ran more than once
    /// (`--retries`), the last being `result`'s; empty when it ran once.
    pub attempts: Vec<Outcome>,
}

impl Judged {
    /// A flaky case that passed every one of two or more attempts: its
    /// entry is a candidate to remove.
    pub fn steady(&self) -> bool {
        matches!(self.expectation, Some(Expectation::Flaky(_)))
            && self.attempts.len() > 1
            && self.attempts.iter().all(|o| *o == Outcome::Pass)
    }

    /// `fail, pass`: the attempts, when there were several.
    pub fn attempts_text(&self) -> String {
        self.attempts
            .iter()
            .map(Outcome::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Debug)]
pub struct RunLog {
    pub target: String,
    pub jobs: usize,
    /// Cases planned (`RunStarted`).
    pub planned: usize,
    pub started_at: SystemTime,
    started: Instant,
    pub probes: Vec<ProbeRecord>,
    /// Finished cases, in the order they finished, each transcript cut to
    /// the excerpt a JUnit failure shows (without raw bytes): a run's whole
    /// transcripts are never held here (issue #18). Whoever needs them
    /// takes them from the `CaseFinished` event, as `ReportDir` does.
    pub cases: Vec<Judged>,
    /// Totals so far (final once `finished`).
    pub summary: Summary,
    pub tally: Tally,
    pub strict: bool,
    pub baseline: Option<Arc<Baseline>>,
    /// Wall time, once `RunFinished` arrived.
    pub wall: Option<Duration>,
    /// Why the run was stopped early (`Interrupted`), and its exit code.
    pub interrupted: Option<(String, Exit)>,
    /// The shard this run is (`--partition`), as given.
    pub partition: Option<String>,
    /// Attempts announced by `Retried`, until their case finishes.
    retried: std::collections::HashMap<String, Vec<Outcome>>,
}

impl RunLog {
    /// `strict` as configured: a report written before `RunFinished`
    /// still knows it.
    pub fn new(strict: bool, baseline: Option<Arc<Baseline>>) -> Self {
        RunLog {
            target: String::new(),
            jobs: 0,
            planned: 0,
            started_at: SystemTime::now(),
            started: Instant::now(),
            probes: Vec::new(),
            cases: Vec::new(),
            summary: Summary::default(),
            tally: Tally::default(),
            strict,
            baseline,
            wall: None,
            interrupted: None,
            partition: None,
            retried: Default::default(),
        }
    }

    /// Records one event.
    pub fn observe(&mut self, event: &Event) {
        match event {
            Event::RunStarted {
                target,
                cases,
                jobs,
            } => {
                self.target.clone_from(target);
                self.planned = *cases;
                self.jobs = *jobs;
                self.started_at = SystemTime::now();
                self.started = Instant::now();
            }
            Event::Probe {
                version,
                supported,
                detail,
            } => self.probes.push(ProbeRecord {
                version: *version,
                supported: *supported,
                detail: detail.clone(),
            }),
            Event::CaseStarted { .. } => {}
            Event::Retried { id, attempts } => {
                self.retried.insert(id.clone(), attempts.clone());
            }
            Event::CaseFinished(r) => {
                let expectation = self.baseline.as_ref().and_then(|b| b.judge(r));
                self.summary.add(&r.outcome);
                self.tally.add(r, expectation);
                // The transcript is for the files written as the case
                // finishes: only the excerpt JUnit may show is kept, and
                // no frame bytes.
                let keep = if crate::junit::may_show_excerpt(&r.outcome, expectation) {
                    crate::junit::EXCERPT_LINES
                } else {
                    0
                };
                let from = r.transcript.len().saturating_sub(keep);
                let mut result = CaseResult {
                    id: r.id.clone(),
                    scenario: r.scenario.clone(),
                    title: r.title.clone(),
                    version: r.version,
                    level: r.level,
                    requirements: r.requirements.clone(),
                    outcome: r.outcome.clone(),
                    findings: r.findings.clone(),
                    duration: r.duration,
                    transcript: r.transcript[from..]
                        .iter()
                        .map(|l| TranscriptLine {
                            raw: None,
                            text: l.text.clone(),
                            ..*l
                        })
                        .collect(),
                };
                // The same finding twice in one case is reported once.
                crate::rollup::dedup_case(&mut result);
                let attempts = self.retried.remove(&result.id).unwrap_or_default();
                self.cases.push(Judged {
                    result,
                    transcript_lines: r.transcript.len(),
                    expectation,
                    attempts,
                });
            }
            Event::Interrupted { reason, exit } => {
                self.interrupted = Some((reason.clone(), *exit));
            }
            Event::RunFinished {
                summary,
                wall,
                strict,
            } => {
                self.summary = summary.clone();
                self.wall = Some(*wall);
                self.strict = *strict;
            }
        }
    }

    /// Whether every planned case ran: the run finished, uninterrupted.
    pub fn complete(&self) -> bool {
        self.wall.is_some() && self.interrupted.is_none()
    }

    /// The wall time: final, or so far.
    pub fn wall(&self) -> Duration {
        self.wall.unwrap_or_else(|| self.started.elapsed())
    }

    /// The exit code the run comes to, baseline applied; an interrupted
    /// run's own ([`Exit::Interrupted`] for SIGINT).
    pub fn exit_code(&self) -> Exit {
        match &self.interrupted {
            Some((_, code)) => *code,
            None => self.tally.exit_code(&self.summary, self.strict),
        }
    }

    /// The cases sorted by id.
    pub fn sorted(&self) -> Vec<&Judged> {
        let mut v: Vec<&Judged> = self.cases.iter().collect();
        v.sort_by(|a, b| a.result.id.cmp(&b.result.id));
        v
    }

    /// The baseline entry behind an expectation.
    pub fn entry(&self, e: Expectation) -> Option<&crate::baseline::Entry> {
        self.baseline.as_ref()?.entries.get(e.entry())
    }
}

/// `2026-11-22T10:08:38Z` (UTC, whole seconds).
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days → civil date.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The inverse of [`rfc3339`] (whole seconds, `Z`); `None` for other text.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let b = text.as_bytes();
    let shape = b.len() == 20
        && [4, 7].iter().all(|&i| b[i] == b'-')
        && b[10] == b'T'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && b[19] == b'Z';
    if !shape {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, m, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    // Howard Hinnant's civil date → days.
    let y = year - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = u64::try_from(days * 86_400 + h * 3600 + m * 60 + s).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_read_back() {
        for secs in [0, 951_782_400, 1_700_000_000, 1_795_000_000, 4_102_444_800] {
            let t = UNIX_EPOCH + Duration::from_secs(secs);
            assert_eq!(parse_rfc3339(&rfc3339(t)), Some(t), "{secs}");
        }
        assert_eq!(parse_rfc3339("2026-11-24 10:00:00Z"), None);
        assert_eq!(parse_rfc3339("2026-13-24T10:00:00Z"), None);
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_342_118);
        assert_eq!(rfc3339(t), "2026-11-22T10:08:38Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_825_600);
        assert_eq!(rfc3339(leap), "2000-02-29T12:00:00Z");
    }
}
