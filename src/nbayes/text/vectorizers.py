"""Exact, fast bag-of-words vectorizers and class-count kernels.

:class:`CountVectorizer` and :class:`HashingVectorizer` are scikit-learn's classes with a
compiled fast path for the default word analyzer; every other setting falls back to
scikit-learn's own code, so results are always identical to scikit-learn's.

The functions :func:`count_by_class`, :func:`transform_counts`, :func:`transform_one`,
:func:`hashing_transform` and :func:`hash_by_class` are the kernel-level entry points
used to train and apply Naive Bayes without materialising a document x term matrix.

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
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction import text as _sk_text
from sklearn.preprocessing import normalize
from sklearn.utils import murmurhash3_32
from sklearn.utils._sparse import _align_api_if_sparse

from nbayes.text import _hashing
from nbayes.text import _tokenize as _tk
from nbayes.text._analyzer import DEFAULT_TOKEN_PATTERN, transform_one
from nbayes.text._counting import _FAST_NGRAMS, _Analysis, _check_ngram, count_rows

__all__ = [
    "CountVectorizer",
    "HashingVectorizer",
    "count_by_class",
    "transform_counts",
    "transform_one",
    "hashing_transform",
    "hash_by_class",
    "hash_into",
]

_FAST_PATTERNS = (DEFAULT_TOKEN_PATTERN, r"\b\w\w+\b")


# --------------------------------------------------------------------------------------
# shared helpers
# --------------------------------------------------------------------------------------


def _stop_set(stop_words: Any) -> frozenset[Any] | None:
    """scikit-learn's ``_check_stop_list`` with an advice-style error message."""
    if stop_words is None:
        return None
    if isinstance(stop_words, str):
        if stop_words == "english":
            return _sk_text.ENGLISH_STOP_WORDS
        raise ValueError(
            f"stop_words={stop_words!r} is not a built-in stop list; use 'english', "
            "a collection of words, or None."
        )
    return frozenset(stop_words)


def _as_str_list(docs: Iterable[Any], what: str = "docs") -> list[str]:
    if isinstance(docs, str):
        raise ValueError(
            f"{what} must be a sequence of documents, got a single string; wrap it in a "
            "list: [doc]."
        )
    out = docs if isinstance(docs, list) else list(docs)
    if not out or set(map(type, out)) == {str}:
        return out
    for i, d in enumerate(out):
        if type(d) is not str:
            raise TypeError(
                f"{what}[{i}] is of type {type(d).__name__}, expected str; decode bytes "
                "first (e.g. d.decode('utf-8')) or use CountVectorizer(input=...)."
            )
    return out


def _csr_pieces_to_sklearn(
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
    return _align_api_if_sparse(X)


# --------------------------------------------------------------------------------------
# kernel-level API
# --------------------------------------------------------------------------------------


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
        As in :class:`CountVectorizer`; ``ngram_range`` in ``(1, 1)``, ``(1, 2)``,
        ``(2, 2)``. ``binary=True`` clips each document's counts to 1 before summing.
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
    docs = _as_str_list(docs)
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
    stop = _stop_set(stop_words)
    if ngram == (1, 1):
        direct = _tk.direct_count(
            docs, y, int(n_classes), bool(lowercase), bool(binary), dtype=dtype
        )
        if direct is not None:
            return _place_direct(direct, stop, vocabulary, fixed_vocabulary)
    an = _Analysis(docs, lowercase, stop, ngram)
    if vocabulary is not None and fixed_vocabulary:
        col = an.fixed_columns(vocabulary)
        n_cols = len(vocabulary)
    else:
        seen, _ = an.seen()
        if vocabulary is None:
            vocabulary = {}
            col = np.full(seen.shape[0], -1, dtype=np.int64)
            new_ids = np.flatnonzero(seen >= 0)
        else:
            col = an.fixed_columns(vocabulary)
            new_ids = np.flatnonzero((seen >= 0) & (col < 0))
        ordered = an.sorted_ids(new_ids)
        base = len(vocabulary)
        terms = an.term_strings(ordered)
        vocabulary.update(zip(terms, range(base, base + len(ordered)), strict=True))
        col[ordered] = np.arange(base, base + len(ordered), dtype=np.int64)
        n_cols = len(vocabulary)
    counts, df = _tk.stream_class_sums(
        an.tok, an.ptr, an.ptok, an.pptr, an.n_uni, an.use_uni, an.use_pair, col, n_cols,
        y, int(n_classes), bool(binary), dtype,
    )
    return vocabulary, counts, df


def count_terms(
    docs: Sequence[str],
    y_codes: np.ndarray,
    n_classes: int,
    *,
    lowercase: bool = True,
    binary: bool = False,
    stop_words: str | Iterable[str] | None = None,
) -> tuple[Sequence[str], np.ndarray, np.ndarray] | None:
    """Sorted unigram terms, per-class counts (float64) and document frequencies through
    the compiled path, without building a term dict; None when that path cannot read
    the documents (use :func:`count_by_class`). ``y_codes`` must be valid class codes.
    The terms are a list, or :class:`~nbayes.text._tokenize.Terms` (decoded when read)."""
    docs = _as_str_list(docs)
    y = np.asarray(y_codes).astype(np.int64, copy=False)
    direct = _tk.direct_count(docs, y, int(n_classes), bool(lowercase), bool(binary),
                              dtype=np.float64)  # fmt: skip
    if direct is None:
        return None
    return _without_stop_words(direct, _stop_set(stop_words))


def _without_stop_words(
    direct: _tk.DirectCounts, stop: frozenset[Any] | None
) -> tuple[Sequence[str], np.ndarray, np.ndarray]:
    """The sorted terms, counts and document frequencies of ``direct`` minus stop words."""
    terms: Sequence[str] = direct.terms
    counts, df = direct.counts, direct.df
    if stop:
        keep = np.fromiter((t not in stop for t in terms), dtype=bool, count=len(terms))
        if not keep.all():
            terms = [t for t, k in zip(terms, keep.tolist(), strict=True) if k]
            counts, df = counts[:, keep], df[keep]
    return terms, counts, df


def _place_direct(
    direct: _tk.DirectCounts,
    stop: frozenset[Any] | None,
    vocabulary: dict[str, int] | None,
    fixed_vocabulary: bool,
) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """``count_by_class``'s result from sorted unigram statistics."""
    terms, counts, df = _without_stop_words(direct, stop)
    fresh = None
    if vocabulary is None or (not vocabulary and not fixed_vocabulary):
        fresh = dict(zip(terms, range(len(terms)), strict=True))
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
    docs = _as_str_list(docs)
    stop = _stop_set(stop_words)
    ngram = _check_ngram(ngram_range)
    n_cols = len(vocabulary)
    indptr, indices, values = count_rows(docs, vocabulary, bool(lowercase), ngram, stop)
    X = _csr_pieces_to_sklearn(indptr, indices, values, n_cols, dtype)
    if binary:
        X.data.fill(1)
    return X


def _murmur_index_sign(terms: list[str], n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's FeatureHasher mapping term -> (column, sign), seed 0."""
    h = np.fromiter(
        (murmurhash3_32(t, seed=0) for t in terms), dtype=np.int64, count=len(terms)
    )
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
    docs = _as_str_list(docs)
    if len(docs) == 0:
        raise ValueError("Cannot vectorize empty sequence; pass at least one document.")
    ngram = _check_ngram(ngram_range)
    stop = _stop_set(stop_words)
    pieces = None
    if ngram == (1, 1):
        pieces = _hashing.direct_hash_transform(docs, bool(lowercase), int(n_features),
                                           bool(alternate_sign), stop)  # fmt: skip
    if pieces is not None:
        indptr, cols, sums = pieces
        idx_dtype = np.int64 if indptr[-1] > np.iinfo(np.int32).max else np.int32
        X = sp.csr_array(
            (sums.astype(dtype), cols.astype(np.int32), indptr.astype(idx_dtype)),
            shape=(len(docs), int(n_features)),
        )
        X.has_canonical_format = True  # sorted, summed per row by the kernel
    else:
        X = _hash_analysis(docs, lowercase, stop, ngram, int(n_features), alternate_sign, dtype)
    X = _align_api_if_sparse(X)
    if binary:
        X.data.fill(1)
    if norm is not None:
        X = normalize(X, norm=norm, copy=False)
    return _align_api_if_sparse(X)


def _hash_analysis(
    docs: list[str],
    lowercase: bool,
    stop: frozenset[Any] | None,
    ngram: tuple[int, int],
    n_features: int,
    alternate_sign: bool,
    dtype: Any,
) -> Any:
    """FeatureHasher's matrix through the interning analysis (word n-grams)."""
    an = _Analysis(docs, lowercase, stop, ngram)
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
    X = sp.csr_array(
        (values, lut_idx[ids].astype(np.int32), indptr.astype(idx_dtype)),
        dtype=dtype,
        shape=(len(docs), int(n_features)),
    )
    X.sum_duplicates()
    return X


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
    """Add the hashed counts of ``docs`` into ``sums[rows[i]]``, ``doc_freq`` and
    ``term_freq`` in place, by the compiled kernel (no term is ever stored).

    The counts are those of ``HashingVectorizer(n_features, alternate_sign=False,
    norm=None, binary, lowercase, stop_words)``: ``sums[c, j]`` gains the count of
    column ``j`` in the documents with ``rows[i] == c``, ``doc_freq[j]`` the number of
    documents with column ``j``. Memory is that of the arrays given plus 8 bytes per
    column, whatever the number of distinct words. Single-threaded (each add goes to
    the shared arrays); about 4x scikit-learn's HashingVectorizer alone.

    Returns False, having added nothing, when the kernel cannot take the input (word
    n-grams, documents that are not exact ``str``, a Python without the zero-copy
    reader): use :func:`hashing_transform` then.
    """
    if _check_ngram(ngram_range) != (1, 1) or not _all_str(docs):
        return False
    if sums.shape[1] < n_features or doc_freq.shape[0] < n_features:
        raise ValueError(f"sums and doc_freq need at least n_features={n_features} columns.")
    rows = np.asarray(rows)
    if rows.shape != (len(docs),) or (rows.size and (rows.min() < 0 or rows.max() >= len(sums))):
        raise ValueError(
            f"rows must hold one row of sums (0..{len(sums) - 1}) per document; got shape "
            f"{rows.shape}."
        )
    return _hashing.direct_hash(
        docs, rows, bool(lowercase), bool(binary), int(n_features), sums, doc_freq,
        _stop_set(stop_words),
    )  # fmt: skip


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
        docs = _as_str_list(docs)
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
        docs, n_features=n_features, alternate_sign=alternate_sign, norm=norm,
        binary=binary, lowercase=lowercase, ngram_range=ngram_range, stop_words=stop_words,
    )
    if y.shape != (X.shape[0],):
        raise ValueError(f"y_codes must have shape ({X.shape[0]},), got {y.shape}.")
    Y = sp.csr_array(
        (np.ones(len(y)), y, np.arange(len(y) + 1)), shape=(len(y), int(n_classes))
    )
    sums = np.asarray((Y.T @ sp.csr_array(X)).toarray(), dtype=np.float64)
    df = np.bincount(X.indices, minlength=int(n_features)).astype(np.int64)
    return sums, df


# --------------------------------------------------------------------------------------
# scikit-learn compatible vectorizers
# --------------------------------------------------------------------------------------


def _empty_vocabulary() -> ValueError:
    """scikit-learn's error (and message) for a fit that finds no term."""
    return ValueError("empty vocabulary; perhaps the documents only contain stop words")


def _fast_settings(est: Any) -> tuple[int, int] | None:
    """The ngram range if ``est``'s settings are those of the compiled path, else None."""
    if (
        est.input != "content"
        or est.analyzer != "word"
        or est.preprocessor is not None
        or est.tokenizer is not None
        or est.strip_accents
        or est.token_pattern not in _FAST_PATTERNS
    ):
        return None
    try:
        ngram = (int(est.ngram_range[0]), int(est.ngram_range[1]))
    except (TypeError, ValueError, IndexError):
        return None
    if ngram not in _FAST_NGRAMS:
        return None
    return ngram


def _all_str(docs: Sequence[Any]) -> bool:
    return all(type(d) is str for d in docs)


def _small(docs: list[str]) -> bool:
    """Tiny batches are faster through scikit-learn's pure-Python path (no kernel setup)."""
    return len(docs) <= 8 and sum(map(len, docs)) < 4000


class CountVectorizer(_sk_text.CountVectorizer):
    """scikit-learn's ``CountVectorizer`` with an exact compiled fast path.

    Same parameters, defaults, attributes and results as
    :class:`sklearn.feature_extraction.text.CountVectorizer`. When the settings are
    the default word analyzer (``token_pattern`` default, no custom ``preprocessor`` /
    ``tokenizer``, no ``strip_accents``, ``input='content'``, ``ngram_range`` in
    ``(1, 1)``, ``(1, 2)``, ``(2, 2)``) and all documents are ``str``, counting runs in
    a compiled kernel; otherwise scikit-learn's implementation is used.

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

    def _count_vocab(self, raw_documents: Iterable[Any], fixed_vocab: bool) -> Any:
        docs = raw_documents if isinstance(raw_documents, list) else list(raw_documents)
        ngram = _fast_settings(self)
        if ngram is None or not _all_str(docs) or _small(docs):
            return super()._count_vocab(docs, fixed_vocab)
        self.build_analyzer()  # validation and stop-word consistency warning, as sklearn
        if ngram == (1, 1):
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
            X = _csr_pieces_to_sklearn(indptr, indices, values, n_cols, self.dtype, sort=False)
            return vocabulary, X
        indptr, indices, values = an.rows(col, n_cols)
        return vocabulary, _csr_pieces_to_sklearn(indptr, indices, values, n_cols, self.dtype)

    def _count_vocab_direct(self, docs: list[str], fixed_vocab: bool) -> Any:
        """Unigrams through the zero-copy kernels: the sorted vocabulary in one pass
        (unless fixed), then the rows over it; None when the kernels cannot read."""
        stop = _stop_set(self.get_stop_words())
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
        pieces = _tk.direct_transform(
            docs, vocabulary, bool(self.lowercase), stop, first=first
        )
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
        X = _csr_pieces_to_sklearn(
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
        dfs = _sk_text._document_frequency(X)
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
        new_vals = list(new_indices[old[keep]])  # numpy integers, as scikit-learn stores
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
            raise ValueError(
                "Iterable over raw text documents expected, string object received."
            )
        docs = X if isinstance(X, list) else list(X)
        ngram = _fast_settings(self)
        nf = self.n_features
        if (
            ngram is None
            or not docs
            or not _all_str(docs)
            or isinstance(nf, bool)
            or not isinstance(nf, int | np.integer)
            or nf < 1
            or np.dtype(self.dtype).kind != "f"
            or self.norm not in (None, "l1", "l2", "max")
        ):
            return super().transform(docs)
        self._validate_ngram_range()
        self.build_analyzer()  # validation and stop-word consistency warning, as sklearn
        try:
            return hashing_transform(
                docs, n_features=int(nf), alternate_sign=bool(self.alternate_sign),
                norm=self.norm, binary=bool(self.binary), lowercase=self.lowercase,
                ngram_range=ngram, stop_words=self.get_stop_words(), dtype=self.dtype,
            )
        except UnicodeEncodeError:  # lone surrogates: let scikit-learn decide
            return super().transform(docs)
