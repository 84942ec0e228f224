"""Sufficient statistics: the whole of a fitted Naive Bayes model, short of its hyperparameters.

Every statistics object is immutable and knows its (sorted) ``classes``. Three operations
make up all of training:

* ``from_batch(...)`` builds the statistics of one batch of rows (with sample weights);
* ``merge(other)`` adds two statistics: the statistics of the union of their data, with
  the classes united;
* ``subtract(other)`` is the exact inverse of ``merge``: it removes data that was added.

``fit`` is "empty, then merge", ``partial_fit`` is merge, ``unlearn`` is subtract, merging
two models merges their statistics and a distributed fit is a tree of merges.

Counts (:class:`CountStats`, :class:`CategoryStats`) add. Moments
(:class:`~nbayes._moment_stats.MomentStats`, in their own module) combine with the pairwise
update of Chan, Golub and LeVeque (1979).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np
from numpy.typing import NDArray

# MomentStats: nbayes._moment_stats
__all__ = ["CategoryStats", "CountStats", "conform_classes", "union_classes"]

FloatArray = NDArray[np.float64]

# Relative tolerance under which a count that subtract() drives below zero is rounding
# noise (float sample weights) rather than the removal of data that was never added.
_NEGATIVE_TOL = 1e-9


def union_classes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted union of two label arrays, with an advice-style error for mixed label types."""
    numeric_a, numeric_b = a.dtype.kind in "biuf", b.dtype.kind in "biuf"
    try:
        if len(a) and len(b) and numeric_a != numeric_b:
            raise TypeError("numbers and strings")
        return np.union1d(a, b)
    except TypeError as exc:
        raise ValueError(
            f"Cannot combine class labels {a.tolist()!r} and {b.tolist()!r}: they are of "
            "different types (e.g. numbers and strings). Use one label type throughout."
        ) from exc


def _positions(classes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Index of each label in ``classes`` (all labels must be present)."""
    return np.searchsorted(classes, labels)


def _expand_rows(arr: np.ndarray, pos: np.ndarray, n_rows: int) -> np.ndarray:
    out = np.zeros((n_rows,) + arr.shape[1:], dtype=arr.dtype)
    out[pos] = arr
    return out


def _readonly(arr: np.ndarray) -> np.ndarray:
    view = arr.view()
    view.flags.writeable = False
    return view


def _labels_not_known(labels: np.ndarray, classes: np.ndarray) -> np.ndarray:
    return labels[~np.isin(labels, classes)]


def _check_subtract_classes(removed: np.ndarray, classes: np.ndarray) -> None:
    unknown = _labels_not_known(removed, classes)
    if unknown.size:
        raise ValueError(
            f"Cannot unlearn examples of class(es) {unknown.tolist()!r}: the model has never "
            f"seen them (its classes are {classes.tolist()!r}). Nothing was changed."
        )


def _check_not_negative(name: str, value: np.ndarray, scale: np.ndarray | float) -> np.ndarray:
    """Snap rounding noise (|value| within 1e-9 of ``scale``) to zero; raise if ``value`` is
    really negative.

    With float weights, ``(a + b + c) - (c + b + a)`` can leave 1e-16 instead of 0: a class
    whose examples were all unlearned must still count 0 (and be dropped).
    """
    tol = _NEGATIVE_TOL * np.abs(scale)
    if np.any(value < -tol):
        raise ValueError(
            f"Cannot unlearn these examples: the {name} would become negative "
            f"(down to {float(np.min(value))!r}), so they were never learned by this model "
            "(or were already unlearned). Nothing was changed."
        )
    return np.where(value <= tol, 0.0, value)


def class_codes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique labels of ``y`` and the index of each row's label in them."""
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            "The labels in y mix types that cannot be ordered (e.g. numbers and strings); "
            "use one label type throughout."
        ) from exc
    return classes, codes.reshape(-1)


def issparse(X: Any) -> bool:
    """``scipy.sparse.issparse(X)`` without importing scipy: a sparse matrix exists only
    once scipy.sparse is loaded (the lean prediction path never loads it)."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and bool(sp.issparse(X))


def _class_sums(X: Any, codes: np.ndarray, weights: np.ndarray, n_classes: int) -> FloatArray:
    """Weighted per-class column sums, ``Y^T X``, without building Y.

    For CSR input this is one ``bincount`` over the non-zeros, which is faster than the
    sparse product ``Y^T X`` (see benchmarks/bench_core.py).
    """
    n_features = X.shape[1]
    if issparse(X):
        X = X.tocsr()
        row_nnz = np.diff(X.indptr)
        # flat index class * n_features + column of every non-zero, in one repeat + add
        flat = np.repeat(codes.astype(np.int64) * n_features, row_nnz)
        flat += X.indices
        data = X.data.astype(np.float64, copy=False)
        if not (weights == 1.0).all():
            data = data * np.repeat(weights, row_nnz)
        out = np.bincount(flat, weights=data, minlength=n_classes * n_features)
        return np.asarray(out, dtype=np.float64).reshape(n_classes, n_features)
    Y = np.zeros((X.shape[0], n_classes))
    Y[np.arange(X.shape[0]), codes] = weights
    return np.asarray(Y.T @ np.asarray(X, dtype=np.float64), dtype=np.float64)


class PerClassStats:
    """What every statistics class shares: arrays with the class on axis 0 (``PER_CLASS``
    names them; a field may also be a tuple of such arrays, one per feature) are laid out
    over other classes, dropped, and checked for a common number of features."""

    PER_CLASS: ClassVar[tuple[str, ...]] = ("class_count",)
    classes: np.ndarray
    class_count: FloatArray

    @property
    def n_features(self) -> int:
        raise NotImplementedError

    def _per_class(self, fn: Any) -> dict[str, Any]:
        out = {}
        for name in self.PER_CLASS:
            value = getattr(self, name)
            out[name] = tuple(fn(a) for a in value) if isinstance(value, tuple) else fn(value)
        return out

    def reindex(self, classes: np.ndarray) -> Self:
        """The same statistics over a superset of classes (zeros for the new ones)."""
        if len(classes) == len(self.classes) and np.array_equal(classes, self.classes):
            return self
        pos = _positions(classes, self.classes)
        n = len(classes)
        arrays = self._per_class(lambda a: _expand_rows(a, pos, n))
        return replace(self, classes=classes, **arrays)  # type: ignore[type-var]

    def drop_emptied(self, touched: np.ndarray) -> Self:
        """Drop the classes among ``touched`` whose count fell to zero."""
        keep = ~(np.isin(self.classes, touched) & (self.class_count <= 0))
        if keep.all():
            return self
        arrays = self._per_class(lambda a: a[keep])
        return replace(self, classes=self.classes[keep], **arrays)  # type: ignore[type-var]

    def _check_compatible(self, other: PerClassStats) -> None:
        if other.n_features != self.n_features:
            raise ValueError(
                f"Cannot combine statistics over {self.n_features} features with statistics "
                f"over {other.n_features} features."
            )


@dataclass(frozen=True, eq=False)
class CountStats(PerClassStats):
    """Class counts and per-class feature sums: Bernoulli, multinomial, complement, Poisson.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        Sorted class labels.
    class_count : ndarray of shape (n_classes,)
        Weighted number of rows per class.
    feature_count : ndarray of shape (n_classes, n_features)
        Weighted sum of each feature over the rows of each class.
    """

    PER_CLASS = ("class_count", "feature_count")
    classes: np.ndarray
    class_count: FloatArray
    feature_count: FloatArray

    @classmethod
    def empty(cls, classes: np.ndarray, n_features: int) -> Self:
        n = len(classes)
        return cls(np.asarray(classes), np.zeros(n), np.zeros((n, n_features)))

    @classmethod
    def from_batch(cls, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Self:
        classes, codes = class_codes(y)
        n = len(classes)
        class_count = np.bincount(codes, weights=sample_weight, minlength=n).astype(np.float64)
        return cls(classes, class_count, _class_sums(X, codes, sample_weight, n))

    @property
    def n_features(self) -> int:
        return int(self.feature_count.shape[1])

    def merge(self, other: Self) -> Self:
        self._check_compatible(other)
        classes = union_classes(self.classes, other.classes)
        a, b = self.reindex(classes), other.reindex(classes)
        return replace(
            a,
            class_count=a.class_count + b.class_count,
            feature_count=a.feature_count + b.feature_count,
        )

    def subtract(self, other: Self) -> Self:
        self._check_compatible(other)
        _check_subtract_classes(other.classes, self.classes)
        b = other.reindex(self.classes)
        class_count = _check_not_negative(
            "class count", self.class_count - b.class_count, self.class_count
        )
        feature_count = _check_not_negative(
            "feature count", self.feature_count - b.feature_count, self.feature_count
        )
        out = replace(self, class_count=class_count, feature_count=feature_count)
        return out.drop_emptied(other.classes)

    def is_integral(self) -> bool:
        return bool(
            np.all(self.class_count == np.round(self.class_count))
            and np.all(self.feature_count == np.round(self.feature_count))
        )


@dataclass(frozen=True, eq=False)
class CategoryStats(PerClassStats):
    """Class counts and, per feature, the weighted count of each category in each class.

    ``categories[j]`` holds the category values of feature ``j`` in column order. For integer
    coded input (scikit-learn's convention) the categories are ``0 .. K_j - 1``; string or
    other labelled categories are kept sorted.
    """

    PER_CLASS = ("class_count", "category_count")
    classes: np.ndarray
    class_count: FloatArray
    category_count: tuple[FloatArray, ...]
    categories: tuple[np.ndarray, ...]
    integer_coded: bool

    @classmethod
    def empty(cls, classes: np.ndarray, n_features: int, integer_coded: bool) -> Self:
        n = len(classes)
        kind = np.int64 if integer_coded else object
        return cls(
            np.asarray(classes),
            np.zeros(n),
            tuple(np.zeros((n, 0)) for _ in range(n_features)),
            tuple(np.zeros(0, dtype=kind) for _ in range(n_features)),
            integer_coded,
        )

    @classmethod
    def from_batch(
        cls,
        X: np.ndarray,
        y: np.ndarray,
        sample_weight: np.ndarray,
        integer_coded: bool,
        min_categories: np.ndarray | None = None,
    ) -> Self:
        classes, codes = class_codes(y)
        n = len(classes)
        class_count = np.bincount(codes, weights=sample_weight, minlength=n).astype(np.float64)
        counts = []
        cats = []
        # Rows of weight 0 are not data: their categories are not learned either.
        live = sample_weight > 0
        if not live.all():
            X, codes, sample_weight = X[live], codes[live], sample_weight[live]
        for j in range(X.shape[1]):
            column = X[:, j]
            if integer_coded:
                idx = column.astype(np.int64)
                k = int(idx.max()) + 1 if idx.size else 0
                if min_categories is not None:
                    k = max(k, int(min_categories[j]))
                values = np.arange(k, dtype=np.int64)
            else:
                values, idx = np.unique(column, return_inverse=True)
                idx = idx.reshape(-1)
                k = len(values)
            flat = codes.astype(np.int64) * k + idx
            cc = np.bincount(flat, weights=sample_weight, minlength=n * k).reshape(n, k)
            counts.append(cc.astype(np.float64))
            cats.append(values)
        return cls(classes, class_count, tuple(counts), tuple(cats), integer_coded)

    @property
    def n_features(self) -> int:
        return len(self.category_count)

    def with_categories(self, categories: Sequence[np.ndarray]) -> Self:
        """The same counts laid out over supersets of the categories (zeros for new ones)."""
        counts = []
        for cc, old, new in zip(self.category_count, self.categories, categories, strict=True):
            if len(old) == len(new) and np.array_equal(old, new):
                counts.append(cc)
                continue
            out = np.zeros((cc.shape[0], len(new)))
            out[:, np.searchsorted(new, old)] = cc
            counts.append(out)
        return replace(self, category_count=tuple(counts), categories=tuple(categories))

    def _united_categories(self, other: CategoryStats) -> list[np.ndarray]:
        if other.n_features != self.n_features:
            raise ValueError(
                f"Cannot combine statistics over {self.n_features} features with statistics "
                f"over {other.n_features} features."
            )
        if self.integer_coded != other.integer_coded:
            raise ValueError(
                "Cannot combine integer-coded categories with labelled (e.g. string) "
                "categories: encode every batch the same way."
            )
        if self.integer_coded:
            return [
                np.arange(max(len(a), len(b)), dtype=np.int64)
                for a, b in zip(self.categories, other.categories, strict=True)
            ]
        united = []
        for j, (a, b) in enumerate(zip(self.categories, other.categories, strict=True)):
            try:
                united.append(np.union1d(a, b))
            except TypeError as exc:
                raise ValueError(
                    f"Feature {j} mixes category values that cannot be ordered "
                    f"({a[:3].tolist()!r} and {b[:3].tolist()!r}); use one type per column."
                ) from exc
        return united

    def merge(self, other: Self) -> Self:
        cats = self._united_categories(other)
        classes = union_classes(self.classes, other.classes)
        a = self.reindex(classes).with_categories(cats)
        b = other.reindex(classes).with_categories(cats)
        return replace(
            a,
            class_count=a.class_count + b.class_count,
            category_count=tuple(
                x + z for x, z in zip(a.category_count, b.category_count, strict=True)
            ),
        )

    def subtract(self, other: Self) -> Self:
        cats = self._united_categories(other)
        _check_subtract_classes(other.classes, self.classes)
        for j, (mine, united) in enumerate(zip(self.categories, cats, strict=True)):
            if len(united) != len(mine):
                # Only a category seen with zero weight could be unknown here; a positive
                # count of it would make a negative count below, which says the same thing.
                if self.integer_coded:
                    extra = other.category_count[j][:, len(mine) :]
                else:
                    extra = other.category_count[j][:, ~np.isin(other.categories[j], mine)]
                if np.any(extra > 0):
                    raise ValueError(
                        f"Cannot unlearn these examples: feature {j} has categories the model "
                        "has never seen. Nothing was changed."
                    )
        b = other.reindex(self.classes).with_categories(cats)
        a = self.with_categories(cats)
        class_count = _check_not_negative(
            "class count", a.class_count - b.class_count, a.class_count
        )
        counts = tuple(
            _check_not_negative("category count", x - z, x)
            for x, z in zip(a.category_count, b.category_count, strict=True)
        )
        # Back to this model's own categories (the extra ones hold zeros, checked above).
        counts = tuple(
            c[:, np.searchsorted(u, mine)]
            for c, u, mine in zip(counts, cats, self.categories, strict=True)
        )
        out = replace(self, class_count=class_count, category_count=counts)
        return out.drop_emptied(other.classes).drop_unused_categories()

    def drop_unused_categories(self) -> Self:
        """Forget categories no class has left (as a fit without them would never know
        them); integer codes keep 0 .. largest code still seen."""
        counts, cats = [], []
        for cc, values in zip(self.category_count, self.categories, strict=True):
            used = cc.sum(axis=0) > 0
            if self.integer_coded:
                k = int(np.flatnonzero(used)[-1]) + 1 if used.any() else 0
                keep = np.arange(len(values)) < k
            else:
                keep = used
            counts.append(cc[:, keep] if not keep.all() else cc)
            cats.append(values[keep] if not keep.all() else values)
        return replace(self, category_count=tuple(counts), categories=tuple(cats))

    def with_min_categories(self, min_categories: np.ndarray | None) -> Self:
        """Pad integer-coded features to at least ``min_categories`` categories."""
        if min_categories is None or not self.integer_coded:
            return self
        cats = [
            np.arange(max(len(c), int(m)), dtype=np.int64)
            for c, m in zip(self.categories, min_categories, strict=True)
        ]
        return self.with_categories(cats)

    def is_integral(self) -> bool:
        return bool(
            np.all(self.class_count == np.round(self.class_count))
            and all(np.all(c == np.round(c)) for c in self.category_count)
        )


def readonly(arr: np.ndarray) -> np.ndarray:
    """A read-only view: fitted attributes expose the statistics without letting them drift."""
    return _readonly(arr)


_MOMENTS = ("MomentStats", "_chan_merge", "_moments")

if TYPE_CHECKING:
    from ._moment_stats import MomentStats, _chan_merge, _moments  # noqa: F401


def __getattr__(name: str) -> Any:
    # the moments live in nbayes._moment_stats (which builds on this module); found here
    # too, for their importers and for pickles that name them nbayes._stats.MomentStats
    if name in _MOMENTS:
        from . import _moment_stats

        return getattr(_moment_stats, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def conform_classes(stats: Any, classes: np.ndarray) -> Any:
    """The statistics over exactly ``classes`` (the labels of the training rows).

    ``subtract`` already drops the classes whose count falls to zero; this also drops
    rounding leftovers of fractional weights, and restores classes that the training rows
    hold with weight 0 only (``fit`` keeps those, with zero counts).
    """
    if len(stats.classes) == len(classes) and np.array_equal(stats.classes, classes):
        return stats
    extra = ~np.isin(stats.classes, classes)
    if extra.any():
        zeroed = replace(stats, class_count=np.where(extra, 0.0, stats.class_count))
        stats = zeroed.drop_emptied(stats.classes[extra])
    if len(stats.classes) != len(classes):
        stats = stats.reindex(classes)
    return stats
