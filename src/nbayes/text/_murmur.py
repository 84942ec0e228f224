"""MurmurHash3 (x86, 32-bit) of many strings at once, in numpy: scikit-learn's
``murmurhash3_32(term, seed=0)`` (the hash of a term's UTF-8 bytes, signed) without
importing scikit-learn, for the hashed terms of the token streams: text the compiled
scanner cannot read in place (it hashes unigrams and word n-grams while scanning:
:mod:`nbayes.text._drivers.hashing`).

The strings are hashed together, block by block: the terms sorted by their number of
4-byte blocks, block ``j`` is mixed into the hashes of the terms that have it (a prefix).
A term of more than :data:`_LONG` blocks (a very long token) is finished on its own, its
blocks mixed in a Python loop, so one huge term does not cost a numpy call per block for
the whole batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["murmurhash3_32"]

_C1 = np.uint32(0xCC9E2D51)
_C2 = np.uint32(0x1B873593)
_M = np.uint32(5)
_N = np.uint32(0xE6546B64)
_F1 = np.uint32(0x85EBCA6B)
_F2 = np.uint32(0xC2B2AE35)
#: terms with more 4-byte blocks than this are hashed one at a time
_LONG = 64


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _mix_k(k: np.ndarray) -> np.ndarray:
    k = k * _C1
    return _rotl(k, 15) * _C2


def _words(buf: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Little-endian words of the 4 bytes of ``buf`` from each ``at``."""
    out = buf[at].astype(np.uint32)
    for b in (1, 2, 3):
        out |= buf[at + b].astype(np.uint32) << np.uint32(8 * b)
    return out


def _scalar_blocks(h: int, k: np.ndarray) -> int:
    """``h`` after the (already mixed) blocks ``k``, in order: one term's long body."""
    mask = 0xFFFFFFFF
    for kk in k.tolist():
        h ^= kk
        h = ((h << 13) | (h >> 19)) & mask
        h = (h * 5 + 0xE6546B64) & mask
    return h


def _utf8(terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The UTF-8 byte length of each term, and their bytes one after the other (then 4
    zero bytes): one encoding of the joined terms, not one per term."""
    chars = np.fromiter(map(len, terms), dtype=np.int64, count=len(terms))
    text = "".join(terms)
    data = text.encode("utf-8")  # a lone surrogate: UnicodeEncodeError, as scikit-learn's
    if len(data) == len(text):
        lengths = chars
    else:  # bytes per code point, summed over each term's characters
        points = np.frombuffer(text.encode("utf-32-le"), dtype="<u4")
        width = 1 + (points >= 0x80) + (points >= 0x800) + (points >= 0x10000)
        ends = np.zeros(len(points) + 1, dtype=np.int64)
        np.cumsum(width, out=ends[1:])
        bounds = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(chars, out=bounds[1:])
        lengths = np.diff(ends[bounds])
    return lengths, np.frombuffer(data + b"\0\0\0\0", dtype=np.uint8)


def murmurhash3_32(terms: Sequence[str]) -> np.ndarray:
    """Signed 32-bit MurmurHash3 (seed 0) of each term's UTF-8 bytes, as int64: equal to
    ``[sklearn.utils.murmurhash3_32(t, seed=0) for t in terms]``."""
    n_terms = len(terms)
    if n_terms == 0:
        return np.zeros(0, dtype=np.int64)
    lengths, buf = _utf8(terms)
    starts = np.zeros(n_terms, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    # the terms by decreasing number of blocks (at most _LONG + 1: the long ones last of all)
    capped = np.minimum(lengths // 4, _LONG + 1)
    order = np.argsort(-capped, kind="stable")
    capped = capped[order]
    at = starts[order]
    # every term's first blocks (up to _LONG), block-major: block j of terms [0, upto[j])
    upto = np.searchsorted(-capped, -np.arange(1, _LONG + 1), side="right")
    n_j = upto[upto > 0]
    first = np.repeat(np.cumsum(n_j) - n_j, n_j)
    term = np.arange(int(n_j.sum()), dtype=np.int64) - first
    block = np.repeat(np.arange(len(n_j), dtype=np.int64), n_j)
    h = np.zeros(n_terms, dtype=np.uint32)
    with np.errstate(over="ignore"):
        k = _mix_k(_words(buf, at[term] + 4 * block))
        o = 0
        for m in n_j.tolist():
            hj = h[:m] ^ k[o : o + m]
            h[:m] = _rotl(hj, 13) * _M + _N
            o += m
        blocks = lengths[order] // 4
        for i in np.flatnonzero(blocks > _LONG).tolist():
            rest = at[i] + 4 * np.arange(_LONG, int(blocks[i]), dtype=np.int64)
            h[i] = _scalar_blocks(int(h[i]), _mix_k(_words(buf, rest)))
        # the tail: the last length % 4 bytes (the zeros past them add nothing)
        tail_n = lengths[order] % 4
        has = np.flatnonzero(tail_n)
        tail_at = at[has] + 4 * blocks[has]
        word = buf[tail_at].astype(np.uint32)
        for b in (1, 2):
            more = tail_n[has] > b
            word[more] |= buf[tail_at[more] + b].astype(np.uint32) << np.uint32(8 * b)
        h[has] ^= _mix_k(word)
        # finalization
        h ^= lengths[order].astype(np.uint32)
        h ^= h >> np.uint32(16)
        h *= _F1
        h ^= h >> np.uint32(13)
        h *= _F2
        h ^= h >> np.uint32(16)
    out = np.empty(n_terms, dtype=np.int64)
    out[order] = h.view(np.int32)
    return out
