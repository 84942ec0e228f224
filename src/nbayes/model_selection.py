"""Model selection by count subtraction: cross-validation and parameter sweeps without refitting.

A Naive Bayes model is its statistics, so the model trained on every fold but ``k`` is
"total minus fold ``k``", and a new ``alpha`` only re-derives log-probabilities from the same
statistics. :func:`cross_validate` and :class:`NBSearchCV` exploit both:

* **one counting pass per fold**: the statistics of each held-out fold are counted once and
  merged into the total; the training statistics of split ``k`` are
  ``total.subtract(fold_k)``, brought to the exact form ``fit`` gives on the training rows
  (same classes, same categories);
* **derivation parameters** (the estimator's ``_derivation_params``: ``alpha``,
  ``fit_prior``, ``class_prior``, ``force_alpha``, ``norm``, ``beta``, ``priors``,
  ``var_smoothing``) are swept by ``set_params`` on the same statistics, without touching the
  data; any other parameter (``binarize``, ``min_categories``) costs one counting pass per
  value;
* **scoring** uses scikit-learn's own scorers (and its error handling) on a fitted
  estimator whose statistics are the split's training statistics, so the scores are those
  of ``sklearn.model_selection.cross_validate`` / ``GridSearchCV`` on the same splits.

Any scikit-learn splitter works as ``cv`` (an int means ``StratifiedKFold``, as in
scikit-learn). Splitters whose held-out sets partition the rows (``KFold``,
``StratifiedKFold``, ``GroupKFold``, ``LeaveOneOut``, ...) cost one counting pass in all
(``LeaveOneOut`` and other splitters with more than 32 folds: one pass for the total and one
over the single rows, never stored at once); other splitters (``ShuffleSplit``,
``RepeatedKFold``) count, per split, the smaller of the held-out and the training rows.

Counting protocol (how an estimator plugs in)
---------------------------------------------
An estimator that defines ``_cv_counter()`` returns an object with:

``derivation_params`` : tuple of str
    Parameters swept by re-deriving from the same statistics.
``prepare(X, y, sample_weight) -> ndarray``
    Validate the whole data set once (for text: tokenize) and return the validated labels.
``count(rows) -> statistics``
    The statistics of these rows (indices into the prepared data); statistics only need
    ``merge`` and ``subtract``. A text estimator's statistics carry the fold's own
    vocabulary and document frequencies: ``merge`` unites vocabularies, ``subtract``
    removes counts.
``finish(stats, classes) -> statistics``
    Bring subtracted statistics ``total - held_out`` to the form ``fit`` on the training
    rows gives, whose labels are exactly ``classes`` (sorted): drop the classes and (for
    text) the terms the training rows do not have, so that a split's vocabulary is the
    words its training rows have seen and ``min_df``/``max_df`` apply to the training
    rows' document frequencies.
``use(stats, params) -> estimator``
    A fitted estimator with these statistics and parameters, derived (raise here what
    ``fit`` would raise for these parameters). Scorers call its ``predict`` /
    ``predict_proba`` on the raw held-out ``X``.

Every :class:`nbayes._base.BaseNB` estimator gets the default counter (statistics from its
``_batch_stats`` on rows validated once by ``_check_X_y``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from traceback import format_exc
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.model_selection._search import BaseSearchCV
from sklearn.model_selection._validation import (
    _insert_error_scores,
    _normalize_score_results,
    _score,
    _warn_or_raise_about_fit_failures,
)
from sklearn.utils import _safe_indexing, indexable
from sklearn.utils.validation import _check_method_params

from . import _params
from ._base import BaseNB
from ._validation import check_sample_weight

__all__ = ["NBSearchCV", "cross_validate"]

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
    """The counting protocol for :class:`nbayes._base.BaseNB` estimators.

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
        return _conform_classes(self.model._after_subtract(stats), classes)

    def use(self, stats: Any, params: Mapping[str, Any]) -> Any:
        model = self.model
        if getattr(model, "_stats", None) is not stats:
            model._set_stats(stats)
        if params:
            model.set_params(**params)
        model._check_params()
        model._check_derivation()
        return model


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
def _conform_classes(stats: Any, classes: np.ndarray) -> Any:
    """The statistics over exactly ``classes`` (the labels of the training rows).

    ``subtract`` already drops the classes whose count falls to zero; this also drops
    rounding leftovers of fractional weights, and restores classes that the training rows
    hold with weight 0 only (``fit`` keeps those, with zero counts).
    """
    if len(stats.classes) == len(classes) and np.array_equal(stats.classes, classes):
        return stats
    extra = ~np.isin(stats.classes, classes)
    if extra.any():
        zeroed = replace(stats, class_count=np.where(extra, 0.0, stats.class_count))
        stats = zeroed.drop_emptied(stats.classes[extra])
    if len(stats.classes) != len(classes):
        stats = stats.reindex(classes)
    return stats


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
        return _score(model, X, y, scorer, params, error_score)

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
            X_test, y_test = _safe_indexing(X, test), _safe_indexing(y, test)
            test_params = _check_method_params(X, params=score_params, indices=test)
            if return_train_score:
                X_train, y_train = _safe_indexing(X, train), _safe_indexing(y, train)
                train_params = _check_method_params(X, params=score_params, indices=train)
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
    _warn_or_raise_about_fit_failures(out, error_score)
    if callable(scoring):
        _insert_error_scores(out, error_score)
    shape = (len(splits),) if param_grid is None else (len(candidates), len(splits))
    ret: dict[str, Any] = {} if param_grid is None else {"params": candidates}
    ret["fit_time"] = np.array([o["fit_time"] for o in out]).reshape(shape)
    ret["score_time"] = np.array([o["score_time"] for o in out]).reshape(shape)
    test = _normalize_score_results([o["test_scores"] for o in out])
    train = _normalize_score_results([o["train_scores"] for o in out]) if return_train_score else {}
    for name, values in test.items():
        ret[f"test_{name}"] = np.asarray(values, dtype=np.float64).reshape(shape)
        if return_train_score:
            ret[f"train_{name}"] = np.asarray(train[name], dtype=np.float64).reshape(shape)
    return ret


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
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
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

    _parameter_constraints: dict[str, list[Any]] = {
        "estimator": BaseSearchCV._parameter_constraints["estimator"],
        "param_grid": [dict, list],
        "scoring": BaseSearchCV._parameter_constraints["scoring"],
        "refit": ["boolean", str, callable],
        "cv": ["cv_object"],
        "error_score": BaseSearchCV._parameter_constraints["error_score"],
        "return_train_score": ["boolean"],
    }

    def __init__(
        self,
        estimator: Any,
        param_grid: Any,
        *,
        scoring: Any = None,
        refit: Any = True,
        cv: Any = None,
        error_score: Any = np.nan,
        return_train_score: bool = False,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.refit = refit
        self.cv = cv
        self.error_score = error_score
        self.return_train_score = return_train_score

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
        self._validate_params()
        scorers, refit_metric = self._get_scorers()
        X, y = indexable(X, y)
        params = _check_method_params(X, params=params)
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
        _warn_or_raise_about_fit_failures(out, self.error_score)
        if callable(self.scoring):
            _insert_error_scores(out, self.error_score)
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
