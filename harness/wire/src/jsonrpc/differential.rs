//! Differential tests: [`classify`] (which reads the top level member by
//! member, see `envelope`) against the code it replaced, kept here verbatim
//! as [`reference`]: parse into a `Value`, then pick the members out of the
//! map. Both must give the same result — kinds, ids, line and column of
//! syntax errors, member order inside kept values — on every input: hand
//! written edge cases, the committed fuzz corpus, generated messages and
//! random mutations of all of those.

use super::*;

/// The `Value`-based classification as it was before issue #18.
mod reference {
    use super::super::*;

    pub fn classify(bytes: &[u8]) -> Result<Inbound, Invalid> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| {
            Invalid::new(if e.is_eof() {
                InvalidKind::IncompleteJson
            } else {
                InvalidKind::NotJson {
                    line: e.line(),
                    column: e.column(),
                    reason: syntax_reason(&e),
                }
            })
        })?;
        match value {
            Value::Array(items) if items.is_empty() => Err(Invalid::new(InvalidKind::EmptyBatch)),
            Value::Array(items) => Ok(Inbound::Batch(
                items
                    .into_iter()
                    .map(|item| match item {
                        Value::Array(_) => Err(Invalid::new(InvalidKind::NestedBatch)),
                        other => classify_owned(other),
                    })
                    .collect(),
            )),
            other => classify_owned(other).map(Inbound::Single),
        }
    }

    fn syntax_reason(e: &serde_json::Error) -> String {
        let text = e.to_string();
        match text.rfind(" at line ") {
            Some(i) => text[..i].to_owned(),
            None => text,
        }
    }

    pub fn classify_owned(v: Value) -> Result<Message, Invalid> {
        let mut obj = match v {
            Value::Object(obj) => obj,
            other => return Err(Invalid::new(InvalidKind::NotAnObject(JsonType::of(&other)))),
        };

        let id_absent = !obj.contains_key("id");
        let id: Result<Option<Id>, InvalidKind> = match obj.get("id") {
            None | Some(Value::Null) => Ok(None),
            Some(v @ (Value::String(_) | Value::Number(_))) => {
                Id::from_value(v).map(Some).ok_or(InvalidKind::IdFloat)
            }
            Some(Value::Bool(_)) => Err(InvalidKind::IdBool),
            Some(Value::Object(_)) => Err(InvalidKind::IdObject),
            Some(Value::Array(_)) => Err(InvalidKind::IdArray),
        };
        let readable_id = id.clone().ok().flatten();
        let fail = |kind: InvalidKind| Invalid {
            kind,
            id: readable_id.clone(),
        };

        match obj.get("jsonrpc") {
            None => return Err(fail(InvalidKind::JsonrpcMissing)),
            Some(Value::String(s)) if s == "2.0" => {}
            Some(Value::String(s)) => {
                return Err(fail(InvalidKind::JsonrpcWrongVersion(s.clone())))
            }
            Some(other) => return Err(fail(InvalidKind::JsonrpcNotString(JsonType::of(other)))),
        }
        let id = id.map_err(&fail)?;

        if let Some(method) = obj.remove("method") {
            let Value::String(method) = method else {
                return Err(fail(InvalidKind::MethodNotString(JsonType::of(&method))));
            };
            if obj.contains_key("result") || obj.contains_key("error") {
                return Err(fail(InvalidKind::MethodWithResult));
            }
            let params = match obj.remove("params") {
                None => None,
                Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
                Some(p) => return Err(fail(InvalidKind::ParamsNotStructured(JsonType::of(&p)))),
            };
            return match (id_absent, id) {
                (true, _) => Ok(Message::Notification(Notification { method, params })),
                (false, None) => Err(fail(InvalidKind::IdNull)),
                (false, Some(id)) => Ok(Message::Request(Request { id, method, params })),
            };
        }

        let outcome = match (obj.remove("result"), obj.remove("error")) {
            (Some(_), Some(_)) => return Err(fail(InvalidKind::ResultAndError)),
            (None, None) => return Err(fail(InvalidKind::NeitherResultNorError)),
            (Some(result), None) => {
                if id.is_none() {
                    return Err(fail(InvalidKind::ResultWithoutId));
                }
                Ok(result)
            }
            (None, Some(error)) => Err(classify_error_object(error).map_err(&fail)?),
        };
        Ok(Message::Response(Response {
            id,
            id_absent,
            outcome,
        }))
    }

    fn classify_error_object(error: Value) -> Result<ErrorObject, InvalidKind> {
        let mut e = match error {
            Value::Object(e) => e,
            other => return Err(InvalidKind::ErrorNotObject(JsonType::of(&other))),
        };
        let code = match e.get("code") {
            None => return Err(InvalidKind::ErrorCodeMissing),
            Some(Value::Number(n)) => n
                .as_i64()
                .ok_or(InvalidKind::ErrorCodeNotInteger(JsonType::Float))?,
            Some(other) => return Err(InvalidKind::ErrorCodeNotInteger(JsonType::of(other))),
        };
        let message = match e.remove("message") {
            None => return Err(InvalidKind::ErrorMessageMissing),
            Some(Value::String(s)) => s,
            Some(other) => return Err(InvalidKind::ErrorMessageNotString(JsonType::of(&other))),
        };
        Ok(ErrorObject {
            code,
            message,
            data: e.remove("data"),
        })
    }
}

/// Asserts that both paths agree on `bytes` (and, for parseable bytes, that
/// [`classify_value`] agrees with the old code on the `Value`). `Debug` is compared rather
/// than `==` so that member order inside kept values counts as well.
fn same(bytes: &[u8]) {
    let ours = format!("{:?}", classify(bytes));
    let theirs = format!("{:?}", reference::classify(bytes));
    assert_eq!(ours, theirs, "input {:?}", String::from_utf8_lossy(bytes));
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        let ours = format!("{:?}", classify_value(&v));
        let theirs = format!("{:?}", reference::classify_owned(v));
        assert_eq!(ours, theirs, "value {:?}", String::from_utf8_lossy(bytes));
    }
}

const V: &str = r#""jsonrpc":"2.0""#;

/// Hand-written edge cases (as text; invalid UTF-8 cases are separate).
fn cases() -> Vec<String> {
    let mut out: Vec<String> = [
        // Each defect, and valid messages (as in the `tests` module).
        r#"{"jsonrpc":"2.0","id":1,"method":"a"#,
        r#"{"jsonrpc":"2.0",}"#,
        "42",
        "[]",
        "[[]]",
        r#"{"id":1,"method":"a"}"#,
        r#"{"jsonrpc":2,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":true,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":{},"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":[1],"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":3}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"cursor":"c"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x","data":[1]}}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"a"}"#,
        // Several defects at once: the first in the documented order wins.
        r#"{"jsonrpc":"1.0","id":true,"method":5}"#,
        r#"{"jsonrpc":1,"id":"k","method":5}"#,
        r#"{"id":"k","result":1,"error":2}"#,
        r#"{"jsonrpc":"2.0","id":[],"method":5}"#,
        r#"{"jsonrpc":"2.0","id":"k","method":"a","params":1,"result":1}"#,
        r#"{"jsonrpc":"2.0","method":"a","params":"x"}"#,
        r#"{"jsonrpc":"2.0","id":"k","error":{"code":1.5}}"#,
        r#"{"jsonrpc":"2.0","id":"k","result":1,"error":null}"#,
        r#"{"jsonrpc":"2.0","result":1}"#,
        r#"{"jsonrpc":"2.0","id":null}"#,
        r#"{"jsonrpc":"2.0"}"#,
        "{}",
        // Repeated members: the last one counts, whatever came first.
        r#"{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":[1],"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":null,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":null,"id":2,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":true,"id":"s","method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","method":5}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":5,"method":"b"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":3,"params":{"x":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1,"x":2,"y":3,"x":4}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":1,"result":{"b":1,"a":2}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":"x","error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","code":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":1,"data":2}}"#,
        r#"{"x":1,"jsonrpc":"2.0","x":2,"id":1,"method":"a","x":{"y":[1,2]}}"#,
        // Member names written with escapes, unusual names.
        r#"{"\u006asonrpc":"2.0","i\u0064":1,"method":"a"}"#,
        r#"{"jsonrpc":"2\u002e0","id":"\u00e9\ud83d\ude00","method":"\n"}"#,
        r#"{"":1,"JSONRPC":"2.0","jsonrpc ":"2.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"méthode":"a","method":"a"}"#,
        // Odd types in every member.
        r#"{"jsonrpc":null,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":true,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":2.0,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":{"v":"2.0"},"id":1,"method":"a"}"#,
        r#"{"jsonrpc":["2.0"],"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0 ","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1e2,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":-0.0,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1E+2,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":0.5,"result":1}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1e400,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1.7976931348623157e308,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":"","method":""}"#,
        r#"{"jsonrpc":"2.0","id":false,"result":1}"#,
        r#"{"jsonrpc":"2.0","id":{"a":1},"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":[]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":1.5}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":true}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":1.5}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":"p"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1,{"b":[]}]}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":[]}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.0,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1e2,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":9223372036854775808,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":null}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":null}}"#,
        // Batches.
        "[1]",
        "[null]",
        r#"["x"]"#,
        "[true,false,1.5,-1]",
        "[[1]]",
        "[{}]",
        "[{},[]]",
        "[[[[[]]]]]",
        r#"[{"jsonrpc":"2.0","id":1,"method":"a"},3,[{"jsonrpc":"2.0"}],{"jsonrpc":"2.0","id":1,"result":1}]"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"a","id":true}]"#,
        "[1,]",
        "[,1]",
        "[1 2]",
        // Whitespace wherever JSON allows it, and where it does not.
        " \t\r\n{ \"jsonrpc\" : \"2.0\" , \"id\" : 1 , \"method\" : \"a\" } \r\n",
        " [ { \"jsonrpc\" : \"2.0\" , \"method\" : \"a\" } , 1 ] ",
        "\u{a0}{}",
        "{}\u{a0}",
        "{\u{c}}",
        "",
        " ",
        "\n\n",
        // Trailing characters after the value.
        r#"{"jsonrpc":"2.0","id":1,"method":"a"}x"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a"},"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a"}{}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a"} }"#,
        "[]]",
        "1 2",
        "null x",
        "{} \n {}",
        // Syntax errors at every depth, and input that stops early.
        "{",
        "[",
        r#"{"a""#,
        r#"{"a":"#,
        r#"{"a":1"#,
        r#"{"a":1,"#,
        r#"[{"jsonrpc":"2.0""#,
        r#""abc"#,
        "tru",
        "nul",
        "nulL",
        "-",
        "01",
        "1.",
        ".5",
        "1e",
        "+1",
        "{'a':1}",
        "{a:1}",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{"a":1 "b":2}"#,
        r#"{1:2}"#,
        r#"{"jsonrpc":"2.0","x":"\q","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":"\ud800","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":"\udc00x","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":"\ud800\u0041","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","method":"\ud800"}"#,
        r#"{"\ud800":1}"#,
        r#"{"jsonrpc":"2.0","x":"\u12","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":1e400,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":-1e400,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":1e-400,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":[1e400],"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":{"y":01},"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","x":tru,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":1e400,"id":1,"method":"a"}"#,
        "[1e400]",
        "1e400",
        "{\"jsonrpc\":\"2.0\",\"x\":\"a\u{1}b\",\"id\":1,\"method\":\"a\"}",
        "{\"jsonrpc\":\"2.0\",\"x\":\"a\tb\",\"id\":1,\"method\":\"a\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"a\nb\"}",
        "{\"x\u{1}\":1}",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();

    // Nesting around serde_json's recursion limit (128), in each position.
    for depth in [126, 127, 128, 129, 200] {
        let open = "[".repeat(depth);
        let close = "]".repeat(depth);
        out.push(format!("{open}{close}"));
        out.push(format!(
            "{{{V},\"x\":{open}{close},\"id\":1,\"method\":\"a\"}}"
        ));
        out.push(format!(
            "{{{V},\"id\":1,\"method\":\"a\",\"params\":{open}{close}}}"
        ));
        out.push(format!("{{{V},\"jsonrpc\":{open}{close}}}"));
        out.push(format!("[{{\"x\":{open}{close}}}]"));
        out.push(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)));
        out.push(open);
    }
    out
}

/// Cases that are not UTF-8: the bytes of `classify` need not be.
fn byte_cases() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for bad in [
        &b"\xff"[..],
        b"\xc3",
        b"\xc3(",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
    ] {
        let at = |before: &str, after: &str| {
            let mut v = before.as_bytes().to_vec();
            v.extend_from_slice(bad);
            v.extend_from_slice(after.as_bytes());
            v
        };
        out.push(at(r#"{"jsonrpc":"2.0","id":1,"method":""#, r#""}"#));
        out.push(at(r#"{"jsonrpc":"2.0","x":""#, r#"","id":1,"method":"a"}"#));
        out.push(at(r#"{"jsonrpc":"2.0",""#, r#"":1,"id":1,"method":"a"}"#));
        out.push(at(r#"{"jsonrpc":""#, r#""}"#));
        out.push(at(r#"{"jsonrpc":"2.0","id":""#, r#"","method":"a"}"#));
        out.push(at(r#"{"jsonrpc":"2.0","id":1,"result":{"a":[""#, r#""]}}"#));
        out.push(at(r#"[1,""#, r#""]"#));
        out.push(at(r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#, ""));
        out.push(at("", "{}"));
        out.push(at(r#"{"jsonrpc":"2.0","id":1,"method":"a"}  "#, "  "));
    }
    out
}

#[test]
fn edge_cases_classify_as_before() {
    for case in cases() {
        same(case.as_bytes());
    }
    for case in byte_cases() {
        same(&case);
    }
}

#[test]
fn fuzz_corpus_classifies_as_before() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/jsonrpc");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut n = 0;
    for entry in entries {
        let data = std::fs::read(entry.expect("directory entry").path()).expect("corpus file");
        same(&data);
        n += 1;
    }
    assert!(n >= 20, "only {n} corpus files");
}

/// A small deterministic generator (xorshift64*), to stay dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &[
    "jsonrpc", "jsonrpc", "id", "id", "method", "params", "result", "error", "x", "i\\u0064", "",
];

const VALUES: &[&str] = &[
    r#""2.0""#,
    r#""2.0""#,
    r#""1.0""#,
    r#""a""#,
    r#""""#,
    "null",
    "true",
    "0",
    "-0.0",
    "7",
    "1.5",
    "1e2",
    "18446744073709551615",
    "-9223372036854775809",
    "{}",
    "[]",
    r#"{"code":-32600,"message":"m"}"#,
    r#"{"code":1,"message":"m","data":{"k":[1,null]}}"#,
    r#"{"code":"1","message":"m"}"#,
    r#"{"message":"m"}"#,
    r#"{"code":1}"#,
    r#"{"code":1.5,"message":2}"#,
    r#"{"b":1,"a":{"c":[true]}}"#,
    "[1,[2,{}]]",
];

/// A random object (or, sometimes, a batch of them) over the members that
/// classification reads, with repeats and odd types.
fn message(rng: &mut Rng) -> String {
    let one = |rng: &mut Rng| {
        let members: Vec<String> = (0..rng.below(7))
            .map(|_| format!("\"{}\":{}", rng.pick(KEYS), rng.pick(VALUES)))
            .collect();
        format!("{{{}}}", members.join(","))
    };
    match rng.below(8) {
        0 => {
            let items: Vec<String> = (0..rng.below(4))
                .map(|_| match rng.below(5) {
                    0 => (*rng.pick(VALUES)).to_owned(),
                    _ => one(rng),
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        _ => one(rng),
    }
}

const NOISE: &[u8] = b"{}[]\":,\\u0123456789-+.eE tfnrlsa\n\r\t\x00\x01\xff\xc3\xa9";

/// `bytes` with a few random edits: a byte replaced, inserted or removed, a
/// span repeated, or the tail cut.
fn mutate(rng: &mut Rng, mut bytes: Vec<u8>) -> Vec<u8> {
    for _ in 0..=rng.below(3) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(5) {
            0 if at < bytes.len() => bytes[at] = *rng.pick(NOISE),
            1 => bytes.insert(at, *rng.pick(NOISE)),
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            3 => {
                let end = (at + rng.below(8)).min(bytes.len());
                let span = bytes[at..end].to_vec();
                bytes.splice(at..at, span);
            }
            _ => bytes.truncate(at),
        }
    }
    bytes
}

#[test]
fn generated_messages_classify_as_before() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        same(message(&mut rng).as_bytes());
    }
}

#[test]
fn mutated_inputs_classify_as_before() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut seeds: Vec<Vec<u8>> = cases().into_iter().map(String::into_bytes).collect();
    seeds.extend(byte_cases());
    for _ in 0..200 {
        seeds.push(message(&mut rng).into_bytes());
    }
    for _ in 0..40_000 {
        let seed = rng.pick(&seeds).clone();
        same(&mutate(&mut rng, seed));
    }
}

#[test]
fn a_repeated_member_keeps_its_last_value() {
    let req = |text: &str| match classify(text.as_bytes()) {
        Ok(Inbound::Single(m)) => m,
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(
        req(r#"{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"id":"b","method":"x","method":"y"}"#),
        Message::request("b", "y", None)
    );
    let err = classify(br#"{"jsonrpc":"2.0","id":"k","method":"y","method":1}"#).unwrap_err();
    assert_eq!(
        (err.kind, err.id),
        (
            InvalidKind::MethodNotString(JsonType::Integer),
            Some(Id::from("k"))
        )
    );
}
