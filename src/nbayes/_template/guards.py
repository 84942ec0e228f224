"""What every learning call guarantees: it succeeds or changes nothing, and the statistics
it leaves are finite; and scoring that overflows says so (the template,
:class:`nbayes._template.base.BaseNB`, applies all three)."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import numpy as np

__all__ = [
    "LEARNING_CALLS",
    "all_or_nothing",
    "check_finite_stats",
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
        obj.__dict__.clear()
        obj.__dict__.update(before)
        raise


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


def scoring_overflow_checked(score: Callable[[Any], np.ndarray], X: Any, model: Any) -> np.ndarray:
    """``score(X)``, with a ValueError that says so if the arithmetic overflows (finite
    values near 1e308: no class would have a finite log-likelihood, every posterior NaN)."""
    try:
        with np.errstate(over="raise"):
            return score(X)
    except FloatingPointError:
        raise ValueError(
            f"The log-likelihoods of X under {type(model).__name__} overflowed: its values are "
            "too large for float64 arithmetic (near 1e308). Rescale the features as the "
            "training data (e.g. divide them by a power of ten)."
        ) from None
