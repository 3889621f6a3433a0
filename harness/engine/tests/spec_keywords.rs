//! The honest denominator: every bold RFC 2119 keyword on the pages of each
//! specification version maps to catalogue entries that exist, apply to that
//! version and carry the keyword's level; a keyword of the authorization
//! pages maps to authorization entries (which coverage counts apart), though
//! other pages may restate an authorization rule.
//!
//! The data is `schema/spec-keywords/<version>.yaml`, generated from the
//! specification repository by `schema/spec-keywords/extract.py` (which also
//! keeps the hand-written `entries` across regenerations); see the catalogue's
//! module doc. This test reads the committed data only, never the spec.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use mcpspec_engine::{lookup, Level, Version};

/// One bold keyword of the specification, as the data file records it.
#[derive(Debug, Clone, Default)]
struct Occurrence {
    page: String,
    anchor: String,
    keyword: String,
    ordinal: u32,
    hash: String,
    entries: Vec<String>,
}

/// Reads the data file's YAML: a list of flat maps, exactly as
/// `extract.py` writes it (no YAML library in the workspace for so little).
fn parse(text: &str) -> Result<Vec<Occurrence>, String> {
    let mut out: Vec<Occurrence> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let body = if let Some(rest) = line.strip_prefix("- ") {
            out.push(Occurrence::default());
            rest
        } else if let Some(rest) = line.strip_prefix("  ") {
            rest
        } else {
            return Err(format!("line {}: unexpected {line:?}", n + 1));
        };
        let cur = out
            .last_mut()
            .ok_or_else(|| format!("line {}: field before the first item", n + 1))?;
        let (key, value) = body.split_once(':').unwrap_or((body, ""));
        let value = value.trim().trim_matches('"');
        match key {
            "page" => cur.page = value.to_owned(),
            "anchor" => cur.anchor = value.to_owned(),
            "keyword" => cur.keyword = value.to_owned(),
            "ordinal" => {
                cur.ordinal = value
                    .parse()
                    .map_err(|_| format!("line {}: ordinal {value:?}", n + 1))?
            }
            "hash" => cur.hash = value.to_owned(),
            "entries" => {
                let inner = value
                    .strip_prefix('[')
                    .and_then(|v| v.strip_suffix(']'))
                    .ok_or_else(|| format!("line {}: entries must be a [list]", n + 1))?;
                cur.entries = inner
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
            }
            other => return Err(format!("line {}: unknown field {other:?}", n + 1)),
        }
    }
    Ok(out)
}

/// The `entries` of a keyword that a changelog quotes rather than states.
const NOT_NORMATIVE: &str = "not-normative";

/// Sentences outside a changelog that quote keywords rather than state a
/// rule, by page and hash. 2026-07-28's authorization page says a future
/// revision will raise the authorization server's `iss` from SHOULD to MUST;
/// the rule itself is `auth.issuer.iss-parameter`.
const QUOTED: &[(&str, &str)] = &[("basic/authorization", "814ce8f677d5")];

/// The level a bold keyword states.
fn level_of(keyword: &str) -> Option<Level> {
    match keyword {
        "MUST" | "MUST NOT" | "REQUIRED" | "SHALL" | "SHALL NOT" => Some(Level::Must),
        "SHOULD" | "SHOULD NOT" | "RECOMMENDED" => Some(Level::Should),
        _ => None,
    }
}

/// Every problem with one version's mapping; empty when it is sound.
fn problems(version: Version, occurrences: &[Occurrence]) -> Vec<String> {
    let mut out = Vec::new();
    // Keywords of one sentence (same page, heading and hash) share their entries,
    // so a sentence with a MUST and a SHOULD maps to entries of both levels.
    let mut sentence_levels: BTreeMap<(&str, &str, &str), BTreeSet<Level>> = BTreeMap::new();
    let mut positions = BTreeSet::new();
    for o in occurrences {
        let here = format!(
            "{version} {}#{} {} {}",
            o.page, o.anchor, o.keyword, o.ordinal
        );
        if !positions.insert((&o.page, &o.anchor, &o.keyword, o.ordinal)) {
            out.push(format!("{here}: listed twice"));
        }
        match level_of(&o.keyword) {
            Some(l) => {
                sentence_levels
                    .entry((&o.page, &o.anchor, &o.hash))
                    .or_default()
                    .insert(l);
            }
            None => out.push(format!(
                "{here}: {:?} is not a bold RFC 2119 keyword",
                o.keyword
            )),
        }
    }
    for o in occurrences {
        let here = format!(
            "{version} {}#{} {} {}",
            o.page, o.anchor, o.keyword, o.ordinal
        );
        let Some(level) = level_of(&o.keyword) else {
            continue;
        };
        if o.entries.is_empty() {
            out.push(format!("{here}: no catalogue entry (hash {})", o.hash));
            continue;
        }
        if o.entries == [NOT_NORMATIVE] {
            // A changelog quoting keywords ("change SHOULD to MUST") states no rule;
            // the rule itself is mapped where the page states it.
            if o.page != "changelog" && !QUOTED.contains(&(o.page.as_str(), o.hash.as_str())) {
                out.push(format!(
                    "{here}: only a changelog may quote keywords ({NOT_NORMATIVE})"
                ));
            }
            continue;
        }
        let allowed = &sentence_levels[&(o.page.as_str(), o.anchor.as_str(), o.hash.as_str())];
        let mut matched = false;
        for id in &o.entries {
            let Some(r) = lookup(id) else {
                out.push(format!("{here}: {id} is not in the catalogue"));
                continue;
            };
            // (Other pages may restate an authorization rule: `basic#auth`, a changelog.)
            if o.page.starts_with("basic/authorization") && !r.authorization {
                out.push(format!(
                    "{here}: {id} is not an authorization entry, on an authorization page"
                ));
            }
            if !r.applies_to(version) {
                out.push(format!("{here}: {id} does not apply to {version}"));
            }
            if !allowed.contains(&r.level) {
                out.push(format!(
                    "{here}: {id} is a {} entry, the sentence says {}",
                    r.level.keyword(),
                    o.keyword
                ));
            }
            matched |= r.level == level;
        }
        if !matched {
            out.push(format!(
                "{here}: no entry of level {} among {:?}",
                level.keyword(),
                o.entries
            ));
        }
    }
    out
}

fn data_file(version: Version) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../schema/spec-keywords")
        .join(format!("{version}.yaml"))
}

#[test]
fn every_bold_keyword_maps_to_a_fitting_entry() {
    let mut all = Vec::new();
    for version in Version::ALL {
        let path = data_file(version);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let occurrences = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            occurrences.len() >= 50,
            "{}: only {} keywords; regenerate it (see the catalogue's module doc)",
            path.display(),
            occurrences.len()
        );
        let auth = occurrences
            .iter()
            .filter(|o| o.page.starts_with("basic/authorization"))
            .count();
        assert!(
            (version >= Version::V2025_03_26) == (auth >= 30),
            "{}: {auth} keywords on the authorization pages; regenerate it",
            path.display()
        );
        all.extend(problems(version, &occurrences));
    }
    assert!(
        all.is_empty(),
        "{} problems:\n{}",
        all.len(),
        all.join("\n")
    );
}

fn occurrence(keyword: &str, hash: &str, entries: &[&str]) -> Occurrence {
    Occurrence {
        page: "basic".into(),
        anchor: "requests".into(),
        keyword: keyword.into(),
        ordinal: 1,
        hash: hash.into(),
        entries: entries.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn a_sound_mapping_passes() {
    let ok = [occurrence("MUST", "a", &["jsonrpc.request.id-type"])];
    assert_eq!(problems(Version::V2025_06_18, &ok), Vec::<String>::new());
}

#[test]
fn an_unmapped_keyword_fails() {
    let p = problems(Version::V2025_06_18, &[occurrence("MUST", "a", &[])]);
    assert!(p[0].contains("no catalogue entry"), "{p:?}");
}

#[test]
fn an_unknown_entry_fails() {
    let p = problems(
        Version::V2025_06_18,
        &[occurrence("MUST", "a", &["no.such.entry"])],
    );
    assert!(
        p.iter().any(|p| p.contains("not in the catalogue")),
        "{p:?}"
    );
}

#[test]
fn a_level_mismatch_fails() {
    // A MUST sentence mapped to a MAY entry, and a SHOULD sentence to a MUST entry.
    let p = problems(
        Version::V2025_06_18,
        &[occurrence("MUST", "a", &["progress.optional"])],
    );
    assert!(p.iter().any(|p| p.contains("is a MAY entry")), "{p:?}");
    let p = problems(
        Version::V2025_06_18,
        &[occurrence("SHOULD", "b", &["jsonrpc.request.id-type"])],
    );
    assert!(p.iter().any(|p| p.contains("is a MUST entry")), "{p:?}");
}

#[test]
fn only_a_changelog_may_quote_keywords() {
    let mut quoted = occurrence("SHOULD", "q", &[NOT_NORMATIVE]);
    assert!(!problems(Version::V2025_06_18, std::slice::from_ref(&quoted)).is_empty());
    quoted.page = "changelog".into();
    assert!(problems(Version::V2025_06_18, &[quoted]).is_empty());
}

#[test]
fn authorization_pages_map_to_authorization_entries_only() {
    let mut o = occurrence("MUST", "p", &["auth.pkce"]);
    o.page = "basic/authorization".into();
    assert!(problems(Version::V2025_06_18, std::slice::from_ref(&o)).is_empty());
    o.entries = vec!["jsonrpc.request.id-type".into()];
    let p = problems(Version::V2025_06_18, &[o]);
    assert!(
        p.iter()
            .any(|p| p.contains("is not an authorization entry")),
        "{p:?}"
    );
}

#[test]
fn a_listed_quote_outside_a_changelog_is_not_normative() {
    let mut quoted = occurrence("MUST", "814ce8f677d5", &[NOT_NORMATIVE]);
    quoted.page = "basic/authorization".into();
    assert!(problems(Version::V2026_07_28, std::slice::from_ref(&quoted)).is_empty());
    quoted.hash = "000000000000".into();
    assert!(!problems(Version::V2026_07_28, &[quoted]).is_empty());
}

#[test]
fn a_version_mismatch_fails() {
    // ping is gone in 2026-07-28.
    let p = problems(
        Version::V2026_07_28,
        &[occurrence("MUST", "a", &["ping.respond"])],
    );
    assert!(
        p.iter().any(|p| p.contains("does not apply to 2026-07-28")),
        "{p:?}"
    );
}

#[test]
fn a_mixed_sentence_needs_entries_of_both_levels() {
    let mut should = occurrence("SHOULD", "m", &["jsonrpc.request.id-type"]);
    should.keyword = "SHOULD".into();
    let must = occurrence("MUST", "m", &["jsonrpc.request.id-type"]);
    let mut must2 = must.clone();
    must2.keyword = "MUST NOT".into();
    let p = problems(Version::V2025_06_18, &[must, should]);
    assert!(
        p.iter().any(|p| p.contains("no entry of level SHOULD")),
        "{p:?}"
    );
    assert!(problems(Version::V2025_06_18, &[must2]).is_empty());
}

#[test]
fn the_parser_reads_what_the_generator_writes() {
    let text = "# comment\n- page: basic\n  anchor: \n  keyword: MUST NOT\n  ordinal: 2\n  hash: \"0123abcd4567\"\n  entries: [a.b, c.d]\n";
    let o = parse(text).expect("parses");
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].anchor, "");
    assert_eq!(o[0].keyword, "MUST NOT");
    assert_eq!(o[0].ordinal, 2);
    assert_eq!(o[0].entries, ["a.b", "c.d"]);
}
