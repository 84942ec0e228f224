"""Time of ``explain(text, exact=True)`` (with its derivation and posterior) against the
length of the text, before and after the exact products (``nbayes._families._exact``).

"before" is the algorithm nbayes used until then, run here on the same model in the same
process, interleaved with "after": the smoothed total of each class as a sum of one
Fraction per vocabulary word, the joint probability multiplied factor by factor (each
step reducing an ever longer fraction), the posterior from those fractions. Both must give
the same exact joint probabilities (checked at every length both run). Prints the median
of ``--repeat`` runs per length, the ratio, and the time per token (flat when linear); and
the time of the explanation's displays (``to_latex()``, ``to_html()``, ``to_markdown()``:
what a notebook and ``nbayes explain --format`` show) after it, also per token.

Usage::

    python benchmarks/bench_exact_explain.py            # ~1 min on 2 cores
    python benchmarks/bench_exact_explain.py --lengths 1 100 10000 --before-max 10000
"""

from __future__ import annotations

import argparse
import statistics
import time
from fractions import Fraction
from typing import Any

import numpy as np
from _machine import machine

import nbayes
from nbayes._families._common import Factor, as_fraction
from nbayes.data import load_sms_spam


def before(model: Any, text: str) -> tuple[list[Fraction], str]:
    """The exact joint probabilities and the decision the way nbayes computed them
    before: per class, the total over the vocabulary as Fractions, then the product one
    factor at a time, then the posterior's sum and divisions."""
    e = model.explain(text)  # the float explanation (cheap) for the counted row
    scorer = model._scorer()
    stats = scorer.stats
    x = np.zeros(stats.n_features)
    cols = [model.vocabulary_[t] for t in e.feature_names]
    x[cols] = e.values
    alpha = [as_fraction(a) for a in np.broadcast_to(float(model.alpha), (stats.n_features,))]
    present = np.flatnonzero(x)
    n_total = int(round(float(stats.class_count.sum())))
    joint = []
    for c in range(len(stats.classes)):
        fc = np.asarray(stats.feature_count[c])
        total = sum(
            (int(round(float(v))) + a for v, a in zip(fc, alpha, strict=True)),
            start=as_fraction(0),
        )
        row = [Factor(int(j), int(round(fc[j])) + alpha[j], total, int(x[j])) for j in present]
        value = Fraction(int(round(stats.class_count[c])), n_total)
        for f in row:
            value *= f.value
        joint.append(value)
    s = sum(joint, Fraction(0))
    post = [v / s for v in joint]
    return joint, str(stats.classes[max(range(len(post)), key=lambda i: post[i])])


def after(model: Any, text: str) -> tuple[Any, str]:
    e = model.explain(text, exact=True)
    e.derivation()
    return e, str(e.prediction)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lengths", type=int, nargs="+",
                    default=[1, 10, 100, 1000, 3000, 10000, 30000, 100000])  # fmt: skip
    ap.add_argument("--before-max", type=int, default=30000,
                    help="longest text the old algorithm is run on (it grows fast)")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    texts, labels = load_sms_spam()
    model = nbayes.TextClassifier().fit(texts, labels)
    words = " ".join(texts).split()
    while len(words) < max(args.lengths):
        words = words + words
    print(machine(f"numpy {np.__version__}"))
    print(f"model: TextClassifier of {len(texts):,} SMS, {len(model.vocabulary_):,} terms")
    print(f"{'tokens':>8}{'before s':>11}{'after s':>10}{'after/before':>14}"
          f"{'after us/token':>16}{'views s':>10}{'views us/token':>16}  same joint")  # fmt: skip
    for n in args.lengths:
        text = " ".join(words[:n])
        t_before: list[float] = []
        t_after: list[float] = []
        t_views: list[float] = []
        same = "-"
        for _ in range(args.repeat):
            if n <= args.before_max:
                t = time.perf_counter()
                old_joint, old_label = before(model, text)
                t_before.append(time.perf_counter() - t)
            t = time.perf_counter()
            e, label = after(model, text)
            t_after.append(time.perf_counter() - t)
            t = time.perf_counter()
            e.to_latex(), e.to_html(), e.to_markdown()
            t_views.append(time.perf_counter() - t)
            if n <= args.before_max and same == "-":
                same = str(list(e.joint.values()) == old_joint and label == old_label)
        b = statistics.median(t_before) if t_before else float("nan")
        a = statistics.median(t_after)
        v = statistics.median(t_views)
        ratio = f"{a / b:.4f}" if t_before else "-"
        print(f"{n:>8,}{b:>11.4f}{a:>10.4f}{ratio:>14}{a / n * 1e6:>16.1f}{v:>10.4f}"
              f"{v / n * 1e6:>16.1f}  {same}", flush=True)  # fmt: skip
    print(f"(medians of {args.repeat} interleaved runs; before: up to {args.before_max:,} tokens)")


if __name__ == "__main__":
    main()
