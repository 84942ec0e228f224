"""Moments per class and feature, combined exactly: the statistics of Gaussian Naive Bayes.

Count, mean and the sum of squared deviations ``M2`` combine with the pairwise update of
Chan, Golub and LeVeque (1979), never through ``E[x^2] - mean^2``, which cancels
catastrophically; :func:`_subtract` is its exact inverse (``unlearn``).

The mean is kept to twice the float precision, as ``mean + mean_low`` (``mean`` the
correctly rounded mean, ``mean_low`` what rounding left out), and every combination works
with the *offsets* of the means from one shift, the mean it starts from, never with
``count * mean``: at an offset of 1e8 with a standard deviation of 1, ``count * mean``
loses eight digits of the deviations, and unlearning drifted by 4e-7 relative in the
variance. About the shift the terms are of the size of the deviations, so unlearning
equals a fit without the rows to rounding, and an ``M2`` left below the rounding bound of
the sums it came from (a constant feature) is zero, as a fit gives it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Self

import numpy as np

from .base import (
    _NEGATIVE_TOL,
    FloatArray,
    PerClassStats,
    _check_not_negative,
    class_codes,
)

__all__ = ["MomentStats"]

# A deficit of M2 beyond _NEGATIVE_TOL of the sums it was computed from is data that was
# never learned; a residue (either sign) below _RESIDUE of them is rounding: zero.
_RESIDUE = 1e-12


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a + b`` as the rounded sum and its exact rounding error (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _expand(n: Any, like: np.ndarray) -> Any:
    """Counts broadcast against the moments (per class: a trailing feature axis)."""
    return np.asarray(n)[..., None] if np.ndim(like) > np.ndim(n) else n


def _combine(
    n_a: Any, hi_a: np.ndarray, lo_a: np.ndarray, m2_a: np.ndarray,
    n_b: Any, hi_b: np.ndarray, lo_b: np.ndarray, m2_b: np.ndarray,
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The moments of two disjoint sets (Chan, Golub & LeVeque), about the shift ``hi_a``."""
    n = n_a + n_b
    na, nb = _expand(n_a, hi_a), _expand(n_b, hi_b)
    nn = na + nb
    base = np.where(na > 0, hi_a, hi_b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        off_a = (hi_a - base) + lo_a
        off_b = (hi_b - base) + lo_b
        off = np.where(nn > 0, (na * off_a + nb * off_b) / nn, 0.0)
        delta = off_b - off_a
        m2 = np.where(nn > 0, m2_a + m2_b + delta**2 * (na * nb / nn), 0.0)
    hi, lo = _two_sum(base, off)
    # A side with no weight contributes nothing: keep the other side bit for bit.
    keep_a, keep_b = nb == 0, (na == 0) & (nb > 0)
    hi = np.where(keep_a, hi_a, np.where(keep_b, hi_b, hi))
    lo = np.where(keep_a, lo_a, np.where(keep_b, lo_b, lo))
    m2 = np.where(keep_a, m2_a, np.where(keep_b, m2_b, m2))
    return n, hi, lo, m2


def _subtract(
    n: Any, hi: np.ndarray, lo: np.ndarray, m2: np.ndarray,
    n_b: Any, hi_b: np.ndarray, lo_b: np.ndarray, m2_b: np.ndarray, what: str,
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Invert :func:`_combine`: the moments of the rest once set ``b`` is removed."""
    n_a = _check_not_negative(what, n - n_b, n)
    na, nb, nt = _expand(n_a, hi), _expand(n_b, hi), _expand(n, hi)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        off_b = (hi_b - hi) + lo_b
        off_a = np.where(na > 0, (nt * lo - nb * off_b) / na, 0.0)
        gap = np.where(na > 0, (off_b - off_a) ** 2 * (na * nb / nt), 0.0)
        m2_a = m2 - m2_b - gap
    scale = m2 + m2_b + gap
    if np.any(m2_a < -_NEGATIVE_TOL * scale):
        raise ValueError(
            "Cannot unlearn these examples: the sum of squared deviations would become "
            f"negative (down to {float(np.min(m2_a))!r}), so they were never learned by this "
            "model (or were already unlearned). Nothing was changed."
        )
    m2_a = np.where((m2_a <= _RESIDUE * scale) | (na <= 0), 0.0, m2_a)
    hi_a, lo_a = _two_sum(hi, off_a)
    hi_a, lo_a = np.where(na > 0, hi_a, 0.0), np.where(na > 0, lo_a, 0.0)
    unchanged = nb == 0
    return (
        n_a,
        np.where(unchanged, hi, hi_a),
        np.where(unchanged, lo, lo_a),
        np.where(unchanged, m2, m2_a),
    )


def _chan_merge(
    n_a: Any, mean_a: np.ndarray, m2_a: np.ndarray,
    n_b: Any, mean_b: np.ndarray, m2_b: np.ndarray,
) -> tuple[Any, np.ndarray, np.ndarray]:  # fmt: skip
    """Combine (count, mean, M2) of two disjoint sets, means in plain floats."""
    zero_a, zero_b = np.zeros_like(mean_a), np.zeros_like(mean_b)
    n, mean, _, m2 = _combine(n_a, mean_a, zero_a, m2_a, n_b, mean_b, zero_b, m2_b)
    return n, mean, m2


def _moments(X: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Weighted count, mean (rounded, and its low part) and M2 of the rows of X."""
    total = float(w.sum())
    d = X.shape[1]
    if total <= 0:
        return 0.0, np.zeros(d), np.zeros(d), np.zeros(d)
    with np.errstate(over="ignore", invalid="ignore"):
        hi = (w @ X) / total
        dev = X - hi
        lo = (w @ dev) / total
        raw = w @ dev**2
        m2 = raw - total * lo**2
    hi, lo = _two_sum(hi, lo)
    return total, hi, lo, np.where(m2 <= _RESIDUE * raw, 0.0, m2)


@dataclass(frozen=True, eq=False)
class MomentStats(PerClassStats):
    """Per class and feature: weighted count, mean and M2 (sum of squared deviations).

    ``mean_low`` is the part of the mean below the precision of ``mean`` (the mean is
    ``mean + mean_low`` to twice the float precision; zeros for statistics built from
    ``mean`` alone, e.g. model files written before it existed).

    ``n_rows``, ``row_mean`` (``row_mean_low``) and ``row_m2`` are the unweighted moments
    of all rows seen, whatever their class: the variance floor ``epsilon_`` of Gaussian
    Naive Bayes is derived from them (as scikit-learn does from the data of ``fit``), so it
    no longer depends on how the data was split into batches.
    """

    PER_CLASS = ("class_count", "mean", "m2", "mean_low")
    classes: np.ndarray
    class_count: FloatArray
    mean: FloatArray
    m2: FloatArray
    n_rows: float
    row_mean: FloatArray
    row_m2: FloatArray
    mean_low: FloatArray = field(default=None)  # type: ignore[arg-type]
    row_mean_low: FloatArray = field(default=None)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        # built from the rounded means alone (old model files): no low parts
        if self.mean_low is None:
            object.__setattr__(self, "mean_low", np.zeros_like(self.mean, dtype=np.float64))
        if self.row_mean_low is None:
            object.__setattr__(self, "row_mean_low", np.zeros_like(self.row_mean, dtype=np.float64))

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
        hi, lo, m2 = (np.zeros((len(classes), d)) for _ in range(3))
        for i in range(len(classes)):
            mask = codes == i
            counts[i], hi[i], lo[i], m2[i] = _moments(X[mask], sample_weight[mask])
        n_rows, row_hi, row_lo, row_m2 = _moments(X, np.ones(X.shape[0]))
        return cls(classes, counts, hi, m2, n_rows, row_hi, row_m2, lo, row_lo)

    @property
    def n_features(self) -> int:
        return int(self.mean.shape[1])

    def merge(self, other: Self) -> Self:
        a, b = self._merged_pair(other)
        count, mean, low, m2 = _combine(
            a.class_count, a.mean, a.mean_low, a.m2, b.class_count, b.mean, b.mean_low, b.m2
        )
        n_rows, row_mean, row_low, row_m2 = _combine(
            np.float64(a.n_rows), a.row_mean, a.row_mean_low, a.row_m2,
            np.float64(b.n_rows), b.row_mean, b.row_mean_low, b.row_m2,
        )  # fmt: skip
        return replace(
            a, class_count=count, mean=mean, mean_low=low, m2=m2,
            n_rows=float(n_rows), row_mean=row_mean, row_mean_low=row_low, row_m2=row_m2,
        )  # fmt: skip

    def subtract(self, other: Self) -> Self:
        b = self._removed(other)
        count, mean, low, m2 = _subtract(
            self.class_count, self.mean, self.mean_low, self.m2,
            b.class_count, b.mean, b.mean_low, b.m2, "class count",
        )  # fmt: skip
        n_rows, row_mean, row_low, row_m2 = _subtract(
            np.float64(self.n_rows), self.row_mean, self.row_mean_low, self.row_m2,
            np.float64(b.n_rows), b.row_mean, b.row_mean_low, b.row_m2, "number of rows",
        )  # fmt: skip
        out = replace(
            self, class_count=count, mean=mean, mean_low=low, m2=m2,
            n_rows=float(n_rows), row_mean=row_mean, row_mean_low=row_low, row_m2=row_m2,
        )  # fmt: skip
        return out.drop_emptied(other.classes)
