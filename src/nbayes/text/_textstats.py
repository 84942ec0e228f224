"""The statistics of a text model: per-class term counts over a growing vocabulary.

:class:`TextStats` is to :class:`~nbayes.text.TextClassifier` what
:class:`~nbayes._statistics.CountStats` is to the core estimators: what ``fit`` makes of a batch,
``merge`` adds and ``subtract`` removes, exactly. Its columns are terms (a
:class:`Vocabulary`) or hash buckets (no vocabulary), and uniting the vocabularies is part
of the merge: a batch counted over a model's terms (``Vocabulary.extending``) lines up with
them without a look-up, any other pair of models is laid out over the union of their terms.

numpy only: the lean prediction path (:mod:`nbayes.text.scoring`) reads these statistics from
a model file without scikit-learn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._statistics import CountStats, union_classes
from ._cells import Cells, summed_cells, united_terms
from ._narrow import smallest
from ._vocabulary import Vocabulary

__all__ = ["TextStats", "Vocabulary"]


@dataclass(frozen=True, eq=False)
class TextStats:
    """Statistics of a text model over its columns (terms or hash buckets).

    ``counts`` holds per-class term counts (clipped to 1 per document for binary and
    Bernoulli models); ``n_docs``, ``doc_freq`` and ``term_freq`` are unweighted corpus
    totals that the vocabulary pruning (min_df, max_df, max_features) is derived from.
    :attr:`vocabulary` names the columns (None for hash buckets, and for the statistics of
    cross-validation folds, which share one column layout). It is not a dataclass field:
    ``dataclasses.replace`` makes statistics without column names (a copy whose columns
    may be laid out anew must not keep stale ones); :meth:`with_vocabulary` names them.

    Statistics that arrive packed (unpickled, or merged from packed ones) keep their count
    table as its non-zero cells and their terms as one UTF-8 string until something reads
    ``counts`` or :attr:`vocabulary`: a tree of merges (a distributed fit's reduce) never
    lays a partition's table out densely nor makes its terms into Python strings.
    """

    counts: CountStats
    doc_freq: np.ndarray
    term_freq: np.ndarray
    n_docs: int

    #: ``merge`` takes several statistics at once (the template's ``merge`` uses it)
    merges_many = True

    def __getattr__(self, name: str) -> Any:
        # only for ``counts`` of packed statistics, laid out (once) on first use
        state = self.__dict__
        if name == "counts" and "_cells" in state:
            counts = replace(state["_shell"], feature_count=state["_cells"].dense())
            object.__setattr__(self, "counts", counts)
            return counts
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def vocabulary(self) -> Vocabulary | None:
        """The term of every column, or None (hash buckets, or columns left unnamed)."""
        vocabulary: Vocabulary | None = self.__dict__.get("_vocabulary")
        return vocabulary

    # Pickles (Dask ships partition models, users pickle models) keep a mostly-zero count
    # table as its non-zero cells: a partition's vocabulary spread over 20 classes is
    # ~90 % zeros. The gaps between non-zero cells and whole counts (and the corpus
    # totals) travel as the smallest unsigned integers that hold them, and ``term_freq``
    # not at all when it is the column sums of the counts (any model fitted without sample
    # weights); the vocabulary pickles as its packed terms (UTF-8 bytes and lengths).
    # Unpickling restores every array exactly, dtype and layout included: the table when
    # it is first read.
    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in _PACKED}
        cells = self._table_cells()
        if cells.size >= 4096 and 3 * len(cells.index) < cells.size:
            state["counts"] = self._without_table()
            state["_packed_counts"] = cells.packed()
            if np.array_equal(self.term_freq, cells.column_sums()):
                state["term_freq"] = None
        else:  # a small or dense table travels as it is
            state["counts"] = self.counts
        narrowed = {}
        for name in ("doc_freq", "term_freq"):
            if state[name] is None:
                continue
            small = smallest(state[name])
            if small is not state[name]:
                narrowed[name] = state[name].dtype.str
                state[name] = small
        if narrowed:
            state["_narrowed"] = narrowed
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "doc_freq" not in state and "vocabulary" in state:
            state = _of_mixed_column(state)
        for name, dtype in state.pop("_narrowed", {}).items():
            state[name] = state[name].astype(np.dtype(dtype))
        packed = state.pop("_packed_counts", None)
        if packed is not None:
            cells = Cells.unpacked(*packed)
            state["_shell"] = state.pop("counts")
            state["_cells"] = cells
            if state["term_freq"] is None:
                state["term_freq"] = cells.column_sums()
        self.__dict__.update(state)

    def _without_table(self) -> CountStats:
        """The counts without their table (classes and class counts only)."""
        shell = self.__dict__.get("_shell")
        if shell is None:
            counts = self.counts
            shell = replace(counts, feature_count=np.zeros((len(counts.classes), 0)))
        return shell

    def _table_cells(self) -> Cells:
        """The count table as its non-zero cells (those it arrived as, or found)."""
        cells: Cells | None = self.__dict__.get("_cells")
        return Cells.of(self.counts.feature_count) if cells is None else cells

    @classmethod
    def named(
        cls,
        counts: CountStats,
        doc_freq: np.ndarray,
        term_freq: np.ndarray,
        n_docs: int,
        vocabulary: Vocabulary | None,
    ) -> TextStats:
        """Statistics with their columns named by ``vocabulary`` (None: unnamed), made at
        once (``TextStats(...).with_vocabulary(vocabulary)``)."""
        out = cls(counts, doc_freq, term_freq, n_docs)
        if vocabulary is not None:
            object.__setattr__(out, "_vocabulary", vocabulary)
        return out

    def with_vocabulary(self, vocabulary: Vocabulary | None) -> TextStats:
        """These statistics with their columns named by ``vocabulary``."""
        out = object.__new__(TextStats)
        out.__dict__.update((k, v) for k, v in self.__dict__.items() if k in _TABLE)
        if vocabulary is not None:
            object.__setattr__(out, "_vocabulary", vocabulary)
        return out

    @property
    def classes(self) -> np.ndarray:
        return self._counts_or_shell().classes

    @property
    def class_count(self) -> np.ndarray:
        return self._counts_or_shell().class_count

    def _counts_or_shell(self) -> CountStats:
        state = self.__dict__
        counts: CountStats = state["counts"] if "counts" in state else state["_shell"]
        return counts

    def bounded_parts(self) -> list[tuple[str, Any]]:
        """The statistics :func:`nbayes._statistics.bounds.beyond_bounds` checks, by name
        (a packed count table by its cells' sums: never laid out for the check)."""
        state = self.__dict__
        table = state["counts"].feature_count if "counts" in state else None
        if table is None:
            table = state["_cells"].column_sums()
        return [
            ("class_count", self.class_count),
            ("feature_count", table),
            ("term_freq", self.term_freq),
            ("n_docs", self.n_docs),
        ]

    @property
    def n_columns(self) -> int:
        return int(self.doc_freq.shape[0])

    def widen(self, n_columns: int) -> TextStats:
        """The same statistics over more columns (zeros for the new ones)."""
        extra = n_columns - self.n_columns
        if extra <= 0:
            return self
        c = self.counts
        fc = np.hstack([c.feature_count, np.zeros((int(c.feature_count.shape[0]), extra))])
        return TextStats(
            replace(c, feature_count=fc),
            np.concatenate([self.doc_freq, np.zeros(extra, dtype=np.int64)]),
            np.concatenate([self.term_freq, np.zeros(extra)]),
            self.n_docs,
        ).with_vocabulary(self.vocabulary)

    def scattered(self, cols: np.ndarray, n_columns: int) -> TextStats:
        """These statistics laid out over another column layout: column j to ``cols[j]``."""
        c = self.counts
        fc = np.zeros((c.feature_count.shape[0], n_columns))
        fc[:, cols] = c.feature_count
        df = np.zeros(n_columns, dtype=np.int64)
        df[cols] = self.doc_freq
        tf = np.zeros(n_columns)
        tf[cols] = self.term_freq
        return TextStats(replace(c, feature_count=fc), df, tf, self.n_docs)

    def merge(self, other: TextStats, *more: TextStats) -> TextStats:
        """The statistics of all these batches, over the union of their vocabularies.

        ``a.merge(b, c)`` equals ``a.merge(b).merge(c)``; several statistics over sorted
        vocabularies (what fits give, what a tree of merges gives) unite in one pass: one
        sort of all their terms, one table filled from each (the reduce step of a
        distributed fit merges several partitions' models at a time).
        """
        if more:
            parts = (self, other, *more)
            united = _united_sorted(parts)
            if united is not None:
                return united
            out = self
            for part in parts[1:]:
                out = out.merge(part)
            return out
        a, b = self, other
        va, vb = a.vocabulary, b.vocabulary
        vocabulary = va if vb is None else vb if va is None else None
        if va is not None and vb is not None:
            if vb is va or vb.base is va or len(va) == 0:  # b's columns extend a's
                vocabulary = vb.detached()
            elif va.base is vb or len(vb) == 0:
                vocabulary = va.detached()
            else:
                united = _united_sorted((a, b))  # both sorted: one pass, in sorted order
                if united is not None:
                    return united
                vocabulary, cols = va.united(vb)
                b = b.scattered(cols, len(vocabulary))
        n = max(a.n_columns, b.n_columns)
        a, b = a.widen(n), b.widen(n)
        return TextStats(
            a.counts.merge(b.counts),
            a.doc_freq + b.doc_freq,
            a.term_freq + b.term_freq,
            a.n_docs + b.n_docs,
        ).with_vocabulary(vocabulary)

    def subtract(self, other: TextStats) -> TextStats:
        """These statistics without ``other``'s documents (ValueError, and nothing
        changed, if they hold a word, or a count, these statistics never had)."""
        va, vb = self.vocabulary, other.vocabulary
        if va is not None and vb is not None and vb is not va:
            if vb.base is va:
                new = list(vb.terms[len(va) : len(va) + 5]) if len(vb) > len(va) else []
            else:
                get = va.index.get
                cols = np.fromiter((get(t, -1) for t in vb.terms), np.int64, len(vb))
                new = [t for t, c in zip(vb.terms, cols.tolist(), strict=True) if c < 0][:5]
                if not new:
                    other = other.scattered(cols, len(va))
            if new:
                raise ValueError(
                    f"Cannot unlearn these documents: they contain words the model never "
                    f"learned ({', '.join(map(repr, new))}). Nothing was changed."
                )
        b = other.widen(self.n_columns)
        doc_freq = self.doc_freq - b.doc_freq
        term_freq = self.term_freq - b.term_freq
        n_docs = self.n_docs - b.n_docs
        # a term is in at most every document left (else documents never learned)
        too_much = (doc_freq < 0).any() or n_docs < 0 or (doc_freq > n_docs).any()
        if too_much or (term_freq < -1e-9 * np.maximum(self.term_freq, 1)).any():
            raise ValueError(
                "Cannot unlearn these documents: some of their words were never learned "
                "(or not that often). Nothing was changed."
            )
        return TextStats(
            self.counts.subtract(b.counts),
            doc_freq,
            np.maximum(term_freq, 0.0),
            self.n_docs - b.n_docs,
        ).with_vocabulary(va)

    def with_counts(self, counts: CountStats) -> TextStats:
        """The same statistics (columns, totals, vocabulary) with other class counts."""
        out = TextStats(counts, self.doc_freq, self.term_freq, self.n_docs)
        return out.with_vocabulary(self.vocabulary)

    def reindex(self, classes: np.ndarray) -> TextStats:
        """The same statistics over ``classes`` (a superset of theirs: zeros for the new)."""
        return self.with_counts(self.counts.reindex(classes))

    def drop_emptied(self, touched: np.ndarray) -> TextStats:
        """Without the classes of ``touched`` that no document is left in."""
        return self.with_counts(self.counts.drop_emptied(touched))

    def without_unused_terms(self) -> TextStats:
        """Forget the terms no document uses any more (a fit without them never saw
        them); hash buckets stay."""
        if self.vocabulary is None:
            return self
        used = self.doc_freq > 0
        if used.all():
            return self
        keep = np.flatnonzero(used)
        terms = self.vocabulary.terms
        c = self.counts
        return TextStats(
            replace(c, feature_count=c.feature_count[:, keep]),
            self.doc_freq[keep],
            self.term_freq[keep],
            self.n_docs,
        ).with_vocabulary(Vocabulary(index={terms[j]: i for i, j in enumerate(keep.tolist())}))


def _of_mixed_column(state: dict[str, Any]) -> dict[str, Any]:
    """The state of the statistics of a MixedNB text column pickled before nbayes 0.3
    (``vocabulary``: sorted words, ``counts``): they counted no documents per term, so the
    word totals (rounded up) stand in for them, an upper bound (a MixedNB reads them only
    in ``unlearn``'s check)."""
    counts: CountStats = state["counts"]
    totals = counts.feature_count.sum(axis=0)
    return {
        "counts": counts,
        "doc_freq": np.ceil(totals).astype(np.int64),
        "term_freq": totals,
        "n_docs": int(round(float(counts.class_count.sum()))),
        "_vocabulary": Vocabulary(terms=[str(w) for w in state["vocabulary"]]),
    }


# what a TextStats holds besides its vocabulary, packed (_cells, _shell) or not
_TABLE = ("counts", "doc_freq", "term_freq", "n_docs", "_cells", "_shell")
# what its pickle writes its own way
_PACKED = ("counts", "_cells", "_shell")


def _united_sorted(parts: Sequence[TextStats]) -> TextStats | None:
    """The merge of statistics over sorted vocabularies, in one pass (None: some
    vocabulary is missing or unsorted; they merge pair by pair).

    The vocabularies unite in one k-way merge of their packed terms (compiled, on the
    UTF-8 bytes: no str made) and the count tables in one sum of their non-zero cells
    over the union: packed statistics (a pickle, an earlier merge) are never laid out
    densely, and the result keeps its cells for its own pickle.
    """
    vocabularies = [p.vocabulary for p in parts]
    if any(v is None for v in vocabularies):
        return None
    united = united_terms([v.packed() for v in vocabularies])  # type: ignore[union-attr]
    if united is None:
        return None
    terms, col = united
    out = _summed(parts, col, [len(v) for v in vocabularies], len(terms))  # type: ignore[arg-type]
    return out.with_vocabulary(Vocabulary(terms=terms))


def _summed(
    parts: Sequence[TextStats], col: np.ndarray, ns: Sequence[int], n_columns: int
) -> TextStats:
    """The statistics of ``parts`` over ``n_columns`` columns, the terms of part i going
    to columns ``col[sum(ns[:i]) : sum(ns[:i + 1])]``: the tables summed from their
    non-zero cells (compiled), the rest added column by column."""
    classes = parts[0].classes
    for p in parts[1:]:
        classes = union_classes(classes, p.classes)
    class_count = np.zeros(len(classes))
    doc_freq = np.zeros(n_columns, dtype=np.int64)
    term_freq = np.zeros(n_columns)
    tables = []
    end = 0
    for p, n in zip(parts, ns, strict=True):
        cols = col[end : end + n]
        end += n
        rows = np.searchsorted(classes, p.classes)
        tables.append((p._table_cells(), rows, cols))
        class_count[rows] += p.class_count
        doc_freq[cols] += p.doc_freq
        term_freq[cols] += p.term_freq
    table, cells = summed_cells(tables, len(classes), n_columns)
    shell = replace(parts[0]._without_table(), classes=classes, class_count=class_count)
    out = TextStats(
        replace(shell, feature_count=table), doc_freq, term_freq, sum(p.n_docs for p in parts)
    )
    object.__setattr__(out, "_cells", cells)
    object.__setattr__(out, "_shell", shell)
    return out
