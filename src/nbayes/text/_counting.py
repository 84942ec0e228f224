"""Counting documents over a fixed vocabulary through the compiled kernels (no scipy).

:func:`count_rows` gives the rows of ``CountVectorizer(vocabulary=...).transform(docs)``
as CSR pieces (numpy arrays); :func:`nbayes.text.transform_counts` wraps them in a scipy
matrix and :class:`nbayes.text.scoring.TextScorer` scores them as they are. Word n-grams go
through :class:`_Analysis`, the token-id streams that the vectorizers share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from nbayes.text import _tokenize as _tk
from nbayes.text._ngrams import ComposedNgrams
from nbayes.text._routes import COMPOSED_NGRAMS, ZERO_COPY, tokens

__all__ = ["count_rows", "vocabulary_sums"]


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
    (:class:`~nbayes.text._ngrams.ComposedNgrams`) that the kernels count as unigrams.
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
        self.state = _tk.InternState()
        if stop:
            self.state.seed_stop(stop)
        _, buf, spans = _tk.encode_corpus(docs, bool(lowercase))
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
            self.ptok, self.pptr, self.first, self.second = _tk.pair_ids(self.tok, self.ptr)
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
        return _tk.first_occurrence(self)

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
        return _tk.ngram_order(self.state, self.first, self.second, ids)

    def term_strings(self, ids: np.ndarray) -> list[str]:
        """The term strings of ``ids``, decoded from one buffer."""
        if self.composed is not None:
            return self.composed.term_strings(ids)
        pool, tstart, tlen = self.state.arrays()
        blob = _tk.ngram_blob(
            pool, tstart, tlen, tstart.shape[0], self.first, self.second,
            np.ascontiguousarray(ids, dtype=np.int64),
        )  # fmt: skip
        return _tk._decode_terms(blob) if len(ids) else []

    def rows(self, col: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _tk.build_rows(self, col, n_cols)

    def fixed_columns(self, vocabulary: Mapping[str, int]) -> np.ndarray:
        """Map every id to ``vocabulary[term]`` or -1."""
        if self.composed is not None:
            return self.composed.columns(vocabulary)
        n = self.n_uni
        col = np.full(n + self.n_pair, -1, dtype=np.int64)
        if self.use_uni:
            get = vocabulary.get
            terms = self.state.terms()
            col[:n] = [get(t, -1) for t in terms]
        if self.use_pair and self.n_pair and any(" " in t for t in vocabulary):
            terms = self.state.terms()
            get = vocabulary.get
            col[n:] = [
                get(terms[a] + " " + terms[b], -1)
                for a, b in zip(self.first.tolist(), self.second.tolist(), strict=True)
            ]
        return col


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
    if vocabulary is not None and fixed:
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
    counts, df = _tk.stream_class_sums(an, col, len(vocabulary), y, n_classes, binary, dtype)
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
        pieces = _tk.direct_transform(docs, vocabulary, lowercase, stop)
    if pieces is None:
        an = _Analysis(docs, lowercase, stop, ngram, route)
        pieces = an.rows(an.fixed_columns(vocabulary), len(vocabulary))
    return pieces
