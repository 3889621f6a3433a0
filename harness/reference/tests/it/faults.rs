//! One test per fault: the violation it names appears with the fault switched
//! on, and is absent from the clean server. `detector` matches exhaustively,
//! so a new fault does not compile without its detector.

use crate::fault_detectors as content;
use crate::fixture_detectors as fixture;
use crate::input_required as mrtr;
use crate::message_detectors as said;
use crate::stateless_detectors as stateless;
use crate::support::{exit_code, json_lines, methods, slow_call, split_response, writes, Client};
use crate::tasks;
use mcpspec_reference::{Fault, Transport};
use serde_json::{json, Value};

/// Runs a scenario against a server with `faults`; true if the violation showed.
type Detector = fn(&[Fault]) -> bool;

fn detector(fault: Fault) -> Detector {
    match fault {
        Fault::AnswerNotification => |f| {
            let mut c = Client::new(f);
            c.init("2025-06-18");
            !c.notify("notifications/initialized", None).is_empty()
        },
        Fault::UnknownMethodCode => {
            |f| Client::ready("2025-06-18", f).code("no/such/method", json!({})) != -32601
        }
        Fault::EchoUnsupportedVersion => |f| {
            unsupported_versions()
                .iter()
                .any(|asked| initialize_asking(f, asked)["result"]["protocolVersion"] == *asked)
        },
        Fault::InvalidCursorAccepted => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.request("tools/list", Some(json!({ "cursor": "garbage" })))
                .0
                .get("result")
                .is_some()
        },
        Fault::PaginationLoop => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let mut params = json!({});
            let mut seen_first_twice = false;
            let first = c.ok("prompts/list", json!({}))["prompts"][0].clone();
            for page in 0..10 {
                let r = c.ok("prompts/list", params);
                seen_first_twice |= page > 0 && r["prompts"][0] == first;
                match r.get("nextCursor") {
                    Some(cursor) => params = json!({ "cursor": cursor }),
                    None => return false,
                }
            }
            seen_first_twice
        },
        Fault::PaginationDuplicates => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let (items, _) = c.list_all("resources/list", "resources");
            let mut uris: Vec<_> = items.iter().map(|r| r["uri"].to_string()).collect();
            uris.sort();
            uris.dedup();
            uris.len() != items.len()
        },
        Fault::IgnoreCancellation => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.send(slow_call(77, 1.0, 2, None));
            c.advance(300);
            c.notify("notifications/cancelled", Some(json!({ "requestId": 77 })));
            // Worked on to the end: its result, not a stand-in error.
            c.advance(5000)
                .iter()
                .any(|l| l["id"] == 77 && l.get("result").is_some())
        },
        Fault::ProgressAfterResponse => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.send(slow_call(5, 1.0, 3, Some(json!("tok"))));
            let out = c.advance(5000);
            let answered = out.iter().position(|l| l["id"] == 5).unwrap();
            methods(&out[answered + 1..]).contains(&"notifications/progress")
        },
        Fault::ProgressNotIncreasing => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.send(slow_call(5, 1.0, 3, Some(json!("tok"))));
            let progress: Vec<f64> = c
                .advance(5000)
                .iter()
                .filter(|l| l["method"] == "notifications/progress")
                .map(|l| l["params"]["progress"].as_f64().unwrap())
                .collect();
            progress.windows(2).any(|w| w[1] <= w[0])
        },
        Fault::WrongProgressToken => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.send(slow_call(5, 1.0, 3, Some(json!(12))));
            c.advance(5000)
                .iter()
                .filter(|l| l["method"] == "notifications/progress")
                .any(|l| l["params"]["progressToken"] != 12)
        },
        Fault::DropJsonrpc => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.request("ping", None).0.get("jsonrpc") != Some(&json!("2.0"))
        },
        Fault::StringifyIds => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let lines = c.send(json!({ "jsonrpc": "2.0", "id": 31, "method": "ping" }));
            lines.len() != 1 || lines[0]["id"] != 31
        },
        Fault::StdoutNoise => |f| {
            let mut c = Client::new(f);
            let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } });
            let out = c.bytes(format!("{init}\n").as_bytes());
            writes(&out)
                .iter()
                .any(|w| serde_json::from_str::<Value>(w).is_err())
        },
        Fault::EmbeddedNewlines => |f| {
            let mut c = Client::new(f);
            let out = c.bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
            writes(&out)
                .iter()
                .any(|w| w.trim_end_matches('\n').contains('\n'))
        },
        Fault::ExitOnMalformed => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let out = c.bytes(b"{oops\n");
            exit_code(&out).is_some() || json_lines(&out).is_empty()
        },
        Fault::ParseErrorId => |f| {
            let mut c = Client::ready("2025-06-18", f);
            json_lines(&c.bytes(b"{oops\n"))[0]["id"] != Value::Null
        },
        Fault::InvalidParamsCode => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.code("prompts/get", json!({ "name": "greet" })) != -32602
        },
        Fault::ResourceNotFoundCode => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.code("resources/read", json!({ "uri": "mcpspec://nope" })) != -32002
        },
        Fault::RejectEarlyPing => |f| {
            let (resp, _) = Client::new(f).request("ping", None);
            resp.get("error").is_some()
        },
        Fault::PingNonEmpty => {
            |f| Client::ready("2025-06-18", f).ok("ping", json!({})) != json!({})
        }
        Fault::MissingServerInfo => |f| {
            Client::new(f).init("2025-06-18")["result"]
                .get("serverInfo")
                .is_none()
        },
        Fault::CapabilitiesNotObject => |f| {
            let resp = Client::new(f).init("2025-06-18");
            let caps = resp["result"]["capabilities"].as_object().unwrap().clone();
            caps.values().any(|v| !v.is_object())
        },
        Fault::LogBelowLevel => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.ok("logging/setLevel", json!({ "level": "warning" }));
            let (_, rest) = c.request(
                "tools/call",
                Some(json!({ "name": "echo", "arguments": { "message": "x" } })),
            );
            rest.iter().any(|n| {
                let level = n["params"]["level"].as_str().unwrap_or("");
                ["debug", "info", "notice"].contains(&level)
            })
        },
        Fault::UndeclaredLogging => |f| {
            let mut c = Client::new(f);
            let declared = c.init("2025-06-18")["result"]["capabilities"]
                .get("logging")
                .is_some();
            c.notify("notifications/initialized", None);
            let (_, rest) = c.request(
                "tools/call",
                Some(json!({ "name": "echo", "arguments": { "message": "x" } })),
            );
            !declared && methods(&rest).contains(&"notifications/message")
        },
        Fault::NoBatch => |f| {
            let mut c = Client::ready("2025-03-26", f);
            let out = c.send(json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]));
            !out[0].is_array()
        },
        Fault::HangOnCall => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let (resp, _) = c.request(
                "tools/call",
                Some(json!({ "name": "echo", "arguments": { "message": "x" } })),
            );
            let later = c.advance(60_000);
            resp.is_null() && later.is_empty() && c.ok("ping", json!({})) == json!({})
        },
        Fault::ExitOnCall => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let out = c.bytes(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"fail\"}}\n");
            exit_code(&out).is_some() && json_lines(&out).is_empty()
        },
        Fault::DuplicateResponse => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let lines = c.send(json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": { "name": "fail" } }));
            let (_, rest) = split_response(lines, &json!(8));
            rest.iter().any(|l| l["id"] == 8)
        },
        Fault::StructuredMismatch => |f| {
            let mut c = Client::ready("2025-06-18", f);
            let tools = c.list_all("tools/list", "tools").0;
            let schema =
                tools.iter().find(|t| t["name"] == "structured").unwrap()["outputSchema"].clone();
            let r = c.ok(
                "tools/call",
                json!({ "name": "structured", "arguments": { "text": "a b" } }),
            );
            !conforms(&r["structuredContent"], &schema)
        },
        Fault::EarlyRequest => |f| {
            let mut c = Client::new(f);
            let lines = c.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": { "roots": {} }, "clientInfo": { "name": "t", "version": "0" } } }));
            lines
                .iter()
                .any(|l| l.get("method").is_some() && l.get("id").is_some())
        },
        Fault::BlobRawBytes => content::blob_raw_bytes,
        Fault::ReadWrongUri => content::read_wrong_uri,
        Fault::RelativeResourceUri => content::relative_resource_uri,
        Fault::DuplicateToolName => content::duplicate_tool_name,
        Fault::ToolNameFormat => content::tool_name_format,
        Fault::ToolAnnotationStrings => content::tool_annotation_strings,
        Fault::TitleNotString => content::title_not_string,
        Fault::TextContentKey => content::text_content_key,
        Fault::RequireArguments => content::require_arguments,
        Fault::ImageDataUrl => content::image_data_url,
        Fault::AudioMissingMimeType => content::audio_missing_mime_type,
        Fault::EmbeddedResourceFlat => content::embedded_resource_flat,
        Fault::ResourceLinkNoName => content::resource_link_no_name,
        Fault::AnnotationPriorityRange => content::annotation_priority_range,
        Fault::ContentTypeTooNew => content::content_type_too_new,
        Fault::AnswerCancelled => |f| {
            let mut c = Client::ready("2025-06-18", f);
            c.send(slow_call(78, 1.0, 2, None));
            c.advance(300);
            // Answered at once, long before the call would have ended.
            let out = c.notify("notifications/cancelled", Some(json!({ "requestId": 78 })));
            out.iter()
                .chain(&c.advance(100))
                .any(|l| l["id"] == 78 && l.get("error").is_some())
        },
        Fault::CancelAll => content::cancel_all,
        Fault::ProgressAfterCancel => content::progress_after_cancel,
        Fault::RejectMeta => content::reject_meta,
        Fault::StructuredNoText => content::structured_no_text,
        Fault::StatelessMissingMetaAccepted => stateless::missing_meta_accepted,
        Fault::StatelessUnsupportedVersionWrongCode => stateless::unsupported_version_wrong_code,
        Fault::StatelessUnsupportedVersionNoData => stateless::unsupported_version_no_data,
        Fault::DiscoverMissingSupportedVersions => stateless::discover_missing_supported_versions,
        Fault::StatelessResultTypeMissing => stateless::result_type_missing,
        Fault::StatelessCapabilityInferred => stateless::capability_inferred,
        Fault::StatelessResourceNotFoundEmpty => stateless::resource_not_found_empty,
        Fault::StatelessRemovedMethodAnswered => stateless::removed_method_answered,
        Fault::ListenNoAck => stateless::listen_no_ack,
        Fault::ListenUnrequested => stateless::listen_unrequested,
        Fault::ListenNoSubscriptionId => stateless::listen_no_subscription_id,
        Fault::ListenAckSuperset => stateless::listen_ack_superset,
        Fault::InputRequiredOnList => mrtr::on_list,
        Fault::InputRequiredUndeclared => mrtr::undeclared,
        Fault::InputRequiredStateUnverified => mrtr::state_unverified,
        Fault::InputRequiredMissingError => mrtr::missing_error,
        Fault::InputRequiredExtraRejected => mrtr::extra_rejected,
        Fault::InputRequiredUnvalidated => mrtr::unvalidated,
        Fault::InputRequiredRetryIgnored => mrtr::retry_ignored,
        Fault::InputRequiredResultTypeMissing => mrtr::result_type_missing,
        Fault::StatelessCacheHintsMissing => stateless::cache_hints_missing,
        Fault::ToolsListOrderVaries => content::tools_list_order_varies,
        Fault::InputErrorAsProtocolError => content::input_error_as_protocol_error,
        Fault::ToolInputUnvalidated => content::tool_input_unvalidated,
        Fault::ResourceUriUnvalidated => content::resource_uri_unvalidated,
        Fault::ToolsListRefused => |f| content::list_refused(f, "tools/list"),
        Fault::PromptsListRefused => |f| content::list_refused(f, "prompts/list"),
        Fault::ResourcesListRefused => |f| content::list_refused(f, "resources/list"),
        Fault::LateCancelWedges => content::late_cancel_wedges,
        Fault::InputRequiredDeclineFails => mrtr::decline_fails,
        Fault::StatelessClientInfoRequired => |f| {
            let meta = json!({ "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            } });
            Client::new(f).request("server/discover", Some(meta)).0["error"].is_object()
        },
        Fault::NotificationWithId => said::notification_with_id,
        Fault::TemplateNotRfc6570 => said::template_not_rfc6570,
        Fault::ToolSchemaInvalid => said::tool_schema_invalid,
        Fault::MetaKeyMalformed => said::meta_key_malformed,
        Fault::PageScopeVaries => said::page_scope_varies,
        Fault::SamplingToolsUngated => said::sampling_tools_ungated,
        Fault::ElicitationUrlUndeclared => said::elicitation_url_undeclared,
        Fault::TaskPlainResult => tasks::plain_result,
        Fault::TaskStatusStuck => tasks::status_stuck,
        Fault::TaskResultNoRelatedTask => tasks::result_no_related_task,
        Fault::TaskUnknownIdInternalError => tasks::unknown_id_internal_error,
        Fault::TaskCancelTerminalAccepted => tasks::cancel_terminal_accepted,
        Fault::TaskRequiredRunsPlain => tasks::required_runs_plain,
        Fault::TasksListMissing => tasks::list_missing,
        Fault::TaskForbiddenAccepted => tasks::forbidden_accepted,
        // Carried out by the HTTP driver (`mcpspec-reference-http`, whose tests
        // detect them); `http_faults_leave_the_sans_io_server_alone` below.
        Fault::HttpUnknownSession400
        | Fault::HttpSessionIdSpace
        | Fault::HttpMissingSessionAccepted
        | Fault::HttpForeignOriginAccepted
        | Fault::HttpDeleteIgnored
        | Fault::HttpNotification200
        | Fault::HttpProtocolVersionNotChecked
        | Fault::HttpMalformedNoErrorBody
        | Fault::HttpResponseOnGetStream
        | Fault::HttpEventIdsPerStream
        | Fault::HttpSseStaysOpen
        | Fault::HttpResponseTextPlain
        | Fault::HttpAcceptNotChecked
        | Fault::HttpContentTypeNotChecked
        | Fault::HttpHeaderMetaMismatchAccepted
        | Fault::HttpNamedErrorStatus200
        | Fault::HttpGet404
        | Fault::HttpProtocolVersionRequired
        | Fault::HttpMalformed200
        | Fault::SseEndpointNotFirst
        | Fault::SseForeignOriginAccepted
        | Fault::SseUnknownSessionHang
        | Fault::SseAnswerInPostBody
        | Fault::HttpNoPrimingEvent
        | Fault::HttpResumeCrossReplay
        | Fault::HttpConcurrentPostRefused
        | Fault::HttpForeignProgressOnStream => {
            |_| unreachable!("an HTTP-layer fault has no sans-IO detector")
        }
        Fault::FixtureSimpleTextEmpty => fixture::simple_text_empty,
        Fault::FixtureImageMissing => fixture::image_missing,
        Fault::FixtureAudioMime => fixture::audio_mime,
        Fault::FixtureResourceMimeMissing => fixture::resource_mime_missing,
        Fault::FixtureErrorAsProtocolError => fixture::error_as_protocol_error,
        Fault::FixtureProgressSilent => fixture::progress_silent,
        Fault::FixtureLoggingSilent => fixture::logging_silent,
        Fault::FixtureClientRequestsSkipped => fixture::client_requests_skipped,
        Fault::FixtureElicitationSchemaPlain => fixture::elicitation_schema_plain,
        Fault::FixtureSchemaStripped => fixture::schema_stripped,
        Fault::FixturePromptContentMissing => fixture::prompt_content_missing,
        Fault::FixtureArgumentsIgnored => fixture::arguments_ignored,
        Fault::FixtureCompletionRefused => fixture::completion_refused,
        Fault::LeakOnMalformed => |_| {
            unreachable!("seen by memory growth only: `leak_on_malformed_grows_memory` below, and the fuzzer's memory oracle in the CLI's tests")
        },
        // SEP-2243 routing headers: HTTP-layer, tested in mcpspec-reference-http's tests/it/faults.rs.
        Fault::HttpMethodHeaderOptional
        | Fault::HttpMethodHeaderCaseInsensitive
        | Fault::HttpNameHeaderUnchecked
        | Fault::HttpNameHeaderNotDecoded
        | Fault::HttpMethodNotFound200
        | Fault::HttpMetaInvalid200 => {
            |_| unreachable!("an HTTP-layer fault has no sans-IO detector")
        }
        // SEP-2243 custom headers: HTTP-layer, tested in mcpspec-reference-http's tests/it/faults.rs.
        Fault::HttpParamHeaderUnchecked | Fault::HttpParamHeaderNotDecoded => {
            |_| unreachable!("an HTTP-layer fault has no sans-IO detector")
        }
        // Authorization (OAuth mode): HTTP-layer, tested in mcpspec-reference-http's tests/it/auth.rs.
        Fault::AuthNoChallenge
        | Fault::AuthChallengeNoResourceMetadata
        | Fault::AuthInvalidTokenAccepted
        | Fault::AuthOtherAudienceAccepted
        | Fault::AuthPrmResourceMismatch
        | Fault::AuthPrmNoAuthorizationServers
        | Fault::AuthAsMetadataNoS256
        | Fault::AuthChallengeNoScope
        | Fault::AuthMissingTokenAccepted
        | Fault::AuthPrmMissing
        | Fault::AuthAsMetadataMissing
        | Fault::AuthRedirectUriPrefixMatch
        | Fault::AuthOpenRedirect
        | Fault::AuthRefreshNotRotated
        | Fault::AuthIssNotAdvertised
        | Fault::AuthOidcNoPkce
        | Fault::AuthPlainHttpEndpoint => {
            |_| unreachable!("an HTTP-layer fault has no sans-IO detector")
        }
    }
}

/// Resident memory of this test process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn leak_on_malformed_grows_memory() {
    // 400 malformed lines: 100 MiB kept with the fault, nothing without it.
    let grown = |faults: &[Fault]| {
        let mut c = Client::ready("2025-06-18", faults);
        let before = rss_kib();
        for _ in 0..400 {
            let out = c.bytes(b"{oops\n");
            assert_eq!(json_lines(&out)[0]["error"]["code"], -32700);
        }
        rss_kib().saturating_sub(before)
    };
    assert!(grown(&[]) < 32 * 1024, "the clean server keeps nothing");
    assert!(
        grown(&[Fault::LeakOnMalformed]) > 64 * 1024,
        "the fault keeps 256 KiB a line"
    );
}

/// protocolVersion values no server supports, of several JSON types.
fn unsupported_versions() -> [Value; 5] {
    [
        json!("1999-01-01"),
        json!(""),
        json!(20250618),
        json!(2025),
        json!({ "v": "2025-06-18" }),
    ]
}

/// The response to an initialize asking for `asked` (any JSON value).
fn initialize_asking(faults: &[Fault], asked: &Value) -> Value {
    let mut c = Client::new(faults);
    c.request(
        "initialize",
        Some(json!({
            "protocolVersion": asked,
            "capabilities": {},
            "clientInfo": { "name": "t", "version": "0" }
        })),
    )
    .0
}

#[test]
fn echo_unsupported_version_echoes_every_json_type_verbatim() {
    for asked in unsupported_versions() {
        let echoed = initialize_asking(&[Fault::EchoUnsupportedVersion], &asked);
        assert_eq!(echoed["result"]["protocolVersion"], asked, "{echoed}");
        let clean = initialize_asking(&[], &asked);
        if asked.is_string() {
            assert_eq!(clean["result"]["protocolVersion"], "2025-11-25", "{clean}");
        } else {
            assert_eq!(clean["error"]["code"], -32602, "{clean}");
        }
    }
    // The faulty session goes on with the newest version it supports.
    let mut c = Client::new(&[Fault::EchoUnsupportedVersion]);
    c.request(
        "initialize",
        Some(json!({ "protocolVersion": 2025, "capabilities": {} })),
    );
    assert_eq!(
        c.server.version(),
        Some(mcpspec_reference::FALLBACK_VERSION)
    );
    // A missing protocolVersion has nothing to echo and stays an error.
    assert_eq!(
        Client::new(&[Fault::EchoUnsupportedVersion])
            .code("initialize", json!({ "capabilities": {} })),
        -32602
    );
}

#[test]
fn capabilities_not_object_only_misdeclares_tools() {
    let mut faulty = Client::new(&[Fault::CapabilitiesNotObject]);
    let mut clean = Client::new(&[]);
    let (mut f, c) = (faulty.init("2025-06-18"), clean.init("2025-06-18"));
    assert_eq!(f["result"]["capabilities"]["tools"], json!(true));
    assert_eq!(
        c["result"]["capabilities"]["tools"],
        json!({ "listChanged": true })
    );
    // Everything else in the result is as the clean server has it.
    f["result"]["capabilities"]["tools"] = c["result"]["capabilities"]["tools"].clone();
    assert_eq!(f, c);
    // Tools are still served.
    faulty.notify("notifications/initialized", None);
    clean.notify("notifications/initialized", None);
    assert_eq!(
        faulty.list_all("tools/list", "tools").0,
        clean.list_all("tools/list", "tools").0
    );
    let call = json!({ "name": "echo", "arguments": { "message": "hi" } });
    assert_eq!(
        faulty.ok("tools/call", call.clone()),
        clean.ok("tools/call", call)
    );
}

/// Enough of JSON Schema for the structured tool's output schema: an object
/// with required members of type integer or string.
fn conforms(value: &Value, schema: &Value) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    let props = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    required
        .iter()
        .all(|r| obj.contains_key(r.as_str().unwrap_or("")))
        && obj.iter().all(
            |(k, v)| match props.get(k).and_then(|p| p["type"].as_str()) {
                Some("integer") => v.is_u64() || v.is_i64(),
                Some("string") => v.is_string(),
                _ => true,
            },
        )
}

fn check(fault: Fault) {
    let detect = detector(fault);
    assert!(
        !detect(&[]),
        "{fault}: the clean server shows the violation"
    );
    assert!(detect(&[fault]), "{fault}: the violation does not show");
}

/// The faults the sans-IO server itself carries out: all but the HTTP ones.
fn sans_io_faults() -> impl Iterator<Item = Fault> {
    Fault::ALL
        .iter()
        .copied()
        .filter(|f| f.applies_to(Transport::Stdio) && !f.is_fuzz_only())
}

#[test]
fn every_fault_is_detected_and_absent_when_clean() {
    for f in sans_io_faults() {
        check(f);
    }
}

#[test]
fn http_faults_leave_the_sans_io_server_alone() {
    fn session(faults: &[Fault]) -> Vec<Value> {
        let mut c = Client::ready("2025-06-18", faults);
        vec![
            c.ok("ping", json!({})),
            c.ok("tools/list", json!({})),
            c.ok(
                "tools/call",
                json!({ "name": "echo", "arguments": { "message": "hi" } }),
            ),
            c.ok("prompts/list", json!({})),
        ]
    }
    let clean = session(&[]);
    for f in Fault::ALL
        .iter()
        .copied()
        .filter(|f| !f.applies_to(Transport::Stdio))
    {
        assert_eq!(session(&[f]), clean, "{f} changes the sans-IO server");
    }
}

/// Does fault `on` keep `other`'s detector from observing anything, by design?
fn blinds(on: Fault, other: Fault) -> bool {
    use Fault::*;
    let calls_a_tool = matches!(
        other,
        HangOnCall
            | ExitOnCall
            | DuplicateResponse
            | IgnoreCancellation
            | AnswerCancelled
            | ProgressAfterResponse
            | ProgressNotIncreasing
            | WrongProgressToken
            | LogBelowLevel
            | UndeclaredLogging
            | StructuredMismatch
            | TextContentKey
            | RequireArguments
            | CancelAll
            | ProgressAfterCancel
            | StructuredNoText
            | FixtureSimpleTextEmpty
            | FixtureImageMissing
            | FixtureAudioMime
            | FixtureResourceMimeMissing
            | FixtureErrorAsProtocolError
            | FixtureProgressSilent
            | FixtureLoggingSilent
            | FixtureClientRequestsSkipped
            | FixtureElicitationSchemaPlain
    );
    // These change how every line reads; the test client cannot follow.
    matches!(on, EmbeddedNewlines | StdoutNoise | StringifyIds)
        // Every -32602 becomes -32603, an unknown taskId's included.
        || (on == InvalidParamsCode && other == TaskUnknownIdInternalError)
        || (matches!(on, HangOnCall | ExitOnCall) && calls_a_tool)
        || (on == ExitOnMalformed && other == ParseErrorId)
        // These detectors walk a list to its end.
        || (on == PaginationLoop
            && matches!(
                other,
                StructuredMismatch
                    | PaginationDuplicates
                    | RelativeResourceUri
                    | ToolNameFormat
                    | ToolAnnotationStrings
                    | TitleNotString
                    | FixtureSchemaStripped
            ))
}

#[test]
fn faults_do_not_leak_into_each_other() {
    for on in sans_io_faults() {
        for other in sans_io_faults() {
            if other != on && !blinds(on, other) {
                assert!(!detector(other)(&[on]), "fault {on} also shows as {other}");
            }
        }
    }
}

macro_rules! fault_tests {
    ($($test:ident => $fault:ident),* $(,)?) => {
        $( #[test] fn $test() { check(Fault::$fault) } )*
    };
}

fault_tests! {
    answer_notification => AnswerNotification,
    unknown_method_code => UnknownMethodCode,
    echo_unsupported_version => EchoUnsupportedVersion,
    invalid_cursor_accepted => InvalidCursorAccepted,
    pagination_loop => PaginationLoop,
    pagination_duplicates => PaginationDuplicates,
    ignore_cancellation => IgnoreCancellation,
    progress_after_response => ProgressAfterResponse,
    progress_not_increasing => ProgressNotIncreasing,
    wrong_progress_token => WrongProgressToken,
    drop_jsonrpc => DropJsonrpc,
    stringify_ids => StringifyIds,
    stdout_noise => StdoutNoise,
    embedded_newlines => EmbeddedNewlines,
    exit_on_malformed => ExitOnMalformed,
    parse_error_id => ParseErrorId,
    invalid_params_code => InvalidParamsCode,
    resource_not_found_code => ResourceNotFoundCode,
    reject_early_ping => RejectEarlyPing,
    ping_non_empty => PingNonEmpty,
    missing_server_info => MissingServerInfo,
    capabilities_not_object => CapabilitiesNotObject,
    log_below_level => LogBelowLevel,
    undeclared_logging => UndeclaredLogging,
    no_batch => NoBatch,
    hang_on_call => HangOnCall,
    exit_on_call => ExitOnCall,
    duplicate_response => DuplicateResponse,
    structured_mismatch => StructuredMismatch,
    early_request => EarlyRequest,
    blob_raw_bytes => BlobRawBytes,
    read_wrong_uri => ReadWrongUri,
    relative_resource_uri => RelativeResourceUri,
    duplicate_tool_name => DuplicateToolName,
    tool_name_format => ToolNameFormat,
    tool_annotation_strings => ToolAnnotationStrings,
    title_not_string => TitleNotString,
    text_content_key => TextContentKey,
    require_arguments => RequireArguments,
    image_data_url => ImageDataUrl,
    audio_missing_mime_type => AudioMissingMimeType,
    embedded_resource_flat => EmbeddedResourceFlat,
    resource_link_no_name => ResourceLinkNoName,
    annotation_priority_range => AnnotationPriorityRange,
    content_type_too_new => ContentTypeTooNew,
    cancel_all => CancelAll,
    progress_after_cancel => ProgressAfterCancel,
    answer_cancelled => AnswerCancelled,
    reject_meta => RejectMeta,
    structured_no_text => StructuredNoText,
    stateless_missing_meta_accepted => StatelessMissingMetaAccepted,
    stateless_unsupported_version_wrong_code => StatelessUnsupportedVersionWrongCode,
    stateless_unsupported_version_no_data => StatelessUnsupportedVersionNoData,
    discover_missing_supported_versions => DiscoverMissingSupportedVersions,
    stateless_result_type_missing => StatelessResultTypeMissing,
    stateless_capability_inferred => StatelessCapabilityInferred,
    stateless_resource_not_found_empty => StatelessResourceNotFoundEmpty,
    stateless_removed_method_answered => StatelessRemovedMethodAnswered,
    listen_no_ack => ListenNoAck,
    listen_unrequested => ListenUnrequested,
    listen_no_subscription_id => ListenNoSubscriptionId,
    listen_ack_superset => ListenAckSuperset,
    input_required_on_list => InputRequiredOnList,
    input_required_undeclared => InputRequiredUndeclared,
    input_required_state_unverified => InputRequiredStateUnverified,
    input_required_missing_error => InputRequiredMissingError,
    input_required_extra_rejected => InputRequiredExtraRejected,
    input_required_unvalidated => InputRequiredUnvalidated,
    input_required_retry_ignored => InputRequiredRetryIgnored,
    input_required_result_type_missing => InputRequiredResultTypeMissing,
    tool_input_unvalidated => ToolInputUnvalidated,
    resource_uri_unvalidated => ResourceUriUnvalidated,
    tools_list_refused => ToolsListRefused,
    prompts_list_refused => PromptsListRefused,
    resources_list_refused => ResourcesListRefused,
    late_cancel_wedges => LateCancelWedges,
    input_required_decline_fails => InputRequiredDeclineFails,
    stateless_client_info_required => StatelessClientInfoRequired,
    fixture_simple_text_empty => FixtureSimpleTextEmpty,
    fixture_image_missing => FixtureImageMissing,
    fixture_audio_mime => FixtureAudioMime,
    fixture_resource_mime_missing => FixtureResourceMimeMissing,
    fixture_error_as_protocol_error => FixtureErrorAsProtocolError,
    fixture_progress_silent => FixtureProgressSilent,
    fixture_logging_silent => FixtureLoggingSilent,
    fixture_client_requests_skipped => FixtureClientRequestsSkipped,
    fixture_elicitation_schema_plain => FixtureElicitationSchemaPlain,
    fixture_schema_stripped => FixtureSchemaStripped,
    fixture_prompt_content_missing => FixturePromptContentMissing,
    fixture_arguments_ignored => FixtureArgumentsIgnored,
    fixture_completion_refused => FixtureCompletionRefused,
    stateless_cache_hints_missing => StatelessCacheHintsMissing,
    tools_list_order_varies => ToolsListOrderVaries,
    input_error_as_protocol_error => InputErrorAsProtocolError,
    notification_with_id => NotificationWithId,
    template_not_rfc6570 => TemplateNotRfc6570,
    tool_schema_invalid => ToolSchemaInvalid,
    meta_key_malformed => MetaKeyMalformed,
    page_scope_varies => PageScopeVaries,
    sampling_tools_ungated => SamplingToolsUngated,
    elicitation_url_undeclared => ElicitationUrlUndeclared,
    task_plain_result => TaskPlainResult,
    task_status_stuck => TaskStatusStuck,
    task_result_no_related_task => TaskResultNoRelatedTask,
    task_unknown_id_internal_error => TaskUnknownIdInternalError,
    task_cancel_terminal_accepted => TaskCancelTerminalAccepted,
    task_required_runs_plain => TaskRequiredRunsPlain,
    tasks_list_missing => TasksListMissing,
    task_forbidden_accepted => TaskForbiddenAccepted,
}
