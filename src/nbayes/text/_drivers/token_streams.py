# mypy: disallow-untyped-defs=False
"""Token streams (word n-grams, CountVectorizer's analysis): the documents joined and
encoded as one code point array, tokens and word pairs interned (first-occurrence ids),
longer n-grams composed from them (:mod:`~nbayes.text._drivers.ngrams`), turned into
scikit-learn's column order, CSR rows or per-class sums ``Y^T X`` over a vocabulary;
sorting terms in ``str`` order.

:class:`_Analysis` is a batch's streams; :func:`vocabulary_sums` a batch's class sums over
a vocabulary (new, extended or fixed) and :func:`count_rows` its rows over a fixed one
(the zero-copy reader first for unigrams). See :mod:`nbayes.text._tokenize` for how this
path relates to the zero-copy one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

import nbayes._native as _native
from nbayes.text._drivers.chars import word_table
from nbayes.text._drivers.lookup import direct_transform, term_columns
from nbayes.text._drivers.ngrams import ComposedNgrams
from nbayes.text._drivers.zero_copy import _decode_terms
from nbayes.text._routes import COMPOSED_NGRAMS, ZERO_COPY, tokens

__all__ = [
    "IdStreams",
    "InternState",
    "bucket_rows",
    "build_rows",
    "count_rows",
    "encode_corpus",
    "first_occurrence",
    "intern_tokens",
    "ngram_blob",
    "ngram_order",
    "pair_ids",
    "prefix_keys",
    "sort_terms",
    "stream_class_sums",
    "vocabulary_sums",
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
    sorts first followed by a space or not, exactly as Python compares the strings.

    One compiled call that looks at Ctrl-C: over a bigram fit's ~3 million terms, the
    numpy gathers and ``np.lexsort`` it replaces ran 0.3-1 s without a look."""
    pool, tstart, tlen = state.arrays()
    order = sort_terms(pool, tstart, tlen)[0]
    return _native.ngram_order(order, first, second, np.asarray(ids, dtype=np.int64))


def _check_ngram(ngram_range: Any) -> tuple[int, int]:
    """``ngram_range`` as ints ``(min_n, max_n)`` with ``1 <= min_n <= max_n`` (any such
    range is counted: :func:`nbayes.text._routes.tokens` says by which route)."""
    try:
        lo, hi = (int(v) for v in ngram_range)
    except (TypeError, ValueError):
        lo, hi = -1, -1
    if not 1 <= lo <= hi:
        raise ValueError(
            f"Invalid value for ngram_range={ngram_range!r}: lower boundary larger than "
            "the upper boundary, or below 1. Pass (min_n, max_n) with 1 <= min_n <= max_n."
        )
    return lo, hi


class _Analysis:
    """Token-id streams for a corpus under the default word analyzer.

    Unigrams and word pairs are the kernels' own streams; any other n-gram range
    (``COMPOSED_NGRAMS``) is one stream of composed term ids
    (:class:`~nbayes.text._drivers.ngrams.ComposedNgrams`) that the kernels count as unigrams.
    """

    __slots__ = (
        "state", "tok", "ptr", "ptok", "pptr", "first", "second", "lo", "hi", "composed",
        "n_uni", "n_pair", "use_uni", "use_pair",
    )  # fmt: skip

    def __init__(
        self,
        docs: list[str],
        lowercase: bool,
        stop: frozenset[Any] | None,
        ngram_range: tuple[int, int],
        route: str | None = None,
    ) -> None:
        """``route``: the tokenizing step of ``ngram_range``, if known (else
        :func:`~nbayes.text._routes.tokens` says)."""
        self.state = InternState()
        if stop:
            self.state.seed_stop(stop)
        _, buf, spans = encode_corpus(docs, bool(lowercase))
        self.tok, self.ptr = self.state.scan(buf, spans)
        self.lo, self.hi = ngram_range
        self.composed: ComposedNgrams | None = None
        if (route or tokens(ngram_range)) == COMPOSED_NGRAMS:
            self.composed = ComposedNgrams(
                self.tok, self.ptr, self.state.n_terms, self.lo, self.hi, self.state.terms
            )
            self.tok, self.ptr = self.composed.stream, self.composed.ptr
            self.lo = self.hi = 1  # the composed ids are counted as the kernels count words
        if self.hi >= 2:
            self.ptok, self.pptr, self.first, self.second = pair_ids(self.tok, self.ptr)
        else:
            self.ptok = np.empty(0, dtype=np.int32)
            self.pptr = np.zeros(len(docs) + 1, dtype=np.int64)
            self.first = self.second = np.empty(0, dtype=np.int32)
        # plain attributes (the kernels' drivers read them often): the streams are made
        self.n_uni: int = self.state.n_terms if self.composed is None else self.composed.n_ids
        self.n_pair = int(self.first.shape[0])
        self.use_uni = self.lo == 1
        self.use_pair = self.hi == 2

    def seen(self) -> tuple[np.ndarray, int]:
        """First-occurrence column of every id (-1 for ids not in the analyzer output)."""
        return first_occurrence(self)

    def term_list(self, ids: np.ndarray) -> list[str]:
        if self.composed is not None:
            return self.composed.term_strings(ids)
        terms = self.state.terms()
        n = self.n_uni
        out: list[str] = []
        first = self.first.tolist()
        second = self.second.tolist()
        for i in ids.tolist():
            if i < n:
                out.append(terms[i])
            else:
                p = i - n
                out.append(terms[first[p]] + " " + terms[second[p]])
        return out

    def sorted_ids(self, ids: np.ndarray) -> np.ndarray:
        """``ids`` in the order of their term strings (compiled; no strings made)."""
        if self.composed is not None:
            return self.composed.sorted_ids(ids)
        return ngram_order(self.state, self.first, self.second, ids)

    def term_strings(self, ids: np.ndarray) -> list[str]:
        """The term strings of ``ids``, decoded from one buffer."""
        if self.composed is not None:
            return self.composed.term_strings(ids)
        pool, tstart, tlen = self.state.arrays()
        blob = ngram_blob(
            pool, tstart, tlen, tstart.shape[0], self.first, self.second,
            np.ascontiguousarray(ids, dtype=np.int64),
        )  # fmt: skip
        return _decode_terms(blob) if len(ids) else []

    def rows(self, col: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return build_rows(self, col, n_cols)

    def fixed_columns(self, vocabulary: Mapping[str, int]) -> np.ndarray:
        """Map every id to ``vocabulary[term]`` or -1."""
        if self.composed is not None:
            return self.composed.columns(vocabulary)
        n = self.n_uni
        col = np.full(n + self.n_pair, -1, dtype=np.int64)
        words = self.state.terms() if self.use_uni else []
        pairs = self._pair_strings if self.use_pair and self.n_pair else None
        if words or pairs is not None:  # one lookup of both (pairs if a term has a space)
            got = term_columns(vocabulary, words, pairs)
            k = len(words)
            col[:k] = got[:k]
            col[n : n + len(got) - k] = got[k:]
        return col

    def _pair_strings(self) -> list[str]:
        """The string of every word pair ("a b"), by pair id."""
        terms = self.state.terms()
        return [
            terms[a] + " " + terms[b]
            for a, b in zip(self.first.tolist(), self.second.tolist(), strict=True)
        ]


def bucket_rows(
    docs: list[str],
    lowercase: bool,
    stop: frozenset[Any] | None,
    ngram: tuple[int, int],
    n_cols: int,
    buckets: Any,
    route: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR pieces of the counts of ``docs`` in columns given by their terms: ``buckets``
    maps a list of distinct term strings to their columns (``< n_cols``); every row's
    columns sorted, the terms sharing a column summed. ``route``: as :func:`count_rows`'s."""
    an = _Analysis(docs, lowercase, stop, ngram, route)
    seen, _ = an.seen()
    used = np.flatnonzero(seen >= 0)
    col = np.full(len(seen), -1, dtype=np.int64)
    col[used] = buckets(an.term_strings(used))
    return an.rows(col, n_cols)


def vocabulary_sums(
    docs: list[str],
    lowercase: bool,
    stop: frozenset[Any] | None,
    ngram: tuple[int, int],
    vocabulary: dict[str, int] | None,
    fixed: bool,
    y: np.ndarray,
    n_classes: int,
    binary: bool,
    dtype: Any,
    route: str | None = None,
) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """``count_by_class`` through the token streams: the vocabulary (new, extended in
    place by the new terms in sorted order, or ``fixed``), the per-class sums and the
    document frequencies of its columns."""
    an = _Analysis(docs, lowercase, stop, ngram, route)
    if an.composed is not None:  # the composer indexes its own ids (strings made there)
        if vocabulary is None:
            vocabulary = {}
        base = len(vocabulary)
        col, terms = an.composed.index(vocabulary, None if fixed else an.seen()[0])
        _add_terms(vocabulary, terms, base)
    elif vocabulary is not None and fixed:
        col = an.fixed_columns(vocabulary)
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
        _add_terms(vocabulary, terms, base)
        col[ordered] = np.arange(base, base + len(ordered), dtype=np.int64)
    counts, df = stream_class_sums(an, col, len(vocabulary), y, n_classes, binary, dtype)
    return vocabulary, counts, df


#: terms added to a vocabulary per dict.update (~25 ms each): Python looks at Ctrl-C only
#: between C calls, and one update of the ~2 million n-grams of a bigram fit took 0.7 s
_ADD_STEP = 1 << 16


def _add_terms(vocabulary: dict[str, int], terms: list[str], base: int) -> None:
    """``vocabulary.update(zip(terms, range(base, base + len(terms))))`` in steps of
    ``_ADD_STEP`` terms, so that Ctrl-C stops a fit of many new terms within ~25 ms."""
    for lo in range(0, len(terms), _ADD_STEP):
        chunk = terms[lo : lo + _ADD_STEP]
        vocabulary.update(zip(chunk, range(base + lo, base + lo + len(chunk)), strict=True))


def count_rows(
    docs: list[str],
    vocabulary: Mapping[str, int],
    lowercase: bool,
    ngram: tuple[int, int],
    stop: frozenset[Any] | None,
    route: str | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR pieces ``(indptr, indices, values)`` of the counts of ``docs`` over
    ``vocabulary`` (columns ``0..len-1``; unknown terms ignored). ``ngram`` is any valid
    range (:func:`_check_ngram`); ``route``: its tokenizing step, if known
    (:func:`nbayes.text._routes.tokens`); the indices of a row may come unsorted."""
    pieces = None
    if (route or tokens(ngram)) == ZERO_COPY:  # declined (None): token streams
        pieces = direct_transform(docs, vocabulary, lowercase, stop)
    if pieces is None:
        an = _Analysis(docs, lowercase, stop, ngram, route)
        pieces = an.rows(an.fixed_columns(vocabulary), len(vocabulary))
    return pieces
