"""Text statistics in their packed form: a count table as its non-zero cells (what a
pickle carries), and the compiled pieces of a merge over packed statistics (the union of
sorted packed vocabularies, the sum of cells).

numpy only (the kernels are imported when a merge or a search for cells runs): the lean
prediction path unpickles text statistics without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._narrow import smallest

__all__ = ["Cells", "summed_cells", "united_terms"]


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


def united_terms(vocabularies: Sequence[Any]) -> tuple[Any, np.ndarray] | None:
    """The sorted union of packed vocabularies (:class:`~nbayes.text._vocabulary.
    PackedTerms`), packed alike, and the column of every term of every vocabulary in it,
    one vocabulary after the other (None: a vocabulary is not strictly sorted)."""
    import nbayes._native as _native

    from ._vocabulary import PackedTerms

    united = _native.union_terms([v.data for v in vocabularies], [v.offsets for v in vocabularies])
    if united is None:
        return None
    data, offsets, cols = united
    return PackedTerms(data, offsets, True), cols


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
