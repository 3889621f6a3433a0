"""A small, realistic MCP host built on the official Python SDK (`mcp` 2.x), used as a client under
test for `mcpspec client`. Run it with the interpreter of a venv that has `mcp` installed:

    python py-client.py [--mode auto|legacy|2026-07-28] [--timeout S] -- CMD [ARGS...]   stdio
    python py-client.py [...] [--auth [--client-metadata-url URL] [--client-id ID --client-secret S]] --url URL
                                                                                       Streamable HTTP
    python py-client.py [...] --sse-url URL                                            legacy HTTP+SSE

Declares roots (listChanged), sampling and elicitation by passing callbacks (one file:// root, a
fixed text completion with a model name, decline). Workflow: connect (`--mode auto`, the SDK
default, probes `server/discover` at 2026-07-28 and falls back to `initialize`; `legacy` sends
`initialize` first; a modern version adopts it with no handshake), ping (handshake-era versions
only: 2026-07-28 removed ping), list tools, resources and prompts following nextCursor, call the
first tool with arguments made from its inputSchema, read the first resource, close. One line per
step on stdout. `--auth` gives the Streamable HTTP client the SDK's OAuth support
(`OAuthClientProvider`, tokens kept in memory): on a 401 the SDK discovers the authorization server,
registers and hands the authorize URL to this host, which plays the user agent (it follows the URL
without a login, as a demo authorization server approves at once) and gives the SDK the code,
state and iss of the redirect. `--client-metadata-url` gives the SDK a client ID metadata document
URL (used where the authorization server advertises support); `--client-id` and `--client-secret`
(empty: none) are static credentials from a pre-registration, stored before the flow starts.
Exit 0 when the workflow completed, 1 when a step failed, 2 on usage.
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
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl
from urllib.parse import parse_qs, urlsplit

import httpx2
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


REDIRECT_URI = "http://127.0.0.1:9/py-client-callback"


class MemoryStorage:
    """The SDK's TokenStorage protocol, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        step("oauth tokens saved", {"scope": tokens.scope})

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class UserAgent:
    """The user agent's part of the flow: follow the authorize URL once, without a login, and
    read the redirect the authorization server answers with."""

    def __init__(self) -> None:
        self.result: AuthorizationCodeResult | None = None

    async def redirect(self, url: str) -> None:
        parsed = urlsplit(url)
        step("oauth authorize", f"{parsed.scheme}://{parsed.netloc}{parsed.path}")
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as http:
            res = await http.get(url)
        location = res.headers.get("location")
        if not location:
            raise RuntimeError(f"the authorize endpoint answered {res.status_code} without a redirect")
        query = parse_qs(urlsplit(location).query)
        first = lambda k: query.get(k, [None])[0]  # noqa: E731
        if first("error"):
            raise RuntimeError(f"the authorization server refused: {first('error')}")
        if not first("code"):
            raise RuntimeError("no code in the redirect")
        self.result = AuthorizationCodeResult(code=first("code"), state=first("state"), iss=first("iss"))

    async def callback(self) -> AuthorizationCodeResult:
        if self.result is None:
            raise RuntimeError("no authorization response was received")
        result, self.result = self.result, None
        step("oauth code received", None)
        return result


def oauth_client(opts: argparse.Namespace) -> httpx2.AsyncClient:
    agent = UserAgent()
    storage = MemoryStorage()
    if opts.client_id:
        # Pre-registered: the SDK finds client information already stored and does not register.
        storage.client = OAuthClientInformationFull(
            client_id=opts.client_id,
            client_secret=opts.client_secret or None,
            redirect_uris=[AnyUrl(REDIRECT_URI)],
            token_endpoint_auth_method="client_secret_basic" if opts.client_secret else "none",
        )
    provider = OAuthClientProvider(
        server_url=opts.url,
        client_metadata=OAuthClientMetadata(
            client_name="mcpspec-py-client",
            redirect_uris=[AnyUrl(REDIRECT_URI)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=agent.redirect,
        callback_handler=agent.callback,
        client_metadata_url=opts.client_metadata_url,
    )
    return create_mcp_http_client(auth=provider)


def make_server(opts: argparse.Namespace) -> Any:
    if opts.command:
        # stdio_client passes the child only HOME, LOGNAME, PATH, SHELL, TERM, USER (plus `env`).
        return stdio_client(StdioServerParameters(command=opts.command[0], args=opts.command[1:]))
    if opts.url:
        if opts.auth:
            return streamable_http_client(opts.url, http_client=oauth_client(opts))
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
    parser.add_argument("--auth", action="store_true", help="with --url: authorize with OAuth on a 401")
    parser.add_argument("--client-metadata-url", help="with --auth: the client ID metadata document URL")
    parser.add_argument("--client-id", default="", help="with --auth: a pre-registered client id (empty: none)")
    parser.add_argument("--client-secret", default="", help="with --auth: the pre-registered client's secret")
    parser.add_argument("--mode", default="auto", help="auto (default), legacy, or a modern version such as 2026-07-28")
    parser.add_argument("--timeout", type=float, default=30.0, help="overall and per-request limit in seconds")
    opts = parser.parse_args(argv)
    opts.command = command
    if sum(bool(x) for x in (command, opts.url, opts.sse_url)) != 1:
        parser.error("give exactly one of -- CMD, --url, --sse-url")
    if opts.auth and not opts.url:
        parser.error("--auth goes with --url")
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
