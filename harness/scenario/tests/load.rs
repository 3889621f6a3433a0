//! Loading scenario files: a full parse, error positions, corpus rules, and
//! the embedded corpus itself.

use mcpspec_scenario::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

const FULL: &str = r#"# A scenario exercising every step kind.
id: server/example/full
title: Every step kind parses
requirements: [lifecycle.initialize.result-shape, pagination.cursor.terminates]
level: must
versions: [2025-06-18, 2025-11-25]
transports: [stdio, http]
requires:
  capabilities: [tools, resources.subscribe]
timeout: 20s
notes: >
  Why it is shaped this way.
steps:
  - send:
      method: tools/list
      params: { cursor: "${cursor?}" }
      id: "custom-id"
    as: list
    expect:
      result: { tools: { $type: array } }
      within: 2s
  - expect: { response_to: list, result: { tools: [] } }
    level: should
    requirement: tools.list.result-shape
    versions: [2025-11-25]
    note: checks again
  - notify: { method: notifications/cancelled, params: { requestId: "${list.id}" } }
  - raw: '{"jsonrpc":"2.0","id":1,"method":5}'
  - raw: "{\"jsonrpc\":\"2.0\",\n\"id\":2}"
    newline: false
  - raw_hex: "7b 22 ff 22 7d 0a"
    expect: { id: null, error: { code: -32700 } }
  - expect: { notification: notifications/progress, params: { progress: { $type: number } }, within: 1s }
  - expect: { request: roots/list }
  - expect: { id: 7, error: { code: { $oneOf: [-32601, -32602] } } }
  - expect_silence: 300ms
    why: t
  - expect_silence: { for: 1m, all: true }
    why: t
  - repeat_until:
      send: { method: tools/list, params: { cursor: "${cursor?}" } }
      expect:
        result:
          tools: { $type: array, $collect: all_tools }
          nextCursor: { $optional: true, $type: string, $capture: cursor }
      until: { unbound: cursor }
      max: 50
      unique_by: { list: all_tools, key: name }
  - discover:
      list: tools/list
      into: tools
      where: { inputSchema: { properties: { duration: { $present: true } } } }
      require: 2
  - sleep: 200ms
    why: t
  - disconnect: {}
  - expect_exit: { within: 2s }
  - assert:
      value: "${all_tools}"
      matches: { $len: { $gte: 1 } }
"#;

#[test]
fn full_scenario_parses() {
    let s = parse("scenarios/server/example/full.yaml", FULL).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.id, "server/example/full");
    assert_eq!(s.level, Level::Must);
    assert_eq!(s.versions, [Version::V2025_06_18, Version::V2025_11_25]);
    assert_eq!(s.transports, [TransportKind::Stdio, TransportKind::Http]);
    assert_eq!(s.session, SessionMode::Initialized);
    assert_eq!(s.requires.capabilities, ["tools", "resources.subscribe"]);
    assert_eq!(s.timeout, Some(Duration::from_secs(20)));
    assert_eq!(s.notes.as_deref(), Some("Why it is shaped this way."));
    assert_eq!(s.source.path, "scenarios/server/example/full.yaml");
    assert_eq!((s.source.line, s.source.column), (2, 1));
    assert_eq!(
        s.requirement_ids(),
        [
            "lifecycle.initialize.result-shape",
            "pagination.cursor.terminates",
            "tools.list.result-shape"
        ]
    );
    let keys: Vec<&str> = s.steps.iter().map(Step::key).collect();
    assert_eq!(
        keys,
        [
            "send",
            "expect",
            "notify",
            "raw",
            "raw",
            "raw_hex",
            "expect",
            "expect",
            "expect",
            "expect_silence",
            "expect_silence",
            "repeat_until",
            "discover",
            "sleep",
            "disconnect",
            "expect_exit",
            "assert"
        ]
    );
    let first = &s.steps[0];
    assert_eq!((first.at.line, first.at.column), (14, 5));
    let StepKind::Send(send) = &first.kind else {
        panic!("send")
    };
    assert_eq!(send.method, "tools/list");
    assert_eq!(send.label.as_deref(), Some("list"));
    assert_eq!(
        send.id.as_ref().map(Template::value),
        Some(&json!("custom-id"))
    );
    let expect = send.expect.as_ref().expect("expect");
    assert_eq!(expect.within, Some(Duration::from_secs(2)));
    assert_eq!(
        expect.result.as_ref().map(Matcher::describe).as_deref(),
        Some("{tools: <array>}")
    );
    assert_eq!(
        send.params
            .as_ref()
            .expect("params")
            .render(&Bindings::new()),
        Ok(json!({}))
    );

    let second = &s.steps[1];
    assert_eq!(second.level, Some(Level::Should));
    assert_eq!(
        second.versions.as_deref(),
        Some(&[Version::V2025_11_25][..])
    );
    assert!(!second.applies_to(Version::V2025_06_18));
    let StepKind::Expect(e) = &second.kind else {
        panic!("expect")
    };
    assert_eq!(e.selector, Selector::ResponseTo("list".into()));

    let StepKind::Raw(raw) = &s.steps[3].kind else {
        panic!("raw")
    };
    assert_eq!(
        raw.render(&Bindings::new()).expect("renders"),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}\n"
    );
    let StepKind::Raw(raw) = &s.steps[4].kind else {
        panic!("raw")
    };
    assert_eq!(
        raw.render(&Bindings::new()).expect("renders"),
        b"{\"jsonrpc\":\"2.0\",\n\"id\":2}"
    );
    let StepKind::Raw(raw) = &s.steps[5].kind else {
        panic!("raw_hex")
    };
    assert_eq!(
        raw.bytes,
        RawBytes::Hex(vec![0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a])
    );
    assert!(!raw.newline);
    assert_eq!(
        raw.expect
            .as_ref()
            .and_then(|e| e.id.as_ref())
            .map(Template::value),
        Some(&json!(null))
    );

    let StepKind::Expect(e) = &s.steps[8].kind else {
        panic!("expect")
    };
    assert_eq!(e.selector, Selector::Id(json!(7)));
    assert!(matches!(
        s.steps[10].kind,
        StepKind::ExpectSilence { duration, all: true, .. } if duration == Duration::from_secs(60)
    ));
    let StepKind::RepeatUntil(r) = &s.steps[11].kind else {
        panic!("repeat_until")
    };
    assert_eq!((r.until_unbound.as_str(), r.max), ("cursor", 50));
    assert_eq!(
        r.unique_by,
        Some(UniqueBy {
            list: "all_tools".into(),
            key: "name".into()
        })
    );
    let StepKind::Discover(d) = &s.steps[12].kind else {
        panic!("discover")
    };
    assert_eq!(
        (
            d.list.as_str(),
            d.into.as_str(),
            d.require,
            d.items_member()
        ),
        ("tools/list", "tools", 2, "tools")
    );
    assert!(
        matches!(s.steps[15].kind, StepKind::ExpectExit { within } if within == Duration::from_secs(2))
    );
}

#[test]
fn defaults_resolve() {
    let s = parse(
        "x.yaml",
        "id: server/x\ntitle: t\nrequirements: [ping.respond]\nlevel: may\nsteps:\n  - sleep: 1s\n    why: t\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.versions, Version::HANDSHAKE);
    assert_eq!(
        s.transports,
        [
            TransportKind::Stdio,
            TransportKind::Http,
            TransportKind::Sse
        ]
    );
    assert_eq!(s.timeout_or_default(), Duration::from_secs(30));
    let all = parse("x.yaml", "id: client/x\ntitle: t\nrequirements: [ping.respond]\nlevel: may\nversions: all\nsession: fresh\nsteps:\n  - disconnect: {}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(all.versions, Version::ALL);
    assert_eq!(all.session, SessionMode::Fresh);
}

const HEAD: &str = "id: server/x\ntitle: t\nrequirements: [ping.respond]\nlevel: must\n";

/// Parse `HEAD` + `rest`; the error's line, column and message.
fn error(rest: &str) -> (usize, usize, String) {
    let text = format!("{HEAD}{rest}");
    match parse("x.yaml", &text) {
        Ok(_) => panic!("should not parse:\n{text}"),
        Err(e) => (e.line, e.column, e.message),
    }
}

#[test]
fn timed_steps_without_why_are_refused_where_written() {
    let timed = [
        ("sleep", "  - sleep: 1s\n"),
        ("expect_silence", "  - expect_silence: 500ms\n"),
        (
            "expect_silence",
            "  - expect_silence: { for: 1s, all: true }\n",
        ),
        ("expect_no_fetch", "  - expect_no_fetch: 1s\n"),
    ];
    for (key, step) in timed {
        let (line, col, msg) = error(&format!(
            "steps:\n  - send: {{ method: ping }}\n{step}    note: a note is no reason\n"
        ));
        assert_eq!((line, col), (7, 5), "{key}: {msg}");
        assert!(
            msg.starts_with(&format!("a `{key}` step costs its full time")),
            "{msg}"
        );
        assert!(msg.contains("needs `why:`"), "{msg}");
        assert!(msg.contains("what the wait waits out"), "{msg}");
    }
    let (line, col, msg) = error("steps:\n  - sleep: 1s\n    why: \"  \"\n");
    assert_eq!(
        (line, col, msg.as_str()),
        (7, 10, "`why` must not be empty")
    );
    // Other steps may say why, and need not.
    let text = format!(
        "{HEAD}steps:\n  - send: {{ method: ping }}\n    expect: {{ within: 2s }}\n    why: answers are quick\n  - sleep: 10ms\n    why: \" lets the log flush \"\n"
    );
    let s = parse("x.yaml", &text).expect("parses");
    assert_eq!(s.steps[0].why.as_deref(), Some("answers are quick"));
    assert_eq!(s.steps[1].why.as_deref(), Some("lets the log flush"));
}

#[test]
fn unknown_step_key_is_located_and_names_valid_keys() {
    let (line, col, msg) = error("steps:\n  - sleep: 1s\n    why: t\n  - sned: { method: ping }\n");
    assert_eq!((line, col), (8, 5));
    assert!(
        msg.starts_with("unknown step key `sned` (did you mean `send`?)"),
        "{msg}"
    );
    assert!(
        msg.contains("send, notify, raw, raw_hex, expect, reply, expect_silence"),
        "{msg}"
    );
    let text = format!("{HEAD}steps:\n  - sned: {{}}\n");
    let e = parse("x.yaml", &text).expect_err("unknown step key");
    assert!(
        e.to_string()
            .starts_with("x.yaml:6:5: error in scenario file: unknown step key `sned`"),
        "{e}"
    );
    assert!(
        e.to_string()
            .ends_with("\n  |\n6 |   - sned: {}\n  |     ^"),
        "{e}"
    );
}

#[test]
fn requirement_ids_are_checked_against_the_catalogue_where_written() {
    // In `requirements`: the id itself is pointed at, with the nearest catalogued id.
    let text = "id: server/x\ntitle: t\nrequirements: [ping.respond, ping.respnd]\nlevel: must\nsteps:\n  - sleep: 1s\n    why: t\n";
    let e = parse("x.yaml", text).expect_err("an unknown id");
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("x.yaml", 3, 30),
        "{e}"
    );
    assert_eq!(
        e.message,
        "unknown requirement id \"ping.respnd\" (did you mean \"ping.respond\"?): it is not in the requirement catalogue (see `mcpspec list --requirements`)"
    );
    assert_eq!(e.snippet, "requirements: [ping.respond, ping.respnd]");
    // In a step's `requirement`; nothing is suggested when nothing is near.
    let (line, col, msg) =
        error("steps:\n  - sleep: 1s\n    requirement: zzz.nothing\n    why: t\n");
    assert_eq!((line, col), (7, 18), "{msg}");
    assert_eq!(
        msg,
        "unknown requirement id \"zzz.nothing\": it is not in the requirement catalogue (see `mcpspec list --requirements`)"
    );
}

#[test]
fn requirement_ids_apply_to_a_version_they_run_at() {
    // ping.respond is not part of 2026-07-28.
    let text = "id: server/x\ntitle: t\nrequirements: [ping.respond]\nlevel: must\nversions: [2026-07-28]\nsteps:\n  - sleep: 1s\n    why: t\n";
    let e = parse("x.yaml", text).expect_err("outside its versions");
    assert_eq!((e.line, e.column), (3, 16), "{e}");
    assert_eq!(
        e.message,
        "requirement \"ping.respond\" does not apply to 2026-07-28 (it applies to 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)"
    );
    // A step's requirement counts the versions the step runs at: the
    // scenario's (all four handshake versions), narrowed by the step's own.
    let step = |versions: &str| {
        format!("steps:\n  - sleep: 1s\n    requirement: tools.output-schema.conform\n    why: t\n{versions}")
    };
    let (line, col, msg) = error(&step("    versions: [2024-11-05, 2025-03-26]\n"));
    assert_eq!((line, col), (7, 18), "{msg}");
    assert!(
        msg.starts_with("requirement \"tools.output-schema.conform\" does not apply to 2024-11-05, 2025-03-26 (it applies to 2025-06-18"),
        "{msg}"
    );
    for versions in ["", "    versions: [2024-11-05, 2025-06-18]\n"] {
        let text = format!("{HEAD}{}", step(versions));
        if let Err(e) = parse("x.yaml", &text) {
            panic!("{e}");
        }
    }
}

#[test]
fn bad_duration_is_located() {
    let (line, col, msg) =
        error("steps:\n  - send: { method: ping }\n    expect: { within: 2 seconds }\n");
    assert_eq!((line, col), (7, 23));
    assert!(msg.contains("invalid duration \"2 seconds\""), "{msg}");
    let (line, col, msg) = error("timeout: 20\nsteps:\n  - sleep: 1s\n    why: t\n");
    assert_eq!((line, col), (5, 10));
    assert!(msg.contains("no unit"), "{msg}");
}

#[test]
fn bad_regex_is_located() {
    let (line, col, msg) = error(
        "steps:\n  - send: { method: initialize }\n    expect:\n      result:\n        protocolVersion: { $regex: \"[0-9\" }\n",
    );
    assert_eq!((line, col), (9, 36));
    assert!(msg.starts_with("invalid `$regex`"), "{msg}");
}

#[test]
fn wrong_type_for_level_is_located() {
    let text = "id: server/x\ntitle: t\nrequirements: [ping.respond]\nlevel: [must]\nsteps:\n  - sleep: 1s\n    why: t\n";
    let e = parse("x.yaml", text).expect_err("level is a list");
    assert_eq!((e.line, e.column), (4, 8));
    assert_eq!(
        e.message,
        "`level` must be must, should or may, found a list"
    );
    let (line, col, msg) = error("steps:\n  - sleep: 1s\n    level: 3\n    why: t\n");
    assert_eq!((line, col), (7, 12));
    assert!(msg.contains("found a number"), "{msg}");
}

#[test]
fn yes_is_not_a_boolean() {
    let (line, col, msg) = error("steps:\n  - raw: x\n    newline: yes\n");
    assert_eq!((line, col), (7, 14));
    assert_eq!(
        msg,
        "expected `true` or `false` for `newline`, found the string \"yes\""
    );
    // As a matcher, `yes` is the string "yes".
    let m = Matcher::parse("m.yaml", "{ok: yes}").expect("compiles");
    assert!(m
        .matches(Some(&json!({"ok": "yes"})), &mut Bindings::new())
        .expect("bound"));
    assert!(!m
        .matches(Some(&json!({"ok": true})), &mut Bindings::new())
        .expect("bound"));
}

#[test]
fn validation_rules() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        ("session: fresh\nrequires: { capabilities: [tools] }\nsteps:\n  - sleep: 1s\n    why: t\n", (6, 1), "`requires` cannot be used with `session: fresh`"),
        ("steps:\n  - expect: { within: 1s }\n", (6, 13), "`expect` needs a selector"),
        ("steps:\n  - raw: x\n    raw_hex: \"00\"\n", (7, 5), "exactly one step key, found `raw` and `raw_hex`"),
        ("steps:\n  - expect: { response_to: later }\n  - send: { method: ping }\n    as: later\n", (6, 28), "names no label defined by an earlier `send`"),
        ("steps:\n  - notify: { method: x }\n    as: y\n", (7, 5), "unknown key `as` in a `notify` step"),
        ("versions: [2025-01-01]\nsteps:\n  - sleep: 1s\n    why: t\n", (5, 12), "unknown protocol version"),
        ("requirement: a\nsteps:\n  - sleep: 1s\n    why: t\n", (5, 1), "unknown key `requirement` in the scenario (did you mean `requirements`?)"),
        ("steps: []\n", (5, 8), "at least one step"),
        ("steps:\n  - expect: { notification: x, result: {} }\n", (6, 32), "`result` does not apply to `notification`"),
        ("steps:\n  - send: { method: x }\n    expect: { result: {}, error: {} }\n", (7, 27), "cannot both be given"),
        ("steps:\n  - raw_hex: \"7b 2\"\n", (6, 14), "odd number of hex digits"),
        ("steps:\n  - send: { method: x, params: { a: \"${b\" } }\n", (6, 37), "unterminated"),
        ("steps:\n  - {}\n", (6, 5), "a step needs a step key"),
        ("steps:\n  - sleep: 1s\n    why: t\n  - notify: { method: x, params: { id: \"${call.id}\" } }\n", (8, 5), "uses `${call.id}`, which neither the runner nor an earlier step binds"),
        ("session: fresh\nsteps:\n  - assert: { value: \"${init}\", matches: {} }\n", (7, 5), "uses `${init}`"),
    ];
    for (rest, at, needle) in cases {
        let (line, col, msg) = error(rest);
        assert!(msg.contains(needle), "{rest}: {msg}");
        assert_eq!((line, col), *at, "{rest}: {msg}");
    }
    // Steps of one role only (HEAD is a server scenario).
    let role_cases: &[(&str, (usize, usize), &str)] = &[
        ("steps:\n  - expect: { request: x }\n    as: r\n  - reply: { to: r }\n", (8, 5), "`reply` without `result` or `error` answers as the harness's fixture server"),
        ("client_capabilities: [sampling]\nsteps:\n  - sleep: 1s\n    why: t\n", (5, 22), "`client_capabilities` must be a map"),
        ("steps:\n  - expect: { request: \"*\" }\n", (6, 5), "is for client scenarios"),
        ("steps:\n  - expect: { notification: x }\n    as: n\n", (7, 5), "it needs `expect: { request: ... }`"),
        ("steps:\n  - reply: { to: nobody }\n", (6, 18), "names no label defined by an earlier `expect: { request }`"),
        ("steps:\n  - expect: { request: x }\n    as: r\n  - reply: { to: r, result: {}, error: {} }\n", (8, 33), "cannot both be given"),
        ("steps:\n  - expect_no_fetch: 1s\n    why: t\n", (6, 5), "only client scenarios (`client/...`) have a canary URL"),
        ("steps:\n  - expect: { notification: x, owed: true }\n", (6, 38), "`owed` applies to `expect: { request }` only"),
    ];
    for (rest, at, needle) in role_cases {
        let (line, col, msg) = error(rest);
        assert!(msg.contains(needle), "{rest}: {msg}");
        assert_eq!((line, col), *at, "{rest}: {msg}");
    }
    let client = |steps: &str| {
        parse(
            "x.yaml",
            &format!("id: client/x\ntitle: t\nrequirements: [ping.respond]\nlevel: must\nsteps:\n{steps}"),
        )
    };
    let e = client("  - discover: { list: tools/list, into: t }\n").expect_err("server-only step");
    assert!(
        e.message
            .contains("client scenarios (`client/...`) cannot use it"),
        "{e}"
    );
    // A cut response stream: Streamable HTTP only, and only for a client.
    let cut = "  - expect: { request: \"*\" }\n    as: held\n  - reply: { to: held, cut_stream: { retry: 1500ms } }\n";
    let e = client(cut).expect_err("cut_stream over every transport");
    assert!(
        e.message.contains("give the scenario `transports: [http]`"),
        "{e}"
    );
    let ok = parse(
        "x.yaml",
        &format!("id: client/x\ntitle: t\nrequirements: [ping.respond]\nlevel: must\ntransports: [http]\nsteps:\n{cut}"),
    )
    .expect("cut_stream over Streamable HTTP");
    let mcpspec_scenario::StepKind::Reply(r) = &ok.steps[1].kind else {
        panic!("a reply step");
    };
    assert_eq!(
        r.cut_stream,
        Some(mcpspec_scenario::CutStream {
            retry: Some(std::time::Duration::from_millis(1500)),
            resume_within: mcpspec_scenario::CutStream::DEFAULT_RESUME_WITHIN,
        })
    );
    let e = error("transports: [http]\nsteps:\n  - expect: { request: x }\n    as: r\n  - reply: { to: r, result: {}, cut_stream: {} }\n").2;
    assert!(
        e.contains("only client scenarios (`client/...`) serve one"),
        "{e}"
    );
    let ok = client("  - expect: { request: \"*\" }\n    as: held\n  - reply: { to: held, result: { x: \"${held.id}\" } }\n")
        .expect("a client scenario with reply");
    assert_eq!(ok.steps[1].key(), "reply");
    assert!(!ok.uses_canary());
    // An owed request; the canary URL is bound only where a step judges it.
    let owed = client("  - expect: { request: tools/list, owed: true }\n    as: l\n  - reply: { to: l, result: { u: \"${canary.url}\" } }\n  - expect_no_fetch: 1s\n    why: t\n")
        .expect("an owed request and a canary");
    assert!(owed.uses_canary());
    assert!(matches!(&owed.steps[0].kind, mcpspec_scenario::StepKind::Expect(e) if e.owed));
    let e =
        client("  - reply: { to: x, result: { u: \"${canary.url}\" } }\n").expect_err("no canary");
    assert!(
        e.message.contains("names no label") || e.message.contains("${canary.url}"),
        "{e}"
    );
    let e = client("  - expect: { request: tools/list }\n    as: l\n  - reply: { to: l, result: { u: \"${canary.url}\" } }\n")
        .expect_err("canary unbound without expect_no_fetch");
    assert!(e.message.contains("`${canary.url}`"), "{e}");
    let e = parse(
        "x.yaml",
        "id: client/x\ntitle: t\nrequirements: [ping.respond]\nlevel: must\nclient_capabilities: {}\nsteps:\n  - sleep: 1s\n    why: t\n",
    )
    .expect_err("client_capabilities in a client scenario");
    assert!(e.message.contains("only server scenarios"), "{e}");
    // A server scenario answers the server's own request with a result it gives.
    let server = parse(
        "x.yaml",
        "id: server/x\ntitle: t\nrequirements: [ping.respond]\nlevel: must\nclient_capabilities: { sampling: {} }\nsteps:\n  - expect: { request: sampling/createMessage }\n    as: asked\n  - reply: { to: asked, result: { model: m, id: \"${asked.id}\" } }\n",
    )
    .expect("a server scenario that answers a server request");
    assert_eq!(server.client_capabilities, json!({ "sampling": {} }));
    assert_eq!(server.steps[1].key(), "reply");
    for bad_id in ["Server/x", "other/x", "server"] {
        let text = format!(
            "id: {bad_id}\ntitle: t\nrequirements: [ping.respond]\nlevel: must\nsteps:\n  - sleep: 1s\n    why: t\n"
        );
        let e = parse("x.yaml", &text).expect_err("bad id");
        assert_eq!((e.line, e.column), (1, 5), "{e}");
    }
    let e = parse("x.yaml", "id: server/x\nsteps: [").expect_err("syntax");
    assert!(e.message.starts_with("invalid YAML"), "{e}");
    let e = parse("x.yaml", "title: t\n").expect_err("missing id");
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (1, 1, "the scenario is missing `id`")
    );
}

/// A fresh empty folder under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-scenario-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn scenario_text(id: &str, title: &str) -> String {
    format!("id: {id}\ntitle: {title}\nrequirements: [ping.respond]\nlevel: must\nsteps:\n  - sleep: 1s\n    why: t\n")
}

#[test]
fn load_dir_checks_id_against_path() {
    let dir = temp_dir("idpath");
    write(&dir, "server/a/b.yaml", &scenario_text("server/a/b", "ok"));
    write(
        &dir,
        "server/a/c.yaml",
        &scenario_text("server/a/wrong", "bad"),
    );
    write(&dir, "README.md", "not a scenario");
    let errors = load_dir(&dir).expect_err("id mismatch");
    assert_eq!(errors.len(), 1);
    assert_eq!((errors[0].line, errors[0].column), (1, 5));
    assert!(errors[0].file.ends_with("server/a/c.yaml"), "{}", errors[0]);
    assert!(
        errors[0].message.contains("expected \"server/a/c\""),
        "{}",
        errors[0]
    );
    std::fs::remove_file(dir.join("server/a/c.yaml")).expect("rm");
    let loaded = load_dir(&dir).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(loaded.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corpus_extra_dirs_replace_by_id() {
    let one = temp_dir("override1");
    let two = temp_dir("override2");
    write(
        &one,
        "server/o/x.yaml",
        &scenario_text("server/o/x", "from one"),
    );
    write(
        &one,
        "server/o/y.yaml",
        &scenario_text("server/o/y", "only in one"),
    );
    write(
        &two,
        "server/o/x.yaml",
        &scenario_text("server/o/x", "from two"),
    );
    // Replace an embedded scenario too, when there is one.
    let replaced = embedded()
        .first()
        .map(|(rel, _)| rel.trim_end_matches(".yaml").to_owned());
    if let Some(id) = &replaced {
        write(&two, &format!("{id}.yaml"), &scenario_text(id, "replaced"));
    }
    let corpus = Corpus::load(&[one.clone(), two.clone()]).unwrap_or_else(|e| {
        panic!(
            "{}",
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    assert_eq!(
        corpus.get("server/o/x").map(|s| s.title.as_str()),
        Some("from two")
    );
    assert_eq!(
        corpus.get("server/o/y").map(|s| s.title.as_str()),
        Some("only in one")
    );
    if let Some(id) = &replaced {
        let s = corpus.get(id).expect("still there");
        assert_eq!(s.title, "replaced");
        assert!(!s.source.path.starts_with("<embedded>"));
    }
    assert_eq!(corpus.scenarios.len(), embedded().len() + 2);
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&two);
}

#[test]
fn embedded_corpus_parses() {
    let mut errors = Vec::new();
    for (rel, text) in embedded() {
        let label = format!("<embedded>/{rel}");
        match parse(&label, text) {
            Ok(s) if format!("{}.yaml", s.id) != *rel => {
                errors.push(format!("{label}: id {:?} does not match the path", s.id))
            }
            Ok(_) => {}
            Err(e) => errors.push(e.to_string()),
        }
    }
    assert!(
        errors.is_empty(),
        "{} of {} files fail:\n\n{}",
        errors.len(),
        embedded().len(),
        errors.join("\n\n")
    );
}

#[test]
fn expect_silence_can_name_a_notification_and_its_params() {
    let text = format!(
        "{HEAD}steps:\n  - expect_silence: {{ for: 2s, notification: notifications/message, params: {{ level: {{ $ne: emergency }} }} }}\n    why: t\n"
    );
    let s = parse("x.yaml", &text).expect("parses");
    let StepKind::ExpectSilence {
        notification,
        params,
        all,
        ..
    } = &s.steps[0].kind
    else {
        panic!("expect_silence")
    };
    assert_eq!(notification.as_deref(), Some("notifications/message"));
    assert!(params.is_some() && !all);
    let (line, col, msg) =
        error("steps:\n  - expect_silence: { for: 1s, params: {} }\n    why: t\n");
    assert_eq!((line, col), (6, 40));
    assert!(msg.contains("needs `notification`"), "{msg}");
    let (_, _, msg) = error(
        "steps:\n  - expect_silence: { for: 1s, all: true, notification: notifications/message }\n    why: t\n",
    );
    assert!(msg.contains("contradict"), "{msg}");
}

/// An extension's scenario names only that extension's rules, and no other
/// scenario names them; the name must be a known extension. Each error
/// points at the offending node.
#[test]
fn extension_scenarios_keep_to_their_extension() {
    let file = |top: &str, reqs: &str, steps: &str| {
        format!("id: server/x\ntitle: t\nrequirements: [{reqs}]\nlevel: must\nversions: [2025-11-25]\n{top}steps:\n{steps}")
    };
    let sleep = "  - sleep: 1ms\n    why: t\n";
    let ok = parse("x.yaml", &file("extension: tasks\n", "tasks.errors", sleep))
        .expect("an extension scenario naming its own rule");
    assert_eq!(ok.extension, Some("tasks"));
    assert_eq!(
        parse("x.yaml", &file("", "ping.respond", sleep))
            .expect("a core scenario")
            .extension,
        None
    );
    let cases: &[(String, (usize, usize), &str)] = &[
        (
            file("", "tasks.errors", sleep),
            (3, 16),
            "belongs to the opt-in extension \"tasks\"",
        ),
        (
            file("extension: tasks\n", "ping.respond", sleep),
            (3, 16),
            "is a core rule",
        ),
        (
            file(
                "extension: tasks\n",
                "tasks.errors",
                "  - sleep: 1ms\n    requirement: ping.respond\n    why: t\n",
            ),
            (9, 18),
            "is a core rule",
        ),
        (
            file("extension: bogus\n", "ping.respond", sleep),
            (6, 12),
            "unknown extension \"bogus\" (known: tasks, skills)",
        ),
    ];
    for (text, at, needle) in cases {
        let e = parse("x.yaml", text).expect_err("refused");
        assert!(e.message.contains(needle), "{text}: {e}");
        assert_eq!((e.line, e.column), *at, "{text}: {e}");
    }
}

#[test]
fn an_auth_block_scripts_a_protected_client_case() {
    let head =
        "id: client/x\ntitle: t\nrequirements: [auth.pkce]\nlevel: must\nversions: [2025-11-25]\n";
    let steps = "steps:\n  - assert: { value: \"${auth.tokens}\", matches: { $gte: 1 } }\n";
    let s = parse(
        "x.yaml",
        &format!("{head}transports: [http]\nauth: {{ iss: wrong, scope: \"a b\" }}\n{steps}"),
    )
    .expect("a protected client scenario");
    let auth = s.auth.expect("the auth block");
    assert_eq!(
        (auth.iss.as_str(), auth.scope.as_deref()),
        ("wrong", Some("a b"))
    );
    assert_eq!(auth.state, "echo", "unnamed fields take their defaults");
    // HTTP only: the gate stands in front of the Streamable HTTP endpoint.
    let e = parse("x.yaml", &format!("{head}auth: {{}}\n{steps}")).expect_err("every transport");
    assert!(e.message.contains("transports: [http]"), "{e}");
    // A word outside its choices is refused, naming them.
    let e = parse(
        "x.yaml",
        &format!("{head}transports: [http]\nauth: {{ iss: maybe }}\n{steps}"),
    )
    .expect_err("an unknown word");
    assert!(e.message.contains("correct, wrong, absent"), "{e}");
    // Only client scenarios meet an authorization server.
    let e = parse(
        "x.yaml",
        &format!(
            "{}transports: [http]\nauth: {{}}\n{steps}",
            head.replace("client/x", "server/x")
        ),
    )
    .expect_err("auth in a server scenario");
    assert!(e.message.contains("only client scenarios"), "{e}");
    // `${auth}` is bound only where there is an auth block.
    let e = parse("x.yaml", &format!("{head}transports: [http]\n{steps}")).expect_err("unbound");
    assert!(e.message.contains("${auth.tokens}"), "{e}");
}

#[test]
fn within_waits_only_for_what_the_authorization_server_sees() {
    let head = "id: client/x\ntitle: t\nrequirements: [auth.pkce]\nlevel: must\nversions: [2025-11-25]\ntransports: [http]\n";
    let wait = "steps:\n  - assume:\n      value: \"${auth.authorizations}\"\n      matches: { $gte: 1 }\n      reason: r\n      within: 3s\n  - assert: { value: \"${auth.tokens}\", matches: 0, within: 1s }\n";
    let s = parse("x.yaml", &format!("{head}auth: {{}}\n{wait}")).expect("waits for ${auth}");
    let withins: Vec<_> = s
        .steps
        .iter()
        .map(|step| match &step.kind {
            StepKind::Assume { within, .. } | StepKind::Assert { within, .. } => *within,
            other => panic!("unexpected step {other:?}"),
        })
        .collect();
    assert_eq!(
        withins,
        [Some(Duration::from_secs(3)), Some(Duration::from_secs(1))]
    );
    // Nothing else changes while a step waits: the wait would be its full time, for nothing.
    let e = parse(
        "x.yaml",
        &format!(
            "{head}steps:\n  - assert: {{ value: \"${{version}}\", matches: {{}}, within: 1s }}\n"
        ),
    )
    .expect_err("no auth block");
    assert!(e.message.contains("only `${auth}` does"), "{e}");
    assert_eq!((e.line, e.column), (8, 5), "{e}");
    let e = parse(
        "x.yaml",
        &format!("{head}auth: {{}}\nsteps:\n  - assert: {{ value: \"${{version}}\", matches: {{}}, within: 1s }}\n"),
    )
    .expect_err("a value that is not ${auth}");
    assert!(e.message.contains("only `${auth}` does"), "{e}");
    let e = parse(
        "x.yaml",
        &format!("{head}auth: {{}}\nsteps:\n  - assert: {{ value: \"${{auth.tokens}}\", matches: 0, within: 0s }}\n"),
    )
    .expect_err("within: 0");
    assert!(e.message.contains("waits for nothing"), "{e}");
}
