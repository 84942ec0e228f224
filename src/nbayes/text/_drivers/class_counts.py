"""Per-class term counts and document x term rows over a vocabulary, without scikit-learn's
Python loops: the kernel-level counting behind :class:`~nbayes.text.CountVectorizer` and
:class:`~nbayes.text.TextClassifier`.

:func:`count_by_class` gives ``Y^T X`` without building the document x term matrix ``X``;
:func:`transform_counts` gives ``X`` over a fixed vocabulary; :func:`count_terms` is a
fit's unigram count that builds no term dict. The route (compiled zero-copy counting or
token streams) is :mod:`nbayes.text._routes`' choice.

Examples
--------
>>> import numpy as np
>>> from nbayes.text import count_by_class
>>> vocab, counts, df = count_by_class(["a cat sat", "the cat", "dog dog"],
...                                    np.array([0, 0, 1]), 2)
>>> vocab
{'cat': 0, 'dog': 1, 'sat': 2, 'the': 3}
>>> counts
array([[2, 0, 1, 1],
       [0, 2, 0, 0]])
>>> df
array([2, 1, 1, 1])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

# scipy and scikit-learn are imported where a route needs them: nbayes train, update and
# forget count text without them (issue 28)
from nbayes.text import _routes as routes
from nbayes.text._analyzer import exact_str
from nbayes.text._drivers import zero_copy as _tk
from nbayes.text._drivers.token_streams import _check_ngram, count_rows, vocabulary_sums
from nbayes.text._stop_words import ENGLISH_STOP_WORDS

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["count_by_class", "count_terms", "transform_counts"]


def as_configured(X: Any) -> Any:
    """A sparse ``X`` in the interface scikit-learn is configured to return
    (``sklearn.get_config()["sparse_interface"]``: "sparray" or "spmatrix"), as its own
    vectorizers return it. The public-API equivalent of scikit-learn's private
    ``sklearn.utils._sparse._align_api_if_sparse``."""
    if not _is_sparse(X):
        return X
    import scipy.sparse as sp
    from sklearn import get_config

    if get_config().get("sparse_interface", "spmatrix") == "sparray":
        return getattr(sp, X.format + "_array")(X) if sp.isspmatrix(X) else X
    return X if sp.isspmatrix(X) else getattr(sp, X.format + "_matrix")(X)


def _is_sparse(X: Any) -> bool:
    """``scipy.sparse.issparse(X)``, importing scipy only if ``X`` may be one (an object
    of a scipy module)."""
    if not type(X).__module__.startswith("scipy"):
        return False
    import scipy.sparse as sp

    return bool(sp.issparse(X))


def stop_set(stop_words: Any) -> frozenset[Any] | None:
    """scikit-learn's ``_check_stop_list`` with an advice-style error message."""
    if stop_words is None:
        return None
    if isinstance(stop_words, str):
        if stop_words == "english":
            return ENGLISH_STOP_WORDS  # scikit-learn's list (the tests check they are equal)
        raise ValueError(
            f"stop_words={stop_words!r} is not a built-in stop list; use 'english', "
            "a collection of words, or None."
        )
    return frozenset(stop_words)


def as_str_list(docs: Iterable[Any], what: str = "docs") -> list[str]:
    if isinstance(docs, str):
        raise ValueError(
            f"{what} must be a sequence of documents, got a single string; wrap it in a "
            "list: [doc]."
        )
    out = docs if isinstance(docs, list) else list(docs)
    if not out or set(map(type, out)) == {str}:
        return out
    for i, d in enumerate(out):
        if not isinstance(d, str):
            raise TypeError(
                f"{what}[{i}] is of type {type(d).__name__}, expected str; decode bytes "
                "first (e.g. d.decode('utf-8')) or use CountVectorizer(input=...)."
            )
    return [exact_str(d) for d in out]  # str subclasses (numpy.str_): what kernels read


def csr_pieces_to_sklearn(
    indptr: np.ndarray,
    indices: np.ndarray,
    values: np.ndarray,
    n_cols: int,
    dtype: Any,
    sort: bool = True,
) -> Any:
    """Build the CSR exactly as scikit-learn's ``_count_vocab`` does (``sort=False``:
    the rows are already in the order wanted)."""
    idx_dtype = np.int64 if indptr[-1] > np.iinfo(np.int32).max else np.int32
    import scipy.sparse as sp

    X = sp.csr_array(
        (
            values.astype(np.intc, copy=False),
            indices.astype(idx_dtype, copy=False),
            indptr.astype(idx_dtype, copy=False),
        ),
        shape=(len(indptr) - 1, n_cols),
        dtype=dtype,
    )
    if sort:
        X.sort_indices()
    return as_configured(X)


def count_by_class(
    docs: Sequence[str],
    y_codes: np.ndarray,
    n_classes: int,
    *,
    lowercase: bool = True,
    binary: bool = False,
    ngram_range: tuple[int, int] = (1, 1),
    vocabulary: dict[str, int] | None = None,
    fixed_vocabulary: bool = False,
    stop_words: str | Iterable[str] | None = None,
    dtype: Any = np.int64,
) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """Per-class term counts ``Y^T X`` without building the document x term matrix.

    ``X`` is what ``CountVectorizer(lowercase=..., binary=..., ngram_range=...,
    stop_words=...)`` produces (default token pattern, word analyzer).

    Parameters
    ----------
    docs : sequence of str
        Raw documents.
    y_codes : array-like of int, shape (n_docs,)
        Class index of each document, in ``[0, n_classes)``.
    n_classes : int
        Number of classes (rows of ``counts``).
    lowercase, binary, ngram_range, stop_words
        As in :class:`CountVectorizer` (any word n-gram range ``1 <= min_n <= max_n``).
        ``binary=True`` clips each document's counts to 1 before summing.
    vocabulary : dict or None
        ``None``: the vocabulary is learnt and returned sorted by term (equal to
        ``CountVectorizer(...).fit(docs).vocabulary_`` without df/max_features pruning).
        A dict ``{term: column}`` with columns ``0..len-1``: with
        ``fixed_vocabulary=False`` (open vocabulary) it is **extended in place** with
        the unseen terms, appended in sorted order; with ``fixed_vocabulary=True``
        unknown terms are ignored.
    fixed_vocabulary : bool
        See ``vocabulary``.
    dtype : {np.int64, np.float64}, default=np.int64
        Of ``counts``; ``np.float64`` saves a conversion when the counts feed a model.

    Returns
    -------
    vocabulary : dict[str, int]
        Term -> column (the same object as the ``vocabulary`` argument when given).
    counts : ndarray of shape (n_classes, len(vocabulary)), ``dtype``
        ``counts[c, j]`` = sum over documents of class ``c`` of the count of term ``j``.
    doc_freq : ndarray of shape (len(vocabulary),), int64
        Number of documents containing each term (over all classes).
    """
    docs = as_str_list(docs)
    y = np.asarray(y_codes)
    if y.shape != (len(docs),) or (y.size and y.dtype.kind not in "iu"):
        raise ValueError(
            f"y_codes must be an integer array of shape ({len(docs)},), got shape "
            f"{y.shape} and dtype {y.dtype}; encode labels first (np.unique(..., "
            "return_inverse=True))."
        )
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(
            f"y_codes must lie in [0, {n_classes}), got values in [{y.min()}, {y.max()}]; "
            "pass the right n_classes or re-encode the labels."
        )
    y = y.astype(np.int64, copy=False)
    if np.dtype(dtype) not in (np.dtype(np.int64), np.dtype(np.float64)):
        raise ValueError(f"dtype must be np.int64 or np.float64, got {np.dtype(dtype)}.")
    ngram = _check_ngram(ngram_range)
    return _class_sums(
        docs, y, int(n_classes), bool(lowercase), bool(binary), ngram, routes.tokens(ngram),
        stop_set(stop_words), vocabulary, fixed_vocabulary, dtype,
    )  # fmt: skip


def _class_sums(
    docs: list[str],
    y: np.ndarray,
    n_classes: int,
    lowercase: bool,
    binary: bool,
    ngram: tuple[int, int],
    tokens: str,
    stop: frozenset[Any] | None,
    vocabulary: dict[str, int] | None,
    fixed_vocabulary: bool,
    dtype: Any,
) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """:func:`count_by_class` of checked arguments (the tokenizing step ``tokens``)."""
    if tokens == routes.ZERO_COPY:  # declined (None): token streams
        placed = _tk.direct_count(
            docs, y, n_classes, lowercase, binary, dtype=dtype,
            then=lambda direct: _place_direct(direct, stop, vocabulary, fixed_vocabulary),
        )  # fmt: skip
        if placed is not None:
            return placed
    return vocabulary_sums(docs, lowercase, stop, ngram, vocabulary, fixed_vocabulary, y,
                           n_classes, binary, dtype, tokens)  # fmt: skip


def vocabulary_batch(
    docs: list[str],
    codes: np.ndarray,
    n_classes: int,
    vocabulary: dict[str, int] | None,
    *,
    fixed: bool,
    weighted: bool,
    lowercase: bool,
    binary: bool,
    clip: bool,
    raw: bool,
    ngram: tuple[int, int],
    tokens: str,
    stop: frozenset[Any] | None,
) -> tuple[Any, Any, np.ndarray, np.ndarray | None]:
    """One TextClassifier batch indexed by a vocabulary: ``(terms, sums, doc_freq,
    term_freq)`` (``term_freq`` None: the column totals of ``sums``).

    ``vocabulary``: a dict extended in place by the new terms (``fixed``: its terms only),
    ``terms`` is then that dict; None: a fresh vocabulary, and ``terms`` the sorted terms
    (a fit's compiled ``Terms`` when the zero-copy count takes the batch: no term dict).
    ``weighted``: ``sums`` are the document rows (a CSR matrix of counts, clipped when
    ``clip``) for the caller to weight, and ``term_freq`` their raw totals; else the
    per-class sums (``clip``: each document's counts clipped to presence) and, with
    ``raw``, the raw term totals counted apart (a Bernoulli model's frequencies).
    """
    if vocabulary is None and tokens == routes.ZERO_COPY and not weighted:
        # a fit's unigram count without a term dict (raw totals in the same pass)
        got = _count_terms(docs, codes, n_classes, lowercase, clip, stop, raw)
        if got is not None:
            return got
    if vocabulary is None:
        vocabulary = {}
    if weighted:  # the new terms, then the documents' rows over the vocabulary
        _class_sums(docs, codes, n_classes, lowercase, False, ngram, tokens, stop, vocabulary,
                    fixed, np.int64)  # fmt: skip
        pieces = count_rows(docs, vocabulary, lowercase, ngram, stop, tokens)
        X = csr_pieces_to_sklearn(*pieces, len(vocabulary), np.int64)  # transform_counts
        if binary:
            X.data.fill(1)
        # the term frequencies are unweighted, as a vectorizer's (raw for Bernoulli)
        totals = np.asarray(X.sum(axis=0), dtype=np.float64).reshape(-1)
        if clip and not binary:
            X.data.fill(1)
        df = np.bincount(X.indices, minlength=len(vocabulary)).astype(np.int64)
        return vocabulary, X, df, totals
    vocabulary, sums, df = _class_sums(docs, codes, n_classes, lowercase, clip, ngram, tokens,
                                       stop, vocabulary, fixed, np.float64)  # fmt: skip
    tf: np.ndarray | None = None
    if raw:  # the raw totals, over the columns just laid out
        zeros = np.zeros(len(docs), dtype=np.int64)
        tf = _class_sums(docs, zeros, 1, lowercase, False, ngram, tokens, stop, vocabulary,
                         True, np.float64)[1][0]  # fmt: skip
    return vocabulary, sums, df, tf


def count_terms(
    docs: Sequence[str],
    y_codes: np.ndarray,
    n_classes: int,
    *,
    lowercase: bool = True,
    binary: bool = False,
    stop_words: str | Iterable[str] | None = None,
) -> tuple[Sequence[str], np.ndarray, np.ndarray, np.ndarray | None] | None:
    """Sorted unigram terms, per-class counts (float64), document frequencies and term
    totals (None: compute them from the counts) through
    the compiled path, without building a term dict; None when that path cannot read
    the documents (use :func:`count_by_class`). ``y_codes`` must be valid class codes.
    The terms are a list, or :class:`~nbayes.text._tokenize.Terms` (decoded when read)."""
    docs = as_str_list(docs)
    y = np.asarray(y_codes).astype(np.int64, copy=False)
    return _count_terms(docs, y, int(n_classes), bool(lowercase), bool(binary),
                        stop_set(stop_words))  # fmt: skip


def _count_terms(
    docs: list[str],
    y: np.ndarray,
    n_classes: int,
    lowercase: bool,
    binary: bool,
    stop: frozenset[Any] | None,
    raw: bool = False,
) -> tuple[Sequence[str], np.ndarray, np.ndarray, np.ndarray | None] | None:
    """:func:`count_terms` of checked arguments (``raw``: the term totals are the raw
    counts, whatever ``binary``)."""

    def terms(got: Any) -> Any:
        if not raw:
            return _without_stop_words(got, stop, with_tf=True)
        direct, every = got
        names, sums, df, _ = _without_stop_words(direct, stop, with_tf=True)
        totals = _without_stop_words(every, stop)[1]
        if totals.shape[1] != sums.shape[1]:
            return None
        return names, sums, df, totals[0]

    return _tk.direct_count(docs, y, n_classes, lowercase, binary, dtype=np.float64, then=terms,
                            raw=raw)  # fmt: skip


@overload
def _without_stop_words(
    direct: _tk.DirectCounts, stop: frozenset[Any] | None
) -> tuple[Sequence[str], np.ndarray, np.ndarray]: ...
@overload
def _without_stop_words(
    direct: _tk.DirectCounts, stop: frozenset[Any] | None, with_tf: Literal[True]
) -> tuple[Sequence[str], np.ndarray, np.ndarray, np.ndarray | None]: ...
def _without_stop_words(
    direct: _tk.DirectCounts, stop: frozenset[Any] | None, with_tf: bool = False
) -> Any:
    """The sorted terms, counts and document frequencies of ``direct`` minus stop words
    (``with_tf``: and each term's total, summed by the kernel, None when stop words took
    columns out). The counts are read at once, the terms only when there are stop words."""
    terms: Sequence[str] = direct.terms
    counts, df, every_tf = direct.arrays()
    tf: np.ndarray | None = every_tf
    if stop:
        names = list(terms)
        keep = np.fromiter((t not in stop for t in names), dtype=bool, count=len(names))
        if not keep.all():
            terms = [t for t, k in zip(names, keep.tolist(), strict=True) if k]
            counts, df, tf = counts[:, keep], df[keep], None
    return (terms, counts, df, tf) if with_tf else (terms, counts, df)


def _place_direct(
    direct: _tk.DirectCounts,
    stop: frozenset[Any] | None,
    vocabulary: dict[str, int] | None,
    fixed_vocabulary: bool,
) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """``count_by_class``'s result from sorted unigram statistics."""
    terms, counts, df = _without_stop_words(direct, stop)
    if not isinstance(terms, list):
        terms = list(terms)  # decoded once (a fit's Terms)
    fresh = None
    if vocabulary is None or (not vocabulary and not fixed_vocabulary):
        fresh = dict(zip(terms, range(counts.shape[1]), strict=True))
    if fresh is not None:
        if vocabulary is None:
            return fresh, counts, df
        vocabulary.update(fresh)
        return vocabulary, counts, df
    assert vocabulary is not None
    get = vocabulary.get
    col = np.fromiter((get(t, -1) for t in terms), dtype=np.int64, count=len(terms))
    if not fixed_vocabulary:
        new = np.flatnonzero(col < 0)
        base = len(vocabulary)
        col[new] = np.arange(base, base + len(new), dtype=np.int64)
        vocabulary.update(zip([terms[i] for i in new.tolist()], col[new].tolist(), strict=True))
    n_cols = len(vocabulary)
    known = col >= 0
    out = np.zeros((counts.shape[0], n_cols), dtype=counts.dtype)
    out[:, col[known]] = counts[:, known]
    out_df = np.zeros(n_cols, dtype=np.int64)
    out_df[col[known]] = df[known]
    return vocabulary, out, out_df


def transform_counts(
    docs: Sequence[str],
    vocabulary: Mapping[str, int],
    *,
    lowercase: bool = True,
    binary: bool = False,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: str | Iterable[str] | None = None,
    dtype: Any = np.int64,
) -> sp.csr_matrix:
    """Document x term counts over a fixed vocabulary (unknown terms are ignored).

    Equal (values, sorted indices, dtype) to ``CountVectorizer(vocabulary=vocabulary,
    ...).transform(docs)``.

    Parameters
    ----------
    docs : sequence of str
    vocabulary : mapping str -> int
        Columns must be ``0..len(vocabulary)-1``.
    lowercase, binary, ngram_range, stop_words, dtype
        As in :class:`CountVectorizer`.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_docs, len(vocabulary))
    """
    docs = as_str_list(docs)
    stop = stop_set(stop_words)
    ngram = _check_ngram(ngram_range)
    n_cols = len(vocabulary)
    indptr, indices, values = count_rows(docs, vocabulary, bool(lowercase), ngram, stop)
    X = csr_pieces_to_sklearn(indptr, indices, values, n_cols, dtype)
    if binary:
        X.data.fill(1)
    return X
