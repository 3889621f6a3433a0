use super::*;
use serde_json::json;

fn schema(props: Value) -> Value {
    json!({ "type": "object", "properties": props })
}

#[test]
fn valid_annotations_are_found_with_their_paths() {
    let s = schema(json!({
        "region": { "type": "string", "x-mcp-header": "Region" },
        "priority": { "type": "integer", "x-mcp-header": "Priority" },
        "query": { "type": "string" },
        "nested": { "type": "object", "properties": {
            "flag": { "type": "boolean", "x-mcp-header": "Flag" }
        } },
        "x-mcp-header": { "type": "string" }
    }));
    let mut found = annotations(&s).expect("valid");
    found.sort_by(|a, b| a.name.cmp(&b.name));
    let names: Vec<(&str, Vec<String>, Option<Kind>)> = found
        .iter()
        .map(|a| (a.name.as_str(), a.path.clone(), a.kind))
        .collect();
    assert_eq!(
        names,
        vec![
            (
                "Flag",
                vec!["nested".into(), "flag".into()],
                Some(Kind::Boolean)
            ),
            ("Priority", vec!["priority".into()], Some(Kind::Integer)),
            ("Region", vec!["region".into()], Some(Kind::String)),
        ]
    );
    assert_eq!(found[2].header(), "Mcp-Param-Region");
    assert_eq!(annotations(&schema(json!({}))), Ok(vec![]));
}

#[test]
fn each_broken_rule_makes_the_tool_invalid() {
    let bad = [
        json!({ "v": { "type": "string", "x-mcp-header": "" } }),
        json!({ "v": { "type": "object", "x-mcp-header": "Data" } }),
        json!({ "v": { "type": "array", "items": { "type": "string" }, "x-mcp-header": "Items" } }),
        json!({ "v": { "type": "null", "x-mcp-header": "Nil" } }),
        json!({ "v": { "type": "number", "x-mcp-header": "Score" } }),
        json!({ "a": { "type": "string", "x-mcp-header": "Region" },
                "b": { "type": "string", "x-mcp-header": "Region" } }),
        json!({ "a": { "type": "string", "x-mcp-header": "MyField" },
                "b": { "type": "string", "x-mcp-header": "myfield" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "My Region" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "Region:Primary" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "R\u{e9}gion" } }),
        json!({ "v": { "type": "string", "x-mcp-header": "Region\t1" } }),
        json!({ "v": { "type": "string", "x-mcp-header": 7 } }),
        json!({ "v": { "type": "array", "items": { "type": "string", "x-mcp-header": "Item" } } }),
        json!({ "v": { "anyOf": [{ "type": "string", "x-mcp-header": "Any" }] } }),
    ];
    for props in bad {
        assert!(annotations(&schema(props.clone())).is_err(), "{props}");
    }
    let defs =
        json!({ "type": "object", "$defs": { "r": { "type": "string", "x-mcp-header": "R" } } });
    assert!(annotations(&defs).is_err());
    let root = json!({ "type": "object", "x-mcp-header": "Root" });
    assert!(annotations(&root).is_err());
}

#[test]
fn untyped_parameters_are_not_judged() {
    let s = schema(json!({ "v": { "enum": ["a", "b"], "x-mcp-header": "V" } }));
    let found = annotations(&s).expect("not a clear breach");
    assert_eq!(found[0].kind, None);
}

#[test]
fn values_take_their_string_form() {
    assert_eq!(text_of(&json!("us-west1")).as_deref(), Some("us-west1"));
    assert_eq!(text_of(&json!(42)).as_deref(), Some("42"));
    assert_eq!(text_of(&json!(-7)).as_deref(), Some("-7"));
    assert_eq!(text_of(&json!(42.0)).as_deref(), Some("42"));
    assert_eq!(text_of(&json!(false)).as_deref(), Some("false"));
    assert_eq!(text_of(&json!(null)), None);
    assert_eq!(text_of(&json!(3.5)), None);
    assert_eq!(text_of(&json!({})), None);
}

#[test]
fn encoding_follows_the_spec_table() {
    assert_eq!(encode("us-west1"), "us-west1");
    assert_eq!(encode("us west 1"), "us west 1");
    assert_eq!(encode(""), "");
    assert_eq!(
        encode("Hello, \u{4e16}\u{754c}"),
        "=?base64?SGVsbG8sIOS4lueVjA==?="
    );
    assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert_eq!(encode("\tindented"), "=?base64?CWluZGVudGVk?=");
    assert_eq!(
        encode("=?base64?literal?="),
        "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
    );
    for text in [
        "us-west1",
        " padded ",
        "Hello, \u{4e16}\u{754c}",
        "=?base64?literal?=",
        "",
    ] {
        assert_eq!(
            decode(encode(text).as_bytes()).as_deref(),
            Some(text),
            "{text:?}"
        );
    }
}

#[test]
fn decoding_refuses_malformed_values_and_keeps_literals() {
    assert_eq!(decode(b"=?base64?SGVsbG8=?=").as_deref(), Some("Hello"));
    assert_eq!(decode(b"  us-west1 ").as_deref(), Some("us-west1"));
    assert_eq!(decode(b"=?base64?SGVsbG8?="), None, "padding missing");
    assert_eq!(decode(b"=?base64?SGVs!!!bG8=?="), None, "not the alphabet");
    assert_eq!(decode(b"=?base64?/w==?="), None, "not UTF-8");
    assert_eq!(decode("caf\u{e9}".as_bytes()), None);
    assert_eq!(decode(b"a\x01b"), None);
    assert_eq!(decode(b"SGVsbG8=").as_deref(), Some("SGVsbG8="));
    assert_eq!(
        decode(b"=?base64?SGVsbG8=").as_deref(),
        Some("=?base64?SGVsbG8=")
    );
    assert_eq!(
        decode(b"=?BASE64?SGVsbG8=?=").as_deref(),
        Some("=?BASE64?SGVsbG8=?=")
    );
}

#[test]
fn agreement_compares_integers_as_numbers() {
    assert!(agrees("42", &json!(42)));
    assert!(agrees("42.0", &json!(42)));
    assert!(!agrees("43", &json!(42)));
    assert!(agrees("true", &json!(true)));
    assert!(!agrees("True", &json!(true)));
    assert!(agrees("x", &json!("x")));
    assert!(!agrees("x ", &json!("x")));
}

#[test]
fn values_are_read_at_the_annotated_path() {
    let a = Annotation {
        path: vec!["outer".into(), "inner".into()],
        name: "In".into(),
        kind: Some(Kind::String),
    };
    assert_eq!(
        a.value_in(&json!({ "outer": { "inner": "v" } })),
        Some(&json!("v"))
    );
    assert_eq!(a.value_in(&json!({ "outer": { "inner": null } })), None);
    assert_eq!(a.value_in(&json!({ "outer": {} })), None);
}
