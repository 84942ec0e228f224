"""The training statistics of every split: one counting pass, then "total minus fold".

:class:`Counter` is the protocol an estimator plugs in with (see :mod:`nbayes.model_selection`);
:class:`_NBCounter` is its implementation for every :class:`nbayes._template.base.BaseNB` estimator;
:class:`_TrainingStatistics` gives each split's training statistics from as few counting
passes as possible, equal to those ``fit`` gives on the split's training rows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from .._statistics import conform_classes
from .._template import params as _params
from .._template.base import BaseNB
from .._template.validation import check_sample_weight

__all__ = ["Counter"]

#: partition splitters with at most this many folds keep every fold's statistics
_MAX_STORED_FOLDS = 32


# --------------------------------------------------------------------------- protocol
class Counter(Protocol):
    """What :func:`cross_validate` needs from an estimator (see the module docstring)."""

    derivation_params: tuple[str, ...]

    def prepare(self, X: Any, y: Any, sample_weight: Any) -> np.ndarray: ...

    def count(self, rows: np.ndarray) -> Any: ...

    def finish(self, stats: Any, classes: np.ndarray) -> Any: ...

    def use(self, stats: Any, params: Mapping[str, Any]) -> Any: ...


class _NBCounter:
    """The counting protocol for :class:`nbayes._template.base.BaseNB` estimators.

    One estimator object serves every split and every candidate: its statistics are
    replaced by ``_set_stats`` and its derivation parameters by ``set_params``, so the
    derivation cache (keyed on statistics identity and parameters) does the rest.
    """

    def __init__(self, estimator: BaseNB) -> None:
        self.model = estimator
        _validate_each_input_once(estimator)
        self.derivation_params: tuple[str, ...] = tuple(estimator._derivation_params)
        self._X: Any = None
        self._y: np.ndarray = np.zeros(0)
        self._sw: np.ndarray = np.zeros(0)

    def prepare(self, X: Any, y: Any, sample_weight: Any) -> np.ndarray:
        model = self.model
        # Check the counting parameters now; derivation parameters are checked per candidate.
        rules = {
            name: rule
            for name, rule in type(model)._param_rules.items()
            if name not in self.derivation_params
        }
        _params.validate(model, rules)
        Xv, yv = model._check_X_y(X, y, reset=True)
        self._X = Xv.tocsr() if sp.issparse(Xv) else Xv
        self._y = np.asarray(yv)
        self._sw = check_sample_weight(sample_weight, self._y.shape[0])
        return self._y

    def count(self, rows: np.ndarray) -> Any:
        return self.model._batch_stats(self._X[rows], self._y[rows], self._sw[rows])

    def finish(self, stats: Any, classes: np.ndarray) -> Any:
        return conform_classes(self.model._after_subtract(stats), classes)

    def use(self, stats: Any, params: Mapping[str, Any]) -> Any:
        return self.model._derived_with(stats, params)


def _validate_each_input_once(model: BaseNB) -> None:
    """Let ``model`` validate the same ``X`` object once, however often it is scored.

    Every candidate of a split is scored on the same held-out ``X``; validating it again for
    each (``predict`` checks its input) would cost more than the whole derivation. Only the
    internal per-split model gets this: it lives inside one search.
    """
    validate = model._check_X
    seen: list[tuple[Any, Any]] = []  # (X, validated X) of the held-out and training rows

    def check_X_once(X: Any) -> Any:
        for given, checked in seen:
            if given is X:
                return checked
        checked = validate(X)
        seen[:] = [*seen[-1:], (X, checked)]
        return checked

    setattr(model, "_check_X", check_X_once)  # noqa: B010 - an instance-level override


def _counter_for(estimator: Any) -> Counter:
    hook = getattr(estimator, "_cv_counter", None)
    if callable(hook):
        counter: Counter = hook()
        return counter
    if isinstance(estimator, BaseNB):
        return _NBCounter(estimator)
    raise TypeError(
        f"nbayes.model_selection works on nbayes estimators (MultinomialNB, BernoulliNB, ...), "
        f"whose models are statistics; got a {type(estimator).__name__}. Use "
        "sklearn.model_selection.cross_validate or GridSearchCV for other estimators."
    )


# ------------------------------------------------------------------ training statistics
class _TrainingStatistics:
    """The training statistics of every split, from as few counting passes as possible."""

    def __init__(
        self,
        counter: Counter,
        splits: Sequence[tuple[np.ndarray, np.ndarray]],
        n_samples: int,
        labels: np.ndarray,
    ) -> None:
        self.counter = counter
        self.splits = splits
        self.n = n_samples
        self.classes, codes = np.unique(labels, return_inverse=True)
        self.codes = codes.reshape(-1)
        self.class_rows = np.bincount(self.codes, minlength=len(self.classes))
        self.removed: list[np.ndarray] = []
        self.distinct: list[bool] = []
        for train, _ in splits:
            hits = np.bincount(train, minlength=n_samples)
            self.distinct.append(bool(hits.max(initial=0) <= 1))
            self.removed.append(np.flatnonzero(hits == 0))
        covered = np.bincount(
            np.concatenate([np.zeros(0, dtype=np.intp), *self.removed]), minlength=n_samples
        )
        self.partition = all(self.distinct) and bool(np.all(covered == 1))
        self.folds: list[Any] | None = None
        self._total: Any = None
        self.count_seconds = 0.0
        if self.partition and len(splits) <= _MAX_STORED_FOLDS:
            # one counting pass: the statistics of every held-out fold, the total their merge
            start = time.perf_counter()
            self.folds = [counter.count(rows) for rows in self.removed]
            total = self.folds[0]
            for fold in self.folds[1:]:
                total = total.merge(fold)
            self._total = total
            self.count_seconds = time.perf_counter() - start

    def total(self) -> Any:
        if self._total is None:
            start = time.perf_counter()
            self._total = self.counter.count(np.arange(self.n))
            self.count_seconds += time.perf_counter() - start
        return self._total

    def shared_seconds(self) -> float:
        """Counting time shared by every split (the fold statistics and the total)."""
        return self.count_seconds / max(len(self.splits), 1)

    def __call__(self, k: int) -> Any:
        """Training statistics of split ``k``, equal to those of ``fit`` on its rows."""
        train, _ = self.splits[k]
        removed = self.removed[k]
        if len(train) == 0:
            raise ValueError(
                f"Split {k} has no training rows: nothing to learn. Check the splitter."
            )
        if not self.distinct[k]:
            return self.counter.count(train)  # repeated rows (bootstrap): count them as given
        if len(removed) == 0:
            return self.total()
        if self.folds is not None:
            held_out = self.folds[k]
        elif len(removed) < len(train):
            held_out = self.counter.count(removed)
        else:
            return self.counter.count(train)
        left = self.class_rows - np.bincount(self.codes[removed], minlength=len(self.classes))
        return self.counter.finish(self.total().subtract(held_out), self.classes[left > 0])
