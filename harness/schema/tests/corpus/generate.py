#!/usr/bin/env python3
"""Regenerates the differential-test corpus: one JSON Lines file per MCP version.

    python3 harness/schema/tests/corpus/generate.py [SCHEMAS_DIR]

SCHEMAS_DIR defaults to ../shared/schemas beside the repository. The official schemas
are *read* here for two things only: which definition names a version has (so a seed
is emitted only where its definition exists) and the shape of a definition (which
members it requires, which have a const/enum/type), so that invalid messages can be
made by systematic mutation of our own valid seeds. Nothing of the schema text is
copied into the output: every instance below is written by us, and every `why` is ours.

Each line of `<version>.jsonl` is

    {"version", "definition", "valid", "why", "instance"}

`valid` is our claim, recorded explicitly: seeds are valid by construction; a mutation
is invalid by the rule it breaks, except where OVERRIDES says (with our reason) that
another branch of a union still accepts the mutated message. The test
`differential.rs` checks every claim against the official schema, so a wrong claim
here fails the build rather than silently shaping the corpus.
"""

import copy
import json
import os
import sys

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
HERE = os.path.dirname(os.path.abspath(__file__))
LATEST = "2026-07-28"

# ---------------------------------------------------------------------------------
# Helpers that build our messages for a version.


def stateless(v):
    """2026-07-28 drops initialize: each request carries its version in `_meta`."""
    return v == LATEST


def rmeta(v, **extra):
    m = {
        "io.modelcontextprotocol/protocolVersion": v,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    m.update(extra)
    return m


def params(v, **p):
    """Request params; in the stateless version `_meta` with version and capabilities."""
    out = dict(p)
    if stateless(v):
        meta = rmeta(v)
        meta.update(out.get("_meta", {}))
        out = {"_meta": meta, **{k: x for k, x in out.items() if k != "_meta"}}
    return out


def req(method, p=None, rid=1):
    m = {"jsonrpc": "2.0", "id": rid, "method": method}
    if p is not None:
        m["params"] = p
    return m


def note(method, p=None):
    m = {"jsonrpc": "2.0", "method": method}
    if p is not None:
        m["params"] = p
    return m


def res(v, body, cacheable=False):
    """A result body; the stateless version tags results and may ask for caching."""
    out = dict(body)
    if stateless(v):
        out["resultType"] = "complete"
        if cacheable:
            out["cacheScope"] = "private"
            out["ttlMs"] = 0
    return out


def text(t="hello"):
    return {"type": "text", "text": t}


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="


def v_at_least(v, w):
    return VERSIONS.index(v) >= VERSIONS.index(w)


# ---------------------------------------------------------------------------------
# Seeds: (definition, why, builder(v) -> instance or None, options)
# A builder returning None means "not for this version". `mutate` marks the seed whose
# systematic mutations are emitted (one per definition is enough); `wrap` also emits it
# under the unions and JSON-RPC envelopes that contain it.

SEEDS = []


def seed(definition, why, build, mutate=False, wrap=False):
    SEEDS.append((definition, why, build, mutate, wrap))


# -- client requests ---------------------------------------------------------------

seed("InitializeRequest", "a typical initialize from a client with roots and sampling",
     lambda v: None if stateless(v) else req("initialize", {
         "protocolVersion": v,
         "capabilities": {"roots": {"listChanged": True}, "sampling": {}},
         "clientInfo": {"name": "mcpspec", "version": "0.1.0"}}),
     mutate=True, wrap=True)
seed("InitializeRequest", "empty capabilities object is a valid declaration of none",
     lambda v: None if stateless(v) else req("initialize", {
         "protocolVersion": v, "capabilities": {},
         "clientInfo": {"name": "c", "version": "1"}}, rid="init-1"))
seed("InitializeRequest", "an unknown protocolVersion string is still schema-valid (negotiation is not a schema matter)",
     lambda v: None if stateless(v) else req("initialize", {
         "protocolVersion": "1999-01-01", "capabilities": {},
         "clientInfo": {"name": "c", "version": "1"}}))
seed("InitializeRequest", "unicode client name and experimental capability with nested members",
     lambda v: None if stateless(v) else req("initialize", {
         "protocolVersion": v,
         "capabilities": {"experimental": {"ex.feature": {"level": 3, "on": True}}},
         "clientInfo": {"name": "klient-\u00e9\u00e8-\u65e5\u672c-\U0001F680", "version": "2.0.0-rc.1"}}))
seed("InitializeRequest", "unknown extra members in params and at the top level are allowed",
     lambda v: None if stateless(v) else {**req("initialize", {
         "protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"},
         "vendorExtension": {"a": [1, 2]}}), "x-trace": "abc"})
seed("InitializeRequest", "_meta with a progress token in initialize params",
     lambda v: None if stateless(v) else req("initialize", {
         "_meta": {"progressToken": 7}, "protocolVersion": v, "capabilities": {},
         "clientInfo": {"name": "c", "version": "1"}}))
seed("InitializeRequest", "2025-06-18+ clientInfo carries a title; 2025-11-25+ elicitation capability",
     lambda v: None if stateless(v) or not v_at_least(v, "2025-06-18") else req("initialize", {
         "protocolVersion": v,
         "capabilities": {"elicitation": {}, "roots": {}},
         "clientInfo": {"name": "c", "title": "Client C", "version": "1"}}))

seed("PingRequest", "ping with no params",
     lambda v: None if stateless(v) else req("ping", rid=42), mutate=True, wrap=True)
seed("PingRequest", "ping with empty params",
     lambda v: None if stateless(v) else req("ping", {}, rid="p"))
seed("PingRequest", "ping with a string progress token in _meta",
     lambda v: None if stateless(v) else req("ping", {"_meta": {"progressToken": "tok-1"}}))
seed("PingRequest", "large integer id (2^53 + 1) is still an integer",
     lambda v: None if stateless(v) else req("ping", rid=9007199254740993))
seed("PingRequest", "negative and zero ids are integers too",
     lambda v: None if stateless(v) else req("ping", rid=0))
seed("PingRequest", "an id written 1.0 is an integer in JSON Schema terms",
     lambda v: None if stateless(v) else req("ping", rid=1.0))

seed("ListToolsRequest", "tools/list without a cursor",
     lambda v: req("tools/list", params(v)) if stateless(v) else req("tools/list"),
     mutate=True, wrap=True)
seed("ListToolsRequest", "tools/list with an opaque cursor",
     lambda v: req("tools/list", params(v, cursor="eyJwIjoyfQ=="), rid=2))
seed("ListToolsRequest", "tools/list with an empty-string cursor",
     lambda v: req("tools/list", params(v, cursor=""), rid=3))

seed("CallToolRequest", "call a tool with arguments",
     lambda v: req("tools/call", params(v, name="echo", arguments={"text": "hi", "times": 2})),
     mutate=True, wrap=True)
seed("CallToolRequest", "call a tool without arguments",
     lambda v: req("tools/call", params(v, name="now")))
seed("CallToolRequest", "arguments of every JSON type, nested, with unicode",
     lambda v: req("tools/call", params(v, name="deep", arguments={
         "s": "\u00fc\u00f1\u00ee", "n": -1.5, "i": 123456789012, "b": False,
         "a": [1, "two", [3]], "o": {"p": {"q": []}}})))
seed("CallToolRequest", "call with a progress token and a task request (2025-11-25)",
     lambda v: req("tools/call", {"_meta": {"progressToken": "call-1"}, "name": "slow", "task": {"ttl": 60000}})
     if v == "2025-11-25" else None)
seed("CallToolRequest", "per-request _meta in the stateless version may carry clientInfo and logLevel",
     lambda v: req("tools/call", {"_meta": rmeta(v, **{
         "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
         "io.modelcontextprotocol/logLevel": "debug", "progressToken": 3}), "name": "t"})
     if stateless(v) else None)

seed("ListResourcesRequest", "resources/list",
     lambda v: req("resources/list", params(v)) if stateless(v) else req("resources/list", {}),
     mutate=True, wrap=True)
seed("ListResourceTemplatesRequest", "resources/templates/list with cursor",
     lambda v: req("resources/templates/list", params(v, cursor="c2")), mutate=True, wrap=True)
seed("ReadResourceRequest", "read a file resource",
     lambda v: req("resources/read", params(v, uri="file:///project/README.md")), mutate=True, wrap=True)
seed("ReadResourceRequest", "read a resource with a custom scheme and unicode path",
     lambda v: req("resources/read", params(v, uri="mem://notes/caf\u00e9")))
seed("SubscribeRequest", "subscribe to a resource",
     lambda v: req("resources/subscribe", {"uri": "file:///log.txt"}), mutate=True, wrap=True)
seed("UnsubscribeRequest", "unsubscribe from a resource",
     lambda v: req("resources/unsubscribe", {"uri": "file:///log.txt"}), mutate=True, wrap=True)
seed("ListPromptsRequest", "prompts/list",
     lambda v: req("prompts/list", params(v)), mutate=True, wrap=True)
seed("GetPromptRequest", "get a prompt with string arguments",
     lambda v: req("prompts/get", params(v, name="review", arguments={"code": "fn main() {}", "lang": "rust"})),
     mutate=True, wrap=True)
seed("GetPromptRequest", "get a prompt with no arguments",
     lambda v: req("prompts/get", params(v, name="hello")))
seed("SetLevelRequest", "set the log level to warning",
     lambda v: req("logging/setLevel", {"level": "warning"}), mutate=True, wrap=True)
for lvl in ["debug", "info", "notice", "error", "critical", "alert", "emergency"]:
    seed("SetLevelRequest", f"every syslog level is accepted: {lvl}",
         lambda v, lvl=lvl: req("logging/setLevel", {"level": lvl}))
seed("CompleteRequest", "complete a prompt argument",
     lambda v: req("completion/complete", params(v, ref={"type": "ref/prompt", "name": "review"},
                                                 argument={"name": "lang", "value": "ru"})),
     mutate=True, wrap=True)
seed("CompleteRequest", "complete a resource template variable",
     lambda v: req("completion/complete", params(v, ref={"type": "ref/resource", "uri": "file:///{path}"},
                                                 argument={"name": "path", "value": ""})))
seed("CompleteRequest", "completion with context of already-resolved arguments (2025-06-18+)",
     lambda v: req("completion/complete", params(v, ref={"type": "ref/prompt", "name": "p"},
                                                 argument={"name": "b", "value": "x"},
                                                 context={"arguments": {"a": "1"}}))
     if v_at_least(v, "2025-06-18") else None)
seed("DiscoverRequest", "server/discover with the required per-request _meta",
     lambda v: req("server/discover", params(v)), mutate=True, wrap=True)
seed("SubscriptionsListenRequest", "listen for list changes and one resource",
     lambda v: req("subscriptions/listen", params(v, notifications={
         "toolsListChanged": True, "resourceSubscriptions": ["file:///a.txt"]})), mutate=True, wrap=True)
seed("SubscriptionsListenRequest", "listen with an empty filter",
     lambda v: req("subscriptions/listen", params(v, notifications={})))
seed("GetTaskRequest", "poll a task", lambda v: req("tasks/get", {"taskId": "t-1"}), mutate=True, wrap=True)
seed("GetTaskPayloadRequest", "fetch a task's result", lambda v: req("tasks/result", {"taskId": "t-1"}),
     mutate=True, wrap=True)
seed("CancelTaskRequest", "cancel a task", lambda v: req("tasks/cancel", {"taskId": "t-1"}), mutate=True, wrap=True)
seed("ListTasksRequest", "list tasks", lambda v: req("tasks/list"), mutate=True, wrap=True)

# -- server requests ---------------------------------------------------------------

seed("CreateMessageRequest", "sampling request with one user message",
     lambda v: req("sampling/createMessage", {
         "messages": [{"role": "user", "content": text("Summarise this")}], "maxTokens": 200}),
     mutate=True, wrap=True)
seed("CreateMessageRequest", "sampling request with every optional member",
     lambda v: req("sampling/createMessage", {
         "messages": [{"role": "user", "content": text("q")},
                      {"role": "assistant", "content": text("a")},
                      {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}}],
         "maxTokens": 1, "systemPrompt": "be brief", "includeContext": "thisServer",
         "temperature": 0.2, "stopSequences": ["\n\n"], "metadata": {"trace": 1},
         "modelPreferences": {"hints": [{"name": "claude"}, {}], "costPriority": 0,
                              "speedPriority": 1, "intelligencePriority": 0.5}}))
seed("CreateMessageRequest", "sampling with an empty message list is schema-valid",
     lambda v: req("sampling/createMessage", {"messages": [], "maxTokens": 0}))
seed("CreateMessageRequest", "sampling with tools and a tool-use round trip (2025-11-25+)",
     lambda v: req("sampling/createMessage", {
         "messages": [
             {"role": "user", "content": text("weather?")},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "weather", "input": {"city": "Oslo"}}]},
             {"role": "user", "content": [{"type": "tool_result", "toolUseId": "u1", "content": [text("3C")]}]}],
         "maxTokens": 50, "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
         "toolChoice": {"mode": "auto"}}) if v_at_least(v, "2025-11-25") else None)
seed("ListRootsRequest", "roots/list from the server",
     lambda v: req("roots/list"), mutate=True, wrap=True)
seed("ElicitRequest", "form elicitation asking for a name and an age",
     lambda v: req("elicitation/create", {
         "message": "Who are you?",
         "requestedSchema": {"type": "object", "properties": {
             "name": {"type": "string", "minLength": 1},
             "age": {"type": "integer", "minimum": 0},
             "ok": {"type": "boolean", "default": True},
             "color": {"type": "string", "enum": ["red", "green"]}},
             "required": ["name"]}}), mutate=True, wrap=True)
seed("ElicitRequest", "form elicitation with an empty property set",
     lambda v: req("elicitation/create", {"message": "Confirm?", "requestedSchema": {"type": "object", "properties": {}}}))
seed("ElicitRequest", "URL-mode elicitation (2025-11-25+)",
     lambda v: req("elicitation/create", {"mode": "url", "message": "Sign in", "url": "https://auth.example/x",
                                          "elicitationId": "e-1"}) if v_at_least(v, "2025-11-25") else None)

# -- results -------------------------------------------------------------------------

seed("InitializeResult", "server answers initialize with tools, resources, prompts and logging",
     lambda v: None if stateless(v) else {
         "protocolVersion": v,
         "capabilities": {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": False},
                          "prompts": {}, "logging": {}},
         "serverInfo": {"name": "ref-server", "version": "0.1.0"},
         "instructions": "Use the echo tool."}, mutate=True, wrap=True)
seed("InitializeResult", "minimal initialize result",
     lambda v: None if stateless(v) else {"protocolVersion": v, "capabilities": {},
                                          "serverInfo": {"name": "s", "version": ""}})
seed("InitializeResult", "result with _meta and completions capability (2025-03-26+)",
     lambda v: None if stateless(v) or not v_at_least(v, "2025-03-26") else {
         "_meta": {"x": 1}, "protocolVersion": v, "capabilities": {"completions": {}},
         "serverInfo": {"name": "s", "version": "1"}})
seed("EmptyResult", "empty result (e.g. answer to ping)", lambda v: res(v, {}), mutate=True, wrap=True)
seed("EmptyResult", "empty result with _meta", lambda v: res(v, {"_meta": {}}))

def tool(v, name="echo"):
    t = {"name": name, "description": "Echo text back",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
    return t

seed("ListToolsResult", "one tool, no further pages",
     lambda v: res(v, {"tools": [tool(v)]}, cacheable=True), mutate=True, wrap=True)
seed("ListToolsResult", "empty tool list with a next cursor",
     lambda v: res(v, {"tools": [], "nextCursor": "page-2"}, cacheable=True))
seed("ListToolsResult", "tool with annotations (2025-03-26+)",
     lambda v: res(v, {"tools": [{**tool(v), "annotations": {"title": "Echo", "readOnlyHint": True,
                                                              "destructiveHint": False, "idempotentHint": True,
                                                              "openWorldHint": False}}]}, cacheable=True)
     if v_at_least(v, "2025-03-26") else None)
seed("Tool", "a tool with the smallest input schema", lambda v: {"name": "t", "inputSchema": {"type": "object"}},
     mutate=True)
seed("Tool", "a tool with title and output schema (2025-06-18+)",
     lambda v: {"name": "add", "title": "Add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}},
                "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
                "_meta": {"vendor/x": True}} if v_at_least(v, "2025-06-18") else None)
seed("Tool", "a tool with icons and execution hints (2025-11-25+)",
     lambda v: {"name": "t", "inputSchema": {"type": "object"},
                "icons": [{"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"]}],
                "execution": {"taskSupport": "optional"}} if v == "2025-11-25" else None)

seed("CallToolResult", "text result", lambda v: res(v, {"content": [text("hi")]}), mutate=True, wrap=True)
seed("CallToolResult", "error result with empty content", lambda v: res(v, {"content": [], "isError": True}))
seed("CallToolResult", "mixed text, image and embedded resource",
     lambda v: res(v, {"content": [text("a"), {"type": "image", "data": PNG, "mimeType": "image/png"},
                                   {"type": "resource", "resource": {"uri": "file:///x", "text": "x", "mimeType": "text/plain"}}]}))
seed("CallToolResult", "audio content (2025-03-26+)",
     lambda v: res(v, {"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]})
     if v_at_least(v, "2025-03-26") else None)
seed("CallToolResult", "structured content alongside text, and a resource link (2025-06-18+)",
     lambda v: res(v, {"content": [text('{"sum":3}'), {"type": "resource_link", "uri": "file:///r", "name": "r"}],
                       "structuredContent": {"sum": 3}}) if v_at_least(v, "2025-06-18") else None)
seed("CallToolResult", "content annotated with audience and priority",
     lambda v: res(v, {"content": [{**text("x"), "annotations": {"audience": ["user", "assistant"], "priority": 1}}]}))

seed("ListResourcesResult", "one resource",
     lambda v: res(v, {"resources": [{"uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain"}]}, cacheable=True),
     mutate=True, wrap=True)
seed("ListResourcesResult", "no resources", lambda v: res(v, {"resources": []}, cacheable=True))
seed("ListResourcesResult", "resource with size, description and annotations",
     lambda v: res(v, {"resources": [{"uri": "file:///b.bin", "name": "b", "description": "bytes", "size": 4294967296,
                                       "annotations": {"priority": 0.0}}]}, cacheable=True))
seed("ListResourceTemplatesResult", "one template",
     lambda v: res(v, {"resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "files"}]}, cacheable=True),
     mutate=True, wrap=True)
seed("ReadResourceResult", "text contents",
     lambda v: res(v, {"contents": [{"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}]}, cacheable=True),
     mutate=True, wrap=True)
seed("ReadResourceResult", "blob contents",
     lambda v: res(v, {"contents": [{"uri": "file:///p.png", "mimeType": "image/png", "blob": PNG}]}, cacheable=True))
seed("ReadResourceResult", "empty contents list", lambda v: res(v, {"contents": []}, cacheable=True))
seed("ListPromptsResult", "one prompt with an argument",
     lambda v: res(v, {"prompts": [{"name": "review", "description": "Review code",
                                    "arguments": [{"name": "code", "required": True}]}]}, cacheable=True),
     mutate=True, wrap=True)
seed("GetPromptResult", "prompt messages of both roles",
     lambda v: res(v, {"description": "d", "messages": [{"role": "user", "content": text("Review")},
                                                        {"role": "assistant", "content": text("OK")}]}),
     mutate=True, wrap=True)
seed("GetPromptResult", "prompt with an embedded resource message",
     lambda v: res(v, {"messages": [{"role": "user", "content": {"type": "resource",
                                     "resource": {"uri": "file:///c.rs", "text": "fn f(){}"}}}]}))
seed("CompleteResult", "completion values", lambda v: res(v, {"completion": {"values": ["rust", "ruby"], "total": 2, "hasMore": False}}),
     mutate=True, wrap=True)
seed("CompleteResult", "no completion values", lambda v: res(v, {"completion": {"values": []}}))
seed("CreateMessageResult", "assistant text answer",
     lambda v: {"role": "assistant", "content": text("Summary."), "model": "m-1", "stopReason": "endTurn"},
     mutate=True, wrap=True)
seed("CreateMessageResult", "assistant image answer without a stop reason",
     lambda v: {"role": "assistant", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}, "model": "m"})
seed("ListRootsResult", "two roots", lambda v: {"roots": [{"uri": "file:///home/u/proj", "name": "proj"},
                                                           {"uri": "file:///tmp"}]}, mutate=True, wrap=True)
seed("ListRootsResult", "no roots", lambda v: {"roots": []})
seed("ElicitResult", "accepted with content of each primitive type",
     lambda v: {"action": "accept", "content": {"name": "Ann", "age": 30, "ok": True}}, mutate=True, wrap=True)
seed("ElicitResult", "declined without content", lambda v: {"action": "decline"})
seed("ElicitResult", "cancelled", lambda v: {"action": "cancel"})
seed("DiscoverResult", "stateless server advertises versions and capabilities",
     lambda v: res(v, {"supportedVersions": [v, "2025-11-25"], "capabilities": {"tools": {"listChanged": True}},
                       "instructions": "hi"}, cacheable=True), mutate=True, wrap=True)
seed("SubscriptionsListenResult", "listen stream ended by the server",
     lambda v: res(v, {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"}}), mutate=True, wrap=True)
seed("InputRequiredResult", "server asks for sampling input before completing a call",
     lambda v: {"resultType": "input_required", "requestState": "opaque-state",
                "inputRequests": {"s1": {"method": "sampling/createMessage", "params": {
                    "messages": [{"role": "user", "content": text("q")}], "maxTokens": 5}}}},
     mutate=True, wrap=True)

TASK = {"taskId": "t-1", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
        "lastUpdatedAt": "2025-11-25T10:00:01Z", "ttl": 60000, "pollInterval": 500}
seed("CreateTaskResult", "a task was created", lambda v: {"task": TASK}, mutate=True, wrap=True)
seed("GetTaskResult", "task state", lambda v: dict(TASK), mutate=True, wrap=True)
seed("GetTaskResult", "task with unlimited ttl (null)", lambda v: {**TASK, "ttl": None, "status": "completed"})
seed("ListTasksResult", "list of tasks", lambda v: {"tasks": [TASK], "nextCursor": "n"}, mutate=True, wrap=True)
seed("CancelTaskResult", "cancelled task", lambda v: {**TASK, "status": "cancelled"}, mutate=True)
seed("GetTaskPayloadResult", "a task's payload is any result", lambda v: {"content": [text("done")]}, wrap=True)

# -- notifications -------------------------------------------------------------------

seed("InitializedNotification", "client says it is initialized",
     lambda v: None if stateless(v) else note("notifications/initialized"), mutate=True, wrap=True)
seed("InitializedNotification", "initialized with empty params",
     lambda v: None if stateless(v) else note("notifications/initialized", {}))
seed("CancelledNotification", "cancel request 5 with a reason",
     lambda v: note("notifications/cancelled", {"requestId": 5, "reason": "user pressed stop"}), mutate=True, wrap=True)
seed("CancelledNotification", "cancel a string-id request without a reason",
     lambda v: note("notifications/cancelled", {"requestId": "abc"}))
seed("ProgressNotification", "progress with total and message",
     lambda v: note("notifications/progress", {"progressToken": "tok", "progress": 50, "total": 100, "message": "half"}),
     mutate=True, wrap=True)
seed("ProgressNotification", "fractional progress, integer token, no total",
     lambda v: note("notifications/progress", {"progressToken": 1, "progress": 0.25}))
seed("ProgressNotification", "huge progress value",
     lambda v: note("notifications/progress", {"progressToken": 1, "progress": 1e300}))
seed("LoggingMessageNotification", "an error log line with structured data",
     lambda v: note("notifications/message", {"level": "error", "logger": "db", "data": {"err": "timeout", "ms": 5000}}),
     mutate=True, wrap=True)
seed("LoggingMessageNotification", "log data may be any JSON value, even null",
     lambda v: note("notifications/message", {"level": "info", "data": None}))
seed("LoggingMessageNotification", "log data as a plain unicode string",
     lambda v: note("notifications/message", {"level": "debug", "data": "\u2713 done \u00bd"}))
for m, d in [("notifications/resources/list_changed", "ResourceListChangedNotification"),
             ("notifications/prompts/list_changed", "PromptListChangedNotification"),
             ("notifications/tools/list_changed", "ToolListChangedNotification"),
             ("notifications/roots/list_changed", "RootsListChangedNotification")]:
    seed(d, "list-changed notification without params", lambda v, m=m: note(m), mutate=True, wrap=True)
    seed(d, "list-changed notification with _meta in params", lambda v, m=m: note(m, {"_meta": {"k": "v"}}))
seed("ResourceUpdatedNotification", "a subscribed resource changed",
     lambda v: note("notifications/resources/updated", {"uri": "file:///log.txt"}), mutate=True, wrap=True)
seed("ElicitationCompleteNotification", "URL elicitation finished",
     lambda v: note("notifications/elicitation/complete", {"elicitationId": "e-1"}), mutate=True, wrap=True)
seed("TaskStatusNotification", "task status changed",
     lambda v: note("notifications/tasks/status", {**TASK, "status": "input_required"}), mutate=True, wrap=True)
seed("SubscriptionsAcknowledgedNotification", "server acknowledges a listen filter",
     lambda v: note("notifications/subscriptions/acknowledged", {
         "_meta": {"io.modelcontextprotocol/subscriptionId": 9},
         "notifications": {"toolsListChanged": True, "promptsListChanged": False}}), mutate=True, wrap=True)

# -- JSON-RPC envelopes ----------------------------------------------------------------

seed("JSONRPCRequest", "a request for an unknown method is still a well-formed request",
     lambda v: req("vendor/doSomething", {"x": 1}, rid="r-1"), mutate=True)
seed("JSONRPCRequest", "empty method name is a string", lambda v: req("", rid=2))
seed("JSONRPCNotification", "a notification for an unknown method",
     lambda v: note("notifications/vendor", {"k": [1]}), mutate=True)
seed("JSONRPCNotification", "notification without params", lambda v: note("x"))

def resp(v, rid=1, result=None):
    return {"jsonrpc": "2.0", "id": rid, "result": res(v, {}) if result is None else result}

def err(rid=1, code=-32601, message="Method not found", data=None):
    e = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    m = {"jsonrpc": "2.0", "error": e}
    if rid is not None:
        m["id"] = rid
    return m

RESP_DEF = lambda v: "JSONRPCResultResponse" if v_at_least(v, "2025-11-25") else "JSONRPCResponse"
ERR_DEF = lambda v: "JSONRPCErrorResponse" if v_at_least(v, "2025-11-25") else "JSONRPCError"

for d in ["JSONRPCResponse", "JSONRPCResultResponse"]:
    seed(d, "a success response with an empty result",
         lambda v, d=d: resp(v) if d == RESP_DEF(v) else None, mutate=True)
    seed(d, "a response whose result has extra members",
         lambda v, d=d: resp(v, "s-1", res(v, {"anything": [1, 2], "_meta": {"m": 1}})) if d == RESP_DEF(v) else None)
for d in ["JSONRPCError", "JSONRPCErrorResponse"]:
    seed(d, "method-not-found error", lambda v, d=d: err() if d == ERR_DEF(v) else None, mutate=True, wrap=True)
    seed(d, "error with structured data", lambda v, d=d: err("q", -32602, "Invalid params", {"field": "name"})
         if d == ERR_DEF(v) else None)
    seed(d, "error with null data (data may be any value)",
         lambda v, d=d: {**err(3, -32603, "Internal error"), "error": {"code": -32603, "message": "x", "data": None}}
         if d == ERR_DEF(v) else None)
    seed(d, "application-defined error code outside the reserved range",
         lambda v, d=d: err(4, 1234, "custom") if d == ERR_DEF(v) else None)
    seed(d, "error with an empty message string", lambda v, d=d: err(5, -32000, "") if d == ERR_DEF(v) else None)
seed("JSONRPCErrorResponse", "error without an id (allowed from 2025-11-25, e.g. parse errors)",
     lambda v: err(None, -32700, "Parse error") if v_at_least(v, "2025-11-25") else None)
seed("JSONRPCMessage", "a parse error without an id is a message (2025-11-25+)",
     lambda v: err(None, -32700, "Parse error") if v_at_least(v, "2025-11-25") else None)
seed("JSONRPCMessage", "a response carrying both result and error still matches the response shape (extra member)",
     lambda v: {**resp(v), "error": {"code": 1, "message": "m"}})
seed("JSONRPCBatchRequest", "a batch of a request and a notification (2025-03-26)",
     lambda v: [req("ping", rid=1), note("notifications/initialized")], mutate=True)
seed("JSONRPCBatchRequest", "an empty batch is schema-valid", lambda v: [])
seed("JSONRPCBatchResponse", "a batch of a response and an error (2025-03-26)",
     lambda v: [resp(v, 1), err(2)], mutate=True)
seed("JSONRPCMessage", "a batch is a message in 2025-03-26",
     lambda v: [req("ping", rid=1)] if v == "2025-03-26" else None)

seed("HeaderMismatchError", "header/body version mismatch error",
     lambda v: err(1, -32020, "MCP-Protocol-Version header does not match _meta"), mutate=True)
seed("MissingRequiredClientCapabilityError", "server needs sampling from the client",
     lambda v: err(2, -32021, "sampling required", {"requiredCapabilities": {"sampling": {}}}), mutate=True)
seed("UnsupportedProtocolVersionError", "version not supported, with the supported list",
     lambda v: err(3, -32022, "unsupported", {"requested": "2099-01-01", "supported": [v]}), mutate=True)
seed("UnsupportedProtocolVersionError", "unsupported version error without id",
     lambda v: err(None, -32022, "unsupported", {"requested": "x", "supported": []}))
for d, c in [("ParseError", -32700), ("InvalidRequestError", -32600), ("MethodNotFoundError", -32601),
             ("InvalidParamsError", -32602), ("InternalError", -32603)]:
    seed(d, f"the error object for code {c}", lambda v, c=c: {"code": c, "message": "m"}, mutate=True)
seed("Error", "a plain error object", lambda v: {"code": -1, "message": "no", "data": [1]}, mutate=True)
seed("URLElicitationRequiredError", "URL elicitation required before the call can proceed",
     lambda v: err(7, -32042, "auth needed", {"elicitations": [
         {"mode": "url", "message": "Sign in", "url": "https://a.example/", "elicitationId": "e"}]}), mutate=True)

# -- building blocks -------------------------------------------------------------------

seed("TextContent", "text block", lambda v: text("hello"), mutate=True)
seed("TextContent", "empty text with unicode-free annotations", lambda v: {**text(""), "annotations": {}})
seed("TextContent", "text with emoji, RTL and combining marks",
     lambda v: text("\U0001F600 \u05e9\u05dc\u05d5\u05dd e\u0301"))
seed("TextContent", "text with _meta (2025-06-18+)",
     lambda v: {**text("x"), "_meta": {"a": 1}} if v_at_least(v, "2025-06-18") else None)
seed("ImageContent", "image block", lambda v: {"type": "image", "data": PNG, "mimeType": "image/png"}, mutate=True)
seed("AudioContent", "audio block", lambda v: {"type": "audio", "data": WAV, "mimeType": "audio/wav"}, mutate=True)
seed("EmbeddedResource", "embedded text resource",
     lambda v: {"type": "resource", "resource": {"uri": "file:///a", "text": "a"}}, mutate=True)
seed("EmbeddedResource", "embedded blob resource",
     lambda v: {"type": "resource", "resource": {"uri": "file:///b", "blob": PNG, "mimeType": "image/png"}})
seed("ResourceLink", "link to a resource",
     lambda v: {"type": "resource_link", "uri": "file:///r.txt", "name": "r", "mimeType": "text/plain", "size": 10},
     mutate=True)
seed("ContentBlock", "text is a content block", lambda v: text("t"))
seed("ContentBlock", "resource link is a content block",
     lambda v: {"type": "resource_link", "uri": "file:///r", "name": "r"})
seed("ContentBlock", "embedded resource is a content block",
     lambda v: {"type": "resource", "resource": {"uri": "file:///a", "text": "a"}})
seed("SamplingMessageContentBlock", "tool use block",
     lambda v: {"type": "tool_use", "id": "u", "name": "n", "input": {}})
seed("ToolUseContent", "a tool-use block", lambda v: {"type": "tool_use", "id": "u", "name": "n", "input": {"a": 1}},
     mutate=True)
seed("ToolResultContent", "a tool-result block",
     lambda v: {"type": "tool_result", "toolUseId": "u", "content": [text("r")], "isError": False}, mutate=True)
seed("Annotations", "all annotation members",
     lambda v: {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"}, mutate=True)
seed("Annotations", "empty annotations", lambda v: {})
seed("Annotations", "priority at both bounds is allowed (0)", lambda v: {"priority": 0})
seed("Annotated", "annotations with audience and priority", lambda v: {"annotations": {"audience": ["assistant"], "priority": 1}},
     mutate=True)
seed("Implementation", "name and version", lambda v: {"name": "x", "version": "1.2.3"}, mutate=True)
seed("Implementation", "implementation with title, icons and website (2025-11-25+)",
     lambda v: {"name": "x", "title": "X", "version": "1", "websiteUrl": "https://x.example",
                "icons": [{"src": "data:image/png;base64," + PNG, "theme": "dark"}]} if v_at_least(v, "2025-11-25") else None)
seed("Icon", "an icon", lambda v: {"src": "https://example.com/a.svg", "mimeType": "image/svg+xml", "sizes": ["any"], "theme": "light"},
     mutate=True)
seed("Resource", "a resource", lambda v: {"uri": "https://example.com/doc", "name": "doc"}, mutate=True)
seed("ResourceTemplate", "a template", lambda v: {"uriTemplate": "db://{table}/{id}", "name": "rows", "mimeType": "application/json"},
     mutate=True)
seed("TextResourceContents", "text contents", lambda v: {"uri": "file:///t", "text": ""}, mutate=True)
seed("BlobResourceContents", "blob contents", lambda v: {"uri": "file:///b", "blob": ""}, mutate=True)
seed("ResourceContents", "contents with only a uri", lambda v: {"uri": "file:///x"}, mutate=True)
seed("Prompt", "a prompt", lambda v: {"name": "p", "arguments": [{"name": "a"}, {"name": "b", "required": False}]}, mutate=True)
seed("PromptArgument", "an argument", lambda v: {"name": "a", "description": "d", "required": True}, mutate=True)
seed("PromptMessage", "a prompt message", lambda v: {"role": "user", "content": text("x")}, mutate=True)
seed("PromptReference", "a prompt reference", lambda v: {"type": "ref/prompt", "name": "p"}, mutate=True)
seed("ResourceReference", "a resource reference", lambda v: {"type": "ref/resource", "uri": "file:///{x}"}, mutate=True)
seed("ResourceTemplateReference", "a template reference", lambda v: {"type": "ref/resource", "uri": "file:///{x}"},
     mutate=True)
seed("Root", "a root", lambda v: {"uri": "file:///home", "name": "home"}, mutate=True)
seed("SamplingMessage", "a sampling message", lambda v: {"role": "assistant", "content": text("a")}, mutate=True)
seed("ModelPreferences", "model preferences", lambda v: {"hints": [{"name": "sonnet"}], "costPriority": 0.3}, mutate=True)
seed("ModelPreferences", "empty preferences", lambda v: {})
seed("ModelHint", "hint with an extra member", lambda v: {"name": "x", "vendor": "y"})
seed("ClientCapabilities", "client capabilities", lambda v: {"roots": {"listChanged": True}, "sampling": {}, "experimental": {}},
     mutate=True)
seed("ServerCapabilities", "server capabilities",
     lambda v: {"logging": {}, "prompts": {"listChanged": True}, "resources": {"subscribe": True}, "tools": {}},
     mutate=True)
seed("StringSchema", "string field", lambda v: {"type": "string", "title": "Name", "format": "email", "minLength": 1},
     mutate=True)
seed("NumberSchema", "integer field", lambda v: {"type": "integer", "minimum": 0, "maximum": 10}, mutate=True)
seed("BooleanSchema", "boolean field", lambda v: {"type": "boolean", "default": False}, mutate=True)
seed("EnumSchema", "enum field with names",
     lambda v: {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]} if v == "2025-06-18" else
     {"type": "string", "enum": ["a", "b"]})
seed("UntitledSingleSelectEnumSchema", "single select", lambda v: {"type": "string", "enum": ["a", "b"], "default": "a"},
     mutate=True)
seed("TitledSingleSelectEnumSchema", "titled single select",
     lambda v: {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, mutate=True)
seed("UntitledMultiSelectEnumSchema", "multi select",
     lambda v: {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1}, mutate=True)
seed("TitledMultiSelectEnumSchema", "titled multi select",
     lambda v: {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}}, mutate=True)
seed("PrimitiveSchemaDefinition", "number field is a primitive schema", lambda v: {"type": "number"})
seed("LoggingLevel", "a logging level", lambda v: "notice")
seed("Role", "a role", lambda v: "assistant")
seed("RequestId", "string id", lambda v: "a-b-c")
seed("RequestId", "integer id", lambda v: -17)
seed("ProgressToken", "integer progress token", lambda v: 123)
seed("Cursor", "a cursor", lambda v: "opaque")
seed("TaskStatus", "a task status", lambda v: "failed")
seed("Task", "a task", lambda v: dict(TASK), mutate=True)
seed("TaskMetadata", "task metadata", lambda v: {"ttl": 1000})
seed("ToolAnnotations", "all hints", lambda v: {"readOnlyHint": False, "destructiveHint": True}, mutate=True)
seed("ToolChoice", "tool choice", lambda v: {"mode": "required"}, mutate=True)
seed("JSONValue", "nested JSON value of allowed kinds", lambda v: {"a": [1, "b", True, {"c": []}]})
seed("MetaObject", "meta object with a prefixed key", lambda v: {"com.example/k": 1})
seed("CacheableResult", "cacheable result", lambda v: {"resultType": "complete", "cacheScope": "public", "ttlMs": 0},
     mutate=True)
seed("SubscriptionFilter", "empty filter", lambda v: {})
seed("Result", "a result with unknown members", lambda v: res(v, {"anything": 1}), mutate=True)
seed("Request", "a bare request shape", lambda v: {"method": "m", "params": {"a": 1}}, mutate=True)
seed("Notification", "a bare notification shape", lambda v: {"method": "n"}, mutate=True)
seed("PaginatedRequest", "a paginated request", lambda v: req("resources/list", params(v, cursor="c")), mutate=True)
seed("PaginatedResult", "a paginated result", lambda v: res(v, {"nextCursor": "n"}), mutate=True)

seed("BaseMetadata", "a name with a display title", lambda v: {"name": "n", "title": "N"}, mutate=True)
seed("Icons", "an icons holder", lambda v: {"icons": [{"src": "https://x.example/i.png"}]}, mutate=True)
seed("Icons", "an empty icons holder", lambda v: {})
seed("LegacyTitledEnumSchema", "enum with display names (legacy form)",
     lambda v: {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}, mutate=True)
seed("SingleSelectEnumSchema", "untitled single select", lambda v: {"type": "string", "enum": ["a"]})
seed("SingleSelectEnumSchema", "titled single select", lambda v: {"type": "string", "oneOf": [{"const": "a", "title": "A"}]})
seed("MultiSelectEnumSchema", "untitled multi select", lambda v: {"type": "array", "items": {"type": "string", "enum": ["a"]}})
seed("JSONArray", "array of mixed JSON values", lambda v: [1, "a", False, [], {}])
seed("JSONArray", "empty array", lambda v: [])
seed("InputRequests", "two named input requests", lambda v: {
    "r1": {"method": "roots/list"},
    "r2": {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}}})
seed("InputResponses", "answers to two input requests", lambda v: {
    "r1": {"roots": []}, "r2": {"action": "decline"}})
seed("InputRequest", "roots/list is an input request", lambda v: {"method": "roots/list"})
seed("InputResponse", "an elicitation answer is an input response", lambda v: {"action": "cancel"})
seed("InputResponseRequestParams", "retrying a request with input responses",
     lambda v: params(v, inputResponses={"r1": {"roots": []}}, requestState="st"), mutate=True)
seed("RequestMetaObject", "per-request metadata", lambda v: rmeta(v, progressToken="p"), mutate=True)
seed("ResultMetaObject", "result metadata naming the server",
     lambda v: {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}, mutate=True)
seed("NotificationMetaObject", "notification metadata with a subscription id",
     lambda v: {"io.modelcontextprotocol/subscriptionId": "s-1"}, mutate=True)
seed("SubscriptionsListenResultMetaObject", "listen result metadata",
     lambda v: {"io.modelcontextprotocol/subscriptionId": 4}, mutate=True)
seed("ResultType", "input_required is a result type", lambda v: "input_required")
seed("ResultType", "result types are open strings", lambda v: "vendor-specific")
seed("ClientNotification", "a client may cancel (2026-07-28)",
     lambda v: note("notifications/cancelled", {"requestId": 1}) if stateless(v) else None)
seed("ClientResult", "a client result (2026-07-28)", lambda v: res(v, {}) if stateless(v) else None)

# -- edge values that are valid --------------------------------------------------------

seed("Resource", "size written 10.0 is an integer in JSON Schema terms", lambda v: {"uri": "u", "name": "n", "size": 10.0})
seed("Resource", "size 0 and a uri that is not a URL (format is an annotation here)",
     lambda v: {"uri": "not a uri at all", "name": "", "size": 0})
seed("Annotations", "priority exactly 1 and a free-form lastModified",
     lambda v: {"priority": 1, **({"lastModified": "yesterday"} if v_at_least(v, "2025-06-18") else {})})
seed("ModelPreferences", "every priority at its upper bound", lambda v: {"costPriority": 1, "speedPriority": 1.0,
                                                                          "intelligencePriority": 1})
seed("ProgressNotification", "negative and zero progress values are numbers",
     lambda v: note("notifications/progress", {"progressToken": "", "progress": -3, "total": 0}))
seed("JSONRPCRequest", "empty-string id", lambda v: req("x", rid=""))
seed("JSONRPCRequest", "the largest u64 as id", lambda v: req("x", rid=18446744073709551615))
seed("JSONRPCRequest", "the smallest i64 as id", lambda v: req("x", rid=-9223372036854775808))
seed("JSONRPCNotification", "a notification with a stray id member still matches the notification shape",
     lambda v: {**note("n"), "id": 3})
seed("JSONRPCNotification", "params with a deeply nested value and unicode keys",
     lambda v: note("n", {"été": {"深": [[[[{"x": None}]]]]}}))
seed(ERR_DEF("2025-06-18"), "error with a string id and array data",
     lambda v: err("id-é", -32000, "x", [1, 2]) if not v_at_least(v, "2025-11-25") else None)
seed("JSONRPCErrorResponse", "error with a string id and array data",
     lambda v: err("id-é", -32000, "x", [1, 2]))
seed("CreateMessageResult", "content as a list of blocks (2025-11-25+)",
     lambda v: {"role": "assistant", "content": [text("a"), {"type": "tool_use", "id": "u", "name": "n", "input": {}}],
                "model": "m", "stopReason": "toolUse"} if v_at_least(v, "2025-11-25") else None)
seed("ElicitResult", "multi-select answer as a list of strings (2025-11-25+)",
     lambda v: {"action": "accept", "content": {"tags": ["a", "b"]}} if v_at_least(v, "2025-11-25") else None)
seed("ElicitResult", "accept with empty content", lambda v: {"action": "accept", "content": {}})
seed("ElicitRequest", "form with every kind of field, including legacy enumNames",
     lambda v: req("elicitation/create", {"message": "m", "requestedSchema": {"type": "object", "properties": {
         "s": {"type": "string", "format": "date", "maxLength": 10},
         "n": {"type": "number", "maximum": 1.5},
         "b": {"type": "boolean"},
         "e": {"type": "string", "enum": ["x", "y"], "enumNames": ["X", "Y"]}}}}))
seed("ElicitRequest", "titled and multi-select enums (2025-11-25+)",
     lambda v: req("elicitation/create", {"message": "m", "requestedSchema": {"type": "object", "properties": {
         "one": {"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "a"},
         "many": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "maxItems": 1},
         "manyT": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "default": ["x"]}}}})
     if v_at_least(v, "2025-11-25") else None)
seed("Tool", "input schema with extra JSON Schema keywords",
     lambda v: {"name": "t", "inputSchema": {"type": "object", "additionalProperties": False,
                                             "properties": {"a": {"type": "integer", "minimum": 1}},
                                             "required": []}})
seed("Tool", "tool with unknown annotation hints (2025-03-26+)",
     lambda v: {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"vendorHint": 1}}
     if v_at_least(v, "2025-03-26") else None)
seed("InitializeResult", "server declares tasks support (2025-11-25)",
     lambda v: {"protocolVersion": v, "capabilities": {"tasks": {"list": {}, "cancel": {},
                                                                "requests": {"tools": {"call": {}}}}},
                "serverInfo": {"name": "s", "version": "1"}} if v == "2025-11-25" else None)
seed("InitializeRequest", "client declares tasks and sampling tools (2025-11-25)",
     lambda v: req("initialize", {"protocolVersion": v, "clientInfo": {"name": "c", "version": "1"},
                                  "capabilities": {"tasks": {"requests": {"sampling": {"createMessage": {}}}},
                                                   "sampling": {"tools": {}, "context": {}}}})
     if v == "2025-11-25" else None)
seed("InputRequiredResult", "neither inputRequests nor requestState: the text asks for one, the schema does not",
     lambda v: {"resultType": "input_required"})
seed("CallToolResultResponse", "a tool call answered with a request for input",
     lambda v: {"jsonrpc": "2.0", "id": 5, "result": {"resultType": "input_required", "inputRequests": {
         "e": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x"}}}}})
seed("ReadResourceResultResponse", "a read result missing its cache fields still matches the input-required branch, "
     "which only needs resultType", lambda v: {"jsonrpc": "2.0", "id": 5, "result": {"resultType": "complete", "contents": []}})
seed("DiscoverResult", "a server listing no versions (schema-valid, useless)",
     lambda v: res(v, {"supportedVersions": [], "capabilities": {}}, cacheable=True))
seed("CompleteResult", "exactly 100 completion values", lambda v: res(v, {"completion": {"values": [str(i) for i in range(100)]}}))
seed("ListToolsResult", "public cache scope with a long ttl",
     lambda v: {"tools": [], "resultType": "complete", "cacheScope": "public", "ttlMs": 86400000} if stateless(v) else None)
seed("Tool", "output schema without a type (2026-07-28 does not require one)",
     lambda v: {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {}} if stateless(v) else None)
seed("NumberSchema", "number schema with fractional bounds", lambda v: {"type": "number", "minimum": -0.5, "maximum": 0.5})
seed("TextContent", "a very long text", lambda v: text("x" * 5000))

# ---------------------------------------------------------------------------------
# Hand-written invalid entries (beyond the systematic mutations).
# (definition, why, builder(v)); builder returns None where not applicable.

INVALID = []
NA = object()  # "not applicable to this version" (None is a real JSON null here)


def bad(definition, why, build):
    INVALID.append((definition, why, build))


bad("JSONRPCRequest", "id must not be null in a request", lambda v: req("ping", rid=None))
bad("JSONRPCRequest", "id must not be fractional", lambda v: req("ping", rid=1.5))
bad("JSONRPCRequest", "id must not be a boolean", lambda v: req("ping", rid=True))
bad("JSONRPCRequest", "id must not be an object", lambda v: req("ping", rid={"n": 1}))
bad("JSONRPCRequest", "jsonrpc 1.0 is not this protocol", lambda v: {**req("ping"), "jsonrpc": "1.0"})
bad("JSONRPCRequest", "jsonrpc as a number", lambda v: {**req("ping"), "jsonrpc": 2.0})
bad("JSONRPCRequest", "params must be an object, not an array (by-position params are not used)",
    lambda v: req("ping", [1, 2]))
bad("JSONRPCRequest", "a request is an object, not a string", lambda v: "ping")
bad("JSONRPCRequest", "a request is an object, not null", lambda v: None)
bad("JSONRPCNotification", "params must not be null", lambda v: note("x", None) | {"params": None})
bad("JSONRPCNotification", "method must be a string", lambda v: {"jsonrpc": "2.0", "method": 5})
bad(RESP_DEF, "result must be an object, not null", lambda v: {"jsonrpc": "2.0", "id": 1, "result": None})
bad(RESP_DEF, "result must be an object, not a string", lambda v: {"jsonrpc": "2.0", "id": 1, "result": "ok"})
bad(RESP_DEF, "a response id must not be null", lambda v: resp(v, None))
bad(ERR_DEF, "error code must be an integer", lambda v: err(1, -32600.5, "x"))
bad(ERR_DEF, "error code must not be a string", lambda v: err(1, "-32600", "x"))
bad(ERR_DEF, "error message must not be null", lambda v: err(1, -1, None))
bad(ERR_DEF, "error must be an object", lambda v: {"jsonrpc": "2.0", "id": 1, "error": "boom"})
bad("JSONRPCError", "error responses need an id before 2025-11-25", lambda v: err(None, -32700, "Parse error"))
bad("JSONRPCMessage", "an empty object is no JSON-RPC message", lambda v: {})
bad("JSONRPCMessage", "a bare number is no JSON-RPC message", lambda v: 3)
bad("JSONRPCMessage", "a batch is not a message outside 2025-03-26",
    lambda v: NA if v == "2025-03-26" else [req("ping")])
bad("JSONRPCBatchRequest", "a batch request must not contain a response", lambda v: [resp(v)])
bad("JSONRPCBatchRequest", "a batch is an array, not an object", lambda v: req("ping"))
bad("JSONRPCBatchResponse", "a batch response must not contain a request", lambda v: [req("ping")])
bad("RequestId", "null is no request id", lambda v: None)
bad("RequestId", "fractional request id", lambda v: 0.5)
bad("RequestId", "array request id", lambda v: [1])
bad("ProgressToken", "boolean progress token", lambda v: False)
bad("ProgressToken", "fractional progress token", lambda v: 2.5)
bad("Cursor", "cursor must be a string", lambda v: 2)
bad("LoggingLevel", "warn is not a level (warning is)", lambda v: "warn")
bad("LoggingLevel", "levels are lower case", lambda v: "ERROR")
bad("LoggingLevel", "trace is not a syslog level", lambda v: "trace")
bad("Role", "system is not a role", lambda v: "system")
bad("Role", "role must be a string", lambda v: None)
bad("TaskStatus", "running is not a task status", lambda v: "running")
bad("Annotations", "priority above 1", lambda v: {"priority": 1.01})
bad("Annotations", "priority below 0", lambda v: {"priority": -0.1})
bad("Annotations", "audience entries must be roles", lambda v: {"audience": ["system"]})
bad("Annotations", "audience must be an array", lambda v: {"audience": "user"})
bad("ModelPreferences", "costPriority above 1", lambda v: {"costPriority": 2})
bad("ModelPreferences", "speedPriority below 0", lambda v: {"speedPriority": -1})
bad("ModelPreferences", "intelligencePriority as a string", lambda v: {"intelligencePriority": "high"})
bad("ModelPreferences", "hints must be an array", lambda v: {"hints": {"name": "x"}})
bad("CreateMessageRequest", "includeContext value out of range",
    lambda v: req("sampling/createMessage", {"messages": [], "maxTokens": 1, "includeContext": "everything"}))
bad("CreateMessageRequest", "maxTokens must be an integer", lambda v: req("sampling/createMessage", {"messages": [], "maxTokens": 1.5}))
bad("CreateMessageRequest", "a message with a system role",
    lambda v: req("sampling/createMessage", {"messages": [{"role": "system", "content": text("x")}], "maxTokens": 1}))
bad("CreateMessageRequest", "message content must not be a bare string",
    lambda v: req("sampling/createMessage", {"messages": [{"role": "user", "content": "x"}], "maxTokens": 1}))
bad("CreateMessageRequest", "an unknown content type in a sampling message",
    lambda v: req("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "video", "data": "x"}}], "maxTokens": 1}))
bad("CreateMessageRequest", "audio in sampling did not exist in 2024-11-05",
    lambda v: req("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "audio", "data": WAV, "mimeType": "audio/wav"}}],
                                             "maxTokens": 1}) if v == "2024-11-05" else NA)
bad("CallToolResult", "content must be an array, not one block", lambda v: res(v, {"content": text("x")}))
bad("CallToolResult", "a content block of unknown type", lambda v: res(v, {"content": [{"type": "video", "url": "x"}]}))
bad("CallToolResult", "text block without text", lambda v: res(v, {"content": [{"type": "text"}]}))
bad("CallToolResult", "isError must be a boolean", lambda v: res(v, {"content": [], "isError": "false"}))
bad("CallToolResult", "audio content did not exist in 2024-11-05",
    lambda v: res(v, {"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}) if v == "2024-11-05" else NA)
bad("CallToolResult", "resource links did not exist before 2025-06-18",
    lambda v: res(v, {"content": [{"type": "resource_link", "uri": "file:///r", "name": "r"}]})
    if not v_at_least(v, "2025-06-18") else NA)
bad("CallToolResult", "structuredContent must be an object (2025-06-18, 2025-11-25)",
    lambda v: {"content": [], "structuredContent": [1, 2]} if v in ("2025-06-18", "2025-11-25") else NA)
bad("ReadResourceResult", "contents entry with neither text nor blob",
    lambda v: res(v, {"contents": [{"uri": "file:///x"}]}, cacheable=True))
bad("ReadResourceResult", "blob must be a string", lambda v: res(v, {"contents": [{"uri": "file:///x", "blob": [1, 2]}]}, cacheable=True))
bad("Tool", "inputSchema type must be object", lambda v: {"name": "t", "inputSchema": {"type": "array"}})
bad("Tool", "inputSchema must be an object", lambda v: {"name": "t", "inputSchema": True})
bad("Tool", "tool name must be a string", lambda v: {"name": None, "inputSchema": {"type": "object"}})
bad("ToolAnnotations", "hints must be booleans", lambda v: {"readOnlyHint": "yes"})
bad("ElicitResult", "accept is the only accepting action", lambda v: {"action": "ok"})
bad("ElicitResult", "content values must be primitives, not objects", lambda v: {"action": "accept", "content": {"a": {"b": 1}}})
bad("ElicitResult", "content values must not be null", lambda v: {"action": "accept", "content": {"a": None}})
bad("ElicitRequest", "requestedSchema type must be object",
    lambda v: req("elicitation/create", {"message": "m", "requestedSchema": {"type": "array", "properties": {}}}))
bad("ElicitRequest", "nested object properties are not primitive schemas",
    lambda v: req("elicitation/create", {"message": "m", "requestedSchema": {"type": "object", "properties": {
        "a": {"type": "object"}}}}))
bad("StringSchema", "format outside the small allowed set", lambda v: {"type": "string", "format": "ipv4"})
bad("NumberSchema", "a string type is no number schema", lambda v: {"type": "string"})
bad("PrimitiveSchemaDefinition", "array of objects is not a primitive schema", lambda v: {"type": "array", "items": {"type": "object"}})
bad("Icon", "theme out of range", lambda v: {"src": "https://x/i.png", "theme": "blue"})
bad("ToolExecution", "taskSupport out of range", lambda v: {"taskSupport": "sometimes"})
bad("ToolChoice", "mode out of range", lambda v: {"mode": "any"})
bad("JSONValue", "a fractional number is not a JSON value here", lambda v: 1.5)
bad("JSONValue", "null is not a JSON value here", lambda v: None)
bad("JSONObject", "an array is not a JSON object", lambda v: [])
bad("CacheableResult", "ttlMs must not be negative", lambda v: {"resultType": "complete", "cacheScope": "public", "ttlMs": -1})
bad("ListToolsResult", "ttlMs must not be negative",
    lambda v: {"tools": [], "resultType": "complete", "cacheScope": "public", "ttlMs": -5} if stateless(v) else NA)
bad("ListToolsResult", "tools must be an array", lambda v: res(v, {"tools": {}}, cacheable=True))
bad("ListToolsResult", "a tool in the list without inputSchema", lambda v: res(v, {"tools": [{"name": "x"}]}, cacheable=True))
bad("ProgressNotification", "progress must be a number", lambda v: note("notifications/progress", {"progressToken": 1, "progress": "50%"}))
bad("ProgressNotification", "progressToken must not be null", lambda v: note("notifications/progress", {"progressToken": None, "progress": 1}))
bad("InitializeRequest", "capabilities must be an object",
    lambda v: NA if stateless(v) else req("initialize", {"protocolVersion": v, "capabilities": [],
                                                          "clientInfo": {"name": "c", "version": "1"}}))
bad("InitializeRequest", "clientInfo without version",
    lambda v: NA if stateless(v) else req("initialize", {"protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "c"}}))
bad("InitializeRequest", "roots.listChanged must be a boolean",
    lambda v: NA if stateless(v) else req("initialize", {"protocolVersion": v, "capabilities": {"roots": {"listChanged": "yes"}},
                                                          "clientInfo": {"name": "c", "version": "1"}}))
bad("InitializeRequest", "protocolVersion must be a string, not a number",
    lambda v: NA if stateless(v) else req("initialize", {"protocolVersion": 20250618, "capabilities": {},
                                                          "clientInfo": {"name": "c", "version": "1"}}))
bad("InitializeResult", "a tools capability must be an object", lambda v: NA if stateless(v) else {
    "protocolVersion": v, "capabilities": {"tools": True}, "serverInfo": {"name": "s", "version": "1"}})
bad("InitializeResult", "experimental capability entries must be objects", lambda v: NA if stateless(v) else {
    "protocolVersion": v, "capabilities": {"experimental": {"x": 1}}, "serverInfo": {"name": "s", "version": "1"}})
bad("GetPromptRequest", "prompt arguments must be strings",
    lambda v: req("prompts/get", params(v, name="p", arguments={"n": 1})))
bad("CompleteRequest", "unknown reference type",
    lambda v: req("completion/complete", params(v, ref={"type": "ref/tool", "name": "t"}, argument={"name": "a", "value": "b"})))
bad("CompleteResult", "completion values must be strings", lambda v: res(v, {"completion": {"values": [1]}}))
bad("CompleteResult", "more than 100 completion values (capped in 2026-07-28)",
    lambda v: res(v, {"completion": {"values": [str(i) for i in range(101)]}}) if stateless(v) else NA)
bad("CallToolRequest", "tool arguments must be an object",
    lambda v: req("tools/call", params(v, name="t", arguments=["a"])))
bad("ListToolsRequest", "params are required in the stateless version",
    lambda v: req("tools/list") if stateless(v) else NA)
bad("ListToolsRequest", "per-request _meta needs the protocol version",
    lambda v: req("tools/list", {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}) if stateless(v) else NA)
bad("ListToolsRequest", "per-request _meta needs the client capabilities",
    lambda v: req("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": v}}) if stateless(v) else NA)
bad("CallToolRequest", "per-request logLevel must be a level",
    lambda v: req("tools/call", {"_meta": rmeta(v, **{"io.modelcontextprotocol/logLevel": "loud"}), "name": "t"}) if stateless(v) else NA)
bad("DiscoverResult", "supportedVersions must be strings",
    lambda v: res(v, {"supportedVersions": [2026], "capabilities": {}}, cacheable=True))
bad("DiscoverResult", "cacheScope out of range",
    lambda v: {**res(v, {"supportedVersions": [], "capabilities": {}}, cacheable=True), "cacheScope": "shared"})
bad("Task", "ttl must be an integer or null, not a string", lambda v: {**TASK, "ttl": "1h"})
bad("ResourceLink", "size must be an integer", lambda v: {"type": "resource_link", "uri": "u", "name": "n", "size": 1.5})
bad("Resource", "size must be an integer", lambda v: {"uri": "u", "name": "n", "size": "10"})
bad("ListRootsResult", "a root without a uri", lambda v: {"roots": [{"name": "r"}]})
bad("LoggingMessageNotification", "log level out of range",
    lambda v: note("notifications/message", {"level": "verbose", "data": 1}))
bad("EmbeddedResource", "resource must be contents, not a uri string", lambda v: {"type": "resource", "resource": "file:///a"})
bad("SubscriptionsListenRequest", "resourceSubscriptions must be strings",
    lambda v: req("subscriptions/listen", params(v, notifications={"resourceSubscriptions": [1]})))
bad("InputRequiredResult", "input requests must be requests the server may send",
    lambda v: {"resultType": "input_required", "inputRequests": {"x": {"method": "tools/list"}}})

bad("ClientRequest", "an unknown method is no client request", lambda v: req("tools/unknown", params(v)))
bad("ClientRequest", "sampling is a server-to-client request", lambda v: req("sampling/createMessage", {"messages": [], "maxTokens": 1}))
bad("ServerRequest", "initialize is a client-to-server request", lambda v: req("initialize", {
    "protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}))
bad("ServerRequest", "tools/call is not sent by servers", lambda v: req("tools/call", {"name": "t"}))
bad("ClientNotification", "log messages come from servers", lambda v: note("notifications/message", {"level": "info", "data": 1}))
bad("ServerNotification", "initialized comes from clients", lambda v: note("notifications/initialized"))
bad("ServerNotification", "an unknown notification method", lambda v: note("notifications/unknown", {}))
bad("ServerResult", "a result is an object, not a string", lambda v: "done")
bad("ClientResult", "a result is an object, not an array", lambda v: [])
bad("EmptyResult", "an empty result is an object, not null", lambda v: None)
bad("Result", "_meta must be an object", lambda v: res(v, {"_meta": "m"}))
bad("ContentBlock", "an unknown content type", lambda v: {"type": "video", "data": "x"})
bad("ContentBlock", "a bare string is no content block", lambda v: "hi")
bad("SamplingMessageContentBlock", "resource links are not sampling content", lambda v: {"type": "resource_link", "uri": "u", "name": "n"})
bad("EnumSchema", "an enum schema needs its values", lambda v: {"type": "number", "enum": [1, 2]})
bad("SingleSelectEnumSchema", "a single select is a string schema", lambda v: {"type": "array", "enum": ["a"]})
bad("MultiSelectEnumSchema", "a multi select is an array schema", lambda v: {"type": "string", "items": {"type": "string", "enum": ["a"]}})
bad("ModelHint", "hint name must be a string", lambda v: {"name": 3})
bad("TaskMetadata", "task ttl must be an integer", lambda v: {"ttl": "long"})
bad("GetTaskPayloadResult", "a payload is an object", lambda v: 7)
bad("MetaObject", "_meta is an object", lambda v: "meta")
bad("SubscriptionFilter", "filter flags are booleans", lambda v: {"toolsListChanged": "yes"})
bad("InputRequest", "tools/call is not an input request", lambda v: {"method": "tools/call", "params": {"name": "t"}})
bad("InputResponse", "an input response is an object", lambda v: "accept")
bad("JSONArray", "null is not allowed inside a JSON array here", lambda v: [None])
bad("InputRequests", "each input request must be a request the server may send",
    lambda v: {"a": {"method": "ping"}})
bad("InputResponses", "each input response must be an answer", lambda v: {"a": 5})
bad("ResultType", "the result type is a string", lambda v: 1)
bad("JSONRPCResponse", "a response needs a result or an error (2025-11-25+)",
    lambda v: {"jsonrpc": "2.0", "id": 1} if v_at_least(v, "2025-11-25") else NA)

bad("Tool", "output schema must declare type object (2025-06-18, 2025-11-25)",
    lambda v: {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"properties": {}}}
    if v in ("2025-06-18", "2025-11-25") else NA)
bad("CreateMessageResult", "content lists did not exist before 2025-11-25",
    lambda v: {"role": "assistant", "content": [text("a")], "model": "m"} if not v_at_least(v, "2025-11-25") else NA)
bad("ElicitResult", "list answers did not exist in 2025-06-18",
    lambda v: {"action": "accept", "content": {"tags": ["a"]}} if v == "2025-06-18" else NA)
bad("ElicitResult", "content must be an object", lambda v: {"action": "accept", "content": ["a"]})
bad("ElicitResult", "a fractional number is not among the answer types (string, integer, boolean)",
    lambda v: {"action": "accept", "content": {"n": 1.5}})
bad("ModelPreferences", "priority just above the upper bound", lambda v: {"costPriority": 1.0000001})
bad("Resource", "size must not be fractional", lambda v: {"uri": "u", "name": "n", "size": 10.5})
bad("CallToolResultResponse", "an input-required result still needs its result type",
    lambda v: {"jsonrpc": "2.0", "id": 5, "result": {"inputRequests": {}}})
bad("JSONRPCMessage", "jsonrpc member missing", lambda v: {"id": 1, "method": "ping"})
bad("ProgressNotification", "progress must not be a boolean",
    lambda v: note("notifications/progress", {"progressToken": 1, "progress": True}))
bad("TextContent", "text must not be an array of strings", lambda v: {"type": "text", "text": ["a", "b"]})
bad("ImageContent", "image type spelled in capitals", lambda v: {"type": "IMAGE", "data": PNG, "mimeType": "image/png"})

# Mutations whose first guess ("this breaks the rule, so invalid") is wrong because a
# union still accepts the result. Key: (definition, mutation id); value: our reason.
OVERRIDES = {
}

# ---------------------------------------------------------------------------------
# The schema-shape walker used for mutations (reads the official schema; copies nothing).


class Shapes:
    def __init__(self, doc):
        self.defs = doc.get("definitions") or doc.get("$defs")

    def resolve(self, s):
        seen = 0
        while isinstance(s, dict) and "$ref" in s:
            s = self.defs[s["$ref"].split("/")[-1]]
            seen += 1
            assert seen < 50
        return s

    def obj(self, s):
        """Merged (properties, required) of an object-ish schema (allOf merged); None if a union."""
        s = self.resolve(s)
        if not isinstance(s, dict):
            return None
        props, required = dict(s.get("properties", {})), list(s.get("required", []))
        for part in s.get("allOf", []):
            sub = self.obj(part)
            if sub is None:
                return None
            p, r = sub
            for k, x in p.items():
                props.setdefault(k, x)
            required += [r_ for r_ in r if r_ not in required]
        if "anyOf" in s:
            return None
        return props, required

    def pick(self, s, inst):
        """For a union, the single branch the instance is meant for (by consts, then required)."""
        s = self.resolve(s)
        if not isinstance(s, dict) or "anyOf" not in s:
            return s
        branches = [self.resolve(b) for b in s["anyOf"]]
        if isinstance(inst, list):
            arr = [b for b in branches if b.get("type") == "array"]
            return arr[0] if len(arr) == 1 else None
        if not isinstance(inst, dict):
            return None
        def consts_ok(b):
            o = self.obj(b)
            if o is None:
                return False
            props, _ = o
            return all(inst.get(k) == self.resolve(p).get("const") for k, p in props.items()
                       if "const" in self.resolve(p) and k in inst) and \
                any("const" in self.resolve(p) and k in inst for k, p in props.items())
        hit = [b for b in branches if consts_ok(b)]
        if len(hit) == 1:
            return hit[0]
        def req_ok(b):
            o = self.obj(b)
            return o is not None and all(r in inst for r in o[1])
        hit = [b for b in branches if req_ok(b)]
        return hit[0] if len(hit) == 1 else None


def wrong_value(schema_types):
    """A value of a JSON type the member does not allow."""
    types = schema_types if isinstance(schema_types, list) else [schema_types]
    preferred = {"string": 42, "integer": 1.5, "number": "7", "boolean": "true", "object": [],
                 "array": {"0": 1}, "null": 0}
    candidates = [preferred[types[0]], "text", 1.5, True, [], {"k": 1}, 42]

    def json_type_ok(x):
        if isinstance(x, bool):
            return "boolean" in types
        if isinstance(x, int):
            return "integer" in types or "number" in types
        if isinstance(x, float):
            return "number" in types
        if isinstance(x, str):
            return "string" in types
        if isinstance(x, list):
            return "array" in types
        return "object" in types

    return next(x for x in candidates if not json_type_ok(x))


def mutations(shapes, inst, schema, path, depth):
    """Yield (mutated-root-setter args): (path, kind, new_value_or_DROP, note)."""
    s = shapes.pick(schema, inst)
    if s is None:
        return
    if isinstance(inst, list):
        items = shapes.resolve(s).get("items") if isinstance(s, dict) else None
        if items is not None and inst and depth < 6:
            yield from mutations(shapes, inst[0], items, path + [0], depth + 1)
        return
    if not isinstance(inst, dict):
        return
    o = shapes.obj(s)
    if o is None:
        return
    props, required = o
    for r in required:
        if r in inst:
            yield path + [r], "drop", DROP, f"drops required member `{dotted(path + [r])}`"
    for k, ps in props.items():
        if k not in inst:
            continue
        p = shapes.resolve(ps)
        if not isinstance(p, dict):
            continue
        here = path + [k]
        if "const" in p:
            c = p["const"]
            nv = (c + "x") if isinstance(c, str) else (c + 1)
            yield here, "const", nv, f"`{dotted(here)}` is not the fixed value {json.dumps(c)}"
        elif "enum" in p:
            yield here, "enum", "not-a-member", f"`{dotted(here)}` outside its allowed values"
        if "type" in p:
            types = p["type"] if isinstance(p["type"], list) else [p["type"]]
            # null only where the member is required: for optional members, null is
            # just one more wrong type, already covered below
            if "null" not in types and k in required:
                yield here, "null", None, f"`{dotted(here)}` is null"
            if "const" not in p and "enum" not in p:
                yield here, "type", wrong_value(types), f"`{dotted(here)}` has the wrong type"
        if depth < 4 and isinstance(inst[k], (dict, list)) and k != "_meta":
            yield from mutations(shapes, inst[k], ps, here, depth + 1)


class _Drop:
    pass


DROP = _Drop()


def dotted(path):
    return ".".join(str(p) for p in path) or "(root)"


def apply(inst, path, value):
    out = copy.deepcopy(inst)
    cur = out
    for p in path[:-1]:
        cur = cur[p]
    if value is DROP:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return out


# ---------------------------------------------------------------------------------


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "..", "..", "shared", "schemas")
    for v in VERSIONS:
        with open(os.path.join(root, v, "schema.json")) as f:
            doc = json.load(f)
        shapes = Shapes(doc)
        defs = shapes.defs
        unions = {u: [b["$ref"].split("/")[-1] for b in defs[u].get("anyOf", []) if "$ref" in b]
                  for u in ["ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification",
                            "ClientResult", "ServerResult", "ContentBlock", "InputRequest", "InputResponse"]
                  if u in defs}
        entries, seen = [], set()

        def emit(definition, valid, why, instance):
            assert definition in defs, (v, definition)
            key = (definition, json.dumps(instance, sort_keys=True))
            if key in seen:
                return
            seen.add(key)
            entries.append({"version": v, "definition": definition, "valid": valid, "why": why,
                            "instance": instance})

        for definition, why, build, mutate, wrap in SEEDS:
            if definition not in defs:
                continue
            inst = build(v)
            if inst is None:
                continue
            emit(definition, True, why, inst)
            if wrap:
                is_req = isinstance(inst, dict) and "method" in inst and "id" in inst
                is_note = isinstance(inst, dict) and "method" in inst and "id" not in inst
                for u, members in unions.items():
                    if definition in members:
                        emit(u, True, f"{why} (as a member of {u})", inst)
                if is_req:
                    emit("JSONRPCRequest", True, f"{why} (as a generic JSON-RPC request)", inst)
                    emit("JSONRPCMessage", True, f"{why} (as a JSON-RPC message)", inst)
                elif is_note:
                    emit("JSONRPCNotification", True, f"{why} (as a generic JSON-RPC notification)", inst)
                    emit("JSONRPCMessage", True, f"{why} (as a JSON-RPC message)", inst)
                elif definition.startswith("JSONRPCError") and isinstance(inst, dict):
                    emit("JSONRPCMessage", True, f"{why} (as a JSON-RPC message)", inst)
                    if v_at_least(v, "2025-11-25"):
                        emit("JSONRPCResponse", True, f"{why} (as a JSON-RPC response)", inst)
                elif definition.endswith("Result") and isinstance(inst, dict) and \
                        (not stateless(v) or "resultType" in inst):
                    # (in 2026-07-28 the client's answers to input requests travel inside
                    # the retried request, not in a JSON-RPC response, so no envelope)
                    env = {"jsonrpc": "2.0", "id": 11, "result": inst}
                    emit(RESP_DEF(v), True, f"{why} (in a success response)", env)
                    emit("JSONRPCMessage", True, f"{why} (in a success response, as a message)", env)
                    if v_at_least(v, "2025-11-25"):
                        emit("JSONRPCResponse", True, f"{why} (as a JSON-RPC response)", env)
                    if definition + "Response" in defs:
                        emit(definition + "Response", True, f"{why} (in its typed response)", env)
                        if mutate:
                            typed = definition + "Response"
                            for path, kind, nv, what in mutations(shapes, env, defs[typed], [], 0):
                                emit(typed, False, f"{typed}: {what}", apply(env, path, nv))
                if (is_req or is_note) and isinstance(inst.get("params"), dict):
                    # the params object on its own, as the definition the message refers to
                    pref = shapes.resolve(defs[definition]).get("properties", {}).get("params", {})
                    pname = pref.get("$ref", "").split("/")[-1]
                    if pname in defs and pname != definition:
                        emit(pname, True, f"{why} (its params alone)", inst["params"])
                        if mutate:
                            for path, kind, nv, what in mutations(shapes, inst["params"], defs[pname], [], 0):
                                if path and path[0] == "_meta":
                                    continue
                                emit(pname, False, f"{pname}: {what}", apply(inst["params"], path, nv))
            if mutate:
                for path, kind, nv, what in mutations(shapes, inst, defs[definition], [], 0):
                    mid = f"{kind}:{dotted(path)}"
                    over = OVERRIDES.get((definition, mid)) or OVERRIDES.get((v, definition, mid))
                    valid = over is not None
                    why_m = f"{definition}: {what}" + (f"; still valid: {over}" if over else "")
                    emit(definition, valid, why_m, apply(inst, path, nv))
                # an unknown extra member never hurts: no definition closes its objects
                if isinstance(inst, dict):
                    emit(definition, True, f"{definition}: an unknown extra member is allowed",
                         {**inst, "zzUnknown": {"nested": [None]}})

        for definition, why, build in INVALID:
            d = definition(v) if callable(definition) else definition
            if d not in defs:
                continue
            inst = build(v)
            if inst is NA:
                continue
            emit(d, False, why, inst)

        out = os.path.join(HERE, f"{v}.jsonl")
        with open(out, "w", encoding="utf-8") as f:
            for e in entries:
                f.write(json.dumps(e, ensure_ascii=False) + "\n")
        print(f"{v}: {len(entries)} entries ({sum(e['valid'] for e in entries)} valid)")


if __name__ == "__main__":
    main()
