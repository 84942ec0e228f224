"""Multinomial event model: a document is a bag of word draws from P(w | y)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._statistics import CountStats
from ._base import Derived, Family, ParameterBlock, exact_alpha_of, log_range
from ._common import Factor, FloatArray, as_fraction, check_alpha, class_log_prior, log, log_dot


def smoothed_log_prob(feature_count: FloatArray, alpha: Any) -> FloatArray:
    """log (count + alpha) / (total + alpha·V), row by row; an empty unsmoothed row is -inf."""
    # in C order whatever the counts' layout (as _common.row_major, without a second copy)
    smoothed = np.add(feature_count, alpha, dtype=np.float64, order="C")
    totals = smoothed.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        flp = np.log(smoothed, out=smoothed)  # in place: one C x V array, not two
        flp -= log(totals)
    if np.min(alpha) > 0:
        return flp  # every smoothed count is positive: no 0/0
    return np.where(np.isnan(flp), -np.inf, flp)


class MultinomialFamily(Family):
    name = "multinomial"
    exact_supported = True

    def linear_form(
        self, d: Derived, cols: np.ndarray | None = None
    ) -> tuple[FloatArray, FloatArray] | None:
        flp = d["feature_log_prob"] if cols is None else d["feature_log_prob"][:, cols]
        return np.ascontiguousarray(flp.T), np.asarray(d["class_log_prior"], dtype=np.float64)

    def derive(self, stats: CountStats, p: dict[str, Any]) -> Derived:
        alpha = check_alpha(p["alpha"], p["force_alpha"], stats.n_features)
        return {
            "alpha": alpha,
            "feature_log_prob": smoothed_log_prob(stats.feature_count, alpha),
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
        }

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        return self.log_likelihood(d, X) + d["class_log_prior"]

    def log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        """``X @ log P(w | y)``, sparse or dense X (no per-feature array is built)."""
        return log_dot(X, d["feature_log_prob"])

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        return count_terms(np.asarray(X, dtype=np.float64), d["feature_log_prob"])

    def exact_factors(
        self, stats: CountStats, p: dict[str, Any], x: np.ndarray
    ) -> list[list[Factor]]:
        present = np.flatnonzero(x)
        if np.any(x[present] != np.round(x[present])):
            raise ValueError("exact=True needs whole-number counts in x.")
        # per word of the row only: the smoothed total is one exact sum per class, not a
        # sum of a Fraction per vocabulary word
        alpha, alpha_total = exact_alpha_at(p["alpha"], stats.n_features, present)
        powers = [int(v) for v in x[present].tolist()]
        out = []
        for c in range(len(stats.classes)):
            counts = np.asarray(stats.feature_count[c], dtype=np.float64)
            total = exact_int_sum(counts) + alpha_total
            seen = np.rint(counts[present]).tolist()
            out.append([
                Factor(int(j), int(k) + a, total, n, reduced=a != 0)
                for j, k, a, n in zip(present.tolist(), seen, alpha, powers, strict=True)
            ])  # fmt: skip
        return out

    def parameters(self, stats: CountStats, p: dict[str, Any], d: Derived) -> list[ParameterBlock]:
        # P(w | y) = (count of w in class y + alpha) / (words of class y + V alpha)
        return [word_block("P(w | y)", r"P(w \mid y)", stats.feature_count, p["alpha"], d)]

    def sample(
        self, d: Derived, stats: CountStats, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        # Document lengths: Poisson with the mean length of the class's training documents.
        prob = np.exp(d["feature_log_prob"])
        X = np.zeros((len(codes), stats.n_features))
        mean_len = mean_length(stats)
        for c in np.unique(codes):
            rows = np.flatnonzero(codes == c)
            lengths = rng.poisson(mean_len[c], size=len(rows))
            pc = (
                prob[c] / prob[c].sum()
                if prob[c].sum() > 0
                else np.full(len(prob[c]), 1 / len(prob[c]))
            )
            X[rows] = [rng.multinomial(n, pc) for n in lengths]
        return X

    def sample_sequences(
        self, d: Derived, stats: CountStats, codes: np.ndarray, rng: np.random.Generator
    ) -> list[np.ndarray]:
        """Documents as sequences of feature (word) indices drawn from P(w | y), row by row:
        a Poisson length with the class's mean document length, then the words one by one."""
        prob = np.exp(d["feature_log_prob"])
        mean_len = mean_length(stats)
        V = stats.n_features
        out = []
        for c in codes:
            length = rng.poisson(mean_len[c]) if V else 0
            words: Any = rng.choice(V, size=length, p=prob[c] / prob[c].sum()) if length else []
            out.append(np.asarray(words, dtype=np.int64))
        return out

    def n_parameters(self, stats: CountStats, full_joint: bool, doc_length: int | None) -> float:
        C, V = len(stats.classes), stats.n_features
        if not full_joint:
            return C * max(V - 1, 0) + C - 1
        if doc_length is None:
            return math.inf
        return C * (math.comb(doc_length + V - 1, doc_length) - 1) + C - 1

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        return log_range(d["feature_log_prob"], among)


def count_terms(X: FloatArray, W: FloatArray) -> FloatArray:
    """``x_j · W_yj`` per row, class and feature, 0 where ``x_j = 0`` (also for W = -inf)."""
    x = X[:, None, :]
    with np.errstate(invalid="ignore"):
        return np.asarray(np.where(x > 0, x * W, 0.0), dtype=np.float64)


def mean_length(stats: CountStats) -> FloatArray:
    """Mean number of counts (words) in a class's rows (documents); 0 for an empty class."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(
            np.where(
                stats.class_count > 0, stats.feature_count.sum(axis=1) / stats.class_count, 0.0
            ),
            dtype=np.float64,
        )


def word_block(
    symbol: str, latex: str, counts: Any, alpha: Any, d: Derived, log_prob: Any = None
) -> ParameterBlock:
    """``(counts + alpha) / (row total + V·alpha)`` per class and word (the multinomial
    estimate; the complement's of the other classes' counts)."""
    V = counts.shape[1]
    exact = exact_alpha_of(alpha, V)
    totals = np.asarray(counts, dtype=np.float64).sum(axis=1)
    scalar = not isinstance(exact, list)
    extra = None if scalar else exact_alpha_at(alpha, V, np.arange(0))[1]
    flp = d["feature_log_prob"] if log_prob is None else log_prob
    return ParameterBlock(
        symbol, latex, list(range(V)), np.exp(flp), counts=counts, totals=totals,
        alpha=exact, k=V if scalar else None, extra=extra,
    )  # fmt: skip


def exact_alpha(alpha: Any, n_features: int) -> list[Any]:
    values = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_features,))
    return [as_fraction(a) for a in values]


def exact_alpha_at(alpha: Any, n_features: int, cols: np.ndarray) -> tuple[list[Any], Any]:
    """The exact alpha of the columns ``cols``, and the sum of alpha over every column
    (each distinct value converted once)."""
    if np.ndim(alpha) == 0:
        a = as_fraction(float(alpha))
        return [a] * len(cols), a * n_features
    values = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_features,))
    distinct, times = np.unique(values, return_counts=True)
    total = sum((as_fraction(v) * int(k) for v, k in zip(distinct, times, strict=True)),
                start=as_fraction(0))  # fmt: skip
    return [as_fraction(a) for a in values[cols].tolist()], total


def exact_int_sum(values: np.ndarray) -> int:
    """The sum of whole-number floats, exact (each rounded as :func:`as_int` rounds)."""
    whole = np.rint(np.asarray(values, dtype=np.float64))
    if whole.size == 0:
        return 0
    if float(np.abs(whole).max()) * whole.size < 2.0**62:  # int64 sums it exactly
        return int(whole.astype(np.int64).sum())
    return sum(int(v) for v in whole.tolist())


def as_int(value: float) -> int:
    return int(round(float(value)))
