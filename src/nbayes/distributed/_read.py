"""Reading files as a dask DataFrame: CSV/TSV, JSON lines, Parquet, by their extension."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..io.input_formats import COMPRESSION_SUFFIXES, is_compressed, of_path, table_formats
from ._inputs import require_dask

__all__ = ["read"]


def _format_of(source: str) -> str:
    found = of_path(source, tables_only=True, compressions=COMPRESSION_SUFFIXES)
    if found is None:
        raise ValueError(
            f"Cannot tell the format of {source!r} from its name: give format= one of {_TABLES}."
        )
    return found.name


_TABLES = ", ".join(repr(f.name) for f in table_formats())


def read(
    source: str | Sequence[str],
    *,
    format: str | None = None,
    blocksize: str | int | None = "64MB",
    columns: Sequence[str] | None = None,
    **kw: Any,
) -> Any:
    """Read CSV/TSV, JSON lines or Parquet files (a path, glob or list) as a dask DataFrame.

    Parameters
    ----------
    source : str or list of str
        Path, glob (``data/*.csv``) or URL understood by fsspec.
    format : {"csv", "tsv", "jsonl", "parquet"}, default=None
        Taken from the file extension if not given (``.gz`` and the like are skipped).
    blocksize : str, int or None, default="64MB"
        Bytes per partition of text formats (None: one partition per file, needed for
        compressed files and for CSV fields holding line breaks).
    columns : list of str, default=None
        Columns to read (all by default).
    **kw
        Passed to ``dask.dataframe.read_csv`` / ``read_json`` / ``read_parquet``.

    Returns
    -------
    dask.dataframe.DataFrame
    """
    dask = require_dask()
    dd = dask.dataframe
    first = source if isinstance(source, str) else source[0]
    fmt = format or _format_of(first)
    compressed = is_compressed(str(first))
    if compressed:
        blocksize = None
    cols = None if columns is None else list(columns)
    if fmt in ("csv", "tsv"):
        sep = "\t" if fmt == "tsv" else ","
        return dd.read_csv(source, sep=kw.pop("sep", sep), blocksize=blocksize, usecols=cols, **kw)
    if fmt == "jsonl":
        df = dd.read_json(source, lines=True, blocksize=blocksize, **kw)
        return df if cols is None else df[cols]
    if fmt == "parquet":
        return dd.read_parquet(source, columns=cols, **kw)
    raise ValueError(f"Unknown format {fmt!r}: use {_TABLES}.")
