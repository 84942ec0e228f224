"""Predictions on dask collections, lazily: the fitted model applied to every partition."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from ._inputs import (
    infer_text_col,
    kind,
    predict_input,
    record_input,
    require_dask,
    takes_documents,
    whole_rows,
)

__all__ = ["predict", "predict_log_proba", "predict_proba"]


def _model_delayed(estimator: Any) -> Any:
    # One copy of the model in the graph, shared by every partition's task.
    dask = require_dask()
    return dask.delayed(estimator, name=f"nbayes-model-{uuid.uuid4().hex[:12]}")


def _frame_method(df: Any, estimator: Any, method: str, text_col: str | None) -> Any:
    import pandas as pd

    X = predict_input(estimator, df, text_col)
    if method == "predict":
        out = estimator.predict(X) if len(df) else estimator.classes_[:0]
        return pd.Series(out, index=df.index, name="prediction")
    if len(df):
        values = getattr(estimator, method)(X)
    else:
        values = np.zeros((0, len(estimator.classes_)))
    return pd.DataFrame(values, index=df.index, columns=list(estimator.classes_.tolist()))


def _bag_method(part: Any, estimator: Any, method: str) -> list[Any]:
    xs = [r[0] if isinstance(r, tuple) else r for r in part]
    if not xs:
        return []
    return list(np.asarray(getattr(estimator, method)(record_input(estimator, xs))).tolist())


def _block_method(block: np.ndarray, estimator: Any, method: str) -> np.ndarray:
    if block.shape[0] == 0:
        n = len(estimator.classes_)
        return estimator.classes_[:0] if method == "predict" else np.zeros((0, n))
    return np.asarray(getattr(estimator, method)(block))


def _apply(estimator: Any, data: Any, method: str, text_col: str | None) -> Any:
    what = kind(data)
    model = _model_delayed(estimator)
    classes = estimator.classes_
    if what == "frame":
        if text_col is None and takes_documents(estimator):
            # the frame's one column, else "text" (as the single-machine readers)
            text_col = infer_text_col(estimator, list(data.columns))
        meta = _frame_method(data._meta, estimator, method, text_col)
        return data.map_partitions(_frame_method, model, method, text_col, meta=meta)
    if what == "bag":
        return data.map_partitions(_bag_method, model, method)
    X = whole_rows(data[0] if what == "arrays" else data)
    if method == "predict":
        return X.map_blocks(
            _block_method, model, method, drop_axis=1, dtype=classes.dtype,
            meta=np.empty((0,), dtype=classes.dtype),
        )  # fmt: skip
    return X.map_blocks(
        _block_method, model, method, chunks=(X.chunks[0], (len(classes),)), dtype=np.float64,
        meta=np.empty((0, 0)),
    )  # fmt: skip


def predict(estimator: Any, data: Any, *, text_col: str | None = None) -> Any:
    """Predicted classes, lazily: a dask Series (DataFrame input), Bag or Array.

    Parameters
    ----------
    estimator : fitted nbayes estimator
    data : dask DataFrame, dask Bag, dask Array or tuple (X, y)
        A DataFrame's features are the columns named in ``feature_names_in_`` (all columns
        if the model has no feature names), or ``text_col`` for an estimator of documents
        (TextClassifier). A Bag holds documents or rows (or ``(x, label)`` pairs, whose
        labels are ignored).
    text_col : str, default=None
        Column of the documents (TextClassifier). If not given: the frame's only column,
        else the column named "text".

    Returns
    -------
    dask collection
        One prediction per row, in the partitioning of ``data``.
    """
    return _apply(estimator, data, "predict", text_col)


def predict_proba(estimator: Any, data: Any, *, text_col: str | None = None) -> Any:
    """Posterior probabilities, lazily: a dask DataFrame with one column per class, or a
    dask Array (Array input) or Bag of rows; see :func:`predict`."""
    return _apply(estimator, data, "predict_proba", text_col)


def predict_log_proba(estimator: Any, data: Any, *, text_col: str | None = None) -> Any:
    """Log-posterior probabilities, lazily; see :func:`predict_proba`."""
    return _apply(estimator, data, "predict_log_proba", text_col)
