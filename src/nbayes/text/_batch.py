"""One batch of documents and labels into the statistics of a text model.

:func:`checked` validates a training batch; :func:`count` counts it with a model's
counting settings (:class:`nbayes.text._model.Counting`): the three steps of
:mod:`nbayes.text._routes` (how the documents become terms; how the terms are indexed:
a vocabulary, extended, fixed or fresh, or hash buckets; how the counts accumulate:
class sums, weighted rows, running totals), chosen once per batch and composed here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

# scipy and scikit-learn are imported where a route needs them: nbayes train, update and
# forget count text without them (issue 28)
from .._statistics import CountStats, class_codes
from .._template.guards import check_encodable, check_int_labels
from . import _routes as routes
from ._drivers.class_counts import vocabulary_batch
from ._drivers.hash_counts import hashed_batch
from ._textstats import TextStats, Vocabulary

__all__ = ["add_chunk", "check_labels", "checked", "count", "require_terms", "text_stats"]


def text_stats(
    classes: np.ndarray,
    codes: np.ndarray,
    sw: np.ndarray | None,
    sums: Any,
    df: np.ndarray,
    n_docs: int,
    term_freq: Any = None,
    vocabulary: Vocabulary | None = None,
) -> TextStats:
    """TextStats of one batch: class counts (weighted by ``sw``) and the per-class sums;
    the term frequency defaults to the column totals (unweighted counts); ``vocabulary``
    names the columns."""
    class_count = np.bincount(codes, weights=sw, minlength=len(classes)).astype(np.float64)
    if term_freq is None:
        term_freq = sums.sum(axis=0)
    return TextStats.named(
        CountStats(classes, class_count, sums),
        np.asarray(df, dtype=np.int64),
        np.asarray(term_freq, dtype=np.float64),
        n_docs,
        vocabulary,
    )


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
    if y.ndim > 1:  # (a label a list: one class per document, as scikit-learn's 1-D y)
        raise ValueError(
            f"Pass one label per document (a 1-D y); got labels of shape {y.shape} (a label "
            "that is a list?)."
        )
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


class _Counted(NamedTuple):
    """A batch through its plan's steps: its classes, the documents' class codes and
    weights, the accumulated sums, document and term frequencies (None: the column
    totals), and the terms of a fresh vocabulary (None: none made)."""

    classes: np.ndarray
    codes: np.ndarray
    sw: np.ndarray | None
    sums: Any
    df: np.ndarray
    term_freq: np.ndarray | None
    fresh: Vocabulary | None


def count(
    counting: Any,
    docs: list[str],
    y: np.ndarray,
    sample_weight: Any = None,
    vocabulary: dict[str, int] | None = None,
    *,
    fixed: bool = False,
    plan: routes.Plan | None = None,
    named: Vocabulary | None = None,
) -> TextStats:
    """Statistics of one batch counted with ``counting`` (a
    :class:`~nbayes.text._model.Counting`): the composition of the plan's three steps
    (:mod:`nbayes.text._routes`: tokens, index, accumulate), chosen once here.

    ``vocabulary``: a dict extended in place with the batch's new terms (``fixed``: only
    its terms are counted), or None: a fresh vocabulary, which the statistics then carry
    (the sorted terms of a fit, without a term dict where the compiled count takes the
    batch). ``named``: the vocabulary the statistics carry otherwise (a partial fit's,
    extended by ``vocabulary``). ``plan``: the steps, if chosen already; else those of
    ``counting.plan``."""
    got = _steps(counting, docs, y, sample_weight, vocabulary, fixed, plan)
    return text_stats(got.classes, got.codes, got.sw, got.sums, got.df, len(docs),
                      got.term_freq, named if got.fresh is None else got.fresh)  # fmt: skip


def add_chunk(
    counting: Any,
    docs: list[str],
    labels: Any,
    total: Any,
    vocabulary: dict[str, int],
    plan: routes.Plan,
) -> None:
    """One chunk of ``fit_chunks`` (documents through ``preprocess``, unweighted) checked
    and added into ``total``, the running totals of the chunks so far
    (``RUNNING_TOTALS``: a :class:`nbayes.text._streaming.Accumulator`); ``vocabulary``
    is extended in place. Hashed counts go straight into the totals (no per-chunk table;
    the kernel in place); a vocabulary's class sums, and hashed counts of
    documents that are not all ``str``, are added as the chunk's sums (hashed: a sparse
    table per chunk, never a dense ``n_classes x n_features`` one)."""
    docs, y = checked(docs, labels)
    if plan.indexing == routes.HASHED and total.add_hashed(docs, y, counting, plan.tokens):
        return
    got = _steps(counting, docs, y, None, vocabulary, False, plan)
    class_count = np.bincount(got.codes, minlength=len(got.classes)).astype(np.float64)
    tf = got.sums.sum(axis=0) if got.term_freq is None else got.term_freq
    total.add_counts(got.classes, class_count, got.sums, got.df, tf, len(docs))


def _steps(
    counting: Any,
    docs: list[str],
    y: np.ndarray,
    sample_weight: Any,
    vocabulary: dict[str, int] | None,
    fixed: bool,
    plan: routes.Plan | None,
) -> _Counted:
    """The plan's steps of one batch (:func:`count`)."""
    classes, codes = class_codes(y)
    n = len(classes)
    sw = None
    if sample_weight is not None:
        from .._template.validation import check_sample_weight

        sw = check_sample_weight(sample_weight, len(docs))
    if plan is None:
        plan = counting.plan(weighted=sw is not None)
    steps = dict(lowercase=counting.lowercase, ngram=counting.ngram, tokens=plan.tokens,
                 stop=counting.stop)  # fmt: skip
    fresh = vocabulary is None and plan.indexing == routes.VOCABULARY
    # running totals of hashed batches: a sparse table per batch (a dense one would be
    # n_classes x n_features); of a vocabulary's batches: their class sums
    sparse = plan.indexing == routes.HASHED and plan.accumulate == routes.RUNNING_TOTALS
    term_freq: np.ndarray | None
    if plan.indexing == routes.HASHED:
        rows = sparse or sw is not None
        sums, df, term_freq = hashed_batch(docs, codes, n, rows=rows, binary=counting.clip,
                                           n_features=counting.n_features, **steps)  # fmt: skip
    else:
        vocabulary, sums, df, term_freq = vocabulary_batch(
            docs, codes, n, vocabulary, fixed=fixed, weighted=sw is not None,
            binary=counting.binary, clip=counting.clip, raw=counting.raw_frequencies, **steps,
        )  # fmt: skip
    if sw is not None:  # WEIGHTED_ROWS: the documents' rows weighted into class sums
        sums = CountStats.from_batch(sums, y, sw).feature_count
    elif sparse:  # the non-zeros of the batch, which the accumulator adds
        import scipy.sparse as sp

        X = sp.csr_matrix(sums)
        Y = sp.csr_matrix((np.ones(len(codes)), (codes, np.arange(len(codes)))), (n, len(codes)))
        sums = Y @ X
    terms = None
    if fresh:  # the terms of a fresh vocabulary: a dict, or a fit's sorted terms
        if isinstance(vocabulary, dict):
            terms = Vocabulary(index=vocabulary)
        else:
            terms = Vocabulary(terms=vocabulary)
    return _Counted(classes, codes, sw, sums, df, term_freq, terms)
