"""The copying path's interning table: cost of a call on a large vocabulary, A/B.

Before issue 25 the table's arrays (slots, hashes, term starts and lengths, the code point
pool) were numpy arrays owned by Python, so every ``intern_run`` checked the whole table
again (one slot per term, every term inside the pool) before it trusted it: a call cost
O(vocabulary) whatever it scanned. Now the table lives behind a capsule
(``nbayes._native.Intern``) whose arrays Python cannot reach, and a call checks only what
it is given.

Workloads (each in a fresh process of interpreter A or B, interleaved A, B, A, B, ...; the
figure is the median over the rounds):

* ``call``: ``InternState.scan`` of one 5-token document into a table that already holds
  ``--terms`` (1,000,000) terms: median microseconds over ``--calls`` (2,000) calls;
* ``scan``: interning a corpus of ``--terms`` distinct tokens into an empty table (it grows
  as it goes, each growth a resumed call): seconds;
* ``bigram``: ``nbayes.text.CountVectorizer(ngram_range=(1, 2)).fit_transform`` of the 20
  Newsgroups train set (11,314 documents), the copying path end to end: seconds.

Usage (A: a non-editable install of main, B: this tree)::

    python benchmarks/bench_intern_table.py --a /path/to/main-venv/bin/python \
        --b .venv/bin/python --rounds 7
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _machine import machine

NEWS = Path("/work/shared/data/20newsgroups_bydate")

WORKER = r"""
import csv, json, statistics, sys, time
import numpy as np
from nbayes.text import _tokenize as tk

task, opt = sys.argv[1], json.loads(sys.argv[2])
n_terms = opt["terms"]
words = [f"w{i}x" for i in range(n_terms)]
res = {}
if task == "call":
    st = tk.InternState()
    _, buf, spans = tk.encode_corpus([" ".join(words)], False)
    st.scan(buf, spans)
    assert st.n_terms == n_terms
    _, b1, s1 = tk.encode_corpus(["w1x w2x w3x new1 new2"], False)
    st.scan(b1, s1)  # warm
    times = []
    for _ in range(opt["calls"]):
        t = time.perf_counter()
        tok, ptr = st.scan(b1, s1)
        times.append(time.perf_counter() - t)
    res["value"] = statistics.median(times) * 1e6
    res["check"] = [int(v) for v in tok] + [st.n_terms]
elif task == "scan":
    docs = [" ".join(words[i : i + 100]) for i in range(0, n_terms, 100)]
    _, buf, spans = tk.encode_corpus(docs, False)
    t = time.perf_counter()
    st = tk.InternState()
    tok, ptr = st.scan(buf, spans)
    res["value"] = time.perf_counter() - t
    res["check"] = [st.n_terms, int(tok.sum()), st.terms()[-1]]
else:
    from nbayes.text import CountVectorizer
    csv.field_size_limit(sys.maxsize)
    with open(opt["news"], newline="", encoding="utf-8") as f:
        rows = csv.reader(f)
        ti = next(rows).index("text")
        docs = [r[ti] for r in rows]
    CountVectorizer(ngram_range=(1, 2)).fit_transform(docs[:200])  # warm
    t = time.perf_counter()
    X = CountVectorizer(ngram_range=(1, 2)).fit_transform(docs)
    res["value"] = time.perf_counter() - t
    res["check"] = [int(X.shape[1]), int(X.sum())]
print(json.dumps(res))
"""

UNITS = {"call": "us", "scan": "s", "bigram": "s"}


def run(python: str, task: str, opt: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [python, "-c", WORKER, task, json.dumps(opt)],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="interpreter A (the baseline)")
    ap.add_argument("--b", default=sys.executable, help="interpreter B")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--terms", type=int, default=1_000_000)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--workloads", nargs="+", choices=list(UNITS), default=list(UNITS))
    args = ap.parse_args()
    opt = {
        "terms": args.terms,
        "calls": args.calls,
        "news": str(NEWS / "20news_bydate_train.csv"),
    }
    print(machine())
    for w in args.workloads:
        a_vals, b_vals, ratios = [], [], []
        for _ in range(args.rounds):
            ra = run(args.a, w, opt)
            rb = run(args.b, w, opt)
            if ra["check"] != rb["check"]:
                raise SystemExit(f"{w}: A and B differ: {ra['check']} != {rb['check']}")
            a_vals.append(ra["value"])
            b_vals.append(rb["value"])
            ratios.append(rb["value"] / ra["value"])
        ma, mb = statistics.median(a_vals), statistics.median(b_vals)
        unit = UNITS[w]
        print(
            f"{w:7s} A {ma:10.4g} {unit}  B {mb:10.4g} {unit}  B/A {mb / ma:.3g}  "
            f"(median of per-round ratios {statistics.median(ratios):.3g}, {args.rounds} rounds,"
            " same results)"
        )


if __name__ == "__main__":
    main()
