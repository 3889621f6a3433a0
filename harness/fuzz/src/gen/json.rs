//! JSON level: text that is not JSON, or JSON that parsers disagree on,
//! around a valid message.
//!
//! | label                  | hint      | what                                                  |
//! |------------------------|-----------|-------------------------------------------------------|
//! | `json/malformed`       | exact     | unbalanced braces, missing quotes, `=` for `:`, garbage |
//! | `json/json5`           | ambiguous | trailing commas, single quotes, comments, NaN, bare keys |
//! | `json/deep-nesting`    | ambiguous | params nested 64 to 100 000 levels deep                |
//! | `json/huge-number`     | ambiguous | 1e400, 30-digit integers, 1e-400 in params            |
//! | `json/duplicate-keys`  | ambiguous | the same member twice (method, id or params)          |
//! | `json/lone-surrogate`  | ambiguous | `"\ud800"` and friends in a string                    |
//! | `json/escapes`         | exact     | valid escapes (`\u0000`, `\/`, `\u00e9`) in strings   |
//! | `json/not-object`      | exact     | a JSON scalar or string at top level                  |
//!
//! "Ambiguous" input is judged only by the oracles that hold whatever the
//! reading: liveness, valid stdout, no answer to ids never sent.

use serde_json::{json, Value};

use super::mcp::base_message;
use super::{ids_of, text, Ctx};
use crate::input::{Hint, Input, Level};
use crate::rng::Rng;

/// The message with a params object guaranteed, and its text.
fn with_params(rng: &mut Rng, ctx: Ctx<'_>) -> Value {
    let mut m = base_message(rng, ctx, 0);
    if !m.get("params").is_some_and(Value::is_object) {
        m["params"] = json!({});
    }
    m
}

/// Replaces the placeholder string `"@@"` in the message text by `raw`.
fn splice(m: &mut Value, raw: &str) -> String {
    m["params"]["x-mcpspec-fuzz"] = Value::from("@@");
    text(m).replacen("\"@@\"", raw, 1)
}

pub fn generate(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let mut m = with_params(rng, ctx);
    let ids = ids_of(&m);
    let (label, hint, body) = match rng.below(8) {
        0 => ("json/malformed", Hint::Exact, malformed(rng, &text(&m))),
        1 => ("json/json5", Hint::Ambiguous, json5(rng, &mut m)),
        2 => {
            let depth = *rng.pick(&[64usize, 127, 129, 1000, 100_000]);
            let raw = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            ("json/deep-nesting", Hint::Ambiguous, splice(&mut m, &raw))
        }
        3 => {
            let raw = *rng.pick(&[
                "1e400",
                "-1e400",
                "123456789012345678901234567890",
                "1e-400",
                "-0",
                "0.1e99999",
            ]);
            ("json/huge-number", Hint::Ambiguous, splice(&mut m, raw))
        }
        4 => (
            "json/duplicate-keys",
            Hint::Ambiguous,
            duplicate(rng, &text(&m), ctx),
        ),
        5 => {
            let raw = *rng.pick(&[
                r#""\ud800""#,
                r#""\udc00x""#,
                r#""a\ud83e""#,
                r#""\udfff\ud800""#,
            ]);
            ("json/lone-surrogate", Hint::Ambiguous, splice(&mut m, raw))
        }
        6 => {
            let raw = *rng.pick(&[
                r#""\u0000""#,
                r#""\/\b\f""#,
                r#""\u00e9\uD83E\uDD80""#,
                r#""\u001f""#,
            ]);
            ("json/escapes", Hint::Exact, splice(&mut m, raw))
        }
        _ => {
            let raw = *rng.pick(&["\"jsonrpc\"", "0", "-1.5e3", "false", "null", "\"\""]);
            ("json/not-object", Hint::Exact, raw.to_owned())
        }
    };
    let mut bytes = body.into_bytes();
    bytes.push(b'\n');
    let mut ids = ids;
    if label == "json/duplicate-keys" {
        ids.push(ctx.id(1));
    }
    Input::new(Level::Json, label, hint, bytes).with_ids(ids)
}

fn malformed(rng: &mut Rng, t: &str) -> String {
    match rng.below(7) {
        0 => t[..t.len() - 1].to_owned(),
        1 => format!("{t}}}"),
        2 => t.replacen('"', "", 1),
        3 => t.replacen(':', "=", 1),
        4 => format!("[{t}"),
        5 => format!("{t}{t}"),
        _ => rng
            .pick(&[
                "{",
                "}",
                "{{{",
                "nul",
                "tru",
                "[1,2",
                "\"unterminated",
                "{\"a\" 1}",
                ",",
                "@",
            ])
            .to_string(),
    }
}

fn json5(rng: &mut Rng, m: &mut Value) -> String {
    match rng.below(6) {
        0 => splice(m, "[1,2,]"),
        1 => splice(m, "'single'"),
        2 => splice(m, "/* comment */ 1"),
        3 => splice(m, "NaN"),
        4 => splice(m, "{bare: 1}"),
        _ => splice(m, "0x10"),
    }
}

fn duplicate(rng: &mut Rng, t: &str, ctx: Ctx<'_>) -> String {
    let body = &t[1..];
    match rng.below(3) {
        0 => format!("{{\"method\":\"ping\",{body}"),
        1 => format!("{{\"id\":{},{body}", ctx.id(1)),
        _ => format!("{{\"params\":[1],{body}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{tests::know, Phase};
    use mcpspec_engine::Version;

    #[test]
    fn labels_match_content() {
        let k = know();
        for exec in 0..400 {
            let ctx = Ctx {
                version: Version::V2025_06_18,
                phase: Phase::Operating,
                know: &k,
                exec,
                framing: crate::input::Framing::Ndjson,
            };
            let i = generate(&mut Rng::for_exec(13, exec), ctx);
            let body = &i.bytes[..i.bytes.len() - 1];
            let parsed = serde_json::from_slice::<Value>(body);
            match i.label.as_str() {
                "json/malformed" => assert!(parsed.is_err(), "{}", String::from_utf8_lossy(body)),
                "json/escapes" | "json/not-object" => assert!(parsed.is_ok()),
                "json/lone-surrogate" | "json/json5" => assert!(parsed.is_err()),
                _ => {}
            }
            assert!(!body.contains(&b'\n'));
        }
    }
}
