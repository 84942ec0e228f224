"""Bad rows of tables skipped on the workers: ``fit_source(GaussianNB(), ...,
bad_rows="skip")`` and ``nbayes train --model gaussian --workers N --bad-rows skip``.

Every partition (a block of a CSV/TSV or JSON lines file, a Parquet file) is read on its
worker by :func:`nbayes.io.read_table`, as one process reads a whole file: a line it
cannot read is a bad row (``line N``); then the rows the model would refuse are
(:attr:`TableRows.bad`, by default the rows without a label: ``row N``, 0-based among the
rows read from the file). The client numbers them from the file's start as
:mod:`._bad_rows` numbers the text readers' (:func:`._bad_rows.in_files`).

One process types a table's columns from every row of a file (pandas: a column of
integers with one decimal number is of floats, with one word of words; a CSV table typed
from the rows kept, JSON lines from the rows read), then across files (pandas' concat).
A partition holds a part of a file: where the columns or types follow from the rows (a
typed CSV table, :attr:`TableRows.typed`; JSON lines, whose columns are every row's keys;
several Parquet files, typed across files), the workers first read their partitions for
their columns and types alone (:func:`column_types`), the client joins those as pandas
joins them in one file and then across files (:func:`agreed`), and each worker gives its
partition those columns, in that order, of those types (:func:`read_table_part`): the
model equals the one of one process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..io.readers import BadRow
from ..io.tables import read_table, require_pandas, retyped, rows_without_labels, same_columns
from ._bad_rows import BlockError, Blocks, Skipped, _lines

__all__ = ["TableRows", "agreed", "column_types", "read_table_part", "rows_read"]


def _features_and_labels(table: Any, label_col: str) -> tuple[Any, list[Any]]:
    return table.drop(columns=[label_col]), table[label_col].tolist()


@dataclass(frozen=True)
class TableRows:
    """How the workers make a table's partitions into rows to learn, skipping bad rows
    (``fit_source(..., bad_rows="skip", table_rows=...)``).

    Attributes
    ----------
    typed : bool, default=True
        CSV/TSV cells typed as pandas types a file's (from the rows kept); else strings
        (JSON lines and Parquet values are as read either way).
    bad : callable, default=None
        ``bad(table) -> {position: reason}``: the rows of a partition's table (as read,
        positions from 0) to leave out, and what is wrong with each; None: the rows
        without a label.
    learned : callable, default=None
        ``learned(table) -> (X, y)``: the estimator's input and labels from the rows kept;
        None: the columns but the labels', and the labels.
    all_bad : str, default="No rows left: every row is bad."
        The error when every row is bad (followed by the rows skipped).

    Functions travel to the workers: give functions of a module (or partials of them).
    """

    typed: bool = True
    bad: Callable[[Any], dict[int, str]] | None = None
    learned: Callable[[Any], tuple[Any, Any]] | None = None
    all_bad: str = "No rows left: every row is bad."


# ------------------------------------------------------------------ the types
def _tag(values: Any) -> str:
    """How pandas typed a column of a part of a file: "empty" (every cell missing),
    "bool", "int", "float", "str", "bools" (flags with missing cells) or "object"."""
    pd = require_pandas()
    types = pd.api.types
    if values.isna().all():
        return "empty"
    if types.is_bool_dtype(values.dtype):
        return "bool"
    if types.is_integer_dtype(values.dtype):
        return "int"
    if types.is_float_dtype(values.dtype):
        return "float"
    if isinstance(values.dtype, pd.StringDtype):
        return "str"
    present = values.dropna().tolist()
    if all(isinstance(v, bool) for v in present):
        return "bools"
    return "str" if all(isinstance(v, str) for v in present) else "object"


def _in_one_file(tags: set[str], csv: bool) -> str:
    """A column's type in a file whose parts pandas typed ``tags``, as it types the whole
    (a CSV file's cells that are neither all numbers nor all flags are words)."""
    full = tags - {"empty"}
    if not full:
        return "empty"
    if full == {"int"}:
        return "float" if "empty" in tags else "int"  # (a missing cell: floats)
    if full <= {"int", "float"}:
        return "float"
    if full <= {"bool", "bools"}:
        return "bools" if "empty" in tags or "bools" in full else "bool"
    if full == {"str"}:
        return "str"
    return "str" if csv else "object"


def _across_files(tags: set[str]) -> str:
    """A column's type in files typed ``tags``, concatenated (pandas' concat)."""
    if len(tags) == 1:
        return next(iter(tags))
    if tags <= {"int", "float", "empty"}:
        return "float"
    return "object"


def agreed(blocks: Blocks, found: list[Found]) -> list[dict[str, tuple[str, Any]]]:
    """Each partition's columns and their types: ``{column: (in its file, across
    files)}``, the columns of its file in the order one process reads them (of the first
    row that has each, pandas' order for JSON lines), from the rows and the types of each
    partition's columns alone (``found``, :func:`column_types`). A column missing from a
    partition with rows (a JSON key only in other rows) is missing in its rows; files of
    other columns are refused, as one process refuses them. Parquet files' types across
    files are the dtypes of pandas' concat of them (:func:`_concatenated`)."""
    files: dict[str, dict[str, set[str]]] = {}
    for (path, _, _), (rows, tags, _) in zip(blocks.sources.parts, found, strict=True):
        columns = files.setdefault(path, {})
        for column, tag in tags.items():
            seen = columns.setdefault(column, set())
            if rows:  # (a partition without rows types nothing)
                seen.add(tag)
    for (path, _, _), (rows, tags, _) in zip(blocks.sources.parts, found, strict=True):
        for column, seen in files[path].items():
            if rows and column not in tags:
                seen.add("empty")
    _same_columns(blocks, files)
    csv = blocks.sources.format in ("csv", "tsv")
    in_file = {
        path: {column: _in_one_file(tags, csv) for column, tags in columns.items()}
        for path, columns in files.items()
    }
    concat: dict[str, set[str]] = {}
    for path, types in in_file.items():
        for column, tag in types.items():
            if files[path][column]:  # (a file without rows types nothing)
                concat.setdefault(column, set()).add(tag)
    across: dict[str, Any] = {column: _across_files(tags) for column, tags in concat.items()}
    if blocks.sources.format == "parquet":  # (a partition a file: its own dtypes)
        across = _concatenated([sample for _, _, sample in found])
    return [
        {column: (tag, across.get(column, tag)) for column, tag in in_file[path].items()}
        for path, _, _ in blocks.sources.parts
    ]


def _same_columns(blocks: Blocks, files: dict[str, dict[str, set[str]]]) -> None:
    """A ValueError if the files do not have the same columns in the same order (one
    process concatenates only such tables)."""
    names = dict(zip((path for path, _, _ in blocks.sources.parts), blocks.names, strict=False))
    same_columns([(names.get(path, path), list(columns)) for path, columns in files.items()])


def needs_types(blocks: Blocks) -> bool:
    """Whether the partitions' columns or types follow from the rows of other partitions
    (several of a typed CSV table or JSON lines; several Parquet files: the types of
    pandas' concat)."""
    rows = blocks.table
    fmt = blocks.sources.format
    typed_csv = rows is not None and rows.typed and fmt in ("csv", "tsv")
    return len(blocks.raws) > 1 and (typed_csv or fmt in ("jsonl", "parquet"))


#: what a first read of a partition found (:func:`column_types`): its rows, its columns'
#: types, and (a Parquet file) a sample of its columns
Found = tuple[int, dict[str, str], Any]


def column_types(blocks: Blocks, i: int, raw: Any) -> Found:
    """On a worker: the number of rows of partition ``i`` and its columns' types, in its
    columns' order, from its rows alone (the rows kept of a typed CSV table, all rows read
    of JSON lines and Parquet); of a Parquet file, also a row of its columns, of their
    dtypes (each column's first value that is not missing, if it has one; no row if the
    file has none): pandas' concat of these types the files' columns as it types those
    of the files (:func:`_concatenated`)."""
    table, _ = _read(blocks, i, raw, Skipped())
    sample = None
    if blocks.sources.format in ("csv", "tsv"):
        table = retyped(_kept(blocks, table, Skipped(), blocks.names[i]))
    elif blocks.sources.format == "parquet":
        sample = _sample(table)
    return len(table), {str(column): _tag(table[column]) for column in table.columns}, sample


def _sample(table: Any) -> Any:
    """A row of ``table``'s columns, of their dtypes: each column's first value that is
    not missing (its first if all are); no row if ``table`` has none."""
    pd = require_pandas()
    if len(table) == 0:
        return table.iloc[:0]
    columns = {}
    for column in table.columns:
        valid = table[column].first_valid_index()
        at = 0 if valid is None else table.index.get_loc(valid)
        columns[column] = table[column].iloc[[at]].reset_index(drop=True)
    return pd.DataFrame(columns)


def _concatenated(samples: list[Any]) -> dict[str, Any]:
    """The dtypes of the columns of pandas' concat of the files whose ``samples`` these
    are (:func:`_sample`), as one process concatenates the files: integers of 32 bits in
    one file and of 64 in another are of 64, a column without a value in one file (null,
    or an object of NaN) joins the other's as pandas joins them (objects, in pandas 3)."""
    import warnings

    pd = require_pandas()
    with warnings.catch_warnings():  # (pandas 2's notice that all-NA columns will count)
        warnings.simplefilter("ignore", FutureWarning)
        joined = pd.concat(samples, ignore_index=True)
    return {str(column): dtype for column, dtype in joined.dtypes.items()}


def rows_read(blocks: Blocks, i: int, raw: Any) -> int:
    """On a worker: the number of rows :func:`nbayes.io.read_table` reads of partition
    ``i`` (bad rows skipped, as one process numbers a table's rows)."""
    return _read(blocks, i, raw, Skipped())[1].rows


# ------------------------------------------------------------------ the workers
def _read(blocks: Blocks, i: int, raw: Any, found: Skipped) -> tuple[Any, Skipped]:
    """Partition ``i``'s table as :func:`nbayes.io.read_table` reads it (CSV/TSV cells as
    strings), the lines it cannot read in ``found``."""
    sources = blocks.sources
    path, block, _ = sources.parts[i]
    name = blocks.names[i]

    def skip(row: BadRow) -> None:
        found.bad.append((None, row.line, row.reason, row.message))

    source: Any = raw
    if sources.format != "parquet":
        head = blocks.headers.get(path, b"") if block > 0 else b""
        source, found.invalid_bytes = _lines(head + bytes(raw), sources.encoding)
        found.lines = len(source) - (1 if head else 0)
    try:
        table = read_table(source, sources.format, name=name, delimiter=sources.sep,
                           bad_rows="skip", on_bad_row=skip)  # fmt: skip
    except ValueError as exc:
        raise BlockError(i, str(exc)) from None
    found.rows = len(table)
    return table, found


def _kept(blocks: Blocks, table: Any, found: Skipped, name: str) -> Any:
    """``table`` without the rows :attr:`TableRows.bad` names (those counted in
    ``found``)."""
    rows = blocks.table or TableRows()
    if len(table) == 0:
        return table
    reasons = (
        rows.bad(table) if rows.bad is not None else rows_without_labels(table, blocks.label_col)
    )
    for i in sorted(reasons):
        found.bad.append((i, None, reasons[i], f"{name}, row {i}: {reasons[i]}."))
    return table.drop(index=table.index[sorted(reasons)]) if reasons else table


def read_table_part(
    blocks: Blocks, i: int, raw: Any, types: dict[str, tuple[str, Any]] | None
) -> tuple[Any, list[Any], Skipped]:
    """On a worker: the estimator's input and labels of partition ``i`` (``raw``: its
    block's bytes, or a Parquet file's path), its columns those of the ``types`` agreed, in
    their order and of their types (None: as read), and what was skipped; a
    :class:`BlockError` for what spoils more than a row."""
    rows = blocks.table or TableRows()
    fmt = blocks.sources.format
    table, found = _read(blocks, i, raw, Skipped())
    order = list(types or {})
    if order and [str(column) for column in table.columns] != order:
        table = table.reindex(columns=order)  # (the file's columns; a key missing: NaN)
    table = _kept(blocks, table, found, blocks.names[i])
    if len(table) == 0:
        return None, [], found
    if rows.typed and fmt in ("csv", "tsv"):
        words = [c for c, (t, _) in (types or {}).items() if t == "str"]
        table = retyped(table, words)
    if types:
        table = _cast(table, types)
    if rows.learned is None:
        X, labels = _features_and_labels(table, blocks.label_col)
    else:
        X, labels = rows.learned(table)
    return X, list(labels), found


def _cast(table: Any, types: dict[str, tuple[str, Any]]) -> Any:
    """``table``'s columns of the types agreed: in the file, then across files (a tag,
    or, of Parquet files, the dtype of pandas' concat)."""
    pd = require_pandas()
    table = table.copy()
    for column in table.columns:
        tag = _tag(table[column])
        in_file, across = types.get(str(column), (tag, tag))
        values = table[column]
        if in_file == "float" and tag != "float":
            values = values.astype("float64")
        elif in_file == "bools" and tag in ("bool", "empty"):
            values = values.astype(object)
        elif in_file == "str" and not isinstance(values.dtype, pd.StringDtype):
            values = values.astype("str")
        elif in_file == "object" and tag != "object":
            values = values.astype(object)
        if not isinstance(across, str):  # (a dtype: pandas' concat's)
            values = values if values.dtype == across else values.astype(across)
        elif across != in_file:
            values = values.astype("float64" if across == "float" else object)
        table[column] = values
    return table
