"""The model files a command is writing, registered with its Ctrl-C handling (see
:mod:`nbayes.cli._interrupt`): a file half written is never left, nor the old one lost.
Imports no numpy (``nbayes filter`` registers with it per delivery)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["guarded_write", "use_interrupts"]

_INTERRUPTS: Any = None  # the Interrupts of the running command (nbayes.cli.main)


@contextmanager
def use_interrupts(interrupts: Any) -> Iterator[None]:
    """Within this block :func:`guarded_write` (and so ``save_model``) registers the
    files it writes with ``interrupts`` (:class:`nbayes.cli._interrupt.Interrupts`)."""
    global _INTERRUPTS
    previous, _INTERRUPTS = _INTERRUPTS, interrupts
    try:
        yield
    finally:
        _INTERRUPTS = previous


def guarded_write(path: str, write: Callable[[], T]) -> T:
    """``write()``, which writes the model file ``path``, registered with the command's
    Ctrl-C handling (see :mod:`nbayes.cli._interrupt`): what it returns."""
    if _INTERRUPTS is None:
        return write()
    with _INTERRUPTS.writing(path):
        return write()
