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

from nbayes._stats import CountStats
from nbayes.exceptions import ModelFileError
from nbayes.io import persist
from nbayes.io.persist import ArrayReader, ArrayWriter
from nbayes.text.classifier import TextClassifier, TextStats

_KEYS = ("hyperparameters", "classes", "n_docs", "vocabulary")


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
    where = "metadata['model']"
    persist.expect_dict(d, where, _KEYS)
    hp = persist.expect_dict(d["hyperparameters"], f"{where}['hyperparameters']")
    persist.expect_dict(hp, f"{where}['hyperparameters']", set(TextClassifier().get_params()))
    params = {
        k: persist.decode_param(v, f"{where}['hyperparameters'][{k!r}]") for k, v in hp.items()
    }
    if isinstance(params.get("ngram_range"), list):
        params["ngram_range"] = tuple(params["ngram_range"])
    model = TextClassifier(**params)
    try:
        model._check_params()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"invalid hyperparameters: {exc}") from None
    classes = persist.decode_labels(d["classes"], f"{where}['classes']")
    if len(classes) < 1:
        raise ModelFileError(f"{where}['classes'] is empty; a fitted model has a class")
    n_docs = persist.expect_int(d["n_docs"], f"{where}['n_docs']", 1)
    vocab = d["vocabulary"]
    if model.hashing:
        if vocab is not None:
            raise ModelFileError(f"{where}['vocabulary'] should be null for a hashing model")
        n_cols = int(model.n_features)
    else:
        terms = persist.expect_str_list(vocab, f"{where}['vocabulary']")
        if len(set(terms)) != len(terms):
            raise ModelFileError(f"{where}['vocabulary'] holds duplicate terms")
        n_cols = len(terms)
    C = len(classes)
    class_count = reader.get("class_count", shape=(C,), non_negative=True)
    fc = reader.get("feature_count", shape=(C, n_cols), non_negative=True)
    df = reader.get("doc_freq", np.int64, shape=(n_cols,), non_negative=True)
    tf = reader.get("term_freq", shape=(n_cols,), non_negative=True)
    if df.size and int(df.max()) > n_docs:
        raise ModelFileError(
            f"a term occurs in {int(df.max())} documents but the model has seen {n_docs}"
        )
    stats = TextStats(CountStats(classes, class_count, fc), df, tf, n_docs)
    vocabulary = None if model.hashing else list(terms)
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
