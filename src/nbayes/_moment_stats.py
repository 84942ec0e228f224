"""Moments per class and feature, combined exactly: the statistics of Gaussian Naive Bayes.

Count, mean and the sum of squared deviations ``M2`` combine with the pairwise update of
Chan, Golub and LeVeque (1979), never through ``E[x^2] - mean^2``, which cancels
catastrophically; :func:`_chan_subtract` is its exact inverse (``unlearn``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Self

import numpy as np

from ._stats import (
    _NEGATIVE_TOL,
    FloatArray,
    PerClassStats,
    _check_not_negative,
    _check_subtract_classes,
    class_codes,
    union_classes,
)

__all__ = ["MomentStats"]


def _chan_merge(
    n_a: Any, mean_a: np.ndarray, m2_a: np.ndarray,
    n_b: Any, mean_b: np.ndarray, m2_b: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Combine (count, mean, M2) of two disjoint sets (Chan, Golub & LeVeque)."""
    n = n_a + n_b
    with np.errstate(divide="ignore", invalid="ignore"):
        na = np.asarray(n_a)[..., None] if np.ndim(mean_a) > np.ndim(n_a) else n_a
        nb = np.asarray(n_b)[..., None] if np.ndim(mean_b) > np.ndim(n_b) else n_b
        nn = na + nb
        delta = mean_b - mean_a
        mean = np.where(nn > 0, (na * mean_a + nb * mean_b) / nn, 0.0)
        m2 = np.where(nn > 0, m2_a + m2_b + delta**2 * na * nb / nn, 0.0)
    # A side with no weight contributes nothing: keep the other side bit for bit.
    mean = np.where(nb == 0, mean_a, np.where(na == 0, mean_b, mean))
    m2 = np.where(nb == 0, m2_a, np.where(na == 0, m2_b, m2))
    return n, mean, m2


def _chan_subtract(
    n: Any, mean: np.ndarray, m2: np.ndarray,
    n_b: Any, mean_b: np.ndarray, m2_b: np.ndarray, what: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Invert :func:`_chan_merge`: the moments of the rest once set ``b`` is removed."""
    n_a = _check_not_negative(what, n - n_b, n)
    expand = np.ndim(mean) > np.ndim(n)
    na = n_a[..., None] if expand else n_a
    nb = np.asarray(n_b)[..., None] if expand else n_b
    nt = np.asarray(n)[..., None] if expand else n
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_a = np.where(na > 0, (nt * mean - nb * mean_b) / na, 0.0)
        m2_a = np.where(na > 0, m2 - m2_b - (mean_a - mean_b) ** 2 * na * nb / nt, 0.0)
    mean_a = np.where(nb == 0, mean, mean_a)
    m2_a = np.where(nb == 0, m2, m2_a)
    # Rounding noise in M2 scales with the raw sum of squares, not with M2 itself: only a
    # deficit beyond that is data that was never learned. Below it, clip to zero.
    raw = np.abs(m2) + nt * mean**2
    if np.any(m2_a < -_NEGATIVE_TOL * raw):
        raise ValueError(
            "Cannot unlearn these examples: the sum of squared deviations would become "
            f"negative (down to {float(np.min(m2_a))!r}), so they were never learned by this "
            "model (or were already unlearned). Nothing was changed."
        )
    m2_a = np.where(m2_a < 0, 0.0, m2_a)
    return n_a, mean_a, m2_a


def _moments(X: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    total = float(w.sum())
    if total <= 0:
        return 0.0, np.zeros(X.shape[1]), np.zeros(X.shape[1])
    mean = (w @ X) / total
    m2 = w @ (X - mean) ** 2
    return total, mean, m2


@dataclass(frozen=True, eq=False)
class MomentStats(PerClassStats):
    """Per class and feature: weighted count, mean and M2 (sum of squared deviations).

    ``n_rows``, ``row_mean`` and ``row_m2`` are the unweighted moments of all rows seen,
    whatever their class: the variance floor ``epsilon_`` of Gaussian Naive Bayes is derived
    from them (as scikit-learn does from the data of ``fit``), so it no longer depends on how
    the data was split into batches.
    """

    PER_CLASS = ("class_count", "mean", "m2")
    classes: np.ndarray
    class_count: FloatArray
    mean: FloatArray
    m2: FloatArray
    n_rows: float
    row_mean: FloatArray
    row_m2: FloatArray

    @classmethod
    def empty(cls, classes: np.ndarray, n_features: int) -> Self:
        n = len(classes)
        return cls(
            np.asarray(classes), np.zeros(n), np.zeros((n, n_features)),
            np.zeros((n, n_features)), 0.0, np.zeros(n_features), np.zeros(n_features),
        )  # fmt: skip

    @classmethod
    def from_batch(cls, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray) -> Self:
        X = np.asarray(X, dtype=np.float64)
        classes, codes = class_codes(y)
        d = X.shape[1]
        counts = np.zeros(len(classes))
        means = np.zeros((len(classes), d))
        m2s = np.zeros((len(classes), d))
        for i in range(len(classes)):
            mask = codes == i
            counts[i], means[i], m2s[i] = _moments(X[mask], sample_weight[mask])
        n_rows, row_mean, row_m2 = _moments(X, np.ones(X.shape[0]))
        return cls(classes, counts, means, m2s, n_rows, row_mean, row_m2)

    @property
    def n_features(self) -> int:
        return int(self.mean.shape[1])

    def merge(self, other: Self) -> Self:
        self._check_compatible(other)
        classes = union_classes(self.classes, other.classes)
        a, b = self.reindex(classes), other.reindex(classes)
        count, mean, m2 = _chan_merge(a.class_count, a.mean, a.m2, b.class_count, b.mean, b.m2)
        n_rows, row_mean, row_m2 = _chan_merge(
            np.float64(a.n_rows), a.row_mean, a.row_m2,
            np.float64(b.n_rows), b.row_mean, b.row_m2,
        )  # fmt: skip
        return replace(
            a, class_count=count, mean=mean, m2=m2,
            n_rows=float(n_rows), row_mean=row_mean, row_m2=row_m2,
        )  # fmt: skip

    def subtract(self, other: Self) -> Self:
        self._check_compatible(other)
        _check_subtract_classes(other.classes, self.classes)
        b = other.reindex(self.classes)
        count, mean, m2 = _chan_subtract(
            self.class_count, self.mean, self.m2, b.class_count, b.mean, b.m2, "class count"
        )
        n_rows, row_mean, row_m2 = _chan_subtract(
            np.float64(self.n_rows), self.row_mean, self.row_m2,
            np.float64(b.n_rows), b.row_mean, b.row_m2, "number of rows",
        )  # fmt: skip
        out = replace(
            self, class_count=count, mean=mean, m2=m2,
            n_rows=float(n_rows), row_mean=row_mean, row_m2=row_m2,
        )  # fmt: skip
        return out.drop_emptied(other.classes)
