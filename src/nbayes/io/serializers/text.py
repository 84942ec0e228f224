"""Model-file (de)serialiser of :class:`~nbayes.text.TextClassifier`.

``"model"`` is::

    {"hyperparameters": {...},            # the TextClassifier's own
     "classes": {...},
     "n_docs": 1200,                      # documents seen
     "vocabulary": {"n_terms": 130000}}   # the number of terms; null when hashing

with the arrays ``class_count`` (documents per class), ``feature_count`` (n_classes,
n_columns: term counts per class), ``doc_freq`` (int64: documents per term),
``term_freq`` (occurrences per term) and the terms in column order, packed (the columns
are written in term order, whatever order the model learnt its terms in):
``vocabulary/bytes`` (uint8: the terms' UTF-8 one after the other, lone surrogates as
Python's ``"surrogatepass"`` writes them) and ``vocabulary/offsets`` (int64, n_terms + 1:
term ``i`` is ``bytes[offsets[i]:offsets[i + 1]]``). A loaded model can be updated (its
vocabulary stays open), unlearned and merged.

Schema versions: files of metadata schema 2 (this layout, nbayes after 0.1.0) hold the
packed vocabulary; files of schema 1 held ``"vocabulary": ["free", "lunch", ...]`` (a
JSON list, ~150 bytes a term once parsed, against ~10 packed) and still load. A text
model with a vocabulary is written as schema 2, which an nbayes reading only schema 1
refuses ("upgrade nbayes") rather than misreading.

The JSON and the arrays are read and checked by :func:`nbayes.io._text_model.read_text_model`,
the same function the lean prediction path (:func:`nbayes.load_scorer`) reads a
text model with, so both accept and refuse exactly the same files.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from nbayes._statistics import CountStats
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
    table, doc_freq, term_freq = stats.counts.feature_count, stats.doc_freq, stats.term_freq
    packed = None if stats.vocabulary is None else stats.vocabulary.packed()  # no str per term
    if packed is not None and not packed.sorted:
        # columns in term order (a fit over chunks or batches appends new terms): the
        # file is the same whatever the order of learning, and a load selects its columns
        # without a sort or a copy of the table (compiled, no str per term)
        order = packed.order(np.arange(len(packed)))
        packed = packed.take(order, in_order=True)
        table, doc_freq, term_freq = table[:, order], doc_freq[order], term_freq[order]
    writer.put("class_count", stats.counts.class_count)
    writer.put("feature_count", table)
    writer.put("doc_freq", doc_freq, np.int64)
    writer.put("term_freq", term_freq)
    vocabulary = None
    if packed is not None:
        writer.put("vocabulary/bytes", packed.data, np.uint8)
        writer.put("vocabulary/offsets", packed.offsets, np.int64)
        writer.require_schema(2)
        vocabulary = {"n_terms": len(packed)}
    return {
        "hyperparameters": encode_params(model.get_params(deep=False)),
        "classes": encode_labels(stats.counts.classes),
        "n_docs": int(stats.n_docs),
        "vocabulary": vocabulary,
    }


def load(d: dict[str, Any], reader: ArrayReader) -> TextClassifier:
    params, stats, terms = read_text_model(d, reader)
    model = TextClassifier(**params)
    check_derivation(partial(_derive_checks, model, stats))
    return model._set(stats, terms)  # the packed terms (or parsed list) themselves: no copy


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
