# mypy: disallow-untyped-defs=False
"""Hashed bag of words and of word n-grams: scikit-learn's buckets computed in the
compiled scanner.

A term's bucket is MurmurHash3 (x86, 32-bit, seed 0) of its UTF-8 bytes, as
``sklearn.utils.murmurhash3_32``: column ``|h| % n_features`` (sign ``h >= 0``); a word
n-gram's term is its tokens joined by one space (stop words left out first), hashed from
the tokens' bytes in a window of the document (``hashing.hpp``: ``NgramWindow``). The hash
is computed while scanning, so no term is ever interned or turned into a Python string:

* :func:`direct_hash` adds per-class bucket counts of documents into running totals
  (``nbayes.text.hash_into``, streaming ``TextClassifier(hashing=True)``);
* :func:`direct_hash_transform` makes FeatureHasher's document x bucket rows
  (``HashingVectorizer``, hashed prediction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import nbayes._native as _native

from .chars import read
from .lookup import build_lookup
from .threads import Team, hand_off

__all__ = ["NGRAMS", "direct_hash", "direct_hash_transform"]

_LO32 = np.uint64(0xFFFFFFFF)

#: False leaves hashed word n-grams to the token streams (the route before the kernels
#: hashed them: :mod:`nbayes.text._drivers.hash_counts`), unigrams still hashed here; the
#: tests and benchmarks flip it to compare the two.
NGRAMS = True


def _takes(ngram: tuple[int, int]) -> bool:
    """Whether the kernels here hash the n-grams of ``ngram`` (a valid range)."""
    return NGRAMS or tuple(ngram) == (1, 1)


def _stop_table(stop: frozenset[Any] | None, ident: np.ndarray) -> Any:
    """Exact lookup table of the stop words, or None when there are none (no stop word
    can equal a token). ``ident``: the identity character table."""
    words = [w for w in (stop or ()) if isinstance(w, str)]
    if not words:
        return None
    table = build_lookup(words, np.arange(len(words), dtype=np.int64), ident)
    return table if _native.lookup_size(table)[0] else None


def direct_hash(
    docs: Sequence[str],
    rows: np.ndarray,
    lowercase: bool,
    binary: bool,
    n_features: int,
    fc: np.ndarray,
    df: np.ndarray,
    stop: frozenset[Any] | None = None,
    ngram: tuple[int, int] = (1, 1),
) -> bool:
    """Add scikit-learn's hashed counts (``alternate_sign=False``, ``norm=None``) of the
    word n-grams of ``docs`` (``ngram``: a valid range) into row ``rows[i]`` of ``fc`` and
    into ``df``, in place, without interning a single term: memory is that of the arrays
    given (plus one word per column; a copy of ``fc`` if its rows are not contiguous).
    False (nothing added) when the zero-copy reader cannot be used, or ``fc`` is not
    float64."""
    if not _takes(ngram) or fc.dtype != np.float64 or fc.ndim != 2:
        return False
    reading = read(docs, lowercase)
    if reading is None:
        return False
    ds, _, tlow, tid = reading
    stab = _stop_table(stop, tid)
    aux = np.zeros(int(n_features), dtype=np.uint64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    rows_contiguous = fc.strides[1] == 8 and fc.strides[0] >= 0 and fc.strides[0] % 8 == 0
    into = fc if rows_contiguous and fc.flags.aligned else np.array(fc, order="C")
    _native.hash_run(ds, rows, tlow, tid, bool(binary), int(n_features), into, aux, stab,
                     int(ngram[0]), int(ngram[1]))  # fmt: skip
    if into is not fc:
        fc[...] = into
    df[: int(n_features)] += (aux & _LO32).astype(np.int64)
    return True


def direct_hash_transform(
    docs: Sequence[str],
    lowercase: bool,
    n_features: int,
    alternate_sign: bool,
    stop: frozenset[Any] | None = None,
    n_threads: int | None = None,
    ngram: tuple[int, int] = (1, 1),
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """FeatureHasher's CSR pieces of the word n-grams of ``docs`` (``ngram``: a valid
    range; summed signs, sorted indices) with the zero-copy reader, in threads; None if it
    cannot be used."""
    if not _takes(ngram):
        return None
    reading = read(docs, lowercase)
    if reading is None:
        return None
    ds, lengths, tlow, tid = reading
    stab = _stop_table(stop, tid)
    lo_n, hi_n = int(ngram[0]), int(ngram[1])

    def run(span: tuple[int, int]) -> Any:
        return _native.hash_transform_run(ds, span[0], span[1], tlow, tid, int(n_features),
                                          bool(alternate_sign), stab, lo_n, hi_n)  # fmt: skip

    def job(team: Team) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return team.rows(team.map(run, team.spans))

    return hand_off(job, lengths, n_threads)
