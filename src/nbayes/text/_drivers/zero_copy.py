"""Zero-copy unigram counting (the TextClassifier training path): per-class counts in
worker threads, each its own table, whose sorted vocabularies are merged into one
(:func:`direct_count`); the vocabulary kept as code points (:class:`Terms`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import nbayes._native as _native
from nbayes.text._drivers.chars import read
from nbayes.text._drivers.threads import Team, hand_off

__all__ = ["DirectCounts", "Terms", "direct_count"]


class DirectCounts:
    """Exact unigram statistics of a corpus: ``terms`` sorted (Python ``str`` order),
    ``counts`` of shape ``(n_classes, len(terms))`` int64, ``df`` (documents per term) and
    ``tf`` (each term's total count over the classes, float64).

    ``counts`` and ``df`` may still be computed by a worker thread while the caller
    builds its vocabulary from ``terms``; reading them waits for the result.
    """

    __slots__ = ("terms", "_pending", "_result")

    def __init__(self, terms: Terms, pending: Any) -> None:
        self.terms = terms
        self._pending = pending
        self._result: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _get(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._result is None:
            p = self._pending
            self._result = p.result() if hasattr(p, "result") else p
            self._pending = None
        return self._result

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(counts, df, tf)`` at once (waits for them)."""
        return self._get()

    @property
    def counts(self) -> np.ndarray:
        return self._get()[0]

    @property
    def df(self) -> np.ndarray:
        return self._get()[1]

    @property
    def tf(self) -> np.ndarray:
        return self._get()[2]


#: terms decoded and split per step (~5 ms): Python looks at Ctrl-C only between C calls,
#: and one split of a bigram fit's ~3 million terms took 0.2 s
_DECODE_STEP = 1 << 16


def _decode_terms(blob: np.ndarray) -> list[str]:
    """The newline-separated terms of ``blob`` (code points), in steps of
    ``_DECODE_STEP`` terms."""
    if blob.shape[0] == 0:
        return []
    narrow = int(blob.max()) < 256
    ends = np.flatnonzero(blob == 10)[_DECODE_STEP - 1 :: _DECODE_STEP].tolist()
    terms: list[str] = []
    for lo, hi in zip([0, *(e + 1 for e in ends)], [*ends, blob.shape[0]], strict=True):
        piece = blob[lo:hi]
        if narrow:
            text = piece.astype(np.uint8).tobytes().decode("latin-1")
        else:
            text = piece.tobytes().decode("utf-32-le", "surrogatepass")
        terms.extend(text.split("\n"))
    return terms


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


def direct_count(
    docs: Sequence[str],
    y: np.ndarray,
    n_classes: int,
    lowercase: bool,
    binary: bool,
    n_threads: int | None = None,
    dtype: Any = np.int64,
    *,
    raw: bool = False,
    then: Callable[[Any], Any] | None = None,
) -> Any:
    """Unigram class counts with the zero-copy reader; None if it cannot be used.

    ``docs`` must hold ``str`` objects. ``n_threads`` None: :func:`default_threads` for
    corpora of at least :data:`PARALLEL_MIN_CHARS` characters. ``dtype``: of the returned
    counts (int64, or float64 to skip a conversion later). ``raw``: the raw term totals
    too (a Bernoulli model's frequencies, whatever ``binary``), counted by the same
    workers in the same hand-off: a pair ``(DirectCounts, totals)``, the
    totals a one-class :class:`DirectCounts`. ``then``: the next step of the batch, given
    the result (what this returns then); it runs inside the hand-off to the threads.
    """
    like = np.zeros(0, dtype=dtype)
    reading = read(docs, lowercase)
    if reading is None:
        return None
    ds, lengths, tlow, tid = reading
    y = np.ascontiguousarray(y, dtype=np.int64)
    zeros = np.zeros(len(y), dtype=np.int64) if raw else y
    C = int(n_classes)

    # int32 counts halve the memory the counting touches; exact while no count can
    # reach 2**31 (a token has at least two characters).
    small = int(lengths.sum()) < 2**32

    def job(team: Team) -> Any:
        spans, n_workers = team.spans, team.workers

        # Tables start at one term per 128 characters of a worker's share, at most 2**17
        # (fewer doublings), and grow by doubling. Under-reserving costs a re-insertion
        # of every term and a second table; over-reserving only the zeroing of unused
        # slots: 20 Newsgroups' workers end with one term per ~134 characters (82k terms
        # each; one per 256, at most 2**16, made each of them double once, and the 100 MB
        # Zipf corpus's (~200k terms each) twice). Sizing them ahead from the first span
        # (Heaps' law) was tried: on a saturating vocabulary it over-reserves ~2x, and two
        # workers' tables then contend for the memory system (Zipf 100 MB: 0.56 s, not
        # 0.35 s).
        expect = min(int(lengths.sum()) // n_workers // 128, 1 << 17)

        def count(codes: np.ndarray, n: int, clip: bool) -> list[Any]:
            ticket = itertools.count()  # next() is atomic: workers take spans in turn

            def worker(_: int) -> Any:
                run = _native.run_new(n, small, expect)
                while (i := next(ticket)) < len(spans):
                    lo, hi = spans[i]
                    _native.run_count(run, ds, lo, hi, codes, tlow, tid, clip)
                return _native.run_finish(run)

            return team.map(worker, list(range(n_workers)))

        got: Any = _union(team, count(y, C, bool(binary)), C, like)
        if raw:  # the raw totals: a second pass of the same workers (one table each at a
            # time: two tables per worker contend for the caches)
            got = (got, _union(team, count(zeros, 1, False), 1, like))
        return got if then is None else then(got)

    return hand_off(job, lengths, n_threads, pieces=8)


class _Pending:
    """Futures of the pieces of one result, joined on :meth:`result`."""

    def __init__(self, futures: list[Any], value: Any) -> None:
        self._futures = futures
        self._value = value

    def result(self) -> Any:
        for f in self._futures:
            f.result()
        return self._value


def _union(team: Team, runs: list[Any], n_classes: int, like: np.ndarray) -> DirectCounts:
    """Merge the sorted runs of the workers into one sorted vocabulary with its counts.

    The term range is cut into pieces (pivots from run 0) that are merged in parallel;
    the term strings are decoded while the count matrix is filled in the background.
    """
    C = n_classes
    if len(runs) == 1:
        pool, tstart, tlen, _, _, order, keys, per, pkeys, plen = runs[0]
        bounds = np.array([0, len(order)], dtype=np.int64)
    else:
        pool_off = np.cumsum([0] + [len(r[0]) for r in runs[:-1]])
        id_off = np.cumsum([0] + [len(r[1]) for r in runs[:-1]])
        pool = np.concatenate([r[0] for r in runs])
        tstart = np.concatenate([r[1] + o for r, o in zip(runs, pool_off, strict=True)])
        tlen = np.concatenate([r[2] for r in runs])
        order = np.concatenate([r[5] + o for r, o in zip(runs, id_off, strict=True)])
        bounds = np.cumsum([0] + [len(r[1]) for r in runs]).astype(np.int64)
        plen = np.concatenate([r[9] for r in runs])
        per = runs[0][7]
        if len({r[7] for r in runs}) == 1:  # the sorts' keys are comparable
            keys = np.concatenate([r[6] for r in runs])
            pkeys = np.concatenate([r[8] for r in runs])
        else:
            keys = _native.prefix_keys(pool, tstart, tlen)
            pkeys = keys[order]
            per = min(r[7] for r in runs)
    low = (1 << {8: 8, 4: 16, 3: 21}[int(per)]) - 1
    n_pieces = 1 if len(runs) == 1 else 2 * len(runs)
    cuts = _native.split_sorted(pool, tstart, tlen, keys, order, bounds, n_pieces)
    pieces = team.map(
        lambda i: _native.merge_piece(
            pool, tstart, tlen, keys, order, cuts[i], cuts[i + 1], pkeys, plen, low
        ),  # fmt: skip
        list(range(n_pieces)),
    )
    col0 = np.cumsum([0] + [p[0].shape[0] for p in pieces]).tolist()
    at = np.cumsum([0] + [p[1] for p in pieces]).tolist()
    blob = np.empty(at[-1], dtype=np.uint32)
    team.map(
        lambda i: _native.fill_blob(pool, tstart, tlen, pieces[i][0], blob, at[i], 10),
        list(range(n_pieces)),
    )
    # every row is written by fill_counts (no zeroing pass, no read before the write)
    out = np.empty((col0[-1], C), dtype=like.dtype)
    out_df = np.empty(col0[-1], dtype=np.int64)
    out_tf = np.empty(col0[-1], dtype=np.float64)

    counts = tuple(r[3] for r in runs)  # read in place, run by run (no concatenated copy)
    df = tuple(r[4] for r in runs)

    def fill(i: int) -> None:
        _native.fill_counts(counts, df, pieces[i][0], C, out, out_df, col0[i], out_tf)

    if n_pieces > 1:  # count matrix in parallel with the strings
        result = (out.T, out_df, out_tf)
        pending: Any = _Pending([team.submit(fill, i) for i in range(n_pieces)], result)
    else:
        fill(0)
        pending = (out.T, out_df, out_tf)
    return DirectCounts(Terms(blob[:-1], col0[-1]), pending)
