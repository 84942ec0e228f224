"""The text columns of MixedNB: a bag of words per column and its statistics.

A text column is one multinomial over its own vocabulary, which grows with the data
(:class:`TextStats`); :class:`_SklearnBagOfWords` turns documents into counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from .._statistics import CountStats

__all__ = ["TextStats"]


class _SklearnBagOfWords:
    """The bag of words of a text column: scikit-learn's CountVectorizer defaults.

    The whole interface is :meth:`count` (vocabulary and counts of a batch) and
    :meth:`transform` (counts over a given vocabulary); nbayes.text's fast path can
    replace it without touching the statistics.
    """

    def count(self, docs: Sequence[str]) -> tuple[np.ndarray, sp.csr_matrix]:
        from sklearn.feature_extraction.text import CountVectorizer

        try:
            cv = CountVectorizer()
            X = cv.fit_transform(docs)
        except ValueError:  # empty vocabulary: no document holds a word
            return np.zeros(0, dtype=object), sp.csr_matrix((len(docs), 0))
        return cv.get_feature_names_out().astype(object), sp.csr_matrix(X)

    def transform(self, docs: Sequence[str], vocabulary: np.ndarray) -> sp.csr_matrix:
        from sklearn.feature_extraction.text import CountVectorizer

        if len(vocabulary) == 0:
            return sp.csr_matrix((len(docs), 0))
        cv = CountVectorizer(vocabulary={str(w): i for i, w in enumerate(vocabulary)})
        return sp.csr_matrix(cv.transform(docs))


_BAG_OF_WORDS = _SklearnBagOfWords()


@dataclass(frozen=True, eq=False)
class TextStats:
    """Word counts per class over a vocabulary that grows with the data (sorted words)."""

    vocabulary: np.ndarray
    counts: CountStats

    @property
    def classes(self) -> np.ndarray:
        return self.counts.classes

    @property
    def class_count(self) -> np.ndarray:
        return self.counts.class_count

    @classmethod
    def from_batch(cls, docs: np.ndarray, y: np.ndarray, w: np.ndarray) -> TextStats:
        vocab, X = _BAG_OF_WORDS.count([str(d) for d in docs])
        return cls(vocab, CountStats.from_batch(X, y, w))

    def _on(self, vocabulary: np.ndarray) -> CountStats:
        fc = np.zeros((len(self.classes), len(vocabulary)))
        fc[:, np.searchsorted(vocabulary, self.vocabulary)] = self.counts.feature_count
        return replace(self.counts, feature_count=fc)

    def reindex(self, classes: np.ndarray) -> TextStats:
        return replace(self, counts=self.counts.reindex(classes))

    def merge(self, other: TextStats) -> TextStats:
        vocab = np.union1d(self.vocabulary, other.vocabulary).astype(object)
        return TextStats(vocab, self._on(vocab).merge(other._on(vocab)))

    def subtract(self, other: TextStats) -> TextStats:
        known = np.isin(other.vocabulary, self.vocabulary)
        extra = other.counts.feature_count[:, ~known].sum(axis=0) > 0
        if extra.any():
            word = other.vocabulary[~known][extra][0]
            raise ValueError(
                f"Cannot unlearn these examples: the word {word!r} was never learned. "
                "Nothing was changed."
            )
        # the batch's counts laid out over this vocabulary (its unknown words count 0)
        fc = np.zeros((len(other.classes), len(self.vocabulary)))
        pos = np.searchsorted(self.vocabulary, other.vocabulary[known])
        fc[:, pos] = other.counts.feature_count[:, known]
        counts = self.counts.subtract(replace(other.counts, feature_count=fc))
        used = counts.feature_count.sum(axis=0) > 0
        return TextStats(
            self.vocabulary[used], replace(counts, feature_count=counts.feature_count[:, used])
        )

    def drop_emptied(self, touched: np.ndarray) -> TextStats:
        return replace(self, counts=self.counts.drop_emptied(touched))
