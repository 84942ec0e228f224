"""Hashed term counts: scikit-learn's ``HashingVectorizer`` output, and per-class sums of it
straight from the documents, through the compiled kernels of :mod:`nbayes.text._drivers.hashing`
(unigrams and word n-grams, hashed while scanning), or where their zero-copy reader cannot
be used, the token streams (the route :mod:`nbayes.text._routes` gives the range).

Through the token streams, the buckets are scikit-learn's MurmurHash of each distinct term,
computed in numpy (:mod:`nbayes.text._murmur`); the counts are made by the token-stream
kernels with a column per term id (its bucket), which sum the terms of a document that share
a bucket. Neither scikit-learn nor scipy is imported for counts that are not a sparse matrix
(:func:`hash_into`, :func:`hash_by_class`, :func:`hash_rows`): ``nbayes train``,
``update``, ``forget`` and ``predict`` of a hashed n-gram model (issue 28).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nbayes.text import _routes as routes

# scipy and scikit-learn are imported where a route needs them: nbayes train, update and
# forget count text without them (issue 28)
from nbayes.text._drivers import hashing as _hashing
from nbayes.text._drivers.class_counts import as_configured, as_str_list, stop_set
from nbayes.text._drivers.token_streams import _Analysis, _check_ngram, bucket_rows
from nbayes.text._murmur import murmurhash3_32

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = [
    "add_hashed",
    "hash_by_class",
    "hash_into",
    "hash_rows",
    "hashed_batch",
    "hashing_transform",
]


def _murmur_index_sign(terms: list[str], n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's FeatureHasher mapping term -> (column, sign), seed 0."""
    h = murmurhash3_32(terms)
    idx = np.abs(h) % n_features
    idx[h == -(2**31)] = (2**31 - 1 - (n_features - 1)) % n_features
    sign = np.where(h >= 0, 1, -1)
    return idx, sign


def hashing_transform(
    docs: Sequence[str],
    *,
    n_features: int = 2**20,
    alternate_sign: bool = True,
    norm: str | None = "l2",
    binary: bool = False,
    lowercase: bool = True,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: str | Iterable[str] | None = None,
    dtype: Any = np.float64,
) -> sp.csr_matrix:
    """Equal to ``HashingVectorizer(**same settings).transform(docs)``.

    Each distinct term is hashed once with ``sklearn.utils.murmurhash3_32(term,
    seed=0)``: column ``abs(h) % n_features``, sign ``+1 if h >= 0 else -1`` (when
    ``alternate_sign``); duplicates are summed, then ``binary`` and ``norm`` applied.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_docs, n_features)
    """
    docs = as_str_list(docs)
    if len(docs) == 0:
        raise ValueError("Cannot vectorize empty sequence; pass at least one document.")
    if np.dtype(dtype) not in (np.float32, np.float64):
        raise ValueError(
            f"dtype={np.dtype(dtype)} is not supported: scipy.sparse does not support "
            "float16, and hashed values are floats. Pass dtype=np.float32 or np.float64."
        )
    ngram = _check_ngram(ngram_range)
    return _transform(docs, int(n_features), alternate_sign, norm, binary, bool(lowercase),
                      ngram, routes.tokens(ngram), stop_set(stop_words), dtype)  # fmt: skip


def _transform(
    docs: list[str],
    n_features: int,
    alternate_sign: bool,
    norm: str | None,
    binary: bool,
    lowercase: bool,
    ngram: tuple[int, int],
    tokens: str,
    stop: frozenset[Any] | None,
    dtype: Any,
) -> Any:
    """:func:`hashing_transform` of checked arguments (``tokens``: the tokenizing step of
    the token streams, where the hashing kernel declines)."""
    pieces = _hashing.direct_hash_transform(docs, bool(lowercase), int(n_features),
                                            bool(alternate_sign), stop, ngram=ngram)  # fmt: skip
    if pieces is not None:
        indptr, cols, sums = pieces
        idx_dtype = np.int64 if indptr[-1] > np.iinfo(np.int32).max else np.int32
        import scipy.sparse as sp

        X = sp.csr_array(
            (sums.astype(dtype), cols.astype(np.int32), indptr.astype(idx_dtype)),
            shape=(len(docs), int(n_features)),
        )
        X.has_canonical_format = True  # sorted, summed per row by the kernel
    else:
        X = _hash_analysis(docs, lowercase, stop, ngram, int(n_features), alternate_sign, dtype,
                           tokens)  # fmt: skip
    X = as_configured(X)
    if binary:
        X.data.fill(1)
    if norm is not None:
        from sklearn.preprocessing import normalize

        X = normalize(X, norm=norm, copy=False)
    return as_configured(X)


def _hash_analysis(
    docs: list[str],
    lowercase: bool,
    stop: frozenset[Any] | None,
    ngram: tuple[int, int],
    n_features: int,
    alternate_sign: bool,
    dtype: Any,
    route: str | None = None,
) -> Any:
    """FeatureHasher's matrix through the interning analysis (word n-grams)."""
    an = _Analysis(docs, lowercase, stop, ngram, route)
    n_ids = an.n_uni + an.n_pair
    ident = np.arange(n_ids, dtype=np.int64)
    indptr, ids, counts = an.rows(ident, n_ids)
    used = np.flatnonzero(np.bincount(ids, minlength=n_ids))
    terms = an.term_list(used)
    idx_u, sign_u = _murmur_index_sign(terms, int(n_features))
    lut_idx = np.zeros(n_ids, dtype=np.int64)
    lut_sign = np.zeros(n_ids, dtype=np.int64)
    lut_idx[used] = idx_u
    lut_sign[used] = sign_u if alternate_sign else 1
    values = (counts * lut_sign[ids]).astype(dtype)
    idx_dtype = np.int64 if indptr[-1] > np.iinfo(np.int32).max else np.int32
    import scipy.sparse as sp

    X = sp.csr_array(
        (values, lut_idx[ids].astype(np.int32), indptr.astype(idx_dtype)),
        dtype=dtype,
        shape=(len(docs), int(n_features)),
    )
    X.sum_duplicates()
    return X


def _analysed_rows(
    docs: list[str], lowercase: bool, stop: frozenset[Any] | None, ngram: tuple[int, int],
    n_features: int, tokens: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """CSR pieces of the hashed counts (``alternate_sign=False``) through the token
    streams: every row's buckets sorted, the terms sharing a bucket summed (each distinct
    term hashed once). ``tokens``: the tokenizing step, if known."""
    return bucket_rows(docs, lowercase, stop, ngram, n_features,
                       lambda terms: _murmur_index_sign(terms, n_features)[0], tokens)  # fmt: skip


def hash_rows(
    docs: list[str],
    *,
    n_features: int,
    lowercase: bool = True,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: frozenset[Any] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR pieces ``(indptr, indices, counts)`` of
    ``hashing_transform(docs, alternate_sign=False, norm=None)`` (indices sorted within each
    row, float64 counts) without scipy or scikit-learn: what a hashed model scores.
    ``docs`` are exact ``str``; ``stop_words`` a set (:func:`stop_set`)."""
    ngram = _check_ngram(ngram_range)
    pieces = None
    if docs:
        pieces = _hashing.direct_hash_transform(
            docs, bool(lowercase), int(n_features), False, stop_words, ngram=ngram
        )
    if pieces is None:  # text the zero-copy reader cannot take
        pieces = _analysed_rows(docs, lowercase, stop_words, ngram, int(n_features))
    indptr, indices, counts = pieces
    return indptr, indices, counts.astype(np.float64)


def hash_into(
    docs: Sequence[str],
    rows: np.ndarray,
    sums: np.ndarray,
    doc_freq: np.ndarray,
    *,
    n_features: int = 2**20,
    binary: bool = False,
    lowercase: bool = True,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: str | Iterable[str] | None = None,
) -> bool:
    """Add the hashed counts of ``docs`` into ``sums[rows[i]]`` and ``doc_freq`` in
    place, by the compiled kernels (no term is ever stored).

    The counts are those of ``HashingVectorizer(n_features, alternate_sign=False,
    norm=None, binary, lowercase, ngram_range, stop_words)``: ``sums[c, j]`` gains the
    count of column ``j`` in the documents with ``rows[i] == c``, ``doc_freq[j]`` the
    number of documents with column ``j``. Memory is that of the arrays given plus 8
    bytes per column, whatever the number of distinct words or n-grams. Single-threaded
    (each add goes to the shared arrays); about 4x scikit-learn's HashingVectorizer alone.

    When this Python's strings cannot be read in place, the documents are counted through
    the token streams: each distinct term hashed once, the counts of a batch added as its
    sparse rows (memory of the order of the batch's entries).

    Returns False, having added nothing, when the documents are not all exact ``str``:
    use :func:`hashing_transform` then.
    """
    return add_hashed(docs, rows, sums, doc_freq, int(n_features), bool(binary),
                      bool(lowercase), stop_set(stop_words), _check_ngram(ngram_range))  # fmt: skip


def add_hashed(
    docs: Sequence[str],
    rows: np.ndarray,
    sums: np.ndarray,
    doc_freq: np.ndarray,
    n_features: int,
    binary: bool,
    lowercase: bool,
    stop: frozenset[Any] | None,
    ngram: tuple[int, int] = (1, 1),
    tokens: str | None = None,
    *,
    checked: bool = False,
) -> bool:
    """:func:`hash_into` of checked settings (``tokens``: the tokenizing step of ``ngram``
    in the token streams, where the hashing kernel declines, if known:
    :func:`nbayes.text._routes.tokens`; ``checked``: the caller knows the documents are
    exact ``str`` and the arrays fit)."""
    if not checked:
        if not routes.all_str(docs):
            return False
        if sums.shape[1] < n_features or doc_freq.shape[0] < n_features:
            raise ValueError(f"sums and doc_freq need at least n_features={n_features} columns.")
        rows = np.asarray(rows)
        if rows.shape != (len(docs),) or (
            rows.size and (rows.min() < 0 or rows.max() >= len(sums))
        ):
            raise ValueError(
                f"rows must hold one row of sums (0..{len(sums) - 1}) per document; got shape "
                f"{rows.shape}."
            )
    if _hashing.direct_hash(docs, rows, lowercase, binary, n_features, sums, doc_freq, stop,
                            ngram):  # fmt: skip
        return True
    tokens = tokens or routes.tokens(ngram)
    docs = as_str_list(docs)
    indptr, cols, counts = _analysed_rows(docs, lowercase, stop, ngram, n_features, tokens)
    values = np.ones(len(cols), dtype=sums.dtype) if binary else counts.astype(sums.dtype)
    doc_rows = np.repeat(rows.astype(np.int64, copy=False), np.diff(indptr))
    if sums.flags.c_contiguous:  # one flat index: numpy's fast path of add.at (~5x)
        np.add.at(sums.reshape(-1), doc_rows * sums.shape[1] + cols, values)
    else:
        np.add.at(sums, (doc_rows, cols), values)
    doc_freq[:n_features] += np.bincount(cols, minlength=n_features)
    return True


def hash_by_class(
    docs: Sequence[str],
    y_codes: np.ndarray,
    n_classes: int,
    *,
    n_features: int = 2**20,
    alternate_sign: bool = False,
    norm: str | None = None,
    binary: bool = False,
    lowercase: bool = True,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: str | Iterable[str] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-class sums ``Y^T X`` of :func:`hashing_transform` output (dense float64).

    Defaults suit Naive Bayes (non-negative features: ``alternate_sign=False``,
    ``norm=None``); note these differ from ``HashingVectorizer``'s defaults.

    Returns
    -------
    sums : ndarray of shape (n_classes, n_features), float64
    doc_freq : ndarray of shape (n_features,), int64
        Number of documents with a stored entry in each column.
    """
    y = np.asarray(y_codes).astype(np.int64, copy=False)
    if not alternate_sign and norm is None:
        docs = as_str_list(docs)
        if y.shape != (len(docs),):
            raise ValueError(f"y_codes must have shape ({len(docs)},), got {y.shape}.")
        sums = np.zeros((int(n_classes), int(n_features)))
        df = np.zeros(int(n_features), dtype=np.int64)
        if hash_into(
            docs, y, sums, df, n_features=n_features, binary=binary, lowercase=lowercase,
            ngram_range=ngram_range, stop_words=stop_words,
        ):  # fmt: skip
            return sums, df
    X = hashing_transform(
        docs, n_features=n_features, alternate_sign=alternate_sign, norm=norm, binary=binary,
        lowercase=lowercase, ngram_range=ngram_range, stop_words=stop_words,
    )  # fmt: skip
    if y.shape != (X.shape[0],):
        raise ValueError(f"y_codes must have shape ({X.shape[0]},), got {y.shape}.")
    import scipy.sparse as sp

    Y = sp.csr_array((np.ones(len(y)), y, np.arange(len(y) + 1)), shape=(len(y), int(n_classes)))
    sums = np.asarray((Y.T @ sp.csr_array(X)).toarray(), dtype=np.float64)
    df = np.bincount(X.indices, minlength=int(n_features)).astype(np.int64)
    return sums, df


def hashed_batch(
    docs: list[str],
    codes: np.ndarray,
    n_classes: int,
    *,
    rows: bool,
    n_features: int,
    binary: bool,
    lowercase: bool,
    ngram: tuple[int, int],
    tokens: str,
    stop: frozenset[Any] | None,
) -> tuple[Any, np.ndarray, np.ndarray]:
    """One TextClassifier batch hashed into ``n_features`` buckets (the counts of
    ``HashingVectorizer(alternate_sign=False, norm=None, binary=...)``): ``(sums,
    doc_freq, term_freq)``. ``rows``: ``sums`` are the documents' rows (a CSR matrix) for
    the caller to weight or add as they are; else the dense per-class sums, by the
    compiled kernel straight from the documents when they are all exact ``str`` (no
    scipy). ``codes`` are valid class codes."""
    if not rows and routes.all_str(docs):  # by the kernel (the token streams where it declines)
        sums = np.zeros((n_classes, n_features))
        df = np.zeros(n_features, dtype=np.int64)
        y = np.asarray(codes).astype(np.int64, copy=False)
        add_hashed(
            docs, y, sums, df, n_features, binary, lowercase, stop, ngram, tokens, checked=True
        )
        return sums, df, sums.sum(axis=0)
    X = _transform(docs, n_features, False, None, binary, lowercase, ngram, tokens, stop,
                   np.float64)  # fmt: skip
    df = np.bincount(X.indices, minlength=n_features).astype(np.int64)
    if rows:
        return X, df, np.asarray(X.sum(axis=0), dtype=np.float64).reshape(-1)
    import scipy.sparse as sp

    n = len(codes)
    Y = sp.csr_array((np.ones(n), codes, np.arange(n + 1)), shape=(n, n_classes))
    sums = np.asarray((Y.T @ sp.csr_array(X)).toarray(), dtype=np.float64)
    return sums, df, sums.sum(axis=0)
