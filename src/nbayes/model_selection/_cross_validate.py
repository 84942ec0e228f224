"""Scoring every setting of a grid on every split by count subtraction; :func:`cross_validate`.

:func:`_evaluate` is the engine :class:`~nbayes.model_selection.NBSearchCV` shares: it groups
the settings by their counting parameters (one counting pass per group), re-derives each
derivation parameter from the same statistics, and scores with scikit-learn's scorers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from traceback import format_exc
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils import indexable

from . import _sklearn_private as private
from ._counting import _counter_for, _TrainingStatistics

__all__ = ["cross_validate"]


# ------------------------------------------------------------------------ the engine
def _freeze(value: Any) -> Any:
    """A hashable key for a parameter value (grouping candidates by counting parameters)."""
    try:
        hash(value)
    except TypeError:
        arr = np.asarray(value)
        if arr.dtype.kind == "O":
            return ("object", id(value))
        return (arr.dtype.str, arr.shape, arr.tobytes())
    return (type(value).__name__, value)


def _check_grid_names(estimator: Any, candidates: Sequence[Mapping[str, Any]]) -> None:
    valid = estimator.get_params(deep=True)
    unknown = sorted({name for params in candidates for name in params if name not in valid})
    if unknown:
        raise ValueError(
            f"Invalid parameter(s) {unknown} in param_grid for {type(estimator).__name__}. "
            f"Valid parameters are: {sorted(valid)}."
        )


def _fit_params_weight(fit_params: Mapping[str, Any] | None) -> Any:
    fit_params = dict(fit_params or {})
    sample_weight = fit_params.pop("sample_weight", None)
    if fit_params:
        raise TypeError(
            f"Unsupported fit parameter(s) {sorted(fit_params)}: nbayes estimators' fit takes "
            "only sample_weight."
        )
    return sample_weight


def _plain_accuracy(scoring: Any, estimator: Any) -> bool:
    """Whether the score is plain accuracy, which :func:`_accuracy` computes directly."""
    if isinstance(scoring, str):
        return scoring == "accuracy"
    return scoring is None and type(estimator).score is ClassifierMixin.score


def _accuracy(model: Any, X: Any, y: Any, params: Mapping[str, Any]) -> float | None:
    """``accuracy_score(y, model.predict(X))`` as scikit-learn computes it, without its
    per-call input checks (which cost more than the prediction); None to defer to
    scikit-learn (sample weights, or anything unusual)."""
    if params:
        return None
    try:
        predicted = model.predict(X)
        truth = np.asarray(y)
        if truth.ndim != 1 or predicted.shape != truth.shape:
            return None
        return float(np.mean((truth == predicted).astype(np.float64)))
    except Exception:
        return None


def _evaluate(
    estimator: Any,
    X: Any,
    y: Any,
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    candidates: Sequence[Mapping[str, Any]],
    scorer: Any,
    *,
    sample_weight: Any = None,
    score_params: Mapping[str, Any] | None = None,
    error_score: Any = np.nan,
    return_train_score: bool = False,
    plain_accuracy: bool = False,
) -> list[dict[str, Any]]:
    """Score every candidate on every split; results in ``_fit_and_score``'s form.

    The list is candidate-major (candidate 0 on every split, then candidate 1, ...), as
    scikit-learn's search orders it.
    """

    def score(model: Any, X: Any, y: Any, params: dict[str, Any]) -> Any:
        if plain_accuracy:
            value = _accuracy(model, X, y, params)
            if value is not None:
                return value
        return private.score(model, X, y, scorer, params, error_score)

    n_splits = len(splits)
    results: list[list[dict[str, Any] | None]] = [[None] * n_splits for _ in candidates]
    derivation = set(_counter_for(clone(estimator)).derivation_params)
    # each candidate starts from the estimator's own values, as a clone would
    base = estimator.get_params(deep=False)
    defaults = {name: base[name] for name in derivation if name in base}
    groups: dict[tuple[Any, ...], tuple[dict[str, Any], list[int]]] = {}
    for i, params in enumerate(candidates):
        counting = {k: v for k, v in params.items() if k not in derivation}
        key = tuple(sorted((k, _freeze(v)) for k, v in counting.items()))
        groups.setdefault(key, (counting, []))[1].append(i)
    score_params = dict(score_params or {})

    def failed(i: int, k: int, seconds: float) -> None:
        if error_score == "raise":
            raise
        results[i][k] = {
            "fit_error": format_exc(),
            "test_scores": error_score,
            **({"train_scores": error_score} if return_train_score else {}),
            "fit_time": seconds,
            "score_time": 0.0,
            "n_test_samples": len(splits[k][1]),
        }

    for counting, members in groups.values():
        start = time.perf_counter()
        try:
            counter = _counter_for(clone(estimator).set_params(**counting))
            labels = counter.prepare(X, y, sample_weight)
            source = _TrainingStatistics(counter, splits, len(labels), labels)
        except Exception:
            seconds = (time.perf_counter() - start) / (len(members) * n_splits)
            for i in members:
                for k in range(n_splits):
                    failed(i, k, seconds)
            continue
        shared = (time.perf_counter() - start) / n_splits
        for k, (train, test) in enumerate(splits):
            start = time.perf_counter()
            try:
                stats = source(k)
            except Exception:
                seconds = (shared + time.perf_counter() - start) / len(members)
                for i in members:
                    failed(i, k, seconds)
                continue
            split_seconds = (shared + time.perf_counter() - start) / len(members)
            X_test, y_test = private.safe_indexing(X, test), private.safe_indexing(y, test)
            test_params = private.check_method_params(X, params=score_params, indices=test)
            if return_train_score:
                X_train, y_train = private.safe_indexing(X, train), private.safe_indexing(y, train)
                train_params = private.check_method_params(X, params=score_params, indices=train)
            for i in members:
                start = time.perf_counter()
                try:
                    model = counter.use(stats, {**defaults, **candidates[i]})
                except Exception:
                    failed(i, k, split_seconds + time.perf_counter() - start)
                    continue
                fit_seconds = split_seconds + time.perf_counter() - start
                start = time.perf_counter()
                entry = {
                    "fit_error": None,
                    "test_scores": score(model, X_test, y_test, test_params),
                    "n_test_samples": len(test),
                }
                score_seconds = time.perf_counter() - start
                if return_train_score:
                    entry["train_scores"] = score(model, X_train, y_train, train_params)
                entry["fit_time"] = fit_seconds
                entry["score_time"] = score_seconds
                results[i][k] = entry
    return [entry for row in results for entry in row if entry is not None]


def _splits(cv: Any, X: Any, y: Any, groups: Any, estimator: Any) -> list[Any]:
    if y is None:
        raise ValueError("y is None: Naive Bayes learns from labelled rows; pass the labels as y.")
    checked = check_cv(cv, y, classifier=is_classifier(estimator))
    splits = [
        (np.asarray(train, dtype=np.intp), np.asarray(test, dtype=np.intp))
        for train, test in checked.split(X, y, groups)
    ]
    if not splits:
        raise ValueError("The splitter produced no splits: check cv.")
    return splits


def _candidates(param_grid: Any) -> list[dict[str, Any]]:
    if param_grid is None:
        return [{}]
    candidates = list(ParameterGrid(param_grid))
    if not candidates:
        raise ValueError("param_grid holds no parameter combination: give each name values.")
    return candidates


# ---------------------------------------------------------------------- public API
def cross_validate(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    groups: Any = None,
    param_grid: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Sequence[Any]]] | None = None,
    scoring: str | Callable[..., Any] | Iterable[str] | Mapping[str, Any] | None = None,
    cv: Any = None,
    params: Mapping[str, Any] | None = None,
    return_train_score: bool = False,
    error_score: float | str = np.nan,
) -> dict[str, Any]:
    """Cross-validated scores of an nbayes estimator, for every setting of a parameter grid.

    The model of each split is the total statistics minus those of the held-out rows, and
    each setting of a derivation parameter (``alpha``, ``fit_prior``, ...) re-derives from
    the same statistics: one counting pass in all, however many settings. The scores equal
    :func:`sklearn.model_selection.cross_validate` refitting the estimator on each split.

    Parameters
    ----------
    estimator : nbayes estimator
        Not fitted (or fitted: it is cloned and left alone).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    groups : array-like of shape (n_samples,), default=None
        Group labels for group splitters (``GroupKFold``, ...).
    param_grid : dict or list of dicts, default=None
        Settings to evaluate, as for :class:`sklearn.model_selection.GridSearchCV`.
        Derivation parameters cost no pass over the data; any other parameter costs one
        counting pass per distinct value.
    scoring : str, callable, list, tuple or dict, default=None
        A scikit-learn scorer name (``"accuracy"``, ``"neg_log_loss"``, ``"f1_macro"``,
        ...), a scorer, or several (multi-metric). None uses the estimator's ``score``.
    cv : int, cross-validation generator or iterable, default=None
        Any scikit-learn splitter; None is 5-fold and an int k is k-fold (stratified for
        classifiers), as in scikit-learn.
    params : dict, default=None
        Fit parameters; only ``sample_weight`` (one weight per row), which is split with
        the rows.
    return_train_score : bool, default=False
        Also score each split's model on its training rows.
    error_score : 'raise' or float, default=np.nan
        Score of a setting that cannot be fitted or scored (e.g. a ``class_prior`` of the
        wrong length), with a warning, as in scikit-learn; 'raise' raises instead.

    Returns
    -------
    dict
        Without ``param_grid``: scikit-learn's layout, ``test_score``, ``fit_time``,
        ``score_time`` (and ``train_score``) of shape (n_splits,); for several metrics
        ``test_<name>`` per metric.
        With ``param_grid``: ``params`` (the list of settings, in
        :class:`~sklearn.model_selection.ParameterGrid` order) and the same keys with
        arrays of shape (n_settings, n_splits): row i holds setting ``params[i]``.
        ``fit_time`` is the derivation time plus the setting's share of the counting.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes.model_selection import cross_validate
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> X = rng.poisson(np.where(y[:, None] == 0, [3, 1, 1], [1, 1, 3]))
    >>> res = cross_validate(MultinomialNB(), X, y, cv=4, scoring="neg_log_loss",
    ...                      param_grid={"alpha": [0.1, 1.0, 10.0]})
    >>> res["params"]
    [{'alpha': 0.1}, {'alpha': 1.0}, {'alpha': 10.0}]
    >>> res["test_score"].shape
    (3, 4)
    >>> res["test_score"].mean(axis=1).round(3)
    array([-0.313, -0.315, -0.344])

    Without a grid, the layout (and the scores) of scikit-learn's ``cross_validate``:

    >>> cross_validate(MultinomialNB(), X, y, cv=4)["test_score"]
    array([0.9, 0.9, 0.9, 1. ])
    """
    X, y, groups = indexable(X, y, groups)
    splits = _splits(cv, X, y, groups, estimator)
    candidates = _candidates(param_grid)
    _check_grid_names(estimator, candidates)
    sample_weight = _fit_params_weight(params)
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight)
    scorer = check_scoring(estimator, scoring=scoring, raise_exc=(error_score == "raise"))
    out = _evaluate(
        estimator, X, y, splits, candidates, scorer,
        sample_weight=sample_weight, error_score=error_score,
        return_train_score=return_train_score,
        plain_accuracy=_plain_accuracy(scoring, estimator),
    )  # fmt: skip
    private.warn_or_raise_about_fit_failures(out, error_score)
    if callable(scoring):
        private.insert_error_scores(out, error_score)
    shape = (len(splits),) if param_grid is None else (len(candidates), len(splits))
    ret: dict[str, Any] = {} if param_grid is None else {"params": candidates}
    ret["fit_time"] = np.array([o["fit_time"] for o in out]).reshape(shape)
    ret["score_time"] = np.array([o["score_time"] for o in out]).reshape(shape)
    test = private.normalize_score_results([o["test_scores"] for o in out])
    train: dict[str, Any] = {}
    if return_train_score:
        train = private.normalize_score_results([o["train_scores"] for o in out])
    for name, values in test.items():
        ret[f"test_{name}"] = np.asarray(values, dtype=np.float64).reshape(shape)
        if return_train_score:
            ret[f"train_{name}"] = np.asarray(train[name], dtype=np.float64).reshape(shape)
    return ret
