//! The fixture profile: what the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) requires of the server an SDK
//! builds for it — tools, prompts and resources with fixed names
//! (`test_simple_text`, `test://static-text`, …) that must return fixed
//! content. These are the suite's contract, not the specification's rules:
//! every entry carries `profile = "fixture"`, so it counts in no coverage
//! total. The scenarios under `scenarios/server/fixture/` judge them only
//! when the target lists the fixture's name (otherwise: not applicable), as
//! strictly as the official runner does (it fails the check, so the level
//! is `Must`). Each section links the spec page the rule illustrates.

use crate::level::Level::Must;
use crate::version::Version::*;

const FIXTURE: &str = "fixture";

entries! {
    // ── tools ────────────────────────────────────────────────────────────
    FIXTURE_TOOLS_SIMPLE_TEXT = req!("fixture.tools.simple-text", Must, Server, V2024_11_05, None, "server/tools#calling-tools",
        "Fixture profile: tool test_simple_text, called without arguments, returns a non-empty content array holding a text item with non-empty text.",
        profile = FIXTURE),
    FIXTURE_TOOLS_IMAGE = req!("fixture.tools.image", Must, Server, V2024_11_05, None, "server/tools#image-content",
        "Fixture profile: tool test_image_content returns an image content item with data and a mimeType.",
        profile = FIXTURE),
    FIXTURE_TOOLS_AUDIO = req!("fixture.tools.audio", Must, Server, V2025_03_26, None, "server/tools#audio-content",
        "Fixture profile: tool test_audio_content returns an audio content item with data and the mimeType audio/wav.",
        profile = FIXTURE),
    FIXTURE_TOOLS_EMBEDDED_RESOURCE = req!("fixture.tools.embedded-resource", Must, Server, V2024_11_05, None, "server/tools#embedded-resources",
        "Fixture profile: tool test_embedded_resource returns a resource content item whose resource has a uri, a mimeType and text or blob.",
        profile = FIXTURE),
    FIXTURE_TOOLS_MIXED_CONTENT = req!("fixture.tools.mixed-content", Must, Server, V2024_11_05, None, "server/tools#tool-result",
        "Fixture profile: tool test_multiple_content_types returns at least two content items, among them a text, an image and a resource item.",
        profile = FIXTURE),
    FIXTURE_TOOLS_ERROR = req!("fixture.tools.error", Must, Server, V2024_11_05, None, "server/tools#error-handling",
        "Fixture profile: tool test_error_handling always fails as a tool execution error: a result with isError true whose first content item has text.",
        profile = FIXTURE),
    FIXTURE_TOOLS_PROGRESS = req!("fixture.tools.progress", Must, Server, V2024_11_05, None, "basic/utilities/progress",
        "Fixture profile: tool test_tool_with_progress, called with a progressToken, sends at least three progress notifications for that token with non-decreasing progress.",
        profile = FIXTURE),
    FIXTURE_TOOLS_LOGGING = req!("fixture.tools.logging", Must, Server, V2024_11_05, Some(V2025_11_25), "server/utilities/logging",
        "Fixture profile: after logging/setLevel debug, tool test_tool_with_logging sends at least three notifications/message while it runs.",
        profile = FIXTURE),
    FIXTURE_TOOLS_SAMPLING = req!("fixture.tools.sampling", Must, Server, V2024_11_05, Some(V2025_11_25), "client/sampling",
        "Fixture profile: tool test_sampling, called by a client that declared sampling, sends sampling/createMessage to it and, once answered, returns non-empty content.",
        profile = FIXTURE),
    FIXTURE_TOOLS_ELICITATION = req!("fixture.tools.elicitation", Must, Server, V2025_06_18, Some(V2025_11_25), "client/elicitation",
        "Fixture profile: tool test_elicitation, called by a client that declared elicitation, sends elicitation/create to it and, once answered, returns non-empty content.",
        profile = FIXTURE),
    FIXTURE_TOOLS_ELICITATION_DEFAULTS = req!("fixture.tools.elicitation-defaults", Must, Server, V2025_11_25, Some(V2025_11_25), "client/elicitation#supported-schema-types",
        "Fixture profile (SEP-1034): tool test_elicitation_sep1034_defaults asks for a form whose string, integer, number, enum and boolean fields each carry the fixture's default value (the enum's default one of its members).",
        profile = FIXTURE),
    FIXTURE_TOOLS_ELICITATION_ENUMS = req!("fixture.tools.elicitation-enums", Must, Server, V2025_11_25, Some(V2025_11_25), "client/elicitation#supported-schema-types",
        "Fixture profile (SEP-1330): tool test_elicitation_sep1330_enums asks for a form with each enum form: untitled single-select (enum), titled single-select (oneOf const/title), legacy enumNames, untitled multi-select (items.enum) and titled multi-select (items.anyOf const/title).",
        profile = FIXTURE),
    FIXTURE_TOOLS_JSON_SCHEMA_2020_12 = req!("fixture.tools.json-schema-2020-12", Must, Server, V2025_11_25, None, "basic#json-schema-usage",
        "Fixture profile (SEP-1613, SEP-2106): tool json_schema_2020_12_tool is listed with its inputSchema intact: $schema 2020-12, $defs.address, additionalProperties false; from 2026-07-28 also allOf with a nested anyOf, if/then/else and $anchor in $defs.address.",
        profile = FIXTURE),
    // ── prompts ──────────────────────────────────────────────────────────
    FIXTURE_PROMPTS_SIMPLE = req!("fixture.prompts.simple", Must, Server, V2024_11_05, None, "server/prompts#getting-a-prompt",
        "Fixture profile: prompt test_simple_prompt returns a non-empty messages array, each message with a role and content.",
        profile = FIXTURE),
    FIXTURE_PROMPTS_ARGUMENTS = req!("fixture.prompts.arguments", Must, Server, V2024_11_05, None, "server/prompts#getting-a-prompt",
        "Fixture profile: prompt test_prompt_with_arguments, given arg1 and arg2, returns messages whose text contains both values.",
        profile = FIXTURE),
    FIXTURE_PROMPTS_EMBEDDED_RESOURCE = req!("fixture.prompts.embedded-resource", Must, Server, V2024_11_05, None, "server/prompts#embedded-resources",
        "Fixture profile: prompt test_prompt_with_embedded_resource, given resourceUri, returns a message whose content is an embedded resource.",
        profile = FIXTURE),
    FIXTURE_PROMPTS_IMAGE = req!("fixture.prompts.image", Must, Server, V2024_11_05, None, "server/prompts#image-content",
        "Fixture profile: prompt test_prompt_with_image returns a message whose content is an image with data and a mimeType.",
        profile = FIXTURE),
    // ── resources ────────────────────────────────────────────────────────
    FIXTURE_RESOURCES_STATIC_TEXT = req!("fixture.resources.static-text", Must, Server, V2024_11_05, None, "server/resources#reading-resources",
        "Fixture profile: reading test://static-text returns non-empty contents whose first item has a uri, a mimeType and non-empty text.",
        profile = FIXTURE),
    FIXTURE_RESOURCES_STATIC_BINARY = req!("fixture.resources.static-binary", Must, Server, V2024_11_05, None, "server/resources#reading-resources",
        "Fixture profile: reading test://static-binary returns non-empty contents whose first item has a uri, a mimeType and a non-empty blob.",
        profile = FIXTURE),
    FIXTURE_RESOURCES_TEMPLATE = req!("fixture.resources.template", Must, Server, V2024_11_05, None, "server/resources#resource-templates",
        "Fixture profile: reading test://template/123/data (from template test://template/{id}/data) returns contents whose first item has a uri and text or blob, the text mentioning 123.",
        profile = FIXTURE),
    // ── completion ───────────────────────────────────────────────────────
    FIXTURE_COMPLETION_PROMPT_ARGUMENT = req!("fixture.completion.prompt-argument", Must, Server, V2024_11_05, None, "server/utilities/completion",
        "Fixture profile: completion/complete for argument arg1 of prompt test_prompt_with_arguments succeeds with completion.values an array (an error fails).",
        profile = FIXTURE),
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_entry_is_of_the_fixture_profile() {
        for r in super::ENTRIES {
            assert_eq!(r.profile, Some(super::FIXTURE), "{}", r.id);
            assert!(r.summary.starts_with("Fixture profile"), "{}", r.id);
            assert!(r.excluded.is_none(), "{}: a profile rule is judged", r.id);
        }
    }
}
