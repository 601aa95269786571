#!/usr/bin/env python3
"""Convert locally fetched tool-retrieval benchmarks to the BEIR layout read by agentkit-route-eval.

    python3 tools/tool_retrieval_to_beir.py toollens --src COLT/datasets/ToolLens --out toollens-beir
    python3 tools/tool_retrieval_to_beir.py gorilla  --src gorilla                 --out torchhub-beir

Nothing is downloaded: --src is a copy of the source repository (or of the files named below)
that you fetched yourself. Neither data set is in this repository.

toollens  ToolLens (COLT, CIKM 2024; github quchangle1/COLT, datasets/ToolLens). The repository
          has NO licence file: use the converted data for measurement only and do not
          redistribute it. Reads corpus.jsonl, qrels/train.tsv and queries.jsonl (only the queries
          of qrels/train.tsv are kept). ToolLens' own test split (qrels/test.tsv) is never read:
          it is very probably the held-out set the router is measured on elsewhere, so it must
          stay unseen. The training queries are split here into fit / val / test (70/10/20).
gorilla   Gorilla APIBench, TorchHub part (github ShishirPatil/gorilla, Apache-2.0). Reads
          data/api/torchhub_api.jsonl, data/apibench/torchhub_train.json and
          data/apibench/torchhub_eval.json (or those three files directly in --src). One tool
          per API; a query is the "Instruction" of a training/eval item (its "Output" names the
          API, so it is left out). The official eval items are the test split; val is carved
          from the training items (12.5%, i.e. 10% of all).

Each writes into --out:
  corpus.jsonl            {"_id", "title", "text"} per tool
  queries.jsonl           {"_id", "text"}: the queries of every split
  qrels/fit.tsv           usage examples while tuning (--examples)
  qrels/val.tsv           the queries tuned on
  qrels/train.tsv         fit + val: the usage examples of the one run on test
  qrels/test.tsv          held-out queries (report once, never tune on them)
  qrels/fit_few.tsv, qrels/train_few.tsv   at most --few (5) examples per tool
  split.json              the parameters and counts

The split is fixed and seeded: identical query texts are merged first (their gold tools united),
queries are grouped by their first gold tool, each group (in sorted tool order) is shuffled with
a self-contained 64-bit LCG (Knuth's MMIX constants; independent of Python's `random`), the first
ceil(test_share * n) go to test (at least one, never all), the next ceil(val_share * n) to val
(never the last one), the rest to fit. A group of one query goes to fit. The few-example subsets
visit the queries in an LCG-shuffled order and keep one while each of its gold tools has fewer
than --few. Standard library only.
"""
import argparse
import json
import math
import os
import re
import sys


class Lcg:
    """Knuth's MMIX 64-bit LCG; deterministic everywhere."""

    def __init__(self, seed):
        self.state = (seed ^ 0x5DEECE66D) & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        return self.state >> 11

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.next() % (i + 1)
            items[i], items[j] = items[j], items[i]


def stratified_split(qids, gold, seed, test_share, val_share):
    """qids in order; gold: qid -> gold tools in order. Returns (fit, val, test), each in qids order."""
    groups = {}
    for q in qids:
        groups.setdefault(gold[q][0], []).append(q)
    rng = Lcg(seed)
    fit, val, test = [], [], []
    for tool in sorted(groups):
        g = groups[tool]
        rng.shuffle(g)
        n = len(g)
        if n == 1:
            fit.extend(g)
            continue
        n_test = min(n - 1, max(1, math.ceil(test_share * n))) if test_share > 0 else 0
        n_val = max(0, min(n - n_test - 1, math.ceil(val_share * n))) if val_share > 0 else 0
        test.extend(g[:n_test])
        val.extend(g[n_test:n_test + n_val])
        fit.extend(g[n_test + n_val:])
    pos = {q: i for i, q in enumerate(qids)}
    return [sorted(part, key=pos.get) for part in (fit, val, test)]


def few_subset(queries, gold, few, seed):
    """At most about `few` examples per tool: visit in LCG-shuffled order, keep a query while every
    one of its gold tools has fewer than `few`. Returned in the given order."""
    order = list(queries)
    Lcg(seed + 7).shuffle(order)
    count, keep = {}, set()
    for q in order:
        if all(count.get(t, 0) < few for t in gold[q]):
            keep.add(q)
            for t in gold[q]:
                count[t] = count.get(t, 0) + 1
    return [q for q in queries if q in keep]


def merge_texts(qids, qtext, gold):
    """Identical texts become one query (the first id) with the union of the gold tools."""
    first, out = {}, []
    for q in qids:
        t = qtext[q]
        if t in first:
            g = gold[first[t]]
            g.extend(x for x in gold[q] if x not in g)
            continue
        first[t] = q
        out.append(q)
    return out


def write_out(out, tools, qtext, gold, fit, val, test, info, few, seed):
    os.makedirs(os.path.join(out, "qrels"), exist_ok=True)
    with open(os.path.join(out, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for tid, title, text in tools:
            f.write(json.dumps({"_id": tid, "title": title, "text": text}, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "queries.jsonl"), "w", encoding="utf-8") as f:
        for q in fit + val + test:
            f.write(json.dumps({"_id": q, "text": qtext[q]}, ensure_ascii=False) + "\n")

    def qrels(name, rows):
        with open(os.path.join(out, "qrels", name), "w", encoding="utf-8") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            for q in rows:
                for t in gold[q]:
                    f.write("%s\t%s\t1\n" % (q, t))

    train = fit + val
    fit_few, train_few = few_subset(fit, gold, few, seed), few_subset(train, gold, few, seed)
    for name, rows in (("fit.tsv", fit), ("val.tsv", val), ("train.tsv", train), ("test.tsv", test),
                       ("fit_few.tsv", fit_few), ("train_few.tsv", train_few)):
        qrels(name, rows)
    pairs = lambda rows: sum(len(gold[q]) for q in rows)  # noqa: E731
    info.update({"tools": len(tools), "fit": len(fit), "val": len(val), "test": len(test), "fit_pairs": pairs(fit),
                 "train_pairs": pairs(train), "fit_few": len(fit_few), "train_few": len(train_few), "few": few,
                 "examples_per_tool_train": round(pairs(train) / max(1, len(tools)), 1),
                 "gold_per_test_query": round(pairs(test) / max(1, len(test)), 2)})
    with open(os.path.join(out, "split.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    json.dump(info, sys.stdout)
    sys.stdout.write("\n")


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def toollens(a):
    tools = [(str(j["_id"]), j.get("title", "") or "", j["text"]) for j in read_jsonl(os.path.join(a.src, "corpus.jsonl"))]
    gold, order = {}, []
    with open(os.path.join(a.src, "qrels", "train.tsv"), encoding="utf-8") as f:  # the training split only
        for i, line in enumerate(f):
            p = line.split()
            if len(p) < 2 or (i == 0 and p[0] in ("query-id", "query_id", "qid")):
                continue
            if len(p) >= 3 and float(p[2]) <= 0:
                continue
            if p[0] not in gold:
                gold[p[0]] = []
                order.append(p[0])
            if p[1] not in gold[p[0]]:
                gold[p[0]].append(p[1])
    qtext = {}
    with open(os.path.join(a.src, "queries.jsonl"), encoding="utf-8") as f:
        for line in f:  # keep the training queries' texts; skip every other line unread
            if not line.strip():
                continue
            j = json.loads(line)
            if str(j["_id"]) in gold:
                qtext[str(j["_id"])] = j["text"].strip()
    qids = merge_texts([q for q in order if qtext.get(q)], qtext, gold)
    fit, val, test = stratified_split(qids, gold, a.seed, a.test_share, a.val_share)
    info = {"dataset": "toollens-train-resplit", "source": "quchangle1/COLT datasets/ToolLens (no licence file; "
            "measurement only), original training split only", "seed": a.seed, "test_share": a.test_share,
            "val_share": a.val_share}
    write_out(a.out, tools, qtext, gold, fit, val, test, info, a.few, a.seed)


def gorilla(a):
    def find(*parts):
        for p in (os.path.join(a.src, *parts), os.path.join(a.src, parts[-1])):
            if os.path.isfile(p):
                return p
        sys.exit("tool_retrieval_to_beir: %s not found under %s" % (parts[-1], a.src))

    def load_any(path):
        with open(path, encoding="utf-8") as f:
            s = f.read().lstrip()
        return json.loads(s) if s.startswith("[") else [json.loads(x) for x in s.splitlines() if x.strip()]

    def squash(s):
        return re.sub(r"\s+", "", s)

    tools, by_call = [], {}
    for i, x in enumerate(load_any(find("data", "api", "torchhub_api.jsonl"))):
        tid = "th%d" % i
        by_call[squash(x["api_call"])] = tid
        args = x.get("api_arguments")
        args = ", ".join(map(str, args)) if isinstance(args, (dict, list)) else str(args or "")
        text = "domain: %s. functionality: %s. api_name: %s. api_call: %s. arguments: %s. description: %s" % (
            x.get("domain", ""), x.get("functionality", ""), x.get("api_name", ""), x.get("api_call", ""), args,
            x.get("description", ""))
        tools.append((tid, "%s %s" % (x.get("api_name", ""), x.get("functionality", "")), text))

    def instruction(code):
        m = re.search(r"Instruction['\"]?\s*:\s*(.*?)(?:,\s*['\"]Output|###Output|\n###)", code, re.S)
        s = m.group(1) if m else code.split("Output")[0]
        return re.sub(r"\s+", " ", s).strip(" '\"")

    qtext, gold, seen, train_ids, eval_ids = {}, {}, {}, [], []
    for prefix, name, ids in (("tr", "torchhub_train.json", train_ids), ("te", "torchhub_eval.json", eval_ids)):
        for i, x in enumerate(load_any(find("data", "apibench", name))):
            t, tid = instruction(x["code"]), by_call.get(squash(x["api_call"]))
            if not t or tid is None:
                continue
            if t in seen:  # an identical text: one query (train before eval) with both gold tools
                if tid not in gold[seen[t]]:
                    gold[seen[t]].append(tid)
                continue
            q = "%s%d" % (prefix, i)
            seen[t], qtext[q], gold[q] = q, t, [tid]
            ids.append(q)
    share = a.val_share / (1 - a.test_share)
    fit, val, _ = stratified_split(train_ids, gold, a.seed, 0.0, share)
    info = {"dataset": "gorilla-torchhub", "source": "ShishirPatil/gorilla APIBench torchhub (Apache-2.0)",
            "seed": a.seed, "val_share_of_train": round(share, 3), "test_split": "the official eval items"}
    write_out(a.out, tools, qtext, gold, fit, val, eval_ids, info, a.few, a.seed)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=["toollens", "gorilla"])
    ap.add_argument("--src", required=True, help="the locally fetched repository (or its files)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20251125)
    ap.add_argument("--test-share", type=float, default=0.2)
    ap.add_argument("--val-share", type=float, default=0.1)
    ap.add_argument("--few", type=int, default=5)
    a = ap.parse_args()
    {"toollens": toollens, "gorilla": gorilla}[a.kind](a)


if __name__ == "__main__":
    main()
