"""The largest statistics a model holds: what a model file stores, and what the arithmetic
of the derivation keeps finite.

A learning call whose statistics would go beyond these bounds is refused (the template's
``_set_stats``, :func:`nbayes._template.guards.check_stats`), and a model file beyond them
is refused at load (:mod:`nbayes.io._invariants` reads the same constants): whatever a
learning call accepts, ``save`` writes and ``load`` reads.

The bounds are far beyond what real data reaches: 1e150 rows of weight 1, a feature mean of
1e150. Below them a sum of counts, a product of two and the square of a mean stay finite
in float64 (whose range ends near 1.8e308).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MAX_COUNT", "MAX_MOMENT", "MAX_ROWS", "Excess", "beyond_bounds"]

MAX_COUNT: float = 1e150
"""Largest total of a count array (class counts, term counts, weights): the counts of
every real corpus, weighted or not, stay many orders of magnitude below it, and products
of two such totals stay finite."""

MAX_MOMENT: float = 1e150
"""Largest absolute mean of a feature, and largest absolute stored value of a kernel
density (their squares, and sums of squares, stay finite)."""

MAX_ROWS: int = 2**53
"""Largest number of rows or documents a model has seen (exact in float64)."""

# what each named statistic is, and so which bound holds it
_COUNTS = frozenset({"class_count", "feature_count", "category_count", "weights", "term_freq"})
_VALUES = frozenset({"mean", "row_mean", "values"})
_SQUARES = frozenset({"m2", "row_m2"})
_ROWS = frozenset({"n_rows", "n_docs"})


@dataclass(frozen=True)
class Excess:
    """A statistic beyond its bound: its name, the value reached, the bound, and what it
    is (``"count"``: a total of counts or weights; ``"value"``: a mean or stored value;
    ``"square"``: a sum of squared deviations; ``"rows"``: a number of rows)."""

    name: str
    value: float
    bound: float
    kind: str


def _total(value: Any) -> float:
    arrays = value if isinstance(value, tuple) else (value,)
    with np.errstate(all="ignore"):
        return float(sum(float(np.sum(a, dtype=np.float64)) for a in arrays))


def _largest(value: Any) -> float:
    arrays = value if isinstance(value, tuple) else (value,)
    sizes = [a for a in arrays if np.size(a)]
    return max((float(np.max(np.abs(a))) for a in sizes), default=0.0)


def _check(name: str, value: Any) -> Excess | None:
    if name in _COUNTS:
        total = _total(value)
        return None if total <= MAX_COUNT else Excess(name, total, MAX_COUNT, "count")
    if name in _VALUES:
        top = _largest(value)
        return None if top <= MAX_MOMENT else Excess(name, top, MAX_MOMENT, "value")
    if name in _SQUARES:
        top = _largest(value)
        return None if top <= MAX_MOMENT**2 else Excess(name, top, MAX_MOMENT**2, "square")
    if name in _ROWS:
        n = float(value)
        return None if n <= MAX_ROWS else Excess(name, n, float(MAX_ROWS), "rows")
    return None


def beyond_bounds(stats: Any) -> Excess | None:
    """The first statistic of ``stats`` beyond its bound, or None.

    ``stats`` is any statistics object: its dataclass fields are read by name (nested
    statistics too: a MixedNB's columns, a text model's counts); an object with a
    ``bounded_parts()`` method gives its ``(name, value)`` pairs itself (a text model's
    statistics, without laying out a packed count table).
    """
    parts: list[tuple[str, Any]] = [("", stats)]
    while parts:
        name, value = parts.pop()
        own = getattr(value, "bounded_parts", None)
        if own is not None:
            parts.extend(own())
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            parts.extend((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
        elif isinstance(value, tuple) and value and not isinstance(value[0], np.ndarray):
            parts.extend((name, v) for v in value)  # e.g. MixedNB's columns
        elif name:
            excess = _check(name, value)
            if excess is not None:
                return excess
    return None
