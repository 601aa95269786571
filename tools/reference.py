#!/usr/bin/env python3
"""Build agentkit's API reference with Doxygen (docs/Doxyfile), or check that every public
name has a comment.

    tools/reference.py --output-dir build/docs/reference           HTML in <dir>/html/
    tools/reference.py --output-dir DIR --check                    list undocumented names

Doxygen runs in the source directory with docs/Doxyfile; this script sets OUTPUT_DIRECTORY and
WARN_LOGFILE (<dir>/doxygen-warnings.log) to the output directory and adds the XML output.
A public name without a comment is listed as `file:line: kind name`. Two sources, merged:
  * Doxygen's "... is not documented" warnings;
  * the XML output, for what Doxygen does not warn about: a namespace without a comment, the
    members of such a namespace (Doxygen only checks the members of documented namespaces)
    and a macro in a file without a @file comment.
What counts as public is written at the top of docs/Doxyfile. Exit status: 0 when every
public name has a comment (or, without --check, when the reference was built), 1 when names
lack one (--check) or Doxygen failed, 77 when Doxygen is not installed (ctest: skipped).
Only the Python standard library is used.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SKIPPED = 77
WARNING_RE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): warning: (?P<text>.*) is not documented\.\s*$")
WARNED_MEMBER_RE = re.compile(r"^Member (?P<name>.+?) \((?P<kind>[a-z ]+)\) of (?P<scope_kind>\w+) (?P<scope>\S+)$")
WARNED_COMPOUND_RE = re.compile(r"^Compound (?P<name>\S+)$")
# Member kinds of the XML that count (enumerators, friends and the like do not; see docs/Doxyfile).
MEMBER_KINDS = {"function", "variable", "typedef", "enum", "define"}
KIND_LABELS = {"enumeration": "enum", "define": "macro"}


def is_detail(qualified: str) -> bool:
    """True when a scope of the name is an implementation-only namespace or macro."""
    parts = qualified.split("::")
    return any(p == "detail" or p.endswith("_detail") for p in parts) or qualified.startswith("AGENTKIT_DETAIL_")


def exempt_function(scope: str, signature: str) -> bool:
    """Copy and move constructors and assignments, destructors and deduction guides need no
    comment (docs/Doxyfile)."""
    cls = re.sub(r"<.*", "", scope.rsplit("::", 1)[-1])
    name = signature.split("(", 1)[0].strip()
    if name.startswith("~"):
        return True
    if name in (cls, "operator="):
        copy_or_move = rf"{re.escape(name)}\s*\(\s*(const\s+)?{re.escape(cls)}\s*(<[^()]*>)?\s*&&?\s*\w*\s*\).*"
        if re.fullmatch(copy_or_move, signature):
            return True
    return bool(re.match(rf"^{re.escape(name)}\s*\(.*\)\s*->\s*{re.escape(name)}\b", signature))


def quoted(path: Path) -> str:
    return '"' + str(path).replace("\\", "/") + '"'


def text_of(element: ET.Element | None) -> str:
    return "".join(element.itertext()).strip() if element is not None else ""


def documented(element: ET.Element) -> bool:
    return bool(text_of(element.find("briefdescription")) or text_of(element.find("detaileddescription")))


class Findings:
    def __init__(self, source_dir: Path) -> None:
        self.source_dir = source_dir.resolve()
        self.items: set[tuple[str, int, str]] = set()

    def relative(self, file: str) -> str | None:
        path = Path(file)
        if not path.is_absolute():
            path = self.source_dir / path
        try:
            rel = path.resolve().relative_to(self.source_dir).as_posix()
        except ValueError:
            return None
        if not rel.startswith("include/agentkit/") or "/detail/" in rel or "/browser/impl/" in rel:
            return None
        return rel

    def add(self, file: str, line: int, what: str) -> None:
        rel = self.relative(file)
        if rel is not None:
            self.items.add((rel, line, what))

    def lines(self) -> list[str]:
        return [f"{f}:{line}: {what}" for f, line, what in sorted(self.items)]


def hidden_classes(xml_dir: Path) -> set[str]:
    """Classes nested in a private or protected section (Doxygen still warns about their members)."""
    hidden = set()
    for path in xml_dir.glob("*.xml"):
        if not path.name.startswith(("class", "struct", "union")):
            continue
        cdef = ET.parse(path).getroot().find("compounddef")
        if cdef is not None and cdef.get("prot") in ("private", "protected"):
            hidden.add(text_of(cdef.find("compoundname")))
    return hidden


def in_hidden(qualified: str, hidden: set[str]) -> bool:
    return any(qualified == h or qualified.startswith(h + "::") for h in hidden)


def from_warnings(log: Path, findings: Findings, hidden: set[str]) -> None:
    for raw in log.read_text(encoding="utf-8", errors="replace").splitlines():
        m = WARNING_RE.match(raw)
        if not m:
            continue
        text = m.group("text")
        if mm := WARNED_MEMBER_RE.match(text):
            if mm.group("kind") in ("enumvalue", "friend") or is_detail(mm.group("scope")):
                continue
            if in_hidden(mm.group("scope"), hidden):
                continue
            name, kind = mm.group("name"), mm.group("kind")
            if kind == "function" and exempt_function(mm.group("scope"), name):
                continue
            short = name.split("(", 1)[0] if kind == "function" else name
            what = f"{KIND_LABELS.get(kind, kind)} {mm.group('scope')}::{short}"
        elif mc := WARNED_COMPOUND_RE.match(text):
            if is_detail(mc.group("name")) or in_hidden(mc.group("name"), hidden):
                continue
            what = f"class {mc.group('name')}"
        else:
            what = text
        findings.add(m.group("file"), int(m.group("line")), what)


def from_xml(xml_dir: Path, findings: Findings) -> None:
    index = ET.parse(xml_dir / "index.xml").getroot()
    for compound in index.findall("compound"):
        kind = compound.get("kind")
        if kind not in ("namespace", "file", "concept"):
            continue  # classes: Doxygen warns about them and their members
        path = xml_dir / f"{compound.get('refid')}.xml"
        if not path.exists():
            continue
        cdef = ET.parse(path).getroot().find("compounddef")
        if cdef is None:
            continue
        name = text_of(cdef.find("compoundname"))
        if kind != "file" and (not name.startswith("agentkit") or is_detail(name)):
            continue
        loc = cdef.find("location")
        ns_documented = kind != "namespace" or documented(cdef)
        if loc is not None and not documented(cdef) and kind in ("namespace", "concept"):
            findings.add(loc.get("file", ""), int(loc.get("line", "0")), f"{kind} {name}")
        for member in cdef.iter("memberdef"):
            mkind = member.get("kind")
            if mkind not in MEMBER_KINDS or member.get("prot") != "public":
                continue
            if kind == "file" and mkind != "define":
                continue  # namespace members are checked in their namespace
            if kind == "namespace" and ns_documented:
                continue  # Doxygen warns about the members of a documented namespace
            mname = text_of(member.find("name"))
            if is_detail(mname) or documented(member):
                continue
            if mkind == "function" and exempt_function(name, mname + text_of(member.find("argsstring"))):
                continue
            mloc = member.find("location")
            if mloc is None:
                continue
            label = KIND_LABELS.get(mkind, mkind)
            scope = f"{name}::" if kind == "namespace" else ""
            findings.add(mloc.get("file", ""), int(mloc.get("line", "0")), f"{label} {scope}{mname}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source-dir", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--output-dir", type=Path, required=True)
    ap.add_argument("--doxygen", help="the doxygen program (default: doxygen on PATH)")
    ap.add_argument("--check", action="store_true", help="fail listing every public name without a comment")
    a = ap.parse_args()

    doxygen = a.doxygen if a.doxygen and Path(a.doxygen).exists() else shutil.which("doxygen")
    if not doxygen:
        print("reference: doxygen is not installed (tools/setup-debian.sh installs it); skipped")
        return SKIPPED if a.check else 1

    source_dir = a.source_dir.resolve()
    out = a.output_dir.resolve()
    out.mkdir(parents=True, exist_ok=True)
    log = out / "doxygen-warnings.log"
    xml_dir = out / "xml"
    for stale in (log, xml_dir):
        if stale.is_dir():
            shutil.rmtree(stale)
        elif stale.exists():
            stale.unlink()
    config = (source_dir / "docs" / "Doxyfile").read_text(encoding="utf-8")
    config += "\n# tools/reference.py\n"
    config += f"OUTPUT_DIRECTORY = {quoted(out)}\nWARN_LOGFILE = {quoted(log)}\n"
    config += "GENERATE_XML = YES\nXML_OUTPUT = xml\nXML_PROGRAMLISTING = NO\n"
    if a.check:
        config += "GENERATE_HTML = NO\n"
    run = subprocess.run([doxygen, "-"], input=config, text=True, cwd=source_dir,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if run.returncode != 0 or not (xml_dir / "index.xml").exists():
        print(run.stdout)
        print(f"reference: doxygen failed (exit status {run.returncode})")
        return 1

    findings = Findings(source_dir)
    from_warnings(log, findings, hidden_classes(xml_dir))
    from_xml(xml_dir, findings)
    lines = findings.lines()
    if not a.check:
        print(f"reference: {out / 'html' / 'index.html'} ({len(lines)} public names without a comment; "
              "ctest -R reference_complete lists them)")
        return 0
    for line in lines:
        print(line)
    files = len({line.split(":", 1)[0] for line in lines})
    if lines:
        print(f"reference_complete: {len(lines)} public names in {files} headers have no comment "
              "(a `///` line before the name, or `///<` after it; the rule: docs/Doxyfile)")
        return 1
    print("reference_complete: every public name has a comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
