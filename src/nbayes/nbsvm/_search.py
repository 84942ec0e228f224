"""Model selection of an NBSVM (:mod:`nbayes.model_selection`'s counting protocol).

A linear model is not a sum over documents, so a split's "statistics" are its training
rows and its model is fitted on them, once per setting of the fitting parameters; ``beta``,
applied after the solver, is re-derived from the same fit for every value in the grid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.base import clone

from ..text import _analyzer
from ._estimator import NBSVM

__all__ = ["NBSVMCounter"]


class _Rows:
    """The training rows of a split: what an NBSVM's "statistics" for model selection are
    (a linear model is not a sum over rows; the rows are refitted)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = np.sort(np.asarray(rows, dtype=np.intp))

    def merge(self, other: _Rows) -> _Rows:
        return _Rows(np.union1d(self.rows, other.rows))

    def subtract(self, other: _Rows) -> _Rows:
        return _Rows(np.setdiff1d(self.rows, other.rows, assume_unique=True))


class NBSVMCounter:
    """Model selection of an NBSVM: each split's model is fitted on its training rows
    once per setting of the fitting parameters; ``beta`` only re-derives the weights."""

    derivation_params = ("beta",)

    def __init__(self, estimator: NBSVM) -> None:
        self.estimator = clone(estimator)
        self._docs: list[str] = []
        self._y = np.zeros(0)
        self._sw: np.ndarray | None = None
        self._fitted: tuple[Any, Any, NBSVM] | None = None

    def prepare(self, X: Any, y: Any, sample_weight: Any) -> np.ndarray:
        self.estimator._check_params()
        self._docs = _analyzer.raw_documents(X)  # NBSearchCV checked the lengths agree
        self._y = np.asarray(y)
        self._sw = None if sample_weight is None else np.asarray(sample_weight, np.float64)
        return self._y

    def count(self, rows: np.ndarray) -> _Rows:
        return _Rows(rows)

    def finish(self, stats: _Rows, classes: np.ndarray) -> _Rows:
        return stats

    def use(self, stats: _Rows, params: Mapping[str, Any]) -> NBSVM:
        fitting = {k: v for k, v in params.items() if k not in self.derivation_params}
        key = repr(sorted(fitting.items()))
        if self._fitted is None or self._fitted[0] is not stats or self._fitted[1] != key:
            model = clone(self.estimator).set_params(**fitting)
            rows = stats.rows
            sw = None if self._sw is None else self._sw[rows]
            model.fit([self._docs[i] for i in rows], self._y[rows], sample_weight=sw)
            self._fitted = (stats, key, model)
        model = self._fitted[2]
        if "beta" in params:
            model.set_params(beta=params["beta"])
        model._weights()
        return model
