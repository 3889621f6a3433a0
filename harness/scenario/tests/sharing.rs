//! Which scenarios may share a target process and session with other cases
//! (`Scenario::may_share`): steps that leave the session as they found it,
//! and never a scenario marked `isolate: true`; and the ids a case chooses
//! (`Scenario::fixed_ids`), which the runner keeps from repeating there;
//! and which may take a shared session and end it (`Scenario::may_take`).

use mcpspec_scenario::*;

const HEAD: &str = "id: server/x\ntitle: t\nrequirements: [ping.respond]\nlevel: must\n";

fn scenario(rest: &str) -> Scenario {
    let text = format!("{HEAD}{rest}");
    parse("x.yaml", &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

const PLAIN: &str = "steps:
  - discover: { list: tools/list, into: tools }
  - send: { method: tools/call, params: { name: \"${tools.0.name}\" } }
    as: call
  - expect: { response_to: call, result: {} }
  - assert: { value: \"${call.response}\", matches: { result: {} } }
  - send: { method: ping }
    expect: { result: {} }
";

#[test]
fn plain_request_response_shares() {
    let s = scenario(PLAIN);
    assert!(!s.isolate);
    assert!(s.may_share());
}

#[test]
fn isolate_true_keeps_a_process_of_its_own() {
    let s = scenario(&format!("isolate: true\n{PLAIN}"));
    assert!(s.isolate);
    assert!(!s.may_share());
    let s = scenario(&format!("isolate: false\n{PLAIN}"));
    assert!(s.may_share());
}

#[test]
fn isolate_must_be_a_boolean() {
    let text = format!("{HEAD}isolate: yes\n{PLAIN}");
    let e = parse("x.yaml", &text).expect_err("`yes` is no boolean");
    assert!(e.message.contains("isolate"), "{}", e.message);
}

#[test]
fn session_state_process_and_unsolicited_traffic_do_not_share() {
    let not_shared = [
        // the handshake is the scenario's own
        "session: fresh\nsteps:\n  - send: { method: ping }\n",
        // session state
        "steps:\n  - send: { method: logging/setLevel, params: { level: debug } }\n",
        "steps:\n  - send: { method: resources/subscribe, params: { uri: x } }\n",
        "steps:\n  - send: { method: initialize, params: {} }\n",
        // an id of its own could repeat one used earlier on the session
        "steps:\n  - send: { method: ping, id: 1 }\n",
        // lifecycle, and lines whose ids the runner numbers or that are not whole
        "steps:\n  - notify: { method: notifications/initialized }\n",
        "steps:\n  - raw: '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}'\n",
        "steps:\n  - raw_hex: '7b 7d'\n",
        "steps:\n  - raw: '{\"id\":\"${version}\"}'\n",
        // a request that is neither plain reading nor invented
        "steps:\n  - send: { method: sampling/createMessage }\n",
        // what the target sends of its own accord, silence, time, the process
        "steps:\n  - expect: { notification: notifications/progress }\n",
        "steps:\n  - expect: { request: roots/list }\n",
        "steps:\n  - sleep: 100ms\n    why: t\n",
        "steps:\n  - disconnect: {}\n  - expect_exit: { within: 1s }\n",
        // the shared handshake declares no client capabilities
        "client_capabilities: { sampling: {} }\nsteps:\n  - send: { method: ping }\n",
        // pagination through a method that is not plain reading
        "steps:\n  - repeat_until:\n      send: { method: logging/setLevel, params: { level: info } }\n      expect: { result: {} }\n      until: { unbound: cursor }\n",
    ];
    for rest in not_shared {
        assert!(!scenario(rest).may_share(), "should not share:\n{rest}");
    }
}

#[test]
fn what_leaves_the_session_as_it_was_shares() {
    let shared = [
        // invented methods are refused as unknown; chosen ids the runner never numbers
        "steps:\n  - send: { method: mcpspec/no-such-method, id: \"mine\" }\n",
        "steps:\n  - send: { method: ping, id: -17 }\n",
        "steps:\n  - send: { method: ping, id: 9007199254740991 }\n",
        // a cancellation, an invented notification, silence
        "steps:\n  - notify: { method: notifications/cancelled, params: { requestId: nobody } }\n  - expect_silence: 100ms\n    why: t\n",
        "steps:\n  - notify: { method: notifications/mcpspec-unknown }\n",
        // one whole raw line, its id apart from the runner's
        "steps:\n  - raw: '{}'\n    expect: { id: null, error: {} }\n",
        "steps:\n  - raw: '{\"jsonrpc\":\"2.0\",\"id\":\"mine\",\"method\":\"ping\"}'\n",
    ];
    for rest in shared {
        assert!(scenario(rest).may_share(), "should share:\n{rest}");
    }
}

#[test]
fn chosen_ids_are_listed_as_json() {
    let s = scenario(
        "steps:\n  - send: { method: ping, id: \"a\" }\n  - raw: '{\"jsonrpc\":\"2.0\",\"id\":-1,\"method\":\"ping\"}'\n  - send: { method: ping }\n",
    );
    assert_eq!(s.fixed_ids(), ["\"a\"", "-1"]);
}

#[test]
fn the_embedded_corpus_shares_only_plain_cases() {
    let corpus = Corpus::load(&[]).unwrap_or_else(|e| panic!("{}", e.len()));
    let shares = |id: &str| {
        corpus
            .get(id)
            .unwrap_or_else(|| panic!("{id} is embedded"))
            .may_share()
    };
    for id in [
        "server/tools/list/result-shape",
        "server/tools/call/unknown-tool",
        "server/prompts/get/missing-name",
        "server/pagination/tools/follow-to-end",
        "server/stdio/framing/crlf",
        "server/jsonrpc/id/string-id",
        "server/jsonrpc/invalid-request/id-object",
        "server/cancellation/unknown-request/ignored",
    ] {
        assert!(shares(id), "{id} should share");
    }
    for id in [
        "server/lifecycle/initialize/result-shape",
        "server/lifecycle/initialize/second-initialize",
        "server/logging/set-level/accepted",
        "server/resources/subscribe/subscribe-unsubscribe",
        "server/stdio/shutdown/exit-on-eof",
        "server/jsonrpc/notification/repeated-initialized",
        "server/progress/notification/shape",
        "server/cancellation/in-flight/no-response",
        "server/fixture/tools/sampling",
    ] {
        assert!(!shares(id), "{id} should not share");
    }
    // Client scenarios: the harness serves; nothing is shared.
    assert!(corpus
        .scenarios
        .iter()
        .filter(|s| s.id.starts_with("client/"))
        .all(|s| !s.may_share()));
}

#[test]
fn state_changes_and_timers_take_a_shared_session_but_never_hand_it_on() {
    let taken = [
        // session state: the target is ended after the case
        "steps:\n  - send: { method: logging/setLevel, params: { level: debug } }\n    expect: { result: {} }\n",
        "steps:\n  - send: { method: resources/subscribe, params: { uri: x } }\n",
        // an in-flight cancellation
        "steps:\n  - send: { method: tools/call, params: { name: slow } }\n    as: call\n  - sleep: 300ms\n    why: in flight\n  - notify: { method: notifications/cancelled, params: { requestId: \"${call.id}\" } }\n  - expect_silence: 1s\n    why: no answer\n",
    ];
    for rest in taken {
        let s = scenario(rest);
        assert!(!s.may_share(), "{rest}");
        assert!(s.may_take(), "{rest}");
    }
    let neither = [
        "session: fresh\nsteps:\n  - send: { method: logging/setLevel, params: { level: debug } }\n",
        "steps:\n  - send: { method: initialize, params: {} }\n",
        "steps:\n  - notify: { method: notifications/initialized }\n",
        // what the target sends of its own could be an earlier case's
        "steps:\n  - send: { method: logging/setLevel, params: { level: debug } }\n  - expect: { notification: notifications/message, within: 1s }\n",
        "steps:\n  - send: { method: ping, id: 1 }\n",
        "isolate: true\nsteps:\n  - send: { method: logging/setLevel, params: { level: debug } }\n",
    ];
    for rest in neither {
        let s = scenario(rest);
        assert!(!s.may_take(), "{rest}");
    }
    // What shares may take too.
    assert!(scenario(PLAIN).may_take());
}
