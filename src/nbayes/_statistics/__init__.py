"""Sufficient statistics: the whole of a fitted Naive Bayes model, short of its hyperparameters.

Every statistics object is immutable and knows its (sorted) ``classes``. Three operations
make up all of training:

* ``from_batch(...)`` builds the statistics of one batch of rows (with sample weights);
* ``merge(other)`` adds two statistics: the statistics of the union of their data, with
  the classes united;
* ``subtract(other)`` is the exact inverse of ``merge``: it removes data that was added.

``fit`` is "empty, then merge", ``partial_fit`` is merge, ``unlearn`` is subtract, merging
two models merges their statistics and a distributed fit is a tree of merges.

One module per kind of statistic: :mod:`.counts` (per-class sums and category counts, which
add), :mod:`.moments` (Gaussian moments, combined with the pairwise update of Chan, Golub
and LeVeque), :mod:`.points` (the stored points of kernel densities); :mod:`.base` is what
they share.
"""

from __future__ import annotations

from .base import (
    FloatArray,
    PerClassStats,
    class_codes,
    conform_classes,
    issparse,
    readonly,
    union_classes,
)
from .counts import CategoryStats, CountStats
from .moments import MomentStats
from .points import PointStats

__all__ = [
    "CategoryStats",
    "CountStats",
    "FloatArray",
    "MomentStats",
    "PerClassStats",
    "PointStats",
    "class_codes",
    "conform_classes",
    "issparse",
    "readonly",
    "union_classes",
]
