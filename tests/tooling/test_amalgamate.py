"""Unit tests of tools/amalgamate.py, run by ctest (amalgamate_selftest).

Each test writes a small header tree into a temporary directory and runs the script on it
as a subprocess, the way CI and developers run it.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("AGENTKIT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCRIPT = SOURCE_DIR / "tools" / "amalgamate.py"

CONFIG = {
    "root": "include/lib/lib.hpp",
    "output": "single_include/lib/lib.hpp",
    "include_dirs": ["include"],
    "inline_prefixes": ["lib/"],
    "version_header": "include/lib/version.hpp",
    "public_headers": {"dir": "include", "patterns": ["lib/**/*.hpp"], "exclude": ["lib/private/*"]},
    "defines": ["LIB_SINGLE_HEADER 1"],
    "banner": ["lib v{version}", "GENERATED FILE"],
}


class AmalgamateTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name)
        self.write("tools/amalgamate.json", json.dumps(CONFIG))
        self.write("include/lib/version.hpp", """\
            #pragma once
            #define AGENTKIT_VERSION_MAJOR 1
            #define AGENTKIT_VERSION_MINOR 2
            #define AGENTKIT_VERSION_PATCH 3
            """)

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, rel, text):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")

    def run_script(self, *args):
        return subprocess.run([sys.executable, "-B", str(SCRIPT), "--root-dir", str(self.root), *args],
                              capture_output=True, text=True, check=False)

    def output(self):
        return (self.root / CONFIG["output"]).read_text(encoding="utf-8")

    def diamond(self):
        self.write("include/lib/lib.hpp", """\
            // umbrella
            #pragma once
            #include <lib/a.hpp>
            #include <lib/b.hpp>
            #include <lib/version.hpp>
            """)
        self.write("include/lib/a.hpp", """\
            #pragma once
            #include <lib/detail/common.hpp>
            #include <vector>
            inline int a() { return common() + 1; }
            """)
        self.write("include/lib/b.hpp", """\
            #pragma once
            #include "detail/common.hpp"
            #include <string>
            inline int b() { return common() + 2; }
            """)
        self.write("include/lib/detail/common.hpp", """\
            #pragma once
            #include <lib/a.hpp>  // a cycle: pragma once makes it a no-op
            inline int common() { return 40; }
            """)

    def test_inlines_every_header_exactly_once_and_keeps_other_includes(self):
        self.diamond()
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        text = self.output()
        self.assertEqual(text.count("inline int common()"), 1)
        self.assertEqual(text.count("inline int a()"), 1)
        self.assertEqual(text.count("inline int b()"), 1)
        self.assertNotIn("#include <lib/", text)
        self.assertNotIn('#include "detail/', text)
        self.assertIn("#include <vector>", text)
        self.assertIn("#include <string>", text)
        self.assertEqual(text.count("#pragma once"), 1)
        self.assertTrue(text.startswith("// lib v1.2.3\n// GENERATED FILE\n#pragma once\n"))
        self.assertIn("#define LIB_SINGLE_HEADER 1", text)
        # common.hpp is needed by a.hpp, so it is inlined before a's body
        self.assertLess(text.index("inline int common()"), text.index("inline int a()"))

    def test_output_is_deterministic(self):
        self.diamond()
        self.assertEqual(self.run_script().returncode, 0)
        first = self.output()
        (self.root / CONFIG["output"]).unlink()
        self.assertEqual(self.run_script().returncode, 0)
        self.assertEqual(first, self.output())

    def test_check_passes_when_fresh_and_fails_when_stale(self):
        self.diamond()
        self.assertEqual(self.run_script().returncode, 0)
        r = self.run_script("--check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("up to date", r.stdout)
        # change a header without regenerating
        self.write("include/lib/b.hpp", """\
            #pragma once
            inline int b() { return 3; }
            """)
        r = self.run_script("--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("STALE", r.stderr)
        self.assertIn("python3 tools/amalgamate.py", r.stderr)
        self.assertIn("+inline int b() { return 3; }", r.stderr)

    def test_check_fails_when_output_is_missing(self):
        self.diamond()
        r = self.run_script("--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("does not exist", r.stderr)

    def test_check_does_not_write(self):
        self.diamond()
        self.run_script("--check")
        self.assertFalse((self.root / CONFIG["output"]).exists())

    def test_header_without_pragma_once_is_an_error(self):
        self.diamond()
        self.write("include/lib/b.hpp", "inline int b() { return 2; }\n")
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("include/lib/b.hpp has no '#pragma once'", r.stderr)

    def test_missing_library_header_is_an_error(self):
        self.diamond()
        self.write("include/lib/b.hpp", "#pragma once\n#include <lib/nope.hpp>\n")
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("<lib/nope.hpp>, which does not exist", r.stderr)

    def test_include_in_block_comment_is_not_inlined(self):
        self.diamond()
        self.write("include/lib/b.hpp", """\
            #pragma once
            /* example:
            #include <lib/nope.hpp>
            */
            inline int b() { return 2; }
            """)
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("#include <lib/nope.hpp>", self.output())

    def test_conditional_first_inclusion_then_unconditional_is_an_error(self):
        self.diamond()
        self.write("include/lib/lib.hpp", """\
            #pragma once
            #ifdef __linux__
            #include <lib/a.hpp>
            #endif
            #include <lib/a.hpp>
            #include <lib/b.hpp>
            #include <lib/version.hpp>
            """)
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("conditional block", r.stderr)

    def test_umbrella_check_lists_unreachable_headers(self):
        self.diamond()
        self.write("include/lib/extra.hpp", "#pragma once\n")
        self.write("include/lib/private/hidden.hpp", "#pragma once\n")  # excluded by config
        r = self.run_script("--check-umbrella")
        self.assertEqual(r.returncode, 1)
        self.assertIn("#include <lib/extra.hpp>", r.stderr)
        self.assertNotIn("hidden.hpp", r.stderr)
        self.write("include/lib/lib.hpp", """\
            #pragma once
            #include <lib/a.hpp>
            #include <lib/b.hpp>
            #include <lib/extra.hpp>
            #include <lib/version.hpp>
            """)
        r = self.run_script("--check-umbrella")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_repository_config_is_valid(self):
        cfg = json.loads((SOURCE_DIR / "tools" / "amalgamate.json").read_text(encoding="utf-8"))
        for key in ("root", "output", "include_dirs", "inline_prefixes", "banner"):
            self.assertIn(key, cfg)
        self.assertEqual(cfg["output"], "single_include/agentkit/agentkit.hpp")


if __name__ == "__main__":
    unittest.main()
