"""Tables of numeric or categorical columns for the non-text models (needs pandas).

A table is a CSV/TSV (optionally gzipped), JSON lines or Parquet file with a header; one
column holds the labels (``--label-col``), every other column is a feature. The features
keep their column names, so a model trained here checks them at prediction time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nbayes.cli._common import UI, CLIError
from nbayes.io.input_formats import extensions_text, of_path, table_formats

__all__ = ["table_features", "read_table"]


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is installed with the test extra
        raise CLIError(
            "Reading tables of numeric or categorical columns needs pandas: "
            "pip install pandas (text data does not)."
        ) from None
    return pd


def _read_one(pd: Any, path: str, typed: bool = False, delimiter: str | None = None) -> Any:
    if path == "-":  # standard input: a CSV table
        import sys

        stream = getattr(sys.stdin, "buffer", sys.stdin)
        sep = delimiter or ","
        try:
            if typed:
                return pd.read_csv(stream, sep=sep)
            return pd.read_csv(stream, sep=sep, dtype=str, keep_default_na=False)
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            raise CLIError(f"Cannot read a CSV table from standard input: {exc}") from None
    p = Path(path)
    if not p.exists():
        raise CLIError(f"No such file: {path!r}.")
    if p.is_dir():
        raise CLIError(
            f"{path!r} is a folder: the non-text models read one table per file "
            "(CSV, TSV, JSON lines or Parquet)."
        )
    fmt = of_path(p, tables_only=True)
    try:
        if fmt is not None and fmt.name in ("csv", "tsv"):
            sep = delimiter or ("," if fmt.name == "csv" else "\t")
            if typed:  # pandas infers each column's type; empty cells are missing
                return pd.read_csv(p, sep=sep)
            return pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False)
        if fmt is not None and fmt.name == "jsonl":
            return pd.read_json(p, lines=True, dtype=False)
        if fmt is not None and fmt.name == "parquet":
            return pd.read_parquet(p)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"Cannot read the table {path!r}: {exc}") from None
    raise CLIError(
        f"Cannot tell the format of {path!r} from its extension: tables are "
        f"{extensions_text(table_formats())} (optionally .gz)."
    )


def read_table(
    ui: UI, paths: Sequence[str], typed: bool = False, delimiter: str | None = None
) -> Any:
    """All rows of the tables, one pandas DataFrame.

    CSV cells are strings, or with ``typed`` (mixed models) of the types pandas infers,
    empty cells missing. ``delimiter``: a CSV's (``--delimiter``), where not a comma.
    """
    pd = _pandas()
    frames = []
    with ui.progress("Reading", "rows") as bar:
        for path in paths:
            frame = _read_one(pd, path, typed, delimiter)
            frames.append(frame)
            bar.advance(len(frame))
    columns = list(frames[0].columns)
    for path, frame in zip(paths[1:], frames[1:], strict=True):
        if list(frame.columns) != columns:
            raise CLIError(
                f"The table {path!r} has the columns {list(frame.columns)}, but {paths[0]!r} has "
                f"{columns}: every table must have the same columns."
            )
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if len(table) == 0:
        raise CLIError(f"No rows found in {', '.join(map(repr, paths))}.")
    return table


def split_labels(table: Any, label_col: str) -> tuple[Any, list[Any]]:
    """The table without its label column, and the labels."""
    if label_col not in table.columns:
        names = list(map(str, table.columns))
        shown = repr(names) if len(names) <= 12 else f"{names[:10]!r} and {len(names) - 10} more"
        raise CLIError(f"No label column {label_col!r}; the columns are {shown}. "
                       "Name it with --label-col.")  # fmt: skip
    labels = table[label_col].tolist()
    missing = [i for i, v in enumerate(labels) if v is None or v == "" or v != v]
    if missing:
        raise CLIError(f"Row {missing[0]} has no label (column {label_col!r}).")
    return table.drop(columns=[label_col]), labels


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
        coded = model is not None and model.categories_ and model.categories_[0].dtype.kind in "iu"
        if coded:
            return _numeric(pd, X, integer=True)
        return X.astype(str)
    return _numeric(pd, X, integer=False)


def _numeric(pd: Any, X: Any, integer: bool) -> Any:
    out = {}
    for col in X.columns:
        values = X[col]
        converted = pd.to_numeric(values, errors="coerce")
        bad = converted.isna() & ~values.isna() | (values.astype(str).str.strip() == "")
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            cell = str(values.iloc[row])
            advice = (
                "an empty cell is a missing value: fill it, or train --model mixed, which "
                "leaves missing values out"
                if not cell.strip() or cell.lower() in ("nan", "na", "n/a", "none", "null")
                else "use --model categorical for labels, or --model mixed for columns of "
                "several kinds"
            )
            raise CLIError(
                f"Column {str(col)!r}, row {row}: {cell!r} is not a number. Numeric models "
                f"need numbers in every feature column ({advice})."
            )
        if integer:
            if (converted != converted.round()).any():
                raise CLIError(f"Column {str(col)!r} holds non-integer category codes.")
            converted = converted.astype(np.int64)
        else:
            converted = converted.astype(np.float64)
        out[col] = converted
    return pd.DataFrame(out, index=X.index)
