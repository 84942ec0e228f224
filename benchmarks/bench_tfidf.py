"""``TfidfVectorizer().fit_transform``: nbayes (compiled counting) against scikit-learn.

On a real corpus from /work/shared/data (20 Newsgroups bydate train, or IMDB train), the
two vectorizers run in turn in one process (interleaved rounds, so the machine's noise
falls on both alike); prints each side's median time and the median over the rounds of the
ratio scikit-learn / nbayes (above 1: nbayes is faster). The outputs are asserted
identical bit for bit first (vocabulary, idf_, and the CSR arrays in stored order).
``NBAYES_NUM_THREADS=1`` limits nbayes's kernels to one thread (scikit-learn's counting has
one).

Usage::

    /work/venv/bin/python benchmarks/bench_tfidf.py [--corpus news|imdb] [--rounds 7]
        [--ngram-range 1 2] [--sublinear-tf] [--min-df 1]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidf

from nbayes.text import TfidfVectorizer
from nbayes.text._drivers.threads import PARALLEL_MIN_CHARS, default_threads

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402

DATA = Path("/work/shared/data")
CORPORA = {
    "news": DATA / "20newsgroups_bydate" / "20news_bydate_train.csv",
    "imdb": DATA / "imdb" / "imdb_train.csv.gz",
}


def read_docs(path: Path) -> list[str]:
    csv.field_size_limit(sys.maxsize)
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        rows = csv.reader(f)
        assert next(rows) == ["text", "label"]
        return [row[0] for row in rows]


def assert_identical(ours: Any, ref: Any, X: Any, want: Any) -> None:
    assert ours.vocabulary_ == ref.vocabulary_ and list(ours.vocabulary_) == list(ref.vocabulary_)
    if ref.use_idf:
        assert np.array_equal(ours.idf_, ref.idf_)
    assert type(X) is type(want) and X.dtype == want.dtype and X.shape == want.shape
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(X, name), getattr(want, name)), name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="news")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--ngram-range", type=int, nargs=2, default=(1, 1))
    ap.add_argument("--sublinear-tf", action="store_true")
    ap.add_argument("--min-df", type=int, default=1)
    args = ap.parse_args()
    docs = read_docs(CORPORA[args.corpus])
    kw = {
        "ngram_range": tuple(args.ngram_range),
        "sublinear_tf": args.sublinear_tf,
        "min_df": args.min_df,
    }
    chars = sum(map(len, docs))
    threads = default_threads() if chars >= PARALLEL_MIN_CHARS else 1
    print(machine(f"scikit-learn {sklearn.__version__}"))
    print(f"{args.corpus}: {len(docs)} documents, {chars / 1e6:.1f} M characters; settings {kw};"
          f" nbayes kernel threads {threads}")  # fmt: skip

    ref, ours = SkTfidf(**kw), TfidfVectorizer(**kw)
    assert_identical(ours, ref, ours.fit_transform(docs), ref.fit_transform(docs))
    print("outputs identical bit for bit (vocabulary, idf_, CSR arrays)")

    times: dict[str, list[float]] = {"sklearn": [], "nbayes": []}
    ratios = []
    for i in range(args.rounds):
        order = ("sklearn", "nbayes") if i % 2 == 0 else ("nbayes", "sklearn")
        took = {}
        for side in order:
            vectorizer = SkTfidf(**kw) if side == "sklearn" else TfidfVectorizer(**kw)
            t = time.perf_counter()
            vectorizer.fit_transform(docs)
            took[side] = time.perf_counter() - t
            times[side].append(took[side])
        ratios.append(took["sklearn"] / took["nbayes"])
        print(f"round {i + 1}: sklearn {took['sklearn']:.3f} s, nbayes {took['nbayes']:.3f} s,"
              f" x{ratios[-1]:.2f}")  # fmt: skip
    sk, nb = statistics.median(times["sklearn"]), statistics.median(times["nbayes"])
    print(f"median: sklearn {sk:.3f} s, nbayes {nb:.3f} s; "
          f"median ratio sklearn/nbayes x{statistics.median(ratios):.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
