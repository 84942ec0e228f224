"""In-process cost of explaining documents with a loaded text model: the first prediction,
the first ``explain`` after it, then the median of ``--calls`` further ``explain`` calls
(what a notebook or ``nbayes serve`` pays per document once the model is warm).

Each interpreter (``--a`` the baseline, ``--b`` the change; each with nbayes installed)
runs the worker below in a fresh process, interleaved a, b, a, b for ``--rounds`` rounds, on
the same model file (``--model``: e.g. a word-bigram model of 20 Newsgroups made by
``nbayes train --ngrams 1-2 [--model bernoulli]``). Prints the medians of the rounds and the
ratios b / a; checks that both sides explain every document alike.

Usage::

    python benchmarks/bench_explain_calls.py --a /tmp/venv-head/bin/python \\
        --b /tmp/venv-new/bin/python --model /tmp/20ng_bernoulli_bigram.nbayes
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _interleaved import interleaved, median
from _machine import machine

WORKER = r"""
import json, statistics, sys, time
import nbayes
docs = [
    "Does anyone know how the goalie did in the game last night? The Flyers won.",
    "I think the new graphics card drivers for windows are faster than the old ones",
    "For sale: a used bike, good condition, call after five",
    "The launch of the shuttle was delayed again by the weather at the cape",
]
model = nbayes.load(sys.argv[1])
calls = int(sys.argv[2])
t = time.perf_counter(); model.predict(docs[:1]); first_predict = time.perf_counter() - t
t = time.perf_counter(); model.explain(docs[1]); first_explain = time.perf_counter() - t
times = []
for i in range(calls):
    t = time.perf_counter()
    model.explain(docs[i % len(docs)])
    times.append(time.perf_counter() - t)
answers = [str(model.explain(d)) for d in docs]
print(json.dumps({"first_predict": first_predict, "first_explain": first_explain,
                  "explain": statistics.median(times), "answers": answers}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="baseline interpreter (with nbayes installed)")
    ap.add_argument("--b", required=True, help="interpreter of the change")
    ap.add_argument("--model", type=Path, required=True, help="a text model file")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=20, help="explain calls timed per process")
    args = ap.parse_args()
    argv = ["-c", WORKER, str(args.model), str(args.calls)]
    got = interleaved({"a": args.a, "b": args.b}, argv, args.rounds)
    same = got["a"][0]["answers"] == got["b"][0]["answers"]
    print(machine())
    print(f"model {args.model} ({args.model.stat().st_size / 1e6:.0f} MB); "
          f"explanations identical: {same}")  # fmt: skip
    print(f"{'':<22}{'a':>10}{'b':>10}{'b/a':>8}")
    for name in ("first_predict", "first_explain", "explain"):
        a = median(got["a"], name)
        b = median(got["b"], name)
        print(f"{name + ' s':<22}{a:>10.4f}{b:>10.4f}{b / a:>8.2f}")
    print(f"(medians of {args.rounds} rounds; explain: median of {args.calls} calls each)")


if __name__ == "__main__":
    main()
