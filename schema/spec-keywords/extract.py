#!/usr/bin/env python3
"""Extract every bold RFC 2119 keyword from the MCP specification pages.

Run against a checkout (or bare mirror) of github:modelcontextprotocol/modelcontextprotocol;
never in CI. For each version it lists, per bold keyword occurrence: the page (relative to
`docs/specification/<version>/`, without extension, `index` dropped as the docs site does),
the nearest heading anchor (slugged like the docs site: lowercase, punctuation dropped,
spaces to hyphens), the keyword, its ordinal among the same keyword under that heading (from 1),
and a short hash of the sentence around it (to notice when the spec text drifts). The spec's
sentences themselves are never written out, only hashed.

A keyword that introduces a list ("Servers **SHOULD**:") counts the list's items as part of
its sentence, up to an item with a keyword of its own.

Usage:
  extract.py --repo <git dir> [--rev HEAD] update [--seed FILE]
      Rewrite schema/spec-keywords/<version>.yaml for all five versions, keeping every
      mapping whose sentence hash is unchanged (matched across versions too); new or
      reworded sentences get `entries: []`, which the test rejects until mapped.
      --seed FILE applies `<hash>[@[<version>:]<page>] <entry id>...` lines first.
  extract.py --repo <git dir> [--rev HEAD] show <version> [page-prefix] [--unmapped]
      Print the occurrences with their sentence and current entries, on the terminal
      only, for mapping by hand.

The authorization pages are taken in like any other (`basic/authorization`, and from
2026-07-28 its sub-pages `basic/authorization/<name>`); their keywords map to the
authorization entries of the catalogue, which coverage counts apart from the core.
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
KEYWORDS = ["MUST NOT", "MUST", "REQUIRED", "SHALL NOT", "SHALL", "SHOULD NOT", "SHOULD", "RECOMMENDED"]
BOLD = re.compile(r"\*\*(" + "|".join(KEYWORDS) + r")\*\*")
LIST_KEYWORD = re.compile(r"\*\*(MUST|SHALL|SHOULD|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b")
HERE = os.path.dirname(os.path.abspath(__file__))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def pages(repo, rev, version):
    prefix = f"docs/specification/{version}/"
    for path in git(repo, "ls-tree", "-r", "--name-only", rev, prefix).splitlines():
        if not re.search(r"\.mdx?$", path):
            continue
        page = re.sub(r"\.mdx?$", "", path[len(prefix):])
        page = re.sub(r"(^|/)index$", "", page)
        yield page, git(repo, "show", f"{rev}:{path}")


def slug(heading):
    """The docs site's anchor for a heading (github-slugger rules)."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    # The site drops a leading underscore: the spec links "### `_meta`" as #meta.
    return text.lstrip("_").replace(" ", "-")


def blocks(text):
    """Yields (heading anchor, paragraph) for the page's prose, skipping code and frontmatter."""
    anchor = ""
    para = []
    fence = None
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        lines = lines[end + 1:]
    for line in lines:
        s = line.strip()
        if fence:
            if s.startswith(fence):
                fence = None
            continue
        m = re.match(r"^(```+|~~~+)", s)
        if m:
            fence = m.group(1)
            continue
        h = re.match(r"^#{1,6}\s+(.*?)\s*#*$", s)
        if h:
            if para:
                yield anchor, " ".join(para)
                para = []
            anchor = slug(h.group(1))
            continue
        item = re.match(r"^([-*+]|\d+\.)\s+", s)
        if not s or item or s.startswith("<") or s.startswith("|"):
            if para:
                yield anchor, " ".join(para)
                para = []
            if s.startswith("|") or (s.startswith("<") and "**" in s):
                yield anchor, s  # a table row or an inline tag holds its own sentences
                continue
        if s and not (s.startswith("<") and "**" not in s):
            para.append(s)
    if para:
        yield anchor, " ".join(para)


def sentences(paragraph):
    parts = re.split(r"(?<=[.!?:])\s+(?=[A-Z*`\[(])", paragraph)
    return [p for p in parts if p]


def occurrences(repo, rev, version):
    out = []
    for page, text in pages(repo, rev, version):
        counts = {}
        paras = list(blocks(text))
        for i, (anchor, para) in enumerate(paras):
            for sentence in sentences(para):
                if sentence.endswith(":") and BOLD.search(sentence):
                    # A keyword that introduces a list ("Clients SHOULD:") governs the
                    # items that follow: they are part of its sentence.
                    for _, item in paras[i + 1:]:
                        if not re.match(r"^([-*+]|\d+\.)\s", item) or LIST_KEYWORD.search(item):
                            break  # the list ended, or an item with its own keyword
                        sentence += " " + item
                for m in BOLD.finditer(sentence):
                    kw = m.group(1)
                    key = (anchor, kw)
                    counts[key] = counts.get(key, 0) + 1
                    norm = " ".join(sentence.split())
                    out.append({
                        "page": page,
                        "anchor": anchor,
                        "keyword": kw,
                        "ordinal": counts[key],
                        "hash": hashlib.sha256(norm.encode()).hexdigest()[:12],
                        "sentence": norm,
                    })
    return out


def load(path):
    """Reads our own YAML subset (written by `write`): a list of flat maps."""
    items, cur = [], None
    if not os.path.exists(path):
        return items
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("- "):
            cur = {}
            items.append(cur)
            line = "  " + line[2:]
        k, _, v = line.strip().partition(": ")
        k = k.rstrip(":")
        v = v.strip()
        if v.startswith("[") and v.endswith("]"):
            v = [x.strip() for x in v[1:-1].split(",") if x.strip()]
        elif len(v) >= 2 and v[0] == '"' and v[-1] == '"':
            v = v[1:-1]
        cur[k] = v
    return items


def write(path, version, rev, occ):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# Bold RFC 2119 keywords on the pages of MCP {version}\n")
        f.write(f"# (github:modelcontextprotocol/modelcontextprotocol @ {rev}, docs/specification/{version}/),\n")
        f.write("# each mapped to the catalogue entries (harness/engine/src/catalogue) that state it.\n")
        f.write("# Generated by schema/spec-keywords/extract.py; `entries` is written by hand and kept\n")
        f.write("# across regenerations while the sentence hash is unchanged. Checked by\n")
        f.write("# harness/engine/tests/spec_keywords.rs.\n")
        for o in occ:
            f.write(f"- page: {o['page']}\n")
            f.write(f"  anchor: {o['anchor']}\n")
            f.write(f"  keyword: {o['keyword']}\n")
            f.write(f"  ordinal: {o['ordinal']}\n")
            f.write(f"  hash: \"{o['hash']}\"\n")
            f.write(f"  entries: [{', '.join(o.get('entries', []))}]\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--rev", default="HEAD")
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("update")
    up.add_argument("--seed", help="a file of `<hash>[@[<version>:]<page>] <entry id>...` lines: mappings to apply by sentence hash (on that page, of that version, only, with @)")
    sh = sub.add_parser("show")
    sh.add_argument("version")
    sh.add_argument("prefix", nargs="?", default="")
    sh.add_argument("--unmapped", action="store_true")
    args = ap.parse_args()

    if args.cmd == "show":
        old = {(o["page"], o["anchor"], o["keyword"], o["ordinal"]): o
               for o in load(os.path.join(HERE, f"{args.version}.yaml"))}
        for o in occurrences(args.repo, args.rev, args.version):
            if not o["page"].startswith(args.prefix):
                continue
            prev = old.get((o["page"], o["anchor"], str(o["keyword"]), str(o["ordinal"])))
            ents = prev.get("entries", []) if prev and prev.get("hash") == o["hash"] else []
            if args.unmapped and ents:
                continue
            print(f"{o['hash']} {o['page']}#{o['anchor']} {o['keyword']} {o['ordinal']} {ents}\n    {o['sentence']}")
        return

    rev = git(args.repo, "rev-parse", args.rev).strip()
    seed, by_hash = {}, {}
    if args.seed:
        for line in open(args.seed, encoding="utf-8"):
            hash_, *ids = line.split()
            if ids:
                seed[hash_] = ids
    for v in VERSIONS:
        for o in load(os.path.join(HERE, f"{v}.yaml")):
            if o.get("entries"):
                by_hash.setdefault(o["hash"], o["entries"])
    for v in VERSIONS:
        occ = occurrences(args.repo, rev, v)
        old = {(o["page"], o["anchor"], o["keyword"], o["ordinal"], o["hash"]): o
               for o in load(os.path.join(HERE, f"{v}.yaml"))}
        unmapped = 0
        for o in occ:
            prev = old.get((o["page"], o["anchor"], o["keyword"], str(o["ordinal"]), o["hash"]))
            # The seed only: a mapping kept from the data files must not
            # override another version's own mapping of the same sentence.
            seeded = (seed.get(f"{o['hash']}@{v}:{o['page']}") or seed.get(f"{o['hash']}@{o['page']}")
                      or seed.get(o["hash"]))
            o["entries"] = seeded or (prev or {}).get("entries") or by_hash.get(o["hash"], [])
            unmapped += not o["entries"]
        write(os.path.join(HERE, f"{v}.yaml"), v, rev, occ)
        print(f"{v}: {len(occ)} occurrences, {unmapped} unmapped", file=sys.stderr)


if __name__ == "__main__":
    main()
