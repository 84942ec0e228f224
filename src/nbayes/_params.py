"""Hyperparameter checks, run by ``fit`` (never ``__init__``), with scikit-learn's wording."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

import numpy as np

from .exceptions import InvalidParameterError

__all__ = [
    "Rule",
    "array_like",
    "boolean",
    "non_negative_int",
    "non_negative_real",
    "none",
    "validate",
]


class Rule:
    """One accepted form of a parameter: a test and how to say it in an error."""

    def __init__(self, test: Callable[[Any], bool], text: str) -> None:
        self.test = test
        self.text = text


def _is_real(v: Any) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool)


def _is_array_like(v: Any) -> bool:
    return hasattr(v, "__len__") and not isinstance(v, str) or hasattr(v, "__array__")


none = Rule(lambda v: v is None, "None")
boolean = Rule(lambda v: isinstance(v, bool | np.bool_), "an instance of 'bool'")
array_like = Rule(_is_array_like, "an array-like")
non_negative_real = Rule(
    lambda v: _is_real(v) and v >= 0 and not np.isnan(v), "a float in the range [0.0, inf)"
)


def non_negative_int(low: int = 0) -> Rule:
    return Rule(
        lambda v: isinstance(v, Integral) and not isinstance(v, bool) and int(v) >= low,
        f"an int in the range [{low}, inf)",
    )


def validate(estimator: Any, rules: dict[str, list[Rule]], who: str | None = None) -> None:
    """Raise InvalidParameterError for the first parameter no rule accepts (``who`` names
    the estimator in the message; default: the type of ``estimator``)."""
    for name, accepted in rules.items():
        value = getattr(estimator, name)
        if any(rule.test(value) for rule in accepted):
            continue
        texts = [r.text for r in accepted]
        expected = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]
        raise InvalidParameterError(
            f"The {name!r} parameter of {who or type(estimator).__name__} must be {expected}. "
            f"Got {value!r} instead."
        )
