"""Tests of the fast loop's choice (tools/quick.sh and tools/quick_pick.py), run by ctest (quick_selftest).

Each test lays out a small repository of its own in a temporary folder: a few parts under
include/agentkit/ that include each other (core <- tools <- browser, tools <- mcp, and net, which
includes mcp), their test folders with agentkit_add_gtest() declarations (unit and e2e), and a
copy of the two scripts under tools/. It is a git repository with one commit; each test changes
files and asks `tools/quick.sh --list` (nothing is built) or quick_pick.py directly.
"""

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("AGENTKIT_SOURCE_DIR", Path(__file__).resolve().parents[2]))

HEADERS = {
    "core/json.hpp": "",
    "tools/tool.hpp": "#include <agentkit/core/json.hpp>\n",
    "browser/browser.hpp": "#include <agentkit/tools/tool.hpp>\n",
    "mcp/server/server.hpp": "#include <agentkit/tools/tool.hpp>\n",
    "net/http.hpp": "#include <agentkit/mcp/server/server.hpp>\n",
    "agentkit.hpp": "#include <agentkit/browser/browser.hpp>\n",
}
TESTS = {
    "core": "agentkit_add_gtest(agentkit_tests_core\n    SOURCES json_test.cpp\n    LABELS unit)\n",
    "tools": "agentkit_add_gtest(agentkit_tests_tools\n    SOURCES tool_test.cpp\n    LABELS unit\n    RELEASE_TWIN)\n",
    "browser": (
        "agentkit_add_gtest(agentkit_tests_browser\n    SOURCES snapshot_test.cpp\n    LABELS unit)\n\n"
        "agentkit_add_gtest(agentkit_tests_browser_engine\n    SOURCES engine_test.cpp config_test.cpp\n    LABELS unit)\n\n"
        "agentkit_add_gtest(agentkit_tests_browser_e2e\n    SOURCES browser_e2e_test.cpp\n    LABELS e2e\n    TIMEOUT 300)\n"
    ),
    "mcp": "agentkit_add_gtest(agentkit_tests_mcp\n    SOURCES server_test.cpp\n    LABELS unit)\n",
    "net": "agentkit_add_gtest(agentkit_tests_net\n    SOURCES http_test.cpp\n    LABELS unit)\n",
    "docs": "add_test(NAME docs.x COMMAND true)\n",
}


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


class QuickPick(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="agentkit-quick-"))
        for rel, text in HEADERS.items():
            p = self.root / "include" / "agentkit" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("#pragma once\n" + text)
        for folder, text in TESTS.items():
            d = self.root / "tests" / folder
            d.mkdir(parents=True)
            (d / "CMakeLists.txt").write_text(text)
        (self.root / "tests" / "support").mkdir()
        (self.root / "tests" / "support" / "helpers.hpp").write_text("#pragma once\n")
        (self.root / "tools").mkdir()
        for script in ("quick.sh", "quick_pick.py"):
            shutil.copy(SOURCE / "tools" / script, self.root / "tools" / script)
        (self.root / "docs").mkdir()
        (self.root / "docs" / "guide.md").write_text("guide\n")
        git(self.root, "init", "-q")
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", "start")

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def pick(self, *changed):
        r = subprocess.run(["python3", "tools/quick_pick.py"], cwd=self.root, input="\n".join(changed) + "\n",
                           capture_output=True, text=True, check=True)
        return sorted(line.split(":")[1] for line in r.stdout.split())

    def quick(self, *args):
        return subprocess.run(["bash", "tools/quick.sh", *args], cwd=self.root, capture_output=True, text=True)

    def test_a_header_picks_its_part_and_every_part_above_it(self):
        self.assertEqual(self.pick("include/agentkit/tools/tool.hpp"),
                         ["agentkit_tests_browser", "agentkit_tests_browser_engine", "agentkit_tests_mcp", "agentkit_tests_net",
                          "agentkit_tests_tools"])
        self.assertEqual(self.pick("include/agentkit/mcp/server/server.hpp"), ["agentkit_tests_mcp", "agentkit_tests_net"])
        self.assertEqual(self.pick("include/agentkit/net/http.hpp"), ["agentkit_tests_net"])

    def test_core_and_the_umbrella_pick_every_unit_test_and_never_an_e2e_one(self):
        every = ["agentkit_tests_browser", "agentkit_tests_browser_engine", "agentkit_tests_core", "agentkit_tests_mcp",
                 "agentkit_tests_net", "agentkit_tests_tools"]
        self.assertEqual(self.pick("include/agentkit/core/json.hpp"), every)
        self.assertEqual(self.pick("include/agentkit/agentkit.hpp"), every)

    def test_a_test_source_picks_the_executable_built_from_it(self):
        self.assertEqual(self.pick("tests/browser/config_test.cpp"), ["agentkit_tests_browser_engine"])
        self.assertEqual(self.pick("tests/browser/browser_e2e_test.cpp"), [])  # e2e: not the fast loop's
        # a file no executable lists (a fixture, a helper): the folder's unit tests
        self.assertEqual(self.pick("tests/browser/fixtures/page.json"), ["agentkit_tests_browser", "agentkit_tests_browser_engine"])
        self.assertIn("agentkit_tests_core", self.pick("tests/support/helpers.hpp"))

    def test_files_outside_include_and_tests_pick_nothing(self):
        self.assertEqual(self.pick("docs/guide.md", "bench/x.mjs", "CMakeLists.txt"), [])

    def test_quick_lists_the_uncommitted_change_and_new_files(self):
        (self.root / "include" / "agentkit" / "mcp" / "server.hpp").write_text("#pragma once\n// changed\n")
        r = self.quick("--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 test executables for 1 changed files", r.stdout)
        self.assertIn("agentkit_tests_mcp", r.stdout)
        self.assertNotIn("agentkit_tests_tools", r.stdout)
        (self.root / "tests" / "core" / "extra_test.cpp").write_text("// new, untracked\n")
        r = self.quick("--list")
        self.assertIn("for 2 changed files", r.stdout)
        self.assertIn("agentkit_tests_core", r.stdout)  # not a source of any executable yet: its folder

    def test_quick_with_a_base_takes_the_commits_since_it(self):
        (self.root / "include" / "agentkit" / "net" / "http.hpp").write_text("#pragma once\n// changed\n")
        git(self.root, "commit", "-qam", "net")
        self.assertIn("nothing changed", self.quick("--list").stdout)
        r = self.quick("--base", "HEAD~1", "--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("agentkit_tests_net", r.stdout)
        self.assertNotIn("agentkit_tests_mcp", r.stdout)

    def test_a_change_no_unit_test_covers_says_so(self):
        (self.root / "docs" / "guide.md").write_text("changed\n")
        r = self.quick("--list")
        self.assertEqual(r.returncode, 0)
        self.assertIn("touches no unit-tested part", r.stdout)

    def test_bad_arguments_are_refused_with_a_reason(self):
        r = self.quick("--base", "no-such-revision")
        self.assertEqual(r.returncode, 2)
        self.assertIn("'no-such-revision' is not a revision", r.stderr)
        r = self.quick("--frobnicate")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown argument --frobnicate", r.stderr)
        r = self.quick("--base")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--base needs a revision", r.stderr)


if __name__ == "__main__":
    unittest.main()
