"""Reading the data a fitted model takes: documents for text models, tables otherwise."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

from nbayes.cli._common import (
    UI,
    CLIError,
    coerce_labels,
    is_text_model,
    read_labelled_texts,
)

__all__ = ["feature_kind", "labelled_inputs", "unlabelled_inputs"]


def feature_kind(model: Any) -> str:
    """How ``model`` takes a table: ``"numbers"``, ``"categories"`` (CategoricalNB) or
    ``"typed"`` (MixedNB), as the table of estimators says."""
    from nbayes.cli._estimators import estimator_of

    row = estimator_of(model)
    return "numbers" if row is None or row.table is None else row.table


def labelled_inputs(
    ui: UI, model: Any, sources: Sequence[str], args: argparse.Namespace
) -> tuple[Any, np.ndarray]:
    """``(X, y)`` for ``model`` from ``sources``; labels in the type of the model's classes."""
    if is_text_model(model):
        texts, labels = read_labelled_texts(ui, sources, args)
        return texts, coerce_labels(labels, model.classes_)
    from nbayes.cli._tables import (
        drop_bad_rows,
        read_table,
        split_labels,
        table_features,
        table_flags,
    )

    kind = feature_kind(model)
    table = read_table(ui, sources, typed=kind == "typed", **table_flags(args),
                       kind=kind, label_col=args.label_col, model=model)  # fmt: skip
    label_col = _label_column(ui, model, table, args.label_col)
    if label_col != args.label_col:  # (--bad-rows skip: the rows without a label)
        table = drop_bad_rows(table, kind, label_col, model)
    _, labels = split_labels(table, label_col)
    X = table_features(table, kind, label_col, model)
    return X, coerce_labels(labels, model.classes_)


def _label_column(ui: UI, model: Any, table: Any, label_col: str) -> str:
    """``label_col``, or, where the table has no such column, the one column that is not
    a feature of the model (spambase's "spam": it was asked for again at every eval, a
    trial's finding)."""
    names = getattr(model, "feature_names_in_", None)
    if label_col in table.columns or names is None:
        return label_col
    features = set(map(str, names))
    others = [c for c in table.columns if str(c) not in features]
    if len(others) != 1:
        return label_col
    ui.note(
        f"Labels from the column {str(others[0])!r}: the table has no column {label_col!r}, "
        "and it is the one column that is no feature of the model (--label-col names another)."
    )
    return str(others[0])


def unlabelled_inputs(
    ui: UI, model: Any, sources: Sequence[str], args: argparse.Namespace
) -> tuple[Any, list[Any] | None]:
    """``X`` for ``model`` from ``sources`` (a label column, if present, is ignored), and
    the names of its documents where row numbers do not name them (documents that are
    files, rows of several tables: strings); else None. Where bad rows were skipped
    (``--bad-rows skip``), the rows kept are named by their row numbers (ints)."""
    if is_text_model(model):
        from nbayes.cli._common import read_documents

        docs = read_documents(ui, sources, args, labels=False)
        return docs.texts, docs.names
    from nbayes.cli._tables import read_table, table_features, table_flags

    kind = feature_kind(model)
    table = read_table(ui, sources, typed=kind == "typed", **table_flags(args),
                       kind=kind, label_col=None, model=model)  # fmt: skip
    id_col = getattr(args, "id_col", None)
    if id_col is not None:  # (named by that column's values, not a feature)
        if id_col not in table.columns:
            raise CLIError(
                f"Column {id_col!r} not found in {', '.join(sources)}; the columns are: "
                f"{', '.join(map(repr, map(str, table.columns)))}. Pass --id-col NAME to choose."
            )
        ids = [None if v != v else v for v in table[id_col].tolist()]  # (NaN: no id)
        return table_features(table.drop(columns=[id_col]), kind, args.label_col, model), ids
    rows = table.index.tolist()
    named = rows != list(range(len(rows)))  # bad rows skipped: the kept rows' numbers
    return table_features(table, kind, args.label_col, model), (rows if named else None)
