#!/usr/bin/env python3
"""Generate (or check) agentkit's single header from the multi-header tree.

Starting at the umbrella header, every ``#include <agentkit/...>`` (or a quoted include
that resolves inside the include tree) is replaced by the text of that header, exactly
once, the way ``#pragma once`` would have it: the first inclusion inlines the header, later
ones vanish. Every other include (standard library, nlohmann, tl) is kept where it is.
The output is deterministic: same input tree, same bytes.

    tools/amalgamate.py                  write single_include/agentkit/agentkit.hpp
    tools/amalgamate.py --check          exit 1 if the committed file is stale
    tools/amalgamate.py --check-umbrella exit 1 if a public header is not reachable
                                         from the umbrella header

Only the Python standard library is used. Configuration: tools/amalgamate.json.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
PRAGMA_ONCE_RE = re.compile(r"^\s*#\s*pragma\s+once\s*(//.*)?$")
IF_RE = re.compile(r"^\s*#\s*(if|ifdef|ifndef)\b")
ELSE_RE = re.compile(r"^\s*#\s*(elif|elifdef|elifndef|else)\b")
ENDIF_RE = re.compile(r"^\s*#\s*endif\b")
STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')


class AmalgamationError(Exception):
    """A problem in the header tree that makes a correct single header impossible."""


@dataclass
class Config:
    root_dir: Path
    root: Path
    output: Path
    include_dirs: list[Path]
    inline_prefixes: list[str]
    version_header: Path | None
    public_dir: Path
    public_patterns: list[str]
    public_exclude: list[str]
    defines: list[str]
    banner: list[str]

    @staticmethod
    def load(path: Path, root_dir: Path) -> "Config":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise AmalgamationError(f"cannot read configuration {path}: {exc}") from exc
        public = raw.get("public_headers", {})
        version_header = raw.get("version_header")
        return Config(
            root_dir=root_dir,
            root=root_dir / raw["root"],
            output=root_dir / raw["output"],
            include_dirs=[root_dir / d for d in raw.get("include_dirs", ["include"])],
            inline_prefixes=list(raw.get("inline_prefixes", [])),
            version_header=root_dir / version_header if version_header else None,
            public_dir=root_dir / public.get("dir", "include"),
            public_patterns=list(public.get("patterns", [])),
            public_exclude=list(public.get("exclude", [])),
            defines=list(raw.get("defines", [])),
            banner=list(raw.get("banner", [])),
        )


@dataclass
class Result:
    text: str
    inlined: list[str] = field(default_factory=list)  # include names, in inlining order


def read_version(cfg: Config) -> str:
    if cfg.version_header is None:
        return "unknown"
    text = cfg.version_header.read_text(encoding="utf-8")
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define\s+AGENTKIT_VERSION_{part}\s+(\d+)\s*$", text, re.M)
        if not m:
            raise AmalgamationError(f"{cfg.version_header}: no AGENTKIT_VERSION_{part}")
        parts.append(m.group(1))
    return ".".join(parts)


def rel(cfg: Config, path: Path) -> str:
    try:
        return path.resolve().relative_to(cfg.root_dir.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


class Amalgamator:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.out: list[str] = []
        # include name -> (condition stack at its first inclusion)
        self.seen: dict[str, tuple] = {}
        self.order: list[str] = []

    # -- resolution ------------------------------------------------------------------------
    def resolve(self, name: str, quoted: bool, current: Path) -> tuple[str, Path] | None:
        """Return (canonical include name, file) for headers that must be inlined."""
        candidates: list[Path] = []
        if quoted:
            candidates.append(current.parent / name)
        if any(name.startswith(p) for p in self.cfg.inline_prefixes):
            candidates.extend(d / name for d in self.cfg.include_dirs)
        for cand in candidates:
            for inc in self.cfg.include_dirs:
                try:
                    canonical = cand.resolve().relative_to(inc.resolve()).as_posix()
                except ValueError:
                    continue
                if cand.is_file():
                    return canonical, cand
        if any(name.startswith(p) for p in self.cfg.inline_prefixes):
            raise AmalgamationError(
                f"{rel(self.cfg, current)} includes <{name}>, which does not exist under "
                + ", ".join(rel(self.cfg, d) for d in self.cfg.include_dirs))
        return None

    # -- processing ------------------------------------------------------------------------
    def process(self, path: Path, name: str, cond: tuple) -> None:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        where = rel(self.cfg, path)
        if not any(PRAGMA_ONCE_RE.match(line) for line in lines):
            raise AmalgamationError(
                f"{where} has no '#pragma once': every agentkit header needs it "
                "(the amalgamation inlines each header exactly once)")

        stack = list(cond)
        in_block_comment = False
        for lineno, line in enumerate(lines, start=1):
            is_directive = not in_block_comment
            in_block_comment = self._block_comment_state(line, in_block_comment)
            if not is_directive:
                self.out.append(line)
                continue
            if PRAGMA_ONCE_RE.match(line):
                continue
            if IF_RE.match(line):
                stack.append((where, lineno))
            elif ELSE_RE.match(line):
                if len(stack) == len(cond):
                    raise AmalgamationError(f"{where}:{lineno}: #else/#elif without #if")
                stack[-1] = (where, lineno)
            elif ENDIF_RE.match(line):
                if len(stack) == len(cond):
                    raise AmalgamationError(f"{where}:{lineno}: #endif without #if")
                stack.pop()
            m = INCLUDE_RE.match(line)
            if m:
                target = self.resolve(m.group(2), m.group(1) == '"', path)
                if target is not None:
                    self.include(target[0], target[1], tuple(stack), f"{where}:{lineno}")
                    continue
            self.out.append(line)
        if len(stack) != len(cond):
            raise AmalgamationError(f"{where}: unterminated #if block")

    def include(self, name: str, path: Path, cond: tuple, site: str) -> None:
        if name in self.seen:
            first = self.seen[name]
            # Skipping a repeated include is only right if the first inclusion happened under
            # conditions that also hold here (its condition stack is a prefix of ours).
            if cond[: len(first)] != first:
                raise AmalgamationError(
                    f"{site}: <{name}> was first inlined inside a conditional block that does "
                    "not enclose this include; include it unconditionally (or in the same "
                    "block) so that inlining it once stays correct")
            return
        self.seen[name] = cond
        self.order.append(name)
        self.out.append(f"// ---- begin <{name}> ----")
        self.process(path, name, cond)
        self.out.append(f"// ---- end <{name}> ----")

    @staticmethod
    def _block_comment_state(line: str, in_block: bool) -> bool:
        """Track /* ... */ across lines (string literals and // comments ignored)."""
        s = STRING_RE.sub('""', line)
        i = 0
        while i < len(s):
            if in_block:
                j = s.find("*/", i)
                if j < 0:
                    return True
                in_block, i = False, j + 2
            else:
                j_line = s.find("//", i)
                j = s.find("/*", i)
                if j < 0 or (0 <= j_line < j):
                    return False
                in_block, i = True, j + 2
        return in_block

    def run(self) -> Result:
        cfg = self.cfg
        if not cfg.root.is_file():
            raise AmalgamationError(f"root header {rel(cfg, cfg.root)} does not exist")
        version = read_version(cfg)
        banner = [("// " + line.format(version=version)).rstrip() for line in cfg.banner]
        self.out.extend(banner)
        self.out.append("#pragma once")
        self.out.append("")
        for define in cfg.defines:
            self.out.append(f"#define {define}")
        if cfg.defines:
            self.out.append("")
        root_name = None
        for inc in cfg.include_dirs:
            try:
                root_name = cfg.root.resolve().relative_to(inc.resolve()).as_posix()
                break
            except ValueError:
                continue
        root_name = root_name or cfg.root.name
        self.seen[root_name] = ()
        self.order.append(root_name)
        self.process(cfg.root, root_name, ())
        return Result(text="\n".join(self.out) + "\n", inlined=list(self.order))


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """'**/' matches zero or more directories, '*' and '?' stay within one path component."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def public_headers(cfg: Config) -> list[str]:
    include = [glob_to_regex(p) for p in cfg.public_patterns]
    exclude = [glob_to_regex(p) for p in cfg.public_exclude]
    found = []
    base = cfg.public_dir
    for path in sorted(base.rglob("*")):
        if not path.is_file():
            continue
        name = path.relative_to(base).as_posix()
        if not any(p.match(name) for p in include) or any(p.match(name) for p in exclude):
            continue
        found.append(name)
    return found


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root-dir", type=Path, default=here.parent,
                        help="repository root (default: the parent of tools/)")
    parser.add_argument("--config", type=Path, default=None,
                        help="configuration file (default: <root-dir>/tools/amalgamate.json)")
    parser.add_argument("--output", type=Path, default=None,
                        help="write here instead of the configured output")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="do not write; exit 1 if the output file is missing or stale")
    mode.add_argument("--check-umbrella", action="store_true",
                      help="exit 1 if a public header is not reachable from the root header")
    args = parser.parse_args(argv)

    root_dir = args.root_dir.resolve()
    config_path = args.config or (root_dir / "tools" / "amalgamate.json")
    try:
        cfg = Config.load(config_path, root_dir)
        if args.output is not None:
            cfg.output = args.output.resolve()
        result = Amalgamator(cfg).run()
    except AmalgamationError as exc:
        print(f"amalgamate: error: {exc}", file=sys.stderr)
        return 2

    out_name = rel(cfg, cfg.output)
    inlined = len(result.inlined)

    if args.check_umbrella:
        reachable = set(result.inlined)
        missing = [h for h in public_headers(cfg) if h not in reachable]
        if missing:
            print(f"amalgamate: error: {len(missing)} public header(s) are not reachable from "
                  f"{rel(cfg, cfg.root)}:", file=sys.stderr)
            for name in missing:
                print(f"    #include <{name}>", file=sys.stderr)
            print("  Add them to the umbrella header (a sorted list of includes), then run "
                  "`python3 tools/amalgamate.py`.", file=sys.stderr)
            return 1
        print(f"amalgamate: all {len(reachable)} public headers are reachable from "
              f"{rel(cfg, cfg.root)}")
        return 0

    if args.check:
        try:
            current = cfg.output.read_text(encoding="utf-8")
        except OSError:
            print(f"amalgamate: error: {out_name} does not exist. Generate it with "
                  "`python3 tools/amalgamate.py` and commit it.", file=sys.stderr)
            return 1
        if current == result.text:
            print(f"amalgamate: {out_name} is up to date ({inlined} headers inlined)")
            return 0
        diff = list(difflib.unified_diff(
            current.splitlines(), result.text.splitlines(),
            fromfile=f"{out_name} (committed)", tofile=f"{out_name} (from include/)",
            lineterm="", n=2))
        print(f"amalgamate: error: {out_name} is STALE: it does not match the headers under "
              f"include/. Regenerate it with `python3 tools/amalgamate.py` (or `cmake --build "
              f"<build-dir> --target amalgamate`) and commit the result.", file=sys.stderr)
        shown = diff[:80]
        print("\n".join(shown), file=sys.stderr)
        if len(diff) > len(shown):
            print(f"... ({len(diff) - len(shown)} more diff lines)", file=sys.stderr)
        return 1

    cfg.output.parent.mkdir(parents=True, exist_ok=True)
    try:
        unchanged = cfg.output.read_text(encoding="utf-8") == result.text
    except OSError:
        unchanged = False
    if unchanged:
        print(f"amalgamate: {out_name} already up to date ({inlined} headers inlined)")
    else:
        with open(cfg.output, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(result.text)
        print(f"amalgamate: wrote {out_name} ({inlined} headers inlined, "
              f"{result.text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
