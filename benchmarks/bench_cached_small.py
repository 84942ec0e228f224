"""A/B of the per-call overhead of predicting and explaining with small models, where the
cached derivation's reads are a visible share of a call (``bench_cached_paths.py`` times
the same calls on 20 Newsgroups models).

Each interpreter (``--a`` the baseline, ``--b`` the change) runs the worker below in a
fresh process, interleaved a, b, a, b for ``--rounds`` rounds: a TextClassifier of the
SMS slice in ``tests/data`` and a MultinomialNB of a random 200 x 20 count table, then per
call the best of 7 repeats of 1,000 calls. Prints the medians over the rounds and b / a.

Usage::

    python benchmarks/bench_cached_small.py --a /tmp/venv-main/bin/python \\
        --b .venv/bin/python --rounds 10
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _interleaved import interleaved, print_ratios
from _machine import machine

SMS = Path(__file__).resolve().parents[1] / "tests" / "data" / "sms_slice.csv"

WORKER = r"""
import csv, json, sys, timeit
import numpy as np
from nbayes import MultinomialNB, TextClassifier

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")][1:]
clf = TextClassifier().fit([r[0] for r in rows], [r[1] for r in rows])
q = ["free entry to win a prize call now"]
rng = np.random.default_rng(0)
X = rng.integers(0, 5, size=(200, 20))
mnb = MultinomialNB().fit(X, rng.integers(0, 3, 200))
calls = {
    "predict_one": lambda: clf.predict(q),
    "explain": lambda: clf.explain(q[0]),
    "likelihood": lambda: clf.likelihood(),
    "mnb_predict": lambda: mnb.predict(X[:1]),
    "mnb_explain": lambda: mnb.explain(X[0]),
}
for f in calls.values():
    f()
print(json.dumps({
    name: min(timeit.repeat(f, number=1000, repeat=7)) / 1000 for name, f in calls.items()
}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="baseline interpreter (with nbayes installed)")
    ap.add_argument("--b", required=True, help="interpreter of the change")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    got = interleaved({"a": args.a, "b": args.b}, ["-c", WORKER, str(SMS)], args.rounds)
    print(machine())
    print_ratios(got, got["a"][0], width=16, digits=2)
    print(f"(medians of {args.rounds} interleaved rounds; each the best of 7 x 1,000 calls)")


if __name__ == "__main__":
    main()
