"""TextClassifier: Naive Bayes on raw strings, trained straight from text to class counts.

The statistics of a text model are, per class, the count of every term seen (an open
vocabulary, or hashed buckets), plus corpus-level document and term frequencies. The
vocabulary pruning of a vectorizer (``min_df``, ``max_df``, ``max_features``) is a
*derivation* from those statistics, like the smoothing: so ``update`` with new words,
``unlearn``, ``merge`` and pruning all stay exact, and the result equals a scikit-learn
``Pipeline(CountVectorizer(...), MultinomialNB(...))`` fitted on all the data at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Self

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import _params as P
from .._base import BaseNB, PosteriorMixin
from .._stats import CountStats, class_codes, union_classes
from .._validation import check_sample_weight
from ..explain import Explanation
from ..naive_bayes import BernoulliNB, ComplementNB, MultinomialNB
from ..scoring import CountRows, TextScorer
from . import _analyzer
from . import _model as M
from ._model import TextStats
from ._model import sklearn_like_selection as _sklearn_like_selection
from ._tokenize import FrozenVocabulary, TermColumns, Terms
from .recipes import resolve as resolve_recipe
from .vectorizers import (
    count_by_class,
    count_terms,
    hash_by_class,
    hash_into,
    hashing_transform,
    transform_counts,
)

__all__ = ["TextClassifier"]


class _NoDocuments(ValueError):
    """fit_chunks was given no documents."""


class _Accumulator:
    """Sums TextStats of successive batches in place (capacity doubling for new terms), so
    streaming a large file does not copy the statistics once per chunk."""

    def __init__(self) -> None:
        self.classes: np.ndarray | None = None
        self.class_count = np.zeros(0)
        self.fc = np.zeros((0, 0))
        self.df = np.zeros(0, dtype=np.int64)
        self.tf = np.zeros(0)
        self.width = 0
        self.n_docs = 0
        self.tf_from_fc = False

    def _grow_columns(self, width: int) -> None:
        capacity = self.fc.shape[1]
        if width <= capacity:
            return
        new = max(width, 2 * capacity)
        fc = np.zeros((self.fc.shape[0], new))
        fc[:, :capacity] = self.fc
        df = np.zeros(new, dtype=np.int64)
        df[:capacity] = self.df
        tf = np.zeros(new)
        tf[:capacity] = self.tf
        self.fc, self.df, self.tf = fc, df, tf

    def _grow_classes(self, batch_classes: np.ndarray) -> np.ndarray:
        if self.classes is None:
            self.classes = batch_classes
            self.class_count = np.zeros(len(batch_classes))
            self.fc = np.zeros((len(batch_classes), self.fc.shape[1]))
            return np.arange(len(batch_classes))
        classes = union_classes(self.classes, batch_classes)
        if len(classes) != len(self.classes):
            pos = np.searchsorted(classes, self.classes)
            fc = np.zeros((len(classes), self.fc.shape[1]))
            fc[pos] = self.fc
            cc = np.zeros(len(classes))
            cc[pos] = self.class_count
            self.classes, self.fc, self.class_count = classes, fc, cc
        return np.searchsorted(self.classes, batch_classes)

    def add(self, batch: TextStats) -> None:
        rows = self._grow_classes(batch.counts.classes)
        width = batch.n_columns
        self._grow_columns(width)
        fc = batch.counts.feature_count
        if sp.issparse(fc):  # hashed batches: add the non-zeros, never a dense C x 2^20
            coo = sp.coo_matrix(fc)
            coo.sum_duplicates()
            self.fc[rows[coo.row], coo.col] += coo.data
        else:
            self.fc[rows, :width] += fc
        self.class_count[rows] += batch.counts.class_count
        self.df[:width] += batch.doc_freq
        self.tf[:width] += batch.term_freq
        self.width = max(self.width, width)
        self.n_docs += batch.n_docs

    def add_hashed(self, docs: list[str], y: np.ndarray, model: TextClassifier) -> bool:
        """Add the hashed counts of a batch straight into the totals (no per-batch table,
        no term list); False, having added nothing, if the compiled kernel cannot."""
        classes, codes = class_codes(y)
        width = int(model.n_features)
        if model._ngram() != (1, 1):
            return False
        rows = self._grow_classes(classes)
        self._grow_columns(width)
        if not hash_into(
            docs, rows[codes], self.fc, self.df, n_features=width,
            binary=model._clip, lowercase=model.lowercase, stop_words=model._stop_set(),
        ):  # fmt: skip
            return False
        self.tf_from_fc = True  # unweighted: the column totals, summed once in stats()
        self.class_count[rows] += np.bincount(codes, minlength=len(classes))
        self.width = max(self.width, width)
        self.n_docs += len(docs)
        return True

    def stats(self) -> TextStats | None:
        if self.classes is None:
            return None
        w = self.width
        counts = CountStats(self.classes, self.class_count, self.fc[:, :w])
        # the batches of fit_chunks are unweighted: term frequency = column total
        tf = self.fc[:, :w].sum(axis=0) if self.tf_from_fc else self.tf[:w]
        return TextStats(counts, self.df[:w], tf, self.n_docs)


def _text_stats(
    classes: np.ndarray,
    codes: np.ndarray,
    sw: np.ndarray | None,
    sums: Any,
    df: np.ndarray,
    n_docs: int,
    term_freq: Any = None,
) -> TextStats:
    """TextStats of one batch: class counts (weighted by ``sw``) and the per-class sums;
    the term frequency defaults to the column totals (unweighted counts)."""
    class_count = np.bincount(codes, weights=sw, minlength=len(classes)).astype(np.float64)
    if term_freq is None:
        term_freq = sums.sum(axis=0)
    return TextStats(
        counts=CountStats(classes, class_count, sums),
        doc_freq=np.asarray(df, dtype=np.int64),
        term_freq=np.asarray(term_freq, dtype=np.float64),
        n_docs=n_docs,
    )


def _require_terms(stats: TextStats) -> None:
    """A model needs at least one term (or bucket) seen in some document."""
    if not (stats.doc_freq > 0).any():
        raise ValueError(
            "empty vocabulary; perhaps the documents only contain stop words "
            "(no token of two or more word characters was found)."
        )


def _check_labels(y: np.ndarray) -> None:
    """Labels must be present (no NaN/None) and discrete, as for the core estimators."""
    if y.ndim == 1 and y.dtype.kind in "US":
        return  # strings: always present, always discrete classes
    missing = np.array([v is None or (isinstance(v, float) and v != v) for v in y.tolist()])
    if missing.any():
        rows = np.flatnonzero(missing)[:5].tolist()
        raise ValueError(
            f"The labels contain NaN or None for document(s) {rows}: every document needs a "
            "label. Drop the unlabelled documents first."
        )
    check_classification_targets(y)


class TextClassifier(PosteriorMixin, ClassifierMixin, BaseEstimator):
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
        Keep the most frequent terms only.
    hashing : bool, default=False
        Hash terms into ``n_features`` buckets (bounded memory, no vocabulary). Smoothing
        is spread over the buckets seen in training only.
    n_features : int, default=2**20
    fit_prior, class_prior, force_alpha, norm
        As in the scikit-learn estimators (``norm`` for complement only).

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
    P(ham) · P(x | ham) = 3/6 · 2/12 · 1/12 = 1/144 ≈ 0.00694
    P(spam) · P(x | spam) = 3/6 · 3/12 · 3/12 = 1/32 = 0.03125
    ...
    Decision: spam
    """

    _param_rules: dict[str, list[P.Rule]] = M.PARAM_RULES

    def __init__(
        self,
        *,
        model: str = "multinomial",
        alpha: float = 1.0,
        binary: bool = False,
        ngram_range: tuple[int, int] = (1, 1),
        lowercase: bool = True,
        preprocess: Any = None,
        stop_words: Any = None,
        min_df: float | int = 1,
        max_df: float | int = 1.0,
        max_features: int | None = None,
        hashing: bool = False,
        n_features: int = 2**20,
        fit_prior: bool = True,
        class_prior: Any = None,
        force_alpha: bool = True,
        norm: bool = False,
    ) -> None:
        self.model = model
        self.alpha = alpha
        self.binary = binary
        self.ngram_range = ngram_range
        self.lowercase = lowercase
        self.preprocess = preprocess
        self.stop_words = stop_words
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.hashing = hashing
        self.n_features = n_features
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.force_alpha = force_alpha
        self.norm = norm

    # ------------------------------------------------------------ validation
    def _check_params(self) -> None:
        M.check_params(self)

    def _ngram(self) -> tuple[int, int]:
        return M.ngram_of(self.ngram_range)

    def _stop_set(self) -> frozenset[str] | None:
        return M.stop_set(self.stop_words)

    @property
    def _clip(self) -> bool:
        return bool(self.binary or self.model == "bernoulli")

    def _docs(self, X: Any) -> list[str]:
        """Validated documents, after the ``preprocess`` step."""
        return _analyzer.documents(X, resolve_recipe(self.preprocess))

    @staticmethod
    def _raw_docs(X: Any) -> list[str]:
        return _analyzer.raw_documents(X)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "_stats")

    # -------------------------------------------------------------- counting
    def _count(
        self,
        docs: list[str],
        y: np.ndarray,
        sample_weight: Any,
        vocabulary: dict[str, int],
        lean: bool = False,
        fixed: bool = False,
    ) -> TextStats:
        """Statistics of one batch; extends ``vocabulary`` in place with its new terms
        (``fixed``: counts only the terms of ``vocabulary``, ignoring the others).

        ``lean`` (hashing, unweighted, for :class:`_Accumulator` only): the per-class sums
        stay a sparse matrix instead of a dense ``n_classes x n_features`` table.
        """
        classes, codes = class_codes(y)
        n = len(classes)
        kw = dict(lowercase=self.lowercase, ngram_range=self._ngram(), stop_words=self.stop_words)
        sw = None if sample_weight is None else check_sample_weight(sample_weight, len(docs))
        if self.hashing and lean and sw is None:
            X = sp.csr_matrix(
                hashing_transform(
                    docs, n_features=self.n_features, alternate_sign=False, norm=None,
                    binary=self._clip, **kw,
                )
            )  # fmt: skip
            Y = sp.csr_matrix(
                (np.ones(len(codes)), (codes, np.arange(len(codes)))), (n, len(codes))
            )
            sums = Y @ X  # sparse: the accumulator adds its non-zeros
            df = np.bincount(X.indices, minlength=self.n_features).astype(np.int64)
            term_freq = np.asarray(X.sum(axis=0), dtype=np.float64).reshape(-1)
        elif self.hashing:
            sums, df = hash_by_class(
                docs, codes, n, n_features=self.n_features, binary=self._clip, **kw
            )
            term_freq = sums.sum(axis=0)
            if sw is not None:
                X = hashing_transform(
                    docs, n_features=self.n_features, alternate_sign=False, norm=None,
                    binary=self._clip, **kw,
                )  # fmt: skip
                sums = CountStats.from_batch(X, y, sw).feature_count
        else:
            if sw is None:
                vocabulary, sums, df = count_by_class(
                    docs, codes, n, binary=self._clip, vocabulary=vocabulary,
                    fixed_vocabulary=fixed, dtype=np.float64, **kw,
                )  # fmt: skip
                term_freq = sums.sum(axis=0)
            else:
                count_by_class(docs, codes, n, vocabulary=vocabulary, **kw)  # extend vocab
                X = transform_counts(docs, vocabulary, binary=self._clip, **kw)
                sums = CountStats.from_batch(X, y, sw).feature_count
                df = np.bincount(X.indices, minlength=len(vocabulary)).astype(np.int64)
                term_freq = np.asarray(X.sum(axis=0), dtype=np.float64).reshape(-1)
        return _text_stats(classes, codes, sw, sums, df, len(docs), term_freq)

    def _count_fresh(
        self, docs: list[str], y: np.ndarray
    ) -> tuple[TextStats, Sequence[str]] | None:
        """A fit's statistics and its sorted terms, without building the term dict (the
        unigram compiled path); None when that path cannot take the batch."""
        if self._ngram() != (1, 1):
            return None
        classes, codes = class_codes(y)
        got = count_terms(
            docs, codes, len(classes), lowercase=self.lowercase, binary=self._clip,
            stop_words=self.stop_words,
        )  # fmt: skip
        if got is None:
            return None
        terms, sums, df = got
        return _text_stats(classes, codes, None, sums, df, len(docs)), terms

    def _batch(
        self,
        X: Any,
        y: Any,
        sample_weight: Any,
        vocabulary: dict[str, int],
        lean: bool = False,
    ) -> TextStats:
        docs, y = self._checked(X, y)
        return self._count(docs, y, sample_weight, vocabulary, lean=lean)

    def _checked(self, X: Any, y: Any) -> tuple[list[str], np.ndarray]:
        """Documents (after ``preprocess``) and labels of one training batch, validated."""
        docs = self._docs(X)
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(docs):
            raise ValueError(
                f"Found {len(docs)} documents but {y.shape[0] if y.ndim else 0} labels: "
                "pass one label per document."
            )
        if len(docs) == 0:
            raise ValueError("Found 0 documents: pass at least one document to learn from.")
        _check_labels(y)
        return docs, y

    def _set(
        self, stats: TextStats, vocabulary: dict[str, int] | Sequence[str] | None
    ) -> Self:
        """Install statistics and their vocabulary: a dict term -> column, or the terms
        in column order (the dict is then built only if something needs it)."""
        self._stats = stats
        if vocabulary is None or isinstance(vocabulary, dict):
            self._vocab = vocabulary
        else:  # the terms in column order (a list, or a fit's Terms)
            self._vocab_dict: dict[str, int] | None = None
            self._vocab_terms: Sequence[str] | None = vocabulary
        self.__dict__.pop("_cache", None)
        self.__dict__.pop("_selection_cache", None)
        return self

    @property
    def _vocab(self) -> dict[str, int] | None:
        """Term -> column of every term the statistics hold (None when hashing); made
        from the term list on first use (a fit that only predicts never needs it)."""
        vocab = self.__dict__.get("_vocab_dict")
        terms = self.__dict__.get("_vocab_terms")
        if vocab is None and terms is not None:
            vocab = dict(zip(terms, range(len(terms)), strict=True))
            self._vocab_dict = vocab
        return vocab

    @_vocab.setter
    def _vocab(self, vocabulary: dict[str, int] | None) -> None:
        self._vocab_dict = vocabulary
        self._vocab_terms = None

    def _terms(self) -> list[str] | None:
        """The terms in column order (None when hashing)."""
        terms = self.__dict__.get("_vocab_terms")
        if terms is not None:
            return list(terms)
        vocab = self.__dict__.get("_vocab_dict")
        return None if vocab is None else list(vocab)

    # -------------------------------------------------------------- training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Learn from raw documents ``X`` (an iterable of str) and their labels ``y``."""
        self._check_params()
        docs, y = self._checked(X, y)
        fresh = None
        if not self.hashing and sample_weight is None:
            fresh = self._count_fresh(docs, y)
        vocabulary: dict[str, int] | Sequence[str]
        if fresh is not None:
            stats, vocabulary = fresh
        else:
            vocabulary = {}
            stats = self._count(docs, y, sample_weight, vocabulary)
        _require_terms(stats)
        return self._set(stats, None if self.hashing else vocabulary)

    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None) -> Self:
        """Incremental fit (scikit-learn semantics: ``classes`` on the first call)."""
        if not self.__sklearn_is_fitted__():
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            self._check_params()
            empty = CountStats.empty(np.unique(np.asarray(classes)), 0)
            self._set(
                TextStats(empty, np.zeros(0, np.int64), np.zeros(0), 0),
                None if self.hashing else {},
            )
        known = self._stats.counts.classes
        labels = np.unique(np.asarray(y))
        unknown = labels[~np.isin(labels, known)]
        if unknown.size:
            raise ValueError(
                f"The target label(s) {unknown} in y do not exist in the initial classes {known}"
            )
        return self.update(X, y, sample_weight=sample_weight)

    def update(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Learn more documents; new classes and new words may appear at any time."""
        if not self.__sklearn_is_fitted__():
            return self.fit(X, y, sample_weight=sample_weight)
        union_classes(self._stats.counts.classes, np.unique(np.asarray(y)))  # type check
        vocabulary = None if self._vocab is None else dict(self._vocab)
        batch = self._batch(X, y, sample_weight, vocabulary if vocabulary is not None else {})
        return self._set(self._stats.merge(batch), vocabulary)

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Remove documents the model learned: equal to a model fitted without them.

        Words that no remaining document uses leave the vocabulary. Removing documents
        the model never saw raises ValueError and leaves the model unchanged.
        """
        check_is_fitted(self)
        vocabulary = None if self._vocab is None else dict(self._vocab)
        batch = self._batch(X, y, sample_weight, vocabulary if vocabulary is not None else {})
        if vocabulary is not None and len(vocabulary) > len(self._vocab or {}):
            new = [t for t in vocabulary if t not in (self._vocab or {})][:5]
            raise ValueError(
                f"Cannot unlearn these documents: they contain words the model never "
                f"learned ({', '.join(map(repr, new))}). Nothing was changed."
            )
        stats = self._stats.subtract(batch)
        if len(stats.counts.classes) == 0:
            raise ValueError(
                "Cannot unlearn every document: the model would have no class left. "
                "Nothing was changed."
            )
        if vocabulary is not None:
            stats, vocabulary = _drop_unused_terms(stats, vocabulary)
        return self._set(stats, vocabulary)

    def merge(self, other: TextClassifier) -> TextClassifier:
        """The model of both models' documents (same settings; vocabularies united)."""
        if not isinstance(other, TextClassifier):
            raise ValueError(f"Cannot merge a TextClassifier with a {type(other).__name__}.")
        check_is_fitted(self)
        check_is_fitted(other)
        mine, theirs = self.get_params(), other.get_params()
        differ = [k for k in mine if repr(mine[k]) != repr(theirs[k])]
        if differ:
            shown = ", ".join(f"{k}={mine[k]!r} vs {theirs[k]!r}" for k in differ)
            raise ValueError(
                f"Cannot merge models with different hyperparameters ({shown}): set them "
                "equal first (set_params)."
            )
        merged = TextClassifier(**mine)
        if self._vocab is None:
            return merged._set(self._stats.merge(other._stats), None)
        vocabulary = dict(self._vocab)
        assert other._vocab is not None
        for term in other._vocab:
            if term not in vocabulary:
                vocabulary[term] = len(vocabulary)
        cols = np.fromiter((vocabulary[t] for t in other._vocab), np.int64, len(other._vocab))
        theirs_stats = _scatter_columns(other._stats, cols, len(vocabulary))
        return merged._set(self._stats.merge(theirs_stats), vocabulary)

    def __add__(self, other: TextClassifier) -> TextClassifier:
        return self.merge(other)

    def fit_files(
        self,
        source: Any,
        text_col: str = "text",
        label_col: str = "label",
        chunk_size: int = 10_000,
        prune_first: bool = False,
        **read_kw: Any,
    ) -> Self:
        """Train from files chunk by chunk (any source ``nbayes.io.read_texts`` reads).

        The result equals :meth:`fit` on all the documents. Memory stays bounded by one
        chunk plus the statistics, which are accumulated in place (with hashing, a
        fixed ``n_classes x n_features`` table; otherwise one column per distinct term).

        Parameters
        ----------
        prune_first : bool, default=False
            Read the source twice: first only each term's document and corpus frequency, to
            choose the vocabulary ``min_df``/``max_df``/``max_features`` keep; then the
            per-class counts of those terms only. The per-class statistics then grow with
            ``max_features`` instead of with every distinct term of the corpus (the first
            pass still holds one dictionary entry per term). Predictions equal :meth:`fit`;
            the model keeps statistics of the kept terms only, so a later :meth:`update`
            prunes among those.
        """
        from ..io import read_texts

        def chunks() -> Iterator[tuple[list[str], Any]]:
            for c in read_texts(source, text_col, label_col, chunk_size=chunk_size, **read_kw):
                yield c.texts, c.labels

        try:
            if prune_first and not self.hashing:
                return self._fit_pruned_first(chunks)
            return self.fit_chunks(chunks())
        except _NoDocuments:
            raise ValueError(f"No documents found in {source!r}: nothing to learn from.") from None

    def _fit_pruned_first(self, chunks: Callable[[], Iterable[tuple[Any, Any]]]) -> Self:
        """Two passes: frequencies to choose the vocabulary, then per-class counts."""
        self._check_params()
        kw = dict(lowercase=self.lowercase, ngram_range=self._ngram(), stop_words=self.stop_words)
        everything: dict[str, int] = {}
        df_total = _Accumulator()
        for texts, labels in chunks():
            docs = self._docs(texts)
            if len(docs) != len(labels):
                raise ValueError(f"Found {len(docs)} documents but {len(labels)} labels.")
            _, tf, df = count_by_class(
                docs, np.zeros(len(docs), dtype=np.int64), 1, binary=self._clip,
                vocabulary=everything, dtype=np.float64, **kw,
            )  # fmt: skip
            one = CountStats(np.array([0]), np.array([float(len(docs))]), tf)
            df_total.add(TextStats(one, df, tf[0], len(docs)))
        freq = df_total.stats()
        if freq is None:
            raise _NoDocuments("No documents: nothing to learn from.")
        kept = _sklearn_like_selection(
            list(everything), freq.doc_freq, freq.term_freq, freq.n_docs, self.min_df,
            self.max_df, self.max_features,
        )  # fmt: skip
        terms = list(everything)
        vocabulary = {terms[j]: i for i, j in enumerate(kept)}
        del everything, terms, freq, df_total
        total = _Accumulator()
        for texts, labels in chunks():
            docs, y = self._docs(texts), np.asarray(labels)
            _check_labels(y)
            total.add(self._count(docs, y, None, vocabulary, fixed=True))
        stats = total.stats()
        if stats is None:
            raise _NoDocuments("No documents: nothing to learn from.")
        return self._set(stats, vocabulary)

    def fit_chunks(self, chunks: Iterable[tuple[Sequence[str], Any]]) -> Self:
        """Train from ``(documents, labels)`` chunks: equal to :meth:`fit` on all of them.

        The statistics of each chunk are added in place, so only one chunk of documents is
        held at a time.
        """
        self._check_params()
        vocabulary: dict[str, int] = {}
        total = _Accumulator()
        for texts, labels in chunks:
            if self.hashing:
                docs, y = self._checked(texts, np.asarray(labels))
                if total.add_hashed(docs, y, self):
                    continue
                total.add(self._count(docs, y, None, vocabulary, lean=True))
            else:
                total.add(self._batch(texts, np.asarray(labels), None, vocabulary, lean=True))
        stats = total.stats()
        if stats is None:
            raise _NoDocuments("No documents: nothing to learn from.")
        _require_terms(stats)
        return self._set(stats, None if self.hashing else vocabulary)

    # ------------------------------------------------------------ derivation
    def _derived(self) -> dict[str, Any]:
        cache = self.__dict__.get("_cache")
        if cache is not None and cache[0] is self.__dict__.get("_stats") and cache[3] is not None:
            # the common case of prediction: the same statistics and hyperparameters that
            # are all immutable values (a mutable one, e.g. a stop-word list changed in
            # place, is compared by its repr below)
            if tuple(map(self.__dict__.get, _PARAM_NAMES)) == cache[3]:
                return cache[2]
        check_is_fitted(self)
        key = tuple(repr(getattr(self, name)) for name in _PARAM_NAMES)
        if cache is not None and cache[0] is self._stats and cache[1] == key:
            return cache[2]
        self._check_params()
        derived: dict[str, Any] = dict(self._selection())
        inner = self._inner()
        inner.n_features_in_ = len(derived["kept"])
        inner._set_stats(derived["inner_stats"])
        d = inner._derived()
        derived.update(inner=inner, d=d, stop_set=self._stop_set())
        # prediction and explanations: the numpy-only scorer of these log-probabilities
        # (its weights are laid out on first use)
        params = {name: getattr(self, name) for name in _PARAM_NAMES}
        derived["scorer"] = TextScorer(params, derived, d)
        values = tuple(params.values())
        self._cache = (self._stats, key, derived, values if _immutable(values) else None)
        return derived

    def _scorer(self) -> TextScorer:
        """What prediction needs, derived from the statistics (cached with the derivation:
        new statistics or hyperparameters make a new one)."""
        scorer: TextScorer = self._derived()["scorer"]
        return scorer

    def _selection(self) -> dict[str, Any]:
        """The kept vocabulary (min_df, max_df, max_features), cached apart from smoothing:
        an alpha sweep re-derives log-probabilities, not the vocabulary."""
        stats = self._stats
        key = (self.min_df, self.max_df, self.max_features, self.hashing, self.n_features)
        cache = self.__dict__.get("_selection_cache")
        if cache is not None and cache[0] is stats and cache[1] == key:
            return cache[2]
        raw = self.__dict__.get("_vocab_terms")
        terms = raw if isinstance(raw, Terms) else self._terms()
        out = M.select_columns(
            stats, terms, min_df=self.min_df, max_df=self.max_df,
            max_features=self.max_features, n_features=self.n_features,
            mapping=FrozenVocabulary,
        )  # fmt: skip
        self._selection_cache = (stats, key, out)
        return out

    def _inner(self) -> BaseNB:
        common = dict(
            alpha=self.alpha, force_alpha=self.force_alpha, fit_prior=self.fit_prior,
            class_prior=self.class_prior,
        )  # fmt: skip
        if self.model == "bernoulli":
            return BernoulliNB(binarize=None, **common)
        if self.model == "complement":
            return ComplementNB(norm=self.norm, **common)
        return MultinomialNB(**common)

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

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """log P(y) + log P(document | y) per document and class."""
        docs = self._docs(X)
        scorer = self._scorer()
        if self.__dict__.get("_transform_memo") is None:
            return scorer.score_documents(docs)
        return scorer.score_documents(docs, lambda docs: self._scored_rows(X, docs))

    def _scored_rows(self, X: Any, docs: list[str]) -> CountRows:
        # Model selection scores the same held-out documents under many smoothing settings:
        # tokenize them once per kept vocabulary (see _TextCounter).
        memo = self.__dict__["_transform_memo"]
        kept = self._derived()["kept"]
        for given, for_kept, rows in memo:
            if given is X and for_kept is kept:
                return rows
        rows = self._scorer().count(docs)
        memo[:] = [*memo[-1:], (X, kept, rows)]
        return rows

    def _class_log_prior(self) -> np.ndarray:
        return self._scorer()._class_log_prior()

    # ------------------------------------------------------- beyond sklearn
    def explain(self, text: str, exact: bool = False) -> Explanation:
        """Every word's evidence per class for one document (exact fractions optional).

        Only the words of the document that the model knows appear; for Bernoulli models
        the absent words count too.
        """
        _analyzer.check_one_text(text)
        return self._scorer().explain(text, exact=exact)

    def most_informative_features(self, n: int = 10) -> list[tuple[str, Any, float]]:
        """Words ranked by how strongly they separate the classes: (word, class, score)."""
        derived = self._derived()
        inner = derived["inner"]
        scores, best = inner._family.separation(derived["d"])
        order = np.argsort(-scores, kind="stable")[: max(int(n), 0)]
        names = derived["names"]
        return [(names[j], self.classes_[best[j]], float(scores[j])) for j in order]

    def sample(
        self, n_samples: int = 1, random_state: Any = None
    ) -> tuple[list[list[str]], np.ndarray]:
        """Documents generated by the model, as word lists (in random order), and labels."""
        derived = self._derived()
        X, y = derived["inner"].sample(n_samples, random_state=random_state)
        rng = np.random.default_rng(random_state)
        names = derived["names"]
        docs = []
        for row in np.asarray(X, dtype=np.int64):
            words = [names[j] for j in np.flatnonzero(row) for _ in range(row[j])]
            rng.shuffle(words)
            docs.append(words)
        return docs, y

    def n_parameters(self, full_joint: bool = False, doc_length: int | None = None) -> float:
        """Free parameters over the kept vocabulary (see ``BaseNB.n_parameters``)."""
        return self._derived()["inner"].n_parameters(full_joint, doc_length)

    # ------------------------------------------------------ fitted attributes
    @property
    def classes_(self) -> np.ndarray:
        return self._stats.counts.classes

    @property
    def class_count_(self) -> np.ndarray:
        return self._stats.counts.class_count

    @property
    def vocabulary_(self) -> dict[str, int]:
        """Term -> column of the kept vocabulary, sorted by term (as CountVectorizer's)."""
        if self.hashing:
            raise AttributeError("A hashing TextClassifier has no vocabulary_.")
        vocabulary = self._derived()["vocabulary"]
        if isinstance(vocabulary, TermColumns):
            vocabulary = vocabulary.mapping()
        return dict(vocabulary)

    def get_feature_names_out(self) -> np.ndarray:
        return np.asarray(list(self._derived()["names"]), dtype=object)

    @property
    def feature_count_(self) -> np.ndarray:
        return self._derived()["inner"].feature_count_

    @property
    def feature_log_prob_(self) -> np.ndarray:
        return self._derived()["inner"].feature_log_prob_

    @property
    def class_log_prior_(self) -> np.ndarray:
        return self._derived()["inner"].class_log_prior_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    def _cv_counter(self) -> _TextCounter:
        """The counting protocol of :mod:`nbayes.model_selection` for text."""
        return _TextCounter(self)


class _TextCounter:
    """Cross-validation by count subtraction for :class:`TextClassifier`.

    Every fold is tokenized and counted once over one shared vocabulary; a split's training
    statistics (``total - fold``) then keep only the words its training documents have, so
    its vocabulary and its document frequencies (for ``min_df``/``max_df``) are those a
    ``Pipeline(CountVectorizer, ...)`` refitted on the training rows would have.
    """

    derivation_params = (
        "alpha", "force_alpha", "fit_prior", "class_prior", "norm", "min_df", "max_df",
        "max_features",
    )  # fmt: skip

    def __init__(self, estimator: TextClassifier) -> None:
        self.model = TextClassifier(**estimator.get_params())
        self.model._transform_memo = []
        self._vocab: dict[str, int] = {}
        self._docs: list[str] = []
        self._y = np.zeros(0)
        self._sw: np.ndarray | None = None

    def prepare(self, X: Any, y: Any, sample_weight: Any) -> np.ndarray:
        model = self.model
        model._check_params()
        self._docs = model._docs(X)
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(self._docs):
            raise ValueError(
                f"Found {len(self._docs)} documents but {len(y)} labels: pass one label per "
                "document."
            )
        _check_labels(y)
        self._y = y
        self._sw = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
        return y

    def count(self, rows: np.ndarray) -> TextStats:
        docs = [self._docs[i] for i in rows]
        sw = None if self._sw is None else self._sw[rows]
        vocabulary = self._vocab if not self.model.hashing else {}
        return self.model._count(docs, self._y[rows], sw, vocabulary)

    def finish(self, stats: TextStats, classes: np.ndarray) -> Any:
        from ..model_selection import _conform_classes

        stats = replace(stats, counts=_conform_classes(stats.counts, classes))
        if self.model.hashing:
            return stats.widen(self.model.n_features), None
        stats = stats.widen(len(self._vocab))
        return _drop_unused_terms(stats, dict(self._vocab))

    def use(self, finished: Any, params: Any) -> TextClassifier:
        stats, vocabulary = finished
        model = self.model
        if getattr(model, "_stats", None) is not stats:
            model._set(stats, vocabulary)
        if params:
            model.set_params(**params)
        model._check_params()
        model._derived()
        return model


def _scatter_columns(stats: TextStats, cols: np.ndarray, n_columns: int) -> TextStats:
    """Statistics laid out over another model's columns: column j goes to ``cols[j]``."""
    c = stats.counts
    fc = np.zeros((c.feature_count.shape[0], n_columns))
    fc[:, cols] = c.feature_count
    df = np.zeros(n_columns, dtype=np.int64)
    df[cols] = stats.doc_freq
    tf = np.zeros(n_columns)
    tf[cols] = stats.term_freq
    return TextStats(replace(c, feature_count=fc), df, tf, stats.n_docs)


def _drop_unused_terms(
    stats: TextStats, vocabulary: dict[str, int]
) -> tuple[TextStats, dict[str, int]]:
    """Forget terms no remaining document uses (a fit without them never saw them)."""
    used = stats.doc_freq > 0
    if used.all():
        return stats, vocabulary
    keep = np.flatnonzero(used)
    terms = list(vocabulary)
    new_vocab = {terms[j]: i for i, j in enumerate(keep)}
    c = stats.counts
    return (
        TextStats(
            replace(c, feature_count=c.feature_count[:, keep]),
            stats.doc_freq[keep],
            stats.term_freq[keep],
            stats.n_docs,
        ),
        new_vocab,
    )


_PARAM_NAMES = tuple(TextClassifier._get_param_names())
_SCALARS = (bool, int, float, str, bytes, type(None))


def _immutable(values: tuple[Any, ...]) -> bool:
    """Whether hyperparameter values can be compared by ``==`` to detect any change: plain
    scalars, or tuples of them (a list or an array may change in place)."""
    return all(
        type(v) in _SCALARS or (type(v) is tuple and all(type(x) in _SCALARS for x in v))
        for v in values
    )
