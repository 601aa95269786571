"""Tests of agentkit-route-eval (examples/route_eval), run by ctest (route_eval_cli).

The program runs as a subprocess on the small BEIR fixture in data/route_eval/:
  corpus.jsonl    7 tools; book_flight carries a JSON Schema in metadata.parameters
  queries.jsonl   test queries q1..q7 and training queries t1..t3
  qrels/test.tsv  q1-q4 and q7 with one lexically obvious tool (q7 only through book_flight's
                  argument descriptions), q5 with two gold tools, q6 (stock tickers) sharing no
                  word with any tool, a score-0 row (not relevant) and q9 without a query text
  qrels/train.tsv t1, t2 (ticker requests) -> stock_quote, t3 -> weather_forecast, a row for a
                  tool not in the corpus and one for a query without a text
--baseline adds a line with the naive baseline's Recall@k and the difference in R@5; --scale
prints the cost of a copied catalogue instead of the report.
The printed metrics are recomputed here from the --run file and the qrels (an independent
implementation of Recall@k, NDCG@k and COMP@k) and must agree to the printed precision.

AGENTKIT_ROUTE_EVAL names the program (set by ctest to the built target).
"""

import json
import math
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

ROUTE_EVAL = os.environ.get("AGENTKIT_ROUTE_EVAL", "")
DATA = Path(__file__).resolve().parent / "data" / "route_eval"
CORPUS, QUERIES = DATA / "corpus.jsonl", DATA / "queries.jsonl"
TEST, TRAIN = DATA / "qrels" / "test.tsv", DATA / "qrels" / "train.tsv"
KS = (1, 3, 5, 10)
TOOLS = [json.loads(line)["_id"] for line in CORPUS.read_text(encoding="utf-8").splitlines()]

HEADER = re.compile(r"tools (\d+) \| queries (\d+)(?: \((\d+) without text skipped\))? \| usage examples (\d+) \| "
                    r"(lexical|hybrid(?: \((weighted|rrf), dense weight (\d\.\d\d), dim (\d+)\))?)")
COLUMNS = "metric         @1       @3       @5      @10"
ROW = re.compile(r"(Recall|NDCG|COMP) +" + r" +(\d+\.\d\d)%" * 4)
BASELINE = re.compile(r"Baseline" + r" +(\d+\.\d\d)%" * 4 + r" \| Recall of naive BM25 \(name \+ description \+ all "
                      r"examples, one field\); R@5 difference ([+-]\d+\.\d\d)")
SCALE = re.compile(r"scale: tools (\d+) \| example texts (\d+) \((\d+) tool-example pairs\) \| build (\d+\.\d) ms \| "
                   r"index memory (\d+) bytes \| peak RSS (\d+) kB")
SCALE_LATENCY = re.compile(r"latency  p50 (\d+\.\d) us  p99 (\d+\.\d) us  max (\d+\.\d) us \| queries (\d+)")
LATENCY = re.compile(r"latency  p50 (\d+\.\d) us  p99 (\d+\.\d) us  max (\d+\.\d) us \| build (\d+\.\d) ms \| "
                     r"index memory (\d+) bytes \((\d+) per tool\)")


def parse_report(test, stdout, baseline=False):
    """The six lines of the report (seven with --baseline), checked line by line; returns the
    header fields, the metrics {name: [v@1, v@3, v@5, v@10]} in percent (with --baseline also
    "Baseline": its Recall@k and "Delta": the printed R@5 difference), and the latency fields."""
    lines = stdout.splitlines()
    test.assertEqual(len(lines), 7 if baseline else 6, stdout)
    if baseline:
        base = BASELINE.fullmatch(lines.pop(5))
        test.assertIsNotNone(base, stdout)
    head = HEADER.fullmatch(lines[0])
    test.assertIsNotNone(head, lines[0])
    test.assertEqual(lines[1], COLUMNS)
    metrics = {}
    for line in lines[2:5]:
        m = ROW.fullmatch(line)
        test.assertIsNotNone(m, line)
        metrics[m.group(1)] = [float(v) for v in m.groups()[1:]]
        # The columns line up under the header: the name in 8 columns, then " %7.2f%%" per k.
        test.assertEqual(line, "%-8s" % m.group(1) + "".join(" %7.2f%%" % v for v in metrics[m.group(1)]))
    test.assertEqual(list(metrics), ["Recall", "NDCG", "COMP"])
    if baseline:
        metrics["Baseline"] = [float(v) for v in base.groups()[:4]]
        metrics["Delta"] = float(base.group(5))
    lat = LATENCY.fullmatch(lines[5])
    test.assertIsNotNone(lat, lines[5])
    return head, metrics, lat


def read_qrels(path):
    """query-id -> {corpus-id: score}, relevant rows only (score > 0), header skipped."""
    out = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        qid, did, score = line.split("\t")
        if i == 0 or float(score) <= 0:
            continue
        out.setdefault(qid, {})[did] = float(score)
    return out


def query_ids(path):
    """The ids of the queries that have a text (lines that are JSON objects)."""
    ids = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            q = json.loads(line)
        except ValueError:
            continue
        if isinstance(q, dict) and q.get("text"):
            ids.add(q["_id"])
    return ids


def read_run(test, path, tag):
    """A TREC run file, checked: six fields, Q0, ranks 1..n in order per query, one block per
    query, no tool twice, scores positive and non-increasing, the given tag. Returns qid -> [docid]."""
    runs = {}
    last_qid, last_score = None, None
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split(" ")
        test.assertEqual(len(fields), 6, line)
        qid, q0, docid, rank, score, run_tag = fields
        test.assertEqual(q0, "Q0", line)
        test.assertEqual(run_tag, tag, line)
        test.assertIn(docid, TOOLS, line)
        if qid != last_qid:
            test.assertNotIn(qid, runs, "the rows of %s are not contiguous" % qid)
            runs[qid] = []
            last_score = None
        ranking = runs[qid]
        test.assertEqual(int(rank), len(ranking) + 1, line)
        test.assertNotIn(docid, ranking, line)
        test.assertGreater(float(score), 0, line)
        if last_score is not None:
            test.assertLessEqual(float(score), last_score, line)
        ranking.append(docid)
        last_qid, last_score = qid, float(score)
    for qid, ranking in runs.items():
        test.assertLessEqual(len(ranking), 10, qid)
    return runs


def metrics_from_run(qrels, runs, evaluated):
    """Recall@k, NDCG@k (gain 2^rel - 1) and COMP@k in percent over the evaluated queries."""
    out = {"Recall": [0.0] * 4, "NDCG": [0.0] * 4, "COMP": [0.0] * 4}
    for qid in evaluated:
        gold, ranking = qrels[qid], runs.get(qid, [])
        ideal = sorted(gold.values(), reverse=True)
        for i, k in enumerate(KS):
            top = ranking[:k]
            found = [d for d in top if d in gold]
            dcg = sum((2 ** gold[d] - 1) / math.log2(r + 2) for r, d in enumerate(top) if d in gold)
            idcg = sum((2 ** g - 1) / math.log2(r + 2) for r, g in enumerate(ideal[:k]))
            out["Recall"][i] += len(found) / len(gold)
            out["NDCG"][i] += dcg / idcg
            out["COMP"][i] += 1.0 if len(found) == len(gold) else 0.0
    return {name: [100 * v / len(evaluated) for v in values] for name, values in out.items()}


class RouteEvalTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not ROUTE_EVAL or not os.access(ROUTE_EVAL, os.X_OK):
            raise RuntimeError("AGENTKIT_ROUTE_EVAL=%r is not an executable: build the agentkit-route-eval target"
                               % ROUTE_EVAL)

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.runs = 0

    def tearDown(self):
        self._tmp.cleanup()

    def run_eval(self, *args, corpus=CORPUS, queries=QUERIES, qrels=TEST):
        return subprocess.run([ROUTE_EVAL, "--corpus", str(corpus), "--queries", str(queries), "--qrels", str(qrels),
                               *args], capture_output=True, text=True, check=False, timeout=60)

    def evaluate(self, *args, tag="agentkit", qrels=TEST, **kw):
        """Run with --run, check the report and the run file against each other."""
        self.runs += 1
        run = self.tmp / ("run%d.trec" % self.runs)
        proc = self.run_eval("--run", str(run), *args, qrels=qrels, **kw)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        baseline = "--baseline" in args
        head, metrics, lat = parse_report(self, proc.stdout, baseline)
        base = (metrics.pop("Baseline"), metrics.pop("Delta")) if baseline else None
        runs = read_run(self, run, tag)
        gold = read_qrels(qrels)
        texts = query_ids(kw.get("queries", QUERIES))
        evaluated = [q for q in gold if q in texts]
        self.assertEqual(int(head.group(2)), len(evaluated))
        self.assertEqual(int(head.group(3) or 0), len(gold) - len(evaluated))
        self.assertTrue(set(runs) <= set(evaluated), "rows for a query that was not evaluated")
        expected = metrics_from_run(gold, runs, evaluated)
        for name, values in metrics.items():
            for k, printed, mine in zip(KS, values, expected[name]):
                self.assertAlmostEqual(printed, mine, delta=0.0051, msg="%s@%d" % (name, k))
            # More of the ranking can only find more; COMP is stricter than Recall.
            self.assertEqual(values, sorted(values), name)
            self.assertTrue(all(0 <= v <= 100 for v in values), name)
        for comp, recall in zip(metrics["COMP"], metrics["Recall"]):
            self.assertLessEqual(comp, recall)
        p50, p99, mx, build = (float(v) for v in lat.groups()[:4])
        self.assertTrue(0 <= p50 <= p99 <= mx, lat.group(0))
        self.assertGreaterEqual(build, 0)
        memory, per_tool = int(lat.group(5)), int(lat.group(6))
        self.assertGreater(memory, 0)
        self.assertAlmostEqual(per_tool, memory / int(head.group(1)), delta=1)
        if base is not None:
            recall, delta = base
            self.assertEqual(recall, sorted(recall))
            self.assertTrue(all(0 <= v <= 100 for v in recall))
            # The difference is agentkit's Recall@5 minus the baseline's (both printed rounded).
            self.assertAlmostEqual(delta, metrics["Recall"][2] - recall[2], delta=0.011)
            metrics["Baseline"], metrics["Delta"] = recall, delta
        return proc, head, metrics, runs

    def test_cold_report_and_obvious_queries(self):
        proc, head, metrics, runs = self.evaluate()
        self.assertEqual(proc.stderr, "")
        self.assertEqual(head.group(0), "tools 7 | queries 7 (1 without text skipped) | usage examples 0 | lexical")
        # The lexically obvious queries rank their tool first; q7 matches only argument
        # descriptions from book_flight's schema; q5 finds both of its tools.
        for qid, tool in (("q1", "weather_forecast"), ("q2", "currency_converter"), ("q3", "pdf_to_text"),
                          ("q4", "send_email"), ("q7", "book_flight")):
            self.assertEqual(runs[qid][0], tool, qid)
        self.assertEqual(set(runs["q5"][:2]), {"translate_text", "send_email"})
        # q6 shares no word with any tool: no ranking at all, so Recall@10 stays below 100%.
        self.assertNotIn("q6", runs)
        self.assertLess(metrics["Recall"][3], 100.0)
        # q5 needs two tools: COMP@1 counts it as a miss while Recall@1 gives it half.
        self.assertLess(metrics["COMP"][0], metrics["Recall"][0])

    def test_obvious_queries_recall_is_one(self):
        qrels = self.tmp / "obvious.tsv"
        qrels.write_text("query-id\tcorpus-id\tscore\n" + "".join(
            "%s\t%s\t1\n" % p for p in (("q1", "weather_forecast"), ("q2", "currency_converter"),
                                        ("q3", "pdf_to_text"), ("q4", "send_email"), ("q7", "book_flight"))))
        _, head, metrics, _ = self.evaluate(qrels=qrels)
        self.assertEqual(head.group(0), "tools 7 | queries 5 | usage examples 0 | lexical")
        for name in ("Recall", "NDCG", "COMP"):
            self.assertEqual(metrics[name], [100.0] * 4, name)

    def test_run_file_tag_and_rows(self):
        _, _, _, runs = self.evaluate("--tag", "fixture-run", tag="fixture-run")
        # One block per query that has hits, in qrels order; q9 (no text) and q6 (no hit) absent.
        self.assertEqual(list(runs), ["q1", "q2", "q3", "q4", "q5", "q7"])

    def test_examples_improve_a_lexical_miss(self):
        _, cold_head, cold, cold_runs = self.evaluate()
        proc, head, learned, runs = self.evaluate("--examples", str(TRAIN))
        self.assertEqual(proc.stderr, "")
        # t1, t2 and t3 become examples; the unknown tool and the query without a text do not.
        self.assertEqual(head.group(4), "3")
        self.assertEqual(cold_head.group(4), "0")
        # q6 ("AAPL", "NVDA", "Nasdaq") is reached only through the ticker examples.
        self.assertNotIn("q6", cold_runs)
        self.assertEqual(runs["q6"][0], "stock_quote")
        self.assertGreater(learned["Recall"][0], cold["Recall"][0])
        self.assertEqual(learned["Recall"][3], 100.0)
        for name in cold:
            for k, before, after in zip(KS, cold[name], learned[name]):
                self.assertGreaterEqual(after, before, "%s@%d" % (name, k))
        # The other queries keep their first tool.
        for qid in ("q1", "q2", "q3", "q4", "q7"):
            self.assertEqual(runs[qid][0], cold_runs[qid][0], qid)

    def test_baseline_beside_cold_and_learned_runs(self):
        qrels = self.tmp / "obvious.tsv"
        qrels.write_text("query-id\tcorpus-id\tscore\n" + "".join(
            "%s\t%s\t1\n" % p for p in (("q1", "weather_forecast"), ("q2", "currency_converter"),
                                        ("q3", "pdf_to_text"), ("q4", "send_email"), ("q7", "book_flight"))))
        _, _, metrics, _ = self.evaluate("--baseline", qrels=qrels)
        # The baseline indexes name + description + examples only: q7, which only book_flight's
        # argument descriptions answer, is the one it misses.
        self.assertEqual(metrics["Recall"], [100.0] * 4)
        self.assertEqual(metrics["Baseline"], [80.0] * 4)
        self.assertEqual(metrics["Delta"], 20.0)
        # Cold and with examples on the whole fixture: the examples teach the baseline q6 too.
        _, _, cold, _ = self.evaluate("--baseline")
        _, head, learned, _ = self.evaluate("--baseline", "--examples", str(TRAIN))
        self.assertEqual(head.group(4), "3")
        self.assertLess(cold["Baseline"][3], learned["Baseline"][3])
        self.assertGreaterEqual(learned["Delta"], 0)
        self.assertGreaterEqual(cold["Delta"], 0)
        # Without --baseline the report has no such line (checked by parse_report's line count).
        self.evaluate("--examples", str(TRAIN))
        # Beside a hybrid run too.
        proc, _, hybrid, _ = self.evaluate("--hybrid", "--baseline", "--examples", str(TRAIN))
        self.assertEqual(hybrid["Baseline"], learned["Baseline"])

    def test_scale(self):
        proc = self.run_eval("--scale", "20,30", "--examples", str(TRAIN))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(len(lines), 2, proc.stdout)
        head, lat = SCALE.fullmatch(lines[0]), SCALE_LATENCY.fullmatch(lines[1])
        self.assertIsNotNone(head, lines[0])
        self.assertIsNotNone(lat, lines[1])
        self.assertEqual(head.group(1), "20")
        # 30 example texts drawn from t1-t3, tagged with one of 5,000 words, each on one copy of its
        # one gold tool (copies 0-1 of seven tools fit in 20): at most 30 distinct, one pair each.
        self.assertLessEqual(int(head.group(2)), 30)
        self.assertGreater(int(head.group(2)), 20)
        self.assertEqual(head.group(3), "30")
        self.assertGreater(int(head.group(5)), 0)
        self.assertEqual(lat.group(4), "7")  # the test queries with a text
        p50, p99, mx = (float(v) for v in lat.groups()[:3])
        self.assertTrue(0 <= p50 <= p99 <= mx)

    def test_hybrid(self):
        proc, head, _, runs = self.evaluate("--hybrid", "--fusion", "rrf", "--dim", "64", "--dense-weight", "0.5")
        self.assertEqual(proc.stderr, "")
        self.assertEqual(head.group(5), "hybrid (rrf, dense weight 0.50, dim 64)")
        self.assertEqual(runs["q3"][0], "pdf_to_text")
        _, head, _, _ = self.evaluate("--hybrid")
        self.assertEqual(head.group(5), "hybrid (weighted, dense weight 0.35, dim 256)")

    def test_missing_files(self):
        missing = str(self.tmp / "missing.jsonl")
        cases = [((), {"corpus": missing}), ((), {"queries": missing}), ((), {"qrels": missing}),
                 (("--examples", missing), {}), (("--run", str(self.tmp / "no" / "dir" / "run.trec")), {})]
        for args, kw in cases:
            proc = self.run_eval(*args, **kw)
            self.assertEqual(proc.returncode, 2, (args, kw))
            self.assertEqual(proc.stdout, "")
            what = "cannot write" if "--run" in args else "cannot read"
            self.assertIn("agentkit-route-eval: %s %s" % (what, args[-1] if args else missing), proc.stderr)
            self.assertIn("usage: agentkit-route-eval", proc.stderr)

    def test_malformed_json_lines(self):
        # A malformed corpus line is reported with its file and line number and skipped: the tool
        # is gone from the index (pdf_to_text, line 3), the rest is evaluated.
        lines = CORPUS.read_text(encoding="utf-8").splitlines()
        self.assertIn('"pdf_to_text"', lines[2])
        corpus = self.tmp / "corpus.jsonl"
        corpus.write_text("\n".join(lines[:2] + [lines[2][:-1]] + lines[3:] + ["[1, 2]"]) + "\n", encoding="utf-8")
        proc, head, _, runs = self.evaluate(corpus=corpus)
        self.assertIn("agentkit-route-eval: %s:3: not a JSON object, skipped" % corpus, proc.stderr)
        self.assertIn("agentkit-route-eval: %s:8: not a JSON object, skipped" % corpus, proc.stderr)
        self.assertEqual(head.group(1), "6")
        self.assertNotIn("pdf_to_text", [d for r in runs.values() for d in r])
        # A malformed query line: that query has no text and is counted as skipped.
        queries = self.tmp / "queries.jsonl"
        qlines = QUERIES.read_text(encoding="utf-8").splitlines()
        queries.write_text("\n".join(["{oops"] + qlines[1:]) + "\n", encoding="utf-8")
        proc, head, _, runs = self.evaluate(queries=queries)
        self.assertIn("%s:1: not a JSON object, skipped" % queries, proc.stderr)
        self.assertEqual(head.group(2, 3), ("6", "2"))
        self.assertNotIn("q1", runs)
        # No test query with a text at all: an error and exit status 1, no report.
        queries.write_text("{oops\nnot json\n", encoding="utf-8")
        proc = self.run_eval(queries=queries)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertIn("agentkit-route-eval: no test query has a text in %s" % queries, proc.stderr)

    def test_bad_options(self):
        cases = [
            (["--bogus"], "unknown option --bogus"),
            (["--fusion", "max"], "--fusion must be weighted or rrf"),
            (["--run"], "missing value for --run"),
            (["--dense-weight", "abc"], "--dense-weight needs a number between 0 and 1, not 'abc'"),
            (["--dense-weight", "1.5"], "--dense-weight needs a number between 0 and 1, not '1.5'"),
            (["--dense-weight", "nan"], "--dense-weight needs a number between 0 and 1, not 'nan'"),
            (["--dim", "-1"], "--dim needs an integer from 1 to 65536, not '-1'"),
            (["--dim", "12x"], "--dim needs an integer from 1 to 65536, not '12x'"),
            (["--depth", "0"], "--depth needs an integer from 1 to 1000000, not '0'"),
            (["--scale", "12"], "--scale needs TOOLS,EXAMPLES, not '12'"),
            (["--scale", "0,5"], "--scale needs an integer from 1 to 10000000, not '0'"),
            (["--scale", "10,5"], "--scale with examples needs --examples (the queries the examples are drawn from)"),
        ]
        for args, message in cases:
            proc = self.run_eval("--hybrid", *args)
            self.assertEqual(proc.returncode, 2, (args, proc.stderr))
            self.assertEqual(proc.stdout, "")
            self.assertIn("agentkit-route-eval: " + message + "\n", proc.stderr)
        proc = subprocess.run([ROUTE_EVAL, "--corpus", str(CORPUS)], capture_output=True, text=True, check=False,
                              timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--corpus, --queries and --qrels are required", proc.stderr)


if __name__ == "__main__":
    unittest.main()
