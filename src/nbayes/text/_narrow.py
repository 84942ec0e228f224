"""Whole numbers in the smallest unsigned type that holds them exactly: what compact
pickles of text statistics and vocabularies carry (gaps between cells, counts, corpus
totals, term lengths), fewer bytes to ship between Dask workers. numpy only.
"""

from __future__ import annotations

import numpy as np

__all__ = ["smallest"]


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
