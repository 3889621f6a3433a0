"""A small FastMCP 1.x server over Streamable HTTP, the target of tests/real_servers.rs.

It offers what the tools, resources, prompts, progress and cancellation scenarios look
for: tools (one read-only without arguments that returns structured content, one slow
with a numeric `duration` that reports progress, and two with required arguments), a
text and a binary resource, a resource template, two prompts (one without
arguments, one with a required argument), and completions for that argument.

It binds 127.0.0.1 on a port the system chooses, prints
`listening on http://127.0.0.1:PORT/mcp` as its first line, and exits when its standard
input closes, so that it does not outlive the test that started it.
"""

import asyncio
import base64
import os
import socket
import sys
import threading

import uvicorn
from mcp.server.fastmcp import Context, FastMCP
from mcp.shared.exceptions import McpError
from mcp.types import INVALID_PARAMS, Completion, ErrorData, PromptReference, ToolAnnotations
from pydantic import BaseModel

server = FastMCP("mcpspec-fastmcp-target", log_level="WARNING")


class About(BaseModel):
    name: str
    sdk: str


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def about() -> About:
    """Names this server and the SDK it runs on."""
    return About(name="mcpspec-fastmcp-target", sdk="mcp 1.x FastMCP")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Returns its text unchanged."""
    return text


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def wait(duration: float, ctx: Context) -> str:
    """Waits `duration` seconds, reporting progress every quarter of a second."""
    steps = max(1, int(duration * 4))
    for step in range(steps):
        await asyncio.sleep(duration / steps)
        await ctx.report_progress(step + 1, steps)
    return f"waited {duration} s"


@server.resource("text://greeting", mime_type="text/plain")
def greeting() -> str:
    """A short greeting."""
    return "Hello from FastMCP."


@server.resource("data://pixel", mime_type="image/png")
def pixel() -> bytes:
    """A one-pixel PNG."""
    return base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )


@server.resource("text://greeting/{name}", mime_type="text/plain")
def greeting_for(name: str) -> str:
    """A greeting for `name`."""
    return f"Hello, {name}."


@server.prompt()
def welcome() -> str:
    """A prompt without arguments."""
    return "Say hello to the user."


@server.prompt()
def review(code: str) -> str:
    """Asks for a review of `code` (required)."""
    return f"Please review this code:\n\n{code}"


@server.completion()
async def complete(ref, argument, context) -> Completion | None:
    """Offers two snippets for the `code` argument of `review`; an unknown prompt is an
    invalid-params error, as the completion spec asks."""
    if not isinstance(ref, PromptReference):
        return None
    if ref.name not in ("review", "welcome"):
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"no prompt named {ref.name!r}"))
    if ref.name == "review" and argument.name == "code":
        return Completion(values=["print('hello')", "fn main() {}"])
    return None


def exit_when_stdin_closes() -> None:
    sys.stdin.read()
    os._exit(0)


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
