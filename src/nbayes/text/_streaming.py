"""Training from a stream of document chunks: statistics summed in place.

:func:`fit_chunks` and :func:`fit_pruned_first` are the bodies of
:meth:`TextClassifier.fit_chunks` and ``fit_files(prune_first=True)``: one chunk of
documents is held at a time, its statistics added into an :class:`Accumulator` (columns
grow by doubling), so a large file is not copied once per chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

# scipy and scikit-learn are imported where a route needs them: nbayes train, update and
# forget count text without them (issue 28)
from .._statistics import CountStats, class_codes, union_classes
from . import _batch
from ._drivers.class_counts import count_by_class
from ._drivers.hash_counts import add_hashed
from ._model import Counting, sklearn_like_selection
from ._stop_words import warn_if_inconsistent
from ._textstats import TextStats
from ._vocabulary import Vocabulary

__all__ = ["Accumulator", "NoDocuments", "fit_chunks", "fit_pruned_first"]


class NoDocuments(ValueError):
    """fit_chunks was given no documents."""


class Accumulator:
    """Sums TextStats of successive batches in place (capacity doubling for new terms), so
    streaming a large file does not copy the statistics once per chunk."""

    def __init__(self) -> None:
        self.classes: np.ndarray | None = None
        self.class_count = np.zeros(0)
        self.fc = np.zeros((0, 0))
        self.df = np.zeros(0, dtype=np.int64)
        self.tf = np.zeros(0)
        self.width = 0
        self.n_docs = 0
        self.tf_from_fc = False

    def _grow_columns(self, width: int) -> None:
        capacity = self.fc.shape[1]
        if width <= capacity:
            return
        new = max(width, 2 * capacity)
        fc = np.zeros((self.fc.shape[0], new))
        fc[:, :capacity] = self.fc
        df = np.zeros(new, dtype=np.int64)
        df[:capacity] = self.df
        tf = np.zeros(new)
        tf[:capacity] = self.tf
        self.fc, self.df, self.tf = fc, df, tf

    def _grow_classes(self, batch_classes: np.ndarray) -> np.ndarray:
        if self.classes is None:
            self.classes = batch_classes
            self.class_count = np.zeros(len(batch_classes))
            self.fc = np.zeros((len(batch_classes), self.fc.shape[1]))
            return np.arange(len(batch_classes))
        classes = union_classes(self.classes, batch_classes)
        if len(classes) != len(self.classes):
            pos = np.searchsorted(classes, self.classes)
            fc = np.zeros((len(classes), self.fc.shape[1]))
            fc[pos] = self.fc
            cc = np.zeros(len(classes))
            cc[pos] = self.class_count
            self.classes, self.fc, self.class_count = classes, fc, cc
        return np.searchsorted(self.classes, batch_classes)

    def add(self, batch: TextStats) -> None:
        counts = batch.counts
        self.add_counts(counts.classes, counts.class_count, counts.feature_count,
                        batch.doc_freq, batch.term_freq, batch.n_docs)  # fmt: skip

    def add_counts(
        self,
        classes: np.ndarray,
        class_count: np.ndarray,
        fc: Any,
        doc_freq: np.ndarray,
        term_freq: np.ndarray,
        n_docs: int,
    ) -> None:
        """Add one batch's statistics, given by their parts (``fc``: per-class sums over
        the batch's columns, dense or sparse)."""
        rows = self._grow_classes(classes)
        width = int(doc_freq.shape[0])
        self._grow_columns(width)
        if not isinstance(fc, np.ndarray):  # hashed batches: add the non-zeros, never a
            import scipy.sparse as sp  # dense C x 2^20

            coo = sp.coo_matrix(fc)
            coo.sum_duplicates()
            self.fc[rows[coo.row], coo.col] += coo.data
        else:
            self.fc[rows, :width] += fc
        self.class_count[rows] += class_count
        self.df[:width] += doc_freq
        self.tf[:width] += np.asarray(term_freq).reshape(-1)
        self.width = max(self.width, width)
        self.n_docs += n_docs

    def add_hashed(self, docs: list[str], y: np.ndarray, counting: Counting, tokens: str) -> bool:
        """Add the hashed counts of a batch straight into the totals (no per-batch table,
        no term list; ``tokens``: the plan's tokenizing step, where the hashing kernel
        declines); False, having added nothing, if the documents are not all ``str``."""
        classes, codes = class_codes(y)
        width = counting.n_features
        rows = self._grow_classes(classes)
        self._grow_columns(width)
        if not add_hashed(docs, rows[codes], self.fc, self.df, width, counting.clip,
                          counting.lowercase, counting.stop, counting.ngram, tokens):  # fmt: skip
            return False
        self.tf_from_fc = True  # unweighted: the column totals, summed once in stats()
        self.class_count[rows] += np.bincount(codes, minlength=len(classes))
        self.width = max(self.width, width)
        self.n_docs += len(docs)
        return True

    def stats(self, vocabulary: Any = None) -> TextStats | None:
        """The totals (None: no batch), their columns named by ``vocabulary`` (a dict
        term -> column, or None)."""
        if self.classes is None:
            return None
        w = self.width
        counts = CountStats(self.classes, self.class_count, self.fc[:, :w])
        # the batches of fit_chunks are unweighted: term frequency = column total
        tf = self.fc[:, :w].sum(axis=0) if self.tf_from_fc else self.tf[:w]
        return TextStats.named(counts, self.df[:w], tf, self.n_docs, Vocabulary.of(vocabulary))


def fit_chunks(model: Any, chunks: Iterable[tuple[Sequence[str], Any]]) -> Any:
    """``model.fit_chunks(chunks)``: the statistics of every chunk, added in place."""
    counting = model._counting(check=True)
    warn_if_inconsistent(counting.stop_words, counting.lowercase)
    plan = counting.plan(weighted=False, stream=True)
    vocabulary: dict[str, int] = {}
    total = Accumulator()
    for texts, labels in chunks:  # hashed counts: added into the totals in place
        _batch.add_chunk(counting, model._docs(texts, counting), labels, total, vocabulary,
                         plan)  # fmt: skip
    stats = total.stats(None if counting.hashing else vocabulary)
    if stats is None:
        raise NoDocuments("No documents: nothing to learn from.")
    _batch.require_terms(stats)
    return model._set(stats, named=True)


def fit_pruned_first(model: Any, chunks: Callable[[], Iterable[tuple[Any, Any]]]) -> Any:
    """Two passes: frequencies to choose the vocabulary, then per-class counts."""
    counting = model._counting(check=True)
    warn_if_inconsistent(counting.stop_words, counting.lowercase)
    kw = dict(lowercase=counting.lowercase, ngram_range=counting.ngram, stop_words=counting.stop)
    everything: dict[str, int] = {}
    df_total = Accumulator()
    for texts, labels in chunks():
        docs = model._docs(texts)
        if len(docs) != len(labels):
            raise ValueError(f"Found {len(docs)} documents but {len(labels)} labels.")
        _, tf, df = count_by_class(
            docs, np.zeros(len(docs), dtype=np.int64), 1, binary=counting.binary,
            vocabulary=everything, dtype=np.float64, **kw,
        )  # fmt: skip
        one = CountStats(np.array([0]), np.array([float(len(docs))]), tf)
        df_total.add(TextStats(one, df, tf[0], len(docs)))
    freq = df_total.stats()
    if freq is None:
        raise NoDocuments("No documents: nothing to learn from.")
    kept = sklearn_like_selection(
        list(everything), freq.doc_freq, freq.term_freq, freq.n_docs, model.min_df,
        model.max_df, model.max_features,
    )  # fmt: skip
    terms = list(everything)
    vocabulary = {terms[j]: i for i, j in enumerate(kept)}
    del everything, terms, freq, df_total
    total = Accumulator()
    for texts, labels in chunks():
        docs, y = model._docs(texts), np.asarray(labels)
        _batch.check_labels(y)
        total.add(_batch.count(counting, docs, y, None, vocabulary, fixed=True))
    stats = total.stats()
    if stats is None:
        raise NoDocuments("No documents: nothing to learn from.")
    return model._set(stats, vocabulary)
