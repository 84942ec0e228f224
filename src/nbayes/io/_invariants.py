"""The numeric invariants a model file's statistics and settings must satisfy to load.

A file whose checksum is valid may still hold statistics no fit produces (a hostile or
buggy writer): counts of 1e308 whose sums overflow, a negative or all-zero
``class_prior``, a row count that contradicts the class counts, ``n_docs`` of 2**62, an
``ngram_range`` of (1, 10**6), a vocabulary whose offsets point outside its bytes or
whose terms repeat or are not UTF-8. The model would load and then answer NaN, or exhaust the
memory on its first document. Each check here states one invariant that every model
``fit`` can build satisfies, and raises :class:`~nbayes.exceptions.ModelFileError`
naming the array or setting and the bound otherwise.

The bounds (module constants) are far beyond what real data reaches and leave room for
the arithmetic of the derivation: a sum of counts, a product of two, a square of a mean
stay finite in float64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbayes._statistics.bounds import MAX_COUNT, MAX_MOMENT, MAX_ROWS
from nbayes.exceptions import ModelFileError
from nbayes.text._vocabulary import PackedTerms, packed_problem

__all__ = [
    "MAX_COUNT",
    "MAX_MOMENT",
    "MAX_NGRAM",
    "MAX_ROWS",
    "check_class_prior",
    "check_counts",
    "check_moments",
    "check_ngram_range",
    "check_packed_terms",
    "check_rows",
    "not_above",
]

# the bounds a learning call holds the statistics to (nbayes._statistics.bounds): a file
# beyond them was not written by a fit
MAX_NGRAM: int = 64
"""Largest ``max_n`` of a text model's ``ngram_range`` (longer n-grams are never useful,
and every token of a document starts ``max_n - min_n + 1`` of them)."""


def check_counts(arr: np.ndarray, name: str, max_total: float = MAX_COUNT) -> np.ndarray:
    """A finite, non-negative count array adds up to at most ``max_total``."""
    with np.errstate(all="ignore"):
        total = float(np.sum(arr, dtype=np.float64))
    if not total <= max_total:
        raise ModelFileError(
            f"the counts of {name!r} add up to {total!r}, beyond the {max_total:g} a fit "
            "ever reaches: the statistics would overflow (a hostile or corrupted file)"
        )
    return arr


def not_above(part: np.ndarray, total: np.ndarray, what: str, of: str) -> None:
    """``part <= total`` per class, up to the rounding of float weights after
    subtractions (relative 1e-9); else ModelFileError."""
    with np.errstate(all="ignore"):
        above = bool(np.any(part > total + 1e-9 * np.maximum(np.abs(total), 1.0)))
    if above:
        raise ModelFileError(f"{what} exceeds {of} for some class")


def check_moments(mean: np.ndarray, m2: np.ndarray, name: str) -> None:
    """Means within :data:`MAX_MOMENT` in absolute value, sums of squared deviations
    within its square (so the variances derived from them stay finite)."""
    if mean.size and not float(np.max(np.abs(mean))) <= MAX_MOMENT:
        raise ModelFileError(
            f"the means of {name!r} reach {float(np.max(np.abs(mean)))!r}, beyond the "
            f"{MAX_MOMENT:g} a fit ever reaches (a hostile or corrupted file)"
        )
    if m2.size and not float(np.max(m2)) <= MAX_MOMENT**2:
        raise ModelFileError(
            f"the sums of squared deviations of {name!r} reach {float(np.max(m2))!r}, beyond "
            f"the {MAX_MOMENT**2:g} a fit ever reaches (a hostile or corrupted file)"
        )


def check_rows(n_rows: float, class_count: np.ndarray, what: str) -> int:
    """The number of rows (or documents) seen, an unweighted count: a whole number in
    ``[0, MAX_ROWS]``, at least one per class that has a (weighted) count, and zero only
    when every class count is zero."""
    classes_seen = int(np.count_nonzero(class_count > 0))
    if not (float(n_rows).is_integer() and 0 <= n_rows <= MAX_ROWS):
        raise ModelFileError(
            f"{what} is {n_rows!r}; a number of rows seen is a whole number in [0, {MAX_ROWS}]"
        )
    if n_rows < classes_seen:
        raise ModelFileError(
            f"{what} is {int(n_rows)} but {classes_seen} classes have a count: the counts "
            "disagree (a hostile or corrupted file)"
        )
    return int(n_rows)


def check_class_prior(prior: Any, n_classes: int, error: type[Exception] = ModelFileError) -> None:
    """A ``class_prior`` (None or one probability per class): finite, non-negative, with a
    positive sum, one per class. ``error`` is the exception raised (ValueError at save)."""
    if prior is None:
        return
    try:
        p = np.asarray(prior, dtype=np.float64)
    except (TypeError, ValueError):
        raise error(f"class_prior={prior!r} is not an array of numbers") from None
    if p.ndim != 1 or len(p) != n_classes:
        raise error(
            f"class_prior holds {p.size} priors (shape {p.shape}), but the model has "
            f"{n_classes} classes"
        )
    if not np.isfinite(p).all() or (p < 0).any() or not p.sum() > 0:
        raise error(
            f"class_prior={p.tolist()!r} is not a distribution over the classes: its values "
            "must be finite, non-negative and add up to more than 0"
        )


def check_ngram_range(ngram_range: Any, error: type[Exception] = ModelFileError) -> None:
    """``max_n`` of a text model's ``ngram_range`` is at most :data:`MAX_NGRAM`."""
    hi = ngram_range[1]
    if hi > MAX_NGRAM:
        raise error(
            f"ngram_range={tuple(ngram_range)!r} makes n-grams of up to {hi} words; a model "
            f"file stores at most {MAX_NGRAM} (every token would start {hi} n-grams)"
        )


def check_packed_terms(data: np.ndarray, offsets: np.ndarray, where: str) -> PackedTerms:
    """A text model's packed vocabulary (UTF-8 bytes and offsets): offsets from 0, never
    decreasing, ending at the number of bytes; every term UTF-8 (lone surrogates as
    Python's ``"surrogatepass"`` writes them); no term twice. Checked on the bytes (no
    str per term), as strictly as the JSON list of earlier files was."""
    problem, is_sorted = packed_problem(data, offsets)
    if problem:
        raise ModelFileError(f"{where}: {problem}")
    return PackedTerms(data, offsets, is_sorted)
