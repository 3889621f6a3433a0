//! Requirements: the normative statements of the specification that mcpspec
//! checks, each with a stable id, a level, the role it binds, a paraphrase and
//! a link into the specification of every version it applies to.
//!
//! The entries themselves live in [`crate::catalogue`], each also a named
//! static in [`crate::ids`] (how code refers to one); ids are stable forever
//! (scenario files and expected-failure baselines refer to them). A failure
//! always names a requirement, so a user can read the rule that was broken.
//!
//! Every requirement is in one of three states for a version it applies to:
//! *excluded* (mcpspec knowingly leaves it out, [`Requirement::excluded`] says
//! why), *covered* (a scenario names it, or the oracle checks it on every
//! message: `mcpspec_oracle::ORACLE`), or *not yet covered* (neither).

use crate::level::Level;
use crate::version::Version;

/// Which side a requirement binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binds {
    Server,
    Client,
    /// Either sender (e.g. JSON-RPC framing rules).
    Both,
}

impl Binds {
    pub fn as_str(self) -> &'static str {
        match self {
            Binds::Server => "server",
            Binds::Client => "client",
            Binds::Both => "both",
        }
    }
}

/// One normative statement of the specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requirement {
    /// Stable dotted id, e.g. `lifecycle.version-negotiation.same-version`.
    pub id: &'static str,
    pub level: Level,
    pub binds: Binds,
    /// The statement in our own words (never the spec's text).
    pub summary: &'static str,
    /// Page and anchor below a version's specification root, e.g.
    /// `basic/lifecycle#version-negotiation`; or an absolute `https://` link
    /// for rules inherited from another specification.
    pub section: &'static str,
    /// First version the statement appears in.
    pub since: Version,
    /// Last version it appears in (`None`: still current).
    pub until: Option<Version>,
    /// Versions between `since` and `until` that lack the statement (JSON-RPC
    /// batches exist in 2025-03-26 alone, so "no batches" skips it). Usually empty.
    pub not_in: &'static [Version],
    /// Why mcpspec knowingly does not check this statement (it is only a UI
    /// concern, it is not observable over the wire, it needs a user's
    /// login…). `None`: checked, or not yet covered.
    pub excluded: Option<&'static str>,
    /// `Some(name)`: a rule of a test profile, not of the specification —
    /// `fixture`, the contract of the official conformance suite's fixture
    /// server (what its named tools, prompts and resources return). Judged
    /// when a target exposes those names, reported like any rule, and never
    /// counted in a coverage total (the specification does not say it).
    pub profile: Option<&'static str>,
    /// `Some(name)`: a rule of an opt-in extension ([`crate::extension`]),
    /// e.g. `tasks` — the experimental tasks of 2025-11-25, which the
    /// specification marks experimental. Judged only by scenarios of that
    /// extension, which run when the user asks for it, and counted apart
    /// from the core coverage totals.
    pub extension: Option<&'static str>,
    /// Where the statement moved to in later versions: `(version, section)`
    /// pairs, oldest first; from `version` on the link is `section` (the
    /// authorization page split into sub-pages at 2026-07-28). Usually empty.
    pub moved: &'static [(Version, &'static str)],
    /// A rule of the authorization pages (OAuth over HTTP transports): set
    /// from the section ([`crate::catalogue::on_authorization_pages`]).
    /// Counted apart from the core coverage totals, in a block of its own.
    pub authorization: bool,
}

impl Requirement {
    /// The specification link for `version` (or for the newest version the
    /// requirement applies to, when it does not apply to `version`).
    pub fn url(&self, version: Version) -> String {
        if self.section.starts_with("https://") {
            // A rule MCP inherits from another specification (JSON-RPC 2.0).
            return self.section.to_owned();
        }
        let v = if self.applies_to(version) {
            version
        } else {
            self.versions().last().unwrap_or(self.since)
        };
        format!("{}/{}", v.spec_base(), self.section_in(v))
    }

    /// The section (page#anchor) that states the rule in `version`.
    pub fn section_in(&self, version: Version) -> &'static str {
        self.moved
            .iter()
            .rev()
            .find(|(from, _)| version >= *from)
            .map_or(self.section, |(_, s)| s)
    }

    /// Whether the statement is part of `version`'s specification.
    pub fn applies_to(&self, version: Version) -> bool {
        version >= self.since
            && self.until.is_none_or(|u| version <= u)
            && !self.not_in.contains(&version)
    }

    /// The versions the statement is part of, oldest first.
    pub fn versions(&self) -> impl Iterator<Item = Version> + '_ {
        Version::ALL.into_iter().filter(|v| self.applies_to(*v))
    }
}

/// Looks up a requirement by an id read from data (a scenario file, a
/// baseline, a report). Code names a requirement through [`crate::ids`].
pub fn lookup(id: &str) -> Option<&'static Requirement> {
    crate::catalogue::all().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_per_version_unless_absolute() {
        let r = lookup("ping.respond").expect("catalogued");
        assert_eq!(
            r.url(Version::V2025_06_18),
            "https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping#behavior-requirements"
        );
        let r = lookup("jsonrpc.error.method-not-found").expect("catalogued");
        assert!(r
            .url(Version::V2025_06_18)
            .starts_with("https://www.jsonrpc.org/"));
    }

    #[test]
    fn a_gap_in_the_range_is_respected() {
        let r = lookup("jsonrpc.batch.absent").expect("catalogued");
        assert!(r.applies_to(Version::V2024_11_05));
        assert!(!r.applies_to(Version::V2025_03_26));
        assert!(r.applies_to(Version::V2026_07_28));
        // Outside its versions a link points at the newest version that has it.
        let ping = lookup("ping.respond").expect("catalogued");
        assert!(!ping.applies_to(Version::V2026_07_28));
        assert!(ping.url(Version::V2026_07_28).contains("/2025-11-25/"));
    }
}
