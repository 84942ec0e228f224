"""A fixed vocabulary on the compiled path (the scoring path): term -> column mappings the
lookup table is built from (:class:`FrozenVocabulary`, :class:`TermColumns`), the cached
lookup tables, and documents -> CSR rows (:func:`direct_transform`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from typing import Any

import numpy as np

import nbayes._native as _native
from nbayes.text._drivers import chars as _chars
from nbayes.text._drivers.chars import char_table, read
from nbayes.text._drivers.threads import Team, hand_off
from nbayes.text._drivers.zero_copy import Terms
from nbayes.text._vocabulary import PackedTerms

__all__ = [
    "FrozenVocabulary", "TermColumns", "build_lookup", "direct_transform", "order_rows",
    "term_columns",
]  # fmt: skip

#: The last two lookup tables built for plain mappings: (mapping, stop, snapshot, table).
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
    """Read-only term -> column mapping over compiled terms: a fit's sorted
    :class:`Terms` (code points) or the :class:`PackedTerms` of a model file (UTF-8
    bytes); column ``j`` is term ``kept[j]`` (every term, in order, when ``kept`` is None).

    Batch scoring looks terms up in a compiled table built straight from the code points
    or the bytes; the ``str`` keys and the dict are made only when something asks for
    them. Over packed terms (a model file's, each its own column), strings are looked up
    without them: a batch's n-grams in one compiled call (:meth:`columns`), a few terms
    (one document's n-grams) by binary searches on the sorted bytes, and once the searches
    would have cost as much (about one per 32 terms) through the exact index of the
    bytes that the terms then make once (:meth:`PackedTerms.hash_index`, ~12-24 bytes a
    term against ~130 for the dict and its strings). Pickles as a
    :class:`FrozenVocabulary`.
    """

    __slots__ = ("terms", "kept", "_dict", "_tables", "_searches", "_spaced")

    def __init__(self, terms: Terms | PackedTerms, kept: np.ndarray | None = None) -> None:
        self.terms = terms
        self.kept = kept
        self._dict: FrozenVocabulary | None = None
        self._tables: dict[frozenset[Any] | None, Any] = {}
        self._searches = 0
        self._spaced: bool | None = None

    def mapping(self) -> FrozenVocabulary:
        """The mapping as a (read-only) dict, made once."""
        if self._dict is None:
            names = self.terms.strings()
            if self.kept is not None:
                names = [names[j] for j in self.kept.tolist()]
            self._dict = FrozenVocabulary(zip(names, range(len(names)), strict=True))
        return self._dict

    def _packed(self) -> PackedTerms | None:
        """The packed terms, when strings are looked up in them (each term its own
        column, and the dict not made: once made, it answers)."""
        terms = self.terms
        if self._dict is None and self.kept is None and isinstance(terms, PackedTerms):
            return terms
        return None

    def _may_search(self, packed: PackedTerms, n: int) -> bool:
        """Whether ``n`` more strings are looked up by binary searches (sorted terms, no
        index made, and the searches so far and these within one per 32 terms: beyond,
        the index costs less than the searches); counts them."""
        if packed.hash_index_if_made() is not None or not packed.sorted:
            return False
        if self._searches + n > 64 + len(packed) // 32:
            return False
        self._searches += n
        return True

    def columns(self, strings: Sequence[str]) -> np.ndarray:
        """``self.get(s, -1)`` of every string of ``strings`` (str only), as int64: over
        packed terms one compiled call (binary searches for a few strings, else the
        exact index), else the dict's ``get`` of each (no Python frame per string)."""
        packed = self._packed()
        if packed is not None:
            return packed.find_all(strings, search=self._may_search(packed, len(strings)))
        return _dict_columns(self.mapping(), strings)

    def _search(self, term: object) -> int | None:
        """The column of ``term`` in the packed terms (-1: absent), or None when the
        dict is to answer (made, or the terms not packed ones, or ``term`` not a str)."""
        packed = self._packed()
        if packed is None or not isinstance(term, str):
            return None
        if self._may_search(packed, 1):
            return packed.find(term)
        return int(packed.find_all([term])[0])

    def __getitem__(self, term: str) -> int:
        j = self._search(term)
        if j is None:
            return self.mapping()[term]
        if j < 0:
            raise KeyError(term)
        return j

    def get(self, term: str, default: Any = None) -> Any:
        j = self._search(term)
        if j is None:
            return self.mapping().get(term, default)
        return default if j < 0 else j

    def __contains__(self, term: object) -> bool:
        j = self._search(term)
        return term in self.mapping() if j is None else j >= 0

    def one_lookups(self) -> Mapping[str, int]:
        """What one document's terms are looked up in: the dict once made, before that
        this mapping when its terms are packed ones (no dict for a few documents, nor
        for many), else the dict."""
        if self._packed() is not None:
            return self
        return self.mapping()

    def any_spaced(self) -> bool:
        """Whether a term may hold a space (a word n-gram), read from the bytes or code
        points once, no str made: False only when none does."""
        if self._spaced is None:
            terms = self.terms
            raw = terms.data if isinstance(terms, PackedTerms) else terms.blob
            self._spaced = bool((raw == ord(" ")).any())
        return self._spaced

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

    def count_one(
        self, doc: str, lowercase: bool, stop: frozenset[Any] | None = None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """``transform_one(doc, self, lowercase=..., stop_words=stop)`` (unigrams) through
        the compiled table, so one document needs neither the ``str`` keys nor the dict;
        None when the zero-copy reader cannot take ``doc`` (U+0130 or U+03A3 to
        lowercase)."""
        return self._count_one(doc, lowercase, self.table(stop))

    @staticmethod
    def _count_one(doc: str, lowercase: bool, table: Any) -> tuple[np.ndarray, np.ndarray] | None:
        t = char_table(lowercase)
        if not _chars.ZERO_COPY or t.shape[0] != _chars._MAX_CP or not isinstance(doc, str):
            return None
        ok, cols, counts = _native.count_one(doc, t, bool(lowercase), table)
        return (cols, counts) if ok else None

    def _columns(self) -> np.ndarray:
        """The model column of every term (-1: not kept)."""
        cols = np.arange(len(self.terms), dtype=np.int64)
        if self.kept is not None:
            cols = np.full(len(self.terms), -1, dtype=np.int64)
            cols[self.kept] = np.arange(len(self.kept), dtype=np.int64)
        return cols

    def table(self, stop: frozenset[Any] | None = None) -> Any:
        """The compiled lookup table (built from the code points or bytes once per set
        of stop words: a stop word among the terms is left out, as the dict path
        leaves it out, found through the table itself, without a str per term)."""
        key = stop or None
        if key in self._tables:
            return self._tables[key]
        cols = self._columns()
        if key is not None:
            plain = self.table()
            for word in key:
                if not isinstance(word, str):
                    continue
                got = self._count_one(word, False, plain)
                if got is None or len(got[0]) != 1:
                    continue
                col = int(got[0][0])
                j = col if self.kept is None else int(self.kept[col])
                if self.terms[j] == word:  # the stop word is this term, not a part of it
                    cols[j] = -1
        if isinstance(self.terms, PackedTerms):
            table = self.terms.lookup(cols, char_table(False))
        else:
            table = _native.build_lookup_blob(self.terms.blob, cols, char_table(False))
        self._tables[key] = table
        return table


def _dict_columns(vocabulary: Mapping[str, int], strings: Sequence[str]) -> np.ndarray:
    """``vocabulary.get(s, -1)`` of every string, as int64 (``map`` over the mapping's
    ``get``: no Python frame per string for a dict)."""
    get = vocabulary.get
    return np.fromiter(map(get, strings, repeat(-1)), dtype=np.int64, count=len(strings))


def term_columns(
    vocabulary: Mapping[str, int],
    strings: Sequence[str],
    spaced: Callable[[], list[str]] | None = None,
) -> np.ndarray:
    """The column of every string of ``strings`` in ``vocabulary`` (-1: not a term), as
    int64: what the token streams look a batch's terms up with (a :class:`TermColumns`
    in one compiled call, no dict made; any other mapping through its ``get``).
    ``spaced``: a function giving more strings, each holding a space (word pairs), looked
    up after ``strings`` (their columns follow) only when a term of ``vocabulary`` holds
    a space (a :class:`TermColumns` reads its bytes for it, no dict made)."""
    if spaced is not None and _has_spaced_terms(vocabulary):
        strings = [*strings, *spaced()]
    if type(vocabulary) is TermColumns:
        return vocabulary.columns(strings)
    return _dict_columns(vocabulary, strings)


def _has_spaced_terms(vocabulary: Mapping[str, int]) -> bool:
    """Whether a term of ``vocabulary`` may hold a space (a word n-gram)."""
    if type(vocabulary) is TermColumns:
        return vocabulary.any_spaced()
    return any(" " in t for t in vocabulary)


def build_lookup(terms: Sequence[str], cols: np.ndarray, ident: np.ndarray | None = None) -> Any:
    """Exact lookup table of ``terms`` (a vocabulary): ``terms[i]`` maps to column
    ``cols[i]``. Strings that are not exactly one token are left out (no token can equal
    them). ``ident``: the identity character table, if at hand (:func:`char_table`)."""
    ds, _ = _native.doc_set(terms, False)
    if ident is None:
        ident = char_table(False)
    return _native.build_lookup(ds, np.ascontiguousarray(cols, dtype=np.int64), ident)


def _vocab_lookup(vocabulary: Any, stop: frozenset[Any] | None, ident: Any = None) -> Any:
    """The compiled lookup table of ``vocabulary`` (cached while the mapping is unchanged:
    identity, and for a plain dict equality with a snapshot, are checked on every call);
    None when a column is out of range. ``ident``: as :func:`build_lookup`'s."""
    if type(vocabulary) is TermColumns:
        return vocabulary.table(stop)
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
    table = build_lookup(terms, cols, ident)
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
    reading = read(docs, lowercase)
    if reading is None:
        return None
    ds, lengths, tlow, tid = reading
    table = _vocab_lookup(vocabulary, stop, tid)
    if table is None:
        return None
    n_cols = len(vocabulary)
    track = first is not None

    def run(span: tuple[int, int]) -> Any:
        return _native.transform_run(ds, span[0], span[1], tlow, tid, table, n_cols, track)

    def job(team: Team) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        parts = team.map(run, team.spans)
        if first is not None:
            done = np.zeros(n_cols, dtype=bool)
            for part in parts:  # spans are consecutive: a column is new where first seen
                cols = part[3][~done[part[3]]]
                done[cols] = True
                first.append(cols)
        return team.rows([p[:3] for p in parts])

    return hand_off(job, lengths, n_threads)


def order_rows(
    indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, key: np.ndarray
) -> None:
    """Sort every CSR row by ``key[column]`` (unique keys), in place, in threads."""
    key = np.ascontiguousarray(key, dtype=np.int64)

    def job(team: Team) -> None:
        team.map(lambda s: _native.order_rows(indptr, indices, values, key, s[0], s[1]),
                 team.spans)  # fmt: skip

    hand_off(job, np.diff(indptr))
