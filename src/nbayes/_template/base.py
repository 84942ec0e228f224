"""The scikit-learn facing template shared by every nbayes estimator.

Training is the algebra of the statistics (``nbayes._statistics``), one code path each::

    fit          stats = empty + batch            (reset, then merge)
    partial_fit  stats = stats + batch            (classes fixed by the first call)
    update       stats = stats + batch            (new classes may appear)
    unlearn      stats = stats - batch            (exact inverse of merge)
    merge / +    stats = stats_a + stats_b

Everything else (log-probabilities, priors, variances) is derived from the statistics on
first use and cached until the statistics or a derivation hyperparameter (alpha, priors,
...) change, so a stream of ``partial_fit`` calls pays for one derivation, not one per batch,
and changing ``alpha`` after fitting re-derives without a pass over the data.

:class:`BaseNB` holds the only implementation of ``fit``, ``partial_fit``, ``update``,
``unlearn``, ``merge``, ``predict*`` and ``explain``; a model supplies the hooks listed in
its docstring (an override may add work, then hand on to the template with ``super()``).

A learning call that fails (bad input, a bad setting, Ctrl-C) leaves the model exactly as it
was, also in a subclass that overrides it (:func:`nbayes._template.guards.all_or_nothing`).

Threads: predictions may run in any number of threads, also while one thread runs learning
calls; each sees the model before or after a learning call, never a mix (it reads a snapshot
taken once, :meth:`BaseNB._consistent`). Learning calls are not run concurrently with each
other. docs/architecture.md ("Threads") states the contract.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Self, overload

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._families import Family
from .._families._common import exact_prior_of, log_normalize, row_values
from .._families.fitted import FittedLikelihood
from .._statistics import CountStats, readonly
from . import guards as _guards
from . import params as _params
from .array_api import check_numpy_input
from .guards import all_or_nothing
from .posterior import PosteriorMixin
from .reading import ReadingMixin
from .sklearn_bases import BaseEstimator, ClassifierMixin
from .validation import (
    FeatureNames,
    check_finite,
    check_non_negative,
    check_same_classes,
    check_sample_weight,
    feature_names,
)

__all__ = ["BaseNB", "Derived", "PosteriorMixin", "log_normalize", "text_input_tags"]


def _strings(X: Any) -> bool:
    """Whether ``X`` is a list (or 1-D array) of strings: documents, not rows of numbers."""
    if isinstance(X, str):
        return True
    if isinstance(X, np.ndarray) and X.ndim == 1:
        X = X[:100].tolist()
    if isinstance(X, list | tuple):
        return bool(X) and all(isinstance(x, str) for x in X[:100])
    return False


class Derived:
    """A fitted attribute that is one value of the family's derivation, read-only::

        feature_log_prob_ = Derived("feature_log_prob", "Log-probability of each feature.")

    is the property ``readonly(self._derived()["feature_log_prob"])`` (so, before a fit,
    ``NotFittedError``; and, like a property, it cannot be set)."""

    def __init__(self, key: str, doc: str | None = None) -> None:
        self.key = key
        self.name = key
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Derived: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> np.ndarray: ...
    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return readonly(obj._derived()[self.key])

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(not_settable(obj, self.name))


#: the hyperparameter that sets the priors a fitted attribute holds, by attribute
_PRIOR_PARAMS = {"class_log_prior_": "class_prior", "class_prior_": "priors"}


def not_settable(obj: Any, name: str) -> str:
    """Why the fitted attribute ``name`` of ``obj`` cannot be set, and what to do instead
    (scikit-learn's fitted attributes are plain values a user may overwrite; nbayes's
    are derived from the statistics)."""
    who = type(obj).__name__
    param = _PRIOR_PARAMS.get(name)
    instead = (
        f" To set the priors, use set_params({param}=[...]): it takes effect at once, "
        "without a refit."
        if param is not None and param in obj.get_params(deep=False)
        else ""
    )
    return (
        f"{who}.{name} cannot be set: it is read from the counts the model learnt, which "
        "are the model's only state (so merge, unlearn and saving stay exact), and its "
        f"arrays are read-only.{instead} To score with parameters of your own, fit "
        "on data with those counts, or build scikit-learn's model and convert it with "
        "nbayes.from_sklearn (which checks that its attributes agree)."
    )


class _Unfitted:
    """``_stats`` of a model not fitted yet: a NotFittedError (an AttributeError, so
    ``hasattr`` is False) in scikit-learn's words. The statistics a fit sets are the
    instance's own attribute and hide it."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        raise NotFittedError(
            f"This {type(obj).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


def text_input_tags(tags: Any) -> Any:
    """scikit-learn's ``tags`` of an estimator that takes documents (a sequence of str)
    instead of a 2-d array: set, and returned."""
    tags.input_tags.string = True
    tags.input_tags.two_d_array = False
    return tags


def _freeze(value: Any) -> Any:
    """A hashable snapshot of a hyperparameter value, for the derivation cache key."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    arr = np.asarray(value)
    return (arr.dtype.str, arr.shape, arr.tobytes())


@dataclass(frozen=True, slots=True, eq=False)
class Cached:
    """One entry of a derivation cache: what was derived (``value``) from the statistics
    ``stats`` (compared by identity: statistics are never changed in place) under the
    hyperparameters ``key``. ``unchanged``: the hyperparameter values themselves when
    they are all immutable (compared by ``==``, cheaper than making ``key`` again), else
    None."""

    stats: Any
    key: Any
    value: Any
    unchanged: tuple[Any, ...] | None = None


class BaseNB(ReadingMixin, PosteriorMixin, ClassifierMixin, BaseEstimator):
    """Template for nbayes estimators; subclasses name a family and their hyperparameters.

    A model supplies hooks; the template does the rest. Required:

    its hyperparameters
        Annotated class attributes under :func:`nbayes._template.params.hyperparameters`
        (``alpha: float = 1.0``), which writes scikit-learn's ``__init__`` from them.

    ``_family``
        The likelihood family (:class:`nbayes._families.Family`): derives log-probabilities
        from the statistics and scores, explains, samples and counts parameters with them.
    ``_empty_stats(classes, n_features)`` and ``_batch_stats(X, y, sample_weight)``
        The statistics: no data, and one validated batch. The statistics type has
        ``classes``, ``class_count``, ``merge(other)`` (the statistics of both data) and
        ``subtract(other)`` (its exact inverse, raising ValueError for data never seen);
        a type with ``merges_many = True`` takes several at once, ``merge(b, c, ...)``.
        Defaults: :class:`~nbayes._statistics.CountStats` (per-class feature sums).
    ``_derivation_params``, ``_param_rules``, ``_accept_sparse``, ``_counts_only``
        Hyperparameters the family derives with (a change re-derives, no refit), their
        validation rules, and what input the default validation accepts.

    Optional (defaults in brackets):

    ``_check_params()``        validate hyperparameters [``_param_rules``]
    ``_check_X(X)``            validate input for prediction [validate_data, finite,
                               counts if ``_counts_only`` (and not
                               ``_scores_negative_values``), then ``_transform_X``]
    ``_check_X_y(X, y, reset)``  the same for training, with the labels
    ``_transform_X(X)``        last step of both (e.g. binarize) [none]
    ``_batch(X, y, sample_weight, reset)``  input to batch statistics [check, then
                               ``_batch_stats``]
    ``_fit_stats(batch)``      the statistics ``fit`` keeps [empty + batch]
    ``_after_subtract(stats)``  bring ``unlearn``'s result to the form ``fit`` gives [same]
    ``_set_stats(stats)``      install statistics (drop the caches derived from the old)
    ``_n_columns()``           the width of ``partial_fit``'s empty start [``n_features_in_``]
    ``_check_derivation()``    derive at fit time to surface bad derivation parameters
    ``_same_param(a, b)``      hyperparameter equality for ``merge`` [equal values]
    ``_check_merge_inputs(other)``  both models read the same input [features, names]
    ``_fitted_inputs``         attributes a merged model copies [n_features_in_, names]
    ``_fitted()``              the fitted likelihood the family reads: a ``FittedLikelihood``
                               [``_family``, ``_derived()``, ``_stats``, derivation values]
    ``_joint_log_likelihood(X)``, ``_class_log_prior()``  scoring checked input
    ``_one_row(x)``, ``_explain_one(row, exact, feature_names)``  what ``explain`` reads
    ``_feature_names()``, ``_row_values(X)``, ``_sample_noun``  names in results, messages
    ``_bounded_scores``        scores cannot overflow: predict skips the check [False]
    ``_derived()``             the cached derivation [``_family.derive(stats, params)``]
    ``likelihood()``           public: the fitted likelihood, for plots and other readers
                               [``_fitted()``]

    ``fit``, ``partial_fit``, ``update``, ``unlearn``, ``merge``, ``predict_joint_log_proba``
    and ``explain`` are implemented here only: a model that needs more (a docstring of its
    own, a conversion of the result) adds its work and hands on with ``super()``.

    Thread safety: predictions (predict*, ``explain``, ``score``) may run in any number of
    threads, also while one thread runs learning calls; each reads the model before or
    after a learning call, never a mix. Learning calls (and ``set_params``) must not run
    concurrently with each other: serialise them (docs/architecture.md, "Threads"). The
    models on the template: :mod:`nbayes.naive_bayes` (the six scikit-learn drop-ins),
    :class:`~nbayes.kernel.KernelNB`, :class:`~nbayes.MixedNB` and
    :class:`~nbayes.text.TextClassifier` (documents in, a growing vocabulary).
    """

    _family: ClassVar[Family]
    #: hyperparameters that only change the derivation from the statistics
    _derivation_params: ClassVar[tuple[str, ...]] = ()
    _param_rules: ClassVar[dict[str, list[_params.Rule]]] = {}
    _accept_sparse: ClassVar[str | bool] = "csr"
    #: values must be counts (non-negative)
    _counts_only: ClassVar[bool] = False
    #: a model of counts whose predictions score negative values as scikit-learn's do
    #: (``X @ feature_log_prob_.T``: a scaler's test value just below the training range
    #: gets a verdict, not a ValueError for its whole batch); training refuses them
    _scores_negative_values: ClassVar[bool] = False
    #: fitted attributes describing the input, copied by ``merge``
    _fitted_inputs: ClassVar[tuple[str, ...]] = ("n_features_in_", "feature_names_in_")
    #: what one training row is called in messages
    _sample_noun: ClassVar[str] = "example"
    #: scores cannot overflow (a document's token counts are bounded): predict skips the
    #: overflow check (numpy's errstate costs a few microseconds a call)
    _bounded_scores: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A model that overrides a learning call keeps the guarantee of the template's.
        super().__init_subclass__(**kwargs)
        for name in _guards.LEARNING_CALLS:
            if name in cls.__dict__:
                setattr(cls, name, all_or_nothing(cls.__dict__[name]))

    # ------------------------------------------------------------------ hooks
    def _empty_stats(self, classes: np.ndarray, n_features: int) -> Any:
        return CountStats.empty(classes, n_features)

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        return CountStats.from_batch(X, y, sample_weight)

    def _fit_stats(self, batch: Any) -> Any:
        """Hook: the statistics ``fit`` keeps from its one batch (a fit equals a
        ``partial_fit`` from nothing)."""
        return self._empty_stats(batch.classes, self._n_columns()).merge(batch)

    def _after_subtract(self, stats: Any) -> Any:
        """Hook: bring statistics left by ``unlearn`` to the form ``fit`` would give."""
        return stats

    def _transform_X(self, X: Any) -> Any:
        """Last step of input checking (e.g. binarize); used in fit and predict alike."""
        return X

    def _check_params(self) -> None:
        _params.validate(self, self._param_rules)

    def _n_columns(self) -> int:
        """Hook: the number of features of empty statistics (``partial_fit``'s start)."""
        return int(self.n_features_in_)

    def _same_param(self, a: Any, b: Any) -> bool:
        """Hook: whether two values of a hyperparameter are equal (for ``merge``): by value,
        as :func:`nbayes._template.params.same_value` says."""
        return _params.same_value(a, b)

    def _fitted(self, feature_names: Sequence[str] | None = None) -> FittedLikelihood:
        """Hook: the fitted likelihood, the family with its derivation, the statistics
        behind it and the derivation's hyperparameters (and ``feature_names``, for
        ``explain``)."""
        return FittedLikelihood(
            self._family, self._derived(), self._stats, self._derivation_values(), feature_names
        )

    # ------------------------------------------------------------ validation
    def _validate_X_values(self, X: Any, training: bool = True) -> Any:
        who = type(self).__name__
        check_numpy_input(X, who)
        names = FeatureNames(self, X.shape[1])
        check_finite(X, who, names)
        if self._counts_only and (training or not self._scores_negative_values):
            check_non_negative(X, who, names)
        return self._transform_X(X)

    def _check_X(self, X: Any) -> Any:
        """Validate X for prediction (feature count and names must match the fit)."""
        with self._numbers_advised(X):
            X = validate_data(
                self, X, accept_sparse=self._accept_sparse, ensure_all_finite=False, reset=False
            )
        return self._validate_X_values(X, training=False)

    def _check_X_y(self, X: Any, y: Any, reset: bool) -> tuple[Any, np.ndarray]:
        with self._numbers_advised(X):
            X, y = validate_data(
                self, X, y, accept_sparse=self._accept_sparse, ensure_all_finite=False,
                reset=reset,
            )  # fmt: skip
        _guards.check_int_labels(y)
        _guards.check_missing_labels(y)
        check_classification_targets(y)
        return self._validate_X_values(X), np.asarray(y)

    @contextmanager
    def _numbers_advised(self, X: Any) -> Iterator[None]:
        """scikit-learn's error for strings where numbers go, with what to use instead
        (a student gave category names to BernoulliNB, raw text to BernoulliNB: the advice
        was "convert your data to numeric values" or "reshape(-1, 1)")."""
        try:
            yield
        except ValueError as exc:
            text = str(exc)
            strings = "bytes/strings" in text or "could not convert string to float" in text
            texts = "Expected 2D array" in text and _strings(X)
            if not (strings or texts):
                raise
            if texts:  # (not scikit-learn's "reshape(-1, 1)": that is no use for text)
                n = 1 if isinstance(X, str) else len(X)
                text = f"Expected 2D array, got {n:,} string(s) (documents?)."
            raise ValueError(
                f"{text} {type(self).__name__} takes numbers: for categories (strings) use "
                "CategoricalNB (or MixedNB for a table of several kinds), for text "
                "TextClassifier (or a CountVectorizer first)."
            ) from None  # (one message: scikit-learn's words are in it)

    def _html_repr(self) -> str:
        """scikit-learn's view of the estimator in a notebook, and, once fitted, where the
        notes' views are: its "Fitted attributes" are arrays cut to a few values (a
        student's trial saw ``feature_log_prob_ [[-inf, 0., -0.69, ...]]`` and no more)."""
        html = str(super()._html_repr())  # type: ignore[misc]  # (scikit-learn's, any version)
        if not self.__sklearn_is_fitted__():
            return html
        hint = (
            '<div style="font:12px system-ui,sans-serif;color:#5d6773;margin:2px 0 6px">'
            "The estimates as the course notes print them: <code>model.parameter_table()"
            "</code>; why a row gets its class: <code>model.explain(x)</code>.</div>"
        )
        end = html.rfind("</body>")  # (scikit-learn's view ends its body: the hint inside)
        return html + hint if end < 0 else html[:end] + hint + html[end:]

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "_stats")

    #: before a fit: what a fitted attribute (``classes_``, ``class_count_``...) says
    #: when asked (it named this internal attribute)
    _stats = _Unfitted()

    def __setattr__(self, name: str, value: Any) -> None:
        attr = getattr(type(self), name, None)
        if isinstance(attr, property) and attr.fset is None and not name.startswith("_"):
            raise AttributeError(not_settable(self, name))  # (Python's: "has no setter")
        super().__setattr__(name, value)

    # -------------------------------------------------------------- training
    def _set_stats(self, stats: Any) -> Self:
        """Hook: install statistics (refused if they overflowed or go beyond what a model
        holds: :func:`nbayes._template.guards.check_stats`), dropping what was derived
        from the old ones."""
        _guards.check_stats(stats, type(self).__name__)
        self._stats = stats
        self.__dict__.pop("_cache", None)
        return self

    def _batch(self, X: Any, y: Any, sample_weight: Any, reset: bool) -> Any:
        X, y = self._check_X_y(X, y, reset=reset)
        sw = check_sample_weight(sample_weight, X.shape[0])
        batch = self._batch_stats(X, y, sw)
        self._check_encodable(batch.classes, reset)
        return batch

    def _check_encodable(self, classes: np.ndarray, reset: bool) -> None:
        """The labels (and on a fit the feature names) can be stored: UTF-8 encodes them."""
        _guards.check_encodable(classes, "class label")
        if reset:
            _guards.check_encodable(getattr(self, "feature_names_in_", ()), "feature name")

    @all_or_nothing
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit the model to X, y: the statistics of this data and nothing else.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (for :class:`~nbayes.TextClassifier`: an iterable of str
            documents; for :class:`~nbayes.MixedNB`: a table).
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
        """
        self._check_params()
        self.__dict__.pop("_stats", None)  # a refit starts from nothing (no old settings)
        batch = self._batch(X, y, sample_weight, reset=True)
        self._set_stats(self._fit_stats(batch))
        self._check_derivation()
        return self

    @all_or_nothing
    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None) -> Self:
        """Incremental fit on a batch of samples (scikit-learn semantics).

        ``classes`` must be given on the first call and lists every class that can
        appear; later batches may only use those classes (see :meth:`update` to add new
        ones).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        first = not self.__sklearn_is_fitted__()
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        self._check_params()  # every call: a setting changed since (set_params) is refused
        if not first and classes is not None:
            check_same_classes(classes, self._class_labels())
        batch = self._batch(X, y, sample_weight, reset=first)
        if first:
            _guards.check_int_labels(classes)
            base = self._empty_stats(np.unique(np.asarray(classes)), self._n_columns())
            self._check_encodable(base.classes, False)
        else:
            base = self._stats
        unknown = batch.classes[~np.isin(batch.classes, base.classes)]
        if unknown.size:
            raise ValueError(
                f"The target label(s) {unknown} in y do not exist in the initial classes "
                f"{base.classes}"
            )
        self._set_stats(base.merge(batch))
        if first:
            self._check_derivation()
        return self

    @all_or_nothing
    def update(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Learn more examples; unlike :meth:`partial_fit`, new classes may appear any time.

        On an unfitted model this is :meth:`fit`. Parameters as for :meth:`fit`.
        """
        if not self.__sklearn_is_fitted__():
            return self.fit(X, y, sample_weight=sample_weight)
        self._check_params()  # a setting changed since the fit (set_params) is refused
        batch = self._batch(X, y, sample_weight, reset=False)
        return self._set_stats(self._stats.merge(batch))

    @all_or_nothing
    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Remove examples the model has learned: the exact inverse of :meth:`update`.

        The result equals a model fitted without these examples (to rounding: a
        Gaussian mean can differ in its last bit, which a point mass's likelihood, at
        ``var_smoothing=0``, tells apart). A class whose last example is removed
        disappears from ``classes_``; so does one whose remaining examples all weigh 0
        (the statistics keep weights, not rows: ``fit`` keeps such a class, with a count
        of 0). Removing what the model never saw (an unknown class, a count that would
        become negative) raises ValueError and leaves the model unchanged. Parameters as
        for :meth:`fit`.
        """
        check_is_fitted(self)
        self._check_params()
        batch = self._batch(X, y, sample_weight, reset=False)
        stats = self._after_subtract(self._stats.subtract(batch))
        if len(stats.classes) == 0:
            raise ValueError(
                f"Cannot unlearn every {self._sample_noun}: the model would have no class "
                "left. Nothing was changed."
            )
        return self._set_stats(stats)

    def merge(self, other: Self, *more: Self) -> Self:
        """The model of the union of both models' data (neither model is changed).

        Both must be fitted, of the same type and hyperparameters, over the same features.
        Their classes are united. ``a.merge(b, c, ...)`` merges several models at once
        (equal to ``a.merge(b).merge(c)``; text models unite all their vocabularies in
        one pass).
        """
        others = (other, *more)
        for each in others:
            self._check_mergeable(each)
        merged = clone(self)
        for name in self._fitted_inputs:
            if hasattr(self, name):
                setattr(merged, name, getattr(self, name))
        stats = self._stats
        if more and getattr(stats, "merges_many", False):
            stats = stats.merge(*(each._stats for each in others))
        else:
            for each in others:
                stats = stats.merge(each._stats)
        return merged._set_stats(stats)

    def _check_mergeable(self, other: Any) -> None:
        if type(other) is not type(self):
            module = type(other).__module__.split(".")[0]
            if module == "sklearn":
                ours = type(self).__name__
                how = (
                    f"convert it first with nbayes.{ours}.from_sklearn(model) (its counts "
                    "carry over), then merge"
                    if hasattr(type(self), "from_sklearn")
                    else f"only an nbayes {ours} merges with this one"
                )
                raise ValueError(
                    f"Cannot merge a {ours} with the scikit-learn model {other!r}: {how}."
                )
            raise ValueError(
                f"Cannot merge a {type(self).__name__} with a {type(other).__name__}: "
                "only models of the same type combine."
            )
        check_is_fitted(self)
        check_is_fitted(other)
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        differ = [k for k in mine if not self._same_param(mine[k], theirs[k])]
        if differ:
            shown = ", ".join(f"{k}={mine[k]!r} vs {theirs[k]!r}" for k in differ)
            raise ValueError(
                f"Cannot merge models with different hyperparameters ({shown}): set them "
                "equal first (set_params)."
            )
        self._check_merge_inputs(other)

    def _check_merge_inputs(self, other: Any) -> None:
        """Hook: both models read the same input (here: the same features, by name)."""
        if self.n_features_in_ != other.n_features_in_:
            raise ValueError(
                f"Cannot merge a model of {self.n_features_in_} features with one of "
                f"{other.n_features_in_} features."
            )
        names_a = getattr(self, "feature_names_in_", None)
        names_b = getattr(other, "feature_names_in_", None)
        if (names_a is None) != (names_b is None):
            named = "the first" if names_a is not None else "the second"
            raise ValueError(
                f"Cannot merge models whose features have different names: only {named} has "
                "feature names (it was fitted on a DataFrame)."
            )
        if names_a is not None and names_b is not None and not np.array_equal(names_a, names_b):
            j = next(i for i, (a, b) in enumerate(zip(names_a, names_b, strict=True)) if a != b)
            raise ValueError(  # (the first that differs: a list of 200 columns twice was 4 kB)
                "Cannot merge models whose features have different names: feature "
                f"{j} is {str(names_a[j])!r} in the first, {str(names_b[j])!r} in the second."
            )

    def __add__(self, other: Self) -> Self:
        return self.merge(other)

    def __radd__(self, other: Any) -> Self:
        """``sum(models)`` merges them: its start, 0, plus a model is a copy of it."""
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            import copy

            return copy.deepcopy(self)
        return NotImplemented

    # ------------------------------------------------------------ derivation
    def _derivation_values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._derivation_params}

    def _derived(self) -> dict[str, Any]:
        check_is_fitted(self)
        stats = self._stats  # read once: a learning call in another thread may swap it
        values = self._derivation_values()
        key = tuple(_freeze(v) for v in values.values())
        cache: Cached | None = self.__dict__.get("_cache")
        if cache is not None and cache.stats is stats and cache.key == key:
            return cache.value
        derived = self._family.derive(stats, values)
        self._keep_cache("_cache", Cached(stats, key, derived))
        return derived

    def _consistent(self) -> Self:
        """The model as it is now, for one prediction: a shallow copy whose statistics
        and derivation stay those of this moment while a learning call in another thread
        installs new ones (the thread-safety contract in :class:`BaseNB`'s docstring).
        Learning calls replace the statistics, never change them in place, so the copy of
        a few references is the whole snapshot; what it derives it also caches on the
        model (:meth:`_keep_cache`)."""
        state = self.__dict__
        if "_origin" in state or "_stats" not in state:
            return self
        copy = state.copy()  # one step under the GIL: old or new, never a mix
        copy["_origin"] = self
        snapshot = object.__new__(type(self))
        snapshot.__dict__ = copy
        return snapshot

    def _keep_cache(self, name: str, entry: Cached) -> None:
        """Store a derivation cache ``entry`` under ``name``; a snapshot also stores it on
        its model while the model still holds the statistics it was derived from."""
        self.__dict__[name] = entry
        origin = self.__dict__.get("_origin")
        if origin is not None and origin.__dict__.get("_stats") is entry.stats:
            origin.__dict__[name] = entry

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickles of earlier versions kept the derivation cache as a tuple (stats, key,
        # derived): derived again on first use
        if "_cache" in state and not isinstance(state["_cache"], Cached):
            state = {k: v for k, v in state.items() if k != "_cache"}
        super().__setstate__(state)

    def _check_derivation(self) -> None:
        """Surface bad derivation parameters (e.g. wrong number of priors) at fit time."""
        self._derived()

    def _derived_with(self, stats: Any, params: Mapping[str, Any]) -> Self:
        """This model over ``stats`` (installed unless they already are) with ``params``
        set, checked and derived: what model selection scores each candidate with."""
        if self.__dict__.get("_stats") is not stats:
            self._set_stats(stats)
        if params:
            self.set_params(**params)
        self._check_params()
        self._derived()
        return self

    # ------------------------------------------------------------ prediction
    def _joint_log_likelihood(self, X: Any) -> np.ndarray:
        return self._family.joint_log_likelihood(self._derived(), X)

    def _class_log_prior(self) -> np.ndarray:
        return np.asarray(self._derived()["class_log_prior"], dtype=np.float64)

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """Joint log-probability ``log P(x, y) = log P(y) + log P(x | y)`` per row and class.

        Columns follow ``classes_``.
        """
        if "_stats" not in self.__dict__:
            check_is_fitted(self)
        m = self._consistent()
        if m._bounded_scores:
            return m._joint_log_likelihood(m._check_X(X))
        return _guards.scoring_overflow_checked(m._joint_log_likelihood, m._check_X(X), m)

    # ------------------------------------------------------- beyond sklearn
    def _feature_names(self) -> list[str]:
        return feature_names(self, self.n_features_in_)

    def explain(self, x: Any, exact: bool = False, feature_names: Any = None) -> Any:
        """Why the model classifies one row as it does: every feature's evidence per class.

        Parameters
        ----------
        x : array-like of shape (n_features,) or (1, n_features)
            One row.
        exact : bool, default=False
            Also derive the joint probabilities and the posterior as exact fractions
            (discrete models with integer counts and a rational alpha), printed the way a
            textbook writes them.
        feature_names : list of str, default=None
            Names to print for the features (default: ``feature_names_in_`` or x0, x1, ...).

        Returns
        -------
        nbayes.Explanation
        """
        check_is_fitted(self)
        m = self._consistent()
        try:
            return m._explain_one(m._one_row(x), exact, feature_names)
        except FloatingPointError:  # a family's scoring that overflowed (KernelNB)
            raise _guards.overflow_error(self) from None

    def _explain_one(self, row: Any, exact: bool, feature_names: Any) -> Any:
        """Hook: the explanation of one row (as ``_one_row`` gives it)."""
        from ..explain import explain_row

        X = self._check_X(row)
        values = self._row_values(X)
        names = self._names_given(feature_names, len(values))  # (one per feature, checked)
        return explain_row(self._fitted(names), X, values, exact)

    def _exact_prior(self, params: dict[str, Any]) -> Any:
        return exact_prior_of(self._stats, params)

    def _one_row(self, x: Any) -> Any:
        if hasattr(x, "iloc") and len(getattr(x, "shape", ())) == 1:  # a pandas Series:
            # one row (``df.iloc[0]``), its index the feature names if the model has them
            if hasattr(self, "feature_names_in_"):
                return x.to_frame().T
            return np.asarray(x).reshape(1, -1)
        if hasattr(x, "iloc") or hasattr(x, "shape") and len(getattr(x, "shape", ())) == 2:
            if x.shape[0] != 1:
                raise ValueError(f"explain() takes one row; got {x.shape[0]} rows.")
            return x
        arr = np.asarray(x)
        if arr.ndim != 1:
            raise ValueError(f"explain() takes one row (1-D); got an array of shape {arr.shape}.")
        return arr.reshape(1, -1)

    def _row_values(self, X: Any) -> np.ndarray:
        return row_values(X)

    # ------------------------------------------------------ fitted attributes
    @property
    def classes_(self) -> np.ndarray:
        """Class labels known to the classifier (sorted)."""
        return readonly(self._stats.classes)

    def _class_labels(self) -> np.ndarray:
        return readonly(self._stats.classes)

    @property
    def class_count_(self) -> np.ndarray:
        """Weighted number of training samples per class."""
        return readonly(self._stats.class_count)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse is not False
        tags.input_tags.positive_only = self._counts_only
        return tags
