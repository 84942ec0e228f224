"""How often one batch of documents enters each module of ``nbayes.text``.

Issue 25 (item 7) asks that a batch's way through ``text/`` be a composition of a few steps
chosen once, entering no module more than twice. This traces one batch per scenario with
``sys.setprofile``: an *entry* is a call of a Python function of an ``nbayes.text`` module
from a frame of another module (a call within a module is not one; returns are not
counted; nor is a call back into a module still on the stack: a worker it hands to the
thread pool, ``--strict`` counts those too). Per scenario it prints the number of
entries of the most-entered module, the modules entered and the total, and the most
entries under ``--strict``'s count; ``--detail`` lists every module's entries.

Scenarios (20 short documents of three classes, deterministic): a fit, a Bernoulli fit
(its raw term frequencies), a weighted fit, a ``partial_fit`` of a fitted model (the
vocabulary extended), fits with word pairs ``(1, 2)`` and composed n-grams ``(1, 3)``,
hashed fits (unweighted, weighted, bigrams), ``fit_chunks`` batches (a vocabulary, hashed
unigrams, hashed bigrams: one chunk each), and ``predict`` of a fitted model (unigrams,
bigrams, hashed; the derivation made before the trace). A fit is traced through
``TextClassifier._batch`` (what the template calls with one batch), a chunk through
``nbayes.text._streaming.fit_chunks``, a prediction through ``predict``.

Usage::

    python benchmarks/trace_batch_path.py [--detail] [--max 2]

Exits 1 when a scenario enters some module more than ``--max`` times (default: no limit).
"""

from __future__ import annotations

import argparse
import collections
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from nbayes.text import TextClassifier
from nbayes.text import _streaming as streaming

WORDS = (
    "the cat sat on a mat while dogs ran after quick brown foxes and every bird sang "
    "loudly over green hills near rivers where fish swim slowly under bridges"
).split()


def corpus(n: int = 20) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(0)
    docs = [" ".join(rng.choice(WORDS, size=12).tolist()) for _ in range(n)]
    return docs, np.array(["a", "b", "c"] * (n // 3) + ["a"] * (n % 3))


def _on_stack(frame: Any, name: str) -> bool:
    """Whether a frame of module ``name`` is below ``frame`` (the module never left)."""
    back = frame.f_back
    while back is not None:
        if back.f_globals.get("__name__", "") == name:
            return True
        back = back.f_back
    return False


def entries(fn: Callable[[], Any], strict: bool = False) -> collections.Counter[str]:
    """The modules of nbayes.text that ``fn`` enters from other modules, with how often.

    A call back into a module that is still on the stack (a worker function it handed to
    the thread pool, a method of an object it is building) is not an entry: the way is
    still inside that module. ``strict``: every call from another module is one."""
    seen: collections.Counter[str] = collections.Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        name = frame.f_globals.get("__name__", "")
        if not name.startswith("nbayes.text"):
            return
        back = frame.f_back
        caller = back.f_globals.get("__name__", "") if back is not None else ""
        if caller != name and (strict or not _on_stack(back, name)):
            seen[name] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def scenarios() -> dict[str, Callable[[], Any]]:
    docs, y = corpus()
    more, y2 = corpus(25)
    more = [d + " zebra yak" for d in more]
    sw = np.linspace(0.5, 2.0, len(docs))

    def batch(est: TextClassifier, weighted: bool = False, reset: Any = True) -> Callable:
        return lambda: est._batch(docs, y, sw if weighted else None, reset)

    def chunk(**params: Any) -> Callable[[], Any]:
        est = TextClassifier(**params)
        return lambda: streaming.fit_chunks(est, [(docs, y)])

    def predict(**params: Any) -> Callable[[], Any]:
        est = TextClassifier(**params).fit(docs, y)
        est.predict(more[:3])  # the derivation, made before the trace
        return lambda: est.predict(more)

    fitted = TextClassifier().fit(docs, y)
    return {
        "fit": batch(TextClassifier()),
        "fit bernoulli": batch(TextClassifier(model="bernoulli")),
        "fit weighted": batch(TextClassifier(), weighted=True),
        "partial_fit (fitted)": lambda: fitted._batch(more, y2, None, False),
        "fit ngram (1,2)": batch(TextClassifier(ngram_range=(1, 2))),
        "fit ngram (1,3)": batch(TextClassifier(ngram_range=(1, 3))),
        "fit stop words": batch(TextClassifier(stop_words="english")),
        "fit hashing": batch(TextClassifier(hashing=True, n_features=2**10)),
        "fit hashing weighted": batch(TextClassifier(hashing=True, n_features=2**10), True),
        "fit hashing (1,2)": batch(TextClassifier(hashing=True, ngram_range=(1, 2))),
        "fit_chunks": chunk(),
        "fit_chunks hashing": chunk(hashing=True, n_features=2**10),
        "fit_chunks hashing (1,2)": chunk(hashing=True, n_features=2**10, ngram_range=(1, 2)),
        "predict": predict(),
        "predict ngram (1,2)": predict(ngram_range=(1, 2)),
        "predict hashing": predict(hashing=True, n_features=2**10),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--detail", action="store_true", help="every module's entries")
    ap.add_argument("--max", type=int, default=None, help="fail above this many entries")
    ap.add_argument("--strict", action="store_true", help="--detail of the strict count")
    args = ap.parse_args()
    worst = 0
    print(f"{'scenario':<28} {'max':>4} {'modules':>8} {'entries':>8} {'strict':>7}  most entered")
    for name, fn in scenarios().items():
        fn()  # warm-up: imports and first-use caches are not a batch's way
        seen = entries(fn)
        strict = entries(fn, strict=True)
        top, most = seen.most_common(1)[0]
        worst = max(worst, most)
        s_most = strict.most_common(1)[0][1]
        print(f"{name:<28} {most:>4} {len(seen):>8} {sum(seen.values()):>8} {s_most:>7}  {top}")
        if args.strict:
            seen = strict
        if args.detail:
            for mod, k in sorted(seen.items(), key=lambda kv: -kv[1]):
                print(f"{'':<30}{k:>3}  {mod}")
    print(f"most entries of one module in any scenario: {worst}")
    return 1 if args.max is not None and worst > args.max else 0


if __name__ == "__main__":
    sys.exit(main())
