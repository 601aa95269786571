"""Unit tests of tools/metatool_to_beir.py, run by ctest (metatool_to_beir_selftest).

The input is a small synthetic dataset in MetaTool's layout, committed under
data/metatool/ (plugin_des.json: tool -> description; all_clean_data.csv: Query,Tool rows,
with a duplicated text, a text labelled with two tools, padding, CSV quoting, non-ASCII, an
unknown tool and an empty query; multi_tool_query_golden.json: two-tool queries, one with
only unknown tools and one with one unknown tool). The script runs as a subprocess into a
temporary directory, the way it is run by hand. The expected split is derived here from the
procedure documented in the script, not copied from its output.

When AGENTKIT_ROUTE_EVAL names the built agentkit-route-eval, the converted output is also
fed to it, cold and with --examples (the converter and the evaluator must agree on the layout).
"""

import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("AGENTKIT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCRIPT = SOURCE_DIR / "tools" / "metatool_to_beir.py"
SRC = Path(__file__).resolve().parent / "data" / "metatool"
ROUTE_EVAL = os.environ.get("AGENTKIT_ROUTE_EVAL", "")
DEFAULT_SEED = 20250601
OUTPUTS = ["corpus.jsonl", "queries.jsonl", "qrels/train.tsv", "qrels/test.tsv", "qrels/test_multi.tsv",
           "qrels/test_all.tsv", "split.json"]
MASK64 = (1 << 64) - 1


def reference_split(seed, share):
    """The split as the script's docstring describes it, from the raw input: merge identical
    texts, group by first tool, per tool (sorted) shuffle with the MMIX LCG (seed ^ 0x5DEECE66D,
    output state >> 11, Fisher-Yates from the end) and send the first ceil(share * n), at least
    one and never all, to test. Returns (texts in first-appearance order, text -> gold, test set)."""
    tools = json.loads((SRC / "plugin_des.json").read_text(encoding="utf-8"))
    gold, order = {}, []
    with open(SRC / "all_clean_data.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            text, tool = row["Query"].strip(), row["Tool"].strip()
            if text and tool in tools:
                if text not in gold:
                    gold[text] = []
                    order.append(text)
                if tool not in gold[text]:
                    gold[text].append(tool)
    state = (seed ^ 0x5DEECE66D) & MASK64

    def below(n):
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK64
        return (state >> 11) % n

    groups = {}
    for text in order:
        groups.setdefault(gold[text][0], []).append(text)
    test = set()
    for tool in sorted(groups):
        texts = groups[tool]
        for i in range(len(texts) - 1, 0, -1):
            j = below(i + 1)
            texts[i], texts[j] = texts[j], texts[i]
        test.update(texts[:min(len(texts) - 1, max(1, math.ceil(share * len(texts))))])
    return order, gold, test


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def read_qrels(path):
    """(query-id, corpus-id) pairs in file order; checks the header row and the score column."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines and lines[0] == "query-id\tcorpus-id\tscore", f"{path}: bad header {lines[:1]}"
    rows = []
    for line in lines[1:]:
        parts = line.split("\t")
        assert len(parts) == 3 and parts[2] == "1", f"{path}: bad row {line!r}"
        rows.append((parts[0], parts[1]))
    return rows


def by_query(rows):
    out = {}
    for q, d in rows:
        out.setdefault(q, []).append(d)
    return out


class MetatoolToBeirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def convert(self, name, *args, env=None):
        out = self.tmp / name
        proc = subprocess.run([sys.executable, "-B", str(SCRIPT), "--src", str(SRC), "--out", str(out), *args],
                              capture_output=True, text=True, check=False, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return out, proc

    def test_output_files_and_corpus(self):
        out, proc = self.convert("beir")
        for rel in OUTPUTS:
            self.assertTrue((out / rel).is_file(), f"missing {rel}")
        tools = json.loads((SRC / "plugin_des.json").read_text(encoding="utf-8"))
        corpus = read_jsonl(out / "corpus.jsonl")
        # One line per tool, in the source order, with exactly the BEIR fields.
        self.assertEqual(corpus, [{"_id": n, "title": n, "text": d} for n, d in tools.items()])
        self.assertIn("résumés", (out / "corpus.jsonl").read_text(encoding="utf-8"))  # not \u-escaped
        # split.json holds the parameters and the counts; stdout repeats it as one JSON line.
        info = json.loads((out / "split.json").read_text(encoding="utf-8"))
        self.assertEqual(json.loads(proc.stdout), info)
        self.assertEqual((info["seed"], info["test_share"], info["tools"]), (DEFAULT_SEED, 0.2, len(tools)))
        self.assertEqual(info["train"], len(by_query(read_qrels(out / "qrels/train.tsv"))))
        self.assertEqual(info["test"], len(by_query(read_qrels(out / "qrels/test.tsv"))))
        self.assertEqual(info["multi_queries"], len(by_query(read_qrels(out / "qrels/test_multi.tsv"))))
        self.assertEqual(info["single_queries"], info["train"] + info["test"])

    def test_single_tool_queries_and_split(self):
        out, _ = self.convert("beir")
        order, gold, test_texts = reference_split(DEFAULT_SEED, 0.2)
        # The fixture's shape: 27 rows, minus a duplicate, an unknown tool and an empty query;
        # the text labelled with two tools is one query.
        self.assertEqual(len(order), 23)
        queries = read_jsonl(out / "queries.jsonl")
        singles = [q for q in queries if q["_id"].startswith("s")]
        # s<n> in first-appearance order, texts stripped and merged (no duplicate text).
        self.assertEqual(singles, [{"_id": "s%d" % i, "text": t} for i, t in enumerate(order)])
        self.assertIn({"_id": "s5", "text": "Is it going to snow in Denver?"}, singles)
        self.assertNotIn("Book me a table for two.", [q["text"] for q in queries])
        text_of = {q["_id"]: q["text"] for q in singles}

        train = by_query(read_qrels(out / "qrels/train.tsv"))
        test = by_query(read_qrels(out / "qrels/test.tsv"))
        # Disjoint, together every single-tool query, each with all of its gold tools.
        self.assertFalse(set(train) & set(test))
        self.assertFalse({text_of[q] for q in train} & {text_of[q] for q in test})
        self.assertEqual(set(train) | set(test), set(text_of))
        for q, tools in {**train, **test}.items():
            self.assertEqual(tools, gold[text_of[q]], q)
        self.assertEqual(test["s17"] if "s17" in test else train["s17"], ["NewsTool", "FinanceTool"])
        # The split is the documented one.
        self.assertEqual({text_of[q] for q in test}, test_texts)
        # Rows in query-id order.
        for rows in (train, test):
            self.assertEqual(list(rows), sorted(rows, key=lambda q: int(q[1:])))
        # Per first tool: ceil(20%) to test, at least one, never all (a one-query tool: train only).
        per_tool = {}
        for q in list(train) + list(test):
            first = gold[text_of[q]][0]
            per_tool.setdefault(first, [0, 0])[0 if q in train else 1] += 1
        self.assertEqual(per_tool, {"WeatherTool": [8, 2], "FinanceTool": [4, 2], "NewsTool": [3, 1],
                                    "PDFTool": [1, 1], "LoneTool": [1, 0]})

    def test_multi_tool_queries_are_separate(self):
        out, _ = self.convert("beir")
        queries = {q["_id"]: q["text"] for q in read_jsonl(out / "queries.jsonl")}
        multi = by_query(read_qrels(out / "qrels/test_multi.tsv"))
        # m<i> keeps the index in the source file; a query with no known tool is dropped, an
        # unknown tool is dropped from the gold set.
        self.assertEqual(multi, {"m0": ["FinanceTool", "NewsTool"], "m1": ["WeatherTool", "NewsTool"],
                                 "m3": ["PDFTool"]})
        self.assertNotIn("m2", queries)
        self.assertEqual(queries["m1"], "Weather in Rome and the latest headlines")
        # Single-tool qrels hold only s-queries, the multi qrels only m-queries.
        for rel in ("qrels/train.tsv", "qrels/test.tsv"):
            self.assertTrue(all(q.startswith("s") for q, _ in read_qrels(out / rel)), rel)
        self.assertTrue(all(q.startswith("m") for q in multi))
        # test_all is test followed by test_multi, row for row.
        self.assertEqual(read_qrels(out / "qrels/test_all.tsv"),
                         read_qrels(out / "qrels/test.tsv") + read_qrels(out / "qrels/test_multi.tsv"))
        # Every qrels row names a query with a text and a tool of the corpus.
        ids = {c["_id"] for c in read_jsonl(out / "corpus.jsonl")}
        for rel in ("qrels/train.tsv", "qrels/test_all.tsv"):
            for q, d in read_qrels(out / rel):
                self.assertIn(q, queries)
                self.assertIn(d, ids)
        self.assertEqual(len(queries), len(set(queries)))

    def test_split_is_deterministic(self):
        # Same seed, different hash seeds (nothing may depend on set or hash order): identical bytes.
        env = dict(os.environ)
        runs = []
        for i, hashseed in enumerate(("0", "4242")):
            env["PYTHONHASHSEED"] = hashseed
            runs.append(self.convert("same%d" % i, "--seed", str(DEFAULT_SEED), env=env)[0])
        for rel in OUTPUTS:
            if rel != "split.json":  # it records the output-independent source path: compare below
                self.assertEqual((runs[0] / rel).read_bytes(), (runs[1] / rel).read_bytes(), rel)
        self.assertEqual(json.loads((runs[0] / "split.json").read_text()), json.loads((runs[1] / "split.json").read_text()))
        # The default seed is the documented one.
        default, _ = self.convert("default")
        self.assertEqual((default / "qrels/test.tsv").read_bytes(), (runs[0] / "qrels/test.tsv").read_bytes())
        # Another seed: the same sizes per tool, another split, matching the documented procedure.
        other, _ = self.convert("other", "--seed", "7")
        self.assertNotEqual((other / "qrels/test.tsv").read_bytes(), (runs[0] / "qrels/test.tsv").read_bytes())
        order, _, test_texts = reference_split(7, 0.2)
        text_of = {q["_id"]: q["text"] for q in read_jsonl(other / "queries.jsonl")}
        test = by_query(read_qrels(other / "qrels/test.tsv"))
        self.assertEqual({text_of[q] for q in test}, test_texts)
        self.assertEqual(len(test), len(by_query(read_qrels(runs[0] / "qrels/test.tsv"))))
        # The multi-tool queries do not depend on the seed.
        self.assertEqual((other / "qrels/test_multi.tsv").read_bytes(), (runs[0] / "qrels/test_multi.tsv").read_bytes())

    def test_test_share(self):
        out, _ = self.convert("half", "--test-share", "0.5")
        order, _, test_texts = reference_split(DEFAULT_SEED, 0.5)
        text_of = {q["_id"]: q["text"] for q in read_jsonl(out / "queries.jsonl")}
        test = by_query(read_qrels(out / "qrels/test.tsv"))
        self.assertEqual({text_of[q] for q in test}, test_texts)
        # Weather 5 of 10, Finance 3 of 6, News 2 of 4, PDF 1 of 2, Lone 0 of 1.
        self.assertEqual(len(test), 11)
        self.assertEqual(json.loads((out / "split.json").read_text())["test_share"], 0.5)

    def test_missing_source_fails(self):
        proc = subprocess.run([sys.executable, "-B", str(SCRIPT), "--src", str(self.tmp / "nowhere"),
                               "--out", str(self.tmp / "out")], capture_output=True, text=True, check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("plugin_des.json", proc.stderr)
        self.assertFalse((self.tmp / "out" / "corpus.jsonl").exists())

    @unittest.skipUnless(ROUTE_EVAL, "AGENTKIT_ROUTE_EVAL is not set (examples not built)")
    def test_route_eval_reads_the_output(self):
        out, _ = self.convert("beir")
        train_rows = read_qrels(out / "qrels/train.tsv")
        for qrels, examples, queries in (("test.tsv", None, 6), ("test_multi.tsv", "train.tsv", 3)):
            cmd = [ROUTE_EVAL, "--corpus", str(out / "corpus.jsonl"), "--queries", str(out / "queries.jsonl"),
                   "--qrels", str(out / "qrels" / qrels)]
            if examples:
                cmd += ["--examples", str(out / "qrels" / examples)]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(proc.stderr, "")
            first = proc.stdout.splitlines()[0]
            self.assertEqual(first, "tools 5 | queries %d | usage examples %d | lexical"
                             % (queries, len(train_rows) if examples else 0))


if __name__ == "__main__":
    unittest.main()
