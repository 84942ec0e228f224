"""Model-file (de)serialiser of :class:`~nbayes.text.TextClassifier`.

``"model"`` is::

    {"hyperparameters": {...},            # the TextClassifier's own
     "classes": {...},
     "n_docs": 1200,                      # documents seen
     "vocabulary": ["free", "lunch", ...]}  # terms in column order; null when hashing

with the arrays ``class_count`` (documents per class), ``feature_count`` (n_classes,
n_columns: term counts per class), ``doc_freq`` (int64: documents per term) and
``term_freq`` (occurrences per term). A loaded model can be updated (its vocabulary stays
open), unlearned and merged.

The JSON and the arrays are read and checked by :func:`nbayes.io._text_model.read_text_model`,
the same function the lean prediction path (:func:`nbayes.load_scorer`) reads a
text model with, so both accept and refuse exactly the same files.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from nbayes._stats import CountStats
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import encode_labels, encode_params
from nbayes.io._invariants import check_ngram_range
from nbayes.io._registry import Serializer
from nbayes.io._text_model import read_text_model
from nbayes.io.serializers._estimator import check_derivation, check_fitted, check_saved_prior
from nbayes.text import _model as M
from nbayes.text._textstats import TextStats
from nbayes.text.classifier import TextClassifier


def dump(model: TextClassifier, writer: ArrayWriter) -> dict[str, Any]:
    check_fitted(model)
    model._check_counting()  # a setting changed since the fit: the file would lie
    stats = model._stats
    check_ngram_range(M.ngram_of(model.ngram_range), ValueError)
    check_saved_prior(model, len(stats.counts.classes))
    writer.put("class_count", stats.counts.class_count)
    writer.put("feature_count", stats.counts.feature_count)
    writer.put("doc_freq", stats.doc_freq, np.int64)
    writer.put("term_freq", stats.term_freq)
    return {
        "hyperparameters": encode_params(model.get_params(deep=False)),
        "classes": encode_labels(stats.counts.classes),
        "n_docs": int(stats.n_docs),
        "vocabulary": model._terms(),
    }


def load(d: dict[str, Any], reader: ArrayReader) -> TextClassifier:
    params, stats, terms = read_text_model(d, reader)
    model = TextClassifier(**params)
    check_derivation(partial(_derive_checks, model, stats))
    return model._set(stats, terms)  # the parsed list itself: no copy of 8 bytes a term


def _derive_checks(model: TextClassifier, stats: TextStats) -> None:
    """What the first prediction's derivation checks, without deriving the model (its
    log-probabilities are as large as the counts, and it derives them then anyway): the
    vocabulary selection (min_df, max_df, max_features) and the family's derivation of
    one column (the hyperparameters against the classes)."""
    M.sklearn_like_selection(
        None, stats.doc_freq, stats.term_freq, stats.n_docs,
        model.min_df, model.max_df, model.max_features,
    )  # fmt: skip
    c = stats.counts
    one = CountStats(c.classes, c.class_count, c.feature_count[:, :1])
    model._family.derive(one, M.derivation_values(model.get_params(deep=False)))


SERIALIZERS = (Serializer("TextClassifier", TextClassifier, dump, load),)
