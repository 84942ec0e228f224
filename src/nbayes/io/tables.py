"""Reading a table of features into a pandas DataFrame: :func:`read_table`, the reader of
the non-text models' data (the command line's, and the Dask workers' that skip bad rows).

The rows that cannot be read as rows of the table are bad rows, skipped with
``bad_rows="skip"`` as :func:`nbayes.io.read_texts` skips its own: a CSV/TSV line with
more fields than the header, a JSON line that is not valid JSON or not an object. Which
cells a model refuses (a missing label, a cell that is not a number) is its caller's
business: every row read is in the frame.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from nbayes.io._formats import json_objects
from nbayes.io._opening import (
    BAD_ROWS,
    BadRow,
    BadRows,
    Stream,
    _is_gzip,
    _open_text,
    pass_option,
)

__all__ = [
    "parquet_columns",
    "read_table",
    "read_table_head",
    "require_pandas",
    "retyped",
    "rows_without_labels",
    "same_columns",
]

#: the formats :func:`read_table` reads (as :data:`nbayes.io.input_formats.FORMATS` names
#: them)
TABLE_FORMATS = ("csv", "tsv", "jsonl", "parquet")


def read_table(
    source: str | os.PathLike[str] | Any,
    format: str,
    *,
    name: str | None = None,
    delimiter: str | None = None,
    typed: bool = False,
    bad_rows: str = "error",
    on_bad_row: Callable[[BadRow], None] | None = None,
) -> Any:
    """Every row of one table, as a pandas DataFrame (needs pandas; Parquet, pyarrow).

    Parameters
    ----------
    source : path, binary file or iterable of str
        A file (gzip-compressed or not, told by its first bytes), an open binary file
        (standard input: CSV/TSV only), or the lines of a part of a CSV/TSV file (the
        header line first) or of a JSON lines file, with their line breaks.
    format : {"csv", "tsv", "jsonl", "parquet"}
    name : str, optional
        The table as bad rows name it (default: ``source``'s path, an open file's name,
        ``"<lines>"`` for lines).
    delimiter : str, optional
        A CSV/TSV file's field delimiter, where not a comma (a tab).
    typed : bool, default=False
        CSV/TSV cells as pandas types them (empty cells missing); else strings, an empty
        cell (and a field missing from a short line) an empty string. JSON lines
        values are as parsed, Parquet columns as stored, either way.
    bad_rows : {"error", "skip"}, default="error"
        ``"error"``: a row that cannot be read is a ValueError (a CSV/TSV line with more
        fields than the header: naming the line, as :func:`nbayes.io.read_texts` does;
        a JSON line: as pandas says it, naming the first bad line). ``"skip"``: it is
        left out, and handed to ``on_bad_row`` as a :class:`~nbayes.io.BadRow` (its
        1-based ``line``; ``row`` None): a CSV/TSV line with more fields than the header
        (a line with fewer has missing cells), a JSON line that is not valid JSON or not
        a JSON object.
    on_bad_row : callable, optional
        With ``bad_rows="skip"``: called with each row skipped, in the file's order.
        Without it, one :class:`~nbayes.exceptions.SkippedRowsWarning` counts them.

    The rows read keep their order, indexed 0, 1, ... (a row skipped has no index).
    """
    if bad_rows not in BAD_ROWS:
        raise ValueError(f"bad_rows must be one of {BAD_ROWS}, got {bad_rows!r}.")
    if format not in TABLE_FORMATS:
        raise ValueError(f"format must be one of {TABLE_FORMATS}, got {format!r}.")
    pd = require_pandas()
    skipped = BadRows("skip", on_bad_row) if bad_rows == "skip" else None
    lines: list[str] | None = None
    if isinstance(source, (str, os.PathLike)):
        source = Path(source)
    elif isinstance(source, Iterable) and not hasattr(source, "read"):
        lines = list(source)
    src = name if name is not None else "<lines>" if lines is not None else _name(source)
    if lines is not None:
        source = io.StringIO("".join(lines)) if format != "jsonl" else Stream(src, iter(lines))
    # a file is gzip-compressed or not as its first bytes say, whatever its name ends with
    # (pandas would tell it by the name)
    gz = {"compression": "gzip" if _is_gzip(source) else None} if isinstance(source, Path) else {}
    if format in ("csv", "tsv"):
        sep = delimiter or ("," if format == "csv" else "\t")
        if typed:  # pandas infers each column's type; empty cells are missing
            frame = _csv(pd, source, src, skipped, sep=sep, **gz)
        else:
            frame = _csv(pd, source, src, skipped, sep=sep, dtype=str, keep_default_na=False,
                         **gz)  # fmt: skip
    elif format == "jsonl":
        frame = _jsonl(pd, source, src, skipped, gz)
    else:
        frame = pd.read_parquet(source)
    if skipped is not None:
        skipped.warn(partial=False)  # (one SkippedRowsWarning, unless on_bad_row took them)
    return frame


def read_table_head(
    path: str | os.PathLike[str],
    format: str,
    lines: int,
    *,
    delimiter: str | None = None,
    encoding: str = "utf-8",
) -> Any:
    """:func:`read_table` of the first ``lines`` lines of a CSV/TSV or JSON lines file
    (gzip-compressed or not): its bad rows there are errors that name the file and the
    line, as of the whole file."""
    with _open_text(Path(path), encoding, newline="") as f:
        head = list(itertools.islice(f, lines))
    return read_table(head, format, name=str(path), delimiter=delimiter)


def retyped(table: Any, text_columns: Iterable[Any] = ()) -> Any:
    """``table``, read as text (``read_table(..., typed=False)`` of a CSV/TSV file), with
    its columns typed as ``typed=True`` types those of a file of its rows: pandas infers
    each column's type from all of them (empty cells missing); ``text_columns`` stay text
    (their empty cells missing too). The index is kept."""
    pd = require_pandas()
    text = {c: str for c in text_columns}
    out = pd.read_csv(io.StringIO(table.to_csv(index=False)), dtype=text or None)
    out.index = table.index
    return out


def rows_without_labels(table: Any, label_col: str) -> dict[int, str]:
    """The rows of ``table`` whose label in ``label_col`` is missing (None, NaN, an empty
    cell), by position: ``{row: "no label"}`` (none if the table has no such column).

    >>> import pandas as pd
    >>> rows_without_labels(pd.DataFrame({"x": [1, 2, 3], "y": ["a", None, ""]}), "y")
    {1: 'no label', 2: 'no label'}
    """
    if label_col not in table.columns:
        return {}
    values = table[label_col].tolist()
    return {i: "no label" for i, v in enumerate(values) if v is None or v == "" or v != v}


def same_columns(tables: Sequence[tuple[str, Sequence[Any]]]) -> None:
    """A ValueError, with what to do, unless the tables ``(name, columns)`` have the same
    columns in the same order: one table of all their rows (one process concatenates only
    such tables, and the Dask workers read only such files).

    >>> same_columns([("a.csv", ["x", "y"]), ("b.csv", ["x", "y"])])
    >>> same_columns([("a.csv", ["x", "y"]), ("b.csv", ["y", "x"])])
    Traceback (most recent call last):
    ...
    ValueError: The table 'b.csv' has the columns ['y', 'x'], but 'a.csv' has ['x', 'y']: its \
column 'y' is the 1st, in 'a.csv' the 2nd; every table must have the same columns, in the \
same order (one table of all their rows): write 'b.csv' with the columns of 'a.csv', in \
their order, or train on the tables of each layout apart.
    """
    if not tables:
        return
    (first, columns), *others = [(name, [str(c) for c in cols]) for name, cols in tables]
    for name, theirs in others:
        if theirs == columns:
            continue
        raise ValueError(
            f"The table {name!r} has the columns {theirs}, but {first!r} has {columns}: "
            f"{_columns_differ(theirs, columns, first)}; every table must have the same "
            f"columns, in the same order (one table of all their rows): write {name!r} with "
            f"the columns of {first!r}, in their order, or train on the tables of each "
            "layout apart."
        )


def parquet_columns(path: str, storage_options: dict[str, Any] | None = None) -> list[str]:
    """The columns of a Parquet file as pandas reads them, from its schema alone (a column
    that stores pandas' index is none)."""
    import pyarrow.parquet as pq
    from fsspec import open as fs_open

    with fs_open(path, "rb", **(storage_options or {})) as f:
        schema = pq.read_schema(f)
    index = (schema.pandas_metadata or {}).get("index_columns", [])
    return [name for name in schema.names if name not in index]


def _columns_differ(theirs: list[str], columns: list[str], first: str) -> str:
    """How a table's ``theirs`` differ from ``columns`` (those of the table ``first``)."""
    extra = [c for c in theirs if c not in columns]
    missing = [c for c in columns if c not in theirs]
    said = []
    if extra:
        said.append(f"its column {extra[0]!r} is not in {first!r}")
    if missing:
        said.append(f"it has no column {missing[0]!r} (of {first!r})")
    if said:
        return ", and ".join(said)
    if len(theirs) != len(columns):  # (the same names, some twice)
        return f"it has {len(theirs)} columns, {first!r} {len(columns)}"
    k = next(k for k, (a, b) in enumerate(zip(theirs, columns, strict=True)) if a != b)
    return (
        f"its column {theirs[k]!r} is the {_nth(k + 1)}, in {first!r} the "
        f"{_nth(columns.index(theirs[k]) + 1)}"
    )


def _nth(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    last = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{last}"


def _name(source: Any) -> str:
    """How bad rows name ``source``: its path, or an open file's name."""
    return str(getattr(source, "name", source))


def require_pandas() -> Any:
    """pandas, or an ImportError that says how to install it."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is installed with the test extra
        raise ImportError(
            "Reading tables of numeric or categorical columns needs pandas: "
            "pip install pandas (text data does not)."
        ) from None
    return pd


def _csv(pd: Any, source: Any, name: str, skipped: BadRows | None, **kw: Any) -> Any:
    """``pd.read_csv``; skipping bad rows, a line with more fields than the header is left
    out and counted (pandas' own error otherwise)."""
    if skipped is None:
        try:
            return pd.read_csv(source, **kw)
        except pd.errors.ParserError as exc:  # (pandas' words: "C error: Expected 3 fields")
            found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
            if found is None:
                raise
            want, line, saw = found.groups()
            raise ValueError(
                f"{name}, line {line}: {saw} fields, but the header has {want}; check the "
                f"quoting and the delimiter ({kw.get('sep', ',')!r})."
                + pass_option("bad_rows", "to skip such rows", "skip")
            ) from None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        frame = pd.read_csv(source, on_bad_lines="warn", **kw)
    for w in caught:
        if not issubclass(w.category, pd.errors.ParserWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        for line, want, saw in re.findall(r"line (\d+): expected (\d+) fields, saw (\d+)",
                                          str(w.message)):  # fmt: skip
            reason = f"{saw} fields, the header has {want}"
            skipped.bad(f"{name}, line {line}: {reason}.", name, reason, None, int(line))
    return frame


def _jsonl(pd: Any, source: Any, name: str, skipped: BadRows | None, kw: dict[str, Any]) -> Any:
    """``pd.read_json`` of JSON lines (``kw``: a file's compression); skipping bad rows,
    the lines that are not a JSON object are left out and counted first."""
    if skipped is None:
        if isinstance(source, Stream):
            source = io.StringIO("".join(source.lines))
        try:
            return pd.read_json(source, lines=True, dtype=False, **kw)
        except (ValueError, TypeError):
            # pandas' words for a line that is no object ("'int' object is not iterable"):
            # the first such line named, as the text reader names it (a fuzz)
            if isinstance(source, io.StringIO):
                source.seek(0)
                source = Stream(name, source)
            for _ in json_objects(source, "utf-8", BadRows(), "strict", name=name):
                pass
            raise
    good = [
        line if line.endswith("\n") else line + "\n"
        for _, _, line, _ in json_objects(source, "utf-8", skipped, "strict", name=name)
    ]
    if not good:
        return pd.DataFrame()
    return pd.read_json(io.StringIO("".join(good)), lines=True, dtype=False)
