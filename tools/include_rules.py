#!/usr/bin/env python3
"""Checks the tree against CONTRIBUTING.md: what each folder of include/agentkit/ may include,
and that the layouts CONTRIBUTING.md and README.md draw name every folder and program there is.

The rules are read from CONTRIBUTING.md's table "The rooms and what each may include" (one rule
in one place: change the table, not this script). A header belongs to the most specific row
whose folder its path starts with; it may include its own room's headers, the rooms its row
names, agentkit/version.hpp, and any header that is not agentkit's or an optional library's.
Optional libraries (the prefixes any row's third column names) only where a row names them.
Deprecated forwarding headers (first line "... deprecated: moved to <...>") are left out: they
exist to point at the new path, wherever it is.

Usage: include_rules.py [--source-dir DIR]. Exit 0 when everything holds, 1 with one line per
violation (file:line: what, and the rule), 2 when CONTRIBUTING.md's table cannot be read.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TABLE_HEADING = "## The rooms and what each may include"
INCLUDE = re.compile(r"^\s*#\s*include\s*<([^>]+)>")
TICKED = re.compile(r"`([^`]+)`")


class TableError(Exception):
    pass


def read_table(contributing: str) -> dict[str, tuple[set[str], set[str]]]:
    """{folder: (rooms it may include, optional-library prefixes it may include)}."""
    at = contributing.find(TABLE_HEADING)
    if at < 0:
        raise TableError(f'no heading "{TABLE_HEADING}"')
    rows: dict[str, tuple[set[str], set[str]]] = {}
    in_table = False
    for line in contributing[at:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if in_table:
                break
            continue
        in_table = True
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            raise TableError(f"a row needs 3 cells: {line}")
        if cells[0] == "folder" or set(cells[0]) <= set("-: "):
            continue
        folder = TICKED.findall(cells[0])
        if len(folder) != 1 or not folder[0].endswith("/"):
            raise TableError(f"the first cell names one folder ending in '/': {line}")
        rows[folder[0]] = (set(TICKED.findall(cells[1])), set(TICKED.findall(cells[2])))
    if not rows:
        raise TableError("the table has no rows")
    for folder, (allowed, _) in rows.items():
        for r in allowed:
            if r not in rows:
                raise TableError(f"`{folder}` may include `{r}`, which has no row")
    return rows


def room_of(path: str, rows: dict) -> str | None:
    """The most specific row whose folder `path` (relative to include/agentkit/) lies in."""
    best = None
    for folder in rows:
        if path.startswith(folder) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def is_forwarding(text: str) -> bool:
    first = text.split("\n", 1)[0]
    return "deprecated: moved to <agentkit/" in first


def check_includes(root: Path, rows: dict) -> list[str]:
    problems: list[str] = []
    optional = set().union(*(libs for _, libs in rows.values()))
    base = root / "include" / "agentkit"
    for header in sorted(base.rglob("*.hpp")):
        rel = header.relative_to(base).as_posix()
        if "/" not in rel:
            continue  # entry points (agentkit.hpp, browser.hpp, ...) include every room
        text = header.read_text(encoding="utf-8")
        if is_forwarding(text):
            continue
        room = room_of(rel, rows)
        where = f"include/agentkit/{rel}"
        if room is None:
            problems.append(f"{where}: its folder has no row in CONTRIBUTING.md's table")
            continue
        allowed, libs = rows[room]
        for n, line in enumerate(text.splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if target.startswith("agentkit/"):
                inner = target[len("agentkit/"):]
                if inner == "version.hpp":
                    continue
                if "/" not in inner:
                    problems.append(f"{where}:{n}: <{target}> is an entry point; include the "
                                    f"headers it gathers instead")
                    continue
                to = room_of(inner, rows)
                if to == room or to in allowed:
                    continue
                names = ", ".join(sorted(allowed)) or "nothing of agentkit"
                problems.append(f"{where}:{n}: <{target}> ({to or 'no row'}) — `{room}` may "
                                f"include {names} (CONTRIBUTING.md)")
            else:
                lib = next((p for p in optional if target == p or target.startswith(p)), None)
                if lib is not None and lib not in libs:
                    problems.append(f"{where}:{n}: <{target}> is the optional library `{lib}`, "
                                    f"which `{room}` may not include (CONTRIBUTING.md)")
    return problems


def layout_block(text: str, heading: str) -> str:
    at = text.find(heading)
    if at < 0:
        return ""
    start = text.find("```", at)
    end = text.find("```", start + 3)
    return text[start + 3:end] if start >= 0 and end > start else ""


def check_layouts(root: Path, rows: dict) -> list[str]:
    problems: list[str] = []
    contributing = layout_block((root / "CONTRIBUTING.md").read_text(encoding="utf-8"), "## The layout")
    readme = layout_block((root / "README.md").read_text(encoding="utf-8"), "## Layout")
    if not contributing:
        problems.append("CONTRIBUTING.md: no layout block under \"## The layout\"")
    if not readme:
        problems.append("README.md: no layout block under \"## Layout\"")
    # Every room of the table is drawn in CONTRIBUTING's tree (at its own indentation), and every
    # folder under include/agentkit/ that holds headers of its own has a row.
    base = root / "include" / "agentkit"
    folders = sorted({p.parent.relative_to(base).as_posix() + "/" for p in base.rglob("*.hpp")
                      if p.parent != base})
    for folder in folders:
        room = room_of(folder, rows)
        if room is None:
            problems.append(f"include/agentkit/{folder}: no row in CONTRIBUTING.md's table")
    for folder in rows:
        leaf = folder.rstrip("/").split("/")[-1] + "/"
        depth = folder.count("/") - 1
        if not re.search(rf"^ {{{2 + 2 * depth}}}{re.escape(leaf)}\s", contributing, re.M):
            problems.append(f"CONTRIBUTING.md: the layout does not draw `{folder}` "
                            f"(as `{leaf}` indented {2 + 2 * depth} spaces)")
        if not (base / folder).is_dir():
            problems.append(f"CONTRIBUTING.md: the table names `{folder}`, which is not a folder")
    # Every program in apps/ is named by both layouts.
    programs = set()
    for cml in sorted((root / "apps").rglob("CMakeLists.txt")):
        programs |= set(re.findall(r"add_executable\(\s*(agentkit-[\w-]+)", cml.read_text(encoding="utf-8")))
    for prog in sorted(programs):
        for name, block in (("CONTRIBUTING.md", contributing), ("README.md", readme)):
            if not re.search(rf"(?<![\w-]){re.escape(prog)}(?![\w-])", block):
                problems.append(f"{name}: the layout does not name the program {prog} (apps/)")
    # Every top-level folder of the repository is in README's layout.
    for d in sorted(p.name for p in root.iterdir() if p.is_dir()):
        if d.startswith(".") or d.startswith("build") or d == "node_modules":
            continue
        if not re.search(rf"(^|\s){re.escape(d)}/", readme, re.M):
            problems.append(f"README.md: the layout does not name the folder {d}/")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source-dir", default=str(Path(__file__).resolve().parent.parent))
    args = ap.parse_args()
    root = Path(args.source_dir)
    try:
        rows = read_table((root / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    except (OSError, TableError) as e:
        print(f"include_rules: cannot read CONTRIBUTING.md's table: {e}", file=sys.stderr)
        return 2
    problems = check_includes(root, rows) + check_layouts(root, rows)
    for p in problems:
        print(p)
    if problems:
        print(f"include_rules: {len(problems)} problem(s)")
        return 1
    print(f"include_rules: {len(rows)} rooms, their includes and both layouts agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
