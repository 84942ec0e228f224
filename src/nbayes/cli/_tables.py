"""Tables of numeric or categorical columns for the non-text models (needs pandas).

A table is a CSV/TSV (optionally gzipped), JSON lines or Parquet file with a header; one
column holds the labels (``--label-col``), every other column is a feature. The features
keep their column names, so a model trained here checks them at prediction time.

With ``--bad-rows skip`` (:func:`nbayes.cli._common.data_reading`), a bad row is left out
and counted instead of stopping the command: a CSV line with more fields than the header
or an invalid JSON line (:func:`nbayes.io.read_table`, which reads every file), a row
without a label or, for the models that need numbers, with a cell that is not one
(:func:`drop_bad_rows`): the rows that :func:`split_labels` and :func:`table_features`
would refuse, no others. Row numbers are 0-based positions among the rows read from each
file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from nbayes.cli._common import UI, CLIError, skipped_rows
from nbayes.io.input_formats import extensions_text, of_path, table_formats
from nbayes.io.tables import rows_without_labels, same_columns

__all__ = [
    "bad_rows", "dask_rows", "drop_bad_rows", "read_table", "split_labels", "table_features",
    "table_flags",
]  # fmt: skip

#: :func:`read_table`'s default ``kind`` and ``label_col``: the running command's flags
FROM_FLAGS = "<the command's flags>"
#: the formats of a table (``--data-format``)
_TABLE_FORMATS = tuple(f.name for f in table_formats())


@dataclass(frozen=True)
class _Bad:
    """A bad row of a table, skipped (as :class:`nbayes.io.readers.BadRow` says it)."""

    source: str
    where: str
    reason: str

    def __str__(self) -> str:
        return f"{Path(self.source).name or self.source} {self.where}: {self.reason}"


def _read(source: Any, fmt: str, name: str, typed: bool = False, sep: str | None = None) -> Any:
    """:func:`nbayes.io.read_table`; skipping bad rows (``--bad-rows skip``), the rows it
    cannot read are left out and counted."""
    from nbayes.cli._common import reader_flags
    from nbayes.io.tables import read_table as read_rows

    skipped = skipped_rows()
    policy: dict[str, Any] = {}
    if skipped is not None:
        policy = {"bad_rows": "skip", "on_bad_row": skipped.add}
    with reader_flags():  # (advice in the flags' words: --bad-rows skip, not bad_rows=)
        return read_rows(source, fmt, name=name, delimiter=sep, typed=typed, **policy)


def _pandas() -> Any:
    from nbayes.io.tables import require_pandas

    try:
        return require_pandas()
    except ImportError as exc:  # pragma: no cover - pandas is installed with the test extra
        raise CLIError(str(exc)) from None


def _read_one(
    path: str, typed: bool = False, delimiter: str | None = None, data_format: str | None = None
) -> Any:
    if data_format is not None and data_format not in _TABLE_FORMATS:
        raise CLIError(
            f"--data-format {data_format} is not a table's: a model of numbers or categories "
            f"reads {', '.join(_TABLE_FORMATS)}."
        )
    if path == "-":  # standard input: a CSV table (or --data-format's)
        import sys

        stream = getattr(sys.stdin, "buffer", sys.stdin)
        fmt = data_format or "csv"
        if fmt not in ("csv", "tsv"):
            raise CLIError(
                f"A table on standard input is read as CSV or TSV (--data-format csv|tsv); "
                f"give a {fmt} table as a file."
            )
        try:
            return _read(stream, fmt, "<stdin>", typed, delimiter)
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            said = str(exc)  # (a bad row's error names the line itself)
            if said.startswith("<stdin>, line "):
                raise CLIError("Standard input" + said.removeprefix("<stdin>")) from None
            raise CLIError(f"Cannot read a {fmt} table from standard input: {said}") from None
    p = Path(path)
    if not p.exists():
        raise CLIError(f"No such file: {path!r}.")
    if p.is_dir():
        raise CLIError(
            f"{path!r} is a folder: the non-text models read one table per file "
            "(CSV, TSV, JSON lines or Parquet)."
        )
    found = of_path(p, tables_only=True)
    name = data_format or (found.name if found is not None else None)
    try:
        if name is not None:
            return _read(p, name, path, typed, delimiter)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        said = str(exc)  # (a bad row's error names the file and the line itself)
        raise CLIError(
            said if said.startswith(f"{path}, line ") else f"Cannot read the table {path!r}: {said}"
        ) from None
    raise CLIError(
        f"Cannot tell the format of {path!r} from its extension: tables are "
        f"{extensions_text(table_formats())} (optionally .gz)."
    )


def table_flags(args: Any) -> dict[str, Any]:
    """:func:`read_table`'s options from a command's flags: ``--delimiter`` and
    ``--data-format`` (files of tables were read by their extension whatever it said)."""
    from nbayes.cli._common import delimiter_of

    return {"delimiter": delimiter_of(args), "data_format": getattr(args, "data_format", None)}


def read_table(
    ui: UI,
    paths: Sequence[str],
    typed: bool = False,
    delimiter: str | None = None,
    *,
    kind: str | None = FROM_FLAGS,
    label_col: str | None = FROM_FLAGS,
    model: Any = None,
    data_format: str | None = None,
) -> Any:
    """All rows of the tables, one pandas DataFrame.

    CSV cells are strings, or with ``typed`` (mixed models) of the types pandas infers,
    empty cells missing. ``delimiter``: a CSV's (``--delimiter``), where not a comma.

    With ``--bad-rows skip``, the lines pandas cannot read as a row are left out and
    counted, and then the rows :func:`split_labels` and :func:`table_features` would
    refuse for a model that takes the table as ``kind`` with its labels in ``label_col``
    (:func:`drop_bad_rows`); by default both follow from the command's flags (train's
    ``--model`` and ``--label-col``); ``kind=None``: the caller drops them. ``model``: the
    fitted model the table is for (its feature columns). A typed CSV table is then read
    as text first, and its types inferred from the rows kept, as from a file without the
    bad rows.
    """
    pd = _pandas()
    frames = []
    skipping = kind is not None and skipped_rows() is not None
    raw = [skipping and typed and _is_csv(path) for path in paths]
    with ui.progress("Reading", "rows") as bar:
        for path, as_text in zip(paths, raw, strict=True):
            frame = _read_one(path, typed and not as_text, delimiter, data_format)
            frame.attrs = {}  # (the sources are set below, once)
            frames.append(frame)
            bar.advance(len(frame))
    try:  # (as the Dask workers check the files, with the same words)
        same_columns(
            [(path, list(frame.columns)) for path, frame in zip(paths, frames, strict=True)]
        )
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if len(table) == 0:
        skipped = skipped_rows()
        bad = f" ({skipped.text()})" if skipped is not None and skipped.count else ""
        raise CLIError(f"No rows found in {', '.join(map(repr, paths))}{bad}.")
    starts = np.cumsum([0] + [len(f) for f in frames[:-1]]).tolist()
    table.attrs["nbayes_sources"] = list(zip(paths, starts, strict=True))
    skipped = skipped_rows()
    if kind is not None and skipped is not None:
        if kind == FROM_FLAGS:
            kind = "typed" if typed else _kind_of(getattr(skipped.args, "model", None))
        if label_col == FROM_FLAGS:
            label_col = getattr(skipped.args, "label_col", None)
        table = drop_bad_rows(table, kind, label_col, model)
        if any(raw):
            table = _retyped(pd, table, raw)
    return table


def _is_csv(path: str) -> bool:
    fmt = of_path(path, tables_only=True)
    return path == "-" or (fmt is not None and fmt.name in ("csv", "tsv"))


def _retyped(pd: Any, table: Any, raw: list[bool]) -> Any:
    """The CSV tables read as text, with the types pandas infers from their rows kept,
    file by file, as it infers them reading the files without their bad rows."""
    from nbayes.io.tables import retyped

    starts = [start for _, start in table.attrs["nbayes_sources"]]
    ends = starts[1:] + [int(table.index.max()) + 1 if len(table) else 0]
    parts = []
    for as_text, start, end in zip(raw, starts, ends, strict=True):
        part = table[(table.index >= start) & (table.index < end)]
        parts.append(retyped(part) if as_text else part)
    out = pd.concat(parts) if len(parts) > 1 else parts[0]
    out.attrs["nbayes_sources"] = table.attrs["nbayes_sources"]
    return out


def _kind_of(model_name: Any) -> str:
    """How the estimator ``--model NAME`` takes a table (numbers where it is not one)."""
    from nbayes.cli._estimators import estimators

    row = estimators().get(model_name) if isinstance(model_name, str) else None
    table = getattr(row, "table", None)
    return table if isinstance(table, str) else "numbers"


def _missing(cell: Any) -> bool:
    """A cell that holds no value: NaN, None, pandas' NA, or only spaces."""
    if isinstance(cell, str):
        return not cell.strip()
    try:
        return bool(cell != cell) or cell is None or cell is _pandas().NA
    except (TypeError, ValueError):
        return False


def _where(table: Any, position: int) -> tuple[str, str]:
    """The file and ``row N`` (within that file) of the table's row at ``position``."""
    sources = table.attrs.get("nbayes_sources") or [("<table>", 0)]
    name, start = sources[0]
    for path, first in sources:
        if first <= position:
            name, start = path, first
    return str(name), f"row {position - start}"


def drop_bad_rows(table: Any, kind: str, label_col: str | None, model: Any = None) -> Any:
    """``table`` without the rows :func:`split_labels` and :func:`table_features` would
    refuse (:func:`bad_rows`), each counted as skipped, while the command skips bad rows
    (``--bad-rows skip``); else ``table`` as it is. The rows kept keep their index (their
    positions in the table read). No row left is an error."""
    skipped = skipped_rows()
    if skipped is None or len(table) == 0:
        return table
    reasons = bad_rows(table, kind, label_col, model)
    if not reasons:
        return table
    for i in sorted(reasons):  # (named by the row read: rows may have been left out before)
        name, where = _where(table, int(table.index[i]))
        skipped.add(_Bad(name, where, reasons[i]))
    kept = table.drop(index=table.index[sorted(reasons)])
    if len(kept) == 0:
        raise CLIError(f"{NO_ROWS_LEFT} {skipped.text()}.")
    return kept


#: the error of a table whose every row is bad (then the note of the rows skipped)
NO_ROWS_LEFT = "No rows left: every row is bad."


def bad_rows(table: Any, kind: str, label_col: str | None, model: Any = None) -> dict[int, str]:
    """The rows of ``table`` that :func:`split_labels` and :func:`table_features` would
    refuse, by position, with what is wrong: a missing label in ``label_col``, if the
    table has it; a cell that is not a number where ``kind`` and ``model`` need numbers."""
    pd = _pandas()
    reasons = {} if label_col is None else rows_without_labels(table, label_col)
    X = _feature_columns(table, label_col, model)
    coded = kind == "categories" and _coded(model)
    if X is not None and (kind == "numbers" or coded):
        for col in X.columns:
            values = X[col]
            converted, bad = _not_numbers(pd, values)
            if coded:
                bad = bad | (converted.notna() & (converted != converted.round()))
            for i in np.flatnonzero(bad.to_numpy()).tolist():
                cell = values.iloc[i]
                what = "a missing value" if _missing(cell) else f"{str(cell)!r} is not a number"
                reasons.setdefault(i, f"{what} (column {str(col)!r})")
    if X is not None and kind == "typed":
        for col in _number_columns(model, X.columns):
            values = X[col]  # (an empty or missing cell is a missing value: kept)
            words = values.astype(str).str.strip()
            present = ~values.isna() & (words != "")
            truth = words.str.lower().isin(("true", "false"))  # (a flag's, as pandas reads)
            bad = pd.to_numeric(values, errors="coerce").isna() & present & ~truth
            for i in np.flatnonzero(bad.to_numpy()).tolist():
                cell = values.iloc[i]
                reasons.setdefault(i, f"{str(cell)!r} is not a number (column {str(col)!r})")
    return reasons


def dask_rows(kind: str, label_col: str) -> Any:
    """How the Dask workers make a table's partitions into a model's rows as this process
    makes the table (``train --workers N --bad-rows skip``): the same bad rows
    (:func:`bad_rows`), the same features and labels (:func:`table_features`,
    :func:`split_labels`); a :class:`nbayes.distributed.TableRows` (its functions travel
    to the workers by name)."""
    from nbayes.distributed import TableRows

    return TableRows(
        typed=kind == "typed",
        bad=partial(bad_rows, kind=kind, label_col=label_col),
        learned=partial(_learned, kind, label_col),
        all_bad=NO_ROWS_LEFT,
    )


def _learned(kind: str, label_col: str, table: Any) -> tuple[Any, list[Any]]:
    """The features and labels of the rows of a partition the workers learn."""
    _, labels = split_labels(table, label_col)
    return table_features(table, kind, label_col), labels


def _feature_columns(table: Any, label_col: str | None, model: Any) -> Any:
    """The feature columns :func:`table_features` takes (None where it will refuse the
    table for its columns)."""
    names = getattr(model, "feature_names_in_", None) if model is not None else None
    if names is not None:
        if any(n not in table.columns for n in names):
            return None
        return table[list(names)]
    return table.drop(columns=[label_col]) if label_col in table.columns else table


def _number_columns(model: Any, columns: Any) -> list[Any]:
    """The columns of ``columns`` a fitted mixed model reads as numbers: its Gaussian,
    Poisson, Bernoulli... columns, and categories that were numbers (a column of 1, 2, 7
    read as categories); none before it is fitted (training infers the families from the
    cells)."""
    from nbayes.kinds import kind

    families = getattr(model, "families_", None) if model is not None else None
    if not isinstance(families, dict):
        return []
    dtypes = getattr(model, "dtypes_", None) or [None] * len(families)
    numeric = {"number", "count", "flag"}
    number_typed = {
        name for name, dt in zip(families, dtypes, strict=False)
        if getattr(dt, "kind", None) in ("i", "u", "f")
    }  # fmt: skip
    return [
        c for c in columns
        if c in families and (kind(families[c]).values in numeric or c in number_typed)
    ]  # fmt: skip


def _coded(model: Any) -> bool:
    """A CategoricalNB fitted on integer codes (its table's cells must be integers)."""
    categories: Any = getattr(model, "categories_", None) if model is not None else None
    return bool(categories) and categories[0].dtype.kind in "iu"


def _not_numbers(pd: Any, values: Any) -> tuple[Any, Any]:
    """``values`` as numbers (NaN where not one), and where a cell is not a number: a
    word, an empty cell, or a missing value (a Parquet null: it reached the estimator,
    whose error named neither the file nor the row; a data engineer's trial)."""
    converted = pd.to_numeric(values, errors="coerce")
    return converted, converted.isna()


def split_labels(table: Any, label_col: str) -> tuple[Any, list[Any]]:
    """The table without its label column, and the labels."""
    if label_col not in table.columns:
        names = list(map(str, table.columns))
        shown = repr(names) if len(names) <= 12 else f"{names[:10]!r} and {len(names) - 10} more"
        raise CLIError(f"No label column {label_col!r}; the columns are {shown}. "
                       "Name it with --label-col.")  # fmt: skip
    missing = rows_without_labels(table, label_col)
    if missing:
        name, where = _where(table, int(table.index[min(missing)]))
        raise CLIError(
            f"{name}, {where}: no label (column {label_col!r}). Fill it, or pass --bad-rows "
            "skip to leave such rows out."
        )
    return table.drop(columns=[label_col]), table[label_col].tolist()


def table_features(table: Any, kind: str, label_col: str | None, model: Any = None) -> Any:
    """The feature columns as the model expects them: named, ordered, typed.

    Parameters
    ----------
    table : DataFrame
    kind : str
        How the model takes a table (:attr:`nbayes.cli._estimators.Estimator.table`):
        ``"numbers"``, ``"categories"`` or ``"typed"`` (columns as read, cast to the
        model's dtypes where they fit).
    label_col : str or None
        Dropped if present (prediction reads files with or without labels).
    model : fitted estimator, optional
        Its ``feature_names_in_`` select and order the columns.
    """
    pd = _pandas()
    names = getattr(model, "feature_names_in_", None) if model is not None else None
    if names is not None:
        missing = [str(n) for n in names if n not in table.columns]
        if missing:
            raise CLIError(
                f"The data lacks the column(s) {missing} the model was trained on; it has "
                f"{list(map(str, table.columns))}."
            )
        X = table[list(names)]
    else:
        X = table.drop(columns=[label_col]) if label_col in table.columns else table
        if model is not None and X.shape[1] != model.n_features_in_:
            raise CLIError(
                f"The data has {X.shape[1]} feature column(s) {list(map(str, X.columns))}, but "
                f"the model expects {model.n_features_in_}."
            )
        if model is not None and kind == "typed":
            return X.to_numpy(dtype=object)
        if model is not None:  # trained without names: give none
            X = X.to_numpy()
            return _typed(pd, pd.DataFrame(X), kind, model).to_numpy()
    if X.shape[1] == 0:
        raise CLIError("The table has no feature column besides the labels.")
    if kind == "typed":
        return _as_fitted(X, model)
    return _typed(pd, X, kind, model)


def _as_fitted(X: Any, model: Any) -> Any:
    """A typed table with its columns cast to the dtypes the mixed model was fitted on.

    Where a cast fails (e.g. missing values in an integer column) the column stays as
    read: the model parses it by its family and names the column if a value is wrong.
    """
    dtypes = getattr(model, "dtypes_", None)  # MixedNB: None unless fitted on pandas
    if dtypes is None:
        return X
    X = X.copy()
    for name, dt in zip(X.columns, dtypes, strict=True):
        if X[name].dtype == dt:
            continue
        try:
            X[name] = X[name].astype(dt)
        except (TypeError, ValueError):
            pass
    return X


def _typed(pd: Any, X: Any, kind: str, model: Any) -> Any:
    if kind == "categories":
        if _coded(model):
            return _numeric(pd, X, integer=True)
        return X.astype(str)
    return _numeric(pd, X, integer=False)


def _numeric(pd: Any, X: Any, integer: bool) -> Any:
    out = {}
    for col in X.columns:
        values = X[col]
        converted, bad = _not_numbers(pd, values)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raw = values.iloc[row]
            cell = str(raw)
            empty = _missing(raw) or cell.lower() in ("na", "n/a", "none", "null")
            advice = (
                "an empty cell is a missing value: fill it, pass --bad-rows skip to leave "
                "such rows out, or train --model mixed, which leaves missing values out"
                if empty
                else "use --model categorical for labels, or --model mixed for columns of "
                "several kinds"
            )
            name, where = _where(X, int(X.index[row]))
            said = "is empty (a missing value)" if _missing(raw) else f"{cell!r} is not a number"
            raise CLIError(
                f"{name}, {where}, column {str(col)!r}: {said}. Numeric models need numbers "
                f"in every feature column ({advice})."
            )
        if integer:
            if (converted != converted.round()).any():
                raise CLIError(f"Column {str(col)!r} holds non-integer category codes.")
            converted = converted.astype(np.int64)
        else:
            converted = converted.astype(np.float64)
        out[col] = converted
    return pd.DataFrame(out, index=X.index)
