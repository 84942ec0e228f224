"""Load and predict times of a saved 20 Newsgroups TextClassifier, and the pickle of a
partition model's vocabulary (issue 14 item 9: the packed vocabulary must not make a load
or a prediction slower).

* the 20-class unigram model of the 20 Newsgroups training set (130 k terms) is fitted,
  saved, then loaded (``nbayes.load``, ``nbayes.load_scorer``) and used to predict the
  7,532 test documents: the first prediction after a load (it derives the model and
  builds the lookup table) and a warm one, and one document just after a load;
* a partition model (the first 1,150 training documents, ~22 k terms: what a Dask
  partition ships) is pickled and unpickled, its vocabulary alone and the whole model.

Each figure is the best of several runs (times on a shared machine are noisy).

Usage::

    python benchmarks/bench_vocabulary_speed.py [--data DIR]
"""

from __future__ import annotations

import argparse
import csv
import os
import pickle
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path("/work/shared/data/20newsgroups_bydate")


def _texts(path: Path) -> tuple[list[str], list[str]]:
    csv.field_size_limit(1 << 30)
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[1:]
    return [r[0] for r in rows], [r[1] for r in rows]


def best(f: Callable[[], Any], n: int = 5) -> tuple[float, Any]:
    """The shortest of ``n`` runs of ``f`` (seconds) and its last result."""
    times, out = [], None
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    import nbayes

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the 20 Newsgroups bydate folder")
    args = ap.parse_args()
    X, y = _texts(args.data / "20news_bydate_train.csv")
    Xt, yt = _texts(args.data / "20news_bydate_test.csv")
    path = os.path.join(tempfile.mkdtemp(), "m.nbayes")
    nbayes.save(nbayes.TextClassifier().fit(X, y), path)

    def after_load(docs: list[str]) -> float:
        model = nbayes.load(path)
        t = time.perf_counter()
        model.predict(docs)
        return time.perf_counter() - t

    t_load, model = best(lambda: nbayes.load(path))
    t_scorer, _ = best(lambda: nbayes.load_scorer(path))
    t_first = min(after_load(Xt) for _ in range(3))
    t_warm, pred = best(lambda: model.predict(Xt))
    t_one = min(after_load(Xt[:1]) for _ in range(5))
    acc = float((pred == np.asarray(yt)).mean())
    print(
        f"file {os.path.getsize(path) / 1e6:.1f} MB: load {t_load * 1e3:.1f} ms, load_scorer "
        f"{t_scorer * 1e3:.1f} ms, first predict(7532) after a load {t_first * 1e3:.0f} ms, "
        f"warm predict(7532) {t_warm * 1e3:.0f} ms, first predict(1 document) after a load "
        f"{t_one * 1e3:.1f} ms, accuracy {acc:.4f}"
    )
    part = nbayes.TextClassifier().fit(X[:1150], y[:1150])
    vocabulary = part._stats.vocabulary
    t_dump, blob = best(lambda: pickle.dumps(vocabulary, protocol=5), 20)
    t_undump, _ = best(lambda: pickle.loads(blob), 20)
    t_dump_m, blob_m = best(lambda: pickle.dumps(part, protocol=5), 20)
    t_undump_m, _ = best(lambda: pickle.loads(blob_m), 20)
    print(
        f"partition of {len(vocabulary)} terms: Vocabulary pickle {t_dump * 1e3:.2f} ms "
        f"({len(blob)} bytes), unpickle {t_undump * 1e3:.2f} ms; model pickle "
        f"{t_dump_m * 1e3:.2f} ms ({len(blob_m)} bytes), unpickle {t_undump_m * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
