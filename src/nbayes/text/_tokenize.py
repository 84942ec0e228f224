# mypy: disallow-untyped-defs=False
"""Exact, fast bag-of-words counting on the compiled kernels of :mod:`nbayes._native`.

The kernels reproduce scikit-learn's default word analyzer, i.e. the token pattern
``(?u)\\b\\w\\w+\\b`` applied to ``doc.lower()`` (or ``doc``): a token is a maximal run of
two or more characters for which Python's ``re`` says ``\\w`` matches. The set of word
characters is sre's own definition (``Py_UNICODE_ISALNUM`` or ``_``, :func:`word_table`)
and lowercasing is ``str.lower`` itself (:func:`char_table`), so the compiled scanner
agrees with Python by construction.

Two routes, both exact (every hash hit is verified code point by code point):

* **Zero-copy** (unigram counting and scoring): the documents are read in place from
  CPython's own string storage through ``PyUnicode_KIND`` / ``PyUnicode_DATA`` (any string
  width, every supported Python version). Lowercasing is a code point table built from
  ``str.lower``, exact for every code point but U+0130 (which lowercases to two
  characters) and U+03A3 (whose lowercase depends on its context): documents holding
  either are lowercased by Python first. :func:`direct_count` counts per class in worker
  threads (each its own table; the sorted vocabularies are merged), and
  :func:`direct_transform` makes CSR rows over a fixed vocabulary.
* **Copying** (n-grams, CountVectorizer's analysis): :func:`encode_corpus` joins the
  documents with ``"\\n"`` (never a word character, never cased or case-ignorable, so
  neither tokens nor the final-sigma rule of ``str.lower`` can cross a document
  boundary), lowercases, and exposes the text as a ``uint8`` (ASCII) or ``uint32`` code
  point array; :class:`InternState` interns tokens (first-occurrence ids, stop words
  pre-seeded and dropped from the stream, as scikit-learn drops them before building
  n-grams), :func:`pair_ids` interns word pairs, and :func:`first_occurrence` /
  :func:`build_rows` / :func:`stream_class_sums` turn the streams into scikit-learn's
  column order, CSR rows, or per-class sums ``Y^T X``.

The kernels release the GIL while they run; long calls stop with ``KeyboardInterrupt``
on Ctrl-C (worker threads are told through :func:`nbayes._native.cancel`).
"""

from __future__ import annotations

import itertools
import os
import re
import signal
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

import numpy as np

import nbayes._native as _native

__all__ = [
    "FrozenVocabulary",
    "Terms",
    "TermColumns",
    "DirectCounts",
    "direct_count",
    "direct_transform",
    "word_table",
    "char_table",
    "encode_corpus",
    "intern_tokens",
    "pair_ids",
    "first_occurrence",
    "build_rows",
    "class_sums",
    "stream_class_sums",
    "ngram_blob",
    "ngram_order",
    "sort_terms",
    "prefix_keys",
    "InternState",
]

_MAX_CP = 0x110000
_WORD_TABLE: np.ndarray | None = None

#: False forces the copying path everywhere (the zero-copy entry points return None);
#: the tests flip it to check that both routes agree.
ZERO_COPY = True


def word_table() -> np.ndarray:
    """Lookup table ``t[cp] == 1`` iff ``re.match(r"\\w", chr(cp))`` (str pattern).

    sre's definition of a word character, ``Py_UNICODE_ISALNUM(cp) or cp == "_"``, read
    from the running Python (so it follows its Unicode version).

    Returns
    -------
    table : ndarray of shape (0x110000,), dtype uint8
    """
    global _WORD_TABLE
    if _WORD_TABLE is None:
        _WORD_TABLE = _native.word_table()
    return _WORD_TABLE


_TABLES: dict[bool, np.ndarray] = {}


def char_table(lowercase: bool) -> np.ndarray:
    """``t[cp]`` = (lowercased) code point | (1 << 31 if it is a word character).

    With ``lowercase``, the code point is ``chr(cp).lower()`` and the word flag is that of
    the lowercased character (scikit-learn tokenizes ``doc.lower()``); U+0130 and U+03A3
    map to themselves: documents containing them are lowercased by Python first. Built
    by the extension from ``str.lower`` of every code point in one call (empty when this
    Python's Unicode maps another code point to several: the callers then fall back to
    ``str.lower``).
    """
    table = _TABLES.get(lowercase)
    if table is None:
        table = _TABLES[lowercase] = _native.char_table(bool(lowercase))
    return table


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
# the copying path: interning table, word pairs, rows and class sums
# --------------------------------------------------------------------------------------


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
        spans = np.ascontiguousarray(spans, dtype=np.int64)
        while True:
            status = _native.intern_run(
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
                _native.rehash(self.slots, self.thash, n)
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
# bigrams, rows and class sums
# --------------------------------------------------------------------------------------


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
    col, n = _native.first_occurrence(
        tok, ptr, ptok, pptr, int(n_uni), int(n_pair), bool(use_uni), bool(use_pair)
    )
    return col, int(n)


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
    return _native.build_rows(
        tok, ptr, ptok, pptr, int(n_uni), bool(use_uni), bool(use_pair), col, int(n_cols)
    )


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
    return _native.class_sums(
        indptr, indices, values, np.asarray(y, dtype=np.int64), int(n_classes), int(n_cols),
        bool(binary),
    )  # fmt: skip


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
    """Per-class sums ``Y^T X`` (of ``dtype``, int64 or float64) and document frequencies
    straight from the id streams (no per-document sort, no CSR)."""
    as_float = np.dtype(dtype) == np.float64
    if not as_float and np.dtype(dtype) != np.int64:
        raise ValueError(f"dtype must be int64 or float64, got {np.dtype(dtype)}.")
    return _native.stream_class_sums(
        tok, ptr, ptok, pptr, int(n_uni), bool(use_uni), bool(use_pair), col, int(n_cols),
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


# --------------------------------------------------------------------------------------
# threads
# --------------------------------------------------------------------------------------

_POOL: ThreadPoolExecutor | None = None
#: Below this many characters one thread is faster than two (thread start, merge).
PARALLEL_MIN_CHARS = 1 << 20


def default_threads() -> int:
    """Threads for the kernels: ``NBAYES_NUM_THREADS`` if set, else one per usable core."""
    env = os.environ.get("NBAYES_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


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


def _quiet_thread() -> None:
    """Kernel threads leave signals to the main thread (where Python handles them), so
    that Ctrl-C wakes the main thread's wait instead of a worker."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)


_SIGNALS = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGALRM", "SIGUSR1",
                                         "SIGUSR2") if hasattr(signal, n)}  # fmt: skip


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=max(2, default_threads()),
                                   thread_name_prefix="nbayes-kernel",
                                   initializer=_quiet_thread)  # fmt: skip
    return _POOL


def _join(futures: list[Any]) -> list[Any]:
    """The futures' results; on Ctrl-C (or any error) the running kernels are told to
    stop, every future is waited for, and the error is raised. The wait wakes up every
    0.1 s so that Python runs its signal handlers promptly."""
    try:
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=0.1, return_when=FIRST_EXCEPTION)
            if any(f.done() and f.exception() is not None for f in futures):
                break
        return [f.result() for f in futures]
    except BaseException:
        _native.cancel()
        for f in futures:
            f.cancel()
        for f in futures:
            try:
                f.result()
            except BaseException:  # noqa: S110 - the first error is the one raised
                pass
        raise
    finally:
        _native.reset_cancel()


def _map(fn: Any, items: list[Any]) -> list[Any]:
    """``[fn(i) for i in items]``, in the kernel threads when there is more than one."""
    if len(items) == 1:
        return [fn(items[0])]
    pool = _pool()
    return _join([pool.submit(fn, item) for item in items])


# --------------------------------------------------------------------------------------
# zero-copy unigram counting (the TextClassifier training path)
# --------------------------------------------------------------------------------------


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


def _docs(docs: Sequence[str], lowercase: bool) -> tuple[Any, np.ndarray] | None:
    """``(DocSet, lengths)`` for the zero-copy kernels (the DocSet keeps the strings
    alive), or None when the zero-copy path cannot be used."""
    if not ZERO_COPY or char_table(lowercase).shape[0] != _MAX_CP:
        return None
    return _native.doc_set(docs, bool(lowercase))


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

    ``docs`` must hold ``str`` objects. ``n_threads`` None: :func:`default_threads` for
    corpora of at least :data:`PARALLEL_MIN_CHARS` characters. ``dtype``: of the returned
    counts (int64, or float64 to skip a conversion later).
    """
    like = np.zeros(0, dtype=dtype)
    prep = _docs(docs, lowercase)
    if prep is None:
        return None
    ds, lengths = prep
    y = np.ascontiguousarray(y, dtype=np.int64)
    tlow = char_table(lowercase)
    tid = char_table(False)
    C = int(n_classes)

    # int32 counts halve the memory the counting touches; exact while no count can
    # reach 2**31 (a token has at least two characters).
    small = int(lengths.sum()) < 2**32

    spans = _chunks(lengths, n_threads, pieces=8)
    threads = default_threads() if n_threads is None else max(1, int(n_threads))
    n_workers = min(len(spans), threads)
    ticket = itertools.count()  # next() is atomic: workers take spans in turn

    def worker(_: int) -> Any:
        # Tables grow by doubling. Sizing one ahead from the first span (Heaps' law) was
        # tried: on a saturating vocabulary it over-reserves ~2x, and two workers' tables
        # then contend for the memory system (Zipf 100 MB: 0.56 s instead of 0.35 s).
        run = _native.run_new(C, small)
        while (i := next(ticket)) < len(spans):
            lo, hi = spans[i]
            _native.run_count(run, ds, lo, hi, y, tlow, tid, bool(binary))
        return _native.run_finish(run)

    runs = _map(worker, list(range(max(1, n_workers))))
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
            keys = _native.prefix_keys(pool, tstart, tlen)
            pkeys = keys[order]
            per = min(r[7] for r in runs)
    low = (1 << {8: 8, 4: 16, 3: 21}[int(per)]) - 1
    n_pieces = 1 if len(runs) == 1 else 2 * len(runs)
    cuts = _native.split_sorted(pool, tstart, tlen, keys, order, bounds, n_pieces)
    pieces = _map(
        lambda i: _native.merge_piece(pool, tstart, tlen, keys, order, cuts[i], cuts[i + 1],
                                      pkeys, plen, low),  # fmt: skip
        list(range(n_pieces)),
    )
    col0 = np.cumsum([0] + [p[0].shape[0] for p in pieces]).tolist()
    at = np.cumsum([0] + [p[1] for p in pieces]).tolist()
    blob = np.empty(at[-1], dtype=np.uint32)
    _map(lambda i: _native.fill_blob(pool, tstart, tlen, pieces[i][0], blob, at[i], 10),
         list(range(n_pieces)))
    # numpy's zeros: pages zeroed by the kernel as the fill threads touch them
    out = np.zeros((col0[-1], C), dtype=like.dtype)
    out_df = np.zeros(col0[-1], dtype=np.int64)

    def fill(i: int) -> None:
        _native.fill_counts(counts, df, pieces[i][0], C, out, out_df, col0[i])

    if n_pieces > 1:  # count matrix in parallel with the strings
        pending: Any = _Pending([_pool().submit(fill, i) for i in range(n_pieces)],
                                (out.T, out_df))
    else:
        fill(0)
        pending = (out.T, out_df)
    return DirectCounts(Terms(blob[:-1], col0[-1]), pending)


# --------------------------------------------------------------------------------------
# fixed vocabulary: documents -> CSR rows (the scoring path)


# --------------------------------------------------------------------------------------
# fixed vocabulary: documents -> CSR rows (the scoring path)
# --------------------------------------------------------------------------------------

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
        None when the zero-copy reader cannot take ``doc`` (U+0130 or U+03A3 to
        lowercase)."""
        t = char_table(lowercase)
        if not ZERO_COPY or t.shape[0] != _MAX_CP or not isinstance(doc, str):
            return None
        ok, cols, counts = _native.count_one(doc, t, bool(lowercase), self.table())
        return (cols, counts) if ok else None

    def table(self) -> Any:
        """The compiled lookup table (built from the code points once)."""
        if self._table is None:
            cols = np.arange(len(self.terms), dtype=np.int64)
            if self.kept is not None:
                cols = np.full(len(self.terms), -1, dtype=np.int64)
                cols[self.kept] = np.arange(len(self.kept), dtype=np.int64)
            self._table = _native.build_lookup_blob(self.terms.blob, cols, char_table(False))
        return self._table


def build_lookup(terms: Sequence[str], cols: np.ndarray) -> Any:
    """Exact lookup table of ``terms`` (a vocabulary): ``terms[i]`` maps to column
    ``cols[i]``. Strings that are not exactly one token are left out (no token can equal
    them)."""
    ds, _ = _native.doc_set(terms, False)
    return _native.build_lookup(ds, np.ascontiguousarray(cols, dtype=np.int64), char_table(False))


def _vocab_lookup(vocabulary: Any, stop: frozenset[Any] | None) -> Any:
    """The compiled lookup table of ``vocabulary`` (cached while the mapping is unchanged:
    identity, and for a plain dict equality with a snapshot, are checked on every call);
    None when a column is out of range."""
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
    ok = [isinstance(t, str) and not (stop and t in stop) for t in terms]  # no tuples: no GC
    if not all(ok):
        keep = np.flatnonzero(ok)
        terms = [terms[i] for i in keep.tolist()]
        cols = cols[keep]
    n_cols = len(vocabulary)
    if len(cols) and (cols.min() < 0 or cols.max() >= n_cols):
        return None
    table = build_lookup(terms, cols)
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
    prep = _docs(docs, lowercase)
    if prep is None:
        return None
    ds, lengths = prep
    table = _vocab_lookup(vocabulary, stop)
    if table is None:
        return None
    n_cols = len(vocabulary)
    tid = char_table(False)
    tlow = char_table(lowercase)
    track = first is not None

    def run(span: tuple[int, int]) -> Any:
        return _native.transform_run(ds, span[0], span[1], tlow, tid, table, n_cols, track)

    parts = _map(run, _chunks(lengths, n_threads))
    if first is not None:
        done = np.zeros(n_cols, dtype=bool)
        for part in parts:  # spans are consecutive: a column is new where first seen
            cols = part[3][~done[part[3]]]
            done[cols] = True
            first.append(cols)
    return _join_rows([p[:3] for p in parts])


def order_rows(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
               key: np.ndarray) -> None:
    """Sort every CSR row by ``key[column]`` (unique keys), in place, in threads."""
    key = np.ascontiguousarray(key, dtype=np.int64)
    _map(lambda s: _native.order_rows(indptr, indices, values, key, s[0], s[1]),
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
