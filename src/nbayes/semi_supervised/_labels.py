"""Which rows of ``y`` are unlabelled (-1 or None), and X in a form whose rows can be taken."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["indexable", "unlabeled_mask"]


def unlabeled_mask(y: Any) -> np.ndarray:
    """Which labels mark an unlabelled row: -1 (numeric labels) or None (object labels), as
    in :mod:`sklearn.semi_supervised`; in an object array the integer -1 counts too.

    In an object array a missing value (None, NaN, ``pandas.NA``: what pandas makes of None
    or of an empty cell in a column of strings) marks an unlabelled row too. NaN among
    float labels is refused with advice (scikit-learn does not read it as "unlabelled").
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(
            f"y must be 1-D (one label per row, -1 or None for an unlabelled row); got an "
            f"array of shape {y.shape}."
        )
    kind = y.dtype.kind
    if kind in "iu":
        return np.asarray(y == -1)
    if kind == "f":
        mask = np.isnan(y)
        if mask.any():
            _refuse_nan(np.flatnonzero(mask))
        if np.isinf(y).any():
            raise ValueError(
                f"Input y contains infinity or a value too large for dtype({y.dtype.name!r})."
            )
        return np.asarray(y == -1)
    if kind == "O":
        values = y.tolist()
        return np.array(
            [_missing(v) or (_is_number(v) and v == -1) for v in values], dtype=bool
        ).reshape(len(values))
    return np.zeros(len(y), dtype=bool)  # strings, booleans: every row is labelled


def indexable(X: Any) -> Any:
    """X in a form whose rows can be taken (an object with ``__array__`` becomes an array)."""
    if sp.issparse(X):
        return X.tocsr()  # COO and DIA matrices have no rows to take
    if hasattr(X, "iloc") or isinstance(X, list | np.ndarray):
        return X
    return np.asarray(X)


def _missing(v: Any) -> bool:
    """None, a float NaN, or pandas' NA (without importing pandas)."""
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ == "NAType"


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)


def _refuse_nan(rows: np.ndarray) -> None:
    raise ValueError(
        f"Input y contains NaN (row(s) {rows[:5].tolist()}): mark an unlabelled row with "
        "-1 (numeric labels) or None (object labels), as scikit-learn's semi_supervised "
        "module does."
    )
