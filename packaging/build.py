#!/usr/bin/env python3
"""Package a built mcpspec binary where MCP developers install tools from.

  build.py wheel --binary target/dist/mcpspec --out dist/
      A Python wheel that carries the binary as a script (the layout
      maturin's `bin` bindings produce): after `pip install` or
      `uv tool install`, `mcpspec` is on PATH. The platform tag is read off
      the binary: the highest glibc symbol version it needs gives
      `manylinux_2_<N>_<arch>`, so pip refuses it on an older system.

  build.py npm --binary target/dist/mcpspec --out dist/
      Two npm packages, packed with `npm pack`: `@mcpspec/cli-<os>-<cpu>`
      holds the binary (with `os` and `cpu` set, so npm installs it only
      there) and `mcpspec` is the launcher that `npx mcpspec` and
      `npm i -D mcpspec` run; it lists the platform packages as optional
      dependencies and runs the one npm installed (the layout of esbuild
      and other tools that ship native binaries through npm).

The version is the workspace's (Cargo.toml). Nothing here builds Rust: pass
the binary of `cargo build --profile dist` (the shipped build: see Cargo.toml),
or, in tests, the debug one.
`harness/cli/tests/packaging.rs` installs both into a fresh venv and a fresh
npm project and runs `mcpspec server` from there.
"""

import argparse
import base64
import hashlib
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = "Conformance test harness and fuzzer for the Model Context Protocol (MCP)"
LICENSE = "MIT OR Apache-2.0"


def version():
    with open(os.path.join(ROOT, "Cargo.toml"), "rb") as f:
        return tomllib.load(f)["workspace"]["package"]["version"]


def stripped(binary, tmp):
    """A copy of the binary without debug information (when `strip` exists)."""
    out = os.path.join(tmp, "mcpspec")
    shutil.copyfile(binary, out)
    if shutil.which("strip"):
        subprocess.run(["strip", "--strip-debug", out], check=True)
    os.chmod(out, 0o755)
    return out


def glibc_minor(binary):
    """The highest GLIBC_2.N symbol version the binary refers to."""
    with open(binary, "rb") as f:
        data = f.read()
    found = [int(m) for m in re.findall(rb"GLIBC_2\.(\d+)", data)]
    if not found:
        sys.exit(f"{binary}: no glibc symbol versions found (not a glibc Linux binary?)")
    return max(found)


def wheel_tag(binary):
    if sys.platform != "linux":
        sys.exit("build.py wheel: only Linux binaries are packaged so far")
    arch = platform.machine()
    return f"py3-none-manylinux_2_{glibc_minor(binary)}_{arch}"


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def build_wheel(binary, out):
    v = version()
    tag = wheel_tag(binary)
    name = f"mcpspec-{v}-{tag}.whl"
    dist_info = f"mcpspec-{v}.dist-info"
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name)
    with tempfile.TemporaryDirectory() as tmp:
        exe = stripped(binary, tmp)
        with open(exe, "rb") as f:
            exe_data = f.read()
    files = [
        (f"mcpspec-{v}.data/scripts/mcpspec", exe_data, 0o755),
        (
            f"{dist_info}/METADATA",
            (
                "Metadata-Version: 2.1\n"
                "Name: mcpspec\n"
                f"Version: {v}\n"
                f"Summary: {SUMMARY}\n"
                f"License: {LICENSE}\n"
                "Requires-Python: >=3.8\n"
            ).encode(),
            0o644,
        ),
        (
            f"{dist_info}/WHEEL",
            (
                "Wheel-Version: 1.0\n"
                "Generator: mcpspec packaging/build.py\n"
                "Root-Is-Purelib: false\n"
                f"Tag: {tag}\n"
            ).encode(),
            0o644,
        ),
    ]
    record = [record_line(p, d) for p, d, _ in files] + [f"{dist_info}/RECORD,,"]
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, data, mode in files:
            info = zipfile.ZipInfo(p, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    print(path)


NODE_OS = {"linux": "linux", "darwin": "darwin", "win32": "win32"}
NODE_CPU = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}

LAUNCHER = """#!/usr/bin/env node
// mcpspec's npm launcher: runs the binary of the platform package npm installed.
'use strict';
const { spawnSync } = require('child_process');
const pkg = `@mcpspec/cli-${process.platform}-${process.arch}`;
let bin;
try {
  bin = require.resolve(`${pkg}/bin/mcpspec`);
} catch (e) {
  console.error(`mcpspec: no binary for ${process.platform}-${process.arch} (${pkg} is not installed)`);
  process.exit(2);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: 'inherit' });
if (r.error) {
  console.error(`mcpspec: ${r.error.message}`);
  process.exit(2);
}
// A signal kills the launcher the same way, so the caller sees it.
if (r.signal) process.kill(process.pid, r.signal);
process.exit(r.status === null ? 2 : r.status);
"""


def npm_pack(directory, out):
    r = subprocess.run(
        ["npm", "pack", "--pack-destination", os.path.abspath(out), "--loglevel=error"],
        cwd=directory,
        check=True,
        capture_output=True,
        text=True,
    )
    return os.path.join(out, r.stdout.strip().splitlines()[-1])


def build_npm(binary, out):
    v = version()
    node_os = NODE_OS.get(sys.platform)
    cpu = NODE_CPU.get(platform.machine().lower())
    if not node_os or not cpu:
        sys.exit(f"build.py npm: unknown platform {sys.platform}/{platform.machine()}")
    platform_pkg = f"@mcpspec/cli-{node_os}-{cpu}"
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        plat = os.path.join(tmp, "platform")
        os.makedirs(os.path.join(plat, "bin"))
        shutil.copyfile(stripped(binary, tmp), os.path.join(plat, "bin", "mcpspec"))
        os.chmod(os.path.join(plat, "bin", "mcpspec"), 0o755)
        with open(os.path.join(plat, "package.json"), "w") as f:
            json.dump(
                {
                    "name": platform_pkg,
                    "version": v,
                    "description": f"The mcpspec binary for {node_os}-{cpu}",
                    "license": LICENSE,
                    "os": [node_os],
                    "cpu": [cpu],
                    "files": ["bin/mcpspec"],
                    "preferUnplugged": True,
                },
                f,
                indent=2,
            )
        main = os.path.join(tmp, "main")
        os.makedirs(os.path.join(main, "bin"))
        with open(os.path.join(main, "bin", "mcpspec.js"), "w") as f:
            f.write(LAUNCHER)
        os.chmod(os.path.join(main, "bin", "mcpspec.js"), 0o755)
        with open(os.path.join(main, "package.json"), "w") as f:
            json.dump(
                {
                    "name": "mcpspec",
                    "version": v,
                    "description": SUMMARY,
                    "license": LICENSE,
                    "bin": {"mcpspec": "bin/mcpspec.js"},
                    "files": ["bin/mcpspec.js"],
                    "engines": {"node": ">=18"},
                    "optionalDependencies": {platform_pkg: v},
                },
                f,
                indent=2,
            )
        print(npm_pack(plat, out))
        print(npm_pack(main, out))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["wheel", "npm"])
    p.add_argument("--binary", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit(f"{a.binary}: not an executable")
    (build_wheel if a.kind == "wheel" else build_npm)(a.binary, a.out)


if __name__ == "__main__":
    main()
