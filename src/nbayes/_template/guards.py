"""What every learning call guarantees: it succeeds or changes nothing, and the statistics
it leaves are finite; and scoring that overflows says so (the template,
:class:`nbayes._template.base.BaseNB`, applies all three)."""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import numpy as np

from .._statistics.bounds import beyond_bounds

__all__ = [
    "LEARNING_CALLS",
    "all_or_nothing",
    "check_encodable",
    "check_int_labels",
    "check_finite_stats",
    "check_stats",
    "overflow_error",
    "overflowed",
    "restored_on_failure",
    "scoring_overflow_checked",
]

_Method = TypeVar("_Method", bound=Callable[..., Any])

#: the calls that change what a model has learned (``merge`` returns a new model)
LEARNING_CALLS = ("fit", "partial_fit", "update", "unlearn")


def all_or_nothing(method: _Method) -> _Method:
    """A learning call that fails (bad input, a bad setting, Ctrl-C) leaves the model exactly
    as it was before the call: fitted with its old statistics, or unfitted.

    The estimator's attributes are a handful of references to immutable statistics and
    small values; the call works on the instance and, if it raises, the attributes it had
    on entry are put back (a nested call, e.g. ``update`` on an unfitted model calling
    ``fit``, restores to its own entry state, and the outer call to its).
    """
    if getattr(method, "_all_or_nothing", False):
        return method

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        # values near the float range overflow the sums: _set_stats refuses the result
        # with a clear error, instead of numpy's warnings deep in the arithmetic
        with restored_on_failure(self), np.errstate(over="ignore", invalid="ignore"):
            return method(self, *args, **kwargs)

    call._all_or_nothing = True  # type: ignore[attr-defined]
    return cast(_Method, call)


@contextmanager
def restored_on_failure(obj: Any) -> Iterator[None]:
    """Run a block that changes ``obj``; if it raises (Ctrl-C too), put back every
    attribute ``obj`` had on entry, and re-raise. What :func:`all_or_nothing` does for
    a method, for any other learning code (a vectorizer's fit, training from chunks)."""
    before = dict(obj.__dict__)
    try:
        yield
    except BaseException:
        # the attributes of entry back in one step (never through an empty dict): a
        # prediction in another thread sees the old model or the failed call's, never an
        # unfitted one (BaseNB's thread-safety contract)
        obj.__dict__ = before
        raise


# a lone surrogate: what decoding bytes with errors="surrogateescape" leaves, or half a
# UTF-16 pair; UTF-8 cannot encode it
_SURROGATE = re.compile("[\ud800-\udfff]")


def _first_unencodable(values: Any) -> tuple[int, str] | None:
    if isinstance(values, np.ndarray) and values.dtype.kind == "U":
        if values.size == 0 or values.dtype.itemsize == 0:
            return None
        codes = np.ascontiguousarray(values.reshape(-1)).view(np.uint32)
        bad = (codes >= 0xD800) & (codes <= 0xDFFF)
        if not bad.any():
            return None
        i = int(np.flatnonzero(bad)[0]) // (values.dtype.itemsize // 4)
        return i, str(values.reshape(-1)[i])
    items = values.tolist() if isinstance(values, np.ndarray) else values
    for i, v in enumerate(items):
        if isinstance(v, str) and not v.isascii() and _SURROGATE.search(v):
            return i, v
    return None


def check_encodable(values: Any, what: str) -> None:
    """ValueError naming the first str of ``values`` (a sequence or an array) that UTF-8
    cannot encode: a lone surrogate such as ``"\\udfff"``. A model stores its labels,
    terms and categories as UTF-8 (model files, the journal of ``nbayes serve``), so a
    learning call refuses them before anything is applied."""
    found = _first_unencodable(values)
    if found is None:
        return
    i, value = found
    char = _SURROGATE.search(value)
    shown = value if len(value) <= 40 else value[:37] + "..."
    raise ValueError(
        f"The {what} at position {i} ({shown!r}) holds {char.group() if char else '?'!r}, a "
        "lone surrogate that UTF-8 cannot encode (what decoding bytes with "
        "errors='surrogateescape', or half a UTF-16 pair, leaves): a model stores its "
        "labels and texts as UTF-8. Decode the data with errors='replace' (or fix it) "
        "first. Nothing was changed."
    )


def check_int_labels(y: Any) -> None:
    """ValueError for an integer label beyond int64 (``2**70`` makes an object array of
    Python ints): a model stores integer labels as 64-bit integers."""
    arr = np.asarray(y) if not isinstance(y, np.ndarray) else y
    if arr.dtype != object:
        return
    for v in arr.reshape(-1).tolist():
        if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
            raise ValueError(
                f"The label {v!r} is an integer beyond the 64-bit range a model stores "
                "(-2**63 to 2**63 - 1): use smaller integers, or strings (e.g. str(label)). "
                "Nothing was changed."
            )


class LabelTypeError(ValueError, TypeError):
    """Labels a model cannot take as classes: a ValueError as nbayes says, and the TypeError
    scikit-learn raises for them (code written for it catches either)."""


def check_missing_labels(y: Any) -> None:
    """:class:`LabelTypeError` for a label that is None, or labels of types that cannot be
    sorted together (0 and "a"): scikit-learn's words were "Unknown label type: unknown ...
    a regression target with continuous values?" (a student's trial), and its error a
    TypeError of sorting (a fuzz)."""
    arr = np.asarray(y) if not isinstance(y, np.ndarray) else y
    if arr.dtype != object:
        return
    values = arr.reshape(-1).tolist()
    for i, v in enumerate(values):
        if v is None:
            raise LabelTypeError(
                f"The label of row {i} is None: every row a model learns needs a label. Leave "
                "out the rows without one (or learn from them too with SemiSupervisedNB, "
                "which takes None, or -1, for a row without a label)."
            )
    try:
        sorted(set(values))
    except TypeError:
        first = values[0]
        i, other = next((i, v) for i, v in enumerate(values) if not _sortable(first, v))
        raise LabelTypeError(
            f"The labels mix types that cannot be ordered: row 0 is {first!r} "
            f"({type(first).__name__}), row {i} {other!r} ({type(other).__name__}). A model "
            "sorts its classes: give labels of one type (e.g. all strings, str(label))."
        ) from None
    except Exception:  # (an unhashable label: the classes' own check says so)
        return


def _sortable(a: Any, b: Any) -> bool:
    try:
        sorted([a, b])
    except TypeError:
        return False
    return True


def overflowed(stats: Any) -> str | None:
    """The name of a statistic that is no longer finite (NaN or infinite), or None."""
    parts: list[tuple[str, Any]] = [("", stats)]
    while parts:
        name, value = parts.pop()
        if isinstance(value, np.ndarray):
            if value.dtype.kind == "f" and not np.isfinite(value).all():
                return name
        elif isinstance(value, float):
            if not math.isfinite(value):
                return name
        elif isinstance(value, tuple):
            parts.extend((name, v) for v in value)
        elif dataclasses.is_dataclass(value):
            parts.extend((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
    return None


def check_finite_stats(stats: Any, who: str) -> None:
    """Refuse statistics that overflowed the float range (finite input as large as 1e308:
    its sums or squares are infinite) with a ValueError that says so."""
    bad = overflowed(stats)
    if bad is not None:
        raise ValueError(
            f"The statistics of {who} overflowed: {bad!r} is no longer finite because the "
            "training values are too large for float64 arithmetic (sums and squares of values "
            "near 1e308 exceed its range, about 1.8e308). Rescale the features (e.g. divide "
            "them by a power of ten, or sklearn.preprocessing.StandardScaler/MaxAbsScaler). "
            "Nothing was changed."
        )


def check_stats(stats: Any, who: str) -> None:
    """Refuse statistics a model cannot hold: not finite (:func:`check_finite_stats`), or
    beyond the bounds of :mod:`nbayes._statistics.bounds` (what a model file stores), with
    a ValueError that says which statistic and what to do."""
    check_finite_stats(stats, who)
    excess = beyond_bounds(stats)
    if excess is None:
        return
    reached = f"{excess.name!r} reaches {excess.value:.3g}, beyond the {excess.bound:g}"
    if excess.kind == "count":
        advice = (
            f"{reached} a model holds (a model file stores no more, and products of such "
            "counts would overflow float64). The sample weights or the count values are "
            "too large. Rescale them (divide every weight, or the count features, by the "
            "same power of ten)"
        )
    elif excess.kind == "rows":
        advice = f"{reached} rows a model counts exactly: learn fewer rows"
    else:
        advice = (
            f"{reached} a model holds (a model file stores no more, and the squares of "
            "such values would overflow float64). The training values are too large. "
            "Rescale the features (e.g. divide them by a power of ten, or "
            "sklearn.preprocessing.StandardScaler/MaxAbsScaler)"
        )
    raise ValueError(f"The statistics of {who} would be too large: {advice}. Nothing was changed.")


def scoring_overflow_checked(score: Callable[[Any], np.ndarray], X: Any, model: Any) -> np.ndarray:
    """``score(X)``, with a ValueError that says so if the arithmetic overflows (finite
    values near 1e308: no class would have a finite log-likelihood, every posterior NaN)."""
    try:
        with np.errstate(over="raise"):
            return score(X)
    except FloatingPointError:
        raise overflow_error(model) from None


def overflow_error(model: Any) -> ValueError:
    """The ValueError of scoring that overflowed (a FloatingPointError of the family)."""
    return ValueError(
        f"The log-likelihoods of X under {type(model).__name__} overflowed: its values are "
        "too large for float64 arithmetic (near 1e308). Rescale the features as the "
        "training data (e.g. divide them by a power of ten)."
    )
