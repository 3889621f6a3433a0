"""A small, realistic MCP host built on the official Python SDK (`mcp` 2.x), used as a client under
test for `mcpspec client`. Run it with the interpreter of a venv that has `mcp` installed:

    python py-client.py [--mode auto|legacy|2026-07-28] [--timeout S] -- CMD [ARGS...]   stdio
    python py-client.py [...] --url URL                                                Streamable HTTP
    python py-client.py [...] --sse-url URL                                            legacy HTTP+SSE

Declares roots (listChanged), sampling and elicitation by passing callbacks (one file:// root, a
fixed text completion with a model name, decline). Workflow: connect (`--mode auto`, the SDK
default, probes `server/discover` at 2026-07-28 and falls back to `initialize`; `legacy` sends
`initialize` first; a modern version adopts it with no handshake), ping (handshake-era versions
only: 2026-07-28 removed ping), list tools, resources and prompts following nextCursor, call the
first tool with arguments made from its inputSchema, read the first resource, close. One line per
step on stdout. Exit 0 when the workflow completed, 1 when a step failed, 2 on usage.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.session import ClientRequestContext
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

MAX_PAGES = 50


def step(name: str, detail: Any) -> None:
    text = detail if isinstance(detail, str) else json.dumps(detail)
    print(f"{name}: {text}", flush=True)


def sample(schema: Any, depth: int = 0) -> Any:
    """A plausible value for a JSON Schema, enough for a host that fills in tool arguments itself."""
    if not isinstance(schema, dict) or depth > 4:
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "string":
        return "hello from py-client"
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return True
    if kind == "array":
        return [sample(schema.get("items"), depth + 1)] if schema.get("minItems") else []
    return {k: sample(v, depth + 1) for k, v in (schema.get("properties") or {}).items()}


async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
    uri = Path.cwd().as_uri()
    step("handled roots/list", uri)
    return types.ListRootsResult(roots=[types.Root(uri=uri, name="workspace")])


async def sampling(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    step("handled sampling/createMessage", {"messages": len(params.messages)})
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="This is a fixed answer from mcpspec-py-client."),
        model="mcpspec-fixed-model",
        stop_reason="endTurn",
    )


async def elicitation(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    step("handled elicitation/create", {"message": params.message, "action": "decline"})
    return types.ElicitResult(action="decline")


async def list_all(label: str, fetch: Any, key: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await fetch(cursor=cursor)
        pages += 1
        items.extend(getattr(page, key))
        cursor = page.next_cursor
        if cursor is None or pages >= MAX_PAGES:
            break
    names = [getattr(x, "name", None) or str(getattr(x, "uri", "")) for x in items]
    step(label, {"count": len(items), "pages": pages, "names": names})
    return items


def make_server(opts: argparse.Namespace) -> Any:
    if opts.command:
        # stdio_client passes the child only HOME, LOGNAME, PATH, SHELL, TERM, USER (plus `env`).
        return stdio_client(StdioServerParameters(command=opts.command[0], args=opts.command[1:]))
    if opts.url:
        return streamable_http_client(opts.url)
    return sse_client(opts.sse_url)


async def run(opts: argparse.Namespace) -> None:
    sdk = dist_version("mcp")
    step("sdk", {"version": sdk, "mode": opts.mode, "latest_modern": LATEST_MODERN_VERSION,
                 "latest_handshake": LATEST_HANDSHAKE_VERSION})
    client = Client(
        make_server(opts),
        mode=opts.mode,
        client_info=types.Implementation(name="mcpspec-py-client", version=sdk),
        list_roots_callback=list_roots,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        read_timeout_seconds=opts.timeout,
        cache=None,  # a test client must reach the server on every call
    )
    async with client:
        if opts.mode not in ("auto", "legacy"):
            era = "pinned: no handshake, no discover"
        else:
            era = "initialize" if client.session.initialize_result is not None else "server/discover"
        info = client.server_info
        step("connected", {"server": f"{info.name} {info.version}" if info else None, "negotiated": client.protocol_version,
                           "via": era, "capabilities": sorted(client.server_capabilities.model_dump(exclude_none=True))})
        if client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.send_ping()
            step("ping", "ok")
        else:
            step("ping", f"skipped: not part of {client.protocol_version}")
        caps = client.server_capabilities
        # A pinned version learns no capabilities (the SDK synthesises an empty discover result): try all.
        pinned = opts.mode not in ("auto", "legacy")
        tools = await list_all("tools/list", client.list_tools, "tools") if pinned or caps.tools else []
        resources = await list_all("resources/list", client.list_resources, "resources") if pinned or caps.resources else []
        if pinned or caps.prompts:
            await list_all("prompts/list", client.list_prompts, "prompts")
        if tools:
            args = sample(tools[0].input_schema)
            result = await client.call_tool(tools[0].name, args)
            step("tools/call", {"name": tools[0].name, "arguments": args, "isError": bool(result.is_error),
                                "content": [c.type for c in result.content]})
        if resources:
            uri = str(resources[0].uri)
            read = await client.read_resource(uri)
            step("resources/read", {"uri": uri, "contents": len(read.contents)})
    step("closed", "ok")


def parse_args(argv: list[str]) -> argparse.Namespace:
    command: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(prog="py-client.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url")
    parser.add_argument("--sse-url")
    parser.add_argument("--mode", default="auto", help="auto (default), legacy, or a modern version such as 2026-07-28")
    parser.add_argument("--timeout", type=float, default=30.0, help="overall and per-request limit in seconds")
    opts = parser.parse_args(argv)
    opts.command = command
    if sum(bool(x) for x in (command, opts.url, opts.sse_url)) != 1:
        parser.error("give exactly one of -- CMD, --url, --sse-url")
    return opts


def leaves(exc: BaseException) -> list[BaseException]:
    """The underlying errors of an exception group (anyio task groups nest them), or the error itself."""
    subs = getattr(exc, "exceptions", None)
    return [leaf for sub in subs for leaf in leaves(sub)] if subs else [exc]


def main() -> int:
    opts = parse_args(sys.argv[1:])

    async def bounded() -> bool:
        with anyio.move_on_after(opts.timeout) as scope:
            await run(opts)
        return not scope.cancelled_caught

    try:
        if not anyio.run(bounded):
            print(f"py-client: gave up after {opts.timeout}s", file=sys.stderr)
            return 1
    except Exception as exc:  # a host reports any failure and exits non-zero
        for leaf in leaves(exc):
            print(f"py-client: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
