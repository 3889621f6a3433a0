//! The scenario file schema (`schema/scenario.schema.json`): committed up to
//! date, a valid 2020-12 schema, accepting every file of the corpus and every
//! form the loader accepts, and rejecting broken files the loader rejects too.
//!
//! Regenerate the committed file after changing the loader's tables:
//! `MCPSPEC_BLESS=1 cargo test -p mcpspec-scenario --test file_schema`.

use mcpspec_scenario::file_schema::SCHEMA_PATH;
use mcpspec_scenario::{parse, scenario_file_schema, scenario_file_schema_text};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// YAML as editors (and the loader) read it: YAML 1.2, strict booleans.
fn yaml_to_json(text: &str) -> Value {
    let options = serde_saphyr::options! { strict_booleans: true };
    serde_saphyr::from_str_with_options::<Value>(text, options).expect("valid YAML")
}

/// The schema as 2020-12 (what it declares) and as draft 7 (what the YAML
/// language server behind most editors validates with): the two must agree.
struct Validators([(&'static str, jsonschema::Validator); 2]);

fn validators() -> Validators {
    let schema = scenario_file_schema();
    Validators([
        (
            "2020-12",
            jsonschema::draft202012::new(&schema).expect("the schema compiles"),
        ),
        (
            "draft 7",
            jsonschema::draft7::new(&schema).expect("the schema compiles as draft 7"),
        ),
    ])
}

/// The schema's complaints about `text`, one per line (empty: valid under
/// both drafts).
fn schema_errors(v: &Validators, text: &str) -> String {
    let instance = yaml_to_json(text);
    v.0.iter()
        .flat_map(|(draft, v)| {
            v.iter_errors(&instance)
                .take(5)
                .map(move |e| format!("  ({draft}) at `{}`: {e}", e.instance_path()))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether both drafts reject `text`.
fn rejected_by_both(v: &Validators, text: &str) -> bool {
    let instance = yaml_to_json(text);
    v.0.iter().all(|(_, v)| !v.is_valid(&instance))
}

#[test]
fn committed_schema_is_up_to_date() {
    let path = repo_root().join(SCHEMA_PATH);
    let generated = scenario_file_schema_text();
    if std::env::var_os("MCPSPEC_BLESS").is_some_and(|v| v == "1") {
        fs::create_dir_all(path.parent().expect("a parent")).expect("create schema/");
        fs::write(&path, &generated).expect("write the schema");
        return;
    }
    let committed = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{SCHEMA_PATH} differs from the schema generated from the loader's tables; regenerate it:\n  \
         MCPSPEC_BLESS=1 cargo test -p mcpspec-scenario --test file_schema"
    );
}

#[test]
fn schema_is_valid_2020_12() {
    let schema = scenario_file_schema();
    if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("not a valid 2020-12 schema: {e}");
    }
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_file_validates() {
    let v = validators();
    let mut files = Vec::new();
    yaml_files(&repo_root().join("scenarios"), &mut files);
    assert!(
        files.len() > 10,
        "found only {} scenario files",
        files.len()
    );
    let mut bad = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("readable");
        let label = file.display().to_string();
        if let Err(e) = parse(&label, &text) {
            bad.push(format!("{label}: the loader rejects it: {e}"));
            continue;
        }
        let errors = schema_errors(&v, &text);
        if !errors.is_empty() {
            bad.push(format!("{label}: the schema rejects it:\n{errors}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

const HEAD: &str = "id: server/example/schema
title: The schema agrees with the loader
requirements: [jsonrpc.message.valid]
level: must
";

/// A scenario of `HEAD`, `top` (more top-level keys) and `steps`.
fn scenario(top: &str, steps: &str) -> String {
    format!("{HEAD}{top}steps:\n{steps}")
}

/// Forms the loader accepts; together they use every key the schema knows.
fn accepted() -> Vec<(&'static str, String)> {
    let every_step = r#"  - send: { method: tools/list, params: { cursor: "${cursor?}" }, id: "custom-id" }
    as: list
    expect: { result: { tools: { $type: array } }, within: 2s }
    level: should
    requirement: tools.list.result-shape
    versions: [2025-11-25]
    note: free text
  - send: { method: ping, id: 7 }
    as: second
    lasts: 2s
  - expect: { response_to: list, result: { tools: [] } }
  - expect: { response_to: second, error: { code: -32601 }, within: 100ms }
  - notify: { method: notifications/cancelled, params: { requestId: "${list.id}" } }
  - notify: { method: notifications/initialized }
  - raw: '{"jsonrpc":"2.0","id":1,"method":5}'
  - raw: "{\"jsonrpc\":\"2.0\",\n\"id\":2}"
    newline: false
  - raw_hex: "7b 22 ff 22 7d 0a"
    newline: true
    expect: { id: null, error: { code: -32700 }, within: 1s }
  - raw_hex: ""
    expect: { id: "x", result: {} }
  - expect: { id: 7, error: { code: { $oneOf: [-32601, -32602] } } }
  - expect: { id: null }
  - expect: { notification: notifications/progress, params: { progress: { $type: number } }, within: 1s }
  - expect: { request: roots/list }
  - expect_silence: 300ms
    why: t
  - expect_silence: { for: 1m, all: true }
    why: t
  - expect_silence: { for: 2s, all: false, notification: notifications/message, params: { level: { $ne: emergency } } }
    why: t
  - repeat_until:
      send: { method: tools/list, params: { cursor: "${cursor?}" } }
      expect:
        result:
          tools: { $type: array, $collect: all_tools }
          nextCursor: { $optional: true, $type: string, $capture: cursor }
        within: 2s
      until: { unbound: cursor }
      max: 50
      unique_by: { list: all_tools, key: name }
  - repeat_until:
      send: { method: prompts/list }
      until: { unbound: next }
  - discover:
      list: tools/list
      into: tools
      where: { inputSchema: { properties: { duration: { $present: true } } } }
      require: 0
      header_param: param
  - discover: { list: resources/templates/list, into: templates }
  - sleep: 200ms
    why: t
  - assert:
      value: "${all_tools}"
      matches: { $len: { $gte: 1, $lte: "${tools.0.n}" }, $each: { $type: object } }
  - assert:
      value: { a: 1, $b: 2, "": 3 }
      matches:
        $eq: { a: 1, $b: 2, "": 3 }
        $not: { $type: [string, null] }
        $contains: 1
        $in: [1, "${version}"]
        $gt: 0
        $lt: 10.5
        $regex: "^x"
        a: { $absent: false, $present: true }
        c: { $absent: true, $present: false, $optional: false }
        "": 3
  - assert: { value: 1, matches: { $schema: { type: integer } } }
  - assert: { value: 1, matches: { $schema: "${tools.0.inputSchema}", $type: null } }
  - assert: { value: [1, 2], matches: [1, { $type: integer }] }
  - disconnect: {}
  - disconnect:
  - expect_exit: { within: 2s }
  - expect_exit:
"#;
    vec![
        (
            "every key and step form",
            scenario(
                "versions: [2025-06-18, 2025-11-25]\ntransports: [stdio, http]\nsession: initialized\nrequires:\n  capabilities: [tools, resources.subscribe]\ntimeout: 20s\nisolate: true\nnotes: >\n  Why.\n",
                every_step,
            ),
        ),
        ("versions: handshake", scenario("versions: handshake\n", "  - sleep: 1ms\n    why: t\n")),
        ("versions: all", scenario("versions: all\ntransports: all\n", "  - sleep: 1ms\n    why: t\n")),
        ("one version", scenario("versions: 2026-07-28\n", "  - sleep: 1ms\n    why: t\n")),
        ("fresh session", scenario("session: fresh\n", "  - send: { method: initialize, params: { protocolVersion: \"${version}\" } }\n")),
        ("empty requires", scenario("requires: {}\n", "  - sleep: 1ms\n    why: t\n")),
        (
            "an opt-in extension's scenario",
            scenario("extension: tasks\nversions: [2025-11-25]\n", "  - sleep: 1ms\n    why: t\n")
                .replace("[jsonrpc.message.valid]", "[tasks.errors]"),
        ),
        (
            "client capabilities and a reply to the server's request",
            scenario(
                "client_capabilities: { sampling: {}, elicitation: { form: {} } }\n",
                "  - expect: { request: sampling/createMessage }\n    as: asked\n  - reply: { to: asked, result: { model: m } }\n",
            ),
        ),
        ("title folded over lines", scenario("", "  - sleep: 1ms\n    why: t\n").replace(
            "title: The schema agrees with the loader",
            "title: >\n  One line\n  folded",
        )),
        ("step-level overrides", scenario("", "  - sleep: 1m\n    why: t\n    level: may\n    versions: all\n")),
        (
            "http steps",
            scenario(
                "transports: [http]\nrequires: { http_session: true }\n",
                r#"  - http:
      method: POST
      url: unknown_session
      session: omit
      protocol_version: "${version}"
      headers: { Accept: text/event-stream, Content-Type: null, Origin: "http://evil.example" }
      body: { jsonrpc: "2.0", id: 1, method: ping }
      read_for: 2s
    as: answer
    expect: { status: 404, headers: { content-type: { $regex: json } } }
  - http: { method: DELETE, url: /mcp, raw: "{", session: "x-${answer.response.status}" }
  - http: { method: GET, keep_open: true }
  - assume: { value: "${answer.response.status}", matches: 200, reason: the server answers 405 }
"#,
            ),
        ),
        (
            "authorization",
            scenario(
                "transports: [http]\nsession: fresh\nrequires: { auth: protected }\n",
                r#"  - http: { method: GET, url: "${auth.prm_url}", headers: { Authorization: null }, judge: protected_resource_metadata }
    expect: { status: 200 }
"#,
            ),
        ),
        (
            "client steps",
            scenario(
                "requires: { capabilities: [roots] }\n",
                r#"  - expect: { request: "*", params: { $type: object } }
    as: held
  - expect: { request: tools/call }
    as: call
  - send: { method: ping }
    expect: { result: {} }
  - reply: { to: held }
  - reply: { to: call, result: { content: [], structured: "${call.params.name}" } }
  - reply: { to: held, error: { code: -32603, message: boom } }
"#,
            )
            .replace("id: server/example/schema", "id: client/example/schema"),
        ),
        (
            "an owed request and the canary",
            scenario(
                "",
                r#"  - expect: { request: tools/list, owed: true, within: 2s }
    as: list
  - reply: { to: list, result: { tools: [{ name: t, inputSchema: { $ref: "${canary.url}" } }] } }
  - expect_no_fetch: 1s
    why: t
"#,
            )
            .replace("id: server/example/schema", "id: client/example/schema"),
        ),
        (
            "a reply on a resumed stream",
            scenario(
                "transports: [http]\n",
                r#"  - expect: { request: "*" }
    as: held
  - reply: { to: held, cut_stream: { retry: 1500ms, resume_within: 5s } }
"#,
            )
            .replace("id: server/example/schema", "id: client/example/schema"),
        ),
        (
            "a protected client case",
            scenario(
                "transports: [http]\nauth: { metadata_hint: well_known, scope: \"a b\", prm_resource: mismatch, iss: wrong, state: altered, token_auth: client_secret_basic, as_metadata: openid_only, token_use: refused, as_issuer: mismatch, as_pkce: absent, refresh_token: issued, step_up: \"mcp:admin\", iss_support: unadvertised, registration: refused_redirect, migration: after_token, scopes_supported: omitted, cimd: supported }\n",
                "  - assume: { value: \"${auth.tokens}\", matches: { $gte: 1 }, reason: no token }\n",
            )
            .replace("id: server/example/schema", "id: client/example/schema"),
        ),
    ]
}

#[test]
fn what_the_loader_accepts_the_schema_accepts() {
    let v = validators();
    for (name, text) in accepted() {
        if let Err(e) = parse("scenarios/server/example/schema.yaml", &text) {
            panic!("{name}: the loader rejects it: {e}");
        }
        let errors = schema_errors(&v, &text);
        assert!(
            errors.is_empty(),
            "{name}: the schema rejects it:\n{errors}\n{text}"
        );
    }
}

/// Every key any `properties` of the schema lists.
fn schema_keys(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                out.extend(props.keys().cloned());
            }
            m.values().for_each(|v| schema_keys(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| schema_keys(v, out)),
        _ => {}
    }
}

fn instance_keys(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(m) => {
            out.extend(m.keys().cloned());
            m.values().for_each(|v| instance_keys(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| instance_keys(v, out)),
        _ => {}
    }
}

/// A key the schema offers but the loader never accepted would be a false
/// completion: the accepted forms above must use every one.
#[test]
fn every_schema_key_is_accepted_somewhere() {
    let mut offered = BTreeSet::new();
    schema_keys(&scenario_file_schema(), &mut offered);
    let mut used = BTreeSet::new();
    for (_, text) in accepted() {
        instance_keys(&yaml_to_json(&text), &mut used);
    }
    let unused: Vec<&String> = offered.difference(&used).collect();
    assert!(unused.is_empty(), "no accepted form uses {unused:?}");
}

/// Broken files: the loader and the schema both reject each.
fn rejected() -> Vec<(&'static str, String)> {
    let ok = "  - sleep: 1ms\n    why: t\n";
    vec![
        ("unknown top-level key", scenario("owner: me\n", ok)),
        ("unknown extension", scenario("extension: bogus\n", ok)),
        (
            "unknown step kind",
            scenario("", "  - sned: { method: ping }\n"),
        ),
        ("sleep without why", scenario("", "  - sleep: 1ms\n")),
        (
            "expect_silence without why",
            scenario("", "  - expect_silence: { for: 1s, all: true }\n"),
        ),
        ("expect_no_fetch without why", scenario("", "  - expect_no_fetch: 1s\n")),
        ("empty why", scenario("", "  - sleep: 1ms\n    why: \" \"\n")),
        (
            "wrong level",
            scenario("", ok).replace("level: must", "level: required"),
        ),
        (
            "level in capitals",
            scenario("", ok).replace("level: must", "level: MUST"),
        ),
        (
            "bad version string",
            scenario("versions: [2025-01-01]\n", ok),
        ),
        (
            "keyword inside a version list",
            scenario("versions: [all]\n", ok),
        ),
        (
            "repeated version",
            scenario("versions: [2025-06-18, 2025-06-18]\n", ok),
        ),
        (
            "a step with two kinds",
            scenario(
                "",
                "  - send: { method: ping }\n    notify: { method: x }\n",
            ),
        ),
        ("a step with no kind", scenario("", "  - level: must\n")),
        (
            "a modifier of another kind",
            scenario("", "  - notify: { method: x }\n    as: label\n"),
        ),
        ("duration without a unit", scenario("timeout: 5\n", ok)),
        ("duration with a bad unit", scenario("", "  - sleep: 2h\n    why: t\n")),
        ("missing steps", HEAD.to_owned()),
        (
            "no steps",
            scenario("", "  []\n").replace("steps:\n  []", "steps: []"),
        ),
        (
            "id without a role",
            scenario("", ok).replace("id: server/example/schema", "id: example/schema"),
        ),
        (
            "two-line title",
            scenario("", ok).replace(
                "title: The schema agrees with the loader",
                "title: \"two\\nlines\"",
            ),
        ),
        (
            "no requirements",
            scenario("", ok).replace("[jsonrpc.message.valid]", "[]"),
        ),
        ("unknown session", scenario("session: stale\n", ok)),
        (
            "requires with a fresh session",
            scenario("session: fresh\nrequires: { capabilities: [tools] }\n", ok),
        ),
        (
            "a negotiated gate beside auth with a fresh session",
            scenario(
                "transports: [http]\nsession: fresh\nrequires: { auth: protected, http_session: true }\n",
                ok,
            ),
        ),
        (
            "unknown auth gate",
            scenario("transports: [http]\nrequires: { auth: maybe }\n", ok),
        ),
        (
            "unknown transport",
            scenario("transports: [carrier-pigeon]\n", ok),
        ),
        (
            "empty capability segment",
            scenario("requires: { capabilities: [resources..subscribe] }\n", ok),
        ),
        (
            "unknown matcher operator",
            scenario(
                "",
                "  - assert: { value: 1, matches: { $tpye: integer } }\n",
            ),
        ),
        (
            "unknown $type",
            scenario("", "  - assert: { value: 1, matches: { $type: strin } }\n"),
        ),
        (
            "$absent with others",
            scenario(
                "",
                "  - assert: { value: {}, matches: { a: { $absent: true, $type: string } } }\n",
            ),
        ),
        (
            "result and error",
            scenario(
                "",
                "  - send: { method: ping }\n    expect: { result: {}, error: {} }\n",
            ),
        ),
        (
            "two selectors",
            scenario("", "  - expect: { notification: a, request: b }\n"),
        ),
        (
            "params on a response",
            scenario("", "  - expect: { id: 1, params: {} }\n"),
        ),
        (
            "silence: params without notification",
            scenario("", "  - expect_silence: { for: 1s, params: {} }\n    why: t\n"),
        ),
        (
            "silence: all and notification",
            scenario(
                "",
                "  - expect_silence: { for: 1s, all: true, notification: x }\n    why: t\n",
            ),
        ),
        (
            "raw_hex with an odd digit",
            scenario("", "  - raw_hex: \"7b 2\"\n"),
        ),
        (
            "raw_hex with a non-hex pair",
            scenario("", "  - raw_hex: \"zz\"\n"),
        ),
        (
            "max 0",
            scenario(
                "",
                "  - repeat_until: { send: { method: x }, until: { unbound: c }, max: 0 }\n",
            ),
        ),
        (
            "discover an unknown list",
            scenario("", "  - discover: { list: things/list, into: things }\n"),
        ),
        (
            "a bad label",
            scenario("", "  - send: { method: ping }\n    as: 1st\n"),
        ),
        (
            "disconnect with a key",
            scenario("", "  - disconnect: { now: true }\n"),
        ),
        (
            "send id of the wrong type",
            scenario("", "  - send: { method: ping, id: [1] }\n"),
        ),
    ]
}

#[test]
fn what_the_schema_rejects_the_loader_rejects() {
    let v = validators();
    for (name, text) in rejected() {
        assert!(
            parse("scenarios/server/example/schema.yaml", &text).is_err(),
            "{name}: the loader accepts it\n{text}"
        );
        assert!(
            rejected_by_both(&v, &text),
            "{name}: the schema accepts it (as 2020-12 or as draft 7)\n{text}"
        );
    }
}
