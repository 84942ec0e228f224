# mypy: disallow-untyped-defs=False
"""Hashed bag of words: scikit-learn's buckets computed in the compiled scanner.

A token's bucket is MurmurHash3 (x86, 32-bit, seed 0) of its UTF-8 bytes, as
``sklearn.utils.murmurhash3_32``: column ``|h| % n_features`` (sign ``h >= 0``). The hash
is computed while scanning, so no term is ever interned or turned into a Python string:

* :func:`direct_hash` adds per-class bucket counts of documents into running totals
  (``nbayes.text.hash_into``, streaming ``TextClassifier(hashing=True)``);
* :func:`direct_hash_transform` makes FeatureHasher's document x bucket rows
  (``HashingVectorizer``, hashed prediction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba as nb
import numpy as np

from ._tokenize import (
    _AHEAD,
    _BLOCK,
    _H,
    _LO32,
    _addresses,
    _chunks,
    _end_row,
    _fill_block,
    _join_rows,
    _lookup,
    _map,
    _mark,
    _prefetch,
    _row_bitmap,
    _scan_str,
    _special_docs,
    _src_cp,
    build_lookup,
    char_table,
    key_buffers,
)

__all__ = ["direct_hash", "direct_hash_transform"]

_M32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)


@nb.njit(cache=True, nogil=True, inline="always")
def _rotl32(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


@nb.njit(cache=True, nogil=True, inline="always")
def _murmur_block(h, k):
    k = (k * np.uint64(0xCC9E2D51)) & _M32
    k = _rotl32(k, 15)
    k = (k * np.uint64(0x1B873593)) & _M32
    h ^= k
    h = _rotl32(h, 13)
    return (h * np.uint64(5) + np.uint64(0xE6546B64)) & _M32


@nb.njit(cache=True, nogil=True)
def _murmur_token(w0, w1, key, src, width, t):
    """scikit-learn's ``murmurhash3_32(token, seed=0)`` (MurmurHash3 x86 32-bit of the
    token's UTF-8 bytes, as a signed 32-bit int) of one buffered token."""
    L = np.int64((key >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
    packed = key < np.uint64(1 << 63)
    h = np.uint64(0)
    if packed and ((w0 | w1) & _H) == 0:  # ASCII: the packed code points are the bytes
        q = 0
        while q + 4 <= L:
            w = w0 if q < 8 else w1
            h = _murmur_block(h, (w >> np.uint64(8 * (q & 7))) & _M32)
            q += 4
        if q < L:
            w = w0 if q < 8 else w1
            k = (w >> np.uint64(8 * (q & 7))) & ((np.uint64(1) << np.uint64(8 * (L - q))) - _ONE)
            k = (k * np.uint64(0xCC9E2D51)) & _M32
            k = _rotl32(k, 15)
            k = (k * np.uint64(0x1B873593)) & _M32
            h ^= k
        return _murmur_final(h, L)
    acc = np.uint64(0)
    nacc = 0
    n_bytes = 0
    for j in range(L):
        if packed:
            w = w0 if j < 8 else w1
            cp = np.uint32((w >> np.uint64(8 * (j & 7))) & np.uint64(0xFF))
        else:
            cp = _src_cp(src, width, t, j)
        if cp < 0x80:
            nb_bytes = 1
            enc = np.uint64(cp)
        elif cp < 0x800:
            nb_bytes = 2
            enc = np.uint64(0xC0 | (cp >> 6)) | (np.uint64(0x80 | (cp & 0x3F)) << np.uint64(8))
        elif cp < 0x10000:
            nb_bytes = 3
            enc = (np.uint64(0xE0 | (cp >> 12))
                   | (np.uint64(0x80 | ((cp >> 6) & 0x3F)) << np.uint64(8))
                   | (np.uint64(0x80 | (cp & 0x3F)) << np.uint64(16)))
        else:
            nb_bytes = 4
            enc = (np.uint64(0xF0 | (cp >> 18))
                   | (np.uint64(0x80 | ((cp >> 12) & 0x3F)) << np.uint64(8))
                   | (np.uint64(0x80 | ((cp >> 6) & 0x3F)) << np.uint64(16))
                   | (np.uint64(0x80 | (cp & 0x3F)) << np.uint64(24)))
        for q in range(nb_bytes):
            acc |= ((enc >> np.uint64(8 * q)) & np.uint64(0xFF)) << np.uint64(8 * nacc)
            nacc += 1
            if nacc == 4:
                h = _murmur_block(h, acc)
                acc = np.uint64(0)
                nacc = 0
        n_bytes += nb_bytes
    if nacc > 0:
        k = (acc * np.uint64(0xCC9E2D51)) & _M32
        k = _rotl32(k, 15)
        k = (k * np.uint64(0x1B873593)) & _M32
        h ^= k
    return _murmur_final(h, n_bytes)


@nb.njit(cache=True, nogil=True, inline="always")
def _murmur_final(h, n_bytes):
    """MurmurHash3's finalisation, as a signed 32-bit value."""
    h ^= np.uint64(n_bytes) & _M32
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & _M32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & _M32
    h ^= h >> np.uint64(16)
    s = np.int64(h)
    if s >= 2**31:
        s -= 2**32
    return s


@nb.njit(cache=True, nogil=True)
def _hash_column(s, n_features):
    """scikit-learn's column of a signed hash: ``abs(h) % n_features`` (2**31 for -2**31)."""
    if s == -(2**31):
        return (2**31 - 1 - (n_features - 1)) % n_features
    return (s if s >= 0 else -s) % n_features


@nb.njit(cache=True, nogil=True)
def hash_run(addrs, layout, y, tlow, tid, nolow, binary, n_features, fc, aux, stab, spool):
    """Add the hashed unigram counts of every document into ``fc[y[d], column]`` in
    place; tokens found in the stop-word table ``(stab, spool)`` (see
    :func:`build_lookup`) are skipped.

    ``aux[column]`` (zeros on the first call) = (last document + 1) << 32 | document
    frequency: counts are clipped per (document, column) when ``binary``, as
    scikit-learn clips the summed bucket. The columns of a block of tokens are computed
    first, then added with prefetching (the buckets are random: every add is a cache
    miss otherwise). Returns the number of tokens counted.
    """
    B = _BLOCK
    bw0, bw1, bkey, bh, bsrc, bdoc = key_buffers(B)
    bwidth = np.empty(B, dtype=np.int64)
    blow = np.empty(B, dtype=np.uint8)
    bcol = np.empty(B, dtype=np.int64)
    abase = aux.ctypes.data
    fbase = fc.ctypes.data
    stride = fc.strides[0] // 8
    n_docs = addrs.shape[0]
    smask = np.uint64(stab.shape[0] // 4 - 1)
    has_stop = spool.shape[0] > 0
    total = 0
    cur = np.array([0, 0], dtype=np.int64)
    while True:
        nb_ = _fill_block(addrs, layout, n_docs, nolow, tlow, tid, cur, bw0, bw1, bkey, bh,
                          bsrc, bdoc, bwidth, blow)
        if nb_ == 0:
            break
        for b in range(nb_):
            tb = tlow if blow[b] else tid
            if has_stop and _lookup(stab, smask, bw0[b], bw1[b], bkey[b], bh[b], spool,
                                    bsrc[b], bwidth[b], tb) >= 0:
                bcol[b] = -1
                continue
            s = _murmur_token(bw0[b], bw1[b], bkey[b], bsrc[b], bwidth[b], tb)
            bcol[b] = _hash_column(s, n_features)
        for b in range(nb_):
            if b + _AHEAD < nb_ and bcol[b + _AHEAD] >= 0:
                ca = bcol[b + _AHEAD]
                _prefetch(abase + 8 * ca)
                _prefetch(fbase + 8 * (y[bdoc[b + _AHEAD]] * stride + ca))
            col = bcol[b]
            if col < 0:
                continue
            d1 = np.uint64(bdoc[b] + 1) << np.uint64(32)
            a = aux[col]
            if (a & ~_LO32) != d1:
                aux[col] = d1 | ((a & _LO32) + np.uint64(1))
            elif binary:
                continue
            fc[y[bdoc[b]], col] += 1.0
            total += 1
    return total


def direct_hash(
    docs: Sequence[str],
    rows: np.ndarray,
    lowercase: bool,
    binary: bool,
    n_features: int,
    fc: np.ndarray,
    df: np.ndarray,
    stop: frozenset[Any] | None = None,
) -> bool:
    """Add scikit-learn's hashed unigram counts (``alternate_sign=False``, ``norm=None``)
    of ``docs`` into row ``rows[i]`` of ``fc`` and into ``df``, in place, without
    interning a single term: memory is that of the arrays given (plus one word per
    column). False (nothing added) when the zero-copy reader cannot read the documents
    (or the stop words)."""
    hold = tuple(docs)  # the strings stay alive while the kernel reads them
    prep = _prepare(hold, lowercase, stop)
    if prep is None:
        return False
    layout, addrs, _, nolow, stab, spool, keep = prep
    aux = np.zeros(int(n_features), dtype=np.uint64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    hash_run(addrs, layout, rows, char_table(lowercase), char_table(False), nolow,
             bool(binary), int(n_features), fc, aux, stab, spool)
    del keep
    df[: int(n_features)] += (aux & _LO32).astype(np.int64)
    return True


@nb.njit(cache=True, nogil=True)
def hash_transform_run(addrs, layout, lo, hi, tlow, tid, nolow, n_features, alternate, stab,
                       spool):
    """CSR pieces ``(indptr, indices, values)`` of documents ``lo..hi-1`` as scikit-learn's
    FeatureHasher makes them: every token adds ``sign(h)`` (or 1) to column
    ``|h| % n_features``, sums are kept even when they cancel to 0, and the indices of
    a row are sorted (the two-level bitmap of :func:`transform_run`)."""
    B = _BLOCK
    bw0, bw1, bkey, bh, bsrc, bdoc = key_buffers(B)
    smask = np.uint64(stab.shape[0] // 4 - 1)
    has_stop = spool.shape[0] > 0
    cnt, bits, summary = _row_bitmap(n_features)
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
                if has_stop and _lookup(stab, smask, bw0[b], bw1[b], bkey[b], bh[b], spool,
                                        bsrc[b], kind, t) >= 0:
                    continue
                s = _murmur_token(bw0[b], bw1[b], bkey[b], bsrc[b], kind, t)
                c = _hash_column(s, n_features)
                v = -1 if (alternate and s < 0) else 1
                n_row += _mark(c, v, cnt, bits, summary)
            if pos >= n:
                break
        indices, values, nnz = _end_row(cnt, bits, summary, indices, values, nnz, n_row)
        indptr[d - lo + 1] = nnz
    return indptr, indices[:nnz], values[:nnz]


def _prepare(hold: tuple[str, ...], lowercase: bool, stop: frozenset[Any] | None) -> Any:
    """``(layout, addrs, lengths, nolow, stab, spool, keep)`` for the zero-copy reader
    and the stop-word table, or None when either cannot be read."""
    prep = _addresses(hold, lowercase)
    if prep is None:
        return None
    layout, addrs, lengths, nolow, keep = prep
    table = _stop_table(stop, layout)
    if table is None:
        return None
    return (layout, addrs, lengths, nolow, *table, keep)


def _stop_table(stop: frozenset[Any] | None, layout: np.ndarray) -> Any:
    """Exact lookup table of the stop words (empty when none); None if unreadable."""
    words = [w for w in (stop or ()) if type(w) is str]
    waddrs = np.fromiter(map(id, words), dtype=np.int64, count=len(words))
    if (_special_docs(waddrs, layout)[0] < 0).any():
        return None
    stab, spool = build_lookup(waddrs, layout, np.arange(len(words), dtype=np.int64),
                               char_table(False))
    if spool.shape[0] == 0:
        stab = np.zeros(4 * 16, dtype=np.uint64)
    del words
    return stab, spool


def direct_hash_transform(
    docs: Sequence[str],
    lowercase: bool,
    n_features: int,
    alternate_sign: bool,
    stop: frozenset[Any] | None = None,
    n_threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """FeatureHasher's CSR pieces of the unigrams of ``docs`` (summed signs, sorted
    indices) with the zero-copy reader, in threads; None if it cannot be used."""
    hold = tuple(docs)  # the strings stay alive while the kernels read them
    prep = _prepare(hold, lowercase, stop)
    if prep is None:
        return None
    layout, addrs, lengths, nolow, stab, spool, keep = prep
    tid = char_table(False)
    tlow = char_table(lowercase)

    def run(span: tuple[int, int]) -> Any:
        return hash_transform_run(addrs, layout, span[0], span[1], tlow, tid, nolow,
                                  int(n_features), bool(alternate_sign), stab, spool)

    parts = _map(run, _chunks(lengths, n_threads))
    del keep
    return _join_rows(parts)
