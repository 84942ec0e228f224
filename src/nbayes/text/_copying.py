# mypy: disallow-untyped-defs=False
"""The copying path (n-grams, CountVectorizer's analysis): the documents joined and encoded
as one code point array, tokens and word pairs interned, turned into scikit-learn's column
order, CSR rows or per-class sums ``Y^T X``; sorting terms in ``str`` order.

See :mod:`nbayes.text._tokenize` for how this path relates to the zero-copy one.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import numpy as np

import nbayes._native as _native
from nbayes.text._chars import word_table

__all__ = [
    "IdStreams",
    "InternState",
    "build_rows",
    "encode_corpus",
    "first_occurrence",
    "intern_tokens",
    "ngram_blob",
    "ngram_order",
    "pair_ids",
    "prefix_keys",
    "sort_terms",
    "stream_class_sums",
]


def encode_corpus(docs: list[str], lowercase: bool) -> tuple[str, np.ndarray, np.ndarray]:
    """Join, optionally lowercase, and encode documents as a code point array.

    Parameters
    ----------
    docs : list of str
        The documents; every element must be a ``str``.
    lowercase : bool
        Apply ``str.lower`` exactly as scikit-learn's default preprocessor does.

    Returns
    -------
    text : str
        The joined (lowercased) text; ``text[i]`` is code point ``buf[i]``.
    buf : ndarray of uint8 (ASCII text) or uint32
    spans : ndarray of shape (n_docs, 2), int64
        ``[start, end)`` of each document in ``buf``.
    """
    text = "\n".join(docs)
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    if lowercase:
        low = text.lower()
        if len(low) != len(text):
            # Only 'İ' (U+0130) grows under str.lower(); lengths of documents change.
            lowered = [d.lower() for d in docs]
            low = "\n".join(lowered)
            lengths = np.fromiter(map(len, lowered), dtype=np.int64, count=len(docs))
        text = low
    ends = np.cumsum(lengths + 1) - 1
    spans = np.empty((len(docs), 2), dtype=np.int64)
    spans[:, 1] = ends
    spans[:, 0] = ends - lengths
    if text.isascii():
        buf = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    else:
        buf = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return text, buf, spans


def _grown(a: np.ndarray, n: int, new_size: int) -> np.ndarray:
    out = np.empty(new_size, dtype=a.dtype)
    out[:n] = a[:n]
    return out


class InternState:
    """Exact token -> id table shared across calls (ids are first-occurrence order).

    The table itself (slots, hashes, the terms' code points) is compiled state behind a
    capsule (``nbayes._native.Intern``): it grows inside the kernel, and a call checks only
    the documents it is given, never the whole table again.

    Attributes
    ----------
    n_terms : int
        Number of interned terms (including stop words seeded with :meth:`seed_stop`).
    """

    def __init__(self, capacity: int = 1 << 12) -> None:
        self._table = _native.intern_new(capacity)
        self._terms: list[str] = []
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def n_terms(self) -> int:
        return _native.intern_size(self._table)

    def scan(self, buf: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Intern the tokens of ``buf[spans]``; return ``(token_ids, doc_ptr)``."""
        n_docs = spans.shape[0]
        tok = np.empty(max(16, buf.shape[0] // 5), dtype=np.int32)
        ptr = np.zeros(n_docs + 1, dtype=np.int64)
        pos = np.zeros(3, dtype=np.int64)
        table = word_table()
        spans = np.ascontiguousarray(spans, dtype=np.int64)
        # 3: the token buffer is full (the table grows inside the kernel)
        while _native.intern_run(self._table, buf, spans, table, tok, ptr, pos) == 3:
            tok = _grown(tok, int(pos[2]), 2 * tok.shape[0])
        return tok[: pos[2]], ptr

    def seed_stop(self, words: object) -> None:
        """Intern stop words and flag them: they are dropped from later token streams.

        Words that are not a single token (two or more word characters) can never equal
        a token and are ignored, exactly as they have no effect in scikit-learn.
        """
        valid = [w for w in words if isinstance(w, str) and _is_single_token(w)]  # type: ignore[attr-defined]
        if not valid:
            return
        _, buf, spans = encode_corpus(sorted(valid), lowercase=False)
        tok, _ = self.scan(buf, spans)
        _native.intern_stop(self._table, tok)

    def terms(self) -> list[str]:
        """All interned terms, indexed by id (cached; extended incrementally)."""
        if len(self._terms) < self.n_terms:
            self._terms.extend(_native.intern_terms(self._table, len(self._terms)))
        return self._terms

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A copy of the terms as the sorting and blob kernels read them: ``(pool, tstart,
        tlen)``, the code points and every term's start and length in them (int64)."""
        if self._arrays is None or self._arrays[1].shape[0] != self.n_terms:
            self._arrays = _native.intern_arrays(self._table)
        return self._arrays


_SINGLE = re.compile(r"\w\w+")


def _is_single_token(w: str) -> bool:
    return _SINGLE.fullmatch(w) is not None


def intern_tokens(
    buf: np.ndarray, spans: np.ndarray, state: InternState
) -> tuple[np.ndarray, np.ndarray]:
    """Scan and intern tokens; see :meth:`InternState.scan`."""
    return state.scan(buf, spans)


def pair_ids(
    tok: np.ndarray, ptr: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Intern consecutive token pairs within each document.

    Returns
    -------
    pair_tok, pair_ptr : ndarray
        The bigram id stream and its per-document pointer.
    first, second : ndarray of int32
        Unigram ids of the two halves of each bigram id.
    """
    return _native.pair_ids(tok, ptr)


class IdStreams(Protocol):
    """A corpus as the kernels read it: unigram ids ``tok`` (document ``d`` is
    ``tok[ptr[d]:ptr[d + 1]]``), word-pair ids ``ptok``/``pptr`` likewise, the number of
    unigram ids and of pair ids, and which of the two streams are counted (a pair id ``p``
    is column id ``n_uni + p``)."""

    tok: np.ndarray
    ptr: np.ndarray
    ptok: np.ndarray
    pptr: np.ndarray

    @property
    def n_uni(self) -> int: ...
    @property
    def n_pair(self) -> int: ...
    @property
    def use_uni(self) -> bool: ...
    @property
    def use_pair(self) -> bool: ...


def _streams(s: IdStreams) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The kernels' leading arguments: the four streams, ``n_uni``."""
    return s.tok, s.ptr, s.ptok, s.pptr, int(s.n_uni)


def first_occurrence(s: IdStreams) -> tuple[np.ndarray, int]:
    """Column of each (unigram, then ``n_uni + pair``) id in scikit-learn's fit order.

    scikit-learn's ``_count_vocab`` numbers features by first occurrence in the analyzer
    output (per document: unigrams in order, then bigrams). Ids never emitted get -1.
    """
    col, n = _native.first_occurrence(
        *_streams(s), int(s.n_pair), bool(s.use_uni), bool(s.use_pair)
    )
    return col, int(n)


def build_rows(
    s: IdStreams, col: np.ndarray, n_cols: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR pieces ``(indptr, indices, counts)`` with indices sorted within each row.

    ``col`` maps each id (unigram id, or ``n_uni + pair id``) to its output column, or
    -1 to ignore it (out-of-vocabulary).
    """
    return _native.build_rows(*_streams(s), bool(s.use_uni), bool(s.use_pair), col, int(n_cols))


def stream_class_sums(
    s: IdStreams,
    col: np.ndarray,
    n_cols: int,
    y: np.ndarray,
    n_classes: int,
    binary: bool,
    dtype: Any = np.int64,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-class sums ``Y^T X`` (of ``dtype``, int64 or float64) and document frequencies
    straight from the id streams (no per-document sort, no CSR)."""
    as_float = np.dtype(dtype) == np.float64
    if not as_float and np.dtype(dtype) != np.int64:
        raise ValueError(f"dtype must be int64 or float64, got {np.dtype(dtype)}.")
    return _native.stream_class_sums(
        *_streams(s), bool(s.use_uni), bool(s.use_pair), col, int(n_cols),
        np.asarray(y, dtype=np.int64), int(n_classes), bool(binary), as_float,
    )  # fmt: skip


def ngram_blob(pool, tstart, tlen, n_uni, first, second, ids) -> np.ndarray:
    """Code points of the terms ``ids`` (``< n_uni``: a word; else the word pair
    ``first[i - n_uni]``, ``second[i - n_uni]`` joined by a space), "\\n"-separated."""
    return _native.ngram_blob(pool, tstart, tlen, int(n_uni), first, second, ids)


def sort_terms(pool: np.ndarray, tstart: np.ndarray, tlen: np.ndarray) -> Any:
    """Term ids in code point order (Python's ``str`` order), by MSD passes over packed
    prefixes: 8 code points per 64-bit key below U+0100, 4 below U+10000, else 3.

    Returns ``(order, first, per, skeys, slen)``: ``first`` = every term's first key
    (by id, as :func:`prefix_keys` gives them), ``per`` = code points per key, and
    ``skeys``/``slen`` = the first keys and lengths in sorted order (a merge reads them
    front to back instead of at random)."""
    return _native.sort_terms(pool, tstart, tlen)


def prefix_keys(pool: np.ndarray, tstart: np.ndarray, tlen: np.ndarray) -> np.ndarray:
    """Order-preserving 64-bit prefixes of every term: 8 code points when all are below
    U+0100, 4 below U+10000, else 3 (ties are broken by comparing code points)."""
    return _native.prefix_keys(pool, tstart, tlen)


def ngram_order(
    state: InternState, first: np.ndarray, second: np.ndarray, ids: np.ndarray
) -> np.ndarray:
    """``ids`` (words and word pairs, as :func:`ngram_blob`) in the order of their
    strings. A pair "a b" sorts as the key (rank(a), rank(b)) and a word as (rank(w), -1):
    the space sorts below every word character, so a word that is a prefix of another
    sorts first followed by a space or not, exactly as Python compares the strings."""
    pool, tstart, tlen = state.arrays()
    n = tstart.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[sort_terms(pool, tstart, tlen)[0]] = np.arange(n, dtype=np.int64)
    pair = ids >= n
    k1 = np.where(pair, 0, ids)
    k1[pair] = first[ids[pair] - n]
    k2 = np.full(ids.shape[0], -1, dtype=np.int64)
    k2[pair] = rank[second[ids[pair] - n]]
    return ids[np.lexsort((k2, rank[k1]))]
