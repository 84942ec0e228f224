"""A text model's training without the estimator: what ``nbayes train`` counts with.

:class:`TextSettings` holds :class:`~nbayes.text.TextClassifier`'s hyperparameters and the
counting hooks :func:`nbayes.text._streaming.fit_chunks` calls (the same function
``TextClassifier.fit_chunks`` runs), so its statistics are those of the estimator, counted
by the same code. It imports neither scikit-learn nor scipy (the estimator's base classes
are scikit-learn's): a command is a process, and importing scikit-learn costs more than
counting a small corpus. Its model file is written by
:func:`nbayes.io.persist.save_text_statistics` with the serializer's own writer of the
statistics, so ``nbayes.load`` gives the same TextClassifier as from
``TextClassifier.fit_chunks`` + ``nbayes.save`` (the tests compare the files).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .._template.guards import check_stats
from . import _analyzer, _batch, _streaming
from . import _model as M
from ._textstats import TextStats, Vocabulary
from ._tokenize import FrozenVocabulary
from .recipes import resolve as resolve_recipe

__all__ = ["PROGRESS_BATCH", "TEXT_DEFAULTS", "TextSettings"]

#: The fewest documents counted at a time by :meth:`TextSettings.update` and
#: :meth:`TextSettings.unlearn` when they report their progress (``nbayes update``'s and
#: ``forget``'s bar and count; at most 20 batches, so larger ones for more documents): the
#: counts of the batches are summed in place (:class:`nbayes.text._streaming.Accumulator`,
#: as ``fit_chunks`` sums its chunks) and merged into the model once, so the result is that
#: of one call on all the documents. Each batch makes its terms' strings again (a term in
#: several batches, once per batch): on IMDB's 25,000 test reviews with 1-3-grams, batches
#: of 2,000 cost ~25 % more CPU time than one call, of 5,000 a few per cent.
PROGRESS_BATCH = 5_000

#: TextClassifier's hyperparameters and their defaults (a test checks they are the
#: estimator's: ``TextClassifier().get_params()``)
TEXT_DEFAULTS: dict[str, Any] = {
    "alpha": 1.0,
    "binary": False,
    "class_prior": None,
    "fit_prior": True,
    "force_alpha": True,
    "hashing": False,
    "lowercase": True,
    "max_df": 1.0,
    "max_features": None,
    "min_df": 1,
    "model": "multinomial",
    "n_features": 2**20,
    "ngram_range": (1, 1),
    "norm": False,
    "preprocess": None,
    "stop_words": None,
}


class TextSettings(M.CountedClasses, M.CountingHooks):
    """TextClassifier's hyperparameters, validated as the estimator validates them, and,
    after :meth:`fit_chunks`, the statistics it would hold (``_stats``)."""

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(TEXT_DEFAULTS))
        if unknown:
            raise TypeError(f"TextClassifier got unexpected keyword argument(s) {unknown}.")
        for name, default in TEXT_DEFAULTS.items():
            setattr(self, name, params.get(name, default))

    # the hooks of the counting (as TextClassifier's)
    model: str
    binary: bool
    hashing: bool
    lowercase: bool
    n_features: int
    ngram_range: Any
    preprocess: Any
    stop_words: Any
    min_df: Any
    max_df: Any
    max_features: int | None

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """The hyperparameters, by name (sorted, as scikit-learn's ``get_params``)."""
        return {name: getattr(self, name) for name in sorted(TEXT_DEFAULTS)}

    def set_params(self, **params: Any) -> TextSettings:
        unknown = sorted(set(params) - set(TEXT_DEFAULTS))
        if unknown:
            raise ValueError(f"Invalid parameter(s) {unknown} for TextClassifier.")
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def _docs(self, X: Any, counting: Any = None) -> list[str]:
        preprocess = resolve_recipe(self.preprocess) if counting is None else counting.preprocess
        return _analyzer.documents(X, preprocess)

    def _set(
        self, stats: TextStats, vocabulary: Any = None, *, named: bool = False
    ) -> TextSettings:
        self._stats = stats if named else stats.with_vocabulary(Vocabulary.of(vocabulary))
        self.__dict__.pop("_kept", None)
        return self

    # learning
    def fit_chunks(self, chunks: Iterable[tuple[Sequence[str], Any]]) -> TextSettings:
        """``TextClassifier.fit_chunks``: the statistics of every chunk, and the kept
        vocabulary chosen at once (a pruning that keeps no term fails here, as there)."""
        _streaming.fit_chunks(self, chunks)
        self._selection()
        return self

    def _selection(self) -> M.Selection:
        kept = self.__dict__.get("_kept")
        if kept is None:
            vocabulary = self._stats.vocabulary
            kept = M.select_columns(
                self._stats, None if vocabulary is None else vocabulary.terms,
                min_df=self.min_df, max_df=self.max_df, max_features=self.max_features,
                n_features=self.n_features, mapping=FrozenVocabulary,
            )  # fmt: skip
            self._kept = kept
        return kept

    @classmethod
    def fitted(cls, params: dict[str, Any], stats: TextStats, terms: Any) -> TextSettings:
        """The settings of a fitted TextClassifier (a model file's hyperparameters,
        statistics and terms: ``nbayes.io.persist.load_text_statistics``), to
        :meth:`update` or :meth:`unlearn`."""
        settings = cls(**params)
        settings._check_params()
        return settings._set(stats, terms)

    def _counted(self, X: Any, y: Any, progress: Callable[[int], Any] | None = None) -> TextStats:
        """TextClassifier's batch of a fitted model: over its vocabulary, extended by the
        new terms (``TextClassifier._batch`` with ``reset=False``). ``progress``: called
        with the number of documents of each batch counted (:data:`PROGRESS_BATCH`)."""
        self._check_params()
        docs, labels = _batch.checked(self._docs(X), y)
        counting = self._counting()
        vocabulary, index = None, None
        if not self.hashing:
            assert self._stats.vocabulary is not None
            vocabulary, index = Vocabulary.extending(self._stats.vocabulary)
        if progress is None or len(docs) <= PROGRESS_BATCH:
            stats = _batch.count(counting, docs, labels, None, index, named=vocabulary)
            if progress is not None:
                progress(len(docs))
            return stats
        # a batch at a time, summed in place as fit_chunks sums its chunks: the same
        # counts (the new terms' columns in another order, which the model file does not
        # keep: it writes the columns in term order)
        plan = counting.plan(weighted=False, stream=True)
        total = _streaming.Accumulator()
        size = max(PROGRESS_BATCH, -(-len(docs) // 20))
        for start in range(0, len(docs), size):
            part = docs[start : start + size]
            _batch.add_chunk(counting, part, labels[start : start + size], total,
                             {} if index is None else index, plan)  # fmt: skip
            progress(len(part))
        summed = total.stats(vocabulary)
        assert summed is not None
        return summed

    def _install(self, stats: TextStats) -> TextSettings:
        check_stats(stats, "TextClassifier")  # as the estimator's _set_stats refuses them
        self._stats = stats
        self.__dict__.pop("_kept", None)
        return self

    def update(self, X: Any, y: Any, progress: Callable[[int], Any] | None = None) -> TextSettings:
        """``TextClassifier.update`` (all or nothing: a failure changes nothing).
        ``progress``: called with the number of documents of each batch counted
        (:data:`PROGRESS_BATCH`), before the counts are merged in at once."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self._install(self._stats.merge(self._counted(X, y, progress)))

    def unlearn(self, X: Any, y: Any, progress: Callable[[int], Any] | None = None) -> TextSettings:
        """``TextClassifier.unlearn``: refuses what the model never learned, as it does.
        ``progress``: as :meth:`update`'s (the counts are subtracted at once)."""
        with np.errstate(over="ignore", invalid="ignore"):
            stats = self._stats.subtract(self._counted(X, y, progress))
            if self._clip:  # presence counts: a term is in at most every document of its class
                stats.counts.check_presence()
            stats = stats.without_unused_terms()
            if len(stats.classes) == 0:
                raise ValueError(
                    "Cannot unlearn every document: the model would have no class left. "
                    "Nothing was changed."
                )
            return self._install(stats)

    # what the command line reports and saves of a fitted model
    @property
    def statistics(self) -> TextStats:
        """The statistics counted (what ``TextClassifier`` would hold after the fit)."""
        return self._stats

    def n_kept_terms(self) -> int:
        """The number of terms (or buckets) the model keeps: its features."""
        return len(self._selection().names)
