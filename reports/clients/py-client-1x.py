"""The Python SDK host of tests/real_clients.rs (harness/cli/tests/real-clients/py-client.py),
written against the 1.x API of `mcp` (`ClientSession`), which the 2.x host cannot run on.

    python py-client-1x.py [--timeout S] -- CMD [ARGS...]   stdio
    python py-client-1x.py [--timeout S] --url URL          Streamable HTTP
    python py-client-1x.py [--timeout S] --sse-url URL      legacy HTTP+SSE

The same host as the 2.x one, so that the matrix compares the two SDK lines and not two
workflows: declares roots (listChanged), sampling and elicitation by passing callbacks (one
file:// root, a fixed text completion with a model name, decline). Workflow: initialize, ping,
list tools, resources and prompts following nextCursor (those the server declares), call the
first tool with arguments made from its inputSchema, read the first resource, close. One line
per step on stdout. Exit 0 when the workflow completed, 1 when a step failed, 2 on usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import timedelta
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.context import RequestContext

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
        return "hello from py-client-1x"
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return True
    if kind == "array":
        return [sample(schema.get("items"), depth + 1)] if schema.get("minItems") else []
    return {k: sample(v, depth + 1) for k, v in (schema.get("properties") or {}).items()}


async def list_roots(context: RequestContext[ClientSession, Any]) -> types.ListRootsResult:
    uri = Path.cwd().as_uri()
    step("handled roots/list", uri)
    return types.ListRootsResult(roots=[types.Root(uri=uri, name="workspace")])


async def sampling(
    context: RequestContext[ClientSession, Any], params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    step("handled sampling/createMessage", {"messages": len(params.messages)})
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="This is a fixed answer from mcpspec-py-client-1x."),
        model="mcpspec-fixed-model",
        stopReason="endTurn",
    )


async def elicitation(context: RequestContext[ClientSession, Any], params: types.ElicitRequestParams) -> types.ElicitResult:
    step("handled elicitation/create", {"message": params.message, "action": "decline"})
    return types.ElicitResult(action="decline")


async def list_all(label: str, fetch: Any, key: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await fetch(cursor)
        pages += 1
        items.extend(getattr(page, key))
        cursor = page.nextCursor
        if cursor is None or pages >= MAX_PAGES:
            break
    names = [getattr(x, "name", None) or str(getattr(x, "uri", "")) for x in items]
    step(label, {"count": len(items), "pages": pages, "names": names})
    return items


def streams(opts: argparse.Namespace) -> Any:
    if opts.command:
        # stdio_client passes the child only HOME, LOGNAME, PATH, SHELL, TERM, USER (plus `env`).
        return stdio_client(StdioServerParameters(command=opts.command[0], args=opts.command[1:]))
    if opts.url:
        return streamablehttp_client(opts.url)
    return sse_client(opts.sse_url)


async def run(opts: argparse.Namespace) -> None:
    sdk = dist_version("mcp")
    step("sdk", {"version": sdk, "latest": types.LATEST_PROTOCOL_VERSION})
    async with streams(opts) as pair:
        read, write = pair[0], pair[1]  # Streamable HTTP also yields a session-id getter
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=timedelta(seconds=opts.timeout),
            sampling_callback=sampling,
            elicitation_callback=elicitation,
            list_roots_callback=list_roots,
            client_info=types.Implementation(name="mcpspec-py-client-1x", version=sdk),
        ) as session:
            init = await session.initialize()
            info = init.serverInfo
            step("connected", {"server": f"{info.name} {info.version}", "negotiated": init.protocolVersion,
                               "capabilities": sorted(init.capabilities.model_dump(exclude_none=True))})
            await session.send_ping()
            step("ping", "ok")
            caps = init.capabilities
            tools = await list_all("tools/list", session.list_tools, "tools") if caps.tools else []
            resources = await list_all("resources/list", session.list_resources, "resources") if caps.resources else []
            if caps.prompts:
                await list_all("prompts/list", session.list_prompts, "prompts")
            if tools:
                args = sample(tools[0].inputSchema)
                result = await session.call_tool(tools[0].name, args)
                step("tools/call", {"name": tools[0].name, "arguments": args, "isError": bool(result.isError),
                                    "content": [c.type for c in result.content]})
            if resources:
                uri = resources[0].uri
                read_result = await session.read_resource(uri)
                step("resources/read", {"uri": str(uri), "contents": len(read_result.contents)})
    step("closed", "ok")


def parse_args(argv: list[str]) -> argparse.Namespace:
    command: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(prog="py-client-1x.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url")
    parser.add_argument("--sse-url")
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
            print(f"py-client-1x: gave up after {opts.timeout}s", file=sys.stderr)
            return 1
    except Exception as exc:  # a host reports any failure and exits non-zero
        for leaf in leaves(exc):
            print(f"py-client-1x: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
