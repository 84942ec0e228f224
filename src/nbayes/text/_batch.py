"""One batch of documents and labels into the statistics of a text model.

:func:`checked` validates a training batch; :func:`count` counts it per class over a
vocabulary (extended in place with its new terms, or fixed) or into hash buckets, by the
route :mod:`nbayes.text._routes` chooses; :func:`count_fresh` is a fit's unigram count
that builds no term dict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# scipy and scikit-learn are imported where a route needs them: nbayes train, update and
# forget count text without them (issue 28)
from .._statistics import CountStats, class_codes
from .._template.guards import check_encodable, check_int_labels
from . import _routes as routes
from ._class_counts import count_by_class, count_terms, transform_counts
from ._hash_counts import hash_by_class, hashing_transform
from ._textstats import TextStats

__all__ = [
    "check_labels", "checked", "count", "count_fresh", "raw_frequencies", "require_terms",
    "text_stats",
]  # fmt: skip


def text_stats(
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


def raw_frequencies(model: Any) -> bool:
    """Whether a model's term frequencies (what ``max_features`` ranks by) must be counted
    apart from its class sums: a Bernoulli model counts presence, but the Pipeline it
    equals (``CountVectorizer(binary=False)`` + ``BernoulliNB``) ranks terms by their raw
    counts. Hashed buckets have no Pipeline to follow: they rank by what they sum."""
    return model._family.presence and not model.binary and not model.hashing


def require_terms(stats: TextStats) -> None:
    """A model needs at least one term (or bucket) seen in some document."""
    if not (stats.doc_freq > 0).any():
        raise ValueError(
            "empty vocabulary; perhaps the documents only contain stop words "
            "(no token of two or more word characters was found)."
        )


def check_labels(y: np.ndarray) -> None:
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
    check_int_labels(y)
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)


def checked(docs: list[str], y: Any) -> tuple[list[str], np.ndarray]:
    """Documents (already through ``preprocess``) and labels of one training batch,
    validated."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        from sklearn.utils.validation import column_or_1d

        y = column_or_1d(y, warn=True)  # scikit-learn's DataConversionWarning, then 1-D
    if y.ndim != 1 or len(y) != len(docs):
        raise ValueError(
            f"Found {len(docs)} documents but {y.shape[0] if y.ndim else 0} labels: "
            "pass one label per document."
        )
    if len(docs) == 0:
        raise ValueError("Found 0 documents: pass at least one document to learn from.")
    check_labels(y)
    check_encodable(y, "label")
    check_encodable(docs, "document")
    return docs, y


def count(
    model: Any,
    docs: list[str],
    y: np.ndarray,
    sample_weight: Any,
    vocabulary: dict[str, int],
    stream: bool = False,
    fixed: bool = False,
) -> TextStats:
    """Statistics of one batch under ``model``'s settings; extends ``vocabulary`` in
    place with its new terms (``fixed``: counts only the terms of ``vocabulary``,
    ignoring the others). ``stream`` (a batch of ``fit_chunks``): hashed sums may stay a
    sparse matrix instead of a dense ``n_classes x n_features`` table."""
    classes, codes = class_codes(y)
    n = len(classes)
    ngram = model._ngram()
    kw = dict(lowercase=model.lowercase, ngram_range=ngram, stop_words=model.stop_words)
    sw = None
    if sample_weight is not None:
        from .._template.validation import check_sample_weight

        sw = check_sample_weight(sample_weight, len(docs))
    route = routes.batch(hashing=model.hashing, weighted=sw is not None, ngram=ngram,
                         stream=stream)  # fmt: skip
    binary, n_features = model._clip, model.n_features
    term_freq = None
    if route in (routes.HASHED_SPARSE, routes.HASHED_INTO):
        import scipy.sparse as sp

        X = sp.csr_matrix(
            hashing_transform(
                docs, n_features=n_features, alternate_sign=False, norm=None, binary=binary, **kw
            )  # fmt: skip
        )
        Y = sp.csr_matrix((np.ones(len(codes)), (codes, np.arange(len(codes)))), (n, len(codes)))
        sums = Y @ X  # sparse: the accumulator adds its non-zeros
        df = np.bincount(X.indices, minlength=n_features).astype(np.int64)
        term_freq = np.asarray(X.sum(axis=0), dtype=np.float64).reshape(-1)
    elif route in (routes.HASHED_SUMS, routes.HASHED_WEIGHTED):
        sums, df = hash_by_class(docs, codes, n, n_features=n_features, binary=binary, **kw)
        term_freq = sums.sum(axis=0)
        if route == routes.HASHED_WEIGHTED:
            X = hashing_transform(docs, n_features=n_features, alternate_sign=False,
                                  norm=None, binary=binary, **kw)  # fmt: skip
            assert sw is not None
            sums = CountStats.from_batch(X, y, sw).feature_count
    elif route == routes.CLASS_SUMS:
        vocabulary, sums, df = count_by_class(
            docs, codes, n, binary=binary, vocabulary=vocabulary, fixed_vocabulary=fixed,
            dtype=np.float64, **kw,
        )  # fmt: skip
        if raw_frequencies(model):  # the raw totals, over the columns just laid out
            zeros = np.zeros(len(docs), dtype=np.int64)
            raw = count_by_class(docs, zeros, 1, vocabulary=vocabulary, fixed_vocabulary=True,
                                 dtype=np.float64, **kw)[1]  # fmt: skip
            term_freq = raw[0]
    else:  # WEIGHTED_ROWS
        assert sw is not None
        count_by_class(docs, codes, n, vocabulary=vocabulary, **kw)  # extend vocab
        X = transform_counts(docs, vocabulary, binary=model.binary, **kw)
        # the term frequencies are unweighted, as a vectorizer's (raw for Bernoulli)
        term_freq = np.asarray(X.sum(axis=0), dtype=np.float64).reshape(-1)
        if binary and not model.binary:
            X.data.fill(1)
        sums = CountStats.from_batch(X, y, sw).feature_count
        df = np.bincount(X.indices, minlength=len(vocabulary)).astype(np.int64)
    return text_stats(classes, codes, sw, sums, df, len(docs), term_freq)


def count_fresh(
    model: Any, docs: list[str], y: np.ndarray
) -> tuple[TextStats, Sequence[str]] | None:
    """A fit's statistics and its sorted terms without building the term dict (the
    ``FIT_TERMS`` route); None when that route does not take the batch."""
    route = routes.batch(hashing=model.hashing, weighted=False, ngram=model._ngram(),
                         fresh=True)  # fmt: skip
    if route != routes.FIT_TERMS:
        return None
    classes, codes = class_codes(y)
    got = count_terms(docs, codes, len(classes), lowercase=model.lowercase,
                      binary=model._clip, stop_words=model.stop_words)  # fmt: skip
    if got is None:
        return None
    terms, sums, df, tf = got
    if raw_frequencies(model):  # the raw totals of the same sorted terms
        raw = count_terms(docs, np.zeros(len(docs), dtype=np.int64), 1,
                          lowercase=model.lowercase, stop_words=model.stop_words)  # fmt: skip
        if raw is None or len(raw[0]) != len(terms):
            return None
        tf = raw[1][0]
    return text_stats(classes, codes, None, sums, df, len(docs), tf), terms
