"""The public estimators: scikit-learn's names, parameters and results, and more.

Each class only declares its hyperparameters, its likelihood family and its statistics;
training, prediction and everything beyond scikit-learn live in the template,
:class:`nbayes._template.base.BaseNB`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.preprocessing import binarize as _binarize
from sklearn.utils.validation import check_is_fitted

from ._families import (
    BernoulliFamily,
    CategoricalFamily,
    ComplementFamily,
    GaussianFamily,
    MultinomialFamily,
    PoissonFamily,
)
from ._statistics import CategoryStats, readonly
from ._statistics.moments import MomentStats
from ._template import guards as _guards
from ._template import params as P
from ._template.array_api import ArrayAPIOutputs, check_numpy_input
from ._template.base import BaseNB, Derived
from ._template.validation import check_categories, check_min_categories
from .interop.sklearn import SklearnCounterpart

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MultinomialNB",
    "PoissonNB",
]

_DISCRETE_RULES: dict[str, list[P.Rule]] = {
    "alpha": [P.non_negative_real, P.array_like],
    "fit_prior": [P.boolean],
    "class_prior": [P.array_like, P.none],
    "force_alpha": [P.boolean],
}
_DISCRETE_DERIVATION = ("alpha", "force_alpha", "fit_prior", "class_prior")


class _DiscreteNB(BaseNB):
    """Count-based estimators: class counts and per-class feature sums."""

    @property
    def feature_count_(self) -> np.ndarray:
        """Weighted sum of each feature per class, shape (n_classes, n_features)."""
        return readonly(self._stats.feature_count)

    feature_log_prob_ = Derived(
        "feature_log_prob",
        "Log-probability (or weight) of each feature per class, derived from the counts.",
    )

    class_log_prior_ = Derived(
        "class_log_prior", "Smoothed empirical log-probability of each class (or the given prior)."
    )

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


@P.hyperparameters
class _DirichletNB(SklearnCounterpart, _DiscreteNB):
    """Count models smoothed by pseudo-counts ``alpha`` (a Dirichlet prior; Lidstone's and
    Laplace's rules), with scikit-learn's four hyperparameters."""

    _derivation_params: ClassVar[tuple[str, ...]] = _DISCRETE_DERIVATION
    _param_rules: ClassVar[dict[str, list[P.Rule]]] = _DISCRETE_RULES

    alpha: Any = 1.0
    force_alpha: bool = True
    fit_prior: bool = True
    class_prior: Any = None


@P.hyperparameters
class MultinomialNB(_DirichletNB):
    """Naive Bayes classifier for multinomial models (word counts, TF-IDF).

    Drop-in for :class:`sklearn.naive_bayes.MultinomialNB`; the statistics are the
    per-class feature counts, from which ``feature_log_prob_`` is derived with additive
    (Laplace/Lidstone) smoothing: ``P(w | c) = (count(w, c) + alpha) / (total(c) + alpha·V)``.
    For binary (presence) Naive Bayes, give it ``X > 0`` (or use
    ``nbayes.TextClassifier(binary=True)``).

    ``to_sklearn()`` and ``from_sklearn(model)`` convert it to and from scikit-learn's
    ``MultinomialNB`` with equal probabilities, and ``nbayes.to_onnx`` exports it (docs/interop.md).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing; 0 is the exact maximum-likelihood estimate.
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, alpha is set to 1e-10.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities (else uniform).
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes; not adjusted to the data.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    The spam example of the course notes: free, win, money, meeting, today, lunch.

    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> X = np.array([[1, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0], [0, 1, 1, 0, 0, 0],
    ...               [0, 0, 0, 1, 1, 0], [1, 0, 0, 0, 1, 0], [0, 0, 0, 0, 1, 1]])
    >>> y = ["spam", "spam", "spam", "ham", "ham", "ham"]
    >>> clf = MultinomialNB().fit(X, y)
    >>> clf.predict_proba([[1, 0, 1, 0, 0, 0]]).round(3)
    array([[0.182, 0.818]])
    """

    _family = MultinomialFamily()
    _counts_only = True
    _scores_negative_values = True  # (at predict, as scikit-learn's)


@P.hyperparameters
class ComplementNB(_DirichletNB):
    """Complement Naive Bayes (Rennie et al., 2003), suited to imbalanced text data.

    Drop-in for :class:`sklearn.naive_bayes.ComplementNB`. The weights of class c are
    derived from the counts of every other class, so the statistics are the same per-class
    counts as :class:`MultinomialNB`.

    ``to_sklearn()`` and ``from_sklearn(model)`` convert it to and from scikit-learn's
    ``ComplementNB`` with equal probabilities, and ``nbayes.to_onnx`` exports it (docs/interop.md).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
    force_alpha : bool, default=True
    fit_prior : bool, default=True
        Only used in the edge case of a single class in the training set.
    class_prior : array-like of shape (n_classes,), default=None
        Only used in the edge case of a single class.
    norm : bool, default=False
        Whether to normalise the weights a second time.

    Attributes
    ----------
    feature_all_ : ndarray of shape (n_features,)
        Weighted count of each feature over all classes.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import ComplementNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> ComplementNB().fit(X, [1, 2, 3, 4, 5, 6]).predict(X[2:3])
    array([3])
    """

    _family = ComplementFamily()
    _counts_only = True
    _scores_negative_values = True  # (at predict, as scikit-learn's)
    _derivation_params = (*_DISCRETE_DERIVATION, "norm")
    _param_rules = {**_DISCRETE_RULES, "norm": [P.boolean]}

    norm: bool = False

    feature_all_ = Derived("feature_all", "Weighted count of each feature over all classes.")


@P.hyperparameters
class BernoulliNB(_DirichletNB):
    """Naive Bayes for multivariate Bernoulli models: absent features count as evidence.

    Drop-in for :class:`sklearn.naive_bayes.BernoulliNB`:
    ``P(x_j = 1 | c) = (count(j, c) + alpha) / (n_c + 2·alpha)``, and a document's
    likelihood multiplies ``1 - P(x_j = 1 | c)`` for every absent feature.

    ``to_sklearn()`` and ``from_sklearn(model)`` convert it to and from scikit-learn's
    ``BernoulliNB`` with equal probabilities, and ``nbayes.to_onnx`` exports it (docs/interop.md).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing (Beta(alpha, alpha) pseudo-counts); 0 is the exact MLE.
    force_alpha : bool, default=True
    binarize : float or None, default=0.0
        Threshold for mapping features to booleans; None if X is already binary.
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), default=None

    Examples
    --------
    Seed 000's match reviews, unsmoothed (the MLE table of the notes):

    >>> from nbayes import BernoulliNB
    >>> X = [[1, 1, 1, 1, 1, 0, 0, 0], [0, 1, 0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 1, 1, 0],
    ...      [0, 1, 1, 0, 0, 1, 0, 1], [0, 1, 0, 0, 1, 1, 0, 1]]
    >>> y = ["positive", "positive", "positive", "negative", "negative"]
    >>> clf = BernoulliNB(alpha=0).fit(X, y)
    >>> clf.predict([[0, 1, 1, 0, 0, 1, 0, 0]])
    array(['positive'], dtype='<U8')
    """

    _family = BernoulliFamily()
    _param_rules = {**_DISCRETE_RULES, "binarize": [P.none, P.non_negative_real]}

    binarize: float | None = 0.0

    def _transform_X(self, X: Any) -> Any:
        if self.binarize is not None:
            X = _binarize(X, threshold=self.binarize)
        return X

    def _undecidable_advice(self) -> str:
        # binarize=None takes X as 0/1: counts make P(x_j = 1 | y) above 1, and 1 - it
        # negative (a trial's: the advice was smoothing, with alpha=1 already)
        counts, rows = getattr(self, "feature_count_", None), getattr(self, "class_count_", None)
        if self.binarize is None and counts is not None and rows is not None:
            over = np.argwhere(counts > rows[:, None])
            if len(over):
                c, j = over[0].tolist()
                names = getattr(self, "feature_names_in_", None)
                name = j if names is None else repr(str(names[j]))
                cls = self.classes_.tolist()[c]
                return (
                    f"BernoulliNB(binarize=None) reads features as 0 or 1, but feature {name} "
                    f"is present {counts[c, j]:g} times in class {cls!r}, which has "
                    f"{rows[c]:g} rows: the features are counts. Use binarize=0.0 to read any "
                    "count above 0 as present, or MultinomialNB for counts."
                )
        return super()._undecidable_advice()

    def _after_subtract(self, stats: Any) -> Any:
        # binarized rows: a feature is present in at most every row of its class (what a
        # model file must hold); more is the trace of rows never learned
        if self.binarize is not None:
            stats.check_presence()
        return stats


@P.hyperparameters
class PoissonNB(_DiscreteNB):
    """Naive Bayes with Poisson-distributed counts per feature.

    ``x_j | c ~ Poisson(lambda_jc)`` with the Gamma-prior posterior mean rate
    ``lambda_jc = (sum of x_j over class c + alpha) / (n_c + beta)``; ``alpha = beta = 0``
    is the maximum-likelihood rate. Unlike the multinomial model, the document length
    carries evidence.

    Parameters
    ----------
    alpha : float, default=1.0
        Shape of the Gamma prior: pseudo-counts added to each feature's sum.
    beta : float, default=1.0
        Rate of the Gamma prior: pseudo-rows added to each class's count.
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), default=None

    Attributes
    ----------
    rate_ : ndarray of shape (n_classes, n_features)
        The smoothed rate lambda per class and feature.

    Examples
    --------
    >>> from nbayes import PoissonNB
    >>> clf = PoissonNB().fit([[0, 3], [1, 4], [5, 0], [4, 1]], ["b", "b", "a", "a"])
    >>> clf.rate_
    array([[3.33333333, 0.66666667],
           [0.66666667, 2.66666667]])
    >>> clf.predict([[6, 0]])
    array(['a'], dtype='<U1')
    """

    _family = PoissonFamily()
    _counts_only = True
    _derivation_params = ("alpha", "beta", "fit_prior", "class_prior")
    _param_rules = {
        "alpha": [P.non_negative_real],
        "beta": [P.non_negative_real],
        "fit_prior": [P.boolean],
        "class_prior": [P.array_like, P.none],
    }

    alpha: float = 1.0
    beta: float = 1.0
    fit_prior: bool = True
    class_prior: Any = None

    rate_ = Derived("rate")

    feature_log_prob_ = Derived("log_rate", "log of ``rate_``.")


@P.hyperparameters
class CategoricalNB(_DirichletNB):
    """Naive Bayes for categorical features: integer codes (as scikit-learn) or labels.

    Drop-in for :class:`sklearn.naive_bayes.CategoricalNB` on integer-coded input
    (categories ``0 .. n - 1``). It also takes string (or other labelled) categories,
    which it learns per feature, and a category unseen in training gets the smoothed zero
    count ``alpha / (n_c + alpha·K_j)`` instead of an IndexError (with ``alpha=0``: zero).

    ``to_sklearn()`` and ``from_sklearn(model)`` convert it to and from scikit-learn's
    ``CategoricalNB`` with equal probabilities, and ``nbayes.to_onnx`` exports it (docs/interop.md).

    Parameters
    ----------
    alpha : float, default=1.0
    force_alpha : bool, default=True
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), default=None
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories per feature (integer-coded input).

    Integer codes are counted for every code from 0 to the largest, which must be at most
    ``nbayes._template.validation.MAX_CATEGORY_CODE`` (2^20 - 1; larger ones: ValueError at
    fit, pass such values as strings); a larger code at predict time is an unseen category.

    Attributes
    ----------
    category_count_ : list of ndarray of shape (n_classes, n_categories of feature j)
    categories_ : list of ndarray
        The category values of each feature, in column order.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories of feature j)
    n_categories_ : ndarray of shape (n_features,)

    Examples
    --------
    >>> from nbayes import CategoricalNB
    >>> X = [["sunny", "hot"], ["rainy", "mild"], ["sunny", "mild"], ["overcast", "hot"]]
    >>> clf = CategoricalNB().fit(X, ["no", "yes", "no", "yes"])
    >>> clf.predict([["sunny", "cold"]])  # "cold" was never seen: a smoothed zero count
    array(['no'], dtype='<U3')
    """

    _family = CategoricalFamily()
    _accept_sparse = False
    _param_rules = {
        **_DISCRETE_RULES,
        "alpha": [P.non_negative_real],
        "min_categories": [P.none, P.array_like, P.non_negative_int(1)],
    }

    alpha: float = 1.0  # a number only, as in scikit-learn (no per-feature array)
    min_categories: Any = None

    def _empty_stats(self, classes: np.ndarray, n_features: int) -> Any:
        return CategoryStats.empty(classes, n_features, self._integer_coded)

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        return CategoryStats.from_batch(
            X, y, sample_weight, self._integer_coded, self._min_categories(X.shape[1])
        )

    def _after_subtract(self, stats: Any) -> Any:
        return stats.with_min_categories(self._min_categories(stats.n_features))

    def _min_categories(self, n_features: int) -> np.ndarray | None:
        return check_min_categories(self.min_categories, n_features)

    def _check_X(self, X: Any) -> Any:
        return self._check_categorical(X, reset=False, y="no_validation")

    def _check_X_y(self, X: Any, y: Any, reset: bool) -> tuple[Any, np.ndarray]:
        return self._check_categorical(X, reset=reset, y=y)

    def _check_categorical(self, X: Any, reset: bool, y: Any) -> Any:
        check_numpy_input(X, type(self).__name__)
        fitted = None if reset else self._stats.integer_coded
        training = not (isinstance(y, str) and y == "no_validation")
        if training:
            _guards.check_int_labels(y)
        out, self._integer_coded = check_categories(self, X, y, reset, fitted)
        if training and not self._integer_coded:  # labels: stored as UTF-8
            cats = out[0]
            for j in range(cats.shape[1]):
                _guards.check_encodable(cats[:, j], f"category of column {j}")
        return out

    def _row_values(self, X: Any) -> np.ndarray:
        return np.asarray(X)[0]

    @property
    def category_count_(self) -> list[np.ndarray]:
        return [readonly(c) for c in self._stats.category_count]

    @property
    def categories_(self) -> list[np.ndarray]:
        return [readonly(c) for c in self._stats.categories]

    @property
    def n_categories_(self) -> np.ndarray:
        return np.array([c.shape[1] for c in self._stats.category_count], dtype=np.int64)

    @property
    def feature_log_prob_(self) -> list[np.ndarray]:  # type: ignore[override]
        return [readonly(f) for f in self._derived()["feature_log_prob"]]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        tags.input_tags.positive_only = True
        return tags


@P.hyperparameters
class GaussianNB(ArrayAPIOutputs, SklearnCounterpart, BaseNB):
    """Gaussian Naive Bayes: per class and feature, a normal density.

    Drop-in for :class:`sklearn.naive_bayes.GaussianNB`. The statistics are the weighted
    count, mean and sum of squared deviations per class and feature, combined across
    batches with the Chan-Golub-LeVeque update (never ``E[x^2] - mean^2``).

    ``epsilon_`` (added to every variance) is ``var_smoothing`` times the largest variance
    of a feature over every row seen so far, unweighted, as scikit-learn computes it in
    ``fit``. It is derived from the statistics, so, unlike scikit-learn's ``partial_fit``
    (which takes it from the latest batch), it does not depend on how the data was split.

    As scikit-learn's, it takes array-API inputs under
    ``sklearn.config_context(array_api_dispatch=True)`` and answers in their namespace,
    device and float dtype (float32 input: float32 answers); the statistics are float64.

    ``to_sklearn()`` and ``from_sklearn(model)`` convert it to and from scikit-learn's
    ``GaussianNB`` with equal probabilities, and ``nbayes.to_onnx`` exports it (docs/interop.md).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes; not adjusted to the data.
    var_smoothing : float, default=1e-9
        Portion of the largest variance of all features added to the variances.

    Attributes
    ----------
    class_count_, class_prior_, classes_, epsilon_, theta_, var_, n_features_in_

    Examples
    --------
    Seed 001: class + has mean 2, class - mean 5, both variance 1, equal priors.

    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> X = np.array([[1.0], [3.0], [4.0], [6.0]])
    >>> clf = GaussianNB(var_smoothing=0).fit(X, ["+", "+", "-", "-"])
    >>> clf.theta_.ravel(), clf.var_.ravel()
    (array([2., 5.]), array([1., 1.]))
    >>> clf.predict_proba([[3.0]]).round(3)
    array([[0.818, 0.182]])
    """

    _family = GaussianFamily()
    _accept_sparse = False
    _derivation_params = ("priors", "var_smoothing")
    _param_rules = {"priors": [P.array_like, P.none], "var_smoothing": [P.non_negative_real]}
    _fitted_inputs = (*BaseNB._fitted_inputs, "_output_space")

    priors: Any = None
    var_smoothing: float = 1e-9

    def _undecidable_advice(self) -> str:
        # (it said "Use smoothing (alpha > 0)": GaussianNB has no alpha; a student's trial)
        if self.var_smoothing == 0:
            return (
                "With var_smoothing=0, a feature of one value in a class has variance 0: "
                "any other value has density 0 there. Use var_smoothing > 0 (the default, "
                "1e-9) to avoid this."
            )
        return ""

    def _empty_stats(self, classes: np.ndarray, n_features: int) -> Any:
        return MomentStats.empty(classes, n_features)

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        return MomentStats.from_batch(X, y, sample_weight)

    @property
    def theta_(self) -> np.ndarray:
        """Mean of each feature per class."""
        return self._float_out(readonly(self._stats.mean))

    @property
    def var_(self) -> np.ndarray:
        """Variance of each feature per class, plus ``epsilon_``."""
        return self._float_out(readonly(self._derived()["var"]))

    @property
    def epsilon_(self) -> Any:
        """Absolute additive value to variances: a numpy scalar of the type scikit-learn's
        ``var_smoothing * variance`` has (``np.float32`` after a fit on float32 rows under
        numpy 2; numpy 1.x made it ``np.float64``)."""
        eps = np.float64(self._derived()["epsilon"])
        out = self._outputs()  # (var_'s dtype and namespace, without var_'s copy)
        if out.xp is not None:  # (another namespace's variances: the float64 itself)
            return eps
        return type(float(self.var_smoothing) * np.dtype(out.dtype).type(1.0))(eps)

    @property
    def class_prior_(self) -> np.ndarray:
        """Probability of each class."""
        return self._float_out(readonly(self._derived()["class_prior"]))

    def decision_boundary(
        self, x: Any = None, feature: int | str = 0, classes: Any = None
    ) -> np.ndarray:
        """Where two classes are equally probable along one feature: the values ``t`` of
        feature ``feature`` at which ``P(a | x) = P(b | x)``, the other features held at
        their values in the row ``x`` (not needed with one feature). Their joint
        log-likelihoods differ by a quadratic in ``t`` (linear when the two classes'
        variances are equal, to 1e-12 relative), so there are 0, 1 or 2 such values,
        returned ascending.

        Parameters
        ----------
        x : array-like of shape (n_features,), default=None
            The other features' values (the one varied is ignored); needed with more than
            one feature.
        feature : int or str, default=0
            The feature varied: its index, or its name in ``feature_names_in_``.
        classes : pair of labels, default=None
            The two classes compared; needed with more than two classes.

        Returns
        -------
        ndarray of shape (0,), (1,) or (2,)

        Examples
        --------
        Seed 001's examples: means 2 and 5 (then 0 and 4), variance 1, equal priors: the
        boundary is the midpoint.

        >>> import numpy as np
        >>> from nbayes import GaussianNB
        >>> clf = GaussianNB().fit(np.array([[1.0], [3.0], [4.0], [6.0]]), ["+", "+", "-", "-"])
        >>> clf.decision_boundary()
        array([3.5])
        >>> exercise = GaussianNB().fit(np.array([[-1.0], [1.0], [3.0], [5.0]]), list("AABB"))
        >>> exercise.decision_boundary()
        array([2.])
        """
        check_is_fitted(self)
        labels = self.classes_.tolist()
        if classes is None:
            if len(labels) != 2:
                raise ValueError(
                    f"This model has {len(labels)} classes: say which two to compare, e.g. "
                    f"classes={tuple(labels[:2])!r}."
                )
            a, b = 0, 1
        else:
            pair = list(classes)
            unknown = [c for c in pair if c not in labels]
            if len(pair) != 2 or unknown or pair[0] == pair[1]:
                raise ValueError(
                    f"classes must be two different classes of the model ({labels}); got "
                    f"{classes!r}."
                )
            a, b = labels.index(pair[0]), labels.index(pair[1])
        d = self.n_features_in_
        names = getattr(self, "feature_names_in_", None)
        if isinstance(feature, str):
            if names is None or feature not in names.tolist():
                raise ValueError(
                    f"No feature named {feature!r}: "
                    + ("the model was fitted without feature names; give its index."
                       if names is None else f"its features are {names.tolist()}.")
                )  # fmt: skip
            j = names.tolist().index(feature)
        elif isinstance(feature, int | np.integer) and not isinstance(feature, bool):
            j = int(feature)
            if not 0 <= j < d:
                raise ValueError(f"feature must be in [0, {d - 1}]; got {feature}.")
        else:
            raise TypeError(f"feature must be an index or a feature name; got {feature!r}.")
        mean = np.asarray(self._stats.mean, dtype=np.float64)
        derived = self._derived()
        var = np.asarray(derived["var"], dtype=np.float64)
        log_prior = np.log(np.asarray(derived["class_prior"], dtype=np.float64))
        others = np.zeros(2)
        if d > 1:
            if x is None:
                raise ValueError(
                    f"This model has {d} features: give a row x of their values (the "
                    f"boundary along feature {feature!r} holds the others there)."
                )
            row = np.asarray(x, dtype=np.float64).reshape(-1)
            if row.shape != (d,) or not np.isfinite(np.delete(row, j)).all():
                raise ValueError(f"x must be a row of {d} finite values; got {x!r}.")
            keep = np.arange(d) != j
            for k, c in enumerate((a, b)):
                v, m = var[c, keep], mean[c, keep]
                others[k] = -0.5 * np.sum(np.log(2 * np.pi * v) + (row[keep] - m) ** 2 / v)
        if not np.isfinite(log_prior[[a, b]]).all() or (var[[a, b], j] <= 0).any():
            return np.empty(0)  # (a class of prior 0, or a point mass: never equal)
        (ma, mb), (va, vb) = mean[[a, b], j], var[[a, b], j]
        # jll_a(t) - jll_b(t) = A t^2 + B t + C
        A = 0.5 / vb - 0.5 / va
        B = ma / va - mb / vb
        C = (log_prior[a] - log_prior[b] - 0.5 * np.log(va / vb) - 0.5 * ma * ma / va
             + 0.5 * mb * mb / vb + others[0] - others[1])  # fmt: skip
        if abs(va - vb) <= 1e-12 * max(va, vb):  # equal to rounding: linear (else a root
            # near 1e16 from the last bits of two variances computed alike)
            return np.empty(0) if B == 0 else np.array([-C / B])
        disc = B * B - 4 * A * C
        if disc < 0:
            return np.empty(0)
        if disc == 0:
            return np.array([-B / (2 * A)])
        q = -0.5 * (B + np.copysign(np.sqrt(disc), B))  # (no cancellation)
        return np.sort(np.array([q / A, C / q]))
