//! Opt-in extensions: groups of rules outside the core specification — the
//! experimental tasks of 2025-11-25, and the `io.modelcontextprotocol/*`
//! extensions of 2026-07-28 (tasks, SEP-2663; skills, SEP-2640). A
//! requirement of an extension carries its name ([`Requirement::extension`]),
//! and so does every scenario that judges one: such scenarios run only when
//! the user asks for the extension (`mcpspec server --extension tasks`),
//! their verdicts never count in the core verdict, and coverage lists their
//! requirements apart from the core totals.
//!
//! [`Requirement::extension`]: crate::Requirement::extension

/// One opt-in extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extension {
    /// What `--extension` and a scenario's `extension:` name it.
    pub name: &'static str,
    /// One line for listings.
    pub title: &'static str,
}

/// Every extension mcpspec knows, in listing order.
pub static EXTENSIONS: &[Extension] = &[
    Extension {
        name: "tasks",
        title: "Tasks: task-augmented requests (experimental at 2025-11-25; the io.modelcontextprotocol/tasks extension, SEP-2663, at 2026-07-28)",
    },
    Extension {
        name: "skills",
        title: "Skills: the io.modelcontextprotocol/skills extension (SEP-2640)",
    },
];

/// The extension called `name`.
pub fn extension(name: &str) -> Option<&'static Extension> {
    EXTENSIONS.iter().find(|e| e.name == name)
}

/// The known names, comma-separated (for error messages).
pub fn known() -> String {
    EXTENSIONS
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_rule_names_a_known_extension() {
        let mut named = 0;
        for r in crate::catalogue::all() {
            if let Some(name) = r.extension {
                assert!(extension(name).is_some(), "{}: {name}", r.id);
                assert!(
                    r.profile.is_none(),
                    "{}: a profile rule in an extension",
                    r.id
                );
                named += 1;
            }
        }
        assert!(named > 0, "the 2025-11-25 tasks rules are an extension's");
        assert_eq!(known(), "tasks, skills");
    }
}
