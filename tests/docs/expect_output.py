#!/usr/bin/env python3
"""Runs the program of a guide page and checks that it prints what the page says it prints.

    expect_output.py [--needs-chromium] [--timeout S] [--section HEADING] PAGE PROGRAM [ARGS...]

The expected output is the page's first ```text block after its program (the ```cpp block
that defines main()). Every line of that block must be found in the program's standard output,
in order (lines the block leaves out may come between). A line matches an output line when it is
equal to it, except that "…" in the expected line stands for any text (session ids, timings,
nonces); a line that is only "…" expects nothing (it marks lines the page leaves out). The
program must exit with status 0.

--section HEADING: the program and output block of that section (the first after the line HEADING)
instead of the page's first.

--needs-chromium: exit 77 (skipped) when there is no Chromium to launch ($AGENTKIT_CHROMIUM, else
/usr/lib/chromium/chromium, as agentkit itself looks for it).
"""
import os
import re
import subprocess
import sys

ELLIPSIS = "\u2026"


def expected_lines(page: str, section: str = "") -> list[str]:
    text = open(page, encoding="utf-8").read()
    if section:
        at = text.find("\n" + section + "\n")
        if at < 0:
            sys.exit(f"{page}: no line {section!r}")
        text = text[at + 1:]
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)
    seen_program = False
    for lang, body in blocks:
        if lang == "cpp" and "int main(" in body:
            seen_program = True
        elif seen_program and lang == "text":
            return [line.rstrip() for line in body.splitlines() if line.strip() and line.strip() != ELLIPSIS]
    sys.exit(f"{page}: no ```text block after the program")


def matches(pattern: str, line: str) -> bool:
    parts = pattern.split(ELLIPSIS)
    if len(parts) == 1:
        return line == pattern
    if not line.startswith(parts[0]):
        return False
    pos = len(parts[0])
    for middle in parts[1:-1]:
        at = line.find(middle, pos)
        if at < 0:
            return False
        pos = at + len(middle)
    return len(line) - pos >= len(parts[-1]) and line.endswith(parts[-1])


def main() -> int:
    args = sys.argv[1:]
    needs_chromium = False
    timeout = 120.0
    section = ""
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--needs-chromium":
            needs_chromium = True
        elif opt == "--timeout":
            timeout = float(args.pop(0))
        elif opt == "--section":
            section = args.pop(0)
        else:
            sys.exit(f"unknown option {opt}\n{__doc__}")
    if len(args) < 2:
        sys.exit(__doc__)
    page, program = args[0], args[1:]
    if needs_chromium:
        chromium = os.environ.get("AGENTKIT_CHROMIUM") or "/usr/lib/chromium/chromium"
        if not os.access(chromium, os.X_OK):
            print(f"no Chromium at {chromium}: skipped")
            return 77
    want = expected_lines(page, section)
    run = subprocess.run(program, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                         stdin=subprocess.DEVNULL)
    out = run.stdout.decode("utf-8", errors="replace")
    got = [line.rstrip() for line in out.splitlines()]
    at = 0
    for pattern in want:
        while at < len(got) and not matches(pattern, got[at]):
            at += 1
        if at == len(got):
            print(out)
            sys.stderr.write(run.stderr.decode("utf-8", errors="replace"))
            print(f"FAILED: {page} says the program prints\n  {pattern}\nbut it does not (in this order).")
            return 1
        at += 1
    if run.returncode != 0:
        print(out)
        sys.stderr.write(run.stderr.decode("utf-8", errors="replace"))
        print(f"FAILED: the program exited with status {run.returncode}")
        return 1
    print(f"{page}: the program printed all {len(want)} of the lines the page shows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
