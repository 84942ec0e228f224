"""The argparse ``type`` functions of nbayes's command lines (``nbayes ...`` and ``nbayes
serve``): a value out of range is refused by argparse with the flag named, exit status 2.

Standard library only: the command line imports it before anything heavy.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["count_type", "fraction_type", "seconds_type", "size_type"]


def count_type(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number of at least ``minimum`` (and at most ``maximum``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be a whole number >= {minimum}; got {text!r}"
            ) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}; got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be <= {maximum}; got {value}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def seconds_type(text: str) -> float:
    """A positive, finite number of seconds."""
    return _number(
        text, lambda v: v > 0 and math.isfinite(v), "a number of seconds",
        "a positive number of seconds",
    )  # fmt: skip


def fraction_type(text: str) -> float:
    """A number strictly between 0 and 1."""
    return _number(text, lambda v: 0 < v < 1, "a number", "between 0 and 1 (exclusive)")


def share_type(text: str) -> float:
    """A share: a number from 0 (included) to 1 (excluded)."""
    return _number(text, lambda v: 0 <= v < 1, "a number", "from 0 to 1 (0 included, 1 not)")


def probability_type(text: str) -> float:
    """A probability: a number from 0 to 1, both included."""
    return _number(text, lambda v: 0 <= v <= 1, "a number", "from 0 to 1")


def _number(text: str, accept: Callable[[float], bool], what: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}; got {text!r}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"must be {where}; got {text}")
    return value


def size_type(text: str) -> int:
    """A positive number of bytes, with an optional unit: 512k, 10M, 1G (powers of 1024)."""
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    t = text.strip().lower().removesuffix("b")
    factor = units.get(t[-1:], 1)
    if t[-1:] in units:
        t = t[:-1]
    try:
        value = int(float(t) * factor)
    except (ValueError, OverflowError):  # OverflowError: inf, 1e400
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 10M, 512k)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"the size must be positive: {text!r}")
    return value
