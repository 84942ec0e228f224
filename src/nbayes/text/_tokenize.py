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

import re

import numba as nb
import numpy as np

__all__ = [
    "word_table",
    "encode_corpus",
    "intern_tokens",
    "pair_ids",
    "first_occurrence",
    "build_rows",
    "class_sums",
    "stream_class_sums",
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
                              y, n_classes, binary):
    out = np.zeros((n_classes, n_cols), dtype=np.int64)
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
) -> tuple[np.ndarray, np.ndarray]:
    """Per-class sums ``Y^T X`` (int64) and document frequencies straight from the id
    streams (no per-document sort, no CSR)."""
    return _stream_class_sums_kernel(
        tok, ptr, ptok, pptr, n_uni, use_uni, use_pair, col, n_cols, y, n_classes, binary
    )
