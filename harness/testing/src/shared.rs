//! What the trials of one suite share: the tokio runtime they block on and
//! the version probe, both made once, by the first trial that runs.
//!
//! ```text
//!  trial (libtest-mimic thread) ─► runtime() ──────── OnceLock<Runtime>
//!                               ─► offers()  ──────── OnceLock<version → Offer>
//!                                    (one handshake per version, in parallel;
//!                                     the other trials wait for it)
//!                               ─► before_run: ignored / failed without running?
//!                               ─► runtime.block_on(run_case) ─► judge
//! ```
//!
//! `Runtime::block_on` on a multi-threaded runtime may be called from many
//! threads at once: each case's future runs on its trial's thread, the
//! tasks it spawns (transport readers) on the runtime's workers. Nothing is
//! started for `--list`, and a filtered run probes only the versions of the
//! suite's own selection.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use libtest_mimic::{Completion, Failed};
use mcpspec_engine::Version;
use mcpspec_runner::case::run_case;
use mcpspec_runner::run::{probe_versions, Offer};
use mcpspec_runner::{Case, CaseConfig};
use tokio::runtime::Runtime;

use crate::verdict;

pub(crate) struct Shared {
    cfg: CaseConfig,
    /// The versions of the planned cases: what the probe asks about.
    versions: Vec<Version>,
    strict: bool,
    /// The opt-in extensions whose cases run.
    extensions: Vec<&'static str>,
    runtime: OnceLock<Result<Runtime, String>>,
    offers: OnceLock<BTreeMap<Version, Offer>>,
}

impl Shared {
    pub(crate) fn new(
        cfg: CaseConfig,
        versions: Vec<Version>,
        strict: bool,
        extensions: Vec<&'static str>,
    ) -> Shared {
        Shared {
            cfg,
            versions,
            strict,
            extensions,
            runtime: OnceLock::new(),
            offers: OnceLock::new(),
        }
    }

    /// Plays one case and judges it: the body of its trial.
    pub(crate) fn play(&self, case: &Case) -> Result<Completion, Failed> {
        let rt = self.runtime()?;
        let offers = self.offers.get_or_init(|| rt.block_on(self.probe_all()));
        let result = match verdict::before_run(case, offers, &self.extensions) {
            Some(skipped) => skipped,
            None => rt.block_on(run_case(case, &self.cfg)),
        };
        verdict::judge(&result, self.strict)
    }

    fn runtime(&self) -> Result<&Runtime, Failed> {
        let made = self.runtime.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .thread_name("mcpspec-testing")
                .build()
                .map_err(|e| format!("harness at fault: cannot start the tokio runtime: {e}"))
        });
        made.as_ref().map_err(Failed::from)
    }

    /// One handshake per version, all at once (a handful of short sessions).
    async fn probe_all(&self) -> BTreeMap<Version, Offer> {
        probe_versions(&self.versions, &self.cfg, self.versions.len()).await
    }
}
