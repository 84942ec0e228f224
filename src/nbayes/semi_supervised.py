"""SemiSupervisedNB: Naive Bayes from labelled and unlabelled rows, by EM (Nigam et al. 2000).

The statistics of a Naive Bayes model are sums over its training rows, so a row whose class is
unknown can be counted *fractionally*: to every class ``c`` with the weight
``unlabeled_weight * P(c | x)`` the current model gives it (the E-step), and the model refitted
from the labelled counts plus these soft counts (the M-step) is the maximum a posteriori
estimate of the expected complete data. Each round can only raise the objective of Nigam,
McCallum, Thrun & Mitchell (2000, eq. 8 and 10 with EM-lambda)::

    l(theta) = log P(theta)                                       the smoothing prior
             + sum_labelled   w_i log P(y_i) P(x_i | y_i)          complete log-likelihood
             + sum_unlabelled lambda w_i log sum_c P(c) P(x_i | c)  marginal log-likelihood

and the iteration stops when it no longer rises by more than ``tol`` (relative). The result,
``estimator_``, is an ordinary fitted nbayes model of the estimator's type: it saves, loads,
explains, updates and merges like one fitted on labelled data.

How the soft counts are made, by the estimator's statistics (one place each, see
:class:`_TextCounts`, :class:`_MatrixCounts`, :class:`_RowCounts`): a
:class:`~nbayes.TextClassifier` tokenizes every document once into a document x term matrix
over the vocabulary of all the documents (labelled and unlabelled), and each M-step forms the
per-class term counts as one product ``W^T D`` (``W``: rows x classes weights); the count
models of :mod:`nbayes.naive_bayes` (per-class feature sums) do the same with their validated
input; any other nbayes model (Gaussian, categorical, kernel, mixed) is refitted through its
own ``fit`` with every unlabelled row repeated once per class and the soft counts as
``sample_weight``, which its statistics take fractionally.
"""

from __future__ import annotations

import numbers
from dataclasses import replace
from typing import Any, ClassVar, Self

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import _safe_indexing, check_consistent_length
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from . import _params as P
from ._base import BaseNB
from ._families import BernoulliFamily, CategoricalFamily, MultinomialFamily
from ._stats import CountStats, class_codes
from ._validation import check_sample_weight
from .text.classifier import TextClassifier

__all__ = ["SemiSupervisedNB", "unlabeled_mask"]


def unlabeled_mask(y: Any) -> np.ndarray:
    """Which labels mark an unlabelled row: -1 (numeric labels) or None (object labels), as
    in :mod:`sklearn.semi_supervised`; in an object array the integer -1 counts too.

    NaN is refused with advice (scikit-learn does not read it as "unlabelled" either).
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(
            f"y must be 1-D (one label per row, -1 or None for an unlabelled row); got an "
            f"array of shape {y.shape}."
        )
    kind = y.dtype.kind
    if kind in "iu":
        return np.asarray(y == -1)
    if kind == "f":
        mask = np.isnan(y)
        if mask.any():
            _refuse_nan(np.flatnonzero(mask))
        if np.isinf(y).any():
            raise ValueError(
                f"Input y contains infinity or a value too large for dtype({y.dtype.name!r})."
            )
        return np.asarray(y == -1)
    if kind == "O":
        values = y.tolist()
        nan = [i for i, v in enumerate(values) if isinstance(v, float) and v != v]
        if nan:
            _refuse_nan(np.asarray(nan))
        return np.array(
            [v is None or (_is_number(v) and v == -1) for v in values], dtype=bool
        ).reshape(len(values))
    return np.zeros(len(y), dtype=bool)  # strings, booleans: every row is labelled


def _indexable(X: Any) -> Any:
    """X in a form whose rows can be taken (an object with ``__array__`` becomes an array)."""
    if sp.issparse(X):
        return X.tocsr()  # COO and DIA matrices have no rows to take
    if hasattr(X, "iloc") or isinstance(X, list | np.ndarray):
        return X
    return np.asarray(X)


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)


def _refuse_nan(rows: np.ndarray) -> None:
    raise ValueError(
        f"Input y contains NaN (row(s) {rows[:5].tolist()}): mark an unlabelled row with "
        "-1 (numeric labels) or None (object labels), as scikit-learn's semi_supervised "
        "module does."
    )


_RULES: dict[str, list[P.Rule]] = {
    "max_iter": [P.non_negative_int(0)],
    "unlabeled_weight": [P.non_negative_real],
    "tol": [P.non_negative_real],
    "verbose": [P.boolean],
}


class SemiSupervisedNB(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Semi-supervised Naive Bayes: EM over the unlabelled rows (Nigam et al. 2000).

    Rows labelled -1 (numeric labels) or None (object labels) are unlabelled, as in
    :mod:`sklearn.semi_supervised`. The estimator is first fitted on the labelled rows; then
    each iteration gives every unlabelled row to every class ``c`` with weight
    ``unlabeled_weight * P(c | x)`` (E-step) and refits from the labelled counts plus these
    soft counts (M-step), until the log-likelihood (with the smoothing prior) stops rising.

    Parameters
    ----------
    estimator : nbayes estimator, default=None
        The model to train: any nbayes estimator (:class:`~nbayes.TextClassifier` -- the
        default --, :class:`~nbayes.MultinomialNB`, :class:`~nbayes.GaussianNB`, ...). Its
        settings (``alpha``, the vocabulary pruning, ...) are used as they are.
    max_iter : int, default=50
        The most EM iterations (M-steps with the unlabelled rows); 0 fits the labelled
        rows only.
    unlabeled_weight : float, default=1.0
        Weight of an unlabelled row relative to a labelled one (Nigam et al.'s lambda,
        "EM-lambda"): below 1 when the unlabelled rows outnumber the labelled ones by so
        much that they would swamp them. 0 ignores them.
    tol : float, default=1e-4
        Stop when an iteration raises the log-likelihood by less than ``tol`` times its
        magnitude.
    verbose : bool, default=False
        Print the log-likelihood of every iteration.

    Attributes
    ----------
    estimator_ : nbayes estimator
        The fitted model, an ordinary instance of the estimator's type: ``nbayes.save``,
        ``nbayes.load``, ``explain``, ``update`` and ``merge`` take it. Its statistics are the
        labelled counts plus the soft counts of the last M-step (fractional class and
        feature counts).
    classes_ : ndarray of shape (n_classes,)
        The classes of the labelled rows.
    log_likelihood_ : ndarray of shape (n_iter_ + 1,)
        The objective after each M-step: the model of the labelled rows first, then every
        EM iteration (log prior of the parameters + labelled complete log-likelihood +
        weighted unlabelled marginal log-likelihood, up to terms that do not depend on the
        parameters, such as the multinomial coefficient of a document). After
        ``termination_condition_ == "decreased"`` the last entry is the discarded iteration's.
    n_iter_ : int
        EM iterations run.
    termination_condition_ : {"converged", "max_iter", "decreased", "no_unlabeled"}
        Why the iteration stopped. "decreased": the last iteration lowered the objective
        (possible only for a model that is not a generative likelihood, such as complement
        NB, or by rounding); its result is discarded and the model before it kept.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training row: the given one, or the class the final model gives
        an unlabelled row.

    Notes
    -----
    The objective is a likelihood, and never falls, for the generative families
    (multinomial, Bernoulli, categorical, Poisson, Gaussian, kernel densities); the prior
    ``log P(theta)`` is the Dirichlet prior that additive smoothing ``alpha`` stands for
    (multinomial, Bernoulli, categorical) and 0 for the others (a maximum-likelihood fit).
    Complement NB is not a generative model: it is trained by the same iteration, which stops
    at the first fall. For a :class:`~nbayes.TextClassifier` the vocabulary (and the document
    frequencies that ``min_df``/``max_df``/``max_features`` read) is that of all the
    documents, labelled or not, as in the paper.

    References
    ----------
    K. Nigam, A. McCallum, S. Thrun and T. Mitchell, "Text Classification from Labeled and
    Unlabeled Documents using EM", Machine Learning 39, 103-134 (2000).

    Examples
    --------
    >>> from nbayes import SemiSupervisedNB, TextClassifier
    >>> docs = ["free money now", "meeting at noon", "win free money", "lunch meeting today",
    ...         "free win now", "noon lunch"]
    >>> y = ["spam", "ham", None, None, None, None]
    >>> semi = SemiSupervisedNB(TextClassifier()).fit(docs, y)
    >>> semi.predict(["free lunch money", "meeting today"])
    array(['spam', 'ham'], dtype=object)
    >>> semi.transduction_.tolist()
    ['spam', 'ham', 'spam', 'ham', 'spam', 'ham']
    >>> type(semi.estimator_).__name__  # an ordinary model: save, explain, update
    'TextClassifier'
    """

    _param_rules: ClassVar[dict[str, list[P.Rule]]] = _RULES

    def __init__(
        self,
        estimator: Any = None,
        *,
        max_iter: int = 50,
        unlabeled_weight: float = 1.0,
        tol: float = 1e-4,
        verbose: bool = False,
    ) -> None:
        self.estimator = estimator
        self.max_iter = max_iter
        self.unlabeled_weight = unlabeled_weight
        self.tol = tol
        self.verbose = verbose

    # ---------------------------------------------------------------- settings
    def _base_estimator(self) -> BaseNB:
        estimator = TextClassifier() if self.estimator is None else self.estimator
        if not isinstance(estimator, BaseNB):
            hint = ""
            module = type(estimator).__module__
            if module.startswith("sklearn.naive_bayes"):
                hint = (
                    f" nbayes.{type(estimator).__name__} is its drop-in replacement and keeps "
                    "the statistics EM needs."
                )
            raise TypeError(
                "The 'estimator' parameter of SemiSupervisedNB must be an nbayes estimator "
                "(TextClassifier(), MultinomialNB(), GaussianNB(), ...): EM refits it from "
                f"soft counts of its statistics. Got {estimator!r} instead.{hint}"
            )
        return estimator

    def _counts_for(self, estimator: BaseNB) -> type[_Counts]:
        if isinstance(estimator, TextClassifier):
            return _TextCounts
        own = type(estimator)
        if all(
            getattr(own, hook) is getattr(BaseNB, hook)
            for hook in ("_batch", "_batch_stats", "_empty_stats", "_fit_stats")
        ):
            return _MatrixCounts  # per-class feature sums of the validated input
        return _RowCounts

    # -------------------------------------------------------------- training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Fit by EM on labelled rows and unlabelled ones (label -1 or None).

        Parameters
        ----------
        X : documents (TextClassifier), array-like, sparse matrix or table
            Every training row, labelled or not, in the form the estimator takes.
        y : array-like of shape (n_samples,)
            The labels; -1 (numeric labels) or None (object labels) for an unlabelled row.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row (an unlabelled row's soft counts are multiplied by it too).

        Returns
        -------
        self : object
        """
        P.validate(self, self._param_rules)
        estimator = self._base_estimator()
        if y is None:
            raise ValueError(
                "SemiSupervisedNB requires y to be passed, but the target y is None: give "
                "every row a label, -1 or None for the unlabelled ones."
            )
        y = column_or_1d(y, warn=True)
        if not isinstance(estimator, TextClassifier):
            X = _indexable(X)
            check_consistent_length(X, y, sample_weight)
        unlabeled = unlabeled_mask(y)
        n = len(y)
        if unlabeled.all():
            raise ValueError(
                f"Every one of the {n} labels is -1 or None (unlabelled): EM starts from a "
                "model of the labelled rows; label at least one row of every class."
            )
        check_classification_targets(y[~unlabeled])
        classes, codes = class_codes(y[~unlabeled])
        sw = check_sample_weight(sample_weight, n)
        weights = np.zeros((n, len(classes)))
        labeled_rows = np.flatnonzero(~unlabeled)
        weights[labeled_rows, codes] = sw[labeled_rows]
        unlabeled_rows = np.flatnonzero(unlabeled)
        unlabeled_sw = self.unlabeled_weight * sw[unlabeled_rows]

        counts = self._counts_for(estimator)(estimator, X, classes)
        model = counts.fit(weights)
        jll = counts.joint_log_likelihood(model)
        score = _objective(model, jll, weights, labeled_rows, codes, unlabeled_rows, unlabeled_sw)
        history = [score]
        self._say(0, score)
        condition = "max_iter"
        if unlabeled_rows.size == 0 or self.unlabeled_weight == 0:
            condition = "no_unlabeled"
        else:
            for iteration in range(1, self.max_iter + 1):
                # E-step: every unlabelled row to every class, by the posterior
                posterior = np.exp(
                    jll[unlabeled_rows] - logsumexp(jll[unlabeled_rows], axis=1, keepdims=True)
                )
                weights[unlabeled_rows] = unlabeled_sw[:, None] * posterior
                # M-step: the labelled counts plus the soft counts
                new_model = counts.fit(weights)
                new_jll = counts.joint_log_likelihood(new_model)
                new_score = _objective(new_model, new_jll, weights, labeled_rows, codes,
                                       unlabeled_rows, unlabeled_sw)  # fmt: skip
                history.append(new_score)
                self._say(iteration, new_score)
                if new_score < score - 1e-12 * abs(score):  # more than rounding
                    condition = "decreased"
                    break
                model, jll, gain, score = new_model, new_jll, new_score - score, new_score
                if gain <= self.tol * abs(score):
                    condition = "converged"
                    break
        self.estimator_ = model
        self.log_likelihood_ = np.asarray(history)
        self.n_iter_ = len(history) - 1
        self.termination_condition_ = condition
        transduction = np.asarray(y, dtype=object).copy() if y.dtype.kind == "O" else y.copy()
        if unlabeled_rows.size:
            transduction[unlabeled_rows] = model.classes_[jll[unlabeled_rows].argmax(axis=1)]
        self.transduction_ = transduction
        return self

    def _say(self, iteration: int, score: float) -> None:
        if self.verbose:
            print(f"SemiSupervisedNB iteration {iteration}: log-likelihood {score:.6f}")

    # ------------------------------------------------------------ prediction
    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row (the fitted model's)."""
        check_is_fitted(self)
        return np.asarray(self.estimator_.predict(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        check_is_fitted(self)
        return np.asarray(self.estimator_.predict_proba(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Log class probabilities, columns in the order of ``classes_``."""
        check_is_fitted(self)
        return np.asarray(self.estimator_.predict_log_proba(X))

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """Joint log-probabilities ``log P(x, c)``, columns in the order of ``classes_``."""
        check_is_fitted(self)
        return np.asarray(self.estimator_.predict_joint_log_proba(X))

    def explain(self, x: Any, **kw: Any) -> Any:
        """The fitted model's explanation of one row (see the estimator's ``explain``)."""
        check_is_fitted(self)
        return self.estimator_.explain(x, **kw)

    @property
    def classes_(self) -> np.ndarray:
        """The classes of the labelled rows (sorted)."""
        check_is_fitted(self)
        return np.asarray(self.estimator_.classes_)

    @property
    def n_features_in_(self) -> int:
        """Number of features of the fitted model (models of a table or a matrix)."""
        check_is_fitted(self)
        return int(self.estimator_.n_features_in_)

    @property
    def feature_names_in_(self) -> np.ndarray:
        """The column names of the training table, when it had them."""
        check_is_fitted(self)
        return np.asarray(self.estimator_.feature_names_in_)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "estimator_")

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        estimator = TextClassifier() if self.estimator is None else self.estimator
        if isinstance(estimator, BaseNB):
            tags.input_tags = estimator.__sklearn_tags__().input_tags
        tags.classifier_tags.poor_score = True
        return tags


def _objective(
    model: BaseNB,
    jll: np.ndarray,
    weights: np.ndarray,
    labeled_rows: np.ndarray,
    codes: np.ndarray,
    unlabeled_rows: np.ndarray,
    unlabeled_sw: np.ndarray,
) -> float:
    """Nigam et al.'s log-likelihood of the model on the data (eq. 10 with EM-lambda)."""
    labeled = jll[labeled_rows, codes]
    w = weights[labeled_rows, codes]
    total = float(np.dot(w[w > 0], labeled[w > 0])) if labeled.size else 0.0
    if unlabeled_rows.size:
        marginal = logsumexp(jll[unlabeled_rows], axis=1)
        keep = unlabeled_sw > 0
        total += float(np.dot(unlabeled_sw[keep], marginal[keep]))
    return total + _log_prior(model)


def _log_prior(model: BaseNB) -> float:
    """``log P(theta)`` (up to a constant) of the Dirichlet prior that additive smoothing
    ``alpha`` is the MAP estimate under; 0 for maximum-likelihood families."""
    family = model._family
    if not isinstance(family, MultinomialFamily | BernoulliFamily | CategoricalFamily):
        return 0.0
    d = model._family_view()[0]
    alpha = np.asarray(d["alpha"], dtype=np.float64)
    if isinstance(family, CategoricalFamily):  # one alpha for every feature
        return float(alpha * sum(f.sum() for f in d["feature_log_prob"])) if alpha > 0 else 0.0
    flp = np.asarray(d["feature_log_prob"])
    if isinstance(family, BernoulliFamily):
        flp = flp + np.asarray(d["neg_log_prob"])
    if alpha.ndim == 0:
        return float(alpha * flp.sum()) if alpha > 0 else 0.0
    smoothed = alpha > 0  # an unsmoothed feature (alpha 0) may have log 0 = -inf: no prior
    return float((flp[:, smoothed] * alpha[smoothed]).sum())


# ------------------------------------------------------------ soft counts
class _Counts:
    """How a model is refitted from a rows x classes weight matrix, and scores every row.

    ``fit(W)`` returns a fitted model whose statistics are those of every row ``i`` counted
    into class ``c`` with weight ``W[i, c]`` (a labelled row: its class only); the model is
    the same as ``fit`` on the rows repeated per class with these sample weights.
    """

    def __init__(self, estimator: BaseNB, X: Any, classes: np.ndarray) -> None:
        self.estimator = estimator
        self.classes = classes

    def fit(self, weights: np.ndarray) -> Any:
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
        """``W^T X`` as a dense (classes x columns) float64 table."""
        return np.ascontiguousarray(np.asarray(self.XT @ weights, dtype=np.float64).T)


class _TextCounts(_Counts):
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
        self.corpus = counter._stats
        D = counter.transform(X).tocsr()
        kept = np.asarray(counter._derived()["kept"])
        n_columns = self.corpus.counts.n_features
        if len(kept) != n_columns or (np.diff(kept) != 1).any():  # hash buckets: seen ones
            D = sp.csr_matrix((D.data, kept[D.indices], D.indptr), shape=(D.shape[0], n_columns))
        self.D = D.astype(np.float64)
        self.sums = _Transposed(self.D)
        self._kept: tuple[np.ndarray, Any] | None = None

    def fit(self, weights: np.ndarray) -> Any:
        counts = CountStats(self.classes, weights.sum(axis=0), self.sums.weighted_sums(weights))
        stats = replace(self.corpus, counts=counts).with_vocabulary(self.corpus.vocabulary)
        model = clone(self.estimator)
        model._set_stats(stats)
        return model

    def joint_log_likelihood(self, model: Any) -> np.ndarray:
        kept = np.asarray(model._derived()["kept"])
        if self._kept is None or not np.array_equal(self._kept[0], kept):
            self._kept = (kept, self.D[:, kept])  # the kept columns are the same every time
        d, _ = model._family_view()
        return np.asarray(model._family.joint_log_likelihood(d, self._kept[1]))


class _MatrixCounts(_Counts):
    """A model whose statistics are per-class feature sums (CountStats): the input is
    validated (and transformed, e.g. binarized) once, the M-step is ``W^T X``."""

    def __init__(self, estimator: BaseNB, X: Any, classes: np.ndarray) -> None:
        super().__init__(estimator, X, classes)
        self.template = clone(estimator)
        self.template._check_params()
        y_any = np.zeros(X.shape[0] if hasattr(X, "shape") else len(X), dtype=np.int64)
        self.X, _ = self.template._check_X_y(X, y_any, reset=True)
        self.sums = _Transposed(self.X)

    def fit(self, weights: np.ndarray) -> Any:
        model = clone(self.estimator)
        for name in model._fitted_inputs:
            if hasattr(self.template, name):
                setattr(model, name, getattr(self.template, name))
        stats = CountStats(self.classes, weights.sum(axis=0), self.sums.weighted_sums(weights))
        model._set_stats(stats)
        model._check_derivation()
        return model

    def joint_log_likelihood(self, model: Any) -> np.ndarray:
        return np.asarray(model._joint_log_likelihood(self.X))


class _RowCounts(_Counts):
    """Any other nbayes model: its own ``fit`` on every row repeated once per class it has a
    non-zero weight for, the weights as ``sample_weight``."""

    def __init__(self, estimator: BaseNB, X: Any, classes: np.ndarray) -> None:
        super().__init__(estimator, X, classes)
        self.X = X

    def fit(self, weights: np.ndarray) -> Any:
        present = weights.copy()
        # every row is passed at least once (with weight 0 before the first E-step), so that
        # what a model reads from all its input (categories, variance of the data) is the
        # same at every step
        present[~(weights > 0).any(axis=1), 0] = np.inf
        codes, rows = np.nonzero(present.T)  # class by class: (class, row) pairs
        sw = np.where(np.isinf(present[rows, codes]), 0.0, present[rows, codes])
        X = _safe_indexing(self.X, rows)
        return clone(self.estimator).fit(X, self.classes[codes], sample_weight=sw)

    def joint_log_likelihood(self, model: Any) -> np.ndarray:
        return np.asarray(model.predict_joint_log_proba(self.X))
