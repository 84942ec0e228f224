"""Reading and writing data and models.

Public API
----------
read_texts
    Stream documents and labels from CSV/TSV, JSON lines, Parquet (gzip
    variants included) or a folder per class, chunk by chunk.
TextChunk
    The chunk type yielded by :func:`read_texts`.
BadRow
    A row ``read_texts(..., bad_rows="skip")`` (or ``read_table``) skipped (given to
    ``on_bad_row``).
read_table
    One table of features (CSV/TSV, JSON lines, gzip variants included, or Parquet) as a
    pandas DataFrame, its unreadable rows skipped with ``bad_rows="skip"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbayes.io.readers import SUPPORTED_FORMATS, BadRow, TextChunk, read_texts
    from nbayes.io.tables import read_table

__all__ = ["SUPPORTED_FORMATS", "BadRow", "TextChunk", "read_table", "read_texts"]


def __getattr__(name: str) -> Any:
    # the readers are imported on first use: loading a model (nbayes.io.persist) needs none
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nbayes.io import readers, tables

    value = getattr(tables if name == "read_table" else readers, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
