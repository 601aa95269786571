#!/usr/bin/env python3
"""Which unit-test executables a change touches (tools/quick.sh's choice).

    git diff --name-only HEAD | tools/quick_pick.py      prints "folder:target" lines

A changed header of part P (include/agentkit/P/... or include/agentkit/P.hpp) picks the test
folder of P and of every part that includes P, directly or through other parts (read from the
headers' own `#include <agentkit/...>` lines, so the choice follows the include graph as it is);
a change to core (or the umbrella header) picks every folder. A changed file under tests/F/ picks
F (a changed test source tests/F/x.cpp only the unit executables built from it, none for an
e2e source); tests/support/ picks every folder. Of each picked folder, the executables its CMakeLists.txt declares with
`agentkit_add_gtest(NAME ... LABELS unit ...)` are printed. Run from the repository's root.
"""
import os
import re
import sys

INC = "include/agentkit"


def parts():
    return sorted(d for d in os.listdir(INC) if os.path.isdir(os.path.join(INC, d)))


def part_of(path, known):
    top = os.path.relpath(path, INC).split(os.sep)[0]
    if top.endswith(".hpp"):
        top = top[:-4]
    return top if top in known else None


def users_by_part(known):
    """part -> the parts whose headers include one of its headers."""
    users = {p: set() for p in known}
    for root, _, files in os.walk(INC):
        for f in files:
            if not f.endswith(".hpp"):
                continue
            me = part_of(os.path.join(root, f), known)
            if me is None:
                continue
            with open(os.path.join(root, f), encoding="utf-8") as fh:
                for m in re.finditer(r"#include <agentkit/([a-z_]+)[/.]", fh.read()):
                    if m.group(1) in users and m.group(1) != me:
                        users[m.group(1)].add(me)
    return users


def picked_folders(changed):
    """folder -> None (all its unit executables) or the set of its test sources that changed."""
    known = parts()
    users = users_by_part(known)
    picked = set()
    files = {}
    for path in changed:
        if path.startswith("tests/") and path.count("/") == 2 and path.endswith(".cpp"):
            files.setdefault(path.split("/")[1], set()).add(path.split("/")[2])
        elif path.startswith("tests/support/"):  # helpers every folder's tests may use
            picked |= set(os.listdir("tests"))
        elif path.startswith("tests/") and path.count("/") >= 2:
            picked.add(path.split("/")[1])
        elif path.startswith(INC + "/"):
            p = part_of(path, known) or "core"  # the umbrella and version.hpp stand below everything, as core
            if p == "core":
                picked |= set(os.listdir("tests"))
            seen, todo = {p}, [p]
            while todo:
                for u in users[todo.pop()]:
                    if u not in seen:
                        seen.add(u)
                        todo.append(u)
            picked |= seen
    out = {f: None for f in picked}
    for f, names in files.items():
        if f not in out:
            out[f] = names
    return out


def unit_targets(folder, sources=None, unit_only=True):
    cm = os.path.join("tests", folder, "CMakeLists.txt")
    if not os.path.isfile(cm):
        return []
    with open(cm, encoding="utf-8") as fh:
        text = fh.read()
    out = []
    for m in re.finditer(r"agentkit_add_gtest\(\s*(\w+)(.*?)\)\s*\n", text, re.S):
        labels = re.search(r"LABELS\s+([^\n]*)", m.group(2))
        srcs = re.search(r"SOURCES\s+([^\n]*)", m.group(2))
        if sources is not None and not (srcs and sources & set(srcs.group(1).split())):
            continue
        if not unit_only or (labels and re.search(r"\bunit\b", labels.group(1))):
            out.append(m.group(1))
    return out


def main():
    changed = [line.strip() for line in sys.stdin if line.strip()]
    for folder, sources in sorted(picked_folders(changed).items()):
        targets = unit_targets(folder, sources)
        if sources is not None and not unit_targets(folder, sources, unit_only=False):
            targets = unit_targets(folder)  # a helper file the sources include: the whole folder
        for t in targets:
            print(f"{folder}:{t}")


if __name__ == "__main__":
    main()
