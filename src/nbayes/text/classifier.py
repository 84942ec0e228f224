"""TextClassifier: Naive Bayes on raw strings, trained straight from text to class counts.

The statistics of a text model (:class:`~nbayes.text._textstats.TextStats`) are, per class,
the count of every term seen (an open vocabulary, or hashed buckets), plus corpus-level
document and term frequencies. The vocabulary pruning of a vectorizer (``min_df``,
``max_df``, ``max_features``) is a *derivation* from those statistics, like the smoothing:
so ``update`` with new words, ``unlearn``, ``merge`` and pruning all stay exact, and the
result equals a scikit-learn ``Pipeline(CountVectorizer(...), MultinomialNB(...))`` fitted
on all the data at once.

The estimator is a :class:`~nbayes._template.base.BaseNB`: training, merging, prediction and
explanations are the template's; this module supplies the text hooks (documents as input,
their statistics, the family of ``model=``, the derivation through a vocabulary selection).
Counting a batch is :mod:`nbayes.text._batch` (by the routes of :mod:`nbayes.text._routes`),
streams of chunks :mod:`nbayes.text._streaming`, cross-validation :mod:`nbayes.text._cv`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._families.fitted import FittedLikelihood
from .._statistics import CountStats, readonly
from .._template import params as P
from .._template.base import Cached, Derived, text_input_tags
from ..explain import Explanation
from . import _analyzer, _batch
from . import _model as M
from ._cv import TextCounter
from ._learning import TextLearning
from ._stop_words import warn_if_inconsistent
from ._textstats import TextStats, Vocabulary
from ._tokenize import FrozenVocabulary, TermColumns
from .recipes import resolve as resolve_recipe
from .scoring import CountRows, TextScorer

__all__ = ["TextClassifier", "TextStats"]


@P.hyperparameters
class TextClassifier(M.CountedClasses, M.CountingHooks, TextLearning):  # type: ignore[override]
    """Naive Bayes text classifier on raw strings: multinomial, Bernoulli or complement.

    Equal to scikit-learn's ``Pipeline(CountVectorizer(...), MultinomialNB(...))`` (or
    ``BernoulliNB``/``ComplementNB``) with the same settings, trained many times faster:
    documents are tokenized and counted per class in one compiled pass, without building
    the document-term matrix. The vocabulary is open: :meth:`update` with new words adds
    columns, and the result equals fitting everything at once. Words unseen in training
    are ignored at prediction, so a document without a known word gets the class prior
    (for ``model="bernoulli"``, the prior times the probability that every known word is
    absent).

    Parameters
    ----------
    model : {"multinomial", "bernoulli", "complement"}, default="multinomial"
    alpha : float, default=1.0
        Additive smoothing.
    binary : bool, default=False
        Clip each document's counts to 1 ("binary" or "binarized" multinomial NB).
        Bernoulli models always use presence.
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        Any word n-gram range (``(1, 3)`` for the trigram models); all are counted from
        the compiled tokenizer (:mod:`nbayes.text._routes`).
    lowercase : bool, default=True
    preprocess : str, callable or None, default=None
        A ``str -> str`` step run on every document before tokenizing (unlike
        scikit-learn's ``preprocessor`` it does not replace lowercasing). Named recipes
        (:mod:`nbayes.text.recipes`): ``"sentiment"`` (ratings such as "7/10" kept as one
        token and the three words after a negation marked ``NOT_``: binarized MNB on IMDB
        82.92 -> 84.52 % with unigrams, 86.49 -> 87.30 % with uni+bigrams, RT-s 77.97 ->
        78.92 / 78.80 -> 79.23 %; one SMS message of 1,115 worse; see BENCHMARKS.md),
        ``"ratings"``, ``"negation"``, ``"html"``, ``"punctuation"``.
        Prefer names to functions: models merge only when their settings are equal.
    stop_words : "english", list or None, default=None
    min_df, max_df : float or int, default=1, 1.0
        Vocabulary pruning by document frequency, as in ``CountVectorizer``.
    max_features : int or None, default=None
        Keep the most frequent terms only: ranked by their counts, as ``CountVectorizer``
        ranks them (for ``model="bernoulli"`` too, by raw counts unless ``binary``).
    hashing : bool, default=False
        Hash terms into ``n_features`` buckets (bounded memory, no vocabulary). Smoothing
        is spread over the buckets seen in training only.
    n_features : int, default=2**20
    fit_prior, class_prior, force_alpha, norm
        As in the scikit-learn estimators (``norm`` for complement only).

    Notes
    -----
    Thread safety: ``predict``, ``predict_proba``, ``predict_top``, ``explain`` and the
    other predictions may run in any number of threads, also while one thread calls
    ``update`` (new words, new classes), ``partial_fit`` or ``unlearn``: each prediction
    sees the model before or after that call, never a mix. Run the learning calls
    themselves one at a time (docs/architecture.md, "Threads").

    Examples
    --------
    >>> from nbayes import TextClassifier
    >>> docs = ["free win", "free money", "win money", "meeting today", "free today",
    ...         "lunch today"]
    >>> y = ["spam", "spam", "spam", "ham", "ham", "ham"]
    >>> clf = TextClassifier().fit(docs, y)
    >>> clf.predict(["free money now"])
    array(['spam'], dtype='<U4')
    >>> clf.predict_proba(["free money"]).round(3)
    array([[0.182, 0.818]])
    >>> print(clf.explain("free money", exact=True))  # doctest: +ELLIPSIS
    P(ham) · P(x | ham) = 3/6 · 1/6 · 1/12 = 1/144 ≈ 0.00694
    P(spam) · P(x | spam) = 3/6 · 1/4 · 1/4 = 1/32 = 0.03125
    ...
    Decision: spam
    """

    _param_rules: ClassVar[dict[str, list[P.Rule]]] = M.PARAM_RULES
    _accept_sparse = False
    _fitted_inputs = ()
    _sample_noun = "document"
    _bounded_scores = True  # counts of a document's tokens: no overflow to check for

    model: str = "multinomial"
    alpha: float = 1.0
    binary: bool = False
    ngram_range: tuple[int, int] = (1, 1)
    lowercase: bool = True
    preprocess: Any = None
    stop_words: Any = None
    min_df: float | int = 1
    max_df: float | int = 1.0
    max_features: int | None = None
    hashing: bool = False
    n_features: int = 2**20
    fit_prior: bool = True
    class_prior: Any = None
    force_alpha: bool = True
    norm: bool = False

    # ---------------------------------------------------------------- settings
    # (``_family``, ``_check_params``, ``_ngram``, ``_stop_set``, ``_clip``: CountingHooks)

    #: the settings a model's counts were made with (changed on a fitted model, they take
    #: effect at the next fit, as a vectorizer's do)
    _COUNTING = ("binary", "hashing", "lowercase", "n_features", "ngram_range", "preprocess",
                 "stop_words")  # fmt: skip

    def set_params(self, **params: Any) -> Self:
        fitted = "_stats" in self.__dict__
        if fitted:
            counted: Recounting | None = self.__dict__.get("_recounting")
            settings = counted.settings if counted is not None else {
                k: getattr(self, k) for k in self._COUNTING
            }  # fmt: skip
            clip = counted.clip if counted is not None else self._clip
        super().set_params(**params)
        if fitted:
            changed = [k for k in self._COUNTING if not P.same_value(settings[k], getattr(self, k))]
            if clip != self._clip and "binary" not in changed:
                changed.append("model")  # to or from bernoulli: counts clipped or not
            if changed:
                self.__dict__["_recounting"] = Recounting(settings, clip, tuple(changed))
            else:
                self.__dict__.pop("_recounting", None)  # set back as they were
        return self

    def _check_counting(self) -> None:
        """ValueError if a setting the counts were made with changed since the fit."""
        counted: Recounting | None = self.__dict__.get("_recounting")
        if counted is not None:
            changed = counted.changed
            raise ValueError(
                f"{', '.join(changed)} changed since this model was fitted (set_params): its "
                "counts were made with the old setting. Call fit to count again with the new "
                "one, or set it back."
            )

    def _docs(self, X: Any, counting: M.Counting | None = None) -> list[str]:
        """Validated documents, after the ``preprocess`` step (that of ``counting``, the
        current counting settings, if given)."""
        self._check_counting()
        preprocess = resolve_recipe(self.preprocess) if counting is None else counting.preprocess
        return _analyzer.documents(X, preprocess)

    @staticmethod
    def _raw_docs(X: Any) -> list[str]:
        return _analyzer.raw_documents(X)

    # ------------------------------------------------------- template hooks
    @property
    def _transform_memo(self) -> HeldOutRows | None:
        """Model selection's memo of counted held-out documents (None: not kept)."""
        return self.__dict__.get("_held_out")

    @_transform_memo.setter
    def _transform_memo(self, counted: list[Any]) -> None:
        # nbayes.text._cv sets it to [] on its own model: keep the counts of the held-out
        # documents it scores again under other settings
        self.__dict__["_held_out"] = HeldOutRows(counted=list(counted))

    def _check_X(self, X: Any) -> Any:
        docs = self._docs(X)
        memo: HeldOutRows | None = self.__dict__.get("_held_out")
        if memo is not None:  # model selection: the held-out documents, by identity
            memo.given, memo.docs = X, docs
        return docs

    def _check_X_y(self, X: Any, y: Any, reset: bool) -> tuple[Any, np.ndarray]:
        return _batch.checked(self._docs(X), y)

    def _batch(self, X: Any, y: Any, sample_weight: Any, reset: Any) -> TextStats:
        """Statistics of one batch over the model's vocabulary, extended by the new
        terms (``reset``: a fresh vocabulary). A dict for ``reset`` counts into that
        vocabulary in place and gives statistics without one (the form
        ``nbayes.distributed`` reduces)."""
        docs, y = self._check_X_y(X, y, reset=reset is True)
        if reset is True:  # a fit, or a first partial_fit: the Pipeline's fit would warn
            warn_if_inconsistent(self.stop_words, self.lowercase)
        counting = self._counting()
        if isinstance(reset, dict):
            return _batch.count(counting, docs, y, sample_weight, reset)
        if self.hashing or reset or not self.__sklearn_is_fitted__():  # a fresh vocabulary
            return _batch.count(counting, docs, y, sample_weight)
        known = self._stats.vocabulary
        assert known is not None
        vocabulary, index = Vocabulary.extending(known)
        return _batch.count(counting, docs, y, sample_weight, index, named=vocabulary)

    def _empty_stats(self, classes: np.ndarray, n_features: int) -> TextStats:
        vocabulary = None if self.hashing else Vocabulary(index={})
        empty = CountStats.empty(classes, 0)
        return TextStats(empty, np.zeros(0, np.int64), np.zeros(0), 0).with_vocabulary(vocabulary)

    def _n_columns(self) -> int:
        return 0  # the columns grow with the vocabulary

    def _fit_stats(self, batch: TextStats) -> TextStats:
        _batch.require_terms(batch)
        return batch

    def _after_subtract(self, stats: TextStats) -> TextStats:
        if self._clip:  # presence counts: a term is in at most every document of its class
            stats.counts.check_presence()
        return stats.without_unused_terms()

    def _check_derivation(self) -> None:
        """Derived on first use, not at fit: pruning and smoothing are often changed
        after a fit, and a large vocabulary's log-probabilities take time."""

    def _check_merge_inputs(self, other: Any) -> None:
        """Any two vocabularies merge: they are united."""

    def _set_stats(self, stats: Any) -> Self:
        self.__dict__.pop("_selection_cache", None)
        return super()._set_stats(stats)

    def _fitted(self, feature_names: Any = None) -> FittedLikelihood:
        return self._scorer().fitted  # named by its terms

    def _feature_names(self) -> Any:
        return self._scorer().feature_names

    def _joint_log_likelihood(self, docs: Any) -> np.ndarray:
        scorer = self._scorer()
        memo: HeldOutRows | None = self.__dict__.get("_held_out")
        if memo is None:
            return scorer.score_documents(docs)
        X, memo.given, given_docs, memo.docs = memo.given, None, memo.docs, None
        if given_docs is None or given_docs is not docs:  # not what _check_X saw: no memo
            return scorer.score_documents(docs)
        return scorer.score_documents(docs, lambda docs: self._scored_rows(X, docs))

    def _class_log_prior(self) -> np.ndarray:
        return self._scorer()._class_log_prior()

    def _one_row(self, x: Any) -> Any:
        return _analyzer.check_one_text(x)

    def _explain_one(self, row: Any, exact: bool, feature_names: Any) -> Any:
        if feature_names is not None:
            raise ValueError("A TextClassifier names its features by their terms.")
        return self._scorer().explain(row, exact=exact)

    # ------------------------------------------------------------ statistics
    def _set(self, stats: TextStats, vocabulary: Any = None, *, named: bool = False) -> Self:
        """Install statistics and the terms of their columns: a dict term -> column, or
        the terms in column order (None when hashing); ``named``: the statistics carry
        their terms already."""
        return self._set_stats(stats if named else stats.with_vocabulary(Vocabulary.of(vocabulary)))

    @property
    def _vocab(self) -> dict[str, int] | None:
        """Term -> column of every term the statistics hold (None when hashing)."""
        vocabulary = self._stats.vocabulary
        return None if vocabulary is None else vocabulary.index

    def _terms(self) -> list[str] | None:
        """The terms in column order (None when hashing)."""
        vocabulary = self._stats.vocabulary
        return None if vocabulary is None else list(vocabulary.terms)

    def __getstate__(self) -> dict[str, Any]:
        # what is derived from the statistics (kept vocabulary, log-probabilities) is made
        # again on first use: a pickle holds the statistics only
        state: dict[str, Any] = dict(super().__getstate__())
        for name in _DERIVED:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickles of earlier releases kept the vocabulary beside the statistics
        terms = state.pop("_vocab_terms", None)
        index = state.pop("_vocab_dict", None)
        # and maybe caches in the tuples of earlier versions: made again on first use (a
        # model selection's memo, ``_transform_memo``, with them); the counting settings
        # changed since the fit are kept
        for name in (*_DERIVED, "_transform_memo", "_memo_given"):
            state.pop(name, None)
        recounting = state.get("_recounting")
        if isinstance(recounting, tuple):
            settings, clip, changed = recounting
            state["_recounting"] = Recounting(settings, clip, tuple(changed))
        super().__setstate__(state)
        stats = self.__dict__.get("_stats")
        if stats is not None and stats.vocabulary is None and not self.hashing:
            if terms is not None or index is not None:
                self.__dict__["_stats"] = stats.with_vocabulary(Vocabulary(terms, index))

    # ------------------------------------------------------------ derivation
    def _derived(self) -> dict[str, Any]:
        """The family's derivation (log-probabilities) of the kept columns."""
        return self._scorer().d

    def _scorer(self) -> TextScorer:
        """What prediction and explanations need, derived from the statistics: the kept
        vocabulary, the family's derivation and the numpy-only scorer of them (its
        weights laid out on first use), cached: new statistics or hyperparameters make a
        new one."""
        cache: Cached | None = self.__dict__.get("_cache")
        # the statistics are read once: a learning call in another thread may install new
        # ones meanwhile, and what is derived (and cached) must be derived from these
        stats = self.__dict__.get("_stats")
        if cache is not None and cache.stats is stats and cache.unchanged is not None:
            # the common case of prediction: the same statistics and hyperparameters that
            # are all immutable values (a mutable one, e.g. a stop-word list changed in
            # place, is compared by its repr below)
            if tuple(map(self.__dict__.get, _PARAM_NAMES)) == cache.unchanged:
                return cache.value
        check_is_fitted(self)
        key = tuple(repr(getattr(self, name)) for name in _PARAM_NAMES)
        if cache is not None and cache.stats is stats and cache.key == key:
            return cache.value
        self._check_params()
        selection = self._selection(stats)
        params = {name: getattr(self, name) for name in _PARAM_NAMES}
        d = self._family.derive(selection.inner_stats, M.derivation_values(params))
        scorer = TextScorer(params, selection, d)
        values = tuple(params.values())
        unchanged = values if _immutable(values) else None
        self._keep_cache("_cache", Cached(stats, key, scorer, unchanged))
        return scorer

    def _selection(self, stats: TextStats | None = None) -> M.Selection:
        """The kept vocabulary (min_df, max_df, max_features) of ``stats`` (default: the
        model's), cached apart from smoothing: an alpha sweep re-derives
        log-probabilities, not the vocabulary."""
        stats = self._stats if stats is None else stats
        key = (self.min_df, self.max_df, self.max_features, self.hashing, self.n_features)
        cache: Cached | None = self.__dict__.get("_selection_cache")
        if cache is not None and cache.stats is stats and cache.key == key:
            return cache.value
        vocabulary = stats.vocabulary
        terms = None if vocabulary is None else vocabulary.terms
        out = M.select_columns(
            stats, terms, min_df=self.min_df, max_df=self.max_df,
            max_features=self.max_features, n_features=self.n_features,
            mapping=FrozenVocabulary,
            index=None if vocabulary is None else vocabulary.index_if_made(),
        )  # fmt: skip
        self._keep_cache("_selection_cache", Cached(stats, key, out))
        return out

    def analyze(self, text: str) -> list[str]:
        """The terms of one document in order (words, n-grams), as the model counts them."""
        if self.stop_words is None or (
            isinstance(self.stop_words, str) and self.stop_words == "english"
        ):
            return _analyzer.terms(
                self._docs([text])[0], lowercase=bool(self.lowercase),
                ngram_range=self._ngram(), stop_words=self._stop_set(),
            )  # fmt: skip
        # a list of stop words: scikit-learn's analyzer, for its warning when the list is
        # inconsistent with the preprocessing
        from sklearn.feature_extraction.text import CountVectorizer

        return list(
            CountVectorizer(
                lowercase=self.lowercase, ngram_range=self._ngram(), stop_words=self.stop_words
            ).build_analyzer()(self._docs([text])[0])
        )

    # ------------------------------------------------------------ prediction
    def transform(self, X: Any) -> sp.csr_matrix:
        """The documents as the count matrix the model scores (kept terms only)."""
        docs = self._docs(X)
        rows = self._scorer().count(docs)
        return sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=rows.shape)

    def _scored_rows(self, X: Any, docs: list[str]) -> CountRows:
        # Model selection scores the same held-out documents under many smoothing settings:
        # tokenize them once per kept vocabulary (see nbayes.text._cv).
        memo: HeldOutRows = self.__dict__["_held_out"]
        scorer = self._scorer()
        kept = scorer.selection.kept
        for counted in memo.counted:
            if counted.given is X and counted.kept is kept:
                return counted.rows
        rows = scorer.count(docs)
        memo.counted = [*memo.counted[-1:], CountedRows(X, kept, rows)]
        return rows

    # ------------------------------------------------------- beyond sklearn
    def explain(self, text: str, exact: bool = False) -> Explanation:  # type: ignore[override]
        """Every word's evidence per class for one document (exact fractions optional).

        Only the words of the document that the model knows appear; for Bernoulli models
        the absent words count too.
        """
        explanation: Explanation = super().explain(text, exact)
        explanation.document = text  # its HTML view colours the document's words
        explanation.lowercase = bool(self.lowercase)
        return explanation

    def sample(
        self, n_samples: int = 1, random_state: Any = None
    ) -> tuple[list[list[str]], np.ndarray]:
        """Documents generated by the model, as word lists (in random order), and labels.

        A multinomial model draws each document's length from a Poisson with its class's
        mean training length (a class of short documents gives some empty ones), then its
        words from P(w | y); a Bernoulli model draws each word's presence. To score them,
        join the words: ``model.predict([" ".join(words) for words in docs])``."""
        X, y = super().sample(n_samples, random_state=random_state)
        rng = np.random.default_rng(random_state)
        names = self._feature_names()
        docs = []
        for row in np.asarray(X, dtype=np.int64):
            words = [names[j] for j in np.flatnonzero(row) for _ in range(row[j])]
            rng.shuffle(words)
            docs.append(words)
        return docs, y

    # ------------------------------------------------------ fitted attributes
    @property
    def vocabulary_(self) -> dict[str, int]:
        """Term -> column of the kept vocabulary, sorted by term (as CountVectorizer's)."""
        if self.hashing:
            raise AttributeError("A hashing TextClassifier has no vocabulary_.")
        vocabulary = self._scorer().selection.vocabulary
        if isinstance(vocabulary, TermColumns):
            vocabulary = vocabulary.mapping()
        return dict(vocabulary)

    def get_feature_names_out(self) -> np.ndarray:
        return np.asarray(list(self._scorer().feature_names), dtype=object)

    @property
    def feature_count_(self) -> np.ndarray:
        """Per-class counts of the kept terms, shape (n_classes, n_kept)."""
        return readonly(self._scorer().stats.feature_count)

    feature_log_prob_ = Derived("feature_log_prob")

    class_log_prior_ = Derived("class_log_prior")

    def __sklearn_tags__(self) -> Any:
        return text_input_tags(super().__sklearn_tags__())

    def _cv_counter(self) -> TextCounter:
        """The counting protocol of :mod:`nbayes.model_selection` for text."""
        return TextCounter(self)


@dataclass(frozen=True, slots=True)
class Recounting:
    """The counting settings a fitted model's counts were made with, kept while
    ``set_params`` has changed some of them (``changed``: their names; ``clip``: whether
    the counts were clipped to presence): the model refuses to count more until a fit
    (or until they are set back)."""

    settings: dict[str, Any]
    clip: bool
    changed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CountedRows:
    """Held-out documents (``given``, by identity) counted over a kept vocabulary (the
    ``kept`` columns, by identity)."""

    given: Any
    kept: np.ndarray
    rows: CountRows


@dataclass(slots=True)
class HeldOutRows:
    """Model selection's memo (:mod:`nbayes.text._cv`): it scores the same held-out
    documents under many smoothing settings, so each is tokenized once per kept
    vocabulary. ``given`` and ``docs``: the documents of the prediction under way, as
    passed and as validated (set by ``_check_X``, taken by ``_joint_log_likelihood``);
    ``counted``: the last two countings. The model selection's own model, used by one
    thread."""

    given: Any = None
    docs: list[str] | None = None
    counted: list[CountedRows] = field(default_factory=list)


#: what a model derives from its statistics: made again on first use, never pickled
_DERIVED = ("_cache", "_selection_cache")
_PARAM_NAMES = tuple(TextClassifier._get_param_names())
_SCALARS = (bool, int, float, str, bytes, type(None))


def _immutable(values: tuple[Any, ...]) -> bool:
    """Whether hyperparameter values can be compared by ``==`` to detect any change: plain
    scalars, or tuples of them (a list or an array may change in place)."""
    return all(
        type(v) in _SCALARS or (type(v) is tuple and all(type(x) in _SCALARS for x in v))
        for v in values
    )
