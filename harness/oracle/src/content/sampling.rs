//! Requests a judged server sends to the harness's client: sampling and
//! elicitation only when the harness declared them (and their tools and
//! URL mode only when declared too), tool results in a sampling
//! conversation that answer earlier tool uses and stand alone, and an
//! elicitation's `requestedSchema` valid under its dialect. The harness's
//! declaration is its `initialize` request's; at 2026-07-28 the server
//! embeds these requests in `input_required` results, judged against the
//! client capabilities the asking request carried.

use std::collections::HashSet;

use mcpspec_engine::ids;
use mcpspec_wire::Request;
use serde_json::Value;

use super::{declares, param, Out};

/// Judges a request the server sends (or, 2026-07-28, embeds in an
/// `input_required` result) against the capabilities the harness
/// `declared`. `whole`: judge that the capability itself was declared too
/// (an embedded request's is `stateless.input-required.declared-capabilities`'s).
pub(super) fn server_request(
    r: &Request,
    declared: Option<&Value>,
    whole: bool,
    out: &mut Out<'_>,
) {
    match r.method.as_str() {
        "sampling/createMessage" => {
            if let Some(caps) = declared {
                if !declares(caps, "sampling") {
                    if whole {
                        out.flag(
                            &ids::SAMPLING_SERVER_CAPABILITY_REQUIRED,
                            "sampling/createMessage sent to a client that declared no sampling capability".to_owned(),
                        );
                    }
                } else if param(r, "tools").is_some() || param(r, "toolChoice").is_some() {
                    let tools = caps.get("sampling").is_some_and(|s| declares(s, "tools"));
                    if !tools {
                        out.flag(
                            &ids::SAMPLING_TOOLS_SERVER_GATED,
                            "sampling/createMessage offers tools to a client that did not declare sampling.tools".to_owned(),
                        );
                    }
                }
            }
            if let Some(messages) = param(r, "messages").and_then(Value::as_array) {
                tool_results(messages, out);
            }
        }
        "elicitation/create" => {
            let url = param(r, "mode").and_then(Value::as_str) == Some("url");
            if let Some(caps) = declared {
                if !declares(caps, "elicitation") {
                    if whole {
                        out.flag(
                            &ids::ELICITATION_SERVER_CAPABILITY_REQUIRED,
                            "elicitation/create sent to a client that declared no elicitation capability".to_owned(),
                        );
                    }
                } else if url && !caps.get("elicitation").is_some_and(|e| declares(e, "url")) {
                    out.flag(
                        &ids::ELICITATION_URL_CAPABILITY,
                        "a URL-mode elicitation/create sent to a client that did not declare elicitation.url".to_owned(),
                    );
                }
            }
            if !url {
                super::json_schema::requested(param(r, "requestedSchema"), out);
            }
        }
        _ => {}
    }
}

/// The content blocks of a sampling message (one block or an array).
fn blocks(message: &Value) -> Vec<&Value> {
    match message.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one) => vec![one],
        None => Vec::new(),
    }
}

fn kind(block: &Value) -> Option<&str> {
    block.get("type").and_then(Value::as_str)
}

/// `sampling.tool-result.matches-use` and `…only-results`.
fn tool_results(messages: &[Value], out: &mut Out<'_>) {
    let mut uses: HashSet<&str> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let content = blocks(m);
        let results = content
            .iter()
            .filter(|b| kind(b) == Some("tool_result"))
            .count();
        if results > 0 && results < content.len() {
            out.flag(
                &ids::SAMPLING_TOOL_RESULT_ONLY_RESULTS,
                format!("sampling message {i} mixes tool results with other content"),
            );
        }
        for b in &content {
            match kind(b) {
                Some("tool_use") => {
                    if let Some(id) = b.get("id").and_then(Value::as_str) {
                        uses.insert(id);
                    }
                }
                Some("tool_result") => {
                    let id = b.get("toolUseId").and_then(Value::as_str);
                    if let Some(id) = id.filter(|id| !uses.contains(id)) {
                        out.flag(
                            &ids::SAMPLING_TOOL_RESULT_MATCHES_USE,
                            format!("sampling message {i} holds a tool result for {id:?}, which no earlier tool use has"),
                        );
                    }
                }
                _ => {}
            }
        }
    }
}
