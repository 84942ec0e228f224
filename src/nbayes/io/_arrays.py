"""The named arrays of a model file, as (de)serialisers see them.

A serialiser writes its statistics through an :class:`ArrayWriter` and reads them back
through an :class:`ArrayReader`, which checks each array's dtype, shape and values
(finite; counts non-negative, of a bounded total) before handing it out and remembers
which arrays were read, so that a file holding an array no model reads is refused. Both
nest: ``sub("columns")`` gives a writer or reader whose names start with ``"columns/"``
(for nested estimators and per-column statistics).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from nbayes.io._invariants import MAX_COUNT, check_counts
from nbayes.io._json import _fail

__all__ = ["ArrayReader", "ArrayWriter"]


class ArrayWriter:
    """Collects the named arrays of a model file; :meth:`sub` nests a prefix.

    Parameters
    ----------
    store : dict, optional
        The shared name -> array dictionary (a new one by default).
    prefix : str, default ""
    needs : set of int, optional
        The shared set of metadata schema versions the arrays need
        (:meth:`require_schema`).
    """

    def __init__(
        self,
        store: dict[str, np.ndarray] | None = None,
        prefix: str = "",
        needs: set[int] | None = None,
    ) -> None:
        self.store: dict[str, np.ndarray] = {} if store is None else store
        self.prefix = prefix
        self.needs: set[int] = set() if needs is None else needs

    def require_schema(self, version: int) -> None:
        """Mark the file as needing metadata schema ``version`` to be read: the file is
        written with the newest version any of its parts requires, so an nbayes that
        reads only older ones refuses it clearly instead of misreading it (and files
        of unchanged layout stay readable by older nbayes)."""
        self.needs.add(version)

    @property
    def schema_version(self) -> int:
        """The metadata schema version the file needs (1 unless a part requires more)."""
        return max(self.needs, default=1)

    def put(self, name: str, array: Any, dtype: Any = np.float64) -> None:
        """Store ``array`` (converted to ``dtype``) under ``prefix + name``."""
        key = self.prefix + name
        if key in self.store:
            raise ValueError(f"array {key!r} is written twice")
        self.store[key] = np.asarray(array, dtype=dtype, order="C")

    def sub(self, prefix: str) -> ArrayWriter:
        """A writer for a nested object: its names get ``prefix + "/"`` in front."""
        return ArrayWriter(self.store, f"{self.prefix}{prefix}/", self.needs)


class ArrayReader:
    """Hands out the arrays of a model file, checking dtype and shape; tracks what is used.

    Parameters
    ----------
    arrays : dict
        Name -> array, as read from the file.
    prefix : str, default ""
    used : set, optional
        Shared set of the names handed out (for the "no unused array" check).
    """

    def __init__(
        self, arrays: Mapping[str, np.ndarray], prefix: str = "", used: set[str] | None = None
    ) -> None:
        self.arrays = arrays
        self.prefix = prefix
        self.used: set[str] = set() if used is None else used

    def get(
        self,
        name: str,
        dtype: Any = np.float64,
        shape: tuple[int | None, ...] | None = None,
        *,
        finite: bool = True,
        non_negative: bool = False,
        max_total: float | None = MAX_COUNT,
    ) -> np.ndarray:
        """The array ``prefix + name``, checked; ModelFileError if missing or wrong.

        ``shape`` entries that are ``None`` accept any length. A ``non_negative`` float
        array is a count array: its values add up to at most ``max_total`` (None: no
        bound, for sums of squares, which :func:`~nbayes.io._invariants.check_moments`
        bounds).
        """
        key = self.prefix + name
        if key not in self.arrays:
            raise _fail(f"the array {key!r} is missing")
        arr = self.arrays[key]
        want = np.dtype(dtype)
        if arr.dtype != want:
            raise _fail(f"the array {key!r} has dtype {arr.dtype}, expected {want}")
        if shape is not None and (
            len(arr.shape) != len(shape)
            or any(w is not None and w != s for w, s in zip(shape, arr.shape, strict=True))
        ):
            shown = tuple("any" if w is None else w for w in shape)
            raise _fail(f"the array {key!r} has shape {arr.shape}, expected {shown}")
        if arr.dtype.kind == "f":
            if finite and not np.isfinite(arr).all():
                raise _fail(f"the array {key!r} holds NaN or infinite values")
            if non_negative and np.any(arr < 0):
                raise _fail(
                    f"the array {key!r} holds negative values (down to {float(arr.min())!r}); "
                    "counts cannot be negative"
                )
            if non_negative and max_total is not None:
                check_counts(arr, key, max_total)
        elif non_negative and arr.size and np.any(arr < 0):
            raise _fail(f"the array {key!r} holds negative values")
        self.used.add(key)
        return arr

    def sub(self, prefix: str) -> ArrayReader:
        """A reader for a nested object stored under ``prefix + "/"``."""
        return ArrayReader(self.arrays, f"{self.prefix}{prefix}/", self.used)

    def unused(self) -> list[str]:
        """The names of the arrays no :meth:`get` has handed out (in file order)."""
        return [name for name in self.arrays if name not in self.used]
