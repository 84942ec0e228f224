"""Reading a saved TextClassifier's JSON and arrays, every claim checked: numpy only, so the
estimator's serializer (:mod:`nbayes.io.serializers.text`) and the lean prediction path
(:func:`nbayes.io.persist.load_scorer`) read a model file the same way.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np

from nbayes._statistics import CountStats
from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import decode_labels, decode_param, encode_labels, encode_params
from nbayes.io._invariants import (
    MAX_ROWS,
    check_class_prior,
    check_ngram_range,
    check_packed_terms,
    check_rows,
)
from nbayes.io._json import expect_dict, expect_int, expect_str_list
from nbayes.text._model import PARAM_NAMES, check_params, ngram_of
from nbayes.text._textstats import TextStats
from nbayes.text._vocabulary import PackedTerms

__all__ = ["read_text_model"]

_KEYS = ("hyperparameters", "classes", "n_docs", "vocabulary")


def read_text_model(
    d: dict[str, Any], reader: ArrayReader
) -> tuple[dict[str, Any], TextStats, PackedTerms | list[str] | None]:
    """The hyperparameters, statistics and terms (None when hashing) of the JSON ``d``
    of a saved TextClassifier, every claim checked (ModelFileError otherwise); the
    derivation from them is left to the caller.

    The terms are :class:`PackedTerms` (schema 2: ``{"n_terms": n}`` and the arrays
    ``vocabulary/bytes``, ``vocabulary/offsets``), or the list of str of an earlier
    file (schema 1: the JSON list)."""
    where = "metadata['model']"
    expect_dict(d, where, _KEYS)
    hp = expect_dict(d["hyperparameters"], f"{where}['hyperparameters']")
    expect_dict(hp, f"{where}['hyperparameters']", set(PARAM_NAMES))
    params = {k: decode_param(v, f"{where}['hyperparameters'][{k!r}]") for k, v in hp.items()}
    if isinstance(params.get("ngram_range"), list):
        params["ngram_range"] = tuple(params["ngram_range"])
    try:
        check_params(SimpleNamespace(**params))
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"invalid hyperparameters: {exc}") from None
    check_ngram_range(params["ngram_range"])
    classes = decode_labels(d["classes"], f"{where}['classes']")
    if len(classes) < 1:
        raise ModelFileError(f"{where}['classes'] is empty; a fitted model has a class")
    check_class_prior(params["class_prior"], len(classes))
    n_docs = expect_int(d["n_docs"], f"{where}['n_docs']", 1, MAX_ROWS)
    vocab = d["vocabulary"]
    terms: PackedTerms | list[str] | None = None
    if params["hashing"]:
        if vocab is not None:
            raise ModelFileError(f"{where}['vocabulary'] should be null for a hashing model")
        n_cols = int(params["n_features"])
    elif isinstance(vocab, list):  # files of schema 1
        terms = expect_str_list(vocab, f"{where}['vocabulary']")
        if not _distinct(terms):
            raise ModelFileError(f"{where}['vocabulary'] holds duplicate terms")
        n_cols = len(terms)
    else:
        terms = _packed(vocab, reader, f"{where}['vocabulary']")
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
    check_rows(n_docs, class_count, f"{where}['n_docs']")
    stats = TextStats(CountStats(classes, class_count, fc), df, tf, n_docs)
    return params, stats, terms


def _packed(vocab: Any, reader: ArrayReader, where: str) -> PackedTerms:
    """The packed vocabulary ``{"n_terms": n}`` with its two arrays, checked."""
    expect_dict(vocab, where, ("n_terms",))
    n = expect_int(vocab["n_terms"], f"{where}['n_terms']", 0, MAX_ROWS)
    offsets = reader.get("vocabulary/offsets", np.int64, shape=(n + 1,))
    data = reader.get("vocabulary/bytes", np.uint8, shape=(None,))
    return check_packed_terms(data, offsets, where)


def _distinct(terms: list[str]) -> bool:
    """Whether no term repeats: one pass without a copy for sorted terms (what fits
    write), a set otherwise (a set of the terms costs about as much as the terms)."""
    if all(a < b for a, b in itertools.pairwise(terms)):
        return True
    return len(set(terms)) == len(terms)


def write_text_statistics(
    params: dict[str, Any], stats: TextStats, writer: ArrayWriter
) -> dict[str, Any]:
    """The ``"model"`` metadata of a TextClassifier of hyperparameters ``params`` and
    statistics ``stats``, its arrays put into ``writer``: the serializer's ``dump`` of a
    fitted TextClassifier, and ``nbayes train``'s writer of the statistics it counted
    without the estimator (:mod:`nbayes.text._lean`), so both write the same file."""
    check_ngram_range(ngram_of(params["ngram_range"]), ValueError)
    try:  # a model file holding another prior does not load
        check_class_prior(params["class_prior"], len(stats.counts.classes), ValueError)
    except ValueError as exc:
        raise ValueError(
            f"Cannot save this TextClassifier: {exc}. Set a valid class_prior (set_params) "
            "and save again."
        ) from None
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
        "hyperparameters": encode_params(params),
        "classes": encode_labels(stats.counts.classes),
        "n_docs": int(stats.n_docs),
        "vocabulary": vocabulary,
    }
