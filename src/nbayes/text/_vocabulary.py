"""A text model's vocabulary: the term of every column, held outside Python objects.

:class:`PackedTerms` keeps terms as one array of UTF-8 bytes plus ``n + 1`` offsets (term
``i`` is ``bytes[offsets[i]:offsets[i + 1]]``), the form a model file stores them in:
~10 bytes a term where a list of ``str`` and a dict term -> column take ~150. Python
strings are made only when something asks for them (:meth:`PackedTerms.strings`, one
term by index); checking, ordering and the compiled lookup table work on the bytes
(``src/native/packed.hpp``).

:class:`Vocabulary` is what a text model's statistics name their columns with: the terms
in one of their forms (a fit's compiled ``Terms``, :class:`PackedTerms`, a list) and
term -> column, each made from the other on first use.

"UTF-8" here is Python's ``"utf-8"`` codec with ``"surrogatepass"``: a term holding a
lone surrogate (a Python ``str`` can) is stored, and read back, exactly.

numpy only at import: the kernels (``nbayes._native``) are loaded when a packed
vocabulary is first checked, ordered or looked up.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._narrow import smallest

__all__ = ["PackedTerms", "Vocabulary", "packed_problem"]

_ENCODING = "surrogatepass"


def _native() -> Any:
    import nbayes._native as native

    return native


def _decode(buf: Any) -> str:
    return codecs.utf_8_decode(buf, _ENCODING, True)[0]


class PackedTerms(Sequence[str]):
    """Terms as UTF-8 bytes (``data``, uint8) and offsets (``offsets``, int64, n + 1).

    A read-only sequence of ``str``: ``len`` and a term by index need no list; iterating
    (or :meth:`strings`) decodes every term once and keeps the list. Compares equal to
    another sequence of the same strings. ``sorted`` says whether the terms are strictly
    increasing (in ``str`` order, which is the bytes' order): then column order is term
    order, and the vocabulary selection needs no sort. Strings are looked up in the terms
    by :meth:`find_all` (a batch's n-grams: the compiled exact index of the bytes, made
    once, :meth:`hash_index`) or :meth:`find` (one). Pickles as its two arrays.
    """

    __slots__ = ("data", "offsets", "_sorted", "_strings", "_reads", "_hash_index")

    def __init__(self, data: np.ndarray, offsets: np.ndarray, sorted: bool | None = None) -> None:
        self.data = data
        self.offsets = offsets
        self._sorted = sorted
        self._strings: list[str] | None = None
        self._reads = 0  # terms decoded one by one (many: decode them all at once)
        self._hash_index: Any = None  # the compiled PackedIndex, made on first use

    # ------------------------------------------------------------------ making
    @classmethod
    def from_strings(cls, terms: Sequence[str], sorted: bool | None = None) -> PackedTerms:
        """The packing of ``terms`` (a list of str)."""
        terms = list(terms)
        data = np.frombuffer("".join(terms).encode("utf-8", _ENCODING), dtype=np.uint8)
        # byte offset of each term: the byte where its first code point starts
        starts = np.flatnonzero((data & 0xC0) != 0x80)
        ends = np.append(starts, data.shape[0]).astype(np.int64)
        cp = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, terms), np.int64, len(terms)), out=cp[1:])
        out = cls(data, ends[cp], sorted)
        out._strings = terms
        return out

    @classmethod
    def from_code_points(cls, blob: np.ndarray, n: int) -> PackedTerms:
        """The packing of a fit's sorted terms, kept as code points joined by ``"\\n"``
        (:class:`~nbayes.text._drivers.zero_copy.Terms`): one decode of the whole blob, no str per
        term."""
        if n == 0:
            return cls(np.empty(0, np.uint8), np.zeros(1, np.int64), True)
        if blob.shape[0] and int(blob.max()) < 256:
            text = blob.astype(np.uint8).tobytes().decode("latin-1")
        else:
            text = blob.tobytes().decode("utf-32-le", _ENCODING)
        raw = np.frombuffer(text.encode("utf-8", _ENCODING), dtype=np.uint8)
        breaks = np.flatnonzero(raw == 10)
        if len(breaks) != n - 1:  # pragma: no cover (a fit's terms never hold "\n")
            return cls.from_strings(text.split("\n"), True)
        offsets = np.empty(n + 1, dtype=np.int64)
        offsets[0] = 0
        offsets[1:-1] = breaks - np.arange(n - 1)
        data = raw[raw != 10]
        offsets[-1] = data.shape[0]
        return cls(data, offsets, True)

    @classmethod
    def checked(cls, data: np.ndarray, offsets: np.ndarray) -> PackedTerms:
        """The packing ``data`` + ``offsets`` read from a file, after
        :func:`packed_problem` found nothing wrong with it (ValueError otherwise)."""
        problem, is_sorted = packed_problem(data, offsets)
        if problem:
            raise ValueError(problem)
        return cls(data, offsets, is_sorted)

    # ------------------------------------------------------------- as strings
    def strings(self) -> list[str]:
        """Every term as a str, decoded once (compiled: one decode per term)."""
        if self._strings is None:
            self._strings = _native().packed_strings(self.data, self.offsets)
        return self._strings

    def __len__(self) -> int:
        return int(self.offsets.shape[0]) - 1

    def __getitem__(self, i: Any) -> Any:
        if self._strings is not None:
            return self._strings[i]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        j = int(i) + n if int(i) < 0 else int(i)
        if not 0 <= j < n:
            raise IndexError(f"term {i} of {n}")
        self._reads += 1
        if self._reads > max(1024, n // 8):  # a loop over the terms (forgetting unused ones)
            return self.strings()[j]
        return _decode(self.data[int(self.offsets[j]) : int(self.offsets[j + 1])])

    def __iter__(self) -> Any:
        return iter(self.strings())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedTerms):
            return np.array_equal(self.offsets, other.offsets) and np.array_equal(
                self.data, other.data
            )
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == len(self) and self.strings() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PackedTerms({len(self)} terms, {self.data.shape[0]} bytes)"

    def __reduce__(self) -> Any:
        return (PackedTerms, (self.data, self.offsets, self._sorted))

    # -------------------------------------------------------------- compiled
    @property
    def sorted(self) -> bool:
        """Whether the terms are strictly increasing (checked once, on the bytes)."""
        if self._sorted is None:
            self._sorted = bool(_native().packed_check(self.data, self.offsets)[3])
        return self._sorted

    def order(self, cols: np.ndarray) -> np.ndarray:
        """``cols`` sorted by their terms (stable; no str made)."""
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        if self.sorted:
            return np.sort(cols, kind="stable")
        out: np.ndarray = _native().packed_sort(self.data, self.offsets, cols)
        return out

    def take(self, cols: np.ndarray, in_order: bool = False) -> PackedTerms:
        """The terms of ``cols``, in that order, packed anew (compiled: one copy of their
        bytes). ``in_order``: the caller knows ``cols`` are distinct terms in increasing
        term order, so the result is sorted without a check."""
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        data, offsets = _native().packed_take(self.data, self.offsets, cols)
        is_sorted = True if in_order else None
        if is_sorted is None and self._sorted and bool((np.diff(cols) > 0).all()):
            is_sorted = True
        return PackedTerms(data, offsets, is_sorted)

    def hash_index(self) -> Any:
        """The compiled exact index of the terms (``nbayes._native.PackedIndex``), made on
        first use and kept: a hash table of term numbers over the bytes, which stay where
        they are (12-24 bytes a term; the terms as ``str`` and a dict of them take ~130).
        Made in ~0.04 us a term (0.19 s for 5.2 million), without a str."""
        if self._hash_index is None:
            self._hash_index = _native().packed_index(self.data, self.offsets)
        return self._hash_index

    def hash_index_if_made(self) -> Any:
        """The compiled index if :meth:`hash_index` made it, else None."""
        return self._hash_index

    def find_all(self, strings: Sequence[str], search: bool = False) -> np.ndarray:
        """The index of each of ``strings`` among the terms (int64, -1 where a string is
        none of them), in one compiled call: through :meth:`hash_index`, or with
        ``search`` and no index made yet, by binary searches of the bytes of
        :attr:`sorted` terms (a few strings: no index to make). Exactly ``str``
        equality: each string is compared as its UTF-8 (``"surrogatepass"``, as the
        terms were written)."""
        if search and self._hash_index is None:
            if not self.sorted:
                raise ValueError("binary searches need sorted terms")
            index = None
        else:
            index = self.hash_index()
        out: np.ndarray = _native().packed_find(index, self.data, self.offsets, strings)
        return out

    def find(self, term: str) -> int:
        """The index of ``term`` among :attr:`sorted` terms (-1 if absent), by binary
        search on the bytes: no str made, ~20 comparisons for a million terms (UTF-8
        byte order is code point order, Python's str order); through the compiled index
        instead once :meth:`hash_index` has made it (then the terms need not be sorted)."""
        if self._hash_index is not None:
            return int(self.find_all([term])[0])
        key = term.encode("utf-8", "surrogatepass")
        data, offsets = self.data.data, self.offsets  # a memoryview: slices without numpy
        lo, hi = 0, len(self)
        while lo < hi:
            mid = (lo + hi) // 2
            got = bytes(data[int(offsets[mid]) : int(offsets[mid + 1])])
            if got < key:
                lo = mid + 1
            elif got > key:
                hi = mid
            else:
                return mid
        return -1

    def lookup(self, cols: np.ndarray, tid: np.ndarray) -> Any:
        """The compiled lookup table (term ``i`` -> ``cols[i]``, out when < 0), built
        straight from the bytes."""
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        return _native().build_lookup_packed(self.data, self.offsets, cols, tid)


def packed_problem(data: np.ndarray, offsets: np.ndarray) -> tuple[str | None, bool]:
    """What is wrong with a packed vocabulary read from a file (None: nothing), and
    whether its terms are sorted: the offsets must start at 0, never decrease and end at
    the number of bytes; every term must be UTF-8 (see the module docstring); no term may
    repeat."""
    if data.dtype != np.uint8 or data.ndim != 1 or offsets.dtype != np.int64 or offsets.ndim != 1:
        return "the vocabulary must be 1-D uint8 bytes and 1-D int64 offsets", False
    if offsets.shape[0] == 0:
        return "the vocabulary's offsets are empty (a vocabulary of n terms has n + 1)", False
    status, at, other, is_sorted = _native().packed_check(data, offsets)
    if status == 1:
        prev = int(offsets[at - 1]) if at > 0 else 0
        return (
            f"the vocabulary's offsets are not a packing of its {data.shape[0]} bytes "
            f"(offsets[{at}] = {int(offsets[at])}, after {prev}): they start at 0, never "
            "decrease and end at the number of bytes",
            False,
        )
    if status == 2:
        raw = bytes(data[int(offsets[at]) : int(offsets[at + 1])][:40])
        return f"term {at} of the vocabulary is not valid UTF-8 ({raw!r})", False
    if status == 3:
        term = _decode(data[int(offsets[at]) : int(offsets[at + 1])])
        return (
            f"the vocabulary holds duplicate terms: term {at} repeats term {other} ({term[:60]!r})",
            False,
        )
    return None, bool(is_sorted)


def _is_code_points(terms: Any) -> bool:
    """Whether ``terms`` are a fit's :class:`~nbayes.text._drivers.zero_copy.Terms` (checked
    without importing the kernels)."""
    direct = sys.modules.get("nbayes.text._drivers.zero_copy")
    return direct is not None and isinstance(terms, direct.Terms)


class Vocabulary:
    """The term of every column of a text model, in column order, and term -> column.

    Kept in the form the counting or the file gave (a fit's sorted terms, possibly the
    compiled :class:`~nbayes.text._tokenize.Terms`, a :class:`PackedTerms` read from a
    model file or a pickle, a list, or a dict); the other form is made on first use.
    Never changed once made: a batch that finds new terms counts into a copy
    (:meth:`extending`), whose ``base`` says which vocabulary its first columns are.
    """

    __slots__ = ("_terms", "_index", "base")

    def __init__(
        self,
        terms: Sequence[str] | None = None,
        index: dict[str, int] | None = None,
        base: Vocabulary | None = None,
    ) -> None:
        self._terms = terms
        self._index = index
        self.base = base

    @classmethod
    def of(cls, vocabulary: Mapping[str, int] | Sequence[str] | None) -> Vocabulary | None:
        """A dict term -> column, or the terms in column order (None: hash buckets)."""
        if vocabulary is None or isinstance(vocabulary, Vocabulary):
            return vocabulary
        if isinstance(vocabulary, dict):
            return cls(index=vocabulary)
        return cls(terms=vocabulary)  # type: ignore[arg-type]

    @classmethod
    def extending(cls, base: Vocabulary) -> tuple[Vocabulary, dict[str, int]]:
        """A new vocabulary whose first columns are those of ``base``, and its dict, to
        be extended in place by the counting of a batch."""
        index = dict(base.index)
        return cls(index=index, base=base), index

    def __len__(self) -> int:
        return len(self._index) if self._index is not None else len(self._terms or ())

    @property
    def terms(self) -> Sequence[str]:
        """The terms in column order (a fit's ``Terms``, or the packed terms of a file,
        as they are)."""
        if self._terms is None:
            self._terms = list(self._index or ())
        return self._terms

    @property
    def index(self) -> dict[str, int]:
        """Term -> column, made from the terms on first use (a model that only predicts
        never needs it)."""
        if self._index is None:
            terms = self._terms or ()
            self._index = dict(zip(terms, range(len(terms)), strict=True))
        return self._index

    def index_if_made(self) -> dict[str, int] | None:
        """Term -> column if it has been made (a fit's counting makes it), else None."""
        return self._index

    def packed(self) -> PackedTerms:
        """The terms as :class:`PackedTerms` (what a model file and a pickle hold): as
        they are when packed, from the code points of a fit's terms, else from strings."""
        terms: Any = self._terms
        if isinstance(terms, PackedTerms):
            return terms
        if _is_code_points(terms):
            return PackedTerms.from_code_points(terms.blob, len(terms))
        return PackedTerms.from_strings(list(self.terms))

    def detached(self) -> Vocabulary:
        """The same terms, forgetting ``base`` (so a model does not keep the chain of
        the vocabularies it grew from)."""
        if self.base is None:
            return self
        return Vocabulary(self._terms, self._index)

    def united(self, other: Vocabulary) -> tuple[Vocabulary, np.ndarray]:
        """The union of both vocabularies, these terms first and ``other``'s new ones after
        them, and the column of each of ``other``'s terms (two sorted vocabularies, what
        fits give, unite in sorted order instead: see :meth:`TextStats.merge`)."""
        index = dict(self.index)
        their_terms = list(other.terms)
        for term in their_terms:
            if term not in index:
                index[term] = len(index)
        cols = np.fromiter((index[t] for t in their_terms), np.int64, len(their_terms))
        return Vocabulary(index=index), cols

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vocabulary):
            return NotImplemented
        if self is other:
            return True
        a, b = self._terms, other._terms
        if isinstance(a, PackedTerms) and isinstance(b, PackedTerms):
            return a == b
        return len(self) == len(other) and list(self.terms) == list(other.terms)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Vocabulary({len(self)} terms)"

    # Pickles (Dask ships partition models) carry the packed terms: the bytes and each
    # term's length in bytes (uint8 for terms under 256 bytes: 1 byte a term, not the 8
    # of an offset), no str per term to write or to make again.
    def __getstate__(self) -> dict[str, Any]:
        packed = self.packed()
        lengths = smallest(np.diff(packed.offsets))
        return {"bytes": packed.data, "lengths": lengths, "sorted": packed._sorted}

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, dict):
            lengths = state["lengths"]
            offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            self._terms = PackedTerms(state["bytes"], offsets, state.get("sorted"))
            self._index = None
        else:  # pickles of earlier releases: (terms, index)
            self._terms, self._index = state
        self.base = None
