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

from nbayes._statistics import CountStats
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._registry import Serializer
from nbayes.io._text_model import read_text_model, write_text_statistics
from nbayes.io.serializers._estimator import check_derivation, check_fitted
from nbayes.text import _model as M
from nbayes.text._textstats import TextStats
from nbayes.text.classifier import TextClassifier


def dump(model: TextClassifier, writer: ArrayWriter) -> dict[str, Any]:
    check_fitted(model)
    model._check_counting()  # a setting changed since the fit: the file would lie
    # the hyperparameters (ngram_range, class_prior) are checked by the writer
    return write_text_statistics(model.get_params(deep=False), model._stats, writer)


def load(d: dict[str, Any], reader: ArrayReader) -> TextClassifier:
    params, stats, terms = read_text_model(d, reader)
    model = TextClassifier(**params)
    check_derivation(partial(_derive_checks, model, stats))
    return model._set(stats, terms)  # the packed terms (or parsed list) themselves: no copy


def _derive_checks(model: TextClassifier, stats: TextStats) -> None:
    """What the first prediction's derivation checks, without deriving the model (its
    log-probabilities are as large as the counts, and it derives them then anyway): the
    family's derivation of one column (the hyperparameters against the classes). The
    vocabulary selection (min_df, max_df, max_features) is not: a model may keep no term
    yet, as the library leaves it (one document learnt with min_df=2, or every document
    but one unlearnt), and its file loads, to learn more (its prediction says why it
    cannot predict, as before it was saved; `nbayes forget` wrote such files that nothing
    would read again, a fuzz found)."""
    c = stats.counts
    one = CountStats(c.classes, c.class_count, c.feature_count[:, :1])
    model._family.derive(one, M.derivation_values(model.get_params(deep=False)))


SERIALIZERS = (Serializer("TextClassifier", TextClassifier, dump, load),)
