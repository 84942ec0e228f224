"""Fit and predict speed of nbayes against scikit-learn and against the floor (run by hand).

Usage::

    PYTHONPATH=src python benchmarks/bench_core.py [--rows 200000] [--features 100000]

Builds a random CSR count matrix (Zipf-like columns, ~50 non-zeros a row: ~10^7 non-zeros
at the default size) with 20 classes and times, best of 3 with ``time.perf_counter``:

* the floor of a multinomial fit: one sparse product ``Y^T X`` with ``Y`` the one-hot
  (n x 20) CSR matrix of the labels;
* ``MultinomialNB().fit`` and ``BernoulliNB().fit`` of scikit-learn and of nbayes;
* ``predict_proba`` of both on 50k rows (after the first, deriving, call);
* 100 ``partial_fit`` batches of 2k rows followed by one ``predict_proba``: scikit-learn
  re-derives ``feature_log_prob_`` after every batch, nbayes on first use.

It checks that both libraries learn the same ``feature_count_`` and predict the same
probabilities, and prints every time with the ratios nbayes/floor and nbayes/sklearn
measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy
import scipy.sparse as sp
import sklearn
from sklearn import naive_bayes as skl

import nbayes

N_CLASSES = 20


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls, and the result of the last one."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def race(fns: dict[str, Callable[[], Any]], repeat: int = 3) -> dict[str, tuple[float, Any]]:
    """Best-of-``repeat`` times of several functions, interleaved (a, b, a, b, ...) so that
    a change of machine load affects them alike; with the result of each one's last call."""
    best = dict.fromkeys(fns, float("inf"))
    out: dict[str, Any] = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            out[name] = fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return {name: (best[name], out[name]) for name in fns}


def make_data(
    n_rows: int, n_features: int, nnz_per_row: float, seed: int = 0
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Zipf-like word counts: column k is drawn with probability ~ 1/(k + 2.7)^1.07."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, size=n_rows)
    lengths = rng.poisson(nnz_per_row, size=n_rows)
    total = int(lengths.sum())
    p = 1.0 / (np.arange(n_features) + 2.7) ** 1.07
    cdf = np.cumsum(p / p.sum())
    # each class prefers a different slice of the vocabulary: shift the ranks by class
    cols = np.searchsorted(cdf, rng.random(total), side="right").clip(max=n_features - 1)
    rows = np.repeat(np.arange(n_rows), lengths)
    cols = (cols + 37 * y[rows]) % n_features
    counts = rng.geometric(0.6, size=total).astype(np.int64)
    X = sp.csr_matrix((counts, (rows, cols)), shape=(n_rows, n_features))
    X.sum_duplicates()
    X.sort_indices()
    return X, y


def one_hot(y: np.ndarray) -> sp.csr_matrix:
    n = len(y)
    return sp.csr_matrix((np.ones(n), (np.arange(n), y)), shape=(n, N_CLASSES), dtype=np.float64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--nnz-per-row", type=float, default=50.0)
    parser.add_argument("--predict-rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rep = args.repeat

    t0 = time.perf_counter()
    X, y = make_data(args.rows, args.features, args.nnz_per_row)
    Q = X[: args.predict_rows]
    print(
        f"data: {X.shape[0]:,} x {X.shape[1]:,} CSR, {X.nnz:,} non-zeros ({X.data.dtype}), "
        f"{N_CLASSES} classes; built in {time.perf_counter() - t0:.1f} s"
    )
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, nbayes {nbayes.__version__}"
    )

    rows: list[tuple[str, float, float | None, float | None]] = []

    # (a) the floor: one sparse product Y^T X, (b) scikit-learn's fit, (c) ours
    Y = one_hot(y)
    fit = race(
        {
            "floor": lambda: Y.T @ X,
            "sk": lambda: skl.MultinomialNB().fit(X, y),
            "nb": lambda: nbayes.MultinomialNB().fit(X, y),
            # nbayes derives lazily: the first prediction pays for feature_log_prob_
            "nb+derive": lambda: nbayes.MultinomialNB().fit(X, y).feature_log_prob_,
        },
        rep,
    )
    (t_floor, prod), (t_sk, sk_m), (t_nb, nb_m) = fit["floor"], fit["sk"], fit["nb"]
    t_nb_derive = fit["nb+derive"][0]
    rows.append(("floor: Y^T X (sparse one-hot Y)", t_floor, None, None))
    rows.append(("sklearn MultinomialNB.fit", t_sk, None, None))
    rows.append(("nbayes  MultinomialNB.fit", t_nb, t_nb / t_floor, t_nb / t_sk))
    rows.append(("nbayes  MultinomialNB.fit + derive", t_nb_derive, t_nb_derive / t_floor,
                 t_nb_derive / t_sk))  # fmt: skip
    assert np.array_equal(nb_m.feature_count_, sk_m.feature_count_), "feature_count_ differ"
    assert np.array_equal(nb_m.feature_count_, prod.toarray()), "feature_count_ != Y^T X"

    # (d) predict_proba on the first rows
    nb_m.predict_proba(Q[:1])  # derive once, outside the timing (as sklearn's fit does)
    pred = race({"sk": lambda: sk_m.predict_proba(Q), "nb": lambda: nb_m.predict_proba(Q)}, rep)
    (t_skp, p_sk), (t_nbp, p_nb) = pred["sk"], pred["nb"]
    rows.append((f"sklearn MultinomialNB.predict_proba ({Q.shape[0]:,})", t_skp, None, None))
    rows.append((f"nbayes  MultinomialNB.predict_proba ({Q.shape[0]:,})", t_nbp, None,
                 t_nbp / t_skp))  # fmt: skip
    assert np.allclose(p_nb, p_sk, rtol=1e-9, atol=1e-12), "predict_proba differ"

    # BernoulliNB (binarize copies X in both)
    bern = race(
        {"sk": lambda: skl.BernoulliNB().fit(X, y), "nb": lambda: nbayes.BernoulliNB().fit(X, y)},
        rep,
    )
    (t_skb, sk_b), (t_nbb, nb_b) = bern["sk"], bern["nb"]
    rows.append(("sklearn BernoulliNB.fit", t_skb, None, None))
    rows.append(("nbayes  BernoulliNB.fit", t_nbb, t_nbb / t_floor, t_nbb / t_skb))
    assert np.array_equal(nb_b.feature_count_, sk_b.feature_count_), "Bernoulli counts differ"
    nb_b.predict_proba(Q[:1])
    predb = race({"sk": lambda: sk_b.predict_proba(Q), "nb": lambda: nb_b.predict_proba(Q)}, rep)
    (t_skbp, pb_sk), (t_nbbp, pb_nb) = predb["sk"], predb["nb"]
    rows.append((f"sklearn BernoulliNB.predict_proba ({Q.shape[0]:,})", t_skbp, None, None))
    rows.append((f"nbayes  BernoulliNB.predict_proba ({Q.shape[0]:,})", t_nbbp, None,
                 t_nbbp / t_skbp))  # fmt: skip
    assert np.allclose(pb_nb, pb_sk, rtol=1e-9, atol=1e-12), "Bernoulli predict_proba differ"

    # 100 partial_fit batches of 2k rows, then one predict_proba
    batch, n_batches = 2_000, 100
    n_stream = min(batch * n_batches, X.shape[0])
    batches = [(X[i : i + batch], y[i : i + batch]) for i in range(0, n_stream, batch)]
    classes = np.arange(N_CLASSES)

    def stream(model: Any) -> Any:
        for Xb, yb in batches:
            model.partial_fit(Xb, yb, classes=classes)
        return model, model.predict_proba(Q)

    streamed = race(
        {"sk": lambda: stream(skl.MultinomialNB()), "nb": lambda: stream(nbayes.MultinomialNB())},
        rep,
    )
    (t_sks, (sk_s, ps_sk)), (t_nbs, (nb_s, ps_nb)) = streamed["sk"], streamed["nb"]
    label = f"{len(batches)} x partial_fit({batch:,}) + predict_proba"
    rows.append((f"sklearn {label}", t_sks, None, None))
    rows.append((f"nbayes  {label}", t_nbs, None, t_nbs / t_sks))
    assert np.array_equal(nb_s.feature_count_, sk_s.feature_count_), "streamed counts differ"
    assert np.allclose(ps_nb, ps_sk, rtol=1e-9, atol=1e-12), "streamed predict_proba differ"
    fit_nb_m = t_nb

    width = max(len(r[0]) for r in rows)
    print()
    print(f"{'operation':<{width}}  {'seconds':>9}  {'nb/floor':>8}  {'nb/sklearn':>10}")
    print("-" * (width + 35))
    for name, secs, vs_floor, vs_sk in rows:
        f = f"{vs_floor:8.2f}" if vs_floor is not None else " " * 8
        s = f"{vs_sk:10.2f}" if vs_sk is not None else " " * 10
        print(f"{name:<{width}}  {secs:9.4f}  {f}  {s}")
    print()
    print("checks: feature_count_ equal (fit, Bernoulli, streamed) and equal to Y^T X; "
          "predict_proba equal to rtol 1e-9")  # fmt: skip
    goals = [
        ("nbayes MultinomialNB.fit <= 1.2 x floor", fit_nb_m <= 1.2 * t_floor),
        ("nbayes MultinomialNB.fit <= sklearn", fit_nb_m <= t_sk),
        ("nbayes BernoulliNB.fit <= sklearn", t_nbb <= t_skb),
        ("nbayes predict_proba <= sklearn (multinomial)", t_nbp <= t_skp),
        ("nbayes predict_proba <= sklearn (bernoulli)", t_nbbp <= t_skbp),
        ("nbayes streaming <= sklearn", t_nbs <= t_sks),
    ]
    for text, ok in goals:
        print(f"  [{'met' if ok else 'MISSED'}] {text}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (times are best of {rep}, interleaved)")


if __name__ == "__main__":
    main()
