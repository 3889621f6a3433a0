//! Requirement ids against the catalogue: every id a scenario names (in
//! `requirements:` or a step's `requirement:`) is in the engine's requirement
//! catalogue ([`mcpspec_engine::lookup`]) and applies to at least one version
//! the scenario, or the step naming it, runs at; and that a scenario of an
//! opt-in extension names only that extension's rules, any other scenario
//! none (an extension's rules are judged only when the user asks for it).
//!
//! The check runs while the file is built, at the node that names the id, so
//! the error points at the id itself; every consumer of the loader (the CLI,
//! `mcpspec-testing`) rejects such a file the same way.

use super::reader::Ctx;
use crate::error::ScenarioError;
use crate::yaml::Pos;
use mcpspec_engine::Version;

/// `id`, written at `at`, names a catalogued requirement that applies to at
/// least one of `versions` (those the scenario or the step runs at), and
/// belongs to the scenario's `extension` (none: to the core).
pub(super) fn check(
    ctx: &Ctx,
    at: Pos,
    id: &str,
    versions: &[Version],
    extension: Option<&str>,
) -> Result<(), ScenarioError> {
    let problem = match mcpspec_engine::lookup(id) {
        None => format!(
            "unknown requirement id {id:?}{}: it is not in the requirement catalogue (see `mcpspec list --requirements`)",
            suggestion(id)
        ),
        Some(r) if !versions.iter().any(|v| r.applies_to(*v)) => format!(
            "requirement {id:?} does not apply to {} (it applies to {})",
            join(versions),
            join(&r.versions().collect::<Vec<_>>())
        ),
        Some(r) if r.extension != extension => match (r.extension, extension) {
            (Some(theirs), _) => format!(
                "requirement {id:?} belongs to the opt-in extension {theirs:?}: only a scenario with `extension: {theirs}` may name it"
            ),
            (None, Some(mine)) => format!(
                "requirement {id:?} is a core rule: a scenario of the extension {mine:?} names only that extension's rules"
            ),
            (None, None) => return Ok(()),
        },
        Some(_) => return Ok(()),
    };
    Err(ctx.err(at, problem))
}

/// The versions, comma-separated.
fn join(versions: &[Version]) -> String {
    versions
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// ` (did you mean "x"?)` for the catalogued id sharing the longest prefix
/// with `id`, when that prefix is at least half of `id`; empty otherwise.
fn suggestion(id: &str) -> String {
    let common = |a: &str| {
        a.chars()
            .zip(id.chars())
            .take_while(|(x, y)| x == y)
            .count()
    };
    mcpspec_engine::catalogue::all()
        .map(|r| (common(r.id), r.id))
        .max_by_key(|(n, _)| *n)
        .filter(|(n, _)| *n * 2 >= id.len())
        .map(|(_, best)| format!(" (did you mean {best:?}?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::suggestion;

    #[test]
    fn suggestions_need_a_real_resemblance() {
        assert!(suggestion("ping.respnd").contains("ping.respond"));
        assert_eq!(suggestion("zzz.nothing"), "");
    }
}
