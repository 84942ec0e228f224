"""Statistics that add: per-class feature sums (:class:`CountStats`: Bernoulli, multinomial,
complement, Poisson) and per-class category counts (:class:`CategoryStats`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Self

import numpy as np

from .base import (
    FloatArray,
    PerClassStats,
    _check_not_negative,
    _check_subtract_classes,
    _class_sums,
    check_not_above,
    class_codes,
    union_classes,
)

__all__ = ["CategoryStats", "CountStats"]


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
        a, b = self._merged_pair(other)
        return replace(
            a,
            class_count=a.class_count + b.class_count,
            feature_count=a.feature_count + b.feature_count,
        )

    def subtract(self, other: Self) -> Self:
        b = self._removed(other)
        class_count = _check_not_negative(
            "class count", self.class_count - b.class_count, self.class_count
        )
        feature_count = _check_not_negative(
            "feature count", self.feature_count - b.feature_count, self.feature_count
        )
        # a class left without examples keeps no feature counts: a fit never gives any
        # (e.g. a document unlearned from a class that never had it, while its other
        # documents are still counted)
        gone = class_count <= 0
        check_not_above(
            feature_count[gone], class_count[gone], "the feature counts", self.classes[gone]
        )
        out = replace(self, class_count=class_count, feature_count=feature_count)
        return out.drop_emptied(other.classes)

    def check_presence(self) -> None:
        """For counts of presence (binarized rows, Bernoulli and binary text models): a
        feature is present in at most every row of its class; ValueError otherwise (what
        an unlearning of rows never learned leaves)."""
        check_not_above(
            self.feature_count, self.class_count, "the count of a present feature", self.classes
        )

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
                    new = np.arange(len(mine), other.category_count[j].shape[1])
                else:
                    new = np.flatnonzero(~np.isin(other.categories[j], mine))
                extra = other.category_count[j][:, new]
                if np.any(extra > 0):
                    first = new[np.flatnonzero((extra > 0).any(axis=0))[0]]
                    value = first if self.integer_coded else other.categories[j][first]
                    shown = value.item() if isinstance(value, np.generic) else value
                    raise ValueError(
                        f"Cannot unlearn these examples: feature {j} has the category "
                        f"{shown!r}, which the model has never seen. Nothing was changed."
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
