"""What every statistics type shares: the per-class layout, class unions, and the checks
that make ``subtract`` refuse data never seen.

Every statistics object is immutable and knows its (sorted) ``classes``; arrays with the
class on axis 0 are laid out over other classes and dropped by :class:`PerClassStats`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any, ClassVar, Self

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FloatArray",
    "PerClassStats",
    "check_not_above",
    "class_codes",
    "conform_classes",
    "issparse",
    "readonly",
    "union_classes",
]

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


def check_not_above(
    part: np.ndarray, total: np.ndarray, what: str, labels: np.ndarray | None = None
) -> None:
    """After an unlearning: ``part <= total`` per class (``part`` of shape (n_classes, ...)
    or (n_classes,)), up to the rounding of float weights; else the ValueError of data
    never learned. What a fit gives always holds it: a feature present in at most every
    row of its class, a column observed in at most every row."""
    total = np.asarray(total, dtype=np.float64)
    bound = total + _NEGATIVE_TOL * np.maximum(np.abs(total), 1.0)
    part = np.asarray(part, dtype=np.float64)
    over = part > (bound[:, None] if part.ndim == 2 else bound)
    if over.any():
        c = int(np.flatnonzero(over.reshape(len(total), -1).any(axis=1))[0])
        label = c if labels is None else labels[c].item()
        raise ValueError(
            f"Cannot unlearn these examples: {what} would exceed the number of examples of "
            f"its class (class {label!r}: {float(np.max(part[c]))!r} > {float(total[c])!r}), so "
            "they were never learned by this model (or were already unlearned). Nothing was "
            "changed."
        )


def class_codes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique labels of ``y`` and the index of each row's label in them. Labels
    that are all strings come out as a numpy string array, as scikit-learn's
    ``unique_labels`` makes them (a pandas Series of str gave an object ``classes_``, and
    predictions that ``np.save`` stores only with pickle).

    >>> import numpy as np
    >>> class_codes(np.array(["spam", "ham", "spam"], dtype=object))
    (array(['ham', 'spam'], dtype='<U4'), array([1, 0, 1]))
    """
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            "The labels in y mix types that cannot be ordered (e.g. numbers and strings); "
            "use one label type throughout."
        ) from exc
    if classes.dtype == object and len(classes):
        labels = classes.tolist()
        if all(type(c) is str for c in labels):  # (a str subclass keeps its objects)
            classes = np.array(labels, dtype=str)
    elif classes.dtype.kind == "U" and len(classes):
        # as wide as the longest class, as scikit-learn's (and a loaded model's): labels
        # of dtype <U10 gave <U10 classes and predictions, <U2 after a save and load
        classes = np.array(classes.tolist(), dtype=str)
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

    def _merged_pair(self, other: Self) -> tuple[Self, Self]:
        """``self`` and ``other`` over the union of their classes, for a merge (checked to
        be over the same features)."""
        self._check_compatible(other)
        classes = union_classes(self.classes, other.classes)
        return self.reindex(classes), other.reindex(classes)

    def _removed(self, other: Self) -> Self:
        """``other`` over this statistics' classes, for subtracting it (checked to be over
        the same features and to remove no class this one does not hold)."""
        self._check_compatible(other)
        _check_subtract_classes(other.classes, self.classes)
        return other.reindex(self.classes)

    def _check_compatible(self, other: PerClassStats) -> None:
        if other.n_features != self.n_features:
            raise ValueError(
                f"Cannot combine statistics over {self.n_features} features with statistics "
                f"over {other.n_features} features."
            )


def readonly(arr: np.ndarray) -> np.ndarray:
    """A read-only view: fitted attributes expose the statistics without letting them drift."""
    return _readonly(arr)


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
