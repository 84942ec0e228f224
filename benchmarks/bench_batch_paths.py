"""A/B speed of every way a TextClassifier batch is counted, two installs, fresh processes.

Issue 25 (item 7) made a batch's way a composition of three steps (tokens, indexing,
accumulation); no way may be slower. A and B are two Python interpreters, each with
nbayes installed (``--a`` the baseline, ``--b`` the change). Each round runs one worker
process per interpreter (A, then B; ``--rounds`` rounds, interleaved); a worker reads the
``--docs`` posts of 20 Newsgroups' training set (a fixed shuffle) and times every workload
``--calls`` times (after one warm-up call), keeping the median. Each workload runs in a
process of its own (``--shared``: all of them in one process per side and round, where
what one workload leaves in memory changes the next one's times: the hashed workloads
measured 1.10-1.21x there, 0.94-1.02x alone, for code doing the same calls). The table gives per
workload the median over the rounds of A and B and the ratio B / A of those medians
(< 1: B faster), and whether A and B computed the same (a checksum of the statistics).

Workloads: ``fit`` (unigrams), ``fit bernoulli`` (raw term frequencies apart),
``fit weighted`` (``sample_weight``), ``fit (1,2)``, ``fit (1,3)``, ``fit stop words``,
``partial_fit`` (a fitted model's vocabulary extended), ``hashing``, ``hashing weighted``,
``hashing (1,2)``, ``fit_chunks`` (8 chunks), ``fit_chunks hashing``,
``predict_proba (1,2)`` (``--docs`` posts of the test set).

Usage::

    python benchmarks/bench_batch_paths.py --a /tmp/venv-main/bin/python \\
        --b .venv/bin/python [--rounds 5] [--docs 4000] [--calls 3] \\
        [--workloads "fit weighted;hashing"] [--shared]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

WORKER = r"""
import csv, json, statistics, sys, time
import numpy as np
from nbayes.text import TextClassifier
n, calls = int(sys.argv[1]), int(sys.argv[2])
csv.field_size_limit(1 << 30)
def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    # the file is ordered by class: a fixed shuffle, so every part holds every class
    rows = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))[:n]]
    return [r[0] for r in rows], np.array([r[1] for r in rows])
base = "/work/shared/data/20newsgroups_bydate/"
docs, y = read(base + "20news_bydate_train.csv")
test, _ = read(base + "20news_bydate_test.csv")
sw = np.linspace(0.5, 2.0, len(docs))
half = len(docs) // 2
chunks = [(docs[i:i + len(docs) // 8], y[i:i + len(docs) // 8])
          for i in range(0, len(docs), len(docs) // 8)]
H = dict(hashing=True, n_features=2**18)
only = [w for w in sys.argv[3].split(";") if w] if len(sys.argv) > 3 else []
# the model predict_proba (1,2) scores with (fitted only when that workload runs)
if not only or "predict_proba (1,2)" in only:
    fitted2 = TextClassifier(ngram_range=(1, 2)).fit(docs, y)
def partial():
    m = TextClassifier().fit(docs[:half], y[:half])
    t = time.perf_counter()
    m.partial_fit(docs[half:], y[half:])
    return time.perf_counter() - t, m
work = {
    "fit": lambda: TextClassifier().fit(docs, y),
    "fit bernoulli": lambda: TextClassifier(model="bernoulli").fit(docs, y),
    "fit weighted": lambda: TextClassifier().fit(docs, y, sample_weight=sw),
    "fit (1,2)": lambda: TextClassifier(ngram_range=(1, 2)).fit(docs, y),
    "fit (1,3)": lambda: TextClassifier(ngram_range=(1, 3)).fit(docs, y),
    "fit stop words": lambda: TextClassifier(stop_words="english").fit(docs, y),
    "partial_fit": partial,
    "hashing": lambda: TextClassifier(**H).fit(docs, y),
    "hashing weighted": lambda: TextClassifier(**H).fit(docs, y, sample_weight=sw),
    "hashing (1,2)": lambda: TextClassifier(ngram_range=(1, 2), **H).fit(docs, y),
    "fit_chunks": lambda: TextClassifier().fit_chunks(chunks),
    "fit_chunks hashing": lambda: TextClassifier(**H).fit_chunks(chunks),
    "predict_proba (1,2)": lambda: fitted2.predict_proba(test),
}
out = {}
for name, fn in work.items():
    if only and name not in only:
        continue
    times, result = [], None
    for i in range(calls + 1):
        t = time.perf_counter()
        got = fn()
        dt = time.perf_counter() - t
        if isinstance(got, tuple):
            dt, got = got
        if i:
            times.append(dt)
        result = got
    if isinstance(result, np.ndarray):
        check = float(np.round(result.sum(), 6))
    else:
        stats = result._stats
        check = float(stats.counts.feature_count.sum()) + float(stats.doc_freq.sum())
    out[name] = [statistics.median(times), check]
print(json.dumps(out))
"""


#: the worker's workloads, in its order
WORKLOADS = ["fit", "fit bernoulli", "fit weighted", "fit (1,2)", "fit (1,3)", "fit stop words",
             "partial_fit", "hashing", "hashing weighted", "hashing (1,2)", "fit_chunks",
             "fit_chunks hashing", "predict_proba (1,2)"]  # fmt: skip


def run(python: str, docs: int, calls: int, only: str = "") -> dict[str, list[float]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    got = subprocess.run(
        [python, "-c", WORKER, str(docs), str(calls), only],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    if got.returncode:
        raise SystemExit(f"{python} failed ({got.returncode}):\n{got.stderr[-3000:]}")
    out: dict[str, list[float]] = json.loads(got.stdout.strip().splitlines()[-1])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="python of the baseline install")
    ap.add_argument("--b", required=True, help="python of the changed install")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--docs", type=int, default=4000)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--workloads", default="",
                    help="workload names separated by ';' (default: all)")  # fmt: skip
    ap.add_argument("--shared", action="store_true",
                    help="every workload in one process per side and round (default: each "
                         "workload in a fresh process)")  # fmt: skip
    args = ap.parse_args()
    names = [w for w in args.workloads.split(";") if w] or WORKLOADS
    runs: dict[str, list[dict[str, list[float]]]] = {"A": [], "B": []}
    for r in range(args.rounds):
        for side, python in (("A", args.a), ("B", args.b)):
            if args.shared:
                runs[side].append(run(python, args.docs, args.calls, ";".join(names)))
            else:
                got: dict[str, list[float]] = {}
                for name in names:
                    got.update(run(python, args.docs, args.calls, name))
                runs[side].append(got)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"{'workload':<22} {'A s':>8} {'B s':>8} {'B/A':>6}  same")
    worst = 0.0
    for name in runs["A"][0]:
        a = statistics.median(x[name][0] for x in runs["A"])
        b = statistics.median(x[name][0] for x in runs["B"])
        same = runs["A"][0][name][1] == runs["B"][0][name][1]
        worst = max(worst, b / a)
        print(f"{name:<22} {a:>8.4f} {b:>8.4f} {b / a:>6.2f}  {same}")
    print(f"largest B/A: {worst:.2f} ({args.rounds} rounds, {args.docs} documents)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
