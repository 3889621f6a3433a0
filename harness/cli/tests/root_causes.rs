//! One cause, one finding, and exit codes that do not hide verdicts
//! (#14 items 2 and 10), against the reference server's fault switches.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::{mcpspec, temp_dir, HttpReference, Run, BIN};

const LIMIT: Duration = Duration::from_secs(240);

/// `server --json … ARGS`: the run and its report.
fn server(name: &str, args: &[&str]) -> (Run, Value) {
    let json = temp_dir(name).join("report.json");
    let mut all = vec!["server", "--json", json.to_str().expect("utf-8 path")];
    all.extend(args);
    let run = mcpspec(&all, LIMIT);
    let text = std::fs::read_to_string(&json).unwrap_or_default();
    (run, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn result<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["results"]
        .as_array()
        .and_then(|rs| rs.iter().find(|r| r["id"] == id))
        .unwrap_or_else(|| panic!("no result {id} in {doc}"))
}

/// A server that pretty-prints its messages breaks one rule,
/// `stdio.newline-delimited`: each broken message is one finding, not one
/// per line (`stdio.stdout-only-mcp`), and a case that awaited an answer
/// the harness could not read is blocked by it, not failed as "nothing
/// arrived" under its own rule (`lifecycle.initialize.result-shape`, whose
/// scenario sends its own initialize). A scenario whose rule it is fails.
#[test]
fn a_message_broken_across_lines_is_one_finding_and_blocks_what_awaited_it() {
    let args = [
        "--spec-version",
        "2025-06-18",
        "--filter",
        "server/lifecycle/initialize/**",
        "--filter",
        "server/stdio/**",
        "--",
        BIN,
        "reference",
        "server",
        "--fault",
        "embedded-newlines",
    ];
    let (run, doc) = server("broken-lines", &args);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let results = doc["results"].as_array().expect("results");
    assert!(results.len() > 5, "{doc}");
    for case in results {
        let rules = rules(case);
        assert!(
            !rules.is_empty() && rules.iter().all(|r| *r == "stdio.newline-delimited"),
            "{case}"
        );
    }
    let own = result(&doc, "server/lifecycle/initialize/result-shape@2025-06-18");
    assert_eq!(own["outcome"], "blocked", "{own}");
    assert_eq!(own["blocked_by"], "stdio.newline-delimited", "{own}");
    let framing = result(&doc, "server/stdio/stdout/only-jsonrpc@2025-06-18");
    assert_eq!(framing["outcome"], "fail", "{framing}");
}

/// An answer the harness could not take — its id mangled (`stringify-ids`),
/// guessed for unreadable input (`parse-error-id`), never sent because the
/// target exited (`exit-on-call`), or sent over HTTP in a type that carries
/// none (`http-response-text-plain`) — is one finding, the oracle's, under
/// its cause: the case that awaited it is blocked by that rule, or fails by
/// it when the rule is the scenario's own, and adds no "nothing arrived"
/// under its own requirement.
#[test]
fn an_answer_that_could_not_be_taken_is_one_finding_under_its_cause() {
    for (fault, case, outcome, rule) in [
        (
            "stringify-ids",
            "server/lifecycle/initialize/result-shape",
            "blocked",
            "jsonrpc.response.id-matches",
        ),
        (
            "parse-error-id",
            "server/jsonrpc/parse-error/truncated-json",
            "fail",
            "jsonrpc.error.null-id",
        ),
        (
            "exit-on-call",
            "server/fixture/tools/image",
            "blocked",
            "jsonrpc.request.answered",
        ),
    ] {
        let args = [
            "--spec-version",
            "2025-06-18",
            "--filter",
            case,
            "--",
            BIN,
            "reference",
            "server",
            "--fault",
            fault,
        ];
        let (run, doc) = server(&format!("lost-{fault}"), &args);
        assert_eq!(run.code, Some(1), "{fault}: {}\n{}", run.stdout, run.stderr);
        one_finding(&doc, &format!("{case}@2025-06-18"), outcome, rule);
    }
    // Over HTTP: the handshake's POST accepted with 200 in text/plain, a type
    // that carries no answer (`http-response-text-plain`).
    let reference = HttpReference::start(&["http-response-text-plain"]);
    let url = reference.mcp();
    let args = [
        "--spec-version",
        "2025-06-18",
        "--filter",
        "server/tools/list/unique-names",
        "--url",
        &url,
    ];
    let (run, doc) = server("lost-text-plain", &args);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    one_finding(
        &doc,
        "server/tools/list/unique-names@2025-06-18",
        "blocked",
        "http.post.request-content-type",
    );
}

/// Asserts that case `id` of `doc` came to `outcome` with one finding, of `rule`.
fn one_finding(doc: &Value, id: &str, outcome: &str, rule: &str) {
    let got = result(doc, id);
    assert_eq!(got["outcome"], outcome, "{got}");
    assert_eq!(rules(got), [rule], "{got}");
}

/// The requirements of a case's findings, in order.
fn rules(case: &Value) -> Vec<&str> {
    case["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["requirement"].as_str())
        .collect()
}

/// A last page whose nextCursor leads back to the first (a SHOULD broken
/// by paging) is one SHOULD finding where paging is checked; the cases
/// that follow the listing to check something else are blocked by it —
/// not failed as MUST `tools.list.result-shape`, not blamed on
/// `tools.list.unique-names`.
#[test]
fn a_pagination_loop_is_one_should_finding_and_blocks_the_rest() {
    let filter = [
        "--spec-version",
        "2025-06-18",
        "--filter",
        "server/tools/list/**",
        "--filter",
        "server/pagination/tools/**",
        "--",
        BIN,
        "reference",
        "server",
        "--fault",
        "pagination-loop",
    ];
    let (run, doc) = server("loop", &filter);
    assert_eq!(
        run.code,
        Some(0),
        "a SHOULD: {}\n{}",
        run.stdout,
        run.stderr
    );
    let owner = result(&doc, "server/pagination/tools/follow-to-end@2025-06-18");
    assert_eq!(owner["outcome"], "warn", "{owner}");
    assert_eq!(
        owner["findings"][0]["requirement"],
        "pagination.cursor.terminates"
    );
    assert_eq!(
        owner["findings"].as_array().map(Vec::len),
        Some(1),
        "{owner}"
    );
    for scenario in ["title", "annotations-shape", "unique-names"] {
        let blocked = result(&doc, &format!("server/tools/list/{scenario}@2025-06-18"));
        assert_eq!(blocked["outcome"], "blocked", "{blocked}");
        assert_eq!(blocked["blocked_by"], "pagination.cursor.terminates");
        let levels: Vec<&Value> = blocked["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| &f["level"])
            .collect();
        assert_eq!(levels, [&Value::from("should")], "{blocked}");
    }
    // Under --strict the SHOULD (and what it blocked) fails the run.
    let mut strict = vec!["--strict"];
    strict.extend(filter);
    assert_eq!(server("loop-strict", &strict).0.code, Some(1));
}

/// A page that serves the previous page's items again breaks paging's
/// no-duplicates rule; it is not two tools sharing a name.
#[test]
fn items_served_again_are_pagings_finding_not_duplicate_names() {
    let (run, doc) = server(
        "dups",
        &[
            "--spec-version",
            "2025-06-18",
            "--filter",
            "server/tools/list/unique-names",
            "--filter",
            "server/pagination/tools/**",
            "--",
            BIN,
            "reference",
            "server",
            "--fault",
            "pagination-duplicates",
        ],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let owner = result(&doc, "server/pagination/tools/follow-to-end@2025-06-18");
    assert_eq!(
        owner["findings"][0]["requirement"],
        "pagination.cursor.no-duplicates"
    );
    let names = result(&doc, "server/tools/list/unique-names@2025-06-18");
    assert_eq!(names["outcome"], "blocked", "{names}");
    assert_eq!(names["blocked_by"], "pagination.cursor.no-duplicates");
}

/// A server that answers `initialize` under the wrong id breaks one rule:
/// the oracle's `jsonrpc.response.id-matches`. A case whose scenario checks
/// ids fails on that finding alone; every other case is blocked by it, and
/// no case adds a second violation for the answer that never came under
/// the right id (`jsonrpc.request.answered`).
#[test]
fn an_answer_under_the_wrong_id_is_one_finding_and_blocks_the_rest() {
    let (run, doc) = server(
        "wrong-id",
        &[
            "--spec-version",
            "2025-06-18",
            "--filter",
            "server/jsonrpc/id/string-id",
            "--filter",
            "server/tools/list/**",
            "--",
            BIN,
            "reference",
            "server",
            "--fault",
            "stringify-ids",
        ],
    );
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let requirements = |case: &Value| -> Vec<String> {
        case["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| f["requirement"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let owner = result(&doc, "server/jsonrpc/id/string-id@2025-06-18");
    assert_eq!(owner["outcome"], "fail", "{owner}");
    assert_eq!(
        requirements(owner),
        ["jsonrpc.response.id-matches"],
        "{owner}"
    );
    let blocked = result(&doc, "server/tools/list/unique-names@2025-06-18");
    assert_eq!(blocked["outcome"], "blocked", "{blocked}");
    assert_eq!(blocked["blocked_by"], "jsonrpc.response.id-matches");
    assert_eq!(
        requirements(blocked),
        ["jsonrpc.response.id-matches"],
        "{blocked}"
    );
}

/// Failures beside a case that could not run (the target hung on its third
/// start) exit 1, not 3: a verdict is not hidden by an error.
#[test]
fn failures_beside_an_error_exit_1() {
    let dir = temp_dir("hangs-once");
    let script = dir.join("target.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             n=$(cat '{count}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{count}'\n\
             if [ $n -eq 3 ]; then exec sleep 20; fi\n\
             exec '{BIN}' reference server --fault title-not-string --fault tool-annotation-strings\n",
            count = dir.join("count").display()
        ),
    )
    .expect("write the target script");
    let (run, doc) = server(
        "hangs-once-run",
        &[
            "--spec-version",
            "2025-06-18",
            "--jobs",
            "1",
            "--timeout",
            "2s",
            "--startup-timeout",
            "2s",
            "--filter",
            "server/tools/list/title",
            "--filter",
            "server/tools/list/annotations-shape",
            "--filter",
            "server/tools/list/unique-names",
            "--",
            "sh",
            script.to_str().expect("utf-8 path"),
        ],
    );
    let summary = &doc["summary"];
    assert_eq!(summary["errored"], 1, "{summary}\n{}", run.stdout);
    assert!(summary["failed"].as_u64() >= Some(1), "{summary}");
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
}

/// A cancellation of a request that is answered at once crosses the
/// answer: the harness sends it before it reads the answer, which follows
/// the cancellation's delivery by less than the crossing window. Whether
/// the server honoured it, nothing tells, so a case whose own requirement
/// that is is not applicable (exit 3: nothing judged), never a pass. So is
/// a case that cancels a request whose answer it has already read.
#[test]
fn an_answer_that_crossed_its_cancellation_is_judged_neither_way() {
    const SCENARIO: &str = r#"id: server/crossing/ping
title: A cancellation that crosses the answer
requirements: [cancellation.no-response]
level: should
steps:
  - send: { method: ping }
    as: ping
  - notify:
      method: notifications/cancelled
      params: { requestId: "${ping.id}" }
  - sleep: 300ms
    why: the answer to the ping arrives within milliseconds
"#;
    const AFTER: &str = r#"id: server/crossing/after-the-answer
title: A cancellation after the answer
requirements: [cancellation.no-response]
level: should
steps:
  - send: { method: ping }
    as: ping
    expect: { result: {} }
    level: must
    requirement: ping.respond
  - notify:
      method: notifications/cancelled
      params: { requestId: "${ping.id}" }
"#;
    // Whether a target stops cancelled work is not judged on a request that
    // was over before its cancellation: the silence below would pass on
    // nothing (over HTTP, when a busy target accepts the cancellation's
    // POST after the call's answer).
    const STOPPED: &str = r#"id: server/crossing/nothing-to-stop
title: Work stops on a request over before its cancellation
requirements: [cancellation.stop-processing]
level: should
steps:
  - send: { method: ping, params: { _meta: { progressToken: "mcpspec-crossing" } } }
    as: ping
    expect: { result: {} }
    level: must
    requirement: ping.respond
  - notify:
      method: notifications/cancelled
      params: { requestId: "${ping.id}" }
  - expect_silence:
      for: 200ms
      notification: notifications/progress
      params: { progressToken: "mcpspec-crossing" }
    why: long enough for progress that a ping would send
"#;
    let dir = temp_dir("crossing");
    for (name, text) in [
        ("ping", SCENARIO),
        ("after-the-answer", AFTER),
        ("nothing-to-stop", STOPPED),
    ] {
        let file = dir.join(format!("scenarios/server/crossing/{name}.yaml"));
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("scenario dir");
        std::fs::write(&file, text).expect("scenario file");
    }
    let extra = dir.join("scenarios");
    let args = [
        "--spec-version",
        "2025-06-18",
        "--scenarios",
        extra.to_str().expect("utf-8 path"),
        "--filter",
        "server/crossing/",
        "--",
        BIN,
        "reference",
        "server",
    ];
    let (run, doc) = server("crossing-run", &args);
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    for (scenario, why) in [
        ("ping", "it may have crossed the cancellation"),
        ("after-the-answer", "cancelled after its answer had come"),
    ] {
        let case = result(&doc, &format!("server/crossing/{scenario}@2025-06-18"));
        assert_eq!(case["outcome"], "not_applicable", "{case}");
        let reason = case["message"].as_str().unwrap_or_default();
        assert!(
            reason.contains("cancellation.no-response could not be judged") && reason.contains(why),
            "{case}"
        );
    }
    let case = result(&doc, "server/crossing/nothing-to-stop@2025-06-18");
    assert_eq!(case["outcome"], "not_applicable", "{case}");
    let reason = case["message"].as_str().unwrap_or_default();
    assert!(
        reason.contains("cancellation.stop-processing could not be judged")
            && reason.contains("cancelled after its answer had come"),
        "{case}"
    );
}
