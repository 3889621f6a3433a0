//! Seeded input generators, one module per level. Pure: an input depends only
//! on the seed, the exec index, the lifecycle phase and what the target said
//! it offers ([`Knowledge`], learnt from its lists), never on timing.
//!
//! Every level starts from valid material built by [`mcp`] (a request or
//! notification the negotiated version defines) and breaks it at its own
//! layer; see each module for what it produces.

pub mod bytes;
pub mod json;
pub mod jsonrpc;
pub mod mcp;

use mcpspec_engine::Version;
use serde_json::Value;

use crate::input::{Framing, Input, Level};
use crate::rng::Rng;

/// Where the session is when the input is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before `initialize`.
    BeforeInit,
    /// After the handshake.
    Operating,
}

/// A tool the target lists, with its input schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub input_schema: Value,
}

/// A prompt the target lists, with its arguments (name, required).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub name: String,
    pub arguments: Vec<(String, bool)>,
}

/// What the target offers, from the first page of its lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Knowledge {
    pub tools: Vec<Tool>,
    pub prompts: Vec<Prompt>,
    pub resources: Vec<String>,
}

/// Everything an input may depend on.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    pub version: Version,
    pub phase: Phase,
    pub know: &'a Knowledge,
    /// The exec index: request ids embed it, so they never repeat in a session.
    pub exec: u64,
    /// How the input reaches the target (the bytes level differs over HTTP).
    pub framing: Framing,
}

impl Ctx<'_> {
    /// The `k`-th request id of this exec: an integer on even execs, a string on odd ones.
    pub fn id(&self, k: u64) -> Value {
        if self.exec % 2 == 0 {
            Value::from(1_000_000 + self.exec * 16 + k)
        } else {
            Value::from(format!("fz-{}-{k}", self.exec))
        }
    }
}

/// The input of exec `ctx.exec`, at one of `levels` (all levels when empty).
pub fn generate(seed: u64, levels: &[Level], ctx: Ctx<'_>) -> Input {
    let mut rng = Rng::for_exec(seed, ctx.exec);
    let levels = if levels.is_empty() {
        &Level::ALL[..]
    } else {
        levels
    };
    match *rng.pick(levels) {
        Level::Bytes => bytes::generate(&mut rng, ctx),
        Level::Json => json::generate(&mut rng, ctx),
        Level::Jsonrpc => jsonrpc::generate(&mut rng, ctx),
        Level::Mcp => mcp::generate(&mut rng, ctx),
    }
}

/// Compact JSON text of a value (never contains a raw newline).
pub(crate) fn text(v: &Value) -> String {
    v.to_string()
}

/// One line: the text and a newline.
pub(crate) fn line(v: &Value) -> Vec<u8> {
    let mut b = text(v).into_bytes();
    b.push(b'\n');
    b
}

/// The id of a message value, if it has one.
pub(crate) fn ids_of(v: &Value) -> Vec<Value> {
    v.get("id").cloned().into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expect::{derive, Ctx as ExpectCtx};
    use serde_json::json;

    pub(crate) fn know() -> Knowledge {
        Knowledge {
            tools: vec![Tool {
                name: "echo".into(),
                input_schema: json!({"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "number", "minimum": 0, "maximum": 60}}, "required": ["text"]}),
            }],
            prompts: vec![Prompt {
                name: "greet".into(),
                arguments: vec![("name".into(), true)],
            }],
            resources: vec!["mcpspec://static/1".into()],
        }
    }

    fn ctx(k: &Knowledge, exec: u64, phase: Phase) -> Ctx<'_> {
        Ctx {
            version: Version::V2025_06_18,
            phase,
            know: k,
            exec,
            framing: Framing::Ndjson,
        }
    }

    #[test]
    fn deterministic_per_seed_and_exec() {
        let k = know();
        for exec in 0..300 {
            let a = generate(42, &[], ctx(&k, exec, Phase::Operating));
            let b = generate(42, &[], ctx(&k, exec, Phase::Operating));
            assert_eq!(a, b);
            // Over HTTP too: the framing is part of the input's determinants.
            let http = Ctx {
                framing: Framing::HttpBody { streamable: false },
                ..ctx(&k, exec, Phase::Operating)
            };
            assert_eq!(generate(42, &[], http), generate(42, &[], http));
        }
        let differ = (0..50)
            .filter(|&e| {
                generate(1, &[], ctx(&k, e, Phase::Operating))
                    != generate(2, &[], ctx(&k, e, Phase::Operating))
            })
            .count();
        assert!(differ > 40);
    }

    #[test]
    fn each_level_produces_only_its_own_inputs() {
        let k = know();
        for level in Level::ALL {
            for exec in 0..200 {
                let i = generate(7, &[level], ctx(&k, exec, Phase::Operating));
                assert_eq!(i.level, level);
                assert!(i.label.starts_with(level.as_str()), "{}", i.label);
                assert!(!i.bytes.is_empty());
            }
        }
    }

    #[test]
    fn before_initialization_nothing_initializes() {
        let k = know();
        let caps = json!({});
        for exec in 0..400 {
            let i = generate(3, &[], ctx(&k, exec, Phase::BeforeInit));
            let exp = derive(
                &i,
                ExpectCtx {
                    version: Version::V2025_06_18,
                    initialized: false,
                    capabilities: Some(&caps),
                    framing: Framing::Ndjson,
                },
            );
            for e in exp {
                if let crate::expect::Expect::Owed { method, error, .. } = e {
                    assert!(method != "initialize" || error.is_some(), "{}", i.label);
                }
            }
        }
    }
}
