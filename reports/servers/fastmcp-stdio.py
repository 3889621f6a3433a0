"""The FastMCP 1.x server of tests/real_servers.rs, over stdio instead of Streamable HTTP.

Loads harness/cli/tests/real-servers/fastmcp-server.py (the same tools, resources, prompts
and completions) and runs its FastMCP instance on standard input and output, so that the
matrix tests one server over both of the transports it offers.
"""

import importlib.util
import pathlib

here = pathlib.Path(__file__).resolve()
source = here.parents[2] / "harness" / "cli" / "tests" / "real-servers" / "fastmcp-server.py"
spec = importlib.util.spec_from_file_location("fastmcp_server", source)
assert spec is not None and spec.loader is not None, f"cannot load {source}"
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

if __name__ == "__main__":
    module.server.run("stdio")
