"""Model-file (de)serialiser of :class:`~nbayes.text.TextClassifier`.

JSON holds the hyperparameters, the classes, the number of documents and the vocabulary
(terms in column order; null for hashed models); the arrays are the statistics: per-class
document counts and term counts, corpus document and term frequencies. A loaded model can
be updated (its vocabulary stays open), unlearned and merged.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from nbayes.exceptions import ModelFileError
from nbayes.io import persist
from nbayes.io.persist import ArrayReader, ArrayWriter
from nbayes.text._model import read_text_model
from nbayes.text.classifier import TextClassifier


def _dump(model: TextClassifier, writer: ArrayWriter) -> dict[str, Any]:
    if not model.__sklearn_is_fitted__():
        raise ValueError("This TextClassifier is not fitted yet: fit it before saving it.")
    stats = model._stats
    writer.put("class_count", stats.counts.class_count)
    writer.put("feature_count", stats.counts.feature_count)
    writer.put("doc_freq", stats.doc_freq, np.int64)
    writer.put("term_freq", stats.term_freq)
    return {
        "hyperparameters": {
            k: persist.encode_param(k, v) for k, v in model.get_params(deep=False).items()
        },
        "classes": persist.encode_labels(stats.counts.classes),
        "n_docs": int(stats.n_docs),
        "vocabulary": model._terms(),
    }


def _load(d: dict[str, Any], reader: ArrayReader) -> TextClassifier:
    # the checks of the JSON and the arrays are shared with nbayes.scoring.load_scorer
    params, stats, terms = read_text_model(d, reader)
    model = TextClassifier(**params)
    vocabulary = None if terms is None else list(terms)
    model._set(stats, vocabulary)
    try:
        with warnings.catch_warnings():
            # e.g. overflow from absurd but finite counts: shown again on first use
            warnings.simplefilter("ignore")
            model._derived()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"the hyperparameters do not fit the statistics: {exc}") from None
    return model._set(stats, vocabulary)


persist.register("TextClassifier", TextClassifier, _dump, _load)
