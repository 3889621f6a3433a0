//! The requirement catalogue: every normative statement of the specification
//! that mcpspec checks, will check, or knowingly leaves out — paraphrased in
//! our own words and linked to the spec. It is the single source of truth: the
//! per-version data files `schema/requirements/<version>.json` and
//! `mcpspec list --requirements` / `mcpspec coverage` are generated from it.
//!
//! Ids are `area.topic.rule`, lowercase, stable forever (scenario files and
//! the engine refer to them; never rename one). Each entry is also a static
//! named after its id (`ping.respond` → `PING_RESPOND`), gathered in
//! [`ids`]: code names a requirement only that way, so the compiler checks
//! it, and a test in `harness/cli/tests/requirements.rs` fails on an id
//! written as a string literal outside this folder. Sections are relative to
//! `https://modelcontextprotocol.io/specification/<version>/`, except rules
//! MCP inherits from JSON-RPC 2.0 itself, which link jsonrpc.org absolutely.
//! Levels are the spec's own keywords; where mcpspec checks something the
//! spec states without a keyword (a schema constraint, a JSON-RPC rule), the
//! summary says so.
//!
//! ## Complete against the specification text
//!
//! Every bold RFC 2119 keyword (MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT,
//! SHOULD, SHOULD NOT, RECOMMENDED) on the non-authorization pages of each
//! version maps to at least one entry here; several sentences may share one.
//! The mapping is data, `schema/spec-keywords/<version>.yaml`: one item per
//! occurrence with its page, heading anchor, keyword, ordinal under that
//! heading, a 12-digit hash of its sentence (the sentence itself is never
//! stored) and the `entries` it maps to. `harness/engine/tests/spec_keywords.rs`
//! fails when an occurrence has no entry, names one that does not exist or
//! does not apply to that version, or maps to entries whose level is not the
//! keyword's (a sentence holding a MUST and a SHOULD needs entries of both).
//! Changelog sentences that only quote keywords map to `not-normative`.
//!
//! When the specification changes, regenerate the data against a checkout of
//! `github:modelcontextprotocol/modelcontextprotocol` (never in CI):
//!
//! ```text
//! python3 schema/spec-keywords/extract.py --repo <spec repo> update
//! python3 schema/spec-keywords/extract.py --repo <spec repo> show <version> --unmapped
//! ```
//!
//! `update` keeps every mapping whose sentence hash is unchanged (matching
//! across versions too) and leaves new or reworded sentences with `entries: []`;
//! `show` prints those sentences on the terminal. Read each, add or adjust the
//! entry it states (a new entry: id, level, versions, link to the page#anchor,
//! a paraphrase, `excluded` only with a reason a reviewer accepts), write its id
//! into the data file, then regenerate the requirement data
//! (`MCPSPEC_BLESS=1 cargo test -p mcpspec --test requirements`).
//!
//! One file per area of the specification:
//!
//! | file | area |
//! |---|---|
//! | [`base`] | JSON-RPC messages, ids, errors, batching, `_meta`, the schema |
//! | [`lifecycle`] | the initialize handshake, version negotiation, timeouts, shutdown |
//! | [`stateless`] | 2026-07-28: `server/discover`, per-request `_meta`, named errors, subscriptions |
//! | [`transports`] | stdio, Streamable HTTP, legacy HTTP+SSE |
//! | [`utilities`] | ping, cancellation, progress, pagination, logging, completion |
//! | [`server`] | tools, resources, prompts, content |
//! | [`client`] | roots, sampling, elicitation |
//! | [`authorization`] | authorization (HTTP): rules for both sides |
//! | [`auth_client`] | authorization (HTTP): the client's rules |
//! | [`auth_server`] | authorization (HTTP): the MCP server's and its authorization server's rules |
//! | [`tasks`] | 2025-11-25 tasks (experimental: the opt-in extension `tasks`) |
//! | [`fixture`] | the official conformance fixture's contract (a profile, not the spec) |

use crate::requirement::Requirement;

/// Builds a [`Requirement`]:
/// `req!(id, level, binds, since, until, section, summary [, not_in = &[..]] [, excluded = "reason"] [, profile = "name"] [, extension = "name"] [, moved = &[(version, "page#anchor"), ..]])`.
macro_rules! req {
    (@opt) => { None };
    (@opt $why:expr) => { Some($why) };
    ($id:literal, $level:expr, $binds:ident, $since:expr, $until:expr, $section:literal, $summary:literal
        $(, not_in = $not_in:expr)? $(, excluded = $why:expr)? $(, profile = $profile:expr)? $(, extension = $ext:expr)? $(, moved = $moved:expr)? $(,)?) => {
        $crate::requirement::Requirement {
            id: $id,
            level: $level,
            binds: $crate::requirement::Binds::$binds,
            summary: $summary,
            section: $section,
            since: $since,
            until: $until,
            not_in: req!(@not_in $($not_in)?),
            excluded: req!(@opt $($why)?),
            profile: req!(@opt $($profile)?),
            extension: req!(@opt $($ext)?),
            moved: req!(@not_in $($moved)?),
            authorization: $crate::catalogue::on_authorization_pages($section),
        }
    };
    (@not_in) => { &[] };
    (@not_in $not_in:expr) => { $not_in };
}

/// Declares an area's entries: `entries! { NAME = req!(...), ... }` makes
/// each a `pub static NAME: Requirement` in the area's `ids` module
/// (gathered for the whole catalogue in [`ids`]) and lists them, in order,
/// as the area's `ENTRIES`. NAME is the id in SCREAMING_SNAKE_CASE, `.` and
/// `-` both becoming `_`; a test generated with the area checks it.
macro_rules! entries {
    ($($name:ident = req!($id:literal, $level:expr, $binds:ident, $since:expr, $until:expr, $section:literal, $summary:literal
        $(, not_in = $not_in:expr)? $(, excluded = $why:expr)? $(, profile = $profile:expr)? $(, extension = $ext:expr)? $(, moved = $moved:expr)? $(,)?)),* $(,)?) => {
        /// The area's requirements, one static each, named after its id.
        pub mod ids {
            use super::*;
            $(
                #[doc = concat!("`", $id, "`: ", $summary)]
                pub static $name: $crate::requirement::Requirement = req!(
                    $id, $level, $binds, $since, $until, $section, $summary
                    $(, not_in = $not_in)? $(, excluded = $why)? $(, profile = $profile)? $(, extension = $ext)? $(, moved = $moved)?
                );
            )*
        }

        /// The area's requirements, in reading order.
        pub static ENTRIES: &[&$crate::requirement::Requirement] = &[$(&ids::$name),*];

        #[cfg(test)]
        mod named {
            #[test]
            fn each_static_is_named_after_its_id() {
                for (name, r) in [$((stringify!($name), &super::ids::$name)),*] {
                    assert_eq!(name, $crate::catalogue::static_name(r.id), "{}", r.id);
                }
            }
        }
    };
}

pub mod auth_client;
pub mod auth_server;
pub mod authorization;
pub mod base;
pub mod client;
pub mod fixture;
pub mod lifecycle;
pub mod server;
pub mod stateless;
pub mod tasks;
pub mod transports;
pub mod utilities;

/// Every catalogued requirement as a named static, flat: code names a
/// requirement as `&ids::STDIO_STDOUT_ONLY_MCP` (or `ids::X.id` where a
/// `&str` is wanted), never by a string literal, so the compiler checks each
/// reference against the catalogue. Ids that come from data (scenario files,
/// baselines, reports) go through [`crate::lookup`].
pub mod ids {
    pub use super::auth_client::ids::*;
    pub use super::auth_server::ids::*;
    pub use super::authorization::ids::*;
    pub use super::base::ids::*;
    pub use super::client::ids::*;
    pub use super::fixture::ids::*;
    pub use super::lifecycle::ids::*;
    pub use super::server::ids::*;
    pub use super::stateless::ids::*;
    pub use super::tasks::ids::*;
    pub use super::transports::ids::*;
    pub use super::utilities::ids::*;
}

/// Whether a section lies on the authorization pages (`basic/authorization`,
/// and from 2026-07-28 its sub-pages): such a requirement is
/// [`Requirement::authorization`], counted apart from the core totals.
pub const fn on_authorization_pages(section: &str) -> bool {
    let (s, p) = (section.as_bytes(), b"basic/authorization");
    if s.len() < p.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if s[i] != p[i] {
            return false;
        }
        i += 1;
    }
    s.len() == p.len() || s[i] == b'#' || s[i] == b'/'
}

/// The name of a requirement's static in [`ids`]: the id in
/// SCREAMING_SNAKE_CASE, `.` and `-` both becoming `_`.
pub fn static_name(id: &str) -> String {
    id.chars()
        .map(|c| match c {
            '.' | '-' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect()
}

/// Reasons shared by many excluded entries.
pub(crate) mod why {
    pub const UI: &str =
        "a user-interface or user-consent concern of the host application, not wire behaviour";
    pub const INTERNAL: &str =
        "not observable over the wire: it concerns what an implementation does internally";
    pub const WORDING: &str = "a matter of wording or content quality that a harness cannot decide";
    pub const SCHEMA_READING: &str = "how a peer reads a schema it receives shows in no message: the spec names no message for the error about an unsupported dialect, and validating against a schema happens inside the peer; what is on the wire is judged instead (every schema a peer sends is valid under its dialect: schema.json-schema.valid; clients leave network $refs unfetched: schema.ref.no-network-dereference)";
    pub const CLIENT_CACHE: &str = "internal to the client: a response served from its cache never crosses the wire, so a wrong cache hit looks exactly like a client that did not need to ask";
    pub const CUSTOM_TRANSPORT: &str = "custom transports are outside what mcpspec can run";
}

/// One area of the specification and its entries.
#[derive(Debug)]
pub struct Area {
    /// Short key, e.g. `utilities`.
    pub key: &'static str,
    /// Heading for listings.
    pub title: &'static str,
    pub entries: &'static [&'static Requirement],
}

/// Every area, in reading order of the specification.
pub static AREAS: &[Area] = &[
    Area {
        key: "base",
        title: "Base protocol: JSON-RPC messages, ids, errors, batching, _meta",
        entries: base::ENTRIES,
    },
    Area {
        key: "lifecycle",
        title: "Lifecycle: initialize handshake, version negotiation, timeouts, shutdown",
        entries: lifecycle::ENTRIES,
    },
    Area {
        key: "stateless",
        title: "Stateless protocol (2026-07-28): server/discover, per-request _meta, named errors",
        entries: stateless::ENTRIES,
    },
    Area {
        key: "transports",
        title: "Transports: stdio, Streamable HTTP, legacy HTTP+SSE",
        entries: transports::ENTRIES,
    },
    Area {
        key: "utilities",
        title: "Utilities: ping, cancellation, progress, pagination, logging, completion",
        entries: utilities::ENTRIES,
    },
    Area {
        key: "server",
        title: "Server features: tools, resources, prompts, content",
        entries: server::ENTRIES,
    },
    Area {
        key: "client",
        title: "Client features: roots, sampling, elicitation",
        entries: client::ENTRIES,
    },
    Area {
        key: "tasks",
        title: "Tasks (extension `tasks`, opt-in): task-augmented requests, experimental at 2025-11-25",
        entries: tasks::ENTRIES,
    },
    Area {
        key: "fixture",
        title: "Fixture profile: the official conformance suite's fixture server (not specification rules)",
        entries: fixture::ENTRIES,
    },
    Area {
        key: "authorization",
        title: "Authorization (HTTP): rules for both sides",
        entries: authorization::ENTRIES,
    },
    Area {
        key: "auth-client",
        title: "Authorization (HTTP): clients",
        entries: auth_client::ENTRIES,
    },
    Area {
        key: "auth-server",
        title: "Authorization (HTTP): servers and their authorization servers",
        entries: auth_server::ENTRIES,
    },
];

/// Every requirement, area by area.
pub fn all() -> impl Iterator<Item = &'static Requirement> {
    AREAS.iter().flat_map(|a| a.entries.iter().copied())
}

/// The area an entry belongs to.
pub fn area_of(id: &str) -> Option<&'static Area> {
    AREAS.iter().find(|a| a.entries.iter().any(|r| r.id == id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Level;
    use crate::version::Version;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for r in all() {
            assert!(seen.insert(r.id), "duplicate requirement id {}", r.id);
            let segments: Vec<&str> = r.id.split('.').collect();
            assert!(
                segments.len() >= 2
                    && segments.iter().all(|s| {
                        !s.is_empty()
                            && !s.starts_with('-')
                            && !s.ends_with('-')
                            && s.chars()
                                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    }),
                "malformed id {}",
                r.id
            );
            assert!(
                !r.summary.is_empty() && !r.section.is_empty(),
                "{} lacks text",
                r.id
            );
            assert!(
                !r.section.starts_with('/') && !r.section.contains(' '),
                "{}: section {:?} is not a relative page#anchor",
                r.id,
                r.section
            );
        }
        assert!(seen.len() >= 200, "only {} requirements", seen.len());
    }

    #[test]
    fn static_names_are_unique() {
        let mut seen = HashSet::new();
        for r in all() {
            assert!(seen.insert(static_name(r.id)), "{} collides", r.id);
        }
    }

    #[test]
    fn every_range_is_non_empty() {
        for r in all() {
            assert!(
                r.until.is_none_or(|u| u >= r.since),
                "{} ends before it starts",
                r.id
            );
            assert!(
                r.versions().next().is_some(),
                "{} applies to no version",
                r.id
            );
            assert!(
                r.not_in
                    .iter()
                    .all(|v| *v > r.since && r.until.is_none_or(|u| *v < u)),
                "{}: not_in must lie strictly inside the range",
                r.id
            );
        }
    }

    #[test]
    fn every_exclusion_has_a_reason() {
        for r in all() {
            if let Some(why) = r.excluded {
                assert!(
                    why.len() >= 20,
                    "{}: exclusion reason {why:?} is too thin",
                    r.id
                );
            }
        }
    }

    #[test]
    fn every_version_has_a_realistic_catalogue() {
        for v in Version::ALL {
            let musts = all()
                .filter(|r| r.applies_to(v) && r.level == Level::Must && r.excluded.is_none())
                .count();
            assert!(musts >= 40, "{v}: only {musts} checkable MUSTs");
        }
    }

    #[test]
    fn areas_are_non_empty_and_keys_unique() {
        let mut keys = HashSet::new();
        for a in AREAS {
            assert!(keys.insert(a.key), "duplicate area {}", a.key);
            assert!(!a.entries.is_empty(), "area {} is empty", a.key);
        }
        assert_eq!(area_of("ping.respond").map(|a| a.key), Some("utilities"));
    }

    #[test]
    fn authorization_entries_are_exactly_those_of_the_authorization_pages() {
        for a in AREAS {
            let auth_area = matches!(a.key, "authorization" | "auth-client" | "auth-server");
            for r in a.entries.iter() {
                assert_eq!(r.authorization, auth_area, "{} in {}", r.id, a.key);
                assert!(
                    r.moved
                        .iter()
                        .all(|(_, s)| on_authorization_pages(s) == auth_area),
                    "{} moves off its pages",
                    r.id
                );
            }
        }
        assert!(on_authorization_pages("basic/authorization"));
        assert!(on_authorization_pages("basic/authorization#overview"));
        assert!(on_authorization_pages(
            "basic/authorization/client-registration#pre-registration"
        ));
        assert!(!on_authorization_pages("basic/authorizations#x"));
        assert!(!on_authorization_pages("basic/transports#security-warning"));
    }

    #[test]
    fn moves_lie_inside_the_range_in_order() {
        for r in all() {
            let mut last = r.since;
            for (v, section) in r.moved {
                assert!(
                    *v > last && r.applies_to(*v),
                    "{}: move to {section} at {v} is out of order or out of range",
                    r.id
                );
                assert!(
                    !section.starts_with('/') && !section.contains(' '),
                    "{}",
                    r.id
                );
                last = *v;
            }
        }
    }

    #[test]
    fn a_moved_rule_links_each_version_to_its_own_page() {
        let pkce = &ids::AUTH_PKCE;
        assert!(pkce
            .url(Version::V2025_03_26)
            .ends_with("/2025-03-26/basic/authorization#implementation-requirements"));
        assert!(pkce
            .url(Version::V2025_11_25)
            .ends_with("/2025-11-25/basic/authorization#authorization-code-protection"));
        assert!(pkce.url(Version::V2026_07_28).ends_with(
            "/2026-07-28/basic/authorization/security-considerations#authorization-code-protection"
        ));
    }

    #[test]
    fn removed_methods_end_before_the_stateless_version() {
        // 2026-07-28 has no initialize, ping, logging/setLevel or resources/subscribe.
        for id in [
            "lifecycle.initialize.result-shape",
            "lifecycle.version.same-version",
            "lifecycle.server.no-requests-before-initialized",
            "ping.respond",
            "logging.set-level.result",
            "resources.subscribe.result",
            "cancellation.initialize-not-cancelled",
        ] {
            let r = crate::lookup(id).expect("catalogued");
            assert_eq!(r.until, Some(Version::V2025_11_25), "{id}");
        }
        for id in [
            "stateless.discover.implemented",
            "stateless.version.unsupported",
        ] {
            let r = crate::lookup(id).expect("catalogued");
            assert_eq!(
                r.versions().collect::<Vec<_>>(),
                [Version::V2026_07_28],
                "{id}"
            );
        }
    }
}
