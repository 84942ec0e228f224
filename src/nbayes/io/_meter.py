"""How far a :func:`~nbayes.io.read_texts` call has read, as a share of its input's bytes:
the files' sizes on disk (a gzip file's compressed size) weigh its units, and within the
file being read, its raw position (the bytes the reader has taken from the disk), the rows
of a Parquet file read, or the files of a class folder. A command's progress bar shows it
(``TextChunk.share``); an open stream has no size, and no share."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Meter", "raw_position"]


def raw_position(handle: Any) -> Callable[[], int] | None:
    """A function giving the byte position in the file on disk of a text ``handle``
    opened on a path (``open``, or ``gzip.open``: the compressed file's position), or
    None when it has none to tell."""
    buffer = getattr(handle, "buffer", handle)
    raw = getattr(buffer, "fileobj", None) or getattr(buffer, "raw", None)  # gzip, or plain
    tell = getattr(raw, "tell", None)
    return tell if callable(tell) else None


def _size(path: Any) -> int:
    try:
        return max(os.stat(path).st_size, 1)
    except (OSError, TypeError, ValueError):
        return 1


class Meter:
    """The share read of the units of one call, by their sizes.

    ``weights``: each unit's size (None for a stream: then nothing has a share)."""

    def __init__(self, weights: Sequence[int | None] = ()) -> None:
        sizes = [w for w in weights if w is not None]
        self._weights: list[int] = sizes if len(sizes) == len(weights) else []
        self._total = sum(self._weights)
        self._done = 0  # the bytes of the units finished
        self._unit = -1
        self._within: Callable[[], float] | None = None

    @classmethod
    def of_units(cls, units: Sequence[tuple[str, Any, Any]]) -> Meter:
        """The meter of :func:`nbayes.io._sources.resolve`'s units: a file's size, a
        folder's files' sizes summed; a stream has none."""
        weights: list[int | None] = []
        for kind, path, extra in units:
            if kind == "stream":
                weights.append(None)
            elif kind == "docs":
                weights.append(sum(_size(p) for p in extra))
            else:
                weights.append(_size(path))
        return cls(weights)

    def next_unit(self) -> None:
        """The next unit starts (the one before, if any, is read)."""
        if 0 <= self._unit < len(self._weights):
            self._done += self._weights[self._unit]
        self._unit += 1
        self._within = None

    def watch(self, handle: Any) -> None:
        """The unit is read through ``handle`` (a text file opened on its path)."""
        tell = raw_position(handle)
        if tell is None or not self._weights:
            return
        size = self._weights[self._unit]
        self._within = lambda: tell() / size

    def counted(self, done: int, total: int) -> None:
        """``done`` of the unit's ``total`` rows (or files) are read."""
        if total > 0:
            self._within = lambda: done / total

    def share(self) -> float | None:
        """The share of all the units' bytes read, in [0, 1] (None: not known)."""
        if not self._total or not 0 <= self._unit < len(self._weights):
            return None
        within = 0.0
        if self._within is not None:
            try:
                within = min(max(self._within(), 0.0), 1.0)
            except (OSError, ValueError):  # closed: a reader closes its file at its end
                within = 1.0
        return min((self._done + within * self._weights[self._unit]) / self._total, 1.0)
