"""Soft counts: how a model is refitted from a rows x classes weight matrix (the M-step) and
scores every training row (the E-step), one strategy per kind of statistics.

* :class:`TextCounts` -- a :class:`~nbayes.TextClassifier`: every document tokenized once into
  a document x term matrix ``D``; the per-class counts are one product ``W^T D``;
* :class:`MatrixCounts` -- the count models of :mod:`nbayes.naive_bayes` (per-class feature
  sums, ``CountStats``): the input validated once, the M-step ``W^T X``;
* :class:`RowCounts` -- any other nbayes model: its own ``fit`` on every row repeated per class,
  the soft counts as ``sample_weight``.

``fit(W, **params)`` takes estimator parameters too (``alpha``), so that the cross-validation of
:mod:`._selection` tries several settings on the one tokenization.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from .._statistics import CountStats
from .._template.base import BaseNB
from ..text.classifier import TextClassifier

__all__ = ["Counts", "MatrixCounts", "RowCounts", "TextCounts", "counts_for"]


def counts_for(estimator: BaseNB) -> type[Counts]:
    """The soft-count strategy of an estimator, by its statistics."""
    if isinstance(estimator, TextClassifier):
        return TextCounts
    own = type(estimator)
    if all(
        getattr(own, hook) is getattr(BaseNB, hook)
        for hook in ("_batch", "_batch_stats", "_empty_stats", "_fit_stats")
    ):
        return MatrixCounts  # per-class feature sums of the validated input
    return RowCounts


class Counts:
    """How a model is refitted from a rows x classes weight matrix, and scores every row.

    ``fit(W)`` returns a fitted model whose statistics are those of every row ``i`` counted
    into class ``c`` with weight ``W[i, c]`` (a labelled row: its class only); the model is
    the same as ``fit`` on the rows repeated per class with these sample weights.
    """

    def __init__(self, estimator: BaseNB, X: Any, classes: np.ndarray) -> None:
        self.estimator = estimator
        self.classes = classes

    def fit(self, weights: np.ndarray, **params: Any) -> Any:
        raise NotImplementedError

    def joint_log_likelihood(self, model: Any) -> np.ndarray:
        raise NotImplementedError


class _Transposed:
    """``X^T`` laid out once (CSR rows = columns of X), so that every M-step's ``W^T X`` is
    one row-major product."""

    def __init__(self, X: Any) -> None:
        if sp.issparse(X):
            self.XT: Any = sp.csr_matrix(X.T, dtype=np.float64)
        else:
            self.XT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)

    def weighted_sums(self, weights: np.ndarray) -> np.ndarray:
        """``W^T X`` as a dense (classes x columns) float64 table, in column-major order (the
        transpose of the product: copying it to row-major would cost four times the product
        itself)."""
        return np.asarray(self.XT @ weights, dtype=np.float64).T


class TextCounts(Counts):
    """A TextClassifier: every document tokenized once, soft counts by one product.

    A copy of the estimator without pruning is fitted on all the documents for the
    vocabulary and the corpus statistics (document and term frequencies); its ``transform``
    is the document x term matrix ``D`` over all its columns. The M-step installs
    statistics whose per-class counts are ``W^T D``; the E-step scores ``D``'s kept columns
    with the model's family, as the model's own scorer does.
    """

    def __init__(self, estimator: Any, X: Any, classes: np.ndarray) -> None:
        super().__init__(estimator, X, classes)
        X = X if isinstance(X, str) else list(X)  # a str: the estimator says what is wrong
        counter = clone(estimator).set_params(min_df=1, max_df=1.0, max_features=None)
        any_labels = np.zeros(len(X), dtype=np.int64)  # the corpus statistics need none
        counter.fit(X, any_labels)
        self.corpus = counter._stats  # the whole TextStats (likelihood() has the kept part)
        D = counter.transform(X).tocsr()
        kept = np.asarray(counter._scorer().selection.kept)
        n_columns = self.corpus.counts.n_features
        if len(kept) != n_columns or (np.diff(kept) != 1).any():  # hash buckets: seen ones
            D = sp.csr_matrix((D.data, kept[D.indices], D.indptr), shape=(D.shape[0], n_columns))
        self.D = D.astype(np.float64)
        self.sums = _Transposed(self.D)
        self._kept: tuple[np.ndarray, Any] | None = None

    def fit(self, weights: np.ndarray, **params: Any) -> Any:
        counts = CountStats(self.classes, weights.sum(axis=0), self.sums.weighted_sums(weights))
        stats = replace(self.corpus, counts=counts).with_vocabulary(self.corpus.vocabulary)
        model = clone(self.estimator).set_params(**params)
        model._set_stats(stats)
        return model

    def joint_log_likelihood(self, model: Any) -> np.ndarray:
        kept = np.asarray(model._scorer().selection.kept)
        if self._kept is None or not np.array_equal(self._kept[0], kept):
            self._kept = (kept, self.D[:, kept])  # the kept columns are the same every time
        return model.likelihood().joint_log_likelihood(self._kept[1])


class MatrixCounts(Counts):
    """A model whose statistics are per-class feature sums (CountStats): the input is
    validated (and transformed, e.g. binarized) once, the M-step is ``W^T X``."""

    def __init__(self, estimator: BaseNB, X: Any, classes: np.ndarray) -> None:
        super().__init__(estimator, X, classes)
        self.template = clone(estimator)
        self.template._check_params()
        y_any = np.zeros(X.shape[0] if hasattr(X, "shape") else len(X), dtype=np.int64)
        self.X, _ = self.template._check_X_y(X, y_any, reset=True)
        self.sums = _Transposed(self.X)

    def fit(self, weights: np.ndarray, **params: Any) -> Any:
        model = clone(self.estimator).set_params(**params)
        for name in model._fitted_inputs:
            if hasattr(self.template, name):
                setattr(model, name, getattr(self.template, name))
        stats = CountStats(self.classes, weights.sum(axis=0), self.sums.weighted_sums(weights))
        model._set_stats(stats)
        model._check_derivation()
        return model

    def joint_log_likelihood(self, model: Any) -> np.ndarray:
        return np.asarray(model._joint_log_likelihood(self.X))


class RowCounts(Counts):
    """Any other nbayes model: its own ``fit`` on every row repeated once per class it has a
    non-zero weight for, the weights as ``sample_weight``."""

    def __init__(self, estimator: BaseNB, X: Any, classes: np.ndarray) -> None:
        super().__init__(estimator, X, classes)
        self.X = X

    def fit(self, weights: np.ndarray, **params: Any) -> Any:
        present = weights.copy()
        # every row is passed at least once (with weight 0 before the first E-step), so that
        # what a model reads from all its input (categories, variance of the data) is the
        # same at every step
        present[~(weights > 0).any(axis=1), 0] = np.inf
        codes, rows = np.nonzero(present.T)  # class by class: (class, row) pairs
        sw = np.where(np.isinf(present[rows, codes]), 0.0, present[rows, codes])
        X = _safe_indexing(self.X, rows)
        return (
            clone(self.estimator).set_params(**params).fit(X, self.classes[codes], sample_weight=sw)
        )

    def joint_log_likelihood(self, model: Any) -> np.ndarray:
        return np.asarray(model.predict_joint_log_proba(self.X))
