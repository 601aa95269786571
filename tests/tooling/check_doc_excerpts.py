#!/usr/bin/env python3
"""Every ```cpp block of a markdown file that starts with the line `// from docs/<page>.md` is an
excerpt of that page's program (its first ```cpp block with a main()): its lines must stand
in the program in the same order, one after another (indentation aside). The excerpts in the
README then cannot drift from the program the tests compile and run.

    check_doc_excerpts.py --source-dir DIR README.md [more.md ...]
"""
import argparse
import re
import sys
from pathlib import Path

BLOCK = re.compile(r"```cpp\n(.*?)```", re.S)


def program_of(page: Path) -> list[str]:
    for block in BLOCK.findall(page.read_text(encoding="utf-8")):
        if "int main(" in block:
            return [line.strip() for line in block.splitlines()]
    raise SystemExit(f"{page}: no ```cpp block with a main()")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    root = Path(a.source_dir)
    problems, checked = [], 0
    for name in a.files:
        text = (root / name).read_text(encoding="utf-8")
        for block in BLOCK.findall(text):
            lines = block.splitlines()
            m = re.match(r"\s*// from (docs/[\w./-]+\.md)\s*$", lines[0]) if lines else None
            if not m:
                continue
            checked += 1
            program = program_of(root / m.group(1))
            excerpt = [line.strip() for line in lines[1:] if line.strip()]
            starts = [i for i, line in enumerate(program) if line == excerpt[0]]
            if not any(program[i:i + len(excerpt)] == excerpt for i in starts):
                problems.append(f"{name}: an excerpt of {m.group(1)} is not in its program as it stands: {excerpt[0]!r} ...")
    for p in problems:
        print(p)
    print(f"check_doc_excerpts: {checked} excerpts checked, {len(problems)} not in their programs")
    if checked == 0:
        print("check_doc_excerpts: no excerpt found (expected at least one)")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
