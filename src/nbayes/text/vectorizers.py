"""scikit-learn's bag-of-words vectorizers, exact, with a compiled fast path.

:class:`CountVectorizer`, :class:`TfidfVectorizer` and :class:`HashingVectorizer` are
scikit-learn's classes with a compiled fast path for the default word analyzer; every other
setting falls back to scikit-learn's own code (:mod:`nbayes.text._routes` decides), so
results are always identical to scikit-learn's. :class:`TfidfTransformer` is
scikit-learn's own class, re-exported (it counts nothing).

The kernel-level entry points used to train and apply Naive Bayes without materialising
a document x term matrix live in :mod:`nbayes.text._drivers.class_counts` (:func:`count_by_class`,
:func:`transform_counts`) and :mod:`nbayes.text._drivers.hash_counts` (:func:`hashing_transform`,
:func:`hash_by_class`, :func:`hash_into`); they are importable from here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from sklearn.feature_extraction import text as _sk_text

from nbayes._template.guards import restored_on_failure
from nbayes.text import _routes as routes
from nbayes.text import _tokenize as _tk
from nbayes.text._analyzer import transform_one
from nbayes.text._drivers.class_counts import (
    _without_stop_words,
    count_by_class,
    csr_pieces_to_sklearn,
    stop_set,
    transform_counts,
)
from nbayes.text._drivers.hash_counts import hash_by_class, hash_into, hashing_transform
from nbayes.text._drivers.token_streams import _Analysis

__all__ = [
    "CountVectorizer",
    "HashingVectorizer",
    "TfidfTransformer",
    "TfidfVectorizer",
    "count_by_class",
    "transform_counts",
    "transform_one",
    "hashing_transform",
    "hash_by_class",
    "hash_into",
]


#: scikit-learn's ``TfidfTransformer``, re-exported: it weights a count matrix and counts
#: nothing, so there is no fast path to add (``TfidfVectorizer`` uses this very class)
TfidfTransformer = _sk_text.TfidfTransformer


@contextmanager
def _fitting(vectorizer: Any) -> Iterator[None]:
    """A vectorizer's fit: all-or-nothing (nbayes._template.guards.restored_on_failure: a
    failing refit keeps the fitted vocabulary, and idf, as they were), and no scratch
    attribute of the counting left behind, whatever happens."""
    with restored_on_failure(vectorizer):
        try:
            yield
        finally:
            vectorizer.__dict__.pop("_nb_sorted_vocabulary", None)


def _empty_vocabulary() -> ValueError:
    """scikit-learn's error (and message) for a fit that finds no term."""
    return ValueError("empty vocabulary; perhaps the documents only contain stop words")


# Both classes override scikit-learn's own internal steps of its vectorizers
# (``_count_vocab``, ``_sort_features``, ``_limit_features``, and ``transform``): that is
# where the counting happens, and overriding them keeps every public behaviour (parameter
# validation, ``fit``/``transform`` semantics, attributes, warnings) scikit-learn's own. The
# private names are used here only; the parity tests (tests/text/test_vectorizers.py) hold
# every route to scikit-learn's output, so a change upstream fails there first.
class CountVectorizer(_sk_text.CountVectorizer):
    """scikit-learn's ``CountVectorizer`` with an exact compiled fast path.

    Same parameters, defaults, attributes and results as
    :class:`sklearn.feature_extraction.text.CountVectorizer`. When the settings are
    the default word analyzer (``token_pattern`` default, no custom ``preprocessor`` /
    ``tokenizer``, no ``strip_accents``, ``input='content'``, any word
    ``ngram_range``) and all documents are ``str``, counting runs in compiled kernels
    (n-grams longer than pairs composed from the compiled token ids, see
    :mod:`nbayes.text._drivers.ngrams`); otherwise scikit-learn's implementation is used.

    Examples
    --------
    >>> from nbayes.text import CountVectorizer
    >>> cv = CountVectorizer()
    >>> cv.fit_transform(["Hello world", "hello again"]).toarray()
    array([[0, 1, 1],
           [1, 1, 0]])
    >>> cv.get_feature_names_out().tolist()
    ['again', 'hello', 'world']
    """

    def fit_transform(self, raw_documents: Iterable[Any], y: Any = None) -> Any:
        with _fitting(self):
            return super().fit_transform(raw_documents, y)

    fit_transform.__doc__ = _sk_text.CountVectorizer.fit_transform.__doc__

    def _count_vocab(self, raw_documents: Iterable[Any], fixed_vocab: bool) -> Any:
        docs = raw_documents if isinstance(raw_documents, list) else list(raw_documents)
        route, ngram = routes.vectorizer(self, docs)
        if route == routes.SKLEARN:
            return super()._count_vocab(docs, fixed_vocab)
        self.build_analyzer()  # validation and stop-word consistency warning, as sklearn
        if route == routes.ZERO_COPY:  # declined (None): token streams
            direct = self._count_vocab_direct(docs, fixed_vocab)
            if direct is not None:
                return direct
        an = _Analysis(docs, self.lowercase, self.get_stop_words(), ngram)
        if fixed_vocab:
            vocabulary = self.vocabulary_
            col = an.fixed_columns(vocabulary)
            n_cols = len(vocabulary)
        else:
            col, n_cols = an.seen()
            if n_cols == 0:
                raise _empty_vocabulary()
            ids = np.flatnonzero(col >= 0)
            ids = ids[np.argsort(col[ids])]  # in order of first appearance
            rank = np.empty(len(col), dtype=np.int64)
            rank[an.sorted_ids(ids)] = np.arange(n_cols, dtype=np.int64)
            # the state scikit-learn reaches after _sort_features, without its passes
            # over the dict: keys in order of first appearance, values alphabetical
            vocabulary = dict(zip(an.term_strings(ids), rank[ids].tolist(), strict=True))
            indptr, indices, values = an.rows(col, n_cols)  # rows by first appearance
            indices = rank[ids][indices]
            self._nb_sorted_vocabulary = vocabulary
            X = csr_pieces_to_sklearn(indptr, indices, values, n_cols, self.dtype, sort=False)
            return vocabulary, X
        indptr, indices, values = an.rows(col, n_cols)
        return vocabulary, csr_pieces_to_sklearn(indptr, indices, values, n_cols, self.dtype)

    def _count_vocab_direct(self, docs: list[str], fixed_vocab: bool) -> Any:
        """Unigrams through the zero-copy kernels: the sorted vocabulary in one pass
        (unless fixed), then the rows over it; None when the kernels cannot read."""
        stop = stop_set(self.get_stop_words())
        if fixed_vocab:
            vocabulary = self.vocabulary_
        else:
            zeros = np.zeros(len(docs), dtype=np.int64)
            counted = _tk.direct_count(docs, zeros, 1, bool(self.lowercase), False)
            if counted is None:
                return None
            terms = _without_stop_words(counted, stop)[0]
            if not terms:
                raise _empty_vocabulary()
            vocabulary = dict(zip(terms, range(len(terms)), strict=True))
        first: list[np.ndarray] | None = None if fixed_vocab else []
        pieces = _tk.direct_transform(docs, vocabulary, bool(self.lowercase), stop, first=first)
        if pieces is None:
            return None
        indptr, indices, values = pieces
        if first is not None:
            # scikit-learn numbers the terms as they first appear, sorts each row by that
            # number, then renumbers the columns alphabetically (_sort_features): the
            # rows keep first-appearance order and the dict lists terms in that order.
            order = np.concatenate(first)
            appearance = np.empty(len(order), dtype=np.int64)
            appearance[order] = np.arange(len(order))
            _tk.order_rows(indptr, indices, values, appearance)
            vocabulary = dict(zip([terms[c] for c in order.tolist()], order.tolist(),
                                  strict=True))  # fmt: skip
            self._nb_sorted_vocabulary = vocabulary
        X = csr_pieces_to_sklearn(
            indptr, indices, values, len(vocabulary), self.dtype, sort=first is None
        )
        return vocabulary, X

    # Vectorised, behaviour-identical versions of scikit-learn's per-term Python loops.
    def _sort_features(self, X: Any, vocabulary: dict[str, Any]) -> Any:
        if self.__dict__.pop("_nb_sorted_vocabulary", None) is vocabulary:
            return X  # counted with alphabetical columns already (and pruning keeps them)
        terms = sorted(vocabulary)
        get = vocabulary.__getitem__
        old = np.fromiter(map(get, terms), dtype=np.int64, count=len(terms))
        map_index = np.empty(len(terms), dtype=X.indices.dtype)
        map_index[old] = np.arange(len(terms), dtype=X.indices.dtype)
        vocabulary.update(zip(terms, range(len(terms)), strict=True))
        X.indices = map_index.take(X.indices, mode="clip")
        return X

    def _limit_features(
        self,
        X: Any,
        vocabulary: dict[str, Any],
        high: Any = None,
        low: Any = None,
        limit: Any = None,
    ) -> Any:
        if high is None and low is None and limit is None:
            return super()._limit_features(X, vocabulary, high, low, limit)
        dfs = np.bincount(X.indices, minlength=X.shape[1])  # X is CSR: documents per term
        mask = np.ones(len(dfs), dtype=bool)
        if high is not None:
            mask &= dfs <= high
        if low is not None:
            mask &= dfs >= low
        if limit is not None and mask.sum() > limit:
            tfs = np.asarray(X.sum(axis=0)).ravel()
            mask_inds = (-tfs[mask]).argsort()[:limit]
            new_mask = np.zeros(len(dfs), dtype=bool)
            new_mask[np.where(mask)[0][mask_inds]] = True
            mask = new_mask
        if mask.all():
            # nothing to drop: scikit-learn rewrites every value as the same number (as a
            # numpy integer); the values are left as they are, equal, in one step less
            return X
        new_indices = np.cumsum(mask) - 1
        terms = list(vocabulary)
        old = np.fromiter(vocabulary.values(), dtype=np.int64, count=len(terms))
        keep = mask[old]
        kept_terms = [t for t, k in zip(terms, keep.tolist(), strict=True) if k]
        new_vals = new_indices[old[keep]].tolist()  # Python ints, as scikit-learn stores
        vocabulary.clear()
        vocabulary.update(zip(kept_terms, new_vals, strict=True))
        kept_indices = np.where(mask)[0]
        if len(kept_indices) == 0:
            raise ValueError(
                "After pruning, no terms remain. Try a lower min_df or a higher max_df."
            )
        if len(kept_indices) == X.shape[1]:
            return X  # X[:, all columns] is an identical copy
        return X[:, kept_indices]


# The MRO is this class, nbayes's CountVectorizer, then scikit-learn's TfidfVectorizer and
# CountVectorizer: __init__, _parameter_constraints, transform, idf_ and the tags are
# scikit-learn's TfidfVectorizer's, and so are the bodies of fit and fit_transform; all
# reach the counting through ``self`` (``_count_vocab``, ``_sort_features``,
# ``_limit_features``: nbayes's). scikit-learn's ``fit`` calls ``super().fit_transform``,
# its CountVectorizer's, past nbayes's wrapper, so both fits are wrapped here as
# CountVectorizer.fit_transform is (tests/text/test_tfidf.py checks the MRO).
class TfidfVectorizer(CountVectorizer, _sk_text.TfidfVectorizer):
    """scikit-learn's ``TfidfVectorizer`` with the exact compiled counting of
    :class:`CountVectorizer`.

    Same parameters, defaults (``dtype=np.float64``), attributes (``vocabulary_``,
    ``idf_``, ``fixed_vocabulary_``), errors, warnings and results as
    :class:`sklearn.feature_extraction.text.TfidfVectorizer`: the documents are counted
    as :class:`CountVectorizer` counts them (in compiled kernels for the default word
    analyzer and ``str`` documents, by scikit-learn's code otherwise), into the very
    matrix scikit-learn's counting makes, and scikit-learn's :class:`TfidfTransformer`
    weights and normalises it, so the result is scikit-learn's bit for bit. As every
    nbayes fit, a failing refit leaves the vectorizer as it was (scikit-learn's keeps
    the old vocabulary with an unfitted idf).

    Examples
    --------
    >>> from nbayes.text import TfidfVectorizer
    >>> tv = TfidfVectorizer()
    >>> tv.fit_transform(["Hello world", "hello again"]).toarray().round(3)
    array([[0.   , 0.58 , 0.815],
           [0.815, 0.58 , 0.   ]])
    >>> tv.get_feature_names_out().tolist()
    ['again', 'hello', 'world']
    >>> tv.idf_
    array([1.40546511, 1.        , 1.40546511])
    """

    def fit(self, raw_documents: Iterable[Any], y: Any = None) -> Any:
        with _fitting(self):
            return super().fit(raw_documents, y)

    def fit_transform(self, raw_documents: Iterable[Any], y: Any = None) -> Any:
        with _fitting(self):
            return _sk_text.TfidfVectorizer.fit_transform(self, raw_documents, y)

    fit.__doc__ = _sk_text.TfidfVectorizer.fit.__doc__
    fit_transform.__doc__ = _sk_text.TfidfVectorizer.fit_transform.__doc__


class HashingVectorizer(_sk_text.HashingVectorizer):
    """scikit-learn's ``HashingVectorizer`` with an exact compiled fast path.

    Same parameters, defaults and results as
    :class:`sklearn.feature_extraction.text.HashingVectorizer`; the fast path applies
    under the same conditions as for :class:`CountVectorizer` and a floating ``dtype``.

    Examples
    --------
    >>> from nbayes.text import HashingVectorizer
    >>> X = HashingVectorizer(n_features=8, norm=None).transform(["a bb bb ccc"])
    >>> X.shape, float(abs(X).sum())
    ((1, 8), 3.0)
    """

    def transform(self, X: Iterable[Any]) -> Any:
        if isinstance(X, str):
            raise ValueError("Iterable over raw text documents expected, string object received.")
        docs = X if isinstance(X, list) else list(X)
        route, ngram = routes.hashing_vectorizer(self, docs)
        if route == routes.SKLEARN:
            return super().transform(docs)
        self._validate_ngram_range()
        self.build_analyzer()  # validation and stop-word consistency warning, as sklearn
        try:
            return hashing_transform(
                docs,
                n_features=int(self.n_features),
                alternate_sign=bool(self.alternate_sign),
                norm=self.norm,
                binary=bool(self.binary),
                lowercase=self.lowercase,
                ngram_range=ngram,
                stop_words=self.get_stop_words(),
                dtype=self.dtype,
            )
        except UnicodeEncodeError:  # lone surrogates: let scikit-learn decide
            return super().transform(docs)
