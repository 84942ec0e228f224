"""argparse ``type`` functions of nbayes's command lines (``nbayes ...`` and ``nbayes
serve``): a value out of range is refused by argparse with the flag named, exit status 2.

Standard library only: the command line imports it before anything heavy.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["count_type", "seconds_type"]


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
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds; got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds; got {text}")
    return value
