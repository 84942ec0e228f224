"""A/B cost of the calls that read a model's cached derivation: one-document predictions,
batch probabilities, explanations (floating point and exact) and ``likelihood()``.

Issue 25, item 5 made those caches named values (``Cached`` entries, the text model's
``Selection``, one ``FittedLikelihood``) instead of tuples and string-keyed dicts; every
call below reads them, most more than once. Each interpreter (``--a`` the baseline, ``--b``
the change; each with nbayes installed) runs the worker below in a fresh process,
interleaved a, b, a, b for ``--rounds`` rounds. The worker fits a TextClassifier
(``--models``: multinomial, Bernoulli; a Bernoulli model's exact explanation, a
factor per known term, is not timed) on the 20 Newsgroups training
posts and a MultinomialNB on a small dense table (not timed), then times each call:
the median of ``--calls`` calls (``proba``: of 5 calls on 2,000 test posts). Prints the
medians of the rounds' medians, the ratio b / a (< 1: b is faster) and whether both
sides answered alike (probabilities, explanations). Standard library only.

Usage::

    python benchmarks/bench_cached_paths.py --a /tmp/venv-main/bin/python \\
        --b .venv/bin/python --rounds 7
"""

from __future__ import annotations

import argparse

from _interleaved import interleaved, print_ratios
from _machine import machine

WORKER = r"""
import csv, json, statistics, sys, time
import numpy as np
import nbayes
from nbayes import MultinomialNB, TextClassifier

csv.field_size_limit(sys.maxsize)
def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    return [r[0] for r in rows], [r[1] for r in rows]

news = "/work/shared/data/20newsgroups_bydate/"
train, y = read(news + "20news_bydate_train.csv")
test, _ = read(news + "20news_bydate_test.csv")
model, calls = sys.argv[1], int(sys.argv[2])
clf = TextClassifier(model=model).fit(train, y)
short = [" ".join(d.split()[:30]) for d in test[:50]]
rng = np.random.default_rng(0)
X = rng.integers(0, 5, size=(200, 20))
mnb = MultinomialNB().fit(X, rng.integers(0, 3, 200))

def timed(f, n):
    f(0)  # warm-up: the derivation, the weights, the compiled tables
    times = []
    for i in range(n):
        t = time.perf_counter(); f(i); times.append(time.perf_counter() - t)
    return statistics.median(times)

out = {
    "predict_one": timed(lambda i: clf.predict([short[i % 50]]), calls),
    "proba_2000": timed(lambda i: clf.predict_proba(test[:2000]), 5),
    "explain": timed(lambda i: clf.explain(short[i % 50]), calls),
    # a Bernoulli model's exact derivation has a factor per known term (~130,000)
    "explain_exact": None if model == "bernoulli" else
        timed(lambda i: clf.explain(short[i % 50][:80], exact=True), calls // 4),
    "likelihood": timed(lambda i: clf.likelihood(), calls),
    "mnb_predict_one": timed(lambda i: mnb.predict(X[i % 200 : i % 200 + 1]), calls),
    "mnb_explain": timed(lambda i: mnb.explain(X[i % 200]), calls),
}
answers = {
    "proba": np.round(clf.predict_proba(test[:200]), 12).tolist(),
    "explain": [str(clf.explain(d)) for d in short[:10]],
    "exact": [clf.explain(d[:80], exact=True).derivation() for d in short[:5]]
             if model == "multinomial" else None,
    "mnb": str(mnb.explain(X[0], exact=True)),
}
out["answers"] = answers
print(json.dumps(out))
"""

NAMES = (
    "predict_one",
    "proba_2000",
    "explain",
    "explain_exact",
    "likelihood",
    "mnb_predict_one",
    "mnb_explain",
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="baseline interpreter (with nbayes installed)")
    ap.add_argument("--b", required=True, help="interpreter of the change")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=400, help="calls timed per process")
    ap.add_argument(
        "--models",
        nargs="+",
        default=["multinomial"],
        choices=["multinomial", "bernoulli"],
        help="the TextClassifier models to time (Bernoulli: no exact explanation)",
    )
    args = ap.parse_args()
    pythons = {"a": args.a, "b": args.b}
    print(machine())
    for model in args.models:
        got = interleaved(pythons, ["-c", WORKER, model, str(args.calls)], args.rounds)
        same = got["a"][0]["answers"] == got["b"][0]["answers"]
        print(f"TextClassifier(model={model!r}) on 20NG train; answers identical: {same}")
        print_ratios(got, NAMES)
        print(f"(medians of {args.rounds} interleaved rounds; each the median of its calls)")


if __name__ == "__main__":
    main()
