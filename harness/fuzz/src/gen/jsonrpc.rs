//! JSON-RPC level: well-formed JSON that breaks (or stretches) the JSON-RPC
//! 2.0 envelope of a valid message.
//!
//! | label                        | what                                                        |
//! |------------------------------|-------------------------------------------------------------|
//! | `jsonrpc/id-null`            | a request with `"id": null`                                  |
//! | `jsonrpc/id-type`            | a float (or an integer written as one), boolean, object or array id |
//! | `jsonrpc/id-edge`            | a valid but unusual id (negative, huge, unicode, long)       |
//! | `jsonrpc/jsonrpc-missing`    | no `jsonrpc` member                                          |
//! | `jsonrpc/jsonrpc-wrong`      | `"1.0"`, `2.0` (a number), `null`                            |
//! | `jsonrpc/method-type`        | `method` not a string                                        |
//! | `jsonrpc/method-unknown`     | a method no version defines, or a miscased one               |
//! | `jsonrpc/params-type`        | `params` neither object nor array                            |
//! | `jsonrpc/extra-member`       | an unknown top-level member                                  |
//! | `jsonrpc/result-and-error`   | a "response" with both `result` and `error`                  |
//! | `jsonrpc/response`           | a stray response (result or error) to an id never sent       |
//! | `jsonrpc/not-object`         | a JSON scalar                                                |
//! | `jsonrpc/batch-*`            | arrays: valid, mixed, empty, nested, of scalars              |

use serde_json::{json, Value};

use super::mcp::{base_message, valid_notification, valid_request, wrong_type};
use super::{line, Ctx};
use crate::input::{Hint, Input, Level};
use crate::rng::Rng;

pub fn generate(rng: &mut Rng, ctx: Ctx<'_>) -> Input {
    let mut m = valid_request(rng, ctx, 0);
    let label = match rng.below(14) {
        0 => {
            m["id"] = Value::Null;
            "jsonrpc/id-null"
        }
        1 => {
            m["id"] = rng
                .pick(&[
                    json!(1.5),
                    json!(true),
                    json!({ "id": 1 }),
                    json!([1]),
                    json!(-0.0),
                    json!(1e300),
                ])
                .clone();
            "jsonrpc/id-type"
        }
        2 => {
            let e = ctx.exec;
            m["id"] = match rng.below(5) {
                0 => Value::from(-1 - i64::try_from(e % (1 << 40)).unwrap_or(0)),
                1 => Value::from(i64::MAX - i64::try_from(e % (1 << 40)).unwrap_or(0)),
                2 => Value::from(format!("ü🦀-{e}")),
                3 => Value::from(format!("{}{e}", "i".repeat(4096))),
                _ => Value::from(format!(" {e} ")),
            };
            "jsonrpc/id-edge"
        }
        3 => {
            remove(&mut m, "jsonrpc");
            "jsonrpc/jsonrpc-missing"
        }
        4 => {
            m["jsonrpc"] = rng
                .pick(&[json!("1.0"), json!(2.0), Value::Null, json!("2.0 ")])
                .clone();
            "jsonrpc/jsonrpc-wrong"
        }
        5 => {
            m["method"] = wrong_type(Some(&json!("s")), rng);
            "jsonrpc/method-type"
        }
        6 => {
            let name = m["method"].as_str().unwrap_or("ping").to_owned();
            m["method"] = Value::from(match rng.below(3) {
                0 => format!("mcpspec/no-such-method-{}", rng.below(100)),
                1 => name.to_uppercase(),
                _ => format!("{name}/"),
            });
            "jsonrpc/method-unknown"
        }
        7 => {
            m["params"] = rng
                .pick(&[json!(1), json!("p"), json!(true), Value::Null])
                .clone();
            "jsonrpc/params-type"
        }
        8 => {
            m["x-mcpspec-extra"] = json!({ "a": [1, 2, 3] });
            "jsonrpc/extra-member"
        }
        9 => {
            m = json!({ "jsonrpc": "2.0", "id": ctx.id(0), "result": {}, "error": { "code": -1, "message": "both" } });
            "jsonrpc/result-and-error"
        }
        10 => {
            m = if rng.coin() {
                json!({ "jsonrpc": "2.0", "id": ctx.id(0), "result": {} })
            } else {
                json!({ "jsonrpc": "2.0", "id": ctx.id(0), "error": { "code": -32000, "message": "stray" } })
            };
            "jsonrpc/response"
        }
        11 => {
            m = rng
                .pick(&[json!(1), json!("ping"), json!(true), Value::Null])
                .clone();
            "jsonrpc/not-object"
        }
        12 => {
            let n = rng.range(1, 4);
            let items: Vec<Value> = (0..n)
                .map(|k| match rng.below(3) {
                    0 => valid_notification(rng, ctx),
                    1 => json!({ "jsonrpc": "2.0", "id": ctx.id(8 + k as u64), "method": 7 }),
                    _ => valid_request(rng, ctx, 1 + k as u64),
                })
                .collect();
            return Input::new(
                Level::Jsonrpc,
                "jsonrpc/batch-mixed",
                Hint::Exact,
                line(&Value::Array(items)),
            );
        }
        _ => {
            let v = match rng.below(4) {
                0 => json!([]),
                1 => json!([[]]),
                2 => json!([1, "x", null]),
                _ => Value::Array(vec![base_message(rng, ctx, 1), base_message(rng, ctx, 2)]),
            };
            return Input::new(Level::Jsonrpc, "jsonrpc/batch", Hint::Exact, line(&v));
        }
    };
    Input::new(Level::Jsonrpc, label, Hint::Exact, line(&m))
}

fn remove(m: &mut Value, key: &str) {
    if let Some(o) = m.as_object_mut() {
        o.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{tests::know, Phase};
    use mcpspec_engine::Version;
    use mcpspec_wire::{classify, Inbound};

    #[test]
    fn every_input_is_one_json_line_and_most_are_not_valid_messages() {
        let k = know();
        let mut invalid = 0;
        for exec in 0..400 {
            let ctx = Ctx {
                version: Version::V2025_11_25,
                phase: Phase::Operating,
                know: &k,
                exec,
                framing: crate::input::Framing::Ndjson,
            };
            let i = generate(&mut Rng::for_exec(11, exec), ctx);
            assert_eq!(i.bytes.iter().filter(|&&b| b == b'\n').count(), 1);
            let body = &i.bytes[..i.bytes.len() - 1];
            assert!(serde_json::from_slice::<Value>(body).is_ok(), "{}", i.label);
            if !matches!(classify(body), Ok(Inbound::Single(_))) {
                invalid += 1;
            }
        }
        assert!(invalid > 150, "{invalid}");
    }
}
