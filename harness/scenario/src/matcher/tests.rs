//! One test per matcher, positive and negative, plus describe().

use super::*;
use serde_json::json;

fn m(yaml: &str) -> Matcher {
    Matcher::parse("<test>", yaml).unwrap_or_else(|e| panic!("{e}"))
}

/// Check `actual` against the matcher written `yaml`; mismatches as text.
fn run(yaml: &str, actual: Value) -> Vec<String> {
    run_with(yaml, actual, &mut Bindings::new())
}

fn run_with(yaml: &str, actual: Value, b: &mut Bindings) -> Vec<String> {
    m(yaml)
        .check(Some(&actual), "result", b)
        .expect("no unbound variables")
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn ok(yaml: &str, actual: Value) {
    let out = run(yaml, actual.clone());
    assert!(out.is_empty(), "{yaml} vs {actual}: {out:?}");
}

fn bad(yaml: &str, actual: Value) -> Vec<String> {
    let out = run(yaml, actual.clone());
    assert!(!out.is_empty(), "{yaml} should not match {actual}");
    out
}

#[test]
fn scalars_numbers_by_value() {
    ok("1", json!(1.0));
    ok("1.0", json!(1));
    ok("\"x\"", json!("x"));
    ok("true", json!(true));
    ok("null", json!(null));
    assert_eq!(bad("1", json!("1")), ["result: expected 1, actual \"1\""]);
    bad("yes", json!(true));
    bad("null", json!(0));
}

#[test]
fn maps_are_subset_matches() {
    ok("{a: 1}", json!({"a": 1, "b": 2}));
    ok("{}", json!({"x": 1}));
    bad("{}", json!([]));
    assert_eq!(
        bad("{a: 1, b: {c: x}}", json!({"a": 2, "b": {"c": "y"}})),
        [
            "result.a: expected 1, actual 2",
            "result.b.c: expected \"x\", actual \"y\""
        ]
    );
    assert_eq!(
        bad("{a: 1}", json!({})),
        ["result.a: expected 1, actual <absent>"]
    );
}

#[test]
fn lists_same_length_elementwise() {
    ok("[1, {a: x}]", json!([1, {"a": "x", "b": 0}]));
    bad("[1, 2]", json!([1]));
    bad("[1, 2]", json!([1, 2, 3]));
    assert_eq!(
        bad("[1, 2]", json!([1, 3])),
        ["result.1: expected 2, actual 3"]
    );
}

#[test]
fn type_integer_vs_number() {
    ok("{$type: integer}", json!(3));
    ok("{$type: integer}", json!(3.0));
    bad("{$type: integer}", json!(3.5));
    ok("{$type: number}", json!(3.5));
    ok("{$type: [string, null]}", json!(null));
    bad("{$type: [string, null]}", json!(1));
    for (t, v) in [
        ("string", json!("")),
        ("boolean", json!(false)),
        ("object", json!({})),
        ("array", json!([])),
        ("null", json!(null)),
    ] {
        ok(&format!("{{$type: {t}}}"), v.clone());
        bad(&format!("{{$type: {t}}}"), json!(1));
    }
    assert_eq!(
        bad("{$type: string}", json!(1)),
        ["result: expected <string>, actual 1"]
    );
}

#[test]
fn regex_searches() {
    ok(r#"{$regex: "^2\\d{3}-"}"#, json!("2025-06-18"));
    ok("{$regex: abc}", json!("xxabcxx"));
    bad(r#"{$regex: "^2\\d{3}-"}"#, json!("v2025"));
    bad("{$regex: abc}", json!(5));
}

#[test]
fn one_of_and_branch_isolation() {
    ok(
        "{$oneOf: [{code: -32601}, {code: -32602}]}",
        json!({"code": -32602}),
    );
    let out = bad("{$oneOf: [-32601, -32602]}", json!(-32600));
    assert_eq!(
        out,
        ["result: expected one of (-32601 | -32602), actual -32600"]
    );
    // The first branch captures, then fails: its capture must not leak.
    let mut b = Bindings::new();
    let out = run_with(
        "{$oneOf: [{a: {$capture: leaked}, b: 1}, {a: {$capture: kept}}]}",
        json!({"a": 5, "b": 2}),
        &mut b,
    );
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(b.get("leaked"), None);
    assert_eq!(b.get("kept"), Some(&json!(5)));
}

#[test]
fn absent_present_optional() {
    ok("{x: {$absent: true}}", json!({}));
    assert_eq!(
        bad("{x: {$absent: true}}", json!({"x": null})),
        ["result.x: expected <absent>, actual null"]
    );
    ok("{x: {$present: true}}", json!({"x": null}));
    assert_eq!(
        bad("{x: {$present: true}}", json!({})),
        ["result.x: expected <present>, actual <absent>"]
    );
    ok("{x: {$optional: true, $type: string}}", json!({}));
    ok("{x: {$optional: true, $type: string}}", json!({"x": "s"}));
    bad("{x: {$optional: true, $type: string}}", json!({"x": 1}));
    // At the top, `None` is an absent value.
    let absent = m("{$absent: true}");
    assert!(absent
        .check(None, "result", &mut Bindings::new())
        .expect("bound")
        .is_empty());
}

#[test]
fn capture_and_collect() {
    let mut b = Bindings::new();
    let out = run_with(
        "{nextCursor: {$optional: true, $type: string, $capture: cursor}}",
        json!({"nextCursor": "c2"}),
        &mut b,
    );
    assert!(out.is_empty());
    assert_eq!(b.get("cursor"), Some(&json!("c2")));
    // No capture when the value is absent, nor when the matcher fails.
    let mut b = Bindings::new();
    run_with(
        "{nextCursor: {$optional: true, $capture: cursor}}",
        json!({}),
        &mut b,
    );
    run_with("{n: {$type: string, $capture: n}}", json!({"n": 1}), &mut b);
    assert_eq!(b, Bindings::new());
    let mut b = Bindings::new();
    run_with(
        "{tools: {$collect: all}}",
        json!({"tools": [{"name": "a"}, {"name": "b"}]}),
        &mut b,
    );
    run_with(
        "{tools: {$collect: all}}",
        json!({"tools": [{"name": "c"}]}),
        &mut b,
    );
    run_with("{one: {$collect: all}}", json!({"one": 5}), &mut b);
    assert_eq!(
        b.get("all"),
        Some(&json!([{"name": "a"}, {"name": "b"}, {"name": "c"}, 5]))
    );
}

#[test]
fn eq_ne_in() {
    ok("{$eq: {$type: string}}", json!({"$type": "string"}));
    bad("{$eq: {$type: string}}", json!("s"));
    ok("{$ne: 0}", json!(1));
    assert_eq!(
        bad("{$ne: 0}", json!(0.0)),
        ["result: expected not 0, actual 0.0"]
    );
    ok("{$in: [a, 2]}", json!(2.0));
    assert_eq!(
        bad("{$in: [a, 2]}", json!("b")),
        [r#"result: expected one of ["a", 2], actual "b""#]
    );
}

#[test]
fn comparisons() {
    ok("{$gt: 1}", json!(2));
    bad("{$gt: 1}", json!(1));
    ok("{$gte: 1}", json!(1.0));
    bad("{$gte: 1}", json!(0.5));
    ok("{$lt: 1}", json!(0));
    bad("{$lt: 1}", json!(1));
    ok("{$lte: 1.5}", json!(1.5));
    bad("{$lte: 1.5}", json!(2));
    bad("{$gt: 1}", json!("2"));
    ok("{$gte: 1, $lt: 10}", json!(5));
    assert_eq!(
        bad("{$gte: 1, $lt: 10}", json!(10)),
        ["result: expected < 10, actual 10"]
    );
}

#[test]
fn contains_each_len_not() {
    ok(
        "{$contains: {name: b}}",
        json!([{"name": "a"}, {"name": "b"}]),
    );
    bad("{$contains: {name: c}}", json!([{"name": "a"}]));
    bad("{$contains: 1}", json!({"a": 1}));
    ok("{$each: {$type: string}}", json!(["a", "b"]));
    ok("{$each: {$type: string}}", json!([]));
    assert_eq!(
        bad(
            "{$each: {name: {$type: string}}}",
            json!([{"name": "a"}, {"name": 2}])
        ),
        ["result.1.name: expected <string>, actual 2"]
    );
    ok("{$len: 2}", json!([1, 2]));
    ok("{$len: {$gte: 1}}", json!("ab"));
    ok("{$len: 1}", json!({"a": 1}));
    assert_eq!(
        bad("{$len: {$gte: 1}}", json!([])),
        ["length(result): expected >= 1, actual 0"]
    );
    bad("{$len: 1}", json!(1));
    ok("{$not: {$type: string}}", json!(1));
    assert_eq!(
        bad("{$not: {$type: string}}", json!("s")),
        [r#"result: expected not <string>, actual "s""#]
    );
}

#[test]
fn operators_combine_with_members() {
    ok(
        "{$type: object, name: {$type: string}}",
        json!({"name": "x"}),
    );
    bad("{$type: object, name: {$type: string}}", json!({"name": 1}));
}

#[test]
fn strings_are_templates() {
    let mut b = Bindings::new();
    b.set("version", json!("2025-06-18"));
    assert!(run_with(
        "{protocolVersion: \"${version}\"}",
        json!({"protocolVersion": "2025-06-18"}),
        &mut b
    )
    .is_empty());
    assert_eq!(
        run_with(
            "{protocolVersion: \"${version}\"}",
            json!({"protocolVersion": "2024-11-05"}),
            &mut b
        ),
        [r#"result.protocolVersion: expected "2025-06-18", actual "2024-11-05""#]
    );
    let unbound =
        m("{v: \"${nope}\"}").check(Some(&json!({"v": 1})), "result", &mut Bindings::new());
    assert_eq!(
        unbound,
        Err(crate::TemplateError {
            name: "nope".into()
        })
    );
}

#[test]
fn describe_reads_like_the_matcher() {
    assert_eq!(
        m("{protocolVersion: \"${version}\", serverInfo: {name: {$type: string}}}").describe(),
        r#"{protocolVersion: "${version}", serverInfo: {name: <string>}}"#
    );
    assert_eq!(
        m("{a: {$optional: true, $type: integer}, b: {$absent: true}}").describe(),
        "{a?: <integer>, b: <absent>}"
    );
    assert_eq!(m("{$capture: x}").describe(), "<any>");
    assert_eq!(
        m("{$type: array, $len: {$gte: 1}}").describe(),
        "<array> and <length >= 1>"
    );
}

#[test]
fn compile_errors_point_at_the_node() {
    let e = Matcher::parse("m.yaml", "a:\n  $regx: x\n").expect_err("unknown operator");
    assert_eq!((e.line, e.column), (2, 3));
    assert!(
        e.message
            .contains("unknown matcher `$regx` (did you mean `$regex`?)"),
        "{}",
        e.message
    );
    let e = Matcher::parse("m.yaml", "a: {$regex: \"(\"}\n").expect_err("bad regex");
    assert_eq!((e.line, e.column), (1, 13));
    let e = Matcher::parse("m.yaml", "{$type: str}").expect_err("bad type");
    assert_eq!((e.line, e.column), (1, 9));
    let e =
        Matcher::parse("m.yaml", "{$absent: true, $type: string}").expect_err("absent combined");
    assert_eq!((e.line, e.column), (1, 2));
    assert!(Matcher::parse("m.yaml", "{$gt: [1]}").is_err());
    assert!(Matcher::parse("m.yaml", "{$capture: \"a b\"}").is_err());
    assert!(Matcher::parse("m.yaml", "{$oneOf: []}").is_err());
    assert!(Matcher::parse("m.yaml", "{v: \"${unterminated\"}").is_err());
}

/// A tool's declared outputSchema, as `discover` would bind it.
fn typed_bindings(output_schema: Value) -> Bindings {
    let mut b = Bindings::new();
    b.set(
        "typed",
        json!([{"name": "measure", "outputSchema": output_schema}]),
    );
    b
}

const LENGTH_SCHEMA: &str = r#"{$schema: {type: object, properties: {length: {type: integer}, unit: {type: string}}, required: [length]}}"#;

#[test]
fn schema_valid() {
    ok(LENGTH_SCHEMA, json!({"length": 3, "unit": "m"}));
    ok(LENGTH_SCHEMA, json!({"length": 3.0}));
    ok("{$schema: true}", json!("anything"));
    // Drafts: 2020-12 by default (`prefixItems`), the schema's `$schema` otherwise.
    ok(
        "{$schema: {prefixItems: [{type: string}]}}",
        json!(["a", 1]),
    );
    bad("{$schema: {prefixItems: [{type: string}]}}", json!([1]));
    ok(
        r#"{$schema: {"$schema": "http://json-schema.org/draft-07/schema#", items: [{type: string}]}}"#,
        json!(["a", 1]),
    );
    bad(
        r#"{$schema: {"$schema": "http://json-schema.org/draft-07/schema#", items: [{type: string}]}}"#,
        json!([1]),
    );
    // Local `$ref`s resolve; `format` is an annotation only.
    ok(
        r##"{$schema: {"$defs": {n: {type: integer}}, properties: {a: {"$ref": "#/$defs/n"}}}}"##,
        json!({"a": 1}),
    );
    ok(
        "{$schema: {type: string, format: email}}",
        json!("not an email"),
    );
}

#[test]
fn schema_invalid_type_and_required() {
    assert_eq!(
        bad(LENGTH_SCHEMA, json!({"length": "3"})),
        [
            r#"result: expected conforms to the given schema; at /length: "3" is not of type "integer" (schema path /properties/length/type), actual {"length":"3"}"#
        ]
    );
    assert_eq!(
        bad(LENGTH_SCHEMA, json!({"unit": "m"})),
        [
            r#"result: expected conforms to the given schema; at (root): "length" is a required property (schema path /required), actual {"unit":"m"}"#
        ]
    );
    // At most three errors are listed, then a count.
    let out = bad(
        "{$schema: {items: {type: integer}}}",
        json!(["a", "b", "c", "d", "e"]),
    );
    assert_eq!(out.len(), 1);
    assert!(out[0].contains("at /2: "), "{out:?}");
    assert!(!out[0].contains("at /3: "), "{out:?}");
    assert!(out[0].contains("; and 2 more, actual"), "{out:?}");
    bad("{$schema: false}", json!(null));
}

#[test]
fn schema_invalid_schema_is_a_mismatch() {
    let check = |schema: Value, actual: Value| {
        let mut b = typed_bindings(schema);
        let out = run_with("{$schema: \"${typed.0.outputSchema}\"}", actual, &mut b);
        assert_eq!(out.len(), 1, "{out:?}");
        out.into_iter().next().unwrap_or_default()
    };
    let out = check(json!({"type": 5}), json!({}));
    assert!(
        out.starts_with("result: expected conforms to the given schema (the target's schema is invalid: at /type: "),
        "{out}"
    );
    let out = check(json!("object"), json!({}));
    assert!(
        out.contains("the target's schema is invalid: a JSON Schema is an object or a boolean, found a string"),
        "{out}"
    );
    let out = check(json!({"$ref": "#/$defs/missing"}), json!({}));
    assert!(out.contains("the target's schema is invalid"), "{out}");
    let out = check(
        json!({"properties": {"a": {"$ref": "https://example.invalid/a.json"}}}),
        json!({"a": 1}),
    );
    assert!(
        out.contains(r#"it refers to "https://example.invalid/a.json", and external `$ref`s are not resolved"#),
        "{out}"
    );
    let out = check(
        json!({"$schema": "https://example.invalid/meta"}),
        json!({}),
    );
    assert!(
        out.contains("its `$schema` \"https://example.invalid/meta\" is not a JSON Schema draft"),
        "{out}"
    );
    // A literal schema is the scenario's: an error when it loads, at the node.
    let e = Matcher::parse("m.yaml", "a:\n  $schema: {type: 5}\n").expect_err("invalid schema");
    assert_eq!((e.line, e.column), (2, 12));
    assert!(
        e.message
            .starts_with("invalid `$schema`: the schema is invalid: at /type: "),
        "{}",
        e.message
    );
    assert!(Matcher::parse("m.yaml", "{$schema: 3}").is_err());
}

#[test]
fn schema_from_bindings() {
    let schema = json!({
        "type": "object",
        "properties": {"length": {"type": "integer"}},
        "required": ["length"]
    });
    let yaml = "{structuredContent: {$schema: \"${typed.0.outputSchema}\"}}";
    assert!(m(yaml).variables() == ["typed.0.outputSchema"]);
    let mut b = typed_bindings(schema);
    assert!(run_with(yaml, json!({"structuredContent": {"length": 2}}), &mut b).is_empty());
    assert_eq!(
        run_with(yaml, json!({"structuredContent": {"length": 2.5}}), &mut b),
        [
            r#"result.structuredContent: expected conforms to the given schema; at /length: 2.5 is not of type "integer" (schema path /properties/length/type), actual {"length":2.5}"#
        ]
    );
    // Unbound: the scenario is at fault, as for any template.
    let unbound = m(yaml).check(
        Some(&json!({"structuredContent": {}})),
        "result",
        &mut Bindings::new(),
    );
    assert_eq!(
        unbound,
        Err(crate::TemplateError {
            name: "typed.0.outputSchema".into()
        })
    );
}

#[test]
fn schema_composes() {
    let yaml = "{$type: object, $schema: {required: [a]}, $capture: sc}";
    let mut b = Bindings::new();
    assert!(run_with(yaml, json!({"a": 1}), &mut b).is_empty());
    assert_eq!(b.get("sc"), Some(&json!({"a": 1})));
    let mut b = Bindings::new();
    assert_eq!(run_with(yaml, json!([]), &mut b).len(), 1); // not an object; `required` ignores arrays
    assert_eq!(run_with(yaml, json!({}), &mut b).len(), 1);
    assert_eq!(b.get("sc"), None);
    assert_eq!(m(yaml).describe(), "<object> and <conforms to schema>");
    ok(
        "{$oneOf: [{isError: true}, {structuredContent: {$schema: {type: object}}}]}",
        json!({"isError": true, "structuredContent": 1}),
    );
    bad(
        "{$oneOf: [{isError: true}, {structuredContent: {$schema: {type: object}}}]}",
        json!({"structuredContent": 1}),
    );
    ok("{$not: {$schema: {type: string}}}", json!(1));
}
