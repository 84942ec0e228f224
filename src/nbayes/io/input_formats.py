"""The input formats nbayes reads, in one table: each format's name, file extensions, row
reader and what it can hold.

Everything that asks "which format is this file?" or "which formats are there?" reads this
table: :func:`nbayes.io.read_texts` (its ``format=`` values and the extensions it tells
formats by), the command line's ``--data-format`` and its help, the command line's table
reader (the non-text models) and :func:`nbayes.distributed.read`. A new format is a row here
and its row reader in :mod:`nbayes.io._formats`.

>>> of_path("reviews.csv.gz").name, of_path("data/part-0.parquet").name
('csv', 'parquet')
>>> of_path("notes.txt").name, of_path("README").name
('document', 'document')
>>> [f.name for f in FORMATS if f.table]
['csv', 'tsv', 'jsonl', 'parquet']
>>> of_path("photo.png") is None
True
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from pathlib import PurePath
from typing import Any

__all__ = [
    "COMPRESSION_SUFFIXES",
    "FORMATS",
    "GZIP_SUFFIXES",
    "InputFormat",
    "by_name",
    "extensions_text",
    "is_compressed",
    "names",
    "of_path",
    "row_reader",
    "table_formats",
]

#: compression suffixes skipped when telling a format from a file's name: the readers of
#: this package read gzip (detected by its magic bytes), Dask reads the others too
GZIP_SUFFIXES = (".gz",)
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")


@dataclasses.dataclass(frozen=True)
class InputFormat:
    """One input format.

    Attributes
    ----------
    name : str
        What ``format=`` and ``--data-format`` take.
    extensions : tuple of str
        The file extensions that mean this format (lowercase, with the dot; ``""``: a file
        without extension).
    description : str
        A few words for help texts.
    table : bool
        Rows with named columns (documents in ``text_col``, labels in ``label_col``): what
        the table models and Dask read.
    labelled : bool
        Can carry labels in the file itself (else only a folder per class labels it).
    streamable : bool
        Read in bounded memory chunk by chunk, from a file or from standard input.
    gzip : bool
        Readable gzip-compressed (``.gz``).
    """

    name: str
    extensions: tuple[str, ...]
    description: str
    table: bool
    labelled: bool
    streamable: bool = True
    gzip: bool = True

    @property
    def reader(self) -> Callable[..., Iterator[tuple[Any, ...]]]:
        """The row reader of :mod:`nbayes.io._formats` for this format."""
        return row_reader(self.name)


FORMATS: tuple[InputFormat, ...] = (
    InputFormat("csv", (".csv",), "comma-separated values with a header", True, True),
    InputFormat("tsv", (".tsv", ".tab"), "tab-separated values with a header", True, True),
    InputFormat(
        "jsonl", (".jsonl", ".ndjson", ".json"), "JSON lines: one object per line", True, True
    ),
    InputFormat(
        "parquet",
        (".parquet", ".pq"),
        "Parquet",
        True,
        True,
        streamable=False,
        gzip=False,
    ),  # fmt: skip
    InputFormat("lines", (), "plain text, one document per line", False, False),
    InputFormat(
        "document",
        ("", ".txt", ".text", ".eml"),
        "plain text, one document per file",
        False,
        False,
    ),  # fmt: skip
)

_BY_NAME = {f.name: f for f in FORMATS}
_BY_EXTENSION = {ext: f for f in FORMATS for ext in f.extensions}


def names() -> tuple[str, ...]:
    """Every format's name, in the table's order."""
    return tuple(f.name for f in FORMATS)


def table_formats() -> tuple[InputFormat, ...]:
    """The formats of tables (named columns)."""
    return tuple(f for f in FORMATS if f.table)


def by_name(name: str) -> InputFormat:
    """The format called ``name`` (ValueError naming the formats otherwise)."""
    found = _BY_NAME.get(name)
    if found is None:
        raise ValueError(f"Unknown format {name!r}: use one of {', '.join(map(repr, names()))}.")
    return found


def _suffix(path: str | os.PathLike[str], compressions: tuple[str, ...]) -> str:
    suffixes = [s.lower() for s in PurePath(os.fspath(path).rstrip("/*")).suffixes]
    while suffixes and suffixes[-1] in compressions:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def of_path(
    path: str | os.PathLike[str],
    tables_only: bool = False,
    compressions: tuple[str, ...] = GZIP_SUFFIXES,
) -> InputFormat | None:
    """The format a file's name means (the suffixes of ``compressions`` skipped), or None;
    with ``tables_only`` only a table format (a ``.txt`` file is then None)."""
    found = _BY_EXTENSION.get(_suffix(path, compressions))
    if found is not None and tables_only and not found.table:
        return None
    return found


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """Whether a file's name ends in a compression suffix (of :data:`COMPRESSION_SUFFIXES`)."""
    return os.fspath(path).lower().endswith(COMPRESSION_SUFFIXES)


def extensions_text(formats: tuple[InputFormat, ...] = FORMATS) -> str:
    """The extensions of ``formats`` for a message, e.g. ``.csv, .tsv, .tab, ...``."""
    return ", ".join(ext for f in formats for ext in f.extensions if ext)


def row_reader(name: str) -> Callable[..., Iterator[tuple[Any, ...]]]:
    """The function ``(path, options, decoding) -> (text, label) rows`` that reads a file
    of format ``name`` (:mod:`nbayes.io._formats`); ``(text, label, id)`` rows where the
    options name an ``id_col`` (tables only)."""
    from nbayes.io import _formats

    fmt = by_name(name).name
    if fmt in ("csv", "tsv"):

        def delimited_rows(path: Any, opts: Any, decoding: Any) -> Iterator[tuple[Any, ...]]:
            return _formats.csv_rows(path, fmt, opts, decoding)

        return delimited_rows
    readers: dict[str, Callable[..., Iterator[tuple[Any, ...]]]] = {
        "jsonl": _formats.jsonl_rows,
        "parquet": _formats.parquet_rows,
        "lines": _formats.line_rows,
        "document": _formats.document_rows,
    }
    return readers[fmt]
