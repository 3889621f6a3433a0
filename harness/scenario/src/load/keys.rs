//! The scenario file format as tables: the keys of every map (each with a
//! one-line description and the shape of its value), the step kinds and the
//! keyword sets (levels, versions, transports, sessions). The matcher
//! operators are a table of the same kind, in [`crate::matcher::operators`].
//!
//! The loader reads files through these tables — its lists of valid keys, its
//! "did you mean" suggestions and its keyword lookups come from here — and
//! [`crate::file_schema`] turns the same tables into the JSON Schema of the
//! format, so the two cannot drift apart. A key the loader takes but no table
//! lists trips a debug assertion in [`super::reader::Fields::finish`].

use crate::model::{SessionMode, TransportKind};
use mcpspec_engine::{Level, Version};

/// One key of a YAML map.
pub(crate) struct Key {
    pub name: &'static str,
    /// One line for editors (hover, completion).
    pub doc: &'static str,
    pub shape: Shape,
    pub required: bool,
}

pub(crate) const fn opt(name: &'static str, doc: &'static str, shape: Shape) -> Key {
    Key {
        name,
        doc,
        shape,
        required: false,
    }
}

pub(crate) const fn req(name: &'static str, doc: &'static str, shape: Shape) -> Key {
    Key {
        name,
        doc,
        shape,
        required: true,
    }
}

/// A closed map: these keys and no others, under these rules.
pub(crate) struct MapDef {
    pub keys: &'static [Key],
    pub rules: &'static [Rule],
}

impl MapDef {
    const fn new(keys: &'static [Key]) -> MapDef {
        MapDef { keys, rules: &[] }
    }

    /// The key names, in order (the `valid` list of [`super::reader::Fields::finish`]).
    pub fn names(&self) -> Vec<&'static str> {
        names(self.keys)
    }
}

/// The names of `keys`, in order.
pub(crate) fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

/// A constraint between keys of one map.
pub(crate) enum Rule {
    /// At most one of these keys.
    AtMostOne(&'static [&'static str]),
    /// `.0` needs `.1`.
    Needs(&'static str, &'static str),
    /// `key` with the value `when` excludes `other`.
    Excludes {
        key: &'static str,
        when: Lit,
        other: &'static str,
    },
    /// `key` with the value `when` excludes these members of the map `map`.
    ExcludesMembers {
        key: &'static str,
        when: Lit,
        map: &'static str,
        members: &'static [&'static str],
    },
}

/// A literal value in a [`Rule`].
pub(crate) enum Lit {
    True,
    Str(&'static str),
}

/// What the value of a key looks like. [`crate::file_schema`] says it in
/// JSON Schema; the loader's reading functions check it.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// `server/...` or `client/...`: lowercase `[a-z0-9-]` segments.
    ScenarioId,
    /// One line of text, not blank.
    OneLine,
    /// Any string.
    Text,
    /// A string that is not blank.
    NonEmpty,
    /// A list (≥1, no repeats) of requirement ids.
    RequirementIds,
    Level,
    /// `handshake`, `all`, a version, or a list of versions.
    Versions,
    /// `all` or a list of transports.
    Transports,
    Session,
    /// `requires.auth`: one of [`crate::model::AuthGate::ALL`].
    AuthGate,
    /// `judge:` of an `http` step: one of [`crate::model::MetadataDoc::ALL`].
    MetadataDoc,
    /// The name of an opt-in extension ([`mcpspec_engine::EXTENSIONS`]).
    Extension,
    /// A list of dotted capability paths.
    CapabilityPaths,
    /// `250ms`, `2s`, `1m`.
    Duration,
    Bool,
    /// An integer in `min..=max` (`None`: `u64::MAX`).
    Count {
        min: u64,
        max: Option<u64>,
    },
    /// `letters, digits, _ and -`, starting with a letter.
    Label,
    /// A dotted variable path.
    Var,
    /// Any value; its strings are templates.
    Template,
    /// A map of any values (plain JSON, no templates).
    Object,
    /// Request params: a map, a list, or a template string.
    Params,
    /// A JSON-RPC id: a string or a number, or also `null`.
    RequestId {
        null: bool,
    },
    Matcher,
    /// Pairs of hex digits, whitespace ignored.
    Hex,
    /// One of [`crate::model::Discover::LISTS`].
    DiscoverList,
    /// The list of steps.
    Steps,
    Map(&'static MapDef),
    /// `null` (nothing written) or the map.
    NullOr(&'static MapDef),
    /// A duration or the map.
    DurationOr(&'static MapDef),
    /// The `expect` step: one selector and the keys it allows.
    Expectation,
    /// `$type`: a type name or a list of them.
    TypeNames,
    /// `$regex`: a regular expression.
    Regex,
    /// A non-empty list of matchers.
    Matchers,
    /// A list of values (templates).
    Values,
    /// A number or a template string.
    Bound,
    /// `$schema`: a JSON Schema, or a template string that renders to one.
    Schema,
    /// HTTP header overrides: names → a string (a template) or `null` (remove).
    Headers,
    /// One of these words.
    OneOf(&'static [&'static str]),
}

/// The roles a scenario id starts with.
pub(crate) const ID_ROLES: [&str; 2] = ["server", "client"];

/// The values of `level`.
pub(crate) const LEVELS: [Level; 3] = [Level::Must, Level::Should, Level::May];

/// `versions` keywords and the versions they stand for; the first is the default.
pub(crate) const VERSION_SETS: [(&str, &[Version]); 2] =
    [("handshake", &Version::HANDSHAKE), ("all", &Version::ALL)];

/// The `transports` keyword for every transport (the default).
pub(crate) const ALL_TRANSPORTS: &str = "all";

/// `level` of the scenario or of a step.
const LEVEL_DOC: &str = "must | should | may: the level of the checks";

pub(crate) static TOP: MapDef = MapDef {
    keys: &[
        req(
            "id",
            "The scenario id: the file path below scenarios/ without .yaml; stable forever",
            Shape::ScenarioId,
        ),
        req(
            "title",
            "What the scenario checks, one line",
            Shape::OneLine,
        ),
        req(
            "requirements",
            "Requirement ids from the engine's requirement catalogue",
            Shape::RequirementIds,
        ),
        req("level", LEVEL_DOC, Shape::Level),
        opt(
            "versions",
            "Protocol versions to run for: handshake (default), all, a version or a list",
            Shape::Versions,
        ),
        opt(
            "transports",
            "The transports the scenario applies to: all (default) or a list",
            Shape::Transports,
        ),
        opt(
            "session",
            "initialized (default: the runner performs the handshake) or fresh (nothing sent)",
            Shape::Session,
        ),
        opt(
            "requires",
            "Gates: when unmet, the case is not applicable",
            Shape::Map(&REQUIRES),
        ),
        opt(
            "client_capabilities",
            "Server scenarios: the capabilities the harness declares as the client (initialize, 2026-07-28 _meta); default {}",
            Shape::Object,
        ),
        opt(
            "extension",
            "An opt-in extension (tasks, skills): the cases run only under --extension NAME",
            Shape::Extension,
        ),
        opt(
            "auth",
            "Client scenarios over Streamable HTTP: the scripted server is protected; how its authorization server behaves",
            Shape::Map(&AUTH),
        ),
        opt(
            "timeout",
            "Hard limit for the whole case (default 30s)",
            Shape::Duration,
        ),
        opt(
            "isolate",
            "true: every case gets a target process of its own (default: the runner infers which cases may share one)",
            Shape::Bool,
        ),
        opt("notes", "Why the scenario is shaped this way", Shape::Text),
        req("steps", "The steps, in order (at least one)", Shape::Steps),
    ],
    // `requires.auth` is learnt over HTTP, not negotiated: fresh allows it.
    rules: &[Rule::ExcludesMembers {
        key: "session",
        when: Lit::Str(SessionMode::Fresh.as_str()),
        map: "requires",
        members: &["capabilities", "http_session"],
    }],
};

pub(crate) static REQUIRES: MapDef = MapDef::new(&[
    opt(
        "capabilities",
        "Dotted paths into the server's capabilities (tools, resources.subscribe)",
        Shape::CapabilityPaths,
    ),
    opt(
        "http_session",
        "Streamable HTTP: the server issued an Mcp-Session-Id at initialize",
        Shape::Bool,
    ),
    opt(
        "auth",
        "Authorization: protected (the target wants a token), token (the run holds one: --auth-token), other_audience (and one for another resource)",
        Shape::AuthGate,
    ),
]);

pub(crate) static AUTH: MapDef = MapDef::new(&[
    opt(
        "metadata_hint",
        "challenge (default: the 401 names the Protected Resource Metadata URL) or well_known (it does not)",
        Shape::OneOf(crate::AuthScript::METADATA_HINT_CHOICES),
    ),
    opt("scope", "The scope of the 401 challenge", Shape::NonEmpty),
    opt(
        "prm_resource",
        "canonical (default: the metadata's resource is the server's URI) or mismatch",
        Shape::OneOf(crate::AuthScript::PRM_RESOURCE_CHOICES),
    ),
    opt(
        "iss",
        "correct (default), wrong, absent or normalized (the issuer with a trailing slash): the iss of the authorization response",
        Shape::OneOf(crate::AuthScript::ISS_CHOICES),
    ),
    opt(
        "iss_support",
        "advertised (default) or unadvertised: whether the metadata advertises authorization_response_iss_parameter_supported (2026-07-28)",
        Shape::OneOf(crate::AuthScript::ISS_SUPPORT_CHOICES),
    ),
    opt(
        "state",
        "echo (default) or altered: the state of the authorization response",
        Shape::OneOf(crate::AuthScript::STATE_CHOICES),
    ),
    opt(
        "token_auth",
        "none (default), client_secret_basic or client_secret_post: the token endpoint's client authentication",
        Shape::OneOf(crate::AuthScript::TOKEN_AUTH_CHOICES),
    ),
    opt(
        "as_metadata",
        "all (default: every well-known URI) or openid_only: where the authorization server metadata is served",
        Shape::OneOf(crate::AuthScript::AS_METADATA_CHOICES),
    ),
    opt(
        "token_use",
        "accepted (default) or refused: the MCP endpoint answers 401 whatever token a request carries",
        Shape::OneOf(crate::AuthScript::TOKEN_USE_CHOICES),
    ),
    opt(
        "as_issuer",
        "correct (default) or mismatch: the issuer the authorization server metadata names",
        Shape::OneOf(crate::AuthScript::AS_ISSUER_CHOICES),
    ),
    opt(
        "as_pkce",
        "s256 (default) or absent: whether the authorization server metadata lists code_challenge_methods_supported",
        Shape::OneOf(crate::AuthScript::AS_PKCE_CHOICES),
    ),
    opt(
        "refresh_token",
        "withheld (default) or issued: whether the token endpoint issues a refresh token with the access token",
        Shape::OneOf(crate::AuthScript::REFRESH_TOKEN_CHOICES),
    ),
    opt(
        "registration",
        "accepted (default); refused_redirect: dynamic registration refuses every request with 400 invalid_redirect_uri; preregistered: no dynamic registration, the client gets static credentials through {client_id} and {client_secret} in its command line (a case whose command has no {client_id} is not applicable)",
        Shape::OneOf(crate::AuthScript::REGISTRATION_CHOICES),
    ),
    opt(
        "cimd",
        "unsupported (default) or supported: whether the authorization server metadata advertises client_id_metadata_document_supported (client ID metadata documents)",
        Shape::OneOf(crate::AuthScript::CIMD_CHOICES),
    ),
    opt(
        "migration",
        "none (default) or after_token: once the client used a token, its tokens are refused with 401 and the Protected Resource Metadata names a second authorization server",
        Shape::OneOf(crate::AuthScript::MIGRATION_CHOICES),
    ),
    opt(
        "scopes_supported",
        "listed (default) or omitted: whether the Protected Resource Metadata and the authorization server metadata list scopes_supported",
        Shape::OneOf(crate::AuthScript::SCOPES_SUPPORTED_CHOICES),
    ),
    opt(
        "step_up",
        "A scope every MCP request needs once the client holds a token: a token without it is answered 403 insufficient_scope naming it",
        Shape::NonEmpty,
    ),
]);

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
]);

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
        doc: "Check bound values: { value, matches }",
        shape: Shape::Map(&ASSERT),
        modifiers: &[],
    },
    StepDef {
        key: "assume",
        doc: "Check bound values; a mismatch makes the case not applicable: { value, matches, reason }",
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

/// The transports `transports` may list.
pub(crate) fn transport_names() -> Vec<&'static str> {
    TransportKind::ALL.iter().map(|t| t.as_str()).collect()
}

/// `a, b or c`.
pub(crate) fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_lists() {
        assert_eq!(one_of(&["must", "should", "may"]), "must, should or may");
        assert_eq!(one_of(&["a"]), "a");
    }

    #[test]
    fn keys_are_unique_per_map() {
        let maps: [&[Key]; 4] = [
            TOP.keys,
            STEP_COMMON,
            crate::matcher::operators::OPERATORS,
            DISCOVER.keys,
        ];
        for keys in maps {
            let mut seen = names(keys);
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), keys.len());
        }
    }
}
