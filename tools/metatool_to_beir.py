#!/usr/bin/env python3
"""Convert the MetaTool benchmark to the BEIR layout read by agentkit-route-eval.

    python3 tools/metatool_to_beir.py [--src ../shared/data/metatool] [--out DIR]
                                      [--seed 20250601] [--test-share 0.2] [--val-share 0.125]

Writes into DIR:
  corpus.jsonl            one line per tool: {"_id": name, "title": name, "text": description}
  queries.jsonl           {"_id", "text"}: single-tool queries (s<n>) and two-tool queries (m<n>)
  qrels/train.tsv         single-tool queries used as usage examples (--examples)
  qrels/fit.tsv           train.tsv less val.tsv: the usage examples while tuning
  qrels/val.tsv           part of train.tsv held out to tune on (never tune on test.tsv)
  qrels/test.tsv          held-out single-tool queries
  qrels/test_multi.tsv    the two-tool queries (all of them are test queries)
  qrels/test_all.tsv      test.tsv + test_multi.tsv
  split.json              the parameters and counts of the split

The split is fixed and seeded: identical query texts are merged first (so no text is in both
train and test), then each tool's queries are shuffled with a self-contained 64-bit LCG
(independent of Python's `random`, so every Python version gives the same split) and the
first ceil(test_share * n) of them go to test; of the rest, the next ceil(val_share * n) (never
the last one) are also written as val.tsv, and the others as fit.tsv (train.tsv = fit + val, so
the test split and train.tsv do not depend on --val-share). Standard library only.
"""
import argparse
import csv
import json
import math
import os
import sys


class Lcg:
    """Knuth's MMIX 64-bit LCG; deterministic everywhere."""

    def __init__(self, seed):
        self.state = (seed ^ 0x5DEECE66D) & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        return self.state >> 11

    def below(self, n):
        return self.next() % n

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.normpath(os.path.join(here, "..", "..", "shared", "data", "metatool")))
    ap.add_argument("--out", default="metatool-beir")
    ap.add_argument("--seed", type=int, default=20250601)
    ap.add_argument("--test-share", type=float, default=0.2)
    ap.add_argument("--val-share", type=float, default=0.125)
    args = ap.parse_args()

    with open(os.path.join(args.src, "plugin_des.json"), encoding="utf-8") as f:
        tools = json.load(f)
    singles = {}  # text -> ordered list of gold tools
    order = []
    with open(os.path.join(args.src, "all_clean_data.csv"), encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            text = row["Query"].strip()
            tool = row["Tool"].strip()
            if not text or tool not in tools:
                continue
            if text not in singles:
                singles[text] = []
                order.append(text)
            if tool not in singles[text]:
                singles[text].append(tool)
    with open(os.path.join(args.src, "multi_tool_query_golden.json"), encoding="utf-8") as f:
        multi = json.load(f)

    # Query ids in file order; group the single-tool texts by their (first) tool for stratification.
    qid = {text: "s%d" % i for i, text in enumerate(order)}
    by_tool = {}
    for text in order:
        by_tool.setdefault(singles[text][0], []).append(text)
    rng = Lcg(args.seed)
    train, test, val = [], [], set()
    for tool in sorted(by_tool):
        texts = by_tool[tool]
        rng.shuffle(texts)
        n_test = min(len(texts) - 1, max(1, math.ceil(args.test_share * len(texts))))
        n_val = max(0, min(len(texts) - n_test - 1, math.ceil(args.val_share * len(texts)))) if args.val_share > 0 else 0
        test.extend(texts[:n_test])
        train.extend(texts[n_test:])
        val.update(texts[n_test:n_test + n_val])
    train.sort(key=lambda t: int(qid[t][1:]))
    test.sort(key=lambda t: int(qid[t][1:]))

    os.makedirs(os.path.join(args.out, "qrels"), exist_ok=True)
    with open(os.path.join(args.out, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for name, desc in tools.items():
            f.write(json.dumps({"_id": name, "title": name, "text": desc}, ensure_ascii=False) + "\n")
    multi_rows = []
    with open(os.path.join(args.out, "queries.jsonl"), "w", encoding="utf-8") as f:
        for text in order:
            f.write(json.dumps({"_id": qid[text], "text": text}, ensure_ascii=False) + "\n")
        for i, q in enumerate(multi):
            gold = [t for t in q["tool"] if t in tools]
            if not gold:
                continue
            mid = "m%d" % i
            multi_rows.append((mid, gold))
            f.write(json.dumps({"_id": mid, "text": q["query"].strip()}, ensure_ascii=False) + "\n")

    def write_qrels(path, rows):
        with open(path, "w", encoding="utf-8") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            for q, gold in rows:
                for t in gold:
                    f.write("%s\t%s\t1\n" % (q, t))

    write_qrels(os.path.join(args.out, "qrels", "train.tsv"), [(qid[t], singles[t]) for t in train])
    write_qrels(os.path.join(args.out, "qrels", "fit.tsv"), [(qid[t], singles[t]) for t in train if t not in val])
    write_qrels(os.path.join(args.out, "qrels", "val.tsv"), [(qid[t], singles[t]) for t in train if t in val])
    write_qrels(os.path.join(args.out, "qrels", "test.tsv"), [(qid[t], singles[t]) for t in test])
    write_qrels(os.path.join(args.out, "qrels", "test_multi.tsv"), multi_rows)
    write_qrels(os.path.join(args.out, "qrels", "test_all.tsv"), [(qid[t], singles[t]) for t in test] + multi_rows)
    info = {"source": os.path.abspath(args.src), "seed": args.seed, "test_share": args.test_share,
            "val_share": args.val_share, "tools": len(tools), "single_queries": len(order), "train": len(train),
            "fit": len(train) - len(val), "val": len(val), "test": len(test),
            "multi_queries": len(multi_rows)}
    with open(os.path.join(args.out, "split.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    json.dump(info, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
