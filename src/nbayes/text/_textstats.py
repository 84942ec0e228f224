"""The statistics of a text model: per-class term counts over a growing vocabulary.

:class:`TextStats` is to :class:`~nbayes.text.TextClassifier` what
:class:`~nbayes._stats.CountStats` is to the core estimators: what ``fit`` makes of a batch,
``merge`` adds and ``subtract`` removes, exactly. Its columns are terms (a
:class:`Vocabulary`) or hash buckets (no vocabulary), and uniting the vocabularies is part
of the merge: a batch counted over a model's terms (``Vocabulary.extending``) lines up with
them without a look-up, any other pair of models is laid out over the union of their terms.

numpy only: the lean prediction path (:mod:`nbayes.scoring`) reads these statistics from
a model file without scikit-learn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._stats import CountStats, union_classes
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
    """

    counts: CountStats
    doc_freq: np.ndarray
    term_freq: np.ndarray
    n_docs: int

    #: ``merge`` takes several statistics at once (the template's ``merge`` uses it)
    merges_many = True

    @property
    def vocabulary(self) -> Vocabulary | None:
        """The term of every column, or None (hash buckets, or columns left unnamed)."""
        vocabulary: Vocabulary | None = self.__dict__.get("_vocabulary")
        return vocabulary

    # Pickles (Dask ships partition models, users pickle models) keep a mostly-zero count
    # table as its non-zero cells: a partition's vocabulary spread over 20 classes is
    # ~90 % zeros. The gaps between non-zero cells and whole counts (and the corpus
    # totals) travel as the smallest unsigned integers that hold them: fewer bytes to send
    # and to compress. Unpickling restores every array exactly, dtype and layout included.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        fc = self.counts.feature_count
        if isinstance(fc, np.ndarray) and fc.ndim == 2 and fc.size >= 4096:
            # a Fortran-ordered table (what the compiled counting fills) is read as its
            # transpose: no copy either way
            layout = "gapsT" if fc.flags.f_contiguous and not fc.flags.c_contiguous else "gaps"
            flat = (fc.T if layout == "gapsT" else fc).ravel()
            where = np.flatnonzero(flat)
            if 3 * len(where) < flat.size:
                state["counts"] = replace(self.counts, feature_count=np.empty((0, 0)))
                state["_packed_counts"] = (
                    fc.shape,
                    fc.dtype.str,
                    _smallest(np.diff(where, prepend=0)),
                    _smallest(flat[where]),
                    layout,
                )
        narrowed = {}
        for name in ("doc_freq", "term_freq"):
            small = _smallest(state[name])
            if small is not state[name]:
                narrowed[name] = state[name].dtype.str
                state[name] = small
        if narrowed:
            state["_narrowed"] = narrowed
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, dtype in state.pop("_narrowed", {}).items():
            state[name] = state[name].astype(np.dtype(dtype))
        packed = state.pop("_packed_counts", None)
        if packed is not None:
            shape, dtype, idx, values = packed[:4]
            layout = packed[4] if len(packed) > 4 else "cells"  # "cells": pickles of 0.x
            if layout != "cells":
                idx = np.cumsum(idx, dtype=np.int64)
            fc = np.zeros(shape[::-1] if layout == "gapsT" else shape, dtype=np.dtype(dtype))
            fc.ravel()[idx] = values
            state["counts"] = replace(
                state["counts"], feature_count=fc.T if layout == "gapsT" else fc
            )
        self.__dict__.update(state)

    def with_vocabulary(self, vocabulary: Vocabulary | None) -> TextStats:
        """These statistics with their columns named by ``vocabulary``."""
        out = TextStats(self.counts, self.doc_freq, self.term_freq, self.n_docs)
        if vocabulary is not None:
            object.__setattr__(out, "_vocabulary", vocabulary)
        return out

    @property
    def classes(self) -> np.ndarray:
        return self.counts.classes

    @property
    def class_count(self) -> np.ndarray:
        return self.counts.class_count

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
        too_much = (doc_freq < 0).any() or b.n_docs > self.n_docs
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


def _united_sorted(parts: Sequence[TextStats]) -> TextStats | None:
    """The merge of statistics over sorted vocabularies, in one pass (None: some
    vocabulary is missing or unsorted; they merge pair by pair)."""
    vocabularies = [p.vocabulary for p in parts]
    if any(v is None for v in vocabularies):
        return None
    runs = [_objects(v.terms) for v in vocabularies]  # type: ignore[union-attr]
    if not all(_is_sorted(run) for run in runs):
        return None
    terms, col = _sorted_union(runs)
    n_columns = len(terms)
    classes = parts[0].classes
    for p in parts[1:]:
        classes = union_classes(classes, p.classes)
    fc = np.zeros((len(classes), n_columns))
    class_count = np.zeros(len(classes))
    doc_freq = np.zeros(n_columns, dtype=np.int64)
    term_freq = np.zeros(n_columns)
    start = 0
    for p, run in zip(parts, runs, strict=True):
        cols = col[start : start + len(run)]
        start += len(run)
        rows = np.searchsorted(classes, p.classes)
        table = p.counts.feature_count
        # the non-zero cells only (most of a partition's table is zeros); each lands on
        # its own cell, so a fancy-indexed += adds every one
        nz = np.flatnonzero(table)
        r, c = np.divmod(nz, max(len(run), 1))
        fc.ravel()[rows[r] * n_columns + cols[c]] += table.ravel()[nz]
        class_count[rows] += p.class_count
        doc_freq[cols] += p.doc_freq
        term_freq[cols] += p.term_freq
    counts = replace(parts[0].counts, classes=classes, class_count=class_count, feature_count=fc)
    n_docs = sum(p.n_docs for p in parts)
    return TextStats(counts, doc_freq, term_freq, n_docs).with_vocabulary(
        Vocabulary(terms.tolist())
    )


def _sorted_union(runs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct terms of sorted runs, sorted, and the column of each run's terms
    (concatenated): one stable sort (timsort merges the runs), each term's rank among
    the distinct terms its column, so the layout is a single fit's."""
    both = np.concatenate(runs)
    order = np.argsort(both, kind="stable")
    ordered = both[order]
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    col = np.empty(len(both), dtype=np.int64)
    col[order] = np.cumsum(first) - 1
    return ordered[first], col


def _smallest(values: np.ndarray) -> np.ndarray:
    """Non-negative whole numbers in the smallest unsigned type that holds them exactly
    (anything else as it is)."""
    if len(values) == 0:
        return values
    top = values.max()
    if (
        values.min() < 0
        or top >= 2**32
        or (values.dtype.kind == "f" and not np.array_equal(values, np.floor(values)))
    ):
        return values
    for kind in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(kind).max:
            return values.astype(kind)
    return values  # pragma: no cover (top < 2**32 above)


def _objects(terms: Sequence[str]) -> np.ndarray:
    """The terms as a 1-D object array (compared as Python compares str)."""
    out = np.empty(len(terms), dtype=object)
    out[:] = list(terms)
    return out


def _is_sorted(terms: np.ndarray) -> bool:
    """Whether the terms are in strictly increasing ``str`` order."""
    return bool((terms[1:] > terms[:-1]).all())
