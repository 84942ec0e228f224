"""NBSearchCV: scikit-learn's GridSearchCV, by count subtraction."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, ClassVar

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import indexable

from .._template import params as P
from . import _sklearn_private as private
from ._cross_validate import (
    _candidates,
    _check_grid_names,
    _evaluate,
    _fit_params_weight,
    _plain_accuracy,
    _splits,
)
from ._sklearn_private import BaseSearchCV

__all__ = ["NBSearchCV"]


@P.hyperparameters
class NBSearchCV(BaseSearchCV):
    """Exhaustive search over a parameter grid by count subtraction; a GridSearchCV for nbayes.

    Same attributes, ``cv_results_`` layout and methods as
    :class:`sklearn.model_selection.GridSearchCV` (``best_params_``, ``best_estimator_``,
    ``best_score_``, ``best_index_``, ``predict``, ``predict_proba``, ``score``, ...), and
    the same scores, but each split's model is the total statistics minus the held-out
    fold's, and derivation parameters (``alpha``, ``fit_prior``, ...) are re-derived from
    the same statistics instead of refitted (see :func:`cross_validate`).

    Parameters
    ----------
    estimator : nbayes estimator
    param_grid : dict or list of dicts
        As for GridSearchCV.
    scoring : str, callable, list, tuple or dict, default=None
        As for GridSearchCV; None uses the estimator's ``score`` (accuracy).
    refit : bool, str or callable, default=True
        Fit the best setting on the whole data (for several metrics: the metric's name).
    cv : int, cross-validation generator or iterable, default=None
        Any scikit-learn splitter; None is 5-fold (stratified).
    error_score : 'raise' or float, default=np.nan
    return_train_score : bool, default=False

    Attributes
    ----------
    cv_results_ : dict of ndarrays
        ``params``, ``param_<name>`` (masked arrays), ``split<k>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``, ``mean_fit_time``,
        ``std_fit_time``, ``mean_score_time``, ``std_score_time`` (and the train keys).
    best_estimator_, best_score_, best_params_, best_index_, scorer_, n_splits_,
    refit_time_, multimetric_

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes.model_selection import NBSearchCV
    >>> rng, y = np.random.default_rng(0), np.repeat([0, 1], 20)
    >>> X = rng.poisson(np.where(y[:, None] == 0, [3, 1, 1], [1, 1, 3]))
    >>> search = NBSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0, 10.0]}, cv=4,
    ...                     scoring="neg_log_loss").fit(X, y)
    >>> search.best_params_, round(search.best_score_, 3)
    ({'alpha': 0.1}, -0.313)
    >>> search.cv_results_["rank_test_score"]
    array([1, 2, 3], dtype=int32)
    >>> search.predict([[4, 1, 0]])
    array([0])
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "estimator": BaseSearchCV._parameter_constraints["estimator"],
        "param_grid": [dict, list],
        "scoring": BaseSearchCV._parameter_constraints["scoring"],
        "refit": ["boolean", str, callable],
        "cv": ["cv_object"],
        "error_score": BaseSearchCV._parameter_constraints["error_score"],
        "return_train_score": ["boolean"],
    }

    estimator: Any = dataclasses.field(kw_only=False)
    param_grid: Any = dataclasses.field(kw_only=False)
    scoring: Any = None
    refit: Any = True
    cv: Any = None
    error_score: Any = np.nan
    return_train_score: bool = False

    # BaseSearchCV reads these; the search runs in one process, in order.
    n_jobs = None
    verbose = 0
    pre_dispatch = "2*n_jobs"

    def _run_search(self, evaluate_candidates: Any, *args: Any, **kwargs: Any) -> None:
        evaluate_candidates(ParameterGrid(self.param_grid))  # pragma: no cover - unused

    def fit(self, X: Any, y: Any = None, **params: Any) -> NBSearchCV:
        """Evaluate every setting of ``param_grid`` by count subtraction; refit the best.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        **params : dict
            ``sample_weight`` (split with the rows; also passed to scorers that accept it,
            as GridSearchCV does) and ``groups`` (for group splitters).

        Returns
        -------
        self : object
        """
        private.validate_params(self)
        scorers, refit_metric = self._get_scorers()
        X, y = indexable(X, y)
        params = private.check_method_params(X, params=params)
        routed = self._get_routed_params_for_fit(params)
        fit_params = dict(routed.estimator.fit)
        sample_weight = _fit_params_weight(fit_params)
        groups = routed.splitter.split.get("groups")
        splits = _splits(self.cv, X, y, groups, self.estimator)
        self.n_splits_ = len(splits)
        candidates = _candidates(self.param_grid)
        _check_grid_names(self.estimator, candidates)
        out = _evaluate(
            self.estimator, X, y, splits, candidates, scorers,
            sample_weight=sample_weight, score_params=routed.scorer.score,
            error_score=self.error_score, return_train_score=self.return_train_score,
            plain_accuracy=_plain_accuracy(self.scoring, self.estimator),
        )  # fmt: skip
        private.warn_or_raise_about_fit_failures(out, self.error_score)
        if callable(self.scoring):
            private.insert_error_scores(out, self.error_score)
        results = self._format_results(candidates, len(splits), out)
        self.multimetric_ = isinstance(out[0]["test_scores"], dict)
        if callable(self.scoring) and self.multimetric_:
            self._check_refit_for_multimetric(out[0]["test_scores"])
            refit_metric = self.refit
        if self.refit or not self.multimetric_:
            self.best_index_ = int(self._select_best_index(self.refit, refit_metric, results))
            if not callable(self.refit):
                self.best_score_ = float(results[f"mean_test_{refit_metric}"][self.best_index_])
            self.best_params_ = results["params"][self.best_index_]
        if self.refit:
            self.best_estimator_ = clone(self.estimator).set_params(
                **clone(self.best_params_, safe=False)
            )
            start = time.perf_counter()
            self.best_estimator_.fit(X, y, **fit_params)
            self.refit_time_ = time.perf_counter() - start
            if hasattr(self.best_estimator_, "feature_names_in_"):
                self.feature_names_in_ = self.best_estimator_.feature_names_in_
        self.scorer_ = getattr(scorers, "_scorers", scorers)
        self.cv_results_ = results
        return self
