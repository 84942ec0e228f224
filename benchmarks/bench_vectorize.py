"""Benchmark nbayes.text against scikit-learn (same run, same machine), asserting equality.

Measures, on 20 Newsgroups (train) and on the synthetic Zipfian corpus:

* ``CountVectorizer().fit_transform`` : scikit-learn vs nbayes (identical output asserted);
* ``CountVectorizer + MultinomialNB().fit`` vs ``nbayes.text.count_by_class``
  (``feature_count_`` equal to the class counts asserted);
* ``HashingVectorizer().transform`` : scikit-learn vs nbayes;
* one-document latency (median of 2,000 calls): ``sklearn CountVectorizer.transform([doc])``
  vs ``nbayes.text.transform_one``.

Usage::

    PYTHONPATH=src python benchmarks/bench_vectorize.py [--zipf-mb 100] [--skip-zipf]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer as SkCount
from sklearn.feature_extraction.text import HashingVectorizer as SkHash
from sklearn.naive_bayes import MultinomialNB

from nbayes.text import CountVectorizer, HashingVectorizer, count_by_class
from nbayes.text.vectorizers import transform_one

HERE = Path(__file__).resolve().parent
NEWS = Path("/work/shared/data/20newsgroups_bydate/20news_bydate_train.csv")


def read_csv(path: Path) -> tuple[list[str], list[str]]:
    csv.field_size_limit(1 << 30)
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    return [r[0] for r in rows[1:]], [r[1] for r in rows[1:]]


def timed(fn, repeat: int = 1):  # type: ignore[no-untyped-def]
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def same_csr(a, b) -> None:  # type: ignore[no-untyped-def]
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(a.indptr, b.indptr)
    assert np.array_equal(a.indices, b.indices)
    assert np.array_equal(a.data, b.data)


def bench_corpus(name: str, docs: list[str], labels: list[str], repeat: int) -> None:
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    classes, y = np.unique(labels, return_inverse=True)
    print(f"\n== {name}: {len(docs)} docs, {mb:.1f} MB, {len(classes)} classes ==")

    t_sk, sk = timed(lambda: (lambda v: (v, v.fit_transform(docs)))(SkCount()), repeat)
    t_nb, nb = timed(lambda: (lambda v: (v, v.fit_transform(docs)))(CountVectorizer()), repeat)
    assert sk[0].vocabulary_ == nb[0].vocabulary_
    assert list(sk[0].vocabulary_) == list(nb[0].vocabulary_)  # dict order too
    same_csr(sk[1], nb[1])
    print(
        f"CountVectorizer.fit_transform  sklearn {t_sk:7.2f} s {mb / t_sk:7.1f} MB/s | "
        f"nbayes {t_nb:7.2f} s {mb / t_nb:7.1f} MB/s | x{t_sk / t_nb:.1f}   "
        f"({len(nb[0].vocabulary_)} terms, identical)"
    )
    sk_vocab = sk[0].vocabulary_
    del sk, nb

    def both(cls):  # type: ignore[no-untyped-def]
        v = cls(ngram_range=(1, 2))
        return v, v.fit_transform(docs)

    t_sk2, sk2 = timed(lambda: both(SkCount), repeat)
    t_nb2, nb2 = timed(lambda: both(CountVectorizer), repeat)
    assert sk2[0].vocabulary_ == nb2[0].vocabulary_
    assert list(sk2[0].vocabulary_) == list(nb2[0].vocabulary_)
    same_csr(sk2[1], nb2[1])
    print(
        f"  same, ngram_range=(1, 2)     sklearn {t_sk2:7.2f} s {mb / t_sk2:7.1f} MB/s | "
        f"nbayes {t_nb2:7.2f} s {mb / t_nb2:7.1f} MB/s | x{t_sk2 / t_nb2:.1f}   "
        f"({len(nb2[0].vocabulary_)} terms, identical)"
    )
    del sk2, nb2

    def sk_nb() -> MultinomialNB:
        return MultinomialNB().fit(SkCount().fit_transform(docs), y)

    t_skm, model = timed(sk_nb, repeat)
    t_cbc, (vocab, counts, _) = timed(lambda: count_by_class(docs, y, len(classes)), repeat)
    assert vocab == sk_vocab
    assert np.array_equal(model.feature_count_, counts)
    print(
        f"CountVectorizer+MultinomialNB  sklearn {t_skm:7.2f} s {mb / t_skm:7.1f} MB/s | "
        f"count_by_class {t_cbc:7.2f} s {mb / t_cbc:7.1f} MB/s | x{t_skm / t_cbc:.1f}"
        "   (feature_count_ identical)"
    )

    t_skh, xh = timed(lambda: SkHash().transform(docs), repeat)
    t_nbh, xn = timed(lambda: HashingVectorizer().transform(docs), repeat)
    same_csr(xh, xn)
    print(
        f"HashingVectorizer.transform    sklearn {t_skh:7.2f} s {mb / t_skh:7.1f} MB/s | "
        f"nbayes {t_nbh:7.2f} s {mb / t_nbh:7.1f} MB/s | x{t_skh / t_nbh:.1f}   (identical)"
    )


def bench_latency(docs: list[str], n_calls: int = 2000) -> None:
    sk = SkCount().fit(docs)
    vocab = sk.vocabulary_
    short = [d for d in docs if 25 <= len(d.split()) <= 35][:50] or docs[:50]
    print(f"\n== one-document latency, median of {n_calls} calls, ~30-token documents ==")

    def med(fn) -> float:  # type: ignore[no-untyped-def]
        ts = []
        for i in range(n_calls):
            d = short[i % len(short)]
            t = time.perf_counter()
            fn(d)
            ts.append(time.perf_counter() - t)
        return statistics.median(ts) * 1e6

    ours_cv = CountVectorizer(vocabulary=vocab)
    ours_cv.fit(docs[:1])
    t_sk = med(lambda d: sk.transform([d]))
    t_one = med(lambda d: transform_one(d, vocab))
    t_cv = med(lambda d: ours_cv.transform([d]))
    print(f"sklearn CountVectorizer.transform([doc])  {t_sk:8.1f} us")
    print(f"nbayes transform_one(doc, vocab)          {t_one:8.1f} us   x{t_sk / t_one:.1f}")
    print(f"nbayes CountVectorizer.transform([doc])   {t_cv:8.1f} us   (compiled path, batch API)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--zipf-mb", type=float, default=100.0)
    ap.add_argument("--skip-zipf", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()

    # warm-up: numba compile / cache load is not part of the throughput figures
    t0 = time.perf_counter()
    docs, labels = read_csv(NEWS)
    few = docs[:40]  # past the tiny-batch cut-over, so every compiled path runs once
    for ngram in ((1, 1), (1, 2)):
        CountVectorizer(ngram_range=ngram).fit(few).transform(few)
    HashingVectorizer().transform(few)
    count_by_class(few, np.zeros(len(few), dtype=np.int64), 1)
    print(f"warm-up (numba cache load or compile): {time.perf_counter() - t0:.2f} s")

    bench_corpus("20 Newsgroups train", docs, labels, args.repeat)
    bench_latency(docs)

    if not args.skip_zipf:
        path = HERE / "_data" / f"zipf_{args.zipf_mb:g}mb.csv"
        if not path.exists():
            subprocess.run(
                [
                    sys.executable,
                    str(HERE / "make_zipf_corpus.py"),
                    "--size-mb",
                    str(args.zipf_mb),
                    "--out",
                    str(path),
                ],
                check=True,
            )
        docs, labels = read_csv(path)
        bench_corpus(f"Zipf synthetic {args.zipf_mb:g} MB", docs, labels, 1)


if __name__ == "__main__":
    main()
