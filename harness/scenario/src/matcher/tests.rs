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
