"""Text statistics in their packed form: a count table as its non-zero cells and a
vocabulary as its terms in UTF-8 joined by newlines (what a pickle carries), and the
compiled pieces of a merge over them (the union of sorted vocabularies, the sum of
cells).

numpy only (the kernels are imported when a merge or a search for cells runs): the lean
prediction path unpickles text statistics without them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "Cells",
    "JoinedTerms",
    "is_sorted",
    "join_terms",
    "objects",
    "smallest",
    "sorted_union",
    "summed_cells",
    "united_terms",
]


class Cells:
    """A count table of shape ``(n_rows, n_columns)`` as its non-zero cells.

    ``index`` holds their flat positions, increasing, in the table's memory order
    (``order`` "F": column * n_rows + row, what the compiled counting and the merge
    give; "C": row * n_columns + column), ``values`` their counts; :meth:`dense` lays
    the table out again, exactly, in that order and ``dtype``.
    """

    __slots__ = ("shape", "order", "index", "values", "dtype")

    def __init__(
        self, shape: tuple[int, int], order: str, index: np.ndarray, values: np.ndarray,
        dtype: np.dtype,
    ) -> None:  # fmt: skip
        self.shape = (int(shape[0]), int(shape[1]))
        self.order = order
        self.index = index
        self.values = values
        self.dtype = dtype

    @classmethod
    def of(cls, table: np.ndarray) -> Cells:
        # a Fortran-ordered table is read as its transpose: no copy either way
        order = "F" if table.flags.f_contiguous and not table.flags.c_contiguous else "C"
        flat = (table.T if order == "F" else table).ravel()
        if flat.dtype == np.float64:
            import nbayes._native as _native

            index, values = _native.nonzero_cells(flat)  # one pass
        else:
            index = np.flatnonzero(flat)
            values = flat[index]
        return cls(table.shape, order, index, values, table.dtype)

    @classmethod
    def unpacked(
        cls, shape: tuple[int, int], dtype: str, index: np.ndarray, values: np.ndarray,
        layout: str = "cells",
    ) -> Cells:  # fmt: skip
        """From what :meth:`packed` gives (and the pickles of earlier releases: "cells",
        flat positions in C order)."""
        if layout != "cells":
            index = np.cumsum(index, dtype=np.int64)
        return cls(shape, "F" if layout == "gapsT" else "C", index, values, np.dtype(dtype))

    def packed(self) -> tuple[Any, ...]:
        """Shape, dtype, gaps between the cells and their counts, in the smallest exact
        types, and the layout ("gapsT": column by column, "gaps": row by row)."""
        return (
            self.shape,
            self.dtype.str,
            smallest(np.diff(self.index, prepend=0)),
            smallest(self.values),
            "gapsT" if self.order == "F" else "gaps",
        )

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    def columns(self) -> np.ndarray:
        """The column of every cell."""
        n_rows, n_columns = self.shape
        if self.order == "F":
            return self.index // max(n_rows, 1)
        return self.index % max(n_columns, 1)

    def column_by_column(self) -> Cells:
        """The same cells in column-major order ("F")."""
        if self.order == "F":
            return self
        n_rows, n_columns = self.shape
        rows = self.index // max(n_columns, 1)
        index = (self.index - rows * n_columns) * n_rows + rows
        order = np.argsort(index, kind="stable")
        return Cells(self.shape, "F", index[order], self.values[order], self.dtype)

    def column_sums(self) -> np.ndarray:
        """Per column, the sum of its counts (float64, in memory order)."""
        values = self.values.astype(np.float64, copy=False)
        return np.bincount(self.columns(), weights=values, minlength=self.shape[1])

    def dense(self) -> np.ndarray:
        n_rows, n_columns = self.shape
        if self.order == "F":
            out = np.zeros((n_columns, n_rows), dtype=self.dtype)
            out.ravel()[self.index] = self.values
            return out.T
        table = np.zeros((n_rows, n_columns), dtype=self.dtype)
        table.ravel()[self.index] = self.values
        return table


def join_terms(terms: Sequence[str]) -> tuple[bytes, int] | None:
    """The terms as UTF-8 joined by newlines, and their number (None if a term holds a
    newline). UTF-8 sorts bytes as ``str`` sorts code points (lone surrogates included)."""
    if isinstance(terms, JoinedTerms):
        return terms.joined
    n = len(terms)
    direct = sys.modules.get("nbayes.text._direct")
    if direct is not None and isinstance(terms, direct.Terms):
        # a fit's vocabulary as the compiled counting keeps it: code points joined by
        # newlines, re-encoded without making a str per term
        joined = terms.blob.tobytes().decode("utf-32-le", "surrogatepass") if n else ""
    else:
        joined = "\n".join(terms)
    if joined.count("\n") != max(n - 1, 0):
        return None
    return joined.encode("utf-8", "surrogatepass"), n


class JoinedTerms(Sequence[str]):
    """Terms kept as UTF-8 joined by newlines (what a pickle and a merge carry), made into
    ``str`` on first use: a reduce step never needs them as Python strings."""

    __slots__ = ("joined", "_strings")

    def __init__(self, joined: tuple[bytes, int]) -> None:
        self.joined = joined
        self._strings: list[str] | None = None

    def strings(self) -> list[str]:
        if self._strings is None:
            blob, n = self.joined
            self._strings = blob.decode("utf-8", "surrogatepass").split("\n") if n else []
        return self._strings

    def __len__(self) -> int:
        return self.joined[1]

    def __getitem__(self, i: Any) -> Any:
        return self.strings()[i]

    def __iter__(self) -> Any:
        return iter(self.strings())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self.strings() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        return (list, (self.strings(),))


def sorted_union(runs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct terms of sorted runs, sorted, and the column of each run's terms
    (concatenated): one stable sort (timsort merges the runs), each term's rank among
    the distinct terms its column, so the layout is a single fit's."""
    both = np.concatenate(runs)
    order = np.argsort(both, kind="stable")
    ordered = both[order]
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    col = np.empty(len(both), dtype=np.int64)
    col[order] = np.cumsum(first) - 1
    return ordered[first], col


def smallest(values: np.ndarray) -> np.ndarray:
    """Non-negative whole numbers in the smallest unsigned type that holds them exactly
    (anything else as it is)."""
    if len(values) == 0:
        return values
    top = values.max()
    if (
        values.min() < 0
        or top >= 2**32
        or (values.dtype.kind == "f" and not np.array_equal(values, np.floor(values)))
    ):
        return values
    for kind in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(kind).max:
            return values.astype(kind)
    return values  # pragma: no cover (top < 2**32 above)


def objects(terms: Sequence[str]) -> np.ndarray:
    """The terms as a 1-D object array (compared as Python compares str)."""
    out = np.empty(len(terms), dtype=object)
    out[:] = list(terms)
    return out


def is_sorted(terms: np.ndarray) -> bool:
    """Whether the terms are in strictly increasing ``str`` order."""
    return bool((terms[1:] > terms[:-1]).all())


def united_terms(runs: Sequence[tuple[bytes, int]]) -> tuple[bytes, int, np.ndarray] | None:
    """The sorted union of vocabularies given joined (:func:`join_terms`): the union
    joined alike, its number of terms and the column of every term of every run, run
    after run (None: a vocabulary is not strictly sorted)."""
    import nbayes._native as _native

    ns = np.array([n for _, n in runs], dtype=np.int64)
    united: tuple[bytes, int, np.ndarray] | None = _native.union_terms([b for b, _ in runs], ns)
    return united


def summed_cells(
    tables: Sequence[tuple[Cells, np.ndarray, np.ndarray]], n_rows: int, n_columns: int
) -> tuple[np.ndarray, Cells]:
    """The sum of tables given as cells, each with the row and the column of the sum each
    of its rows and columns goes to: the dense sum (Fortran-ordered) and its cells. Each
    cell is added in table order, as adding the tables one after the other would."""
    import nbayes._native as _native

    given = []
    for cells, rows, cols in tables:
        f = cells.column_by_column()
        given.append((f.index, f.values, rows, cols))
    dense, index, sums = _native.sum_cells(given, n_rows, n_columns)
    cells = Cells((n_rows, n_columns), "F", index, sums, np.dtype(np.float64))
    return dense.reshape(n_columns, n_rows).T, cells
