"""Word n-grams of any range from the compiled token ids: the ``COMPOSED_NGRAMS`` route.

The kernels of :mod:`nbayes._native` count unigrams and word pairs; longer n-grams
(``ngram_range=(1, 3)``, ``(2, 3)``, ``(3, 5)``, ...) are composed here, in numpy, from the
token-id stream the compiled scanner makes
(:class:`~nbayes.text._drivers.token_streams.InternState`,
stop words already dropped, as scikit-learn drops them before making n-grams): the id of
the k-gram starting at a position is the rank of the pair (id of its (k-1)-gram prefix,
id of its last token) among the pairs of the batch (``np.unique``), so every distinct
n-gram gets one id without a string being made. The result is one stream of term ids per
document in scikit-learn's order (the unigrams, then the bigrams, ... of each document),
which the unigram kernels (``first_occurrence``, ``build_rows``, ``stream_class_sums``)
count as they count words. Term strings are made only where a caller asks for them
(the vocabulary), each from its prefix's string.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbayes.text._drivers.lookup import term_columns

__all__ = ["ComposedNgrams"]


class ComposedNgrams:
    """Every word n-gram of ``lo <= n <= hi`` of a token-id stream, as term ids.

    Ids ``0..n_uni-1`` are the tokens; each longer n = 2, 3, ... has a block of ids after
    those of n - 1, in the order of (prefix id, last token id). ``stream`` / ``ptr`` are the
    ids of each document's terms in scikit-learn's order; ``n_ids`` bounds them.
    """

    __slots__ = ("n_ids", "ptr", "stream", "_last", "_n_uni", "_parent", "_strings", "_tokens")

    def __init__(
        self, tok: np.ndarray, ptr: np.ndarray, n_uni: int, lo: int, hi: int, tokens: Any
    ) -> None:
        self._n_uni = n_uni
        self._tokens = tokens  # () -> the token strings, by id
        self._strings: list[str] | None = None
        n_docs = len(ptr) - 1
        doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(ptr))
        end = ptr[1:][doc_of]  # the end of each position's document
        pos = np.arange(len(tok), dtype=np.int64)
        tok64 = tok.astype(np.int64)
        cur = tok64  # the id (within its level) of the n-gram starting at each position
        base = 0  # the first id of the current level
        self._parent: list[np.ndarray] = []  # per level n >= 2: prefix id (global), last token
        self._last: list[np.ndarray] = []
        ids: list[np.ndarray] = []
        docs: list[np.ndarray] = []
        size = n_uni
        for n in range(1, hi + 1):
            if n > 1:
                at = np.flatnonzero(pos + n <= end)
                key = cur[at] * max(n_uni, 1) + tok64[at + n - 1]
                pairs, inverse = np.unique(key, return_inverse=True)
                self._parent.append(pairs // max(n_uni, 1) + base)
                self._last.append(pairs % max(n_uni, 1))
                base += size
                size = len(pairs)
                cur = np.full(len(tok), -1, dtype=np.int64)
                cur[at] = inverse.reshape(-1)
            else:
                at = pos
            if n >= lo:
                ids.append(cur[at] + base)
                docs.append(doc_of[at])
        self.n_ids = base + size
        all_docs = np.concatenate(docs) if docs else np.empty(0, np.int64)
        order = np.argsort(all_docs, kind="stable")  # by document, levels and positions kept
        all_ids = np.concatenate(ids) if ids else np.empty(0, np.int64)
        dtype = np.int32 if self.n_ids < 2**31 else np.int64
        self.stream = all_ids[order].astype(dtype)
        self.ptr = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(np.bincount(all_docs, minlength=n_docs), out=self.ptr[1:])

    def strings(self) -> list[str]:
        """The string of every id (made on first use: each n-gram from its prefix's)."""
        if self._strings is None:
            out = list(self._tokens())[: self._n_uni]
            tokens = out[:]
            for parent, last in zip(self._parent, self._last, strict=True):
                pairs = zip(parent.tolist(), last.tolist(), strict=True)
                out.extend([out[a] + " " + tokens[b] for a, b in pairs])
            self._strings = out
        return self._strings

    def term_strings(self, ids: np.ndarray) -> list[str]:
        strings = self.strings()
        return [strings[i] for i in ids.tolist()]

    def sorted_ids(self, ids: np.ndarray) -> np.ndarray:
        """``ids`` in the order of their term strings."""
        strings = self.strings()
        return np.asarray(sorted(ids.tolist(), key=strings.__getitem__), dtype=np.int64)

    def columns(self, vocabulary: Any) -> np.ndarray:
        """``vocabulary[term]`` of every id, or -1 (a model file's packed terms: one
        compiled call, :func:`~nbayes.text._drivers.lookup.term_columns`)."""
        if not vocabulary:
            return np.full(self.n_ids, -1, dtype=np.int64)
        return term_columns(vocabulary, self.strings())

    def index(self, vocabulary: Any, seen: np.ndarray | None) -> tuple[np.ndarray, list[str]]:
        """The indexing step of a batch over ``vocabulary`` (a mapping term -> column):
        ``(col, new)``, the column of every id (-1: not counted) and the new terms, in
        string order, given the columns after ``len(vocabulary)`` (for the caller to add).
        ``seen``: the first-occurrence column of every id (-1: not emitted), or None for a
        fixed vocabulary (no new term)."""
        col = self.columns(vocabulary)
        if seen is None:
            return col, []
        ordered = self.sorted_ids(np.flatnonzero((seen >= 0) & (col < 0)))
        base = len(vocabulary)
        col[ordered] = np.arange(base, base + len(ordered), dtype=np.int64)
        return col, self.term_strings(ordered)
