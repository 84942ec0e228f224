"""Checks of the JSON a model file holds: each ``expect_*`` returns the value when it is of
the expected type (and shape) and raises :class:`~nbayes.exceptions.ModelFileError`
saying where it is and what is wrong otherwise.

Every (de)serialiser reads its JSON through these, so a hand-edited or hostile file is
refused with a message that names the offending key, never with a ``KeyError`` or a
``TypeError`` from deep inside an estimator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from nbayes.exceptions import ModelFileError

__all__ = [
    "expect_bool",
    "expect_dict",
    "expect_int",
    "expect_list",
    "expect_str",
    "expect_str_list",
]

_MAX_SHOWN = 60


def _show(value: Any) -> str:
    """A short ``repr`` of a value read from a file, for error messages."""
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _fail(message: str) -> ModelFileError:
    return ModelFileError(message)


def expect_dict(value: Any, where: str, keys: Iterable[str] | None = None) -> dict[str, Any]:
    """``value`` as a JSON object, with exactly ``keys`` if given; else ModelFileError."""
    if not isinstance(value, dict):
        raise _fail(f"{where} should be a JSON object, got {_show(value)}")
    if keys is not None:
        want = set(keys)
        have = set(value)
        if have != want:
            missing, extra = sorted(want - have), sorted(have - want)
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"unexpected {_show(extra)}")
            raise _fail(f"{where} has the wrong keys ({'; '.join(parts)})")
    return value


def expect_int(value: Any, where: str, low: int = 0, high: int = 2**62) -> int:
    """``value`` as an int in ``[low, high]``; else ModelFileError."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _fail(f"{where} should be an integer in [{low}, {high}], got {_show(value)}")
    return value


def expect_bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(f"{where} should be true or false, got {_show(value)}")
    return value


def expect_str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(f"{where} should be a string, got {_show(value)}")
    return value


def expect_list(value: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(f"{where} should be a JSON list, got {_show(value)}")
    if length is not None and len(value) != length:
        raise _fail(f"{where} has {len(value)} entries, expected {length}")
    return value


def expect_str_list(value: Any, where: str, length: int | None = None) -> list[str]:
    items = expect_list(value, where, length)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise _fail(f"{where}[{i}] should be a string, got {_show(item)}")
    return items


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)
