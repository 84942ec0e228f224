"""The learning calls of :class:`~nbayes.text.TextClassifier`, each all-or-nothing.

``fit``, ``partial_fit``, ``update`` and ``unlearn`` are the template's
(:class:`nbayes._template.base.BaseNB`), all-or-nothing as every model's (an override too:
:func:`nbayes._template.guards.all_or_nothing`), and so are the fits from chunks and files
(:func:`nbayes._template.guards.restored_on_failure`). ``fit`` (and the fits from chunks and
files, equal to it) also derive the kept vocabulary
before they return, so that a pruning that keeps no term fails at fit, as the Pipeline's
``CountVectorizer`` does, and not later at predict.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Self

from .._template.base import BaseNB
from .._template.guards import restored_on_failure
from . import _streaming

__all__ = ["TextLearning"]


class TextLearning(BaseNB):
    """The learning calls of a text model (mixed into TextClassifier before its hooks)."""

    _selection: Any  # TextClassifier's kept vocabulary (min_df, max_df, max_features)

    # (the template makes this override all-or-nothing too: a failure leaves the model as
    # it was)
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        self.__dict__.pop("_recounting", None)  # a fit counts with today's settings
        super().fit(X, y, sample_weight=sample_weight)
        self._selection()  # a pruning that keeps no term fails here, as the Pipeline's
        return self

    fit.__doc__ = BaseNB.fit.__doc__

    def fit_chunks(self, chunks: Iterable[tuple[Sequence[str], Any]]) -> Self:
        """Train from ``(documents, labels)`` chunks: equal to :meth:`fit` on all of them.

        The statistics of each chunk are added in place, so only one chunk of documents is
        held at a time.
        """
        with restored_on_failure(self):
            self.__dict__.pop("_recounting", None)
            fitted: Self = _streaming.fit_chunks(self, chunks)
            fitted._selection()
        return fitted

    def fit_files(
        self,
        source: Any,
        text_col: str = "text",
        label_col: str = "label",
        chunk_size: int = 10_000,
        prune_first: bool = False,
        **read_kw: Any,
    ) -> Self:
        """Train from files chunk by chunk (any source ``nbayes.io.read_texts`` reads).

        The result equals :meth:`fit` on all the documents. Memory stays bounded by one
        chunk plus the statistics, which are accumulated in place (with hashing, a
        fixed ``n_classes x n_features`` table; otherwise one column per distinct term).

        Parameters
        ----------
        prune_first : bool, default=False
            Read the source twice: first only each term's document and corpus frequency, to
            choose the vocabulary ``min_df``/``max_df``/``max_features`` keep; then the
            per-class counts of those terms only. The per-class statistics then grow with
            ``max_features`` instead of with every distinct term of the corpus (the first
            pass still holds one dictionary entry per term). Predictions equal :meth:`fit`;
            the model keeps statistics of the kept terms only, so a later :meth:`update`
            prunes among those.
        """
        from ..io import read_texts

        def chunks() -> Iterator[tuple[list[str], Any]]:
            for c in read_texts(source, text_col, label_col, chunk_size=chunk_size, **read_kw):
                yield c.texts, c.labels

        try:
            if prune_first and not self.hashing:
                with restored_on_failure(self):
                    self.__dict__.pop("_recounting", None)
                    return _streaming.fit_pruned_first(self, chunks)
            return self.fit_chunks(chunks())
        except _streaming.NoDocuments:
            raise ValueError(f"No documents found in {source!r}: nothing to learn from.") from None
