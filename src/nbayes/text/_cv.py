"""Cross-validation of a TextClassifier by count subtraction (see nbayes.model_selection)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .._statistics import conform_classes
from .._template.validation import check_sample_weight
from . import _batch
from ._model import Counting
from ._textstats import TextStats, Vocabulary

__all__ = ["TextCounter"]


class TextCounter:
    """Cross-validation by count subtraction for :class:`~nbayes.text.TextClassifier`.

    Every fold is tokenized and counted once over one shared vocabulary; a split's training
    statistics (``total - fold``) then keep only the words its training documents have, so
    its vocabulary and its document frequencies (for ``min_df``/``max_df``) are those a
    ``Pipeline(CountVectorizer, ...)`` refitted on the training rows would have.
    """

    derivation_params = (
        "alpha", "force_alpha", "fit_prior", "class_prior", "norm", "min_df", "max_df",
        "max_features",
    )  # fmt: skip

    def __init__(self, estimator: Any) -> None:
        self.model = type(estimator)(**estimator.get_params())
        self.model._transform_memo = []
        self._vocab: dict[str, int] = {}
        self._docs: list[str] = []
        self._y = np.zeros(0)
        self._sw: np.ndarray | None = None
        self._counting: Counting  # the counting settings, built in prepare (validated)

    def prepare(self, X: Any, y: Any, sample_weight: Any) -> np.ndarray:
        model = self.model
        self._counting = model._counting(check=True)
        self._docs = model._docs(X)
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(self._docs):
            raise ValueError(
                f"Found {len(self._docs)} documents but {len(y)} labels: pass one label per "
                "document."
            )
        _batch.check_labels(y)
        self._y = y
        self._sw = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
        return y

    def count(self, rows: np.ndarray) -> TextStats:
        docs = [self._docs[i] for i in rows]
        sw = None if self._sw is None else self._sw[rows]
        vocabulary = None if self._counting.hashing else self._vocab
        return _batch.count(self._counting, docs, self._y[rows], sw, vocabulary)

    def finish(self, stats: TextStats, classes: np.ndarray) -> Any:
        stats = replace(stats, counts=conform_classes(stats.counts, classes))
        if self._counting.hashing:
            return stats.widen(self._counting.n_features)
        stats = stats.widen(len(self._vocab))
        stats = stats.with_vocabulary(Vocabulary(index=dict(self._vocab)))
        return stats.without_unused_terms()

    def use(self, finished: Any, params: Any) -> Any:
        return self.model._derived_with(finished, params)
