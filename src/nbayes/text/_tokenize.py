# mypy: disallow-untyped-defs=False
"""Compiled kernels for exact, fast bag-of-words counting.

The kernels reproduce scikit-learn's default word analyzer, i.e. the token pattern
``(?u)\\b\\w\\w+\\b`` applied to ``doc.lower()`` (or ``doc``): a token is a maximal run of
two or more characters for which Python's ``re`` says ``\\w`` matches.  The set of word
characters is taken from Python itself (:func:`word_table`), so the compiled scanner
agrees with ``re`` by construction; lowercasing is done by ``str.lower`` in Python.

Pipeline (all exact, no hashing ambiguity: every hash hit is verified code point by code
point):

1. :func:`encode_corpus` joins the documents with ``"\\n"`` (never a word character, never
   cased or case-ignorable, so neither tokens nor the final-sigma rule of ``str.lower``
   can cross a document boundary), lowercases, and exposes the text as a ``uint8``
   (ASCII) or ``uint32`` (any text) code point array plus per-document spans.
2. :func:`intern_tokens` scans the spans, interns every token into an open-addressing
   table (first-occurrence ids) and emits the token-id stream; stop words, pre-seeded
   into the table, are dropped from the stream (as scikit-learn drops them before
   building n-grams).
3. :func:`pair_ids` interns consecutive token pairs (bigrams) exactly, by id pair.
4. :func:`first_occurrence` / :func:`build_rows` / :func:`class_sums` turn the streams
   into scikit-learn's column order, CSR rows, or per-class sums ``Y^T X``.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

__all__ = [
    "FrozenVocabulary",
    "Terms",
    "TermColumns",
    "DirectCounts",
    "direct_count",
    "word_table",
    "encode_corpus",
    "intern_tokens",
    "pair_ids",
    "first_occurrence",
    "build_rows",
    "class_sums",
    "stream_class_sums",
    "ngram_blob",
    "ngram_order",
    "InternState",
]

_MAX_CP = 0x110000
_WORD_TABLE: np.ndarray | None = None


def word_table() -> np.ndarray:
    """Lookup table ``t[cp] == 1`` iff ``re.match(r"\\w", chr(cp))`` (str pattern).

    Built once from Python's own ``re`` module, so it is the reference by construction.

    Returns
    -------
    table : ndarray of shape (0x110000,), dtype uint8
    """
    global _WORD_TABLE
    if _WORD_TABLE is None:
        table = np.zeros(_MAX_CP, dtype=np.uint8)
        every = "".join(map(chr, range(_MAX_CP)))
        for m in re.finditer(r"\w+", every):
            table[m.start() : m.end()] = 1
        _WORD_TABLE = table
    return _WORD_TABLE


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


# --------------------------------------------------------------------------------------
# interning table
# --------------------------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _mix(h: np.uint64) -> np.uint64:
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


@nb.njit(cache=True, nogil=True)
def _intern_run(buf, spans, is_word, slots, thash, tstart, tlen, is_stop, pool, counters,
                tok, ptr, pos):
    """Scan ``buf[spans]`` from ``pos`` = [doc, char, n_tok], interning tokens.

    Never reallocates (reassigning arrays inside the hot loop costs reference counting
    per token): returns 0 when done, or 1 (term table full), 2 (pool full), 3 (token
    buffer full) with ``pos`` saved so that the caller grows the arrays and resumes.
    ``counters`` = [n_terms, pool_used].
    """
    n_docs = spans.shape[0]
    n_terms = counters[0]
    pool_used = counters[1]
    n_tok = pos[2]
    mask = slots.shape[0] - 1
    cap_terms = min(thash.shape[0], slots.shape[0] // 2)
    cap_pool = pool.shape[0]
    cap_tok = tok.shape[0]
    fnv = np.uint64(0x100000001B3)
    d0 = pos[0]
    status = 0
    for d in range(d0, n_docs):
        i = spans[d, 0]
        if d == d0 and pos[1] > i:
            i = pos[1]
        end = spans[d, 1]
        while i < end:
            if is_word[buf[i]] == 0:
                i += 1
                continue
            s = i
            h = np.uint64(0xCBF29CE484222325)
            while i < end and is_word[buf[i]] != 0:
                h = (h ^ np.uint64(buf[i])) * fnv
                i += 1
            L = i - s
            if L < 2:
                continue
            if n_tok >= cap_tok:
                status = 3
                i = s
                break
            h = _mix(h)
            j = np.int64(h & np.uint64(mask))
            tid = -1
            while True:
                t = slots[j]
                if t == -1:
                    break
                if thash[t] == h and tlen[t] == L:
                    p = tstart[t]
                    same = True
                    for k in range(L):
                        if pool[p + k] != buf[s + k]:
                            same = False
                            break
                    if same:
                        tid = t
                        break
                j = (j + 1) & mask
            if tid == -1:
                if n_terms >= cap_terms:
                    status = 1
                    i = s
                    break
                if pool_used + L > cap_pool:
                    status = 2
                    i = s
                    break
                tid = n_terms
                for k in range(L):
                    pool[pool_used + k] = buf[s + k]
                thash[tid] = h
                tstart[tid] = pool_used
                tlen[tid] = L
                is_stop[tid] = 0
                pool_used += L
                slots[j] = tid
                n_terms += 1
            if is_stop[tid] != 0:
                continue
            tok[n_tok] = tid
            n_tok += 1
        if status != 0:
            pos[0] = d
            pos[1] = i
            break
        ptr[d + 1] = n_tok
    pos[2] = n_tok
    counters[0] = n_terms
    counters[1] = pool_used
    return status


@nb.njit(cache=True, nogil=True)
def _rehash(slots, thash, n_terms):
    mask = slots.shape[0] - 1
    for t in range(n_terms):
        j = np.int64(thash[t] & np.uint64(mask))
        while slots[j] != -1:
            j = (j + 1) & mask
        slots[j] = t


def _grown(a: np.ndarray, n: int, new_size: int, fill: int | None = None) -> np.ndarray:
    out = np.empty(new_size, dtype=a.dtype) if fill is None else np.full(new_size, fill, a.dtype)
    out[:n] = a[:n]
    return out


class InternState:
    """Exact token -> id table shared across calls (ids are first-occurrence order).

    Attributes
    ----------
    n_terms : int
        Number of interned terms (including stop words seeded with :meth:`seed_stop`).
    """

    def __init__(self, capacity: int = 1 << 12) -> None:
        cap = 1 << max(4, int(capacity - 1).bit_length())
        self.slots = np.full(2 * cap, -1, dtype=np.int32)
        self.thash = np.empty(cap, dtype=np.uint64)
        self.tstart = np.empty(cap, dtype=np.int64)
        self.tlen = np.empty(cap, dtype=np.int32)
        self.is_stop = np.zeros(cap, dtype=np.uint8)
        self.pool = np.empty(8 * cap, dtype=np.uint32)
        self.counters = np.zeros(2, dtype=np.int64)
        self._terms: list[str] = []

    @property
    def n_terms(self) -> int:
        return int(self.counters[0])

    def scan(self, buf: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Intern the tokens of ``buf[spans]``; return ``(token_ids, doc_ptr)``."""
        n_docs = spans.shape[0]
        tok = np.empty(max(16, buf.shape[0] // 5), dtype=np.int32)
        ptr = np.zeros(n_docs + 1, dtype=np.int64)
        pos = np.zeros(3, dtype=np.int64)
        table = word_table()
        while True:
            status = _intern_run(
                buf, spans, table, self.slots, self.thash, self.tstart, self.tlen,
                self.is_stop, self.pool, self.counters, tok, ptr, pos,
            )
            if status == 0:
                break
            n = self.n_terms
            if status == 1:
                cap = 2 * self.thash.shape[0]
                self.thash = _grown(self.thash, n, cap)
                self.tstart = _grown(self.tstart, n, cap)
                self.tlen = _grown(self.tlen, n, cap)
                self.is_stop = _grown(self.is_stop, n, cap, 0)
                self.slots = np.full(2 * cap, -1, dtype=np.int32)
                _rehash(self.slots, self.thash, n)
            elif status == 2:
                used = int(self.counters[1])
                self.pool = _grown(self.pool, used, 2 * self.pool.shape[0] + 64)
            else:
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
        self.is_stop[tok] = 1

    def terms(self) -> list[str]:
        """All interned terms, indexed by id (cached; extended incrementally)."""
        n = self.n_terms
        if len(self._terms) < n:
            k = len(self._terms)
            start = int(self.tstart[k]) if k < n else 0
            stop = int(self.tstart[n - 1] + self.tlen[n - 1])
            text = self.pool[start:stop].tobytes().decode("utf-32-le", "surrogatepass")
            st = (self.tstart[k:n] - start).tolist()
            ln = self.tlen[k:n].tolist()
            self._terms.extend([text[a : a + b] for a, b in zip(st, ln, strict=True)])
        return self._terms


_SINGLE = re.compile(r"\w\w+")


def _is_single_token(w: str) -> bool:
    return _SINGLE.fullmatch(w) is not None


def intern_tokens(
    buf: np.ndarray, spans: np.ndarray, state: InternState
) -> tuple[np.ndarray, np.ndarray]:
    """Scan and intern tokens; see :meth:`InternState.scan`."""
    return state.scan(buf, spans)


# --------------------------------------------------------------------------------------
# bigrams
# --------------------------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _pair_kernel(tok, ptr):
    n_docs = ptr.shape[0] - 1
    n_out = 0
    for d in range(n_docs):
        m = ptr[d + 1] - ptr[d]
        if m > 1:
            n_out += m - 1
    out = np.empty(n_out, dtype=np.int32)
    optr = np.empty(n_docs + 1, dtype=np.int64)
    optr[0] = 0
    cap = 1024
    while cap < 2 * max(n_out, 1):
        cap *= 2
    keys = np.empty(cap, dtype=np.uint64)
    ids = np.full(cap, -1, dtype=np.int32)
    mask = cap - 1
    first = np.empty(max(n_out, 1), dtype=np.int32)
    second = np.empty(max(n_out, 1), dtype=np.int32)
    n_pairs = 0
    o = 0
    for d in range(n_docs):
        for i in range(ptr[d], ptr[d + 1] - 1):
            a = tok[i]
            b = tok[i + 1]
            key = (np.uint64(a) << np.uint64(32)) | np.uint64(b)
            j = np.int64(_mix(key) & np.uint64(mask))
            while True:
                if ids[j] == -1:
                    ids[j] = n_pairs
                    keys[j] = key
                    first[n_pairs] = a
                    second[n_pairs] = b
                    out[o] = n_pairs
                    n_pairs += 1
                    break
                if keys[j] == key:
                    out[o] = ids[j]
                    break
                j = (j + 1) & mask
            o += 1
        optr[d + 1] = o
    return out, optr, first[:n_pairs].copy(), second[:n_pairs].copy()


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
    return _pair_kernel(tok, ptr)


# --------------------------------------------------------------------------------------
# rows and class sums
# --------------------------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _first_occurrence_kernel(tok, ptr, ptok, pptr, n_uni, n_pair, use_uni, use_pair):
    col = np.full(n_uni + n_pair, -1, dtype=np.int64)
    n = 0
    for d in range(ptr.shape[0] - 1):
        if use_uni:
            for i in range(ptr[d], ptr[d + 1]):
                t = tok[i]
                if col[t] == -1:
                    col[t] = n
                    n += 1
        if use_pair:
            for i in range(pptr[d], pptr[d + 1]):
                t = n_uni + ptok[i]
                if col[t] == -1:
                    col[t] = n
                    n += 1
    return col, n


def first_occurrence(
    tok: np.ndarray,
    ptr: np.ndarray,
    ptok: np.ndarray,
    pptr: np.ndarray,
    n_uni: int,
    n_pair: int,
    use_uni: bool,
    use_pair: bool,
) -> tuple[np.ndarray, int]:
    """Column of each (unigram, then ``n_uni + pair``) id in scikit-learn's fit order.

    scikit-learn's ``_count_vocab`` numbers features by first occurrence in the analyzer
    output (per document: unigrams in order, then bigrams). Ids never emitted get -1.
    """
    col, n = _first_occurrence_kernel(
        tok, ptr, ptok, pptr, n_uni, n_pair, use_uni, use_pair
    )
    return col, int(n)


@nb.njit(cache=True, nogil=True)
def _rows_kernel(tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols):
    n_docs = ptr.shape[0] - 1
    total = 0
    if use_uni:
        total += tok.shape[0]
    if use_pair:
        total += ptok.shape[0]
    indices = np.empty(total, dtype=np.int64)
    values = np.empty(total, dtype=np.int32)
    indptr = np.empty(n_docs + 1, dtype=np.int64)
    indptr[0] = 0
    mark = np.full(max(n_cols, 1), -1, dtype=np.int64)
    cnt = np.zeros(max(n_cols, 1), dtype=np.int32)
    nnz = 0
    for d in range(n_docs):
        start = nnz
        for part in range(2):
            if part == 0:
                if not use_uni:
                    continue
                lo = ptr[d]
                hi = ptr[d + 1]
            else:
                if not use_pair:
                    continue
                lo = pptr[d]
                hi = pptr[d + 1]
            for i in range(lo, hi):
                if part == 0:
                    c = col[tok[i]]
                else:
                    c = col[n_uni + ptok[i]]
                if c < 0:
                    continue
                if mark[c] != d:
                    mark[c] = d
                    cnt[c] = 1
                    indices[nnz] = c
                    nnz += 1
                else:
                    cnt[c] += 1
        if nnz - start > 1:
            indices[start:nnz] = np.sort(indices[start:nnz])
        for k in range(start, nnz):
            values[k] = cnt[indices[k]]
        indptr[d + 1] = nnz
    return indptr, indices[:nnz].copy(), values[:nnz].copy()


def build_rows(
    tok: np.ndarray,
    ptr: np.ndarray,
    ptok: np.ndarray,
    pptr: np.ndarray,
    n_uni: int,
    use_uni: bool,
    use_pair: bool,
    col: np.ndarray,
    n_cols: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR pieces ``(indptr, indices, counts)`` with indices sorted within each row.

    ``col`` maps each id (unigram id, or ``n_uni + pair id``) to its output column, or
    -1 to ignore it (out-of-vocabulary).
    """
    return _rows_kernel(tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols)


@nb.njit(cache=True, nogil=True)
def _class_sums_kernel(indptr, indices, values, y, n_classes, n_cols, binary):
    out = np.zeros((n_classes, n_cols), dtype=np.int64)
    df = np.zeros(n_cols, dtype=np.int64)
    for d in range(indptr.shape[0] - 1):
        c = y[d]
        for k in range(indptr[d], indptr[d + 1]):
            j = indices[k]
            df[j] += 1
            if binary:
                out[c, j] += 1
            else:
                out[c, j] += values[k]
    return out, df


def class_sums(
    indptr: np.ndarray,
    indices: np.ndarray,
    values: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    n_cols: int,
    binary: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-class column sums ``Y^T X`` (int64) and document frequencies of CSR rows."""
    return _class_sums_kernel(indptr, indices, values, y, n_classes, n_cols, binary)


@nb.njit(cache=True, nogil=True)
def _stream_class_sums_kernel(tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols,
                              y, n_classes, binary, like):
    out = np.zeros((n_classes, n_cols), dtype=like.dtype)
    df = np.zeros(n_cols, dtype=np.int64)
    mark = np.full(max(n_cols, 1), -1, dtype=np.int64)
    for d in range(ptr.shape[0] - 1):
        cls = y[d]
        for part in range(2):
            if part == 0:
                if not use_uni:
                    continue
                lo = ptr[d]
                hi = ptr[d + 1]
            else:
                if not use_pair:
                    continue
                lo = pptr[d]
                hi = pptr[d + 1]
            for i in range(lo, hi):
                if part == 0:
                    c = col[tok[i]]
                else:
                    c = col[n_uni + ptok[i]]
                if c < 0:
                    continue
                if mark[c] != d:
                    mark[c] = d
                    df[c] += 1
                    out[cls, c] += 1
                elif not binary:
                    out[cls, c] += 1
    return out, df


def stream_class_sums(
    tok: np.ndarray,
    ptr: np.ndarray,
    ptok: np.ndarray,
    pptr: np.ndarray,
    n_uni: int,
    use_uni: bool,
    use_pair: bool,
    col: np.ndarray,
    n_cols: int,
    y: np.ndarray,
    n_classes: int,
    binary: bool,
    dtype: Any = np.int64,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-class sums ``Y^T X`` (of ``dtype``) and document frequencies straight from the
    id streams (no per-document sort, no CSR)."""
    like = np.zeros(0, dtype=dtype)
    return _stream_class_sums_kernel(
        tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols, y, n_classes, binary, like
    )


@nb.njit(cache=True, nogil=True)
def ngram_blob(pool, tstart, tlen, n_uni, first, second, ids):
    """Code points of the terms ``ids`` (``< n_uni``: a word; else the word pair
    ``first[i - n_uni]``, ``second[i - n_uni]`` joined by a space), "\\n"-separated."""
    total = 0
    for i in ids:
        if i < n_uni:
            total += tlen[i] + 1
        else:
            total += tlen[first[i - n_uni]] + tlen[second[i - n_uni]] + 2
    out = np.empty(max(total - 1, 0), dtype=np.uint32)
    o = 0
    for q in range(ids.shape[0]):
        i = ids[q]
        if q > 0:
            out[o] = 10
            o += 1
        if i < n_uni:
            a = i
            b = -1
        else:
            a = first[i - n_uni]
            b = second[i - n_uni]
        for k in range(tlen[a]):
            out[o] = pool[tstart[a] + k]
            o += 1
        if b >= 0:
            out[o] = 32
            o += 1
            for k in range(tlen[b]):
                out[o] = pool[tstart[b] + k]
                o += 1
    return out


def ngram_order(state: InternState, first: np.ndarray, second: np.ndarray,
                ids: np.ndarray) -> np.ndarray:
    """``ids`` (words and word pairs, as :func:`ngram_blob`) in the order of their
    strings. A pair "a b" sorts as the key (rank(a), rank(b)) and a word as (rank(w), -1):
    the space sorts below every word character, so a word that is a prefix of another
    sorts first followed by a space or not, exactly as Python compares the strings."""
    n = state.n_terms
    tstart = state.tstart[:n]
    tlen = state.tlen[:n].astype(np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[sort_terms(state.pool, tstart, tlen)[0]] = np.arange(n, dtype=np.int64)
    pair = ids >= n
    k1 = np.where(pair, 0, ids)
    k1[pair] = first[ids[pair] - n]
    k2 = np.full(ids.shape[0], -1, dtype=np.int64)
    k2[pair] = rank[second[ids[pair] - n]]
    return ids[np.lexsort((k2, rank[k1]))]


# --------------------------------------------------------------------------------------
# zero-copy, table-driven unigram counting (the TextClassifier training / scoring path)
# --------------------------------------------------------------------------------------
#
# The documents are read in place from CPython's own string storage (no join, no
# str.lower, no encode): each compact ``str`` keeps its code units right after its
# header, 1, 2 or 4 bytes wide. :func:`direct_layout` derives the header sizes from
# ``sys.getsizeof`` and verifies the layout on sample strings of every width through the
# compiled reader itself; when anything differs (another Python implementation or
# version), the callers use the copying path above instead.
#
# Lowercasing is a code point table built from ``str.lower`` (exact for every code point
# but U+0130, which lowercases to two characters, and U+03A3, whose lowercase depends on
# its context): documents containing either are lowercased by Python first.
#
# Tokens are interned in an open-addressing table whose slot is one 32-byte record
# ``(w0, w1, meta, hash)``: a token of at most 16 code points below U+0100 is packed
# exactly into ``w0, w1`` (so its slot *is* its exact key and a lookup touches one cache
# line); longer or wider tokens are compared code point by code point against the pool.
# Tokenizing a block of text into a buffer of keys, then probing the buffered keys in a
# tight loop ("blocked"), lets the CPU overlap the cache misses of independent probes.

_WORD = np.uint32(1 << 31)
_CP = np.uint32(0x1FFFFF)
_BLOCK = 4096


@intrinsic
def _ptr8(typingctx, addr):  # pragma: no cover - compiled
    sig = types.CPointer(types.uint8)(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@intrinsic
def _ptr16(typingctx, addr):  # pragma: no cover - compiled
    sig = types.CPointer(types.uint16)(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@intrinsic
def _ptr32(typingctx, addr):  # pragma: no cover - compiled
    sig = types.CPointer(types.uint32)(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@intrinsic
def _ptr64(typingctx, addr):  # pragma: no cover - compiled
    sig = types.CPointer(types.int64)(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@nb.njit(cache=True)
def _str_info(addr, layout):
    """(kind, length, data address) of the str at ``addr``; kind 0 if not compact.

    ``layout`` = [state offset, kind shift, compact bit, ascii bit, ascii header, compact
    header, length offset].
    """
    state = np.int64(_ptr32(addr + layout[0])[0])
    if (state >> layout[2]) & 1 == 0:
        return 0, 0, 0
    kind = (state >> layout[1]) & 7
    n = _ptr64(addr + layout[6])[0]
    if (state >> layout[3]) & 1:
        return kind, n, addr + layout[4]
    return kind, n, addr + layout[5]


@nb.njit(cache=True)
def _probe_layout(addrs, layout):
    out = np.zeros((addrs.shape[0], 4), dtype=np.int64)
    for d in range(addrs.shape[0]):
        kind, n, data = _str_info(addrs[d], layout)
        out[d, 0] = kind
        out[d, 1] = n
        if kind == 0 or n == 0:
            continue
        if kind == 1:
            p = _ptr8(data)
            out[d, 2] = p[0]
            out[d, 3] = p[n - 1]
        elif kind == 2:
            q = _ptr16(data)
            out[d, 2] = q[0]
            out[d, 3] = q[n - 1]
        else:
            r = _ptr32(data)
            out[d, 2] = r[0]
            out[d, 3] = r[n - 1]
    return out


_LAYOUT: np.ndarray | None = None
_LAYOUT_CHECKED = False


def direct_layout() -> np.ndarray | None:
    """CPython ``str`` layout for the zero-copy reader, or None when it cannot be used."""
    global _LAYOUT, _LAYOUT_CHECKED
    if _LAYOUT_CHECKED:
        return _LAYOUT
    _LAYOUT_CHECKED = True
    if sys.implementation.name != "cpython" or sys.maxsize != 2**63 - 1:
        return None
    ascii_hdr = sys.getsizeof("") - 1
    compact_hdr = sys.getsizeof("\xe9") - 2
    # ob_refcnt, ob_type, length, hash, then the state bit field (CPython 3.11-3.13).
    layout = np.array([32, 2, 5, 6, ascii_hdr, compact_hdr, 16], dtype=np.int64)
    samples = [
        "", "a", "ab", "x" * 1000, "caf\xe9", "\xff\xe9", "\u0100z", "a\u20acb",
        "\U0001f600", "z\U0010ffffa", "".join(map(chr, range(32, 300))),
    ]
    samples += [s + "q" for s in samples]  # freshly built (non-interned) strings too
    want = np.array(
        [
            [max(1, (sys.getsizeof(s) - compact_hdr) // (len(s) + 1)) if not s.isascii()
             else 1, len(s), ord(s[0]) if s else 0, ord(s[-1]) if s else 0]
            for s in samples
        ],
        dtype=np.int64,
    )
    addrs = np.array([id(s) for s in samples], dtype=np.int64)
    try:
        got = _probe_layout(addrs, layout)
    except Exception:  # pragma: no cover - defensive
        return None
    if np.array_equal(got, want):
        _LAYOUT = layout
    return _LAYOUT


_TABLES: dict[bool, np.ndarray] = {}


def char_table(lowercase: bool) -> np.ndarray:
    """``t[cp]`` = (lowercased) code point | (1 << 31 if it is a word character).

    With ``lowercase``, the code point is ``chr(cp).lower()`` and the word flag is that of
    the lowercased character (scikit-learn tokenizes ``doc.lower()``); U+0130 and U+03A3
    map to themselves: documents containing them are lowercased by Python first.
    """
    if lowercase in _TABLES:
        return _TABLES[lowercase]
    cps = np.arange(_MAX_CP, dtype=np.uint32)
    if lowercase:
        every = "".join(map(chr, range(_MAX_CP)))
        low = every[:0x130].lower() + "\u0130" + every[0x131:].lower()
        if len(low) != _MAX_CP:
            # Another Unicode version with more one-to-many lowercase mappings: the
            # zero-copy path does not lowercase (callers fall back to str.lower).
            _TABLES[lowercase] = np.zeros(0, dtype=np.uint32)
            return _TABLES[lowercase]
        cps = np.frombuffer(low.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
        cps[0x3A3] = 0x3A3
    table = cps | (word_table()[cps].astype(np.uint32) << np.uint32(31))
    _TABLES[lowercase] = table
    return table


@nb.njit(cache=True)
def _special_docs(addrs, layout):
    """Per document: 1 if it holds U+0130 or U+03A3 (lowercase needs Python), -1 if it
    is not a compact str (the zero-copy path cannot read it), else 0; and its length."""
    out = np.zeros(addrs.shape[0], dtype=np.int8)
    lengths = np.zeros(addrs.shape[0], dtype=np.int64)
    for d in range(addrs.shape[0]):
        kind, n, data = _str_info(addrs[d], layout)
        lengths[d] = n
        if kind == 0:
            out[d] = -1
        elif kind == 2:
            q = _ptr16(data)
            for i in range(n):
                c = q[i]
                if c == 0x130 or c == 0x3A3:
                    out[d] = 1
                    break
        elif kind == 4:
            r = _ptr32(data)
            for i in range(n):
                c = r[i]
                if c == 0x130 or c == 0x3A3:
                    out[d] = 1
                    break
    return out, lengths


@nb.njit(cache=True, nogil=True)
def _mix2(a, b):
    h = a * np.uint64(0x9E3779B97F4A7C15) + b
    h ^= h >> np.uint64(32)
    h *= np.uint64(0xD6E8FEB86659FD93)
    h ^= h >> np.uint64(32)
    h *= np.uint64(0xD6E8FEB86659FD93)
    h ^= h >> np.uint64(32)
    return h


@nb.njit(cache=True, nogil=True)
def key_buffers(B):
    """The six per-token buffers the scanners fill (see :func:`_scan_into`): ``w0``,
    ``w1``, ``key``, ``hash``, source address and document, room for ``B`` tokens."""
    return (np.empty(B, dtype=np.uint64), np.empty(B, dtype=np.uint64),
            np.empty(B, dtype=np.uint64), np.empty(B, dtype=np.uint64),
            np.empty(B, dtype=np.int64), np.empty(B, dtype=np.int64))


@nb.njit(cache=True, nogil=True, inline="always")
def _short_key(w0, w1, k):
    """(hash, key) of a token of ``k`` <= 16 code points below U+0100 packed in ``w0, w1``."""
    return _mix2(w0 ^ (w1 * np.uint64(0xC2B2AE3D27D4EB4F)), np.uint64(k)), \
        np.uint64(k) << np.uint64(32)


@nb.njit(cache=True, nogil=True, inline="always")
def _long_key(p, t, s, i):
    """(hash, key) of any other token ``p[s:i]`` (code points through ``t``): FNV-1a."""
    h = np.uint64(0xCBF29CE484222325)
    for j in range(s, i):
        h = (h ^ np.uint64(t[p[j]] & _CP)) * np.uint64(0x100000001B3)
    k = np.uint64(i - s)
    return _mix2(h, k), (k | np.uint64(1 << 31)) << np.uint64(32)


@nb.njit(cache=True, nogil=True, inline="always")
def _put_token(bw0, bw1, bkey, bh, bsrc, bdoc, b, w0, w1, key, h, src, d):
    """Store one token in slot ``b`` of the key buffers (see :func:`key_buffers`)."""
    bw0[b] = w0
    bw1[b] = w1
    bkey[b] = key
    bh[b] = h
    bsrc[b] = src
    bdoc[b] = d


@nb.njit(cache=True, nogil=True)
def _scan_into(p, n, pos, data, width, t, d, bw0, bw1, bkey, bh, bsrc, bdoc, nb_):
    """Tokenize ``p[pos:n]`` into the key buffer from slot ``nb_``.

    Returns ``(pos, nb_)``: ``pos < n`` when the buffer filled up before the end.
    ``bkey`` = (long flag << 31 | length) << 32: tokens of at most 16 code points below
    U+0100 are packed exactly into ``w0, w1``; ``bsrc`` is the token's address.
    """
    cap = bw0.shape[0]
    i = pos
    while i < n:
        e = t[p[i]]
        if e < _WORD:
            i += 1
            continue
        s = i
        w0 = np.uint64(0)
        w1 = np.uint64(0)
        big = np.uint32(0)
        k = 0
        while True:
            c = e & _CP
            big |= c
            if k < 8:
                w0 |= np.uint64(c) << np.uint64(8 * k)
            elif k < 16:
                w1 |= np.uint64(c) << np.uint64(8 * (k - 8))
            k += 1
            i += 1
            if i >= n:
                break
            e = t[p[i]]
            if e < _WORD:
                break
        if k < 2:
            continue
        if big >= 256 or k > 16:
            h, key = _long_key(p, t, s, i)
        else:
            h, key = _short_key(w0, w1, k)
        _put_token(bw0, bw1, bkey, bh, bsrc, bdoc, nb_, w0, w1, key, h, data + s * width, d)
        nb_ += 1
        if nb_ == cap:
            return i, nb_
    return i, nb_


_H = np.uint64(0x8080808080808080)
_ONES = np.uint64(0x0101010101010101)


@nb.njit(cache=True, nogil=True, inline="always")
def _load64(addr):
    return np.uint64(_ptr64(addr)[0])


@nb.njit(cache=True, nogil=True, inline="always")
def _between(x, lo, hi):
    """High bit of every byte of ``x`` (all bytes < 0x80) that lies in ``[lo, hi]``
    (``1 <= lo <= hi < 0x80``: no byte carries into the next)."""
    ge = x + _ONES * np.uint64(0x80 - lo)
    le = _ONES * np.uint64(0x80 + hi) - x
    return ge & le & _H


@nb.njit(cache=True, nogil=True, inline="always")
def _word_bits(v, p, t):
    """High bit of every byte of the 8 bytes ``v`` (at ``p``) that is a word character."""
    if v & _H:
        m = np.uint64(0)
        for j in range(8):
            if t[p[j]] >= _WORD:
                m |= np.uint64(0x80) << np.uint64(8 * j)
        return m
    x = v | (_ONES * np.uint64(0x20))
    return (_between(x, 0x61, 0x7A) | _between(v, 0x30, 0x39) | _between(v, 0x5F, 0x5F))


@nb.njit(cache=True, nogil=True, inline="always")
def _lower8(v):
    """ASCII bytes ``v`` with A-Z lowered."""
    return v | (_between(v, 0x41, 0x5A) >> np.uint64(2))


@nb.njit(cache=True, nogil=True)
def _scan_latin1(p, n, pos, data, t, d, bw0, bw1, bkey, bh, bsrc, bdoc, nb_):
    """:func:`_scan_into` for 1-byte strings (code points < U+0100), 8 bytes at a time.

    Word characters are found 8 at a time (SWAR: bit tricks on a 64-bit word, exact for
    ASCII; a block with a byte >= 0x80 asks the table), and tokens of at most 16 ASCII
    characters are packed straight from two 64-bit loads, lowered when ``t`` lowers.
    Loads never reach past the string's last character. Same output as
    :func:`_scan_into` with ``width=1`` (1.75x faster on 20 Newsgroups).
    """
    cap = bw0.shape[0]
    low = (t[0x41] & _CP) == 0x61
    i = pos
    while i < n:
        # -- find the start of the next token
        if i + 8 <= n:
            m = _word_bits(_load64(data + i), _ptr8(data + i), t)
            if m == 0:
                i += 8
                continue
            b = trailing_zeros(m)
            s = i + np.int64(b >> 3)
            # non-word bytes of this block after s
            rest = (~m) & _H & ~((np.uint64(2) << np.uint64(b)) - np.uint64(1))
            if rest != 0:
                i = i + np.int64(trailing_zeros(rest) >> 3)
            else:
                i += 8
                while True:
                    if i + 8 <= n:
                        m2 = (~_word_bits(_load64(data + i), _ptr8(data + i), t)) & _H
                        if m2 == 0:
                            i += 8
                            continue
                        i += np.int64(trailing_zeros(m2) >> 3)
                        break
                    while i < n and t[p[i]] >= _WORD:
                        i += 1
                    break
        else:
            if t[p[i]] < _WORD:
                i += 1
                continue
            s = i
            while i < n and t[p[i]] >= _WORD:
                i += 1
        k = i - s
        if k < 2:
            continue
        if k > 16:
            h, key = _long_key(p, t, s, i)
            w0 = np.uint64(0)
            w1 = np.uint64(0)
            for j in range(8):
                w0 |= np.uint64(t[p[s + j]] & _CP) << np.uint64(8 * j)
                w1 |= np.uint64(t[p[s + 8 + j]] & _CP) << np.uint64(8 * j)
        else:
            w0 = np.uint64(0)
            w1 = np.uint64(0)
            if s + 16 <= n:
                v0 = _load64(data + s)
                v1 = _load64(data + s + 8)
                if (v0 | v1) & _H:
                    for j in range(min(k, 8)):
                        w0 |= np.uint64(t[p[s + j]] & _CP) << np.uint64(8 * j)
                    for j in range(8, k):
                        w1 |= np.uint64(t[p[s + j]] & _CP) << np.uint64(8 * (j - 8))
                else:
                    if low:
                        v0 = _lower8(v0)
                        v1 = _lower8(v1)
                    if k < 8:
                        w0 = v0 & ((np.uint64(1) << np.uint64(8 * k)) - np.uint64(1))
                    else:
                        w0 = v0
                        if k < 16:
                            w1 = v1 & ((np.uint64(1) << np.uint64(8 * (k - 8))) - np.uint64(1))
                        else:
                            w1 = v1
            else:
                for j in range(min(k, 8)):
                    w0 |= np.uint64(t[p[s + j]] & _CP) << np.uint64(8 * j)
                for j in range(8, k):
                    w1 |= np.uint64(t[p[s + j]] & _CP) << np.uint64(8 * (j - 8))
            h, key = _short_key(w0, w1, k)
        _put_token(bw0, bw1, bkey, bh, bsrc, bdoc, nb_, w0, w1, key, h, data + s, d)
        nb_ += 1
        if nb_ == cap:
            return i, nb_
    return i, nb_


@nb.njit(cache=True, nogil=True)
def _src_cp(src, width, t, k):
    if width == 1:
        return t[_ptr8(src)[k]] & _CP
    if width == 2:
        return t[_ptr16(src)[k]] & _CP
    return t[_ptr32(src)[k]] & _CP


@intrinsic
def _prefetch(typingctx, addr):  # pragma: no cover - compiled
    """Hint the CPU to load the cache line at ``addr`` (no effect on results)."""
    sig = types.void(types.int64)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        ptr = builder.inttoptr(args[0], i8p)
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


_LO32 = np.uint64(0xFFFFFFFF)
_AHEAD = 32


@nb.njit(cache=True, nogil=True)
def _key_hash(w0, w1, key, pool, p):
    """Hash of a stored key (equal to the one :func:`_scan_into` computes)."""
    L = np.int64((key >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
    if key < np.uint64(1 << 63):
        return _short_key(w0, w1, L)[0]
    h = np.uint64(0xCBF29CE484222325)
    for j in range(L):
        h = (h ^ np.uint64(pool[p + j])) * np.uint64(0x100000001B3)
    return _mix2(h, np.uint64(L))


@nb.njit(cache=True, nogil=True)
def _probe_block(nb_, bw0, bw1, bkey, bh, bsrc, bdoc, bwidth, blow, bid, tlow, tid, tab,
                 pool, tstart, tlen, counts, y, n_classes, binary, state):
    """Intern and count the buffered tokens. ``state`` = [n_terms, pool_used]; the caller
    guarantees room for ``nb_`` new terms and their code points.

    A slot is 4 words ``(w0, w1, meta, aux)``: ``meta`` = key bits << 32 | (id + 1),
    ``aux`` = (last document + 1) << 32 | document frequency. Pass 1 resolves ids
    (prefetching the slots of later tokens), pass 2 counts (prefetching count rows).
    """
    mask = np.uint64(tab.shape[0] // 4 - 1)
    n_terms = state[0]
    pool_used = state[1]
    base = tab.ctypes.data
    for b in range(nb_):
        if b + _AHEAD < nb_:
            _prefetch(base + 32 * np.int64(bh[b + _AHEAD] & mask))
        key = bkey[b]
        w0 = bw0[b]
        w1 = bw1[b]
        j = np.int64(bh[b] & mask)
        term = -1
        while True:
            m = tab[4 * j + 2]
            if m == 0:
                break
            if (m >> np.uint64(32)) == (key >> np.uint64(32)) and tab[4 * j] == w0 \
                    and tab[4 * j + 1] == w1:
                cand = np.int64(m & _LO32) - 1
                if key < np.uint64(1 << 63):
                    term = cand
                    break
                t = tlow if blow[b] else tid
                src = bsrc[b]
                width = bwidth[b]
                p = tstart[cand]
                same = True
                for k in range(tlen[cand]):
                    if pool[p + k] != _src_cp(src, width, t, k):
                        same = False
                        break
                if same:
                    term = cand
                    break
            j = np.int64((np.uint64(j) + np.uint64(1)) & mask)
        if term == -1:
            term = n_terms
            L = np.int64((key >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
            t = tlow if blow[b] else tid
            src = bsrc[b]
            width = bwidth[b]
            for k in range(L):
                pool[pool_used + k] = _src_cp(src, width, t, k)
            tstart[term] = pool_used
            tlen[term] = L
            pool_used += L
            tab[4 * j] = w0
            tab[4 * j + 1] = w1
            tab[4 * j + 2] = key | np.uint64(term + 1)
            tab[4 * j + 3] = 0
            n_terms += 1
        d1 = np.uint64(bdoc[b] + 1) << np.uint64(32)
        aux = tab[4 * j + 3]
        if (aux & ~_LO32) != d1:
            tab[4 * j + 3] = d1 | ((aux & _LO32) + np.uint64(1))
            bid[b] = term
        elif binary:
            bid[b] = -1
        else:
            bid[b] = term
    cbase = counts.ctypes.data
    isz = counts.itemsize
    for b in range(nb_):
        if b + _AHEAD < nb_ and bid[b + _AHEAD] >= 0:
            _prefetch(cbase + isz * (bid[b + _AHEAD] * n_classes + y[bdoc[b + _AHEAD]]))
        term = bid[b]
        if term >= 0:
            counts[term * n_classes + y[bdoc[b]]] += 1
    state[0] = n_terms
    state[1] = pool_used


@nb.njit(cache=True, nogil=True)
def _retable(tab, n_slots, pool, tstart):
    new = np.zeros(4 * n_slots, dtype=np.uint64)
    mask = np.uint64(n_slots - 1)
    for s in range(tab.shape[0] // 4):
        m = tab[4 * s + 2]
        if m == 0:
            continue
        t = np.int64(m & _LO32) - 1
        h = _key_hash(tab[4 * s], tab[4 * s + 1], m, pool, tstart[t])
        j = np.int64(h & mask)
        while new[4 * j + 2] != 0:
            j = np.int64((np.uint64(j) + np.uint64(1)) & mask)
        for q in range(4):
            new[4 * j + q] = tab[4 * s + q]
    return new


@nb.njit(cache=True, nogil=True)
def _grow1(a, size, fill):
    out = np.full(size, fill, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@nb.njit(cache=True, nogil=True)
def new_run(counts0, n_classes, expect=0):
    """Empty run state ``(tab, pool, tstart, tlen, counts, [n_terms, pool_used])``;
    ``counts0`` (empty) gives the dtype of the counts. Room for ``expect`` terms from
    the start (growing the table later re-inserts every term: ~15 % of the counting)."""
    cap = 1024
    while cap < expect:
        cap *= 2
    return (np.zeros(4 * 2 * cap, dtype=np.uint64), np.empty(8 * cap, dtype=np.uint32),
            np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64),
            _grow1(counts0, cap * n_classes, 0), np.zeros(2, dtype=np.int64))


@nb.njit(cache=True, nogil=True)
def _fill_block(addrs, layout, hi, nolow, tlow, tid, cur, bw0, bw1, bkey, bh, bsrc, bdoc,
                bwidth, blow):
    """Tokenize documents from ``cur = [document, position]`` (up to ``hi``) into the key
    buffers until they are full or the documents end; ``cur`` moves on. Returns the
    number of buffered tokens (0: done). ``bwidth``/``blow`` get each token's character
    width and whether it was read through the lowercasing table ``tlow``."""
    B = bw0.shape[0]
    nb_ = 0
    while cur[0] < hi and nb_ < B:
        d = cur[0]
        kind, n, data = _str_info(addrs[d], layout)
        low = 0 if nolow[d] else 1
        t = tlow if low else tid
        first = nb_
        pos = cur[1]
        if n > 0:
            if kind == 1:
                pos, nb_ = _scan_latin1(_ptr8(data), n, pos, data, t, d, bw0, bw1, bkey, bh,
                                        bsrc, bdoc, nb_)
            elif kind == 2:
                pos, nb_ = _scan_into(_ptr16(data), n, pos, data, 2, t, d, bw0, bw1, bkey,
                                      bh, bsrc, bdoc, nb_)
            else:
                pos, nb_ = _scan_into(_ptr32(data), n, pos, data, 4, t, d, bw0, bw1, bkey,
                                      bh, bsrc, bdoc, nb_)
            for b in range(first, nb_):
                bwidth[b] = kind
                blow[b] = low
        if pos >= n:
            cur[0] = d + 1
            cur[1] = 0
        else:
            cur[1] = pos
    return nb_


@nb.njit(cache=True, nogil=True)
def reserve_run(run, expect):
    """``run`` with room for ``expect`` terms (one re-insertion now instead of several
    doublings later); unchanged if it has room already."""
    tab, pool, tstart, tlen, counts, state = run
    cap = tstart.shape[0]
    if expect <= cap:
        return run
    n_classes = counts.shape[0] // cap
    new_cap = cap
    while new_cap < expect:
        new_cap *= 2
    tstart = _grow1(tstart, new_cap, 0)
    tlen = _grow1(tlen, new_cap, 0)
    counts = _grow1(counts, new_cap * n_classes, 0)
    n_slots = tab.shape[0] // 4
    if 2 * new_cap > n_slots:
        tab = _retable(tab, 2 * new_cap, pool, tstart)
    return tab, pool, tstart, tlen, counts, state


@nb.njit(cache=True, nogil=True)
def count_run(addrs, layout, lo, hi, y, n_classes, tlow, tid, nolow, binary, run):
    """Intern and count the tokens of documents ``lo..hi-1`` (zero-copy reader) into the
    run state ``run`` (see :func:`new_run`); returns the updated state.

    ``counts`` are id-major (``counts[id * n_classes + c]``), ids in first-occurrence
    order within the run; document frequencies are kept in the table slots.
    """
    tab, pool, tstart, tlen, counts, state = run
    cap = tstart.shape[0]
    B = _BLOCK
    bw0, bw1, bkey, bh, bsrc, bdoc = key_buffers(B)
    bwidth = np.empty(B, dtype=np.int64)
    blow = np.empty(B, dtype=np.uint8)
    bid = np.empty(B, dtype=np.int64)
    cur = np.array([lo, 0], dtype=np.int64)
    while True:
        nb_ = _fill_block(addrs, layout, hi, nolow, tlow, tid, cur, bw0, bw1, bkey, bh, bsrc,
                          bdoc, bwidth, blow)
        if nb_ == 0:
            break
        need_terms = state[0] + nb_
        if need_terms > cap:  # reserve_run keeps 2 table slots per term of room
            tab, pool, tstart, tlen, counts, state = reserve_run(
                (tab, pool, tstart, tlen, counts, state), need_terms)
            cap = tstart.shape[0]
        need_pool = state[1]
        for b in range(nb_):
            need_pool += (bkey[b] >> np.uint64(32)) & np.uint64(0x7FFFFFFF)
        if need_pool > pool.shape[0]:
            size = pool.shape[0]
            while size < need_pool:
                size *= 2
            pool = _grow1(pool, size, 0)
        _probe_block(nb_, bw0, bw1, bkey, bh, bsrc, bdoc, bwidth, blow, bid, tlow, tid,
                     tab, pool, tstart, tlen, counts, y, n_classes, binary, state)
    return tab, pool, tstart, tlen, counts, state


@nb.njit(cache=True, nogil=True)
def run_df(tab, n_terms):
    """Document frequency of every id of a run (kept in the table slots)."""
    df = np.zeros(n_terms, dtype=np.int64)
    for s in range(tab.shape[0] // 4):
        m = tab[4 * s + 2]
        if m != 0:
            df[np.int64(m & _LO32) - 1] = np.int64(tab[4 * s + 3] & _LO32)
    return df


@nb.njit(cache=True, nogil=True)
def _prefix_width(pool):
    """Code points per 64-bit order-preserving key and bits per code point: 8 x 8 when
    every code point of ``pool`` is below U+0100, 4 x 16 below U+10000, else 3 x 21."""
    maxcp = 0
    for i in range(pool.shape[0]):
        if pool[i] > maxcp:
            maxcp = pool[i]
    if maxcp < 256:
        return 8, 8
    if maxcp < 65536:
        return 4, 16
    return 3, 21


@nb.njit(cache=True, nogil=True, inline="always")
def _prefix(pool, start, length, depth, per, bits):
    """The key of code points ``depth .. depth + per - 1`` of a term (0-padded)."""
    k = np.uint64(0)
    for r in range(per):
        k <<= np.uint64(bits)
        if depth + r < length:
            k |= np.uint64(pool[start + depth + r])
    return k


@nb.njit(cache=True, nogil=True)
def _radix_sort(keys, order, lo, hi):
    """Sort ``keys[lo:hi]`` (uint64) in place, stably, permuting ``order[lo:hi]`` alike:
    least significant byte first, skipping the bytes all keys share (a few passes of
    sequential reads instead of a comparison sort's n log n)."""
    n = hi - lo
    hist = np.zeros((8, 256), dtype=np.int64)
    for i in range(lo, hi):
        v = keys[i]
        for d in range(8):
            hist[d, np.int64((v >> np.uint64(8 * d)) & np.uint64(255))] += 1
    k0 = keys[lo:hi]
    o0 = order[lo:hi]
    k1 = np.empty(n, dtype=np.uint64)
    o1 = np.empty(n, dtype=np.int64)
    pos = np.empty(256, dtype=np.int64)
    flips = 0
    for d in range(8):
        if hist[d, np.int64((k0[0] >> np.uint64(8 * d)) & np.uint64(255))] == n:
            continue  # every key has this byte
        s = 0
        for b in range(256):
            pos[b] = s
            s += hist[d, b]
        for i in range(n):
            v = k0[i]
            b = np.int64((v >> np.uint64(8 * d)) & np.uint64(255))
            j = pos[b]
            pos[b] = j + 1
            k1[j] = v
            o1[j] = o0[i]
        k0, k1 = k1, k0
        o0, o1 = o1, o0
        flips += 1
    if flips % 2 == 1:  # the result is in the scratch arrays
        keys[lo:hi] = k0
        order[lo:hi] = o0


@nb.njit(cache=True, nogil=True)
def sort_terms(pool, tstart, tlen):
    """Term ids in code point order (Python's ``str`` order), by MSD passes over packed
    prefixes: 8 code points per 64-bit key below U+0100, 4 below U+10000, else 3.

    Returns ``(order, first, per, skeys, slen)``: ``first`` = every term's first key
    (by id, as :func:`prefix_keys` gives them), ``per`` = code points per key, and
    ``skeys``/``slen`` = the first keys and lengths in sorted order (a merge reads them
    front to back instead of at random)."""
    n = tstart.shape[0]
    per, bits = _prefix_width(pool)
    order = np.arange(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.uint64)
    first = np.empty(0, dtype=np.uint64)
    skeys = np.empty(0, dtype=np.uint64)
    stack = [(np.int64(0), np.int64(n), np.int64(0))]
    while len(stack) > 0:
        lo, hi, depth = stack.pop()
        for q in range(lo, hi):
            t = order[q]
            keys[q] = _prefix(pool, tstart[t], tlen[t], depth, per, bits)
        if depth == 0:
            first = keys.copy()
        if hi - lo > 64:
            _radix_sort(keys, order, lo, hi)
        else:
            sub = np.argsort(keys[lo:hi], kind="mergesort")
            order[lo:hi] = order[lo:hi][sub]
            keys[lo:hi] = keys[lo:hi][sub]
        if depth == 0:
            skeys = keys.copy()
        q = lo
        while q < hi:
            r = q + 1
            while r < hi and keys[r] == keys[q]:
                r += 1
            if r - q > 1:
                stack.append((np.int64(q), np.int64(r), depth + per))
            q = r
    slen = np.empty(n, dtype=np.int64)
    for q in range(n):
        slen[q] = tlen[order[q]]
    return order, first, per, skeys, slen


@nb.njit(cache=True, nogil=True)
def _cmp_terms(pool, sa, la, sb, lb):
    for k in range(min(la, lb)):
        x = pool[sa + k]
        z = pool[sb + k]
        if x != z:
            return -1 if x < z else 1
    if la == lb:
        return 0
    return -1 if la < lb else 1


@nb.njit(cache=True, nogil=True)
def _before(pool, tstart, tlen, keys, a, b):
    """-1, 0, 1 as term ``a`` sorts before, equal to, or after term ``b``."""
    if keys[a] != keys[b]:
        return -1 if keys[a] < keys[b] else 1
    return _cmp_terms(pool, tstart[a], tlen[a], tstart[b], tlen[b])


@nb.njit(cache=True, nogil=True)
def prefix_keys(pool, tstart, tlen):
    """Order-preserving 64-bit prefixes of every term: 8 code points when all are below
    U+0100, 4 below U+10000, else 3 (ties are broken by :func:`_cmp_terms`)."""
    per, bits = _prefix_width(pool)
    keys = np.empty(tstart.shape[0], dtype=np.uint64)
    for t in range(tstart.shape[0]):
        keys[t] = _prefix(pool, tstart[t], tlen[t], 0, per, bits)
    return keys


@nb.njit(cache=True, nogil=True)
def _lower_bound(pool, tstart, tlen, keys, order, lo, hi, t):
    """First position ``q`` in ``[lo, hi)`` whose term does not sort before term ``t``."""
    while lo < hi:
        mid = (lo + hi) // 2
        if _before(pool, tstart, tlen, keys, order[mid], t) < 0:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True, nogil=True)
def split_sorted(pool, tstart, tlen, keys, order, bounds, n_pieces):
    """Cut points ``cuts[i, r]`` splitting every sorted run into ``n_pieces`` pieces of
    the term range (pivots at quantiles of run 0): piece ``i`` of run ``r`` is
    ``order[cuts[i, r]:cuts[i + 1, r]]``, and equal terms always fall in the same piece."""
    k = bounds.shape[0] - 1
    cuts = np.empty((n_pieces + 1, k), dtype=np.int64)
    for r in range(k):
        cuts[0, r] = bounds[r]
        cuts[n_pieces, r] = bounds[r + 1]
    n0 = bounds[1] - bounds[0]
    for i in range(1, n_pieces):
        q = bounds[0] + (n0 * i) // n_pieces
        for r in range(k):
            lo = cuts[i - 1, r]
            if q >= bounds[1]:
                cuts[i, r] = bounds[r + 1]
            else:
                cuts[i, r] = _lower_bound(pool, tstart, tlen, keys, order, lo, bounds[r + 1],
                                          order[q])
    return cuts


@nb.njit(cache=True, nogil=True)
def merge_piece(pool, tstart, tlen, keys, order, starts, ends, pkeys, plen, low):
    """Union of the sorted runs ``order[starts[r]:ends[r]]``: ``sel[j, r]`` = id of the
    ``j``-th term of the union in run ``r``, or -1; and the union's code points + 1 per
    term (the length of its part of the term blob).

    ``pkeys``/``plen``: first keys and lengths by position (as ``order``), so two runs
    merge reading them in sequence; equal keys whose last code point slot (``low`` bits)
    is 0 hold whole terms, so only longer terms are compared in ``pool``."""
    k = starts.shape[0]
    total = 0
    for r in range(k):
        total += ends[r] - starts[r]
    if k == 1:
        one = order[starts[0]:ends[0]].copy().reshape((total, 1))
        for q in range(total):
            total += tlen[one[q, 0]]
        return one, total
    sel = np.full((total, k), -1, dtype=np.int64)
    n = 0
    chars = 0
    if k == 2:
        i, ie, j, je = starts[0], ends[0], starts[1], ends[1]
        while i < ie and j < je:
            ka = pkeys[i]
            kb = pkeys[j]
            if ka != kb:
                c = -1 if ka < kb else 1
            elif ka & low == 0:
                c = 0
            else:
                a = order[i]
                b = order[j]
                c = _cmp_terms(pool, tstart[a], tlen[a], tstart[b], tlen[b])
            if c <= 0:
                sel[n, 0] = order[i]
                chars += plen[i] + 1
                i += 1
            if c >= 0:
                sel[n, 1] = order[j]
                if c > 0:
                    chars += plen[j] + 1
                j += 1
            n += 1
        while i < ie:
            sel[n, 0] = order[i]
            chars += plen[i] + 1
            i += 1
            n += 1
        while j < je:
            sel[n, 1] = order[j]
            chars += plen[j] + 1
            j += 1
            n += 1
        return sel[:n], chars
    head = starts.copy()
    while True:
        best = -1
        tb = 0
        for r in range(k):
            if head[r] < ends[r]:
                t = order[head[r]]
                if best == -1 or _before(pool, tstart, tlen, keys, t, tb) < 0:
                    best = r
                    tb = t
        if best == -1:
            break
        for r in range(k):
            if head[r] < ends[r]:
                t = order[head[r]]
                if r == best or _before(pool, tstart, tlen, keys, t, tb) == 0:
                    sel[n, r] = t
                    head[r] += 1
        chars += tlen[tb] + 1
        n += 1
    return sel[:n], chars


@nb.njit(cache=True, nogil=True)
def fill_blob(pool, tstart, tlen, sel, blob, o, sep):
    """Write the code points of ``sel``'s terms, each followed by ``sep``, from
    ``blob[o]``."""
    k = sel.shape[1]
    for j in range(sel.shape[0]):
        r = 0
        while sel[j, r] < 0 and r < k - 1:
            r += 1
        t = sel[j, r]
        p = tstart[t]
        for q in range(tlen[t]):
            blob[o] = pool[p + q]
            o += 1
        blob[o] = sep
        o += 1


@nb.njit(cache=True, nogil=True)
def fill_counts(counts, df, sel, n_classes, out, out_df, col0):
    """Columns ``col0 ..`` of the dense ``(n_classes, n_union)`` counts ``out`` and of
    ``out_df`` from the id-major run ``counts`` and ``df`` of ``sel``'s terms."""
    n, k = sel.shape
    for j in range(n):
        for r in range(k):
            t = sel[j, r]
            if t < 0:
                continue
            out_df[col0 + j] += df[t]
            for c in range(n_classes):
                out[col0 + j, c] += counts[t * n_classes + c]


# --------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------

_POOL: ThreadPoolExecutor | None = None
#: Below this many characters one thread is faster than two (thread start, merge).
PARALLEL_MIN_CHARS = 1 << 20


def default_threads() -> int:
    """Threads for the kernels: ``NBAYES_NUM_THREADS`` if set, else one per core."""
    env = os.environ.get("NBAYES_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    configured = int(getattr(nb.config, "NUMBA_NUM_THREADS", 0) or (os.cpu_count() or 1))
    return max(1, min(configured, os.cpu_count() or 1))


class DirectCounts:
    """Exact unigram statistics of a corpus: ``terms`` sorted (Python ``str`` order),
    ``counts`` of shape ``(n_classes, len(terms))`` int64 and ``df`` (documents per term).

    ``counts`` and ``df`` may still be computed by a worker thread while the caller
    builds its vocabulary from ``terms``; reading them waits for the result.
    """

    __slots__ = ("terms", "_pending", "_result")

    def __init__(self, terms: Terms, pending: Any) -> None:
        self.terms = terms
        self._pending = pending
        self._result: tuple[np.ndarray, np.ndarray] | None = None

    def _get(self) -> tuple[np.ndarray, np.ndarray]:
        if self._result is None:
            p = self._pending
            self._result = p.result() if hasattr(p, "result") else p
            self._pending = None
        return self._result

    @property
    def counts(self) -> np.ndarray:
        return self._get()[0]

    @property
    def df(self) -> np.ndarray:
        return self._get()[1]


def _decode_terms(blob: np.ndarray) -> list[str]:
    if blob.shape[0] == 0:
        return []
    top = int(blob.max())
    if top < 256:
        text = blob.astype(np.uint8).tobytes().decode("latin-1")
    else:
        text = blob.tobytes().decode("utf-32-le", "surrogatepass")
    return text.split("\n")


class Terms(Sequence[str]):
    """A sorted vocabulary kept as code points, decoded to ``str`` on first use.

    ``blob`` holds the terms joined by ``"\n"`` (uint32 code points). Making 130k Python
    strings costs ~5-10 ms and ~2,500 page faults; a fit that is then used to predict
    never needs them (:class:`TermColumns` builds the compiled lookup from ``blob``).
    Compares equal to a list or tuple of the same strings.
    """

    __slots__ = ("blob", "_n", "_strings")

    def __init__(self, blob: np.ndarray, n: int) -> None:
        self.blob = blob
        self._n = int(n)
        self._strings: list[str] | None = None

    def strings(self) -> list[str]:
        """The terms as a list of str (decoded once)."""
        if self._strings is None:
            self._strings = _decode_terms(self.blob) if self._n else []
        return self._strings

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        return self.strings()[i]

    def __iter__(self) -> Any:
        return iter(self.strings())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Terms):
            return self.strings() == other.strings()
        if isinstance(other, list | tuple):
            return self.strings() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Terms({self._n} terms)"

    def __reduce__(self) -> Any:
        return (list, (self.strings(),))


def _addresses(docs: tuple[str, ...], lowercase: bool) -> tuple[Any, ...] | None:
    layout = direct_layout()
    if layout is None or char_table(lowercase).shape[0] != _MAX_CP:
        return None
    addrs = np.fromiter(map(id, docs), dtype=np.int64, count=len(docs))
    special, lengths = _special_docs(addrs, layout)
    if (special < 0).any():
        return None
    nolow = np.zeros(len(docs), dtype=np.uint8)
    keep: list[str] = []
    if lowercase and special.any():
        idx = np.flatnonzero(special > 0)
        keep = [docs[i].lower() for i in idx.tolist()]
        addrs[idx] = [id(s) for s in keep]
        lengths[idx] = [len(s) for s in keep]
        nolow[idx] = 1
    return layout, addrs, lengths, nolow, keep


def _chunks(
    lengths: np.ndarray, n_threads: int | None, pieces: int = 1
) -> list[tuple[int, int]]:
    """Document spans of about equal text: ``pieces`` per thread (a single span when one
    thread is used)."""
    n = lengths.shape[0]
    k = default_threads() if n_threads is None else max(1, int(n_threads))
    total = int(lengths.sum())
    if n_threads is None and total < PARALLEL_MIN_CHARS:
        k = 1
    if k > 1:
        k *= pieces
    k = max(1, min(k, n))
    if k == 1:
        return [(0, n)]
    cum = np.cumsum(lengths)
    cuts = np.searchsorted(cum, total * np.arange(1, k) / k).tolist()
    bounds = [0, *sorted(set(min(max(c, 1), n - 1) for c in cuts)), n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def _map(fn: Any, items: list[Any]) -> list[Any]:
    global _POOL
    if len(items) == 1:
        return [fn(items[0])]
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=max(2, default_threads()))
    return list(_POOL.map(fn, items))


def direct_count(
    docs: Sequence[str],
    y: np.ndarray,
    n_classes: int,
    lowercase: bool,
    binary: bool,
    n_threads: int | None = None,
    dtype: Any = np.int64,
) -> DirectCounts | None:
    """Unigram class counts with the zero-copy reader; None if it cannot be used.

    ``docs`` must hold exact ``str`` objects. ``n_threads`` None: :func:`default_threads`
    for corpora of at least :data:`PARALLEL_MIN_CHARS` characters. ``dtype``: of the
    returned counts (int64, or float64 to skip a conversion later).
    """
    like = np.zeros(0, dtype=dtype)
    hold = tuple(docs)  # the strings stay alive while the kernels read them
    prep = _addresses(hold, lowercase)
    if prep is None:
        return None
    layout, addrs, lengths, nolow, keep = prep
    y = np.ascontiguousarray(y, dtype=np.int64)
    tlow = char_table(lowercase)
    tid = char_table(False)
    C = int(n_classes)

    # int32 counts halve the memory the counting touches; exact while no count can
    # reach 2**31 (a token has at least two characters).
    small = int(lengths.sum()) < 2**32
    counts0 = np.zeros(0, dtype=np.int32 if small else np.int64)

    spans = _chunks(lengths, n_threads, pieces=8)
    threads = default_threads() if n_threads is None else max(1, int(n_threads))
    n_workers = min(len(spans), threads)
    ticket = itertools.count()  # next() is atomic: workers take spans in turn

    share = int(lengths.sum()) / max(1, n_workers)  # characters per worker

    def worker(_: int) -> Any:
        st = new_run(counts0, C)
        seen = 0
        first = True
        while (i := next(ticket)) < len(spans):
            st = count_run(addrs, layout, spans[i][0], spans[i][1], y, C, tlow, tid, nolow,
                           binary, st)
            seen += int(lengths[spans[i][0] : spans[i][1]].sum())
            if first and 0 < seen < share:
                # size the table once for the whole share: vocabularies grow at least
                # like the square root of the text (Heaps' law, exponent 0.4-0.7)
                first = False
                st = reserve_run(st, int(st[5][0] * (share / seen) ** 0.5))
        tab, pool, tstart, tlen, counts, state = st
        n = int(state[0])
        pool, tstart, tlen = pool[: state[1]], tstart[:n], tlen[:n]
        return pool, tstart, tlen, counts[: n * C], run_df(tab, n), *sort_terms(pool, tstart,
                                                                                 tlen)

    runs = _map(worker, list(range(max(1, n_workers))))
    del keep
    return _union(runs, C, like)


class _Pending:
    """Futures of the pieces of one result, joined on :meth:`result`."""

    def __init__(self, futures: list[Any], value: Any) -> None:
        self._futures = futures
        self._value = value

    def result(self) -> Any:
        for f in self._futures:
            f.result()
        return self._value


def _union(runs: list[Any], n_classes: int, like: np.ndarray) -> DirectCounts:
    """Merge the sorted runs of the workers into one sorted vocabulary with its counts.

    The term range is cut into pieces (pivots from run 0) that are merged in parallel;
    the term strings are decoded while the count matrix is filled in the background.
    """
    C = n_classes
    if len(runs) == 1:
        pool, tstart, tlen, counts, df, order, keys, per, pkeys, plen = runs[0]
        bounds = np.array([0, len(order)], dtype=np.int64)
    else:
        pool_off = np.cumsum([0] + [len(r[0]) for r in runs[:-1]])
        id_off = np.cumsum([0] + [len(r[1]) for r in runs[:-1]])
        pool = np.concatenate([r[0] for r in runs])
        tstart = np.concatenate([r[1] + o for r, o in zip(runs, pool_off, strict=True)])
        tlen = np.concatenate([r[2] for r in runs])
        counts = np.concatenate([r[3] for r in runs])
        df = np.concatenate([r[4] for r in runs])
        order = np.concatenate([r[5] + o for r, o in zip(runs, id_off, strict=True)])
        bounds = np.cumsum([0] + [len(r[1]) for r in runs]).astype(np.int64)
        plen = np.concatenate([r[9] for r in runs])
        per = runs[0][7]
        if len({r[7] for r in runs}) == 1:  # the sorts' keys are comparable
            keys = np.concatenate([r[6] for r in runs])
            pkeys = np.concatenate([r[8] for r in runs])
        else:
            keys = prefix_keys(pool, tstart, tlen)
            pkeys = keys[order]
            per = min(r[7] for r in runs)
    low = np.uint64((1 << {8: 8, 4: 16, 3: 21}[int(per)]) - 1)
    n_pieces = 1 if len(runs) == 1 else 2 * len(runs)
    cuts = split_sorted(pool, tstart, tlen, keys, order, bounds, n_pieces)
    pieces = _map(
        lambda i: merge_piece(pool, tstart, tlen, keys, order, cuts[i], cuts[i + 1], pkeys,
                              plen, low),  # fmt: skip
        list(range(n_pieces)),
    )
    col0 = np.cumsum([0] + [p[0].shape[0] for p in pieces]).tolist()
    at = np.cumsum([0] + [p[1] for p in pieces]).tolist()
    blob = np.empty(at[-1], dtype=np.uint32)
    _map(lambda i: fill_blob(pool, tstart, tlen, pieces[i][0], blob, at[i], 10),
         list(range(n_pieces)))
    # numpy's zeros: pages zeroed by the kernel as the fill threads touch them
    out = np.zeros((col0[-1], C), dtype=like.dtype)
    out_df = np.zeros(col0[-1], dtype=np.int64)

    def fill(i: int) -> None:
        fill_counts(counts, df, pieces[i][0], C, out, out_df, col0[i])

    if n_pieces > 1 and _POOL is not None:  # count matrix in parallel with the strings
        pending: Any = _Pending([_POOL.submit(fill, i) for i in range(n_pieces)],
                                (out.T, out_df))
    else:
        fill(0)
        pending = (out.T, out_df)
    return DirectCounts(Terms(blob[:-1], col0[-1]), pending)


# --------------------------------------------------------------------------------------
# fixed vocabulary: documents -> CSR rows (the scoring path)
# --------------------------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _scan_str(addr, layout, t, pos, d, bw0, bw1, bkey, bh, bsrc, bdoc, nb_):
    kind, n, data = _str_info(addr, layout)
    if n == 0:
        return 0, nb_, kind, n
    if kind == 1:
        pos, nb_ = _scan_latin1(_ptr8(data), n, pos, data, t, d, bw0, bw1, bkey, bh, bsrc,
                              bdoc, nb_)
    elif kind == 2:
        pos, nb_ = _scan_into(_ptr16(data), n, pos, data, 2, t, d, bw0, bw1, bkey, bh, bsrc,
                              bdoc, nb_)
    else:
        pos, nb_ = _scan_into(_ptr32(data), n, pos, data, 4, t, d, bw0, bw1, bkey, bh, bsrc,
                              bdoc, nb_)
    return pos, nb_, kind, n


@nb.njit(cache=True, nogil=True, inline="always")
def _insert_term(tab, mask, pool, used, bw0, bw1, bkey, bh, bsrc, b, width, t, col):
    """Put buffered token ``b`` (a term not in ``tab`` yet) in the lookup table with
    column ``col``, its code points at ``pool[used:]``; returns the new ``used``."""
    L = np.int64((bkey[b] >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
    for k in range(L):
        pool[used + k] = _src_cp(bsrc[b], width, t, k)
    j = np.int64(bh[b] & mask)
    while tab[4 * j + 2] != 0:
        j = np.int64((np.uint64(j) + np.uint64(1)) & mask)
    tab[4 * j] = bw0[b]
    tab[4 * j + 1] = bw1[b]
    tab[4 * j + 2] = bkey[b] | np.uint64(col + 1)
    tab[4 * j + 3] = (np.uint64(used) << np.uint64(32)) | np.uint64(L)
    return used + L


@nb.njit(cache=True, nogil=True)
def build_lookup(addrs, layout, cols, tid):
    """Exact lookup table of the strings at ``addrs`` (a vocabulary): key ``i`` maps to
    column ``cols[i]``. Strings that are not exactly one token are left out (no token can
    equal them). Returns ``(tab, pool)``; a slot is ``(w0, w1, key | column + 1,
    pool offset << 32 | length)``."""
    n = addrs.shape[0]
    n_slots = 16
    while n_slots < 2 * n:
        n_slots *= 2
    tab = np.zeros(4 * n_slots, dtype=np.uint64)
    total = 0
    for i in range(n):
        total += _str_info(addrs[i], layout)[1]
    pool = np.empty(total, dtype=np.uint32)
    used = 0
    mask = np.uint64(n_slots - 1)
    bw0, bw1, bkey, bh, bsrc, bdoc = key_buffers(2)
    for i in range(n):
        pos, got, kind, L = _scan_str(addrs[i], layout, tid, 0, i, bw0, bw1, bkey, bh, bsrc,
                                      bdoc, 0)
        if got != 1 or pos < L:
            continue
        if np.int64((bkey[0] >> np.uint64(32)) & np.uint64(0x7FFFFFFF)) != L:
            continue  # surrounded by non-word characters: not a token
        used = _insert_term(tab, mask, pool, used, bw0, bw1, bkey, bh, bsrc, 0, kind, tid,
                            cols[i])  # fmt: skip
    return tab, pool[:used]


@nb.njit(cache=True, nogil=True)
def _lookup(tab, mask, w0, w1, key, h, pool, src, width, t):
    j = np.int64(h & mask)
    while True:
        m = tab[4 * j + 2]
        if m == 0:
            return -1
        if (m >> np.uint64(32)) == (key >> np.uint64(32)) and tab[4 * j] == w0 \
                and tab[4 * j + 1] == w1:
            if key < np.uint64(1 << 63):
                return np.int64(m & _LO32) - 1
            aux = tab[4 * j + 3]
            p = np.int64(aux >> np.uint64(32))
            same = True
            for k in range(np.int64(aux & _LO32)):
                if pool[p + k] != _src_cp(src, width, t, k):
                    same = False
                    break
            if same:
                return np.int64(m & _LO32) - 1
        j = np.int64((np.uint64(j) + np.uint64(1)) & mask)


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_POS = np.array(
    [0, 47, 1, 56, 48, 27, 2, 60, 57, 49, 41, 37, 28, 16, 3, 61, 54, 58, 35, 52, 50, 42,
     21, 44, 38, 32, 29, 23, 17, 11, 4, 62, 46, 55, 26, 59, 40, 36, 15, 53, 34, 51, 20, 43,
     31, 22, 10, 45, 25, 39, 14, 33, 19, 30, 9, 24, 13, 18, 8, 12, 7, 6, 5, 63],
    dtype=np.int64,
)


@nb.njit(cache=True, nogil=True)
def _low_bit(x):
    """Index of the lowest set bit of ``x`` (``x != 0``)."""
    return _DEBRUIJN_POS[((x ^ (x - np.uint64(1))) * _DEBRUIJN) >> np.uint64(58)]


@nb.njit(cache=True, nogil=True, inline="always")
def _mark(c, v, cnt, bits, summary):
    """Add ``v`` to column ``c`` of the row being built (two-level bitmap ``bits`` /
    ``summary`` of its columns, values in ``cnt``); 1 if ``c`` is new in the row."""
    w = c >> 6
    bit = np.uint64(1) << np.uint64(c & 63)
    if bits[w] & bit:
        cnt[c] += v
        return 0
    bits[w] |= bit
    summary[w >> 6] |= np.uint64(1) << np.uint64(w & 63)
    cnt[c] = v
    return 1


@nb.njit(cache=True, nogil=True)
def _row_bitmap(n_cols):
    """Empty ``(cnt, bits, summary)`` for building rows over ``n_cols`` columns."""
    cnt = np.zeros(max(n_cols, 1), dtype=np.int64)
    bits = np.zeros((max(n_cols, 1) + 63) // 64, dtype=np.uint64)
    summary = np.zeros((bits.shape[0] + 63) // 64, dtype=np.uint64)
    return cnt, bits, summary


@nb.njit(cache=True, nogil=True)
def _end_row(cnt, bits, summary, indices, values, nnz, n_row):
    """Append the row being built (``n_row`` columns) at ``nnz``, growing ``indices`` /
    ``values`` as needed; returns them and the new ``nnz``."""
    if nnz + n_row > indices.shape[0]:
        size = 2 * (nnz + n_row)
        indices = _grow1(indices, size, 0)
        values = _grow1(values, size, 0)
    _flush_row(cnt, bits, summary, indices, values, nnz)
    return indices, values, nnz + n_row


@nb.njit(cache=True, nogil=True)
def _flush_row(cnt, bits, summary, indices, values, k):
    """Write the row's columns in increasing order (and their values) from ``indices[k]``,
    clearing the bitmap for the next row: no per-row sort."""
    one = np.uint64(1)
    for si in range(summary.shape[0]):
        sw = summary[si]
        while sw:
            w = si * 64 + _low_bit(sw)
            sw &= sw - one
            x = bits[w]
            bits[w] = 0
            while x:
                c = w * 64 + _low_bit(x)
                x &= x - one
                indices[k] = c
                values[k] = cnt[c]
                k += 1
        summary[si] = 0


@nb.njit(cache=True, nogil=True)
def transform_run(addrs, layout, lo, hi, tlow, tid, nolow, tab, pool, n_cols, track=False):
    """CSR pieces ``(indptr, indices, counts, first)`` of documents ``lo..hi-1`` over the
    fixed vocabulary of :func:`build_lookup` (indices sorted within each row); with
    ``track``, ``first`` lists the columns in the order their first token appears.

    A document's columns are marked in a two-level bitmap and read back in order, so no
    per-row sort is needed.
    """
    seen = np.zeros(max(n_cols, 1) if track else 1, dtype=np.uint8)
    first = np.empty(max(n_cols, 1) if track else 0, dtype=np.int64)
    n_first = 0
    B = _BLOCK
    bw0, bw1, bkey, bh, bsrc, bdoc = key_buffers(B)
    mask = np.uint64(tab.shape[0] // 4 - 1)
    base = tab.ctypes.data
    cnt, bits, summary = _row_bitmap(n_cols)
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    indices = np.empty(1024, dtype=np.int64)
    values = np.empty(1024, dtype=np.int64)
    nnz = 0
    for d in range(lo, hi):
        low = nolow[d] == 0
        t = tlow if low else tid
        pos = 0
        n_row = 0
        while True:
            pos, nb_, kind, n = _scan_str(addrs[d], layout, t, pos, d, bw0, bw1, bkey, bh,
                                          bsrc, bdoc, 0)
            for b in range(nb_):
                if b + _AHEAD < nb_:
                    _prefetch(base + 32 * np.int64(bh[b + _AHEAD] & mask))
                c = _lookup(tab, mask, bw0[b], bw1[b], bkey[b], bh[b], pool, bsrc[b], kind, t)
                if c < 0:
                    continue
                if track and seen[c] == 0:
                    seen[c] = 1
                    first[n_first] = c
                    n_first += 1
                n_row += _mark(c, 1, cnt, bits, summary)
            if pos >= n:
                break
        indices, values, nnz = _end_row(cnt, bits, summary, indices, values, nnz, n_row)
        indptr[d - lo + 1] = nnz
    return indptr, indices[:nnz], values[:nnz], first[:n_first]


_LOOKUPS: list[tuple[Any, ...]] = []


class FrozenVocabulary(dict[str, int]):
    """A term -> column mapping that cannot change, so the compiled lookup table built
    for it is reused on identity alone (a plain dict is compared with a snapshot on
    every call: ~16 ms for 130k terms)."""

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("This vocabulary is read-only; copy it first: dict(vocabulary).")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self) -> Any:
        return (FrozenVocabulary, (dict(self),))


class TermColumns(Mapping[str, int]):
    """Read-only term -> column mapping over sorted :class:`Terms`: column ``j`` is term
    ``kept[j]`` (every term, in order, when ``kept`` is None).

    Batch scoring looks terms up in a compiled table built straight from the code
    points; the ``str`` keys and the dict are made only when something asks for them.
    Pickles as a :class:`FrozenVocabulary`.
    """

    __slots__ = ("terms", "kept", "_dict", "_table")

    def __init__(self, terms: Terms, kept: np.ndarray | None = None) -> None:
        self.terms = terms
        self.kept = kept
        self._dict: FrozenVocabulary | None = None
        self._table: Any = None

    def mapping(self) -> FrozenVocabulary:
        """The mapping as a (read-only) dict, made once."""
        if self._dict is None:
            names = self.terms.strings()
            if self.kept is not None:
                names = [names[j] for j in self.kept.tolist()]
            self._dict = FrozenVocabulary(zip(names, range(len(names)), strict=True))
        return self._dict

    def __getitem__(self, term: str) -> int:
        return self.mapping()[term]

    def get(self, term: str, default: Any = None) -> Any:
        return self.mapping().get(term, default)

    def __contains__(self, term: object) -> bool:
        return term in self.mapping()

    def __iter__(self) -> Any:
        return iter(self.mapping())

    def __len__(self) -> int:
        return len(self.terms) if self.kept is None else len(self.kept)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.mapping() == (other.mapping() if isinstance(other, TermColumns)
                                      else other)  # fmt: skip
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        return (FrozenVocabulary, (dict(self.mapping()),))

    def count_one(self, doc: str, lowercase: bool) -> tuple[np.ndarray, np.ndarray] | None:
        """``transform_one(doc, self, lowercase=...)`` (unigrams, no stop words) through
        the compiled table, so one document needs neither the ``str`` keys nor the dict;
        None when the zero-copy reader cannot take ``doc``."""
        layout = direct_layout()
        t = char_table(lowercase)
        if layout is None or t.shape[0] != _MAX_CP or type(doc) is not str:
            return None
        tab, pool = self.table()
        ok, cols, counts = _count_one(id(doc), layout, t, lowercase, tab, pool)
        return (cols, counts) if ok else None

    def table(self) -> Any:
        """The compiled lookup table (built from the code points once)."""
        if self._table is None:
            cols = np.arange(len(self.terms), dtype=np.int64)
            if self.kept is not None:
                cols = np.full(len(self.terms), -1, dtype=np.int64)
                cols[self.kept] = np.arange(len(self.kept), dtype=np.int64)
            self._table = build_lookup_blob(self.terms.blob, cols, char_table(False))
        return self._table


@nb.njit(cache=True, nogil=True)
def _count_one(addr, layout, t, lowercase, tab, pool):
    """Known columns (sorted) and their counts in the str at ``addr``; ``ok`` False when
    the zero-copy reader cannot take it (not compact, or U+0130/U+03A3 to lowercase)."""
    kind, n, data = _str_info(addr, layout)
    none = np.empty(0, dtype=np.int64)
    if kind == 0:
        return False, none, none
    if lowercase and kind != 1:
        for i in range(n):
            c = _ptr16(data)[i] if kind == 2 else _ptr32(data)[i]
            if c == 0x130 or c == 0x3A3:
                return False, none, none
    B = 64
    bw0, bw1, bkey, bh, bsrc, bdoc = key_buffers(B)
    mask = np.uint64(tab.shape[0] // 4 - 1)
    cols = np.empty(32, dtype=np.int64)
    m = 0
    pos = 0
    while pos < n:
        pos, nb_, kind, n = _scan_str(addr, layout, t, pos, 0, bw0, bw1, bkey, bh, bsrc, bdoc, 0)
        for b in range(nb_):
            c = _lookup(tab, mask, bw0[b], bw1[b], bkey[b], bh[b], pool, bsrc[b], kind, t)
            if c >= 0:
                if m == cols.shape[0]:
                    cols = _grow1(cols, 2 * m, 0)
                cols[m] = c
                m += 1
    cols = np.sort(cols[:m])
    uniq = np.empty(m, dtype=np.int64)
    counts = np.empty(m, dtype=np.int64)
    k = 0
    for i in range(m):
        if k > 0 and uniq[k - 1] == cols[i]:
            counts[k - 1] += 1
        else:
            uniq[k] = cols[i]
            counts[k] = 1
            k += 1
    return True, uniq[:k], counts[:k]


@nb.njit(cache=True, nogil=True)
def build_lookup_blob(blob, cols, tid):
    """The lookup table of :func:`build_lookup` for the terms of a ``"\n"``-joined
    code point ``blob`` (each term one token): term ``i`` maps to column ``cols[i]``,
    left out when -1."""
    n = cols.shape[0]
    n_slots = 16
    while n_slots < 2 * n:
        n_slots *= 2
    tab = np.zeros(4 * n_slots, dtype=np.uint64)
    base = tab.ctypes.data
    pool = np.empty(blob.shape[0], dtype=np.uint32)
    used = 0
    mask = np.uint64(n_slots - 1)
    B = 1024
    bw0, bw1, bkey, bh, bsrc, bdoc = key_buffers(B)
    data = blob.ctypes.data
    p = _ptr32(data)
    N = blob.shape[0]
    pos = 0
    term = 0
    while pos < N and term < n:
        pos, nb_ = _scan_into(p, N, pos, data, 4, tid, 0, bw0, bw1, bkey, bh, bsrc, bdoc, 0)
        for b in range(nb_):
            if b + _AHEAD < nb_:  # the slots are random: fetch ahead
                _prefetch(base + 32 * np.int64(bh[b + _AHEAD] & mask))
            c = cols[term]
            term += 1
            if c < 0:
                continue
            used = _insert_term(tab, mask, pool, used, bw0, bw1, bkey, bh, bsrc, b, 4, tid, c)
    return tab, pool[:used]


def _vocab_lookup(vocabulary: Any, stop: frozenset[Any] | None, layout: np.ndarray) -> Any:
    """The compiled lookup table of ``vocabulary`` (cached while the mapping is unchanged:
    identity, and for a plain dict equality with a snapshot, are checked on every call)."""
    if type(vocabulary) is TermColumns and not stop:
        return vocabulary.table()
    frozen = type(vocabulary) in (FrozenVocabulary, TermColumns)
    for entry in _LOOKUPS:
        if entry[0] is vocabulary and entry[1] == stop and (frozen or entry[2] == vocabulary):
            return entry[3]
    snapshot: Any
    if type(vocabulary) is TermColumns:
        snapshot = vocabulary.mapping()
    else:
        snapshot = vocabulary if frozen else dict(vocabulary)
    terms = list(snapshot)
    cols = np.fromiter(snapshot.values(), dtype=np.int64, count=len(terms))
    ok = [type(t) is str and not (stop and t in stop) for t in terms]  # no tuples: no GC
    if not all(ok):
        keep = np.flatnonzero(ok)
        terms = [terms[i] for i in keep.tolist()]
        cols = cols[keep]
    n_cols = len(vocabulary)
    if len(cols) and (cols.min() < 0 or cols.max() >= n_cols):
        return None
    taddrs = np.fromiter(map(id, terms), dtype=np.int64, count=len(terms))
    if (_special_docs(taddrs, layout)[0] < 0).any():
        return None
    table = build_lookup(taddrs, layout, cols, char_table(False))
    _LOOKUPS.insert(0, (vocabulary, stop, snapshot, table))
    del _LOOKUPS[2:]
    return table


def direct_transform(
    docs: Sequence[str],
    vocabulary: Any,
    lowercase: bool,
    stop: frozenset[Any] | None,
    n_threads: int | None = None,
    first: list[np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Unigram counts of ``docs`` over a fixed ``vocabulary`` (term -> column) as CSR
    pieces, with the zero-copy reader; None if it cannot be used. A list given as
    ``first`` receives the columns in the order of their first occurrence."""
    hold = tuple(docs)
    prep = _addresses(hold, lowercase)
    if prep is None:
        return None
    layout, addrs, lengths, nolow, keep = prep
    table = _vocab_lookup(vocabulary, stop, layout)
    if table is None:
        return None
    tab, pool = table
    n_cols = len(vocabulary)
    tid = char_table(False)
    tlow = char_table(lowercase)

    track = first is not None

    def run(span: tuple[int, int]) -> Any:
        return transform_run(addrs, layout, span[0], span[1], tlow, tid, nolow, tab, pool,
                             n_cols, track)

    parts = _map(run, _chunks(lengths, n_threads))
    del keep
    if first is not None:
        done = np.zeros(n_cols, dtype=bool)
        for part in parts:  # spans are consecutive: a column is new where first seen
            cols = part[3][~done[part[3]]]
            done[cols] = True
            first.append(cols)
    return _join_rows([p[:3] for p in parts])


@nb.njit(cache=True, nogil=True)
def _order_rows(indptr, indices, values, key, lo, hi):
    """Sort the entries of rows ``lo..hi-1`` by ``key[column]``, in place."""
    for r in range(lo, hi):
        a = indptr[r]
        b = indptr[r + 1]
        if b - a < 2:
            continue
        p = np.argsort(key[indices[a:b]])
        indices[a:b] = indices[a:b][p]
        values[a:b] = values[a:b][p]


def order_rows(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
               key: np.ndarray) -> None:
    """Sort every CSR row by ``key[column]`` (unique keys), in place, in threads."""
    _map(lambda s: _order_rows(indptr, indices, values, key, s[0], s[1]),
         _chunks(np.diff(indptr), None))


def _join_rows(parts: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One set of CSR pieces from consecutive row spans."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [int(p[0][-1]) for p in parts[:-1]])
    indptr = np.concatenate(
        [parts[0][0]] + [p[0][1:] + off for p, off in zip(parts[1:], offsets[1:], strict=True)]
    )
    return indptr, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
