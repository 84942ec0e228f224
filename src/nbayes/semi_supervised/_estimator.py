"""The estimator :class:`SemiSupervisedNB`: its parameters, ``fit`` (settings chosen by
:mod:`._selection`, EM by :mod:`._em` on the soft counts of :mod:`._counts`) and prediction
through the fitted ``estimator_``."""

from __future__ import annotations

import dataclasses
import math
import warnings
from numbers import Integral, Real
from typing import Any, ClassVar, Self

import numpy as np
from sklearn.utils import check_consistent_length
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._statistics import class_codes
from .._template import params as P
from .._template.base import BaseNB
from .._template.sklearn_bases import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from .._template.validation import check_sample_weight
from ..exceptions import NBayesWarning
from ..text.classifier import TextClassifier
from ._counts import counts_for
from ._em import Rows, run_em, swamped
from ._labels import indexable, unlabeled_mask
from ._selection import (
    WEIGHTS,
    Candidate,
    alpha_grid,
    candidates,
    cross_validate,
    n_splits,
    temperatures,
)

__all__ = ["EMWarning", "SemiSupervisedNB"]


class EMWarning(NBayesWarning):
    """EM did worse than the labelled rows alone: its model lost the labels it was given (a
    collapse), or a weight you gave scored below the supervised model by cross-validation."""


def _setting(candidate: Candidate) -> str:
    """A candidate's settings as keyword arguments, for a message."""
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v!r}"
                     for k, v in candidate.as_dict().items())  # fmt: skip


def _is_auto(v: Any) -> bool:
    return isinstance(v, str) and v == "auto"


def _is_cv(v: Any) -> bool:
    if isinstance(v, Integral) and not isinstance(v, bool):
        return int(v) >= 2
    if hasattr(v, "split") and hasattr(v, "get_n_splits"):
        return True
    return hasattr(v, "__iter__") and not isinstance(v, str | bytes | dict)


_RULES: dict[str, list[P.Rule]] = {
    "max_iter": [P.non_negative_int(0)],
    "unlabeled_weight": [
        P.Rule(_is_auto, "'auto'"),
        P.non_negative_real,  # finite: a weight of inf would make soft counts of inf
    ],
    "alphas": [P.Rule(_is_auto, "'auto'"), P.none, P.array_like],
    "temperature": [
        P.Rule(_is_auto, "'auto'"),
        P.Rule(
            lambda v: (
                isinstance(v, Real) and not isinstance(v, bool) and 1 <= float(v) < math.inf
            ),  # inf: an objective of inf at every iteration
            "a float in the range [1, inf)",
            "a number >= 1",
        ),
    ],
    "balance": [P.boolean, P.array_like],
    "cv": [
        P.Rule(
            _is_cv,
            "an int in the range [2, inf), a cross-validation splitter or an iterable of "
            "(train, test) splits",
        )
    ],
    "tol": [P.non_negative_real],
    "verbose": [P.boolean],
}


@P.hyperparameters
class SemiSupervisedNB(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Semi-supervised Naive Bayes: EM over the unlabelled rows (Nigam et al. 2000).

    Rows labelled -1 (numeric labels) or None (object labels) are unlabelled, as in
    :mod:`sklearn.semi_supervised`. The estimator is first fitted on the labelled rows; then
    each iteration gives every unlabelled row to every class ``c`` with weight
    ``unlabeled_weight * r_c`` (E-step) and refits from the labelled counts plus these
    soft counts (M-step), until the objective (the log-likelihood with the smoothing prior)
    stops rising. ``r`` is the posterior ``P(c | x)`` tempered, ``P(c | x)^(1/T)``
    renormalised (``temperature``), and balanced: the unlabelled rows' weights sum, class by
    class, to the class proportions of the labelled rows (``balance``). By default the
    weight, the temperature and the smoothing ``alpha`` (of the estimators whose ``alpha``
    is additive smoothing, TextClassifier, MultinomialNB, BernoulliNB, ComplementNB and
    CategoricalNB, when you leave it at its default) are chosen by cross-validation on the
    labelled rows only, the same whether you pass the estimator or leave the default
    ``TextClassifier()``, and EM is used only if it beats the
    supervised model there: ``SemiSupervisedNB().fit(docs, labels_with_none)`` and
    ``SemiSupervisedNB(TextClassifier(stop_words="english")).fit(...)`` are at least the
    supervised model by that measure. Settings you fix are kept; EM that did worse than the
    labelled rows alone is reported by an :class:`EMWarning` (a weight you gave that loses
    to the supervised model in that cross-validation, or a model that lost the labels it was
    given: a collapse).

    Parameters
    ----------
    estimator : nbayes estimator, default=None
        The model to train: any nbayes estimator (:class:`~nbayes.TextClassifier`,
        :class:`~nbayes.MultinomialNB`, :class:`~nbayes.GaussianNB`, ...). Its settings
        (the vocabulary pruning, ...) are used as they are; so is ``alpha`` if you set it
        (``alphas`` tells which alphas are tried). None: ``TextClassifier()``, the same as
        passing it: its ``alpha`` is chosen by cross-validation with the weight (EM wants
        much less smoothing than TextClassifier's default ``alpha=1``, with which it
        collapses on 20 Newsgroups).
    max_iter : int, default=50
        The most EM iterations (M-steps with the unlabelled rows); 0 fits the labelled
        rows only.
    unlabeled_weight : float or "auto", default="auto"
        Weight of an unlabelled row relative to a labelled one (Nigam et al.'s lambda,
        "EM-lambda"): below 1 when the unlabelled rows outnumber the labelled ones by so
        much that they would swamp them. 0 ignores them. "auto": chosen among 0, 0.1, 0.3
        and 1 by cross-validation on the labelled rows only (``cv``): each fold's labels are
        hidden too, EM runs on the rest and the fold is scored by the class EM gives its
        rows. 0 -- the supervised model of the labelled rows -- wins ties, so EM is used only
        when it beats the supervised model by this cross-validation. With a TextClassifier
        of the default alpha the candidates are alpha 0.01, 0.03, 0.1, 0.3, 1 for the
        supervised model and alpha 0.01 with each weight above 0 (and each ``temperature``; 11
        candidates, 18 EM runs in a 3-fold cross-validation). A weight you give is kept; if
        the cross-validation runs (for ``temperature`` or ``alphas``) it scores the
        supervised model too, and an :class:`EMWarning` says when EM with your weight is the
        worse there. With too few labelled rows to cross-validate (one in some class) the
        weight is 1 and the estimator's alpha is used (Nigam et al.'s basic EM).
    alphas : "auto", array-like or None, default="auto"
        The estimator's ``alpha`` values the cross-validation tries with each weight.
        "auto": for an estimator whose ``alpha`` is additive smoothing (TextClassifier,
        MultinomialNB, BernoulliNB, ComplementNB, CategoricalNB; passed or the default)
        and left at its default, 0.01, 0.03, 0.1, 0.3 and 1 for the supervised model and
        0.01 with EM (the unlabelled rows' soft counts are most of the counts: EM wants
        little smoothing); an alpha you set (``TextClassifier(alpha=0.05)``), or that of
        any other estimator (PoissonNB's is a gamma prior), is kept.
        A list: those values, for any estimator with an ``alpha`` (e.g.
        ``SemiSupervisedNB(TextClassifier(stop_words="english"), alphas=[0.01, 0.03])``);
        None: the estimator's own alpha, kept.
    temperature : float >= 1 or "auto", default="auto"
        The E-step gives an unlabelled row to class ``c`` in proportion to
        ``P(c | x)^(1/temperature)``: 1 is the posterior itself (Nigam et al.'s EM); above 1
        the weights are softer. A document of a few hundred tokens has a posterior of 0s and
        1s, so EM with temperature 1 commits every unlabelled document to one class from the
        first iteration on and reinforces the labelled model's mistakes; a temperature of
        10-30 lets the unlabelled documents shape the classes gradually (deterministic
        annealing, Ueda & Nakano 1998, at a fixed temperature). "auto": chosen by the
        cross-validation with the weight, among 10 and 30 with a TextClassifier (documents)
        and among 1, 10 and 30 with any other estimator; 1 when there are too few labelled
        rows to cross-validate.
    balance : bool or array-like of shape (n_classes,), default=True
        Constrain the E-step so that the unlabelled rows' weights sum, class by class, to
        the class proportions of the labelled rows (weighted by ``sample_weight``): class
        mass normalisation (Zhu, Ghahramani & Lafferty 2003), found by Sinkhorn's scaling
        of the classes; each row's weights still sum to 1. Without it one class of broad
        vocabulary draws in the unlabelled documents of its neighbours (on 20 Newsgroups
        with 20 labelled documents per class, EM gave one class twice its share and
        another almost none). True assumes what the supervised model's class prior
        assumes too: that the labelled rows are in the proportions of the unlabelled ones.
        If you labelled as many rows of every class of imbalanced data (10 spam and 10 ham
        of a mailbox of 13 % spam), give the proportions you expect (``balance=[0.87,
        0.13]``, in the order of ``classes_``) or False (EM then estimates them: the
        tempered posterior as it is).
    cv : int or cross-validation splitter, default=3
        The folds of the labelled rows that choose the settings (``unlabeled_weight="auto"``,
        ``temperature="auto"`` or ``alphas``): an int is a ``StratifiedKFold`` of that many
        folds (fewer when a class has fewer labelled rows); or a scikit-learn splitter, or an
        iterable of (train, test) index arrays, both over the labelled rows (in their order).
    tol : float, default=1e-4
        Stop when an iteration raises the log-likelihood by less than ``tol`` times its
        magnitude. The cross-validation's EM runs stop at ``max(tol, 1e-3)``: they only
        rank the settings.
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
    unlabeled_weight_ : float
        The weight of the unlabelled rows EM ran with (the chosen one, for "auto"; 0: the
        supervised model was the better by cross-validation). The alpha it ran with is
        ``estimator_.alpha``.
    temperature_ : float
        The E-step temperature EM ran with (the chosen one, for "auto"; when the
        supervised model was kept, ``unlabeled_weight_ == 0``, the one given, 1 for "auto").
    cv_results_ : dict or None
        The cross-validation that chose the settings, as scikit-learn's searches report
        it: ``params`` (each candidate's ``unlabeled_weight``, ``temperature`` -- not for
        the supervised candidate, weight 0 -- and estimator parameters),
        ``mean_test_score`` and ``split<k>_test_score`` (weighted accuracy of the held-out
        labelled rows); None when nothing was chosen.
    log_likelihood_ : ndarray of shape (n_iter_ + 1,)
        The objective after each M-step: the model of the labelled rows first, then every
        EM iteration (log prior of the parameters + labelled complete log-likelihood +
        weighted unlabelled marginal log-likelihood, up to terms that do not depend on the
        parameters, such as the multinomial coefficient of a document). With a temperature
        ``T`` or ``balance`` the unlabelled term is the free energy EM raises: for every
        unlabelled row the largest ``sum_c r_c log P(x, c) + T H(r)`` over the weights
        ``r`` the E-step may give it (``H``: entropy; the marginal log-likelihood for
        ``T = 1`` without balance). After
        ``termination_condition_ == "decreased"`` the last entry is the discarded iteration's.
    n_iter_ : int
        EM iterations run.
    termination_condition_ : {"converged", "max_iter", "decreased", "no_unlabeled", "supervised"}
        Why the iteration stopped. "decreased": the last iteration lowered the objective
        (possible for a model whose refit from weights is not a maximum-likelihood step,
        such as complement NB or kernel densities, or by rounding); its result is discarded
        and the model before it kept. "no_unlabeled": every row is labelled.
        "supervised": the unlabelled rows' weight is 0 (given, or chosen by the
        cross-validation because EM did not help): the model of the labelled rows.
    transduction_ : ndarray of shape (n_samples,)
        The label of every training row: the given one, or the class the final model gives
        an unlabelled row.

    Notes
    -----
    The objective is a likelihood, and never falls, for the families whose refit from
    weights maximises it (multinomial, Bernoulli, categorical, Poisson, Gaussian); the prior
    ``log P(theta)`` is the Dirichlet prior that additive smoothing ``alpha`` stands for
    (multinomial, Bernoulli, categorical) and 0 for the others (a maximum-likelihood fit).
    Complement NB (not a generative model) and kernel densities (a density refitted from
    weights is not a maximum-likelihood step) are trained by the same iteration, which stops
    at the first fall. For a :class:`~nbayes.TextClassifier` the vocabulary (and the document
    frequencies that ``min_df``/``max_df``/``max_features`` read) is that of all the
    documents, labelled or not, as in the paper.

    References
    ----------
    K. Nigam, A. McCallum, S. Thrun and T. Mitchell, "Text Classification from Labeled and
    Unlabeled Documents using EM", Machine Learning 39, 103-134 (2000).

    N. Ueda and R. Nakano, "Deterministic annealing EM algorithm", Neural Networks 11,
    271-282 (1998).

    X. Zhu, Z. Ghahramani and J. Lafferty, "Semi-Supervised Learning Using Gaussian Fields
    and Harmonic Functions", ICML 2003 (class mass normalisation).

    Examples
    --------
    >>> from nbayes import SemiSupervisedNB, TextClassifier
    >>> docs = ["free money now", "meeting at noon", "win free money", "lunch meeting today",
    ...         "free win now", "noon lunch"]
    >>> y = ["spam", "ham", None, None, None, None]
    >>> semi = SemiSupervisedNB(TextClassifier(), unlabeled_weight=1.0).fit(docs, y)
    >>> semi.predict(["free lunch money", "meeting today"])
    array(['spam', 'ham'], dtype='<U4')
    >>> semi.transduction_.tolist()
    ['spam', 'ham', 'spam', 'ham', 'spam', 'ham']
    >>> type(semi.estimator_).__name__  # an ordinary model: save, explain, update
    'TextClassifier'
    """

    _param_rules: ClassVar[dict[str, list[P.Rule]]] = _RULES

    estimator: Any = dataclasses.field(default=None, kw_only=False)
    max_iter: int = 50
    unlabeled_weight: float | str = "auto"
    alphas: Any = "auto"
    temperature: float | str = "auto"
    balance: Any = True
    cv: Any = 3
    tol: float = 1e-4
    verbose: bool = False

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
        alphas = self._alpha_grid(estimator)
        y = column_or_1d(y, warn=True)
        if not isinstance(estimator, TextClassifier):
            X = indexable(X)
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
        rows = Rows(weights, labeled_rows, codes, unlabeled_rows, sw[unlabeled_rows])
        balance = self._balance_target(classes)
        counts = counts_for(estimator)(estimator, X, classes)

        best, cv_results = self._choose(estimator, counts, rows, alphas, balance)
        weight, temperature = best.unlabeled_weight, best.temperature
        if weight == 0:  # no E-step: the temperature given (1 for "auto")
            temperature = 1.0 if _is_auto(self.temperature) else float(self.temperature)
        result = run_em(counts, rows, weight, self.max_iter, self.tol, best.params, self._say,
                        temperature=temperature, balance=balance)  # fmt: skip
        collapse = swamped(result, rows)
        if collapse is not None:
            lost, before, after = collapse
            alpha = result.model.get_params(deep=False).get("alpha")
            warnings.warn(
                f"EM collapsed: its model misclassifies {lost:.0%} of the labelled rows that "
                f"the model of the labelled rows alone classifies right (accuracy on them "
                f"{after:.3f}, against {before:.3f}); the unlabelled rows' soft counts swamped "
                f"the labels (unlabeled_weight={weight:g}, temperature={temperature:g}"
                + ("" if alpha is None else f", alpha={alpha!r}")
                + "). Give a smaller unlabeled_weight, a smaller alpha (text: 0.01), "
                "balance=True, or leave unlabeled_weight='auto', which keeps the supervised "
                "model when EM does not beat it.",
                EMWarning,
                stacklevel=2,
            )
        self.unlabeled_weight_ = weight
        self.temperature_ = temperature
        self.cv_results_ = cv_results
        self.estimator_ = model = result.model
        self.log_likelihood_ = np.asarray(result.history)
        self.n_iter_ = len(result.history) - 1
        self.termination_condition_ = result.condition
        transduction = np.asarray(y, dtype=object).copy() if y.dtype.kind == "O" else y.copy()
        if unlabeled_rows.size:
            jll = result.jll[unlabeled_rows]
            transduction[unlabeled_rows] = model.classes_[jll.argmax(axis=1)]
        self.transduction_ = transduction
        return self

    def _alpha_grid(self, estimator: BaseNB) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
        """The alphas the CV tries (supervised, with EM), None: the estimator's own."""
        if isinstance(self.alphas, str):  # "auto": by the estimator's kind, passed or not
            return alpha_grid(estimator)
        if self.alphas is None:
            return None
        values = np.asarray(self.alphas, dtype=np.float64).ravel()
        if values.size == 0 or not np.isfinite(values).all() or (values < 0).any():
            raise ValueError(
                f"alphas={self.alphas!r}: give a non-empty list of finite alpha values >= 0 "
                "to try by cross-validation, 'auto' or None (the estimator's own alpha)."
            )
        if "alpha" not in estimator.get_params(deep=False):
            raise ValueError(
                f"alphas={self.alphas!r} needs an estimator with an 'alpha' parameter; "
                f"{type(estimator).__name__} has none: pass alphas=None."
            )
        grid = tuple(float(a) for a in values)
        return grid, grid

    def _balance_target(self, classes: np.ndarray) -> bool | np.ndarray:
        """``balance`` as run_em takes it: a bool, or the class proportions asked for."""
        if isinstance(self.balance, bool | np.bool_):
            return bool(self.balance)
        target = np.asarray(self.balance, dtype=np.float64).ravel()
        if (
            target.shape != (len(classes),)
            or not np.isfinite(target).all()
            or (target < 0).any()
            or target.sum() <= 0
        ):
            raise ValueError(
                f"balance={self.balance!r}: give True (the labelled rows' class proportions), "
                f"False, or the class proportions you expect of the unlabelled rows, one "
                f"non-negative number per class in the order of classes_ "
                f"{classes.tolist()!r} ({len(classes)} numbers, not all 0)."
            )
        return target / target.sum()

    def _choose(
        self,
        estimator: BaseNB,
        counts: Any,
        rows: Rows,
        alphas: tuple[tuple[Any, ...], tuple[Any, ...]] | None,
        balance: bool | np.ndarray,
    ) -> tuple[Candidate, dict[str, Any] | None]:
        """The setting to fit with (``unlabeled_weight``, temperature, the estimator's
        parameters), and the cross-validation's scores (None when nothing was chosen).

        A weight you give is kept, but when the cross-validation runs (for the temperature
        or alpha) it scores the supervised model too, and warns if EM with your weight is
        the worse by that measure."""
        auto = _is_auto(self.unlabeled_weight)
        auto_t = _is_auto(self.temperature)
        fixed = Candidate(
            1.0 if auto else float(self.unlabeled_weight), {},
            1.0 if auto_t else float(self.temperature),
        )  # fmt: skip
        searched = auto or alphas or (auto_t and fixed.unlabeled_weight > 0)
        if not searched or rows.unlabeled.size == 0:
            return fixed, None
        if isinstance(self.cv, Integral) and n_splits(rows.codes, self.cv) < 2:
            # one labelled row in a class: nothing to cross-validate; Nigam's basic EM
            return fixed, None
        weights = (0.0, *WEIGHTS) if auto else tuple(sorted({0.0, fixed.unlabeled_weight}))
        tried = temperatures(estimator) if auto_t else (fixed.temperature,)
        settings = candidates(weights, alphas, tried)
        best, results = cross_validate(counts, rows, settings, self.cv, self.max_iter,
                                       self.tol, balance)  # fmt: skip
        if auto or fixed.unlabeled_weight == 0:
            return best, results
        # the weight given: the best of its candidates, the supervised ones only compared
        mean = results["mean_test_score"]
        em = [i for i, s in enumerate(settings) if s.unlabeled_weight > 0]
        chosen = em[int(np.argmax(mean[em]))]
        supervised = int(np.argmax(np.where([s.unlabeled_weight == 0 for s in settings],
                                            mean, -np.inf)))  # fmt: skip
        if mean[supervised] > mean[chosen]:
            warnings.warn(
                f"EM ({_setting(settings[chosen])}) classifies {mean[chosen]:.3f} of the "
                "held-out labelled rows by cross-validation, the labelled rows alone "
                f"({_setting(settings[supervised])}) {mean[supervised]:.3f}: EM is kept "
                "as you asked; unlabeled_weight='auto' would keep the supervised model "
                "when it is the better (cv_results_ has every score).",
                EMWarning,
                stacklevel=3,
            )
        return settings[chosen], results

    def _say(self, iteration: int, score: float) -> None:
        if self.verbose:
            print(f"SemiSupervisedNB iteration {iteration}: log-likelihood {score:.6f}")

    # ------------------------------------------------------------ prediction
    def _fitted(self) -> Any:
        """The fitted model (``estimator_``), which answers every question below; raises
        NotFittedError before :meth:`fit`."""
        check_is_fitted(self)
        return self.estimator_

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row (the fitted model's)."""
        return np.asarray(self._fitted().predict(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        return np.asarray(self._fitted().predict_proba(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Log class probabilities, columns in the order of ``classes_``."""
        return np.asarray(self._fitted().predict_log_proba(X))

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """Joint log-probabilities ``log P(x, c)``, columns in the order of ``classes_``."""
        return np.asarray(self._fitted().predict_joint_log_proba(X))

    def explain(self, x: Any, **kw: Any) -> Any:
        """The fitted model's explanation of one row (see the estimator's ``explain``)."""
        return self._fitted().explain(x, **kw)

    def parameter_table(self, exact: bool = True, feature_names: Any = None) -> Any:
        """The fitted model's estimates as the course notes print them (see the
        estimator's ``parameter_table``; EM's soft labels are fractional counts: use
        ``exact=False``)."""
        return self._fitted().parameter_table(exact=exact, feature_names=feature_names)

    @property
    def classes_(self) -> np.ndarray:
        """The classes of the labelled rows (sorted)."""
        return np.asarray(self._fitted().classes_)

    @property
    def n_features_in_(self) -> int:
        """Number of features of the fitted model (models of a table or a matrix)."""
        return int(self._fitted().n_features_in_)

    @property
    def feature_names_in_(self) -> np.ndarray:
        """The column names of the training table, when it had them."""
        return np.asarray(self._fitted().feature_names_in_)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "estimator_")

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        estimator = TextClassifier() if self.estimator is None else self.estimator
        if isinstance(estimator, BaseNB):
            tags.input_tags = estimator.__sklearn_tags__().input_tags
        tags.classifier_tags.poor_score = True
        return tags
