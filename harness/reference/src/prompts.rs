//! The reference server's prompts.
//!
//! | prompt      | arguments                                      | messages               |
//! |-------------|------------------------------------------------|------------------------|
//! | `media`     | none                                           | one per content block  |
//! |             |                                                | of `content` (image,   |
//! |             |                                                | audio, resources, …)   |
//! | `simple`    | none                                           | one user message       |
//! | `greet`     | `name` (required), `style` (optional)          | one user message       |
//! | `summarize` | `text` (required), `length` (optional)         | one user message       |
//! | `dialogue`  | `topic` (optional)                             | user, assistant, user  |
//!
//! Argument values are strings (the protocol types them so). A missing
//! required argument, a non-string value or an unknown prompt is a -32602
//! error; unknown extra arguments are ignored.

use serde_json::{json, Map, Value};

use mcpspec_engine::Version;

use crate::content;
use crate::error::RpcError;
use crate::fault::FaultSet;

struct Arg {
    name: &'static str,
    description: &'static str,
    required: bool,
    /// Values offered by `completion/complete`.
    candidates: &'static [&'static str],
}

struct Prompt {
    name: &'static str,
    description: &'static str,
    args: &'static [Arg],
}

const PROMPTS: [Prompt; 5] = [
    Prompt {
        name: "media",
        description: "Shows every kind of content block the negotiated version defines.",
        args: &[],
    },
    Prompt {
        name: "simple",
        description: "A prompt without arguments.",
        args: &[],
    },
    Prompt {
        name: "greet",
        description: "Asks for a greeting.",
        args: &[
            Arg {
                name: "name",
                description: "Who to greet.",
                required: true,
                candidates: &["Ada", "Alan", "Alice", "Grace", "Linus"],
            },
            Arg {
                name: "style",
                description: "How to greet (default: casual).",
                required: false,
                candidates: &["casual", "formal", "pirate"],
            },
        ],
    },
    Prompt {
        name: "summarize",
        description: "Asks for a summary of a text.",
        args: &[
            Arg {
                name: "text",
                description: "The text to summarize.",
                required: true,
                candidates: &[],
            },
            Arg {
                name: "length",
                description: "short, medium or long (default: medium).",
                required: false,
                candidates: &["short", "medium", "long"],
            },
        ],
    },
    Prompt {
        name: "dialogue",
        description: "A short multi-turn conversation.",
        args: &[Arg {
            name: "topic",
            description: "What to talk about (default: testing).",
            required: false,
            candidates: &["conformance", "fuzzing", "testing"],
        }],
    },
];

/// `prompts/list` entries, in list order.
pub(crate) fn definitions() -> Vec<Value> {
    PROMPTS
        .iter()
        .map(|p| {
            let mut v = json!({ "name": p.name, "description": p.description });
            if !p.args.is_empty() {
                v["arguments"] = p
                    .args
                    .iter()
                    .map(|a| {
                        json!({ "name": a.name, "description": a.description, "required": a.required })
                    })
                    .collect();
            }
            v
        })
        .collect()
}

fn user(text: String) -> Value {
    json!({ "role": "user", "content": { "type": "text", "text": text } })
}

fn assistant(text: String) -> Value {
    json!({ "role": "assistant", "content": { "type": "text", "text": text } })
}

/// The `prompts/get` result for `name` with `arguments`.
pub(crate) fn get(
    name: &str,
    arguments: &Map<String, Value>,
    version: Version,
    faults: FaultSet,
) -> Result<Value, RpcError> {
    let prompt = PROMPTS.iter().find(|p| p.name == name).ok_or_else(|| {
        RpcError::invalid_params(format!("unknown prompt: {name}"))
            .with_data(json!({ "name": name }))
    })?;
    let mut values = Map::new();
    for (key, value) in arguments {
        if !value.is_string() {
            return Err(RpcError::invalid_params(format!(
                "argument {key} of prompt {name} must be a string"
            )));
        }
        values.insert(key.clone(), value.clone());
    }
    for arg in prompt.args.iter().filter(|a| a.required) {
        if !values.contains_key(arg.name) {
            return Err(RpcError::invalid_params(format!(
                "prompt {name} requires the argument {}",
                arg.name
            ))
            .with_data(json!({ "prompt": name, "missing": arg.name })));
        }
    }
    let arg = |key: &str, default: &str| {
        values
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_owned()
    };
    let messages = match prompt.name {
        "media" => {
            let blocks = content::media_blocks(version, faults);
            let last = blocks.len().saturating_sub(1);
            blocks
                .into_iter()
                .enumerate()
                .map(|(i, block)| {
                    // The last block is the assistant's, the others the user's.
                    let role = if i == last { "assistant" } else { "user" };
                    json!({ "role": role, "content": block })
                })
                .collect()
        }
        "simple" => vec![user("Say hello to the mcpspec reference server.".into())],
        "greet" => vec![user(format!(
            "Greet {} in a {} style.",
            arg("name", ""),
            arg("style", "casual")
        ))],
        "summarize" => vec![user(format!(
            "Write a {} summary of the following text:\n{}",
            arg("length", "medium"),
            arg("text", "")
        ))],
        _ => {
            let topic = arg("topic", "testing");
            vec![
                user(format!("Let us talk about {topic}.")),
                assistant(format!(
                    "Gladly. What would you like to know about {topic}?"
                )),
                user("Where should I start?".into()),
            ]
        }
    };
    Ok(json!({ "description": prompt.description, "messages": messages }))
}

/// Completion candidates for argument `arg` of prompt `name`, or `None` when
/// there is no such prompt.
pub(crate) fn complete(name: &str, arg: &str) -> Option<Vec<String>> {
    let prompt = PROMPTS.iter().find(|p| p.name == name)?;
    Some(
        prompt
            .args
            .iter()
            .find(|a| a.name == arg)
            .map(|a| a.candidates.iter().map(|c| (*c).to_owned()).collect())
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(name: &str, arguments: &Map<String, Value>) -> Result<Value, RpcError> {
        super::get(name, arguments, Version::V2025_06_18, FaultSet::default())
    }

    #[test]
    fn required_arguments_are_enforced() {
        let err = get("greet", &Map::new()).err().map(|e| e.code);
        assert_eq!(err, Some(-32602));
        let mut args = Map::new();
        args.insert("name".into(), json!("Ada"));
        let ok = get("greet", &args).unwrap_or_default();
        assert_eq!(
            ok["messages"][0]["content"]["text"],
            "Greet Ada in a casual style."
        );
        args.insert("style".into(), json!(3));
        assert!(get("greet", &args).is_err());
        assert!(get("nope", &Map::new()).is_err());
    }

    #[test]
    fn prompt_shapes() {
        let defs = definitions();
        assert_eq!(defs.len(), 5);
        assert!(defs[0].get("arguments").is_none());
        assert!(defs[1].get("arguments").is_none());
        assert_eq!(defs[2]["arguments"][0]["required"], true);
        assert_eq!(defs[2]["arguments"][1]["required"], false);
        let d = get("dialogue", &Map::new()).unwrap_or_default();
        assert_eq!(d["messages"][1]["role"], "assistant");
    }
}
