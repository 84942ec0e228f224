"""NBSVM: a linear classifier on binarized n-grams scaled by Naive Bayes log-count ratios.

Wang & Manning (2012), "Baselines and Bigrams": each class's log-count ratio
``r = log((p / |p|_1) / (q / |q|_1))``, with ``p = alpha +`` the number of documents of the
class that hold each term and ``q`` the same for the other documents, scales the binarized
features ``x = 1{f > 0}``; a linear model (an L2-loss SVM by default) is fitted on ``r * x``
and its weights are pulled towards their mean magnitude,
``w' = (1 - beta) * mean(|w|) + beta * w`` (the "interpolation" that mixes in Naive Bayes).

The features are those of nbayes's :class:`~nbayes.text.CountVectorizer` with
``binary=True`` (``vectorizer_``: the tokenization and vocabulary pruning of a
:class:`~nbayes.text.TextClassifier`, counted by the compiled kernels for the n-gram
ranges they take, by scikit-learn's analyzer for the others such as trigrams), and the
counts behind ``r`` are the statistics of an nbayes :class:`~nbayes.MultinomialNB`
(``nb_``) fitted on them: its ``feature_count_`` is, per class, the number of documents
holding each term. The solvers are scikit-learn's (liblinear).

``beta`` is a derivation parameter, as ``alpha`` is for the Naive Bayes models: changing it
after ``fit`` re-derives the weights without refitting (and
:class:`~nbayes.model_selection.NBSearchCV` sweeps it without refitting).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Self

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._template import params as P
from .._template.base import text_input_tags
from .._template.decisions import Decisions, decisions_from_proba
from .._template.sklearn_bases import BaseEstimator, ClassifierMixin
from ..display import InformativeFeatures, TopPredictions
from ..exceptions import NBayesWarning, invalid_parameter
from ..explain import Explanation
from ..naive_bayes import MultinomialNB
from ..text import _analyzer
from ..text.recipes import resolve as resolve_recipe
from ..text.vectorizers import CountVectorizer
from ._calibration import HeldOutScores, TopBins, cross_fit, probabilities
from ._ratios import problem_ratios

__all__ = ["NBSVM"]

#: the ``loss`` choices: the linear model fitted on the scaled features
LOSSES = ("squared_hinge", "hinge", "logistic")

#: the parameters of the vectorizer (same names as CountVectorizer's)
VECTORIZER_PARAMS = (
    "ngram_range", "lowercase", "token_pattern", "stop_words", "min_df", "max_df",
    "max_features",
)  # fmt: skip

_positive_real = P.positive_real()
_unit_real = P.Rule(
    lambda v: P._is_real(v) and 0 <= v <= 1,
    "a float in the range [0.0, 1.0]",
    "a number from 0 to 1",
)
CALIBRATIONS = ("binned", "temperature_shift", "temperature")
_calibration = P.Rule(
    lambda v: v is None or (isinstance(v, str) and v in CALIBRATIONS),
    "'binned', 'temperature_shift', 'temperature' or None",
    "'binned', 'temperature_shift' or 'temperature'",
)


@P.hyperparameters
class NBSVM(ClassifierMixin, BaseEstimator):
    """NBSVM (Wang & Manning 2012) on raw strings: an SVM on Naive Bayes-scaled n-grams.

    The defaults are the paper's recipe: binarized uni+bigram presence features, each
    scaled by its Naive Bayes log-count ratio (smoothing ``alpha=1``), an L2-regularised
    L2-loss (squared hinge) linear SVM with ``C=1`` and no bias term (liblinear ``-s 1``,
    as the authors' code ``trainMNBSVM.m`` runs it), and the interpolation ``beta=0.25``.
    Documents are tokenized as :class:`~nbayes.text.TextClassifier` tokenizes them
    (lowercased words of two or more letters or digits, scikit-learn's
    ``CountVectorizer`` default) after nbayes's named recipe ``preprocess="sentiment"``
    (scores such as "7/10" kept as one token, the three words after a negation marked
    ``NOT_``; :func:`nbayes.text.recipes.sentiment_preprocess`), which Wang & Manning did
    not use: with it the one default recipe reaches their figures on every set measured
    (``benchmarks/bench_nbsvm.py``; without it IMDB falls 0.18 points short of 91.22).
    ``preprocess=None`` is their tokenization of the text as it is. With more than two
    classes, one binary problem per class (one-vs-rest), each with its own ratio ``r``.

    Parameters
    ----------
    loss : {"squared_hinge", "hinge", "logistic"}, default="squared_hinge"
        The linear model: ``LinearSVC(loss=...)``, or ``LogisticRegression`` (liblinear)
        for ``"logistic"`` (Mesnil et al. 2014's variant, with ``beta=1``).
    C : float, default=1.0
        Inverse regularisation strength of the linear model.
    beta : float in [0, 1], default=0.25
        Interpolation: 1 keeps the solver's weights, 0 gives every feature the mean
        weight magnitude (a Naive Bayes-like model on the binarized features).
    alpha : float, default=1.0
        Smoothing of the log-count ratio (> 0).
    preprocess : str, callable or None, default="sentiment"
        A ``str -> str`` step run on every document before tokenizing, or the name of a
        recipe of :mod:`nbayes.text.recipes`, as for :class:`~nbayes.text.TextClassifier`
        (whose default is None).
    ngram_range, lowercase, stop_words, min_df, max_df, max_features
        Tokenization and vocabulary, as for :class:`~nbayes.text.TextClassifier` (any
        ``ngram_range``: ``(1, 3)`` is Mesnil et al.'s trigram setting).
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        As for scikit-learn's ``CountVectorizer``; the default is the one the compiled
        kernels tokenize (any other runs scikit-learn's analyzer, slower).
    fit_intercept : bool, default=False
        Fit a bias term (regularised, as liblinear does); it is scaled by ``beta`` like the
        weights' solver part. The paper's recipe has none.
    tol : float, default=1e-4
    max_iter : int, default=1000
        Of the solver (liblinear's own default limit). With ``C=1`` on long documents
        (IMDB) the dual solver reaches it and scikit-learn warns (ConvergenceWarning), as
        in Wang & Manning's runs; a smaller ``C`` converges sooner.
    random_state : int, RandomState instance or None, default=None
        The solver's coordinate order (liblinear shuffles) and the folds of the
        calibration. None is a fixed seed (0): two fits of the same data are the same
        model; give other seeds to see how much the order matters.
    calibration : {"binned", "temperature_shift", "temperature"} or None, default="binned"
        How :meth:`predict_proba` maps the decision values to probabilities.
        "temperature": the logistic of ``proba_scale_ * decision`` (normalised over the
        classes, one-vs-rest), one scale fitted at ``fit`` to
        held-out decision values of the training documents, found from the one fit's
        statistics without tokenizing or counting again: a 2-fold cross-fit whose Naive
        Bayes ratios come by count subtraction and whose solvers are refitted (at most 100
        iterations), which adds about 15 % to the fit's time on IMDB. The expected calibration
        error goes from 0.23 to 0.02 on RT-s and from 0.33 to 0.01 on IMDB
        (``benchmarks/bench_nbsvm.py``). It changes no prediction.
        "temperature_shift": with more than two classes, the logistic of
        ``proba_scale_ * decision + proba_shift_``, the same shift for every class, both
        fitted to the same held-out values (20 Newsgroups' bydate test set: expected
        calibration error 0.035 against 0.038 with the scale alone); with two classes the
        shift is 0 and it is "temperature". It changes no prediction either.
        "binned": "temperature_shift", then with more than two classes the most probable
        class's probability binned: the held-out documents' top probabilities cut into 15
        bins of equal numbers of documents, each valued at its documents' accuracy
        (Laplace-smoothed), the other classes sharing the rest (20 Newsgroups' bydate test
        set: 0.026 against 0.035); with two classes it is "temperature". It changes no
        prediction either. None: the logistic of the decision values, as before nbayes 0.2
        (it hugs 0.5).

    Attributes
    ----------
    vectorizer_ : nbayes.text.CountVectorizer
        The fitted binary vectorizer: ``vocabulary_`` names the columns.
    preprocess_ : str, callable or None
        The ``preprocess`` step of the fit, which prediction applies too (changing
        ``preprocess``, like the vectorizer's settings, takes effect at the next fit).
    nb_ : MultinomialNB
        The Naive Bayes model of the binarized features, whose counts give ``r``.
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    ratio_ : ndarray of shape (n_problems, n_terms)
        The log-count ratio of each binary problem (one for two classes: the second class
        against the first; one per class otherwise).
    coef_ : ndarray of shape (n_problems, n_terms)
        The weight of each term's presence: the interpolated solver weight times ``r``.
    intercept_ : ndarray of shape (n_problems,)
    held_out_ : HeldOutScores or None
        The decision values of the training documents by the cross-fit that held each one
        out, in two parts so that any ``beta`` re-derives them (``nb``, ``svm``, with
        ``codes``, the classes, and ``weight``); None when uncalibrated.
    proba_scale_ : float or None
        The scale of the decision values in :meth:`predict_proba`, fitted to
        ``held_out_`` for the current ``beta`` (re-derived when ``beta`` changes, without
        a refit); None when uncalibrated.
    proba_shift_ : float or None
        The shift of the scaled decision values in :meth:`predict_proba`, fitted with
        ``proba_scale_`` (``calibration="temperature_shift"`` and more than two classes;
        0 otherwise); None when uncalibrated.

    References
    ----------
    S. Wang and C. D. Manning. Baselines and Bigrams: Simple, Good Sentiment and Topic
    Classification. ACL 2012.

    Examples
    --------
    >>> from nbayes import NBSVM
    >>> docs = ["a great film", "great fun", "loved it", "a dull film", "dull and boring",
    ...         "hated it"]
    >>> y = ["pos", "pos", "pos", "neg", "neg", "neg"]
    >>> clf = NBSVM(random_state=0).fit(docs, y)
    >>> clf.predict(["great fun film", "boring and dull"]).tolist()
    ['pos', 'neg']
    >>> clf.explain("great but boring").top(2)["pos"]["for"]  # doctest: +ELLIPSIS
    [('great', 0.5...)]
    """

    _param_rules: ClassVar[dict[str, list[P.Rule]]] = {
        "C": [_positive_real],
        "beta": [_unit_real],
        "alpha": [_positive_real],
        "fit_intercept": [P.boolean],
        "tol": [_positive_real],
        "max_iter": [P.non_negative_int(1)],
        "calibration": [_calibration],
    }

    loss: str = "squared_hinge"
    C: float = 1.0
    beta: float = 0.25
    alpha: float = 1.0
    ngram_range: tuple[int, int] = (1, 2)
    lowercase: bool = True
    token_pattern: str | None = r"(?u)\b\w\w+\b"
    preprocess: Any = "sentiment"
    stop_words: Any = None
    min_df: float | int = 1
    max_df: float | int = 1.0
    max_features: int | None = None
    fit_intercept: bool = False
    tol: float = 1e-4
    max_iter: int = 1000
    random_state: Any = None
    calibration: str | None = "binned"

    # ---------------------------------------------------------------- settings
    def _check_params(self) -> None:
        if not isinstance(self.loss, str) or self.loss not in LOSSES:
            raise invalid_parameter(
                f"The 'loss' parameter of NBSVM must be a str among {set(LOSSES)}. "
                f"Got {self.loss!r} instead.",
                param="loss",
                value=self.loss,
                accepted=[", ".join(map(repr, LOSSES[:-1])) + f" or {LOSSES[-1]!r}"],
            )
        P.validate(self, self._param_rules)

    def _make_vectorizer(self) -> CountVectorizer:
        params = {name: getattr(self, name) for name in VECTORIZER_PARAMS}
        return CountVectorizer(binary=True, dtype=np.float64, **params)

    def _docs(self, X: Any, fitting: bool = False) -> list[str]:
        """Validated documents, after the ``preprocess`` step (as a TextClassifier's): the
        one the model was fitted with (``preprocess_``), or ``preprocess`` when fitting."""
        recipe = self.preprocess if fitting else self.__dict__.get("preprocess_")
        return _analyzer.documents(X, resolve_recipe(recipe))

    def _solver(self) -> Any:
        """A fresh scikit-learn linear model of ``loss`` (binary problems only)."""
        common = {
            "C": float(self.C), "fit_intercept": bool(self.fit_intercept),
            "tol": float(self.tol), "max_iter": int(self.max_iter),
            # None: a fixed seed, as the calibration's (liblinear shuffled by the global
            # random state, and two fits, or two `nbayes train` files, differed)
            "random_state": 0 if self.random_state is None else self.random_state,
        }  # fmt: skip
        if self.loss == "logistic":
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(solver="liblinear", **common)
        from sklearn.svm import LinearSVC

        # the dual problem: liblinear's -s 1 (squared hinge) / -s 3 (hinge), as the paper;
        # text has more features than documents, where the dual is the fast one
        return LinearSVC(loss=self.loss, dual=True, **common)

    # -------------------------------------------------------------- training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Count the binarized n-grams per class, derive ``r``, fit the linear model(s).

        Parameters
        ----------
        X : iterable of str
            The documents.
        y : array-like of shape (n_documents,)
        sample_weight : array-like of shape (n_documents,), default=None
            Weights both the counts behind ``r`` and the solver's loss.
        """
        self._check_params()
        docs = self._docs(X, fitting=True)
        vectorizer = self._make_vectorizer()
        presence = vectorizer.fit_transform(docs)
        nb = MultinomialNB(alpha=float(self.alpha)).fit(presence, y, sample_weight=sample_weight)
        classes = nb.classes_
        if len(classes) < 2:
            raise ValueError(
                "NBSVM needs documents of at least 2 classes to separate them, but y holds "
                f"only one class: {classes[0]!r}."
            )
        weightless = classes[nb.class_count_ <= 0]
        if len(weightless):
            raise ValueError(
                f"The sample weights of class(es) {weightless.tolist()!r} sum to 0: NBSVM cannot "
                "separate a class it has no weight of (liblinear would predict it everywhere). "
                "Drop those documents, or give them a positive weight."
            )
        y = np.asarray(y)
        ratios = _problem_ratios(nb, float(self.alpha))
        targets = [classes[1]] if len(classes) == 2 else list(classes)
        coef = np.empty_like(ratios)
        intercept = np.zeros(len(targets))
        sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        for k, target in enumerate(targets):
            solver = self._solver()
            scaled = presence @ sp.diags(ratios[k])
            solver.fit(scaled, (y == target).astype(np.int64), sample_weight=sw)
            coef[k] = solver.coef_[0]
            intercept[k] = float(np.ravel(solver.intercept_)[0]) if self.fit_intercept else 0.0
        held_out = self._calibrate(nb, presence, y, sw)
        # the tokenization is fixed at fit, as a vectorizer's: the recipe too
        self.vectorizer_, self.nb_, self.preprocess_ = vectorizer, nb, self.preprocess
        self.held_out_ = held_out
        return self._set_solution(coef, intercept)

    def _calibrate(
        self, nb: MultinomialNB, presence: Any, y: np.ndarray, sample_weight: np.ndarray | None
    ) -> HeldOutScores | None:
        """The held-out decision values the probability scale is fitted to (None: the
        logistic of the decision values, uncalibrated; warns when they cannot be had)."""
        if self.calibration is None:
            return None
        seed = 0 if self.random_state is None else self.random_state  # a fit repeats
        held_out = cross_fit(self, nb, presence, y, sample_weight, seed)
        if isinstance(held_out, str):
            warnings.warn(
                f"NBSVM's probabilities are not calibrated: {held_out}. predict_proba gives "
                "the logistic of the decision values (which hugs 0.5); give more documents "
                "of that class, or calibration=None to say you know.",
                NBayesWarning,
                stacklevel=3,
            )
            return None
        return held_out

    def fit_chunks(self, chunks: Iterable[tuple[Sequence[str], Any]]) -> Self:
        """:meth:`fit` on the documents of all the ``(documents, labels)`` chunks.

        A linear model is fitted on every document at once, so unlike
        ``TextClassifier.fit_chunks`` this holds all the documents in memory.
        """
        docs: list[str] = []
        labels: list[Any] = []
        for chunk_docs, chunk_labels in chunks:
            docs.extend(chunk_docs)
            labels.extend(np.asarray(chunk_labels).tolist())
        return self.fit(docs, labels)

    def _set_solution(self, coef: np.ndarray, intercept: np.ndarray) -> Self:
        """Install the solver's weights (in the scaled space, before interpolation) beside
        ``vectorizer_`` and ``nb_``; the ratios are derived from ``nb_``'s counts."""
        self.ratio_ = _problem_ratios(self.nb_, float(self.nb_.alpha))
        self.solver_coef_ = coef
        self.solver_intercept_ = intercept
        self.__dict__.pop("_weights_cache", None)
        self.__dict__.pop("_scale_cache", None)
        self.__dict__.pop("_bins_cache", None)
        return self

    # ------------------------------------------------------------ derivation
    def _weights(self) -> tuple[np.ndarray, np.ndarray]:
        """``coef_`` and ``intercept_`` for the current ``beta`` (cached per value)."""
        check_is_fitted(self, "solver_coef_")
        cache = self.__dict__.get("_weights_cache")
        if cache is not None and cache[0] == self.beta:
            return cache[1], cache[2]
        P.validate(self, {"beta": self._param_rules["beta"]})
        beta = float(self.beta)
        w = self.solver_coef_
        # Wang & Manning's w' = (1 - beta) * mean|w| + beta * w, per binary problem
        mean_magnitude = np.abs(w).mean(axis=1, keepdims=True) if w.shape[1] else 0.0
        coef = np.multiply(beta, w)  # in place from here: one array, not three
        coef += (1.0 - beta) * mean_magnitude
        coef *= self.ratio_
        intercept = beta * self.solver_intercept_
        coef.setflags(write=False)
        intercept.setflags(write=False)
        self.__dict__["_weights_cache"] = (self.beta, coef, intercept)
        return coef, intercept

    @property
    def coef_(self) -> np.ndarray:
        return self._weights()[0]

    @property
    def intercept_(self) -> np.ndarray:
        return self._weights()[1]

    @property
    def classes_(self) -> np.ndarray:
        check_is_fitted(self, "nb_")
        return self.nb_.classes_

    @property
    def class_count_(self) -> np.ndarray:
        check_is_fitted(self, "nb_")
        return self.nb_.class_count_

    @property
    def vocabulary_(self) -> dict[str, int]:
        """Term -> column of ``coef_`` (sorted by term)."""
        check_is_fitted(self, "vectorizer_")
        return dict(self.vectorizer_.vocabulary_)

    def get_feature_names_out(self) -> np.ndarray:
        check_is_fitted(self, "vectorizer_")
        names = self.__dict__.get("_names")
        if names is None or len(names) != len(self.vectorizer_.vocabulary_):
            names = self.vectorizer_.get_feature_names_out()
            self.__dict__["_names"] = names
        return names

    def analyze(self, text: str) -> list[str]:
        """The terms of one document in order, as the model sees them."""
        check_is_fitted(self, "vectorizer_")
        return list(self.vectorizer_.build_analyzer()(self._docs([text])[0]))

    def __sklearn_is_fitted__(self) -> bool:
        return "solver_coef_" in self.__dict__

    # ------------------------------------------------------------ prediction
    def _scores(self, X: Any) -> np.ndarray:
        """Decision values, shape (n_documents, n_problems)."""
        coef, intercept = self._weights()
        presence = self.vectorizer_.transform(self._docs(X))
        return np.asarray(presence @ coef.T) + intercept

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed distances to the separating hyperplanes, as scikit-learn's linear
        classifiers give them: shape (n_documents,) for two classes (> 0: the second
        class), else (n_documents, n_classes)."""
        scores = self._scores(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X: Any) -> np.ndarray:
        return self._labels(self._scores(X))

    def _labels(self, scores: np.ndarray) -> np.ndarray:
        """The class of each row of decision values (two classes: the second where > 0)."""
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities.

        The logistic function of each problem's decision value times ``proba_scale_``
        plus ``proba_shift_``, normalised over the classes (one-vs-rest), as
        ``LogisticRegression`` does. The scale and shift are fitted at ``fit`` to held-out
        decision values of the training documents (``calibration="temperature_shift"``,
        the default, or "temperature", no shift; :mod:`nbayes.nbsvm._calibration`); the
        most probable class is the one :meth:`predict` gives. Uncalibrated
        (``calibration=None``, or a model file of nbayes 0.1) the scale is 1: with the SVM
        losses a monotone map of the margins that hugs 0.5.
        """
        return self._probabilities(self._scores(X))

    def _probabilities(self, scores: np.ndarray) -> np.ndarray:
        """Class probabilities of decision values by the fitted map."""
        proba = probabilities(scores, *self._proba_map())
        bins = self._top_bins()
        return proba if bins is None else bins.apply(proba)

    def _top_bins(self) -> TopBins | None:
        """The binning of the top probability (``calibration="binned"`` and more than two
        classes; else None), fitted to ``held_out_`` for the current ``beta``, cached."""
        if self.calibration != "binned" or len(self.classes_) < 3:
            return None
        fitted = self._fitted_map()
        held_out = self.__dict__.get("held_out_")
        if fitted is None or held_out is None:
            return None
        cache = self.__dict__.get("_bins_cache")
        if cache is None or cache[0] != (self.beta, fitted):
            cache = ((self.beta, fitted), held_out.top_bins(float(self.beta), *fitted))
            self.__dict__["_bins_cache"] = cache
        return cache[1]

    def _proba_map(self) -> tuple[float, float]:
        """The scale and shift of :meth:`predict_proba` (1 and 0 uncalibrated)."""
        scale, shift = self.proba_scale_, self.proba_shift_
        return (1.0, 0.0) if scale is None or shift is None else (scale, shift)

    def _fitted_map(self) -> tuple[float, float] | None:
        """The scale and shift fitted to ``held_out_`` for the current ``beta`` and
        ``calibration`` (None: uncalibrated), cached."""
        check_is_fitted(self, "solver_coef_")
        held_out = self.__dict__.get("held_out_")
        if held_out is None:
            return None
        cache = self.__dict__.get("_scale_cache")
        key = (self.beta, self.calibration)
        if cache is None or cache[0] != key:
            self._weights()  # checks beta
            beta, n_classes = float(self.beta), len(self.classes_)
            if self.calibration == "temperature":
                fitted = (held_out.scale(beta, n_classes), 0.0)
            else:  # "temperature_shift", "binned" (or None set after the fit: the held out)
                fitted = held_out.scale_shift(beta, n_classes)
            cache = (key, fitted)
            self.__dict__["_scale_cache"] = cache
        return cache[1]

    @property
    def proba_scale_(self) -> float | None:
        """The scale of the decision values in :meth:`predict_proba` for the current
        ``beta`` (None: uncalibrated), fitted to ``held_out_``."""
        fitted = self._fitted_map()
        return None if fitted is None else float(fitted[0])

    @property
    def proba_shift_(self) -> float | None:
        """The shift of the scaled decision values in :meth:`predict_proba` for the current
        ``beta`` (None: uncalibrated; 0 with two classes or ``calibration="temperature"``),
        fitted with ``proba_scale_`` to ``held_out_``."""
        fitted = self._fitted_map()
        return None if fitted is None else float(fitted[1])

    def predict_log_proba(self, X: Any) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def decide(self, X: Any) -> Decisions:
        """Labels (as :meth:`predict`), probabilities (as :meth:`predict_proba`) and top
        classes of ``X`` from one scoring, as the Naive Bayes models'
        :meth:`~nbayes.MultinomialNB.decide`."""
        scores = self._scores(X)
        proba = self._probabilities(scores)
        return decisions_from_proba(proba, self.classes_, self._labels(scores))

    def predict_top(self, X: Any, n: int = 3) -> TopPredictions:
        """The ``n`` most probable classes of each document, best first, and their
        probabilities (as the Naive Bayes models' ``predict_top``)."""
        if not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"n must be a positive integer; got {n!r}.")
        return self.decide(X).top(n)

    # ------------------------------------------------------- beyond sklearn
    def explain(self, text: str, exact: bool = False) -> Explanation:
        """Every known term's weight in one document's decision, per class.

        The :class:`~nbayes.Explanation` holds, per class, the intercept (as
        ``log_prior``), each term's weight (as ``terms``: its ``coef_`` entry, the term
        being present) and the decision value (as ``joint_log_likelihood``); for two
        classes the first class's entries are 0 and the second's are the decision's,
        so :meth:`~nbayes.Explanation.top` lists the terms for and against each class.
        ``log_posterior`` is the log of :meth:`predict_proba`.
        """
        if exact:
            raise ValueError(
                "An NBSVM has no exact derivation: its weights come from a numerical solver. "
                "Call explain(text) without exact=True."
            )
        if not isinstance(text, str):
            raise TypeError(f"explain takes one document (a str); got a {type(text).__name__}.")
        coef, intercept = self._weights()
        row = self.vectorizer_.transform(self._docs([text]))
        cols = np.sort(row.indices)
        names = self.get_feature_names_out()
        scores = self._scores([text])[0]
        terms = coef[:, cols]
        if coef.shape[0] == 1:  # two classes: the first class is the zero reference
            terms = np.vstack([np.zeros_like(terms), terms])
            scores = np.concatenate([[0.0], scores])
            intercept = np.concatenate([[0.0], intercept])
        with np.errstate(divide="ignore"):
            log_posterior = np.log(self.predict_proba([text])[0])
        return Explanation(
            classes=self.classes_,
            feature_names=[str(names[j]) for j in cols],
            values=np.ones(len(cols)),
            log_prior=np.asarray(intercept, dtype=np.float64),
            terms=terms,
            joint_log_likelihood=scores,
            log_posterior=log_posterior,
        )

    def most_informative_features(self, n: int = 10) -> InformativeFeatures:
        """``(term, class, weight)`` of the ``n`` terms with the largest weights: for two
        classes a term points to the second class when its weight is positive, to the
        first otherwise (the score is its magnitude); else to its best class."""
        coef, _ = self._weights()
        if coef.shape[0] == 1:
            scores = np.abs(coef[0])
            best = (coef[0] > 0).astype(np.intp)
        else:
            best = np.argmax(coef, axis=0)
            scores = coef[best, np.arange(coef.shape[1])]
        order = np.argsort(-scores, kind="stable")[: max(int(n), 0)]
        names = self.get_feature_names_out()
        labels = self.classes_[best[order]].tolist()  # plain Python values, not numpy's
        ranked = zip(order.tolist(), labels, strict=True)
        return InformativeFeatures((str(names[j]), c, float(scores[j])) for j, c in ranked)

    def __sklearn_tags__(self) -> Any:
        return text_input_tags(super().__sklearn_tags__())

    def _cv_counter(self) -> Any:
        """The protocol of :mod:`nbayes.model_selection`: one fit per split and setting of
        the fitting parameters; ``beta`` is re-derived without a refit."""
        from ._search import NBSVMCounter

        return NBSVMCounter(self)


# ----------------------------------------------------------------------------- helpers
def _problem_ratios(nb: MultinomialNB, alpha: float) -> np.ndarray:
    """The log-count ratio of each binary problem of a fitted ``nb_`` (:mod:`._ratios`)."""
    return problem_ratios(nb.feature_count_, alpha)
