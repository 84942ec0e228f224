"""Sufficient statistics of a kernel density estimate: the stored points and their weights.

A Gaussian KDE has no finite summary: its statistics are the data. :class:`PointStats`
keeps, per feature, the sorted distinct values seen and, per class, the total weight of each
(identical values are stored once, with their weights added, which changes no density). So

* ``merge`` is the union of the points (weights of equal values add),
* ``subtract`` removes points exactly; removing a value that was never stored is an error,
* missing values (NaN) are skipped feature by feature (used by ``MixedNB``).

**Binned mode** (``max_points``). When a feature holds more than ``max_points`` distinct
values, its values are snapped to a grid of bins ``[m·w, (m+1)·w)`` whose width ``w`` is a
power of two, the *smallest* one for which at most ``max_points`` bins are occupied; the
density then uses the bin centres ``(m + 1/2)·w``. Because such grids nest (a bin of width
``2w`` is two bins of width ``w``) and occupancy only falls as ``w`` grows, the grid is a
function of the set of values alone: ``merge(fit(A), fit(B))`` equals ``fit(A ∪ B)``
exactly, whatever the batches. ``subtract`` removes counts exactly on the model's grid but
keeps its width (the finer grid the remaining data might allow cannot be recovered from
counts): ``unlearn`` then equals ``fit`` of the remaining data *on the same grid*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Self

import numpy as np
from numpy.typing import NDArray

from .base import (
    PerClassStats,
    _check_not_negative,
    class_codes,
)

__all__ = ["PointStats", "grid_width"]

FloatArray = NDArray[np.float64]

# weights this close to zero after a subtraction are rounding noise of float sample weights
_ZERO_TOL = 1e-12


def _occupied(values: FloatArray, width: float) -> int:
    return int(np.unique(np.floor(values / width)).size)


def grid_width(values: FloatArray, max_points: int, min_width: float = 0.0) -> float:
    """The bin width of the binned estimate: 0.0 (exact) or a power of two.

    The smallest power of two ``w >= min_width`` for which the sorted distinct ``values``
    occupy at most ``max_points`` bins ``[m·w, (m+1)·w)``; 0.0 when ``min_width`` is 0 and
    there are at most ``max_points`` distinct values.

    Examples
    --------
    >>> import numpy as np
    >>> grid_width(np.arange(10.0), max_points=4)
    4.0
    >>> grid_width(np.arange(3.0), max_points=4)
    0.0
    """
    if min_width <= 0 and len(values) <= max_points:
        return 0.0
    if min_width > 0:
        k = math.frexp(min_width)[1] - 1
        while _occupied(values, 2.0**k) > max_points:
            k += 1
        return float(2.0**k)
    span = float(values[-1] - values[0])
    k = math.floor(math.log2(span / max_points)) if span > 0 else 0
    if _occupied(values, 2.0**k) <= max_points:
        while _occupied(values, 2.0 ** (k - 1)) <= max_points:
            k -= 1
    else:
        while _occupied(values, 2.0**k) > max_points:
            k += 1
    return float(2.0**k)


def _snap(values: FloatArray, weights: FloatArray, width: float) -> tuple[FloatArray, FloatArray]:
    """Move values to the left edges of their bins of ``width``; weights of a bin add."""
    if width <= 0:
        return values, weights
    edges = np.floor(values / width) * width
    new, inv = np.unique(edges, return_inverse=True)
    out = np.zeros((weights.shape[0], len(new)))
    np.add.at(out.T, inv.reshape(-1), weights.T)
    return new, out


def _on_union(
    va: FloatArray, wa: FloatArray, vb: FloatArray, wb: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    values = np.union1d(va, vb)
    a = np.zeros((wa.shape[0], len(values)))
    b = np.zeros((wb.shape[0], len(values)))
    a[:, np.searchsorted(values, va)] = wa
    b[:, np.searchsorted(values, vb)] = wb
    return values, a, b


@dataclass(frozen=True, eq=False)
class PointStats(PerClassStats):
    """Stored points of a Gaussian KDE per class and feature (see the module docstring).

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    class_count : ndarray of shape (n_classes,)
        Weighted number of rows per class.
    values : tuple of ndarray
        Per feature, the sorted distinct stored values (binned: the left bin edges).
    weights : tuple of ndarray of shape (n_classes, n_values_j)
        Per feature, the weight of each stored value in each class.
    widths : ndarray of shape (n_features,)
        Per feature, 0.0 (exact points) or the bin width of the binned estimate.
    max_points : int or None
        Largest number of stored values per feature before binning (None: never bin).

    Examples
    --------
    >>> import numpy as np
    >>> a = PointStats.from_batch(np.array([[1.0], [2.0]]), np.array([0, 1]), np.ones(2))
    >>> b = PointStats.from_batch(np.array([[2.0]]), np.array([1]), np.ones(1))
    >>> both = a.merge(b)
    >>> both.values[0], both.weights[0]
    (array([1., 2.]), array([[1., 0.],
           [0., 2.]]))
    >>> both.subtract(b).weights[0]
    array([[1., 0.],
           [0., 1.]])
    """

    PER_CLASS = ("class_count", "weights")
    classes: np.ndarray
    class_count: FloatArray
    values: tuple[FloatArray, ...]
    weights: tuple[FloatArray, ...]
    widths: FloatArray
    max_points: int | None = None

    @classmethod
    def empty(cls, classes: np.ndarray, n_features: int, max_points: int | None = None) -> Self:
        n = len(classes)
        return cls(
            np.asarray(classes),
            np.zeros(n),
            tuple(np.zeros(0) for _ in range(n_features)),
            tuple(np.zeros((n, 0)) for _ in range(n_features)),
            np.zeros(n_features),
            max_points,
        )

    @classmethod
    def from_batch(
        cls,
        X: Any,
        y: np.ndarray,
        sample_weight: np.ndarray,
        max_points: int | None = None,
    ) -> Self:
        """Statistics of one batch; NaN values are skipped (for their feature only)."""
        X = np.asarray(X, dtype=np.float64)
        classes, codes = class_codes(y)
        n = len(classes)
        class_count = np.bincount(codes, weights=sample_weight, minlength=n).astype(np.float64)
        values, weights, widths = [], [], []
        for j in range(X.shape[1]):
            col = X[:, j]
            keep = ~np.isnan(col) & (sample_weight > 0)
            v, idx = np.unique(col[keep], return_inverse=True)
            k = len(v)
            flat = codes[keep].astype(np.int64) * k + idx.reshape(-1)
            w: FloatArray = (
                np.bincount(flat, weights=sample_weight[keep], minlength=n * k)
                .reshape(n, k)
                .astype(np.float64)
            )
            width = grid_width(v, max_points) if max_points is not None else 0.0
            v, w = _snap(v, w, width)
            values.append(v)
            weights.append(w)
            widths.append(width)
        return cls(
            classes, class_count, tuple(values), tuple(weights), np.asarray(widths), max_points
        )

    @property
    def n_features(self) -> int:
        return len(self.values)

    def feature_count(self) -> FloatArray:
        """Weight of the observed (non-missing) values per class and feature."""
        n = len(self.classes)
        return np.column_stack([w.sum(axis=1) for w in self.weights] or [np.zeros((n, 0))])

    def points(self, j: int) -> FloatArray:
        """Where the kernels of feature ``j`` stand: the values, or the bin centres."""
        return self.values[j] + self.widths[j] / 2 if self.widths[j] > 0 else self.values[j]

    def merge(self, other: Self) -> Self:
        a, b = self._merged_pair(other)
        values, weights, widths = [], [], []
        for j in range(self.n_features):
            width = float(max(a.widths[j], b.widths[j]))
            va, wa = _snap(a.values[j], a.weights[j], width)
            vb, wb = _snap(b.values[j], b.weights[j], width)
            v, wa, wb = _on_union(va, wa, vb, wb)
            w = wa + wb
            if self.max_points is not None:
                width = grid_width(v, self.max_points, width)
                v, w = _snap(v, w, width)
            values.append(v)
            weights.append(w)
            widths.append(width)
        return replace(
            a,
            class_count=a.class_count + b.class_count,
            values=tuple(values),
            weights=tuple(weights),
            widths=np.asarray(widths),
        )

    def subtract(self, other: Self) -> Self:
        b = self._removed(other)
        values, weights = [], []
        for j in range(self.n_features):
            width = float(self.widths[j])
            if b.widths[j] > width:
                raise ValueError(
                    f"Cannot unlearn these examples: feature {j} of them is binned more "
                    f"coarsely (bin width {b.widths[j]!r}) than the model (bin width "
                    f"{width!r}), so they were never learned by it. Nothing was changed."
                )
            vb, wb = _snap(b.values[j], b.weights[j], width)
            unknown = ~np.isin(vb, self.values[j]) & (wb.sum(axis=0) > 0)
            if unknown.any():
                what = "bin starting at" if width > 0 else "value"
                raise ValueError(
                    f"Cannot unlearn these examples: feature {j} has the {what} "
                    f"{float(vb[unknown][0])!r}, which the model never stored. Unlearn only "
                    "rows that were learned. Nothing was changed."
                )
            wa = self.weights[j]
            full = np.zeros_like(wa)
            full[:, np.searchsorted(self.values[j], vb)] = wb
            w = _check_not_negative("weight of a stored point", wa - full, wa)
            w = np.where(w <= _ZERO_TOL * np.maximum(np.abs(wa), 1.0), 0.0, w)
            used = w.sum(axis=0) > 0
            values.append(self.values[j][used])
            weights.append(w[:, used])
        class_count = _check_not_negative(
            "class count", self.class_count - b.class_count, self.class_count
        )
        out = replace(self, class_count=class_count, values=tuple(values), weights=tuple(weights))
        return out.drop_emptied(other.classes)
