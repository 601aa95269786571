"""Tests of tools/include_rules.py, run by ctest (include_rules_selftest).

Each test writes a small repository of its own: a CONTRIBUTING.md with the rules table and the
layout, a README.md with its layout, a few parts under include/agentkit/ and one program under
apps/; then it changes one thing and runs the script on it.
"""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("AGENTKIT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCRIPT = SOURCE / "tools" / "include_rules.py"

CONTRIBUTING = """# Contributing

## The layout

```
include/agentkit/
  core/               basics
  net/                transports
  mcp/                protocol
    server/           the server
apps/                 agentkit-thing
```

## The rooms and what each may include

| folder | may include | optional libraries |
|---|---|---|
| `core/` | | |
| `net/` | `core/` | `httplib.h` |
| `mcp/` | `core/` | |
| `mcp/server/` | `core/`, `mcp/`, `net/` | |

## Next
"""

README = """# Readme

## Layout

```
include/agentkit/   the library
apps/               agentkit-thing
```
"""

HEADERS = {
    "core/json.hpp": "#pragma once\n#include <string>\n",
    "net/http.hpp": "#pragma once\n#include <agentkit/core/json.hpp>\n#include <httplib.h>\n",
    "mcp/protocol.hpp": "#pragma once\n#include <agentkit/core/json.hpp>\n#include <agentkit/version.hpp>\n",
    "mcp/server/server.hpp": "#pragma once\n#include <agentkit/mcp/protocol.hpp>\n#include <agentkit/net/http.hpp>\n",
    "agentkit.hpp": "#pragma once\n#include <agentkit/mcp/server/server.hpp>\n",
    "version.hpp": "#pragma once\n",
}


class IncludeRules(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.write("CONTRIBUTING.md", CONTRIBUTING)
        self.write("README.md", README)
        for path, text in HEADERS.items():
            self.write(f"include/agentkit/{path}", text)
        self.write("apps/thing/CMakeLists.txt", "add_executable(agentkit-thing main.cpp)\n")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")

    def run_check(self):
        r = subprocess.run([sys.executable, "-B", str(SCRIPT), "--source-dir", str(self.root)],
                           capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout + r.stderr

    def test_a_tree_that_keeps_the_rules_passes(self):
        code, out = self.run_check()
        self.assertEqual(code, 0, out)
        self.assertIn("4 rooms", out)

    def test_an_include_of_a_room_not_in_the_row_is_named_with_its_line(self):
        self.write("include/agentkit/net/http.hpp",
                   "#pragma once\n#include <agentkit/core/json.hpp>\n#include <agentkit/mcp/protocol.hpp>\n")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("include/agentkit/net/http.hpp:3: <agentkit/mcp/protocol.hpp> (mcp/)", out)
        self.assertIn("`net/` may include core/", out)

    def test_the_most_specific_row_decides(self):
        # mcp/server/ may include net/; mcp/ may not.
        self.write("include/agentkit/mcp/protocol.hpp",
                   "#pragma once\n#include <agentkit/net/http.hpp>\n")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("include/agentkit/mcp/protocol.hpp:2:", out)
        self.assertNotIn("mcp/server/server.hpp", out)

    def test_an_optional_library_is_allowed_only_where_its_row_names_it(self):
        self.write("include/agentkit/core/json.hpp", "#pragma once\n#include <httplib.h>\n")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("include/agentkit/core/json.hpp:2: <httplib.h> is the optional library", out)

    def test_an_entry_point_inside_a_room_is_refused(self):
        self.write("include/agentkit/mcp/protocol.hpp", "#pragma once\n#include <agentkit/agentkit.hpp>\n")
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("is an entry point", out)

    def test_a_deprecated_forwarding_header_may_point_anywhere(self):
        self.write("include/agentkit/core/old.hpp",
                   "// agentkit/core/old.hpp — deprecated: moved to <agentkit/mcp/server/server.hpp>.\n"
                   "#pragma once\n#include <agentkit/mcp/server/server.hpp>\n")
        code, out = self.run_check()
        self.assertEqual(code, 0, out)

    def test_a_folder_without_a_row_and_a_row_without_a_folder_are_named(self):
        self.write("include/agentkit/extra/thing.hpp", "#pragma once\n")
        (self.root / "include/agentkit/mcp/server/server.hpp").unlink()
        (self.root / "include/agentkit/mcp/server").rmdir()
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("include/agentkit/extra/: no row", out)
        self.assertIn("the table names `mcp/server/`, which is not a folder", out)

    def test_the_layouts_must_draw_every_room_program_and_top_folder(self):
        self.write("CONTRIBUTING.md", CONTRIBUTING.replace("    server/           the server\n", ""))
        self.write("apps/other/CMakeLists.txt", "add_executable(agentkit-other main.cpp)\n")
        (self.root / "bench").mkdir()
        code, out = self.run_check()
        self.assertEqual(code, 1, out)
        self.assertIn("the layout does not draw `mcp/server/`", out)
        self.assertIn("CONTRIBUTING.md: the layout does not name the program agentkit-other", out)
        self.assertIn("README.md: the layout does not name the program agentkit-other", out)
        self.assertIn("README.md: the layout does not name the folder bench/", out)

    def test_a_table_that_cannot_be_read_is_exit_2(self):
        self.write("CONTRIBUTING.md", CONTRIBUTING.replace("| `mcp/` | `core/` | |", "| `mcp/` | `nowhere/` | |"))
        code, out = self.run_check()
        self.assertEqual(code, 2, out)
        self.assertIn("`mcp/` may include `nowhere/`, which has no row", out)
        self.write("CONTRIBUTING.md", "# nothing here\n")
        code, out = self.run_check()
        self.assertEqual(code, 2, out)


if __name__ == "__main__":
    unittest.main()
