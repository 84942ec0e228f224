# mypy: disallow-untyped-defs=False
"""Sparse document rows times a dense weight matrix, in threads (the scoring product).

``csr_dot(X, W)`` equals scipy's ``X @ W`` for a CSR ``X`` and a C-contiguous ``W`` of
shape ``(n_features, n_classes)`` bit for bit (same order of additions), but runs on
document spans in parallel and without scipy's copy of ``W``.

>>> import numpy as np, scipy.sparse as sp
>>> X = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
>>> W = np.arange(6.0).reshape(3, 2)
>>> csr_dot(X, W)
array([[ 8., 11.],
       [ 6.,  9.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

import nbayes._native as _native

from .threads import Team, hand_off

__all__ = ["csr_dot", "row_dot"]

#: Below this many stored entries one thread is faster than two.
PARALLEL_MIN_NNZ = 1 << 17


def csr_dot(X: Any, W: np.ndarray, n_threads: int | None = None) -> np.ndarray:
    """``X @ W`` (float64) for CSR ``X`` of shape (n, m) and ``W`` of shape (m, k)."""
    W = np.ascontiguousarray(W, dtype=np.float64)
    n = X.shape[0]
    if X.shape[1] != W.shape[0]:
        raise ValueError(f"X has {X.shape[1]} columns but W has {W.shape[0]} rows.")
    out = np.zeros((n, W.shape[1]), dtype=np.float64)
    if n == 0:
        return out
    indptr = np.asarray(X.indptr, dtype=np.int64)
    indices, data = X.indices, np.ascontiguousarray(X.data, dtype=np.float64)
    if n_threads is None and X.nnz < PARALLEL_MIN_NNZ:
        n_threads = 1

    def job(team: Team) -> np.ndarray:
        team.map(lambda s: _native.rows_dot(indptr, indices, data, W, out, s[0], s[1]),
                 team.spans)  # fmt: skip
        return out

    return hand_off(job, np.diff(indptr), n_threads)


def row_dot(cols: np.ndarray, counts: np.ndarray, W: np.ndarray) -> np.ndarray:
    """One document's row ``counts`` at the columns ``cols`` (ascending) times ``W``, its
    additions in the order :func:`csr_dot` makes them for the same row in any batch (a
    matrix-vector product may add in another order, changing a last digit).

    >>> row_dot(np.array([0, 2]), np.array([1.0, 2.0]), np.arange(6.0).reshape(3, 2))
    array([ 8., 11.])
    """
    out = np.zeros((1, W.shape[1]), dtype=np.float64)
    if len(cols):
        indptr = np.array([0, len(cols)], dtype=np.int64)
        data = np.ascontiguousarray(counts, dtype=np.float64)
        _native.rows_dot(indptr, cols, data, np.ascontiguousarray(W, dtype=np.float64), out, 0, 1)
    return out[0]
