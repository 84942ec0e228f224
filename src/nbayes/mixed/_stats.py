"""The statistics of MixedNB: the class counts and one statistics object per column.

``merge``/``subtract`` apply to every part and the classes are united across them, so
``fit``, ``partial_fit``/``update``, ``unlearn`` and ``+`` keep the algebra of the core.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._families.kinds import kind as kind_named
from .._statistics import CategoryStats, CountStats, MomentStats, union_classes
from .._statistics.base import check_not_above
from .._statistics.moments import _chan_merge
from .._statistics.points import PointStats
from ..exceptions import ColumnFamiliesError
from ..text._textstats import TextStats

__all__ = ["MixedStats", "pooled"]


@dataclass(frozen=True, eq=False)
class MixedStats:
    """Class counts (``head``) and one statistics object per column, over the same classes."""

    head: CountStats
    names: tuple[str, ...]
    families: tuple[str, ...]
    columns: tuple[Any, ...]

    @property
    def classes(self) -> np.ndarray:
        return self.head.classes

    @property
    def class_count(self) -> np.ndarray:
        return self.head.class_count

    @property
    def n_features(self) -> int:
        return len(self.columns)

    def is_integral(self) -> bool:
        return self.head.is_integral()

    def reindex(self, classes: np.ndarray) -> MixedStats:
        return replace(
            self,
            head=self.head.reindex(classes),
            columns=tuple(c.reindex(classes) for c in self.columns),
        )

    def _check(self, other: MixedStats) -> None:
        if (self.names, self.families) != (other.names, other.families):
            mine = dict(zip(self.names, self.families, strict=True))
            theirs = dict(zip(other.names, other.families, strict=True))
            raise ColumnFamiliesError(
                f"Cannot combine models over different columns or families: {mine} vs "
                f"{theirs}. Fix the families with columns={{...}} on both.",
                mine,
                theirs,
            )

    def merge(self, other: MixedStats) -> MixedStats:
        self._check(other)
        head = self.head.merge(other.head)
        cols = tuple(
            a.merge(b).reindex(head.classes)
            for a, b in zip(self.columns, other.columns, strict=True)
        )
        return replace(self, head=head, columns=cols)

    def subtract(self, other: MixedStats) -> MixedStats:
        self._check(other)
        head = self.head.subtract(other.head)
        cols = []
        for name, f, a, b in zip(
            self.names, self.families, self.columns, other.columns, strict=True
        ):
            try:
                col = a.subtract(b.reindex(union_classes(a.classes, b.classes)))
            except ValueError as exc:  # a column's statistics are of one feature: its name
                raise ValueError(str(exc).replace("feature 0 ", f"column {name!r} ", 1)) from None
            _check_observed(name, kind_named(f), col, head)
            cols.append(kind_named(f).after_subtract(_align(col, head.classes)))
        return replace(self, head=head, columns=tuple(cols))

    def drop_emptied(self, touched: np.ndarray) -> MixedStats:
        head = self.head.drop_emptied(touched)
        return replace(
            self, head=head, columns=tuple(_align(c, head.classes) for c in self.columns)
        )


def _check_observed(name: str, kind: Any, col: Any, head: CountStats) -> None:
    """After an unlearning: a column is observed in at most every row of its class (and
    a bernoulli column true in at most every observed row), as a fit leaves it; rows never
    learned (e.g. with a missing value where the learned row had one) break it."""
    rows = np.zeros(len(col.classes))
    known = np.isin(col.classes, head.classes)
    rows[known] = head.class_count[np.searchsorted(head.classes, col.classes[known])]
    try:
        check_not_above(col.class_count, rows, "the observed count", col.classes)
        if kind.family.presence:  # true in at most every observed row
            col.check_presence()
    except ValueError as exc:
        raise ValueError(f"Column {name!r}: {exc}") from None


def _align(col: Any, classes: np.ndarray) -> Any:
    """Column statistics over exactly ``classes`` (drop classes the head dropped)."""
    extra = ~np.isin(col.classes, classes)
    if extra.any():
        if isinstance(col, TextStats):
            col = col.with_counts(
                replace(col.counts, class_count=np.where(extra, 0.0, col.class_count))
            )
        else:
            col = replace(col, class_count=np.where(extra, 0.0, col.class_count))
        col = col.drop_emptied(col.classes[extra])
    return col.reindex(classes)


def pooled(col: Any) -> Any:
    """Statistics where classes that never observed the column take the pooled values."""
    empty = col.class_count <= 0
    if not empty.any() or empty.all():
        return col
    if isinstance(col, MomentStats):
        n: Any = 0.0
        mean, m2 = np.zeros(col.n_features), np.zeros(col.n_features)
        for c in np.flatnonzero(~empty):
            n, mean, m2 = _chan_merge(n, mean, m2, col.class_count[c], col.mean[c], col.m2[c])
        return replace(
            col,
            class_count=np.where(empty, n, col.class_count),
            mean=np.where(empty[:, None], mean, col.mean),
            m2=np.where(empty[:, None], m2, col.m2),
        )
    if isinstance(col, CategoryStats):
        counts = tuple(np.where(empty[:, None], c.sum(axis=0), c) for c in col.category_count)
        total = col.class_count.sum()
        return replace(
            col, class_count=np.where(empty, total, col.class_count), category_count=counts
        )
    if isinstance(col, TextStats):
        return replace(col, counts=pooled(col.counts))
    if isinstance(col, PointStats):
        weights = tuple(np.where(empty[:, None], w.sum(axis=0), w) for w in col.weights)
        total = col.class_count.sum()
        return replace(col, class_count=np.where(empty, total, col.class_count), weights=weights)
    fc = col.feature_count
    return replace(
        col,
        class_count=np.where(empty, col.class_count.sum(), col.class_count),
        feature_count=np.where(empty[:, None], fc.sum(axis=0), fc),
    )
