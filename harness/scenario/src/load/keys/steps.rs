//! The step kinds ([`STEPS`]) and the keys of each step's map, with the
//! keys every step accepts ([`STEP_COMMON`]) and the expectation selectors.

use super::*;

/// Keys every step accepts next to its step key.
pub(crate) const STEP_COMMON: &[Key] = &[
    opt(
        "level",
        "Overrides the scenario's level for this step's checks",
        Shape::Level,
    ),
    opt(
        "requirement",
        "Overrides the scenario's requirement for this step's checks",
        Shape::NonEmpty,
    ),
    opt(
        "versions",
        "Run this step only for these versions",
        Shape::Versions,
    ),
    opt("note", "Free text", Shape::Text),
    opt(
        "why",
        "Why the wait is this long: what it waits out (required on sleep, expect_silence, expect_no_fetch)",
        Shape::NonEmpty,
    ),
];

/// The steps that always cost their full time on a conformant target: each
/// must say `why` it is as long as it is.
pub(crate) const TIMED_STEPS: &[&str] = &["sleep", "expect_silence", "expect_no_fetch"];

/// One step kind: its step key and the keys it accepts next to it.
pub(crate) struct StepDef {
    pub key: &'static str,
    pub doc: &'static str,
    pub shape: Shape,
    pub modifiers: &'static [Key],
}

const WITHIN: Key = opt(
    "within",
    "How long to wait (default: --timeout)",
    Shape::Duration,
);
const RESULT: Key = opt(
    "result",
    "The response must be a result matching this",
    Shape::Matcher,
);
const ERROR: Key = opt(
    "error",
    "The response must be an error matching this",
    Shape::Matcher,
);
const RESULT_OR_ERROR: &[Rule] = &[Rule::AtMostOne(&["result", "error"])];
const METHOD: Key = req("method", "The method", Shape::NonEmpty);
const PARAMS: Key = opt(
    "params",
    "The params: a map (or a list); strings are templates",
    Shape::Params,
);

pub(crate) static SEND: MapDef = MapDef::new(&[
    METHOD,
    PARAMS,
    opt(
        "id",
        "The request id (default: the runner's next integer)",
        Shape::RequestId { null: false },
    ),
]);
pub(crate) static NOTIFY: MapDef = MapDef::new(&[METHOD, PARAMS]);
/// The `expect` of `send` and of `repeat_until`.
pub(crate) static RESPONSE_EXPECT: MapDef = MapDef {
    keys: &[RESULT, ERROR, WITHIN],
    rules: RESULT_OR_ERROR,
};
/// The `expect` of `raw` and `raw_hex`.
pub(crate) static RAW_EXPECT: MapDef = MapDef {
    keys: &[
        opt(
            "id",
            "The id of the response (may be null)",
            Shape::RequestId { null: true },
        ),
        RESULT,
        ERROR,
        WITHIN,
    ],
    rules: RESULT_OR_ERROR,
};
const RAW_MODIFIERS: &[Key] = &[
    opt(
        "newline",
        "Append a newline (default: true for raw, false for raw_hex)",
        Shape::Bool,
    ),
    opt(
        "expect",
        "Wait for the response with `id` and check it",
        Shape::Map(&RAW_EXPECT),
    ),
];
pub(crate) static SILENCE: MapDef = MapDef {
    keys: &[
        req("for", "How long nothing may arrive", Shape::Duration),
        opt(
            "all",
            "No message at all, notifications included",
            Shape::Bool,
        ),
        opt(
            "notification",
            "Only notifications of this method are judged",
            Shape::NonEmpty,
        ),
        opt(
            "params",
            "Only notifications whose params match this are judged",
            Shape::Matcher,
        ),
    ],
    rules: &[
        Rule::Needs("params", "notification"),
        Rule::Excludes {
            key: "all",
            when: Lit::True,
            other: "notification",
        },
    ],
};
pub(crate) static UNTIL: MapDef = MapDef::new(&[req(
    "unbound",
    "Stop when the iteration did not bind this variable",
    Shape::Var,
)]);
pub(crate) static UNIQUE_BY: MapDef = MapDef::new(&[
    req("list", "The collected list (a variable)", Shape::Var),
    req(
        "key",
        "The member of each item that must not repeat",
        Shape::NonEmpty,
    ),
]);
pub(crate) static REPEAT_UNTIL: MapDef = MapDef::new(&[
    req(
        "send",
        "The request sent each iteration",
        Shape::Map(&NOTIFY),
    ),
    opt(
        "expect",
        "Its response must match this",
        Shape::Map(&RESPONSE_EXPECT),
    ),
    req(
        "until",
        "When to stop: { unbound: name }",
        Shape::Map(&UNTIL),
    ),
    opt(
        "max",
        "More iterations than this: a failure (default 100)",
        Shape::Count {
            min: 1,
            max: Some(u32::MAX as u64),
        },
    ),
    opt(
        "unique_by",
        "Items of a collected list must not repeat: { list, key }",
        Shape::Map(&UNIQUE_BY),
    ),
]);
pub(crate) static DISCOVER: MapDef = MapDef::new(&[
    req(
        "list",
        "The list method to follow over all pages",
        Shape::DiscoverList,
    ),
    req(
        "into",
        "The variable bound to every matching item",
        Shape::Var,
    ),
    opt("where", "Keep only items matching this", Shape::Matcher),
    opt(
        "require",
        "Fewer matching items: the case is not applicable (default 1)",
        Shape::Count { min: 0, max: None },
    ),
    opt(
        "header_param",
        "tools/list only: keep tools with an x-mcp-header on a top-level string parameter; bind this variable to { tool, property, header } of the first",
        Shape::Var,
    ),
]);
pub(crate) static REPLY: MapDef = MapDef {
    keys: &[
        req(
            "to",
            "The label (`as:`) of the `expect: { request }` that took the request",
            Shape::Label,
        ),
        opt(
            "result",
            "Answer with this result (a template)",
            Shape::Template,
        ),
        opt(
            "error",
            "Answer with this error object { code, message, data } (a template)",
            Shape::Template,
        ),
        opt(
            "cut_stream",
            "Client scenarios over Streamable HTTP: first end the request's response stream after an event with an id and empty data, then deliver the answer on the client's GET that resumes it (Last-Event-ID): { retry, resume_within }",
            Shape::Map(&CUT_STREAM),
        ),
    ],
    rules: RESULT_OR_ERROR,
};
pub(crate) static CUT_STREAM: MapDef = MapDef::new(&[
    opt(
        "retry",
        "The event's retry field: how long the client must wait before it reconnects (none: no retry field)",
        Shape::Duration,
    ),
    opt(
        "resume_within",
        "How long after the retry delay the client has to resume the stream (default 5s)",
        Shape::Duration,
    ),
]);
pub(crate) static NOTHING: MapDef = MapDef::new(&[]);
pub(crate) static EXPECT_EXIT: MapDef = MapDef::new(&[opt(
    "within",
    "How long to wait for the exit (default 5s)",
    Shape::Duration,
)]);
pub(crate) static ASSERT: MapDef = MapDef::new(&[
    req(
        "value",
        "The value to check (usually a template)",
        Shape::Template,
    ),
    req("matches", "The matcher it must match", Shape::Matcher),
    opt("within", WITHIN_DOC, Shape::Duration),
]);

/// `within` of `assert` and `assume`.
const WITHIN_DOC: &str = "Wait up to this long for the value to match, ending as soon as it does \
     (client scenarios with auth: ${auth} changes as the client goes through the flow)";

pub(crate) static ASSUME: MapDef = MapDef::new(&[
    req(
        "value",
        "The value to check (usually a template)",
        Shape::Template,
    ),
    req("matches", "The matcher it must match", Shape::Matcher),
    req(
        "reason",
        "Why the case is not applicable when it does not match",
        Shape::OneLine,
    ),
    opt("within", WITHIN_DOC, Shape::Duration),
]);

/// The keys of the `http` step's map.
pub(crate) static HTTP: MapDef = MapDef {
    keys: &[
        opt("method", "The HTTP method (default POST)", Shape::NonEmpty),
        opt(
            "url",
            "endpoint (default), stream (legacy SSE stream), unknown_session, or a path relative to the endpoint",
            Shape::NonEmpty,
        ),
        opt(
            "session",
            "Mcp-Session-Id: auto (default: the session's), omit, or a literal value",
            Shape::NonEmpty,
        ),
        opt(
            "protocol_version",
            "MCP-Protocol-Version: auto (default: as a client sends it), omit, or a literal value",
            Shape::NonEmpty,
        ),
        opt(
            "headers",
            "Header overrides: a value (template) sets, null removes",
            Shape::Headers,
        ),
        opt(
            "body",
            "A JSON body; its strings are templates",
            Shape::Template,
        ),
        opt("raw", "The body as exact text", Shape::Text),
        opt(
            "read_for",
            "How long to read an SSE response before judging it (default 1s)",
            Shape::Duration,
        ),
        opt(
            "keep_open",
            "GET only: keep the stream open as the session's standing stream; its messages join the case's",
            Shape::Bool,
        ),
        opt(
            "judge",
            "The body is an authorization metadata document to check rule by rule: protected_resource_metadata or authorization_server_metadata",
            Shape::MetadataDoc,
        ),
    ],
    rules: &[
        Rule::AtMostOne(&["body", "raw"]),
        Rule::AtMostOne(&["keep_open", "read_for"]),
    ],
};

/// The step kinds, by step key. `expect` is also a modifier of `send` and `raw`.
pub(crate) const STEPS: &[StepDef] = &[
    StepDef {
        key: "send",
        doc: "Send a request from the harness",
        shape: Shape::Map(&SEND),
        modifiers: &[
            opt("as", "A label: binds <label>.id and <label>.response", Shape::Label),
            opt(
                "lasts",
                "The request cannot be answered on its own sooner than this after it is sent (a slow call of this length): once it is cancelled, an earlier answer was the cancellation's doing",
                Shape::Duration,
            ),
            opt("expect", "Wait for the response and check it", Shape::Map(&RESPONSE_EXPECT)),
        ],
    },
    StepDef {
        key: "notify",
        doc: "Send a notification from the harness",
        shape: Shape::Map(&NOTIFY),
        modifiers: &[],
    },
    StepDef {
        key: "raw",
        doc: "Send exact text (a newline is appended)",
        shape: Shape::Text,
        modifiers: RAW_MODIFIERS,
    },
    StepDef {
        key: "raw_hex",
        doc: "Send exact bytes, as hex digits (spaces ignored)",
        shape: Shape::Hex,
        modifiers: RAW_MODIFIERS,
    },
    StepDef {
        key: "expect",
        doc: "Wait for a message from the target and check it",
        shape: Shape::Expectation,
        modifiers: &[opt(
            "as",
            "With `request`: a label binding <label>.id, <label>.method and <label>.params, for `reply`",
            Shape::Label,
        )],
    },
    StepDef {
        key: "reply",
        doc: "Answer the peer's request taken by `expect` (`as:`): { to, result | error }; neither (client scenarios only): the fixture server answers",
        shape: Shape::Map(&REPLY),
        modifiers: &[],
    },
    StepDef {
        key: "expect_silence",
        doc: "Nothing (of a kind) may arrive for a while: a duration or { for, all, notification, params }",
        shape: Shape::DurationOr(&SILENCE),
        modifiers: &[],
    },
    StepDef {
        key: "repeat_until",
        doc: "Follow a cursor: send, check, until a capture is not made",
        shape: Shape::Map(&REPEAT_UNTIL),
        modifiers: &[],
    },
    StepDef {
        key: "discover",
        doc: "Find the target's own tools, resources, prompts over all pages",
        shape: Shape::Map(&DISCOVER),
        modifiers: &[],
    },
    StepDef {
        key: "sleep",
        doc: "Wait this long",
        shape: Shape::Duration,
        modifiers: &[],
    },
    StepDef {
        key: "expect_no_fetch",
        doc: "Client scenarios: wait this long, then the canary URL (${canary.url}, served on 127.0.0.1 for the case) must have had no request",
        shape: Shape::Duration,
        modifiers: &[],
    },
    StepDef {
        key: "disconnect",
        doc: "Close our end of the connection: disconnect: {}",
        shape: Shape::NullOr(&NOTHING),
        modifiers: &[],
    },
    StepDef {
        key: "expect_exit",
        doc: "The target process exits: { within }",
        shape: Shape::NullOr(&EXPECT_EXIT),
        modifiers: &[],
    },
    StepDef {
        key: "assert",
        doc: "Check bound values: { value, matches, within }",
        shape: Shape::Map(&ASSERT),
        modifiers: &[],
    },
    StepDef {
        key: "assume",
        doc: "Check bound values; a mismatch makes the case not applicable: { value, matches, reason, within }",
        shape: Shape::Map(&ASSUME),
        modifiers: &[],
    },
    StepDef {
        key: "http",
        doc: "One HTTP exchange built by the scenario (http and sse transports only)",
        shape: Shape::Map(&HTTP),
        modifiers: &[
            opt("as", "A label: binds <label>.response to the response object", Shape::Label),
            opt(
                "expect",
                "The response object { status, headers, content_type, body, events, messages, open } must match this",
                Shape::Matcher,
            ),
        ],
    },
];

/// The step keys, in order.
pub(crate) fn step_keys() -> Vec<&'static str> {
    STEPS.iter().map(|s| s.key).collect()
}

/// The step kind with this step key.
pub(crate) fn step(key: &str) -> Option<&'static StepDef> {
    STEPS.iter().find(|s| s.key == key)
}

/// `expect` selectors of responses (they take `result` / `error`).
pub(crate) const RESPONSE_SELECTORS: &[Key] = &[
    req(
        "response_to",
        "The response to the send labelled this (`as:`)",
        Shape::Label,
    ),
    req(
        "id",
        "A response with this id (may be null)",
        Shape::RequestId { null: true },
    ),
];
/// `expect` selectors of notifications and requests (they take `params`).
pub(crate) const MESSAGE_SELECTORS: &[Key] = &[
    req(
        "notification",
        "A notification with this method",
        Shape::NonEmpty,
    ),
    req(
        "request",
        "A request from the target with this method",
        Shape::NonEmpty,
    ),
];
/// What a response selector allows next to it.
pub(crate) const EXPECT_RESPONSE: &[Key] = &[RESULT, ERROR, WITHIN];
/// What a notification or request selector allows next to it.
pub(crate) const EXPECT_MESSAGE: &[Key] = &[
    opt("params", "The params must match this", Shape::Matcher),
    WITHIN,
    opt(
        "owed",
        "Client cases, `request` only: the client owes this request, so its absence (or the client leaving first) fails the step instead of making the case not applicable",
        Shape::Bool,
    ),
];
/// The rules of the keys next to a response selector.
pub(crate) const EXPECT_RESPONSE_RULES: &[Rule] = RESULT_OR_ERROR;
